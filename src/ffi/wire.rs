//! The compaction input handle, fitting and output validation (SPEC §5–§7).

use super::{InBuf, OutBuf, ffi_guard, ffi_status, lc_status, required};
use crate::wire::CompactionInput;

/// A validated compaction input (opaque, immutable, shareable between threads). Created by
/// `lc_compaction_input_parse`, released by `lc_compaction_input_free`.
#[allow(non_camel_case_types)]
pub struct lc_compaction_input {
    pub(super) inner: CompactionInput,
}

/// Decodes and validates a compaction input wire document (SPEC §5) and returns a handle to it.
///
/// On `LC_OK`, `*out` receives a new handle that the caller releases with
/// `lc_compaction_input_free`; on any other status `*out` is left untouched. Statuses:
/// `LC_INPUT_WIRE`, `LC_INPUT_BASIS`, `LC_INPUT_MODEL`, `LC_INPUT_REQUEST_FINGERPRINT`,
/// `LC_INPUT_TRANSCRIPT`, `LC_INPUT_MAX_SUMMARY_TOKENS` (first failure of W5.2), or a boundary
/// code (`out` NULL → `LC_ERR_NULL_ARGUMENT`).
///
/// # Safety
/// `wire` is NULL (with `wire_len == 0`) or valid for reads of `wire_len` bytes during the call;
/// `out` is NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_parse(
    wire: *const u8,
    wire_len: usize,
    out: *mut *mut lc_compaction_input,
) -> lc_status {
    ffi_status!({
        let wire = InBuf::new(wire, wire_len)?;
        required(out)?;
        // SAFETY: guaranteed by the caller.
        let wire = unsafe { wire.slice() }?;
        let inner = CompactionInput::parse(wire)?;
        let handle = Box::into_raw(Box::new(lc_compaction_input { inner }));
        // SAFETY: `out` is non-NULL and writable (caller contract).
        unsafe { out.write(handle) };
        Ok(())
    })
}

/// Releases a handle from `lc_compaction_input_parse`. `NULL` is a no-op. The handle must not be
/// used afterwards, nor freed twice.
///
/// # Safety
/// `input` is NULL or a handle from `lc_compaction_input_parse` not yet freed, and no other thread
/// is using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_free(input: *mut lc_compaction_input) {
    ffi_guard!((), {
        if !input.is_null() {
            // SAFETY: the pointer came from Box::into_raw in lc_compaction_input_parse.
            drop(unsafe { Box::from_raw(input) });
        }
    })
}

/// Validates a compaction input wire document without keeping it: the status
/// `lc_compaction_input_parse` would return.
///
/// # Safety
/// `wire` is NULL (with `wire_len == 0`) or valid for reads of `wire_len` bytes during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_validate(wire: *const u8, wire_len: usize) -> lc_status {
    ffi_status!({
        let wire = InBuf::new(wire, wire_len)?;
        // SAFETY: guaranteed by the caller.
        let wire = unsafe { wire.slice() }?;
        Ok(CompactionInput::validate(wire)?)
    })
}

/// Writes the exact wire bytes to send to the summarising model: the canonical encoding of the
/// input (SPEC §7.1), with old tool results stubbed oldest first when that is needed to fit
/// `max_bytes` (F7.3).
///
/// Two-call pattern: with `buf_cap` too small (or `buf` NULL and `buf_cap` 0) the status is
/// `LC_ERR_BUFFER_TOO_SMALL` and `*out_len` holds the size needed; the same limit always gives the
/// same bytes. `LC_INPUT_TOO_LARGE` when nothing fits (always for `max_bytes` 0).
///
/// # Safety
/// `input` is a live handle; `buf` is NULL (with `buf_cap == 0`) or valid for writes of `buf_cap`
/// bytes; `out_len` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_encode_within(
    input: *const lc_compaction_input,
    max_bytes: u64,
    buf: *mut u8,
    buf_cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(input)?;
        let out = OutBuf::new(buf, buf_cap, out_len)?;
        // SAFETY: a live handle (caller contract); handles are immutable.
        let input = unsafe { &(*input).inner };
        // Counted (once per handle), then written in place: nothing of the output's size is built.
        let fitted = input.fit(max_bytes)?;
        // SAFETY: buffer validity is the caller's contract.
        unsafe {
            out.fill(fitted.len(), |buf| {
                fitted.write_to(buf);
            })
        }
    })
}

