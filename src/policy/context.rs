//! The context configuration (SPEC P8.7, P8.8): which context management a loop runs, with which
//! token counter, for which inference endpoint.

use super::capability::{self, CounterCapability, InferenceCapability};
use super::{CompactionPolicy, ContextObservationPolicy, compaction, decode_document, observation};
use crate::error::Result;

use crate::json::{JResult, Parser, StringSpan};
use crate::status::Status;

/// The context part of a loop definition (P8.7). `None` is an option that was not given (`null`
/// in the document).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContextConfig {
    /// `Compaction`: compact the transcript under this policy.
    pub compaction: Option<CompactionPolicy>,
    /// `ContextObservation`: only measure the context, under this policy.
    pub context_observation: Option<ContextObservationPolicy>,
    /// `CounterCapability`: the token counter.
    pub counter: Option<CounterCapability>,
    /// `InferenceCapability`: the inference endpoint the counter counts for.
    pub inference: Option<InferenceCapability>,
}

crate::json::layout! {
    /// The keys of P8.7, in the order of the fields above.
    pub(super) enum Field {
        Compaction = "Compaction": ObjectOrNull { super::compaction::Field },
        ContextObservation = "ContextObservation": ObjectOrNull { super::observation::Field },
        CounterCapability = "CounterCapability": Object { super::capability::CounterField },
        InferenceCapability = "InferenceCapability": Object { super::capability::InferenceField },
    }
}

impl ContextConfig {
    /// Checks the configuration in the order of P8.8: which options are present, then the
    /// capabilities (P8.9, P8.10), their compatibility (P8.11), then the policy with the counter's
    /// `Quality` as the counter quality. All four options absent is valid (no context management).
    ///
    /// # Errors
    /// `ContextConflictingPolicy`, `ContextMissingCounter`, `ContextMissingInferenceCapability`,
    /// `ContextMissingPolicy`, `ContextInvalidCounter`, `ContextInvalidInferenceCapability`,
    /// `ContextIncompatibleCounter`, or the nested policy's own status (301–308, 321–323).
    pub fn validate(&self) -> Result<()> {
        let counter_provider = self.counter.as_ref().map_or("", |c| c.provider.as_str());
        let inference_provider = self.inference.as_ref().map_or("", |c| c.provider.as_str());
        let strings = StringChecks {
            hustle_valid: compaction::is_valid_hustle(
                self.compaction.as_ref().map_or("", |c| c.hustle.as_str()).chars(),
            ),
            counter_provider_empty: counter_provider.is_empty(),
            tokenizer_rev_empty: self.counter.as_ref().is_none_or(|c| c.tokenizer_rev.is_empty()),
            inference_provider_empty: inference_provider.is_empty(),
            providers_equal: counter_provider == inference_provider,
        };
        self.validate_with(&strings)
    }

    /// Decodes and validates a context configuration (what `lc_context_config_validate` does) with
    /// its strings (the capabilities' providers and tokenizer revision, the policy's `Hustle`)
    /// checked where they are in the document: nothing of the document's size is built for them.
    ///
    /// # Errors
    /// As [`ContextConfig::from_json`], then as [`ContextConfig::validate`].
    pub fn validate_json(json: &[u8]) -> Result<()> {
        let mut spans = Spans::default();
        let config = decode_document(json, Status::ContextWire, |p| read_with(p, Some(&mut spans)))?;
        let [counter_provider, tokenizer_rev] = spans.counter;
        let strings = StringChecks {
            hustle_valid: compaction::is_valid_hustle(spans.hustle.chars(json)),
            counter_provider_empty: counter_provider.is_empty(),
            tokenizer_rev_empty: tokenizer_rev.is_empty(),
            inference_provider_empty: spans.inference.is_empty(),
            providers_equal: counter_provider.decodes_equal(spans.inference, json),
        };
        config.validate_with(&strings)
    }

