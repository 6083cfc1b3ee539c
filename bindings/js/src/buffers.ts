/**
 * Buffers across the boundary: documents copied into the instance's memory for one call
 * (`withBytes`), variable-length results read back through the two-call pattern (`withOutput`,
 * SPEC A3.2), and the module's static C strings.
 */

import type { Ptr } from "./abi.js";
import { Status } from "./generated.js";
import type { Runtime } from "./runtime.js";

/** A document: a string (sent as its UTF-8 encoding) or the exact bytes. */
export type Bytes = string | Uint8Array;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// Static strings of the module: the same addresses in every instance of it.
const cStrings = new Map<Ptr, string>();

/** @internal A static NUL-terminated string of the module (`""` for NULL). */
export function cString(rt: Runtime, ptr: Ptr): string {
  if (ptr === 0) return "";
  let text = cStrings.get(ptr);
  if (text === undefined) {
    const u8 = rt.u8();
    text = decoder.decode(u8.subarray(ptr, u8.indexOf(0, ptr)));
    cStrings.set(ptr, text);
  }
  return text;
}

/** @internal Copies `data` into the instance for the duration of `f`; the empty document is `(NULL, 0)`. */
export function withBytes<T>(rt: Runtime, data: Bytes, what: string, f: (ptr: Ptr, len: number) => T): T {
  let cap: number;
  if (typeof data === "string") {
    cap = data.length * 3; // the most UTF-8 bytes a UTF-16 string can take
  } else if (data instanceof Uint8Array) {
    cap = data.length;
  } else {
    throw new TypeError(`loopcompact: ${what} must be a string or a Uint8Array`);
  }
  if (cap === 0) return f(0, 0);
  const ptr = rt.alloc(cap);
  try {
    let len = cap;
    if (typeof data === "string") {
      len = encoder.encodeInto(data, rt.u8().subarray(ptr, ptr + cap)).written;
    } else {
      rt.u8().set(data, ptr);
    }
    return f(ptr, len);
  } finally {
    rt.free(ptr, cap);
  }
}

/**
 * @internal The two-call pattern: `call(buf, cap, outLen)` with a first guess of the size, again
 * with the size the library asked for; returns the status and, on `LC_OK`, `read` of the bytes
 * written.
 */
export function withOutput<T>(
  rt: Runtime,
  guess: number,
  call: (buf: Ptr, cap: number, outLen: Ptr) => number,
  read: (bytes: Uint8Array) => T,
): [number, T | null] {
  let cap = guess;
  for (;;) {
    const size = cap;
    const buf = size > 0 ? rt.alloc(size) : 0;
    try {
      const status = call(buf, size, rt.wordPtr());
      const len = rt.word();
      if (status === Status.ERR_BUFFER_TOO_SMALL && len > size) {
        cap = len;
        continue;
      }
      if (status !== Status.OK) return [status, null];
      return [status, read(rt.u8().subarray(buf, buf + len))];
    } finally {
      if (buf !== 0) rt.free(buf, size);
    }
  }
}

/** @internal A copy of the bytes, out of the instance's memory. */
export const copyBytes = (b: Uint8Array): Uint8Array => b.slice();
/** @internal The bytes as text (UTF-8; the library writes only UTF-8 text). */
export const decodeText = (b: Uint8Array): string => decoder.decode(b);
