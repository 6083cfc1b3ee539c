//! Character-level rules of the summary grammar: character data and attribute values (X4.5, X4.7,
//! X4.11 values), references (X4.6), the XML Char set over UTF-8 (X4.8) and White_Space (X4.21).
//!
//! Text is the bulk of every summary, so the scan is one pass that checks UTF-8, the Char set, `]]>`
//! and references together. It looks at 32 bytes at a time: the rare bytes of a block (`<`, `&`,
//! `>`, controls, non-ASCII, the closing quote of a value) are found as one bit mask by vector
//! compares ([`Lanes`]), and only they take the scalar path. Nothing here allocates.

use crate::lanes::Lanes;

/// Bytes checked per step of the fast path: one [`Lanes`] block.
const BLOCK: usize = 32;

/// Bytes of character data whose rare bytes are found as one 64-bit mask.
const WINDOW: usize = 2 * BLOCK;

/// Whether byte `b` cannot be skipped without a closer look.
///
/// Rare bytes are the C0 controls other than TAB, LF and CR (never Chars), every byte >= 0x80
/// (UTF-8 to decode), `<` and `&` (end of a run, references), and `e`: `>` in character data (for
/// `]]>`), the closing quote in an attribute value.
#[inline(always)]
fn is_rare(b: u8, e: u8) -> bool {
    // Signed compare: 0x00-0x1F and 0x80-0xFF in one test.
    let low_or_high = (b as i8) < 0x20;
    let allowed = (b == b'\t') | (b == b'\n') | (b == b'\r');
    (low_or_high & !allowed) | (b == b'<') | (b == b'&') | (b == e)
}

/// The control characters that are Chars (X4.8), as a set of [`Lanes::in_low`].
const TAB_LF_CR: u16 = 1 << b'\t' | 1 << b'\n' | 1 << b'\r';

/// Bit `k` set: byte `k` of `block` is rare ([`is_rare`]).
#[inline(always)]
pub(super) fn rare_mask(block: &[u8; BLOCK], e: u8) -> u32 {
    let v = Lanes::load(block);
    v.lt_signed(0x20).and_not(v.in_low(TAB_LF_CR)).or(v.eq(b'<')).or(v.eq(b'&')).or(v.eq(e)).mask()
}

/// [`rare_mask`] of character data (`e`: `>`) with the control characters that are Chars (TAB,
/// LF, CR: [`is_allowed_control`]) marked too, in fewer compares: for a walk that skips them
/// ([`scan_text`]) or counts the line feeds (the streaming validator's window). `<` (0x3C) and `>`
/// (0x3E) differ in bit 1 only, and no other byte gives 0x3E with that bit set: one compare.
#[inline(always)]
pub(super) fn rare_or_control_mask(block: &[u8; BLOCK]) -> u32 {
    let v = Lanes::load(block);
    v.lt_signed(0x20).or(v.or_byte(0x02).eq(b'>')).or(v.eq(b'&')).mask()
}

/// TAB, LF and CR: the control characters that are Chars (X4.8), the ones [`is_rare`] skips.
#[inline(always)]
pub(super) const fn is_allowed_control(b: u8) -> bool {
    b < 16 && TAB_LF_CR >> b & 1 == 1
}

/// Skips plain bytes from `i`: returns the index of the first rare byte, or of the first byte of a
/// tail shorter than a block.
#[inline(always)]
fn skip_plain(xml: &[u8], mut i: usize, e: u8) -> usize {
    // Rare bytes come in runs (`&amp;&#x41;`, multi-byte text): one look before a block's worth.
    if xml.get(i).is_some_and(|&b| is_rare(b, e)) {
        return i;
    }
    while let Some(block) = xml.get(i..).and_then(|rest| rest.first_chunk::<BLOCK>()) {
        let mask = rare_mask(block, e);
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += BLOCK;
    }
    i
}

