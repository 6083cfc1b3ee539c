//! The replacement (SPEC §15, R15.8–R15.11): what the summariser is given (the head before the
//! cut), the transcript that replaces the history once a summary is accepted, and the check of a
//! transcript the host rebuilt itself.
//!
//! Everything is written and compared in the canonical encoding (E7): a kept message is the same
//! message exactly when its canonical bytes are the same, so a signature, a thinking text or a
//! provider state that changed by one byte is found, and a different spelling of the same JSON is
//! not a change. Each walk streams: the build writes as it reads, and the check compares the
//! rebuilt transcript with the original's kept messages as it reads them, keeping only those.

use crate::diagnostic::{Diagnostic, PathBuilder};
use crate::error::{Error, Result};
use crate::json::write::{Counter, Sink, put_str};
use crate::json::{KeyFrames, Parser};
use crate::status::Status;
use crate::summary;
use crate::wire::encode::Canonical;
use crate::wire::transcript::{self, Block, Role, RoleName, StringSpan, Visit};
use crate::wire::{CompactionInput, CutOptions, Fitted, InputTooLarge};

/// Why the head cannot be fitted (R15.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadError {
    /// `cut` is above the message count (`LC_ERR_INVALID_ARGUMENT`).
    InvalidCut,
    /// No message, or only leading system messages, come before the cut
    /// (`LC_REPLACEMENT_EMPTY_HEAD`).
    EmptyHead,
    /// Nothing fits under the byte limit (`LC_INPUT_TOO_LARGE`, F7.4).
    TooLarge(InputTooLarge),
}

impl From<HeadError> for Status {
    fn from(error: HeadError) -> Status {
        match error {
            HeadError::InvalidCut => Status::InvalidArgument,
            HeadError::EmptyHead => Status::ReplacementEmptyHead,
            HeadError::TooLarge(_) => Status::InputTooLarge,
        }
    }
}

impl From<HeadError> for Error {
    fn from(error: HeadError) -> Error {
        Error::new(error.into())
    }
}

impl core::fmt::Display for HeadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            HeadError::TooLarge(e) => e.fmt(f),
            other => Status::from(*other).fmt(f),
        }
    }
}

impl std::error::Error for HeadError {}

/// The first `cut` messages must hold more than the leading system messages (R15.8, R15.10).
fn check_head(input: &CompactionInput, cut: u64) -> core::result::Result<usize, HeadError> {
    let n = input.message_count();
    let cut = usize::try_from(cut).ok().filter(|&c| c <= n).ok_or(HeadError::InvalidCut)?;
    if cut <= input.leading_systems() {
        return Err(HeadError::EmptyHead);
    }
    Ok(cut)
}

/// R15.8: the input with only messages `[0, cut)` as its transcript, fitted under `max_bytes` as
/// F7 fits a whole input; nothing is written yet (see [`Fitted`]).
pub(crate) fn fit_head(
    input: &CompactionInput,
    cut: u64,
    max_bytes: u64,
) -> core::result::Result<Fitted<'_>, HeadError> {
    let cut = check_head(input, cut)?;
    input.fit_first(cut, max_bytes).map_err(HeadError::TooLarge)
}

/// R15.10: the checks of a cut before anything is built or compared. `cut` above the message
/// count is an argument error, a cut with nothing to summarise is [`Status::ReplacementEmptyHead`],
/// and the cut must be safe (S14.4: the pairing status, or [`Status::CutUnsafe`]); a pending tail
/// (SPEC G16.13) is kept, not refused.
fn check_cut(input: &CompactionInput, cut: u64) -> Result<usize> {
    let cut = check_head(input, cut)?;
    input.cut_check_with(cut as u64, CutOptions { pending_tail: true, allowed: None })?;
    Ok(cut)
}

/// R15.9: the summary message's text block.
fn put_summary_block<S: Sink>(out: &mut S, summary: &str) {
    out.put(b"{\"type\":\"text\",\"text\":");
    put_str(out, summary);
    out.put(b"}");
}

/// Where a message of the original goes in the replacement (R15.9).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A leading system message, kept first.
    Prefix,
    /// Summarised: left out.
    Head,
    /// The first kept message after the cut; a user message is merged into the summary message.
    First,
    /// A later kept message.
    Tail,
}

