// The linear memory a document takes in the instance (issue #28, "JS strings"): a string is encoded
// straight into the module's memory in about its UTF-8 size, not 3 bytes per UTF-16 unit (the
// bound the package used to allocate: 200 M characters took 601 MB), and memory grown by a large
// document is given back after the call (a WebAssembly memory cannot shrink: the package replaces
// the instance when no Input is alive). Each test file runs in a process of its own, so the
// instance starts small here.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import test from "node:test";

import * as lc from "loopcompact";
import { Section } from "loopcompact";

const S = (goal) => `<conversation_summary><goal>${goal}</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>`;
const WIRE = JSON.stringify({
  version: 1,
  basis: { revision: 3, through_event_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" },
  model: { provider: "p", model: "m" },
  request_fingerprint: "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
  transcript: [{ role: "user", blocks: [{ type: "text", text: "hello" }] }],
  max_summary_tokens: 32,
});
const MiB = 1 << 20;
const utf8Length = (s) => Buffer.byteLength(s, "utf8");

/** How much the instance's memory grows while it validates `text` (an Input kept alive meanwhile,
 * so that the instance, and the memory the call grew, stay for the measurement). */
function growth(text) {
  const keep = lc.Input.parse(WIRE);
  try {
    const before = lc._internal.memoryBytes();
    lc.validateSummary(text);
    return lc._internal.memoryBytes() - before;
  } finally {
    keep.free();
  }
}

test("a 32 M character ASCII string takes about its UTF-8 size, and the memory is given back", () => {
  const start = lc._internal.memoryBytes();
  assert.ok(start < 16 * MiB, `the instance starts at ${start} bytes`);
  const text = S("x".repeat(32 * MiB));
  const grown = growth(text);
  // The UTF-8 size is the string's length; the old allocation was 3 bytes per unit (96 MiB here).
  assert.ok(grown <= 1.1 * text.length + 2 * MiB, `memory grew ${grown} bytes for ${text.length} bytes of UTF-8`);
  // With no Input alive, the call leaves a fresh instance behind.
  lc.validateSummary(text);
  const after = lc._internal.memoryBytes();
  assert.ok(after <= start + MiB, `the memory is ${after} bytes after the call, ${start} before`);
});

test("a large string that is not ASCII takes about its UTF-8 size", () => {
  // 2, 3 and 4 bytes per character, after an ASCII start that fills the first guess (the string's
  // length) with a quarter of the text: the block grows twice, by estimates.
  const text = S("a".repeat(4 * MiB) + "é".repeat(4 * MiB) + "中".repeat(4 * MiB) + "😀".repeat(2 * MiB));
  const bytes = utf8Length(text);
  const grown = growth(text);
  assert.ok(grown <= 1.15 * bytes + 2 * MiB, `memory grew ${grown} bytes for ${bytes} bytes of UTF-8 (${text.length} units)`);
});

test("strings of every mix of widths arrive intact", () => {
  // Longer than the input block (so the growing path is taken), with the width changing at and
  // around every guess; lone surrogates become U+FFFD, as TextEncoder makes them.
  const pieces = ["a", "é", "中", "😀", "\ud800", "\udc00x"];
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  for (const [first, second] of pieces.flatMap((p) => pieces.map((q) => [p, q]))) {
    for (const split of [1, 1000, 30_000, 70_000]) {
      const goal = first.repeat(split) + second.repeat(40_000) + first.repeat(7);
      const text = S(goal);
      assert.equal(lc.summarySectionText(text, Section.GOAL), decoder.decode(encoder.encode(goal)), `${first} ${second} ${split}`);
    }
  }
});

test("short strings of every mix of widths arrive intact (the input block)", () => {
  // Strings up to a third of the input block are encoded into it; lone surrogates become U+FFFD,
  // a NUL is refused by the summary grammar (X4.8).
  const pieces = ["", "a", "~", "\u007f", "\u0080", "é", "中", "😀", "\ud800", "\udc00", "\0"];
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  for (const [first, second] of pieces.flatMap((p) => pieces.map((q) => [p, q]))) {
    for (const n of [0, 1, 5, 3000]) {
      const goal = `g${first.repeat(n)}${second}${first}`;
      const want = decoder.decode(encoder.encode(goal));
      if (/[\0]/.test(want)) {
        assert.throws(() => lc.validateSummary(S(goal)), lc.LoopcompactError);
        continue;
      }
      assert.equal(lc.summarySectionText(S(goal), Section.GOAL), want, `${first} ${second} ${n}`);
    }
  }
});

test("a Conversion holds the instance; a 48 MiB string converts, and the memory is given back once it is freed", () => {
  const big = "x".repeat(48 * MiB);
  const c = lc.fromModelMessages([{ role: "user", content: big }]);
  assert.equal(c.transcript.length, big.length + '[{"role":"user","blocks":[{"type":"text","text":""}]}]'.length);
  // The conversion's handle lives in the instance: it is not replaced while the conversion is alive.
  const held = lc._internal.memoryBytes();
  assert.ok(held > 48 * MiB);
  lc.validateSummary(S("g"));
  assert.equal(lc._internal.memoryBytes(), held);
  const input = c.input({ provider: "p", model: "m", maxSummaryTokens: 32, revision: 1 });
  c.free();
  // Nor while an Input made from it is.
  const grown = lc._internal.memoryBytes();
  lc.validateSummary(S("g"));
  assert.equal(lc._internal.memoryBytes(), grown);
  input.free();
  lc.validateSummary(S("g"));
  assert.ok(lc._internal.memoryBytes() < 16 * MiB, `a fresh instance once both are freed: ${lc._internal.memoryBytes()} bytes`);
});

test("a Conversion and an Input never freed are freed when collected (the safety net), and the instance is given back", () => {
  // A process of its own with --expose-gc: drop both, collect, and the next calls get a fresh,
  // small instance (the finalizers counted them out of the instance and freed their handles).
  const script = `
    import * as lc from "loopcompact";
    const S = ${JSON.stringify(S("g"))};
    let c = lc.fromModelMessages([{ role: "user", content: "x".repeat(32 * 1024 * 1024) }]);
    let input = c.input({ provider: "p", model: "m", maxSummaryTokens: 32, revision: 1 });
    const held = lc._internal.memoryBytes();
    lc.validateSummary(S);
    if (lc._internal.memoryBytes() !== held) throw new Error("replaced while held");
    c = null;
    input = null;
    let after = held;
    for (let i = 0; i < 50 && after === held; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
      lc.validateSummary(S);
      lc.validateSummary(S);
      after = lc._internal.memoryBytes();
    }
    console.log(JSON.stringify({ held, after }));
  `;
  const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8", cwd: process.cwd() });
  assert.equal(child.status, 0, child.stderr);
  const { held, after } = JSON.parse(child.stdout);
  assert.ok(held > 32 * MiB && after < 16 * MiB, `${held} bytes held, ${after} after collection`);
});
