//! Diagnostics (SPEC §13): the `lc_diagnostic` out-struct, the `_diagnose` siblings of the
//! validating exports, status classes, the retry message, the summariser's instructions and the
//! summary's sections.

use core::ffi::c_char;
use core::mem::{offset_of, size_of};

use super::{InBuf, OutBuf, ffi_guard, ffi_status, lc_compaction_input, lc_compaction_output_validate, lc_status};
use crate::diagnostic::{Diagnostic, LOCATION_CAP, RetryFacts, SUMMARY_INSTRUCTIONS_C, compose};
use crate::fingerprint::RequestFingerprint;
use crate::policy::{CompactionPolicy, ContextConfig, ContextObservationPolicy};
use crate::status::{Status, StatusClass};
use crate::summary::{self, Section};
use crate::wire::CompactionInput;

/// `lc_diagnostic.offset` when no offset is known.
pub const LC_OFFSET_UNKNOWN: u64 = 0xFFFF_FFFF_FFFF_FFFF;
/// `lc_diagnostic.limit` and `.actual` when the failure is not a byte or token limit.
pub const LC_LIMIT_UNKNOWN: u64 = 0xFFFF_FFFF_FFFF_FFFF;
/// Size of `lc_diagnostic.location`, its terminating NUL included.
pub const LC_LOCATION_CAP: usize = 128;

/// Status class (SPEC C13.3, `lc_status_class`): `LC_OK`.
pub const LC_CLASS_OK: i32 = 0;
/// Status class: a new attempt by the summariser can fix it (grammar, content, byte and token
/// limits); send `lc_retry_message` with the next try.
pub const LC_CLASS_RETRY: i32 = 1;
/// Status class: this result can never be used, and retrying the same request will not help.
pub const LC_CLASS_DISCARD: i32 = 2;
/// Status class: the host's own document, policy or call is wrong.
pub const LC_CLASS_HOST: i32 = 3;
/// Status class: a bug in the library (`LC_ERR_PANIC`).
pub const LC_CLASS_BUG: i32 = 4;

/// Summary section (`lc_diagnostic.section`, `lc_summary_section_text`): none.
pub const LC_SECTION_NONE: i32 = 0;
/// Summary section: `goal`.
pub const LC_SECTION_GOAL: i32 = 1;
/// Summary section: `constraints`.
pub const LC_SECTION_CONSTRAINTS: i32 = 2;
/// Summary section: `decisions`.
pub const LC_SECTION_DECISIONS: i32 = 3;
/// Summary section: `state`.
pub const LC_SECTION_STATE: i32 = 4;
/// Summary section: `open_items`.
pub const LC_SECTION_OPEN_ITEMS: i32 = 5;
/// Summary section: the root element `conversation_summary`, outside any section.
pub const LC_SECTION_ROOT: i32 = 6;

const _: () = {
    assert!(LC_LOCATION_CAP == LOCATION_CAP);
    assert!(LC_CLASS_OK == StatusClass::Ok.code());
    assert!(LC_CLASS_RETRY == StatusClass::Retry.code());
    assert!(LC_CLASS_DISCARD == StatusClass::Discard.code());
    assert!(LC_CLASS_HOST == StatusClass::Host.code());
    assert!(LC_CLASS_BUG == StatusClass::Bug.code());
    assert!(LC_SECTION_GOAL == Section::Goal.code());
    assert!(LC_SECTION_CONSTRAINTS == Section::Constraints.code());
    assert!(LC_SECTION_DECISIONS == Section::Decisions.code());
    assert!(LC_SECTION_STATE == Section::State.code());
    assert!(LC_SECTION_OPEN_ITEMS == Section::OpenItems.code());
    assert!(LC_SECTION_ROOT == Section::Root.code());
};

