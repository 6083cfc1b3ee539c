//! The request fingerprint (SPEC §10): the identity of one measured request, as SHA-256 of the
//! reference's exact canonical bytes.
//!
//! A document is decoded strictly into a typed [`FingerprintInput`] (R10.1, J5, D6: every key
//! required, exact types, `null` only for the four sampling values), validated in the order of R10.2
//! (R10.3 model, R10.4 base URL), then written per R10.5 (strings E7.6, floats R10.6) and hashed.
//! Any JSON error is 400 `wire`; the rules 401–407 apply only to a well-formed document. 408
//! `Encoding` (NaN or an infinity, D7) can only come from a value built in Rust.

mod float;
mod url;

#[cfg(test)]
mod tests;

use sha2::{Digest, Sha256};

use crate::canonical::{Sink, put_bool, put_i64, put_str, put_u64};
use crate::error::{Error, Result};
use crate::json::{Event, Fields, JResult, JsonError, Parser};
use crate::policy::capability::{CounterCapability, InferenceCapability, read_counter, read_inference};
use crate::status::Status;

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
        let digest: [u8; LEN] = Sha256::digest(&canonical).into();
        Ok(RequestFingerprint { digest, canonical })
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

const TOP_FIELDS: &Fields = &[
    "SystemRevision",
    "ToolPolicyRevision",
    "Model",
    "Basis",
    "RuntimeContextRevision",
    "CounterCapability",
    "InferenceCapability",
];
const MODEL_FIELDS: &Fields = &["Provider", "APIFormat", "BaseURL", "Name", "Origin", "Caps", "Limits", "Sampling"];
const CAPS_FIELDS: &Fields = &[
    "AcceptsImages",
    "Tools",
    "Thinking",
    "StructuredOutput",
    "StructuredOutputWithTools",
    "ThinkingDialect",
    "PromptCaching",
];
const LIMITS_FIELDS: &Fields = &["WindowTokens", "MaxInputTokens", "MaxOutputTokens"];
const SAMPLING_FIELDS: &Fields = &["Temperature", "TopP", "MaxTokens", "Stop", "Effort"];
const BASIS_FIELDS: &Fields = &["revision", "through_event_id"];

/// D6: every key of the layout was present (`mask` from [`Parser::object`]).
fn all_keys(p: &Parser<'_>, mask: u64, fields: &Fields) -> JResult<()> {
    if mask == (1u64 << fields.len()) - 1 { Ok(()) } else { Err(JsonError::invalid(p.token_start())) }
}

fn string(p: &mut Parser<'_>) -> JResult<String> {
    Ok(p.str()?.decode()?.into_owned())
}

/// A J5.7 number or `null`.
fn float_or_null(p: &mut Parser<'_>) -> JResult<Option<f64>> {
    match p.next()? {
        Event::Null => Ok(None),
        e => p.float_of(e).map(Some),
    }
}

/// A J5.6 i64 or `null`.
fn i64_or_null(p: &mut Parser<'_>) -> JResult<Option<i64>> {
    match p.next()? {
        Event::Null => Ok(None),
        e => p.signed_of(e).map(Some),
    }
}

/// `null` or an array of strings (no `null` element).
fn stop(p: &mut Parser<'_>) -> JResult<Option<Vec<String>>> {
    match p.next()? {
        Event::Null => Ok(None),
        Event::ArrayStart => {
            let mut out = Vec::new();
            loop {
                let e = p.next()?;
                if e == Event::ArrayEnd {
                    return Ok(Some(out));
                }
                out.push(p.str_of(e)?.decode()?.into_owned());
            }
        }
        _ => Err(JsonError::invalid(p.token_start())),
    }
}

fn caps(p: &mut Parser<'_>) -> JResult<Caps> {
    let mut c = Caps::default();
    let mask = p.object(CAPS_FIELDS, |p, i| {
        match i {
            0 => c.accepts_images = p.bool()?,
            1 => c.tools = p.bool()?,
            2 => c.thinking = p.bool()?,
            3 => c.structured_output = p.bool()?,
            4 => c.structured_output_with_tools = p.bool()?,
            5 => c.thinking_dialect = string(p)?,
            _ => c.prompt_caching = p.bool()?,
        }
        Ok(())
    })?;
    all_keys(p, mask, CAPS_FIELDS)?;
    Ok(c)
}

fn limits(p: &mut Parser<'_>) -> JResult<Limits> {
    let mut l = Limits::default();
    let mask = p.object(LIMITS_FIELDS, |p, i| {
        match i {
            0 => l.window_tokens = p.u64()?,
            1 => l.max_input_tokens = p.u64()?,
            _ => l.max_output_tokens = p.u64()?,
        }
        Ok(())
    })?;
    all_keys(p, mask, LIMITS_FIELDS)?;
    Ok(l)
}

