/**
 * The package's entry point in Node: the API of `./index.js`, with the module already loaded from
 * the installed `loopcompact.wasm` (synchronously, at import), so no `init()` is needed.
 */

import { readFileSync } from "node:fs";

import { initSync } from "./index.js";

initSync(readFileSync(new URL("./loopcompact.wasm", import.meta.url)));

export * from "./index.js";
