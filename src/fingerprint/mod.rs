//! The request fingerprint (SPEC §10): the identity of one measured request, as SHA-256 of the
//! reference's exact canonical bytes.
//!
//! A document is decoded strictly into a typed [`FingerprintInput`] (R10.1, J5, D6: every key
//! required, exact types, `null` only for the four sampling values), validated in the order of R10.2
//! (R10.3 model, R10.4 base URL), then written per R10.5 (strings E7.6, floats R10.6) and hashed.
//! Any JSON error is 400 `wire`; the rules 401–407 apply only to a well-formed document. 408
//! `Encoding` (NaN or an infinity, D7) can only come from a value built in Rust.

mod canonical;
mod decode;
mod encode;
mod float;
mod stop;
mod template;
mod url;

#[cfg(any(test, fuzzing))]
pub(crate) use stop::stop_array_end;

#[cfg(test)]
mod tests;

use crate::diagnostic::{Diagnostic, field_diagnostic, json_diagnostic_scanning};
use crate::error::{Error, Result};
use std::borrow::Cow;

use crate::json::{DocumentLayout, Fields as _, Parser};

/// The layout of a request-fingerprint document (R10.1), for its diagnoses (C13.4).
pub(crate) static LAYOUT: DocumentLayout = DocumentLayout::new(decode::Top::RULES);
use crate::policy::capability::{CounterCapability, InferenceCapability};
use crate::status::Status;
use decode::StringField;

/// Length of a fingerprint in bytes, `LC_FINGERPRINT_LEN` in C (private: cbindgen exports every
/// public constant).
const LEN: usize = 32;

/// The request-fingerprint input (R10.1): everything that identifies one measured request.
///
/// Field names follow the document's keys (`SystemRevision` is `system_revision`, ...).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FingerprintInput {
    /// `SystemRevision`: revision of the system prompt; must be non-empty.
    pub system_revision: String,
    /// `ToolPolicyRevision`: revision of the tool policy; must be non-empty.
    pub tool_policy_revision: String,
    /// `RuntimeContextRevision`: revision of the runtime context; must be non-empty (not trimmed).
    pub runtime_context_revision: String,
    /// `Model`: the model the request goes to (R10.3).
    pub model: Model,
    /// `Basis`: the transcript position the request was measured at.
    pub basis: Basis,
    /// `CounterCapability`: the token counter used (P8.9).
    pub counter: CounterCapability,
    /// `InferenceCapability`: the inference endpoint (P8.10).
    pub inference: InferenceCapability,
}

/// `Model`: the model layout of looprig/inference v0.12.0 (R10.8).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// `Provider`; must be non-empty.
    pub provider: String,
    /// `APIFormat`; not checked.
    pub api_format: String,
    /// `BaseURL`; empty, or valid under R10.4.
    pub base_url: String,
    /// `Name`; must be non-empty.
    pub name: String,
    /// `Origin`; not checked.
    pub origin: u8,
    /// `Caps`.
    pub caps: Caps,
    /// `Limits`.
    pub limits: Limits,
    /// `Sampling`; not checked.
    pub sampling: Sampling,
}

/// `Model.Caps`: the model's capabilities (seven fields, R10.8).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Caps {
    /// `AcceptsImages`.
    pub accepts_images: bool,
    /// `Tools`.
    pub tools: bool,
    /// `Thinking`.
    pub thinking: bool,
    /// `StructuredOutput`.
    pub structured_output: bool,
    /// `StructuredOutputWithTools`: needs both `tools` and `structured_output`.
    pub structured_output_with_tools: bool,
    /// `ThinkingDialect`: `""`, `"adaptive"` or `"budget"`; non-empty needs `thinking`.
    pub thinking_dialect: String,
    /// `PromptCaching`.
    pub prompt_caching: bool,
}

/// `Model.Limits`, in tokens (0 = unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// `WindowTokens`; when non-zero, neither other limit may exceed it.
    pub window_tokens: u64,
    /// `MaxInputTokens`.
    pub max_input_tokens: u64,
    /// `MaxOutputTokens`.
    pub max_output_tokens: u64,
}

