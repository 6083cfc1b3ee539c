//! Helpers of the unit tests inside the crate, compiled only for them. The integration tests,
//! benchmarks and fuzz targets have theirs in `testkit/`, which these tests cannot use: it depends
//! on this crate, so a unit-test binary linking it would define every `extern "C"` export twice.

/// A xorshift64 generator (shifts 13, 7, 17) seeded with `state` (not 0), for random inputs:
/// deterministic, so a failing case fails again.
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
