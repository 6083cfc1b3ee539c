//! Diagnostics (SPEC §13): where a check failed and what was expected, what a host does next
//! ([`StatusClass`]), the message to send back to the summariser ([`retry_message`]) and the
//! summariser's instructions ([`SUMMARY_INSTRUCTIONS`]).
//!
//! Nothing here carries input bytes (C13.1): offsets, line and column numbers, limits, rule ids,
//! section and layout names, all numbers or static strings.

use core::ffi::CStr;
use core::fmt::Write as _;

pub use crate::json::path::LOCATION_CAP;
pub(crate) use crate::json::path::{Location, PathBuilder};
use crate::json::{DocumentLayout, Expect, Kind};
use crate::lanes::Lanes;
use crate::section::Section;
use crate::status::{Status, StatusClass};

/// Where a check failed and what it expected there (C13.2). Built by the `diagnose` functions of
/// each document ([`crate::summary::diagnose`], [`crate::wire::CompactionInput::diagnose`], ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    status: Status,
    class: StatusClass,
    offset: Option<usize>,
    line: u64,
    column: u64,
    section: Option<Section>,
    rule: &'static CStr,
    expected: &'static CStr,
    location: Location,
    limit: Option<u64>,
    actual: Option<u64>,
    removed: Removed,
}

/// What cleanup removed around a bare reply before it was checked (SPEC R15.5, R15.7): nothing
/// unless the host asked for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Removed {
    /// White_Space was removed at either end (`LC_REPLY_TRIM`).
    pub trimmed: bool,
    /// A Markdown code fence around the whole reply was removed (`LC_REPLY_UNFENCE`).
    pub unfenced: bool,
    /// Bytes removed before the summary.
    pub before: usize,
    /// Bytes removed after the summary.
    pub after: usize,
}

impl Removed {
    /// The `LC_REPLY_*` flags of what was removed.
    #[must_use]
    pub const fn flags(&self) -> u32 {
        (self.trimmed as u32) | ((self.unfenced as u32) << 1)
    }
}

impl Diagnostic {
    /// The diagnosis of a check that passed.
    #[must_use]
    pub const fn ok() -> Diagnostic {
        Diagnostic::new(Status::Ok)
    }

    /// A diagnosis with only the status known.
    #[must_use]
    pub const fn new(status: Status) -> Diagnostic {
        Diagnostic {
            status,
            class: status.class(),
            offset: None,
            line: 0,
            column: 0,
            section: None,
            rule: c"",
            expected: c"",
            location: Location::EMPTY,
            limit: None,
            actual: None,
            removed: Removed { trimmed: false, unfenced: false, before: 0, after: 0 },
        }
    }

    /// The status (the same the plain function returns).
    #[must_use]
    pub const fn status(&self) -> Status {
        self.status
    }

    /// What a host does next (C13.3): the status's class, except where the diagnosis knows better
    /// (a byte limit no reply can meet is the host's, R15.2).
    #[must_use]
    pub const fn class(&self) -> StatusClass {
        self.class
    }

    /// What cleanup removed around a bare reply (R15.7); nothing for every other check.
    #[must_use]
    pub const fn removed(&self) -> Removed {
        self.removed
    }

    /// Bytes into the checked buffer (for a summary inside a reply: into the decoded summary).
    #[must_use]
    pub const fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// 1-based line of the offset (lines end at LF); 0 when unknown.
    #[must_use]
    pub const fn line(&self) -> u64 {
        self.line
    }

    /// 1-based column of the offset, in Unicode scalar values from the line's start; 0 when unknown.
    #[must_use]
    pub const fn column(&self) -> u64 {
        self.column
    }

    /// The summary section (or its root) whose content holds the problem, or the section expected.
    #[must_use]
    pub const fn section(&self) -> Option<Section> {
        self.section
    }

