//! Transcript safety beyond the reference (SPEC §14): tool-call pairing, safe cut points and the
//! compaction loop guard.

use super::{
    InBuf, OutBuf, diagnostic::lc_diagnostic, ffi_guard, ffi_status, lc_compaction_input, lc_status, required,
    write_elements,
};
use crate::limits;
use crate::policy::CompactionPolicy;
use crate::status::Status;
use crate::wire::{CompactionInput, CutOptions};

/// Cut flag (SPEC G16.13): a pending tail (the unanswered calls of the last assistant message,
/// the agent waiting for results) is kept instead of refusing the transcript.
pub const LC_CUT_PENDING_TAIL: u32 = 1;

/// `lc_violation::block` of a `tool` message's own `tool_use_id` (not a block).
pub const LC_NO_BLOCK: u64 = u64::MAX;

/// One S14.3 violation (SPEC G16.14): where it is and which rule; never the id.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[allow(non_camel_case_types)]
pub struct lc_violation {
    /// The message.
    pub message: u64,
    /// The top-level block, or `LC_NO_BLOCK` for a `tool` message's own `tool_use_id`.
    pub block: u64,
    /// Offset of the id's string body in the input document.
    pub offset: u64,
    /// `LC_PAIRING_UNANSWERED_CALL`, `LC_PAIRING_ORPHAN_RESULT`, `LC_PAIRING_DUPLICATE_ID` or
    /// `LC_PAIRING_DUPLICATE_RESULT`.
    pub status: lc_status,
}

/// The cut flags, checked (A3.1: after the pointers).
fn cut_flags(flags: u32) -> Result<bool, Status> {
    match flags {
        0 => Ok(false),
        LC_CUT_PENDING_TAIL => Ok(true),
        _ => Err(Status::InvalidArgument),
    }
}

/// An `allowed` list of 0 and 1 bytes (G16.16), as booleans; NULL with length 0 is none.
///
/// # Safety
/// `allowed` is NULL (with `len == 0`) or valid for reads of `len` bytes.
unsafe fn allowed_cuts(allowed: *const u8, len: usize) -> Result<Option<Vec<bool>>, Status> {
    if allowed.is_null() && len == 0 {
        return Ok(None);
    }
    let bytes = InBuf::new(allowed, len)?;
    // SAFETY: guaranteed by the caller.
    let bytes = unsafe { bytes.slice() }?;
    bytes
        .iter()
        .map(|&b| match b {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Status::InvalidArgument),
        })
        .collect::<Result<Vec<bool>, Status>>()
        .map(Some)
}

/// The input of a handle (caller contract: live).
///
/// # Safety
/// `input` is a live handle, not NULL.
unsafe fn inner<'a>(input: *const lc_compaction_input) -> &'a CompactionInput {
    // SAFETY: a live handle (caller contract), checked not NULL by the caller.
    unsafe { &(*input).inner }
}

/// Checks the tool-call pairing of a parsed input (SPEC S14.3): every `tool_use` block of an
/// assistant message is answered by exactly one tool result with its id (a `tool` message's
/// `tool_use_id`, or a top-level `tool_result` block of a `user` or `tool` message) after it and
/// before the next assistant message; every result answers a call of the latest assistant message
/// before it; no `tool_use` id appears twice. Blocks nested in a `tool_result`'s `content` do not
/// count; a result with `is_error` true counts as a result.
///
/// Returns `LC_OK` or the first violation in transcript order: `LC_PAIRING_UNANSWERED_CALL`,
/// `LC_PAIRING_ORPHAN_RESULT`, `LC_PAIRING_DUPLICATE_ID`, `LC_PAIRING_DUPLICATE_RESULT`. With
/// `diag` not NULL, `*diag` is filled as by the `_diagnose` functions: `location`
/// `transcript[i].blocks[j]` (or `transcript[i].tool_use_id`), `offset` the id's, never the id.
///
/// # Safety
/// `input` is a live handle; `diag` is NULL or an `lc_diagnostic` whose `struct_size` the caller
/// set, writable for that many bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_pairing_check(
    input: *const lc_compaction_input,
    diag: *mut lc_diagnostic,
) -> lc_status {
    let status = ffi_status!({
        required(input)?;
        // SAFETY: a live handle (caller contract).
        Ok(unsafe { &(*input).inner }.pairing_check()?)
    });
    ffi_guard!(status, {
        super::diagnostic::diagnose_after(status, diag, || {
            // SAFETY: not NULL (the status would be a boundary one), live per the caller.
            unsafe { &(*input).inner }.pairing_diagnose()
        })
    })
}