/// Where and what of a failure (SPEC §13, C13.2). The caller allocates it and sets `struct_size`
/// to `sizeof(lc_diagnostic)`; the library writes only the fields that lie within `struct_size`,
/// so fields can be added at the end later without breaking older callers. Nothing in it comes
/// from the input: numbers, static strings and a path of layout names.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct lc_diagnostic {
    /// Set by the caller: `sizeof(lc_diagnostic)`. Never written by the library.
    pub struct_size: usize,
    /// The status, the same the function returns.
    pub status: lc_status,
    /// `LC_CLASS_*`: what to do next (`lc_status_class(status)`).
    pub status_class: i32,
    /// `LC_SECTION_*`: the summary section whose content holds the problem, or the section that
    /// was expected there; `LC_SECTION_NONE` otherwise.
    pub section: i32,
    /// Bytes into the checked buffer (for a summary inside a reply: into the decoded summary
    /// text); `LC_OFFSET_UNKNOWN` when there is none.
    pub offset: u64,
    /// 1-based line of `offset` (lines end at LF); 0 when unknown.
    pub line: u64,
    /// 1-based column of `offset`, in Unicode scalar values from the line's start; 0 when unknown.
    pub column: u64,
    /// For byte and token limits: the limit; `LC_LIMIT_UNKNOWN` otherwise. A known value of
    /// 2^64 - 1 is written as 2^64 - 2, so that it never reads as unknown.
    pub limit: u64,
    /// For byte and token limits: the measured value; `LC_LIMIT_UNKNOWN` otherwise (a known
    /// 2^64 - 1 is written as 2^64 - 2). `limit` and `actual` are known or unknown together.
    pub actual: u64,
    /// The SPEC rule id, e.g. `"X4.17"`, `""` when none: static, never NULL once written.
    pub rule: *const c_char,
    /// What the rule expected, e.g. `"<constraints>"`, `"non-blank text"`, `"a JSON string"`, or
    /// `""`: static, never NULL once written.
    pub expected: *const c_char,
    /// NUL-terminated path of layout names and indices: `transcript[3].blocks[0].type`,
    /// `summary`, `Model.BaseURL`, or `""` for the document itself.
    pub location: [c_char; LC_LOCATION_CAP],
    /// `lc_compaction_reply_diagnose` only (SPEC R15.7): the `LC_REPLY_*` flags of the cleanup
    /// that removed something around the reply (`LC_REPLY_TRIM`, `LC_REPLY_UNFENCE`); 0 otherwise.
    /// Added in 0.1.0 after `location`: a caller whose `struct_size` stops before it never sees it.
    pub removed: u32,
    /// `lc_compaction_reply_diagnose` only: bytes removed before the summary; 0 otherwise.
    pub removed_before: u64,
    /// `lc_compaction_reply_diagnose` only: bytes removed after the summary; 0 otherwise.
    pub removed_after: u64,
}

