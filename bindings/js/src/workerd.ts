/**
 * The package's entry point on workerd (Cloudflare Workers, the `workerd` export condition): the
 * module arrives as a compiled `WebAssembly.Module` (wrangler and workerd compile a `.wasm` import;
 * a worker may not compile one from bytes at run time) and is instantiated at import, so no
 * `init()` is needed.
 */

import wasm from "./loopcompact.wasm";

import { initSync } from "./index.js";

initSync(wasm);

export * from "./index.js";