/// The layout of a replacement: `lead` leading system messages, the summary, messages from `cut`.
#[derive(Clone, Copy)]
struct Layout {
    lead: usize,
    cut: usize,
}

impl Layout {
    fn of(input: &CompactionInput, cut: usize) -> Layout {
        Layout { lead: input.leading_systems().min(cut), cut }
    }

    fn place(&self, i: usize) -> Place {
        if i < self.lead {
            Place::Prefix
        } else if i < self.cut {
            Place::Head
        } else if i == self.cut {
            Place::First
        } else {
            Place::Tail
        }
    }
}

/// The replacement as a walk over the original: every kept message written as the canonical
/// writer writes it, the summary message inserted at the cut (R15.9).
struct Builder<'e, 'a, S, W> {
    canonical: Canonical<'a>,
    out: &'e mut S,
    layout: Layout,
    /// Writes the summary message's text block.
    summary: W,
    /// Messages written so far.
    written: usize,
    /// Inside a summarised message: nothing is written.
    skipping: bool,
    /// Top-level blocks already in the message being written (the summary block of a merged one).
    shift: usize,
}

impl<S: Sink, W: FnMut(&mut S)> Builder<'_, '_, S, W> {
    fn separator(&mut self) {
        if self.written > 0 {
            self.out.put(b",");
        }
    }

    /// The summary as a message of its own.
    fn summary_message(&mut self) {
        self.separator();
        Canonical::message_start(self.out, RoleName::User);
        (self.summary)(self.out);
        self.out.put(b"]}");
        self.written += 1;
    }

    fn comma_before(&mut self, j: usize, depth: usize) {
        let j = if depth == 0 { j + self.shift } else { j };
        if j > 0 {
            self.out.put(b",");
        }
    }
}

impl<S: Sink, W: FnMut(&mut S)> Visit for Builder<'_, '_, S, W> {
    fn blocks_start(&mut self, i: usize, role: Option<RoleName>) {
        // A replay knows every role (transcript::Late); `User` only keeps the type total.
        let role = role.unwrap_or(RoleName::User);
        self.shift = 0;
        self.skipping = false;
        match self.layout.place(i) {
            Place::Head => self.skipping = true,
            Place::First if role == RoleName::User => {
                // A kept tail that starts with a user message: the summary opens that message.
                self.separator();
                Canonical::message_start(self.out, role);
                (self.summary)(self.out);
                self.shift = 1;
            }
            Place::First => {
                self.summary_message();
                self.separator();
                Canonical::message_start(self.out, role);
            }
            Place::Prefix | Place::Tail => {
                self.separator();
                Canonical::message_start(self.out, role);
            }
        }
    }

    fn content_start(&mut self, j: usize, depth: usize, tool_use_id: StringSpan) {
        if self.skipping {
            return;
        }
        self.comma_before(j, depth);
        self.canonical.tool_result_start(self.out, tool_use_id);
    }

    fn block(&mut self, j: usize, depth: usize, block: &Block) {
        if self.skipping {
            return;
        }
        if !matches!(block, Block::ToolResult { .. }) {
            self.comma_before(j, depth);
        }
        self.canonical.block(self.out, block);
    }

    fn message(&mut self, _i: usize, role: &Role) {
        if self.skipping {
            return;
        }
        self.canonical.message_end(self.out, role);
        self.written += 1;
    }
}

/// Writes the replacement transcript (a JSON array) for a checked cut and summary.
fn write_replacement<S: Sink>(input: &CompactionInput, cut: usize, summary: &str, out: &mut S) {
    write_with(input, cut, |out: &mut S| put_summary_block(out, summary), out);
}

/// The replacement's walk: everything but the summary block, which `summary` writes.
fn write_with<S: Sink>(input: &CompactionInput, cut: usize, summary: impl FnMut(&mut S), out: &mut S) {
    let layout = Layout::of(input, cut);
    out.put(b"[");
    let canonical = Canonical { src: input.source() };
    let mut builder = Builder { canonical, out, layout, summary, written: 0, skipping: false, shift: 0 };
    transcript::walk(input.source(), input.transcript(), &mut builder);
    if cut == input.message_count() {
        // No kept message: the summary ends the transcript.
        builder.summary_message();
    }
    out.put(b"]");
}

