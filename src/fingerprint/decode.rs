//! R10.1: decoding a request-fingerprint document into a [`FingerprintInput`] (J5, D6: every key
//! required, exact types, `null` only for the four sampling values and nowhere else). Any error is
//! 400 `wire`, reported by the caller with its offset.

use super::template::r10_5;
use super::{Basis, Caps, FingerprintInput, Limits, Model, Sampling, is_uuid};
use crate::json::{Event, JResult, JsonError, Parser, Span, StringSpan, layout};
use crate::policy::capability::{CounterField, InferenceField, read_counter, read_inference, read_string};

layout! {
    /// The top-level keys (R10.1).
    pub(super) enum Top {
        SystemRevision = "SystemRevision": NonEmptyString,
        ToolPolicyRevision = "ToolPolicyRevision": NonEmptyString,
        Model = "Model": Object { ModelField },
        Basis = "Basis": Object { BasisField },
        RuntimeContextRevision = "RuntimeContextRevision": NonEmptyString,
        CounterCapability = "CounterCapability": Object { CounterField },
        InferenceCapability = "InferenceCapability": Object { InferenceField },
    }
}

layout! {
    /// `Model` (R10.8).
    enum ModelField {
        Provider = "Provider": String,
        ApiFormat = "APIFormat": String,
        BaseUrl = "BaseURL": BaseUrl,
        Name = "Name": NonEmptyString,
        Origin = "Origin": Unsigned,
        Caps = "Caps": Object { CapsField },
        Limits = "Limits": Object { LimitsField },
        Sampling = "Sampling": Object { SamplingField },
    }
}

layout! {
    /// `Model.Caps` (R10.8).
    enum CapsField {
        AcceptsImages = "AcceptsImages": Bool,
        Tools = "Tools": Bool,
        Thinking = "Thinking": Bool,
        StructuredOutput = "StructuredOutput": Bool,
        StructuredOutputWithTools = "StructuredOutputWithTools": Bool,
        ThinkingDialect = "ThinkingDialect": ThinkingDialect,
        PromptCaching = "PromptCaching": Bool,
    }
}

layout! {
    /// `Model.Limits`.
    enum LimitsField {
        WindowTokens = "WindowTokens": Unsigned,
        MaxInputTokens = "MaxInputTokens": Unsigned,
        MaxOutputTokens = "MaxOutputTokens": Unsigned,
    }
}

layout! {
    /// `Model.Sampling`.
    enum SamplingField {
        Temperature = "Temperature": FiniteOrNull,
        TopP = "TopP": FiniteOrNull,
        MaxTokens = "MaxTokens": IntegerOrNull,
        Stop = "Stop": StringsOrNull,
        Effort = "Effort": String,
    }
}

layout! {
    /// `Basis`.
    enum BasisField {
        Revision = "revision": Unsigned,
        ThroughEventId = "through_event_id": Uuid,
    }
}

/// The string fields of R10.5's layout, from its `string(F)` values ([`r10_5!`]): the enum
/// [`StringField`] with one variant per field in the order of the layout, and
/// [`FingerprintInput::string_texts`].
macro_rules! string_fields {
    (
        ()
        $([$bytes:expr] $kind:ident ($($field:ident)?) ($($place:ident).+);)*
        end [$close:expr]
    ) => {
        /// The string fields of the document (every one but `through_event_id`, which is a UUID),
        /// in the order of R10.5.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(super) enum StringField {
            $($($field,)?)*
        }

        impl StringField {
            pub(super) const COUNT: usize = [$($(StringField::$field,)?)*].len();
        }

        impl FingerprintInput {
            /// The text of each string field, indexed by [`StringField`].
            pub(super) fn string_texts(&self) -> [&str; StringField::COUNT] {
                let mut texts = [""; StringField::COUNT];
                $(string_text!(texts, $kind ($($field)?), &self.$($place).+);)*
                texts
            }
        }
    };
}

/// One step of [`string_fields!`]: a string field's text put at its index.
macro_rules! string_text {
    ($texts:ident, string($field:ident), $text:expr) => {
        if let Some(slot) = $texts.get_mut(StringField::$field as usize) {
            *slot = $text;
        }
    };
    ($texts:ident, $kind:ident(), $value:expr) => {};
}

r10_5!(string_fields!());

const _: () = assert!(
    StringField::TokenizerRev as usize == StringField::CounterProvider as usize + 1,
    "see Spans::counter_slots"
);
const _: () = assert!(StringField::InferenceProvider as usize + 1 == StringField::COUNT);