/// `Model.Sampling`: the sampling parameters; `None` is the document's `null`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sampling {
    /// `Temperature`. NaN and the infinities cannot be encoded (408).
    pub temperature: Option<f64>,
    /// `TopP`. NaN and the infinities cannot be encoded (408).
    pub top_p: Option<f64>,
    /// `MaxTokens`; negative values are valid.
    pub max_tokens: Option<i64>,
    /// `Stop`: `None` and `Some(vec![])` give different bytes.
    pub stop: Option<Vec<String>>,
    /// `Effort`; not checked.
    pub effort: String,
}

/// `Basis`: the transcript position a request was measured at.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Basis {
    /// `revision`; must be non-zero.
    pub revision: u64,
    /// `through_event_id`: a UUID as given (36 bytes, hyphens at 8, 13, 18, 23, hex of either
    /// case); the canonical bytes use lower case. Must not be all zero.
    pub through_event_id: String,
}

/// A computed fingerprint: the SHA-256 digest and the canonical bytes it was computed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestFingerprint {
    digest: [u8; LEN],
    canonical: Vec<u8>,
}

impl RequestFingerprint {
    /// Decodes, validates and fingerprints a request-fingerprint document (what
    /// `lc_request_fingerprint` does).
    ///
    /// # Errors
    /// 400 `wire` for any JSON or layout error, then the R10.2 statuses 401–407.
    pub fn compute(json: &[u8]) -> Result<RequestFingerprint> {
        RequestFingerprint::of(&FingerprintInput::from_json(json)?)
    }

    /// Validates and fingerprints a typed input.
    ///
    /// # Errors
    /// The R10.2 statuses ([`FingerprintInput::validate`]), then 408 `Encoding` for a NaN or
    /// infinite sampling value.
    pub fn of(input: &FingerprintInput) -> Result<RequestFingerprint> {
        input.validate()?;
        let canonical = input.canonical_bytes()?;
        let mut hash = encode::HashSink::new();
        crate::json::write::Sink::put(&mut hash, &canonical);
        Ok(RequestFingerprint { digest: hash.finish(), canonical })
    }

    /// Diagnoses a request-fingerprint document (SPEC C13.4): the status
    /// [`RequestFingerprint::compute`] gives, with the location of the field (`Model.BaseURL`) and
    /// the rule; for a JSON error the offset, line and column too.
    #[must_use]
    pub fn diagnose(json: &[u8]) -> Diagnostic {
        // Decoded as the digest path decodes it, with the string fields and `Stop` left in the
        // document: the diagnosis stays within the plain call's memory.
        let (input, spans) = match decode_in_place(json) {
            Ok(decoded) => decoded,
            Err(e) => return wire_diagnostic(json, e),
        };
        let strings = StringFacts::in_document(json, &spans);
        match input.validate_with(&strings).and_then(|()| input.check_encodable()) {
            Ok(()) => Diagnostic::ok(),
            Err(error) => field_failure(&input, &strings, error),
        }
    }

    /// [`RequestFingerprint::digest_of`], with the diagnosis of a failure
    /// ([`RequestFingerprint::diagnose`]) made from the same reading of the document: what
    /// `lc_request_fingerprint_diagnose` does, in one pass where the plain call and then the
    /// diagnosis took two. The digest is written to `digest` when the diagnosis is `LC_OK`.
    pub(crate) fn digest_or_diagnose(json: &[u8], digest: &mut [u8; LEN]) -> Diagnostic {
        let template = canonical::read(json);
        let is_canonical = template.is_some();
        let (input, spans) = match template.map_or_else(|| decode_in_place(json), Ok) {
            Ok(decoded) => decoded,
            Err(e) => return wire_diagnostic(json, e),
        };
        let strings = StringFacts::in_document(json, &spans);
        if let Err(error) = input.validate_with(&strings).and_then(|()| input.check_encodable()) {
            return field_failure(&input, &strings, error);
        }
        *digest = if is_canonical {
            encode::sha256(json)
        } else {
            let mut hash = encode::HashSink::new();
            input.write_from(&mut hash, Some((json, &spans)));
            hash.finish()
        };
        Diagnostic::ok()
    }

