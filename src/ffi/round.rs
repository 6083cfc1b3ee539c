//! A compaction round from the model's own reply (SPEC §15): the bare reply, the summariser's
//! input for a cut, the replacement transcript and its check.

use super::diagnostic::{diagnose_after, lc_diagnostic};
use super::{InBuf, OutBuf, ffi_guard, ffi_status, lc_compaction_input, lc_status, required};
use crate::round::{self, ReplyOptions};

/// How the summariser's call ended (`stop` of `lc_compaction_reply_validate`): not reported.
pub const LC_STOP_UNKNOWN: i32 = 0;
/// The model ended its reply itself (OpenAI `stop`, Anthropic `end_turn`, Gemini `STOP`).
pub const LC_STOP_END: i32 = 1;
/// The provider cut the reply at its output limit (OpenAI `length`, Anthropic `max_tokens`,
/// Gemini `MAX_TOKENS`): a reply that is not a valid summary is then `LC_REPLY_TRUNCATED`.
pub const LC_STOP_LENGTH: i32 = 2;
/// Cleanup flag of `lc_compaction_reply_validate`: remove White_Space (SPEC X4.21) around the reply.
pub const LC_REPLY_TRIM: u32 = 1;
/// Cleanup flag: remove one Markdown code fence around the whole reply (with or without a language
/// tag). Nothing else is ever removed.
pub const LC_REPLY_UNFENCE: u32 = 2;
/// Length of the smallest summary SPEC §4 accepts: a reply byte limit below it can never be met
/// (`LC_REPLY_BYTE_LIMIT_UNREACHABLE`).
pub const LC_SMALLEST_SUMMARY_LEN: usize = 114;

const _: () = {
    assert!(LC_STOP_UNKNOWN == round::Stop::Unknown.code());
    assert!(LC_STOP_END == round::Stop::End.code());
    assert!(LC_STOP_LENGTH == round::Stop::Length.code());
    assert!(LC_REPLY_TRIM == round::REPLY_TRIM);
    assert!(LC_REPLY_UNFENCE == round::REPLY_UNFENCE);
    assert!(LC_SMALLEST_SUMMARY_LEN == round::SMALLEST_SUMMARY.len());
};

/// Validates the summariser's reply as it arrived: the XML text the instructions ask for, with no
/// JSON envelope (SPEC R15.1–R15.7). The identity is the handle's.
///
/// `output_tokens`: the output usage the provider reported (0 when none); `stop`: `LC_STOP_*`;
/// `max_reply_bytes`: the byte limit of the reply as it arrived; `flags`: 0 or `LC_REPLY_TRIM` |
/// `LC_REPLY_UNFENCE` (opt-in cleanup; `lc_compaction_reply_diagnose` reports what it removed). On
/// `LC_OK` the summary (the reply without what cleanup removed: the exact text of the replacement
/// user message) is written to `summary_buf`; it is never longer than `reply_len`. The two buffers
/// must not overlap.
///
/// With `flags` 0 and `stop` not `LC_STOP_LENGTH`, the verdict is the one
/// `lc_compaction_output_validate` gives the envelope of the handle's identity around the same text
/// (when the byte limits reach neither). Statuses: `LC_REPLY_BYTE_LIMIT_UNREACHABLE` (a limit below
/// `LC_SMALLEST_SUMMARY_LEN`, class HOST), `LC_SUMMARY_BYTE_LIMIT`, `LC_SUMMARY_TOKEN_USAGE`,
/// `LC_SUMMARY_TOKEN_LIMIT`, `LC_SUMMARY_WIRE` (bytes that are not UTF-8), `LC_SUMMARY_XML_*`,
/// `LC_REPLY_TRUNCATED` (stopped by length and not a valid summary: ask for a shorter one),
/// `LC_ERR_INVALID_ARGUMENT` (a `stop` or flag bit not listed), or a boundary code.
///
/// # Safety
/// `input` is a live handle; `reply` is NULL (with `reply_len == 0`) or valid for reads of
/// `reply_len` bytes; `summary_buf` is NULL (with `summary_cap == 0`) or valid for writes of
/// `summary_cap` bytes and does not overlap `reply`; `summary_len` is valid for one write.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn lc_compaction_reply_validate(
    input: *const lc_compaction_input,
    reply: *const u8,
    reply_len: usize,
    output_tokens: u64,
    stop: i32,
    max_reply_bytes: u64,
    flags: u32,
    summary_buf: *mut u8,
    summary_cap: usize,
    summary_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(input)?;
        let reply = InBuf::new(reply, reply_len)?;
        let out = OutBuf::new(summary_buf, summary_cap, summary_len)?;
        // SAFETY: guaranteed by the caller.
        let reply = unsafe { reply.slice() }?;
        let options = ReplyOptions::from_c(output_tokens, stop, max_reply_bytes, flags)?;
        // SAFETY: a live handle (caller contract); handles are immutable.
        let input = unsafe { &(*input).inner };
        let valid = input.validate_reply(reply, &options)?;
        // SAFETY: buffer validity is the caller's contract; the buffers do not overlap (documented).
        unsafe { out.write(valid.summary().as_bytes()) }
    })
}

