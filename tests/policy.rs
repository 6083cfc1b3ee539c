//! Policies (SPEC §8) and context limits, occupancy, pressure, replacement (SPEC §9) through the C
//! ABI: every row of `tests/vectors/policy.jsonl` (V12.3), then the field boundaries, every check
//! order step, the capability tables (P8.9–P8.11) and the D6 divergences. Every expected value is
//! taken from the spec text, not from running the implementation.
// The case tables are tuples on purpose: one line per case, read against the spec.
#![allow(clippy::type_complexity)]

mod common;

use std::collections::BTreeMap;
use std::ptr;

use loopcompact::Status;
use loopcompact::ffi::{
    lc_compaction_policy_validate, lc_context_config_validate, lc_context_limits, lc_context_limits_resolve,
    lc_context_observation_validate, lc_occupancy_basis_points, lc_pressure_level, lc_replacement_check,
    lc_resolved_limits,
};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Status values (SPEC §3), written out here so that the tests do not depend on the table.

const OK: i32 = 0;
const NULL_ARGUMENT: i32 = 1;
const LENGTH_OVERFLOW: i32 = 3;
const SUMMARY_TOO_LARGE: i32 = 250;
const POLICY_WIRE: i32 = 300;
const POLICY_COUNTER_POLICY: i32 = 301;
const POLICY_COMPACT_AT: i32 = 302;
const POLICY_REARM_BELOW: i32 = 303;
const POLICY_RESERVED_OUTPUT: i32 = 304;
const POLICY_SAFETY_MARGIN: i32 = 305;
const POLICY_MAX_SUMMARY_TOKENS: i32 = 306;
const POLICY_COUNT_TIMEOUT: i32 = 307;
const POLICY_HUSTLE: i32 = 308;
const OBSERVATION_WIRE: i32 = 320;
const OBSERVATION_RESERVED_OUTPUT: i32 = 321;
const OBSERVATION_SAFETY_MARGIN: i32 = 322;
const OBSERVATION_COUNT_TIMEOUT: i32 = 323;
const CONTEXT_WIRE: i32 = 340;
const CONTEXT_CONFLICTING_POLICY: i32 = 341;
const CONTEXT_MISSING_COUNTER: i32 = 342;
const CONTEXT_MISSING_INFERENCE_CAPABILITY: i32 = 343;
const CONTEXT_MISSING_POLICY: i32 = 344;
const CONTEXT_INVALID_COUNTER: i32 = 345;
const CONTEXT_INVALID_INFERENCE_CAPABILITY: i32 = 346;
const CONTEXT_INCOMPATIBLE_COUNTER: i32 = 347;
const LIMITS_UNKNOWN: i32 = 360;
const OCCUPANCY_ZERO_LIMIT: i32 = 361;

/// Boundary codes any function may return (A3.9).
const BOUNDARY: &[i32] = &[0, 1, 3, 99];

/// A3.9: the codes each function may return besides the boundary codes.
fn codes_of(kind: &str) -> Vec<i32> {
    let mut codes: Vec<i32> = match kind {
        "compaction_policy" => (300..=308).collect(),
        "observation_policy" => (320..=323).collect(),
        "context_config" => (340..=347).chain(301..=308).chain(321..=323).collect(),
        "resolve_limits" => vec![360],
        "occupancy" => vec![361],
        "replacement" => vec![250],
        _ => vec![],
    };
    codes.extend_from_slice(BOUNDARY);
    codes
}

// ---------------------------------------------------------------------------------------------
// Thin callers.

fn compaction(json: &str, quality: i32) -> i32 {
    unsafe { lc_compaction_policy_validate(json.as_ptr(), json.len(), quality) }
}

fn compaction_bytes(json: &[u8], quality: i32) -> i32 {
    unsafe { lc_compaction_policy_validate(json.as_ptr(), json.len(), quality) }
}

fn observation(json: &str, quality: i32) -> i32 {
    unsafe { lc_context_observation_validate(json.as_ptr(), json.len(), quality) }
}

fn context(json: &str) -> i32 {
    unsafe { lc_context_config_validate(json.as_ptr(), json.len()) }
}

fn resolve(window: u64, max_input: u64, max_output: u64, reserved: u64, margin: u64) -> Result<[u64; 3], i32> {
    let limits =
        lc_context_limits { window_tokens: window, max_input_tokens: max_input, max_output_tokens: max_output };
    let sentinel = lc_resolved_limits { reserved_output: 7, raw_input_limit: 7, input_limit: 7 };
    let mut out = sentinel;
    let rc = unsafe { lc_context_limits_resolve(limits, reserved, margin, &mut out) };
    if rc == OK {
        Ok([out.reserved_output, out.raw_input_limit, out.input_limit])
    } else {
        assert_eq!(out, sentinel, "out written on failure {rc}");
        Err(rc)
    }
}

fn occupancy(used: u64, limit: u64) -> Result<u16, i32> {
    let mut out = 0xBEEF_u16;
    let rc = unsafe { lc_occupancy_basis_points(used, limit, &mut out) };
    if rc == OK {
        Ok(out)
    } else {
        assert_eq!(out, 0xBEEF, "out written on failure {rc}");
        Err(rc)
    }
}

// ---------------------------------------------------------------------------------------------
// Document builders: the reference's own encoding with one or more keys replaced or removed.

