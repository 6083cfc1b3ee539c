//! The summary XML built from five section strings (SPEC §17.2, G17.8, G17.9): the structured-output
//! path, where the model fills a JSON object (the schema of [`super::JSON_SCHEMA`]) and the host
//! renders it.
//!
//! The text of each section is escaped so that §13's section text (C13.8) of the result gives the
//! input back exactly: `&`, `<` and `>` become the predefined entities (all of `>`, so that no `]]>`
//! can form, X4.7), and CR becomes `&#13;` (a raw CR would be read back as LF, X4.7). A character
//! that XML cannot carry (X4.8: NUL and the other C0 controls except TAB, LF and CR, U+FFFE,
//! U+FFFF), bytes that are not UTF-8, and a blank `goal` or `state` (X4.20) are refused, never
//! replaced: a summary that silently differs from what the model wrote would be worse than a retry.

use super::{Section, is_white_space};
use crate::status::Status;

/// Why [`render`] refused its input: the status the C ABI returns, the section and the byte offset
/// into that section's input (no input bytes, SPEC §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RenderError {
    status: Status,
    section: Section,
    offset: usize,
}

impl RenderError {
    /// `SummaryXmlSyntax` (a character XML cannot carry, or bytes that are not UTF-8) or
    /// `SummaryXmlContent` (a blank `goal` or `state`).
    #[must_use]
    pub const fn status(&self) -> Status {
        self.status
    }

    /// The section whose input was refused.
    #[must_use]
    pub const fn section(&self) -> Section {
        self.section
    }

    /// The byte offset in that section's input: the first byte of the refused character or of the
    /// invalid UTF-8 sequence; for a blank section, its length.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset
    }
}

/// The C ABI returns only the status (A3.7).
impl From<RenderError> for Status {
    fn from(error: RenderError) -> Status {
        error.status
    }
}

impl core::fmt::Display for RenderError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} (section {}, at byte {})", self.status, self.section.name(), self.offset)
    }
}

impl std::error::Error for RenderError {}

/// Builds the summary XML of G17.8 from the five sections' texts, in section order (`goal`,
/// `constraints`, `decisions`, `state`, `open_items`), as UTF-8 bytes.
///
/// The result passes [`super::validate`], and [`super::section_text`] of each section equals its
/// input. An empty optional section is written self-closed.
///
/// # Errors
/// The first refusal in section order (G17.9): `SummaryXmlSyntax` for bytes that are not UTF-8 or a
/// character that is not an XML Char, `SummaryXmlContent` for a blank `goal` or `state`.
pub fn render(sections: [&[u8]; 5]) -> Result<String, RenderError> {
    let mut texts = [""; 5];
    for ((text, input), section) in texts.iter_mut().zip(sections).zip(Section::ALL) {
        *text = checked(input, section)?;
    }
    let capacity = texts.iter().map(|t| t.len() + t.len() / 8).sum::<usize>() + 160;
    let mut out = String::with_capacity(capacity);
    out.push_str("<conversation_summary>\n");
    for (text, section) in texts.into_iter().zip(Section::ALL) {
        if text.is_empty() {
            out.push('<');
            out.push_str(section.name());
            out.push_str("/>\n");
            continue;
        }
        out.push_str(section.start_tag());
        escape_into(&mut out, text);
        out.push_str(section.end_tag());
        out.push('\n');
    }
    out.push_str("</conversation_summary>");
    Ok(out)
}

/// One section's input as text: UTF-8, only Chars, and non-blank for `goal` and `state`.
fn checked(input: &[u8], section: Section) -> Result<&str, RenderError> {
    let refuse = |status, offset| RenderError { status, section, offset };
    let text = core::str::from_utf8(input).map_err(|e| refuse(Status::SummaryXmlSyntax, e.valid_up_to()))?;
    if let Some((at, _)) = text.char_indices().find(|&(_, c)| !super::chars::is_char(u32::from(c))) {
        return Err(refuse(Status::SummaryXmlSyntax, at));
    }
    let required = matches!(section, Section::Goal | Section::State);
    if required && text.chars().all(|c| is_white_space(u32::from(c))) {
        return Err(refuse(Status::SummaryXmlContent, text.len()));
    }
    Ok(text)
}

/// Appends `text` with `&`, `<`, `>` and CR escaped (the rest is written as it is).
fn escape_into(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(['&', '<', '>', '\r']) {
        let (plain, tail) = rest.split_at(at);
        out.push_str(plain);
        let mut chars = tail.chars();
        out.push_str(match chars.next() {
            Some('&') => "&amp;",
            Some('<') => "&lt;",
            Some('>') => "&gt;",
            _ => "&#13;",
        });
        rest = chars.as_str();
    }
    out.push_str(rest);
}
