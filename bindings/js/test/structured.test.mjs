// The round with structured output (SPEC G17.10) through the installed package: `structured: true`
// sends the summary's JSON Schema, a reply may carry the five sections or the JSON object as text,
// and what the model filled is rendered, then checked as a text reply is. The expected summary is
// written out by hand from G17.8's layout; the structured note is copied from the SPEC.

import assert from "node:assert/strict";
import test from "node:test";

import * as lc from "loopcompact";
import { Input, Section, Status, StatusClass, WITHHELD, compact } from "loopcompact";

// A user turn, a call and its result, the answer after a system message; max_summary_tokens 2048.
const WIRE = JSON.stringify({
  version: 1,
  basis: { revision: 7, through_event_id: "3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34" },
  model: { provider: "anthropic", model: "claude-sonnet-4" },
  request_fingerprint: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  transcript: [
    { role: "system", blocks: [{ type: "text", text: "You are a coding agent." }] },
    { role: "user", blocks: [{ type: "text", text: "The nightly build fails. Fix it." }] },
    { role: "assistant", blocks: [{ type: "tool_use", id: "t1", name: "run_tests", input: {} }], usage: null },
    {
      role: "tool",
      blocks: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "1 failed" }], is_error: false }],
      tool_use_id: "t1",
      is_error: false,
    },
    { role: "assistant", blocks: [{ type: "text", text: "The timeout is too short." }], usage: null },
  ],
  max_summary_tokens: 2048,
});
// SPEC G17.10 step 1, verbatim.
const NOTE =
  "Structured output: instead of the XML document, reply with one JSON object of the given schema: the keys " +
  "goal, constraints, decisions, state and open_items, each a string holding that section's plain text, without " +
  "XML tags and without XML escapes (write &, < and > as they are); goal and state must not be blank.";
const SECTIONS = {
  goal: "Fix the nightly build & keep it green.",
  constraints: "",
  decisions: "Use <timeout> of 30s.",
  state: "The cause was found.",
  open_items: "",
};
const RENDERED =
  "<conversation_summary>\n<goal>Fix the nightly build &amp; keep it green.</goal>\n<constraints/>\n" +
  "<decisions>Use &lt;timeout&gt; of 30s.</decisions>\n<state>The cause was found.</state>\n<open_items/>\n" +
  "</conversation_summary>";
const bytes = (s) => new TextEncoder().encode(s).length;

/** A model that answers with the scripted replies in order and keeps the requests. */
function scripted(...answers) {
  const requests = [];
  const model = (request) => {
    requests.push(request);
    return answers.shift();
  };
  return { model, requests };
}
const sectionsReply = (sections, outputTokens = 80, stop = "end") => ({ sections, outputTokens, stop });
const textReply = (text, outputTokens = 80, stop = "end") => ({ text, outputTokens, stop });
const withSections = (changes) => ({ ...SECTIONS, ...changes });

async function round(answers, options = {}) {
  const input = Input.parse(WIRE);
  try {
    const { model, requests } = scripted(...answers);
    const result = await compact(input, model, options);
    return { result, requests, input };
  } finally {
    input.free();
  }
}

test("the renderer makes the hand-written summary", () => {
  const { open_items: openItems, ...rest } = SECTIONS;
  assert.equal(lc.renderSummary({ ...rest, openItems }), RENDERED);
});

test("structured requests carry the schema and the note; plain ones do not", async () => {
  const { result, requests } = await round([sectionsReply(SECTIONS)], { structured: true });
  assert.equal(result.kind, "compacted");
  assert.equal(result.summary, RENDERED);
  assert.equal(requests[0].jsonSchema, lc.summaryJsonSchema());
  assert.deepEqual(JSON.parse(requests[0].jsonSchema).required, ["goal", "constraints", "decisions", "state", "open_items"]);
  assert.equal(requests[0].system, `${lc.summaryInstructions()}\n\n${NOTE}`);
  assert.equal(lc.STRUCTURED_NOTE, NOTE);
  const plain = await round([textReply(RENDERED)]);
  assert.equal(plain.result.kind, "compacted");
  assert.equal(plain.requests[0].jsonSchema, null);
  assert.equal(plain.requests[0].system, lc.summaryInstructions());
});

test("a sections reply is rendered, then checked (either spelling of open_items)", async () => {
  const { open_items: openItems, ...rest } = SECTIONS;
  for (const [sections, structured] of [
    [SECTIONS, false],
    [{ ...rest, openItems }, true],
  ]) {
    const { result } = await round([sectionsReply(sections, 61)], { keepLast: 1, structured });
    assert.equal(result.kind, "compacted");
    assert.equal(result.summary, RENDERED);
    assert.equal(lc.summarySectionText(result.summary, Section.DECISIONS), SECTIONS.decisions);
    assert.equal(result.attempts[0].status, Status.OK);
    assert.equal(result.attempts[0].replyBytes, bytes(RENDERED));
  }
});

