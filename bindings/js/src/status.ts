/** The library's version and the status table's texts and classes (SPEC §3, C13.3). */

import { int32 } from "./args.js";
import { cString } from "./buffers.js";
import { run, statusText } from "./errors.js";
import type { StatusClass } from "./generated.js";

/** The library version, e.g. `"0.1.0"` (`lc_version`). */
export function version(): string {
  return run((rt) => cString(rt, rt.x.lc_version()));
}

/** The C ABI version of the loaded module (`lc_abi_version`); `init` checks it is `ABI_VERSION`. */
export function abiVersion(): number {
  return run((rt) => rt.x.lc_abi_version());
}

/** `"LC_SUMMARY_XML_ROOT"`; `"LC_UNKNOWN_STATUS"` for a value not in the table. */
export function statusName(status: number): string {
  return statusText(int32(status, "status")).name;
}

/** The reference's reason string (`"xml_root"`); `""` for `LC_OK`, boundary codes and unknown values. */
export function statusReason(status: number): string {
  return statusText(int32(status, "status")).reason;
}

/** One human sentence describing the status. */
export function statusMessage(status: number): string {
  return statusText(int32(status, "status")).message;
}

/** What a host does next about a status (SPEC C13.3); `StatusClass.HOST` for a value not in the table. */
export function statusClass(status: number): StatusClass {
  return statusText(int32(status, "status")).statusClass;
}
