//! V12.3: every row of `tests/vectors/policy.jsonl` through the C ABI, each status within its
//! function's A3.9 set.

use std::collections::BTreeMap;

use loopcompact::ffi::*;
use serde_json::Value;
use testkit::vectors;

use super::support::*;

fn u64_of(row: &Value, field: &str) -> u64 {
    row.get(field).and_then(Value::as_u64).unwrap_or_else(|| panic!("{}: no u64 {field}", vectors::name(row)))
}

fn i32_of(row: &Value, field: &str) -> i32 {
    let v = row.get(field).and_then(Value::as_i64).unwrap_or_else(|| panic!("{}: no {field}", vectors::name(row)));
    i32::try_from(v).unwrap_or_else(|_| panic!("{}: {field} out of i32", vectors::name(row)))
}

fn u16_of(row: &Value, field: &str) -> u16 {
    u16::try_from(u64_of(row, field)).unwrap_or_else(|_| panic!("{}: {field} out of u16", vectors::name(row)))
}

/// Runs one row; returns a failure message, or `None` when it passes.
fn run_row(row: &Value) -> Option<String> {
    let kind = row.get("kind").and_then(Value::as_str).unwrap_or("");
    let expect = row.get("expect").cloned().unwrap_or(Value::Null);
    let (rc, detail): (i32, Option<String>) = match kind {
        "compaction_policy" | "observation_policy" => {
            let bytes = vectors::bytes_field(row, "policy").expect("policy");
            let ptr = vectors::ptr_of(row, &bytes);
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
            let bytes = vectors::bytes_field(row, "config").expect("config");
            let rc = unsafe { lc_context_config_validate(vectors::ptr_of(row, &bytes), bytes.len()) };
            let want = row.get("expect_status").and_then(Value::as_str).expect("expect_status");
            let got = status::name(rc);
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
    if !allowed(kind, rc) {
        return Some(format!("code {rc} is not one of {kind}'s codes (A3.9)"));
    }
    if let Some(detail) = detail {
        return Some(detail);
    }
    if kind != "context_config" {
        let want = expect.as_str().expect("string expect");
        let got = status::verdict(rc);
        if got != want {
            return Some(format!("got {got:?} ({rc}), want {want:?}"));
        }
    }
    None
}

#[test]
fn vectors() {
    let rows = vectors::rows("policy.jsonl");
    let mut passed: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for row in &rows {
        let kind = row.get("kind").and_then(Value::as_str).unwrap_or("").to_owned();
        match run_row(row) {
            None => *passed.entry(kind).or_default() += 1,
            Some(why) => failures.push(format!("[{kind}] {}: {why}", vectors::name(row))),
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
