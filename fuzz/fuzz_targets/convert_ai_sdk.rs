//! `testkit::fuzz::target_convert` for format 5 (docs/SPEC.md §16; invariants there).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_convert(5, data));
