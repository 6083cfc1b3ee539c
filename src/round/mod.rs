//! A compaction round from the model's own reply (SPEC §15): the bare reply checked against the
//! input it was made for ([`reply`]), what the summariser is given and what replaces the history
//! once a summary is accepted ([`replacement`]).
//!
//! A host's round, in the calls it makes:
//!
//! ```
//! use loopcompact::round::{ReplyOptions, Stop};
//! use loopcompact::wire::CompactionInput;
//!
//! let wire = br#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},
//!   "model":{"provider":"p","model":"m"},
//!   "request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
//!   "transcript":[{"role":"system","blocks":[{"type":"text","text":"be brief"}]},
//!                 {"role":"user","blocks":[{"type":"text","text":"hello"}]},
//!                 {"role":"assistant","blocks":[{"type":"text","text":"hi"}]},
//!                 {"role":"user","blocks":[{"type":"text","text":"ship it"}]}],
//!   "max_summary_tokens":512}"#;
//! let input = CompactionInput::parse(wire)?;
//! let cut = input.safe_cut(1)? as u64; // keep the last message
//! let request = input.encode_head_within(cut, 64_000)?; // what the summariser reads
//! # assert!(request.starts_with(b"{\"version\":1"));
//! let reply = "```xml\n<conversation_summary><goal>greet</goal><constraints/><decisions/>\
//!              <state>said hello</state><open_items/></conversation_summary>\n```\n";
//! let options = ReplyOptions { trim: true, unfence: true, stop: Stop::End, ..ReplyOptions::new(40, 8192) };
//! let accepted = input.validate_reply(reply.as_bytes(), &options)?;
//! assert!(accepted.removed().unfenced);
//! let replacement = input.build_replacement(cut, accepted.summary().as_bytes())?;
//! input.verify_replacement(cut, &replacement)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod replacement;
pub mod reply;

pub use replacement::HeadError;
pub(crate) use reply::removed_from_valid;
pub use reply::{REPLY_FLAGS, REPLY_TRIM, REPLY_UNFENCE, ReplyOptions, SMALLEST_SUMMARY, Stop, ValidReply};

use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::wire::{CompactionInput, Fitted};

impl CompactionInput {
    /// Validates the summariser's reply as it arrived, the bare XML text with no JSON envelope
    /// (SPEC R15.1–R15.7), and returns the summary: the exact text of the replacement user message.
    ///
    /// # Errors
    /// `ReplyByteLimitUnreachable` (a limit below [`SMALLEST_SUMMARY`]), `SummaryByteLimit`,
    /// `SummaryTokenUsage`, `SummaryTokenLimit`, `SummaryWire` (bytes that are not UTF-8),
    /// `SummaryXml*` (the grammar of §4), `ReplyTruncated` (a reply cut at the output limit that
    /// is not a valid summary); offsets count bytes of the reply as it arrived.
    pub fn validate_reply<'r>(&self, reply: &'r [u8], options: &ReplyOptions) -> Result<ValidReply<'r>> {
        reply::validate(self, reply, options)
    }

    /// [`CompactionInput::validate_reply`]'s diagnosis (SPEC R15.7): the same status, with where
    /// and what (offsets, lines and columns of the reply as it arrived, `location` `summary` for
    /// the text's own failure) and what cleanup removed ([`Diagnostic::removed`], also on success).
    #[must_use]
    pub fn diagnose_reply(&self, reply: &[u8], options: &ReplyOptions) -> Diagnostic {
        reply::diagnose(self, reply, options)
    }

    /// What the summariser is given for a cut (SPEC R15.8): the input with messages `[0, cut)` as
    /// its transcript, fitted under `max_bytes` as §7 fits a whole input. Nothing is written yet.
    ///
    /// # Errors
    /// [`HeadError::InvalidCut`] for a cut above the message count, [`HeadError::EmptyHead`] when
    /// no message or only leading system messages come before the cut,
    /// [`HeadError::TooLarge`] when nothing fits.
    pub fn fit_head(&self, cut: u64, max_bytes: u64) -> core::result::Result<Fitted<'_>, HeadError> {
        replacement::fit_head(self, cut, max_bytes)
    }

    /// [`CompactionInput::fit_head`]'s bytes, the exact request to send to the summariser.
    ///
    /// # Errors
    /// As [`CompactionInput::fit_head`].
    pub fn encode_head_within(&self, cut: u64, max_bytes: u64) -> core::result::Result<Vec<u8>, HeadError> {
        self.fit_head(cut, max_bytes).map(|fitted| fitted.to_vec())
    }

    /// The transcript that replaces the history (SPEC R15.9, R15.10), as canonical wire JSON (an
    /// array of messages): the leading system messages, one user message whose first block is a
    /// text block holding `summary`, then messages `[cut, n)` unchanged. A kept tail that starts
    /// with a user message is merged into the summary message (its blocks follow the summary
    /// block), so two user messages never meet.
    ///
    /// # Errors
    /// `InvalidArgument` (a cut above the message count), `ReplacementEmptyHead`, the pairing
    /// status or `CutUnsafe` (S14.4), `ReplacementSummary` (a summary that does not validate).
    pub fn build_replacement(&self, cut: u64, summary: &[u8]) -> Result<Vec<u8>> {
        replacement::build(self, cut, summary)
    }

    /// The length of [`CompactionInput::build_replacement`]'s bytes, counted without building them.
    ///
    /// # Errors
    /// As [`CompactionInput::build_replacement`].
    pub fn replacement_len(&self, cut: u64, summary: &[u8]) -> Result<usize> {
        replacement::build_len(self, cut, summary)
    }

    /// Checks a transcript the host rebuilt itself against the rule of
    /// [`CompactionInput::build_replacement`] (SPEC R15.11).
    ///
    /// # Errors
    /// The first failure: the cut's own (as for a build), `ReplacementWire`,
    /// `ReplacementPrefixChanged`, `ReplacementSummary`, `ReplacementAdjacentUser`,
    /// `ReplacementTailChanged`. [`CompactionInput::diagnose_replacement`] says where.
    pub fn verify_replacement(&self, cut: u64, rebuilt: &[u8]) -> Result<()> {
        let d = replacement::verify(self, cut, rebuilt);
        match d.status() {
            crate::Status::Ok => Ok(()),
            status => Err(match d.offset() {
                Some(at) => Error::at(status, at),
                None => Error::new(status),
            }),
        }
    }

    /// [`CompactionInput::verify_replacement`]'s diagnosis: the first differing message and block
    /// as a location (`transcript[3].blocks[1]`), never their bytes.
    #[must_use]
    pub fn diagnose_replacement(&self, cut: u64, rebuilt: &[u8]) -> Diagnostic {
        replacement::verify(self, cut, rebuilt)
    }
}