/// R15.10: the checks of a build, in order; the summary as text once it validates.
fn check_build<'s>(input: &CompactionInput, cut: u64, summary: &'s [u8]) -> Result<(usize, &'s str)> {
    let cut = check_cut(input, cut)?;
    summary::validate(summary).map_err(|_| Error::new(Status::ReplacementSummary))?;
    // Accepted by the grammar, so valid UTF-8 (X4.8).
    let text = simdutf8::basic::from_utf8(summary).map_err(|_| Error::new(Status::ReplacementSummary))?;
    Ok((cut, text))
}

/// R15.9, R15.10: the replacement transcript, as canonical wire JSON (an array of messages).
pub(crate) fn build(input: &CompactionInput, cut: u64, summary: &[u8]) -> Result<Vec<u8>> {
    let (cut, text) = check_build(input, cut, summary)?;
    let mut out = Vec::with_capacity(input.source().len() / 2 + text.len() + 64);
    write_replacement(input, cut, text, &mut out);
    Ok(out)
}

/// [`build`]'s length without building it (the C ABI's size query).
pub(crate) fn build_len(input: &CompactionInput, cut: u64, summary: &[u8]) -> Result<usize> {
    let (cut, text) = check_build(input, cut, summary)?;
    let mut counter = Counter::default();
    write_replacement(input, cut, text, &mut counter);
    Ok(counter.0)
}

/// The original's kept messages in canonical bytes, each message's start noted: what a rebuilt
/// transcript is compared with (R15.11).
struct Expected {
    bytes: Vec<u8>,
    /// Start of each kept message in `bytes` (prefix first, then the tail), and the end.
    starts: Vec<usize>,
    /// Whether the first kept message after the cut is a user message (merged, R15.9).
    merged: bool,
}

/// Collects [`Expected`] in one walk of the original.
struct Collector<'a> {
    canonical: Canonical<'a>,
    layout: Layout,
    expected: Expected,
    skipping: bool,
}

impl Visit for Collector<'_> {
    fn blocks_start(&mut self, i: usize, role: Option<RoleName>) {
        // A replay knows every role (transcript::Late); `User` only keeps the type total.
        let role = role.unwrap_or(RoleName::User);
        self.skipping = self.layout.place(i) == Place::Head;
        if self.skipping {
            return;
        }
        if self.layout.place(i) == Place::First {
            self.expected.merged = role == RoleName::User;
        }
        self.expected.starts.push(self.expected.bytes.len());
        Canonical::message_start(&mut self.expected.bytes, role);
    }

    fn content_start(&mut self, j: usize, _depth: usize, tool_use_id: StringSpan) {
        if self.skipping {
            return;
        }
        if j > 0 {
            self.expected.bytes.put(b",");
        }
        self.canonical.tool_result_start(&mut self.expected.bytes, tool_use_id);
    }

    fn block(&mut self, j: usize, _depth: usize, block: &Block) {
        if self.skipping {
            return;
        }
        if j > 0 && !matches!(block, Block::ToolResult { .. }) {
            self.expected.bytes.put(b",");
        }
        self.canonical.block(&mut self.expected.bytes, block);
    }

    fn message(&mut self, _i: usize, role: &Role) {
        if !self.skipping {
            self.canonical.message_end(&mut self.expected.bytes, role);
        }
    }
}

/// A sink that compares what is put with the expected bytes from a position on, and remembers
/// whether they ever differed.
struct Compare<'x> {
    expected: &'x [u8],
    at: usize,
    differs: bool,
}

impl Sink for Compare<'_> {
    fn put(&mut self, bytes: &[u8]) {
        if self.differs {
            return;
        }
        match self.expected.get(self.at..self.at + bytes.len()) {
            Some(expected) if expected == bytes => self.at += bytes.len(),
            _ => self.differs = true,
        }
    }
}

/// Where in a message the comparison is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The role (the bytes before the blocks).
    Role,
    /// A top-level block.
    Block(usize),
    /// What follows the blocks: their count, then the role's own fields.
    End,
}

