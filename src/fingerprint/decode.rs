//! R10.1: decoding a request-fingerprint document into a [`FingerprintInput`] (J5, D6: every key
//! required, exact types, `null` only for the four sampling values and nowhere else). Any error is
//! 400 `wire`, reported by the caller with its offset.

use super::{Basis, Caps, FingerprintInput, Limits, Model, Sampling, is_uuid};
use crate::json::{Event, JResult, JsonError, Parser, Span, Text, layout};
use crate::policy::capability::{read_counter, read_inference};

layout! {
    /// The top-level keys (R10.1).
    enum Top {
        SystemRevision = "SystemRevision",
        ToolPolicyRevision = "ToolPolicyRevision",
        Model = "Model",
        Basis = "Basis",
        RuntimeContextRevision = "RuntimeContextRevision",
        CounterCapability = "CounterCapability",
        InferenceCapability = "InferenceCapability",
    }
}

layout! {
    /// `Model` (R10.8).
    enum ModelField {
        Provider = "Provider",
        ApiFormat = "APIFormat",
        BaseUrl = "BaseURL",
        Name = "Name",
        Origin = "Origin",
        Caps = "Caps",
        Limits = "Limits",
        Sampling = "Sampling",
    }
}

layout! {
    /// `Model.Caps` (R10.8).
    enum CapsField {
        AcceptsImages = "AcceptsImages",
        Tools = "Tools",
        Thinking = "Thinking",
        StructuredOutput = "StructuredOutput",
        StructuredOutputWithTools = "StructuredOutputWithTools",
        ThinkingDialect = "ThinkingDialect",
        PromptCaching = "PromptCaching",
    }
}

layout! {
    /// `Model.Limits`.
    enum LimitsField {
        WindowTokens = "WindowTokens",
        MaxInputTokens = "MaxInputTokens",
        MaxOutputTokens = "MaxOutputTokens",
    }
}

layout! {
    /// `Model.Sampling`.
    enum SamplingField {
        Temperature = "Temperature",
        TopP = "TopP",
        MaxTokens = "MaxTokens",
        Stop = "Stop",
        Effort = "Effort",
    }
}

layout! {
    /// `Basis`.
    enum BasisField {
        Revision = "revision",
        ThroughEventId = "through_event_id",
    }
}

/// The fields the digest path keeps as spans of the document instead of decoding them (the only
/// ones that can be large and numerous: `Stop` can hold millions of strings, `BaseURL` megabytes),
/// so that hashing a document costs no memory of its size: they are written from the document
/// (R10.5) as the hash is fed.
#[derive(Debug, Default)]
pub(super) struct Spans {
    /// `Model.BaseURL`: the body of its string token.
    pub(super) base_url: Text,
    /// `Model.Sampling.Stop` when it is an array: the array's text, checked.
    pub(super) stop: Option<Span>,
}

/// `null` or an array of strings (no `null` element). With `spans`, the strings are checked but
/// not kept: the array is recorded as a span and `Some(vec![])` stands for it.
fn stop(p: &mut Parser<'_>, spans: Option<&mut Spans>) -> JResult<Option<Vec<String>>> {
    match p.next()? {
        Event::Null => Ok(None),
        first => {
            let start = p.token_start();
            let mut out = Vec::new();
            let keep = spans.is_none();
            p.read_array(first, |p, e| {
                let text = p.str_of(e)?.decode()?;
                if keep {
                    out.push(text.into_owned());
                }
                Ok(())
            })?;
            if let Some(spans) = spans {
                spans.stop = Some(Span { start, end: p.pos() });
            }
            Ok(Some(out))
        }
    }
}

