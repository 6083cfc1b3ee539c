//! `testkit::fuzz::target_transcript_safety` (docs/SPEC.md §16.9; invariants there).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_transcript_safety(data));
