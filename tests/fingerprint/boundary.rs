//! The boundary rules of §1 and A3.1: NULL, empty and overlong buffers, `out` untouched on failure.

use super::support::*;

#[test]
fn boundaries() {
    let doc = WORKED_EXAMPLE.as_bytes();
    let mut out = [0xAAu8; LC_FINGERPRINT_LEN];
    unsafe {
        // (NULL, 0) is the empty document.
        assert_eq!(lc_request_fingerprint(ptr::null(), 0, out.as_mut_ptr()), Status::FingerprintWire.code());
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), 0, out.as_mut_ptr()), Status::FingerprintWire.code());
        // (NULL, n > 0) and a NULL out.
        assert_eq!(lc_request_fingerprint(ptr::null(), 5, out.as_mut_ptr()), Status::NullArgument.code());
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), doc.len(), ptr::null_mut()), Status::NullArgument.code());
        assert_eq!(lc_request_fingerprint(ptr::null(), 0, ptr::null_mut()), Status::NullArgument.code());
        // Pointers before lengths, lengths before content.
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), usize::MAX, ptr::null_mut()), Status::NullArgument.code());
        assert_eq!(
            lc_request_fingerprint(doc.as_ptr(), isize::MAX as usize + 1, out.as_mut_ptr()),
            Status::LengthOverflow.code()
        );
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), usize::MAX, out.as_mut_ptr()), Status::LengthOverflow.code());
    }
    // Nothing was written by any failing call.
    assert_eq!(out, [0xAA; LC_FINGERPRINT_LEN]);
    let (rc, _) = call(WORKED_EXAMPLE.replace("system-v1", "").as_bytes());
    assert_eq!(rc, Status::FingerprintSystemRevision.code());
    let (_, untouched) = call(b"{");
    assert_eq!(untouched, [0xAA; LC_FINGERPRINT_LEN]);
    // A shorter length than the buffer is honoured (no NUL terminator is assumed).
    let padded = format!("{WORKED_EXAMPLE}garbage");
    let mut out = [0u8; LC_FINGERPRINT_LEN];
    let rc = unsafe { lc_request_fingerprint(padded.as_ptr(), WORKED_EXAMPLE.len(), out.as_mut_ptr()) };
    assert_eq!(rc, 0);
    assert_eq!(vectors::hex(&out), WORKED_EXAMPLE_SHA256);
}

#[test]
fn fingerprint_len_constant() {
    assert_eq!(LC_FINGERPRINT_LEN, 32);
    assert_eq!(RequestFingerprint::of(&worked_example()).unwrap().as_bytes().len(), LC_FINGERPRINT_LEN);
}
