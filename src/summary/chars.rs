//! Character-level rules of the summary grammar: character data and attribute values (X4.5, X4.7,
//! X4.11 values), references (X4.6), the XML Char set over UTF-8 (X4.8) and White_Space (X4.21).
//!
//! Text is the bulk of every summary, so the scan is one pass that checks UTF-8, the Char set, `]]>`
//! and references together. It looks at 32 bytes at a time: the rare bytes of a block (`<`, `&`,
//! `>`, controls, non-ASCII, the closing quote of a value) are flagged by one check written so that
//! the compiler turns it into 16-byte vector compares (safe Rust, no intrinsics), and only they take
//! the scalar path. Nothing here allocates.

/// Bytes checked per step of the fast path: two 16-byte vectors (SSE2, the x86-64 baseline).
const BLOCK: usize = 32;
const _: () = assert!(BLOCK == 32, "first_rare reads the flags as two 16-byte halves");

/// Whether byte `b` cannot be skipped without a closer look.
///
/// Rare bytes are the C0 controls other than TAB, LF and CR (never Chars), every byte >= 0x80
/// (UTF-8 to decode), `<` and `&` (end of a run, references), and the two bytes `e1` and `e2`
/// (`]` and `>` in character data, for `]]>`; the closing quote in an attribute value).
#[inline(always)]
fn is_rare(b: u8, e1: u8, e2: u8) -> bool {
    // Signed compare: 0x00-0x1F and 0x80-0xFF in one test.
    let low_or_high = (b as i8) < 0x20;
    let allowed = (b == b'\t') | (b == b'\n') | (b == b'\r');
    (low_or_high & !allowed) | (b == b'<') | (b == b'&') | (b == e1) | (b == e2)
}

/// The index of the first rare byte of `block`, if any.
///
/// The flags are computed into a byte array (a shape the compiler turns into 16-byte vector
/// compares) and then read back as two 128-bit words.
#[inline(always)]
fn first_rare(block: &[u8; BLOCK], e1: u8, e2: u8) -> Option<usize> {
    let mut flags = [0u8; BLOCK];
    for (flag, &b) in flags.iter_mut().zip(block) {
        *flag = u8::from(is_rare(b, e1, e2));
    }
    let lo = flags.first_chunk::<16>().map_or(0, |half| u128::from_le_bytes(*half));
    let hi = flags.last_chunk::<16>().map_or(0, |half| u128::from_le_bytes(*half));
    if lo != 0 {
        Some(lo.trailing_zeros() as usize / 8)
    } else if hi != 0 {
        Some(16 + hi.trailing_zeros() as usize / 8)
    } else {
        None
    }
}

/// Skips plain bytes from `i`: returns the index of the first rare byte, or of the first byte of a
/// tail shorter than a block, and whether any byte was skipped.
#[inline(always)]
fn skip_plain(xml: &[u8], mut i: usize, e1: u8, e2: u8) -> (usize, bool) {
    let start = i;
    // Rare bytes come in runs (`&amp;&#x41;`, multi-byte text): one look before a block's worth.
    if xml.get(i).is_some_and(|&b| is_rare(b, e1, e2)) {
        return (i, false);
    }
    while let Some(block) = xml.get(i..).and_then(|rest| rest.first_chunk::<BLOCK>()) {
        if let Some(k) = first_rare(block, e1, e2) {
            i += k;
            return (i, i != start);
        }
        i += BLOCK;
    }
    (i, i != start)
}

/// Scans the character data that starts at `start` (X4.5): up to the next `<` or the end of the
/// input. Returns the end of the run, or the offset of the first violation of X4.6–X4.8 (`xml_syntax`).
pub(super) fn scan_text(xml: &[u8], start: usize) -> Result<usize, usize> {
    // Everything before `i` is checked. The rare bytes of a block are found once, as flags, and
    // then visited in order, skipping those inside a character already read: a reference every
    // few words (as real summaries have) costs no second look at the block.
    let mut i = start;
    let mut at = start;
    while let Some(block) = xml.get(at..).and_then(|rest| rest.first_chunk::<BLOCK>()) {
        let words = rare_words(block, b'>', b'>');
        if words == [0, 0] {
            // The common case: a block of plain text.
            at += BLOCK;
            continue;
        }
        for (half, mut word) in [0, 16].into_iter().zip(words) {
            while word != 0 {
                let p = at + half + (word.trailing_zeros() / 8) as usize;
                // The flag bytes are 0 or 1: this clears the one just found.
                word &= word - 1;
                if p < i {
                    continue;
                }
                match text_rare(xml, start, p)? {
                    Step::Next(next) => i = next,
                    Step::End(end) => return Ok(end),
                }
            }
        }
        at = (at + BLOCK).max(i);
    }
    // The tail, shorter than a block.
    while let Some(&b) = xml.get(i) {
        if !is_rare(b, b'>', b'>') {
            i += 1;
            continue;
        }
        match text_rare(xml, start, i)? {
            Step::Next(next) => i = next,
            Step::End(end) => return Ok(end),
        }
    }
    Ok(i)
}