fn sampling(p: &mut Parser<'_>) -> JResult<Sampling> {
    let mut s = Sampling::default();
    let mask = p.object(SAMPLING_FIELDS, |p, i| {
        match i {
            0 => s.temperature = float_or_null(p)?,
            1 => s.top_p = float_or_null(p)?,
            2 => s.max_tokens = i64_or_null(p)?,
            3 => s.stop = stop(p)?,
            _ => s.effort = string(p)?,
        }
        Ok(())
    })?;
    all_keys(p, mask, SAMPLING_FIELDS)?;
    Ok(s)
}

fn model(p: &mut Parser<'_>) -> JResult<Model> {
    let mut m = Model::default();
    let mask = p.object(MODEL_FIELDS, |p, i| {
        match i {
            0 => m.provider = string(p)?,
            1 => m.api_format = string(p)?,
            2 => m.base_url = string(p)?,
            3 => m.name = string(p)?,
            4 => m.origin = p.u8()?,
            5 => m.caps = caps(p)?,
            6 => m.limits = limits(p)?,
            _ => m.sampling = sampling(p)?,
        }
        Ok(())
    })?;
    all_keys(p, mask, MODEL_FIELDS)?;
    Ok(m)
}

/// R10.1: 36 bytes, `-` at offsets 8, 13, 18 and 23, ASCII hex digits of either case elsewhere.
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

fn basis(p: &mut Parser<'_>) -> JResult<Basis> {
    let mut b = Basis::default();
    let mask = p.object(BASIS_FIELDS, |p, i| {
        if i == 0 {
            b.revision = p.u64()?;
        } else {
            let token = p.str()?;
            let text = token.decode()?;
            if !is_uuid(&text) {
                return Err(JsonError::invalid(token.span().start));
            }
            b.through_event_id = text.into_owned();
        }
        Ok(())
    })?;
    all_keys(p, mask, BASIS_FIELDS)?;
    Ok(b)
}

