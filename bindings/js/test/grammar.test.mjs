// SPEC §17.1-§17.2 from JavaScript: the grammars, the JSON Schema and the renderer. Summaries are
// drawn item by item from the subset G17.2 describes (raw characters of every class, the five
// entities, decimal and hexadecimal references with leading zeros, separators, empty and
// self-closed optional sections), by a sampler written here from the SPEC, not from the grammar
// text: every drawn summary with a non-blank goal and state validates and matches the regex, every
// blank one is refused by both. Rendered objects validate and give their texts back.

import assert from "node:assert/strict";
import test from "node:test";

import * as lc from "loopcompact";
import { LoopcompactError, Section, Status } from "loopcompact";

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  return { next, int, pick: (xs) => xs[int(0, xs.length - 1)] };
}

// The White_Space characters that are XML Chars (X4.21), as code points.
const WS = [0x9, 0xa, 0xd, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000];
const WS_SET = new Set(WS);
// Raw white space inside the subset: no CR (read back as LF) and no U+0085 (a C1 control) (G17.3).
const WS_RAW = WS.filter((c) => c !== 0xd && c !== 0x85);

/** A raw character without White_Space inside the subset: printable ASCII but & < >, or U+00A1 up (no surrogates, no U+FFFE/U+FFFF). */
function nonWsRaw(r) {
  for (;;) {
    const band = r.int(0, 3);
    const c = band === 0 ? r.int(0x21, 0x7e) : band === 1 ? r.int(0xa1, 0xd7ff) : band === 2 ? r.int(0xe000, 0xfffd) : r.int(0x10000, 0x10ffff);
    if (c !== 0x26 && c !== 0x3c && c !== 0x3e && !WS_SET.has(c)) return c;
  }
}

/** Any XML Char (X4.8) as a reference's value. */
function anyChar(r) {
  const band = r.int(0, 4);
  if (band === 0) return r.pick([0x9, 0xa, 0xd]);
  if (band === 1) return r.pick(WS);
  return band === 2 ? r.int(0x20, 0xd7ff) : band === 3 ? r.int(0xe000, 0xfffd) : r.int(0x10000, 0x10ffff);
}

/**
 * A reference to `value`, decimal or hexadecimal with leading zeros. Decimal only where the subset
 * has it (G17.2, G17.3): values up to 55295, and not a non-white value above 127 while the text of
 * a required section is still blank.
 */
function reference(r, value, blankPrefix) {
  const zeros = "0".repeat(r.pick([0, 0, 0, 1, 3]));
  const decimal = value <= 55295 && !(blankPrefix && value > 127 && !WS_SET.has(value));
  if (decimal && r.next() < 0.5) return `&#${zeros}${value};`;
  const hex = [...value.toString(16)].map((d) => (r.next() < 0.5 ? d.toUpperCase() : d)).join("");
  return `&#x${zeros}${hex};`;
}

/** One item of section text and whether it is white space (X4.21). */
function item(r, blankPrefix) {
  const kind = r.int(0, 9);
  if (kind < 3) return [String.fromCodePoint(r.pick(WS_RAW)), true];
  if (kind < 7) return [String.fromCodePoint(nonWsRaw(r)), false];
  if (kind === 7) return [r.pick(["&lt;", "&gt;", "&amp;", "&apos;", "&quot;"]), false];
  const value = anyChar(r);
  return [reference(r, value, blankPrefix), WS_SET.has(value)];
}

/** Section text of `n` items; `blank` is true when every item is white space. */
function text(r, n, required) {
  let out = "";
  let blank = true;
  for (let i = 0; i < n; i++) {
    const [s, ws] = item(r, required && blank);
    out += s;
    blank &&= ws;
  }
  return [out, blank];
}

const sep = (r) => Array.from({ length: r.pick([0, 0, 1, 2]) }, () => r.pick(["\t", "\n", " "])).join("");

/** A summary of the subset, and whether its goal and state are non-blank (then it must validate). */
function sample(r) {
  let xml = "<conversation_summary>" + sep(r);
  let ok = true;
  for (const name of ["goal", "constraints", "decisions", "state", "open_items"]) {
    const required = name === "goal" || name === "state";
    const [content, blank] = text(r, r.pick([0, 1, 2, 5, 20, 60]), required);
    if (required) {
      ok &&= !blank;
      xml += `<${name}>${content}</${name}>`;
    } else if (content === "" && r.next() < 0.5) {
      xml += `<${name}/>`;
    } else {
      xml += `<${name}>${content}</${name}>`;
    }
    xml += sep(r);
  }
  return [xml + "</conversation_summary>", ok];
}

