//! The compaction input and output wires (SPEC §5, §6, §7, §11).
//!
//! [`CompactionInput`] is the validated input a host sends to the summariser (W5.4): it owns a copy
//! of the wire bytes, the identity and budget, and the message count; the transcript is walked
//! again from those bytes whenever it is encoded or checked, so a handle holds nothing else of the
//! transcript's size however many messages and blocks it has. It is immutable, and can be shared
//! between threads. From it come the exact bytes to send ([`CompactionInput::encode_within`], §7)
//! and the check of the summariser's reply ([`CompactionInput::validate_output`], §6).

pub(crate) mod base64;
pub(crate) mod encode;
mod input;
pub(crate) mod output;
mod pairing;
mod repair;
pub(crate) mod transcript;

#[cfg(any(test, fuzzing))]
pub(crate) use base64::AlphabetPrefix;

use std::borrow::Cow;

pub use repair::{CutOptions, PairingViolation, REPAIR_RESULT_TEXT, Repair};

use crate::diagnostic::{Diagnostic, field_diagnostic, json_diagnostic};
use crate::error::Result;
use crate::json::{DocumentLayout, Fields};
use crate::status::Status;

/// The layouts of the input wire (W5.1) and the reply (O6.1), for their diagnoses (C13.4).
pub(crate) static INPUT_LAYOUT: DocumentLayout = DocumentLayout::new(<input::Top as Fields>::RULES);
pub(crate) static OUTPUT_LAYOUT: DocumentLayout = DocumentLayout::new(<output::Top as Fields>::RULES);

/// The T5 rule of a transcript location: a message (T5.2), a block list (T5.4, T5.3 for the depth
/// of `content`), a block (T5.5) or its bytes (T5.6).
fn transcript_rule(location: &str) -> &'static core::ffi::CStr {
    let leaf = location.rsplit('.').next().unwrap_or_default();
    let leaf = leaf.split('[').next().unwrap_or_default();
    match leaf {
        "transcript" if !location.contains('.') && location.ends_with(']') => c"T5.2",
        "transcript" => c"T5.1",
        "role"
        | "usage"
        | "tool_use_id"
        | "is_error"
        | "input_tokens"
        | "output_tokens"
        | "cache_read_tokens"
        | "cache_creation_tokens"
        | "reasoning_tokens"
            if location.matches("blocks").count() == 0 =>
        {
            c"T5.2"
        }
        "blocks" | "content" if !location.ends_with(']') => c"T5.4",
        "data" => c"T5.6",
        _ => c"T5.5",
    }
}

/// A validated compaction input (W5.4). Immutable; `Send + Sync`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionInput {
    src: Box<[u8]>,
    doc: input::Document,
    full_len: FullLen,
    /// The cuts that fall on the boundaries of the source a converter read (SPEC §16): `None` for
    /// an input parsed from a wire document, where every cut is a boundary.
    allowed_cuts: Option<Box<[bool]>>,
}

/// `lc_compaction_input_encode_within` failed: nothing fits under the limit (F7.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputTooLarge {
    /// The byte limit asked for.
    pub max_bytes: u64,
    /// The length reached: the canonical encoding with every shrinking stub applied.
    pub size: u64,
}

impl InputTooLarge {
    /// Always [`Status::InputTooLarge`].
    #[must_use]
    pub const fn status(&self) -> Status {
        Status::InputTooLarge
    }
}

impl core::fmt::Display for InputTooLarge {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {} bytes needed, limit {}", Status::InputTooLarge, self.size, self.max_bytes)
    }
}

impl std::error::Error for InputTooLarge {}

impl From<InputTooLarge> for Status {
    fn from(_: InputTooLarge) -> Status {
        Status::InputTooLarge
    }
}

/// [`CompactionInput::encode_into`] failed: nothing fits under the limit, or the caller's buffer
/// is too short for what does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeIntoError {
    /// Nothing fits under the byte limit (F7.4).
    TooLarge(InputTooLarge),
    /// The fitted bytes need `needed` bytes; the buffer was left untouched.
    BufferTooSmall {
        /// The length of the fitted bytes.
        needed: usize,
    },
}

impl From<EncodeIntoError> for Status {
    fn from(error: EncodeIntoError) -> Status {
        match error {
            EncodeIntoError::TooLarge(_) => Status::InputTooLarge,
            EncodeIntoError::BufferTooSmall { .. } => Status::BufferTooSmall,
        }
    }
}

