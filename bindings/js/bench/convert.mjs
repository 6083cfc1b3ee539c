// node bench/convert.mjs: what a conversion from objects costs in the package, on an AI SDK chat of
// about 1 MiB (the conversations of tests/convert/fixtures/ai_sdk__*.json repeated, with fresh tool
// call ids, their base64 images as Uint8Array): the package's two ways of writing the objects as
// JSON text (src/source.ts: the fast path and the plain walk) against JSON.stringify of the same
// list with its bytes already base64, and the whole fromModelMessages against convert() of that
// JSON text (the library alone, plus copying the text in). CPU time per call, timed as
// bench/time.mjs says. Needs `npm run build` first.
//
//   node bench/convert.mjs            # prints a small Markdown table

import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import * as lc from "loopcompact";

import { time } from "./time.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const fixtures = join(root, "tests", "convert", "fixtures");
const conversations = readdirSync(fixtures)
  .filter((f) => f.startsWith("ai_sdk__") && !f.includes("pending_tail"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(fixtures, f), "utf8")).source);

/** base64 strings as Uint8Array, as a host holds them before serialising. */
function bytes(value) {
  if (Array.isArray(value)) return value.map(bytes);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) =>
      (k === "image" || k === "data") && typeof v === "string" && /^[A-Za-z0-9+/]+=*$/.test(v) && v.length % 4 === 0
        ? [k, Uint8Array.from(atob(v), (c) => c.charCodeAt(0))]
        : [k, bytes(v)],
    ),
  );
}

// Repeat the conversations up to 1 MiB of JSON, each copy's ids made unique.
const json = [];
let size = 2;
for (let copy = 0; size < 1 << 20; copy++) {
  for (const c of conversations) {
    const text = JSON.stringify(c).replace(/"(toolCallId|approvalId)":"([^"]+)"/g, `"$1":"$2_${copy}"`);
    json.push(...JSON.parse(text));
    size += text.length;
  }
}
const text = JSON.stringify(json);
const objects = bytes(json);

const rows = [
  ["JSON.stringify (bytes already base64)", () => JSON.stringify(json)],
  ["the package's JSON text: the fast path (JSON.stringify and its replacer)", () => lc._internal.sourceJson.fast(objects)],
  ["the package's JSON text: the plain walk", () => lc._internal.sourceJson.plain(objects)],
  ["fromModelMessages (objects, Uint8Array bytes)", () => lc.fromModelMessages(objects).free()],
  ["convert(Format.AI_SDK, json text)", () => lc.convert(lc.Format.AI_SDK, text).free()],
];
console.log(`AI SDK chat: ${json.length} messages, ${text.length} bytes of JSON; CPU time per call`);
console.log("\n| what | ms |\n|---|---|");
for (const [what, call] of rows) console.log(`| ${what} | ${(time(call) / 1e6).toFixed(2)} |`);
