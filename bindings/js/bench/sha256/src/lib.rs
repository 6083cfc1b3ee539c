//! SHA-256 of a buffer, exported for the wasm32 build (bench/sha256.mjs calls it from Node): the
//! `sha2` crate the library uses, with what it selects on the target (the `simd128` message
//! schedule on wasm32 with `simd128`, the portable rounds without; SHA-NI natively where the CPU has
//! it). A benchmark tool, not part of the library: its two `unsafe` blocks hand a buffer to the host.

use sha2::{Digest, Sha256};

/// The digest's first four bytes (so that the call cannot be optimised away).
pub fn hash(bytes: &[u8]) -> u32 {
    let d = Sha256::digest(bytes);
    u32::from_le_bytes([d[0], d[1], d[2], d[3]])
}

/// A buffer of `len` bytes for the host to fill; never freed (one per run).
#[cfg(target_arch = "wasm32")]
#[unsafe(no_mangle)]
pub extern "C" fn sha256_buffer(len: usize) -> *mut u8 {
    Vec::leak(vec![0u8; len]).as_mut_ptr()
}

/// [`hash`] of the `len` bytes at `ptr`.
///
/// # Safety
/// `ptr` is a buffer of [`sha256_buffer`] of at least `len` bytes.
#[cfg(target_arch = "wasm32")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha256_hash(ptr: *const u8, len: usize) -> u32 {
    // SAFETY: the caller passes a live buffer of at least `len` bytes.
    hash(unsafe { std::slice::from_raw_parts(ptr, len) })
}
