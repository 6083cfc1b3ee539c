// Reading the conformance vectors (SPEC §12): JSON lines whose integers can exceed 2^53 (V12.4),
// so a small exact reader: integers that are not safe JS numbers become bigints.

import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** tests/vectors of the repository: LOOPCOMPACT_VECTORS, or found from this file in the checkout. */
export const VECTORS = process.env.LOOPCOMPACT_VECTORS ?? fileURLToPath(new URL("../../../tests/vectors/", import.meta.url));
/** The JSONTestSuite peer rows: LOOPCOMPACT_PEER_VECTORS, or ../shared/vectors beside the checkout. */
export const PEER =
  process.env.LOOPCOMPACT_PEER_VECTORS ??
  fileURLToPath(new URL("../../../../shared/vectors/peer_jsontestsuite.jsonl", import.meta.url));

export function parseExact(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const fail = (what) => {
    throw new SyntaxError(`${what} at ${i}`);
  };
  function value() {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const obj = {};
      ws();
      if (text[i] === "}") return i++, obj;
      for (;;) {
        ws();
        const key = string();
        ws();
        if (text[i++] !== ":") fail("expected :");
        obj[key] = value();
        ws();
        const d = text[i++];
        if (d === "}") return obj;
        if (d !== ",") fail("expected , or }");
      }
    }
    if (c === "[") {
      i++;
      const arr = [];
      ws();
      if (text[i] === "]") return i++, arr;
      for (;;) {
        arr.push(value());
        ws();
        const d = text[i++];
        if (d === "]") return arr;
        if (d !== ",") fail("expected , or ]");
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]]) {
      if (text.startsWith(word, i)) return (i += word.length), v;
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail("unexpected character");
    i += m[0].length;
    if (m[2] || m[3]) return Number(m[0]);
    const n = Number(m[0]);
    return Number.isSafeInteger(n) ? n : BigInt(m[0]);
  }
  function string() {
    if (text[i] !== '"') fail("expected a string");
    let j = i + 1;
    while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
    const s = JSON.parse(text.slice(i, j + 1));
    i = j + 1;
    return s;
  }
  const v = value();
  ws();
  if (i !== text.length) fail("trailing data");
  return v;
}

export function load(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map(parseExact);
}

/** Every vector file: [stem, rows]. */
export function vectorFiles() {
  return readdirSync(VECTORS)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => [f.slice(0, -".jsonl".length), load(join(VECTORS, f))]);
}

export const peerRows = () => (existsSync(PEER) ? load(PEER) : null);

/**
 * A byte field (V12.2): `x` as its UTF-8 bytes, or `x_base64` decoded; the empty document of a
 * `null_ptr` row stays empty (the package passes every empty document as (NULL, 0)).
 */
export function data(row, field) {
  if (field in row) return new TextEncoder().encode(row[field]);
  return new Uint8Array(Buffer.from(row[`${field}_base64`], "base64"));
}
