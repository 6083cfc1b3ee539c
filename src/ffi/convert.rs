//! Converters from the message lists hosts hold (SPEC §16): a conversion handle with the wire
//! transcript, the source index of each wire message, the allowed cuts and the loss report, and
//! a compaction input made from it.

use core::ffi::c_char;

use super::diagnostic::{diagnose_after, lc_diagnostic};
use super::{InBuf, OutBuf, ffi_guard, ffi_status, lc_compaction_input, lc_status, required, write_elements};
use crate::convert::{self, Conversion, Format, LossCode};

/// Source format: OpenAI Chat Completions, the `messages` array.
pub const LC_FORMAT_OPENAI_CHAT: i32 = 1;
/// Source format: OpenAI Responses, `{"input": [...] or "text", "instructions": ...}`.
pub const LC_FORMAT_OPENAI_RESPONSES: i32 = 2;
/// Source format: Anthropic Messages, `{"system": ..., "messages": [...]}`.
pub const LC_FORMAT_ANTHROPIC: i32 = 3;
/// Source format: Google Gemini, `{"contents": [...], "system_instruction": ...}`.
pub const LC_FORMAT_GEMINI: i32 = 4;
/// Source format: the Vercel AI SDK's `ModelMessage[]` as JSON.
pub const LC_FORMAT_AI_SDK: i32 = 5;
/// Source format: LangChain messages as `messages_to_dict`, `dumpd` or `model_dump` give them.
pub const LC_FORMAT_LANGCHAIN: i32 = 6;
/// Conversion flag: any loss refuses the conversion (`LC_CONVERT_LOSS`).
pub const LC_CONVERT_STRICT: u32 = 1;
/// `lc_conversion_source_index` of a wire message made from the system parameter (Anthropic
/// `system`, Responses `instructions`, Gemini `system_instruction`), not a source message.
pub const LC_SOURCE_SYSTEM: u64 = u64::MAX;

/// Loss code: a cache breakpoint was dropped.
pub const LC_LOSS_DROPPED_CACHE_CONTROL: i32 = 1;
/// Loss code: citations or annotations were dropped.
pub const LC_LOSS_DROPPED_CITATIONS: i32 = 2;
/// Loss code: log probabilities were dropped.
pub const LC_LOSS_DROPPED_LOGPROBS: i32 = 3;
/// Loss code: a participant name was dropped.
pub const LC_LOSS_DROPPED_NAME: i32 = 4;
/// Loss code: a media option was dropped.
pub const LC_LOSS_DROPPED_MEDIA_OPTIONS: i32 = 5;
/// Loss code: provider options were dropped.
pub const LC_LOSS_DROPPED_PROVIDER_OPTIONS: i32 = 6;
/// Loss code: a field the converter does not map was dropped.
pub const LC_LOSS_DROPPED_UNKNOWN_FIELD: i32 = 7;
/// Loss code: a document given by URL or file id (its name only).
pub const LC_LOSS_DOCUMENT_NOT_INLINE: i32 = 8;
/// Loss code: an assistant audio reference (an id only) was dropped.
pub const LC_LOSS_AUDIO_REFERENCE_UNRESOLVABLE: i32 = 9;
/// Loss code: tool arguments that are not JSON were kept as a JSON string.
pub const LC_LOSS_ARGUMENTS_UNPARSEABLE: i32 = 10;
/// Loss code: tool arguments had a repeated key (the last value kept at the first place).
pub const LC_LOSS_DUPLICATE_ARGUMENT_KEY: i32 = 11;
/// Loss code: a tool call had no id; one was made.
pub const LC_LOSS_SYNTHESIZED_TOOL_ID: i32 = 12;
/// Loss code: a hosted or server-side tool call or result was dropped.
pub const LC_LOSS_SERVER_TOOL_UNREPRESENTABLE: i32 = 13;
/// Loss code: a provider's compaction item was dropped (no cut after it is allowed).
pub const LC_LOSS_COMPACTION_ITEM_UNREPRESENTABLE: i32 = 14;
/// Loss code: a reference to an item stored by the provider was dropped.
pub const LC_LOSS_ITEM_REFERENCE_UNRESOLVABLE: i32 = 15;
/// Loss code: a tool approval request or response was dropped.
pub const LC_LOSS_TOOL_APPROVAL_DROPPED: i32 = 16;
/// Loss code: a block, part or item of an unknown type was dropped.
pub const LC_LOSS_UNKNOWN_CONTENT_DROPPED: i32 = 17;