    /// [`ContextConfig::validate`] with the strings as `strings` gives them.
    fn validate_with(&self, strings: &StringChecks) -> Result<()> {
        if self.compaction.is_some() && self.context_observation.is_some() {
            return Err(Status::ContextConflictingPolicy.into());
        }
        let Some(counter) = &self.counter else {
            if self.inference.is_some() || self.context_observation.is_some() || self.compaction.is_some() {
                return Err(Status::ContextMissingCounter.into());
            }
            return Ok(());
        };
        let Some(inference) = &self.inference else {
            return Err(Status::ContextMissingInferenceCapability.into());
        };
        if self.compaction.is_none() && self.context_observation.is_none() {
            return Err(Status::ContextMissingPolicy.into());
        }
        if !counter.is_valid_with(strings.counter_provider_empty, strings.tokenizer_rev_empty) {
            return Err(Status::ContextInvalidCounter.into());
        }
        if !inference.is_valid_with(strings.inference_provider_empty) {
            return Err(Status::ContextInvalidInferenceCapability.into());
        }
        if !counter.is_compatible_with_providers(inference, strings.counter_provider_empty, strings.providers_equal) {
            return Err(Status::ContextIncompatibleCounter.into());
        }
        let quality = i32::from(counter.quality);
        if let Some(policy) = &self.compaction {
            policy.validate_with(quality, strings.hustle_valid)?;
        }
        if let Some(policy) = &self.context_observation {
            policy.validate(quality)?;
        }
        Ok(())
    }

    /// Decodes the context configuration document (P8.1, P8.7). Only the encoding is checked:
    /// call [`ContextConfig::validate`] next.
    ///
    /// # Errors
    /// `ContextWire` (with the byte offset) for any JSON error (J5) anywhere in the document,
    /// nested policies and capabilities included: a missing, unknown or repeated key, a value of
    /// the wrong type or range, a `SecurityIdentity` that is not exactly 32 integers 0–255, or a
    /// document that is `null`.
    pub fn from_json(json: &[u8]) -> Result<ContextConfig> {
        decode_document(json, Status::ContextWire, read)
    }
}

/// Reads the context configuration object or `null`; every key required (P8.1, D6).
fn read(p: &mut Parser<'_>) -> JResult<Option<ContextConfig>> {
    read_with(p, None)
}

/// The strings of a context configuration that its C path keeps as spans.
#[derive(Default)]
struct Spans {
    hustle: StringSpan,
    /// The counter's `Provider` and `TokenizerRev`.
    counter: [StringSpan; 2],
    inference: StringSpan,
}

/// What validation asks of the strings, answered from the typed value or in place from the
/// document (nothing of their size is decoded): P8.5 on `Hustle`, which are empty, and whether the
/// two providers are equal (P8.11).
struct StringChecks {
    hustle_valid: bool,
    counter_provider_empty: bool,
    tokenizer_rev_empty: bool,
    inference_provider_empty: bool,
    providers_equal: bool,
}

/// [`read`]; with `spans`, the strings are checked and recorded there instead of decoded.
fn read_with(p: &mut Parser<'_>, spans: Option<&mut Spans>) -> JResult<Option<ContextConfig>> {
    let mut c = ContextConfig::default();
    let mut spans = spans;
    let seen = p.fields_or_null(|p, field| {
        match field {
            Field::Compaction => c.compaction = compaction::read_with(p, spans.as_deref_mut().map(|s| &mut s.hustle))?,
            Field::ContextObservation => c.context_observation = observation::read(p)?,
            Field::CounterCapability => {
                c.counter = capability::read_counter(p, spans.as_deref_mut().map(|s| &mut s.counter))?;
            }
            Field::InferenceCapability => {
                c.inference = capability::read_inference(p, spans.as_deref_mut().map(|s| &mut s.inference))?;
            }
        }
        Ok(())
    })?;
    match seen {
        None => Ok(None),
        Some(seen) => seen.require_all(p).map(|()| Some(c)),
    }
}
