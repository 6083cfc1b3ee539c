//! `lc_request_fingerprint` (SPEC §10).
//! (invariants: `testkit::fuzz::target_request_fingerprint`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_request_fingerprint(data));
