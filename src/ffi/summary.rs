//! `lc_summary_xml_validate` (SPEC §4).

use super::{InBuf, ffi_status, lc_status};

/// Validates a summary against the strict XML grammar of SPEC §4.
///
/// Returns `LC_OK`, or `LC_SUMMARY_XML_SYNTAX`, `LC_SUMMARY_XML_ROOT`, `LC_SUMMARY_XML_STRUCTURE`,
/// `LC_SUMMARY_XML_CONTENT` (the first problem in document order), or a boundary code.
///
/// # Safety
/// `xml` is NULL (with `xml_len == 0`) or valid for reads of `xml_len` bytes during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_summary_xml_validate(xml: *const u8, xml_len: usize) -> lc_status {
    ffi_status!({
        let xml = InBuf::new(xml, xml_len)?;
        // SAFETY: guaranteed by the caller (see above).
        let xml = unsafe { xml.slice() }?;
        Ok(crate::summary::validate(xml)?)
    })
}