/// The first failure found in a rebuilt transcript: the status, the message, and where in it.
#[derive(Clone, Copy)]
struct Finding {
    status: Status,
    message: usize,
    part: Option<Part>,
    /// For a summary that does not validate: the offset of its text in the rebuilt transcript.
    text_at: Option<usize>,
}

/// What the rebuilt message at hand is compared with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A kept message of the original: expected bytes `[from, to)`.
    Same { from: usize, to: usize, status: Status },
    /// The summary message; merged with the kept message at `[from, to)` when there is one.
    Summary { merged: Option<(usize, usize)> },
    /// The message after a summary message that holds only the summary while the first kept
    /// message `[from, to)` is a user message: that message unchanged is R15.11's adjacent user
    /// message; anything else means its blocks are missing from the summary message.
    Unmerged { from: usize, to: usize },
    /// Nothing: the rebuilt transcript has a message too many.
    Extra,
}

/// R15.11 as a walk over the rebuilt transcript.
struct Checker<'e, 'x> {
    rebuilt: &'e [u8],
    expected: &'x Expected,
    canonical: Canonical<'e>,
    lead: usize,
    first: Option<Finding>,
    want: Want,
    compare: Compare<'x>,
    /// The message being read, and its part.
    message: usize,
    part: Part,
    /// The summary message's first block was a text block (it is checked as it is read).
    summary_block: bool,
    /// The summary message held only the summary block while the original's first kept message
    /// was a user message to merge: the next rebuilt message decides between R15.11's two findings.
    lone_summary: bool,
    /// Where the comparison of the current message's end started.
    end_at: usize,
}

impl<'x> Checker<'_, 'x> {
    fn found(&mut self, status: Status, part: Option<Part>) {
        if self.first.is_none() {
            self.first = Some(Finding { status, message: self.message, part, text_at: None });
        }
    }

    /// The expected span of kept message `k` (prefix messages first, then the tail).
    fn span(&self, k: usize) -> Option<(usize, usize)> {
        let from = *self.expected.starts.get(k)?;
        let to = self.expected.starts.get(k + 1).copied().unwrap_or(self.expected.bytes.len());
        Some((from, to))
    }

    /// What rebuilt message `i` must be.
    fn want(&self, i: usize) -> Want {
        let prefix = self.lead;
        if i < prefix {
            let (from, to) = self.span(i).unwrap_or_default();
            return Want::Same { from, to, status: Status::ReplacementPrefixChanged };
        }
        if i == prefix {
            let merged = if self.expected.merged { self.span(prefix) } else { None };
            return Want::Summary { merged };
        }
        // Rebuilt message `i` after the summary is kept message `k` of the expected list.
        let k = i - 1 + usize::from(self.expected.merged);
        match self.span(k) {
            Some((from, to)) => Want::Same { from, to, status: Status::ReplacementTailChanged },
            None => Want::Extra,
        }
    }

    fn differs(&mut self) -> bool {
        self.compare.differs
    }

    fn check_part(&mut self, status: Status) {
        if self.differs() {
            self.differ(status, Some(self.part));
        }
    }

    /// A difference in the message at hand (for [`Want::Unmerged`]: the first kept message's
    /// blocks are missing from the summary message before it).
    fn differ(&mut self, status: Status, part: Option<Part>) {
        if let Want::Unmerged { .. } = self.want {
            self.message -= 1;
            self.found(Status::ReplacementTailChanged, Some(Part::Block(1)));
        } else {
            self.found(status, part);
        }
    }

    fn status(&self) -> Status {
        match self.want {
            Want::Same { status, .. } => status,
            _ => Status::ReplacementTailChanged,
        }
    }
}

