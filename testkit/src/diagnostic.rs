//! Checked wrappers over the diagnostics of docs/SPEC.md §13: the `_diagnose` siblings, the status
//! classes, the retry message, the instructions and the summary's sections.
//!
//! Every `_diagnose` wrapper checks what C13.2 and C13.4 promise for any input, so that a test (or
//! a fuzz body) only compares the fields it cares about:
//!
//! - the sibling returns what the plain function returns, with and without a diagnostic (`diag`
//!   NULL is allowed), and writes the same outputs (summary, digest) on `LC_OK`;
//! - `diag.status` is that status and `diag.status_class` its class (`lc_status_class`);
//! - `struct_size` is never written, every field within it is (the struct is filled with 0xA5
//!   first), `rule` and `expected` are NUL-terminated UTF-8, `location` is NUL-terminated within
//!   `LC_LOCATION_CAP`;
//! - line and column are 0 exactly when the offset is unknown; `limit` and `actual` come as a pair;
//! - for `LC_OK` and the boundary codes only `status` and `status_class` say something.
//!
//! The values a test expects are its own business: nothing here computes an expectation.

use std::ffi::{CStr, c_char};
use std::mem::{offset_of, size_of};
use std::ptr;

use loopcompact::ffi::{
    self, LC_FINGERPRINT_LEN, LC_LIMIT_UNKNOWN, LC_LOCATION_CAP, LC_OFFSET_UNKNOWN, lc_diagnostic, lc_span,
};

use crate::abi::{
    Input, compaction_policy, context_config, context_observation, in_ptr, input_validate, request_fingerprint,
    summary_xml,
};
use crate::status::{LC_ERR_BUFFER_TOO_SMALL, LC_OK, name};

/// The byte the diagnostic (and every too-small buffer) is filled with before a call.
pub const UNTOUCHED: u8 = 0xA5;

/// `sizeof(lc_diagnostic)`.
pub const DIAG_SIZE: usize = size_of::<lc_diagnostic>();

/// The codes after which a diagnosis says nothing but `status` and `status_class` (C13.4: `LC_OK`
/// and the boundary codes, C13.9's 4 included).
pub const BOUNDARY: &[i32] = &[0, 1, 2, 3, 4, 99];

/// An `lc_diagnostic` as the caller sees it after a call: the raw pointers of `rule` and
/// `expected` are kept (so that [`Diag::raw`] can hand the very same static strings back to
/// `lc_retry_message`), with their texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diag {
    pub status: i32,
    pub status_class: i32,
    pub section: i32,
    pub offset: u64,
    pub line: u64,
    pub column: u64,
    pub limit: u64,
    pub actual: u64,
    pub rule: String,
    pub expected: String,
    pub location: String,
    pub rule_ptr: *const c_char,
    pub expected_ptr: *const c_char,
    /// SPEC R15.7: what cleanup removed around a bare reply (0 for every other diagnosis).
    pub removed: u32,
    pub removed_before: u64,
    pub removed_after: u64,
}

impl Diag {
    /// The offset, `None` when `LC_OFFSET_UNKNOWN`.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        (self.offset != LC_OFFSET_UNKNOWN).then_some(self.offset)
    }

    /// `(limit, actual)`, `None` when `LC_LIMIT_UNKNOWN`.
    #[must_use]
    pub fn limits(&self) -> Option<(u64, u64)> {
        (self.limit != LC_LIMIT_UNKNOWN).then_some((self.limit, self.actual))
    }

    /// Every string of the diagnosis (C13.1: none may carry input bytes).
    #[must_use]
    pub fn strings(&self) -> [&str; 3] {
        [&self.rule, &self.expected, &self.location]
    }

    /// The `lc_diagnostic` this was read from, with the library's own `rule` and `expected`
    /// pointers and `struct_size` = `sizeof(lc_diagnostic)`.
    #[must_use]
    pub fn raw(&self) -> lc_diagnostic {
        let mut location = [0 as c_char; LC_LOCATION_CAP];
        for (slot, &b) in location.iter_mut().zip(self.location.as_bytes()) {
            *slot = b as c_char;
        }
        lc_diagnostic {
            struct_size: DIAG_SIZE,
            status: self.status,
            status_class: self.status_class,
            section: self.section,
            offset: self.offset,
            line: self.line,
            column: self.column,
            limit: self.limit,
            actual: self.actual,
            rule: self.rule_ptr,
            expected: self.expected_ptr,
            location,
            removed: self.removed,
            removed_before: self.removed_before,
            removed_after: self.removed_after,
        }
    }

    /// `lc_retry_message` for this diagnosis (checked, see [`retry_message`]).
    #[must_use]
    pub fn retry_message(&self) -> String {
        retry_message(&self.raw())
    }
}

