//! The streaming summary validator (SPEC §17.3) against the whole-document one at fuzzer-chosen
//! splits (invariants: `testkit::fuzz::target_summary_stream`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_summary_stream(data));