fn caps(p: &mut Parser<'_>) -> JResult<Caps> {
    let mut c = Caps::default();
    p.fields(|p, field| {
        match field {
            CapsField::AcceptsImages => c.accepts_images = p.bool()?,
            CapsField::Tools => c.tools = p.bool()?,
            CapsField::Thinking => c.thinking = p.bool()?,
            CapsField::StructuredOutput => c.structured_output = p.bool()?,
            CapsField::StructuredOutputWithTools => c.structured_output_with_tools = p.bool()?,
            CapsField::ThinkingDialect => c.thinking_dialect = p.owned_string()?,
            CapsField::PromptCaching => c.prompt_caching = p.bool()?,
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(c)
}

fn limits(p: &mut Parser<'_>) -> JResult<Limits> {
    let mut l = Limits::default();
    p.fields(|p, field| {
        match field {
            LimitsField::WindowTokens => l.window_tokens = p.u64()?,
            LimitsField::MaxInputTokens => l.max_input_tokens = p.u64()?,
            LimitsField::MaxOutputTokens => l.max_output_tokens = p.u64()?,
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(l)
}

fn sampling(p: &mut Parser<'_>, spans: Option<&mut Spans>) -> JResult<Sampling> {
    let mut s = Sampling::default();
    let mut spans = spans;
    p.fields(|p, field| {
        match field {
            SamplingField::Temperature => s.temperature = p.f64_or_null()?,
            SamplingField::TopP => s.top_p = p.f64_or_null()?,
            SamplingField::MaxTokens => s.max_tokens = p.i64_or_null()?,
            SamplingField::Stop => s.stop = stop(p, spans.as_deref_mut())?,
            SamplingField::Effort => s.effort = p.owned_string()?,
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(s)
}

fn model(p: &mut Parser<'_>, spans: Option<&mut Spans>) -> JResult<Model> {
    let mut m = Model::default();
    let mut spans = spans;
    p.fields(|p, field| {
        match field {
            ModelField::Provider => m.provider = p.owned_string()?,
            ModelField::ApiFormat => m.api_format = p.owned_string()?,
            ModelField::BaseUrl => match spans.as_deref_mut() {
                Some(spans) => {
                    let token = p.str()?;
                    token.decode()?;
                    spans.base_url = token.text();
                }
                None => m.base_url = p.owned_string()?,
            },
            ModelField::Name => m.name = p.owned_string()?,
            ModelField::Origin => m.origin = p.u8()?,
            ModelField::Caps => m.caps = caps(p)?,
            ModelField::Limits => m.limits = limits(p)?,
            ModelField::Sampling => m.sampling = sampling(p, spans.as_deref_mut())?,
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(m)
}

fn basis(p: &mut Parser<'_>) -> JResult<Basis> {
    let mut b = Basis::default();
    p.fields(|p, field| {
        match field {
            BasisField::Revision => b.revision = p.u64()?,
            BasisField::ThroughEventId => {
                let token = p.str()?;
                let text = token.decode()?;
                if !is_uuid(&text) {
                    return Err(JsonError::invalid(token.span().start));
                }
                b.through_event_id = text.into_owned();
            }
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(b)
}

/// The whole document: one object of the top-level layout, then nothing but whitespace. With
/// `spans`, `BaseURL` and `Stop` are recorded there instead of decoded into the result.
pub(super) fn document(p: &mut Parser<'_>, spans: Option<&mut Spans>) -> JResult<FingerprintInput> {
    let mut input = FingerprintInput::default();
    let mut spans = spans;
    p.fields(|p, field| {
        match field {
            Top::SystemRevision => input.system_revision = p.owned_string()?,
            Top::ToolPolicyRevision => input.tool_policy_revision = p.owned_string()?,
            Top::Model => input.model = model(p, spans.as_deref_mut())?,
            Top::Basis => input.basis = basis(p)?,
            Top::RuntimeContextRevision => input.runtime_context_revision = p.owned_string()?,
            // `null` is a valid capability elsewhere (P8.7), not here (D6).
            Top::CounterCapability => {
                input.counter = read_counter(p)?.ok_or_else(|| JsonError::invalid(p.token_start()))?;
            }
            Top::InferenceCapability => {
                input.inference = read_inference(p)?.ok_or_else(|| JsonError::invalid(p.token_start()))?;
            }
        }
        Ok(())
    })?
    .require_all(p)?;
    p.finish()?;
    Ok(input)
}
