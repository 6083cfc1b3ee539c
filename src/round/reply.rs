//! The bare reply (SPEC §15, R15.1–R15.7): the summariser's text as it arrived, checked against
//! the input it was made for, with no JSON envelope to build.
//!
//! With no cleanup and a stop other than [`Stop::Length`], the verdict is the one
//! [`CompactionInput::validate_output`] gives the envelope of the input's identity around the same
//! text (R15.3): the byte, usage and token checks of O6.2 steps 1–3, then the text as the decoded
//! `summary` (a J5.3 error first, then the grammar of §4). What is new is only what an envelope
//! cannot say: how the call stopped, what cleanup removed, and a byte limit that no reply can meet.

use crate::diagnostic::{Diagnostic, Location, Removed};
use crate::error::{Error, Result};
use crate::status::Status;
use crate::summary;
use crate::wire::CompactionInput;

/// How the provider's call ended (R15.4; `LC_STOP_*` in C).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(i32)]
pub enum Stop {
    /// Not reported (`LC_STOP_UNKNOWN`, 0).
    #[default]
    Unknown = 0,
    /// The model ended its reply itself (`LC_STOP_END`, 1): `stop`, `end_turn`, `STOP`.
    End = 1,
    /// The provider cut the reply at its output limit (`LC_STOP_LENGTH`, 2): `length`,
    /// `max_tokens`, `MAX_TOKENS`.
    Length = 2,
}

impl Stop {
    /// The C value (`LC_STOP_*`).
    #[must_use]
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The stop of a C value; `None` for a value that is not one (`LC_ERR_INVALID_ARGUMENT`).
    #[must_use]
    pub const fn from_code(code: i32) -> Option<Stop> {
        match code {
            0 => Some(Stop::Unknown),
            1 => Some(Stop::End),
            2 => Some(Stop::Length),
            _ => None,
        }
    }
}

/// `LC_REPLY_TRIM`: remove White_Space (X4.21) around the reply (R15.5).
pub const REPLY_TRIM: u32 = 1;
/// `LC_REPLY_UNFENCE`: remove one Markdown code fence around the whole reply (R15.5).
pub const REPLY_UNFENCE: u32 = 2;
/// Every cleanup flag; other bits are `LC_ERR_INVALID_ARGUMENT`.
pub const REPLY_FLAGS: u32 = REPLY_TRIM | REPLY_UNFENCE;

pub use crate::summary::SMALLEST as SMALLEST_SUMMARY;

/// What a bare reply is checked with (R15.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyOptions {
    /// The output usage the provider reported for the call (0: none reported).
    pub output_tokens: u64,
    /// How the call ended.
    pub stop: Stop,
    /// The byte limit of the reply as it arrived (before cleanup).
    pub max_reply_bytes: u64,
    /// Remove White_Space around the reply ([`REPLY_TRIM`]).
    pub trim: bool,
    /// Remove one Markdown code fence around the whole reply ([`REPLY_UNFENCE`]).
    pub unfence: bool,
}

impl ReplyOptions {
    /// Options with no cleanup and an unknown stop.
    #[must_use]
    pub const fn new(output_tokens: u64, max_reply_bytes: u64) -> ReplyOptions {
        ReplyOptions { output_tokens, stop: Stop::Unknown, max_reply_bytes, trim: false, unfence: false }
    }

    /// The options of a C call: `Err(InvalidArgument)` for a stop or flag bit that is not one.
    pub fn from_c(output_tokens: u64, stop: i32, max_reply_bytes: u64, flags: u32) -> Result<ReplyOptions> {
        let stop = Stop::from_code(stop).ok_or(Error::new(Status::InvalidArgument))?;
        if flags & !REPLY_FLAGS != 0 {
            return Err(Error::new(Status::InvalidArgument));
        }
        Ok(ReplyOptions {
            output_tokens,
            stop,
            max_reply_bytes,
            trim: flags & REPLY_TRIM != 0,
            unfence: flags & REPLY_UNFENCE != 0,
        })
    }
}

/// An accepted reply: the summary (the exact text of the replacement user message, R15.6) and
/// what cleanup removed around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidReply<'r> {
    summary: &'r str,
    removed: Removed,
}

impl<'r> ValidReply<'r> {
    /// The validated summary text: the reply without what cleanup removed.
    #[must_use]
    pub const fn summary(&self) -> &'r str {
        self.summary
    }

    /// What cleanup removed around the summary (nothing without cleanup flags).
    #[must_use]
    pub const fn removed(&self) -> Removed {
        self.removed
    }
}

