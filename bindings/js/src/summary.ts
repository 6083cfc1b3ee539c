/**
 * The summary (SPEC §4, C13.6-C13.8): the grammar check, the summariser's instructions, and the
 * sections of a valid summary; the grammars, the JSON Schema and the renderer of SPEC §17.1-§17.2.
 */

import { int32 } from "./args.js";
import { type Bytes, cString, decodeText, withBytes, withOutput } from "./buffers.js";
import { LoopcompactError, check, fail, plainDiagnosis, run } from "./errors.js";
import { GrammarCode, LAYOUT, Section, Status, type StatusCode } from "./generated.js";
import { SCRATCH } from "./runtime.js";

const SPAN = LAYOUT.lc_span;
const SECTIONS = [Section.GOAL, Section.CONSTRAINTS, Section.DECISIONS, Section.STATE, Section.OPEN_ITEMS] as const;

/** Validates a summary against the strict XML grammar of SPEC §4; throws `LoopcompactError`. */
export function validateSummary(xml: Bytes): void {
  run((rt) =>
    withBytes(rt, xml, "xml", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_summary_xml_diagnose(ptr, len, diag), diag);
    }),
  );
}

/**
 * The instructions for the summariser (SPEC C13.6): the system prompt to send with the input,
 * ending in a complete example summary that `validateSummary` accepts.
 */
export function summaryInstructions(): string {
  return run((rt) => cString(rt, rt.x.lc_summary_instructions()));
}

/** Where a section's raw (escaped) content lies in a summary: bytes into its UTF-8 encoding. */
export interface SectionSpan {
  /** `Section.GOAL` ... `Section.OPEN_ITEMS`. */
  readonly section: Section;
  /** Byte offset of the content (for an empty section: just after its start tag). */
  readonly offset: number;
  /** Length in bytes. */
  readonly length: number;
}

/** The five sections of a valid summary, in order (SPEC C13.7); throws for an invalid one. */
export function summarySections(xml: Bytes): SectionSpan[] {
  return run((rt) =>
    withBytes(rt, xml, "xml", (ptr, len) => {
      const out = rt.scratch + SCRATCH.spans;
      const status = rt.x.lc_summary_sections(ptr, len, out);
      if (status !== Status.OK) fail(rt, status, (diag) => rt.x.lc_summary_xml_diagnose(ptr, len, diag));
      const dv = rt.dv();
      return SECTIONS.map((section, i) => {
        const at = out + i * SPAN.size;
        return { section, offset: dv.getUint32(at + SPAN.fields.offset, true), length: dv.getUint32(at + SPAN.fields.len, true) };
      });
    }),
  );
}

/**
 * One section's text as Go's `encoding/xml` delivers it: references resolved, CR LF and a lone CR
 * as LF (SPEC C13.8). `section` is `Section.GOAL` ... `Section.OPEN_ITEMS`.
 */
export function summarySectionText(xml: Bytes, section: Section): string {
  const which = int32(section, "section");
  return run((rt) =>
    withBytes(rt, xml, "xml", (ptr, len) => {
      const [status, text] = withOutput(
        rt,
        len,
        (buf, cap, outLen) => rt.x.lc_summary_section_text(ptr, len, which, buf, cap, outLen),
        decodeText,
      );
      if (status === Status.OK) return text ?? "";
      if (status === Status.ERR_INVALID_ARGUMENT) check(rt, status, null);
      return fail(rt, status, (diag) => rt.x.lc_summary_xml_diagnose(ptr, len, diag));
    }),
  );
}

// ---- grammars and structured output (SPEC §17.1, §17.2) ------------------------------------------

const GRAMMAR_KINDS = { regex: GrammarCode.REGEX, lark: GrammarCode.LARK, gbnf: GrammarCode.GBNF } as const;

/** A grammar language of `summaryGrammar`. */
export type GrammarKind = keyof typeof GRAMMAR_KINDS;

