//! The strict summary XML grammar (SPEC §4): the one check behind `lc_summary_xml_validate` and
//! step 9 of output validation.
//!
//! - [`validate`] runs the tokenizer and the classifier token by token (X4.2), then the
//!   end-of-input rules (X4.20); the X4.3 CDATA pre-check decides every failing result.
//! - `chars`: character data and attribute values, references, Char, White_Space (X4.5–X4.8,
//!   X4.21).
//! - `tokenizer`: names and markup tokens (X4.9–X4.15).
//! - `grammar`: the grammars for constrained decoding and the JSON Schema (SPEC §17).
//! - `render`: the summary built from five section strings (SPEC §17.2).
//! - `name_chars`: the Appendix B character classes of names (X4.9).
//!
//! The tokenizer is this module's own, not quick-xml's `Reader`: the reader allocates on every
//! call (its stack of open names), splits text at each reference and validates UTF-8 per piece, and
//! accepts or rejects differently from X4.4–X4.16 in the ways the SPEC's implementer notes list.
//! The grammar is small enough that checking it directly is simpler than correcting the reader.
//!
//! Validation is a pure function of the bytes: no state between calls, no heap allocation, memory
//! bounded by two borrowed names, time linear in the input.

mod chars;
mod diagnose;
mod grammar;
mod name_chars;
mod render;
mod stream;
mod tokenizer;

pub use crate::section::Section;
pub(crate) use chars::{is_white_space, utf8_char};
pub use diagnose::{SectionSpans, diagnose, section_text, sections};
pub use grammar::{GBNF, GrammarKind, JSON_SCHEMA, LARK, REGEX, grammar};
pub(crate) use grammar::{JSON_SCHEMA_C, grammar_c};
pub use render::{RenderError, render};
pub use stream::SummaryStream;

use crate::error::{Error, Result};
use crate::status::Status;

use tokenizer::StartTag;

/// The root element's name (X4.18).
const ROOT: &[u8] = b"conversation_summary";

/// The five sections, in their required order (X4.17).
const SECTIONS: [&[u8]; 5] = [b"goal", b"constraints", b"decisions", b"state", b"open_items"];

/// Indexes into [`SECTIONS`] of the sections that must not be blank (X4.20).
const GOAL: usize = 0;
const STATE: usize = 3;

/// The smallest summary §4 accepts (SPEC R15.2): the root, `goal` and `state` with one character
/// each, the three optional sections self-closed; 114 bytes. No shorter text validates: the root's
/// tags and the five sections' shortest forms are required, and `goal` and `state` need a
/// non-blank character between their tags.
pub const SMALLEST: &str = "<conversation_summary><goal>.</goal><constraints/><decisions/><state>.</state>\
<open_items/></conversation_summary>";

/// The CDATA marker of the X4.3 pre-check.
const CDATA_START: &[u8] = b"<![CDATA[";

/// Validates a summary against the strict XML grammar of SPEC §4.
///
/// Returns the first problem in document order (X4.2) as one of `SummaryXmlSyntax`,
/// `SummaryXmlRoot`, `SummaryXmlStructure` and `SummaryXmlContent`, with a byte offset:
///
/// - X4.3 (`<![CDATA[` anywhere): the offset of the first `<![CDATA[`;
/// - a syntax error inside a token: where the problem was found (the first byte of a bad UTF-8
///   sequence, control character or reference, the first `]` of `]]>`, the byte of a tag that
///   breaks X4.11–X4.15), or the input length when the input ends inside a token;
/// - a rejected token (X4.18) and an end tag that does not close the innermost open element
///   (X4.12): the offset of the token's first byte;
/// - the end-of-input rules (X4.20), an open element at the end included: the input length.
///
/// # Errors
/// The status and offset above; never any other status.
pub fn validate(xml: &[u8]) -> Result<()> {
    Document::<false>::default().read(xml).map_err(|error| cdata_first(xml, error))
}

/// X4.3 outranks everything. Checking it only on failure is enough: a document that passes every
/// other rule has no `<` outside a start or end tag, so it cannot contain `<![CDATA[`.
fn cdata_first(xml: &[u8], error: Error) -> Error {
    match memchr::memmem::find(xml, CDATA_START) {
        Some(at) => Error::at(Status::SummaryXmlStructure, at),
        None => error,
    }
}

/// The classifier's state (X4.17). With `TRACE`, it also keeps what a diagnosis and the section
/// spans need (the current token, where each section's content lies); without, that is compiled
/// away, so validation pays nothing for it.
#[derive(Default)]
struct Document<'a, const TRACE: bool> {
    root_seen: bool,
    root_closed: bool,
    /// Open elements, outermost first: the root, then a section. Deeper start tags are rejected
    /// before they open, so two names are enough for the byte-exact end-tag match of X4.12.
    open: [&'a [u8]; 2],
    /// 0 outside the root, 1 in the root, 2 in a section.
    depth: usize,
    /// Index into [`SECTIONS`] of the next section expected (0–5).
    next_section: usize,
    /// Whether the goal and state sections have non-blank text (X4.21).
    goal_has_content: bool,
    state_has_content: bool,
    /// `TRACE` only: the first byte of the token being read.
    token: usize,
    /// `TRACE` only: for each section, the `<` of its start tag and its content's start and end
    /// (an empty-element tag: both at the end of the tag).
    spans: [(usize, usize, usize); 5],
}

