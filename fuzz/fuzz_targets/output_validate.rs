//! `lc_compaction_output_validate` (SPEC §6) against an input parsed from the same fuzz input.
//! (invariants: `testkit::fuzz::target_output_validate`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_output_validate(data));
