// A cargo runner for wasm32-wasip1 test binaries on Node's WASI (node:wasi, preview 1): the file
// system root is preopened as "/" and the environment passed through, so the tests read their
// fixtures as they do natively. Exits with the program's exit code; a trap (a panic aborts on
// wasm32) throws, and Node exits non-zero.
//
//   CARGO_TARGET_WASM32_WASIP1_RUNNER="node --no-warnings scripts/wasi-run.mjs" cargo test --target wasm32-wasip1
import { readFileSync } from "node:fs";
import { WASI } from "node:wasi";

const [file, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: "preview1", args: [file, ...args], env: process.env, preopens: { "/": "/" }, returnOnExit: true });
const module = await WebAssembly.compile(readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
