//! V12.3: every row of `tests/vectors/summary_xml.jsonl` through the C ABI, and its boundary (§1).

use super::support::*;

// (1) The conformance vectors

#[test]
fn vectors() {
    let rows = vectors::rows("summary_xml.jsonl");
    assert!(!rows.is_empty());
    let mut failures = Vec::new();
    for row in &rows {
        let xml = vectors::bytes_field(row, "xml").expect("xml or xml_base64");
        let expect = row["expect"].as_str().expect("expect");
        // SAFETY: NULL only with length 0 (V12.2), else a live buffer of `xml.len()` bytes.
        let rc = unsafe { lc_summary_xml_validate(vectors::ptr_of(row, &xml), xml.len()) };
        let got = status::verdict(rc);
        if got != expect {
            failures.push(format!("{}: expected {expect}, got {got}", vectors::name(row)));
        }
    }
    assert!(failures.is_empty(), "{} of {} rows fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
}

#[test]
fn c_abi_boundary() {
    // (NULL, 0) is the empty document; (NULL, n > 0) is a boundary error (SPEC §1).
    // SAFETY: NULL pointers are allowed by the contract.
    assert_eq!(status::verdict(unsafe { lc_summary_xml_validate(std::ptr::null(), 0) }), "xml_root");
    assert_eq!(unsafe { lc_summary_xml_validate(std::ptr::null(), 1) }, Status::NullArgument.code());
    let xml = goal("x");
    // SAFETY: a live buffer; the length is only compared, never used to read (A3.1).
    assert_eq!(unsafe { lc_summary_xml_validate(xml.as_ptr(), usize::MAX) }, Status::LengthOverflow.code());
}