impl Visit for Checker<'_, '_> {
    fn blocks_start(&mut self, i: usize, role: Option<RoleName>) {
        // A replay knows every role (transcript::Late); `User` only keeps the type total.
        let role = role.unwrap_or(RoleName::User);
        self.message = i;
        self.part = Part::Role;
        if self.first.is_some() {
            return;
        }
        self.want = self.want(i);
        if core::mem::take(&mut self.lone_summary) {
            // R15.11: the first kept message (a user message) after a summary message of its own.
            let (from, to) = self.span(self.lead).unwrap_or_default();
            self.want = Want::Unmerged { from, to };
        }
        match self.want {
            Want::Extra => self.found(Status::ReplacementTailChanged, None),
            Want::Same { from, to, .. } | Want::Unmerged { from, to } => {
                let status = self.status();
                self.compare =
                    Compare { expected: self.expected.bytes.get(..to).unwrap_or_default(), at: from, differs: false };
                Canonical::message_start(&mut self.compare, role);
                self.check_part(status);
            }
            Want::Summary { merged } => {
                if role != RoleName::User {
                    self.found(Status::ReplacementSummary, Some(Part::Role));
                    return;
                }
                self.summary_block = false;
                // A merged message's other blocks are the first kept message's, from its first.
                let (from, to) = merged.unwrap_or_default();
                let mut compare =
                    Compare { expected: self.expected.bytes.get(..to).unwrap_or_default(), at: from, differs: false };
                Canonical::message_start(&mut compare, RoleName::User);
                self.compare = compare;
            }
        }
    }

    fn content_start(&mut self, j: usize, depth: usize, tool_use_id: StringSpan) {
        if self.first.is_some() {
            return;
        }
        if depth == 0 {
            self.part = Part::Block(j);
        }
        match self.want {
            Want::Summary { .. } if depth == 0 && j == 0 => {
                self.found(Status::ReplacementSummary, Some(Part::Block(0)));
            }
            Want::Summary { merged: None } => {
                self.found(Status::ReplacementSummary, Some(self.part));
            }
            Want::Summary { merged: Some(_) } => {
                // Block j of the merged message is block j - 1 of the kept one.
                let kept = if depth == 0 { j - 1 } else { j };
                if kept > 0 {
                    self.compare.put(b",");
                }
                self.canonical.tool_result_start(&mut self.compare, tool_use_id);
                self.check_part(Status::ReplacementTailChanged);
            }
            _ => {
                if j > 0 {
                    self.compare.put(b",");
                }
                self.canonical.tool_result_start(&mut self.compare, tool_use_id);
                let status = self.status();
                self.check_part(status);
            }
        }
    }

    fn block(&mut self, j: usize, depth: usize, block: &Block) {
        if self.first.is_some() {
            return;
        }
        if depth == 0 {
            self.part = Part::Block(j);
        }
        let separate = !matches!(block, Block::ToolResult { .. });
        match self.want {
            Want::Summary { .. } if depth == 0 && j == 0 => {
                let Block::Text { text } = block else {
                    self.found(Status::ReplacementSummary, Some(Part::Block(0)));
                    return;
                };
                let decoded = text.token(self.rebuilt).decode_bytes().unwrap_or_default();
                if summary::validate(&decoded).is_err() {
                    self.found(Status::ReplacementSummary, Some(Part::Block(0)));
                    if let Some(f) = self.first.as_mut() {
                        f.text_at = Some(text.span().start);
                    }
                    return;
                }
                self.summary_block = true;
            }
            Want::Summary { merged: None } => {
                self.found(Status::ReplacementSummary, Some(self.part));
            }
            Want::Summary { merged: Some(_) } => {
                let kept = if depth == 0 { j - 1 } else { j };
                if separate && kept > 0 {
                    self.compare.put(b",");
                }
                self.canonical.block(&mut self.compare, block);
                self.check_part(Status::ReplacementTailChanged);
            }
            _ => {
                if separate && j > 0 {
                    self.compare.put(b",");
                }
                self.canonical.block(&mut self.compare, block);
                let status = self.status();
                self.check_part(status);
            }
        }
    }

