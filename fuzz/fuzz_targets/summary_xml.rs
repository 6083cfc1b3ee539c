//! `lc_summary_xml_validate` (SPEC §4) on arbitrary bytes.
//! (invariants: `testkit::fuzz::target_summary_xml`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| testkit::fuzz::target_summary_xml(data));
