//! Checked wrappers over the `extern "C"` functions of `loopcompact::ffi`: each call also checks
//! the boundary conventions of SPEC §1 and A3.1–A3.6 that a correct host relies on — out-parameters
//! written only on success (a sentinel must survive a failure), the two-call pattern (a size
//! query, a buffer one byte short that stays untouched, then the exact size, all giving one
//! length), and a handle iff `LC_OK`. A broken convention panics.
//!
//! Buffers are passed as hosts pass them: an empty slice as `(NULL, 0)` (what Go passes for an
//! empty slice and ctypes for `None`), the one empty buffer a Rust slice never gives. Tests of
//! other pointer shapes call the C functions directly.

use std::ptr::{self, NonNull};

use loopcompact::ffi::{self, LC_FINGERPRINT_LEN, lc_context_limits, lc_resolved_limits};

use crate::status::{LC_ERR_BUFFER_TOO_SMALL, LC_INPUT_TOO_LARGE, LC_OK, name};

/// The byte a too-small buffer is filled with; it must still be there after the call.
const UNTOUCHED: u8 = 0xA5;

/// `(NULL, 0)` for an empty buffer (SPEC §1), else the slice's pointer.
#[must_use]
pub fn in_ptr(data: &[u8]) -> *const u8 {
    if data.is_empty() { ptr::null() } else { data.as_ptr() }
}

/// `lc_summary_xml_validate`.
#[must_use]
pub fn summary_xml(xml: &[u8]) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_summary_xml_validate(in_ptr(xml), xml.len()) }
}

/// `lc_compaction_input_validate`.
#[must_use]
pub fn input_validate(wire: &[u8]) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_compaction_input_validate(in_ptr(wire), wire.len()) }
}

/// `lc_compaction_policy_validate`.
#[must_use]
pub fn compaction_policy(json: &[u8], quality: i32) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_compaction_policy_validate(in_ptr(json), json.len(), quality) }
}

/// `lc_context_observation_validate`.
#[must_use]
pub fn context_observation(json: &[u8], quality: i32) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_context_observation_validate(in_ptr(json), json.len(), quality) }
}

/// `lc_context_config_validate`.
#[must_use]
pub fn context_config(json: &[u8]) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_context_config_validate(in_ptr(json), json.len()) }
}

/// `lc_request_fingerprint`: the digest, or the status; `out` must be untouched on failure.
pub fn request_fingerprint(json: &[u8]) -> Result<[u8; LC_FINGERPRINT_LEN], i32> {
    const SENTINEL: [u8; LC_FINGERPRINT_LEN] = [UNTOUCHED; LC_FINGERPRINT_LEN];
    let mut out = SENTINEL;
    // SAFETY: a live buffer (or NULL with length 0) and 32 writable bytes.
    let rc = unsafe { ffi::lc_request_fingerprint(in_ptr(json), json.len(), out.as_mut_ptr()) };
    if rc == LC_OK {
        Ok(out)
    } else {
        assert_eq!(out, SENTINEL, "lc_request_fingerprint wrote its output on {}", name(rc));
        Err(rc)
    }
}

/// `lc_context_limits_resolve`; `*out` must be untouched on failure.
pub fn context_limits_resolve(
    limits: lc_context_limits,
    reserved_output: u64,
    safety_margin: u64,
) -> Result<lc_resolved_limits, i32> {
    let sentinel = lc_resolved_limits { reserved_output: 7, raw_input_limit: 7, input_limit: 7 };
    let mut out = sentinel;
    // SAFETY: `out` is writable.
    let rc = unsafe { ffi::lc_context_limits_resolve(limits, reserved_output, safety_margin, &raw mut out) };
    if rc == LC_OK {
        Ok(out)
    } else {
        assert_eq!(out, sentinel, "lc_context_limits_resolve wrote *out on {}", name(rc));
        Err(rc)
    }
}