/// What cleanup removed from a reply that [`validate`] accepted (R15.7's diagnosis of a success),
/// without validating it again.
pub(crate) fn removed_from_valid(reply: &[u8], options: &ReplyOptions) -> Removed {
    clean(reply, options).2
}

/// The summary's place in the reply after cleanup (R15.5).
fn clean(reply: &[u8], options: &ReplyOptions) -> (usize, usize, Removed) {
    let (mut start, mut end) = (0, reply.len());
    let mut removed = Removed::default();
    let mut trim = |start: &mut usize, end: &mut usize| {
        let (s, e) = trim_white_space(reply, *start, *end);
        if (s, e) != (*start, *end) {
            removed.trimmed = true;
            (*start, *end) = (s, e);
        }
    };
    if options.trim {
        trim(&mut start, &mut end);
    }
    if options.unfence
        && let Some((s, e)) = unfence(reply.get(start..end).unwrap_or_default())
    {
        removed.unfenced = true;
        (start, end) = (start + s, start + e);
        if options.trim {
            trim(&mut start, &mut end);
        }
    }
    removed.before = start;
    removed.after = reply.len() - end;
    (start, end, removed)
}

/// The character at `i`: an ASCII byte, or a UTF-8 sequence that is an XML Char (X4.8).
fn char_at(text: &[u8], i: usize) -> Option<(u32, usize)> {
    match *text.get(i)? {
        b @ 0..=0x7F => Some((u32::from(b), 1)),
        _ => summary::utf8_char(text, i),
    }
}

/// `[start, end)` without the White_Space characters (X4.21) at either end. A byte that is not
/// part of valid UTF-8 stops the trim on its side.
fn trim_white_space(text: &[u8], mut start: usize, mut end: usize) -> (usize, usize) {
    while start < end {
        match char_at(text, start) {
            Some((cp, len)) if summary::is_white_space(cp) && start + len <= end => start += len,
            _ => break,
        }
    }
    while end > start {
        // The start of the last character: back over at most three continuation bytes.
        let mut at = end - 1;
        while at > start && end - at < 4 && text.get(at).is_some_and(|&b| b & 0xC0 == 0x80) {
            at -= 1;
        }
        match char_at(text, at) {
            Some((cp, len)) if summary::is_white_space(cp) && at + len == end => end = at,
            _ => break,
        }
    }
    (start, end)
}

/// R15.5's fence: the content's span inside one Markdown code fence that is the whole of `text`.
/// The opening line is three or more backticks (or tildes) and an optional info string (for
/// backticks, without a backtick), ending in LF or CR LF; the closing line, after a line end, is
/// the same character at least as many times, then optional spaces and tabs and one optional line
/// end, then the end of the text. Anything else (prose before or after, a second fence) is not
/// a fence, and nothing is removed.
fn unfence(text: &[u8]) -> Option<(usize, usize)> {
    let fence = *text.first().filter(|&&b| b == b'`' || b == b'~')?;
    let run = text.iter().take_while(|&&b| b == fence).count();
    if run < 3 {
        return None;
    }
    let newline = memchr::memchr(b'\n', text)?;
    let info = text.get(run..newline)?;
    if fence == b'`' && info.contains(&b'`') {
        return None;
    }
    let content_start = newline + 1;
    // The closing line: from the end, optional line end, optional blanks, the fence run.
    let mut end = text.len();
    if text.get(..end)?.ends_with(b"\n") {
        end -= 1;
        if text.get(..end)?.ends_with(b"\r") {
            end -= 1;
        }
    }
    while end > content_start && matches!(text.get(end - 1), Some(b' ' | b'\t')) {
        end -= 1;
    }
    let closing = text.get(content_start..end)?.iter().rev().take_while(|&&b| b == fence).count();
    if closing < run {
        return None;
    }
    let before_closing = end - closing;
    // The closing run starts a line of its own: right after the opening line (empty content) or
    // after an LF.
    let content_end = if before_closing == content_start {
        content_start
    } else if text.get(before_closing - 1) == Some(&b'\n') {
        let e = before_closing - 1;
        if e > content_start && text.get(e - 1) == Some(&b'\r') { e - 1 } else { e }
    } else {
        return None;
    };
    Some((content_start, content_end.max(content_start)))
}

/// R15.2: the limit is below [`SMALLEST_SUMMARY`] (0 included).
fn unreachable_limit(max_reply_bytes: u64) -> bool {
    max_reply_bytes < SMALLEST_SUMMARY.len() as u64
}

