//! Compaction policy, observation policy and context config (SPEC §8).
//!
//! Each document has a typed form with a `validate` method that applies the spec's check order
//! ([`CompactionPolicy`]: P8.3–P8.5, [`ContextObservationPolicy`]: P8.6, [`ContextConfig`]: P8.8),
//! and a `from_json` decoder that reads the reference's own encoding (P8.1: every key required,
//! `null` only where the layout allows it, unknown keys rejected, D6) into that form. Any JSON
//! problem anywhere in a document is the document's `wire` status (300, 320, 340); the decoders
//! never look at values, so a malformed document never reaches `validate`.

pub mod capability;
mod compaction;
mod context;
mod observation;

pub use compaction::{CompactionPolicy, counter_policy};
pub use context::ContextConfig;
pub use observation::ContextObservationPolicy;

use crate::error::{Error, Result};
use crate::json::{JResult, JsonError, Parser};
use crate::status::Status;

/// A3.5: a `counter_quality` argument is heuristic only when it is exactly 3; every value other
/// than 0–3 means unknown, without truncation (259 is unknown, not 3).
fn is_heuristic(counter_quality: i32) -> bool {
    counter_quality == i32::from(capability::quality::HEURISTIC)
}

/// Decodes a whole document whose top level must be an object (a top-level `null` is the D6
/// "whole document null" case): `read` pulls the value, then nothing but whitespace may follow.
/// Every JSON error becomes `wire` with its offset.
fn decode_document<T>(
    json: &[u8],
    wire: Status,
    read: impl FnOnce(&mut Parser<'_>) -> JResult<Option<T>>,
) -> Result<T> {
    let mut p = Parser::new(json);
    let value = read(&mut p).and_then(|value| {
        let value = value.ok_or_else(|| JsonError::invalid(p.token_start()))?;
        p.finish()?;
        Ok(value)
    });
    value.map_err(|e| Error::at(wire, e.offset))
}
