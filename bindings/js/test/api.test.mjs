// The JavaScript API of the installed package: the diagnostics of SPEC §13 (a table whose offsets,
// lines, columns, sections, rules and locations were worked out by hand from the SPEC), errors,
// buffers, integer arguments, the Input lifecycle, traps, and the constants generated from the
// header.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import test from "node:test";

import * as lc from "loopcompact";
import { LoopcompactError, Section, Status, StatusClass } from "loopcompact";

const HEADER =
  process.env.LOOPCOMPACT_HEADER ?? fileURLToPath(new URL("../../../include/loopcompact.h", import.meta.url));

const VALID = "<conversation_summary><goal>ship</goal><constraints/><decisions/><state>green</state><open_items/></conversation_summary>";
/** A summary with this goal element and these sections after it. */
const S = (goal, rest = "<constraints/><decisions/><state>s</state><open_items/>") =>
  `<conversation_summary>${goal}${rest}</conversation_summary>`;

const BASIS = { revision: 3, through_event_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" };
const FP = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
const wire = (o = {}) =>
  JSON.stringify({
    version: 1,
    basis: BASIS,
    model: { provider: "p", model: "m" },
    request_fingerprint: FP,
    transcript: [{ role: "user", blocks: [{ type: "text", text: "hello" }] }],
    max_summary_tokens: 32,
    ...o,
  });
const reply = (o = {}) =>
  JSON.stringify({ version: 1, basis: BASIS, model: { provider: "p", model: "m" }, request_fingerprint: FP, summary: S("<goal>g</goal>"), ...o });
const policy = (o = {}) =>
  JSON.stringify({
    Automatic: true,
    CounterPolicy: 2,
    CompactAt: 8000,
    RearmBelow: 6000,
    ReservedOutput: 4096,
    SafetyMargin: 512,
    MaxSummaryTokens: 2048,
    CountTimeout: 2000000000,
    Hustle: "context.compact",
    ...o,
  });
const capability = { Provider: "", Transport: 1, SecurityIdentity: Array(32).fill(0), Retention: 1 };
const withInput = (f) => {
  const input = lc.Input.parse(wire());
  try {
    return f(input);
  } finally {
    input.free();
  }
};

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

// Each case: the call, then what SPEC §13 says the diagnosis is (C13.2: null offset/line/column
// when unknown; limit/actual null unless a byte or token limit). The arithmetic is in the comments.
const NONE = { offset: null, line: null, column: null };
// SPEC names the expectation of a JSON field ("its expectation as expected") without fixing its
// words: such cases only require one.
const SOME = Symbol("a non-empty string");
const DIAGNOSES = [
  {
    name: "empty summary: no root at the end of the input (X4.20)",
    call: () => lc.validateSummary(""),
    want: { name: "LC_SUMMARY_XML_ROOT", offset: 0, line: 1, column: 1, section: Section.ROOT, rule: "X4.20", expected: "<conversation_summary>" },
  },
  {
    name: "wrong root: section ROOT, expected <conversation_summary>",
    call: () => lc.validateSummary("<summary><goal>x</goal></summary>"),
    want: { name: "LC_SUMMARY_XML_ROOT", offset: 0, line: 1, column: 1, section: Section.ROOT, rule: "X4.18", expected: "<conversation_summary>" },
  },
  {
    // "<conversation_summary>" 22 + "<goal>ship</goal>" 17 = 39: the "<" of <decisions/>.
    name: "missing section: the token found where constraints was expected",
    call: () => lc.validateSummary(S("<goal>ship</goal>", "<decisions/><state>s</state><open_items/>")),
    want: { name: "LC_SUMMARY_XML_STRUCTURE", offset: 39, line: 1, column: 40, section: Section.CONSTRAINTS, rule: "X4.18", expected: "<constraints>" },
  },
  {
    // 22 + "\n" 1 = 23: the "<" of <goal>, first byte of line 2.
    name: "blank goal: the start tag of goal (X4.20)",
    call: () => lc.validateSummary(S("\n<goal>  </goal>\n")),
    want: { name: "LC_SUMMARY_XML_CONTENT", offset: 23, line: 2, column: 1, section: Section.GOAL, rule: "X4.20", expected: "non-blank text" },
  },
  {
    // 22 + "<goal>g</goal>" 14 + "<constraints/>" 14 + "<decisions/>" 12 + "\n" 1 = 63.
    name: "blank state (a character reference to a space is blank, X4.21)",
    call: () => lc.validateSummary(S("<goal>g</goal>", "<constraints/><decisions/>\n<state>&#x20;</state><open_items/>")),
    want: { name: "LC_SUMMARY_XML_CONTENT", offset: 63, line: 2, column: 1, section: Section.STATE, rule: "X4.20", expected: "non-blank text" },
  },
  {
    // Bytes: 22 + "\n" + "<goal>" 6 + "é" 2 + "€" 3 + " " 1 = 35. Column in scalar values on
    // line 2: "<goal>" 6 + é, €, space 3 = 9 before it, so 10.
    name: "unknown entity: its '&', column in Unicode scalar values (X4.6)",
    call: () => lc.validateSummary(S("\n<goal>é€ &nbsp;</goal>")),
    want: { name: "LC_SUMMARY_XML_SYNTAX", offset: 35, line: 2, column: 10, section: Section.GOAL, rule: "X4.6", expected: "" },
  },
  {
    // 22 + "<goal>x" 7 = 29.
    name: "end tag closing the wrong element: expected the end tag that would close it (X4.12)",
    call: () => lc.validateSummary("<conversation_summary><goal>x</state>"),
    want: { name: "LC_SUMMARY_XML_SYNTAX", offset: 29, line: 1, column: 30, section: Section.GOAL, rule: "X4.12", expected: "</goal>" },
  },
  {
    // 22 + "<goal>a" 7 = 29: the U+0001 itself.
    name: "a control character in goal (X4.8)",
    call: () => lc.validateSummary(S("<goal>a\u0001b</goal>")),
    want: { name: "LC_SUMMARY_XML_SYNTAX", offset: 29, line: 1, column: 30, section: Section.GOAL, rule: "X4.8", expected: "" },
  },
  {
    // 22 + "<goal>" 6 = 28: "<![CDATA[" anywhere is xml_structure before anything else (X4.3).
    name: "CDATA inside goal (X4.3)",
    call: () => lc.validateSummary(S("<goal><![CDATA[x]]></goal>")),
    want: { name: "LC_SUMMARY_XML_STRUCTURE", offset: 28, line: 1, column: 29, section: Section.GOAL, rule: "X4.3", expected: "" },
  },
  {
    // The input ends at 22 + "<goal>x</goal>" 14 = 36 with the root open, between sections.
    name: "end of input inside the root (X4.16)",
    call: () => lc.validateSummary("<conversation_summary><goal>x</goal>"),
    want: { name: "LC_SUMMARY_XML_SYNTAX", offset: 36, line: 1, column: 37, section: Section.ROOT, rule: "X4.16", expected: "</conversation_summary>" },
  },
  {
    // 22 + "<goal>g</goal>" 14 + "<constraints/><decisions/><state>s</state><open_items/>" 55 = 91:
    // the extra element, where the root's end tag was expected.
    name: "an element after open_items: section ROOT, expected </conversation_summary>",
    call: () => lc.validateSummary(S("<goal>g</goal>", "<constraints/><decisions/><state>s</state><open_items/><extra/>")),
    want: { name: "LC_SUMMARY_XML_STRUCTURE", offset: 91, line: 1, column: 92, section: Section.ROOT, rule: "X4.18", expected: "</conversation_summary>" },
  },
  {
    // 91 + "</conversation_summary>" 23 = 114: the newline after the root, outside it (NONE).
    name: "a newline after the root: section NONE",
    call: () => lc.validateSummary(`${S("<goal>g</goal>")}\n`),
    want: { name: "LC_SUMMARY_XML_STRUCTURE", offset: 114, line: 1, column: 115, section: Section.NONE, rule: "X4.18", expected: "" },
  },
  {
    // The reply's summary decodes "\n" escapes: 22 + 1 + "<goal>g</goal>" 14 + 1 = 38 bytes of the
    // decoded text, on its third line; location "summary".
    name: "reply: the summary's own failure counts bytes of the decoded summary",
    call: () =>
      withInput((input) =>
        input.validateOutput(reply({ summary: "<conversation_summary>\n<goal>g</goal>\n<state>s</state></conversation_summary>" }), 10, 4096),
      ),
    want: { name: "LC_SUMMARY_XML_STRUCTURE", offset: 38, line: 3, column: 1, section: Section.CONSTRAINTS, rule: "X4.18", expected: "<constraints>", location: "summary" },
  },
  {
    // reply() is this identity's shortest reply document (no whitespace, no escapes, the 114-byte
    // summary): a limit of its length can be met, so a longer reply over it is a retry.
    name: "reply over the byte limit: limit and actual (O6.2 step 1)",
    call: () => withInput((input) => input.validateOutput(reply({ summary: S("<goal>goal</goal>") }), 10, Buffer.byteLength(reply()))),
    want: {
      name: "LC_SUMMARY_BYTE_LIMIT",
      ...NONE,
      rule: "O6.2",
      limit: BigInt(Buffer.byteLength(reply())),
      actual: BigInt(Buffer.byteLength(reply({ summary: S("<goal>goal</goal>") }))),
      statusClass: StatusClass.RETRY,
    },
  },
  {
    // R15.2: one byte below the shortest reply document no reply can meet the limit: the host's.
    name: "reply byte limit below the shortest reply document: class HOST (R15.2)",
    call: () => withInput((input) => input.validateOutput(reply(), 10, Buffer.byteLength(reply()) - 1)),
    want: {
      name: "LC_SUMMARY_BYTE_LIMIT",
      ...NONE,
      rule: "O6.2",
      limit: BigInt(Buffer.byteLength(reply()) - 1),
      actual: BigInt(Buffer.byteLength(reply())),
      statusClass: StatusClass.HOST,
    },
  },
  {
    name: "reply over the token budget: max_summary_tokens and the reported tokens",
    call: () => withInput((input) => input.validateOutput(reply(), 33, 4096)),
    want: { name: "LC_SUMMARY_TOKEN_LIMIT", ...NONE, rule: "O6.2", limit: 32n, actual: 33n, statusClass: StatusClass.RETRY },
  },
  {
    name: "reply of another request: the first field that differs",
    call: () => withInput((input) => input.validateOutput(reply({ basis: { ...BASIS, revision: 4 } }), 10, 4096)),
    want: { name: "LC_SUMMARY_IDENTITY", rule: "O6.2", location: "basis.revision", statusClass: StatusClass.DISCARD },
    // At the differing value in the reply (the reply is ASCII: characters are bytes).
    at: (e) => assert.equal(e.offset, reply({ basis: { ...BASIS, revision: 4 } }).indexOf('"revision":4') + 11),
  },
  {
    name: "input: a zero field has no offset, its path and expectation (W5.2 step 11)",
    call: () => lc.validateInput(wire({ max_summary_tokens: 0 })),
    want: { name: "LC_INPUT_MAX_SUMMARY_TOKENS", ...NONE, rule: "W5.2", location: "max_summary_tokens", expected: SOME, statusClass: StatusClass.HOST },
  },
  {
    // {"version":1, 13 + "basis": 8 + { 1 + "revision":3, 13 + "through_event_id": 19 = 54 is the
    // opening quote; 55 the first character of the value.
    name: "input: a non-canonical event id (W5.3), at its value",
    call: () => lc.validateInput(wire({ basis: { ...BASIS, through_event_id: BASIS.through_event_id.toUpperCase() } })),
    want: { name: "LC_INPUT_BASIS", offset: 55, line: 1, column: 56, rule: "W5.3", location: "basis.through_event_id" },
  },
  {
    // An unknown type is located at its value: the first byte inside the quotes of "bogus".
    name: "input: a block of an unknown type inside the transcript (T5.5)",
    call: () =>
      lc.validateInput(
        wire({ transcript: [{ role: "user", blocks: [{ type: "text", text: "hi" }] }, { role: "user", blocks: [{ type: "bogus" }] }] }),
      ),
    want: { name: "LC_INPUT_TRANSCRIPT", rule: "T5.5", location: "transcript[1].blocks[0].type" },
    at: (e) => {
      const doc = wire({ transcript: [{ role: "user", blocks: [{ type: "text", text: "hi" }] }, { role: "user", blocks: [{ type: "bogus" }] }] });
      assert.equal(e.offset, doc.indexOf('"bogus"') + 1);
    },
  },
  {
    // C13.4: "Keys missing from the wires' top level (W5.2 steps 2-3, ...) are named", with no
    // offset and the field's expectation.
    name: "input: a missing version key names it (W5.2 step 2)",
    call: () => lc.validateInput(wire({ version: undefined })),
    want: { name: "LC_INPUT_WIRE", ...NONE, rule: "W5.2", location: "version", expected: SOME },
  },
  {
    // An unknown key is never shown (C13.1): location "" (the document), rule J5.5.
    name: "input: an unknown key is not echoed",
    call: () => lc.validateInput(wire({ extra: true })),
    want: { name: "LC_INPUT_WIRE", rule: "J5.5", location: "" },
    // The key's first character, just after its quote (as the event id's value above).
    at: (e) => assert.equal(e.offset, wire({ extra: true }).indexOf('"extra"') + 1),
  },
  {
    // {"Automatic":true, 18 + "CounterPolicy":2, 18 + "CompactAt": 12 = 48: the value.
    name: "policy: a string where CompactAt takes an integer (J5.8)",
    call: () => lc.validateCompactionPolicy(policy({ CompactAt: "x" }), lc.CounterQuality.EXACT_LOCAL),
    want: { name: "LC_POLICY_WIRE", offset: 48, line: 1, column: 49, rule: "J5.8", location: "CompactAt" },
  },
  {
    name: "policy: RearmBelow not below CompactAt (P8.3 step 7)",
    call: () => lc.validateCompactionPolicy(policy({ RearmBelow: 8000 }), lc.CounterQuality.EXACT_LOCAL),
    want: { name: "LC_POLICY_REARM_BELOW", ...NONE, rule: "P8.3", location: "RearmBelow", expected: SOME },
  },
  {
    name: "context config: the nested policy's field",
    call: () =>
      lc.validateContextConfig(
        JSON.stringify({
          Compaction: JSON.parse(policy({ RearmBelow: 9000 })),
          ContextObservation: null,
          CounterCapability: { ...capability, TokenizerRev: "t", Quality: 2 },
          InferenceCapability: capability,
        }),
      ),
    want: { name: "LC_POLICY_REARM_BELOW", ...NONE, rule: "P8.3", location: "Compaction.RearmBelow", expected: SOME },
  },
  {
    name: "context config: a policy without a counter names the counter (P8.8 step 2)",
    call: () =>
      lc.validateContextConfig(
        JSON.stringify({ Compaction: JSON.parse(policy()), ContextObservation: null, CounterCapability: null, InferenceCapability: null }),
      ),
    want: { name: "LC_CONTEXT_MISSING_COUNTER", ...NONE, rule: "P8.8", location: "CounterCapability", expected: SOME },
  },
  {
    // C13.4: a key missing inside an object is reported at that object's closing "}", with the
    // object's path and "every key of the layout" (J5.8: a missing key).
    name: "fingerprint: a key missing from Model.Caps",
    call: () => lc.requestFingerprint(capsWithoutPromptCaching()),
    want: { name: "LC_FINGERPRINT_WIRE", rule: "J5.8", location: "Model.Caps", expected: "every key of the layout" },
    at: (e) => {
      const doc = capsWithoutPromptCaching();
      const caps = doc.indexOf('"Caps":{');
      assert.equal(e.offset, doc.indexOf("}", caps));
      assert.equal(e.line, 1);
      assert.equal(e.column, e.offset + 1);
    },
  },
  {
    name: "fingerprint: a control byte in Model.BaseURL (R10.4)",
    call: () => {
      const doc = JSON.parse(firstFingerprintInput());
      doc.Model.BaseURL = "http://h\u0001";
      lc.requestFingerprint(JSON.stringify(doc));
    },
    want: { name: "LC_FINGERPRINT_MODEL", ...NONE, rule: "R10.4", location: "Model.BaseURL", expected: SOME },
  },
];

function capsWithoutPromptCaching() {
  const doc = JSON.parse(firstFingerprintInput());
  delete doc.Model.Caps.PromptCaching;
  return JSON.stringify(doc);
}

function firstFingerprintInput() {
  const vectors = process.env.LOOPCOMPACT_VECTORS ?? fileURLToPath(new URL("../../../tests/vectors/", import.meta.url));
  return JSON.parse(readFileSync(`${vectors}/fingerprint.jsonl`, "utf8").split("\n")[0]).input;
}

test("diagnostics table (SPEC §13)", async (t) => {
  for (const c of DIAGNOSES) {
    await t.test(c.name, () => {
      const e = rejection(c.call);
      const want = { section: Section.NONE, location: "", limit: null, actual: null, ...c.want };
      assert.equal(e.status, Status[want.name.slice(3)]);
      assert.equal(e.statusClass, want.statusClass ?? lc.statusClass(e.status));
      for (const [field, value] of Object.entries(want)) {
        if (value === SOME) assert.ok(typeof e[field] === "string" && e[field] !== "", field);
        else if (field !== "statusClass") assert.equal(e[field], value, field);
      }
      c.at?.(e);
      // The texts of the status, and the message says where without echoing the input.
      assert.equal(e.reason, lc.statusReason(e.status));
      assert.ok(e.message.startsWith(lc.statusMessage(e.status)));
      if (e.line !== null) assert.match(e.message, new RegExp(`line ${e.line}, column ${e.column}`));
    });
  }
});

test("retry message (SPEC C13.5)", () => {
  const e = rejection(() => lc.validateSummary(S("<goal>ship</goal>", "<decisions/><state>s</state><open_items/>")));
  const message = e.retryMessage();
  assert.match(message, /line 1, column 40/);
  assert.match(message, /constraints/);
  assert.match(message, /X4\.18/);
  // Not a retry class: the message says no retry helps.
  const host = rejection(() => lc.validateInput(wire({ max_summary_tokens: 0 })));
  assert.equal(host.statusClass, StatusClass.HOST);
  assert.notEqual(host.retryMessage(), message);
  assert.ok(host.retryMessage().length > 0);
  // A status with no diagnosis of its own (encodeWithin) still has one.
  const tooLarge = rejection(() => withInput((input) => input.encodeWithin(0)));
  assert.equal(tooLarge.name, "LC_INPUT_TOO_LARGE");
  assert.equal(tooLarge.offset, null);
  assert.ok(tooLarge.retryMessage().length > 0);
});

test("status texts and classes", () => {
  assert.equal(lc.version(), "0.1.0");
  assert.equal(lc.abiVersion(), lc.ABI_VERSION);
  assert.equal(lc.statusName(0), "LC_OK");
  assert.equal(lc.statusReason(0), "");
  assert.equal(lc.statusName(208), "LC_SUMMARY_XML_STRUCTURE");
  assert.equal(lc.statusReason(303), "RearmBelow");
  assert.equal(lc.statusName(12345), "LC_UNKNOWN_STATUS");
  assert.equal(lc.statusClass(12345), StatusClass.HOST);
  assert.equal(lc.statusClass(Status.ERR_PANIC), StatusClass.BUG);
  assert.equal(lc.statusClass(Status.SUMMARY_IDENTITY), StatusClass.DISCARD);
  assert.equal(lc.statusClass(Status.OK), StatusClass.OK);
  const e = rejection(() => lc.validateSummary("<summary/>"));
  assert.equal(String(e), `LC_SUMMARY_XML_ROOT: ${e.message}`);
  assert.ok(e instanceof Error);
  assert.throws(() => lc.statusName(2 ** 31), RangeError);
});

test("constants are the header's #defines", { skip: !existsSync(HEADER) && "the header is not here" }, () => {
  const defines = new Map([...readFileSync(HEADER, "utf8").matchAll(/^#define (LC_\w+) (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  const groups = [
    ["LC_SECTION_", lc.Section],
    ["LC_CLASS_", lc.StatusClass],
    ["LC_PRESSURE_", lc.PressureLevel],
    ["LC_COUNTER_QUALITY_", lc.CounterQuality],
  ];
  for (const [prefix, object] of groups) {
    const fromHeader = Object.fromEntries([...defines].filter(([n]) => n.startsWith(prefix)).map(([n, v]) => [n.slice(prefix.length), v]));
    assert.deepEqual({ ...object }, fromHeader, prefix);
  }
  assert.equal(lc.FINGERPRINT_LEN, defines.get("LC_FINGERPRINT_LEN"));
  assert.equal(lc.ABI_VERSION, defines.get("LC_ABI_VERSION"));
  for (const [name, value] of Object.entries(lc.Status)) {
    assert.equal(defines.get(`LC_${name}`), value, name);
    assert.equal(lc.statusName(value), `LC_${name}`);
  }
  assert.equal(Object.keys(lc.Status).length, [...defines.keys()].filter((n) => lc.statusName(defines.get(n)) === n).length);
});

test("documents as strings or bytes; the empty document", () => {
  lc.validateSummary(VALID);
  lc.validateSummary(new TextEncoder().encode(VALID));
  lc.validateSummary(Buffer.from(VALID));
  for (const empty of ["", new Uint8Array(0)]) assert.equal(rejection(() => lc.validateSummary(empty)).name, "LC_SUMMARY_XML_ROOT");
  // A NUL inside is data (X4.8), in both forms.
  assert.equal(rejection(() => lc.validateSummary(VALID.replace("ship", "sh\0p"))).name, "LC_SUMMARY_XML_SYNTAX");
  // Non-UTF-8 bytes only through a Uint8Array.
  const bad = new TextEncoder().encode(VALID);
  bad[29] = 0xff;
  assert.equal(rejection(() => lc.validateSummary(bad)).rule, "X4.8");
  for (const wrong of [null, undefined, 42, {}, new ArrayBuffer(3), [60]]) {
    assert.throws(() => lc.validateSummary(wrong), TypeError);
  }
});

test("integer arguments are checked, u64 as number or bigint", () => {
  assert.equal(lc.occupancyBasisPoints(96_000, 192_000), 5000);
  assert.equal(lc.occupancyBasisPoints(2n ** 64n - 1n, 2n ** 64n - 1n), 10000);
  assert.throws(() => lc.occupancyBasisPoints(-1, 10), RangeError);
  assert.throws(() => lc.occupancyBasisPoints(1.5, 10), RangeError);
  assert.throws(() => lc.occupancyBasisPoints(2 ** 53, 10), RangeError);
  assert.throws(() => lc.occupancyBasisPoints(2n ** 64n, 10), RangeError);
  assert.throws(() => lc.occupancyBasisPoints("1", 10), TypeError);
  assert.throws(() => lc.pressureLevel(1, 70000, true, 8000, 6000), RangeError);
  assert.throws(() => lc.pressureLevel(1, 100, 1, 8000, 6000), TypeError);
  assert.throws(() => lc.validateCompactionPolicy(policy(), 2 ** 32 + 3), RangeError);
  assert.equal(lc.pressureLevel(lc.PressureLevel.COMPACT, 6000, true, 8000, 6000), lc.PressureLevel.COMPACT);
  assert.equal(lc.pressureLevel(lc.PressureLevel.NORMAL, 6000, true, 8000, 6000), lc.PressureLevel.NORMAL);
  assert.deepEqual(lc.resolveContextLimits({ windowTokens: 200_000, maxInputTokens: 0, maxOutputTokens: 32_000 }, 8_000, 1_000), {
    reservedOutput: 8_000n,
    rawInputLimit: 192_000n,
    inputLimit: 191_000n,
  });
  assert.equal(rejection(() => lc.resolveContextLimits({ windowTokens: 0, maxInputTokens: 0, maxOutputTokens: 0 }, 1, 1)).name, "LC_LIMITS_UNKNOWN");
  assert.equal(rejection(() => lc.replacementCheck(100, 100)).name, "LC_SUMMARY_TOO_LARGE");
  lc.replacementCheck(99, 100);
});

test("Input lifecycle", () => {
  const input = lc.Input.parse(wire());
  assert.equal(input.freed, false);
  const encoded = input.encodeWithin(1 << 20);
  assert.ok(encoded instanceof Uint8Array);
  assert.ok(new TextDecoder().decode(encoded).startsWith('{"version":1,'));
  assert.deepEqual(input.encodeWithin(encoded.length), encoded); // an exact fit
  assert.deepEqual(input.encodeWithin(BigInt(encoded.length)), encoded);
  assert.equal(input.validateOutput(reply(), 10, 4096), S("<goal>g</goal>"));
  input.free();
  assert.equal(input.freed, true);
  input.free(); // idempotent
  assert.throws(() => input.encodeWithin(100), /freed/);
  assert.throws(() => input.validateOutput(reply(), 1, 10), /freed/);
  // Symbol.dispose is free().
  const other = lc.Input.parse(wire());
  other[Symbol.dispose]();
  assert.equal(other.freed, true);
  const e = rejection(() => lc.Input.parse(wire({ max_summary_tokens: 0 })));
  assert.equal(e.name, "LC_INPUT_MAX_SUMMARY_TOKENS");
  assert.equal(e.location, "max_summary_tokens"); // parse has the diagnosis of validateInput
});

test("a large encoding takes the second call of the two-call pattern", () => {
  const text = "x".repeat(3 << 20); // beyond the first guess of 1 MiB
  const input = lc.Input.parse(wire({ transcript: [{ role: "user", blocks: [{ type: "text", text }] }] }));
  try {
    const encoded = input.encodeWithin(1n << 30n);
    assert.ok(encoded.length > 3 << 20);
    assert.equal(encoded.length, Buffer.byteLength(wire({ transcript: [{ role: "user", blocks: [{ type: "text", text }] }] })));
  } finally {
    input.free();
  }
});

test("fingerprint bytes and hex", () => {
  const digest = lc.requestFingerprint(firstFingerprintInput());
  assert.equal(digest.bytes.length, 32);
  assert.match(digest.hex, /^[0-9a-f]{64}$/);
  assert.equal(Buffer.from(digest.bytes).toString("hex"), digest.hex);
});

test("summary sections, section text, instructions", () => {
  const xml = "<conversation_summary><goal>a &amp; b</goal><constraints>c\r\nd</constraints><decisions/><state>s</state><open_items></open_items></conversation_summary>";
  const spans = lc.summarySections(xml);
  assert.deepEqual(
    spans.map((s) => s.section),
    [Section.GOAL, Section.CONSTRAINTS, Section.DECISIONS, Section.STATE, Section.OPEN_ITEMS],
  );
  assert.deepEqual(spans[0], { section: Section.GOAL, offset: 28, length: 9 });
  assert.equal(xml.slice(spans[0].offset, spans[0].offset + spans[0].length), "a &amp; b");
  assert.equal(spans[2].length, 0);
  assert.equal(lc.summarySectionText(xml, Section.GOAL), "a & b");
  assert.equal(lc.summarySectionText(xml, Section.CONSTRAINTS), "c\nd");
  assert.equal(lc.summarySectionText(xml, Section.OPEN_ITEMS), "");
  assert.equal(rejection(() => lc.summarySectionText(xml, Section.ROOT)).name, "LC_ERR_INVALID_ARGUMENT");
  assert.equal(rejection(() => lc.summarySections("<x/>")).name, "LC_SUMMARY_XML_ROOT");
  assert.equal(rejection(() => lc.summarySectionText(S("<goal> </goal>"), Section.GOAL)).rule, "X4.20");
  const instructions = lc.summaryInstructions();
  const example = instructions.trimEnd().split("\n").at(-1);
  lc.validateSummary(example); // C13.6: its last line is a valid summary
});

test("memory: repeated calls do not grow the instance", () => {
  const big = "y".repeat(64 << 10);
  const run = () => {
    for (let i = 0; i < 200; i++) {
      lc.validateSummary(S(`<goal>${big}</goal>`));
      rejection(() => lc.validateSummary(S(`<goal>${big}&bad;</goal>`)));
      const input = lc.Input.parse(wire({ transcript: [{ role: "user", blocks: [{ type: "text", text: big }] }] }));
      input.encodeWithin(1 << 20);
      input.free();
    }
  };
  run();
  const before = lc._internal.memoryBytes();
  run();
  assert.equal(lc._internal.memoryBytes(), before);
});

test("a trap is LC_ERR_PANIC, and the next call gets a fresh instance", () => {
  const survivor = lc.Input.parse(wire());
  // An out-of-bounds read inside the module: the kind of failure a panic (an abort) also gives.
  const e = rejection(() => lc._internal.call("lc_summary_xml_validate", 0x7fff_fff0, 64));
  assert.equal(e.status, Status.ERR_PANIC);
  assert.equal(e.name, "LC_ERR_PANIC");
  assert.equal(e.statusClass, StatusClass.BUG);
  assert.ok(e.cause instanceof WebAssembly.RuntimeError);
  lc.validateSummary(VALID);
  assert.throws(() => survivor.encodeWithin(100), /trapped/);
  survivor.free(); // harmless
  withInput((input) => assert.ok(input.encodeWithin(1 << 20).length > 0));
});
