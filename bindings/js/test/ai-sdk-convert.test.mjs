// fromModelMessages with the real AI SDK: ModelMessage[] checked by the `ai` package's own
// modelMessageSchema (parallel tool calls, a tool error, images as a Uint8Array and a URL, reasoning
// with its signature in providerOptions, a provider-executed tool, a pending tail, duplicate keys in
// a call's arguments), the transcript against the AI SDK fixtures of tests/convert/fixtures (the
// same conversation with bytes as Uint8Array and URLs as URL objects), and the round end to end:
// `generateText` with the SDK's MockLanguageModelV3 as the summariser, then result.messages(source)
// handed back to `generateText`, whose prompt validation accepts it; a pending tail compacts.
//
// `ai` is a test-only dependency of the project scripts/test-js installs; `npm test` in
// bindings/js has none: skipped there, a failure under CI=true.

import assert from "node:assert/strict";
import test from "node:test";

import * as lc from "loopcompact";
import { Format, LossCode, Status } from "loopcompact";

import { HAVE_FIXTURES, SUMMARY, fixture, wire } from "./fixtures.mjs";

let ai = null;
let mock = null;
try {
  ai = await import("ai");
  mock = await import("ai/test");
} catch (e) {
  if (process.env.CI === "true") throw e;
}
const skip = ai === null && "the ai package is not installed here (scripts/test-js installs it)";

const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC";
const PNG = Uint8Array.from(atob(PNG_B64), (c) => c.charCodeAt(0));
// An Anthropic thinking signature: standard base64 with "+" and "/" (what the API returns).
const SIGNATURE = "+/+/Uj0UNbSz5np2oPWE1sRdJTgHrB8MqRrsvAKODR9tijRXfSyKNcoYOZYf8BPKAQ==";
const CAT = "https://example.com/cat.png";

/** A conversation as a TypeScript host holds it (each message checked by the SDK's schema below). */
function conversation() {
  return [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Weather in Paris and Oslo?" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Need both cities.", providerOptions: { anthropic: { signature: SIGNATURE } } },
        { type: "text", text: "Checking both." },
        { type: "tool-call", toolCallId: "toolu_paris", toolName: "get_weather", input: { city: "Paris" } },
        { type: "tool-call", toolCallId: "toolu_oslo", toolName: "get_weather", input: { city: "Oslo" } },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "toolu_paris", toolName: "get_weather", output: { type: "text", value: "18C" } },
        { type: "tool-result", toolCallId: "toolu_oslo", toolName: "get_weather", output: { type: "error-text", value: "station offline" } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "srvtoolu_ws", toolName: "web_search", input: { query: "Oslo" }, providerExecuted: true },
        {
          type: "tool-result",
          toolCallId: "srvtoolu_ws",
          toolName: "web_search",
          output: { type: "json", value: [{ url: "https://example.com/oslo", title: "Oslo" }] },
        },
        { type: "text", text: "Paris is 18C; Oslo is unknown." },
      ],
    },
    {
      role: "user",
      content: [
        { type: "text", text: "What is in these?" },
        { type: "image", image: PNG, mediaType: "image/png" },
        { type: "image", image: new URL(CAT) },
      ],
    },
    { role: "assistant", content: "A pixel and a cat." },
  ];
}

/** The same with a pending tail: the agent is waiting for the result of its last call. */
const pending = () => [
  ...conversation(),
  { role: "user", content: "List /tmp." },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Listing." },
      { type: "tool-call", toolCallId: "call_ls", toolName: "ls", input: { path: "/tmp" } },
    ],
  },
];

const schemaCheck = (messages) =>
  messages.forEach((m, i) => {
    const r = ai.modelMessageSchema.safeParse(m);
    assert.ok(r.success, `message ${i} is not a ModelMessage: ${r.error?.message}`);
  });