/// O6.2 steps 1–3 for the reply as it arrived (R15.2, R15.3).
fn check_limits(input: &CompactionInput, reply: &[u8], options: &ReplyOptions) -> Result<()> {
    if unreachable_limit(options.max_reply_bytes) {
        return Err(Error::new(Status::ReplyByteLimitUnreachable));
    }
    if reply.len() as u64 > options.max_reply_bytes {
        return Err(Error::new(Status::SummaryByteLimit));
    }
    if options.output_tokens == 0 {
        return Err(Error::new(Status::SummaryTokenUsage));
    }
    if options.output_tokens > input.max_summary_tokens() {
        return Err(Error::new(Status::SummaryTokenLimit));
    }
    Ok(())
}

/// The text's own verdict (R15.3 step 6, O6.2 step 9 with the J5.3 order of step 4): offsets count
/// bytes of `text`.
fn check_text(text: &[u8]) -> Result<()> {
    let Err(error) = summary::validate(text) else {
        return Ok(());
    };
    match simdutf8::compat::from_utf8(text) {
        Err(e) => Err(Error::at(Status::SummaryWire, e.valid_up_to())),
        Ok(_) => Err(error),
    }
}

/// R15.1–R15.7: the verdict on a bare reply, and on success the summary and what cleanup removed.
pub(crate) fn validate<'r>(input: &CompactionInput, reply: &'r [u8], options: &ReplyOptions) -> Result<ValidReply<'r>> {
    check_limits(input, reply, options)?;
    let (start, end, removed) = clean(reply, options);
    let text = reply.get(start..end).unwrap_or_default();
    match check_text(text) {
        Ok(()) => {
            // Accepted by the grammar, so valid UTF-8 (X4.8).
            let summary = simdutf8::basic::from_utf8(text).map_err(|_| Error::new(Status::SummaryXmlSyntax))?;
            Ok(ValidReply { summary, removed })
        }
        // R15.4: a reply cut at the output limit is incomplete, whatever the grammar found first.
        Err(e) if options.stop == Stop::Length => {
            Err(Error::at(Status::ReplyTruncated, start + e.offset().unwrap_or(0)))
        }
        Err(e) => Err(match e.offset() {
            Some(at) => Error::at(e.status(), start + at),
            None => e,
        }),
    }
}

/// R15.7: the diagnosis of a bare reply, offsets counting bytes of the reply as it arrived.
pub(crate) fn diagnose(input: &CompactionInput, reply: &[u8], options: &ReplyOptions) -> Diagnostic {
    let error = match validate(input, reply, options) {
        Ok(valid) => return Diagnostic::ok().with_removed(valid.removed),
        Err(error) => error,
    };
    // Cleanup runs only once the limits pass.
    let removed = match check_limits(input, reply, options) {
        Ok(()) => clean(reply, options).2,
        Err(_) => Removed::default(),
    };
    let status = error.status();
    let plain = Diagnostic::new(status).with_rule(c"O6.2");
    let d = match status {
        Status::ReplyByteLimitUnreachable => Diagnostic::new(status)
            .with_rule(c"R15.2")
            .with_limit(options.max_reply_bytes, SMALLEST_SUMMARY.len() as u64),
        Status::SummaryByteLimit => plain.with_limit(options.max_reply_bytes, reply.len() as u64),
        Status::SummaryTokenUsage => plain,
        Status::SummaryTokenLimit => plain.with_limit(input.max_summary_tokens(), options.output_tokens),
        _ => {
            let text = reply.get(removed.before..reply.len() - removed.after).unwrap_or_default();
            let inner = match simdutf8::compat::from_utf8(text) {
                // O6.2 step 4's J5.3, at the first byte that is not UTF-8.
                Err(e) => Diagnostic::new(Status::SummaryWire)
                    .at_offset_in(e.valid_up_to(), text)
                    .with_rule(c"J5.3")
                    .with_expected(c"valid UTF-8"),
                Ok(_) => summary::diagnose(text),
            };
            // Offsets of the reply as it arrived: shifted past what cleanup removed.
            let inner = match inner.offset() {
                Some(at) => inner.at_offset_in(removed.before + at, reply),
                None => inner,
            };
            let inner = inner.with_location(Location::name("summary"));
            if status == Status::ReplyTruncated {
                inner
                    .with_status(Status::ReplyTruncated)
                    .with_rule(c"R15.4")
                    .with_expected(c"")
                    .with_limit(input.max_summary_tokens(), options.output_tokens)
            } else {
                inner
            }
        }
    };
    d.with_removed(removed)
}