/// A byte span of a buffer (`lc_summary_sections`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[allow(non_camel_case_types)]
pub struct lc_span {
    /// Offset of the first byte.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

/// Writes `value` at the field that lies `offset` bytes into `diag`, if it fits in `size` bytes.
///
/// # Safety
/// `diag` is valid for writes of `size` bytes.
unsafe fn put<T>(diag: *mut lc_diagnostic, size: usize, offset: usize, value: T) {
    if offset + size_of::<T>() <= size {
        // SAFETY: the field lies within the `size` writable bytes; unaligned writes are fine for
        // any caller layout.
        unsafe { diag.cast::<u8>().add(offset).cast::<T>().write_unaligned(value) };
    }
}

/// Fills `diag` (NULL: nothing) with `d`, field by field within the caller's `struct_size`.
///
/// # Safety
/// `diag` is NULL or valid for reads of a `size_t` and for writes of `struct_size` bytes.
pub(super) unsafe fn fill_diagnostic(diag: *mut lc_diagnostic, d: &Diagnostic) {
    if diag.is_null() {
        return;
    }
    // SAFETY: the caller gives at least the first field; read unaligned, as any caller layout is.
    let size = unsafe { diag.cast::<usize>().read_unaligned() };
    let mut location = [0 as c_char; LC_LOCATION_CAP];
    for (slot, &b) in location.iter_mut().zip(d.location().as_bytes()) {
        *slot = b as c_char;
    }
    // SAFETY (each): within `size`, per the caller's contract.
    unsafe {
        put(diag, size, offset_of!(lc_diagnostic, status), d.status().code());
        put(diag, size, offset_of!(lc_diagnostic, status_class), d.class().code());
        put(diag, size, offset_of!(lc_diagnostic, section), d.section().map_or(LC_SECTION_NONE, Section::code));
        put(diag, size, offset_of!(lc_diagnostic, offset), d.offset().map_or(LC_OFFSET_UNKNOWN, |o| o as u64));
        put(diag, size, offset_of!(lc_diagnostic, line), d.line());
        put(diag, size, offset_of!(lc_diagnostic, column), d.column());
        // A known value never reads as the sentinel: 2^64 - 1 (a reply claiming that many tokens)
        // is written as 2^64 - 2, so `limit` and `actual` are known or unknown together.
        // A known value is at most LC_LIMIT_UNKNOWN - 1 already (Diagnostic::with_limit, C13.2).
        put(diag, size, offset_of!(lc_diagnostic, limit), d.limit().unwrap_or(LC_LIMIT_UNKNOWN));
        put(diag, size, offset_of!(lc_diagnostic, actual), d.actual().unwrap_or(LC_LIMIT_UNKNOWN));
        put(diag, size, offset_of!(lc_diagnostic, rule), d.rule_c().as_ptr());
        put(diag, size, offset_of!(lc_diagnostic, expected), d.expected_c().as_ptr());
        put(diag, size, offset_of!(lc_diagnostic, location), location);
        let removed = d.removed();
        put(diag, size, offset_of!(lc_diagnostic, removed), removed.flags());
        put(diag, size, offset_of!(lc_diagnostic, removed_before), removed.before as u64);
        put(diag, size, offset_of!(lc_diagnostic, removed_after), removed.after as u64);
    }
}

/// Reads the field `offset` bytes into `diag` if it lies within `size` bytes.
///
/// # Safety
/// `diag` is valid for reads of `size` bytes.
unsafe fn get<T: Copy>(diag: *const lc_diagnostic, size: usize, offset: usize) -> Option<T> {
    // SAFETY: within the `size` readable bytes.
    (offset + size_of::<T>() <= size).then(|| unsafe { diag.cast::<u8>().add(offset).cast::<T>().read_unaligned() })
}

/// The plain function's status, then the diagnosis when the content failed (boundary statuses
/// have nothing more to say than their class).
pub(super) fn diagnose_after(
    status: lc_status,
    diag: *mut lc_diagnostic,
    diagnose: impl FnOnce() -> Diagnostic,
) -> lc_status {
    let boundary = matches!(
        Status::from_code(status),
        Some(
            Status::Ok
                | Status::NullArgument
                | Status::BufferTooSmall
                | Status::LengthOverflow
                | Status::InvalidArgument
                | Status::Panic
        ) | None
    );
    let d = if boundary {
        Status::from_code(status).map_or(Diagnostic::new(Status::Panic), Diagnostic::new)
    } else {
        let d = diagnose();
        debug_assert_eq!(d.status().code(), status, "the diagnosis gives the plain function's status");
        d
    };
    // SAFETY: `diag` validity is the caller's contract.
    unsafe { fill_diagnostic(diag, &d) };
    status
}

/// A `_diagnose` sibling in one pass: the plain function's check of the buffer (whose statuses
/// are boundary ones, with nothing more to say than their class), then `check`, which reads the
/// document once and gives the plain function's status with its diagnosis. Running the plain
/// function and then a diagnosis read every failing document twice or three times (issue #28).
///
/// # Safety
/// `ptr`/`len` as the plain function's buffer; `diag` as for `lc_summary_xml_diagnose`.
unsafe fn diagnose_buffer(
    ptr: *const u8,
    len: usize,
    diag: *mut lc_diagnostic,
    check: impl FnOnce(&[u8]) -> Diagnostic,
) -> lc_status {
    let d = ffi_guard!(Diagnostic::new(Status::Panic), {
        // SAFETY: the caller's contract on the buffer.
        match unsafe { InBuf::new(ptr, len).and_then(|b| b.slice()) } {
            Ok(buf) => check(buf),
            Err(status) => Diagnostic::new(status),
        }
    });
    ffi_guard!(Status::Panic.code(), {
        // SAFETY: `diag` validity is the caller's contract.
        unsafe { fill_diagnostic(diag, &d) };
        d.status().code()
    })
}

/// `lc_summary_xml_validate` with a diagnosis (SPEC C13.4): the same return value for every input,
/// and, when `diag` is not NULL, `*diag` filled (`struct_size` set by the caller). On `LC_OK` the
/// diagnosis says so, with `LC_OFFSET_UNKNOWN` and empty strings.
///
/// # Safety
/// As `lc_summary_xml_validate`; `diag` is NULL or an `lc_diagnostic` whose `struct_size` the
/// caller set, writable for that many bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_xml_diagnose(
    xml: *const u8,
    xml_len: usize,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { diagnose_buffer(xml, xml_len, diag, summary::diagnose) }
}