const _: () = {
    assert!(LC_FORMAT_OPENAI_CHAT == Format::OpenAiChat.code());
    assert!(LC_FORMAT_OPENAI_RESPONSES == Format::OpenAiResponses.code());
    assert!(LC_FORMAT_ANTHROPIC == Format::Anthropic.code());
    assert!(LC_FORMAT_GEMINI == Format::Gemini.code());
    assert!(LC_FORMAT_AI_SDK == Format::AiSdk.code());
    assert!(LC_FORMAT_LANGCHAIN == Format::LangChain.code());
    assert!(LC_CONVERT_STRICT == convert::STRICT);
    assert!(LC_LOSS_DROPPED_CACHE_CONTROL == LossCode::DroppedCacheControl.code());
    assert!(LC_LOSS_UNKNOWN_CONTENT_DROPPED == LossCode::UnknownContentDropped.code());
};

/// One loss of a conversion: the source index of the message (or item) it was in
/// (`LC_SOURCE_SYSTEM` for the system parameter) and its `LC_LOSS_*` code.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[allow(non_camel_case_types)]
pub struct lc_loss {
    /// The source message or item.
    pub source_index: u64,
    /// `LC_LOSS_*`.
    pub code: i32,
}

/// A converted transcript (opaque, immutable, shareable between threads). Created by
/// `lc_transcript_convert`, released by `lc_conversion_free`.
#[allow(non_camel_case_types)]
pub struct lc_conversion {
    inner: Conversion,
}

/// Converts a provider's message list (`format`: `LC_FORMAT_*`) into the wire transcript (SPEC
/// §16). On `LC_OK`, `*out` receives a conversion handle (release it with `lc_conversion_free`):
/// the transcript, the source index of each wire message, the allowed cuts and the loss report.
/// `flags`: 0 or `LC_CONVERT_STRICT`.
///
/// Statuses: `LC_CONVERT_WIRE` (not JSON), `LC_CONVERT_SHAPE` (not the format's shape),
/// `LC_CONVERT_LOSS` (strict, at the first loss), `LC_ERR_INVALID_ARGUMENT` (a format or flag that
/// is not one), or a boundary code. With `diag` not NULL, `*diag` says where: `location` a path of
/// the format's names and indices such as `messages[3].tool_calls[0].function.arguments`, never a
/// byte of the source.
///
/// # Safety
/// `src` is NULL (with `src_len == 0`) or valid for reads of `src_len` bytes; `out` is valid for
/// one pointer write; `diag` is NULL or an `lc_diagnostic` whose `struct_size` the caller set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_transcript_convert(
    format: i32,
    src: *const u8,
    src_len: usize,
    flags: u32,
    out: *mut *mut lc_conversion,
    diag: *mut lc_diagnostic,
) -> lc_status {
    let mut diagnosis = None;
    let status = ffi_status!({
        let src = InBuf::new(src, src_len)?;
        required(out)?;
        // SAFETY: guaranteed by the caller.
        let src = unsafe { src.slice() }?;
        let format = Format::from_code(format).ok_or(crate::Status::InvalidArgument)?;
        match convert::convert(format, src, flags) {
            Ok(inner) => {
                let handle = Box::into_raw(Box::new(lc_conversion { inner }));
                // SAFETY: `out` is non-NULL and writable (caller contract).
                unsafe { out.write(handle) };
                Ok(())
            }
            Err(e) => {
                let status = e.status();
                diagnosis = Some(e.diagnostic().clone());
                Err(status)
            }
        }
    });
    ffi_guard!(status, { diagnose_after(status, diag, || diagnosis.take().unwrap_or_else(crate::Diagnostic::ok)) })
}

