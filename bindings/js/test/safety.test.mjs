// Transcript safety that never blocks compaction (SPEC §16.9) through the installed package: a
// pending tail cut before by default (G16.13) in safeCut, cutCheck and compact, every violation
// listed (G16.14), the repair plan and its application (G16.15), allowed cuts (G16.16), and the
// input's counts (R15.8). Expected cuts, indices and plans are worked out by hand in the comments.

import assert from "node:assert/strict";
import test from "node:test";

import * as lc from "loopcompact";
import { Input, LoopcompactError, Status, compact } from "loopcompact";

const wireOf = (messages, maxSummaryTokens = 1000) =>
  JSON.stringify({
    version: 1,
    basis: { revision: 1, through_event_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" },
    model: { provider: "p", model: "m" },
    request_fingerprint: "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
    transcript: messages,
    max_summary_tokens: maxSummaryTokens,
  });
const system = (text) => ({ role: "system", blocks: [{ type: "text", text }] });
const user = (text) => ({ role: "user", blocks: [{ type: "text", text }] });
const assistant = (text) => ({ role: "assistant", blocks: [{ type: "text", text }], usage: null });
const calls = (...ids) => ({ role: "assistant", blocks: ids.map((id) => ({ type: "tool_use", id, name: "grep", input: {} })), usage: null });
const tool = (id) => ({ role: "tool", blocks: [{ type: "text", text: "found" }], tool_use_id: id, is_error: false });
const SUMMARY =
  "<conversation_summary><goal>ship it</goal><constraints/><decisions/><state>tests pass</state><open_items/></conversation_summary>";
const text = (bytes) => new TextDecoder().decode(bytes);

function rejection(call) {
  try {
    call();
  } catch (e) {
    assert.ok(e instanceof LoopcompactError, `${e?.name}: ${e?.message}`);
    return e;
  }
  assert.fail("accepted");
}

function withInput(messages, f) {
  const input = Input.parse(wireOf(messages));
  try {
    return f(input);
  } finally {
    input.free();
  }
}

/** 0 system, 1 user, 2 calls a, 3 tool a, 4 assistant, 5 user, 6 calls b and c (pending: p = 6). */
const PENDING_TAIL = [system("rules"), user("hi"), calls("a"), tool("a"), assistant("ok"), user("list"), calls("b", "c")];

test("the input's counts: messages, leading system messages, max_summary_tokens (R15.8)", () => {
  withInput(PENDING_TAIL, (input) => {
    assert.equal(input.messageCount(), 7);
    assert.equal(input.leadingSystems(), 1);
    assert.equal(input.maxSummaryTokens(), 1000n);
  });
  withInput([system("a"), system("b"), user("c")], (input) => assert.equal(input.leadingSystems(), 2));
  const big = Input.parse(wireOf([user("c")], 7).replace('"max_summary_tokens":7', '"max_summary_tokens":18446744073709551615'));
  assert.equal(big.maxSummaryTokens(), 2n ** 64n - 1n);
  big.free();
});

test("a pending tail: cut before it by default, §14's verdict on request (G16.13)", () => {
  withInput(PENDING_TAIL, (input) => {
    // S14.3 itself still sees the unanswered calls of message 6.
    assert.equal(rejection(() => input.pairingCheck()).name, "LC_PAIRING_UNANSWERED_CALL");
    // c <= min(n - keepLast, p) = min(7, 6): 6 splits no pair (a is answered at 3).
    assert.equal(input.safeCut(0), 6);
    assert.equal(input.safeCut(1), 6);
    // keepLast 3: c <= 4, and 4 splits nothing: 4. keepLast 4: c <= 3 splits a (2) from 3: 2.
    assert.equal(input.safeCut(3), 4);
    assert.equal(input.safeCut(4), 2);
    input.cutCheck(6);
    input.cutCheck(2);
    assert.equal(rejection(() => input.cutCheck(7)).name, "LC_CUT_UNSAFE");
    assert.equal(rejection(() => input.cutCheck(3)).name, "LC_CUT_UNSAFE");
    // Without the pending tail: §14's verdict, with its location.
    for (const call of [() => input.safeCut(0, { pendingTail: false }), () => input.cutCheck(6, { pendingTail: false })]) {
      const e = rejection(call);
      assert.equal(e.name, "LC_PAIRING_UNANSWERED_CALL");
      assert.equal(e.location, "transcript[6].blocks[0]");
    }
    assert.throws(() => input.safeCut(0, { pendingTail: 1 }), TypeError);
    assert.throws(() => input.safeCut(0, null), TypeError);
  });
  // An unanswered call that is not the last assistant message's is no pending tail.
  withInput([user("hi"), calls("a"), assistant("ok")], (input) => {
    assert.equal(rejection(() => input.safeCut(0)).name, "LC_PAIRING_UNANSWERED_CALL");
  });
});

test("compact over a pending tail: the pending turn is kept as it is", async () => {
  const model = () => ({ text: SUMMARY, outputTokens: 30, stop: "end" });
  const input = Input.parse(wireOf(PENDING_TAIL));
  try {
    const result = await compact(input, model);
    assert.equal(result.kind, "compacted");
    assert.equal(result.cut, 6);
    // The leading system message, the summary, the pending turn unchanged (R15.10 accepts it).
    assert.deepEqual(JSON.parse(text(result.replacement)), [PENDING_TAIL[0], user(SUMMARY), PENDING_TAIL[6]]);
    const refused = await compact(input, () => assert.fail("the model was called"), { pendingTail: false });
    assert.equal(refused.kind, "keepHistory");
    assert.equal(refused.status, Status.PAIRING_UNANSWERED_CALL);
  } finally {
    input.free();
  }
});

test("every violation, in transcript order (G16.14)", () => {
  // 0 user, 1 calls a and b, 2 tool a, 3 tool a again, 4 tool z (orphan), 5 calls a (repeated
  // id, never answered), 6 assistant. b is unanswered (1, block 1); 3 is a second result; 4 an
  // orphan; 5 repeats a: listed as 502 though also unanswered (one violation per place).
  const messages = [user("hi"), calls("a", "b"), tool("a"), tool("a"), tool("z"), calls("a"), assistant("ok")];
  withInput(messages, (input) => {
    const list = input.pairingViolations();
    assert.deepEqual(
      list.map((v) => [v.message, v.block, v.name]),
      [
        [1, 1, "LC_PAIRING_UNANSWERED_CALL"],
        [3, null, "LC_PAIRING_DUPLICATE_RESULT"],
        [4, null, "LC_PAIRING_ORPHAN_RESULT"],
        [5, 0, "LC_PAIRING_DUPLICATE_ID"],
      ],
    );
    assert.deepEqual(list.map((v) => v.status), [Status.PAIRING_UNANSWERED_CALL, Status.PAIRING_DUPLICATE_RESULT, Status.PAIRING_ORPHAN_RESULT, Status.PAIRING_DUPLICATE_ID]);
    // The offset is the id's string body in the wire document.
    const wire = wireOf(messages);
    assert.equal(wire.slice(list[2].offset, list[2].offset + 1), "z");
    assert.ok(list.every((v) => Object.isFrozen(v)));
    // The first is the one pairingCheck reports.
    const first = rejection(() => input.pairingCheck());
    assert.equal(first.status, list[0].status);
    assert.equal(first.location, "transcript[1].blocks[1]");
    // A repeated id cannot be repaired without changing an assistant message.
    assert.equal(rejection(() => input.repairPlan()).name, "LC_PAIRING_DUPLICATE_ID");
  });
  withInput(PENDING_TAIL.slice(0, 6), (input) => assert.deepEqual(input.pairingViolations(), []));
});

test("the repair plan and its application (G16.15)", () => {
  // 0 user, 1 calls a and b, 2 tool a, 3 tool z (orphan), 4 assistant, 5 user, 6 calls c (pending).
  const messages = [user("hi"), calls("a", "b"), tool("a"), tool("z"), assistant("ok"), user("more"), calls("c")];
  withInput(messages, (input) => {
    const NO_RESULT = "[no result was recorded for this tool call]";
    // z's result is an orphan: dropped, the whole tool message (3). b's result was lost: a
    // synthetic error result after the call's message and the tool messages that follow it (2
    // and 3): before 4. In transcript order; the pending c gets none.
    assert.deepEqual(input.repairPlan(), [
      { action: "drop_result", message: 3, block: null },
      { action: "add_result", before: 4, call_message: 1, call_block: 1, tool_use_id: "b", text: NO_RESULT },
    ]);
    const repaired = JSON.parse(text(input.repair()));
    assert.deepEqual(repaired, [
      messages[0],
      messages[1],
      messages[2],
      { role: "tool", blocks: [{ type: "text", text: NO_RESULT }], tool_use_id: "b", is_error: true },
      messages[4],
      messages[5],
      messages[6],
    ]);
    // Without the pending tail, c gets a synthetic result too, and the repaired transcript pairs.
    const plan = input.repairPlan({ pendingTail: false });
    assert.deepEqual(plan.at(-1), { action: "add_result", before: 7, call_message: 6, call_block: 0, tool_use_id: "c", text: NO_RESULT });
    const fixed = Input.parse(wireOf(JSON.parse(text(input.repair({ pendingTail: false })))));
    fixed.pairingCheck();
    fixed.free();
    // The pending one passes but for its tail.
    withInput(repaired, (again) => {
      assert.deepEqual(again.pairingViolations().map((v) => [v.message, v.name]), [[6, "LC_PAIRING_UNANSWERED_CALL"]]);
      assert.equal(again.safeCut(0), 6);
    });
  });
  // The tool message for x is an orphan, dropped whole; its block answered a, the last assistant
  // message's call: a had a result, so it is not pending and gets a synthetic one.
  const holder = { role: "tool", blocks: [{ type: "tool_result", tool_use_id: "a", content: [], is_error: false }], tool_use_id: "x", is_error: false };
  withInput([user("go"), calls("a"), holder], (input) => {
    const NO_RESULT = "[no result was recorded for this tool call]";
    const want = [
      { action: "drop_result", message: 2, block: null },
      { action: "add_result", before: 3, call_message: 1, call_block: 0, tool_use_id: "a", text: NO_RESULT },
    ];
    assert.deepEqual(input.repairPlan(), want);
    assert.deepEqual(input.repairPlan({ pendingTail: false }), want);
  });
  // A repeated id behind another first violation (b unanswered): still no plan.
  withInput([calls("a", "b"), tool("b"), calls("a")], (input) => {
    assert.equal(rejection(() => input.repairPlan()).name, "LC_PAIRING_DUPLICATE_ID");
  });
  withInput([user("hi"), assistant("ok")], (input) => {
    assert.deepEqual(input.repairPlan(), []);
    assert.equal(text(input.repair()), JSON.stringify([user("hi"), assistant("ok")]));
  });
});

test("allowed cuts (G16.16)", () => {
  withInput(PENDING_TAIL, (input) => {
    // Only cuts 0, 2 and 5 allowed: keepLast 0 (c <= 6) gives 5.
    const allowed = [true, false, true, false, false, true, false, false];
    assert.equal(input.safeCut(0, { allowed }), 5);
    assert.equal(input.safeCut(3, { allowed }), 2);
    input.cutCheck(5, { allowed });
    assert.equal(rejection(() => input.cutCheck(4, { allowed })).name, "LC_CUT_UNSAFE");
    // n + 1 entries, booleans only.
    assert.equal(rejection(() => input.safeCut(0, { allowed: allowed.slice(1) })).name, "LC_ERR_INVALID_ARGUMENT");
    assert.throws(() => input.safeCut(0, { allowed: [1, 0] }), TypeError);
    // An empty list is a list of length 0 (as in Python and Go), not the absence of one.
    assert.equal(rejection(() => input.safeCut(0, { allowed: [] })).name, "LC_ERR_INVALID_ARGUMENT");
    assert.equal(rejection(() => input.cutCheck(1, { allowed: [] })).status, lc.Status.ERR_INVALID_ARGUMENT);
    assert.throws(() => input.safeCut(0, { allowed: "all" }), TypeError);
  });
  // A conversion's cutAllowed is what `allowed` takes: the same cuts as its own input makes.
  const conversion = lc.fromAnthropic([
    { role: "user", content: "Weather?" },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "w", input: {} }, { type: "tool_use", id: "t2", name: "w", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "18C" }, { type: "tool_result", tool_use_id: "t2", content: "4C" }, { type: "text", text: "Thanks." }] },
    { role: "assistant", content: "Welcome." },
  ]);
  const own = conversion.input({ provider: "p", model: "m", maxSummaryTokens: 1000, revision: 1 });
  const parsed = Input.parse(wireOf(JSON.parse(text(conversion.transcript))));
  try {
    // Wire: 0 user, 1 assistant, 2 tool, 3 tool, 4 user, 5 assistant. keepLast 2: c <= 4; 4 is safe
    // on the wire but splits source message 2: the conversion's cuts give 1.
    assert.equal(parsed.safeCut(2), 4);
    assert.equal(parsed.safeCut(2, { allowed: conversion.cutAllowed }), 1);
    assert.equal(own.safeCut(2), 1);
  } finally {
    parsed.free();
    own.free();
    conversion.free();
  }
});