impl core::fmt::Display for EncodeIntoError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EncodeIntoError::TooLarge(e) => e.fmt(f),
            EncodeIntoError::BufferTooSmall { needed } => {
                write!(f, "{}: {needed} bytes needed", Status::BufferTooSmall)
            }
        }
    }
}

impl std::error::Error for EncodeIntoError {}

/// The length of the canonical encoding without stubs, counted once per input when fitting first
/// needs it (a handle stays immutable to its users: the count is a function of the input). Every
/// instance compares equal, so the cache never makes two equal inputs differ.
#[derive(Debug, Clone, Default)]
struct FullLen(std::sync::OnceLock<usize>);

impl PartialEq for FullLen {
    fn eq(&self, _: &FullLen) -> bool {
        true
    }
}

impl Eq for FullLen {}

/// The bytes [`CompactionInput::encode_within`] returns, planned but not yet written
/// (see [`CompactionInput::fit`]).
#[derive(Debug, Clone)]
pub struct Fitted<'a> {
    encoder: encode::Encoder<'a>,
    plan: encode::Plan,
}

impl Fitted<'_> {
    /// Length of the fitted bytes (never more than the limit asked for).
    #[must_use]
    pub fn len(&self) -> usize {
        self.plan.len
    }

    /// Whether [`Fitted::len`] is 0 (never: a canonical document has at least its braces).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.plan.len == 0
    }

    /// Writes the fitted bytes to the start of `buf` and returns their length, or returns `None`
    /// and writes nothing when `buf` is shorter than [`Fitted::len`].
    pub fn write_to(&self, buf: &mut [u8]) -> Option<usize> {
        if buf.len() < self.plan.len {
            return None;
        }
        let mut sink = crate::json::write::SliceSink::new(buf);
        self.encoder.write(&self.plan, &mut sink);
        debug_assert_eq!(sink.len(), self.plan.len, "the plan counted what the writer writes");
        Some(self.plan.len)
    }

    /// The fitted bytes in a vector of exactly their length.
    #[must_use]
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.plan.len);
        self.encoder.write(&self.plan, &mut out);
        out
    }
}

/// The summary of an accepted reply (O6.4): the decoded `summary` string, which is the exact text of
/// the replacement user message (the XML unchanged, entities still escaped, X4.22). Borrowed from
/// the reply when the JSON string had no escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary<'o> {
    bytes: Cow<'o, [u8]>,
}

impl<'o> Summary<'o> {
    /// The summary's UTF-8 bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The summary text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Always valid: the grammar accepted it, and it checks every character (X4.8, X4.9).
        simdutf8::basic::from_utf8(&self.bytes).unwrap_or_default()
    }

    /// Length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Never true for an accepted summary; here for completeness.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The text as an owned `String`.
    #[must_use]
    pub fn into_string(self) -> String {
        self.as_str().to_owned()
    }
}

impl core::fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl CompactionInput {
    /// Decodes and validates a compaction input wire document (W5.2; statuses 100–105).
    pub fn parse(wire: &[u8]) -> Result<CompactionInput> {
        let doc = input::decode(wire, true)?;
        Ok(CompactionInput { src: wire.into(), doc, full_len: FullLen::default(), allowed_cuts: None })
    }

    /// Validates a wire document without keeping it (same statuses as [`CompactionInput::parse`]).
    pub fn validate(wire: &[u8]) -> Result<()> {
        input::decode(wire, false).map(|_| ())
    }