function valid(xml) {
  try {
    lc.validateSummary(xml);
    return true;
  } catch (e) {
    assert.ok(e instanceof LoopcompactError);
    return false;
  }
}

// JavaScript's RegExp has no \UHHHHHHHH escape; with the u flag \u{H...} is the same code point.
// Only that escape is rewritten (docs/constrained-decoding.md says so).
const REGEX = new RegExp(`^(?:${lc.summaryGrammar("regex").replace(/\\U([0-9A-Fa-f]{8})/g, (_, h) => `\\u{${h}}`)})$`, "u");

test("summaryGrammar: three distinct grammar texts; another kind is a TypeError", () => {
  const texts = ["regex", "lark", "gbnf"].map((k) => lc.summaryGrammar(k));
  assert.equal(new Set(texts).size, 3);
  assert.ok(texts[0].startsWith("<conversation_summary>") && texts[0].endsWith("</conversation_summary>"));
  assert.match(texts[1], /^start:/m);
  assert.match(texts[2], /^root ::=/m);
  assert.equal(lc.summaryGrammar("lark"), texts[1]);
  for (const bad of ["ebnf", "REGEX", "", "toString", 1, null, undefined]) assert.throws(() => lc.summaryGrammar(bad), TypeError);
});

test("sampled summaries of the subset: non-blank ones validate and match the regex, blank ones neither", () => {
  const r = rng(2917);
  let accepted = 0;
  let refused = 0;
  let bytes = 0;
  for (let i = 0; i < 3000; i++) {
    const [xml, ok] = sample(r);
    bytes += xml.length;
    assert.equal(valid(xml), ok, xml);
    assert.equal(REGEX.test(xml), ok, xml);
    if (ok) accepted++;
    else refused++;
  }
  assert.ok(accepted > 1500 && refused > 100 && bytes > 300_000, `${accepted} accepted, ${refused} refused, ${bytes} units`);
});

test("near-misses that the validator refuses do not match the regex (every match validates)", () => {
  const r = rng(31);
  let refused = 0;
  let total = 0;
  for (let i = 0; i < 400; i++) {
    const [base, ok] = sample(r);
    if (!ok) continue;
    for (let j = 0; j < 10; j++) {
      const at = r.int(0, base.length);
      const edit = r.pick(["&", "<", ">", "\0", "]]>", "&#0;", "&amp", "\r", "\x7f", "\x85", "</goal>", "&#xD800;", "&#65534;", "DROP"]);
      const mutant = edit === "DROP" ? base.slice(0, at) + base.slice(at + 1) : base.slice(0, at) + edit + base.slice(at);
      total++;
      if (REGEX.test(mutant)) assert.ok(valid(mutant), mutant);
      else refused++;
    }
  }
  assert.ok(refused > total / 2, `${refused} of ${total}`);
});

test("summaryJsonSchema: an object of the five required strings, nothing else (G17.7)", () => {
  const schema = JSON.parse(lc.summaryJsonSchema());
  const fields = ["goal", "constraints", "decisions", "state", "open_items"];
  assert.equal(schema.type, "object");
  assert.deepEqual(Object.keys(schema.properties).sort(), [...fields].sort());
  for (const f of fields) assert.equal(schema.properties[f].type, "string", f);
  assert.deepEqual([...schema.required].sort(), [...fields].sort());
  assert.equal(schema.additionalProperties, false);
});

const SECTIONS = [Section.GOAL, Section.CONSTRAINTS, Section.DECISIONS, Section.STATE, Section.OPEN_ITEMS];
const FIELDS = ["goal", "constraints", "decisions", "state", "openItems"];
const ALPHABET = [..."abc XYZ 09 &<>\"';#]\r\n\t", "\u00a0", "\u3000", "\u2028", "\u200b", "é", "中", "🚀", "\ufffd", "\u{10ffff}"];
// DEL and C1 controls (U+0085 is also White_Space): Chars the renderer keeps raw, outside the
// grammars' subset (G17.3); one section in twenty gets one.
const CONTROLS = ["\u007f", "\u0080", "\u0085", "\u009f"];