/// Caller memory for an `lc_diagnostic` with room behind it, aligned as the struct is: what a host
/// with another (older or newer) idea of the struct's size passes.
#[repr(C, align(8))]
pub struct DiagBuf(pub [u8; DIAG_SIZE + 64]);

impl DiagBuf {
    /// Every byte [`UNTOUCHED`], then `struct_size` set.
    #[must_use]
    pub fn new(struct_size: usize) -> DiagBuf {
        let mut buf = DiagBuf([UNTOUCHED; DIAG_SIZE + 64]);
        buf.0[..size_of::<usize>()].copy_from_slice(&struct_size.to_ne_bytes());
        buf
    }

    /// The pointer a `_diagnose` function takes.
    pub fn as_mut_ptr(&mut self) -> *mut lc_diagnostic {
        self.0.as_mut_ptr().cast()
    }

    /// The `struct_size` field as it is now.
    #[must_use]
    pub fn struct_size(&self) -> usize {
        usize::from_ne_bytes(self.0[..size_of::<usize>()].try_into().unwrap())
    }

    /// The bytes of one field (by its offset and size in `lc_diagnostic`).
    #[must_use]
    pub fn field(&self, offset: usize, size: usize) -> &[u8] {
        &self.0[offset..offset + size]
    }
}

/// A NUL-terminated static string of the library, checked: not NULL, not the fill pattern, UTF-8.
#[track_caller]
fn c_text(p: *const c_char, what: &str) -> String {
    assert!(!p.is_null(), "diag.{what} is NULL after a call");
    let fill = usize::from_ne_bytes([UNTOUCHED; size_of::<usize>()]);
    assert_ne!(p as usize, fill, "diag.{what} was not written");
    // SAFETY: a string the library wrote (static and NUL-terminated by C13.2), not NULL and not
    // the fill pattern (checked above).
    let text = unsafe { CStr::from_ptr(p) };
    text.to_str().unwrap_or_else(|e| panic!("diag.{what} is not UTF-8: {e}")).to_owned()
}