impl<'a, const TRACE: bool> Document<'a, TRACE> {
    /// Reads and classifies every token of `xml` (X4.2), then applies X4.20.
    fn read(&mut self, xml: &'a [u8]) -> Result<()> {
        let mut i = 0;
        while let Some(&b) = xml.get(i) {
            if TRACE {
                self.token = i;
            }
            i = if b == b'<' { self.markup(xml, i)? } else { self.text(xml, i)? };
        }
        self.finish(xml.len())
    }

    /// A token that starts with `<` at `lt`.
    fn markup(&mut self, xml: &'a [u8], lt: usize) -> Result<usize> {
        match xml.get(lt + 1) {
            Some(b'/') => {
                let (name, end) = tokenizer::end_tag(xml, lt).map_err(syntax)?;
                // X4.12: the end tag must close the innermost open element, byte for byte.
                let innermost = self.depth.checked_sub(1).and_then(|d| self.open.get(d));
                if innermost != Some(&name) {
                    return Err(syntax(lt));
                }
                self.end_element(lt)?;
                Ok(end)
            }
            Some(b'?') => {
                tokenizer::processing_instruction(xml, lt).map_err(syntax)?;
                Err(structure(lt))
            }
            Some(b'!') => {
                tokenizer::bang(xml, lt).map_err(syntax)?;
                Err(structure(lt))
            }
            _ => {
                let tag = tokenizer::start_tag(xml, lt).map_err(syntax)?;
                self.start_element(&tag, lt)?;
                let section = (self.depth == 2).then_some(self.next_section);
                if tag.empty {
                    self.end_element(lt)?;
                }
                if let (true, Some(span)) = (TRACE, section.and_then(|k| self.spans.get_mut(k))) {
                    // The content starts after the start tag (and is empty for `<name/>`).
                    *span = (lt, tag.end, if tag.empty { tag.end } else { span.2 });
                }
                Ok(tag.end)
            }
        }
    }

    /// X4.18 for a start tag (the first half of an empty-element tag included).
    fn start_element(&mut self, tag: &StartTag<'a>, at: usize) -> Result<()> {
        if self.root_closed {
            return Err(structure(at));
        }
        if !self.root_seen {
            if tag.local != ROOT {
                return Err(Error::at(Status::SummaryXmlRoot, at));
            }
            if tag.prefixed || tag.has_attributes {
                return Err(structure(at));
            }
            self.root_seen = true;
            self.open = [tag.name, &[]];
            self.depth = 1;
            return Ok(());
        }
        // A name equal to a section name has no colon, hence no prefix.
        let expected = SECTIONS.get(self.next_section);
        if self.depth == 1 && expected == Some(&tag.name) && !tag.has_attributes {
            let [root, _] = self.open;
            self.open = [root, tag.name];
            self.depth = 2;
            return Ok(());
        }
        Err(structure(at))
    }

    /// X4.18 for an end tag that closes the innermost open element.
    fn end_element(&mut self, at: usize) -> Result<()> {
        match self.depth {
            2 => {
                if let (true, Some(span)) = (TRACE, self.spans.get_mut(self.next_section)) {
                    // An end tag: its `<` ends the section's content.
                    span.2 = at;
                }
                self.next_section += 1;
                self.depth = 1;
                Ok(())
            }
            1 if self.next_section == SECTIONS.len() => {
                self.root_closed = true;
                self.depth = 0;
                Ok(())
            }
            _ => Err(structure(at)),
        }
    }

    /// Character data starting at `start` (X4.5), read to its end and then classified (X4.18).
    fn text(&mut self, xml: &'a [u8], start: usize) -> Result<usize> {
        let end = chars::scan_text(xml, start).map_err(syntax)?;
        let run = xml.get(start..end).unwrap_or_default();
        match (self.depth, self.next_section) {
            (0, _) => return Err(structure(start)),
            (1, _) if chars::has_non_white_space(run) => return Err(structure(start)),
            (1, _) => {}
            // A section holds at most one run: any other token inside it is rejected.
            (_, GOAL) => self.goal_has_content = chars::has_non_white_space(run),
            (_, STATE) => self.state_has_content = chars::has_non_white_space(run),
            _ => {}
        }
        Ok(end)
    }

    /// X4.20, at the end of the input.
    fn finish(&self, len: usize) -> Result<()> {
        if !self.root_seen {
            Err(Error::at(Status::SummaryXmlRoot, len))
        } else if self.depth > 0 {
            // X4.16: the input ended with an element open.
            Err(syntax(len))
        } else if !self.goal_has_content || !self.state_has_content {
            Err(Error::at(Status::SummaryXmlContent, len))
        } else {
            Ok(())
        }
    }
}

fn syntax(at: usize) -> Error {
    Error::at(Status::SummaryXmlSyntax, at)
}

fn structure(at: usize) -> Error {
    Error::at(Status::SummaryXmlStructure, at)
}