    /// The digest alone, what `lc_request_fingerprint` writes: decoded, validated, and hashed while
    /// the canonical bytes are written, which are never held in memory.
    ///
    /// # Errors
    /// As [`RequestFingerprint::compute`].
    pub fn digest_of(json: &[u8]) -> Result<[u8; LEN]> {
        // The common case, a document that is its own canonical bytes: read against the template
        // and hashed as it is.
        if let Some((input, spans)) = canonical::read(json) {
            input.validate_with(&StringFacts::in_document(json, &spans))?;
            input.check_encodable()?;
            return Ok(encode::sha256(json));
        }
        Self::digest_decoded(json)
    }

    /// [`RequestFingerprint::digest_of`] for any document: decoded, validated, and hashed while the
    /// canonical bytes are written.
    fn digest_decoded(json: &[u8]) -> Result<[u8; LEN]> {
        let (input, spans) = decode_in_place(json)?;
        input.validate_with(&StringFacts::in_document(json, &spans))?;
        input.check_encodable()?;
        let mut hash = encode::HashSink::new();
        input.write_from(&mut hash, Some((json, &spans)));
        Ok(hash.finish())
    }

    /// The 32-byte SHA-256 digest.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8; LEN] {
        &self.digest
    }

    /// The digest as 64 lower-case hex characters.
    #[must_use]
    pub fn to_hex(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(2 * LEN);
        for b in self.digest {
            for nibble in [b >> 4, b & 15] {
                out.push(char::from(HEX.get(usize::from(nibble)).copied().unwrap_or(b'0')));
            }
        }
        out
    }

    /// The canonical bytes that were hashed (R10.5), for debugging: two hosts whose fingerprints
    /// differ can compare these to see which field differs.
    #[must_use]
    pub fn canonical_bytes(&self) -> &[u8] {
        &self.canonical
    }
}

/// The diagnosis of a document that does not decode (R10.1): where its JSON error is, passing
/// over `Stop` arrays with the decoder's own scan.
fn wire_diagnostic(json: &[u8], error: Error) -> Diagnostic {
    json_diagnostic_scanning(error.status(), error.offset(), json, &LAYOUT, c"R10.1", false, stop::stop_array_end)
}

/// The diagnosis of a decoded document that failed validation with `error`: the field's location
/// (`Model.BaseURL`) and its rule.
fn field_failure(input: &FingerprintInput, strings: &StringFacts<'_>, error: Error) -> Diagnostic {
    let status = error.status();
    let (location, rule) = match status {
        Status::FingerprintModel => input.model.first_invalid(strings).unwrap_or(("Model", c"R10.3")),
        Status::FingerprintBasis if input.basis.revision == 0 => ("Basis.revision", c"R10.2"),
        Status::FingerprintBasis => ("Basis.through_event_id", c"R10.2"),
        Status::FingerprintCounterCapability => ("CounterCapability", c"P8.9"),
        Status::FingerprintInferenceCapability => ("InferenceCapability", c"P8.10"),
        Status::FingerprintEncoding if input.model.sampling.temperature.is_some_and(|t| !t.is_finite()) => {
            ("Model.Sampling.Temperature", c"R10.6")
        }
        Status::FingerprintEncoding => ("Model.Sampling.TopP", c"R10.6"),
        Status::FingerprintWire => ("Basis.through_event_id", c"R10.1"),
        // 401-403: the reason string is the field's name.
        _ => (status.reason(), c"R10.2"),
    };
    field_diagnostic(status, rule, &LAYOUT, location)
}