/// What the digest path keeps instead of decoding: every string field as the span of its token's
/// body, and `Stop` as the span of its array, all checked. Any of them can be as large as the
/// document, and `Stop` can hold millions of strings; validation needs only whether a string is
/// empty (and the text of `BaseURL` and `ThinkingDialect`, read in place), and the canonical bytes
/// (R10.5) are written from the document as the hash is fed, so hashing a document costs no memory
/// of its size.
#[derive(Debug, Default)]
pub(super) struct Spans {
    texts: [StringSpan; StringField::COUNT],
    /// `Model.Sampling.Stop` when it is an array: the array's text, checked.
    pub(super) stop: Option<Span>,
    /// Whether that text is already as R10.5 writes it (then it is hashed as it is).
    pub(super) stop_canonical: bool,
}

impl Spans {
    pub(super) fn text(&self, field: StringField) -> StringSpan {
        self.text_at(field as usize)
    }

    pub(super) fn text_at(&self, index: usize) -> StringSpan {
        self.texts.get(index).copied().unwrap_or_default()
    }

    pub(super) fn slot(&mut self, field: StringField) -> Option<&mut StringSpan> {
        self.texts.get_mut(field as usize)
    }

    /// `CounterCapability`'s `Provider` and `TokenizerRev`, next to each other in `StringField`.
    fn counter_slots(&mut self) -> Option<&mut [StringSpan; 2]> {
        let at = StringField::CounterProvider as usize;
        self.texts.get_mut(at..at + 2)?.try_into().ok()
    }
}

/// A string field: into `owned`, or with `spans`, checked and recorded there.
fn string(p: &mut Parser<'_>, spans: &mut Option<&mut Spans>, field: StringField, owned: &mut String) -> JResult<()> {
    read_string(p, owned, spans.as_deref_mut().and_then(|s| s.slot(field)))
}

/// `null` or an array of strings (no `null` element). With `spans`, the strings are checked but
/// not kept: the array is recorded as a span and `Some(vec![])` stands for it; an array already as
/// R10.5 writes it is checked in one scan ([`super::stop::stop_array_end`]) and skipped.
fn stop(p: &mut Parser<'_>, spans: Option<&mut Spans>) -> JResult<Option<Vec<String>>> {
    let first = p.next()?;
    if first == Event::Null {
        return Ok(None);
    }
    let start = p.token_start();
    let Some(spans) = spans else {
        let mut out = Vec::new();
        p.read_array(first, |p, e| {
            out.push(p.str_of(e)?.decode()?.into_owned());
            Ok(())
        })?;
        return Ok(Some(out));
    };
    let skipped = first == Event::ArrayStart
        && super::stop::stop_array_end(p.src(), start).is_some_and(|end| p.skip_checked_array(end));
    if !skipped {
        p.read_array(first, |p, e| p.str_of(e)?.check_utf8())?;
    }
    spans.stop = Some(Span { start, end: p.pos() });
    spans.stop_canonical = skipped;
    Ok(Some(Vec::new()))
}

