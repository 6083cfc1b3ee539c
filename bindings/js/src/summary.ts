/**
 * The summary (SPEC §4, C13.6-C13.8): the grammar check, the summariser's instructions, and the
 * sections of a valid summary.
 */

import { int32 } from "./args.js";
import { type Bytes, cString, decodeText, withBytes, withOutput } from "./buffers.js";
import { check, fail, run } from "./errors.js";
import { LAYOUT, Section, Status } from "./generated.js";
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
