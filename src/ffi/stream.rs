//! Streaming validation of a summary (SPEC §17.3): `lc_summary_stream_*`, a handle that reads the
//! summariser's reply in chunks.

use super::diagnostic::{LC_OFFSET_UNKNOWN, diagnose_after, lc_diagnostic};
use super::{InBuf, ffi_guard, ffi_status, lc_status, required};
use crate::summary::SummaryStream;

/// A streaming summary validator (opaque). Created by `lc_summary_stream_new`, released by
/// `lc_summary_stream_free`. Not for concurrent use: one thread at a time may feed it (any thread,
/// one after another).
#[allow(non_camel_case_types)]
pub struct lc_summary_stream {
    inner: SummaryStream,
}

/// Creates a streaming summary validator with nothing fed yet (SPEC §17.3). On `LC_OK`, `*out`
/// receives the handle; release it with `lc_summary_stream_free`.
///
/// # Safety
/// `out` is valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_stream_new(out: *mut *mut lc_summary_stream) -> lc_status {
    ffi_status!({
        required(out)?;
        let handle = Box::into_raw(Box::new(lc_summary_stream { inner: SummaryStream::new() }));
        // SAFETY: `out` is non-NULL and writable (caller contract).
        unsafe { out.write(handle) };
        Ok(())
    })
}

/// Releases a stream. `NULL` is a no-op.
///
/// # Safety
/// `stream` is NULL or a handle from `lc_summary_stream_new` not yet freed, unused elsewhere.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_stream_free(stream: *mut lc_summary_stream) {
    ffi_guard!((), {
        if !stream.is_null() {
            // SAFETY: the pointer came from Box::into_raw in lc_summary_stream_new.
            drop(unsafe { Box::from_raw(stream) });
        }
    })
}

/// Reads the next chunk of the reply (T17.2): any size, cut anywhere (inside a UTF-8 sequence, a
/// reference or a tag). Returns `LC_OK` while some continuation of the bytes fed so far can
/// validate, else the status of the problem that killed it (`LC_SUMMARY_XML_*`), and that same
/// status for every later chunk (T17.3). `chunk` may be NULL with `len == 0`; NULL with `len > 0`
/// is `LC_ERR_NULL_ARGUMENT` and feeds nothing.
///
/// # Safety
/// `stream` is a live handle used by no other thread during the call; `chunk` is NULL (with
/// `len == 0`) or valid for reads of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_stream_feed(
    stream: *mut lc_summary_stream,
    chunk: *const u8,
    len: usize,
) -> lc_status {
    ffi_status!({
        required(stream)?;
        let chunk = InBuf::new(chunk, len)?;
        // SAFETY: guaranteed by the caller.
        let chunk = unsafe { chunk.slice() }?;
        // SAFETY: a live handle, not shared during the call (caller contract).
        let stream = unsafe { &mut (*stream).inner };
        stream.feed(chunk).map_err(|e| e.status())
    })
}

/// `lc_summary_stream_feed` with a diagnosis (SPEC C13.4): the same return value, and, when
/// `diag` is not NULL, `*diag` filled: `LC_OK` while viable, else the problem known when the
/// stream died, with offsets, lines and columns from the start of the reply (T17.3).
///
/// # Safety
/// As `lc_summary_stream_feed`; `diag` is NULL or an `lc_diagnostic` whose `struct_size` the
/// caller set, writable for that many bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_stream_feed_diagnose(
    stream: *mut lc_summary_stream,
    chunk: *const u8,
    len: usize,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    let status = unsafe { lc_summary_stream_feed(stream, chunk, len) };
    ffi_guard!(status, {
        diagnose_after(status, diag, || {
            // SAFETY: the feed accepted the handle (non-NULL, live by contract).
            unsafe { (*stream).inner.diagnosis() }
        })
    })
}

/// The whole-document verdict of everything fed so far (T17.4): exactly what
/// `lc_summary_xml_validate` returns for the concatenated chunks. The stream is not ended: more
/// chunks may be fed after it.
///
/// # Safety
/// `stream` is a live handle not being fed by another thread during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_stream_finish(stream: *const lc_summary_stream) -> lc_status {
    ffi_status!({
        required(stream)?;
        // SAFETY: a live handle (caller contract).
        let stream = unsafe { &(*stream).inner };
        stream.finish().map_err(|e| e.status())
    })
}

/// `lc_summary_stream_finish` with a diagnosis: exactly `lc_summary_xml_diagnose` of the
/// concatenated chunks.
///
/// # Safety
/// As `lc_summary_stream_finish`; `diag` as for `lc_summary_stream_feed_diagnose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_stream_finish_diagnose(
    stream: *const lc_summary_stream,
    diag: *mut lc_diagnostic,
) -> lc_status {
    // SAFETY: the caller's contract, passed on.
    let status = unsafe { lc_summary_stream_finish(stream) };
    ffi_guard!(status, {
        diagnose_after(status, diag, || {
            // SAFETY: the finish accepted the handle (non-NULL, live by contract).
            unsafe { (*stream).inner.finish_diagnose() }
        })
    })
}

/// The offset, from the start of the reply, of the byte at which the stream died (T17.3: the
/// bytes up to and including it have no continuation that validates), or `LC_OFFSET_UNKNOWN`
/// while it is viable (and for NULL).
///
/// # Safety
/// `stream` is NULL or a live handle not being fed by another thread during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_stream_dead_offset(stream: *const lc_summary_stream) -> u64 {
    ffi_guard!(LC_OFFSET_UNKNOWN, {
        if stream.is_null() {
            return LC_OFFSET_UNKNOWN;
        }
        // SAFETY: a live handle (caller contract).
        let stream = unsafe { &(*stream).inner };
        stream.dead_at().map_or(LC_OFFSET_UNKNOWN, |at| at as u64)
    })
}