/// Writes to `*out_cut` the largest message index `c <= n - keep_last` (n messages) such that
/// messages `[0, c)` can be summarised and `[c, n)` kept with no tool call/result pair split
/// across `c` (SPEC S14.4); 0 when there is none, which the caller must handle (nothing can be
/// summarised while keeping `keep_last` messages).
///
/// Returns `LC_OK`; the pairing check's status when the transcript fails it (a cut is only
/// defined on a well-paired transcript); `LC_ERR_NULL_ARGUMENT`.
///
/// # Safety
/// `input` is a live handle; `out_cut` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_safe_cut(
    input: *const lc_compaction_input,
    keep_last: u64,
    out_cut: *mut u64,
) -> lc_status {
    ffi_status!({
        required(input)?;
        required(out_cut.cast_const())?;
        // SAFETY: a live handle (caller contract).
        let cut = unsafe { &(*input).inner }.safe_cut(keep_last)?;
        // SAFETY: not NULL, writable (caller contract).
        unsafe { out_cut.write(cut as u64) };
        Ok(())
    })
}

/// Checks that keeping messages `[cut, n)` and summarising `[0, cut)` splits no tool call/result
/// pair (SPEC S14.4).
///
/// Returns `LC_OK`; `LC_CUT_UNSAFE`; the pairing check's status when the transcript fails it;
/// `LC_ERR_INVALID_ARGUMENT` for a `cut` above the message count. The arguments are checked first
/// (SPEC A3.1, S14.4): a `cut` above the message count is `LC_ERR_INVALID_ARGUMENT` even on a
/// transcript that fails the pairing check.
///
/// # Safety
/// `input` is a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_cut_check(input: *const lc_compaction_input, cut: u64) -> lc_status {
    ffi_status!({
        required(input)?;
        // SAFETY: a live handle (caller contract).
        Ok(unsafe { &(*input).inner }.cut_check(cut)?)
    })
}

/// The loop guard's first half (SPEC S14.5): did the compaction help? The occupancy after the
/// replacement (`post_input_tokens` against `input_limit`, as `lc_occupancy_basis_points`
/// computes it) must be below the policy's `rearm_below`.
///
/// Returns `LC_OK`; `LC_COMPACTION_NO_PROGRESS` when it is at or above `rearm_below` (the next turn
/// would compact again: shrink `MaxSummaryTokens`, keep a shorter tail, or stop);
/// `LC_OCCUPANCY_ZERO_LIMIT` for a zero limit.
#[unsafe(no_mangle)]
pub extern "C" fn lc_compaction_progress_check(
    post_input_tokens: u64,
    input_limit: u64,
    rearm_below: u16,
) -> lc_status {
    ffi_status!({ Ok(limits::progress_check(post_input_tokens, input_limit, rearm_below)?) })
}

