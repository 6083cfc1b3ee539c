// The round of SPEC §15 and transcript safety of §14 through the installed package: the bare reply
// (R15.1-R15.7), the head (R15.8), the replacement and its check (R15.9-R15.11), the pairing and
// cut functions and the loop guard (S14.3-S14.6), and `compact` (R15.12) against a scripted model.
// Expected offsets, removals and cuts are worked out by hand in the comments.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import test from "node:test";
import { fileURLToPath } from "node:url";

import * as lc from "loopcompact";
import { Input, LoopcompactError, ReplyCleanup, Status, StatusClass, WITHHELD, compact } from "loopcompact";

const EVENT_ID = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const FP = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
const MAX_SUMMARY_TOKENS = 1000;
const wireOf = (messages, maxSummaryTokens = MAX_SUMMARY_TOKENS) =>
  JSON.stringify({
    version: 1,
    basis: { revision: 1, through_event_id: EVENT_ID },
    model: { provider: "p", model: "m" },
    request_fingerprint: FP,
    transcript: messages,
    max_summary_tokens: maxSummaryTokens,
  });
const system = (text) => ({ role: "system", blocks: [{ type: "text", text }] });
const user = (text) => ({ role: "user", blocks: [{ type: "text", text }] });
const assistant = (text) => ({ role: "assistant", blocks: [{ type: "text", text }], usage: null });
/** An assistant message that thinks (signed), then calls a tool with id `id`. */
const calls = (id, signature) => ({
  role: "assistant",
  blocks: [
    { type: "thinking", thinking: "plan", signature },
    { type: "tool_use", id, name: "grep", input: { q: "x" } },
  ],
  usage: { input_tokens: 5, output_tokens: 7 },
});
/** A call (message 1, block 0) that no result answers: the transcript fails S14.3. */
const PENDING = [
  { role: "user", blocks: [{ type: "text", text: "hi" }] },
  { role: "assistant", blocks: [{ type: "tool_use", id: "c9", name: "grep", input: { q: "x" } }], usage: null },
  { role: "assistant", blocks: [{ type: "text", text: "x" }], usage: null },
];
const tool = (id, text = "found") => ({ role: "tool", blocks: [{ type: "text", text }], tool_use_id: id, is_error: false });

/** 0 system, 1 user, 2 assistant calls c1 (signed thinking), 3 tool c1, 4 assistant, 5 user, 6 assistant. */
const MESSAGES = [system("rules"), user("hello"), calls("c1", "sig-1"), tool("c1"), assistant("done"), user("next"), assistant("ok")];

const SUMMARY =
  "<conversation_summary><goal>ship it</goal><constraints/><decisions/><state>tests pass</state><open_items/></conversation_summary>";
/** The same summary without its constraints section: a RETRY verdict (X4.18). */
const BROKEN = SUMMARY.replace("<constraints/>", "");
const SMALLEST = "<conversation_summary><goal>.</goal><constraints/><decisions/><state>.</state><open_items/></conversation_summary>";
const utf8 = (s) => new TextEncoder().encode(s);
const text = (bytes) => new TextDecoder().decode(bytes);
const ALL = 2n ** 64n - 1n;

function withInput(messages, f, maxSummaryTokens) {
  const input = Input.parse(wireOf(messages, maxSummaryTokens));
  try {
    return f(input);
  } finally {
    input.free();
  }
}

async function withInputAsync(messages, f, maxSummaryTokens) {
  const input = Input.parse(wireOf(messages, maxSummaryTokens));
  try {
    return await f(input);
  } finally {
    input.free();
  }
}

/** Runs `call`, which must throw a LoopcompactError, and returns it. */
function rejection(call) {
  try {
    call();
  } catch (e) {
    assert.ok(e instanceof LoopcompactError, `not a LoopcompactError: ${e}`);
    return e;
  }
  assert.fail("no error");
}

// ---- the bare reply (R15.1-R15.7) ----------------------------------------------------------------

const REPLY = { outputTokens: 900, maxReplyBytes: 4096 };

test("validateReply: a valid reply is its own summary; nothing is removed unasked (R15.5, R15.6)", () =>
  withInput(MESSAGES, (input) => {
    assert.equal(input.validateReply(SUMMARY, REPLY), SUMMARY);
    assert.equal(input.validateReply(utf8(SUMMARY), { ...REPLY, stop: "end" }), SUMMARY);
    // A stop of "length" on a valid summary is still a summary (R15.4).
    assert.equal(input.validateReply(SUMMARY, { ...REPLY, stop: "length" }), SUMMARY);
    const padded = rejection(() => input.validateReply(`\n${SUMMARY}\n`, REPLY));
    assert.equal(padded.name, "LC_SUMMARY_XML_STRUCTURE");
    assert.equal(padded.removed, 0);
    assert.equal(input.validateReply(`\n${SUMMARY}\n`, { ...REPLY, trim: true }), SUMMARY);
  }));

