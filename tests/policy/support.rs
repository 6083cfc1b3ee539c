//! What every module of the policy tests shares: the status values (SPEC §3, from the test kit),
//! the A3.9 code sets, thin callers over the checked C-ABI wrappers, and builders of documents in
//! the reference's own encoding with one or more keys replaced or removed.

use std::ops::RangeInclusive;

use testkit::abi;
pub use testkit::status::{
    self, BOUNDARY_CODES as BOUNDARY, LC_CONTEXT_CONFLICTING_POLICY as CONTEXT_CONFLICTING_POLICY,
    LC_CONTEXT_INCOMPATIBLE_COUNTER as CONTEXT_INCOMPATIBLE_COUNTER,
    LC_CONTEXT_INVALID_COUNTER as CONTEXT_INVALID_COUNTER,
    LC_CONTEXT_INVALID_INFERENCE_CAPABILITY as CONTEXT_INVALID_INFERENCE_CAPABILITY,
    LC_CONTEXT_MISSING_COUNTER as CONTEXT_MISSING_COUNTER,
    LC_CONTEXT_MISSING_INFERENCE_CAPABILITY as CONTEXT_MISSING_INFERENCE_CAPABILITY,
    LC_CONTEXT_MISSING_POLICY as CONTEXT_MISSING_POLICY, LC_CONTEXT_WIRE as CONTEXT_WIRE,
    LC_ERR_LENGTH_OVERFLOW as LENGTH_OVERFLOW, LC_ERR_NULL_ARGUMENT as NULL_ARGUMENT,
    LC_LIMITS_UNKNOWN as LIMITS_UNKNOWN, LC_OBSERVATION_COUNT_TIMEOUT as OBSERVATION_COUNT_TIMEOUT,
    LC_OBSERVATION_RESERVED_OUTPUT as OBSERVATION_RESERVED_OUTPUT,
    LC_OBSERVATION_SAFETY_MARGIN as OBSERVATION_SAFETY_MARGIN, LC_OBSERVATION_WIRE as OBSERVATION_WIRE,
    LC_OCCUPANCY_ZERO_LIMIT as OCCUPANCY_ZERO_LIMIT, LC_OK as OK, LC_POLICY_COMPACT_AT as POLICY_COMPACT_AT,
    LC_POLICY_COUNT_TIMEOUT as POLICY_COUNT_TIMEOUT, LC_POLICY_COUNTER_POLICY as POLICY_COUNTER_POLICY,
    LC_POLICY_HUSTLE as POLICY_HUSTLE, LC_POLICY_MAX_SUMMARY_TOKENS as POLICY_MAX_SUMMARY_TOKENS,
    LC_POLICY_REARM_BELOW as POLICY_REARM_BELOW, LC_POLICY_RESERVED_OUTPUT as POLICY_RESERVED_OUTPUT,
    LC_POLICY_SAFETY_MARGIN as POLICY_SAFETY_MARGIN, LC_POLICY_WIRE as POLICY_WIRE,
    LC_SUMMARY_TOO_LARGE as SUMMARY_TOO_LARGE,
};
use testkit::status::{
    CONTEXT_CODES, OBSERVATION_CODES, OCCUPANCY_CODES, POLICY_CODES, REPLACEMENT_CODES, RESOLVE_CODES,
};

/// A3.9: the codes a function (by its vector `kind`) may return besides the boundary codes.
pub fn codes_of(kind: &str) -> &'static [RangeInclusive<i32>] {
    match kind {
        "compaction_policy" => POLICY_CODES,
        "observation_policy" => OBSERVATION_CODES,
        "context_config" => CONTEXT_CODES,
        "resolve_limits" => RESOLVE_CODES,
        "occupancy" => OCCUPANCY_CODES,
        "replacement" => REPLACEMENT_CODES,
        _ => &[],
    }
}

/// Whether `kind`'s function may return `code` (A3.9, boundary codes included).
pub fn allowed(kind: &str, code: i32) -> bool {
    BOUNDARY.contains(&code) || status::in_set(code, codes_of(kind))
}

// ---------------------------------------------------------------------------------------------
// Thin callers (the wrappers pass an empty document as `(NULL, 0)`).

pub fn compaction(json: &str, quality: i32) -> i32 {
    abi::compaction_policy(json.as_bytes(), quality)
}

pub fn compaction_bytes(json: &[u8], quality: i32) -> i32 {
    abi::compaction_policy(json, quality)
}

pub fn observation(json: &str, quality: i32) -> i32 {
    abi::context_observation(json.as_bytes(), quality)
}

pub fn context(json: &str) -> i32 {
    abi::context_config(json.as_bytes())
}

/// L9.1; the wrapper checks that `*out` is untouched on failure.
pub fn resolve(window: u64, max_input: u64, max_output: u64, reserved: u64, margin: u64) -> Result<[u64; 3], i32> {
    let limits = loopcompact::ffi::lc_context_limits {
        window_tokens: window,
        max_input_tokens: max_input,
        max_output_tokens: max_output,
    };
    abi::context_limits_resolve(limits, reserved, margin)
        .map(|out| [out.reserved_output, out.raw_input_limit, out.input_limit])
}

/// L9.2; the wrapper checks that `*out` is untouched on failure.
pub fn occupancy(used: u64, limit: u64) -> Result<u16, i32> {
    abi::occupancy_basis_points(used, limit)
}

// ---------------------------------------------------------------------------------------------
// Document builders: the reference's own encoding with one or more keys replaced or removed.