test("AI SDK: a ModelMessage[] converts with its bytes, URLs, signatures, errors and losses", { skip }, () => {
  const messages = conversation();
  schemaCheck(messages);
  const c = lc.fromModelMessages(messages);
  try {
    const w = wire(c);
    assert.deepEqual(w.map((m) => m.role), ["system", "user", "assistant", "tool", "tool", "assistant", "user", "assistant"]);
    assert.deepEqual(c.sourceIndex, [0, 1, 2, 3, 3, 4, 5, 6]);
    assert.deepEqual(c.cutAllowed, [true, true, true, true, false, true, true, true, true]);
    // The signature, byte for byte.
    assert.deepEqual(w[2].blocks[0], { type: "thinking", thinking: "Need both cities.", signature: SIGNATURE, signature_format: "anthropic" });
    assert.ok(new TextDecoder().decode(c.transcript).includes(`"signature":"${SIGNATURE}"`));
    // Each result its own tool message; the error-text is an error.
    assert.deepEqual(w.slice(3, 5).map((m) => [m.tool_use_id, m.is_error]), [["toolu_paris", false], ["toolu_oslo", true]]);
    // The provider-executed call and its result are dropped, and reported at their message.
    assert.deepEqual(w[5].blocks, [{ type: "text", text: "Paris is 18C; Oslo is unknown." }]);
    assert.deepEqual(c.losses, [
      { sourceIndex: 4, code: LossCode.SERVER_TOOL_UNREPRESENTABLE, name: "server_tool_unrepresentable" },
      { sourceIndex: 4, code: LossCode.SERVER_TOOL_UNREPRESENTABLE, name: "server_tool_unrepresentable" },
    ]);
    // The image bytes as base64 (JSON.stringify would have written {"0":137,...}), the URL as a URL.
    assert.deepEqual(w[6].blocks.slice(1), [
      { type: "image", media_type: "image/png", source: { url: "", data: PNG_B64 } },
      { type: "image", media_type: "", source: { url: CAT, data: null } },
    ]);
    assert.deepEqual([0, 1, 2, 3, 5, 6, 7, 8].map((cut) => c.sourceCut(cut)), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.throws(() => c.sourceCut(4), (e) => e.status === Status.CUT_UNSAFE);
  } finally {
    c.free();
  }
});

test("AI SDK: a pending tail converts as it is; the call has no result yet", { skip }, () => {
  const messages = pending();
  schemaCheck(messages);
  // The SDK itself refuses to send such a list: the host holds it only while the tool runs.
  const c = lc.fromModelMessages(messages);
  const input = c.input({ provider: "p", model: "m", maxSummaryTokens: 1000, revision: 1 });
  try {
    const last = wire(c).at(-1);
    assert.deepEqual(last.blocks.at(-1), { type: "tool_use", id: "call_ls", name: "ls", input: { path: "/tmp" } });
    assert.equal(c.sourceIndex.at(-1), 8);
    assert.deepEqual(c.losses.map((l) => l.sourceIndex), [4, 4]);
    assert.throws(() => input.pairingCheck(), (e) => e.status === Status.PAIRING_UNANSWERED_CALL);
  } finally {
    input.free();
    c.free();
  }
});

test("AI SDK round: a pending tail does not stop compaction; the waiting turn is kept as it is", { skip }, async () => {
  // The agent waits for `ls` (message 8): the round cuts before that turn (SPEC G16.13).
  const messages = pending();
  const { result, calls, input } = await roundOver(messages, 0);
  try {
    assert.equal(result.kind, "compacted");
    assert.equal(calls.length, 1);
    const next = result.messages(messages);
    assert.deepEqual(next, [messages[0], { role: "user", content: SUMMARY }, messages[8]]);
    assert.equal(next[2], messages[8]);
    schemaCheck(next);
    // Once the tool's result is in, the list goes on to the model.
    next.push({ role: "tool", content: [{ type: "tool-result", toolCallId: "call_ls", toolName: "ls", output: { type: "text", value: "a.txt" } }] });
    const agent = model([answer("One file.")]);
    await ai.generateText({ model: agent, messages: next, allowSystemInMessages: true });
    assert.deepEqual(agent.doGenerateCalls[0].prompt.map((m) => m.role), ["system", "user", "assistant", "tool"]);
  } finally {
    input.free();
  }
});

test("AI SDK: duplicate keys in a call's arguments: the last value at the first key's place, reported", { skip }, () => {
  // A call whose input is JSON text (the AI SDK v4 `args` form): parsed as the providers parse it.
  const messages = [
    { role: "user", content: "Copy it." },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "cp", input: '{"from":"/a","to":"/b","from":"/c"}' }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "cp", output: { type: "text", value: "ok" } }] },
  ];
  schemaCheck(messages);
  const c = lc.fromModelMessages(messages);
  assert.deepEqual(wire(c)[1].blocks[0].input, { from: "/c", to: "/b" });
  assert.deepEqual(new TextDecoder().decode(c.transcript).match(/"input":\{[^}]*\}/)[0], '"input":{"from":"/c","to":"/b"}');
  assert.deepEqual(c.losses.map((l) => [l.sourceIndex, l.name]), [[1, "duplicate_argument_key"]]);
  c.free();
  // Hand-made JSON with a repeated key in an object input (JavaScript objects cannot hold one).
  const json = '[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"cp","input":{"to":"/b","to":"/d"}}]}]';
  const j = lc.convert(Format.AI_SDK, json);
  assert.deepEqual(wire(j)[0].blocks[0].input, { to: "/d" });
  assert.deepEqual(j.losses.map((l) => l.name), ["duplicate_argument_key"]);
  j.free();
});