    /// The SPEC rule id, e.g. `"X4.17"`; `""` when none applies.
    #[must_use]
    pub fn rule(&self) -> &'static str {
        self.rule.to_str().unwrap_or_default()
    }

    /// [`Diagnostic::rule`], NUL-terminated, for the C ABI.
    pub(crate) const fn rule_c(&self) -> &'static CStr {
        self.rule
    }

    /// What the rule expected there, e.g. `"<constraints>"`, `"non-blank text"`, `"a JSON string"`;
    /// `""` when nothing more precise can be said.
    #[must_use]
    pub fn expected(&self) -> &'static str {
        self.expected.to_str().unwrap_or_default()
    }

    /// [`Diagnostic::expected`], NUL-terminated, for the C ABI.
    pub(crate) const fn expected_c(&self) -> &'static CStr {
        self.expected
    }

    /// The path of layout names and indices to the problem, e.g. `transcript[3].blocks[0].type`,
    /// `summary`, `Model.BaseURL`; `""` for the document itself. Never a key or value of the input.
    #[must_use]
    pub fn location(&self) -> &str {
        self.location.as_str()
    }

    /// For byte and token limits: the limit (at most `u64::MAX - 1`, as in the C ABI).
    #[must_use]
    pub const fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// For byte and token limits: the measured value (at most `u64::MAX - 1`, as in the C ABI).
    #[must_use]
    pub const fn actual(&self) -> Option<u64> {
        self.actual
    }

    /// Sets the offset, with the line and column it has in `text`.
    #[must_use]
    pub(crate) fn at_offset_in(mut self, offset: usize, text: &[u8]) -> Diagnostic {
        let (line, column) = line_column(text, offset);
        self.offset = Some(offset);
        self.line = line;
        self.column = column;
        self
    }

    /// Sets the offset with its line and column, already known (the streaming validator keeps
    /// no text to count them in).
    #[must_use]
    pub(crate) const fn at_position(mut self, offset: usize, line: u64, column: u64) -> Diagnostic {
        self.offset = Some(offset);
        self.line = line;
        self.column = column;
        self
    }

    /// Another status, with its class.
    #[must_use]
    pub(crate) const fn with_status(mut self, status: Status) -> Diagnostic {
        self.status = status;
        self.class = status.class();
        self
    }

    #[must_use]
    pub(crate) const fn with_class(mut self, class: StatusClass) -> Diagnostic {
        self.class = class;
        self
    }

    #[must_use]
    pub(crate) const fn with_removed(mut self, removed: Removed) -> Diagnostic {
        self.removed = removed;
        self
    }

    #[must_use]
    pub(crate) const fn with_section(mut self, section: Option<Section>) -> Diagnostic {
        self.section = section;
        self
    }

    #[must_use]
    pub(crate) const fn with_rule(mut self, rule: &'static CStr) -> Diagnostic {
        self.rule = rule;
        self
    }

    #[must_use]
    pub(crate) const fn with_expected(mut self, expected: &'static CStr) -> Diagnostic {
        self.expected = expected;
        self
    }

    #[must_use]
    pub(crate) fn with_location(mut self, location: Location) -> Diagnostic {
        self.location = location;
        self
    }

    /// Sets the limit and the measured value. A known `u64::MAX` is kept as `u64::MAX - 1`, as the
    /// C ABI writes it (C13.2: `UINT64_MAX` there means unknown), so that every host and the CLI
    /// say the same number, in the diagnosis and in the retry message.
    #[must_use]
    pub(crate) const fn with_limit(mut self, limit: u64, actual: u64) -> Diagnostic {
        const KNOWN_MAX: u64 = u64::MAX - 1;
        self.limit = Some(if limit > KNOWN_MAX { KNOWN_MAX } else { limit });
        self.actual = Some(if actual > KNOWN_MAX { KNOWN_MAX } else { actual });
        self
    }
}

/// C13.2: 1-based line and column (in Unicode scalar values) of `offset` in `text`; lines end at
/// LF. An offset past the end counts as the end.
///
/// One pass over the text before the offset, 32 bytes at a time ([`Lanes`]): its LFs counted, and
/// the scalar values since the last one (the bytes that are not UTF-8 continuation bytes,
/// `10xxxxxx`). A line can be the whole document (JSON on one line); a count of it byte by byte,
/// or three passes (LFs, the last LF, the scalar values), took as long as the check that failed.
fn line_column(text: &[u8], offset: usize) -> (u64, u64) {
    let before = text.get(..offset).unwrap_or(text);
    let (blocks, rest) = before.as_chunks::<32>();
    let mut lfs = 0u64;
    // Where the last line starts, and its continuation bytes so far.
    let mut line_start = 0usize;
    let mut continuations = 0u64;
    for (i, block) in blocks.iter().enumerate() {
        let lanes = Lanes::load(block);
        let lf = lanes.eq(b'\n').mask();
        // Below 0xC0 as an `i8`: 0x80 to 0xBF.
        let continuation = lanes.lt_signed(0xC0).mask();
        if lf == 0 {
            continuations += u64::from(continuation.count_ones());
        } else {
            lfs += u64::from(lf.count_ones());
            let last = 31 - lf.leading_zeros();
            line_start = 32 * i + last as usize + 1;
            // The bits after the last LF (two shifts: `last + 1` may be 32).
            continuations = u64::from((continuation >> last >> 1).count_ones());
        }
    }
    let tail = before.len() - rest.len();
    for (i, &b) in rest.iter().enumerate() {
        if b == b'\n' {
            lfs += 1;
            line_start = tail + i + 1;
            continuations = 0;
        } else if b & 0xC0 == 0x80 {
            continuations += 1;
        }
    }
    let column = 1 + (before.len() - line_start) as u64 - continuations;
    (1 + lfs, column)
}