    /// The basis revision.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.doc.revision
    }

    /// The basis event id, a canonical UUID.
    #[must_use]
    pub fn through_event_id(&self) -> &str {
        std::str::from_utf8(&self.doc.through_event_id).unwrap_or_default()
    }

    /// The model's provider (decoded).
    #[must_use]
    pub fn provider(&self) -> Cow<'_, str> {
        self.text(self.doc.provider)
    }

    /// The model name (decoded).
    #[must_use]
    pub fn model(&self) -> Cow<'_, str> {
        self.text(self.doc.model)
    }

    /// The request fingerprint as 64 lower-case hex characters.
    #[must_use]
    pub fn request_fingerprint(&self) -> &str {
        std::str::from_utf8(&self.doc.request_fingerprint).unwrap_or_default()
    }

    /// The output token budget of the summary.
    #[must_use]
    pub fn max_summary_tokens(&self) -> u64 {
        self.doc.max_summary_tokens
    }

    /// Number of transcript messages.
    #[must_use]
    pub fn message_count(&self) -> usize {
        self.doc.transcript.messages
    }

    fn text(&self, text: crate::json::StringSpan) -> Cow<'_, str> {
        text.token(&self.src).decode().unwrap_or_default()
    }

    fn encoder(&self) -> encode::Encoder<'_> {
        encode::Encoder { src: &self.src, doc: &self.doc, until: self.doc.transcript.messages }
    }

    /// The wire bytes the handle holds (validated).
    pub(crate) fn source(&self) -> &[u8] {
        &self.src
    }

    /// The validated transcript, for walks over it.
    pub(crate) fn transcript(&self) -> &transcript::Transcript {
        &self.doc.transcript
    }

    /// Restricts the cuts of this input to `allowed` (`allowed[c]` for `c` in `0..=n`; a shorter
    /// list allows nothing past its end): what an input made from a conversion carries (SPEC §16).
    pub(crate) fn with_allowed_cuts(mut self, allowed: &[bool]) -> CompactionInput {
        self.allowed_cuts = Some(allowed.into());
        self
    }

    /// Whether cut `c` falls on a boundary of the input's source (always, for an input parsed from
    /// a wire document; SPEC §16).
    #[must_use]
    pub fn cut_allowed(&self, c: usize) -> bool {
        match &self.allowed_cuts {
            None => c <= self.doc.transcript.messages,
            Some(allowed) => allowed.get(c).copied().unwrap_or(false),
        }
    }

    /// How many messages at the start of the transcript are `system` messages.
    #[must_use]
    pub fn leading_systems(&self) -> usize {
        self.doc.transcript.leading_systems
    }

    /// F7 for the input with only its first `until` messages (1 <= until <= n) as the transcript.
    pub(crate) fn fit_first(&self, until: usize, max_bytes: u64) -> core::result::Result<Fitted<'_>, InputTooLarge> {
        if until >= self.doc.transcript.messages {
            return self.fit(max_bytes);
        }
        let encoder = encode::Encoder { until, ..self.encoder() };
        let plan = encoder.plan_from(encoder.count(), max_bytes).map_err(|size| InputTooLarge { max_bytes, size })?;
        Ok(Fitted { encoder, plan })
    }

    /// The canonical encoding (E7) of the whole input, without any stub.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        // Sized for the input: canonical bytes drop whitespace, so they are rarely longer.
        let mut out = Vec::with_capacity(self.src.len());
        self.encoder().document(&mut out, |_| false);
        out
    }

    /// The exact bytes to send to the summariser, fitted under `max_bytes` (F7.1–F7.5). The same
    /// limit always gives the same bytes.
    ///
    /// One encoding pass when everything fits (the common case): [`CompactionInput::encode`].
    /// Otherwise that encoding is dropped before the fitted bytes are built, so the two never
    /// coexist. [`CompactionInput::fit`] gives the length without building anything.
    pub fn encode_within(&self, max_bytes: u64) -> core::result::Result<Vec<u8>, InputTooLarge> {
        let full = self.encode();
        let full_len = *self.full_len.0.get_or_init(|| full.len());
        if max_bytes != 0 && full_len as u64 <= max_bytes {
            return Ok(full);
        }
        drop(full);
        let encoder = self.encoder();
        let plan = encoder.plan_from(full_len, max_bytes).map_err(|size| InputTooLarge { max_bytes, size })?;
        Ok(Fitted { encoder, plan }.to_vec())
    }

    /// Fits the input under `max_bytes` (F7.2–F7.4) without writing it yet: the result knows its
    /// length, so a buffer can be sized (or refused) before any byte is built, and then written
    /// in place with [`Fitted::write_to`]. Nothing of the encoding's size is allocated; the price
    /// is a counting pass before the writing one, paid once per input.
    pub fn fit(&self, max_bytes: u64) -> core::result::Result<Fitted<'_>, InputTooLarge> {
        let encoder = self.encoder();
        let full = *self.full_len.0.get_or_init(|| encoder.count());
        let plan = encoder.plan_from(full, max_bytes).map_err(|size| InputTooLarge { max_bytes, size })?;
        Ok(Fitted { encoder, plan })
    }

    /// Writes the bytes [`CompactionInput::encode_within`] returns straight into `buf` and returns
    /// their length (F7.6, the C ABI's two-call pattern). When they do not fit in `buf`,
    /// [`EncodeIntoError::BufferTooSmall`] says how many bytes they need and `buf` is left
    /// untouched; an empty `buf` is the size query. Nothing of the output's size is allocated.
    pub fn encode_into(&self, max_bytes: u64, buf: &mut [u8]) -> core::result::Result<usize, EncodeIntoError> {
        let fitted = self.fit(max_bytes).map_err(EncodeIntoError::TooLarge)?;
        fitted.write_to(buf).ok_or(EncodeIntoError::BufferTooSmall { needed: fitted.len() })
    }

    /// Diagnoses a wire document (SPEC C13.4): the status [`CompactionInput::validate`] gives, with
    /// the offset, line, column, the location (`transcript[3].blocks[0].type`), the rule and what
    /// was expected there.
    #[must_use]
    pub fn diagnose(wire: &[u8]) -> Diagnostic {
        // The plain call's pass, which also names the field of a failure without an offset.
        let mut failing = None;
        let Err(error) = input::decode_noting_field(wire, &mut failing) else {
            return Diagnostic::ok();
        };
        let status = error.status();
        let offset = error.offset();
        let field = |fallback: &'static core::ffi::CStr| {
            let (field, rule) = failing.unwrap_or(("", fallback));
            field_diagnostic(status, rule, &INPUT_LAYOUT, field)
        };
        match (status, offset) {
            // W5.2 steps 2-3: no offset; the first field that is missing, null or not 1.
            (Status::InputWire, None) => field(c"W5.2"),
            (Status::InputWire, _) => json_diagnostic(status, offset, wire, &INPUT_LAYOUT, c"W5.2", false),
            (Status::InputTranscript, None) => field_diagnostic(status, c"W5.2", &INPUT_LAYOUT, "transcript"),
            (Status::InputTranscript, Some(_)) => {
                let d = json_diagnostic(status, offset, wire, &INPUT_LAYOUT, c"T5.1", false);
                // A layout error inside the transcript: the T5 rule of where it is.
                match d.rule() {
                    "J5.8" | "J5.6" => {
                        let rule = transcript_rule(d.location());
                        let expected = match rule.to_bytes() {
                            b"T5.5" if d.location().ends_with(']') => c"a block of a known type with exactly its keys",
                            b"T5.2" if d.location().ends_with(']') => c"a message with exactly its role's keys",
                            _ => d.expected_c(),
                        };
                        d.with_rule(rule).with_expected(expected)
                    }
                    _ => d,
                }
            }
            // Steps 6-7 report the event id's offset for both rules: which field, from the values.
            (Status::InputBasis, _) => {
                let d = field(c"W5.3");
                match offset {
                    Some(at) => d.at_offset_in(at, wire),
                    None => d,
                }
            }
            (Status::InputMaxSummaryTokens, _) => {
                field_diagnostic(status, c"W5.2", &INPUT_LAYOUT, "max_summary_tokens")
            }
            _ => json_diagnostic(status, offset, wire, &INPUT_LAYOUT, c"W5.2", true),
        }
    }

    /// Diagnoses one summariser reply against this input (SPEC C13.4): the status
    /// [`CompactionInput::validate_output`] gives, where, and for limits the limit and the value.
    /// A failure of the summary itself is at `summary`, its offset counting bytes of the decoded
    /// summary text.
    #[must_use]
    pub fn diagnose_output(&self, output: &[u8], output_tokens: u64, max_output_bytes: u64) -> Diagnostic {
        output::diagnose(self, output, output_tokens, max_output_bytes)
    }

    /// Validates one summariser reply against this input (O6.2) and returns the decoded summary
    /// text, the exact text of the replacement user message (O6.4).
    ///
    /// `output_tokens` is the usage the provider reported (0: none); `max_output_bytes` the byte
    /// limit of the reply (0 rejects everything).
    pub fn validate_output<'o>(
        &self,
        output: &'o [u8],
        output_tokens: u64,
        max_output_bytes: u64,
    ) -> Result<Summary<'o>> {
        output::validate(self, output, output_tokens, max_output_bytes)
    }
}