/// `lc_occupancy_basis_points`; `*out` must be untouched on failure.
pub fn occupancy_basis_points(used: u64, limit: u64) -> Result<u16, i32> {
    const SENTINEL: u16 = 0xA5A5;
    let mut out = SENTINEL;
    // SAFETY: `out` is writable.
    let rc = unsafe { ffi::lc_occupancy_basis_points(used, limit, &raw mut out) };
    if rc == LC_OK {
        Ok(out)
    } else {
        assert_eq!(out, SENTINEL, "lc_occupancy_basis_points wrote *out on {}", name(rc));
        Err(rc)
    }
}

/// An input handle from `lc_compaction_input_parse`, freed by `lc_compaction_input_free` on drop.
pub struct Input(NonNull<ffi::lc_compaction_input>);

// SAFETY: a handle is immutable and may be shared between threads and freed on another thread than
// the one that parsed it (SPEC §1, W5.4); tests/concurrency.rs and tests/ffi_miri.rs check that
// claim (the latter under Miri, the former under ThreadSanitizer).
unsafe impl Send for Input {}
// SAFETY: as above.
unsafe impl Sync for Input {}

impl Input {
    /// `lc_compaction_input_parse`; `*out` must be untouched on failure and non-NULL on success.
    pub fn parse(wire: &[u8]) -> Result<Input, i32> {
        // SAFETY: a live buffer (or NULL with length 0).
        unsafe { Input::parse_raw(in_ptr(wire), wire.len()) }
    }

    /// [`Input::parse`] on a pointer and length of the caller's choice (the vectors' `null_ptr`).
    ///
    /// # Safety
    /// `(wire, len)` must be a valid argument pair of `lc_compaction_input_parse`.
    pub unsafe fn parse_raw(wire: *const u8, len: usize) -> Result<Input, i32> {
        let sentinel = NonNull::<ffi::lc_compaction_input>::dangling().as_ptr();
        let mut out = sentinel;
        // SAFETY: the caller's buffer and a writable pointer.
        let rc = unsafe { ffi::lc_compaction_input_parse(wire, len, &raw mut out) };
        if rc == LC_OK {
            assert!(out != sentinel, "lc_compaction_input_parse returned LC_OK without a handle");
            Ok(Input(NonNull::new(out).expect("LC_OK with a NULL handle")))
        } else {
            assert!(out == sentinel, "lc_compaction_input_parse wrote *out on {}", name(rc));
            Err(rc)
        }
    }

    /// Takes ownership of a handle another function made (`lc_conversion_input`).
    #[must_use]
    pub fn from_raw(handle: *mut ffi::lc_compaction_input) -> Input {
        Input(NonNull::new(handle).expect("a handle is never NULL"))
    }

    /// [`Input::parse`], with `lc_compaction_input_validate` of the same bytes, which must agree.
    pub fn parse_and_validate(wire: &[u8]) -> Result<Input, i32> {
        let validated = input_validate(wire);
        let parsed = Input::parse(wire);
        let rc = parsed.as_ref().err().copied().unwrap_or(LC_OK);
        assert_eq!(validated, rc, "lc_compaction_input_validate {} but _parse {}", name(validated), name(rc));
        parsed
    }

    /// The raw handle, for callers that need the C function directly.
    #[must_use]
    pub fn as_ptr(&self) -> *const ffi::lc_compaction_input {
        self.0.as_ptr()
    }

