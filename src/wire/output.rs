//! Output validation (SPEC §6): one summariser reply checked against the input it was made for,
//! and its diagnosis (SPEC §13).

use super::Summary;

use super::CompactionInput;
use super::input::{IdentityField, RawIdentity, canonical_uuid, lower_hex_64};
use crate::diagnostic::{Diagnostic, Location, json_diagnostic};
use crate::error::{Error, Result};
use crate::json::{DeferredUtf8, Event, JsonError, Parser, StringToken};
use crate::status::{Status, StatusClass};

super::input::wire_layout! {
    /// The keys of the output wire (O6.1).
    pub(crate) enum Top {
        Summary = "summary": String,
    }
}

/// A reply that passed steps 4–7: its identity, where each identity value starts (for a
/// diagnosis of step 8), and the summary token (UTF-8 not yet checked).
struct Reply<'o> {
    revision: u64,
    revision_at: usize,
    through_event_id: [u8; 36],
    through_event_id_at: usize,
    provider: StringToken<'o>,
    model: StringToken<'o>,
    request_fingerprint: [u8; 64],
    request_fingerprint_at: usize,
    summary: DeferredUtf8<'o>,
}

/// O6.2 steps 4–7: the reply's JSON, layout and identity formats; every failure is `wire`.
fn read(output: &[u8]) -> Result<Reply<'_>> {
    let wire = |e: JsonError| Error::at(Status::SummaryWire, e.offset);
    let mut p = Parser::new(output);
    let mut id = RawIdentity::default();
    let mut summary = None;
    let first = p.next().map_err(wire)?;
    p.read_fields(first, |p, field| {
        match field {
            Top::Version => id.read(p, IdentityField::Version)?,
            Top::Basis => id.read(p, IdentityField::Basis)?,
            Top::Model => id.read(p, IdentityField::Model)?,
            Top::RequestFingerprint => id.read(p, IdentityField::RequestFingerprint)?,
            // The summary's UTF-8 (J5.3, still step 4) is checked lazily, see `validate`.
            Top::Summary => {
                summary = match p.next()? {
                    Event::Null => None,
                    Event::String(s) => Some(DeferredUtf8::new(s)),
                    _ => return Err(JsonError::invalid(p.token_start())),
                }
            }
        }
        Ok(())
    })
    .map_err(wire)?;
    p.finish().map_err(wire)?;

    // Step 5.
    let whole = Error::new(Status::SummaryWire);
    let (Some(identity), Some(summary)) = (id.complete(), summary) else {
        return Err(whole);
    };
    // Steps 6 and 7.
    let through_event_id = canonical_uuid(&identity.through_event_id.decode().map_err(wire)?).ok_or(whole)?;
    let request_fingerprint = lower_hex_64(&identity.request_fingerprint.decode().map_err(wire)?).ok_or(whole)?;
    Ok(Reply {
        revision: identity.revision,
        revision_at: identity.revision_at,
        through_event_id,
        through_event_id_at: identity.through_event_id.span().start,
        provider: identity.provider,
        model: identity.model,
        request_fingerprint,
        request_fingerprint_at: identity.request_fingerprint.span().start,
        summary,
    })
}

/// Step 8: the first identity field of the reply that differs from the input's, as a location,
/// and where its value starts in the reply (C13.4: inside the quotes of a string).
fn mismatch(input: &CompactionInput, reply: &Reply<'_>) -> Option<(&'static str, usize)> {
    let doc = &input.doc;
    let same_text = |ours: crate::json::StringSpan, theirs: StringToken<'_>| -> bool {
        matches!((ours.token(&input.src).decode(), theirs.decode()), (Ok(a), Ok(b)) if a == b)
    };
    if reply.revision != doc.revision {
        Some(("basis.revision", reply.revision_at))
    } else if reply.through_event_id != doc.through_event_id {
        Some(("basis.through_event_id", reply.through_event_id_at))
    } else if !same_text(doc.provider, reply.provider) {
        Some(("model.provider", reply.provider.span().start))
    } else if !same_text(doc.model, reply.model) {
        Some(("model.model", reply.model.span().start))
    } else if reply.request_fingerprint != doc.request_fingerprint {
        Some(("request_fingerprint", reply.request_fingerprint_at))
    } else {
        None
    }
}

/// O6.2 steps 1–3.
fn check_limits(input: &CompactionInput, output: &[u8], output_tokens: u64, max_output_bytes: u64) -> Result<()> {
    // Step 1: bytes, not characters.
    if max_output_bytes == 0 || output.len() as u64 > max_output_bytes {
        return Err(Error::new(Status::SummaryByteLimit));
    }
    // Steps 2 and 3.
    if output_tokens == 0 {
        return Err(Error::new(Status::SummaryTokenUsage));
    }
    if output_tokens > input.doc.max_summary_tokens {
        return Err(Error::new(Status::SummaryTokenLimit));
    }
    Ok(())
}

