//! `lc_compaction_policy_validate` (SPEC §8.1).
//! (invariants: `testkit::fuzz::target_compaction_policy`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_compaction_policy(data));
