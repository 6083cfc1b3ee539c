// A round through the AI SDK as users wire it: `generateText` with the `ai` package's mock language
// model (`MockLanguageModelV3` from `ai/test`), and the adapter of the README mapping `text`,
// `finishReason` and `usage.outputTokens` to the reply. What the mock received (system, messages,
// maxOutputTokens) is checked call by call.
//
// `ai` is a test-only dependency of the fresh project scripts/test-js installs (pinned in
// bindings/js/consumer/package.json and its lock); `npm test` in bindings/js has no `ai`: skipped
// there, a failure under CI=true.

import assert from "node:assert/strict";
import test from "node:test";

import { Input, ReplyCleanup, Status, compact, summaryInstructions } from "loopcompact";

let ai = null;
let mock = null;
try {
  ai = await import("ai");
  mock = await import("ai/test");
} catch (e) {
  if (process.env.CI === "true") throw e;
}
const skip = ai === null && "the ai package is not installed here (scripts/test-js installs it)";

const SUMMARY =
  "<conversation_summary><goal>ship it</goal><constraints/><decisions/><state>tests pass</state><open_items/></conversation_summary>";
const BROKEN = SUMMARY.replace("<constraints/>", "");
const MAX_SUMMARY_TOKENS = 1000;
const WIRE = JSON.stringify({
  version: 1,
  basis: { revision: 1, through_event_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" },
  model: { provider: "p", model: "m" },
  request_fingerprint: "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
  transcript: [
    { role: "user", blocks: [{ type: "text", text: "Fix the parser." }] },
    { role: "assistant", blocks: [{ type: "text", text: "Done: tests pass." }], usage: null },
    { role: "user", blocks: [{ type: "text", text: "Now the docs." }] },
  ],
  max_summary_tokens: MAX_SUMMARY_TOKENS,
});

/** The README's adapter: a loopcompact round's request to `generateText`, its result to a reply. */
const summariser = (model) => async ({ system, messages, maxTokens }) => {
  const result = await ai.generateText({ model, system, messages: [...messages], maxOutputTokens: maxTokens });
  return {
    text: result.text,
    outputTokens: result.usage.outputTokens ?? 0,
    stop: result.finishReason === "length" ? "length" : result.finishReason === "stop" ? "end" : null,
  };
};

/** What a provider answers, in the mock's terms (LanguageModelV3GenerateResult). */
const answer = (text, outputTokens, finishReason = "stop") => ({
  content: [{ type: "text", text }],
  finishReason: { unified: finishReason, raw: finishReason === "length" ? "max_tokens" : "end_turn" },
  usage: {
    inputTokens: { total: 400, noCache: 400, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
  },
  warnings: [],
});

/** The prompt the mock is given for a request of `turns` ([role, text] after the head). */
const prompt = (head, ...turns) => [
  { role: "system", content: summaryInstructions() },
  { role: "user", content: [{ type: "text", text: head }] },
  ...turns.map(([role, text]) => ({ role, content: [{ type: "text", text }] })),
];

/** The prompt a mock call received: each message's role and texts (the SDK adds empty option keys). */
const seen = (call) =>
  call.prompt.map((m) => ({
    role: m.role,
    content: typeof m.content === "string" ? m.content : m.content.map((part) => ({ type: part.type, text: part.text })),
  }));

async function round(doGenerate, options = {}) {
  const model = new mock.MockLanguageModelV3({ doGenerate });
  const input = Input.parse(WIRE);
  try {
    // keepLast 1: the last user message stays; messages [0, 2) are summarised.
    const head = new TextDecoder().decode(input.encodeHeadWithin(2, 2n ** 64n - 1n));
    const result = await compact(input, summariser(model), { keepLast: 1, ...options });
    return { result, calls: model.doGenerateCalls, head, input };
  } finally {
    input.free();
  }
}

test("AI SDK: a fenced reply is accepted, what generateText was given is the round's request", { skip }, async () => {
  const { result, calls, head } = await round([answer("```xml\n" + SUMMARY + "\n```", 150)]);
  assert.equal(result.kind, "compacted");
  assert.equal(result.summary, SUMMARY);
  assert.equal(result.cut, 2);
  assert.deepEqual(result.attempts[0].removed, { flags: ReplyCleanup.UNFENCE, before: 7, after: 4 });
  assert.equal(calls.length, 1);
  assert.deepEqual(seen(calls[0]), prompt(head));
  assert.equal(calls[0].maxOutputTokens, MAX_SUMMARY_TOKENS);
  // The replacement: the summary, merged with the kept user message (R15.9).
  assert.deepEqual(JSON.parse(new TextDecoder().decode(result.replacement)), [
    { role: "user", blocks: [{ type: "text", text: SUMMARY }, { type: "text", text: "Now the docs." }] },
  ]);
});

test("AI SDK: a reply cut at the output limit; the next call asks for more tokens", { skip }, async () => {
  const { result, calls, head } = await round([answer(SUMMARY.slice(0, 50), 250, "length"), answer(SUMMARY, 300)], { maxTokens: 250 });
  assert.equal(result.kind, "compacted");
  assert.deepEqual(result.attempts.map((a) => [a.stop, a.status]), [["length", Status.REPLY_TRUNCATED], ["end", Status.OK]]);
  assert.deepEqual(calls.map((c) => c.maxOutputTokens), [250, 500]);
  const retry = calls[1].prompt.at(-1).content[0].text;
  assert.match(retry, /cut off/);
  assert.deepEqual(seen(calls[1]), prompt(head, ["assistant", "[previous summary withheld: it was rejected]"], ["user", retry]));
});

test("AI SDK: a rejected summary is retried with what was wrong, the rejected reply shown on request", { skip }, async () => {
  const { result, calls, head, input } = await round([answer(BROKEN, 90), answer(SUMMARY, 95)], { reshowRejected: true });
  assert.equal(result.kind, "compacted");
  assert.equal(result.attempts[0].status, Status.SUMMARY_XML_STRUCTURE);
  assert.equal(calls.length, 2);
  const retry = result.attempts[1].request.messages[2].content;
  assert.match(retry, /constraints/);
  assert.deepEqual(seen(calls[1]), prompt(head, ["assistant", BROKEN], ["user", retry]));
  assert.equal(calls[1].maxOutputTokens, MAX_SUMMARY_TOKENS);
  assert.ok(input.freed);
});

test("AI SDK: no usage reported keeps the history, and says why", { skip }, async () => {
  const noUsage = { ...answer(SUMMARY, 0), usage: { inputTokens: { total: undefined }, outputTokens: { total: undefined } } };
  const { result, calls } = await round([noUsage]);
  assert.equal(result.kind, "keepHistory");
  assert.equal(result.status, Status.SUMMARY_TOKEN_USAGE);
  assert.match(result.reason, /usage/);
  assert.equal(calls.length, 1);
});