/// A valid automatic compaction policy (P8.2) for any quality 1–3.
pub const POLICY: &[(&str, &str)] = &[
    ("Automatic", "true"),
    ("CounterPolicy", "2"),
    ("CompactAt", "8000"),
    ("RearmBelow", "6000"),
    ("ReservedOutput", "10"),
    ("SafetyMargin", "2"),
    ("MaxSummaryTokens", "5"),
    ("CountTimeout", "17000000"),
    ("Hustle", "\"context.compact\""),
];

/// A valid observation policy (P8.6) for any quality.
pub const OBSERVATION: &[(&str, &str)] =
    &[("ReservedOutput", "32"), ("SafetyMargin", "8"), ("CountTimeout", "37000001")];

/// `{"k":v,...}` from `base`, each `(key, Some(v))` of `set` replacing or appending a value and each
/// `(key, None)` removing the key.
pub fn object(base: &[(&str, &str)], set: &[(&str, Option<&str>)]) -> String {
    let mut fields: Vec<(String, String)> = base.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    for (key, value) in set {
        let at = fields.iter().position(|(k, _)| k == key);
        match (at, value) {
            (Some(i), Some(v)) => fields[i].1 = (*v).to_owned(),
            (Some(i), None) => {
                fields.remove(i);
            }
            (None, Some(v)) => fields.push(((*key).to_owned(), (*v).to_owned())),
            (None, None) => {}
        }
    }
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}

/// `Some(x)` with the `&String` to `&str` coercion that `Some(&x)` lacks.
pub fn s(x: &str) -> Option<&str> {
    Some(x)
}

pub fn policy(set: &[(&str, Option<&str>)]) -> String {
    object(POLICY, set)
}

pub fn manual(set: &[(&str, Option<&str>)]) -> String {
    let mut all = vec![("Automatic", Some("false"))];
    all.extend_from_slice(set);
    object(POLICY, &all)
}

pub fn obs(set: &[(&str, Option<&str>)]) -> String {
    object(OBSERVATION, set)
}

/// `SecurityIdentity` of `n` bytes all equal to `fill`.
pub fn identity(fill: u8, n: usize) -> String {
    format!("[{}]", vec![fill.to_string(); n].join(","))
}

/// Counter transports, inference transports and retentions (P8.7).
pub const C_LOCAL: u8 = 1;
pub const C_SAME: u8 = 2;
pub const C_SEPARATE: u8 = 3;
pub const I_LOCAL: u8 = 1;
pub const I_TLS: u8 = 2;
pub const I_ATTESTED: u8 = 3;
pub const I_E2E: u8 = 4;
pub const R_UNKNOWN: u8 = 0;
pub const R_NONE: u8 = 1;
pub const R_EPHEMERAL: u8 = 2;
pub const R_LOGGED: u8 = 3;

#[derive(Clone)]
pub struct Counter {
    pub provider: &'static str,
    pub transport: u8,
    pub id: u8,
    pub retention: u8,
    pub tokenizer_rev: &'static str,
    pub quality: u8,
}

impl Counter {
    /// A provider-neutral counter (P8.11) of quality 2.
    pub fn neutral() -> Counter {
        Counter { provider: "", transport: C_LOCAL, id: 0, retention: R_NONE, tokenizer_rev: "exact-v1", quality: 2 }
    }
    pub fn json(&self) -> String {
        format!(
            "{{\"Provider\":\"{}\",\"Transport\":{},\"SecurityIdentity\":{},\"Retention\":{},\"TokenizerRev\":\"{}\",\"Quality\":{}}}",
            self.provider,
            self.transport,
            identity(self.id, 32),
            self.retention,
            self.tokenizer_rev,
            self.quality
        )
    }
}

#[derive(Clone)]
pub struct Inference {
    pub provider: &'static str,
    pub transport: u8,
    pub id: u8,
    pub retention: u8,
}

impl Inference {
    pub fn tls() -> Inference {
        Inference { provider: "p", transport: I_TLS, id: 7, retention: R_LOGGED }
    }
    pub fn json(&self) -> String {
        format!(
            "{{\"Provider\":\"{}\",\"Transport\":{},\"SecurityIdentity\":{},\"Retention\":{}}}",
            self.provider,
            self.transport,
            identity(self.id, 32),
            self.retention
        )
    }
}

pub fn config(
    compaction: Option<&str>,
    observation: Option<&str>,
    counter: Option<&str>,
    inference: Option<&str>,
) -> String {
    format!(
        "{{\"Compaction\":{},\"ContextObservation\":{},\"CounterCapability\":{},\"InferenceCapability\":{}}}",
        compaction.unwrap_or("null"),
        observation.unwrap_or("null"),
        counter.unwrap_or("null"),
        inference.unwrap_or("null")
    )
}

/// A complete config with a valid manual compaction policy and these capabilities.
pub fn pair(counter: &Counter, inference: &Inference) -> String {
    config(s(&manual(&[])), None, s(&counter.json()), s(&inference.json()))
}

/// Collects failures so that a test reports all of them at once.
#[derive(Default)]
pub struct Failures(pub Vec<String>);

impl Failures {
    pub fn check<T: std::fmt::Debug + PartialEq>(&mut self, what: impl std::fmt::Display, got: T, want: T) {
        if got != want {
            self.0.push(format!("{what}: got {got:?}, want {want:?}"));
        }
    }
    pub fn finish(self) {
        assert!(self.0.is_empty(), "{} failure(s):\n{}", self.0.len(), self.0.join("\n"));
    }
}

// ---------------------------------------------------------------------------------------------
// V12.3: the conformance vectors.