/// Releases a conversion. `NULL` is a no-op.
///
/// # Safety
/// `conversion` is NULL or a handle from `lc_transcript_convert` not yet freed, unused elsewhere.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_conversion_free(conversion: *mut lc_conversion) {
    ffi_guard!((), {
        if !conversion.is_null() {
            // SAFETY: the pointer came from Box::into_raw in lc_transcript_convert.
            drop(unsafe { Box::from_raw(conversion) });
        }
    })
}

/// Writes the wire transcript (a JSON array of messages, canonical bytes). Two-call pattern.
///
/// # Safety
/// `conversion` is a live handle; `buf` is NULL (with `buf_cap == 0`) or valid for writes of
/// `buf_cap` bytes; `out_len` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_conversion_transcript(
    conversion: *const lc_conversion,
    buf: *mut u8,
    buf_cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(conversion)?;
        let out = OutBuf::new(buf, buf_cap, out_len)?;
        // SAFETY: a live handle (caller contract).
        let c = unsafe { &(*conversion).inner };
        // SAFETY: buffer validity is the caller's contract.
        unsafe { out.write(c.transcript()) }
    })
}

/// Writes, for each wire message, the index of the source message (or item) it came from
/// (`LC_SOURCE_SYSTEM` for the system parameter): `*out_len` elements, two-call pattern (an empty
/// transcript is `LC_OK` with `*out_len` 0).
///
/// # Safety
/// `conversion` is a live handle; `out` is NULL (with `cap == 0`) or valid for writes of `cap`
/// elements; `out_len` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_conversion_source_index(
    conversion: *const lc_conversion,
    out: *mut u64,
    cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(conversion)?;
        // SAFETY: a live handle (caller contract).
        let c = unsafe { &(*conversion).inner };
        // SAFETY: buffer validity is the caller's contract.
        unsafe { write_elements(c.source_index(), out, cap, out_len) }
    })
}

/// Writes, for each cut `c` in `0..=n` (n wire messages), 1 when it falls on a source message
/// boundary (summarising `[0, c)` splits no source message) and 0 otherwise: `n + 1` bytes,
/// two-call pattern.
///
/// # Safety
/// As `lc_conversion_source_index`, with `cap` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_conversion_cut_allowed(
    conversion: *const lc_conversion,
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(conversion)?;
        // SAFETY: a live handle (caller contract).
        let c = unsafe { &(*conversion).inner };
        let bytes: Vec<u8> = c.cut_allowed().iter().map(|&a| u8::from(a)).collect();
        // SAFETY: buffer validity is the caller's contract.
        unsafe { write_elements(&bytes, out, cap, out_len) }
    })
}

/// Writes the loss report (`lc_loss` elements in source order), two-call pattern (no loss is
/// `LC_OK` with `*out_len` 0).
///
/// # Safety
/// As `lc_conversion_source_index`, with `cap` `lc_loss` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_conversion_losses(
    conversion: *const lc_conversion,
    out: *mut lc_loss,
    cap: usize,
    out_len: *mut usize,
) -> lc_status {
    ffi_status!({
        required(conversion)?;
        // SAFETY: a live handle (caller contract).
        let c = unsafe { &(*conversion).inner };
        let losses: Vec<lc_loss> =
            c.losses().iter().map(|l| lc_loss { source_index: l.source_index, code: l.code.code() }).collect();
        // SAFETY: buffer validity is the caller's contract.
        unsafe { write_elements(&losses, out, cap, out_len) }
    })
}

/// Writes the number of messages (or items) in the source (SPEC G16.2): the length of the list a
/// host's new history is built from (`source_cut` runs up to it).
///
/// Returns `LC_OK` or `LC_ERR_NULL_ARGUMENT`.
///
/// # Safety
/// `conversion` is NULL or a live handle; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_conversion_source_len(conversion: *const lc_conversion, out: *mut u64) -> lc_status {
    ffi_status!({
        required(conversion)?;
        required(out.cast_const())?;
        // SAFETY: a live handle (caller contract).
        let len = unsafe { &(*conversion).inner }.source_len();
        // SAFETY: not NULL, writable (caller contract).
        unsafe { out.write(len) };
        Ok(())
    })
}