test("validateReply: cleanup and what it removed, on success and in the diagnosis (R15.5, R15.7)", () =>
  withInput(MESSAGES, (input) => {
    // "```xml\n" is 7 bytes before the summary, "\n```" 4 after.
    assert.equal(input.validateReply("```xml\n" + SUMMARY + "\n```", { ...REPLY, unfence: true }), SUMMARY);
    // Prose is never removed.
    assert.equal(
      rejection(() => input.validateReply("Here it is:\n```xml\n" + SUMMARY + "\n```", { ...REPLY, trim: true, unfence: true })).name,
      "LC_SUMMARY_XML_STRUCTURE",
    );
    // A failure after cleanup is located in the reply as it arrived: "\n\n" (2) + "```xml\n" (7)
    // before the text, so the "</decision>" of the broken text is 9 bytes further on; trim took
    // "\n\n" and the last "\n", unfence "```xml\n" and "\n```": 9 before, 5 after, both flags.
    const broken = SUMMARY.replace("<decisions/>", "<decisions></decision>");
    const reply = "\n\n```xml\n" + broken + "\n```\n";
    const e = rejection(() => input.validateReply(reply, { ...REPLY, trim: true, unfence: true }));
    assert.equal(e.name, "LC_SUMMARY_XML_SYNTAX");
    assert.equal(e.offset, 9 + broken.indexOf("</decision>"));
    // Three LFs before it ("\n\n", the fence's line): line 4, and the text starts that line.
    assert.equal(e.line, 4);
    assert.equal(e.column, broken.indexOf("</decision>") + 1);
    assert.equal(e.location, "summary");
    assert.equal(e.removed, ReplyCleanup.TRIM | ReplyCleanup.UNFENCE);
    assert.equal(e.removedBefore, 9);
    assert.equal(e.removedAfter, 5);
    assert.match(e.message, /cleanup removed 9 bytes before, 5 after/);
  }));

test("validateReply: truncation, usage, limits and bytes that are not text (R15.2-R15.4)", () =>
  withInput(MESSAGES, (input) => {
    const half = SUMMARY.slice(0, SUMMARY.length / 2);
    const cut = rejection(() => input.validateReply(half, { outputTokens: 1000, maxReplyBytes: 4096, stop: "length" }));
    assert.equal(cut.name, "LC_REPLY_TRUNCATED");
    assert.equal(cut.statusClass, StatusClass.RETRY);
    assert.equal(cut.rule, "R15.4");
    assert.equal(cut.limit, BigInt(MAX_SUMMARY_TOKENS));
    assert.equal(cut.actual, 1000n);
    assert.match(cut.retryMessage(), /cut off/);
    // Without "length" the same text is the grammar's verdict.
    assert.equal(rejection(() => input.validateReply(half, { outputTokens: 1000, maxReplyBytes: 4096 })).name, "LC_SUMMARY_XML_SYNTAX");

    const usage = rejection(() => input.validateReply(SUMMARY, { outputTokens: 0, maxReplyBytes: 4096 }));
    assert.equal(usage.name, "LC_SUMMARY_TOKEN_USAGE");
    assert.equal(usage.statusClass, StatusClass.DISCARD);
    const over = rejection(() => input.validateReply(SUMMARY, { outputTokens: MAX_SUMMARY_TOKENS + 1, maxReplyBytes: 4096 }));
    assert.equal(over.name, "LC_SUMMARY_TOKEN_LIMIT");

    // The smallest summary is 114 bytes: a limit of 114 takes it, 113 can take no reply at all.
    assert.equal(SMALLEST.length, lc.SMALLEST_SUMMARY_LEN);
    assert.equal(input.validateReply(SMALLEST, { outputTokens: 1, maxReplyBytes: 114 }), SMALLEST);
    const unreachable = rejection(() => input.validateReply(SMALLEST, { outputTokens: 1, maxReplyBytes: 113 }));
    assert.equal(unreachable.name, "LC_REPLY_BYTE_LIMIT_UNREACHABLE");
    assert.equal(unreachable.statusClass, StatusClass.HOST);
    assert.equal(unreachable.limit, 113n);
    assert.equal(unreachable.actual, 114n);

    // A byte that is not UTF-8, at its offset. A lone surrogate in a string becomes U+FFFD (EF BF BD),
    // the rule of every document in every host: the summary is the reply with it replaced.
    const at = SUMMARY.indexOf("ship") + 2;
    const bytes = utf8(SUMMARY);
    bytes[at] = 0xff;
    const notText = rejection(() => input.validateReply(bytes, REPLY));
    assert.equal(notText.name, "LC_SUMMARY_WIRE");
    assert.equal(notText.offset, at);
    assert.equal(notText.statusClass, StatusClass.DISCARD);
    for (const lone of ["\uD800", "\uDC00"]) {
      assert.equal(input.validateReply(SUMMARY.replace("ship", `sh${lone}p`), REPLY), SUMMARY.replace("ship", "sh\uFFFDp"));
    }
    // A surrogate pair is one character, and text like any other.
    const emoji = SUMMARY.replace("ship", "sh\u{1F680}p");
    assert.equal(input.validateReply(emoji, REPLY), emoji);
  }));