    fn message(&mut self, _i: usize, role: &Role) {
        if self.first.is_some() {
            return;
        }
        let blocks = match self.part {
            Part::Block(j) => j + 1,
            _ => 0,
        };
        self.part = Part::End;
        match self.want {
            Want::Summary { merged } => {
                if !self.summary_block {
                    // No block at all: the summary is missing.
                    self.found(Status::ReplacementSummary, Some(Part::Block(0)));
                    return;
                }
                if merged.is_some() && !self.end_matches(role) {
                    if blocks == 1 {
                        // The kept user message was not merged: the next message tells how.
                        self.lone_summary = true;
                    } else {
                        let part = self.end_part(blocks);
                        self.found(Status::ReplacementTailChanged, Some(part));
                    }
                }
            }
            Want::Same { status, .. } => {
                if !self.end_matches(role) {
                    let part = self.end_part(blocks);
                    self.found(status, Some(part));
                }
            }
            Want::Unmerged { .. } => {
                if self.end_matches(role) {
                    self.found(Status::ReplacementAdjacentUser, None);
                } else {
                    self.differ(Status::ReplacementTailChanged, None);
                }
            }
            Want::Extra => {}
        }
    }
}

impl Checker<'_, '_> {
    /// Compares the end of the message (what follows its blocks) and whether the expected message
    /// ends there too; notes where that comparison started.
    fn end_matches(&mut self, role: &Role) -> bool {
        self.end_at = self.compare.at;
        self.canonical.message_end(&mut self.compare, role);
        !self.differs() && self.compare.at == self.compare.expected.len()
    }

    /// Where a difference found at a message's end lies. Every block was already compared as it
    /// was read, so it lies after them: when the rebuilt message closes its blocks where the
    /// original goes on (the comparison failed on the `]` itself), a block is missing; otherwise
    /// the message's own fields differ (usage, a tool message's id and error flag).
    fn end_part(&self, blocks: usize) -> Part {
        // A failed comparison leaves `at` at the start of the put that failed.
        if self.compare.differs && self.compare.at == self.end_at { Part::Block(blocks) } else { Part::End }
    }
}

/// The diagnosis of a finding (R15.11): the status, the rule, and the location of the message and
/// block (never their bytes).
fn diagnostic_of(finding: Finding, rebuilt: &[u8]) -> Diagnostic {
    let mut path = PathBuilder::default();
    path.push_name("transcript");
    path.push_index(finding.message);
    match finding.part {
        Some(Part::Role) => path.push_name("role"),
        Some(Part::Block(j)) => {
            path.push_name("blocks");
            path.push_index(j);
            if finding.text_at.is_some() {
                path.push_name("text");
            }
        }
        Some(Part::End) | None => {}
    }
    let expected = match finding.status {
        Status::ReplacementPrefixChanged => c"the original's leading system message, unchanged",
        Status::ReplacementTailChanged => c"the original's kept message, unchanged",
        Status::ReplacementAdjacentUser => c"the first kept user message merged into the summary message",
        Status::ReplacementSummary => c"one user message whose first block is a text block holding a valid summary",
        _ => c"",
    };
    let d = Diagnostic::new(finding.status).with_rule(c"R15.11").with_location(path.finish()).with_expected(expected);
    match finding.text_at {
        Some(at) => d.at_offset_in(at, rebuilt),
        None => d,
    }
}

/// R15.11's fast path: `rebuilt` is exactly what [`build`] writes for some summary that passes §4
/// (the common case: the host hands back the replacement, or writes it canonically). One walk of
/// the original compares every byte the build would write with `rebuilt` instead of writing it; the
/// summary's string is read where the build would write it. `true` only when it passes R15.11
/// (the plain [`check_rebuilt`] would pass it too: `tests/round/replacement_props.rs` compares the
/// two); `false` says nothing, and the plain check decides.
fn is_built_replacement(input: &CompactionInput, cut: usize, rebuilt: &[u8]) -> bool {
    let mut compare = Compare { expected: rebuilt, at: 0, differs: false };
    let summary = |compare: &mut Compare<'_>| {
        compare.put(b"{\"type\":\"text\",\"text\":");
        if compare.differs {
            return;
        }
        match summary_string(rebuilt, compare.at) {
            Some(end) => {
                compare.at = end;
                compare.put(b"}");
            }
            None => compare.differs = true,
        }
    };
    write_with(input, cut, summary, &mut compare);
    !compare.differs && compare.at == rebuilt.len()
}