/// `lc_compaction_input_validate` with a diagnosis (SPEC C13.4); see `lc_summary_xml_diagnose`.
/// `location` is the path of the failing value, e.g. `transcript[3].blocks[0].type`.
///
/// # Safety
/// As `lc_compaction_input_validate`; `diag` as for `lc_summary_xml_diagnose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_diagnose(
    wire: *const u8,
    wire_len: usize,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { diagnose_buffer(wire, wire_len, diag, CompactionInput::diagnose) }
}

/// `lc_compaction_output_validate` with a diagnosis (SPEC C13.4): the same arguments and return
/// value (the summary is written on `LC_OK` as there). A failure of the summary itself has
/// `location` `summary` and offsets into the decoded summary text; byte and token limits fill
/// `limit` and `actual`.
///
/// # Safety
/// As `lc_compaction_output_validate`; `diag` as for `lc_summary_xml_diagnose`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn lc_compaction_output_diagnose(
    input: *const lc_compaction_input,
    output: *const u8,
    output_len: usize,
    output_tokens: u64,
    max_output_bytes: u64,
    summary_buf: *mut u8,
    summary_cap: usize,
    summary_len: *mut usize,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    let status = unsafe {
        lc_compaction_output_validate(
            input,
            output,
            output_len,
            output_tokens,
            max_output_bytes,
            summary_buf,
            summary_cap,
            summary_len,
        )
    };
    ffi_guard!(status, {
        diagnose_after(status, diag, || {
            // SAFETY: the plain function accepted the handle and the buffer.
            let output = unsafe { InBuf::new(output, output_len).and_then(|b| b.slice()) }.unwrap_or_default();
            // SAFETY: a live handle (it was not NULL, or the status would be a boundary one).
            let input = unsafe { &(*input).inner };
            input.diagnose_output(output, output_tokens, max_output_bytes)
        })
    })
}

/// `lc_compaction_policy_validate` with a diagnosis (SPEC C13.4): `location` is the failing field
/// (`RearmBelow`) or the JSON error's path.
///
/// # Safety
/// As `lc_compaction_policy_validate`; `diag` as for `lc_summary_xml_diagnose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_policy_diagnose(
    json: *const u8,
    json_len: usize,
    counter_quality: i32,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { diagnose_buffer(json, json_len, diag, |json| CompactionPolicy::diagnose(json, counter_quality)) }
}

/// `lc_context_observation_validate` with a diagnosis (SPEC C13.4).
///
/// # Safety
/// As `lc_context_observation_validate`; `diag` as for `lc_summary_xml_diagnose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_context_observation_diagnose(
    json: *const u8,
    json_len: usize,
    counter_quality: i32,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { diagnose_buffer(json, json_len, diag, |json| ContextObservationPolicy::diagnose(json, counter_quality)) }
}

/// `lc_context_config_validate` with a diagnosis (SPEC C13.4): `location` names the option or
/// capability (`CounterCapability`) or the nested policy's field (`Compaction.RearmBelow`).
///
/// # Safety
/// As `lc_context_config_validate`; `diag` as for `lc_summary_xml_diagnose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_context_config_diagnose(
    json: *const u8,
    json_len: usize,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { diagnose_buffer(json, json_len, diag, ContextConfig::diagnose) }
}