/// O6.2, first failure wins; on success the decoded summary text (O6.4).
pub(crate) fn validate<'o>(
    input: &CompactionInput,
    output: &'o [u8],
    output_tokens: u64,
    max_output_bytes: u64,
) -> Result<Summary<'o>> {
    check_limits(input, output, output_tokens, max_output_bytes)?;
    let reply = read(output)?;
    let wire = |e: JsonError| Error::at(Status::SummaryWire, e.offset);
    // Step 8: exact equality with the input's identity.
    if mismatch(input, &reply).is_some() {
        reply.summary.check_utf8().map_err(wire)?;
        return Err(Error::new(Status::SummaryIdentity));
    }
    // Step 9. The summary token's UTF-8 check belongs to step 4, but it only matters when something
    // fails: the grammar rejects invalid UTF-8 itself (X4.8), and a rejected summary is checked
    // again so that step 4's `wire` wins (see `DeferredUtf8`).
    let text = reply.summary.decode_checked(crate::summary::validate, wire)?;
    Ok(Summary { bytes: text })
}

/// C13.4 for a reply: what [`validate`] found, where, and (for limits) the limit and the value.
/// Offsets of a summary's own failure count bytes of the decoded summary text, at `summary`.
pub(crate) fn diagnose(
    input: &CompactionInput,
    output: &[u8],
    output_tokens: u64,
    max_output_bytes: u64,
) -> Diagnostic {
    let Err(error) = validate(input, output, output_tokens, max_output_bytes) else {
        return Diagnostic::ok();
    };
    let status = error.status();
    let plain = Diagnostic::new(status).with_rule(c"O6.2");
    match status {
        // R15.2: a limit below the shortest reply that can pass is the host's, not the summariser's.
        Status::SummaryByteLimit if max_output_bytes < smallest_envelope(input) => {
            plain.with_limit(max_output_bytes, output.len() as u64).with_class(StatusClass::Host)
        }
        Status::SummaryByteLimit => plain.with_limit(max_output_bytes, output.len() as u64),
        Status::SummaryTokenUsage => plain,
        Status::SummaryTokenLimit => plain.with_limit(input.doc.max_summary_tokens, output_tokens),
        // Steps 5-7 have no offset: the first field that is missing, null or malformed.
        Status::SummaryWire if error.offset().is_none() => {
            let (field, rule) = super::input::failing_field(output, true).unwrap_or(("", c"O6.2"));
            crate::diagnostic::field_diagnostic(status, rule, &super::OUTPUT_LAYOUT, field)
        }
        Status::SummaryWire => json_diagnostic(status, error.offset(), output, &super::OUTPUT_LAYOUT, c"O6.2", false),
        Status::SummaryIdentity => match read(output).ok().and_then(|reply| mismatch(input, &reply)) {
            Some((field, at)) => plain.at_offset_in(at, output).with_location(Location::path(field)),
            None => plain,
        },
        _ => {
            // Step 9: the summary's own diagnosis, over its decoded text.
            let text = read(output).ok().map(|reply| {
                reply.summary.decode_checked(|_| Ok::<(), Error>(()), |e| Error::at(Status::SummaryWire, e.offset))
            });
            match text {
                Some(Ok(text)) => crate::summary::diagnose(&text).with_location(Location::name("summary")),
                _ => plain,
            }
        }
    }
}

/// R15.2 for the envelope of O6.2: the length of the shortest reply document that can pass for
/// this input (its identity in the shortest JSON spelling around [`crate::summary::SMALLEST`]). A
/// byte limit below it can never be met, so a `byte_limit` failure under it is the host's.
pub(crate) fn smallest_envelope(input: &CompactionInput) -> u64 {
    const FIXED: &str = r#"{"version":1,"basis":{"revision":,"through_event_id":""},"model":{"provider":,"model":},"request_fingerprint":"","summary":""}"#;
    let digits = u64::from(input.revision().checked_ilog10().unwrap_or(0)) + 1;
    FIXED.len() as u64
        + digits
        + 36
        + shortest_json_string(&input.provider())
        + shortest_json_string(&input.model())
        + 64
        + crate::summary::SMALLEST.len() as u64
}

/// The length of the shortest JSON string token (quotes included) that decodes to `text`.
fn shortest_json_string(text: &str) -> u64 {
    2 + text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x0C | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1F => 6,
            _ => 1,
        })
        .sum::<u64>()
}
