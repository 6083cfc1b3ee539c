//! The context observation policy (SPEC P8.6): measure occupancy without ever compacting.

use super::{decode_document, is_heuristic};
use crate::error::Result;
use crate::json::{JResult, Parser};
use crate::status::Status;

/// A context observation policy (P8.6): the loop measures its context but never compacts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContextObservationPolicy {
    /// `ReservedOutput`: tokens reserved for the model's output.
    pub reserved_output: u64,
    /// `SafetyMargin`: tokens kept free on top of the reservation.
    pub safety_margin: u64,
    /// `CountTimeout`: the token counter's timeout in nanoseconds.
    pub count_timeout_ns: i64,
}

crate::json::layout! {
    /// The keys of P8.6, in the order of the fields above.
    pub(super) enum Field {
        ReservedOutput = "ReservedOutput": NonZeroUnsigned,
        SafetyMargin = "SafetyMargin": SafetyMargin,
        CountTimeout = "CountTimeout": Nanoseconds,
    }
}

impl ContextObservationPolicy {
    /// Checks the policy for a token counter of quality `counter_quality` (A3.5: only 3 is
    /// heuristic), in the order of P8.6; the first failure is returned.
    ///
    /// # Errors
    /// `ObservationReservedOutput`, `ObservationCountTimeout`, `ObservationSafetyMargin`.
    pub fn validate(&self, counter_quality: i32) -> Result<()> {
        if self.reserved_output == 0 {
            return Err(Status::ObservationReservedOutput.into());
        }
        if self.count_timeout_ns <= 0 {
            return Err(Status::ObservationCountTimeout.into());
        }
        if is_heuristic(counter_quality) && self.safety_margin == 0 {
            return Err(Status::ObservationSafetyMargin.into());
        }
        Ok(())
    }

    /// Decodes the observation policy document (P8.1, P8.6). Only the encoding is checked:
    /// call [`ContextObservationPolicy::validate`] next.
    ///
    /// # Errors
    /// `ObservationWire` (with the byte offset) for any JSON error (J5), a missing, unknown or
    /// repeated key, a value of the wrong type or range, or a document that is `null`.
    pub fn from_json(json: &[u8]) -> Result<ContextObservationPolicy> {
        decode_document(json, Status::ObservationWire, read)
    }
}

/// Reads an observation policy object or `null`; every key required (P8.1, D6).
pub(super) fn read(p: &mut Parser<'_>) -> JResult<Option<ContextObservationPolicy>> {
    let mut o = ContextObservationPolicy::default();
    let seen = p.fields_or_null(|p, field| {
        match field {
            Field::ReservedOutput => o.reserved_output = p.u64()?,
            Field::SafetyMargin => o.safety_margin = p.u64()?,
            Field::CountTimeout => o.count_timeout_ns = p.i64()?,
        }
        Ok(())
    })?;
    match seen {
        None => Ok(None),
        Some(seen) => seen.require_all(p).map(|()| Some(o)),
    }
}