/// Decodes a document with every string field and `Stop` left in it (any of them can be as large
/// as the document), so nothing of the document's size is decoded or kept.
fn decode_in_place(json: &[u8]) -> Result<(FingerprintInput, decode::Spans)> {
    let mut spans = decode::Spans::default();
    let mut p = Parser::new_utf8_checked(json);
    let input = decode::document(&mut p, Some(&mut spans)).map_err(|e| Error::at(Status::FingerprintWire, e.offset))?;
    Ok((input, spans))
}

/// R10.1: 36 bytes, `-` at offsets 8, 13, 18 and 23, ASCII hex digits of either case elsewhere.
pub(crate) fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

impl FingerprintInput {
    /// Decodes a request-fingerprint document (R10.1). Nothing beyond the layout is checked here:
    /// see [`FingerprintInput::validate`].
    ///
    /// # Errors
    /// 400 `wire` (with the byte offset) for a JSON error (J5), an unknown, repeated or missing
    /// key, a wrong type or range, a `null` where the layout has none, a `SecurityIdentity` that is
    /// not exactly 32 integers 0–255, or a `through_event_id` that is not a UUID.
    pub fn from_json(json: &[u8]) -> Result<FingerprintInput> {
        let mut p = Parser::new_utf8_checked(json);
        decode::document(&mut p, None).map_err(|e| Error::at(Status::FingerprintWire, e.offset))
    }

    /// Checks the input in the order of R10.2; the first failure wins.
    ///
    /// A `through_event_id` that is not a UUID (possible only for a value built in Rust) is
    /// 400 `wire`, as in a document, and checked first.
    ///
    /// # Errors
    /// 401 `SystemRevision`, 402 `ToolPolicyRevision`, 403 `RuntimeContextRevision`, 404 `Model`
    /// (R10.3), 405 `Basis`, 406 `CounterCapability` (P8.9), 407 `InferenceCapability` (P8.10).
    pub fn validate(&self) -> Result<()> {
        self.validate_with(&StringFacts::of(self))
    }

    /// [`FingerprintInput::validate`] with the string fields as `strings` gives them.
    fn validate_with(&self, strings: &StringFacts<'_>) -> Result<()> {
        let id = &self.basis.through_event_id;
        let empty = |field| strings.is_empty(field);
        let checks = [
            (!is_uuid(id), Status::FingerprintWire),
            (empty(StringField::SystemRevision), Status::FingerprintSystemRevision),
            (empty(StringField::ToolPolicyRevision), Status::FingerprintToolPolicyRevision),
            (empty(StringField::RuntimeContextRevision), Status::FingerprintRuntimeContextRevision),
            (self.model.first_invalid(strings).is_some(), Status::FingerprintModel),
            (self.basis.revision == 0 || id.bytes().all(|b| b == b'0' || b == b'-'), Status::FingerprintBasis),
            (
                !self.counter.is_valid_with(empty(StringField::CounterProvider), empty(StringField::TokenizerRev)),
                Status::FingerprintCounterCapability,
            ),
            (
                !self.inference.is_valid_with(empty(StringField::InferenceProvider)),
                Status::FingerprintInferenceCapability,
            ),
        ];
        match checks.into_iter().find(|(failed, _)| *failed) {
            Some((_, status)) => Err(Error::new(status)),
            None => Ok(()),
        }
    }

    /// The canonical bytes of R10.5 (no validation: see [`RequestFingerprint::of`]).
    ///
    /// # Errors
    /// 408 `Encoding` when `Temperature` or `TopP` is NaN or infinite (D7).
    pub fn canonical_bytes(&self) -> Result<Vec<u8>> {
        self.check_encodable()?;
        let mut out = Vec::with_capacity(1024);
        self.write(&mut out);
        Ok(out)
    }

    /// D7: NaN and the infinities cannot be encoded (408).
    fn check_encodable(&self) -> Result<()> {
        let s = &self.model.sampling;
        if [s.temperature, s.top_p].into_iter().flatten().any(|x| !x.is_finite()) {
            return Err(Error::new(Status::FingerprintEncoding));
        }
        Ok(())
    }
}