/// The source cut of an allowed wire cut (SPEC G16.2): summarising wire messages `[0, wire_cut)`
/// summarises source messages `[0, *out)`; source messages the wire does not hold (dropped items)
/// after the last summarised one stay on the kept side. `LC_CUT_UNSAFE` for a cut that splits a
/// source message (or passes a compaction item), `LC_ERR_INVALID_ARGUMENT` for one above the wire
/// message count.
///
/// # Safety
/// `conversion` is a live handle; `out` is valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_conversion_source_cut(
    conversion: *const lc_conversion,
    wire_cut: u64,
    out: *mut u64,
) -> lc_status {
    ffi_status!({
        required(conversion)?;
        required(out.cast_const())?;
        // SAFETY: a live handle (caller contract).
        let c = unsafe { &(*conversion).inner };
        let cut =
            usize::try_from(wire_cut).ok().filter(|&w| w <= c.message_count()).ok_or(crate::Status::InvalidArgument)?;
        let source = c.source_cut(cut).ok_or(crate::Status::CutUnsafe)?;
        // SAFETY: not NULL, writable (caller contract).
        unsafe { out.write(source) };
        Ok(())
    })
}

/// The stable name of a loss code, e.g. `"dropped_cache_control"`; `""` for a value that is not
/// one. Static, never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn lc_loss_name(code: i32) -> *const c_char {
    ffi_guard!(c"".as_ptr(), { LossCode::from_code(code).map_or(c"".as_ptr(), |c| c.name_c().as_ptr()) })
}

/// Makes a compaction input around a conversion's transcript (SPEC §16, G16.10), for hosts that
/// are not the reference: `provider` and `model` (UTF-8) name the summariser's request;
/// `revision` is the basis revision (the host's compaction count plus one); the basis event id is
/// minted from the transcript; `fingerprint` is the request fingerprint's 32 bytes, or NULL to mint
/// it from the provider, model and transcript. The input cuts only at the source's boundaries.
///
/// On `LC_OK`, `*out` receives a handle to release with `lc_compaction_input_free`. Statuses: those
/// of `lc_compaction_input_parse` for what the host gave (`LC_INPUT_MODEL` for an empty provider or
/// model, `LC_INPUT_BASIS` for revision 0, `LC_INPUT_MAX_SUMMARY_TOKENS`,
/// `LC_INPUT_REQUEST_FINGERPRINT` for 32 zero bytes, `LC_INPUT_TRANSCRIPT` for no message),
/// `LC_ERR_INVALID_ARGUMENT` for a provider or model that is not UTF-8, or a boundary code.
///
/// # Safety
/// `conversion` is a live handle; `provider`, `model` are NULL (with length 0) or valid for reads
/// of their lengths; `fingerprint` is NULL or valid for reads of 32 bytes; `out` is valid for one
/// pointer write.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn lc_conversion_input(
    conversion: *const lc_conversion,
    provider: *const u8,
    provider_len: usize,
    model: *const u8,
    model_len: usize,
    max_summary_tokens: u64,
    revision: u64,
    fingerprint: *const u8,
    out: *mut *mut lc_compaction_input,
) -> lc_status {
    ffi_status!({
        required(conversion)?;
        let provider = InBuf::new(provider, provider_len)?;
        let model = InBuf::new(model, model_len)?;
        required(out)?;
        // SAFETY: guaranteed by the caller.
        let (provider, model) = unsafe { (provider.slice()?, model.slice()?) };
        let provider = core::str::from_utf8(provider).map_err(|_| crate::Status::InvalidArgument)?;
        let model = core::str::from_utf8(model).map_err(|_| crate::Status::InvalidArgument)?;
        let fingerprint = if fingerprint.is_null() {
            None
        } else {
            let mut fp = [0u8; 32];
            // SAFETY: non-NULL and readable for 32 bytes (caller contract).
            unsafe { core::ptr::copy_nonoverlapping(fingerprint, fp.as_mut_ptr(), 32) };
            Some(fp)
        };
        // SAFETY: a live handle (caller contract).
        let c = unsafe { &(*conversion).inner };
        let inner = c.input(provider, model, max_summary_tokens, revision, fingerprint)?;
        let handle = Box::into_raw(Box::new(lc_compaction_input { inner }));
        // SAFETY: `out` is non-NULL and writable (caller contract).
        unsafe { out.write(handle) };
        Ok(())
    })
}