test("a JSON text reply is parsed, rendered and checked", async () => {
  const body = `\n ${JSON.stringify(SECTIONS)}\n`;
  const { result } = await round([textReply(body)], { structured: true });
  assert.equal(result.kind, "compacted");
  assert.equal(result.summary, RENDERED);
  assert.equal(result.attempts[0].replyBytes, bytes(body));
  // Bytes, another key order, non-ASCII.
  const shuffled = { open_items: "Ship it \u2014 soon.", state: "Done.", decisions: "", constraints: "\t", goal: "G\u00e9" };
  const again = await round([textReply(new TextEncoder().encode(JSON.stringify(shuffled)), 9, null)], { structured: true });
  assert.equal(again.result.kind, "compacted");
  assert.equal(lc.summarySectionText(again.result.summary, Section.OPEN_ITEMS), "Ship it \u2014 soon.");
  assert.equal(lc.summarySectionText(again.result.summary, Section.GOAL), "G\u00e9");
});

test("a blank goal is retried with its section, then accepted", async () => {
  const { result, requests } = await round([sectionsReply(withSections({ goal: " \n\u3000" })), textReply(JSON.stringify(SECTIONS))], {
    structured: true,
  });
  assert.equal(result.kind, "compacted");
  assert.equal(result.summary, RENDERED);
  const first = result.attempts[0];
  assert.equal(first.status, Status.SUMMARY_XML_CONTENT);
  assert.equal(first.statusClass, StatusClass.RETRY);
  assert.equal(first.diagnosis.section, Section.GOAL);
  assert.equal(first.diagnosis.rule, "G17.9");
  assert.equal(first.diagnosis.expected, "non-blank text");
  assert.equal(first.replyBytes, 0);
  const turns = requests[1].messages;
  assert.deepEqual(
    turns.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  assert.equal(turns[1].content, WITHHELD);
  assert.match(turns[2].content, /in the goal section/);
  assert.match(turns[2].content, /rule G17\.9/);
  assert.ok(turns[2].content.endsWith(`\n\n${NOTE}`));
});

test("refusals name their sections; a lone surrogate is one", async () => {
  const cases = [
    [withSections({ state: "" }), Status.SUMMARY_XML_CONTENT, Section.STATE],
    [withSections({ decisions: "a\u0000b" }), Status.SUMMARY_XML_SYNTAX, Section.DECISIONS],
    [withSections({ open_items: "\ufffe" }), Status.SUMMARY_XML_SYNTAX, Section.OPEN_ITEMS],
    [withSections({ constraints: "\ud800" }), Status.SUMMARY_XML_SYNTAX, Section.CONSTRAINTS],
  ];
  for (const [sections, status, section] of cases) {
    const { result } = await round([sectionsReply(sections)], { attempts: 1 });
    assert.equal(result.kind, "keepHistory");
    assert.equal(result.status, status);
    assert.equal(result.attempts[0].diagnosis.section, section);
  }
  const text = JSON.stringify(withSections({ constraints: "x" })).replace('"x"', '"\\ud800"');
  const { result } = await round([textReply(text)], { attempts: 1, structured: true });
  assert.equal(result.status, Status.SUMMARY_XML_SYNTAX);
  assert.equal(result.attempts[0].diagnosis.section, Section.CONSTRAINTS);
});

test("a text that is not the object is discarded", async () => {
  const without = { ...SECTIONS };
  delete without.open_items;
  const shapes = [
    ["<conversation_summary/>", Status.SUMMARY_WIRE],
    ["```json\n" + JSON.stringify(SECTIONS) + "\n```", Status.SUMMARY_WIRE],
    ['{"goal": "g",', Status.SUMMARY_WIRE],
    ["[".repeat(1_000_000), Status.SUMMARY_WIRE],
    ["\ufeff" + JSON.stringify(SECTIONS), Status.SUMMARY_WIRE],
    [JSON.stringify([SECTIONS]), Status.SUMMARY_OUTPUT_SHAPE],
    [JSON.stringify(without), Status.SUMMARY_OUTPUT_SHAPE],
    [JSON.stringify({ ...SECTIONS, notes: "" }), Status.SUMMARY_OUTPUT_SHAPE],
    [JSON.stringify({ ...SECTIONS, state: 7 }), Status.SUMMARY_OUTPUT_SHAPE],
    [JSON.stringify({ ...SECTIONS, constraints: null }), Status.SUMMARY_OUTPUT_SHAPE],
  ];
  for (const [text, status] of shapes) {
    const { result, requests } = await round([textReply(text), textReply(RENDERED)], { structured: true });
    assert.equal(result.kind, "keepHistory", text.slice(0, 40));
    assert.equal(result.status, status, text.slice(0, 40));
    const d = result.attempts[0].diagnosis;
    assert.equal(d.statusClass, StatusClass.DISCARD);
    assert.equal(d.rule, "G17.10");
    assert.equal(d.location, "summary");
    assert.equal(requests.length, 1);
  }
  const notUtf8 = new Uint8Array([...new TextEncoder().encode(JSON.stringify(SECTIONS)), 0xff]);
  assert.equal((await round([textReply(notUtf8)], { structured: true })).result.status, Status.SUMMARY_WIRE);
  // A key given twice counts once, with its last value.
  const twice = JSON.stringify(SECTIONS).slice(0, -1) + ', "goal": "Second goal."}';
  const { result } = await round([textReply(twice)], { structured: true });
  assert.equal(result.kind, "compacted");
  assert.ok(result.summary.includes("<goal>Second goal.</goal>"));
});

test("a JSON text cut at the limit is truncated, escalated and retried", async () => {
  const whole = JSON.stringify(SECTIONS);
  const { result, requests } = await round([textReply(whole.slice(0, 50), 2048, "length"), textReply(whole, 70)], {
    structured: true,
    maxTokens: 1000,
  });
  assert.equal(result.kind, "compacted");
  const d = result.attempts[0].diagnosis;
  assert.equal(d.status, Status.REPLY_TRUNCATED);
  assert.equal(d.rule, "R15.4");
  assert.deepEqual([d.limit, d.actual], [2048n, 2048n]);
  assert.deepEqual(
    requests.map((r) => r.maxTokens),
    [1000, 2000],
  );
  assert.match(requests[1].messages[2].content, /cut off/);
});

test("the text verdicts apply to the rendered summary", async () => {
  const size = bytes(RENDERED);
  const usage = await round([sectionsReply(SECTIONS, 0)], { structured: true });
  assert.equal(usage.result.status, Status.SUMMARY_TOKEN_USAGE);
  const tokens = await round([sectionsReply(SECTIONS, 2049)], { attempts: 1 });
  assert.equal(tokens.result.status, Status.SUMMARY_TOKEN_LIMIT);
  const short = await round([sectionsReply(SECTIONS), sectionsReply(SECTIONS)], { maxReplyBytes: size - 1, attempts: 2 });
  assert.equal(short.result.status, Status.SUMMARY_BYTE_LIMIT);
  assert.deepEqual([short.result.attempts[0].diagnosis.limit, short.result.attempts[0].diagnosis.actual], [BigInt(size - 1), BigInt(size)]);
  assert.equal((await round([sectionsReply(SECTIONS)], { maxReplyBytes: size })).result.kind, "compacted");
});

test("never an unvalidated summary; sections of the wrong shape are the host's error", async () => {
  const blank = sectionsReply(withSections({ goal: "   " }));
  const { result } = await round([blank, blank, blank], { structured: true });
  assert.equal(result.kind, "keepHistory");
  assert.equal(result.status, Status.SUMMARY_XML_CONTENT);
  assert.equal(result.attempts.length, 3);
  assert.equal("summary" in result, false);
  const { open_items: openItems } = SECTIONS;
  for (const sections of [
    { ...SECTIONS, state: undefined },
    { ...SECTIONS, goal: new Uint8Array(1) },
    { ...SECTIONS, openItems },
    ["goal"],
    "sections",
  ]) {
    await assert.rejects(round([sectionsReply(sections)]), TypeError);
  }
  await assert.rejects(round([{ outputTokens: 3, stop: "end" }]), TypeError);
  // reshowRejected shows a rejected reply's text when it has one.
  const shown = await round([{ text: "{}", sections: withSections({ goal: "" }), outputTokens: 3 }, sectionsReply(SECTIONS)], {
    reshowRejected: true,
  });
  assert.equal(shown.requests[1].messages[1].content, "{}");
  const empty = await round([{ text: "", sections: withSections({ goal: "" }), outputTokens: 3 }, sectionsReply(SECTIONS)], {
    reshowRejected: true,
  });
  assert.equal(empty.requests[1].messages[1].content, WITHHELD);
  await assert.rejects(round([sectionsReply(SECTIONS)], { structured: "yes" }), TypeError);
});

test("a streamed JSON reply of a structured round is read to its end (T17.6, G17.10)", async () => {
  // The XML stream would find `{` dead at once: a structured round gathers the chunks instead.
  const body = JSON.stringify(SECTIONS);
  let read = "";
  async function* chunks() {
    for (let at = 0; at < body.length; at += 7) {
      read += body.slice(at, at + 7);
      yield body.slice(at, at + 7);
    }
  }
  const input = Input.parse(WIRE);
  try {
    const result = await compact(input, () => ({ chunks: chunks(), usage: () => ({ outputTokens: 80, stop: "end" }) }), {
      structured: true,
    });
    assert.equal(result.kind, "compacted");
    assert.equal(result.summary, RENDERED);
    assert.equal(read, body);
    assert.equal(result.attempts[0].aborted, false);
  } finally {
    input.free();
  }
});
