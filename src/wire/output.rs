//! Output validation (SPEC §6): one summariser reply checked against the input it was made for.

use super::Summary;

use super::CompactionInput;
use super::input::{Identity, IdentityField, RawIdentity, canonical_uuid, lower_hex_64};
use crate::error::{Error, Result};
use crate::json::{DeferredUtf8, Event, JStr, JsonError, Parser};
use crate::status::Status;

crate::json::layout! {
    /// The keys of the output wire (O6.1).
    enum Top {
        Version = "version",
        Basis = "basis",
        Model = "model",
        RequestFingerprint = "request_fingerprint",
        Summary = "summary",
    }
}

/// O6.2, first failure wins; on success the decoded summary text (O6.4).
pub(crate) fn validate<'o>(
    input: &CompactionInput,
    output: &'o [u8],
    output_tokens: u64,
    max_output_bytes: u64,
) -> Result<Summary<'o>> {
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
    // Step 4: J5.1–J5.8 with the output layout; every failure is `wire`.
    let wire = |e: JsonError| Error::at(Status::SummaryWire, e.offset);
    let mut p = Parser::new(output);
    let mut id = RawIdentity::default();
    let mut summary: Option<DeferredUtf8<'o>> = None;
    let first = p.next().map_err(wire)?;
    p.read_fields(first, |p, field| {
        match field {
            Top::Version => id.read(p, IdentityField::Version)?,
            Top::Basis => id.read(p, IdentityField::Basis)?,
            Top::Model => id.read(p, IdentityField::Model)?,
            Top::RequestFingerprint => id.read(p, IdentityField::RequestFingerprint)?,
            // The summary's UTF-8 (J5.3, still step 4) is checked lazily, see below.
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
    let Identity { revision, through_event_id: event_id, provider, model, request_fingerprint: fingerprint } = identity;
    // Steps 6 and 7.
    let event_id = canonical_uuid(&event_id.decode().map_err(wire)?).ok_or(whole)?;
    let fingerprint = lower_hex_64(&fingerprint.decode().map_err(wire)?).ok_or(whole)?;
    // Step 8: exact equality with the input's identity.
    let doc = &input.doc;
    let src = &input.src;
    let same_text = |ours: crate::json::Text, theirs: JStr<'_>| -> bool {
        matches!((ours.token(src).decode(), theirs.decode()), (Ok(a), Ok(b)) if a == b)
    };
    if revision != doc.revision
        || event_id != doc.through_event_id
        || !same_text(doc.provider, provider)
        || !same_text(doc.model, model)
        || fingerprint != doc.request_fingerprint
    {
        summary.check_utf8().map_err(wire)?;
        return Err(Error::new(Status::SummaryIdentity));
    }
    // Step 9. The summary token's UTF-8 check belongs to step 4, but it only matters when something
    // fails: the grammar rejects invalid UTF-8 itself (X4.8), and a rejected summary is checked
    // again so that step 4's `wire` wins (see `DeferredUtf8`).
    let text = summary.decode_checked(crate::summary::validate, wire)?;
    Ok(Summary { bytes: text })
}
