//! Transcript safety beyond the reference (SPEC §14): tool-call pairing, safe cut points and the
//! compaction loop guard.

use super::{InBuf, diagnostic::lc_diagnostic, ffi_guard, ffi_status, lc_compaction_input, lc_status, required};
use crate::limits;
use crate::policy::CompactionPolicy;

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