test("validateReply: its options are checked", () =>
  withInput(MESSAGES, (input) => {
    assert.throws(() => input.validateReply(SUMMARY), TypeError);
    assert.throws(() => input.validateReply(SUMMARY, { ...REPLY, stop: "max_tokens" }), TypeError);
    assert.throws(() => input.validateReply(SUMMARY, { ...REPLY, trim: 1 }), TypeError);
    assert.throws(() => input.validateReply(SUMMARY, { maxReplyBytes: 4096 }), TypeError);
    assert.throws(() => input.validateReply(SUMMARY, { ...REPLY, outputTokens: -1 }), RangeError);
    assert.throws(() => input.validateReply(42, REPLY), TypeError);
  }));

// ---- the head, the replacement and its check (R15.8-R15.11) ----------------------------------------

test("encodeHeadWithin is the input with messages [0, cut), fitted as encodeWithin fits (R15.8)", () =>
  withInput(MESSAGES, (input) => {
    for (const cut of [2, 4, 5, 7]) {
      const whole = withInput(MESSAGES.slice(0, cut), (head) => head.encodeWithin(ALL));
      assert.deepEqual(input.encodeHeadWithin(cut, ALL), whole, `cut ${cut}`);
      assert.deepEqual(input.encodeHeadWithin(BigInt(cut), whole.length), whole, `cut ${cut}, an exact fit`);
    }
    // Only the leading system message (or nothing) before the cut: nothing to summarise.
    for (const cut of [0, 1]) assert.equal(rejection(() => input.encodeHeadWithin(cut, ALL)).name, "LC_REPLACEMENT_EMPTY_HEAD");
    assert.equal(rejection(() => input.encodeHeadWithin(8, ALL)).name, "LC_ERR_INVALID_ARGUMENT");
    assert.equal(rejection(() => input.encodeHeadWithin(4, 10)).name, "LC_INPUT_TOO_LARGE");
  }));

test("outputs far longer than their document: the first buffer is too small, the exact size follows", () => {
  // 20,000 raw "<" in the request and in the kept tool result: six bytes each in canonical
  // encoding (E7.6 "\\u003c"), so each output is far longer than the wire document that sizes the
  // package's first buffer.
  const lts = "<".repeat(20000);
  const call = { role: "assistant", blocks: [{ type: "tool_use", id: "c1", name: "grep", input: { q: "x" } }], usage: null };
  const messages = [system("rules"), user(lts), call, tool("c1", lts), assistant("done")];
  withInput(messages, (input) => {
    const escapes = (bytes) => text(bytes).split("\\u003c").length - 1;
    const whole = input.encodeWithin(ALL);
    assert.equal(escapes(whole), 40000);
    assert.deepEqual(JSON.parse(text(whole)).transcript, messages);
    const head = input.encodeHeadWithin(2, ALL);
    assert.equal(escapes(head), 20000);
    assert.deepEqual(JSON.parse(text(head)).transcript, messages.slice(0, 2));
    const replacement = input.buildReplacement(2, SUMMARY);
    assert.equal(escapes(replacement), 20000 + SUMMARY.split("<").length - 1);
    assert.deepEqual(JSON.parse(text(replacement)), [messages[0], user(SUMMARY), ...messages.slice(2)]);
  });
});

test("buildReplacement: the prefix, the summary, the tail; a user tail merges (R15.9, R15.10)", () =>
  withInput(MESSAGES, (input) => {
    const canonical = JSON.parse(text(input.encodeWithin(ALL))).transcript;
    const summary = (...more) => ({ role: "user", blocks: [{ type: "text", text: SUMMARY }, ...more] });
    assert.deepEqual(JSON.parse(text(input.buildReplacement(4, SUMMARY))), [canonical[0], summary(), ...canonical.slice(4)]);
    assert.deepEqual(JSON.parse(text(input.buildReplacement(2, utf8(SUMMARY)))), [canonical[0], summary(), ...canonical.slice(2)]);
    // Message 5 is a user message: its blocks follow the summary's in one message.
    assert.deepEqual(JSON.parse(text(input.buildReplacement(5, SUMMARY))), [canonical[0], summary(...canonical[5].blocks), canonical[6]]);
    assert.deepEqual(JSON.parse(text(input.buildReplacement(7, SUMMARY))), [canonical[0], summary()]);
    // Refusals, in the order of R15.10.
    assert.equal(rejection(() => input.buildReplacement(8, SUMMARY)).name, "LC_ERR_INVALID_ARGUMENT");
    assert.equal(rejection(() => input.buildReplacement(1, "<x/>")).name, "LC_REPLACEMENT_EMPTY_HEAD");
    assert.equal(rejection(() => input.buildReplacement(3, "<x/>")).name, "LC_CUT_UNSAFE");
    assert.equal(rejection(() => input.buildReplacement(4, BROKEN)).name, "LC_REPLACEMENT_SUMMARY");
  }));

