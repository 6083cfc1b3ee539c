//! `lc_compaction_input_parse`, `_validate`, `_encode_within` and `_free` (SPEC §5, §7).
//! (invariants: `testkit::fuzz::target_input_parse`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_input_parse(data));