fn document(p: &mut Parser<'_>) -> JResult<FingerprintInput> {
    let mut input = FingerprintInput::default();
    let mask = p.object(TOP_FIELDS, |p, i| {
        match i {
            0 => input.system_revision = string(p)?,
            1 => input.tool_policy_revision = string(p)?,
            2 => input.model = model(p)?,
            3 => input.basis = basis(p)?,
            4 => input.runtime_context_revision = string(p)?,
            // `null` is a valid capability elsewhere (P8.7), not here (D6).
            5 => input.counter = read_counter(p)?.ok_or_else(|| JsonError::invalid(p.token_start()))?,
            _ => input.inference = read_inference(p)?.ok_or_else(|| JsonError::invalid(p.token_start()))?,
        }
        Ok(())
    })?;
    all_keys(p, mask, TOP_FIELDS)?;
    p.finish()?;
    Ok(input)
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
        let mut p = Parser::new(json);
        document(&mut p).map_err(|e| Error::at(Status::FingerprintWire, e.offset))
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
        let id = &self.basis.through_event_id;
        let checks = [
            (!is_uuid(id), Status::FingerprintWire),
            (self.system_revision.is_empty(), Status::FingerprintSystemRevision),
            (self.tool_policy_revision.is_empty(), Status::FingerprintToolPolicyRevision),
            (self.runtime_context_revision.is_empty(), Status::FingerprintRuntimeContextRevision),
            (!self.model.is_valid(), Status::FingerprintModel),
            (self.basis.revision == 0 || id.bytes().all(|b| b == b'0' || b == b'-'), Status::FingerprintBasis),
            (!self.counter.is_valid(), Status::FingerprintCounterCapability),
            (!self.inference.is_valid(), Status::FingerprintInferenceCapability),
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
        let s = &self.model.sampling;
        if [s.temperature, s.top_p].into_iter().flatten().any(|x| !x.is_finite()) {
            return Err(Error::new(Status::FingerprintEncoding));
        }
        let mut out = Vec::with_capacity(1024);
        self.write(&mut out);
        Ok(out)
    }

    /// R10.5, with every float finite.
    fn write<S: Sink>(&self, out: &mut S) {
        let m = &self.model;
        out.put(b"{\"SystemRevision\":");
        put_str(out, &self.system_revision);
        out.put(b",\"ToolPolicyRevision\":");
        put_str(out, &self.tool_policy_revision);
        out.put(b",\"Model\":{\"Provider\":");
        put_str(out, &m.provider);
        out.put(b",\"APIFormat\":");
        put_str(out, &m.api_format);
        out.put(b",\"BaseURL\":");
        put_str(out, &m.base_url);
        out.put(b",\"Name\":");
        put_str(out, &m.name);
        out.put(b",\"Origin\":");
        put_u64(out, u64::from(m.origin));

        let c = &m.caps;
        out.put(b",\"Caps\":{\"AcceptsImages\":");
        put_bool(out, c.accepts_images);
        out.put(b",\"Tools\":");
        put_bool(out, c.tools);
        out.put(b",\"Thinking\":");
        put_bool(out, c.thinking);
        out.put(b",\"StructuredOutput\":");
        put_bool(out, c.structured_output);
        out.put(b",\"StructuredOutputWithTools\":");
        put_bool(out, c.structured_output_with_tools);
        out.put(b",\"ThinkingDialect\":");
        put_str(out, &c.thinking_dialect);
        out.put(b",\"PromptCaching\":");
        put_bool(out, c.prompt_caching);

        let l = &m.limits;
        out.put(b"},\"Limits\":{\"WindowTokens\":");
        put_u64(out, l.window_tokens);
        out.put(b",\"MaxInputTokens\":");
        put_u64(out, l.max_input_tokens);
        out.put(b",\"MaxOutputTokens\":");
        put_u64(out, l.max_output_tokens);

        let s = &m.sampling;
        out.put(b"},\"Sampling\":{\"Temperature\":");
        put_opt_f64(out, s.temperature);
        out.put(b",\"TopP\":");
        put_opt_f64(out, s.top_p);
        out.put(b",\"MaxTokens\":");
        match s.max_tokens {
            Some(n) => put_i64(out, n),
            None => out.put(b"null"),
        }
        out.put(b",\"Stop\":");
        match &s.stop {
            Some(stop) => {
                out.put(b"[");
                for (i, text) in stop.iter().enumerate() {
                    if i > 0 {
                        out.put(b",");
                    }
                    put_str(out, text);
                }
                out.put(b"]");
            }
            None => out.put(b"null"),
        }
        out.put(b",\"Effort\":");
        put_str(out, &s.effort);

        out.put(b"}},\"Basis\":{\"revision\":");
        put_u64(out, self.basis.revision);
        out.put(b",\"through_event_id\":");
        put_str(out, &self.basis.through_event_id.to_ascii_lowercase());
        out.put(b"},\"RuntimeContextRevision\":");
        put_str(out, &self.runtime_context_revision);

        let k = &self.counter;
        out.put(b",\"CounterCapability\":{\"Provider\":");
        put_str(out, &k.provider);
        out.put(b",\"Transport\":");
        put_u64(out, u64::from(k.transport));
        out.put(b",\"SecurityIdentity\":");
        put_identity(out, &k.security_identity);
        out.put(b",\"Retention\":");
        put_u64(out, u64::from(k.retention));
        out.put(b",\"TokenizerRev\":");
        put_str(out, &k.tokenizer_rev);
        out.put(b",\"Quality\":");
        put_u64(out, u64::from(k.quality));

        let f = &self.inference;
        out.put(b"},\"InferenceCapability\":{\"Provider\":");
        put_str(out, &f.provider);
        out.put(b",\"Transport\":");
        put_u64(out, u64::from(f.transport));
        out.put(b",\"SecurityIdentity\":");
        put_identity(out, &f.security_identity);
        out.put(b",\"Retention\":");
        put_u64(out, u64::from(f.retention));
        out.put(b"}}");
    }
}

impl Model {
    /// R10.3: whether the model is valid (`APIFormat`, `Origin`, `Effort` and the sampling values
    /// are not checked).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        let c = &self.caps;
        let l = &self.limits;
        let invalid = self.name.is_empty()
            || (c.structured_output_with_tools && !(c.tools && c.structured_output))
            || !matches!(c.thinking_dialect.as_str(), "" | "adaptive" | "budget")
            || (!c.thinking_dialect.is_empty() && !c.thinking)
            || (l.window_tokens != 0
                && (l.max_input_tokens > l.window_tokens || l.max_output_tokens > l.window_tokens))
            || (!self.base_url.is_empty() && !url::base_url_is_valid(&self.base_url))
            || self.provider.is_empty();
        !invalid
    }
}

fn put_opt_f64<S: Sink>(out: &mut S, x: Option<f64>) {
    match x {
        Some(x) => float::put_f64(out, x),
        None => out.put(b"null"),
    }
}

/// `SecurityIdentity`: 32 decimal integers, not base64 (R10.5), written in one piece.
fn put_identity<S: Sink>(out: &mut S, id: &[u8; 32]) {
    // `[` + 32 × (up to 3 digits + `,` or `]`).
    let mut buf = [0u8; 1 + 32 * 4];
    let mut len = 0;
    let mut push = |b: u8| {
        if let Some(slot) = buf.get_mut(len) {
            *slot = b;
            len += 1;
        }
    };
    push(b'[');
    for (i, &v) in id.iter().enumerate() {
        if i > 0 {
            push(b',');
        }
        if v >= 100 {
            push(b'0' + v / 100);
        }
        if v >= 10 {
            push(b'0' + v / 10 % 10);
        }
        push(b'0' + v % 10);
    }
    push(b']');
    out.put(buf.get(..len).unwrap_or_default());
}
