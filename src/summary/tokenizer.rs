//! Markup tokens of the summary grammar: names (X4.9, X4.10), start tags (X4.11), end tags
//! (X4.12), comments (X4.13), processing instructions with the XML declaration checks (X4.14) and
//! the other `<!` constructs (X4.15).
//!
//! Each function starts at the token's `<`, reads the whole token (X4.2) and returns the index just
//! past it, or `Err(offset)` for the first `xml_syntax` problem, the end of the input included
//! (X4.16). What a well-formed token means for the document is the classifier's business.

use memchr::memchr;

use super::chars::{scan_attribute_value, utf8_char};
use super::name_chars::{is_digit_combining_or_extender, is_letter};

/// A start tag or an empty-element tag, read up to its `>`.
pub(super) struct StartTag<'a> {
    /// The whole name, byte for byte (end tags must repeat it exactly, X4.12).
    pub(super) name: &'a [u8],
    /// The local name (X4.10): after the colon when there is a prefix, else the whole name.
    pub(super) local: &'a [u8],
    /// Whether the name has a prefix (X4.10).
    pub(super) prefixed: bool,
    /// Whether the tag has at least one attribute (`xmlns` declarations included).
    pub(super) has_attributes: bool,
    /// `<name/>`: a start tag immediately followed by its end tag.
    pub(super) empty: bool,
    /// The index just past the closing `>`.
    pub(super) end: usize,
}

/// X4.11: `<` name, then attributes, then `>` or `/>`.
pub(super) fn start_tag(xml: &[u8], lt: usize) -> Result<StartTag<'_>, usize> {
    let QualifiedName { local, prefixed, end: mut i } = qualified_name(xml, lt + 1)?;
    let name = xml.get(lt + 1..i).unwrap_or_default();
    let mut has_attributes = false;
    loop {
        i = skip_white_space(xml, i);
        match xml.get(i) {
            None => return Err(i),
            Some(b'>') => {
                return Ok(StartTag { name, local, prefixed, has_attributes, empty: false, end: i + 1 });
            }
            Some(b'/') => {
                return match xml.get(i + 1) {
                    Some(b'>') => Ok(StartTag { name, local, prefixed, has_attributes, empty: true, end: i + 2 }),
                    _ => Err(i),
                };
            }
            Some(_) => {
                // An attribute: name, `=`, quoted value. No white space is needed before it, and
                // a repeated name is not an error.
                i = qualified_name(xml, i)?.end;
                i = skip_white_space(xml, i);
                if xml.get(i) != Some(&b'=') {
                    return Err(i);
                }
                i = skip_white_space(xml, i + 1);
                let quote = match xml.get(i) {
                    Some(&q @ (b'"' | b'\'')) => q,
                    _ => return Err(i),
                };
                i = scan_attribute_value(xml, i + 1, quote)? + 1;
                has_attributes = true;
            }
        }
    }
}

/// X4.12: `</` name, optional white space, `>`. Returns the name and the index past the `>`.
///
/// The name is not checked against X4.9 here: the caller requires it to equal the name of the
/// innermost open element, which was checked when that element was opened.
pub(super) fn end_tag(xml: &[u8], lt: usize) -> Result<(&[u8], usize), usize> {
    let start = lt + 2;
    let stop = name_end(xml, start);
    let name = xml.get(start..stop).filter(|name| !name.is_empty()).ok_or(start)?;
    let i = skip_white_space(xml, stop);
    match xml.get(i) {
        Some(b'>') => Ok((name, i + 1)),
        _ => Err(i),
    }
}

/// X4.14: `<?` target, optional white space, content up to the first `?>`.
pub(super) fn processing_instruction(xml: &[u8], lt: usize) -> Result<usize, usize> {
    let start = lt + 2;
    let stop = name_end(xml, start);
    // The target is a name of any number of colons: X4.10 does not apply.
    let target = xml.get(start..stop).unwrap_or_default();
    if !is_name(target) {
        return Err(start);
    }
    let content_start = skip_white_space(xml, stop);
    let content_end = find_pair(xml, content_start, b'?', b'>').ok_or(xml.len())?;
    if target == b"xml" {
        let content = xml.get(content_start..content_end).unwrap_or_default();
        if !declaration_is_supported(content) {
            return Err(lt);
        }
    }
    Ok(content_end + 2)
}

/// X4.14: the version and encoding of an XML declaration, wherever it occurs. A non-empty version
/// other than `1.0` or a non-empty encoding other than `utf-8` (any ASCII case) is unsupported.
fn declaration_is_supported(content: &[u8]) -> bool {
    let version = pseudo_attribute(content, b"version=");
    let encoding = pseudo_attribute(content, b"encoding=");
    version.is_none_or(|v| v.is_empty() || v == b"1.0")
        && encoding.is_none_or(|e| e.is_empty() || e.eq_ignore_ascii_case(b"utf-8"))
}

