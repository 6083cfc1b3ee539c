//! `lc_context_observation_validate` (SPEC §8.2).
//! (invariants: `testkit::fuzz::target_context_observation`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_context_observation(data));