/// Reads a diagnostic written with `struct_size` = `sizeof(lc_diagnostic)` after a call that
/// returned `rc`, checking C13.2 and C13.4 (see the module docs).
#[track_caller]
pub fn read_back(rc: i32, buf: &DiagBuf) -> Diag {
    assert_eq!(buf.struct_size(), DIAG_SIZE, "the library wrote struct_size");
    assert!(buf.0[DIAG_SIZE..].iter().all(|&b| b == UNTOUCHED), "the library wrote past struct_size");
    // SAFETY: the buffer is aligned for and at least as large as an lc_diagnostic, and every field
    // is a plain integer, pointer or byte array (any bit pattern is a value).
    let d: lc_diagnostic = unsafe { ptr::read(buf.0.as_ptr().cast::<lc_diagnostic>()) };
    let location_bytes: Vec<u8> = d.location.iter().map(|&c| c as u8).collect();
    let nul = location_bytes.iter().position(|&b| b == 0).expect("diag.location has no NUL within LC_LOCATION_CAP");
    let location = String::from_utf8(location_bytes[..nul].to_vec()).expect("diag.location is not UTF-8");
    let diag = Diag {
        status: d.status,
        status_class: d.status_class,
        section: d.section,
        offset: d.offset,
        line: d.line,
        column: d.column,
        limit: d.limit,
        actual: d.actual,
        rule: c_text(d.rule, "rule"),
        expected: c_text(d.expected, "expected"),
        location,
        rule_ptr: d.rule,
        expected_ptr: d.expected,
        removed: d.removed,
        removed_before: d.removed_before,
        removed_after: d.removed_after,
    };
    assert_eq!(diag.status, rc, "diag.status {} but the function returned {}", diag.status, name(rc));
    let class = ffi::lc_status_class(rc);
    // R15.2: a byte limit that no reply can meet makes `byte_limit` the host's.
    let host_limit = rc == crate::status::LC_SUMMARY_BYTE_LIMIT && diag.status_class == ffi::LC_CLASS_HOST;
    assert!(diag.status_class == class || host_limit, "diag.status_class vs lc_status_class({})", name(rc));
    assert!(diag.removed & !3 == 0, "diag.removed {} has bits no LC_REPLY_* flag has", diag.removed);
    assert!((0..=6).contains(&diag.section), "diag.section {} is no LC_SECTION_*", diag.section);
    match diag.offset() {
        None => assert_eq!((diag.line, diag.column), (0, 0), "line/column without an offset: {diag:?}"),
        Some(_) => assert!(diag.line >= 1 && diag.column >= 1, "an offset without line/column: {diag:?}"),
    }
    assert_eq!(
        diag.limit == LC_LIMIT_UNKNOWN,
        diag.actual == LC_LIMIT_UNKNOWN,
        "limit and actual come as a pair: {diag:?}"
    );
    if BOUNDARY.contains(&rc) {
        let nothing = (0, LC_OFFSET_UNKNOWN, 0, 0, LC_LIMIT_UNKNOWN, LC_LIMIT_UNKNOWN, "", "", "");
        let got = (
            diag.section,
            diag.offset,
            diag.line,
            diag.column,
            diag.limit,
            diag.actual,
            diag.rule.as_str(),
            diag.expected.as_str(),
            diag.location.as_str(),
        );
        assert_eq!(got, nothing, "C13.4: after {} only status and class say something", name(rc));
    }
    diag
}

/// Runs a `_diagnose` call twice, with `diag` NULL and with a full diagnostic, checks that both
/// return the same status, and reads the diagnostic back (checked by [`read_back`]).
#[track_caller]
pub fn diagnose_with(mut call: impl FnMut(*mut lc_diagnostic) -> i32) -> (i32, Diag) {
    let without = call(ptr::null_mut());
    let mut buf = DiagBuf::new(DIAG_SIZE);
    let rc = call(buf.as_mut_ptr());
    assert_eq!(rc, without, "with a diagnostic {} but with diag NULL {}", name(rc), name(without));
    (rc, read_back(rc, &buf))
}

/// `lc_summary_xml_diagnose`; its status must equal `lc_summary_xml_validate`'s.
#[track_caller]
pub fn summary_xml_diagnose(xml: &[u8]) -> (i32, Diag) {
    // SAFETY: a live buffer (or NULL with length 0); `d` is NULL or a full diagnostic.
    let (rc, diag) = diagnose_with(|d| unsafe { ffi::lc_summary_xml_diagnose(in_ptr(xml), xml.len(), d) });
    let plain = summary_xml(xml);
    assert_eq!(rc, plain, "lc_summary_xml_diagnose {} but _validate {}", name(rc), name(plain));
    (rc, diag)
}

/// `lc_compaction_input_diagnose`; its status must equal `lc_compaction_input_validate`'s.
#[track_caller]
pub fn input_diagnose(wire: &[u8]) -> (i32, Diag) {
    // SAFETY: a live buffer (or NULL with length 0); `d` is NULL or a full diagnostic.
    let (rc, diag) = diagnose_with(|d| unsafe { ffi::lc_compaction_input_diagnose(in_ptr(wire), wire.len(), d) });
    let plain = input_validate(wire);
    assert_eq!(rc, plain, "lc_compaction_input_diagnose {} but _validate {}", name(rc), name(plain));
    (rc, diag)
}