/// X4.14 (amended): the value of a pseudo-attribute, scanning `content` for `key` (`version=` or
/// `encoding=`). At an occurrence directly followed by `"` or `'`, the value runs to the next
/// occurrence of that quote (none: no value) and the scan stops. At an occurrence followed by any
/// other byte, the scan resumes two bytes after its `=`, so an occurrence that starts right after
/// that `=` is never seen; an occurrence at the very end ends the scan with no value.
fn pseudo_attribute<'a>(content: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let finder = memchr::memmem::Finder::new(key);
    let mut from = 0;
    loop {
        let after = from + finder.find(content.get(from..)?)? + key.len();
        let next = *content.get(after)?;
        if matches!(next, b'"' | b'\'') {
            let value = content.get(after + 1..)?;
            return memchr(next, value).and_then(|end| value.get(..end));
        }
        from = after + 1;
    }
}

/// X4.15: the construct that starts with `<!` at `lt`. A comment, a directive, or (for `<![`) a
/// syntax error: `<![CDATA[` itself is caught by the X4.3 pre-check, which outranks this result.
pub(super) fn bang(xml: &[u8], lt: usize) -> Result<usize, usize> {
    match xml.get(lt + 2) {
        None => Err(lt + 2),
        Some(b'-') => comment(xml, lt),
        Some(b'[') => Err(lt),
        Some(_) => directive(xml, lt),
    }
}

/// X4.13: `<!--`, then bytes up to the first `--`, which must be followed by `>`. The content is
/// not otherwise checked.
fn comment(xml: &[u8], lt: usize) -> Result<usize, usize> {
    if xml.get(lt + 3) != Some(&b'-') {
        return Err(lt + 3);
    }
    let dashes = find_pair(xml, lt + 4, b'-', b'-').ok_or(xml.len())?;
    match xml.get(dashes + 2) {
        Some(b'>') => Ok(dashes + 3),
        _ => Err(dashes),
    }
}

/// X4.15: a directive (`<!DOCTYPE …>`, `<!ENTITY …>`, `<!BOGUS>`), scanned with a quote state and
/// a depth, skipping `<!-- … -->` comments. Its contents are not otherwise checked.
fn directive(xml: &[u8], lt: usize) -> Result<usize, usize> {
    // The first byte after `<!` is taken without interpretation.
    let mut i = lt + 3;
    let mut depth = 0usize;
    loop {
        match *xml.get(i).ok_or(xml.len())? {
            b'>' if depth == 0 => return Ok(i + 1),
            b'>' => depth -= 1,
            quote @ (b'"' | b'\'') => {
                // The same byte closes the quote; nothing inside is special.
                let rest = xml.get(i + 1..).unwrap_or_default();
                i += 1 + memchr(quote, rest).ok_or(xml.len())?;
            }
            b'<' if xml.get(i + 1..).is_some_and(|rest| rest.starts_with(b"!--")) => {
                // A comment, skipped up to the next `-->` after its opening `<!--`.
                i = find_comment_close(xml, i + 4).ok_or(xml.len())? + 2;
            }
            b'<' => depth += 1,
            _ => {}
        }
        i += 1;
    }
}

/// The index of the first `-->` at or after `from`.
fn find_comment_close(xml: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        let dashes = find_pair(xml, i, b'-', b'-')?;
        if xml.get(dashes + 2) == Some(&b'>') {
            return Some(dashes);
        }
        i = dashes + 1;
    }
}

/// The index of the first occurrence of the two bytes `a` `b` at or after `from`.
fn find_pair(xml: &[u8], from: usize, a: u8, b: u8) -> Option<usize> {
    let mut i = from;
    loop {
        let at = i + memchr(a, xml.get(i..)?)?;
        if xml.get(at + 1) == Some(&b) {
            return Some(at);
        }
        i = at + 1;
    }
}

/// A name that passed X4.9 and X4.10.
struct QualifiedName<'a> {
    /// After the colon when there is a prefix, else the whole name.
    local: &'a [u8],
    prefixed: bool,
    /// The index just past the name.
    end: usize,
}

/// X4.9 and X4.10 for the name that starts at `start`.
fn qualified_name(xml: &[u8], start: usize) -> Result<QualifiedName<'_>, usize> {
    let end = name_end(xml, start);
    let name = xml.get(start..end).unwrap_or_default();
    if !is_name(name) {
        return Err(start);
    }
    let mut colons = memchr::memchr_iter(b':', name);
    match (colons.next(), colons.next()) {
        (_, Some(second)) => Err(start + second),
        // Exactly one colon, neither first nor last: prefix and local name.
        (Some(colon), None) if colon != 0 && colon + 1 != name.len() => {
            Ok(QualifiedName { local: name.get(colon + 1..).unwrap_or_default(), prefixed: true, end })
        }
        _ => Ok(QualifiedName { local: name, prefixed: false, end }),
    }
}

/// X4.9: the bytes a name is made of (its extent); whether they form a name is [`is_name`].
pub(super) const fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'.' | b'-') || b >= 0x80
}

/// [`is_name_byte`] by byte value.
static NAME_BYTES: [bool; 256] = name_bytes();

// Evaluated at compile time: an index out of range would not compile.
#[allow(clippy::indexing_slicing)]
const fn name_bytes() -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = is_name_byte(i as u8);
        i += 1;
    }
    table
}

