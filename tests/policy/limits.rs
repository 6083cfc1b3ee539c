//! Context limits, occupancy, pressure and replacement (SPEC §9, L9.1–L9.4).

use std::ptr;

use loopcompact::ffi::*;

use super::support::*;

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
    assert_eq!(status::name(SUMMARY_TOO_LARGE), "LC_SUMMARY_TOO_LARGE");
}