/// What the value at the end of `names` must be (the layout names of a path from the root of
/// `layout`): [`Expect::Any`] where nothing is declared.
fn expected_at<'n>(layout: &DocumentLayout, names: impl IntoIterator<Item = &'n str>) -> Expect {
    layout.rule_at(names).map_or(Expect::Any, |rule| rule.expect)
}

/// A diagnosis of a JSON document `src` that failed with `status` at `offset`: the location of
/// the offset, and the rule and expectation of the JSON error found there (J5.1–J5.8), unless the
/// status has its own `rule` (the W5.2, O6.2, P8.x or R10.x rule that failed). Without an offset
/// (a key missing from the whole document), `rule` and `location` alone. `layout`: the layout of
/// the document ([`crate::wire::INPUT_LAYOUT`], ...), which names the keys a location shows and
/// says what their values must be.
pub(crate) fn json_diagnostic(
    status: Status,
    offset: Option<usize>,
    src: &[u8],
    layout: &DocumentLayout,
    rule: &'static CStr,
    own_rule: bool,
) -> Diagnostic {
    json_diagnostic_scanning(status, offset, src, layout, rule, own_rule, crate::json::path::no_array_scan)
}

/// [`json_diagnostic`] for a document with a scan of its own large arrays (see
/// [`crate::json::path::locate`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn json_diagnostic_scanning<C: crate::json::CheckedArray>(
    status: Status,
    offset: Option<usize>,
    src: &[u8],
    layout: &DocumentLayout,
    rule: &'static CStr,
    own_rule: bool,
    scan: impl Fn(&[u8], usize) -> Option<C>,
) -> Diagnostic {
    use crate::json::path::{TokenKind, locate};
    let Some(offset) = offset else {
        return Diagnostic::new(status).with_rule(rule);
    };
    let found = locate(src, offset, layout.names(), scan);
    // An array element (`blocks[1]`) is not what its array's key expects.
    let at_element = found.location.as_str().ends_with(']');
    let leaf = if at_element || found.names.is_empty() { Expect::Any } else { expected_at(layout, found.names) };
    let leaf_expected = leaf.text();
    // A byte that starts no valid UTF-8 sequence (J5.3): at most four bytes tell.
    let window = src.get(offset..(offset + 4).min(src.len())).unwrap_or_default();
    let invalid_utf8 = window.first().is_some_and(|&b| b >= 0x80)
        && core::str::from_utf8(window).err().is_some_and(|e| e.valid_up_to() == 0);
    let (json_rule, expected) = match found.token {
        _ if invalid_utf8 => (c"J5.3", c"valid UTF-8"),
        TokenKind::Syntax(true) => (c"J5.2", c"at most 10000 levels of nesting"),
        TokenKind::Syntax(false) => (c"J5.1", c"valid JSON"),
        TokenKind::Key => (c"J5.5", c"a key of the layout, once"),
        TokenKind::Number if leaf.kind() == Kind::Integer => (c"J5.6", leaf_expected),
        TokenKind::Container if src.get(offset) == Some(&b'}') => (c"J5.8", c"every key of the layout"),
        _ => (c"J5.8", leaf_expected),
    };
    let (rule, expected) = if own_rule { (rule, leaf_expected) } else { (json_rule, expected) };
    Diagnostic::new(status)
        .at_offset_in(offset, src)
        .with_location(found.location)
        .with_rule(rule)
        .with_expected(expected)
}