/// Scans the character data that starts at `start` (X4.5): up to the next `<` or the end of the
/// input. Returns the end of the run, or the offset of the first violation of X4.6–X4.8 (`xml_syntax`).
pub(super) fn scan_text(xml: &[u8], start: usize) -> Result<usize, usize> {
    // Everything before `i` is checked. The rare bytes of a block are found once, as a mask, and
    // then visited in order, skipping those inside a character already read: a reference every
    // few words (as real summaries have) costs no second look at the block.
    let mut i = start;
    let mut at = start;
    while let Some(window) = xml.get(at..).and_then(|rest| rest.first_chunk::<WINDOW>()) {
        let (lo, hi) = window.split_at(BLOCK);
        // The rare bytes with TAB, LF and CR, which the walk skips: fewer compares than leaving
        // them out of the mask, and summaries have a line feed every few dozen bytes.
        let half = |h: &[u8]| <&[u8; BLOCK]>::try_from(h).map_or(0, |block| u64::from(rare_or_control_mask(block)));
        // The bytes before `i` are done: a character that began in an earlier window.
        let mut mask = (half(lo) | half(hi) << BLOCK) & after(i - at);
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            let p = at + k;
            let b = window.get(k).copied().unwrap_or_default();
            if is_allowed_control(b) {
                mask &= mask - 1;
                continue;
            }
            if b == b'&'
                && let Some(w) = xml.get(p + 1..p + 9).and_then(|w| <[u8; 8]>::try_from(w).ok())
                && reference_len_in_word(u64::from_le_bytes(w)).is_some()
            {
                // A reference's bytes (`#`, `x`, letters, digits, `;`) are never rare: no bit of
                // the mask, in this window or the next, is inside it.
                mask &= mask - 1;
                continue;
            }
            match text_rare(xml, start, p)? {
                Step::Next(next) => i = next,
                Step::End(end) => return Ok(end),
            }
            mask &= after(i - at);
        }
        // The next window does not wait for this one's references: its start is fixed, so the
        // processor finds its rare bytes while the references above are still being read. Only a
        // reference longer than a window (leading zeros) moves it, by a branch, not a data
        // dependency: a call the compiler cannot turn into a conditional move.
        at += WINDOW;
        if i > at {
            at = past_long_reference(i);
        }
        i = i.max(at);
    }
    // The tail, shorter than a window.
    scan_text_bytewise(xml, start, i)
}