/// `lc_compaction_reply_validate` with a diagnosis (SPEC R15.7): the same return value and outputs
/// for every input. Offsets, lines and columns count bytes of the reply as it arrived; a failure of
/// the text itself has `location` `summary`; `LC_REPLY_TRUNCATED` has `limit` the input's
/// `max_summary_tokens` and `actual` the reported output tokens; `LC_REPLY_BYTE_LIMIT_UNREACHABLE`
/// has `limit` the byte limit and `actual` `LC_SMALLEST_SUMMARY_LEN`. `removed`, `removed_before`
/// and `removed_after` say what cleanup removed, on `LC_OK` too (0 when nothing).
///
/// # Safety
/// As `lc_compaction_reply_validate`; `diag` is NULL or an `lc_diagnostic` whose `struct_size` the
/// caller set, writable for that many bytes.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn lc_compaction_reply_diagnose(
    input: *const lc_compaction_input,
    reply: *const u8,
    reply_len: usize,
    output_tokens: u64,
    stop: i32,
    max_reply_bytes: u64,
    flags: u32,
    summary_buf: *mut u8,
    summary_cap: usize,
    summary_len: *mut usize,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    let status = unsafe {
        lc_compaction_reply_validate(
            input,
            reply,
            reply_len,
            output_tokens,
            stop,
            max_reply_bytes,
            flags,
            summary_buf,
            summary_cap,
            summary_len,
        )
    };
    ffi_guard!(status, {
        let diagnose = || {
            // SAFETY: the plain function accepted the handle and the buffer.
            let reply = unsafe { InBuf::new(reply, reply_len).and_then(|b| b.slice()) }.unwrap_or_default();
            // SAFETY: a live handle (it was not NULL, or the status would be a boundary one).
            let input = unsafe { &(*input).inner };
            // The options were accepted, or the status would be a boundary one.
            let options = ReplyOptions::from_c(output_tokens, stop, max_reply_bytes, flags)
                .unwrap_or(ReplyOptions::new(output_tokens, max_reply_bytes));
            input.diagnose_reply(reply, &options)
        };
        if status == crate::Status::Ok.code() {
            // On success the diagnosis still says what cleanup removed: the cleanup alone, not
            // a second validation (the round asks for this on every attempt).
            // SAFETY: the plain function accepted the buffer.
            let reply = unsafe { InBuf::new(reply, reply_len).and_then(|b| b.slice()) }.unwrap_or_default();
            let options = ReplyOptions::from_c(output_tokens, stop, max_reply_bytes, flags)
                .unwrap_or(ReplyOptions::new(output_tokens, max_reply_bytes));
            let d = crate::Diagnostic::ok().with_removed(crate::round::removed_from_valid(reply, &options));
            // SAFETY: `diag` validity is the caller's contract.
            unsafe { super::diagnostic::fill_diagnostic(diag, &d) };
            status
        } else {
            diagnose_after(status, diag, diagnose)
        }
    })
}

/// Writes what the summariser is given for a cut (SPEC R15.8): the input with messages `[0, cut)`
/// as its transcript, in canonical bytes, fitted under `max_bytes` exactly as
/// `lc_compaction_input_encode_within` fits a whole input (old tool results stubbed, oldest first).
///
/// Two-call pattern (`*out_len`). Statuses: `LC_ERR_INVALID_ARGUMENT` for a `cut` above the message
/// count, `LC_REPLACEMENT_EMPTY_HEAD` when no message or only leading system messages come before
/// the cut, `LC_INPUT_TOO_LARGE`, `LC_ERR_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `input` is a live handle; `buf` is NULL (with `buf_cap == 0`) or valid for writes of `buf_cap`
/// bytes; `out_len` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_input_encode_head_within(
    input: *const lc_compaction_input,
    cut: u64,
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
        let fitted = input.fit_head(cut, max_bytes)?;
        // SAFETY: buffer validity is the caller's contract.
        unsafe {
            out.fill(fitted.len(), |buf| {
                fitted.write_to(buf);
            })
        }
    })
}