/// The JSON string token at `at` in `rebuilt` if its text passes §4: the offset after its closing
/// quote.
fn summary_string(rebuilt: &[u8], at: usize) -> Option<usize> {
    let mut p = Parser::new(rebuilt.get(at..)?);
    let crate::json::Event::String(token) = p.next().ok()? else {
        return None;
    };
    token.check_utf8().ok()?;
    let text = token.decode_bytes().ok()?;
    summary::validate(&text).ok()?;
    Some(at + p.pos())
}

/// R15.11: the first failure of a transcript the host rebuilt for this cut, as a diagnosis
/// ([`Diagnostic::ok`] when it passes).
pub(crate) fn verify(input: &CompactionInput, cut: u64, rebuilt: &[u8]) -> Diagnostic {
    let cut = match check_cut(input, cut) {
        Ok(cut) => cut,
        // The cut's own failure: its status, and the pairing diagnosis where it has one.
        Err(e) if (500..510).contains(&e.status().code()) => return input.pairing_diagnose(),
        // A cut above the message count is the caller's argument (C13.4: the status alone).
        Err(e) if e.status() == Status::InvalidArgument => return Diagnostic::new(e.status()),
        Err(e) => return Diagnostic::new(e.status()).with_rule(c"R15.10"),
    };
    if is_built_replacement(input, cut, rebuilt) {
        return Diagnostic::ok();
    }
    check_rebuilt(input, cut, rebuilt)
}

/// R15.11, the plain check: parses `rebuilt` as a transcript, then compares it message by message
/// with the original's kept messages in canonical bytes. (`cut` was checked.)
pub(crate) fn check_rebuilt(input: &CompactionInput, cut: usize, rebuilt: &[u8]) -> Diagnostic {
    // The rebuilt transcript must be a transcript (T5.1–T5.8); any failure there is 620.
    let mut p = Parser::new(rebuilt);
    let mut keys = KeyFrames::default();
    let checked = transcript::check(&mut p, &mut keys, true, &mut transcript::ValidateOnly).and_then(|t| {
        p.finish()?;
        Ok(t)
    });
    let parsed = match checked {
        Ok(t) => t,
        Err(e) => {
            let d = crate::diagnostic::json_diagnostic(
                Status::ReplacementWire,
                Some(e.offset),
                rebuilt,
                &crate::wire::INPUT_LAYOUT,
                c"R15.11",
                false,
            );
            let mut path = String::from("transcript");
            path.push_str(d.location());
            return d.with_location(crate::diagnostic::Location::path(&path));
        }
    };
    let layout = Layout::of(input, cut);
    let mut collector = Collector {
        canonical: Canonical { src: input.source() },
        layout,
        expected: Expected { bytes: Vec::new(), starts: Vec::new(), merged: false },
        skipping: false,
    };
    transcript::walk(input.source(), input.transcript(), &mut collector);
    let expected = collector.expected;
    let mut checker = Checker {
        rebuilt,
        expected: &expected,
        canonical: Canonical { src: rebuilt },
        lead: layout.lead,
        first: None,
        want: Want::Extra,
        compare: Compare { expected: &[], at: 0, differs: false },
        message: 0,
        part: Part::Role,
        summary_block: false,
        lone_summary: false,
        end_at: 0,
    };
    transcript::walk(rebuilt, &parsed, &mut checker);
    let count = parsed.messages;
    let kept = expected.starts.len();
    // Messages the rebuilt transcript should have: the prefix, the summary and the kept tail.
    let want = kept + 1 - usize::from(expected.merged);
    if checker.first.is_none() && checker.lone_summary {
        // The summary message ended the transcript: the first kept message is missing from it.
        checker.message = count.saturating_sub(1);
        checker.found(Status::ReplacementTailChanged, Some(Part::Block(1)));
    }
    if checker.first.is_none() && count < want {
        checker.message = count;
        let status = if count < layout.lead {
            Status::ReplacementPrefixChanged
        } else if count == layout.lead {
            Status::ReplacementSummary
        } else {
            Status::ReplacementTailChanged
        };
        checker.found(status, None);
    }
    match checker.first {
        Some(finding) => diagnostic_of(finding, rebuilt),
        None => Diagnostic::ok(),
    }
}

#[cfg(test)]
mod tests {
    //! The fast path of the check against the plain one (STYLE rule 11): whatever the fast path
    //! accepts, the plain check accepts; on the rest the plain check alone decides.