test("verifyReplacement: a build passes; a changed signature, a dropped block, two user messages do not (R15.11)", () =>
  withInput(MESSAGES, (input) => {
    const built = input.buildReplacement(2, SUMMARY);
    input.verifyReplacement(2, built);
    const messages = JSON.parse(text(built));
    // Another spelling of the same JSON is no change.
    input.verifyReplacement(2, JSON.stringify(messages, null, 2));
    // [0 system, 1 summary, 2 calls c1 (thinking, tool_use), 3 tool, ...]: one byte of the kept
    // signature changed is caught at the thinking block.
    const signed = structuredClone(messages);
    signed[2].blocks[0].signature = "sig-2";
    const e = rejection(() => input.verifyReplacement(2, JSON.stringify(signed)));
    assert.equal(e.name, "LC_REPLACEMENT_TAIL_CHANGED");
    assert.equal(e.location, "transcript[2].blocks[0]");
    assert.equal(e.rule, "R15.11");
    assert.ok(!e.message.includes("sig-"), "the diagnosis never holds the bytes");
    // The same change made to the bytes directly: one byte of the signature.
    const bytes = built.slice();
    const at = text(built).indexOf("sig-1") + 4;
    bytes[at] = "9".charCodeAt(0);
    assert.equal(rejection(() => input.verifyReplacement(2, bytes)).location, "transcript[2].blocks[0]");
    // The tool call dropped: its block is missing.
    const dropped = structuredClone(messages);
    dropped[2].blocks.pop();
    const gone = rejection(() => input.verifyReplacement(2, JSON.stringify(dropped)));
    assert.equal(gone.name, "LC_REPLACEMENT_TAIL_CHANGED");
    assert.equal(gone.location, "transcript[2].blocks[1]");
    // Cut 5 (a user message): a summary message of its own followed by that user message.
    const merged = JSON.parse(text(input.buildReplacement(5, SUMMARY)));
    const split = [merged[0], { role: "user", blocks: [merged[1].blocks[0]] }, { role: "user", blocks: merged[1].blocks.slice(1) }, merged[2]];
    const adjacent = rejection(() => input.verifyReplacement(5, JSON.stringify(split)));
    assert.equal(adjacent.name, "LC_REPLACEMENT_ADJACENT_USER");
    assert.match(adjacent.location, /^transcript\[2\]/);
    // The system prefix changed; not a transcript at all.
    const prefix = structuredClone(messages);
    prefix[0].blocks[0].text = "other rules";
    assert.equal(rejection(() => input.verifyReplacement(2, JSON.stringify(prefix))).name, "LC_REPLACEMENT_PREFIX_CHANGED");
    assert.equal(rejection(() => input.verifyReplacement(2, "[{]")).name, "LC_REPLACEMENT_WIRE");
  }));

// ---- transcript safety and the loop guard (S14.3-S14.6) ----------------------------------------------

test("pairingCheck, safeCut, cutCheck (S14.3, S14.4)", () => {
  withInput(MESSAGES, (input) => {
    input.pairingCheck();
    // n = 7. keepLast 0: cut 7. keepLast 4: c <= 3, but 3 splits calls (2) from its result (3): 2.
    assert.equal(input.safeCut(0), 7);
    assert.equal(input.safeCut(2), 5);
    assert.equal(input.safeCut(4n), 2);
    assert.equal(input.safeCut(7), 0);
    assert.equal(input.safeCut(ALL), 0);
    input.cutCheck(4);
    input.cutCheck(7);
    assert.equal(rejection(() => input.cutCheck(3)).name, "LC_CUT_UNSAFE");
    assert.equal(rejection(() => input.cutCheck(8)).name, "LC_ERR_INVALID_ARGUMENT");
    assert.throws(() => input.safeCut(-1), RangeError);
  });
  // A call never answered (message 1, block 0): the pairing status with its location, from every
  // function that needs a well-paired transcript.
  withInput(PENDING, (input) => {
    for (const call of [() => input.pairingCheck(), () => input.safeCut(0), () => input.cutCheck(1)]) {
      const e = rejection(call);
      assert.equal(e.name, "LC_PAIRING_UNANSWERED_CALL");
      assert.equal(e.location, "transcript[1].blocks[0]");
      assert.equal(e.rule, "S14.3");
      assert.ok(!e.message.includes("c9"));
    }
  });
});