/// Writes the transcript that replaces the history once `summary` was accepted (SPEC R15.9): a JSON
/// array of messages in canonical bytes (E7): the transcript's leading system messages, one user
/// message whose first block is a text block holding `summary`, then messages `[cut, n)`
/// unchanged. When message `cut` is a user message, its blocks follow the summary block in that
/// same message, so two user messages never meet.
///
/// Two-call pattern (`*out_len`). Statuses, in this order (SPEC R15.10): `LC_ERR_INVALID_ARGUMENT`
/// (`cut` above the message count), `LC_REPLACEMENT_EMPTY_HEAD`, the pairing status or
/// `LC_CUT_UNSAFE` (S14.4), `LC_REPLACEMENT_SUMMARY` (a summary that does not validate),
/// `LC_ERR_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `input` is a live handle; `summary` is NULL (with `summary_len == 0`) or valid for reads of
/// `summary_len` bytes; `buf` is NULL (with `buf_cap == 0`) or valid for writes of `buf_cap` bytes
/// and does not overlap `summary`; `out_len` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_replacement_build(
    input: *const lc_compaction_input,
    cut: u64,
    summary: *const u8,
    summary_len: usize,
    buf: *mut u8,
    buf_cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(input)?;
        let summary = InBuf::new(summary, summary_len)?;
        let out = OutBuf::new(buf, buf_cap, out_len)?;
        // SAFETY: guaranteed by the caller.
        let summary = unsafe { summary.slice() }?;
        // SAFETY: a live handle (caller contract); handles are immutable.
        let input = unsafe { &(*input).inner };
        if buf_cap == 0 {
            // The size query: counted, nothing built.
            let len = input.replacement_len(cut, summary)?;
            // SAFETY: buffer validity is the caller's contract (a size query writes no byte).
            return unsafe { out.fill(len, |_| {}) };
        }
        let built = input.build_replacement(cut, summary)?;
        // SAFETY: buffer validity is the caller's contract; `built` is our own allocation.
        unsafe { out.write(&built) }
    })
}

/// Checks a transcript the host rebuilt itself (`rebuilt`, a JSON array of wire messages, any key
/// order and whitespace) against the rule of `lc_replacement_build` for this `cut` (SPEC R15.11):
/// the leading system messages and the kept tail are the original's, unchanged in canonical
/// encoding (thinking blocks, signatures and provider state included); the summary message is one
/// user message whose first block is a text block holding a valid summary (followed by the first
/// kept message's blocks when that is a user message); no user message follows a summary message.
///
/// Returns `LC_OK` or the first failure: the cut's own (as for `lc_replacement_build`),
/// `LC_REPLACEMENT_WIRE`, `LC_REPLACEMENT_PREFIX_CHANGED`, `LC_REPLACEMENT_SUMMARY`,
/// `LC_REPLACEMENT_ADJACENT_USER`, `LC_REPLACEMENT_TAIL_CHANGED`. With `diag` not NULL, `*diag`
/// says where: `location` `transcript[i].blocks[j]` of the rebuilt transcript (the first differing
/// message and block; never their bytes).
///
/// # Safety
/// `input` is a live handle; `rebuilt` is NULL (with `rebuilt_len == 0`) or valid for reads of
/// `rebuilt_len` bytes; `diag` is NULL or an `lc_diagnostic` whose `struct_size` the caller set,
/// writable for that many bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_replacement_verify(
    input: *const lc_compaction_input,
    cut: u64,
    rebuilt: *const u8,
    rebuilt_len: usize,
    diag: *mut lc_diagnostic,
) -> lc_status {
    let mut diagnosis = None;
    let status = ffi_status!({
        required(input)?;
        let rebuilt = InBuf::new(rebuilt, rebuilt_len)?;
        // SAFETY: guaranteed by the caller.
        let rebuilt = unsafe { rebuilt.slice() }?;
        // SAFETY: a live handle (caller contract); handles are immutable.
        let input = unsafe { &(*input).inner };
        let d = input.diagnose_replacement(cut, rebuilt);
        let status = d.status();
        diagnosis = Some(d);
        match status {
            crate::Status::Ok => Ok(()),
            status => Err(status),
        }
    });
    ffi_guard!(status, { diagnose_after(status, diag, || diagnosis.take().unwrap_or_else(crate::Diagnostic::ok)) })
}
