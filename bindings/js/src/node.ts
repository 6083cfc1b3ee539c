/**
 * The package's entry point in Node: the API of `./index.js`, with the module already loaded from
 * the installed `loopcompact.wasm` (synchronously, at import), so no `init()` is needed.
 */

import * as nodeBuffer from "node:buffer";
import { readFileSync } from "node:fs";

import { decodeTextPlain, setLargeTextDecoder } from "./buffers.js";
import { initSync } from "./index.js";

initSync(readFileSync(new URL("./loopcompact.wasm", import.meta.url)));

// Large text (a head, a replacement) as a string: ASCII text, nearly all of it, read as Latin-1,
// which is the same string; other text through TextDecoder. `isAscii` is Node's since 18.15 and
// 19.6 (Deno and Bun, which load this entry too, may lack it: then TextDecoder does all).
const { isAscii, Buffer: NodeBuffer } = nodeBuffer;
if (typeof isAscii === "function" && typeof NodeBuffer === "function") {
  setLargeTextDecoder((b) =>
    isAscii(b) ? NodeBuffer.from(b.buffer, b.byteOffset, b.length).toString("latin1") : decodeTextPlain(b),
  );
}

export * from "./index.js";
