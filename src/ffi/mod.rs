//! The C ABI (SPEC §1, §2, A3.1–A3.9): the only module that uses `unsafe`.
//!
//! Every export follows one shape: a panic guard around the body, then the pointer checks, then the
//! length checks, then one call into the safe core, whose `Status` is returned. Nothing here decides
//! anything about content.
#![allow(unsafe_code)]

// In the order a host calls them (the header follows it): meta, summary, input and output,
// policies and limits, fingerprint, then the diagnostics of all of them.
mod meta;
mod summary;
mod wire;
mod policy;
mod fingerprint;
mod diagnostic;
mod pairing;
mod round;
mod convert;
mod grammar;
mod stream;
// The JavaScript package's allocation pair: exported by the WebAssembly build only, never by a
// native library (whose exports are exactly the header's functions: scripts/release checks them).
#[cfg(target_arch = "wasm32")]
mod wasm;

pub use convert::*;
pub use diagnostic::*;
pub use fingerprint::*;
pub use grammar::*;
pub use meta::*;
pub use pairing::*;
pub use policy::*;
pub use round::*;
pub use stream::*;
pub use summary::*;
pub use wire::*;

use crate::status::Status;

/// A status code: `0` (`LC_OK`) or one of the reason codes of the status table. Stable forever.
#[allow(non_camel_case_types)]
pub type lc_status = i32;

/// Runs `$body` and turns a panic into `$on_panic` (SPEC §1: a panic never crosses the boundary).
///
/// The guard sits inside the function body so that cbindgen sees a plain `extern "C" fn`.
macro_rules! ffi_guard {
    ($on_panic:expr, $body:block) => {
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(value) => value,
            Err(_) => $on_panic,
        }
    };
}
pub(crate) use ffi_guard;

/// The body of a status-returning export: the guard, and `Result<(), Status>` folded into a code.
macro_rules! ffi_status {
    ($body:block) => {
        $crate::ffi::ffi_guard!($crate::status::Status::Panic.code(), {
            #[allow(clippy::redundant_closure_call)]
            let result: ::core::result::Result<(), $crate::status::Status> = (|| $body)();
            match result {
                Ok(()) => $crate::status::Status::Ok.code(),
                Err(status) => status.code(),
            }
        })
    };
}
pub(crate) use ffi_status;

/// A borrowed input buffer whose pointer has been checked but whose length has not yet (A3.1).
pub(crate) struct InBuf {
    ptr: *const u8,
    len: usize,
}

impl InBuf {
    /// Pointer check (SPEC §1): `(NULL, 0)` is the empty buffer, `(NULL, n > 0)` an error.
    pub(crate) fn new(ptr: *const u8, len: usize) -> Result<InBuf, Status> {
        if ptr.is_null() && len != 0 {
            return Err(Status::NullArgument);
        }
        Ok(InBuf { ptr, len })
    }

    /// Length check, then the slice. The slice is never built from a NULL pointer.
    ///
    /// # Safety
    /// A non-NULL pointer must be valid for reads of `len` bytes for the lifetime `'a`, which the
    /// caller of the export guarantees for the duration of the call.
    pub(crate) unsafe fn slice<'a>(self) -> Result<&'a [u8], Status> {
        if self.len > isize::MAX as usize {
            return Err(Status::LengthOverflow);
        }
        if self.ptr.is_null() {
            return Ok(&[]);
        }
        // SAFETY: non-NULL, length at most isize::MAX, validity guaranteed by the caller.
        Ok(unsafe { core::slice::from_raw_parts(self.ptr, self.len) })
    }
}

/// A caller output buffer `(buf, cap, out_len)` checked per A3.2: `buf` may be NULL only with
/// `cap == 0`; `out_len` is always required.
pub(crate) struct OutBuf {
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
}

impl OutBuf {
    pub(crate) fn new(buf: *mut u8, cap: usize, out_len: *mut usize) -> Result<OutBuf, Status> {
        if out_len.is_null() || (buf.is_null() && cap != 0) {
            return Err(Status::NullArgument);
        }
        Ok(OutBuf { buf, cap, out_len })
    }

    /// Writes `data` (two-call pattern): too small → `*out_len = data.len()` and
    /// `LC_ERR_BUFFER_TOO_SMALL`, nothing else written; otherwise copies and sets `*out_len`.
    ///
    /// # Safety
    /// `buf` must be valid for writes of `cap` bytes and `out_len` for one write, and neither may
    /// overlap `data`.
    pub(crate) unsafe fn write(self, data: &[u8]) -> Result<(), Status> {
        // SAFETY: `out_len` was checked non-NULL; the caller guarantees it is writable.
        unsafe { self.out_len.write(data.len()) };
        if data.len() > self.cap {
            return Err(Status::BufferTooSmall);
        }
        if !data.is_empty() {
            // SAFETY: `data.len() <= cap` and `buf` is non-NULL when `cap > 0`; the caller
            // guarantees `buf` is writable for `cap` bytes and does not overlap `data`.
            unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), self.buf, data.len()) };
        }
        Ok(())
    }

    /// Two-call pattern for output of `len` bytes that the core writes in place: too small →
    /// `*out_len = len` and `LC_ERR_BUFFER_TOO_SMALL`, the buffer untouched; otherwise `fill`
    /// gets exactly the first `len` bytes of `buf` (a slice is built only of that length, never
    /// of the capacity, A3.2) and `*out_len = len`.
    ///
    /// # Safety
    /// `buf` must be valid for writes of `cap` bytes and `out_len` for one write.
    pub(crate) unsafe fn fill(self, len: usize, fill: impl FnOnce(&mut [u8])) -> Result<(), Status> {
        // SAFETY: `out_len` was checked non-NULL; the caller guarantees it is writable.
        unsafe { self.out_len.write(len) };
        if len > self.cap {
            return Err(Status::BufferTooSmall);
        }
        if len > 0 {
            // SAFETY: `len <= cap`, so `buf` is non-NULL and writable for `len` bytes (caller
            // contract), and `len` is the length of data this process built, so <= isize::MAX.
            fill(unsafe { core::slice::from_raw_parts_mut(self.buf, len) });
        }
        Ok(())
    }
}

/// Writes an array of `n` elements (`*out_len` counts elements) with the two-call pattern; an
/// empty array is `LC_OK` with `*out_len` 0.
///
/// # Safety
/// `buf` is NULL (with `cap == 0`) or valid for writes of `cap` elements; `out_len` is valid.
pub(crate) unsafe fn write_elements<T: Copy>(
    items: &[T],
    buf: *mut T,
    cap: usize,
    out_len: *mut usize,
) -> Result<(), crate::Status> {
    if out_len.is_null() || (buf.is_null() && cap != 0) {
        return Err(crate::Status::NullArgument);
    }
    // SAFETY: `out_len` is non-NULL and writable (caller contract).
    unsafe { out_len.write(items.len()) };
    if items.len() > cap {
        return Err(crate::Status::BufferTooSmall);
    }
    if !items.is_empty() {
        // SAFETY: `items.len() <= cap`, so `buf` is non-NULL and writable for that many elements.
        unsafe { core::ptr::copy_nonoverlapping(items.as_ptr(), buf, items.len()) };
    }
    Ok(())
}

/// Checks that a required pointer argument is non-NULL.
pub(crate) fn required<T>(ptr: *const T) -> Result<(), Status> {
    if ptr.is_null() { Err(Status::NullArgument) } else { Ok(()) }
}