test("compactionProgressCheck, compactionThresholdCheck (S14.5, S14.6)", () => {
  // 6000 of 10000 tokens is 6000 basis points: at rearmBelow 6000, no progress.
  assert.equal(rejection(() => lc.compactionProgressCheck(6000, 10000, 6000)).name, "LC_COMPACTION_NO_PROGRESS");
  lc.compactionProgressCheck(5999n, 10000n, 6000);
  assert.equal(rejection(() => lc.compactionProgressCheck(1, 0, 6000)).name, "LC_OCCUPANCY_ZERO_LIMIT");
  assert.throws(() => lc.compactionProgressCheck(1, 10, 70000), RangeError);
  const policy = JSON.stringify({
    Automatic: true,
    CounterPolicy: 2,
    CompactAt: 8000,
    RearmBelow: 6000,
    ReservedOutput: 4096,
    SafetyMargin: 512,
    MaxSummaryTokens: 2048,
    CountTimeout: 2000000000,
    Hustle: "context.compact",
  });
  // 4000 fixed + 2048 summary = 6048 of 10000: 6048 >= 6000; 3900 + 2048 = 5948 is below.
  assert.equal(rejection(() => lc.compactionThresholdCheck(policy, 10000, 4000)).name, "LC_COMPACTION_THRESHOLD_UNREACHABLE");
  lc.compactionThresholdCheck(policy, 10000, 3900);
  assert.equal(rejection(() => lc.compactionThresholdCheck(policy, 0, 1)).name, "LC_OCCUPANCY_ZERO_LIMIT");
  // A document that does not decode: where, from the policy's own diagnosis (offset 1: the key's quote).
  const wire = rejection(() => lc.compactionThresholdCheck("{1}", 10000, 1));
  assert.equal(wire.name, "LC_POLICY_WIRE");
  assert.equal(wire.offset, 1);
});

// ---- the round (R15.12) --------------------------------------------------------------------------

/**
 * A scripted model: each step is a reply (or a function of the request giving one, or throwing).
 * Records every request it was given.
 */
function scripted(...steps) {
  const requests = [];
  const model = async (request) => {
    requests.push(request);
    const step = steps[requests.length - 1];
    assert.ok(step !== undefined, `the model was called ${requests.length} times, scripted ${steps.length}`);
    return typeof step === "function" ? step(request) : step;
  };
  return { model, requests };
}

const reply = (replyText, outputTokens = 120, stop = "end") => ({ text: replyText, outputTokens, stop });

/** No two requests of a round are equal (R15.12 step 4). */
function allDistinct(requests) {
  const seen = new Set(requests.map((r) => JSON.stringify(r)));
  assert.equal(seen.size, requests.length, "two requests of the round are equal");
}

test("compact: RETRY then OK; the requests as SPEC R15.12 builds them", () =>
  withInputAsync(MESSAGES, async (input) => {
    const { model, requests } = scripted(reply(BROKEN, 80), reply(SUMMARY, 100));
    const seen = [];
    const result = await compact(input, model, { keepLast: 2, onAttempt: (a) => seen.push(a) });
    assert.equal(result.kind, "compacted");
    // keepLast 2 of 7: c <= 5, and 5 splits no pair.
    assert.equal(result.cut, 5);
    assert.equal(result.summary, SUMMARY);
    assert.deepEqual(result.replacement, input.buildReplacement(5, SUMMARY));
    input.verifyReplacement(5, result.replacement);

    assert.equal(requests.length, 2);
    const head = text(input.encodeHeadWithin(5, ALL));
    assert.deepEqual(requests[0], { system: lc.summaryInstructions(), messages: [{ role: "user", content: head }], maxTokens: MAX_SUMMARY_TOKENS, attempt: 1, jsonSchema: null });
    const retry = rejection(() => input.validateReply(BROKEN, { outputTokens: 80, maxReplyBytes: 16_000, trim: true, unfence: true })).retryMessage();
    assert.deepEqual(requests[1], {
      system: lc.summaryInstructions(),
      messages: [
        { role: "user", content: head },
        { role: "assistant", content: "[previous summary withheld: it was rejected]" },
        { role: "user", content: retry },
      ],
      maxTokens: MAX_SUMMARY_TOKENS,
      attempt: 2,
      jsonSchema: null,
    });
    assert.equal(WITHHELD, "[previous summary withheld: it was rejected]");
    allDistinct(requests);

    // Every attempt, seen before the decision, kept in the result.
    assert.deepEqual(seen, result.attempts);
    assert.deepEqual(
      result.attempts.map((a) => [a.number, a.status, a.statusClass, a.replyBytes, a.stop]),
      [
        [1, Status.SUMMARY_XML_STRUCTURE, StatusClass.RETRY, BROKEN.length, "end"],
        [2, Status.OK, StatusClass.OK, SUMMARY.length, "end"],
      ],
    );
    assert.deepEqual(result.attempts[0].request, requests[0]);
    // The request's messages are the caller's to extend; the attempt keeps what was sent.
    assert.ok(Object.isFrozen(result.attempts[1].request.messages) && !Object.isFrozen(requests[1].messages));
    assert.equal(result.attempts[0].diagnosis.expected, "<constraints>");
    assert.deepEqual(result.diagnoses, result.attempts.map((a) => a.diagnosis));
    assert.ok(Object.isFrozen(result) && Object.isFrozen(result.attempts) && Object.isFrozen(requests[1].messages[0]));
  }));

