//! Where a summary failed and what was expected there (SPEC §13, C13.4), and the sections of a
//! valid summary (C13.7, C13.8).
//!
//! A diagnosis re-runs the classifier with tracing on (the plain [`super::validate`] keeps its
//! speed) and reads the state it stopped in: the token being read, the depth, the next section.
//! Only static names come out: rule ids, section names, the tags the grammar expects.

use core::ffi::CStr;

use super::{CDATA_START, Document, GOAL, SECTIONS, STATE, cdata_first, chars};
use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::section::Section;
use crate::status::Status;

/// What a failing token was (from its first bytes).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Token {
    Text,
    StartTag,
    EndTag,
    Comment,
    ProcessingInstruction,
    /// `<![` or a directive.
    Bang,
}

fn token_at(xml: &[u8], at: usize) -> Token {
    match (xml.get(at), xml.get(at + 1), xml.get(at + 2)) {
        (Some(b'<'), Some(b'/'), _) => Token::EndTag,
        (Some(b'<'), Some(b'?'), _) => Token::ProcessingInstruction,
        (Some(b'<'), Some(b'!'), Some(b'-')) => Token::Comment,
        (Some(b'<'), Some(b'!'), _) => Token::Bang,
        (Some(b'<'), _, _) => Token::StartTag,
        _ => Token::Text,
    }
}

/// The rule an `xml_syntax` offset breaks, from the token it is in and the byte found there.
fn syntax_rule(xml: &[u8], token: Token, lt: usize, at: usize) -> &'static CStr {
    let in_value = token == Token::StartTag && in_attribute_value(xml, lt, at);
    rule_of(token, in_value, xml.get(at).copied(), xml.get(at.wrapping_sub(1)).copied())
}

/// [`syntax_rule`] from what it reads: the byte at the offset (`None` at the end of the input),
/// the byte before it, and whether the offset lies inside a quoted attribute value of a start tag.
/// The streaming validator, which keeps no text, calls it with the bytes it noted.
pub(super) fn rule_of(token: Token, in_value: bool, at: Option<u8>, before: Option<u8>) -> &'static CStr {
    let Some(b) = at else {
        // The end of the input: inside a token, or with an element open.
        return c"X4.16";
    };
    match token {
        Token::Text => match b {
            b'&' => c"X4.6",
            b']' => c"X4.7",
            _ => c"X4.8",
        },
        // Inside a quoted attribute value: its rules, not a name's (X4.11 values, X4.6, X4.8).
        Token::StartTag if in_value => match b {
            b'&' => c"X4.6",
            b'<' => c"X4.11",
            _ => c"X4.8",
        },
        Token::StartTag => match b {
            b'&' => c"X4.6",
            b':' => c"X4.10",
            // A byte of a name that is not a valid name (its first byte is reported).
            _ if before.is_some_and(|p| matches!(p, b'<' | b' ' | b'\t' | b'\r' | b'\n'))
                && (b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-') || b >= 0x80) =>
            {
                c"X4.9"
            }
            _ if b >= 0x80 || (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) => c"X4.8",
            _ => c"X4.11",
        },
        Token::EndTag => c"X4.12",
        Token::Comment => c"X4.13",
        Token::ProcessingInstruction => c"X4.14",
        Token::Bang => c"X4.15",
    }
}

/// Whether `at` lies inside a quoted attribute value of the start tag at `lt` (X4.11: a value runs
/// from its quote to the same quote).
fn in_attribute_value(xml: &[u8], lt: usize, at: usize) -> bool {
    let mut quote = None;
    for &b in xml.get(lt..at).unwrap_or_default() {
        quote = match (quote, b) {
            (None, b'"' | b'\'') => Some(b),
            (Some(q), b) if b == q => None,
            (q, _) => q,
        };
    }
    quote.is_some()
}

/// The diagnosis of a summary (SPEC C13.4): the status and offset [`super::validate`] gives, with
/// line, column, section, rule and expected. `location` is empty (the summary is the document).
#[must_use]
pub fn diagnose(xml: &[u8]) -> Diagnostic {
    let Err(error) = super::validate(xml) else {
        return Diagnostic::ok();
    };
    let (section, rule, expected, offset) = explain(xml, error);
    Diagnostic::new(error.status())
        .at_offset_in(offset, xml)
        .with_section(section)
        .with_rule(rule)
        .with_expected(expected)
}

