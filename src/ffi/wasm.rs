//! WebAssembly only: the allocation pair the JavaScript package (`bindings/js`) uses to place its
//! buffers in the module's linear memory before it calls the exports of the C ABI.
//!
//! A C host allocates in its own memory; a JavaScript host cannot, since the library only reads and
//! writes the wasm instance's memory. So the JS side asks for `len` bytes with `lc_wasm_alloc`,
//! copies its input there (or lets the library write an output there), calls the export with that
//! pointer and returns the block with `lc_wasm_free(ptr, len)`, the same `len`. A string is
//! encoded straight into its block, which starts at a lower bound of its UTF-8 length and grows
//! with `lc_wasm_realloc` only if the text is not all ASCII, so that a document takes about its
//! UTF-8 size in the linear memory, not the three bytes per UTF-16 unit of the upper bound.
//!
//! Not part of the C ABI: compiled only for `target_arch = "wasm32"`, left out of the header
//! (`cbindgen.toml` excludes them) and private, so not Rust API either (`#[no_mangle]` is what
//! exports them from the cdylib).
//!
//! Panics: on `wasm32-unknown-unknown` the standard library aborts on panic (there is no unwinding),
//! so the panic guard of the exports cannot turn a panic into `LC_ERR_PANIC`; the instance executes
//! `unreachable` and the JS caller sees a `WebAssembly.RuntimeError` trap. The JS package reports
//! that as `LC_ERR_PANIC` and replaces the instance, whose memory it no longer trusts.

use std::alloc::{Layout, alloc, dealloc, realloc};

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

/// Resizes a block from `lc_wasm_alloc(len)` to `new_len` bytes, keeping its first
/// `min(len, new_len)` bytes; the new block is released with `lc_wasm_free(ptr, new_len)`. NULL when
/// the memory cannot grow or `new_len` is too large, and then the old block is still allocated.
///
/// The allocator of wasm32-unknown-unknown (dlmalloc) grows a block in place only into free space
/// right after it. A large block is usually the last one, and then the allocator grows the memory
/// by the whole new size and copies: the old and the new size are both taken, for good (a
/// WebAssembly memory never shrinks). A block of the difference allocated and freed first leaves
/// that much free space after the block, and the block grows into it. (When the allocator places
/// it elsewhere, the resize copies as before: the result is the same, only the memory is larger.
/// The JavaScript package's memory test measures it.)
///
/// # Safety
/// `ptr` is a block from `lc_wasm_alloc` (or this function) with this same `len`, not yet freed.
#[unsafe(no_mangle)]
unsafe extern "C" fn lc_wasm_realloc(ptr: *mut u8, len: usize, new_len: usize) -> *mut u8 {
    let (Some(old), Some(_)) = (layout(len), layout(new_len)) else {
        return core::ptr::null_mut();
    };
    if ptr.is_null() {
        return core::ptr::null_mut();
    }
    if let Some(spacer) = new_len.checked_sub(len).filter(|&d| d > 0).and_then(layout) {
        // SAFETY: the layout is never zero-sized; the block is freed with the same layout.
        // `black_box`: an allocation that is never used may be removed by the optimiser, and this
        // one is there for its effect on the allocator.
        unsafe {
            let block = std::hint::black_box(alloc(spacer));
            if !block.is_null() {
                dealloc(block, spacer);
            }
        }
    }
    // SAFETY: `ptr` came from `alloc` with `old` (the caller's contract); the new size is non-zero
    // and, as `layout(new_len)` exists, does not overflow `isize` when rounded up to the alignment.
    unsafe { realloc(ptr, old, new_len.max(1)) }
}
