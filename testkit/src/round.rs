//! Checked wrappers over the round of docs/SPEC.md §15: the bare reply, the head, the replacement
//! build and its check. Each checks the conventions of SPEC §1 and A3.1–A3.6 as [`crate::abi`]
//! does, and each `_diagnose` form that it returns what the plain function returns.

use std::ptr;

use loopcompact::ffi::{self, lc_diagnostic};

use crate::abi::{Input, in_ptr};
use crate::diagnostic::{Diag, diagnose_with};
use crate::status::{LC_ERR_BUFFER_TOO_SMALL, LC_OK, name};

/// The byte a too-small buffer is filled with; it must still be there after the call.
const UNTOUCHED: u8 = 0xA5;

/// The two-call pattern of a function that writes a variable-length result, checked: the size
/// query (`(NULL, 0)`) gives `LC_ERR_BUFFER_TOO_SMALL` with the length (a result is never empty),
/// a buffer one byte short stays untouched and gives the same length, the exact size gives
/// `LC_OK`; on any content failure `*out_len` is untouched and every call agrees.
#[track_caller]
pub fn two_call(what: &str, mut call: impl FnMut(*mut u8, usize, &mut usize) -> i32) -> Result<Vec<u8>, i32> {
    let mut len = usize::MAX;
    let rc = call(ptr::null_mut(), 0, &mut len);
    if rc != LC_ERR_BUFFER_TOO_SMALL {
        assert_ne!(rc, LC_OK, "{what}: LC_OK from the size query (a result is never empty)");
        assert_eq!(len, usize::MAX, "{what} wrote *out_len on {}", name(rc));
        let mut again = usize::MAX;
        let mut room = vec![UNTOUCHED; 64];
        assert_eq!(call(room.as_mut_ptr(), room.len(), &mut again), rc, "{what}: a buffer changed the verdict");
        assert!(room.iter().all(|&b| b == UNTOUCHED), "{what} wrote its buffer on {}", name(rc));
        return Err(rc);
    }
    assert!(len > 0 && len != usize::MAX, "{what}: size query gave {len}");
    let mut short = vec![UNTOUCHED; len - 1];
    let mut short_len = usize::MAX;
    let short_ptr = if short.is_empty() { ptr::null_mut() } else { short.as_mut_ptr() };
    let rc = call(short_ptr, short.len(), &mut short_len);
    assert_eq!(rc, LC_ERR_BUFFER_TOO_SMALL, "{what} with a buffer one byte short: {}", name(rc));
    assert_eq!(short_len, len, "{what}: the two-call pattern gave two lengths");
    assert!(short.iter().all(|&b| b == UNTOUCHED), "{what} wrote into a too-small buffer");
    let mut buf = vec![UNTOUCHED; len + 8];
    let mut written = usize::MAX;
    let rc = call(buf.as_mut_ptr(), buf.len(), &mut written);
    assert_eq!(rc, LC_OK, "{what} with room: {}", name(rc));
    assert_eq!(written, len, "{what}: the two-call pattern gave two lengths");
    assert!(buf[len..].iter().all(|&b| b == UNTOUCHED), "{what} wrote past its length");
    buf.truncate(len);
    Ok(buf)
}

/// The arguments of a bare-reply call (SPEC R15.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    pub output_tokens: u64,
    /// `LC_STOP_*`.
    pub stop: i32,
    pub max_reply_bytes: u64,
    /// `LC_REPLY_*`.
    pub flags: u32,
}

impl Reply {
    /// No cleanup, stop unknown.
    #[must_use]
    pub const fn new(output_tokens: u64, max_reply_bytes: u64) -> Reply {
        Reply { output_tokens, stop: ffi::LC_STOP_UNKNOWN, max_reply_bytes, flags: 0 }
    }
}