/// `lc_compaction_policy_diagnose`; its status must equal `lc_compaction_policy_validate`'s.
#[track_caller]
pub fn compaction_policy_diagnose(json: &[u8], quality: i32) -> (i32, Diag) {
    // SAFETY: a live buffer (or NULL with length 0); `d` is NULL or a full diagnostic.
    let (rc, diag) =
        diagnose_with(|d| unsafe { ffi::lc_compaction_policy_diagnose(in_ptr(json), json.len(), quality, d) });
    let plain = compaction_policy(json, quality);
    assert_eq!(rc, plain, "lc_compaction_policy_diagnose {} but _validate {}", name(rc), name(plain));
    (rc, diag)
}

/// `lc_context_observation_diagnose`; its status must equal `lc_context_observation_validate`'s.
#[track_caller]
pub fn context_observation_diagnose(json: &[u8], quality: i32) -> (i32, Diag) {
    // SAFETY: a live buffer (or NULL with length 0); `d` is NULL or a full diagnostic.
    let (rc, diag) =
        diagnose_with(|d| unsafe { ffi::lc_context_observation_diagnose(in_ptr(json), json.len(), quality, d) });
    let plain = context_observation(json, quality);
    assert_eq!(rc, plain, "lc_context_observation_diagnose {} but _validate {}", name(rc), name(plain));
    (rc, diag)
}

/// `lc_context_config_diagnose`; its status must equal `lc_context_config_validate`'s.
#[track_caller]
pub fn context_config_diagnose(json: &[u8]) -> (i32, Diag) {
    // SAFETY: a live buffer (or NULL with length 0); `d` is NULL or a full diagnostic.
    let (rc, diag) = diagnose_with(|d| unsafe { ffi::lc_context_config_diagnose(in_ptr(json), json.len(), d) });
    let plain = context_config(json);
    assert_eq!(rc, plain, "lc_context_config_diagnose {} but _validate {}", name(rc), name(plain));
    (rc, diag)
}

/// `lc_request_fingerprint_diagnose`: the digest or the status, which must equal
/// `lc_request_fingerprint`'s (the same digest on `LC_OK`, `out` untouched otherwise).
#[track_caller]
pub fn request_fingerprint_diagnose(json: &[u8]) -> (Result<[u8; LC_FINGERPRINT_LEN], i32>, Diag) {
    const SENTINEL: [u8; LC_FINGERPRINT_LEN] = [UNTOUCHED; LC_FINGERPRINT_LEN];
    let mut outs = Vec::new();
    let (rc, diag) = diagnose_with(|d| {
        let mut out = SENTINEL;
        // SAFETY: a live buffer (or NULL with length 0), 32 writable bytes, `d` NULL or a full
        // diagnostic.
        let rc = unsafe { ffi::lc_request_fingerprint_diagnose(in_ptr(json), json.len(), out.as_mut_ptr(), d) };
        outs.push(out);
        rc
    });
    let plain = request_fingerprint(json);
    let result = if rc == LC_OK { Ok(outs[1]) } else { Err(rc) };
    assert_eq!(result, plain, "lc_request_fingerprint_diagnose and lc_request_fingerprint disagree");
    for out in &outs {
        match result {
            Ok(digest) => assert_eq!(*out, digest, "the two calls wrote different digests"),
            Err(_) => assert_eq!(*out, SENTINEL, "lc_request_fingerprint_diagnose wrote `out` on {}", name(rc)),
        }
    }
    (result, diag)
}

impl Input {
    /// `lc_compaction_output_diagnose` with a buffer of `reply.len()` bytes; its status and the
    /// written summary must equal `lc_compaction_output_validate`'s ([`Input::output`]), and
    /// `*summary_len` must be untouched on failure.
    #[track_caller]
    pub fn output_diagnose(
        &self,
        reply: &[u8],
        output_tokens: u64,
        max_output_bytes: u64,
    ) -> (Result<Vec<u8>, i32>, Diag) {
        let mut summaries = Vec::new();
        let (rc, diag) = diagnose_with(|d| {
            let mut buf = vec![UNTOUCHED; reply.len()];
            let mut len = usize::MAX;
            let buf_ptr = if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() };
            // SAFETY: a live handle and reply, `buf` writable for its length (or NULL with 0),
            // `len` writable, `d` NULL or a full diagnostic.
            let rc = unsafe {
                ffi::lc_compaction_output_diagnose(
                    self.as_ptr(),
                    in_ptr(reply),
                    reply.len(),
                    output_tokens,
                    max_output_bytes,
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
                assert_eq!(len, usize::MAX, "lc_compaction_output_diagnose wrote *summary_len on {}", name(rc));
            }
            rc
        });
        let plain = self.output(reply, output_tokens, max_output_bytes);
        let result = if rc == LC_OK { Ok(summaries[1].clone()) } else { Err(rc) };
        assert_eq!(result, plain, "lc_compaction_output_diagnose and lc_compaction_output_validate disagree");
        if let Ok(summary) = &result {
            assert_eq!(&summaries[0], summary, "the two calls wrote different summaries");
        }
        (result, diag)
    }
}

