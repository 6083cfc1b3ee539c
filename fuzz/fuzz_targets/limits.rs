//! `lc_context_limits_resolve`, `lc_occupancy_basis_points`, `lc_pressure_level` and
//! (invariants: `testkit::fuzz::target_limits`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_limits(data));
