//! The compaction input wire v1 (SPEC W5.1–W5.4): decoding in the exact order of W5.2.

use super::pairing::{Pairing, Pairs};
use super::transcript::{self, Transcript, ValidateOnly};
use crate::error::{Error, Result};
use crate::json::{ErrorKind, Event, JResult, JsonError, KeyFrames, Layout, Parser, StringSpan, StringToken, layout};
use crate::status::Status;

/// The decoded document: identity, budget and transcript, as spans of the wire bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Document {
    pub(crate) revision: u64,
    /// W5.3 canonical UUID (ASCII).
    pub(crate) through_event_id: [u8; 36],
    /// Bodies of the `provider` and `model` string tokens.
    pub(crate) provider: StringSpan,
    pub(crate) model: StringSpan,
    /// 64 lower-case hex characters.
    pub(crate) request_fingerprint: [u8; 64],
    pub(crate) transcript: Transcript,
    pub(crate) max_summary_tokens: u64,
    /// S14.3, found by the walk that parsed the document (`Ok(vec![])` when validating only).
    pub(crate) pairing: Pairs,
}

/// Declares a wire's layout: the identity keys both wires start with (W5.1, O6.1), declared here
/// once, then the wire's own keys.
macro_rules! wire_layout {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($own:tt)* }) => {
        $crate::json::layout! {
            $(#[$meta])*
            $vis enum $name {
                Version = "version": VersionOne,
                Basis = "basis": Object { $crate::wire::input::BasisField },
                Model = "model": Object { $crate::wire::input::ModelField },
                RequestFingerprint = "request_fingerprint": Hex64,
                $($own)*
            }
        }
    };
}
pub(crate) use wire_layout;

wire_layout! {
    /// The identity keys alone.
    pub(crate) enum IdentityField {}
}

wire_layout! {
    /// The keys of the input wire (W5.1).
    pub(crate) enum Top {
        Transcript = "transcript": Messages { super::transcript::MessageField },
        MaxSummaryTokens = "max_summary_tokens": Positive,
    }
}

layout! {
    /// The keys of `basis`.
    pub(crate) enum BasisField {
        Revision = "revision": Unsigned,
        ThroughEventId = "through_event_id": Uuid,
    }
}

layout! {
    /// The keys of `model` (W5.2 step 8: neither may be empty).
    pub(crate) enum ModelField {
        Provider = "provider": NonEmptyString,
        Model = "model": NonEmptyString,
    }
}

/// Identity fields as read (step 1), before the presence checks.
#[derive(Default)]
pub(crate) struct RawIdentity<'a> {
    pub(crate) version: Option<u8>,
    /// `Some(None)`: present and `null`.
    pub(crate) basis: Option<Option<()>>,
    pub(crate) model: Option<Option<()>>,
    pub(crate) revision: Option<u64>,
    /// Where the `revision` value starts (for the offset of a zero revision, W5.2 step 7).
    pub(crate) revision_at: usize,
    pub(crate) through_event_id: Option<StringToken<'a>>,
    pub(crate) provider: Option<StringToken<'a>>,
    pub(crate) model_name: Option<StringToken<'a>>,
    pub(crate) request_fingerprint: Option<StringToken<'a>>,
}

/// The identity of a complete document: version 1 and every field present and not `null`.
pub(crate) struct Identity<'a> {
    pub(crate) revision: u64,
    pub(crate) revision_at: usize,
    pub(crate) through_event_id: StringToken<'a>,
    pub(crate) provider: StringToken<'a>,
    pub(crate) model: StringToken<'a>,
    pub(crate) request_fingerprint: StringToken<'a>,
}

impl<'a> RawIdentity<'a> {
    /// Reads the value of one key of the identity both wires share: `version`, `basis`, `model`,
    /// `request_fingerprint` (W5.2 step 1, O6.2 step 4).
    pub(crate) fn read(&mut self, p: &mut Parser<'a>, field: IdentityField) -> JResult<()> {
        match field {
            IdentityField::Version => {
                self.version = match p.next()? {
                    Event::Null => None,
                    e => Some(p.unsigned_of(e, u64::from(u8::MAX))? as u8),
                }
            }
            IdentityField::Basis => {
                let seen = p.fields_or_null(|p, field| {
                    match field {
                        BasisField::Revision => {
                            self.revision = p.u64_or_null()?;
                            self.revision_at = p.token_start();
                        }
                        BasisField::ThroughEventId => self.through_event_id = p.str_or_null()?,
                    }
                    Ok(())
                })?;
                self.basis = Some(seen.map(|_| ()));
            }
            IdentityField::Model => {
                let seen = p.fields_or_null(|p, field| {
                    match field {
                        ModelField::Provider => self.provider = p.str_or_null()?,
                        ModelField::Model => self.model_name = p.str_or_null()?,
                    }
                    Ok(())
                })?;
                self.model = Some(seen.map(|_| ()));
            }
            IdentityField::RequestFingerprint => self.request_fingerprint = p.str_or_null()?,
        }
        Ok(())
    }

