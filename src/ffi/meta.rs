//! Meta functions: versions and the status table lookups (SPEC §2, A3.3). They cannot fail.

use core::ffi::c_char;

use super::{ffi_guard, lc_status};
use crate::status::{Status, UNKNOWN_STATUS_C};

/// The crate version as a static NUL-terminated string, e.g. `"0.1.0"`.
#[unsafe(no_mangle)]
pub extern "C" fn lc_version() -> *const c_char {
    const VERSION: &core::ffi::CStr =
        match core::ffi::CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(c) => c,
            Err(_) => c"",
        };
    VERSION.as_ptr()
}

/// The ABI version (`LC_ABI_VERSION`); it changes on any incompatible change of the C ABI.
#[unsafe(no_mangle)]
pub extern "C" fn lc_abi_version() -> u32 {
    crate::ABI_VERSION
}

fn strings(code: lc_status) -> (&'static core::ffi::CStr, &'static core::ffi::CStr, &'static core::ffi::CStr) {
    ffi_guard!(UNKNOWN_STATUS_C, {
        match Status::from_code(code) {
            Some(status) => status.c_strings(),
            None => UNKNOWN_STATUS_C,
        }
    })
}

/// The constant's name for `code`, e.g. `"LC_SUMMARY_XML_SYNTAX"`; `"LC_UNKNOWN_STATUS"` for a
/// value not in the table. Static, never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn lc_status_name(code: lc_status) -> *const c_char {
    strings(code).0.as_ptr()
}

/// The reference's reason string for `code`, e.g. `"xml_syntax"` or `"RearmBelow"`; `""` for
/// `LC_OK`, the boundary errors and unknown values. Static, never NULL. Several codes share a
/// reason (`"wire"`): compare codes, not reasons, to tell them apart.
#[unsafe(no_mangle)]
pub extern "C" fn lc_status_reason(code: lc_status) -> *const c_char {
    strings(code).1.as_ptr()
}

/// One human sentence describing `code` (a fixed sentence for unknown values). Static, never NULL,
/// and never contains bytes of any input.
#[unsafe(no_mangle)]
pub extern "C" fn lc_status_message(code: lc_status) -> *const c_char {
    strings(code).2.as_ptr()
}

/// Test-only: panics inside the guard of a status-returning export (`mode` 0) or of the
/// neutral-value path of `lc_pressure_level` style exports (`mode` 1, returns 0). Proves the panic
/// guard; compiled out of release builds and absent from the header.
#[cfg(debug_assertions)]
#[doc(hidden)]
#[unsafe(no_mangle)]
#[allow(clippy::panic)]
pub extern "C" fn lc_debug_panic(mode: i32) -> i32 {
    if mode == 0 {
        super::ffi_status!({
            panic!("lc_debug_panic: deliberate panic");
        })
    } else {
        ffi_guard!(0, { panic!("lc_debug_panic: deliberate panic") })
    }
}