/// A valid automatic compaction policy (P8.2) for any quality 1–3.
const POLICY: &[(&str, &str)] = &[
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
const OBSERVATION: &[(&str, &str)] = &[("ReservedOutput", "32"), ("SafetyMargin", "8"), ("CountTimeout", "37000001")];

/// `{"k":v,...}` from `base`, each `(key, Some(v))` of `set` replacing or appending a value and each
/// `(key, None)` removing the key.
fn object(base: &[(&str, &str)], set: &[(&str, Option<&str>)]) -> String {
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
fn s(x: &str) -> Option<&str> {
    Some(x)
}

fn policy(set: &[(&str, Option<&str>)]) -> String {
    object(POLICY, set)
}

fn manual(set: &[(&str, Option<&str>)]) -> String {
    let mut all = vec![("Automatic", Some("false"))];
    all.extend_from_slice(set);
    object(POLICY, &all)
}

fn obs(set: &[(&str, Option<&str>)]) -> String {
    object(OBSERVATION, set)
}

/// `SecurityIdentity` of `n` bytes all equal to `fill`.
fn identity(fill: u8, n: usize) -> String {
    format!("[{}]", vec![fill.to_string(); n].join(","))
}

/// Counter transports, inference transports and retentions (P8.7).
const C_LOCAL: u8 = 1;
const C_SAME: u8 = 2;
const C_SEPARATE: u8 = 3;
const I_LOCAL: u8 = 1;
const I_TLS: u8 = 2;
const I_ATTESTED: u8 = 3;
const I_E2E: u8 = 4;
const R_UNKNOWN: u8 = 0;
const R_NONE: u8 = 1;
const R_EPHEMERAL: u8 = 2;
const R_LOGGED: u8 = 3;

#[derive(Clone)]
struct Counter {
    provider: &'static str,
    transport: u8,
    id: u8,
    retention: u8,
    tokenizer_rev: &'static str,
    quality: u8,
}

impl Counter {
    /// A provider-neutral counter (P8.11) of quality 2.
    fn neutral() -> Counter {
        Counter { provider: "", transport: C_LOCAL, id: 0, retention: R_NONE, tokenizer_rev: "exact-v1", quality: 2 }
    }
    fn json(&self) -> String {
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
struct Inference {
    provider: &'static str,
    transport: u8,
    id: u8,
    retention: u8,
}

impl Inference {
    fn tls() -> Inference {
        Inference { provider: "p", transport: I_TLS, id: 7, retention: R_LOGGED }
    }
    fn json(&self) -> String {
        format!(
            "{{\"Provider\":\"{}\",\"Transport\":{},\"SecurityIdentity\":{},\"Retention\":{}}}",
            self.provider,
            self.transport,
            identity(self.id, 32),
            self.retention
        )
    }
}

fn config(
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
fn pair(counter: &Counter, inference: &Inference) -> String {
    config(s(&manual(&[])), None, s(&counter.json()), s(&inference.json()))
}

/// Collects failures so that a test reports all of them at once.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn check<T: std::fmt::Debug + PartialEq>(&mut self, what: impl std::fmt::Display, got: T, want: T) {
        if got != want {
            self.0.push(format!("{what}: got {got:?}, want {want:?}"));
        }
    }
    fn finish(self) {
        assert!(self.0.is_empty(), "{} failure(s):\n{}", self.0.len(), self.0.join("\n"));
    }
}

// ---------------------------------------------------------------------------------------------
// V12.3: the conformance vectors.

fn u64_of(row: &Value, field: &str) -> u64 {
    row.get(field).and_then(Value::as_u64).unwrap_or_else(|| panic!("{}: no u64 {field}", common::name(row)))
}

fn i32_of(row: &Value, field: &str) -> i32 {
    let v = row.get(field).and_then(Value::as_i64).unwrap_or_else(|| panic!("{}: no {field}", common::name(row)));
    i32::try_from(v).unwrap_or_else(|_| panic!("{}: {field} out of i32", common::name(row)))
}

fn u16_of(row: &Value, field: &str) -> u16 {
    u16::try_from(u64_of(row, field)).unwrap_or_else(|_| panic!("{}: {field} out of u16", common::name(row)))
}

/// Runs one row; returns a failure message, or `None` when it passes.
fn run_row(row: &Value) -> Option<String> {
    let kind = row.get("kind").and_then(Value::as_str).unwrap_or("");
    let expect = row.get("expect").cloned().unwrap_or(Value::Null);
    let (rc, detail): (i32, Option<String>) = match kind {
        "compaction_policy" | "observation_policy" => {
            let bytes = common::bytes_field(row, "policy").expect("policy");
            let ptr = common::ptr_of(row, &bytes);
            let quality = i32_of(row, "counter_quality");
            let rc = unsafe {
                if kind == "compaction_policy" {
                    lc_compaction_policy_validate(ptr, bytes.len(), quality)
                } else {
                    lc_context_observation_validate(ptr, bytes.len(), quality)
                }
            };
            (rc, None)
        }
        "context_config" => {
            let bytes = common::bytes_field(row, "config").expect("config");
            let rc = unsafe { lc_context_config_validate(common::ptr_of(row, &bytes), bytes.len()) };
            let want = row.get("expect_status").and_then(Value::as_str).expect("expect_status");
            let got = common::status_name(rc);
            (rc, (got != want).then(|| format!("got {got}, want {want}")))
        }
        "resolve_limits" => {
            let limits = row.get("limits").expect("limits");
            let result = resolve(
                u64_of(limits, "window_tokens"),
                u64_of(limits, "max_input_tokens"),
                u64_of(limits, "max_output_tokens"),
                u64_of(row, "reserved_output"),
                u64_of(row, "safety_margin"),
            );
            match result {
                Ok(got) => {
                    let out = row.get("out").expect("out");
                    let want =
                        [u64_of(out, "reserved_output"), u64_of(out, "raw_input_limit"), u64_of(out, "input_limit")];
                    (OK, (got != want).then(|| format!("out {got:?}, want {want:?}")))
                }
                Err(rc) => (rc, None),
            }
        }
        "occupancy" => match occupancy(u64_of(row, "used"), u64_of(row, "limit")) {
            Ok(got) => {
                let want = u64_of(row, "out");
                (OK, (u64::from(got) != want).then(|| format!("out {got}, want {want}")))
            }
            Err(rc) => (rc, None),
        },
        "pressure" => {
            let automatic = row.get("automatic").and_then(Value::as_bool).expect("automatic");
            let level = lc_pressure_level(
                i32_of(row, "previous_level"),
                u16_of(row, "occupancy"),
                automatic,
                u16_of(row, "compact_at"),
                u16_of(row, "rearm_below"),
            );
            let want = expect.as_i64().expect("integer expect");
            return (i64::from(level) != want).then(|| format!("level {level}, want {want}"));
        }
        "replacement" => (lc_replacement_check(u64_of(row, "input_tokens"), u64_of(row, "input_limit")), None),
        other => return Some(format!("unknown kind {other:?}")),
    };
    if !codes_of(kind).contains(&rc) {
        return Some(format!("code {rc} is not one of {kind}'s codes (A3.9)"));
    }
    if let Some(detail) = detail {
        return Some(detail);
    }
    if kind != "context_config" {
        let want = expect.as_str().expect("string expect");
        let got = common::verdict(rc);
        if got != want {
            return Some(format!("got {got:?} ({rc}), want {want:?}"));
        }
    }
    None
}

#[test]
fn vectors() {
    let rows = common::rows("policy.jsonl");
    let mut passed: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for row in &rows {
        let kind = row.get("kind").and_then(Value::as_str).unwrap_or("").to_owned();
        match run_row(row) {
            None => *passed.entry(kind).or_default() += 1,
            Some(why) => failures.push(format!("[{kind}] {}: {why}", common::name(row))),
        }
    }
    eprintln!("policy.jsonl: {passed:?}");
    assert!(failures.is_empty(), "{} of {} rows failed:\n{}", failures.len(), rows.len(), failures.join("\n"));
    for kind in [
        "compaction_policy",
        "observation_policy",
        "context_config",
        "resolve_limits",
        "occupancy",
        "pressure",
        "replacement",
    ] {
        assert!(passed.get(kind).copied().unwrap_or(0) > 0, "no {kind} rows");
    }
}

// ---------------------------------------------------------------------------------------------
// P8.2–P8.5: compaction policy.

#[test]
fn compaction_base_documents_are_valid() {
    for q in 1..=3 {
        assert_eq!(compaction(&policy(&[]), q), OK, "automatic, q {q}");
        assert_eq!(compaction(&manual(&[]), q), OK, "manual, q {q}");
    }
}

#[test]
fn compaction_field_boundaries() {
    let mut f = Failures::default();
    let u64_max = u64::MAX.to_string();
    let i64_max = i64::MAX.to_string();
    let i64_min = i64::MIN.to_string();
    let cases: &[(&str, &str, i32)] = &[
        ("ReservedOutput", "0", POLICY_RESERVED_OUTPUT),
        ("ReservedOutput", "1", OK),
        ("ReservedOutput", &u64_max, OK),
        ("ReservedOutput", "18446744073709551616", POLICY_WIRE),
        ("MaxSummaryTokens", "0", POLICY_MAX_SUMMARY_TOKENS),
        ("MaxSummaryTokens", "1", OK),
        ("MaxSummaryTokens", &u64_max, OK),
        ("MaxSummaryTokens", "18446744073709551616", POLICY_WIRE),
        ("CountTimeout", "0", POLICY_COUNT_TIMEOUT),
        ("CountTimeout", "-0", POLICY_COUNT_TIMEOUT),
        ("CountTimeout", "-1", POLICY_COUNT_TIMEOUT),
        ("CountTimeout", &i64_min, POLICY_COUNT_TIMEOUT),
        ("CountTimeout", "-9223372036854775809", POLICY_WIRE),
        ("CountTimeout", "1", OK),
        ("CountTimeout", &i64_max, OK),
        ("CountTimeout", "9223372036854775808", POLICY_WIRE),
        ("CountTimeout", "1e9", POLICY_WIRE),
        ("SafetyMargin", "0", OK),
        ("SafetyMargin", "1", OK),
        ("SafetyMargin", &u64_max, OK),
        ("SafetyMargin", "-1", POLICY_WIRE),
        // CompactAt and RearmBelow (P8.3 steps 7 and 8).
        ("CompactAt", "0", POLICY_REARM_BELOW),
        ("CompactAt", "6000", POLICY_REARM_BELOW),
        ("CompactAt", "6001", OK),
        ("CompactAt", "9999", OK),
        ("CompactAt", "10000", POLICY_COMPACT_AT),
        ("CompactAt", "65535", POLICY_COMPACT_AT),
        ("CompactAt", "65536", POLICY_WIRE),
        ("RearmBelow", "0", POLICY_REARM_BELOW),
        ("RearmBelow", "1", OK),
        ("RearmBelow", "7999", OK),
        ("RearmBelow", "8000", POLICY_REARM_BELOW),
        ("RearmBelow", "8001", POLICY_REARM_BELOW),
        ("RearmBelow", "65535", POLICY_REARM_BELOW),
        ("RearmBelow", "65536", POLICY_WIRE),
        // CounterPolicy: u8 (J5.6), 0 and values above 2 accept nothing (P8.4).
        ("CounterPolicy", "0", POLICY_COUNTER_POLICY),
        ("CounterPolicy", "1", OK),
        ("CounterPolicy", "2", OK),
        ("CounterPolicy", "3", POLICY_COUNTER_POLICY),
        ("CounterPolicy", "255", POLICY_COUNTER_POLICY),
        ("CounterPolicy", "256", POLICY_WIRE),
    ];
    for (key, value, want) in cases {
        // Quality 2 (exact local): accepted by both valid counter policies, needs no margin.
        f.check(format_args!("{key}={value}"), compaction(&policy(&[(key, Some(value))]), 2), *want);
    }
    // Extremes together, automatic, with every threshold at its valid limit.
    let doc = policy(&[
        ("CompactAt", Some("9999")),
        ("RearmBelow", Some("9998")),
        ("ReservedOutput", s(&u64_max)),
        ("SafetyMargin", s(&u64_max)),
        ("MaxSummaryTokens", s(&u64_max)),
        ("CountTimeout", s(&i64_max)),
    ]);
    f.check("all maxima", compaction(&doc, 3), OK);
    let doc = policy(&[
        ("CompactAt", Some("2")),
        ("RearmBelow", Some("1")),
        ("ReservedOutput", Some("1")),
        ("SafetyMargin", Some("1")),
        ("MaxSummaryTokens", Some("1")),
        ("CountTimeout", Some("1")),
    ]);
    f.check("all minima", compaction(&doc, 3), OK);
    f.finish();
}

#[test]
fn compaction_compact_at_equals_rearm_below() {
    // P8.3 step 7: RearmBelow >= CompactAt, checked before CompactAt.
    for v in ["1", "6000", "9999", "10000", "65535"] {
        let doc = policy(&[("CompactAt", Some(v)), ("RearmBelow", Some(v))]);
        assert_eq!(compaction(&doc, 2), POLICY_REARM_BELOW, "CompactAt = RearmBelow = {v}");
    }
    // Manual mode ignores it.
    let doc = manual(&[("CompactAt", Some("8000")), ("RearmBelow", Some("8000"))]);
    assert_eq!(compaction(&doc, 2), OK);
}

#[test]
fn compaction_check_order() {
    // A policy failing every step, automatic, heuristic counter; repairing one field at a time
    // walks P8.3 in order.
    let steps: &[(&str, &str, i32)] = &[
        ("ReservedOutput", "1", POLICY_RESERVED_OUTPUT),
        ("MaxSummaryTokens", "1", POLICY_MAX_SUMMARY_TOKENS),
        ("CountTimeout", "1", POLICY_COUNT_TIMEOUT),
        ("Hustle", "\"h\"", POLICY_HUSTLE),
        ("SafetyMargin", "1", POLICY_SAFETY_MARGIN),
        ("RearmBelow", "1", POLICY_REARM_BELOW),
        ("CompactAt", "9999", POLICY_COMPACT_AT),
        ("CounterPolicy", "2", POLICY_COUNTER_POLICY),
    ];
    let mut fields: Vec<(&str, Option<&str>)> = vec![
        ("Automatic", Some("true")),
        ("CounterPolicy", Some("0")),
        ("CompactAt", Some("10000")),
        ("RearmBelow", Some("0")),
        ("ReservedOutput", Some("0")),
        ("SafetyMargin", Some("0")),
        ("MaxSummaryTokens", Some("0")),
        ("CountTimeout", Some("0")),
        ("Hustle", Some("\"_looprig.x\"")),
    ];
    for (key, fix, want) in steps {
        assert_eq!(compaction(&policy(&fields), 3), *want, "before fixing {key}");
        let slot = fields.iter_mut().find(|(k, _)| *k == *key).expect("key");
        slot.1 = Some(*fix);
    }
    assert_eq!(compaction(&policy(&fields), 3), OK);

    // Step 6: the same broken thresholds and counter policy pass in manual mode.
    let doc = manual(&[("CounterPolicy", Some("0")), ("CompactAt", Some("10000")), ("RearmBelow", Some("0"))]);
    assert_eq!(compaction(&doc, 0), OK);
    // Step 7 before step 8 even when CompactAt is out of range.
    let doc = policy(&[("CompactAt", Some("20000")), ("RearmBelow", Some("30000"))]);
    assert_eq!(compaction(&doc, 2), POLICY_REARM_BELOW);
}

#[test]
fn compaction_heuristic_margin_in_both_modes() {
    // P8.3 step 5: also when not automatic.
    for mode in ["true", "false"] {
        let without = policy(&[("Automatic", Some(mode)), ("SafetyMargin", Some("0"))]);
        let with = policy(&[("Automatic", Some(mode)), ("SafetyMargin", Some("1"))]);
        assert_eq!(compaction(&without, 3), POLICY_SAFETY_MARGIN, "Automatic {mode}, no margin");
        assert_eq!(compaction(&with, 3), OK, "Automatic {mode}, margin 1");
        // Exact counters need no margin.
        for q in [1, 2] {
            assert_eq!(compaction(&without, q), OK, "Automatic {mode}, q {q}");
        }
    }
}

#[test]
fn compaction_counter_table() {
    // P8.4, with A3.5: any quality outside 0–3 is unknown and accepted by no policy.
    let qualities = [i32::MIN, -1, 0, 1, 2, 3, 4, 99, 259, 256 + 2, i32::MAX];
    let accepted = |policy: u8, q: i32| match policy {
        1 => [1, 2].contains(&q),
        2 => [1, 2, 3].contains(&q),
        _ => false,
    };
    let mut f = Failures::default();
    for policy_value in [0u8, 1, 2, 3, 4, 255] {
        for q in qualities {
            let doc = policy(&[("CounterPolicy", s(&policy_value.to_string()))]);
            let want = if accepted(policy_value, q) { OK } else { POLICY_COUNTER_POLICY };
            f.check(format_args!("CounterPolicy {policy_value}, q {q}"), compaction(&doc, q), want);
        }
    }
    f.finish();
}

#[test]
fn compaction_unknown_qualities_are_not_heuristic() {
    // A3.5: no truncation; 259 = 0x103 and 258 = 0x102 are unknown, not 3 or 2.
    for q in [-1, 4, 259, 258, i32::MIN, i32::MAX, -253] {
        assert_eq!(compaction(&manual(&[("SafetyMargin", Some("0"))]), q), OK, "manual, q {q}");
        assert_eq!(compaction(&policy(&[("SafetyMargin", Some("0"))]), q), POLICY_COUNTER_POLICY, "automatic, q {q}");
    }
}

#[test]
fn compaction_hustle_names() {
    // P8.5: White_Space of X4.21 trimmed from both ends; `_looprig.` reserved, case-sensitive.
    let blank = [
        "",
        " ",
        "\\t",
        "\\n",
        "\\r",
        "\\u000b",
        "\\f",
        "\\u0085",
        "\\u00a0",
        "\\u1680",
        "\\u2000",
        "\\u200a",
        "\\u2028",
        "\\u2029",
        "\\u202f",
        "\\u205f",
        "\\u3000",
        " \\t\\n\\u3000 ",
    ];
    let valid = [
        "\\u200b",
        "\\ufeff",
        "\\u180e",
        "\\u001c",
        "\\u001f",
        "\\u0000",
        "\\ud800",
        "x",
        " context.compact ",
        "_looprig",
        "_LoopRig.x",
        "_LOOPRIG.x",
        "x_looprig.y",
        "looprig.x",
        "_looprig\\u2024x",
    ];
    let reserved = ["_looprig.", "_looprig.compact", " _looprig.x", "\\u3000_looprig.x\\t", "\\u005flooprig.x"];
    let mut f = Failures::default();
    for name in blank.iter().chain(&reserved) {
        let doc = manual(&[("Hustle", s(&format!("\"{name}\"")))]);
        f.check(format_args!("Hustle {name:?}"), compaction(&doc, 2), POLICY_HUSTLE);
    }
    for name in valid {
        let doc = manual(&[("Hustle", s(&format!("\"{name}\"")))]);
        f.check(format_args!("Hustle {name:?}"), compaction(&doc, 2), OK);
    }
    // Raw (unescaped) non-ASCII White_Space and a raw ZWSP.
    for (name, want) in
        [("\u{a0}", POLICY_HUSTLE), ("\u{3000}x\u{2029}", OK), ("\u{200b}", OK), ("\u{2028}", POLICY_HUSTLE)]
    {
        let doc = manual(&[("Hustle", s(&format!("\"{name}\"")))]);
        f.check(format_args!("raw Hustle {name:?}"), compaction(&doc, 2), want);
    }
    f.finish();
}

#[test]
fn compaction_d6_and_json() {
    let mut f = Failures::default();
    for (key, _) in POLICY {
        f.check(format_args!("missing {key}"), compaction(&policy(&[(key, None)]), 2), POLICY_WIRE);
        f.check(format_args!("null {key}"), compaction(&policy(&[(key, Some("null"))]), 2), POLICY_WIRE);
        // Also in manual mode, where the value would be ignored.
        f.check(format_args!("manual, missing {key}"), compaction(&manual(&[(key, None)]), 2), POLICY_WIRE);
    }
    let cases: &[(&str, String)] = &[
        ("whole document null", "null".to_owned()),
        ("whole document null with spaces", " null ".to_owned()),
        ("empty object", "{}".to_owned()),
        ("array", "[]".to_owned()),
        ("string", "\"x\"".to_owned()),
        ("empty", String::new()),
        ("whitespace only", " \n".to_owned()),
        ("KeepRecentSegments", policy(&[("KeepRecentSegments", Some("2"))])),
        ("KeepRecentTokens", policy(&[("KeepRecentTokens", Some("100"))])),
        ("lower-case key", policy(&[("Automatic", None), ("automatic", Some("true"))])),
        ("long-s key", policy(&[("Hustle", None), ("Hu\\u017Ftle", Some("\"x\""))])),
        ("duplicate key", policy(&[]).replacen('}', ",\"CompactAt\":8000}", 1)),
        ("duplicate key via escape", policy(&[]).replacen('}', ",\"\\u0043ompactAt\":8000}", 1)),
        ("second value", format!("{} {{}}", policy(&[]))),
        ("second null", format!("{}null", policy(&[]))),
        ("BOM", format!("\u{feff}{}", policy(&[]))),
        ("Automatic as string", policy(&[("Automatic", Some("\"true\""))])),
        ("Automatic as 1", policy(&[("Automatic", Some("1"))])),
        ("CompactAt as float", policy(&[("CompactAt", Some("8000.0"))])),
        ("CompactAt exponent", policy(&[("CompactAt", Some("8e3"))])),
        ("CompactAt as string", policy(&[("CompactAt", Some("\"8000\""))])),
        ("Hustle as number", policy(&[("Hustle", Some("5"))])),
        ("Hustle as array", policy(&[("Hustle", Some("[\"x\"]"))])),
        ("Hustle bad escape", policy(&[("Hustle", Some("\"\\x\""))])),
        ("leading zero", policy(&[("ReservedOutput", Some("010"))])),
        ("plus sign", policy(&[("ReservedOutput", Some("+10"))])),
        ("trailing comma", policy(&[]).replacen('}', ",}", 1)),
        ("unclosed", policy(&[]).trim_end_matches('}').to_owned()),
    ];
    for (what, doc) in cases {
        f.check(what, compaction(doc, 2), POLICY_WIRE);
    }
    // Escaped key names decode to the layout's names (J5.5).
    let escaped = policy(&[("Automatic", None), ("\\u0041utomatic", Some("true"))]);
    f.check("escaped key", compaction(&escaped, 2), OK);
    // Whitespace around and inside the document (J5.1).
    let spaced = format!(" \t\r\n{} \n", policy(&[]).replace(',', " ,\n ").replace(':', " : "));
    f.check("whitespace", compaction(&spaced, 2), OK);
    // Key order is free.
    let reversed =
        format!("{{{}}}", POLICY.iter().rev().map(|(k, v)| format!("\"{k}\":{v}")).collect::<Vec<_>>().join(","));
    f.check("reversed keys", compaction(&reversed, 2), OK);
    // A wire error wins over every value error.
    let doc = policy(&[("ReservedOutput", Some("0")), ("Extra", Some("1"))]);
    f.check("wire before value", compaction(&doc, 2), POLICY_WIRE);
    f.finish();
}

#[test]
fn compaction_invalid_utf8() {
    let valid = manual(&[("Hustle", Some("\"context.compact\""))]);
    let at = valid.find("context.compact").expect("hustle") + 3;
    for bad in [&[0xFFu8][..], &[0xC0, 0xAF], &[0xED, 0xA0, 0x80], &[0xE2, 0x82], &[0x80], &[0xF4, 0x90, 0x80, 0x80]] {
        let mut doc = valid.as_bytes().to_vec();
        doc.splice(at..at, bad.iter().copied());
        assert_eq!(compaction_bytes(&doc, 2), POLICY_WIRE, "{bad:02x?} in Hustle");
    }
    // In a key.
    let mut doc = valid.as_bytes().to_vec();
    doc.splice(2..2, [0xFF]);
    assert_eq!(compaction_bytes(&doc, 2), POLICY_WIRE, "invalid UTF-8 in a key");
}

#[test]
fn policy_buffers() {
    // (NULL, 0) is the empty buffer: not JSON → wire. (NULL, n > 0) → NULL_ARGUMENT.
    unsafe {
        assert_eq!(lc_compaction_policy_validate(ptr::null(), 0, 2), POLICY_WIRE);
        assert_eq!(lc_compaction_policy_validate(ptr::null(), 1, 2), NULL_ARGUMENT);
        assert_eq!(lc_compaction_policy_validate(ptr::null(), usize::MAX, 2), NULL_ARGUMENT);
        assert_eq!(lc_context_observation_validate(ptr::null(), 0, 2), OBSERVATION_WIRE);
        assert_eq!(lc_context_observation_validate(ptr::null(), 5, 2), NULL_ARGUMENT);
        assert_eq!(lc_context_config_validate(ptr::null(), 0), CONTEXT_WIRE);
        assert_eq!(lc_context_config_validate(ptr::null(), 5), NULL_ARGUMENT);
        // A length above isize::MAX is rejected before any byte is read (A3.1).
        let byte = [b'{'];
        let over = isize::MAX as usize + 1;
        assert_eq!(lc_compaction_policy_validate(byte.as_ptr(), over, 2), LENGTH_OVERFLOW);
        assert_eq!(lc_context_observation_validate(byte.as_ptr(), over, 2), LENGTH_OVERFLOW);
        assert_eq!(lc_context_config_validate(byte.as_ptr(), usize::MAX), LENGTH_OVERFLOW);
        // A pointer to zero bytes is the same empty buffer.
        assert_eq!(lc_compaction_policy_validate(byte.as_ptr(), 0, 2), POLICY_WIRE);
        assert_eq!(lc_context_config_validate(byte.as_ptr(), 0), CONTEXT_WIRE);
    }
}

// ---------------------------------------------------------------------------------------------
// P8.6: observation policy.

#[test]
fn observation_fields_and_order() {
    let mut f = Failures::default();
    let u64_max = u64::MAX.to_string();
    let i64_max = i64::MAX.to_string();
    let i64_min = i64::MIN.to_string();
    let cases: &[(&[(&str, Option<&str>)], i32, i32)] = &[
        (&[], 2, OK),
        (&[], 3, OK),
        (&[("ReservedOutput", Some("0"))], 2, OBSERVATION_RESERVED_OUTPUT),
        (&[("ReservedOutput", Some("1"))], 2, OK),
        (&[("ReservedOutput", s(&u64_max))], 2, OK),
        (&[("CountTimeout", Some("0"))], 2, OBSERVATION_COUNT_TIMEOUT),
        (&[("CountTimeout", Some("-1"))], 2, OBSERVATION_COUNT_TIMEOUT),
        (&[("CountTimeout", s(&i64_min))], 2, OBSERVATION_COUNT_TIMEOUT),
        (&[("CountTimeout", Some("1"))], 2, OK),
        (&[("CountTimeout", s(&i64_max))], 2, OK),
        (&[("SafetyMargin", Some("0"))], 3, OBSERVATION_SAFETY_MARGIN),
        (&[("SafetyMargin", Some("1"))], 3, OK),
        (&[("SafetyMargin", s(&u64_max))], 3, OK),
        // Order: ReservedOutput, CountTimeout, SafetyMargin.
        (
            &[("ReservedOutput", Some("0")), ("CountTimeout", Some("0")), ("SafetyMargin", Some("0"))],
            3,
            OBSERVATION_RESERVED_OUTPUT,
        ),
        (&[("CountTimeout", Some("0")), ("SafetyMargin", Some("0"))], 3, OBSERVATION_COUNT_TIMEOUT),
    ];
    for (set, q, want) in cases {
        f.check(format_args!("{set:?} q {q}"), observation(&obs(set), *q), *want);
    }
    // A3.5: only exactly 3 is heuristic.
    for q in [i32::MIN, -1, 0, 1, 2, 4, 259, i32::MAX] {
        f.check(format_args!("no margin, q {q}"), observation(&obs(&[("SafetyMargin", Some("0"))]), q), OK);
    }
    f.finish();
}

#[test]
fn observation_d6_and_json() {
    let mut f = Failures::default();
    for (key, _) in OBSERVATION {
        f.check(format_args!("missing {key}"), observation(&obs(&[(key, None)]), 2), OBSERVATION_WIRE);
        f.check(format_args!("null {key}"), observation(&obs(&[(key, Some("null"))]), 2), OBSERVATION_WIRE);
    }
    let cases: &[(&str, String)] = &[
        ("whole document null", "null".to_owned()),
        ("empty object", "{}".to_owned()),
        ("empty", String::new()),
        ("compaction key", obs(&[("Automatic", Some("false"))])),
        ("KeepRecentSegments", obs(&[("KeepRecentSegments", Some("1"))])),
        ("duplicate", obs(&[]).replacen('}', ",\"SafetyMargin\":8}", 1)),
        ("negative reservation", obs(&[("ReservedOutput", Some("-1"))])),
        ("fractional timeout", obs(&[("CountTimeout", Some("1.5"))])),
        ("second value", format!("{}{}", obs(&[]), obs(&[]))),
    ];
    for (what, doc) in cases {
        f.check(what, observation(doc, 2), OBSERVATION_WIRE);
    }
    let mut doc = obs(&[]).into_bytes();
    doc.splice(3..3, [0xC3]);
    let rc = unsafe { lc_context_observation_validate(doc.as_ptr(), doc.len(), 2) };
    f.check("invalid UTF-8 in a key", rc, OBSERVATION_WIRE);
    f.finish();
}

// ---------------------------------------------------------------------------------------------
// P8.7–P8.11: context config.

#[test]
fn context_presence_steps() {
    let comp = manual(&[]);
    let ob = obs(&[]);
    let counter = Counter::neutral().json();
    let inference = Inference::tls().json();
    let (c, o, k, i) = (Some(comp.as_str()), Some(ob.as_str()), Some(counter.as_str()), Some(inference.as_str()));
    let mut f = Failures::default();
    let cases = [
        // Step 1, before everything else.
        ("both policies, everything else present", config(c, o, k, i), CONTEXT_CONFLICTING_POLICY),
        ("both policies alone", config(c, o, None, None), CONTEXT_CONFLICTING_POLICY),
        // Step 2.
        ("inference only", config(None, None, None, i), CONTEXT_MISSING_COUNTER),
        ("observation only", config(None, o, None, None), CONTEXT_MISSING_COUNTER),
        ("compaction only", config(c, None, None, None), CONTEXT_MISSING_COUNTER),
        ("compaction and inference", config(c, None, None, i), CONTEXT_MISSING_COUNTER),
        // Step 3.
        ("counter only", config(None, None, k, None), CONTEXT_MISSING_INFERENCE_CAPABILITY),
        ("counter and compaction", config(c, None, k, None), CONTEXT_MISSING_INFERENCE_CAPABILITY),
        ("counter and observation", config(None, o, k, None), CONTEXT_MISSING_INFERENCE_CAPABILITY),
        // Step 4.
        ("nothing", config(None, None, None, None), OK),
        // Step 5.
        ("capabilities without a policy", config(None, None, k, i), CONTEXT_MISSING_POLICY),
        // Valid.
        ("compaction", config(c, None, k, i), OK),
        ("observation", config(None, o, k, i), OK),
    ];
    for (what, doc, want) in cases {
        f.check(what, context(&doc), want);
    }
    f.finish();
}

#[test]
fn context_value_steps_in_order() {
    // Each step wins over every later one.
    let bad_counter = Counter { transport: 0, ..Counter::neutral() }.json();
    let bad_inference = Inference { id: 0, ..Inference::tls() }.json();
    // Valid, but incompatible: a local counter of another provider.
    let other = Counter { provider: "q", ..Counter::neutral() }.json();
    let good_counter = Counter::neutral().json();
    let good_inference = Inference::tls().json();
    let bad_policy = manual(&[("ReservedOutput", Some("0"))]);
    let bad_obs = obs(&[("ReservedOutput", Some("0"))]);
    let mut f = Failures::default();
    let cases = [
        // Step 5 before step 6.
        ("no policy, invalid counter", config(None, None, s(&bad_counter), s(&bad_inference)), CONTEXT_MISSING_POLICY),
        // Step 6 before 7, 8, 9.
        ("invalid counter", config(s(&bad_policy), None, s(&bad_counter), s(&bad_inference)), CONTEXT_INVALID_COUNTER),
        // Step 7 before 8, 9.
        (
            "invalid inference",
            config(s(&bad_policy), None, s(&other), s(&bad_inference)),
            CONTEXT_INVALID_INFERENCE_CAPABILITY,
        ),
        // Step 8 before 9 and 10.
        (
            "incompatible, bad compaction",
            config(s(&bad_policy), None, s(&other), s(&good_inference)),
            CONTEXT_INCOMPATIBLE_COUNTER,
        ),
        (
            "incompatible, bad observation",
            config(None, s(&bad_obs), s(&other), s(&good_inference)),
            CONTEXT_INCOMPATIBLE_COUNTER,
        ),
        // Step 9 and 10.
        ("bad compaction", config(s(&bad_policy), None, s(&good_counter), s(&good_inference)), POLICY_RESERVED_OUTPUT),
        (
            "bad observation",
            config(None, s(&bad_obs), s(&good_counter), s(&good_inference)),
            OBSERVATION_RESERVED_OUTPUT,
        ),
    ];
    for (what, doc, want) in cases {
        f.check(what, context(&doc), want);
    }
    f.finish();
}

#[test]
fn context_nested_policy_reports_its_field_with_the_counter_quality() {
    let inference = Inference::tls().json();
    let counter = |quality: u8| Counter { quality, ..Counter::neutral() }.json();
    let with_policy = |p: &str, quality: u8| config(Some(p), None, s(&counter(quality)), s(&inference));
    let with_obs = |p: &str, quality: u8| config(None, Some(p), s(&counter(quality)), s(&inference));
    let mut f = Failures::default();
    let cases = [
        ("ReservedOutput", with_policy(&policy(&[("ReservedOutput", Some("0"))]), 2), POLICY_RESERVED_OUTPUT),
        ("MaxSummaryTokens", with_policy(&policy(&[("MaxSummaryTokens", Some("0"))]), 2), POLICY_MAX_SUMMARY_TOKENS),
        ("CountTimeout", with_policy(&policy(&[("CountTimeout", Some("-5"))]), 2), POLICY_COUNT_TIMEOUT),
        ("Hustle", with_policy(&policy(&[("Hustle", Some("\" \""))]), 2), POLICY_HUSTLE),
        // The counter's Quality 3 is the heuristic quality of P8.3 step 5 ...
        ("SafetyMargin q3", with_policy(&policy(&[("SafetyMargin", Some("0"))]), 3), POLICY_SAFETY_MARGIN),
        ("SafetyMargin manual q3", with_policy(&manual(&[("SafetyMargin", Some("0"))]), 3), POLICY_SAFETY_MARGIN),
        ("SafetyMargin q1", with_policy(&policy(&[("SafetyMargin", Some("0"))]), 1), OK),
        ("RearmBelow", with_policy(&policy(&[("RearmBelow", Some("8000"))]), 2), POLICY_REARM_BELOW),
        (
            "CompactAt",
            with_policy(&policy(&[("CompactAt", Some("10000")), ("RearmBelow", Some("1"))]), 2),
            POLICY_COMPACT_AT,
        ),
        // ... and of P8.4 step 9.
        ("RequireExact q3", with_policy(&policy(&[("CounterPolicy", Some("1"))]), 3), POLICY_COUNTER_POLICY),
        ("RequireExact q2", with_policy(&policy(&[("CounterPolicy", Some("1"))]), 2), OK),
        ("AllowConservative q3", with_policy(&policy(&[("CounterPolicy", Some("2"))]), 3), OK),
        (
            "observation ReservedOutput",
            with_obs(&obs(&[("ReservedOutput", Some("0"))]), 2),
            OBSERVATION_RESERVED_OUTPUT,
        ),
        ("observation CountTimeout", with_obs(&obs(&[("CountTimeout", Some("0"))]), 2), OBSERVATION_COUNT_TIMEOUT),
        ("observation SafetyMargin q3", with_obs(&obs(&[("SafetyMargin", Some("0"))]), 3), OBSERVATION_SAFETY_MARGIN),
        ("observation SafetyMargin q2", with_obs(&obs(&[("SafetyMargin", Some("0"))]), 2), OK),
    ];
    for (what, doc, want) in cases {
        f.check(what, context(&doc), want);
    }
    f.finish();
}

#[test]
fn counter_capability_validity() {
    // P8.9, through step 6 of the context config.
    let inference = Inference::tls();
    let n = Counter::neutral();
    let remote = |transport| Counter { provider: "p", transport, id: 7, retention: R_LOGGED, ..Counter::neutral() };
    let mut f = Failures::default();
    let invalid = [
        ("transport 0", Counter { transport: 0, ..n.clone() }),
        ("transport 4", Counter { transport: 4, ..n.clone() }),
        ("transport 255", Counter { transport: 255, ..n.clone() }),
        ("retention 0", Counter { retention: 0, ..n.clone() }),
        ("retention 4", Counter { retention: 4, ..n.clone() }),
        ("retention 255", Counter { retention: 255, ..n.clone() }),
        ("empty TokenizerRev", Counter { tokenizer_rev: "", ..n.clone() }),
        ("quality 0", Counter { quality: 0, ..n.clone() }),
        ("quality 4", Counter { quality: 4, ..n.clone() }),
        ("quality 255", Counter { quality: 255, ..n.clone() }),
        ("Local with an identity", Counter { id: 1, ..n.clone() }),
        ("Local with provider and identity", Counter { provider: "p", id: 255, ..n.clone() }),
        ("SameEndpoint without provider", Counter { provider: "", ..remote(C_SAME) }),
        ("SameEndpoint without identity", Counter { id: 0, ..remote(C_SAME) }),
        ("SeparateEndpoint without provider", Counter { provider: "", ..remote(C_SEPARATE) }),
        ("SeparateEndpoint without identity", Counter { id: 0, ..remote(C_SEPARATE) }),
    ];
    for (what, counter) in invalid {
        f.check(what, context(&pair(&counter, &inference)), CONTEXT_INVALID_COUNTER);
    }
    let valid = [
        ("neutral", n.clone()),
        ("quality 1", Counter { quality: 1, ..n.clone() }),
        ("quality 3 (manual policy, SafetyMargin 2)", Counter { quality: 3, ..n.clone() }),
        ("Local retention Ephemeral", Counter { provider: "p", retention: R_EPHEMERAL, ..n.clone() }),
        ("Local retention Logged", Counter { provider: "p", retention: R_LOGGED, ..n.clone() }),
        ("SameEndpoint", remote(C_SAME)),
        ("SeparateEndpoint", remote(C_SEPARATE)),
    ];
    for (what, counter) in valid {
        f.check(what, context(&pair(&counter, &inference)), OK);
    }
    f.finish();
}

#[test]
fn inference_capability_validity() {
    // P8.10, through step 7; the neutral counter is compatible with every valid capability.
    let n = Counter::neutral();
    let t = Inference::tls();
    let mut f = Failures::default();
    let invalid = [
        ("transport 0", Inference { transport: 0, ..t.clone() }),
        ("transport 5", Inference { transport: 5, ..t.clone() }),
        ("transport 255", Inference { transport: 255, ..t.clone() }),
        ("retention 4", Inference { retention: 4, ..t.clone() }),
        ("retention 255", Inference { retention: 255, ..t.clone() }),
        ("Local with an identity", Inference { transport: I_LOCAL, provider: "", id: 1, ..t.clone() }),
        ("TLS without provider", Inference { provider: "", ..t.clone() }),
        ("TLS without identity", Inference { id: 0, ..t.clone() }),
        ("AttestedTLS without provider", Inference { transport: I_ATTESTED, provider: "", ..t.clone() }),
        ("AttestedTLS without identity", Inference { transport: I_ATTESTED, id: 0, ..t.clone() }),
        ("EndToEnd without provider", Inference { transport: I_E2E, provider: "", ..t.clone() }),
        ("EndToEnd without identity", Inference { transport: I_E2E, id: 0, ..t.clone() }),
    ];
    for (what, inference) in invalid {
        f.check(what, context(&pair(&n, &inference)), CONTEXT_INVALID_INFERENCE_CAPABILITY);
    }
    // Valid: every transport with every retention 0–3 (0 is valid here), and Local without a provider.
    for transport in [I_LOCAL, I_TLS, I_ATTESTED, I_E2E] {
        for retention in [R_UNKNOWN, R_NONE, R_EPHEMERAL, R_LOGGED] {
            let id = if transport == I_LOCAL { 0 } else { 9 };
            for provider in ["", "p"] {
                if transport != I_LOCAL && provider.is_empty() {
                    continue;
                }
                let inference = Inference { provider, transport, id, retention };
                f.check(
                    format_args!(
                        "neutral counter, transport {transport}, retention {retention}, provider {provider:?}"
                    ),
                    context(&pair(&n, &inference)),
                    OK,
                );
            }
        }
    }
    f.finish();
}

#[test]
fn compatibility_by_transport() {
    // P8.11: counter transport × inference transport, with matching provider and identity and
    // retention None on both sides, so that only the transport rule decides.
    let inference_transports = [I_LOCAL, I_TLS, I_ATTESTED, I_E2E];
    let table: &[(u8, [bool; 4])] = &[
        // Local, TLS, AttestedTLS, EndToEndEncrypted
        (C_LOCAL, [true, true, true, true]),
        (C_SAME, [false, true, true, true]),
        (C_SEPARATE, [false, true, false, false]),
    ];
    let mut f = Failures::default();
    for (counter_transport, row) in table {
        for (inference_transport, compatible) in inference_transports.iter().zip(row) {
            let counter_id = if *counter_transport == C_LOCAL { 0 } else { 5 };
            let inference_id = if *inference_transport == I_LOCAL { 0 } else { 5 };
            let counter =
                Counter { provider: "p", transport: *counter_transport, id: counter_id, ..Counter::neutral() };
            let inference =
                Inference { provider: "p", transport: *inference_transport, id: inference_id, retention: R_NONE };
            let want = if *compatible { OK } else { CONTEXT_INCOMPATIBLE_COUNTER };
            f.check(
                format_args!("counter {counter_transport} / inference {inference_transport}"),
                context(&pair(&counter, &inference)),
                want,
            );
        }
    }
    f.finish();
}

#[test]
fn compatibility_by_provider_and_identity() {
    let mut f = Failures::default();
    let tls = |provider, id| Inference { provider, transport: I_TLS, id, retention: R_NONE };
    let counter = |provider, transport, id| Counter { provider, transport, id, ..Counter::neutral() };
    let cases = [
        // Local: non-empty and equal provider (identity not compared).
        ("Local same provider", counter("p", C_LOCAL, 0), tls("p", 3), OK),
        ("Local other provider", counter("q", C_LOCAL, 0), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
        ("Local provider case", counter("P", C_LOCAL, 0), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
        // Local, empty provider, retention other than None: not neutral, so the provider rule applies.
        (
            "Local empty provider, Ephemeral",
            Counter { retention: R_EPHEMERAL, ..counter("", C_LOCAL, 0) },
            Inference { retention: R_LOGGED, ..tls("p", 3) },
            CONTEXT_INCOMPATIBLE_COUNTER,
        ),
        (
            "Local empty provider vs local inference without provider",
            Counter { retention: R_EPHEMERAL, ..counter("", C_LOCAL, 0) },
            Inference { provider: "", transport: I_LOCAL, id: 0, retention: R_LOGGED },
            CONTEXT_INCOMPATIBLE_COUNTER,
        ),
        // SameEndpoint: equal provider and equal identity.
        ("SameEndpoint equal", counter("p", C_SAME, 3), tls("p", 3), OK),
        ("SameEndpoint other identity", counter("p", C_SAME, 4), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
        ("SameEndpoint other provider", counter("q", C_SAME, 3), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
        // SeparateEndpoint: equal provider, identities may differ.
        ("SeparateEndpoint other identity", counter("p", C_SEPARATE, 4), tls("p", 3), OK),
        ("SeparateEndpoint other provider", counter("q", C_SEPARATE, 3), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
    ];
    for (what, counter, inference, want) in cases {
        f.check(what, context(&pair(&counter, &inference)), want);
    }
    f.finish();
}

#[test]
fn compatibility_by_retention() {
    // P8.11 retention rule, for each counter transport (with a transport pair that is compatible),
    // counter retention None/Ephemeral/Logged × inference retention Unknown/None/Ephemeral/Logged.
    let table: &[(u8, [bool; 4])] = &[
        // inference: Unknown, None, Ephemeral, Logged
        (R_NONE, [false, true, true, true]),
        (R_EPHEMERAL, [false, false, true, true]),
        (R_LOGGED, [false, false, false, true]),
    ];
    let inference_retentions = [R_UNKNOWN, R_NONE, R_EPHEMERAL, R_LOGGED];
    let mut f = Failures::default();
    for (counter_transport, inference_transport) in
        [(C_LOCAL, I_LOCAL), (C_LOCAL, I_E2E), (C_SAME, I_ATTESTED), (C_SEPARATE, I_TLS)]
    {
        for (counter_retention, row) in table {
            for (inference_retention, compatible) in inference_retentions.iter().zip(row) {
                let counter = Counter {
                    provider: "p",
                    transport: counter_transport,
                    id: if counter_transport == C_LOCAL { 0 } else { 6 },
                    retention: *counter_retention,
                    ..Counter::neutral()
                };
                let inference = Inference {
                    provider: "p",
                    transport: inference_transport,
                    id: if inference_transport == I_LOCAL { 0 } else { 6 },
                    retention: *inference_retention,
                };
                let want = if *compatible { OK } else { CONTEXT_INCOMPATIBLE_COUNTER };
                f.check(
                    format_args!(
                        "counter {counter_transport}/{counter_retention}, inference {inference_transport}/{inference_retention}"
                    ),
                    context(&pair(&counter, &inference)),
                    want,
                );
            }
        }
    }
    f.finish();
}

#[test]
fn context_d6_and_json() {
    let comp = manual(&[]);
    let counter = Counter::neutral();
    let inference = Inference::tls();
    let valid = pair(&counter, &inference);
    assert_eq!(context(&valid), OK);
    let with_counter = |json: &str| config(s(&comp), None, Some(json), s(&inference.json()));
    let with_inference = |json: &str| config(s(&comp), None, s(&counter.json()), Some(json));
    let zeros = identity(0, 32);
    let mut f = Failures::default();
    let mut cases: Vec<(String, String)> = vec![
        ("whole document null".into(), "null".into()),
        ("empty object".into(), "{}".into()),
        ("empty".into(), String::new()),
        ("array".into(), "[]".into()),
        ("second value".into(), format!("{valid} null")),
        ("SecurityIdentity 31".into(), with_counter(&counter.json().replace(&zeros, &identity(0, 31)))),
        ("SecurityIdentity 33".into(), with_counter(&counter.json().replace(&zeros, &identity(0, 33)))),
        ("SecurityIdentity 0".into(), with_counter(&counter.json().replace(&zeros, "[]"))),
        ("SecurityIdentity null".into(), with_counter(&counter.json().replace(&zeros, "null"))),
        ("SecurityIdentity string".into(), with_counter(&counter.json().replace(&zeros, "\"AAAA\""))),
        (
            "SecurityIdentity element 256".into(),
            with_counter(&counter.json().replace(&zeros, &zeros.replacen('0', "256", 1))),
        ),
        (
            "SecurityIdentity element -1".into(),
            with_counter(&counter.json().replace(&zeros, &zeros.replacen('0', "-1", 1))),
        ),
        (
            "SecurityIdentity element 1.0".into(),
            with_counter(&counter.json().replace(&zeros, &zeros.replacen('0', "1.0", 1))),
        ),
        (
            "SecurityIdentity nested array".into(),
            with_counter(&counter.json().replace(&zeros, &zeros.replacen('0', "[0]", 1))),
        ),
        (
            "inference SecurityIdentity 33".into(),
            with_inference(&inference.json().replace(&identity(7, 32), &identity(7, 33))),
        ),
        (
            "nested KeepRecentSegments".into(),
            config(s(&manual(&[("KeepRecentSegments", Some("2"))])), None, s(&counter.json()), s(&inference.json())),
        ),
        (
            "nested observation extra key".into(),
            config(None, s(&obs(&[("Hustle", Some("\"x\""))])), s(&counter.json()), s(&inference.json())),
        ),
        (
            "nested policy missing key".into(),
            config(s(&manual(&[("Hustle", None)])), None, s(&counter.json()), s(&inference.json())),
        ),
        (
            "nested policy null field".into(),
            config(s(&manual(&[("CountTimeout", Some("null"))])), None, s(&counter.json()), s(&inference.json())),
        ),
        ("nested policy empty object".into(), config(Some("{}"), None, s(&counter.json()), s(&inference.json()))),
        (
            "counter Provider null".into(),
            with_counter(&counter.json().replace("\"Provider\":\"\"", "\"Provider\":null")),
        ),
        ("counter missing Quality".into(), with_counter(&counter.json().replace(",\"Quality\":2", ""))),
        ("counter Quality 256".into(), with_counter(&counter.json().replace("\"Quality\":2", "\"Quality\":256"))),
        ("counter extra key".into(), with_counter(&counter.json().replacen('{', "{\"Extra\":1,", 1))),
        ("counter as array".into(), with_counter("[]")),
        ("inference missing Retention".into(), with_inference(&inference.json().replace(",\"Retention\":3", ""))),
        ("inference Quality key".into(), with_inference(&inference.json().replacen('{', "{\"Quality\":2,", 1))),
        (
            "inference Transport -1".into(),
            with_inference(&inference.json().replace("\"Transport\":2", "\"Transport\":-1")),
        ),
        ("inference as string".into(), with_inference("\"tls\"")),
        ("duplicate top-level key".into(), format!("{},\"Compaction\":null}}", &valid[..valid.len() - 1])),
        ("lower-case top-level key".into(), valid.replace("\"Compaction\"", "\"compaction\"")),
        ("Kelvin sign key".into(), valid.replace("\"TokenizerRev\"", "\"To\\u212AenizerRev\"")),
    ];
    // Each top-level key missing.
    for key in ["Compaction", "ContextObservation", "CounterCapability", "InferenceCapability"] {
        let all = config(None, None, None, None);
        let without =
            all.replace(&format!("\"{key}\":null"), "").replace("{,", "{").replace(",,", ",").replace(",}", "}");
        cases.push((format!("missing {key}"), without));
    }
    // A config whose values would also fail: wire wins (the document is read first).
    cases.push((
        "wire beats conflicting policies".into(),
        config(s(&comp), s(&obs(&[])), s(&counter.json().replace(",\"Quality\":2", "")), None),
    ));
    for (what, doc) in &cases {
        f.check(what, context(doc), CONTEXT_WIRE);
    }
    // Invalid UTF-8 inside a nested string.
    let mut bytes = valid.clone().into_bytes();
    let at = valid.find("exact-v1").expect("tokenizer rev") + 2;
    bytes.splice(at..at, [0xFE]);
    let rc = unsafe { lc_context_config_validate(bytes.as_ptr(), bytes.len()) };
    f.check("invalid UTF-8 in TokenizerRev", rc, CONTEXT_WIRE);
    // Escaped strings are decoded before the checks: "\u0070" is "p".
    let escaped = pair(&Counter { provider: "\\u0070", transport: C_LOCAL, ..Counter::neutral() }, &inference);
    f.check("escaped provider equals", context(&escaped), OK);
    f.finish();
}

#[test]
fn safe_api_matches_the_c_abi() {
    use loopcompact::policy::capability::{CounterCapability, InferenceCapability};
    use loopcompact::policy::{CompactionPolicy, ContextConfig, ContextObservationPolicy};

    let p = CompactionPolicy::from_json(policy(&[]).as_bytes()).expect("decodes");
    assert_eq!(
        p,
        CompactionPolicy {
            automatic: true,
            counter_policy: 2,
            compact_at: 8000,
            rearm_below: 6000,
            reserved_output: 10,
            safety_margin: 2,
            max_summary_tokens: 5,
            count_timeout_ns: 17_000_000,
            hustle: "context.compact".into(),
        }
    );
    assert_eq!(p.validate(3), Ok(()));
    assert_eq!(
        CompactionPolicy { rearm_below: 8000, ..p.clone() }.validate(2).map_err(|e| e.status()),
        Err(Status::PolicyRearmBelow)
    );
    // The name is kept as given (P8.5).
    let spaced = CompactionPolicy::from_json(policy(&[("Hustle", Some("\" h \""))]).as_bytes()).expect("decodes");
    assert_eq!(spaced.hustle, " h ");

    let err = CompactionPolicy::from_json(b"{\"Automatic\":true}").expect_err("missing keys");
    assert_eq!(err.status(), Status::PolicyWire);
    assert!(err.offset().is_some());
    assert_eq!(CompactionPolicy::from_json(b"null").map_err(|e| e.status()), Err(Status::PolicyWire));

    let o = ContextObservationPolicy::from_json(obs(&[]).as_bytes()).expect("decodes");
    assert_eq!(o, ContextObservationPolicy { reserved_output: 32, safety_margin: 8, count_timeout_ns: 37_000_001 });
    assert_eq!(
        ContextObservationPolicy { safety_margin: 0, ..o.clone() }.validate(3).map_err(|e| e.status()),
        Err(Status::ObservationSafetyMargin)
    );
    assert_eq!(ContextObservationPolicy::from_json(b"").map_err(|e| e.status()), Err(Status::ObservationWire));

    let c = ContextConfig::from_json(pair(&Counter::neutral(), &Inference::tls()).as_bytes()).expect("decodes");
    assert_eq!(
        c.counter,
        Some(CounterCapability {
            provider: String::new(),
            transport: 1,
            security_identity: [0; 32],
            retention: 1,
            tokenizer_rev: "exact-v1".into(),
            quality: 2,
        })
    );
    assert_eq!(
        c.inference,
        Some(InferenceCapability { provider: "p".into(), transport: 2, security_identity: [7; 32], retention: 3 })
    );
    assert_eq!(c.context_observation, None);
    assert_eq!(c.validate(), Ok(()));
    assert_eq!(ContextConfig::default().validate(), Ok(()));
    let conflicting = ContextConfig { context_observation: Some(o), ..c.clone() };
    assert_eq!(conflicting.validate().map_err(|e| e.status()), Err(Status::ContextConflictingPolicy));
    let heuristic = ContextConfig {
        counter: c.counter.clone().map(|k| CounterCapability { quality: 3, ..k }),
        compaction: c.compaction.clone().map(|p| CompactionPolicy { safety_margin: 0, ..p }),
        ..c.clone()
    };
    assert_eq!(heuristic.validate().map_err(|e| e.status()), Err(Status::PolicySafetyMargin));
    assert_eq!(ContextConfig::from_json(b"null").map_err(|e| e.status()), Err(Status::ContextWire));
}

// ---------------------------------------------------------------------------------------------
// L9.1: limits.

#[test]
fn limits_resolve() {
    let max = u64::MAX;
    let mut f = Failures::default();
    let cases: &[(&str, [u64; 5], Result<[u64; 3], i32>)] = &[
        // Step 1: contradictions only matter with a known window.
        ("input above window", [100, 101, 0, 1, 0], Err(LIMITS_UNKNOWN)),
        ("output above window", [100, 0, 101, 1, 0], Err(LIMITS_UNKNOWN)),
        ("input and output equal window", [100, 100, 100, 1, 0], Ok([1, 99, 99])),
        ("no window, big output", [0, 10, max, 5, 0], Ok([5, 10, 10])),
        // Step 2: the reservation is lowered to a known, smaller max output.
        ("reservation lowered", [100, 0, 10, 50, 0], Ok([10, 90, 90])),
        ("reservation kept when smaller", [100, 0, 60, 50, 0], Ok([50, 50, 50])),
        ("reservation 0", [100, 0, 0, 0, 0], Ok([0, 100, 100])),
        // Step 3.
        ("reservation equals window", [100, 0, 0, 100, 0], Err(LIMITS_UNKNOWN)),
        ("reservation above window", [100, 0, 0, max, 0], Err(LIMITS_UNKNOWN)),
        ("reservation lowered below window", [100, 0, 99, max, 0], Ok([99, 1, 1])),
        ("window 1, reservation 1", [1, 0, 0, 1, 0], Err(LIMITS_UNKNOWN)),
        // Step 4: max input wins when smaller; the reservation is not subtracted from it.
        ("max input smaller", [100, 50, 0, 10, 0], Ok([10, 50, 50])),
        ("max input larger", [100, 95, 0, 10, 0], Ok([10, 90, 90])),
        ("max input only", [0, 7, 0, max, 0], Ok([max, 7, 7])),
        ("max input only, lowered reservation", [0, 7, 3, max, 0], Ok([3, 7, 7])),
        // Step 5.
        ("nothing known", [0, 0, 0, 1, 0], Err(LIMITS_UNKNOWN)),
        ("only max output known", [0, 0, 10, 1, 0], Err(LIMITS_UNKNOWN)),
        ("margin equals raw", [100, 0, 0, 10, 90], Err(LIMITS_UNKNOWN)),
        ("margin above raw", [100, 0, 0, 10, max], Err(LIMITS_UNKNOWN)),
        ("margin leaves one", [100, 0, 0, 10, 89], Ok([10, 90, 1])),
        // u64 extremes.
        ("maximum window, nothing reserved", [max, 0, 0, 0, 0], Ok([0, max, max])),
        ("maximum window and input", [max, max, max, 1, 1], Ok([1, max - 1, max - 2])),
        ("maximum window, max - 1 margin", [max, 0, 0, 0, max - 1], Ok([0, max, 1])),
        ("maximum window, max margin", [max, 0, 0, 0, max], Err(LIMITS_UNKNOWN)),
    ];
    for (what, [w, i, o, r, m], want) in cases {
        f.check(what, resolve(*w, *i, *o, *r, *m), *want);
    }
    f.finish();
}

#[test]
fn limits_null_out() {
    let limits = lc_context_limits { window_tokens: 100, max_input_tokens: 0, max_output_tokens: 0 };
    assert_eq!(unsafe { lc_context_limits_resolve(limits, 1, 0, ptr::null_mut()) }, NULL_ARGUMENT);
    // The pointer check comes first (A3.1), also for limits that would fail.
    let zero = lc_context_limits::default();
    assert_eq!(unsafe { lc_context_limits_resolve(zero, 1, 0, ptr::null_mut()) }, NULL_ARGUMENT);
}

// ---------------------------------------------------------------------------------------------
// L9.2: occupancy.

#[test]
fn occupancy_values() {
    let max = u64::MAX;
    let mut f = Failures::default();
    let cases: &[(u64, u64, Result<u16, i32>)] = &[
        (0, 0, Err(OCCUPANCY_ZERO_LIMIT)),
        (max, 0, Err(OCCUPANCY_ZERO_LIMIT)),
        (0, 1, Ok(0)),
        (1, 1, Ok(10_000)),
        (2, 1, Ok(10_000)),
        (0, max, Ok(0)),
        (1, max, Ok(0)),
        (max / 2, max, Ok(4_999)),
        (max / 2 + 1, max, Ok(5_000)),
        (max - 1, max, Ok(9_999)),
        (max, max, Ok(10_000)),
        (max, 1, Ok(10_000)),
        (max, max - 1, Ok(10_000)),
        // A product that overflows 64 bits.
        (1 << 62, 1 << 63, Ok(5_000)),
        (1, 10_000, Ok(1)),
        (9_999, 10_000, Ok(9_999)),
        (10_000, 10_000, Ok(10_000)),
        (9_999_999, 10_000_000, Ok(9_999)),
        (1, 3, Ok(3_333)),
        (2, 3, Ok(6_666)),
    ];
    for (used, limit, want) in cases {
        f.check(format_args!("{used}/{limit}"), occupancy(*used, *limit), *want);
    }
    f.finish();
}

#[test]
fn occupancy_null_out() {
    assert_eq!(unsafe { lc_occupancy_basis_points(1, 2, ptr::null_mut()) }, NULL_ARGUMENT);
    assert_eq!(unsafe { lc_occupancy_basis_points(1, 0, ptr::null_mut()) }, NULL_ARGUMENT);
}

// ---------------------------------------------------------------------------------------------
// L9.3: pressure.

#[test]
fn pressure_levels() {
    let mut f = Failures::default();
    // (previous, occupancy, automatic, compact_at, rearm_below) → level
    let cases: &[((i32, u16, bool, u16, u16), i32)] = &[
        // Rule 1: full scale is the hard limit, whatever the mode or thresholds.
        ((1, 10_000, true, 8000, 6000), 3),
        ((1, 10_000, false, 8000, 6000), 3),
        ((2, 65_535, true, 8000, 6000), 3),
        ((0, 10_000, false, 0, 0), 3),
        // Rule 2: manual mode is normal below full scale.
        ((1, 9_999, false, 8000, 6000), 1),
        ((2, 9_000, false, 8000, 6000), 1),
        ((3, 9_999, false, 0, 0), 1),
        // Rule 4: at or above the threshold.
        ((1, 7_999, true, 8000, 6000), 1),
        ((1, 8_000, true, 8000, 6000), 2),
        ((1, 9_999, true, 8000, 6000), 2),
        // Rule 3: hysteresis from compact or hard limit, inclusive re-arm bound.
        ((2, 6_000, true, 8000, 6000), 2),
        ((2, 5_999, true, 8000, 6000), 1),
        ((3, 6_000, true, 8000, 6000), 2),
        ((3, 5_999, true, 8000, 6000), 1),
        ((3, 9_999, true, 8000, 6000), 2),
        ((2, 0, true, 8000, 6000), 1),
        // Normal never uses the re-arm band.
        ((1, 7_000, true, 8000, 6000), 1),
        // CompactAt == RearmBelow.
        ((2, 7_999, true, 8000, 8000), 1),
        ((2, 8_000, true, 8000, 8000), 2),
        ((1, 8_000, true, 8000, 8000), 2),
        // Thresholds used as given (not validated).
        ((1, 0, true, 0, 0), 2),
        ((2, 0, true, 65_535, 0), 2),
        ((2, 9_999, true, 65_535, 65_535), 1),
        ((1, 5_000, true, 4_000, 9_000), 2),
        ((2, 5_000, true, 9_000, 4_000), 2),
        ((1, 9_999, true, 10_000, 6_000), 1),
    ];
    for ((prev, occ, auto, at, below), want) in cases {
        f.check(
            format_args!("prev {prev} occ {occ} auto {auto} at {at} below {below}"),
            lc_pressure_level(*prev, *occ, *auto, *at, *below),
            *want,
        );
    }
    // A3.5: any previous level other than 2 and 3 behaves as normal (1).
    for prev in [i32::MIN, -2, -1, 0, 1, 4, 5, 258, 259, i32::MAX] {
        f.check(format_args!("prev {prev}, in the band"), lc_pressure_level(prev, 7_000, true, 8000, 6000), 1);
        f.check(format_args!("prev {prev}, at threshold"), lc_pressure_level(prev, 8_000, true, 8000, 6000), 2);
        f.check(format_args!("prev {prev}, full"), lc_pressure_level(prev, 10_000, true, 8000, 6000), 3);
    }
    f.finish();
}

#[test]
fn pressure_walk_carries_the_level() {
    // A sequence as a host would run it: each result is the next call's previous level.
    let steps =
        [(7_900, 1), (8_000, 2), (7_000, 2), (6_000, 2), (5_999, 1), (7_999, 1), (10_000, 3), (6_500, 2), (100, 1)];
    let mut previous = 1;
    for (occupancy, want) in steps {
        previous = lc_pressure_level(previous, occupancy, true, 8000, 6000);
        assert_eq!(previous, want, "occupancy {occupancy}");
    }
}

// ---------------------------------------------------------------------------------------------
// L9.4: replacement.

#[test]
fn replacement_check() {
    let max = u64::MAX;
    let mut f = Failures::default();
    let cases = [
        (0, 0, SUMMARY_TOO_LARGE),
        (max, 0, SUMMARY_TOO_LARGE),
        (0, 1, OK),
        (1, 1, SUMMARY_TOO_LARGE),
        (99, 100, OK),
        (100, 100, SUMMARY_TOO_LARGE),
        (101, 100, SUMMARY_TOO_LARGE),
        (0, max, OK),
        (max - 1, max, OK),
        (max, max, SUMMARY_TOO_LARGE),
    ];
    for (tokens, limit, want) in cases {
        f.check(format_args!("{tokens} of {limit}"), lc_replacement_check(tokens, limit), want);
    }
    f.finish();
    assert_eq!(common::status_name(SUMMARY_TOO_LARGE), "LC_SUMMARY_TOO_LARGE");
}