test("compact: a large head reaches the model as TextDecoder reads it, ASCII or not", async () => {
  // Heads of 64 KiB and more are decoded by the runtime's faster decoder where it has one (Node:
  // checked as ASCII, read as Latin-1): the turn's text must be TextDecoder's, for ASCII and for
  // text with characters beyond it (two-, three- and four-byte UTF-8, and U+2028 that E7.6 escapes).
  for (const filler of ["plain ascii text ", "caf\u00e9 \u20ac \u{1F600} \u2028 "]) {
    const big = filler.repeat(Math.ceil((80 << 10) / filler.length));
    await withInputAsync([system("rules"), user(big), assistant("ok"), user("next")], async (input) => {
      const { model, requests } = scripted(reply(SUMMARY, 100));
      const result = await compact(input, model, { keepLast: 1 });
      assert.equal(result.kind, "compacted");
      const head = input.encodeHeadWithin(3, ALL);
      assert.ok(head.length > 80 << 10);
      assert.equal(requests[0].messages[0].content, text(head));
      assert.ok(requests[0].messages[0].content.includes(JSON.stringify(big).slice(1, 200).replaceAll("\u2028", "\\u2028")));
    });
  }
});

test("compact: reshowRejected shows the rejected reply instead of the placeholder", () =>
  withInputAsync(MESSAGES, async (input) => {
    const { model, requests } = scripted(reply(BROKEN), reply(SUMMARY));
    const result = await compact(input, model, { reshowRejected: true });
    assert.equal(result.kind, "compacted");
    assert.equal(result.cut, 7);
    assert.deepEqual(requests[1].messages[1], { role: "assistant", content: BROKEN });
  }));

test("compact: a fenced reply is accepted without its fence, and the removal reported", () =>
  withInputAsync(MESSAGES, async (input) => {
    const { model } = scripted(reply("```xml\n" + SUMMARY + "\n```\n"));
    const result = await compact(input, model);
    assert.equal(result.kind, "compacted");
    assert.equal(result.summary, SUMMARY);
    // The round trims and unfences (R15.5: trim, unfence, trim again): trim takes the last "\n",
    // unfence "```xml\n" (7 bytes) before and "\n```" after: 7 before, 5 after, both flags.
    assert.deepEqual(result.attempts[0].removed, { flags: ReplyCleanup.TRIM | ReplyCleanup.UNFENCE, before: 7, after: 5 });
    // A fence alone, without the trailing newline: unfence only.
    const bare = await compact(input, scripted(reply("```\n" + SUMMARY + "\n```")).model);
    assert.deepEqual(bare.attempts[0].removed, { flags: ReplyCleanup.UNFENCE, before: 4, after: 4 });
    // Cleanup is the round's default; it can be turned off, and then the fence is a grammar error.
    const off = scripted(reply("```xml\n" + SUMMARY + "\n```\n"));
    const kept = await compact(input, off.model, { unfence: false, attempts: 1 });
    assert.equal(kept.kind, "keepHistory");
    assert.equal(kept.status, Status.SUMMARY_XML_STRUCTURE); // text before the root (X4.18)
  }));

test("compact: a truncated reply raises maxTokens, then shrinks the head", () => {
  // Many tool results in the head, so that each budget stubs a different number of them (SPEC §7).
  const messages = [user("hello")];
  for (let i = 0; i < 16; i++) messages.push(calls(`c${i}`, `s${i}`), tool(`c${i}`, `result ${i} `.repeat(60)));
  messages.push(assistant("done"), user("next"));
  return withInputAsync(messages, async (input) => {
    const half = SUMMARY.slice(0, 40);
    const { model, requests } = scripted(
      reply(half, 300, "length"),
      reply(half, 600, "length"),
      reply(half, 1000, "length"),
      reply(half, 1000, "length"),
      reply(SUMMARY, 500, "length"), // complete at the limit: accepted
    );
    const result = await compact(input, model, { maxTokens: 300, attempts: 5 });
    assert.equal(result.kind, "compacted");
    assert.equal(result.cut, messages.length);
    // Doubling up to max_summary_tokens: 300, 600, 1000 (not 1200); then the head shrinks.
    assert.deepEqual(requests.map((r) => r.maxTokens), [300, 600, 1000, 1000, 1000]);
    const heads = requests.map((r) => r.messages[0].content);
    assert.equal(heads[0], text(input.encodeHeadWithin(messages.length, ALL)));
    assert.equal(heads[1], heads[0]);
    assert.equal(heads[2], heads[0]);
    // Each shrink: the head re-encoded under three quarters of the last head's length.
    const within = (fraction, head) => text(input.encodeHeadWithin(messages.length, Math.floor(utf8(head).length * fraction)));
    assert.equal(heads[3], within(3 / 4, heads[2]));
    assert.equal(heads[4], within(3 / 4, heads[3]));
    // (The fixture tells the fractions apart: 2/3 and 4/5 give other heads.)
    assert.notEqual(within(2 / 3, heads[2]), heads[3]);
    assert.notEqual(within(4 / 5, heads[2]), heads[3]);
    assert.deepEqual(result.attempts.map((a) => a.status), [600, 600, 600, 600, 0]);
    assert.match(requests[1].messages[2].content, /cut off/);
    allDistinct(requests);
  });
});

