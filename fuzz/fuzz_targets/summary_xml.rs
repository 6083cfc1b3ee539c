//! `lc_summary_xml_validate` (SPEC §4) on arbitrary bytes.
//! (invariants: `loopcompact_fuzz::target_summary_xml`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loopcompact_fuzz::target_summary_xml(data));