    /// W5.2 steps 2–3, O6.2 step 5: `version` is 1 and every identity field is present and not
    /// `null`.
    pub(crate) fn complete(&self) -> Option<Identity<'a>> {
        match *self {
            RawIdentity {
                version: Some(1),
                basis: Some(Some(())),
                model: Some(Some(())),
                revision: Some(revision),
                revision_at,
                through_event_id: Some(through_event_id),
                provider: Some(provider),
                model_name: Some(model),
                request_fingerprint: Some(request_fingerprint),
            } => Some(Identity { revision, revision_at, through_event_id, provider, model, request_fingerprint }),
            _ => None,
        }
    }
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

/// Decodes and validates the wire (W5.2, first failure wins). `keep`: the document is kept in a
/// handle, so the transcript's late facts are noted for its later walks (validation alone does not
/// need them).
pub(crate) fn decode(src: &[u8], keep: bool) -> Result<Document> {
    read_document::<false>(src, keep, &mut None)
}

/// The field of a failure without an offset, or of a basis failure (W5.2 steps 2–3 and 6–7), and
/// its rule, as [`failing_field`] finds it.
pub(crate) type FailingField = Option<(&'static str, &'static core::ffi::CStr)>;

/// [`decode`] for a diagnosis: a failure of steps 2–3 or 6–7 also names its field in `field`,
/// from what the one pass read (where [`failing_field`] reads the document again).
pub(crate) fn decode_noting_field(src: &[u8], field: &mut FailingField) -> Result<Document> {
    read_document::<true>(src, false, field)
}