test("compact: a head that cannot shrink stays; the requests still differ", () =>
  withInputAsync([user("hello"), assistant("hi"), user("bye")], async (input) => {
    const { model, requests } = scripted(reply("<conversation_summary>", MAX_SUMMARY_TOKENS, "length"), reply("<conversation_summary>", MAX_SUMMARY_TOKENS, "length"));
    const result = await compact(input, model, { attempts: 2 });
    assert.equal(result.kind, "keepHistory");
    assert.equal(result.status, Status.REPLY_TRUNCATED);
    assert.match(result.reason, /2 attempts/);
    // No tool result to stub: three quarters of the head is LC_INPUT_TOO_LARGE, the head is kept.
    assert.equal(requests[1].messages[0].content, requests[0].messages[0].content);
    allDistinct(requests);
  }));

test("compact: DISCARD and HOST verdicts end the round at once", async () => {
  // Usage 0: DISCARD, and the reason says to turn usage reporting on.
  await withInputAsync(MESSAGES, async (input) => {
    const { model, requests } = scripted(reply(SUMMARY, 0));
    const result = await compact(input, model);
    assert.equal(result.kind, "keepHistory");
    assert.equal(result.status, Status.SUMMARY_TOKEN_USAGE);
    assert.match(result.reason, /usage/);
    assert.equal(requests.length, 1);
    assert.equal(result.attempts.length, 1);
    assert.equal(result.attempts[0].statusClass, StatusClass.DISCARD);
  });
  // Bytes that are not UTF-8: DISCARD.
  await withInputAsync(MESSAGES, async (input) => {
    const result = await compact(input, scripted(reply(Uint8Array.of(0x3c, 0xff, 0x3e))).model);
    assert.equal(result.kind, "keepHistory");
    assert.equal(result.status, Status.SUMMARY_WIRE);
    assert.equal(result.attempts[0].statusClass, StatusClass.DISCARD);
  });
});

test("compact: a reply byte limit below the smallest summary sends no request (R15.2)", async () => {
  for (const limit of [0, 1, 113]) {
    await withInputAsync(MESSAGES, async (input) => {
      const { model, requests } = scripted(reply(SUMMARY));
      const result = await compact(input, model, { maxReplyBytes: limit });
      assert.equal(result.kind, "keepHistory");
      assert.equal(result.status, Status.REPLY_BYTE_LIMIT_UNREACHABLE);
      assert.equal(requests.length, 0);
      assert.equal(result.attempts.length, 0);
      assert.match(result.reason, new RegExp(`maxReplyBytes \\(${limit}\\)`));
    });
  }
  // 114 calls the model.
  await withInputAsync(MESSAGES, async (input) => {
    const { model, requests } = scripted(reply(SUMMARY));
    const result = await compact(input, model, { maxReplyBytes: lc.SMALLEST_SUMMARY_LEN, attempts: 1 });
    assert.equal(requests.length, 1);
    assert.equal(result.attempts[0].status, Status.SUMMARY_BYTE_LIMIT);
  });
});

test("compact: out of attempts keeps the history with the last status", () =>
  withInputAsync(MESSAGES, async (input) => {
    const { model, requests } = scripted(reply(BROKEN), reply("<conversation_summary/>"));
    const result = await compact(input, model, { attempts: 2 });
    assert.equal(result.kind, "keepHistory");
    assert.equal(result.status, Status.SUMMARY_XML_STRUCTURE);
    assert.equal(requests.length, 2);
    assert.equal(result.attempts.length, 2);
    assert.match(result.reason, /2 attempts/);
    assert.ok(!("summary" in result) && !("replacement" in result));
    allDistinct(requests);
  }));

test("compact: nothing to summarise, or a badly paired transcript: the model is never called", async () => {
  const never = () => assert.fail("the model was called");
  await withInputAsync([system("rules"), user("hello")], async (input) => {
    const result = await compact(input, never, { keepLast: 1 });
    assert.deepEqual({ ...result }, { kind: "keepHistory", reason: lc.statusMessage(Status.REPLACEMENT_EMPTY_HEAD), status: Status.REPLACEMENT_EMPTY_HEAD, attempts: [], diagnoses: [] });
  });
  await withInputAsync(PENDING, async (input) => {
    const result = await compact(input, never);
    assert.equal(result.kind, "keepHistory");
    assert.equal(result.status, Status.PAIRING_UNANSWERED_CALL);
    assert.equal(result.attempts.length, 0);
  });
  // A head budget nothing fits under.
  await withInputAsync(MESSAGES, async (input) => {
    const result = await compact(input, never, { maxInputBytes: 10 });
    assert.equal(result.status, Status.INPUT_TOO_LARGE);
  });
});

test("compact: an exception from callModel propagates, or keeps the history by name only", async () => {
  class ProviderDown extends Error {}
  await withInputAsync(MESSAGES, async (input) => {
    const boom = new ProviderDown("secret: the provider's words");
    await assert.rejects(compact(input, () => Promise.reject(boom)), (e) => e === boom);
    // After one rejected attempt: the attempt is kept, the exception named, never its text.
    const { model } = scripted(reply(BROKEN), () => {
      throw boom;
    });
    const result = await compact(input, model, { onError: "keepHistory" });
    assert.equal(result.kind, "keepHistory");
    assert.equal(result.status, null);
    assert.equal(result.reason, "callModel threw ProviderDown");
    assert.equal(result.attempts.length, 1);
    const thrown = await compact(input, () => {
      throw "a string";
    }, { onError: "keepHistory" });
    assert.equal(thrown.reason, "callModel threw string");
  });
});

