//! `testkit::fuzz::target_compaction_reply` (docs/SPEC.md §15; invariants there).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_compaction_reply(data));
