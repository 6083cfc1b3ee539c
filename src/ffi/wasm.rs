//! WebAssembly only: the allocation pair the JavaScript package (`bindings/js`) uses to place its
//! buffers in the module's linear memory before it calls the exports of the C ABI.
//!
//! A C host allocates in its own memory; a JavaScript host cannot, since the library only reads and
//! writes the wasm instance's memory. So the JS side asks for `len` bytes with `lc_wasm_alloc`,
//! copies its input there (or lets the library write an output there), calls the export with that
//! pointer and returns the block with `lc_wasm_free(ptr, len)`, the same `len`.
//!
//! Not part of the C ABI: compiled only for `target_arch = "wasm32"`, left out of the header
//! (`cbindgen.toml` excludes them) and private, so not Rust API either (`#[no_mangle]` is what
//! exports them from the cdylib).
//!
//! Panics: on `wasm32-unknown-unknown` the standard library aborts on panic (there is no unwinding),
//! so the panic guard of the exports cannot turn a panic into `LC_ERR_PANIC`; the instance executes
//! `unreachable` and the JS caller sees a `WebAssembly.RuntimeError` trap. The JS package reports
//! that as `LC_ERR_PANIC` and replaces the instance, whose memory it no longer trusts.

use std::alloc::{Layout, alloc, dealloc};

/// Alignment of every block: enough for the `u64` fields of `lc_diagnostic`, `lc_resolved_limits`
/// and `lc_span` the library writes into blocks the JS side allocates.
const ALIGN: usize = 8;

/// The layout of a block of `len` bytes: never zero-sized (a zero-byte request gets one byte, so
/// that every block is a distinct, non-NULL pointer and `(ptr, 0)` is not `(NULL, 0)`).
fn layout(len: usize) -> Option<Layout> {
    Layout::from_size_align(len.max(1), ALIGN).ok()
}

/// Allocates `len` bytes (uninitialised, aligned to 8) in the linear memory; NULL when the memory
/// cannot grow or `len` is too large. Release with `lc_wasm_free(ptr, len)`.
#[unsafe(no_mangle)]
extern "C" fn lc_wasm_alloc(len: usize) -> *mut u8 {
    match layout(len) {
        // SAFETY: the layout is never zero-sized.
        Some(layout) => unsafe { alloc(layout) },
        None => core::ptr::null_mut(),
    }
}

/// Releases a block from `lc_wasm_alloc(len)`; NULL is a no-op.
///
/// # Safety
/// `ptr` is NULL or a block from `lc_wasm_alloc` with this same `len`, not yet freed.
#[unsafe(no_mangle)]
unsafe extern "C" fn lc_wasm_free(ptr: *mut u8, len: usize) {
    if ptr.is_null() {
        return;
    }
    if let Some(layout) = layout(len) {
        // SAFETY: `ptr` came from `alloc` with this layout (the caller's contract).
        unsafe { dealloc(ptr, layout) };
    }
}
