//! R10.1: decoding a request-fingerprint document into a [`FingerprintInput`] (J5, D6: every key
//! required, exact types, `null` only for the four sampling values and nowhere else). Any error is
//! 400 `wire`, reported by the caller with its offset.

use super::{Basis, Caps, FingerprintInput, Limits, Model, Sampling, is_uuid};
use crate::json::{Event, JResult, JsonError, Parser, layout};
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

/// `null` or an array of strings (no `null` element).
fn stop(p: &mut Parser<'_>) -> JResult<Option<Vec<String>>> {
    match p.next()? {
        Event::Null => Ok(None),
        first => {
            let mut out = Vec::new();
            p.read_array(first, |p, e| {
                out.push(p.str_of(e)?.decode()?.into_owned());
                Ok(())
            })?;
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

fn sampling(p: &mut Parser<'_>) -> JResult<Sampling> {
    let mut s = Sampling::default();
    p.fields(|p, field| {
        match field {
            SamplingField::Temperature => s.temperature = p.f64_or_null()?,
            SamplingField::TopP => s.top_p = p.f64_or_null()?,
            SamplingField::MaxTokens => s.max_tokens = p.i64_or_null()?,
            SamplingField::Stop => s.stop = stop(p)?,
            SamplingField::Effort => s.effort = p.owned_string()?,
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(s)
}

fn model(p: &mut Parser<'_>) -> JResult<Model> {
    let mut m = Model::default();
    p.fields(|p, field| {
        match field {
            ModelField::Provider => m.provider = p.owned_string()?,
            ModelField::ApiFormat => m.api_format = p.owned_string()?,
            ModelField::BaseUrl => m.base_url = p.owned_string()?,
            ModelField::Name => m.name = p.owned_string()?,
            ModelField::Origin => m.origin = p.u8()?,
            ModelField::Caps => m.caps = caps(p)?,
            ModelField::Limits => m.limits = limits(p)?,
            ModelField::Sampling => m.sampling = sampling(p)?,
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

/// The whole document: one object of the top-level layout, then nothing but whitespace.
pub(super) fn document(p: &mut Parser<'_>) -> JResult<FingerprintInput> {
    let mut input = FingerprintInput::default();
    p.fields(|p, field| {
        match field {
            Top::SystemRevision => input.system_revision = p.owned_string()?,
            Top::ToolPolicyRevision => input.tool_policy_revision = p.owned_string()?,
            Top::Model => input.model = model(p)?,
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