/// The flags of a block (1 for a rare byte, else 0), as two words: bytes 0–15, then 16–31.
#[inline(always)]
fn rare_words(block: &[u8; BLOCK], e1: u8, e2: u8) -> [u128; 2] {
    let mut flags = [0u8; BLOCK];
    for (flag, &b) in flags.iter_mut().zip(block) {
        *flag = u8::from(is_rare(b, e1, e2));
    }
    let lo = flags.first_chunk::<16>().map_or(0, |half| u128::from_le_bytes(*half));
    let hi = flags.last_chunk::<16>().map_or(0, |half| u128::from_le_bytes(*half));
    [lo, hi]
}

/// What a rare byte of character data means for the scan.
enum Step {
    /// Go on at this index (after the character or reference).
    Next(usize),
    /// The `<` that ends the run, at this index.
    End(usize),
}

/// The rare byte at `p` of the run that starts at `start`; `Err` is the offset of a violation.
#[inline(always)]
fn text_rare(xml: &[u8], start: usize, p: usize) -> Result<Step, usize> {
    match xml.get(p) {
        Some(b'<') => Ok(Step::End(p)),
        Some(b'>') => {
            // X4.7: `]]>`. `]` is plain in text: the two bytes before a raw `>` are raw text of
            // this run (a reference ends in `;`, never `]`), so this is exactly the detector.
            if p >= start + 2 && xml.get(p - 2..p) == Some(b"]]") {
                return Err(p - 2);
            }
            Ok(Step::Next(p + 1))
        }
        // The most frequent rare byte of real summaries: straight to the reference.
        Some(b'&') => reference(xml, p).map(|(_, len)| Step::Next(p + len)).ok_or(p),
        _ => char_at(xml, p).map(|(_, len)| Step::Next(p + len)).ok_or(p),
    }
}

/// Scans an attribute value whose opening `quote` precedes `start` (X4.11): up to the matching
/// quote, whose index is returned. A raw `<` or the end of the input is `xml_syntax`, as is any
/// violation of X4.6 or X4.8; `]]>` and `>` are allowed.
pub(super) fn scan_attribute_value(xml: &[u8], start: usize, quote: u8) -> Result<usize, usize> {
    let mut i = start;
    loop {
        i = skip_plain(xml, i, quote, quote).0;
        match xml.get(i) {
            None => return Err(i),
            Some(&b) if b == quote => return Ok(i),
            Some(b'<') => return Err(i),
            Some(_) => i += char_at(xml, i).ok_or(i)?.1,
        }
    }
}

/// The character at `i` (not `<`): a reference (X4.6) or one raw character (X4.8), as its code
/// point and its length in bytes. `None` when it is not a well-formed Char.
#[inline]
fn char_at(xml: &[u8], i: usize) -> Option<(u32, usize)> {
    match *xml.get(i)? {
        b'&' => reference(xml, i),
        b @ (b'\t' | b'\n' | b'\r' | 0x20..=0x7F) => Some((u32::from(b), 1)),
        0x80..=0xFF => utf8_char(xml, i),
        _ => None,
    }
}

/// The reference that starts with the `&` at `i` (X4.6): its code point and length, or `None`
/// when it is not one of the accepted forms or its value is not a Char (X4.8, D5).
#[inline(always)]
fn reference(xml: &[u8], i: usize) -> Option<(u32, usize)> {
    let rest = xml.get(i + 1..)?;
    // One slice pattern per name (references are on every line of real summaries): a few byte
    // compares, where a call to memcmp per reference cost more than the compare itself.
    let (len, cp) = match rest {
        [b'#', ..] => return char_reference(rest),
        [b'l', b't', b';', ..] => (3, 0x3C),
        [b'g', b't', b';', ..] => (3, 0x3E),
        [b'a', b'm', b'p', b';', ..] => (4, 0x26),
        [b'a', b'p', b'o', b's', b';', ..] => (5, 0x27),
        [b'q', b'u', b'o', b't', b';', ..] => (5, 0x22),
        _ => return None,
    };
    Some((cp, len + 1))
}