/// `lc_status_class`.
#[must_use]
pub fn status_class(code: i32) -> i32 {
    ffi::lc_status_class(code)
}

/// `lc_retry_message` with the two-call pattern checked (C13.5): the size query returns
/// `LC_ERR_BUFFER_TOO_SMALL` with the length (a message is never empty), a buffer one byte short
/// stays untouched and gives the same length, the exact size gives `LC_OK`; the message is UTF-8.
#[track_caller]
pub fn retry_message(diag: &lc_diagnostic) -> String {
    let mut len = usize::MAX;
    // SAFETY: a live diagnostic; NULL with capacity 0 is the size query.
    let rc = unsafe { ffi::lc_retry_message(diag, ptr::null_mut(), 0, &raw mut len) };
    assert_eq!(rc, LC_ERR_BUFFER_TOO_SMALL, "lc_retry_message size query: {}", name(rc));
    assert!(len > 0 && len != usize::MAX, "lc_retry_message size query gave {len}");
    let mut short = vec![UNTOUCHED; len - 1];
    let mut short_len = usize::MAX;
    let short_ptr = if short.is_empty() { ptr::null_mut() } else { short.as_mut_ptr() };
    // SAFETY: `short` is writable for its length.
    let rc = unsafe { ffi::lc_retry_message(diag, short_ptr, short.len(), &raw mut short_len) };
    assert_eq!(rc, LC_ERR_BUFFER_TOO_SMALL, "lc_retry_message one byte short: {}", name(rc));
    assert_eq!(short_len, len, "lc_retry_message: the two-call pattern gave two lengths");
    assert!(short.iter().all(|&b| b == UNTOUCHED), "lc_retry_message wrote into a too-small buffer");
    let mut buf = vec![UNTOUCHED; len + 8];
    let mut written = usize::MAX;
    // SAFETY: `buf` is writable for its length.
    let rc = unsafe { ffi::lc_retry_message(diag, buf.as_mut_ptr(), buf.len(), &raw mut written) };
    assert_eq!(rc, LC_OK, "lc_retry_message with room: {}", name(rc));
    assert_eq!(written, len, "lc_retry_message: the two-call pattern gave two lengths");
    assert!(buf[len..].iter().all(|&b| b == UNTOUCHED), "lc_retry_message wrote past its length");
    buf.truncate(len);
    String::from_utf8(buf).expect("lc_retry_message is not UTF-8")
}

/// `lc_summary_instructions`: static (the same pointer twice), NUL-terminated UTF-8.
#[must_use]
pub fn summary_instructions() -> &'static str {
    let p = ffi::lc_summary_instructions();
    assert!(!p.is_null(), "lc_summary_instructions returned NULL");
    assert_eq!(p, ffi::lc_summary_instructions(), "lc_summary_instructions is not static");
    // SAFETY: a static NUL-terminated string (C13.6), not NULL.
    unsafe { CStr::from_ptr(p) }.to_str().expect("lc_summary_instructions is not UTF-8")
}

/// `lc_summary_sections`; `out` must be untouched on failure.
pub fn summary_sections(xml: &[u8]) -> Result<[lc_span; 5], i32> {
    const SENTINEL: lc_span = lc_span { offset: 0xA5A5_A5A5, len: 0xA5A5_A5A5 };
    let mut out = [SENTINEL; 5];
    // SAFETY: a live buffer (or NULL with length 0) and 5 writable spans.
    let rc = unsafe { ffi::lc_summary_sections(in_ptr(xml), xml.len(), out.as_mut_ptr()) };
    if rc == LC_OK {
        assert!(out.iter().all(|s| *s != SENTINEL), "lc_summary_sections left a span unwritten");
        Ok(out)
    } else {
        assert!(out.iter().all(|s| *s == SENTINEL), "lc_summary_sections wrote `out` on {}", name(rc));
        Err(rc)
    }
}