test("compact: a value that is not a SummaryReply is a TypeError, never a summary", () =>
  withInputAsync(MESSAGES, async (input) => {
    const wrong = [
      SUMMARY,
      null,
      { text: 5, outputTokens: 1 },
      { text: SUMMARY },
      { text: SUMMARY, outputTokens: -1 },
      { text: SUMMARY, outputTokens: 1.5 },
      { text: SUMMARY, outputTokens: 1, stop: "stop" },
    ];
    for (const value of wrong) {
      await assert.rejects(compact(input, () => value), TypeError, JSON.stringify(value));
      // Also when exceptions from the model are to keep the history: this is the host's bug.
      await assert.rejects(compact(input, async () => value, { onError: "keepHistory" }), TypeError);
    }
    // Its options are checked too.
    await assert.rejects(compact(input, () => reply(SUMMARY), { attempts: 0 }), RangeError);
    await assert.rejects(compact(input, () => reply(SUMMARY), { onError: "raise" }), TypeError);
    await assert.rejects(compact(input, () => reply(SUMMARY), { maxTokens: 0 }), RangeError);
    // R15.12 step 2: a smaller start than max_summary_tokens, never a larger one (Python's
    // ValueError, Go's ErrInvalidOption); the model is not called.
    let called = false;
    const model = () => ((called = true), reply(SUMMARY));
    await assert.rejects(compact(input, model, { maxTokens: MAX_SUMMARY_TOKENS + 1 }), RangeError);
    assert.equal(called, false);
    await assert.rejects(compact(input, "model"), TypeError);
  }));

test("compact: a sync model, bigint usage, and an async onAttempt that is awaited", () =>
  withInputAsync(MESSAGES, async (input) => {
    const order = [];
    const result = await compact(input, () => ({ text: SUMMARY, outputTokens: 10n }), {
      onAttempt: async (a) => {
        await new Promise((resolve) => setImmediate(resolve));
        order.push(`attempt ${a.number}`);
      },
    });
    order.push("result");
    assert.equal(result.kind, "compacted");
    assert.deepEqual(order, ["attempt 1", "result"]);
    assert.equal(result.attempts[0].stop, null);
  }));

test("compact: a model may extend request.messages (the OpenAI shape); the round is unaffected", () =>
  withInputAsync(MESSAGES, async (input) => {
    const sent = [];
    const model = (request) => {
      request.messages.unshift({ role: "system", content: request.system });
      sent.push(request.messages.map((m) => m.role));
      return sent.length === 1 ? reply(BROKEN) : reply(SUMMARY);
    };
    const result = await compact(input, model);
    assert.equal(result.kind, "compacted");
    assert.deepEqual(sent, [["system", "user"], ["system", "user", "assistant", "user"]]);
    assert.deepEqual(result.attempts.map((a) => a.request.messages.map((m) => m.role)), [["user"], ["user", "assistant", "user"]]);
  }));

// ---- the name table: every function of the header is reachable -----------------------------------------

const HEADER = process.env.LOOPCOMPACT_HEADER ?? fileURLToPath(new URL("../../../include/loopcompact.h", import.meta.url));

test("name table: every lc_* function of the header is reachable from the package", { skip: !existsSync(HEADER) && "the header is not here" }, () => {
  const declared = [...readFileSync(HEADER, "utf8").matchAll(/^[a-z][\w ]*?\**\s*\b(lc_\w+)\(/gm)].map((m) => m[1]);
  assert.ok(declared.length >= 41, `${declared.length} functions found in the header`);
  const table = lc._internal.nameTable;
  assert.deepEqual(Object.keys(table).sort(), [...new Set(declared)].sort());
  // The installed module exports each of them.
  const wasm = new URL("./loopcompact.wasm", import.meta.resolve("loopcompact"));
  const exported = new Set(WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(wasm))).map((e) => e.name));
  for (const name of declared) assert.ok(exported.has(name), `${name} is not exported by loopcompact.wasm`);
  // Each is called by the public API it names, or reached through a sibling that is.
  for (const [name, api] of Object.entries(table)) {
    if (typeof api === "string") {
      // A function of the package, or an accessor (a getter such as Conversion.prototype.sourceLength).
      const keys = api.split(".");
      const last = keys.pop();
      const owner = keys.reduce((o, key) => o?.[key], lc);
      const found = owner == null ? undefined : Object.getOwnPropertyDescriptor(owner, last);
      assert.ok(
        found !== undefined && (typeof found.value === "function" || typeof found.get === "function"),
        `${name}: ${api} is not a function or accessor of the package`,
      );
    } else {
      assert.equal(typeof table[api.via], "string", `${name} is reached through ${api.via}, which the API does not call`);
      assert.ok(api.why.length > 20, `${name}: the exclusion says why`);
    }
  }
});
