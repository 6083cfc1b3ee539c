// The round with a streaming summariser (SPEC T17.6): callModel returns { chunks, usage }, the round
// validates the chunks as they arrive and stops reading at the first one after which the reply
// cannot pass.

import assert from "node:assert/strict";
import test from "node:test";

import { Input, ReplyCleanup, Status, StatusClass, compact } from "loopcompact";

const wire = JSON.stringify({
  version: 1,
  basis: { revision: 1, through_event_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" },
  model: { provider: "p", model: "m" },
  request_fingerprint: "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
  transcript: [
    { role: "user", blocks: [{ type: "text", text: "hello" }] },
    { role: "assistant", blocks: [{ type: "text", text: "done" }], usage: null },
    { role: "user", blocks: [{ type: "text", text: "next" }] },
  ],
  max_summary_tokens: 1000,
});

const SUMMARY =
  "<conversation_summary><goal>ship it</goal><constraints>no API change</constraints><decisions/><state>tests pass</state><open_items/></conversation_summary>";
// Without <constraints>: dead at the "d" of "<decisions" (the next section must be <constraints>);
// the diagnosis names that start tag at its "<".
const BROKEN = SUMMARY.replace("<constraints>no API change</constraints>", "");
const DECISIONS_AT = BROKEN.indexOf("<decisions/>");
const FENCE_OPEN = "```xml\n";
const FENCE_CLOSE = "\n```\n";
const split = (s, size) => Array.from({ length: Math.ceil(s.length / size) }, (_, i) => s.slice(i * size, (i + 1) * size));

/** A scripted streamed reply: counts the chunks read, whether it was stopped, and usage() calls. */
function streamed(parts, kind = "async") {
  const log = { read: 0, stopped: false, exhausted: false, usage: 0 };
  const usage = () => {
    log.usage++;
    return { outputTokens: 100, stop: "end" };
  };
  if (kind === "web") {
    const chunks = new ReadableStream(
      {
        pull(c) {
          if (log.read === parts.length) {
            log.exhausted = true;
            return c.close();
          }
          c.enqueue(parts[log.read++]);
        },
        cancel() {
          log.stopped = true;
        },
      },
      { highWaterMark: 0 },
    );
    return { reply: { chunks, usage }, log };
  }
  function* sync() {
    try {
      for (const p of parts) {
        log.read++;
        yield p;
      }
      log.exhausted = true;
    } finally {
      if (!log.exhausted) log.stopped = true;
    }
  }
  async function* asynchronous() {
    yield* sync();
  }
  return { reply: { chunks: kind === "sync" ? sync() : asynchronous(), usage }, log };
}

async function round(replies, options = { keepLast: 1 }) {
  const input = Input.parse(wire);
  const requests = [];
  try {
    const result = await compact(
      input,
      async (request) => {
        requests.push(request);
        return replies[request.attempt - 1].reply;
      },
      options,
    );
    return { result, requests };
  } finally {
    input.free();
  }
}

for (const kind of ["async", "sync", "web"]) {
  test(`a streamed reply (${kind}) gives the round of the whole reply`, async () => {
    const text = FENCE_OPEN + SUMMARY + FENCE_CLOSE;
    const s = streamed(split(text, 7), kind);
    const { result } = await round([s]);
    const input = Input.parse(wire);
    const whole = await compact(input, () => ({ text, outputTokens: 100, stop: "end" }), { keepLast: 1 });
    input.free();
    assert.equal(result.kind, "compacted");
    assert.equal(result.summary, whole.summary);
    assert.deepEqual(result.replacement, whole.replacement);
    assert.deepEqual(result.attempts[0].diagnosis, whole.attempts[0].diagnosis);
    assert.equal(result.attempts[0].aborted, false);
    assert.equal(result.attempts[0].replyBytes, text.length);
    assert.deepEqual([s.log.exhausted, s.log.stopped, s.log.usage], [true, false, 1]);
  });

  test(`a reply (${kind}) that dies at chunk k is not read further`, async () => {
    const doomed = streamed(split(FENCE_OPEN + BROKEN + FENCE_CLOSE, 8), kind);
    const good = streamed(split(SUMMARY, 8), kind);
    const { result, requests } = await round([doomed, good]);
    assert.equal(result.kind, "compacted");
    const k = Math.floor((FENCE_OPEN.length + DECISIONS_AT + 1) / 8) + 1;
    assert.deepEqual([doomed.log.read, doomed.log.stopped, doomed.log.exhausted, doomed.log.usage], [k, true, false, 0]);
    const [first, second] = result.attempts;
    assert.equal(first.aborted, true);
    assert.equal(first.replyBytes, 8 * k);
    assert.equal(first.stop, null);
    const d = first.diagnosis;
    assert.deepEqual([d.status, d.statusClass, d.offset, d.line, d.column, d.location, d.rule, d.expected], [
      Status.SUMMARY_XML_STRUCTURE,
      StatusClass.RETRY,
      FENCE_OPEN.length + DECISIONS_AT,
      2,
      DECISIONS_AT + 1,
      "summary",
      "X4.18",
      "<constraints>",
    ]);
    assert.deepEqual([d.removed, d.removedBefore], [ReplyCleanup.UNFENCE, FENCE_OPEN.length]);
    // The retry turn names where the reply broke, in the reply's own lines.
    const retry = requests[1].messages[2].content;
    assert.match(retry, /constraints/);
    assert.match(retry, /line 2/);
    assert.equal(second.aborted, false);
    assert.equal(second.status, Status.OK);
  });
}

test("a fence without unfence, or a leading prose line, dies in the first chunk", async () => {
  for (const [text, options] of [
    [FENCE_OPEN + SUMMARY + FENCE_CLOSE, { keepLast: 1, attempts: 1, unfence: false }],
    ["Here is the summary:\n" + SUMMARY, { keepLast: 1, attempts: 1 }],
  ]) {
    const s = streamed(split(text, 16));
    const { result } = await round([s], options);
    assert.equal(result.kind, "keepHistory");
    assert.equal(result.status, Status.SUMMARY_XML_STRUCTURE);
    assert.deepEqual([s.log.read, s.log.stopped], [1, true]);
    assert.deepEqual([result.attempts[0].diagnosis.offset, result.attempts[0].aborted], [0, true]);
  }
});

test("leading White_Space cut between chunks is trimmed; a reply over maxReplyBytes is aborted", async () => {
  const s = streamed([new Uint8Array([0xc2]), new Uint8Array([0xa0, 0x0a]), SUMMARY, "\n "]);
  const { result } = await round([s]);
  assert.equal(result.kind, "compacted");
  assert.deepEqual(result.attempts[0].removed, { flags: ReplyCleanup.TRIM, before: 3, after: 2 });
  // 40-byte chunks of the 155-byte summary under a 114-byte limit: the third chunk (120 bytes) passes it.
  const long = streamed(split(SUMMARY, 40));
  const over = await round([long], { keepLast: 1, attempts: 1, maxReplyBytes: 114 });
  assert.equal(over.result.status, Status.SUMMARY_BYTE_LIMIT);
  assert.deepEqual([long.log.read, long.log.stopped, over.result.attempts[0].replyBytes], [3, true, 120]);
});

test("an exception of the stream is one of callModel", async () => {
  async function* failing() {
    yield SUMMARY.slice(0, 20);
    throw new RangeError("outage");
  }
  const input = Input.parse(wire);
  try {
    await assert.rejects(compact(input, () => ({ chunks: failing(), usage: () => ({ outputTokens: 1 }) }), { keepLast: 1 }), RangeError);
    const kept = await compact(input, () => ({ chunks: failing(), usage: () => ({ outputTokens: 1 }) }), {
      keepLast: 1,
      onError: "keepHistory",
    });
    assert.equal(kept.kind, "keepHistory");
    assert.equal(kept.status, null);
    assert.match(kept.reason, /RangeError/);
    await assert.rejects(compact(input, () => ({ chunks: 12, usage: () => ({ outputTokens: 1 }) }), { keepLast: 1 }), TypeError);
    await assert.rejects(compact(input, () => ({ chunks: [SUMMARY, 3], usage: () => ({ outputTokens: 1 }) }), { keepLast: 1 }), TypeError);
    await assert.rejects(compact(input, () => ({ chunks: [SUMMARY], usage: () => 100 }), { keepLast: 1 }), TypeError);
  } finally {
    input.free();
  }
});
