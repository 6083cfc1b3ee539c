// SPEC §17.3 from JavaScript: SummaryStream against validateSummary of the whole reply, and
// validateSummaryStream over web streams and async iterables, cancelled at the first dead chunk.

import assert from "node:assert/strict";
import test from "node:test";
import { join } from "node:path";

import * as lc from "loopcompact";
import { LoopcompactError, Status, StatusClass } from "loopcompact";

import { VECTORS, data, load } from "./vectors.mjs";

const VALID =
  "<conversation_summary><goal>ship &lt;safe&gt;</goal><constraints/><decisions/>" +
  "<state>tests &amp; build pass</state><open_items/></conversation_summary>";

/** null, or [status, offset, rule] of the LoopcompactError `f` throws. */
function verdict(f) {
  try {
    f();
    return null;
  } catch (e) {
    if (!(e instanceof LoopcompactError)) throw e;
    return [e.status, e.offset, e.rule];
  }
}

const chunks = (bytes, size) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

test("every summary_xml vector in chunks gives validateSummary's verdict", () => {
  for (const row of load(join(VECTORS, "summary_xml.jsonl"))) {
    const doc = data(row, "xml");
    const whole = verdict(() => lc.validateSummary(doc));
    assert.equal(whole === null, row.expect === "ok", row.name);
    for (const size of [1, 2, 7, 64, doc.length + 1]) {
      const stream = new lc.SummaryStream();
      let died = null;
      for (const chunk of chunks(doc, size)) {
        try {
          stream.feed(chunk);
        } catch (e) {
          if (!(e instanceof LoopcompactError)) throw e;
          if (died === null) died = e;
          else assert.deepEqual([e.status, e.offset], [died.status, died.offset], `${row.name}/${size}: a later feed`);
        }
      }
      assert.deepEqual(verdict(() => stream.finish()), whole, `${row.name}/${size}`);
      if (died === null) {
        assert.equal(stream.deadOffset, null, `${row.name}/${size}`);
      } else {
        // Dead: no continuation validates; the diagnosis is at or before the byte that killed it.
        assert.notEqual(whole, null, `${row.name}/${size}`);
        const dead = stream.deadOffset;
        assert.ok(dead !== null && dead < doc.length && died.offset <= dead, `${row.name}/${size}: ${died.offset} ${dead}`);
        assert.equal(died.statusClass, StatusClass.RETRY);
      }
      stream.free();
    }
    if (row.xml !== undefined) {
      // As strings, three UTF-16 units at a time: pairs cut between chunks are held, not replaced.
      const text = row.xml;
      const stream = new lc.SummaryStream();
      for (let i = 0; i < text.length; i += 3) {
        try {
          stream.feed(text.slice(i, i + 3));
        } catch (e) {
          if (!(e instanceof LoopcompactError)) throw e;
        }
      }
      assert.deepEqual(verdict(() => stream.finish()), whole, `${row.name}/strings`);
      stream.free();
    }
  }
});

test("a dead chunk throws with the diagnosis, and every later chunk the same", () => {
  const stream = new lc.SummaryStream();
  const first = "<conversation_summary><goal>a</goal>"; // 22 + 6 + 1 + 7 = 36 bytes
  assert.equal(first.length, 36);
  stream.feed(first);
  assert.equal(stream.deadOffset, null);
  // The next start tag must be <constraints>: dead at the "n" (38); the diagnosis names the tag
  // at its "<" (37, column 38), and every later feed throws the same, whatever it holds.
  for (const chunk of [" <notes>", "<constraints/>", ""]) {
    assert.throws(
      () => stream.feed(chunk),
      (e) => e instanceof LoopcompactError && e.status === Status.SUMMARY_XML_STRUCTURE && e.offset === 37 && e.line === 1 && e.column === 38,
    );
    assert.equal(stream.deadOffset, 38);
  }
  stream.free();
  stream.free();
  assert.equal(stream.freed, true);
  assert.throws(() => stream.feed("x"), /freed/);
  assert.throws(() => stream.deadOffset, /freed/);
});