/// `lc_summary_section_text` with the two-call pattern checked: the size query gives `LC_OK` with
/// length 0 for an empty section, else `LC_ERR_BUFFER_TOO_SMALL` with the length; a buffer one byte
/// short stays untouched; `*out_len` is untouched on any other failure. The text is UTF-8.
#[track_caller]
pub fn summary_section_text(xml: &[u8], section: i32) -> Result<String, i32> {
    let call = |buf: *mut u8, cap: usize, len: &mut usize| {
        // SAFETY: a live buffer (or NULL with length 0), `buf` writable for `cap` bytes (or NULL
        // with 0), `len` writable.
        unsafe { ffi::lc_summary_section_text(in_ptr(xml), xml.len(), section, buf, cap, len) }
    };
    let mut len = usize::MAX;
    let rc = call(ptr::null_mut(), 0, &mut len);
    match rc {
        LC_OK => {
            assert_eq!(len, 0, "lc_summary_section_text: LC_OK from the size query with length {len}");
            return Ok(String::new());
        }
        LC_ERR_BUFFER_TOO_SMALL => assert!(len > 0 && len != usize::MAX, "size query gave {len}"),
        _ => {
            assert_eq!(len, usize::MAX, "lc_summary_section_text wrote *out_len on {}", name(rc));
            return Err(rc);
        }
    }
    let mut short = vec![UNTOUCHED; len - 1];
    let mut short_len = usize::MAX;
    let short_ptr = if short.is_empty() { ptr::null_mut() } else { short.as_mut_ptr() };
    let rc = call(short_ptr, short.len(), &mut short_len);
    assert_eq!(rc, LC_ERR_BUFFER_TOO_SMALL, "lc_summary_section_text one byte short: {}", name(rc));
    assert_eq!(short_len, len, "lc_summary_section_text: the two-call pattern gave two lengths");
    assert!(short.iter().all(|&b| b == UNTOUCHED), "lc_summary_section_text wrote into a too-small buffer");
    let mut buf = vec![UNTOUCHED; len];
    let mut written = usize::MAX;
    let rc = call(buf.as_mut_ptr(), buf.len(), &mut written);
    assert_eq!(rc, LC_OK, "lc_summary_section_text with the size it asked for: {}", name(rc));
    assert_eq!(written, len, "lc_summary_section_text: the two-call pattern gave two lengths");
    Ok(String::from_utf8(buf).expect("lc_summary_section_text is not UTF-8"))
}

/// Offsets of the fields of `lc_diagnostic`, for tests of `struct_size` (C13.2).
pub mod field {
    use super::{lc_diagnostic, offset_of};

    pub const STATUS: usize = offset_of!(lc_diagnostic, status);
    pub const STATUS_CLASS: usize = offset_of!(lc_diagnostic, status_class);
    pub const SECTION: usize = offset_of!(lc_diagnostic, section);
    pub const OFFSET: usize = offset_of!(lc_diagnostic, offset);
    pub const LINE: usize = offset_of!(lc_diagnostic, line);
    pub const COLUMN: usize = offset_of!(lc_diagnostic, column);
    pub const LIMIT: usize = offset_of!(lc_diagnostic, limit);
    pub const ACTUAL: usize = offset_of!(lc_diagnostic, actual);
    pub const RULE: usize = offset_of!(lc_diagnostic, rule);
    pub const EXPECTED: usize = offset_of!(lc_diagnostic, expected);
    pub const LOCATION: usize = offset_of!(lc_diagnostic, location);
    pub const REMOVED: usize = offset_of!(lc_diagnostic, removed);
    pub const REMOVED_BEFORE: usize = offset_of!(lc_diagnostic, removed_before);
    pub const REMOVED_AFTER: usize = offset_of!(lc_diagnostic, removed_after);
}
