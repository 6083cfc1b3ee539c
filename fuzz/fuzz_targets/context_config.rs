//! `lc_context_config_validate` (SPEC §8.3).
//! (invariants: `testkit::fuzz::target_context_config`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_context_config(data));
