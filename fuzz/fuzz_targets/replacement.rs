//! `testkit::fuzz::target_replacement` (docs/SPEC.md §15; invariants there).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_replacement(data));