/// `lc_request_fingerprint` with a diagnosis (SPEC C13.4): the same arguments and return value
/// (the digest is written on `LC_OK`); `location` names the failing field (`Model.BaseURL`).
///
/// # Safety
/// As `lc_request_fingerprint`; `diag` as for `lc_summary_xml_diagnose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_request_fingerprint_diagnose(
    json: *const u8,
    json_len: usize,
    out: *mut u8,
    diag: *mut lc_diagnostic,
) -> lc_status {
    if json.is_null() && json_len != 0 || out.is_null() {
        // The plain function's checks of its pointers, before that of the length.
        let d = Diagnostic::new(Status::NullArgument);
        // SAFETY: `diag` validity is the caller's contract.
        return ffi_guard!(Status::Panic.code(), {
            unsafe { fill_diagnostic(diag, &d) };
            d.status().code()
        });
    }
    let digest_or_diagnose = |json: &[u8]| {
        let mut digest = [0u8; super::LC_FINGERPRINT_LEN];
        let d = RequestFingerprint::digest_or_diagnose(json, &mut digest);
        if d.status() == Status::Ok {
            // SAFETY: `out` is non-NULL and, per the caller, writable for LC_FINGERPRINT_LEN bytes
            // that do not overlap the digest (which this function owns).
            unsafe { core::ptr::copy_nonoverlapping(digest.as_ptr(), out, digest.len()) };
        }
        d
    };
    // SAFETY: the caller's contract, passed on.
    unsafe { diagnose_buffer(json, json_len, diag, digest_or_diagnose) }
}

/// What a host does next about `code` (SPEC C13.3): `LC_CLASS_OK`, `LC_CLASS_RETRY` (a new
/// attempt by the summariser can fix it), `LC_CLASS_DISCARD` (this result can never be used),
/// `LC_CLASS_HOST` (the host's own document, policy or call is wrong; also for a value not in the
/// status table), `LC_CLASS_BUG` (`LC_ERR_PANIC`).
#[unsafe(no_mangle)]
pub extern "C" fn lc_status_class(code: lc_status) -> i32 {
    ffi_guard!(LC_CLASS_BUG, { StatusClass::of_code(code).code() })
}

/// Writes a short message to the summariser about the failure `diag` describes (SPEC C13.5):
/// what was wrong, where (line, column, section) and the rules it broke, built only from static
/// text, numbers and grammar names; for a status whose class is not `LC_CLASS_RETRY`, that no
/// retry is useful. UTF-8, not NUL-terminated. Two-call pattern (`*out_len`).
///
/// Only `status`, `status_class`, `section`, `line`, `column`, `limit`, `actual`, `rule` and
/// `expected` are read, within `struct_size` (`status_class` only to learn that a diagnosis made a
/// retry status the host's, SPEC R15.2); a `rule` or `expected` that is not one of the library's own strings is
/// left out of the message.
///
/// # Safety
/// `diag` is an `lc_diagnostic` filled by a `_diagnose` function (or with `rule` and `expected`
/// NULL or NUL-terminated strings), readable for `struct_size` bytes; `buf`/`buf_cap`/`out_len`
/// as in the two-call pattern.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_retry_message(
    diag: *const lc_diagnostic,
    buf: *mut u8,
    buf_cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        super::required(diag)?;
        let out = OutBuf::new(buf, buf_cap, out_len)?;
        // SAFETY: at least the first field is readable (caller contract).
        let size = unsafe { diag.cast::<usize>().read_unaligned() };
        // SAFETY (each): within `size`.
        let (status, class, section, line, column, limit, actual, rule, expected) = unsafe {
            (
                get::<i32>(diag, size, offset_of!(lc_diagnostic, status)),
                get::<i32>(diag, size, offset_of!(lc_diagnostic, status_class)),
                get::<i32>(diag, size, offset_of!(lc_diagnostic, section)),
                get::<u64>(diag, size, offset_of!(lc_diagnostic, line)),
                get::<u64>(diag, size, offset_of!(lc_diagnostic, column)),
                get::<u64>(diag, size, offset_of!(lc_diagnostic, limit)),
                get::<u64>(diag, size, offset_of!(lc_diagnostic, actual)),
                get::<*const c_char>(diag, size, offset_of!(lc_diagnostic, rule)),
                get::<*const c_char>(diag, size, offset_of!(lc_diagnostic, expected)),
            )
        };
        let text = |p: Option<*const c_char>| match p {
            // SAFETY: NULL or a NUL-terminated string (caller contract).
            Some(p) if !p.is_null() => unsafe { core::ffi::CStr::from_ptr(p) }.to_str().unwrap_or_default(),
            _ => "",
        };
        let known = |v: Option<u64>| v.filter(|&v| v != LC_LIMIT_UNKNOWN);
        let facts = RetryFacts {
            code: status.unwrap_or(Status::Panic.code()),
            class: (class == Some(LC_CLASS_HOST)).then_some(StatusClass::Host),
            line: line.unwrap_or(0),
            column: column.unwrap_or(0),
            section: section.and_then(Section::from_code),
            rule: text(rule),
            expected: text(expected),
            limit: known(limit),
            actual: known(actual),
        };
        let message = compose(&facts);
        // SAFETY: buffer validity is the caller's contract; `message` is our own allocation.
        unsafe { out.write(message.as_bytes()) }
    })
}