/// Validates one summariser reply against the input it was produced for (SPEC §6, O6.2).
///
/// `output_tokens` is the output usage the provider reported for that call (0 when none);
/// `max_output_bytes` the byte limit for the reply (0 rejects every reply). On `LC_OK` the decoded
/// summary XML, the exact text of the replacement user message, is written to `summary_buf` and
/// its length to `*summary_len`; it is never longer than `output_len`, so a buffer of `output_len`
/// bytes always suffices. A too-small `summary_cap` (checked only once the reply is valid) gives
/// `LC_ERR_BUFFER_TOO_SMALL` with `*summary_len` set.
///
/// Statuses: `LC_SUMMARY_BYTE_LIMIT`, `LC_SUMMARY_TOKEN_USAGE`, `LC_SUMMARY_TOKEN_LIMIT`,
/// `LC_SUMMARY_WIRE`, `LC_SUMMARY_IDENTITY`, `LC_SUMMARY_XML_SYNTAX`, `LC_SUMMARY_XML_ROOT`,
/// `LC_SUMMARY_XML_STRUCTURE`, `LC_SUMMARY_XML_CONTENT`, or a boundary code.
///
/// # Safety
/// `input` is a live handle; `output` is NULL (with `output_len == 0`) or valid for reads of
/// `output_len` bytes; `summary_buf` is NULL (with `summary_cap == 0`) or valid for writes of
/// `summary_cap` bytes; `summary_len` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_output_validate(
    input: *const lc_compaction_input,
    output: *const u8,
    output_len: usize,
    output_tokens: u64,
    max_output_bytes: u64,
    summary_buf: *mut u8,
    summary_cap: usize,
    summary_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(input)?;
        let output = InBuf::new(output, output_len)?;
        let out = OutBuf::new(summary_buf, summary_cap, summary_len)?;
        // SAFETY: guaranteed by the caller.
        let output = unsafe { output.slice() }?;
        // SAFETY: a live handle (caller contract); handles are immutable.
        let input = unsafe { &(*input).inner };
        let summary = input.validate_output(output, output_tokens, max_output_bytes)?;
        // SAFETY: buffer validity is the caller's contract; the summary may borrow `output`, and
        // the caller's output and summary buffers must not overlap (documented contract).
        unsafe { out.write(summary.as_bytes()) }
    })
}

/// A count of a live handle, written to `*out`.
///
/// # Safety
/// `input` is NULL or a live handle; `out` is NULL or valid for one write.
unsafe fn input_count(
    input: *const lc_compaction_input,
    out: *mut u64,
    count: impl Fn(&CompactionInput) -> u64,
) -> lc_status {
    ffi_status!({
        required(input)?;
        required(out.cast_const())?;
        // SAFETY: not NULL, live (caller contract).
        let value = count(unsafe { &(*input).inner });
        // SAFETY: not NULL, writable (caller contract).
        unsafe { out.write(value) };
        Ok(())
    })
}

/// Writes the number of transcript messages of a parsed input (`n`: cuts run from 0 to `n`).
///
/// Returns `LC_OK` or `LC_ERR_NULL_ARGUMENT`.
///
/// # Safety
/// `input` is NULL or a live handle; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_message_count(
    input: *const lc_compaction_input,
    out: *mut u64,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { input_count(input, out, |i| i.message_count() as u64) }
}

/// Writes the input's `max_summary_tokens` (the summariser's output budget, R15.3).
///
/// Returns `LC_OK` or `LC_ERR_NULL_ARGUMENT`.
///
/// # Safety
/// `input` is NULL or a live handle; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_max_summary_tokens(
    input: *const lc_compaction_input,
    out: *mut u64,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { input_count(input, out, CompactionInput::max_summary_tokens) }
}

/// Writes the number of leading system messages (R15.8: the `system` messages at the start of the
/// transcript, kept by the replacement; a cut at or below it has nothing to summarise).
///
/// Returns `LC_OK` or `LC_ERR_NULL_ARGUMENT`.
///
/// # Safety
/// `input` is NULL or a live handle; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_leading_systems(
    input: *const lc_compaction_input,
    out: *mut u64,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { input_count(input, out, |i| i.leading_systems() as u64) }
}
