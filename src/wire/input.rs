//! The compaction input wire v1 (SPEC W5.1–W5.4): decoding in the exact order of W5.2.

use super::transcript::{self, Message};
use crate::error::{Error, Result};
use crate::json::{ErrorKind, JsonError, KeyFrames, Parser, Span};
use crate::status::Status;

/// The decoded document: identity, budget and transcript, as spans of the wire bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Document {
    pub(crate) revision: u64,
    /// W5.3 canonical UUID (ASCII).
    pub(crate) through_event_id: [u8; 36],
    /// Bodies of the `provider` and `model` string tokens.
    pub(crate) provider: Span,
    pub(crate) model: Span,
    /// 64 lower-case hex characters.
    pub(crate) request_fingerprint: [u8; 64],
    pub(crate) transcript: Vec<Message>,
    pub(crate) max_summary_tokens: u64,
}

const TOP_FIELDS: &[&str] = &["version", "basis", "model", "request_fingerprint", "transcript", "max_summary_tokens"];
const BASIS_FIELDS: &[&str] = &["revision", "through_event_id"];
const MODEL_FIELDS: &[&str] = &["provider", "model"];

/// Identity fields as read (step 1), before the presence checks.
#[derive(Default)]
pub(crate) struct RawIdentity<'a> {
    pub(crate) version: Option<u8>,
    /// `Some(None)`: present and `null`.
    pub(crate) basis: Option<Option<()>>,
    pub(crate) model: Option<Option<()>>,
    pub(crate) revision: Option<u64>,
    pub(crate) through_event_id: Option<crate::json::JStr<'a>>,
    pub(crate) provider: Option<crate::json::JStr<'a>>,
    pub(crate) model_name: Option<crate::json::JStr<'a>>,
    pub(crate) request_fingerprint: Option<crate::json::JStr<'a>>,
}

/// Reads a `basis` value (object or `null`) into `id`.
pub(crate) fn read_basis<'a>(p: &mut Parser<'a>, id: &mut RawIdentity<'a>) -> crate::json::JResult<()> {
    let seen = p.object_or_null(BASIS_FIELDS, |p, i| {
        if i == 0 {
            id.revision = p.u64_or_null()?;
        } else {
            id.through_event_id = p.str_or_null()?;
        }
        Ok(())
    })?;
    id.basis = Some(seen.map(|_| ()));
    Ok(())
}

/// Reads a `model` value (object or `null`) into `id`.
pub(crate) fn read_model<'a>(p: &mut Parser<'a>, id: &mut RawIdentity<'a>) -> crate::json::JResult<()> {
    let seen = p.object_or_null(MODEL_FIELDS, |p, i| {
        if i == 0 {
            id.provider = p.str_or_null()?;
        } else {
            id.model_name = p.str_or_null()?;
        }
        Ok(())
    })?;
    id.model = Some(seen.map(|_| ()));
    Ok(())
}

/// W5.3: exactly 36 bytes, `-` at 8, 13, 18, 23, lower-case hex elsewhere.
pub(crate) fn canonical_uuid(text: &str) -> Option<[u8; 36]> {
    let bytes: [u8; 36] = text.as_bytes().try_into().ok()?;
    let ok = bytes.iter().enumerate().all(|(i, &b)| match i {
        8 | 13 | 18 | 23 => b == b'-',
        _ => matches!(b, b'0'..=b'9' | b'a'..=b'f'),
    });
    ok.then_some(bytes)
}

/// Exactly 64 characters from `0123456789abcdef`.
pub(crate) fn lower_hex_64(text: &str) -> Option<[u8; 64]> {
    let bytes: [u8; 64] = text.as_bytes().try_into().ok()?;
    bytes.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')).then_some(bytes)
}

/// Decodes and validates the wire (W5.2, first failure wins).
pub(crate) fn decode(src: &[u8]) -> Result<Document> {
    let wire = |e: JsonError| Error::at(Status::InputWire, e.offset);
    let mut p = Parser::new(src);
    let mut keys = KeyFrames::default();
    let mut id = RawIdentity::default();
    let mut max_summary_tokens: Option<Option<u64>> = None;
    // `Some(Ok(..))` decoded, `Some(Err(offset))` failed §5.3 (step 5), `None` absent.
    let mut transcript: Option<core::result::Result<Vec<Message>, usize>> = None;

    // Step 1: one pass over the whole document; grammar errors anywhere and layout errors outside
    // the transcript value are `wire`. A transcript failure is remembered and the rest of its value
    // is still checked for grammar.
    let first = p.next().map_err(wire)?;
    let seen = p
        .read_object(first, TOP_FIELDS, |p, i| {
            match i {
                0 => {
                    id.version = match p.next()? {
                        crate::json::Event::Null => None,
                        e => Some(p.unsigned_of(e, u64::from(u8::MAX))? as u8),
                    }
                }
                1 => read_basis(p, &mut id)?,
                2 => read_model(p, &mut id)?,
                3 => id.request_fingerprint = p.str_or_null()?,
                4 => {
                    let depth = p.depth();
                    transcript = Some(match transcript::decode(p, &mut keys) {
                        Ok(messages) => Ok(messages),
                        Err(e) if e.kind == ErrorKind::Syntax => return Err(e),
                        Err(e) => {
                            p.skip_to_depth(depth + 1)?;
                            Err(e.offset)
                        }
                    });
                }
                _ => max_summary_tokens = Some(p.u64_or_null()?),
            }
            Ok(())
        })
        .map_err(wire)?;
    p.finish().map_err(wire)?;
    let _ = seen;

    // Step 2.
    let whole = Error::new(Status::InputWire);
    if id.version != Some(1) {
        return Err(whole);
    }
    let (Some(Some(())), Some(Some(())), Some(fingerprint), Some(Some(max_summary_tokens)), Some(transcript)) =
        (id.basis, id.model, id.request_fingerprint, max_summary_tokens, transcript)
    else {
        return Err(whole);
    };
    // Step 3.
    let (Some(revision), Some(event_id), Some(provider), Some(model)) =
        (id.revision, id.through_event_id, id.provider, id.model_name)
    else {
        return Err(whole);
    };
    // Step 4.
    let fingerprint_error = Error::at(Status::InputRequestFingerprint, fingerprint.span().start);
    let request_fingerprint = lower_hex_64(&fingerprint.decode().map_err(wire)?).ok_or(fingerprint_error)?;
    // Step 5.
    let transcript = transcript.map_err(|offset| Error::at(Status::InputTranscript, offset))?;
    // Steps 6 and 7.
    let basis_error = Error::at(Status::InputBasis, event_id.span().start);
    let through_event_id = canonical_uuid(&event_id.decode().map_err(wire)?).ok_or(basis_error)?;
    if revision == 0 || through_event_id.iter().all(|&b| b == b'0' || b == b'-') {
        return Err(basis_error);
    }
    // Step 8.
    if provider.is_empty() {
        return Err(Error::at(Status::InputModel, provider.span().start));
    }
    if model.is_empty() {
        return Err(Error::at(Status::InputModel, model.span().start));
    }
    // Step 9.
    if request_fingerprint.iter().all(|&b| b == b'0') {
        return Err(fingerprint_error);
    }
    // Step 10.
    if transcript.is_empty() {
        return Err(Error::new(Status::InputTranscript));
    }
    // Step 11.
    if max_summary_tokens == 0 {
        return Err(Error::new(Status::InputMaxSummaryTokens));
    }
    Ok(Document {
        revision,
        through_event_id,
        provider: provider.span(),
        model: model.span(),
        request_fingerprint,
        transcript,
        max_summary_tokens,
    })
}
