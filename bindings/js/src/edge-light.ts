/**
 * The package's entry point on Vercel's Edge runtime (the `edge-light` export condition): Next.js
 * and Vercel compile a `.wasm?module` import to a `WebAssembly.Module` (the edge runtime forbids
 * compiling one from bytes at run time), instantiated here at import, so no `init()` is needed.
 */

import wasm from "./loopcompact.wasm?module";

import { initSync } from "./index.js";

initSync(wasm);

export * from "./index.js";