/** A fixture's AI SDK source with base64 strings as Uint8Array and URL strings as URL objects:
 * what a host holds before JSON.stringify, as the AI SDK's types allow it. */
function asHostObjects(value) {
  if (Array.isArray(value)) return value.map(asHostObjects);
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    if ((k === "image" || k === "data") && typeof v === "string") {
      if (/^https?:\/\//.test(v)) out[k] = new URL(v);
      else if (/^[A-Za-z0-9+/]+=*$/.test(v) && v.length % 4 === 0) out[k] = Uint8Array.from(atob(v), (c) => c.charCodeAt(0));
      else out[k] = v;
    } else if (k === "url" && typeof v === "string") {
      out[k] = new URL(v);
    } else {
      out[k] = asHostObjects(v);
    }
  }
  return out;
}

test("AI SDK: the same conversation as the fixtures, with bytes and URLs as objects, converts alike", { skip: skip || (!HAVE_FIXTURES && "no fixtures") }, () => {
  let bytes = 0;
  for (const name of ["ai_sdk__media", "ai_sdk__content_output_and_custom", "ai_sdk__parallel_tools", "ai_sdk__error_results", "ai_sdk__reasoning_provider_options", "ai_sdk__pending_tail"]) {
    const f = fixture(name);
    const objects = asHostObjects(f.source);
    bytes += JSON.stringify(objects).split('"0":').length - 1; // JSON.stringify's spelling of bytes
    const fromJson = lc.convert(Format.AI_SDK, JSON.stringify(f.source));
    const fromObjects = lc.fromModelMessages(objects);
    try {
      assert.deepEqual(fromObjects.transcript, fromJson.transcript, name);
      assert.deepEqual(fromObjects.losses, fromJson.losses, name);
      assert.deepEqual(fromObjects.cutAllowed, fromJson.cutAllowed, name);
    } finally {
      fromJson.free();
      fromObjects.free();
    }
  }
  assert.ok(bytes >= 3, `${bytes} byte arrays in the fixtures' conversations`);
  // The v6 shapes of these conversations are ModelMessages for the pinned `ai` too.
  schemaCheck(asHostObjects(fixture("ai_sdk__parallel_tools").source));
});

// ---- the round through generateText ----------------------------------------------------------

/** The README's adapter: a round's request to `generateText`, its result to a reply. */
const summariser = (model) => async ({ system, messages, maxTokens }) => {
  const result = await ai.generateText({ model, system, messages: [...messages], maxOutputTokens: maxTokens });
  return {
    text: result.text,
    outputTokens: result.usage.outputTokens ?? 0,
    stop: result.finishReason === "length" ? "length" : result.finishReason === "stop" ? "end" : null,
  };
};

const answer = (text) => ({
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "end_turn" },
  usage: { inputTokens: { total: 400, noCache: 400, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 60, text: 60, reasoning: 0 } },
  warnings: [],
});

