// The cargo invocation of the WebAssembly build, shared by build.mjs and bench/bench.mjs.
//
// A profile `wasm` defined on the command line (`--config`), for this build only; the native
// release profile is untouched (its `panic = "unwind"` is what the FFI panic guard needs):
//   - inherits release; fat LTO, one codegen unit, stripped, no debug info;
//   - panic = "abort": wasm32-unknown-unknown cannot unwind, so a panic is a trap either way, and
//     abort leaves out the unwinding machinery;
//   - opt-level 2 and the `simd128` target feature: the smallest build that is also fast. With
//     opt-level "z" or "s" the summary grammar runs about 5x slower (its byte scans are not
//     vectorised); opt-level 3 is larger and no faster (BENCHMARKS.md, the JavaScript section, has
//     the measured variants). Every engine the package targets has Wasm SIMD (Node 16.4+, Chrome 91+,
//     Firefox 89+, Safari 16.4+, V8-based edge runtimes).

import { execFileSync } from "node:child_process";
import { join } from "node:path";

export const DEFAULT = { optLevel: "2", simd: true };

/** Builds the cdylib for wasm32-unknown-unknown in `root` and returns the path of the .wasm. */
export function cargoWasm(root, { optLevel, simd } = DEFAULT, { quiet = false } = {}) {
  const level = /^[0-3]$/.test(optLevel) ? optLevel : JSON.stringify(optLevel);
  const config = [
    'profile.wasm.inherits="release"',
    `profile.wasm.opt-level=${level}`,
    'profile.wasm.lto="fat"',
    "profile.wasm.codegen-units=1",
    'profile.wasm.panic="abort"',
    "profile.wasm.debug=0",
    "profile.wasm.strip=true",
  ];
  if (simd) config.push('target.wasm32-unknown-unknown.rustflags=["-C","target-feature=+simd128"]');
  const args = ["rustc", "--lib", "--locked", "--profile", "wasm", "--target", "wasm32-unknown-unknown", "--crate-type", "cdylib"];
  if (quiet) args.push("--quiet");
  for (const c of config) args.push("--config", c);
  execFileSync(process.env.CARGO || "cargo", args, { cwd: root, stdio: "inherit" });
  return join(root, "target", "wasm32-unknown-unknown", "wasm", "loopcompact.wasm");
}