    use super::{check_rebuilt, is_built_replacement};
    use crate::Status;
    use crate::wire::CompactionInput;

    const SUMMARY: &str = "<conversation_summary><goal>g &amp; \u{e9}</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";

    fn input(messages: &[&str]) -> CompactionInput {
        let wire = format!(
            r#"{{"version":1,"basis":{{"revision":1,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}},"model":{{"provider":"p","model":"m"}},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":[{}],"max_summary_tokens":9}}"#,
            messages.join(",")
        );
        CompactionInput::parse(wire.as_bytes()).expect("a valid test input")
    }

    /// Variants of a replacement a host could send back: the bytes as built, reformatted, the
    /// summary spelled with escapes, and bytes changed, removed or added.
    fn variants(built: &[u8], next: &mut impl FnMut() -> u64) -> Vec<Vec<u8>> {
        let text = String::from_utf8(built.to_vec()).expect("canonical bytes are UTF-8");
        let mut out = vec![
            built.to_vec(),
            text.replace(',', ", ").into_bytes(),
            text.replace("\\u003c", "\\u003C").into_bytes(),
            text.replace("\\u003c", "<").into_bytes(),
            text.replace("\u{e9}", "\\u00e9").into_bytes(),
            text.replacen("\"g ", "\"G ", 1).into_bytes(),
            [built, b" "].concat(),
            built[..built.len() - 1].to_vec(),
        ];
        for _ in 0..40 {
            let mut changed = built.to_vec();
            let at = (next() % built.len() as u64) as usize;
            match next() % 3 {
                0 => changed[at] = (next() % 128) as u8,
                1 => {
                    changed.remove(at);
                }
                _ => changed.insert(at, b"{}[],\"\\ a"[(next() % 9) as usize]),
            }
            out.push(changed);
        }
        out
    }

    #[test]
    fn the_fast_path_accepts_only_what_the_plain_check_accepts() {
        let mut next = crate::xorshift(0x9E37_79B9_7F4A_7C15);
        let transcripts: [&[&str]; 3] = [
            &[
                r#"{"role":"system","blocks":[{"type":"text","text":"rules"}]}"#,
                r#"{"role":"user","blocks":[{"type":"text","text":"hi <there>"}]}"#,
                r#"{"role":"assistant","blocks":[{"type":"thinking","thinking":"t","signature":"sig"},{"type":"tool_use","id":"a","name":"n","input":{"k":[1,2]}}],"usage":null}"#,
                r#"{"role":"tool","blocks":[{"type":"text","text":"out"}],"tool_use_id":"a","is_error":false}"#,
                r#"{"role":"user","blocks":[{"type":"text","text":"next"}]}"#,
                r#"{"role":"assistant","blocks":[{"type":"text","text":"ok"}],"usage":null}"#,
            ],
            &[
                r#"{"role":"user","blocks":[{"type":"text","text":"a"}]}"#,
                r#"{"role":"assistant","blocks":[{"type":"text","text":"b"}],"usage":null}"#,
            ],
            &[r#"{"role":"user","blocks":[{"type":"text","text":"a"}]}"#, r#"{"role":"user","blocks":[]}"#],
        ];
        let mut accepted = 0;
        for messages in transcripts {
            let input = input(messages);
            for cut in 1..=messages.len() {
                let Ok(built) = input.build_replacement(cut as u64, SUMMARY.as_bytes()) else { continue };
                for rebuilt in variants(&built, &mut next) {
                    let fast = is_built_replacement(&input, cut, &rebuilt);
                    let plain = check_rebuilt(&input, cut, &rebuilt);
                    if fast {
                        accepted += 1;
                        assert_eq!(plain.status(), Status::Ok, "the fast path accepted what the plain check rejects");
                    }
                    assert_eq!(
                        input.diagnose_replacement(cut as u64, &rebuilt),
                        plain,
                        "verify is not the plain check"
                    );
                }
                assert!(is_built_replacement(&input, cut, &built), "the fast path missed the built replacement");
            }
        }
        assert!(accepted > 10, "the fast path accepted only {accepted} variants");
    }
}