/// [`decode`]; with `NOTE`, the failing field of steps 2–3 and 6–7 is written to `field`.
#[inline(always)]
fn read_document<const NOTE: bool>(src: &[u8], keep: bool, field: &mut FailingField) -> Result<Document> {
    let wire = |e: JsonError| Error::at(Status::InputWire, e.offset);
    let mut p = Parser::new_utf8_checked(src);
    let mut keys = KeyFrames::default();
    let mut id = RawIdentity::default();
    let mut max_summary_tokens: Option<Option<u64>> = None;
    // `Some(Ok(..))` decoded, `Some(Err(offset))` failed §5.3 (step 5), `None` absent.
    let mut transcript: Option<core::result::Result<Transcript, usize>> = None;
    let mut pairs: Pairs = Ok(Vec::new());

    // Step 1: one pass over the whole document; grammar errors anywhere and layout errors outside
    // the transcript value are `wire`. A transcript failure is remembered and the rest of its value
    // is still checked for grammar.
    let first = p.next().map_err(wire)?;
    p.read_fields(first, |p, field| {
        match field {
            Top::Version => id.read(p, IdentityField::Version)?,
            Top::Basis => id.read(p, IdentityField::Basis)?,
            Top::Model => id.read(p, IdentityField::Model)?,
            Top::RequestFingerprint => id.read(p, IdentityField::RequestFingerprint)?,
            Top::Transcript => {
                let depth = p.depth();
                let checked = if keep {
                    let mut pairing = Pairing::new(src);
                    let checked = transcript::check(p, &mut keys, true, &mut pairing);
                    pairs = pairing.finish();
                    checked
                } else {
                    transcript::check(p, &mut keys, false, &mut ValidateOnly)
                };
                transcript = Some(match checked {
                    Ok(t) => Ok(t),
                    Err(e) if e.kind == ErrorKind::Syntax => return Err(e),
                    Err(e) => {
                        p.skip_to_depth(depth + 1)?;
                        Err(e.offset)
                    }
                });
            }
            Top::MaxSummaryTokens => max_summary_tokens = Some(p.u64_or_null()?),
        }
        Ok(())
    })
    .map_err(wire)?;
    p.finish().map_err(wire)?;

    // Steps 2 and 3.
    let transcript_seen = transcript.is_some();
    let (Some(identity), Some(Some(max_summary_tokens)), Some(transcript)) =
        (id.complete(), max_summary_tokens, transcript)
    else {
        if NOTE {
            *field = first_missing(&id, transcript_seen, max_summary_tokens, None, false);
        }
        return Err(Error::new(Status::InputWire));
    };
    let Identity {
        revision,
        revision_at,
        through_event_id: event_id,
        provider,
        model,
        request_fingerprint: fingerprint,
    } = identity;
    // Step 4.
    let fingerprint_error = Error::at(Status::InputRequestFingerprint, fingerprint.span().start);
    let request_fingerprint = lower_hex_64(&fingerprint.decode().map_err(wire)?).ok_or(fingerprint_error)?;
    // Step 5.
    let transcript = transcript.map_err(|offset| Error::at(Status::InputTranscript, offset))?;
    // Steps 6 and 7.
    let basis_error = Error::at(Status::InputBasis, event_id.span().start);
    let Some(through_event_id) = canonical_uuid(&event_id.decode().map_err(wire)?) else {
        if NOTE {
            *field = Some(("basis.through_event_id", c"W5.3"));
        }
        return Err(basis_error);
    };
    if revision == 0 {
        if NOTE {
            *field = Some(("basis.revision", c"W5.2"));
        }
        return Err(Error::at(Status::InputBasis, revision_at));
    }
    if through_event_id.iter().all(|&b| b == b'0' || b == b'-') {
        if NOTE {
            *field = Some(("basis.through_event_id", c"W5.2"));
        }
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
    if transcript.messages == 0 {
        return Err(Error::new(Status::InputTranscript));
    }
    // Step 11.
    if max_summary_tokens == 0 {
        return Err(Error::new(Status::InputMaxSummaryTokens));
    }
    Ok(Document {
        revision,
        through_event_id,
        provider: provider.text(),
        model: model.text(),
        request_fingerprint,
        transcript,
        max_summary_tokens,
        pairing: pairs,
    })
}

/// W5.2 steps 2–3 (O6.2 step 5 for a `reply`): the first field that is missing, `null` or (for
/// `version`) not 1, with its rule; `None` when every one is there.
fn first_missing(
    id: &RawIdentity<'_>,
    transcript: bool,
    max_summary_tokens: Option<Option<u64>>,
    summary: Option<bool>,
    reply: bool,
) -> Option<(&'static str, &'static core::ffi::CStr)> {
    let rule = if reply { c"O6.2" } else { c"W5.2" };
    let first = [
        (id.version != Some(1), "version"),
        (id.basis != Some(Some(())), "basis"),
        (id.model != Some(Some(())), "model"),
        (id.request_fingerprint.is_none(), "request_fingerprint"),
        (!reply && !transcript, "transcript"),
        (!reply && max_summary_tokens.flatten().is_none(), "max_summary_tokens"),
        (reply && summary != Some(true), "summary"),
        (id.revision.is_none(), "basis.revision"),
        (id.through_event_id.is_none(), "basis.through_event_id"),
        (id.provider.is_none(), "model.provider"),
        (id.model_name.is_none(), "model.model"),
    ];
    first.into_iter().find(|(failed, _)| *failed).map(|(_, field)| (field, rule))
}

/// For a diagnosis of a whole-document failure (W5.2 steps 2–3, 6–7; O6.2 steps 5–7; they have no
/// offset, or the offset of the event id for both of its rules): the first field that fails, as a
/// location, with its rule. `reply` reads the output wire's keys (`summary`) instead of the input's
/// (`transcript`, `max_summary_tokens`). `None` when the document does not read (it failed earlier).
pub(crate) fn failing_field(src: &[u8], reply: bool) -> Option<(&'static str, &'static core::ffi::CStr)> {
    let mut p = Parser::new(src);
    let mut keys = KeyFrames::default();
    let mut id = RawIdentity::default();
    let (mut transcript, mut max_summary_tokens, mut summary) = (false, None, None);
    if p.next().ok()? != Event::ObjectStart {
        return None;
    }
    loop {
        match p.next().ok()? {
            Event::ObjectEnd => break,
            Event::Key(key) => {
                let key = key.decode().ok()?;
                let field = match (IdentityField::named(key.as_bytes()), &*key) {
                    (Some(field), _) => Some(field),
                    (None, "transcript") if !reply => {
                        transcript = true;
                        None
                    }
                    (None, "max_summary_tokens") if !reply => {
                        max_summary_tokens = Some(p.u64_or_null().ok()?);
                        continue;
                    }
                    (None, "summary") if reply => {
                        summary = Some(p.next().ok()? != Event::Null);
                        continue;
                    }
                    _ => None,
                };
                match field {
                    Some(field) => id.read(&mut p, field).ok()?,
                    None => {
                        p.raw(&mut keys).ok()?;
                    }
                }
            }
            _ => return None,
        }
    }
    if let Some(first) = first_missing(&id, transcript, max_summary_tokens, summary, reply) {
        return Some(first);
    }
    let (w52, rule) = (c"W5.2", if reply { c"O6.2" } else { c"W5.2" });
    // Steps 6–7 (input) and 6–7 (reply): the event id's form, a zero revision or id, the fingerprint.
    let event_id = id.through_event_id.and_then(|t| t.decode().ok()).and_then(|t| canonical_uuid(&t));
    let fingerprint = id.request_fingerprint.and_then(|t| t.decode().ok()).and_then(|t| lower_hex_64(&t));
    match (event_id, id.revision) {
        (None, _) => Some(("basis.through_event_id", c"W5.3")),
        (Some(_), Some(0)) if !reply => Some(("basis.revision", w52)),
        (Some(e), _) if !reply && e.iter().all(|&b| b == b'0' || b == b'-') => Some(("basis.through_event_id", w52)),
        _ if fingerprint.is_none() => Some(("request_fingerprint", rule)),
        _ => None,
    }
}
