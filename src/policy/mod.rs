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

use crate::diagnostic::{Diagnostic, field_diagnostic, json_diagnostic};
use crate::error::{Error, Result};
use crate::json::{DocumentLayout, Fields as _, JResult, JsonError, Parser};
use crate::status::Status;

/// The layouts of the policy documents (P8.2, P8.6, P8.7), for their diagnoses (C13.4).
pub(crate) static COMPACTION_LAYOUT: DocumentLayout = DocumentLayout::new(compaction::Field::RULES);
pub(crate) static OBSERVATION_LAYOUT: DocumentLayout = DocumentLayout::new(observation::Field::RULES);
pub(crate) static CONTEXT_LAYOUT: DocumentLayout = DocumentLayout::new(context::Field::RULES);

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
    let mut p = Parser::new_utf8_checked(json);
    let value = read(&mut p).and_then(|value| {
        let value = value.ok_or_else(|| JsonError::invalid(p.token_start()))?;
        p.finish()?;
        Ok(value)
    });
    value.map_err(|e| Error::at(wire, e.offset))
}

/// C13.4 for a policy-like document whose decoding or validation gave `result`: a JSON error
/// located in `json`, or a field rule at the field its status names (the reason strings of 301–308
/// and 321–323 are the field names), under `prefix` when the policy is nested in a configuration.
fn diagnose_policy(
    json: &[u8],
    layout: &DocumentLayout,
    result: Result<()>,
    rule: &'static core::ffi::CStr,
    prefix: Option<&'static str>,
) -> Diagnostic {
    let Err(error) = result else {
        return Diagnostic::ok();
    };
    let status = error.status();
    if matches!(status, Status::PolicyWire | Status::ObservationWire | Status::ContextWire) {
        return json_diagnostic(status, error.offset(), json, layout, c"P8.1", false);
    }
    let rule = if status == Status::PolicyHustle { c"P8.5" } else { rule };
    match prefix {
        Some(prefix) => field_diagnostic(status, rule, layout, &format!("{prefix}.{}", status.reason())),
        None => field_diagnostic(status, rule, layout, status.reason()),
    }
}

impl CompactionPolicy {
    /// Diagnoses a compaction policy document (SPEC C13.4): the status of
    /// [`CompactionPolicy::from_json`] then [`CompactionPolicy::validate`], with the location of
    /// the field (`CompactAt`) or of a JSON error, and the rule.
    #[must_use]
    pub fn diagnose(json: &[u8], counter_quality: i32) -> Diagnostic {
        // The plain call's own path: `Hustle` is read in place, never copied.
        diagnose_policy(json, &COMPACTION_LAYOUT, CompactionPolicy::validate_json(json, counter_quality), c"P8.3", None)
    }
}

impl ContextObservationPolicy {
    /// Diagnoses a context observation policy document (SPEC C13.4), as
    /// [`CompactionPolicy::diagnose`] does.
    #[must_use]
    pub fn diagnose(json: &[u8], counter_quality: i32) -> Diagnostic {
        let result = ContextObservationPolicy::from_json(json).and_then(|p| p.validate(counter_quality));
        diagnose_policy(json, &OBSERVATION_LAYOUT, result, c"P8.6", None)
    }
}

impl ContextConfig {
    /// Diagnoses a context configuration document (SPEC C13.4): the option or capability that
    /// fails (`CounterCapability`), or the nested policy's field (`Compaction.RearmBelow`).
    #[must_use]
    pub fn diagnose(json: &[u8]) -> Diagnostic {
        // The plain call's own path: the strings are read in place, never copied.
        let Err(error) = ContextConfig::validate_json(json) else {
            return Diagnostic::ok();
        };
        let status = error.status();
        let code = status.code();
        let (path, rule): (&str, &'static core::ffi::CStr) = match status {
            _ if (301..=308).contains(&code) => {
                return diagnose_policy(json, &CONTEXT_LAYOUT, Err(error), c"P8.3", Some("Compaction"));
            }
            _ if (321..=323).contains(&code) => {
                return diagnose_policy(json, &CONTEXT_LAYOUT, Err(error), c"P8.6", Some("ContextObservation"));
            }
            Status::ContextWire => {
                return json_diagnostic(status, error.offset(), json, &CONTEXT_LAYOUT, c"P8.1", false);
            }
            Status::ContextMissingCounter | Status::ContextInvalidCounter => {
                ("CounterCapability", if status == Status::ContextInvalidCounter { c"P8.9" } else { c"P8.8" })
            }
            Status::ContextMissingInferenceCapability => ("InferenceCapability", c"P8.8"),
            Status::ContextInvalidInferenceCapability => ("InferenceCapability", c"P8.10"),
            Status::ContextIncompatibleCounter => ("CounterCapability", c"P8.11"),
            _ => ("", c"P8.8"),
        };
        field_diagnostic(status, rule, &CONTEXT_LAYOUT, path)
    }
}