    /// `lc_compaction_input_encode_within` with the two-call pattern, checking it (A3.2, A3.6):
    /// the size query, a buffer one byte short (nothing written), then the exact size.
    pub fn encode(&self, max_bytes: u64) -> Result<Vec<u8>, i32> {
        let mut len = usize::MAX;
        // SAFETY: a live handle; NULL with capacity 0 is the size query; `len` is writable.
        let rc = unsafe {
            ffi::lc_compaction_input_encode_within(self.as_ptr(), max_bytes, ptr::null_mut(), 0, &raw mut len)
        };
        match rc {
            LC_ERR_BUFFER_TOO_SMALL => {}
            LC_INPUT_TOO_LARGE => {
                assert_eq!(len, usize::MAX, "encode_within wrote *out_len on LC_INPUT_TOO_LARGE");
                return Err(rc);
            }
            // A successful result is never empty, so the size query never succeeds (A3.2).
            other => panic!("encode_within size query returned {other} ({})", name(other)),
        }
        assert!(len > 0 && len as u64 <= max_bytes, "encode_within: size {len} for limit {max_bytes}");
        let mut short = vec![UNTOUCHED; len - 1];
        let mut short_len = usize::MAX;
        // SAFETY: `short` is writable for its length.
        let rc = unsafe {
            ffi::lc_compaction_input_encode_within(
                self.as_ptr(),
                max_bytes,
                short.as_mut_ptr(),
                short.len(),
                &raw mut short_len,
            )
        };
        assert_eq!(rc, LC_ERR_BUFFER_TOO_SMALL, "encode_within with a buffer one byte short: {}", name(rc));
        assert_eq!(short_len, len, "encode_within: the two-call pattern gave two lengths");
        assert!(short.iter().all(|&b| b == UNTOUCHED), "encode_within wrote into a too-small buffer");
        drop(short);
        let mut buf = vec![0u8; len];
        let mut written = usize::MAX;
        // SAFETY: `buf` is writable for its length.
        let rc = unsafe {
            ffi::lc_compaction_input_encode_within(
                self.as_ptr(),
                max_bytes,
                buf.as_mut_ptr(),
                buf.len(),
                &raw mut written,
            )
        };
        assert_eq!(rc, LC_OK, "encode_within with the size it asked for: {}", name(rc));
        assert_eq!(written, len, "encode_within: the two-call pattern gave two lengths");
        Ok(buf)
    }

    /// `lc_compaction_output_validate` with a buffer of `reply.len()` bytes (O6.4: always enough),
    /// then, on success, the two-call pattern checked: the size query and a buffer one byte short
    /// (nothing written) give the same length. On failure `*summary_len` must be untouched.
    pub fn output(&self, reply: &[u8], output_tokens: u64, max_output_bytes: u64) -> Result<Vec<u8>, i32> {
        let call = |buf: *mut u8, cap: usize, len: &mut usize| {
            // SAFETY: a live handle, a live reply (or NULL with length 0), `buf` writable for `cap`
            // bytes (or NULL with 0), `len` writable.
            unsafe {
                ffi::lc_compaction_output_validate(
                    self.as_ptr(),
                    in_ptr(reply),
                    reply.len(),
                    output_tokens,
                    max_output_bytes,
                    buf,
                    cap,
                    len,
                )
            }
        };
        let mut buf = vec![0u8; reply.len()];
        let mut len = usize::MAX;
        let buf_ptr = if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() };
        let rc = call(buf_ptr, buf.len(), &mut len);
        if rc != LC_OK {
            assert_ne!(rc, LC_ERR_BUFFER_TOO_SMALL, "output_validate: a buffer of output_len bytes was too small");
            assert_eq!(len, usize::MAX, "output_validate wrote *summary_len on {}", name(rc));
            return Err(rc);
        }
        assert!(len <= reply.len(), "output_validate: summary of {len} bytes from a reply of {}", reply.len());
        // An empty summary is xml_root (O6.3), so a valid one is never empty.
        assert!(len > 0, "output_validate: LC_OK with an empty summary");
        buf.truncate(len);

        let mut query_len = usize::MAX;
        let rc = call(ptr::null_mut(), 0, &mut query_len);
        assert_eq!(rc, LC_ERR_BUFFER_TOO_SMALL, "output_validate size query: {}", name(rc));
        assert_eq!(query_len, len, "output_validate: the two-call pattern gave two lengths");
        let mut short = vec![UNTOUCHED; len - 1];
        let mut short_len = usize::MAX;
        let short_ptr = if short.is_empty() { ptr::null_mut() } else { short.as_mut_ptr() };
        let rc = call(short_ptr, short.len(), &mut short_len);
        assert_eq!(rc, LC_ERR_BUFFER_TOO_SMALL, "output_validate with a buffer one byte short: {}", name(rc));
        assert_eq!(short_len, len, "output_validate: the two-call pattern gave two lengths");
        assert!(short.iter().all(|&b| b == UNTOUCHED), "output_validate wrote into a too-small buffer");
        Ok(buf)
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        // SAFETY: a live handle from lc_compaction_input_parse, freed once.
        unsafe { ffi::lc_compaction_input_free(self.0.as_ptr()) }
    }
}