/// The loop guard's second half (SPEC S14.6): can the policy's re-arm threshold ever be met? Even an
/// empty history costs `fixed_tokens` (system prompt, tool definitions: the fixed part of every
/// request) plus the policy's `MaxSummaryTokens`; that must stay below `RearmBelow` of
/// `input_limit`.
///
/// Returns `LC_OK`; `LC_COMPACTION_THRESHOLD_UNREACHABLE`; `LC_OCCUPANCY_ZERO_LIMIT`;
/// `LC_POLICY_WIRE` for a policy document that does not decode (P8.1; its values are not
/// validated here: see `lc_compaction_policy_validate`).
///
/// # Safety
/// `policy_json` is NULL (with `policy_len == 0`) or valid for reads of `policy_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_threshold_check(
    policy_json: *const u8,
    policy_len: usize,
    input_limit: u64,
    fixed_tokens: u64,
) -> lc_status {
    ffi_status!({
        let json = InBuf::new(policy_json, policy_len)?;
        // SAFETY: guaranteed by the caller.
        let json = unsafe { json.slice() }?;
        Ok(CompactionPolicy::from_json(json)?.threshold_check(input_limit, fixed_tokens)?)
    })
}

/// SPEC G16.13, G16.16: as `lc_transcript_safe_cut`, with `flags` 0 or `LC_CUT_PENDING_TAIL` and
/// the allowed cuts `allowed` (NULL with `allowed_len` 0 for none; else n + 1 bytes, each 0 or 1,
/// a converter's `cut_allowed`). With `LC_CUT_PENDING_TAIL`, a transcript whose only violations are
/// unanswered calls of its last assistant message `p` gets the largest cut `c <= min(n -
/// keep_last, p)` that splits no pair and is allowed, instead of the pairing status.
///
/// Returns `LC_OK`; the pairing check's status (the first violation) when the transcript fails it
/// otherwise; `LC_ERR_INVALID_ARGUMENT` for another flag or an `allowed` list of the wrong length
/// or with a byte other than 0 and 1; `LC_ERR_NULL_ARGUMENT`.
///
/// # Safety
/// `input` is a live handle; `allowed` is NULL (with `allowed_len == 0`) or valid for reads of
/// `allowed_len` bytes; `out_cut` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_safe_cut_with(
    input: *const lc_compaction_input,
    keep_last: u64,
    flags: u32,
    allowed: *const u8,
    allowed_len: usize,
    out_cut: *mut u64,
) -> lc_status {
    ffi_status!({
        required(input)?;
        required(out_cut.cast_const())?;
        // SAFETY: guaranteed by the caller.
        let allowed = unsafe { allowed_cuts(allowed, allowed_len) }?;
        let pending_tail = cut_flags(flags)?;
        // SAFETY: not NULL, live (caller contract).
        let input = unsafe { inner(input) };
        let cut = input.safe_cut_with(keep_last, CutOptions { pending_tail, allowed: allowed.as_deref() })?;
        // SAFETY: not NULL, writable (caller contract).
        unsafe { out_cut.write(cut as u64) };
        Ok(())
    })
}

/// SPEC G16.13, G16.16: as `lc_transcript_cut_check`, with the flags and allowed cuts of
/// `lc_transcript_safe_cut_with`. With a pending tail and `LC_CUT_PENDING_TAIL`, a cut is safe
/// when it is at most the last assistant message, splits no pair and is allowed.
///
/// Returns `LC_OK`; `LC_CUT_UNSAFE`; the pairing check's status; `LC_ERR_INVALID_ARGUMENT` for a
/// `cut` above the message count, another flag or a wrong `allowed` list (checked first).
///
/// # Safety
/// `input` is a live handle; `allowed` is NULL (with `allowed_len == 0`) or valid for reads of
/// `allowed_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_cut_check_with(
    input: *const lc_compaction_input,
    cut: u64,
    flags: u32,
    allowed: *const u8,
    allowed_len: usize,
) -> lc_status {
    ffi_status!({
        required(input)?;
        // SAFETY: guaranteed by the caller.
        let allowed = unsafe { allowed_cuts(allowed, allowed_len) }?;
        let pending_tail = cut_flags(flags)?;
        // SAFETY: not NULL, live (caller contract).
        let input = unsafe { inner(input) };
        Ok(input.cut_check_with(cut, CutOptions { pending_tail, allowed: allowed.as_deref() })?)
    })
}

