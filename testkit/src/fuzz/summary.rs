//! The summary grammar's target (SPEC §4).

use crate::abi::summary_xml;
use crate::diagnostic::summary_xml_diagnose;
use crate::status::{SUMMARY_CODES, check_status, name};

/// `lc_summary_xml_validate` (SPEC §4) on arbitrary bytes.
///
/// Invariants: the status is `LC_OK` or 206–209 (A3.9); `lc_summary_xml_diagnose` returns the same
/// status and fills `diag.status` with it (C13.4, checked by its wrapper); the same bytes give the
/// same status (X4.22: no state between calls); the safe API agrees with the C entry point; any
/// `<![CDATA[` is `xml_structure` (X4.3).
pub fn target_summary_xml(data: &[u8]) {
    let rc = summary_xml(data);
    check_status("lc_summary_xml_validate", rc, SUMMARY_CODES);
    assert_eq!(summary_xml_diagnose(data).0, rc, "lc_summary_xml_diagnose differs from _validate");
    assert_eq!(rc, summary_xml(data), "lc_summary_xml_validate is not deterministic");
    let safe = loopcompact::summary::validate(data).err().map_or(0, |e| e.status().code());
    assert_eq!(rc, safe, "C ABI {} vs safe API {}", name(rc), name(safe));
    if data.windows(9).any(|w| w == b"<![CDATA[") {
        assert_eq!(rc, 208, "X4.3: a document holding <![CDATA[ gave {}", name(rc));
    }
}
