//! Checked wrappers over the converters of docs/SPEC.md §16: the conversion handle and its
//! accessors (the two-call pattern of each array checked), and the input made from it.

use std::ptr;

use loopcompact::ffi::{self, lc_conversion, lc_loss};

use crate::abi::{Input, in_ptr};
use crate::diagnostic::{Diag, diagnose_with};
use crate::round::two_call;
use crate::status::{LC_ERR_BUFFER_TOO_SMALL, LC_OK, name};

/// What a conversion gives, read back through every accessor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub transcript: Vec<u8>,
    pub source_index: Vec<u64>,
    pub cut_allowed: Vec<bool>,
    /// `(source index, LC_LOSS_* code)`.
    pub losses: Vec<(u64, i32)>,
    handle: *mut lc_conversion,
}

impl Drop for Converted {
    fn drop(&mut self) {
        // SAFETY: the handle from lc_transcript_convert, freed once.
        unsafe { ffi::lc_conversion_free(self.handle) }
    }
}

/// An array accessor's two-call pattern: the size query (`(NULL, 0)`) gives
/// `LC_ERR_BUFFER_TOO_SMALL` with the count (or `LC_OK` with 0), a buffer one element short gives
/// the same count untouched, the exact size gives `LC_OK`.
fn elements<T: Copy + Default + PartialEq + std::fmt::Debug>(
    what: &str,
    sentinel: T,
    call: impl Fn(*mut T, usize, &mut usize) -> i32,
) -> Vec<T> {
    let mut len = usize::MAX;
    let rc = call(ptr::null_mut(), 0, &mut len);
    if rc == LC_OK {
        assert_eq!(len, 0, "{what}: LC_OK from the size query with {len} elements");
        return Vec::new();
    }
    assert_eq!(rc, LC_ERR_BUFFER_TOO_SMALL, "{what} size query: {}", name(rc));
    let mut short = vec![sentinel; len - 1];
    let mut short_len = usize::MAX;
    let short_ptr = if short.is_empty() { ptr::null_mut() } else { short.as_mut_ptr() };
    assert_eq!(call(short_ptr, short.len(), &mut short_len), LC_ERR_BUFFER_TOO_SMALL, "{what} one short");
    assert_eq!(short_len, len, "{what}: two lengths");
    assert!(short.iter().all(|x| *x == sentinel), "{what} wrote into a too-small buffer");
    let mut out = vec![sentinel; len];
    let mut written = usize::MAX;
    assert_eq!(call(out.as_mut_ptr(), out.len(), &mut written), LC_OK, "{what} with room");
    assert_eq!(written, len, "{what}: two lengths");
    out
}