/// SPEC G16.14: writes every S14.3 violation of the transcript in transcript order (`lc_violation`
/// elements, two-call pattern: `*out_len` is their count; a well-paired transcript is `LC_OK` with
/// 0). The first is the violation `lc_transcript_pairing_check` reports.
///
/// # Safety
/// `input` is a live handle; `out` is NULL (with `cap == 0`) or valid for writes of `cap`
/// elements; `out_len` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_pairing_violations(
    input: *const lc_compaction_input,
    out: *mut lc_violation,
    cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(input)?;
        // SAFETY: not NULL, live (caller contract).
        let input = unsafe { inner(input) };
        let list: Vec<lc_violation> = input
            .pairing_violations()
            .iter()
            .map(|v| lc_violation {
                message: v.message as u64,
                block: v.block.map_or(LC_NO_BLOCK, |b| b as u64),
                offset: v.offset as u64,
                status: v.status.code(),
            })
            .collect();
        // SAFETY: buffer validity is the caller's contract.
        unsafe { write_elements(&list, out, cap, out_len) }
    })
}

/// The repair plan or the repaired transcript (`write`), with the two-call pattern.
///
/// # Safety
/// As `lc_transcript_repair_plan`.
unsafe fn repair_bytes(
    input: *const lc_compaction_input,
    flags: u32,
    buf: *mut u8,
    buf_cap: usize,
    out_len: *mut usize,
    write: fn(&CompactionInput, bool) -> crate::Result<Vec<u8>>,
) -> lc_status {
    ffi_status!({
        required(input)?;
        let out = OutBuf::new(buf, buf_cap, out_len)?;
        let pending_tail = cut_flags(flags)?;
        // SAFETY: not NULL, live (caller contract).
        let bytes = write(unsafe { inner(input) }, pending_tail)?;
        // SAFETY: buffer validity is the caller's contract.
        unsafe { out.write(&bytes) }
    })
}

/// SPEC G16.15: writes the repair plan as JSON (two-call pattern): an array of edits in transcript
/// order, `{"action":"drop_result","message":M,"block":B or null}` and
/// `{"action":"add_result","before":I,"call_message":M,"call_block":B,"tool_use_id":ID,"text":T}`,
/// whose application (`lc_transcript_repair`) passes S14.3 (with `LC_CUT_PENDING_TAIL` in `flags`:
/// but for a pending tail, whose calls get no result). `[]` for a well-paired transcript.
///
/// Returns `LC_OK`; `LC_PAIRING_DUPLICATE_ID` when a call id repeats (no repair without changing
/// an assistant message); `LC_ERR_INVALID_ARGUMENT` for another flag; the two-call statuses.
///
/// # Safety
/// `input` is a live handle; `buf` is NULL (with `buf_cap == 0`) or valid for writes of
/// `buf_cap` bytes; `out_len` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_repair_plan(
    input: *const lc_compaction_input,
    flags: u32,
    buf: *mut u8,
    buf_cap: usize,
    out_len: *mut usize,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { repair_bytes(input, flags, buf, buf_cap, out_len, CompactionInput::repair_plan_json) }
}

/// SPEC G16.15: writes the transcript with the repair plan applied (a JSON array of messages,
/// canonical bytes; two-call pattern): dropped results left out, a message other than a `tool`
/// message left with no block dropped, each synthetic result a `tool` message with `is_error`
/// true. Statuses as `lc_transcript_repair_plan`.
///
/// # Safety
/// As `lc_transcript_repair_plan`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_repair(
    input: *const lc_compaction_input,
    flags: u32,
    buf: *mut u8,
    buf_cap: usize,
    out_len: *mut usize,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { repair_bytes(input, flags, buf, buf_cap, out_len, CompactionInput::repaired_transcript) }
}