/// [`scan_text`] from `i` (everything before it checked) one byte at a time: the last bytes of the
/// input.
fn scan_text_bytewise(xml: &[u8], start: usize, mut i: usize) -> Result<usize, usize> {
    while let Some(&b) = xml.get(i) {
        if !is_rare(b, b'>') {
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

/// Where the scan goes on after a reference that ended at `i`, beyond the next window's start.
///
/// A compiler trick, not a function: it returns its argument. Cold and never inlined, it makes the
/// move past a long reference in [`scan_text`] a branch around a call, which the compiler cannot
/// turn into a conditional move; inlined (or replaced by `i`), every window's start would wait for
/// the references of the window before it. Keep it as it is.
#[cold]
#[inline(never)]
fn past_long_reference(i: usize) -> usize {
    i
}

/// The bits of a window's mask from `k` up: the bytes from offset `k` on (none for `k >= 64`).
#[inline(always)]
pub(super) fn after(k: usize) -> u64 {
    u32::try_from(k).ok().and_then(|k| u64::MAX.checked_shl(k)).unwrap_or(0)
}

/// What a rare byte of character data means for the scan.
pub(super) enum Step {
    /// Go on at this index (after the character or reference).
    Next(usize),
    /// The `<` that ends the run, at this index.
    End(usize),
}

/// The rare byte at `p` of the run that starts at `start`; `Err` is the offset of a violation.
#[inline(always)]
pub(super) fn text_rare(xml: &[u8], start: usize, p: usize) -> Result<Step, usize> {
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
        Some(b'&') => reference_len(xml, p).map(|len| Step::Next(p + len)).ok_or(p),
        Some(0x80..=0xFF) => utf8_char(xml, p).map(|(_, len)| Step::Next(p + len)).ok_or(p),
        // A control byte, never a Char (X4.8).
        _ => Err(p),
    }
}

/// Eight bytes as the little-endian word [`reference_len`] compares with (`s` at most 8 bytes).
const fn word(s: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut k = s.len();
    while k > 0 {
        k -= 1;
        #[allow(clippy::indexing_slicing)] // k < s.len(); a const fn cannot call `get` here
        {
            w = w << 8 | s[k] as u64;
        }
    }
    w
}

/// The length of the reference that starts with the `&` at `i`, as [`reference`] would give it,
/// or `None` when it is not one. The scan's path: the eight bytes after the `&` are one word, so a
/// name is one masked compare, and a character reference whose `;` is among them is read by
/// [`char_reference_in_word`] without a loop. Anything else (the last bytes of the input, long
/// numbers, leading zeros, every invalid reference) goes to [`reference`], which decides.
#[inline(always)]
fn reference_len(xml: &[u8], i: usize) -> Option<usize> {
    let Some(w) = xml.get(i + 1..i + 9).and_then(|w| <[u8; 8]>::try_from(w).ok()).map(u64::from_le_bytes) else {
        return reference_len_slow(xml, i);
    };
    match reference_len_in_word(w) {
        Some(len) => Some(len),
        None => reference_len_slow(xml, i),
    }
}

/// `w`: the eight bytes after an `&`, as a little-endian word. When they hold a whole reference
/// that [`reference`] accepts, its length from the `&`; `None` when they do not (an invalid
/// reference, or a valid one longer than the word: leading zeros), and the caller decides the
/// long way. The streaming validator completes a reference cut by a chunk's end with it.
#[inline(always)]
pub(super) fn reference_len_in_word(w: u64) -> Option<usize> {
    const B3: u64 = 0xFF_FFFF;
    const B4: u64 = 0xFFFF_FFFF;
    const B5: u64 = 0xFF_FFFF_FFFF;
    if let Some(len) = char_reference_in_word(w) {
        Some(len)
    } else if w & B3 == word(b"lt;") || w & B3 == word(b"gt;") {
        Some(4)
    } else if w & B4 == word(b"amp;") {
        Some(5)
    } else if w & B5 == word(b"apos;") || w & B5 == word(b"quot;") {
        Some(6)
    } else {
        None
    }
}

/// [`reference`]'s length, out of line: the references [`reference_len`] does not read from its
/// word are rare (the last bytes of the input, long numbers, invalid references), and inlined, the
/// long path's registers crowd the scan's loop (on wasm the engine's register allocator spills the
/// loop's mask to the stack).
#[cold]
#[inline(never)]
fn reference_len_slow(xml: &[u8], i: usize) -> Option<usize> {
    reference(xml, i).map(|(_, len)| len)
}

/// `w`: the eight bytes after an `&`. When they hold a whole valid character reference (`#`
/// digits `;` or `#x` hex digits `;`, X4.6, with a Char value, X4.8), its length from the `&`;
/// otherwise `None`, and the caller reads the reference the long way.
///
/// The digits are read from the word in a register, one shift per digit, their values from a
/// table. (A branch-free SWAR parse of the whole word was measured too: on references of two to
/// four digits, its fixed fifty instructions cost more than this loop.)
#[inline(always)]
fn char_reference_in_word(w: u64) -> Option<usize> {
    if w as u8 != b'#' {
        return None;
    }
    let hex = (w >> 8) as u8 == b'x';
    let skip = if hex { 2 } else { 1 };
    let base = if hex { 16 } else { 10 };
    let mut value = 0u32;
    let mut k = skip;
    let mut rest = w >> (8 * skip);
    while k < 8 {
        let digit = u32::from(crate::digits::DIGIT_VALUE.get(usize::from(rest as u8)).copied().unwrap_or(0xFF));
        if digit >= base {
            break;
        }
        value = value * base + digit;
        rest >>= 8;
        k += 1;
    }
    (k > skip && k < 8 && rest as u8 == b';' && is_char(value)).then_some(1 + k + 1)
}

/// Scans an attribute value whose opening `quote` precedes `start` (X4.11): up to the matching
/// quote, whose index is returned. A raw `<` or the end of the input is `xml_syntax`, as is any
/// violation of X4.6 or X4.8; `]]>` and `>` are allowed.
pub(super) fn scan_attribute_value(xml: &[u8], start: usize, quote: u8) -> Result<usize, usize> {
    let mut i = start;
    loop {
        i = skip_plain(xml, i, quote);
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
pub(super) const fn is_char(cp: u32) -> bool {
    matches!(cp, 0x09 | 0x0A | 0x0D | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x1_0000..=0x10_FFFF)
}

/// Decodes the UTF-8 sequence that starts at `i` (first byte >= 0x80) and checks it is a Char.
///
/// Rejects what X4.8 rejects: stray continuation bytes, overlong forms, encoded surrogates, values
/// above U+10FFFF, truncated sequences, and the non-characters U+FFFE and U+FFFF.
#[inline]
pub(crate) fn utf8_char(xml: &[u8], i: usize) -> Option<(u32, usize)> {
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
pub(crate) const fn is_white_space(cp: u32) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan's reference reader ([`reference_len`], a word at a time) against the long one
    /// ([`reference`], byte by byte), on every reference shape: names, decimal and hex numbers of
    /// every length with and without leading zeros and in both cases, values around the Char
    /// ranges, bad digits, a missing `;`, and each of them cut short by the end of the input.
    #[test]
    fn reference_len_agrees_with_reference() {
        let mut bodies: Vec<Vec<u8>> = Vec::new();
        for name in ["lt;", "gt;", "amp;", "apos;", "quot;", "lt", "amp", "ampx;", "quo;", "Lt;", "#;", "#x;", "#X41;"]
        {
            bodies.push(name.as_bytes().to_vec());
        }
        let values = [
            0u32, 8, 9, 0xA, 0xB, 0xD, 0x1F, 0x20, 0x41, 0x7F, 0x80, 0x2014, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFD,
            0xFFFE, 0xFFFF, 0x1_0000, 0x1_F600, 0x10_FFFF, 0x11_0000, 0xFF_FFFF, 999_999, 1_000_000, 9_999_999,
        ];
        for &v in &values {
            for zeros in [0, 1, 2, 5, 9, 20] {
                let z = "0".repeat(zeros);
                bodies.push(format!("#{z}{v};").into_bytes());
                bodies.push(format!("#x{z}{v:x};").into_bytes());
                bodies.push(format!("#x{z}{v:X};").into_bytes());
                bodies.push(format!("#{z}{v}").into_bytes());
                bodies.push(format!("#x{z}{v:x}g;").into_bytes());
                bodies.push(format!("#{z}{v}a;").into_bytes());
            }
        }
        // Every byte after `#`, `#x` and one digit, so that each class boundary is crossed.
        for b in 0..=255u8 {
            for prefix in [&b"#"[..], b"#x", b"#1", b"#x1", b"#x1F"] {
                let mut body = prefix.to_vec();
                body.push(b);
                body.push(b';');
                bodies.push(body);
            }
        }
        for body in &bodies {
            // The reference followed by text (the word path) and cut at every length (the end of
            // the input inside or right after it).
            let mut full = vec![b'&'];
            full.extend_from_slice(body);
            full.extend_from_slice(b" and more text");
            for end in 1..=full.len() {
                let xml = full.get(..end).unwrap();
                let expected = reference(xml, 0).map(|(_, len)| len);
                assert_eq!(reference_len(xml, 0), expected, "{:?}", String::from_utf8_lossy(xml));
            }
        }
    }

    /// The streaming window's mask is the scan's rare bytes of character data with TAB, LF and CR,
    /// for every byte value in every lane.
    #[test]
    fn rare_or_control_mask_is_the_rare_bytes_and_the_allowed_controls() {
        for rotate in [0u8, 7, 19] {
            for k in 0..8u8 {
                let block: [u8; BLOCK] = core::array::from_fn(|j| (k * 32 + j as u8).wrapping_add(rotate));
                let expected = block.iter().enumerate().fold(0u32, |m, (j, &b)| {
                    let marked = is_rare(b, b'>') || matches!(b, b'\t' | b'\n' | b'\r');
                    m | u32::from(marked) << j
                });
                assert_eq!(rare_or_control_mask(&block), expected, "block {k} rotated {rotate}");
            }
        }
        for b in 0..=255u8 {
            assert_eq!(is_allowed_control(b), matches!(b, b'\t' | b'\n' | b'\r'), "{b:#x}");
        }
    }

    /// [`scan_text`] (64-byte windows, masks, references read across window ends) against the byte
    /// loop, on 40,000 random runs of every piece real and hostile text has: prose, white space,
    /// references of every kind (long ones spanning windows included), `]]>` and its near misses,
    /// multi-byte and broken UTF-8, control bytes, and the `<` that ends the run.
    #[test]
    fn scan_text_agrees_with_the_byte_loop() {
        let long_zeros = format!("&#{}65;", "0".repeat(150));
        let pieces: [&[u8]; 24] = [
            b"plain words ",
            b"x",
            b" ",
            b"\n",
            b"\t",
            b"\r\n",
            b"&amp;",
            b"&lt;",
            b"&#x2014;",
            b"&#128512;",
            b"&#x0000041;",
            long_zeros.as_bytes(),
            b"&bogus;",
            b"&#xD800;",
            b"&",
            b"]]>",
            b"]]",
            b"]>",
            b">",
            "\u{e9}\u{4e2d}\u{1f600}".as_bytes(),
            b"\xC3",
            b"\xFF",
            b"\x01",
            b"<",
        ];
        let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1Du64);
        for _ in 0..40_000 {
            let mut xml = Vec::new();
            let len = (next() % 400) as usize;
            while xml.len() < len {
                // Rare pieces rarely, so that most runs are long enough to cross windows.
                let k = next() as usize % 100;
                let piece = if k < 60 { pieces[0] } else { pieces[k % pieces.len()] };
                xml.extend_from_slice(piece);
            }
            let start = (next() % 3) as usize;
            if start > xml.len() {
                continue;
            }
            assert_eq!(
                scan_text(&xml, start),
                scan_text_bytewise(&xml, start, start),
                "{:?}",
                String::from_utf8_lossy(&xml)
            );
        }
    }
}