/// `lc_transcript_convert` with and without a diagnostic (the same status both ways), then every
/// accessor; the failure's status and diagnosis otherwise (`*out` untouched).
#[track_caller]
#[allow(clippy::result_large_err)] // a test helper: the diagnosis is what the tests look at
pub fn convert(format: i32, src: &[u8], flags: u32) -> Result<Converted, (i32, Diag)> {
    let mut handles = Vec::new();
    let (rc, diag) = diagnose_with(|d| {
        let mut out: *mut lc_conversion = ptr::null_mut();
        // SAFETY: a live buffer (or NULL with length 0), `out` writable, `d` NULL or a full diagnostic.
        let rc = unsafe { ffi::lc_transcript_convert(format, in_ptr(src), src.len(), flags, &raw mut out, d) };
        assert_eq!(rc == LC_OK, !out.is_null(), "lc_transcript_convert: a handle iff LC_OK ({})", name(rc));
        handles.push(out);
        rc
    });
    if rc != LC_OK {
        return Err((rc, diag));
    }
    // SAFETY: the first of the two handles, freed once (the second is `Converted`'s).
    unsafe { ffi::lc_conversion_free(handles[0]) };
    let handle = handles[1];
    let transcript = two_call("lc_conversion_transcript", |buf, cap, len| {
        // SAFETY: a live handle, `buf` writable for `cap` bytes (or NULL with 0), `len` writable.
        unsafe { ffi::lc_conversion_transcript(handle, buf, cap, len) }
    })
    .expect("a transcript is never empty (its brackets)");
    let source_index = elements("lc_conversion_source_index", u64::MAX - 7, |buf, cap, len| {
        // SAFETY: as above, in elements.
        unsafe { ffi::lc_conversion_source_index(handle, buf, cap, len) }
    });
    let cut_allowed = elements("lc_conversion_cut_allowed", 0xA5u8, |buf, cap, len| {
        // SAFETY: as above, in bytes.
        unsafe { ffi::lc_conversion_cut_allowed(handle, buf, cap, len) }
    });
    assert!(cut_allowed.iter().all(|&b| b <= 1), "cut_allowed holds a byte other than 0 and 1");
    assert_eq!(cut_allowed.len(), source_index.len() + 1, "cut_allowed has n + 1 entries");
    let losses = elements("lc_conversion_losses", lc_loss { source_index: 7, code: -7 }, |buf, cap, len| {
        // SAFETY: as above, in lc_loss elements.
        unsafe { ffi::lc_conversion_losses(handle, buf, cap, len) }
    });
    Ok(Converted {
        transcript,
        source_index,
        cut_allowed: cut_allowed.into_iter().map(|b| b == 1).collect(),
        losses: losses.into_iter().map(|l| (l.source_index, l.code)).collect(),
        handle,
    })
}

impl Converted {
    /// `lc_conversion_input`: the input around this transcript (`fingerprint` None: minted).
    pub fn input(
        &self,
        provider: &str,
        model: &str,
        max_summary_tokens: u64,
        revision: u64,
        fingerprint: Option<[u8; 32]>,
    ) -> Result<Input, i32> {
        let mut out = ptr::null_mut();
        let fp = fingerprint.as_ref().map_or(ptr::null(), |f| f.as_ptr());
        // SAFETY: a live handle and buffers, `out` writable.
        let rc = unsafe {
            ffi::lc_conversion_input(
                self.handle,
                in_ptr(provider.as_bytes()),
                provider.len(),
                in_ptr(model.as_bytes()),
                model.len(),
                max_summary_tokens,
                revision,
                fp,
                &raw mut out,
            )
        };
        assert_eq!(rc == LC_OK, !out.is_null(), "lc_conversion_input: a handle iff LC_OK");
        if rc != LC_OK {
            return Err(rc);
        }
        Ok(Input::from_raw(out))
    }
}

impl Converted {
    /// `lc_conversion_source_cut`; `*out` untouched on failure.
    pub fn source_cut(&self, wire_cut: usize) -> Result<u64, i32> {
        let mut out = u64::MAX - 3;
        // SAFETY: a live handle, `out` writable.
        let rc = unsafe { ffi::lc_conversion_source_cut(self.handle, wire_cut as u64, &raw mut out) };
        if rc == LC_OK {
            Ok(out)
        } else {
            assert_eq!(out, u64::MAX - 3, "lc_conversion_source_cut wrote *out on {}", name(rc));
            Err(rc)
        }
    }
}

impl Converted {
    /// `lc_conversion_source_len`: the number of source messages (or items).
    #[must_use]
    pub fn source_len(&self) -> u64 {
        let mut out = u64::MAX - 3;
        // SAFETY: a live handle, `out` writable.
        let rc = unsafe { ffi::lc_conversion_source_len(self.handle, &raw mut out) };
        assert_eq!(rc, LC_OK, "lc_conversion_source_len on a live handle");
        out
    }
}

/// `lc_loss_name`: static, never NULL, UTF-8.
#[must_use]
pub fn loss_name(code: i32) -> &'static str {
    let p = ffi::lc_loss_name(code);
    assert!(!p.is_null());
    // SAFETY: a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().expect("a loss name is UTF-8")
}