test("renderSummary: random texts render to valid summaries that give each text back", () => {
  const r = rng(17);
  let rendered = 0;
  let inSubset = 0;
  let outside = 0;
  let blank = 0;
  for (let i = 0; i < 3000; i++) {
    const text = () => {
      const chars = Array.from({ length: r.int(0, 24) }, () => r.pick(ALPHABET));
      if (r.int(0, 19) === 0) chars.splice(r.int(0, chars.length), 0, r.pick(CONTROLS));
      return chars.join("");
    };
    const sections = Object.fromEntries(FIELDS.map((f) => [f, text()]));
    const isBlank = (s) => [...s].every((c) => WS_SET.has(c.codePointAt(0)));
    if (isBlank(sections.goal) || isBlank(sections.state)) {
      assert.throws(() => lc.renderSummary(sections), (e) => e instanceof LoopcompactError && e.status === Status.SUMMARY_XML_CONTENT);
      blank++;
      continue;
    }
    const xml = lc.renderSummary(sections);
    lc.validateSummary(xml);
    SECTIONS.forEach((section, k) => assert.equal(lc.summarySectionText(xml, section), sections[FIELDS[k]]));
    // Raw DEL and C1 controls stay raw (they are Chars) and are outside the grammars' subset (G17.3).
    const c1 = Object.values(sections).some((s) => /[\x7f-\x9f]/.test(s));
    assert.equal(REGEX.test(xml), !c1, xml);
    inSubset += !c1;
    outside += c1;
    rendered++;
  }
  assert.ok(rendered > 1500 && inSubset > 1000 && outside > 100 && blank > 100, `${rendered} rendered (${inSubset} in the subset, ${outside} outside), ${blank} blank`);
});

test("renderSummary: refusals in section order, with the status (G17.9); argument checks", () => {
  const ok = { goal: "g", constraints: "", decisions: "", state: "s", openItems: "" };
  const refused = (sections, status) =>
    assert.throws(
      () => lc.renderSummary(sections),
      (e) => e instanceof LoopcompactError && e.status === status && e.name === lc.statusName(status) && !e.message.includes("\0"),
    );
  refused({ ...ok, goal: " \u3000\n\t" }, Status.SUMMARY_XML_CONTENT);
  refused({ ...ok, state: "" }, Status.SUMMARY_XML_CONTENT);
  refused({ ...ok, decisions: "a\0b" }, Status.SUMMARY_XML_SYNTAX);
  refused({ ...ok, openItems: "\ufffe" }, Status.SUMMARY_XML_SYNTAX);
  refused({ ...ok, constraints: "x\x0b" }, Status.SUMMARY_XML_SYNTAX);
  // A lone surrogate is refused, not replaced by U+FFFD: the text would not come back.
  refused({ ...ok, constraints: "a\ud800b" }, Status.SUMMARY_XML_SYNTAX);
  refused({ ...ok, goal: "\udc00" }, Status.SUMMARY_XML_SYNTAX);
  // The first refusal in section order: goal before constraints, goal before state.
  refused({ ...ok, goal: " ", constraints: "\0" }, Status.SUMMARY_XML_CONTENT);
  refused({ ...ok, goal: "\0", state: " " }, Status.SUMMARY_XML_SYNTAX);
  refused({ ...ok, goal: "\ud800", state: " " }, Status.SUMMARY_XML_SYNTAX);
  refused({ ...ok, constraints: "\ud800", state: " " }, Status.SUMMARY_XML_SYNTAX);
  assert.equal(lc.renderSummary(ok), "<conversation_summary>\n<goal>g</goal>\n<constraints/>\n<decisions/>\n<state>s</state>\n<open_items/>\n</conversation_summary>");
  assert.equal(lc.summarySectionText(lc.renderSummary({ ...ok, decisions: "a & b <c> ]]> \r\n" }), Section.DECISIONS), "a & b <c> ]]> \r\n");
  for (const bad of [null, "g", { ...ok, goal: 1 }, { ...ok, openItems: undefined }, { ...ok, decisions: new Uint8Array([0x61]) }]) {
    assert.throws(() => lc.renderSummary(bad), TypeError);
  }
  // A large text takes the second call of the two-call pattern.
  const big = "<&>".repeat(100_000);
  const xml = lc.renderSummary({ ...ok, state: big });
  assert.equal(lc.summarySectionText(xml, Section.STATE), big);
});