/// Section, rule, expected and offset for a failure of `validate`.
fn explain(xml: &[u8], error: Error) -> (Option<Section>, &'static CStr, &'static CStr, usize) {
    let offset = error.offset().unwrap_or(xml.len());
    let status = error.status();
    let cdata = memchr::memmem::find(xml, CDATA_START);
    if status == Status::SummaryXmlStructure && cdata == Some(offset) {
        // X4.3: the section whose content holds the marker, from the state just before it.
        let mut doc = Document::<true>::default();
        let _ = doc.read(xml.get(..offset).unwrap_or_default());
        return (section_of(&doc), c"X4.3", c"", offset);
    }
    let mut doc = Document::<true>::default();
    let replay = doc.read(xml).map_err(|e| cdata_first(xml, e));
    debug_assert_eq!(replay, Err(error), "tracing changes nothing");
    let token = token_at(xml, doc.token);
    let expected_section = Section::at(doc.next_section);
    match status {
        Status::SummaryXmlRoot => {
            (Some(Section::Root), if xml.is_empty() { c"X4.20" } else { c"X4.18" }, c"<conversation_summary>", offset)
        }
        Status::SummaryXmlContent => {
            // X4.20: the first blank one of goal and state, at the `<` of its start tag.
            let (section, k) = if doc.goal_has_content { (Section::State, STATE) } else { (Section::Goal, GOAL) };
            let at = doc.spans.get(k).map_or(offset, |span| span.0);
            (Some(section), c"X4.20", c"non-blank text", at)
        }
        Status::SummaryXmlSyntax => {
            let rule = syntax_rule(xml, token, doc.token, offset);
            // An end tag that closes the wrong element: the one it should have closed.
            let expected = match (token, doc.depth) {
                (Token::EndTag, 2) => expected_section.map_or(c"", Section::end_tag_c),
                (Token::EndTag, 1) => Section::Root.end_tag_c(),
                _ => c"",
            };
            (section_of(&doc), rule, expected, offset)
        }
        _ => {
            // xml_structure, by the token that was rejected (X4.18).
            let root_done = doc.root_closed;
            let (section, expected) = match (token, doc.root_seen, doc.depth) {
                (Token::Comment | Token::ProcessingInstruction | Token::Bang, _, _) => (section_of(&doc), c""),
                _ if root_done => (None, c""),
                (_, false, _) => (Some(Section::Root), c"<conversation_summary>"),
                // Inside a section: nothing but its text.
                (_, true, 2) => (section_of(&doc), c""),
                // Between sections: the next section where it was expected, or the root's end.
                (_, true, _) => match expected_section {
                    Some(next) => (Some(next), next.start_tag_c()),
                    None => (Some(Section::Root), Section::Root.end_tag_c()),
                },
            };
            (section, c"X4.18", expected, offset)
        }
    }
}

/// The section whose content the classifier was in: a section at depth 2, the root at depth 1.
fn section_of<const TRACE: bool>(doc: &Document<'_, TRACE>) -> Option<Section> {
    match doc.depth {
        2 => Section::at(doc.next_section),
        1 => Some(Section::Root),
        _ => None,
    }
}

/// The byte span of one section's raw (escaped) content in the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SectionSpan {
    /// Offset of the content's first byte (for an empty or self-closing section: the position
    /// after its start tag).
    pub offset: usize,
    /// Length in bytes (0 for an empty or self-closing section).
    pub len: usize,
}

/// The five sections' spans, in section order.
pub type SectionSpans = [SectionSpan; 5];

/// C13.7: the byte span of each section's raw content of a valid summary, in section order.
///
/// # Errors
/// The status of [`super::validate`] when the summary is not valid.
pub fn sections(xml: &[u8]) -> Result<SectionSpans> {
    super::validate(xml)?;
    let mut doc = Document::<true>::default();
    doc.read(xml)?;
    let mut out = SectionSpans::default();
    for (slot, &(_, start, end)) in out.iter_mut().zip(&doc.spans) {
        *slot = SectionSpan { offset: start, len: end.saturating_sub(start) };
    }
    Ok(out)
}

/// C13.8: the text of one section of a valid summary as Go's `encoding/xml` delivers it:
/// references resolved, CR LF and a lone CR as LF. `Section::Root` has no text of its own: an
/// empty string.
///
/// # Errors
/// The status of [`super::validate`] when the summary is not valid.
pub fn section_text(xml: &[u8], section: Section) -> Result<String> {
    let spans = sections(xml)?;
    let Some(span) = section.index().and_then(|k| spans.get(k)) else {
        return Ok(String::new());
    };
    let raw = xml.get(span.offset..span.offset + span.len).unwrap_or_default();
    Ok(chars::decode_text(raw))
}

const _: () = assert!(SECTIONS.len() == Section::ALL.len());