/// The end of the longest run of name bytes that starts at `start`.
fn name_end(xml: &[u8], start: usize) -> usize {
    let rest = xml.get(start..).unwrap_or_default();
    let is = |b: &u8| NAME_BYTES.get(usize::from(*b)).copied().unwrap_or(false);
    // Eight bytes per step while every one is a name byte (names can be as long as the input).
    let mut done = 0;
    while let Some(word) = rest.get(done..).and_then(|r| r.first_chunk::<8>()) {
        if !word.iter().fold(true, |all, b| all & is(b)) {
            break;
        }
        done += 8;
    }
    let tail = rest.get(done..).unwrap_or_default();
    start + done + tail.iter().position(|b| !is(b)).unwrap_or(tail.len())
}

/// X4.9: non-empty, valid UTF-8, a first character that is a Letter, `_` or `:`, and then only
/// Letters, Digits, `.`, `-`, `_`, `:`, CombiningChars and Extenders (XML 1.0 4th ed., Appendix B).
///
/// `name` is a run of name bytes ([`name_end`]'s extent), so every ASCII byte after the first is
/// one of the allowed ones: only the first character and the non-ASCII ones need a look, and
/// ASCII is skipped eight bytes at a time.
fn is_name(name: &[u8]) -> bool {
    debug_assert!(name.iter().all(|&b| is_name_byte(b)), "is_name takes a run of name bytes");
    let mut i = 0;
    while let Some(&b) = name.get(i) {
        let first = i == 0;
        if b < 0x80 && !first {
            while let Some(word) = name.get(i..).and_then(|r| r.first_chunk::<8>()) {
                if u64::from_le_bytes(*word) & 0x8080_8080_8080_8080 != 0 {
                    break;
                }
                i += 8;
            }
            while name.get(i).is_some_and(|&b| b < 0x80) {
                i += 1;
            }
            continue;
        }
        let (allowed, len) = if b < 0x80 {
            (b.is_ascii_alphabetic() || b == b'_' || b == b':', 1)
        } else {
            match utf8_char(name, i) {
                Some((cp, len)) => (is_letter(cp) || (!first && is_digit_combining_or_extender(cp)), len),
                None => return false,
            }
        };
        if !allowed {
            return false;
        }
        i += len;
    }
    i > 0
}

/// White space inside markup: SP, TAB, CR, LF only.
fn skip_white_space(xml: &[u8], start: usize) -> usize {
    let rest = xml.get(start..).unwrap_or_default();
    start + rest.iter().position(|&b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')).unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for name in ["a", "_", ":", "a1", "a.b-c_d:e", "é", "aé", "a\u{0300}", "a\u{00B7}", "a\u{0661}", "\u{4E00}"] {
            assert!(is_name(name.as_bytes()), "{name:?}");
        }
        for name in ["", "1a", ".a", "-a", "\u{0300}", "\u{00B7}", "\u{0661}", "a\u{00A0}", "a\u{2603}", "a\u{10000}"] {
            assert!(!is_name(name.as_bytes()), "{name:?}");
        }
        assert!(!is_name(b"a\xFF"));
        assert!(!is_name(b"a\xC3"));
    }

    #[test]
    fn pseudo_attributes() {
        let version = |content: &'static [u8]| pseudo_attribute(content, b"version=");
        let encoding = |content: &'static [u8]| pseudo_attribute(content, b"encoding=");
        assert_eq!(version(b"version=1 version=\"2.0\""), Some(&b"2.0"[..]));
        assert_eq!(version(b"version='1.0'"), Some(&b"1.0"[..]));
        assert_eq!(version(b"version=\"1.0"), None);
        assert_eq!(version(b"=\"x\""), None);
        assert_eq!(encoding(b"xencoding=\"\""), Some(&b""[..]));
        // The amended scan: resume two bytes after the `=` of an occurrence without a quote.
        assert_eq!(version(b"version=version=\"2.0\""), None);
        assert_eq!(encoding(b"encoding=encoding=\"latin1\""), None);
        assert_eq!(version(b"version= version=\"x\""), Some(&b"x"[..]));
        assert_eq!(encoding(b"encoding= encoding='x'"), Some(&b"x"[..]));
        assert_eq!(version(b"version=xversion=\"3\""), Some(&b"3"[..]));
        assert_eq!(version(b"version==version=\"3\""), Some(&b"3"[..]));
        // An occurrence at the very end, a quote at the very end, an unclosed value.
        assert_eq!(version(b"version="), None);
        assert_eq!(version(b"a version="), None);
        assert_eq!(version(b"version=\""), None);
        assert_eq!(encoding(b"encoding='"), None);
        assert_eq!(version(b"version=1 version="), None);
        // The first quoted occurrence wins, even with a later one.
        assert_eq!(version(b"version='1.0' version=\"2.0\""), Some(&b"1.0"[..]));
        assert_eq!(encoding(b"version=\"1.0\" encoding=\"UTF-8\""), Some(&b"UTF-8"[..]));
    }
}