/**
 * The summary language as a grammar for constrained decoding (SPEC G17.1): `"regex"` (one
 * expression, matched against the whole reply), `"lark"` (start rule `start`; OpenAI custom tools,
 * llguidance) or `"gbnf"` (llama.cpp, start rule `root`). Every string the grammar matches passes
 * `validateSummary`. A `TypeError` for another kind.
 */
export function summaryGrammar(kind: GrammarKind): string {
  const code = typeof kind === "string" && Object.hasOwn(GRAMMAR_KINDS, kind) ? GRAMMAR_KINDS[kind] : undefined;
  if (code === undefined) throw new TypeError('loopcompact: kind must be "regex", "lark" or "gbnf"');
  return run((rt) => {
    const ptr = rt.x.lc_summary_grammar(code);
    // The library knows every kind above; NULL would mean a module older than the package.
    if (ptr === 0) throw new TypeError(`loopcompact: the module has no grammar of kind ${code}`);
    return cString(rt, ptr);
  });
}

/**
 * The JSON Schema of the summary's structured-output form (SPEC G17.7): an object of five required
 * strings `goal`, `constraints`, `decisions`, `state`, `open_items`, and no other property. Pass it
 * as the response format (OpenAI `json_schema` strict, an Anthropic tool's `input_schema`, Gemini's
 * `responseJsonSchema`) and turn the model's object into the summary with `renderSummary`.
 */
export function summaryJsonSchema(): string {
  return run((rt) => cString(rt, rt.x.lc_summary_json_schema()));
}

/** The five sections' texts: what `renderSummary` takes (the schema's `open_items` is `openItems`). */
export interface Sections {
  readonly goal: string;
  readonly constraints: string;
  readonly decisions: string;
  readonly state: string;
  readonly openItems: string;
}

const SECTION_FIELDS = ["goal", "constraints", "decisions", "state", "openItems"] as const;
const LONE_SURROGATE = /\p{Surrogate}/u;
/** Bytes that are not UTF-8: what a text holding a lone surrogate is passed as, so that it is refused in its place. */
const NOT_UTF8 = new Uint8Array([0xff]);

/**
 * The summary XML built from the five sections' texts (SPEC G17.8): `&`, `<`, `>` and CR escaped,
 * an empty optional section self-closed. The result passes `validateSummary`, and
 * `summarySectionText` gives each text back.
 *
 * Throws `LoopcompactError` (G17.9), for the first refused section in order: `Status.SUMMARY_XML_CONTENT`
 * for a blank `goal` or `state`, `Status.SUMMARY_XML_SYNTAX` for a character XML cannot carry (such
 * as U+0000) or a lone surrogate (which is not replaced by U+FFFD here: the text would not come
 * back). The C function returns the status alone, so the diagnosis has no section or offset. A
 * `TypeError` when `sections` is not an object of five strings.
 */
export function renderSummary(sections: Sections): string {
  if (typeof sections !== "object" || sections === null) throw new TypeError("loopcompact: sections must be an object");
  const texts = SECTION_FIELDS.map((field) => {
    const value: unknown = sections[field];
    if (typeof value !== "string") throw new TypeError(`loopcompact: sections.${field} must be a string`);
    return LONE_SURROGATE.test(value) ? NOT_UTF8 : value;
  });
  return run((rt) => {
    const ptrs: number[] = [];
    const go = (i: number): string => {
      if (i < texts.length) {
        return withBytes(rt, texts[i] as Bytes, SECTION_FIELDS[i] as string, (ptr, len) => {
          ptrs.push(ptr, len);
          return go(i + 1);
        });
      }
      const [g, gl, c, cl, d, dl, s, sl, o, ol] = ptrs as [number, number, number, number, number, number, number, number, number, number];
      const guess = 160 + texts.reduce((n, t) => n + t.length * 2, 0);
      const [status, xml] = withOutput(
        rt,
        guess,
        (buf, cap, outLen) => rt.x.lc_summary_render(g, gl, c, cl, d, dl, s, sl, o, ol, buf, cap, outLen),
        decodeText,
      );
      if (status === Status.OK) return xml ?? "";
      throw new LoopcompactError(plainDiagnosis(status as StatusCode));
    };
    return go(0);
  });
}