/// A diagnosis with a location of layout names, no offset.
/// `path` is a dotted path of layout names from the root of `layout`, the layout of the document
/// (`Model.BaseURL`, `""` for the document itself).
pub(crate) fn field_diagnostic(status: Status, rule: &'static CStr, layout: &DocumentLayout, path: &str) -> Diagnostic {
    let expected = if path.is_empty() { c"" } else { expected_at(layout, path.split('.')).text() };
    Diagnostic::new(status).with_rule(rule).with_location(Location::path(path)).with_expected(expected)
}

/// The text of [`SUMMARY_INSTRUCTIONS`], once, for its Rust and C forms.
macro_rules! instructions_text {
    () => {
        "\
You are summarising an agent's conversation so far so that the summary can replace it. Reply with \
one XML document and nothing else: no prose before or after it, no Markdown code fence, no tool \
calls.

The document has exactly this structure, with the five sections in this order:

<conversation_summary>
<goal>...</goal>
<constraints>...</constraints>
<decisions>...</decisions>
<state>...</state>
<open_items>...</open_items>
</conversation_summary>

Rules:
- goal: what the user wants to achieve. Must not be blank.
- constraints: requirements and limits that still apply. May be empty.
- decisions: what was decided or done, and why. May be empty.
- state: where the work stands now: what exists, what passed, what failed. Must not be blank.
- open_items: what remains to be done or answered. May be empty.
- Each section holds plain text only: no child elements, no lists in markup. Write lists as lines \
of text. An empty section may be written <constraints/>.
- No attributes, no namespace prefixes, no comments, no CDATA sections, no processing instructions \
(no <?xml ...?> declaration), no DOCTYPE. Nothing before <conversation_summary> or after \
</conversation_summary>, not even a newline.
- Escape the text: write & as &amp;, < as &lt; and > as &gt;. No other named entities (&nbsp; is \
an error); numeric references such as &#233; are allowed.
- Use the past tense for what happened. State facts from the conversation only; do not invent, and \
do not address the user.

Example:
<conversation_summary><goal>Add a --dry-run flag to the deploy script.</goal><constraints>Keep \
Python 3.8 support.</constraints><decisions>The flag skips the upload step &amp; prints the plan; \
tests mock the network.</decisions><state>The flag was implemented in deploy.py; 12 of 12 tests \
passed.</state><open_items/></conversation_summary>"
    };
}

/// C13.6: the instructions for the summariser (the system prompt a host sends with the input).
/// They hold one complete example summary that passes the validator.
pub const SUMMARY_INSTRUCTIONS: &str = instructions_text!();

/// [`SUMMARY_INSTRUCTIONS`], NUL-terminated, for `lc_summary_instructions`.
pub(crate) const SUMMARY_INSTRUCTIONS_C: &CStr =
    match CStr::from_bytes_with_nul(concat!(instructions_text!(), "\0").as_bytes()) {
        Ok(c) => c,
        Err(_) => c"",
    };

/// The example summary inside [`SUMMARY_INSTRUCTIONS`] (its last line).
#[must_use]
pub fn instructions_example() -> &'static str {
    SUMMARY_INSTRUCTIONS.rsplit("Example:\n").next().unwrap_or_default()
}

/// C13.5: a short message to the summariser about a rejected summary, built only from static text,
/// numbers and grammar names: what was wrong, where, and the rules it broke. For a status that is
/// not [`StatusClass::Retry`] it says that no retry is useful.
#[must_use]
pub fn retry_message(diagnostic: &Diagnostic) -> String {
    compose(&RetryFacts {
        code: diagnostic.status().code(),
        class: Some(diagnostic.class()),
        line: diagnostic.line(),
        column: diagnostic.column(),
        section: diagnostic.section(),
        rule: diagnostic.rule(),
        expected: diagnostic.expected(),
        limit: diagnostic.limit(),
        actual: diagnostic.actual(),
    })
}

/// What a retry message is made of: the fields of a [`Diagnostic`], however they reached us (the
/// C ABI reads them back from an `lc_diagnostic`).
pub(crate) struct RetryFacts<'a> {
    /// The status value (one not in the table is the host's, C13.3).
    pub(crate) code: i32,
    /// The diagnosis's class, when known: it may make a retry status the host's (R15.2).
    pub(crate) class: Option<StatusClass>,
    pub(crate) line: u64,
    pub(crate) column: u64,
    pub(crate) section: Option<Section>,
    /// Shown only when it is a rule id of the SPEC's form.
    pub(crate) rule: &'a str,
    /// Shown only when it is one of the library's own expectations.
    pub(crate) expected: &'a str,
    pub(crate) limit: Option<u64>,
    pub(crate) actual: Option<u64>,
}