impl Model {
    /// R10.3: whether the model is valid (`APIFormat`, `Origin`, `Effort` and the sampling values
    /// are not checked).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.first_invalid(&StringFacts::of_model(self)).is_none()
    }

    /// The first R10.3 check that fails, as the location of its field and its rule, with the string
    /// fields as `strings` gives them.
    fn first_invalid(&self, strings: &StringFacts<'_>) -> Option<(&'static str, &'static core::ffi::CStr)> {
        let c = &self.caps;
        let l = &self.limits;
        let base_url = &*strings.base_url;
        let dialect = &*strings.thinking_dialect;
        let checks = [
            (strings.is_empty(StringField::Name), "Model.Name", c"R10.3"),
            (
                c.structured_output_with_tools && !(c.tools && c.structured_output),
                "Model.Caps.StructuredOutputWithTools",
                c"R10.3",
            ),
            (!matches!(dialect, "" | "adaptive" | "budget"), "Model.Caps.ThinkingDialect", c"R10.3"),
            (!dialect.is_empty() && !c.thinking, "Model.Caps.Thinking", c"R10.3"),
            (l.window_tokens != 0 && l.max_input_tokens > l.window_tokens, "Model.Limits.MaxInputTokens", c"R10.3"),
            (l.window_tokens != 0 && l.max_output_tokens > l.window_tokens, "Model.Limits.MaxOutputTokens", c"R10.3"),
            (!base_url.is_empty() && !url::base_url_is_valid(base_url), "Model.BaseURL", c"R10.4"),
            (strings.is_empty(StringField::Provider), "Model.Provider", c"R10.3"),
        ];
        checks.into_iter().find(|(failed, _, _)| *failed).map(|(_, location, rule)| (location, rule))
    }
}

/// What validation reads of the string fields: whether each is empty, and the text of the two
/// whose value is checked (`BaseURL`, R10.4; `ThinkingDialect`, R10.3). From a typed input, or read
/// in place from a document (the digest path).
struct StringFacts<'s> {
    empty: [bool; StringField::COUNT],
    base_url: Cow<'s, str>,
    thinking_dialect: Cow<'s, str>,
}

impl<'s> StringFacts<'s> {
    fn of(input: &'s FingerprintInput) -> StringFacts<'s> {
        let m = &input.model;
        let texts = input.string_texts();
        StringFacts {
            empty: texts.map(str::is_empty),
            base_url: Cow::Borrowed(&m.base_url),
            thinking_dialect: Cow::Borrowed(&m.caps.thinking_dialect),
        }
    }

    /// The model's own strings (R10.3 reads no other).
    fn of_model(m: &'s Model) -> StringFacts<'s> {
        let mut empty = [true; StringField::COUNT];
        for (field, text) in [(StringField::Provider, &m.provider), (StringField::Name, &m.name)] {
            if let Some(slot) = empty.get_mut(field as usize) {
                *slot = text.is_empty();
            }
        }
        StringFacts {
            empty,
            base_url: Cow::Borrowed(&m.base_url),
            thinking_dialect: Cow::Borrowed(&m.caps.thinking_dialect),
        }
    }

    fn in_document(src: &'s [u8], spans: &decode::Spans) -> StringFacts<'s> {
        let mut empty = [true; StringField::COUNT];
        for (i, slot) in empty.iter_mut().enumerate() {
            // A string token's body is empty exactly when its text is (an escape is never empty).
            *slot = spans.text_at(i).is_empty();
        }
        let text = |field| spans.text(field).token(src).decode().unwrap_or_default();
        // Longer than any escaped `adaptive` or `budget`: not one of them, and not decoded.
        let dialect = spans.text(StringField::ThinkingDialect);
        let thinking_dialect = if dialect.span().end - dialect.span().start > 6 * 8 {
            Cow::Borrowed("\u{0}")
        } else {
            text(StringField::ThinkingDialect)
        };
        StringFacts { empty, base_url: text(StringField::BaseUrl), thinking_dialect }
    }

    fn is_empty(&self, field: StringField) -> bool {
        self.empty.get(field as usize).copied().unwrap_or(true)
    }
}