/// `rest` starts with the `#` of a character reference: `#` 1*DIGIT `;` or `#x` 1*HEXDIG `;`.
#[inline]
fn char_reference(rest: &[u8]) -> Option<(u32, usize)> {
    let hex = rest.get(1) == Some(&b'x');
    let digits_at = if hex { 2 } else { 1 };
    let mut value = 0u32;
    // Leading zeros are allowed in any number (X4.6): skipped a block at a time.
    let mut j = digits_at;
    // (Only when the number starts with a zero: most references have none to skip.)
    if rest.get(j) == Some(&b'0') {
        while rest.get(j..j + 16).is_some_and(|w| w.iter().fold(true, |all, &b| all & (b == b'0'))) {
            j += 16;
        }
    }
    while let Some(&b) = rest.get(j) {
        let digit = match b {
            b'0'..=b'9' => u32::from(b - b'0'),
            b'a'..=b'f' if hex => u32::from(b - b'a' + 10),
            b'A'..=b'F' if hex => u32::from(b - b'A' + 10),
            _ => break,
        };
        value = value * if hex { 16 } else { 10 } + digit;
        // Stop as soon as the value cannot be a code point: no overflow, however long the input.
        if value > 0x10_FFFF {
            return None;
        }
        j += 1;
    }
    if j == digits_at || rest.get(j) != Some(&b';') || !is_char(value) {
        return None;
    }
    // `&` + the digits and markers + `;`.
    Some((value, j + 2))
}

/// X4.8: U+0009, U+000A, U+000D, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF.
#[inline]
const fn is_char(cp: u32) -> bool {
    matches!(cp, 0x09 | 0x0A | 0x0D | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x1_0000..=0x10_FFFF)
}

/// Decodes the UTF-8 sequence that starts at `i` (first byte >= 0x80) and checks it is a Char.
///
/// Rejects what X4.8 rejects: stray continuation bytes, overlong forms, encoded surrogates, values
/// above U+10FFFF, truncated sequences, and the non-characters U+FFFE and U+FFFF.
#[inline]
pub(super) fn utf8_char(xml: &[u8], i: usize) -> Option<(u32, usize)> {
    let b0 = *xml.get(i)?;
    let cont = |k: usize| xml.get(i + k).copied().filter(|b| (0x80..=0xBF).contains(b)).map(|b| u32::from(b & 0x3F));
    // The allowed range of the second byte depends on the first (RFC 3629 table).
    let second =
        |lo: u8, hi: u8| xml.get(i + 1).copied().filter(|b| (lo..=hi).contains(b)).map(|b| u32::from(b & 0x3F));
    let lead = u32::from(b0);
    match b0 {
        0xC2..=0xDF => Some((((lead & 0x1F) << 6) | cont(1)?, 2)),
        0xE0..=0xEF => {
            let b1 = match b0 {
                0xE0 => second(0xA0, 0xBF)?,
                0xED => second(0x80, 0x9F)?,
                _ => second(0x80, 0xBF)?,
            };
            let cp = ((lead & 0x0F) << 12) | (b1 << 6) | cont(2)?;
            // U+FFFE and U+FFFF are the only 3-byte values that are not Chars.
            (cp < 0xFFFE).then_some((cp, 3))
        }
        0xF0..=0xF4 => {
            let b1 = match b0 {
                0xF0 => second(0x90, 0xBF)?,
                0xF4 => second(0x80, 0x8F)?,
                _ => second(0x80, 0xBF)?,
            };
            Some((((lead & 0x07) << 18) | (b1 << 12) | (cont(2)? << 6) | cont(3)?, 4))
        }
        _ => None,
    }
}

/// X4.21: whether the decoded text of `run` (character data already accepted by [`scan_text`])
/// has a character without the Unicode White_Space property. Stops at the first such character.
pub(super) fn has_non_white_space(run: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&b) = run.get(i) {
        let (cp, len) = match b {
            b'\t' | b'\n' | b'\r' | b' ' => {
                i += 1;
                continue;
            }
            b'&' | 0x80..=0xFF => match char_at(run, i) {
                Some(decoded) => decoded,
                // Unreachable for accepted text; a non-white verdict is the safe answer.
                None => return true,
            },
            _ => return true,
        };
        if !is_white_space(cp) {
            return true;
        }
        i += len;
    }
    false
}

/// The Unicode White_Space property (X4.21). CR and LF both have it, so the CR LF normalisation of
/// X4.7 never changes blankness.
const fn is_white_space(cp: u32) -> bool {
    matches!(
        cp,
        0x09..=0x0D
            | 0x20
            | 0x85
            | 0xA0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
    )
}

/// The decoded text of character data already accepted by [`scan_text`], as Go's `encoding/xml`
/// delivers it: references resolved (X4.6) and CR LF and a lone CR turned into LF (X4.7).
pub(super) fn decode_text(run: &[u8]) -> String {
    let mut out = String::with_capacity(run.len());
    let mut i = 0;
    while let Some(&b) = run.get(i) {
        match b {
            b'\r' => {
                out.push('\n');
                i += if run.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
            }
            b'&' | 0x80..=0xFF => {
                let Some((cp, len)) = char_at(run, i) else {
                    // Unreachable for accepted text.
                    break;
                };
                out.push(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
                i += len;
            }
            _ => {
                out.push(char::from(b));
                i += 1;
            }
        }
    }
    out
}
