//! `lc_request_fingerprint` (SPEC §10).

use super::{InBuf, ffi_status, lc_status, required};
use crate::fingerprint::RequestFingerprint;

/// Length in bytes of a request fingerprint (a SHA-256 digest): the size of the `out` buffer of
/// `lc_request_fingerprint`.
pub const LC_FINGERPRINT_LEN: usize = 32;

/// Computes the request fingerprint of a request-fingerprint document (SPEC §10): decodes the JSON
/// document (every key required, unknown keys rejected), validates it in the order of R10.2 and
/// writes SHA-256 of its canonical bytes (R10.5) to `out`.
///
/// Returns `LC_OK`; `LC_FINGERPRINT_WIRE` for a malformed document; the first failing check among
/// `LC_FINGERPRINT_SYSTEM_REVISION`, `LC_FINGERPRINT_TOOL_POLICY_REVISION`,
/// `LC_FINGERPRINT_RUNTIME_CONTEXT_REVISION`, `LC_FINGERPRINT_MODEL`, `LC_FINGERPRINT_BASIS`,
/// `LC_FINGERPRINT_COUNTER_CAPABILITY`, `LC_FINGERPRINT_INFERENCE_CAPABILITY`; or a boundary code
/// (`LC_ERR_NULL_ARGUMENT` for a NULL `out` or `(NULL, json_len > 0)`). `LC_FINGERPRINT_ENCODING`
/// is never returned: a JSON document cannot hold NaN or an infinity.
///
/// `out` is written only on `LC_OK`.
///
/// # Safety
/// `json` is NULL (with `json_len == 0`) or valid for reads of `json_len` bytes during the call;
/// `out` is valid for writes of `LC_FINGERPRINT_LEN` bytes and does not overlap `json`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_request_fingerprint(json: *const u8, json_len: usize, out: *mut u8) -> lc_status {
    ffi_status!({
        let json = InBuf::new(json, json_len)?;
        required(out.cast_const())?;
        // SAFETY: guaranteed by the caller (see above).
        let json = unsafe { json.slice() }?;
        // Hashed while the canonical bytes are written: they are never held in memory.
        let digest: [u8; LC_FINGERPRINT_LEN] = RequestFingerprint::digest_of(json)?;
        // SAFETY: `out` is non-NULL and, per the caller, writable for LC_FINGERPRINT_LEN bytes
        // that do not overlap the digest (which this function owns).
        unsafe { core::ptr::copy_nonoverlapping(digest.as_ptr(), out, digest.len()) };
        Ok(())
    })
}
