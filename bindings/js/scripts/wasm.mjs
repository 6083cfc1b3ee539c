// The cargo invocation of the WebAssembly build, shared by build.mjs and bench/bench.mjs.
//
// A profile `wasm` defined on the command line (`--config`), for this build only; the native
// release profile is untouched (its `panic = "unwind"` is what the FFI panic guard needs):
//   - inherits release; fat LTO, one codegen unit, stripped, no debug info;
//   - panic = "abort": wasm32-unknown-unknown cannot unwind, so a panic is a trap either way, and
//     abort leaves out the unwinding machinery;
//   - opt-level 2, the `simd128` target feature and LLVM's inline threshold lowered from 225 to
//     100: the smallest build that is also fast. With opt-level "z" or "s" the summary grammar runs
//     about 5x slower (memchr's scans are not vectorised there, even with memchr itself at 2);
//     opt-level 3 is larger and no faster; the lower inline threshold saves about 8% of the size at
//     no measurable cost (BENCHMARKS.md, the JavaScript section, has the measured variants).
//     `simd128` also selects the wasm SIMD lanes of the text scans (src/lanes.rs). Every engine the
//     package targets has Wasm SIMD (Node 16.4+, Chrome 91+, Firefox 89+, Safari 16.4+, V8-based
//     edge runtimes); README.md says what an engine without it gets (a CompileError at init).

import { execFileSync } from "node:child_process";
import { join } from "node:path";

export const DEFAULT = { optLevel: "2", simd: true, inline: 100 };

/** Builds the cdylib for wasm32-unknown-unknown in `root` and returns the path of the .wasm. */
export function cargoWasm(root, { optLevel, simd, inline } = DEFAULT, { quiet = false } = {}) {
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
  const rustflags = [];
  if (simd) rustflags.push("-C", "target-feature=+simd128");
  if (inline !== undefined) rustflags.push("-C", `llvm-args=-inline-threshold=${inline}`);
  config.push(`target.wasm32-unknown-unknown.rustflags=${JSON.stringify(rustflags)}`);
  const args = ["rustc", "--lib", "--locked", "--profile", "wasm", "--target", "wasm32-unknown-unknown", "--crate-type", "cdylib"];
  if (quiet) args.push("--quiet");
  for (const c of config) args.push("--config", c);
  execFileSync(process.env.CARGO || "cargo", args, { cwd: root, stdio: "inherit" });
  return join(root, "target", "wasm32-unknown-unknown", "wasm", "loopcompact.wasm");
}