test("a cut reference, a cut UTF-8 sequence and a cut surrogate pair stay viable", () => {
  const stream = new lc.SummaryStream();
  stream.feed("<conversation_summary><goal>a &am");
  stream.feed(new Uint8Array([0x70, 0x3b, 0x20, 0xc3])); // "p; " and half of "é"
  stream.feed(new Uint8Array([0xa9]));
  stream.feed("\u{1F600}".slice(0, 1)); // the first half of a pair
  stream.feed("\u{1F600}".slice(1) + "</goal><constraints/><decisions/><state>s</state><open_items/>");
  assert.equal(stream.deadOffset, null);
  assert.throws(() => stream.finish(), (e) => e.status === Status.SUMMARY_XML_SYNTAX); // the root is open
  stream.feed("</conversation_summary>");
  stream.finish();
  assert.throws(() => stream.feed(12), TypeError);
  stream[Symbol.dispose]();
  assert.equal(stream.freed, true);
});

test("a lone surrogate is U+FFFD, as validateSummary sends it", () => {
  const text = "<conversation_summary><goal>\ud800</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";
  lc.validateSummary(text);
  const stream = new lc.SummaryStream();
  stream.feed(text.slice(0, 29)); // ends in the lone high surrogate: held
  stream.feed(text.slice(29));
  stream.finish();
  stream.free();
});

/** A source that counts the chunks read and whether it was cancelled or returned. */
function source(parts) {
  const log = { read: 0, cancelled: false, returned: false };
  const stream = new ReadableStream({
    pull(controller) {
      if (log.read === parts.length) return controller.close();
      controller.enqueue(parts[log.read++]);
    },
    cancel() {
      log.cancelled = true;
    },
  }, { highWaterMark: 0 });
  async function* iterate() {
    try {
      for (const part of parts) {
        log.read++;
        yield part;
      }
    } finally {
      if (log.read < parts.length) log.returned = true;
    }
  }
  return { stream, iterate, log };
}

const split = (text, size) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

test("validateSummaryStream resolves with the summary, from a web stream or an async iterable", async () => {
  const a = source(split(VALID, 9));
  assert.equal(await lc.validateSummaryStream(a.stream), VALID);
  const b = source(chunks(new TextEncoder().encode(VALID), 5));
  assert.equal(await lc.validateSummaryStream(b.iterate()), VALID);
  assert.equal(b.log.returned, false);
  // Mixed strings and bytes.
  const c = source([VALID.slice(0, 40), new TextEncoder().encode(VALID.slice(40))]);
  assert.equal(await lc.validateSummaryStream(c.iterate()), VALID);
});

test("validateSummaryStream rejects at the first dead chunk and stops the source", async () => {
  // A Markdown fence: dead at byte 0, in the first chunk; nothing after it is pulled.
  const fenced = "```xml\n" + VALID + "\n```\n";
  const a = source(split(fenced, 16));
  await assert.rejects(lc.validateSummaryStream(a.stream), (e) => e.status === Status.SUMMARY_XML_STRUCTURE && e.offset === 0);
  assert.deepEqual(a.log, { read: 1, cancelled: true, returned: false });
  const b = source(split(fenced, 16));
  await assert.rejects(lc.validateSummaryStream(b.iterate()), (e) => e.offset === 0);
  assert.equal(b.log.read, 1);
  assert.equal(b.log.returned, true);
  // An incomplete reply is read to its end and rejected as validateSummary rejects it.
  const c = source(split(VALID.slice(0, 60), 16));
  await assert.rejects(lc.validateSummaryStream(c.stream), (e) => e.status === Status.SUMMARY_XML_SYNTAX);
  assert.equal(c.log.cancelled, false);
  await assert.rejects(lc.validateSummaryStream("text"), TypeError);
});
