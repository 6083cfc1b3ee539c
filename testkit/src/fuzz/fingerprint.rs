//! The request-fingerprint target (SPEC §10).

use loopcompact::fingerprint::RequestFingerprint;

use super::padded;
use crate::abi::request_fingerprint;
use crate::diagnostic::request_fingerprint_diagnose;
use crate::status::{FINGERPRINT_CODES, check_status, name};

/// `lc_request_fingerprint` (SPEC §10).
///
/// Invariants: the status is `LC_OK` or 400–407 (A3.9), `out` untouched on failure;
/// `lc_request_fingerprint_diagnose` returns the same status and digest and fills `diag.status`
/// (C13.4, checked by its wrapper); two calls give the same digest; whitespace around the document
/// changes nothing (J5.1); the safe API agrees;
/// on `LC_OK` the canonical bytes (R10.5), passed back as the document, give the same digest and
/// the same canonical bytes (R10.7: idempotent).
pub fn target_request_fingerprint(data: &[u8]) {
    let result = request_fingerprint(data);
    let rc = result.err().unwrap_or(0);
    check_status("lc_request_fingerprint", rc, FINGERPRINT_CODES);
    assert_eq!(request_fingerprint_diagnose(data).0, result, "lc_request_fingerprint_diagnose differs");
    assert_eq!(request_fingerprint(data), result, "lc_request_fingerprint is not deterministic");
    let wrapped = request_fingerprint(&padded(data));
    assert_eq!(wrapped, result, "surrounding whitespace changed the result");

    let safe = RequestFingerprint::compute(data);
    match (&safe, result) {
        (Ok(fingerprint), Ok(digest)) => {
            assert_eq!(fingerprint.as_bytes(), &digest, "safe API and C ABI digests differ");
            let canonical = fingerprint.canonical_bytes();
            let again = request_fingerprint(canonical);
            assert_eq!(again, Ok(digest), "the canonical bytes as a document give another result");
            let twice = RequestFingerprint::compute(canonical).expect("canonical bytes rejected");
            assert_eq!(twice.canonical_bytes(), canonical, "canonical bytes are not a fixed point");
        }
        (Err(e), Err(rc)) => assert_eq!(e.status().code(), rc, "safe API {} vs C ABI {}", e.status(), name(rc)),
        _ => panic!("safe API and C ABI disagree: {:?} vs {}", safe.as_ref().err(), name(rc)),
    }
}
