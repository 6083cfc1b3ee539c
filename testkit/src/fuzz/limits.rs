//! The limits target (SPEC §9): every integer function against an oracle written from L9.1–L9.4.

use loopcompact::ffi::{lc_context_limits, lc_pressure_level, lc_replacement_check, lc_resolved_limits};

use super::Reader;
use crate::abi::{context_limits_resolve, occupancy_basis_points};
use crate::status::{LC_LIMITS_UNKNOWN, LC_OCCUPANCY_ZERO_LIMIT, LC_OK, LC_SUMMARY_TOO_LARGE, name};

/// L9.1, step by step.
fn resolve_oracle(window: u64, max_in: u64, max_out: u64, reserved: u64, margin: u64) -> Option<(u64, u64, u64)> {
    if window != 0 && (max_in > window || max_out > window) {
        return None;
    }
    let reserved = if max_out != 0 && max_out < reserved { max_out } else { reserved };
    let mut raw = 0;
    if window != 0 {
        if reserved >= window {
            return None;
        }
        raw = window - reserved;
    }
    if max_in != 0 && (raw == 0 || max_in < raw) {
        raw = max_in;
    }
    if raw == 0 || margin >= raw {
        return None;
    }
    Some((reserved, raw, raw - margin))
}

/// L9.2 by long division on u128.
fn occupancy_oracle(used: u64, limit: u64) -> Option<u16> {
    if limit == 0 {
        return None;
    }
    if used >= limit {
        return Some(10_000);
    }
    let q = u128::from(used) * 10_000 / u128::from(limit);
    Some(q.min(10_000) as u16)
}

/// L9.3, one branch per step (steps 3 and 4 both give 2).
#[allow(clippy::if_same_then_else)]
fn pressure_oracle(previous: i32, occupancy: u16, automatic: bool, compact_at: u16, rearm_below: u16) -> i32 {
    if occupancy >= 10_000 {
        3
    } else if !automatic {
        1
    } else if (previous == 2 || previous == 3) && occupancy >= rearm_below {
        2
    } else if occupancy >= compact_at {
        2
    } else {
        1
    }
}

/// `lc_context_limits_resolve`, `lc_occupancy_basis_points`, `lc_pressure_level` and
/// `lc_replacement_check` (SPEC §9) with integers from the fuzz input, each compared with an oracle
/// written here from the text of L9.1–L9.4.
///
/// Input: a sequence of integers read by `Reader` (u64 values near the boundaries, see
/// `Reader::u64_boundary`); missing bytes read as zero.
///
/// Invariants: statuses in A3.9's sets; out-parameters written only on `LC_OK`; the resolved
/// limits equal the oracle's and satisfy `input_limit + safety_margin == raw_input_limit`,
/// `reserved_output <= requested`; occupancy ≤ 10000 and exact; pressure in 1..=3 and equal to the
/// oracle's; the replacement check fails exactly when `input_tokens >= input_limit`.
pub fn target_limits(data: &[u8]) {
    let mut r = Reader::new(data);

    let limits = lc_context_limits {
        window_tokens: r.u64_boundary(),
        max_input_tokens: r.u64_boundary(),
        max_output_tokens: r.u64_boundary(),
    };
    let (reserved, margin) = (r.u64_boundary(), r.u64_boundary());
    // The wrapper checks that `*out` is untouched on failure.
    let resolved = context_limits_resolve(limits, reserved, margin);
    let expected =
        resolve_oracle(limits.window_tokens, limits.max_input_tokens, limits.max_output_tokens, reserved, margin);
    match (expected, resolved) {
        (Some((reserved_output, raw_input_limit, input_limit)), Ok(out)) => {
            assert_eq!(out, lc_resolved_limits { reserved_output, raw_input_limit, input_limit });
            assert!(out.reserved_output <= reserved && out.input_limit + margin == out.raw_input_limit);
            assert!(out.input_limit > 0);
        }
        (Some(_), Err(rc)) => panic!("resolve: {} for {limits:?} {reserved} {margin}", name(rc)),
        (None, Err(rc)) => {
            assert_eq!(rc, LC_LIMITS_UNKNOWN, "resolve: {} for {limits:?} {reserved} {margin}", name(rc));
        }
        (None, Ok(out)) => panic!("resolve: LC_OK ({out:?}) for {limits:?} {reserved} {margin}"),
    }

    let (used, limit) = (r.u64_boundary(), r.u64_boundary());
    // The wrapper checks that `*out` is untouched on failure.
    match (occupancy_oracle(used, limit), occupancy_basis_points(used, limit)) {
        (Some(value), Ok(occupancy)) => {
            assert_eq!(occupancy, value, "occupancy({used}, {limit})");
            assert!(occupancy <= 10_000);
        }
        (Some(_), Err(rc)) => panic!("occupancy({used}, {limit}): {}", name(rc)),
        (None, Err(rc)) => assert_eq!(rc, LC_OCCUPANCY_ZERO_LIMIT, "occupancy({used}, 0): {}", name(rc)),
        (None, Ok(occupancy)) => panic!("occupancy({used}, 0): LC_OK ({occupancy})"),
    }

    let previous = r.i32();
    let level_occupancy = r.u16();
    let automatic = r.u8() & 1 == 1;
    let (compact_at, rearm_below) = (r.u16(), r.u16());
    let level = lc_pressure_level(previous, level_occupancy, automatic, compact_at, rearm_below);
    assert!((1..=3).contains(&level), "pressure level {level}");
    assert_eq!(level, pressure_oracle(previous, level_occupancy, automatic, compact_at, rearm_below));

    let (input_tokens, input_limit) = (r.u64_boundary(), r.u64_boundary());
    let rc = lc_replacement_check(input_tokens, input_limit);
    assert_eq!(
        rc,
        if input_tokens >= input_limit { LC_SUMMARY_TOO_LARGE } else { LC_OK },
        "replacement({input_tokens}, {input_limit})"
    );
}