fn caps(p: &mut Parser<'_>, mut spans: Option<&mut Spans>) -> JResult<Caps> {
    let mut c = Caps::default();
    p.fields(|p, field| {
        match field {
            CapsField::AcceptsImages => c.accepts_images = p.bool()?,
            CapsField::Tools => c.tools = p.bool()?,
            CapsField::Thinking => c.thinking = p.bool()?,
            CapsField::StructuredOutput => c.structured_output = p.bool()?,
            CapsField::StructuredOutputWithTools => c.structured_output_with_tools = p.bool()?,
            CapsField::ThinkingDialect => string(p, &mut spans, StringField::ThinkingDialect, &mut c.thinking_dialect)?,
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

fn sampling(p: &mut Parser<'_>, mut spans: Option<&mut Spans>) -> JResult<Sampling> {
    let mut s = Sampling::default();
    p.fields(|p, field| {
        match field {
            SamplingField::Temperature => s.temperature = p.f64_or_null()?,
            SamplingField::TopP => s.top_p = p.f64_or_null()?,
            SamplingField::MaxTokens => s.max_tokens = p.i64_or_null()?,
            SamplingField::Stop => s.stop = stop(p, spans.as_deref_mut())?,
            SamplingField::Effort => string(p, &mut spans, StringField::Effort, &mut s.effort)?,
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(s)
}

fn model(p: &mut Parser<'_>, mut spans: Option<&mut Spans>) -> JResult<Model> {
    let mut m = Model::default();
    p.fields(|p, field| {
        match field {
            ModelField::Provider => string(p, &mut spans, StringField::Provider, &mut m.provider)?,
            ModelField::ApiFormat => string(p, &mut spans, StringField::ApiFormat, &mut m.api_format)?,
            ModelField::BaseUrl => string(p, &mut spans, StringField::BaseUrl, &mut m.base_url)?,
            ModelField::Name => string(p, &mut spans, StringField::Name, &mut m.name)?,
            ModelField::Origin => m.origin = p.u8()?,
            ModelField::Caps => m.caps = caps(p, spans.as_deref_mut())?,
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
                // 36 characters, each written at most as a 6-byte escape: anything longer is not a
                // UUID, and is not decoded.
                if token.raw().len() > 36 * 6 {
                    return Err(JsonError::invalid(token.span().start));
                }
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
pub(super) fn document(p: &mut Parser<'_>, mut spans: Option<&mut Spans>) -> JResult<FingerprintInput> {
    let mut input = FingerprintInput::default();
    p.fields(|p, field| {
        match field {
            Top::SystemRevision => string(p, &mut spans, StringField::SystemRevision, &mut input.system_revision)?,
            Top::ToolPolicyRevision => {
                string(p, &mut spans, StringField::ToolPolicyRevision, &mut input.tool_policy_revision)?
            }
            Top::Model => input.model = model(p, spans.as_deref_mut())?,
            Top::Basis => input.basis = basis(p)?,
            Top::RuntimeContextRevision => {
                string(p, &mut spans, StringField::RuntimeContextRevision, &mut input.runtime_context_revision)?;
            }
            // `null` is a valid capability elsewhere (P8.7), not here (D6).
            Top::CounterCapability => {
                let texts = spans.as_deref_mut().and_then(Spans::counter_slots);
                input.counter = read_counter(p, texts)?.ok_or_else(|| JsonError::invalid(p.token_start()))?;
            }
            Top::InferenceCapability => {
                let text = spans.as_deref_mut().and_then(|s| s.slot(StringField::InferenceProvider));
                input.inference = read_inference(p, text)?.ok_or_else(|| JsonError::invalid(p.token_start()))?;
            }
        }
        Ok(())
    })?
    .require_all(p)?;
    p.finish()?;
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Layout;

    /// The keys of each object of `json`, in the order of the document, with the object's path.
    fn keys_by_object(json: &[u8]) -> Vec<(String, Vec<String>)> {
        let mut p = Parser::new(json);
        let mut objects: Vec<(String, Vec<String>)> = Vec::new();
        let mut open = Vec::new();
        loop {
            match p.next().unwrap() {
                Event::ObjectStart => {
                    let path = match open.last().and_then(|&i: &usize| objects.get(i)) {
                        Some((parent, keys)) => {
                            let key = keys.last().unwrap();
                            if parent.is_empty() { key.clone() } else { format!("{parent}.{key}") }
                        }
                        None => String::new(),
                    };
                    open.push(objects.len());
                    objects.push((path, Vec::new()));
                }
                Event::ObjectEnd => {
                    open.pop();
                    if open.is_empty() {
                        return objects;
                    }
                }
                Event::Key(name) => {
                    let at = *open.last().unwrap();
                    objects.get_mut(at).unwrap().1.push(name.decode().unwrap().into_owned());
                }
                _ => {}
            }
        }
    }

    /// The general decoder's layouts are R10.5's, key for key and in the same order: the keys of
    /// the canonical bytes (written from `template::r10_5!`, as the template reader reads them).
    #[test]
    fn layouts_are_r10_5() {
        let mut canonical = Vec::new();
        FingerprintInput::default().write(&mut canonical);
        let [counter, inference] = crate::policy::capability::layout_names();
        let layouts: [(&str, &[&str]); 8] = [
            ("", Top::NAMES),
            ("Model", ModelField::NAMES),
            ("Model.Caps", CapsField::NAMES),
            ("Model.Limits", LimitsField::NAMES),
            ("Model.Sampling", SamplingField::NAMES),
            ("Basis", BasisField::NAMES),
            ("CounterCapability", counter),
            ("InferenceCapability", inference),
        ];
        let want: Vec<(String, Vec<String>)> = layouts
            .iter()
            .map(|(path, names)| (path.to_string(), names.iter().map(|n| n.to_string()).collect()))
            .collect();
        assert_eq!(keys_by_object(&canonical), want);
    }
}