/// Whether `rule` has the form of a SPEC rule id (`X4.17`): a capital letter, digits, a point,
/// digits.
fn is_rule_id(rule: &str) -> bool {
    let mut parts = rule.get(1..).unwrap_or_default().split('.');
    let digits =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()));
    rule.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
        && digits(parts.next())
        && digits(parts.next())
        && parts.next().is_none()
}

/// `expected` when it is one of the library's own static expectations, else `""`.
fn known_expected(expected: &str) -> &'static str {
    let summary = Section::ALL.iter().chain([&Section::Root]).flat_map(|s| [s.start_tag(), s.end_tag()]);
    summary
        .chain(["non-blank text"])
        .chain(Expect::ALL.iter().map(|e| e.text().to_str().unwrap_or_default()))
        .find(|known| !known.is_empty() && *known == expected)
        .unwrap_or("")
}

pub(crate) fn compose(facts: &RetryFacts<'_>) -> String {
    let mut out = String::new();
    let Some(status) = Status::from_code(facts.code) else {
        let _ = write!(
            out,
            "No retry is useful: status {} is not one of this library's; the host's call is wrong.",
            facts.code
        );
        return out;
    };
    let rule = if is_rule_id(facts.rule) { facts.rule } else { "" };
    let expected = known_expected(facts.expected);
    let (name, code) = (status.name(), status.code());
    // A diagnosis can only move a status to the host (R15.2: a byte limit no reply can meet).
    let class = match facts.class {
        Some(StatusClass::Host) => StatusClass::Host,
        _ => status.class(),
    };
    match class {
        StatusClass::Ok => {
            out.push_str("The summary was accepted: there is nothing to retry.");
            return out;
        }
        StatusClass::Discard => {
            let _ = write!(
                out,
                "No retry is useful: {name} ({code}) means this result can never be used, and asking the same request again will not help."
            );
            return out;
        }
        StatusClass::Host => {
            if let (Status::SummaryByteLimit | Status::ReplyByteLimitUnreachable, Some(limit)) = (status, facts.limit) {
                let _ = write!(
                    out,
                    "No retry is useful: {name} ({code}): the byte limit of {limit} bytes is below the smallest reply that can hold a valid summary, so no summary can meet it; the host must raise the limit."
                );
                return out;
            }
            let _ = write!(
                out,
                "No retry is useful: {name} ({code}) is a problem of the host's own document or call, not of the summary."
            );
            return out;
        }
        StatusClass::Bug => {
            let _ = write!(out, "No retry is useful: {name} ({code}) is an internal error of the library; report it.");
            return out;
        }
        StatusClass::Retry => {}
    }
    if status == Status::ReplyTruncated {
        // R15.4: where the grammar failed says nothing useful about a cut reply; its length does.
        out.push_str("Your summary was cut off at the output limit before it was complete");
        if let Some(actual) = facts.actual {
            let _ = write!(out, ", after {actual} output tokens");
        }
        out.push_str(". Write a shorter summary");
        if let Some(actual) = facts.actual {
            let _ = write!(out, ", well under {actual} tokens");
        }
        out.push_str(
            ": keep all five sections (goal, constraints, decisions, state, open_items) but drop detail, \
             and close every element. Reply with the corrected summary only.",
        );
        return out;
    }
    out.push_str("Your summary was rejected");
    if facts.line > 0 {
        let _ = write!(out, " at line {}, column {}", facts.line, facts.column);
    }
    if let Some(section) = facts.section {
        let _ = write!(out, ", in {}", section_phrase(section));
    }
    out.push_str(": ");
    out.push_str(what_was_wrong(status, rule, expected));
    if !expected.is_empty() {
        let _ = write!(out, "; expected {expected} here");
    }
    if !rule.is_empty() {
        let _ = write!(out, " (rule {rule})");
    }
    out.push_str(". ");
    match status {
        Status::SummaryByteLimit => {
            if let (Some(limit), Some(actual)) = (facts.limit, facts.actual) {
                let _ = write!(out, "The reply was {actual} bytes; it must be at most {limit} bytes. ");
            }
            out.push_str("Write a shorter summary: keep every section, drop detail.");
        }
        Status::SummaryTokenLimit => {
            if let (Some(limit), Some(actual)) = (facts.limit, facts.actual) {
                let _ = write!(out, "It used {actual} output tokens; the limit is {limit}. ");
            }
            out.push_str("Write a shorter summary: keep every section, drop detail.");
        }
        Status::SummaryXmlContent => {
            out.push_str("The goal and state sections must hold non-blank text; constraints, decisions and open_items may be empty.");
        }
        Status::SummaryXmlStructure | Status::SummaryXmlRoot => {
            out.push_str(
                "The root must be <conversation_summary> with no attributes, holding exactly the five sections \
                 goal, constraints, decisions, state, open_items in this order, each with plain text only; \
                 nothing before or after the root, and no comments, CDATA or processing instructions.",
            );
        }
        _ => {
            out.push_str(
                "The summary must be well-formed XML: escape & as &amp;, < as &lt; and > as &gt;, use no other \
                 named entities, close every element, and use only the five section elements inside \
                 <conversation_summary>.",
            );
        }
    }
    out.push_str(" Reply with the corrected summary only.");
    out
}