/** A model the URLs need not be downloaded for (no network in tests). */
const model = (doGenerate) => new mock.MockLanguageModelV3({ doGenerate, supportedUrls: { "image/*": [/^https:\/\/example\.com\//] } });

async function roundOver(messages, keepLast) {
  const conversion = lc.fromModelMessages(messages);
  const input = conversion.input({ provider: "mock-provider", model: "mock-model", maxSummaryTokens: 1000, revision: 1 });
  conversion.free(); // the input keeps what the round needs
  try {
    const summarizer = model([answer(SUMMARY)]);
    const result = await lc.compact(input, summariser(summarizer), { keepLast });
    return { result, calls: summarizer.doGenerateCalls, input };
  } catch (e) {
    input.free();
    throw e;
  }
}

test("AI SDK round: generateText summarises, messages(source) goes back to generateText", { skip }, async () => {
  const messages = conversation();
  const before = lc.fromModelMessages(messages);
  // keepLast 1: the last assistant message is kept; the summary is a user message of its own.
  const { result, calls, input } = await roundOver(messages, 1);
  try {
    assert.equal(result.kind, "compacted");
    assert.equal(result.cut, 7);
    assert.equal(calls.length, 1);
    // The summariser saw the head as canonical JSON, the signature in it.
    const head = calls[0].prompt[1].content[0].text;
    assert.ok(head.includes(SIGNATURE) && head.includes(PNG_B64));
    const next = result.messages(messages);
    assert.deepEqual(next, [messages[0], { role: "user", content: SUMMARY }, messages[6]]);
    assert.equal(next[0], messages[0]);
    assert.equal(next[2], messages[6]);
    schemaCheck(next);
    // The next step of the agent: generateText takes the new list (its validation runs here). The
    // list keeps its system message as the source had it: the SDK then asks for consent.
    const agent = model([answer("Noted.")]);
    const step = await ai.generateText({ model: agent, messages: next, allowSystemInMessages: true });
    assert.equal(step.text, "Noted.");
    assert.deepEqual(agent.doGenerateCalls[0].prompt.map((m) => m.role), ["system", "user", "assistant"]);
    assert.equal(agent.doGenerateCalls[0].prompt[1].content[0].text, SUMMARY);
    // The source was not changed: it converts to the same transcript as before the round.
    const after = lc.fromModelMessages(messages);
    assert.deepEqual(after.transcript, before.transcript);
    after.free();
  } finally {
    input.free();
    before.free();
  }
});

test("AI SDK round: the first kept message is a user message: the summary is merged into a new one", { skip }, async () => {
  const messages = conversation();
  // keepLast 2: the user message with the images and the answer are kept.
  const { result, input } = await roundOver(messages, 2);
  try {
    assert.equal(result.kind, "compacted");
    assert.equal(result.cut, 6);
    const next = result.messages(messages);
    assert.equal(next.length, 3);
    assert.equal(next[0], messages[0]);
    assert.notEqual(next[1], messages[5]);
    assert.deepEqual(next[1], { role: "user", content: [{ type: "text", text: SUMMARY }, ...messages[5].content] });
    // The parts are the same objects: the image's Uint8Array and URL travel on untouched.
    assert.equal(next[1].content[2], messages[5].content[1]);
    assert.equal(messages[5].content.length, 3, "the original is not changed");
    assert.equal(next[2], messages[6]);
    schemaCheck(next);
    const agent = model([answer("Noted.")]);
    await ai.generateText({ model: agent, messages: next, allowSystemInMessages: true });
    const prompt = agent.doGenerateCalls[0].prompt;
    assert.deepEqual(prompt.map((m) => m.role), ["system", "user", "assistant"]);
    assert.deepEqual(prompt[1].content.map((p) => p.type), ["text", "text", "file", "file"]);
    assert.deepEqual(prompt[1].content[2].data, PNG);
    // The library's check of the host's new list (R15.11).
    const again = lc.fromModelMessages(next);
    input.verifyReplacement(result.cut, again.transcript);
    again.free();
  } finally {
    input.free();
  }
});