impl Input {
    /// `lc_compaction_reply_validate` with a buffer of `reply.len()` bytes (always enough), then on
    /// success the two-call pattern checked; on failure `*summary_len` must be untouched.
    #[track_caller]
    pub fn reply(&self, reply: &[u8], args: Reply) -> Result<Vec<u8>, i32> {
        let call = |buf: *mut u8, cap: usize, len: &mut usize| {
            // SAFETY: a live handle and reply (or NULL with length 0), `buf` writable for `cap`
            // bytes (or NULL with 0) and not overlapping the reply, `len` writable.
            unsafe {
                ffi::lc_compaction_reply_validate(
                    self.as_ptr(),
                    in_ptr(reply),
                    reply.len(),
                    args.output_tokens,
                    args.stop,
                    args.max_reply_bytes,
                    args.flags,
                    buf,
                    cap,
                    len,
                )
            }
        };
        let mut buf = vec![UNTOUCHED; reply.len()];
        let mut len = usize::MAX;
        let buf_ptr = if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() };
        let rc = call(buf_ptr, buf.len(), &mut len);
        if rc != LC_OK {
            assert_ne!(rc, LC_ERR_BUFFER_TOO_SMALL, "reply_validate: a buffer of reply_len bytes was too small");
            assert_eq!(len, usize::MAX, "reply_validate wrote *summary_len on {}", name(rc));
            assert!(buf.iter().all(|&b| b == UNTOUCHED), "reply_validate wrote its buffer on {}", name(rc));
            return Err(rc);
        }
        assert!(len > 0 && len <= reply.len(), "reply_validate: summary of {len} bytes from {}", reply.len());
        buf.truncate(len);
        let again = two_call("lc_compaction_reply_validate", call).expect("a valid reply validates again");
        assert_eq!(again, buf, "reply_validate: the two-call pattern wrote another summary");
        Ok(buf)
    }

    /// `lc_compaction_reply_diagnose`; its status and summary must equal
    /// [`Input::reply`]'s, with and without a diagnostic.
    #[track_caller]
    pub fn reply_diagnose(&self, reply: &[u8], args: Reply) -> (Result<Vec<u8>, i32>, Diag) {
        let mut summaries = Vec::new();
        let (rc, diag) = diagnose_with(|d| {
            let mut buf = vec![UNTOUCHED; reply.len()];
            let mut len = usize::MAX;
            let buf_ptr = if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() };
            // SAFETY: as in `reply`; `d` NULL or a full diagnostic.
            let rc = unsafe {
                ffi::lc_compaction_reply_diagnose(
                    self.as_ptr(),
                    in_ptr(reply),
                    reply.len(),
                    args.output_tokens,
                    args.stop,
                    args.max_reply_bytes,
                    args.flags,
                    buf_ptr,
                    buf.len(),
                    &raw mut len,
                    d,
                )
            };
            if rc == LC_OK {
                buf.truncate(len);
                summaries.push(buf);
            } else {
                assert_eq!(len, usize::MAX, "reply_diagnose wrote *summary_len on {}", name(rc));
            }
            rc
        });
        let plain = self.reply(reply, args);
        let result = if rc == LC_OK { Ok(summaries[1].clone()) } else { Err(rc) };
        assert_eq!(result, plain, "lc_compaction_reply_diagnose and lc_compaction_reply_validate disagree");
        if let Ok(summary) = &result {
            assert_eq!(&summaries[0], summary, "the two calls wrote different summaries");
            let removed = diag.removed_before + diag.removed_after;
            assert_eq!(summary.len() as u64 + removed, reply.len() as u64, "removed bytes do not add up");
        }
        (result, diag)
    }

    /// `lc_compaction_input_encode_head_within`, two-call pattern checked.
    #[track_caller]
    pub fn head(&self, cut: u64, max_bytes: u64) -> Result<Vec<u8>, i32> {
        two_call("lc_compaction_input_encode_head_within", |buf, cap, len| {
            // SAFETY: a live handle, `buf` writable for `cap` bytes (or NULL with 0), `len` writable.
            unsafe { ffi::lc_compaction_input_encode_head_within(self.as_ptr(), cut, max_bytes, buf, cap, len) }
        })
    }

    /// `lc_replacement_build`, two-call pattern checked.
    #[track_caller]
    pub fn build(&self, cut: u64, summary: &[u8]) -> Result<Vec<u8>, i32> {
        two_call("lc_replacement_build", |buf, cap, len| {
            // SAFETY: a live handle and summary (or NULL with length 0), `buf` writable for `cap`
            // bytes (or NULL with 0), `len` writable.
            unsafe { ffi::lc_replacement_build(self.as_ptr(), cut, in_ptr(summary), summary.len(), buf, cap, len) }
        })
    }

    /// `lc_replacement_verify`, with and without a diagnostic (the same status both ways).
    #[track_caller]
    pub fn verify(&self, cut: u64, rebuilt: &[u8]) -> (i32, Diag) {
        diagnose_with(|d: *mut lc_diagnostic| {
            // SAFETY: a live handle and buffer (or NULL with length 0), `d` NULL or a full diagnostic.
            unsafe { ffi::lc_replacement_verify(self.as_ptr(), cut, in_ptr(rebuilt), rebuilt.len(), d) }
        })
    }
}