fn section_phrase(section: Section) -> &'static str {
    match section {
        Section::Goal => "the goal section",
        Section::Constraints => "the constraints section",
        Section::Decisions => "the decisions section",
        Section::State => "the state section",
        Section::OpenItems => "the open_items section",
        Section::Root => "the conversation_summary element",
    }
}

fn what_was_wrong(status: Status, rule: &str, expected: &str) -> &'static str {
    match (status, rule) {
        (Status::SummaryByteLimit, _) => "the summary is too long",
        (Status::SummaryTokenLimit, _) => "the summary used too many tokens",
        (Status::SummaryXmlContent, _) => "this section is blank",
        (Status::SummaryXmlRoot, _) => "the root element must be <conversation_summary>",
        (Status::SummaryXmlStructure, "X4.3") => "CDATA sections are not allowed",
        (Status::SummaryXmlStructure, _) => match expected {
            "" => {
                "something other than plain section text was found (a tag, text outside a section, a comment or a processing instruction)"
            }
            "</conversation_summary>" => "after the five sections only </conversation_summary> may follow",
            _ => "a section is missing or out of order here",
        },
        (_, "X4.6") => {
            "an entity or character reference is not allowed (only &amp; &lt; &gt; &apos; &quot; and numeric ones)"
        }
        (_, "X4.7") => "the text contains ]]>",
        (_, "X4.8") => "a character is not allowed in XML text",
        (_, "X4.12") => "an end tag does not match the element it closes",
        (_, "X4.16") => "the summary ended before every element was closed",
        _ => "the XML is not well-formed",
    }
}

#[cfg(test)]
mod tests {
    use super::line_column;

    /// The line and column by the definition (C13.2), a character at a time.
    fn model(text: &[u8], offset: usize) -> (u64, u64) {
        let before = text.get(..offset).unwrap_or(text);
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |nl| nl + 1);
        let lines = 1 + before.iter().filter(|&&b| b == b'\n').count() as u64;
        let column = 1 + before[line_start..].iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
        (lines, column)
    }

    #[test]
    fn lines_and_columns_count_lfs_and_chars() {
        // Multi-byte characters and LFs at every position of the 32-byte blocks, at their edges,
        // in the remainder, and offsets everywhere, past the end included.
        let base = "aé€😀\n\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\n\n\u{10000}\u{10ffff}bc";
        for start in 0..base.len() {
            let Some(text) = base.get(start..) else { continue };
            for repeat in [1, 2, 3, 7] {
                let text = text.repeat(repeat);
                for offset in 0..=text.len() + 1 {
                    let got = line_column(text.as_bytes(), offset);
                    assert_eq!(got, model(text.as_bytes(), offset), "{text:?} at {offset}");
                }
            }
        }
        // A long line, with a character split across blocks, and one that is not UTF-8.
        let long = format!("{}\n{}", "é".repeat(5000), "x€".repeat(3000));
        assert_eq!(line_column(long.as_bytes(), long.len()), (2, 6001));
        let bytes = [&[0xBFu8; 100][..], b"\n", &[0xBF; 77], b"a"].concat();
        for offset in [0, 31, 32, 100, 101, 150, 178, 179] {
            assert_eq!(line_column(&bytes, offset), model(&bytes, offset), "{offset}");
        }
    }
}