/// The instructions for the summariser (SPEC C13.6): the system prompt a host sends with the
/// input: the exact element structure, the escaping rules, what is not allowed, and one complete
/// example summary that passes `lc_summary_xml_validate`. Static, NUL-terminated, never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn lc_summary_instructions() -> *const c_char {
    SUMMARY_INSTRUCTIONS_C.as_ptr()
}

/// The byte span of each section's raw (escaped) content of a valid summary, in section order,
/// written to `out[0]` (goal) … `out[4]` (open_items) (SPEC C13.7). An empty or self-closing
/// section has length 0 at the position after its start tag. For an invalid summary, the status
/// `lc_summary_xml_validate` gives, and `out` is not written.
///
/// # Safety
/// `xml` as for `lc_summary_xml_validate`; `out` is NULL (→ `LC_ERR_NULL_ARGUMENT`) or valid for
/// writes of 5 `lc_span`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_sections(xml: *const u8, xml_len: usize, out: *mut lc_span) -> lc_status {
    ffi_status!({
        let xml = InBuf::new(xml, xml_len)?;
        super::required(out.cast_const())?;
        // SAFETY: guaranteed by the caller.
        let xml = unsafe { xml.slice() }?;
        let spans = summary::sections(xml)?;
        for (i, span) in spans.iter().enumerate() {
            // SAFETY: `out` is writable for 5 spans (caller contract); `i < 5`.
            unsafe { out.add(i).write_unaligned(lc_span { offset: span.offset, len: span.len }) };
        }
        Ok(())
    })
}

/// The text of one section (`LC_SECTION_GOAL` … `LC_SECTION_OPEN_ITEMS`) of a valid summary as
/// Go's `encoding/xml` delivers it: references resolved, CR LF and a lone CR as LF (SPEC C13.8).
/// UTF-8, not NUL-terminated; two-call pattern. An empty section is `LC_OK` with `*out_len` 0.
/// `LC_ERR_INVALID_ARGUMENT` for a `section` that is not one of the five; the validation status
/// for an invalid summary.
///
/// # Safety
/// `xml` as for `lc_summary_xml_validate`; `buf`/`buf_cap`/`out_len` as in the two-call pattern.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_section_text(
    xml: *const u8,
    xml_len: usize,
    section: i32,
    buf: *mut u8,
    buf_cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        let xml = InBuf::new(xml, xml_len)?;
        let out = OutBuf::new(buf, buf_cap, out_len)?;
        // SAFETY: guaranteed by the caller.
        let xml = unsafe { xml.slice() }?;
        let section = Section::from_code(section).filter(|s| *s != Section::Root).ok_or(Status::InvalidArgument)?;
        let text = summary::section_text(xml, section)?;
        // SAFETY: buffer validity is the caller's contract; `text` is our own allocation.
        unsafe { out.write(text.as_bytes()) }
    })
}
