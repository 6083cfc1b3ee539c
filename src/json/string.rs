//! JSON strings: UTF-8 (J5.3) and escape decoding with the lone-surrogate rule (J5.4).

use std::borrow::Cow;

use super::{JResult, JsonError, Span};

/// A string token as it appears in the document, between its quotes, escapes not yet decoded.
/// The grammar of its escapes has been checked by the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StringToken<'a> {
    raw: &'a [u8],
    /// Offset of the body in the document (the body is `raw`, so it ends at `start + raw.len()`),
    /// with its two flags: escaped, UTF-8 unchecked. Packed so that events stay 32 bytes: they are
    /// moved once per token.
    start: TaggedOffset,
}

/// An offset of a document and the two facts a string scan learns about a body, in one `u64`:
/// the offset in the low 62 bits, [`TaggedOffset::ESCAPED`] and [`TaggedOffset::UNCHECKED`] in the
/// top two. One word, so that a scan returns it in a register and a [`StringToken`] stays three words.
///
/// A `u64` on every target, not a `usize`: in a 32-bit `usize` (wasm) the top two bits are offsets
/// from 1 GiB (2^30) on, and a reader that kept its flags there jumped back 2^30 in longer
/// documents. No offset reaches bit 62: a 32-bit target's stop at 2^32, and a 64-bit target's would
/// need a 4 EiB document in an address space of at most 2^57 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TaggedOffset(u64);

// Offsets go into a `u64` with `as`: lossless while a `usize` has at most 64 bits.
const _: () = assert!(usize::BITS <= u64::BITS);

impl TaggedOffset {
    /// The body holds an escape.
    const ESCAPED: u64 = 1 << 63;
    /// The body may hold invalid UTF-8: it has a non-ASCII byte and its document is not known to
    /// be valid UTF-8 as a whole.
    const UNCHECKED: u64 = 1 << 62;
    const OFFSET: u64 = TaggedOffset::UNCHECKED - 1;

    #[inline(always)]
    pub(crate) const fn new(offset: usize, escaped: bool, unchecked: bool) -> TaggedOffset {
        let escaped = if escaped { TaggedOffset::ESCAPED } else { 0 };
        let unchecked = if unchecked { TaggedOffset::UNCHECKED } else { 0 };
        TaggedOffset((offset as u64 & TaggedOffset::OFFSET) | escaped | unchecked)
    }

    /// The offset, whole.
    #[inline(always)]
    pub(crate) const fn offset(self) -> usize {
        // It came from a `usize` (`new`): no bit is lost on the way back.
        (self.0 & TaggedOffset::OFFSET) as usize
    }

    #[inline(always)]
    pub(crate) const fn escaped(self) -> bool {
        self.0 & TaggedOffset::ESCAPED != 0
    }

    #[inline(always)]
    pub(crate) const fn unchecked(self) -> bool {
        self.0 & TaggedOffset::UNCHECKED != 0
    }
}

/// A string token whose UTF-8 check (J5.3) is deferred, because a later check of its decoded text
/// rejects invalid UTF-8 anyway (the summary grammar checks every character, X4.8): escapes decode
/// to whole characters, so invalid UTF-8 in the token stays in the decoded text. Its bytes can only
/// be had through [`DeferredUtf8::decode_checked`], which runs that check and, when it fails, makes
/// the J5.3 check too so that a UTF-8 error is reported first, as the rule order wants.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeferredUtf8<'a>(StringToken<'a>);

impl<'a> DeferredUtf8<'a> {
    pub(crate) const fn new(token: StringToken<'a>) -> DeferredUtf8<'a> {
        DeferredUtf8(token)
    }

    /// J5.3 now, for a path that ends here without decoding.
    pub(crate) fn check_utf8(&self) -> JResult<()> {
        self.0.check_utf8()
    }

    /// The decoded bytes once `check` accepted them. `check` must reject invalid UTF-8 (that is
    /// what makes deferring J5.3 sound); when it fails, J5.3's error (through `utf8`) wins over
    /// its own.
    pub(crate) fn decode_checked<E>(
        self,
        check: impl FnOnce(&[u8]) -> Result<(), E>,
        utf8: impl FnOnce(JsonError) -> E,
    ) -> Result<Cow<'a, [u8]>, E> {
        let text = self.0.unescape_bytes();
        if let Err(e) = check(&text) {
            self.0.check_utf8().map_err(utf8)?;
            return Err(e);
        }
        Ok(text)
    }
}

/// A string field kept after parsing: the span of its body and whether the body holds an escape,
/// packed into the top bit of the span's end ([`TEXT_ESCAPED`]), so a field stays two words and
/// nobody scans the body again to learn what the parser already knew. Its UTF-8 was checked when
/// it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct StringSpan {
    start: usize,
    end_escaped: usize,
}

/// The flag of [`StringSpan`]: the top bit of a `usize`, which no offset reaches on any target (a slice
/// holds at most `isize::MAX` bytes). Only this one bit: the next one down is an offset of a
/// 32-bit target from 1 GiB on (see [`TaggedOffset`]).
const TEXT_ESCAPED: usize = 1 << (usize::BITS - 1);

impl StringSpan {
    /// The body at `span`, which holds no escape (its UTF-8 checked by the caller).
    pub(crate) const fn plain(span: Span) -> StringSpan {
        StringSpan { start: span.start, end_escaped: span.end }
    }

    /// The body at `span`, which holds an escape (its UTF-8 checked by the caller).
    pub(crate) const fn escaped(span: Span) -> StringSpan {
        StringSpan { start: span.start, end_escaped: span.end | TEXT_ESCAPED }
    }

    /// The span of the body in the document.
    pub(crate) const fn span(self) -> Span {
        Span { start: self.start, end: self.end_escaped & !TEXT_ESCAPED }
    }

    /// Whether the body holds an escape (then it must be decoded to be read).
    pub(crate) const fn has_escapes(self) -> bool {
        self.end_escaped & TEXT_ESCAPED != 0
    }

    /// Whether the body (and so the decoded text) is empty.
    pub(crate) const fn is_empty(self) -> bool {
        self.span().is_empty()
    }

    /// The body bytes in `src`, escapes as written.
    pub(crate) fn of(self, src: &[u8]) -> &[u8] {
        self.span().of(src)
    }

    /// The decoded characters of the body (J5.4), one at a time: nothing of its size is built.
    pub(crate) fn chars(self, src: &[u8]) -> DecodedChars<'_> {
        DecodedChars { body: self.of(src), i: 0, run: "".chars() }
    }

    /// Whether two bodies of `src` decode to the same text: compared as bytes when neither holds
    /// an escape, else character by character as they are decoded.
    pub(crate) fn decodes_equal(self, other: StringSpan, src: &[u8]) -> bool {
        if !self.has_escapes() && !other.has_escapes() {
            return self.of(src) == other.of(src);
        }
        self.chars(src).eq(other.chars(src))
    }

    /// The string token again, to decode it (J5.4).
    pub(crate) fn token(self, src: &[u8]) -> StringToken<'_> {
        StringToken::new(self.start, self.of(src), self.has_escapes(), false)
    }
}

/// The characters of a body whose UTF-8 and escape grammar are valid ([`StringSpan::chars`]): raw runs
/// as they are, each escape as the character it stands for (J5.4, as [`for_each_piece`]).
pub(crate) struct DecodedChars<'a> {
    body: &'a [u8],
    /// Where the rest of the body starts, after `run`.
    i: usize,
    /// The raw run being handed out.
    run: std::str::Chars<'a>,
}

impl Iterator for DecodedChars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        loop {
            if let Some(c) = self.run.next() {
                return Some(c);
            }
            let rest = self.body.get(self.i..).filter(|rest| !rest.is_empty())?;
            if rest.first() == Some(&b'\\') {
                let (c, used) = escape_at(self.body, self.i);
                self.i += used;
                return Some(c);
            }
            let len = find_backslash(rest);
            // Checked UTF-8, and a run ends before a `\\` (ASCII): never split inside a character.
            self.run = std::str::from_utf8(rest.get(..len).unwrap_or_default()).unwrap_or_default().chars();
            self.i += len;
        }
    }
}

/// One decoded unit of a string body: a run of raw bytes or one character from an escape.
pub(crate) enum Piece<'a> {
    Raw(&'a [u8]),
    Char(char),
}

impl<'a> StringToken<'a> {
    /// The body `raw`, found at offset `start` of its document.
    pub(crate) fn new(start: usize, raw: &'a [u8], escaped: bool, unchecked: bool) -> StringToken<'a> {
        StringToken { raw, start: TaggedOffset::new(start, escaped, unchecked) }
    }

    fn start(&self) -> usize {
        self.start.offset()
    }

    /// The span of the body (between the quotes) in the document.
    pub(crate) fn span(&self) -> Span {
        Span { start: self.start(), end: self.start() + self.raw.len() }
    }

    /// The field to keep: span and escape flag (the UTF-8 check is the caller's, see [`StringSpan`]).
    pub(crate) fn text(&self) -> StringSpan {
        let span = self.span();
        StringSpan { start: span.start, end_escaped: span.end | if self.has_escapes() { TEXT_ESCAPED } else { 0 } }
    }

    /// The body bytes as written (escapes not decoded).
    pub(crate) fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Whether the body holds any escape.
    pub(crate) fn has_escapes(&self) -> bool {
        self.start.escaped()
    }

    /// Whether the body's UTF-8 is still to be checked ([`StringToken::check_utf8`] does it).
    pub(crate) fn is_unchecked(&self) -> bool {
        self.start.unchecked()
    }

    /// J5.3: the body is valid UTF-8 (escapes are ASCII, so checking the raw body suffices).
    pub(crate) fn check_utf8(&self) -> JResult<()> {
        if self.start.unchecked() && simdutf8::basic::from_utf8(self.raw).is_err() {
            // The slow validator only on failure, for the offset.
            let valid = std::str::from_utf8(self.raw).err().map_or(0, |e| e.valid_up_to());
            return Err(JsonError::invalid(self.start() + valid));
        }
        Ok(())
    }

    /// The decoded text (J5.3 checked, J5.4 applied). Borrowed when there is no escape.
    pub(crate) fn decode(&self) -> JResult<Cow<'a, str>> {
        match self.decode_bytes()? {
            Cow::Borrowed(bytes) => Ok(Cow::Borrowed(simdutf8::basic::from_utf8(bytes).unwrap_or_default())),
            // Valid: the body was valid UTF-8 and escapes decode to whole characters.
            Cow::Owned(bytes) => String::from_utf8(bytes).map(Cow::Owned).map_err(|_| JsonError::invalid(self.start())),
        }
    }

    /// The decoded text as bytes (J5.3 checked, J5.4 applied), which are always valid UTF-8: for
    /// callers that go on with bytes, this spares the check a `String` would need.
    pub(crate) fn decode_bytes(&self) -> JResult<Cow<'a, [u8]>> {
        self.check_utf8()?;
        Ok(self.unescape_bytes())
    }

    /// The body with its escapes decoded (J5.4), without the UTF-8 check: only for
    /// [`DeferredUtf8`], which proves it another way.
    fn unescape_bytes(&self) -> Cow<'a, [u8]> {
        if !self.has_escapes() {
            return Cow::Borrowed(self.raw);
        }
        Cow::Owned(unescape(self.raw))
    }

    /// Whether the decoded text is empty (escapes always decode to at least one character).
    pub(crate) fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }
}

/// Position of the first `\\` (or the length). Escapes are often close together (`\u003c`
/// runs, `\n\t` in logs), so the first eight bytes are one word (SWAR, no call); a longer run
/// (prose between line breaks) goes to `memchr`, whose vector scan wins beyond a few words.
pub(crate) fn find_backslash(bytes: &[u8]) -> usize {
    if let Some(word) = bytes.first_chunk::<8>() {
        let hit = backslashes(u64::from_le_bytes(*word));
        if hit != 0 {
            return (hit.trailing_zeros() / 8) as usize;
        }
        let rest = bytes.get(8..).unwrap_or_default();
        return 8 + memchr::memchr(b'\\', rest).unwrap_or(rest.len());
    }
    bytes.iter().position(|&b| b == b'\\').unwrap_or(bytes.len())
}

/// Bit 7 of each byte of `word` (little-endian) that may be a backslash; the lowest one set is exact.
#[inline]
fn backslashes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (ONES * u64::from(b'\\'));
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

fn hex4(bytes: &[u8]) -> u32 {
    crate::digits::hex4_value(bytes).unwrap_or(0)
}

/// Walks a string body whose escape grammar is valid, handing out raw runs and decoded escapes.
/// `\uD800`–`\uDBFF` directly followed by `\uDC00`–`\uDFFF` is one character; every other surrogate
/// escape is U+FFFD on its own (J5.4).
pub(crate) fn for_each_piece<'a>(body: &'a [u8], mut f: impl FnMut(Piece<'a>)) {
    let mut i = 0;
    while i < body.len() {
        let rest = body.get(i..).unwrap_or_default();
        let run = find_backslash(rest);
        if run > 0 {
            f(Piece::Raw(rest.get(..run).unwrap_or_default()));
            i += run;
            continue;
        }
        let (c, used) = escape_at(body, i);
        f(Piece::Char(c));
        i += used;
    }
}

/// The character of the escape at `body[i]` (a `\`) and the bytes it takes. `\uD800`–`\uDBFF`
/// directly followed by `\uDC00`–`\uDFFF` is one character; every other surrogate escape is
/// U+FFFD on its own (J5.4).
pub(crate) fn escape_at(body: &[u8], i: usize) -> (char, usize) {
    let c = match body.get(i + 1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => {
            let unit = hex4(body.get(i + 2..i + 6).unwrap_or_default());
            if (0xD800..0xDC00).contains(&unit)
                && body.get(i + 6..i + 8) == Some(b"\\u")
                && let low = hex4(body.get(i + 8..i + 12).unwrap_or_default())
                && (0xDC00..0xE000).contains(&low)
            {
                let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return (char::from_u32(c).unwrap_or('\u{FFFD}'), 12);
            }
            return (char::from_u32(unit).unwrap_or('\u{FFFD}'), 6);
        }
        // The parser admits no other escape.
        _ => '\u{FFFD}',
    };
    (c, 2)
}

/// Decodes the escapes of a body whose escape grammar is valid (J5.4): plain runs are copied whole
/// (decoded text is never longer than its body: an escape of 2, 6 or 12 bytes gives at most 1, 3
/// or 4, so the first allocation is the last).
fn unescape(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while let Some(rest) = body.get(i..).filter(|rest| !rest.is_empty()) {
        let run = find_backslash(rest);
        out.extend_from_slice(rest.get(..run).unwrap_or_default());
        i += run;
        if i >= body.len() {
            break;
        }
        let (c, used) = escape_at(body, i);
        if c.is_ascii() {
            out.push(c as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        i += used;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoding through pieces, one at a time: the reference for [`unescape`].
    fn by_pieces(body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for_each_piece(body, |piece| match piece {
            Piece::Raw(bytes) => out.extend_from_slice(bytes),
            Piece::Char(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        });
        out
    }

    #[test]
    fn unescape_agrees_with_the_pieces_at_every_offset() {
        let escapes: [&[u8]; 14] = [
            br#"\n"#,
            br#"\""#,
            br#"\\"#,
            br#"\/"#,
            br#"\b\f\r\t"#,
            br#"\u0041"#,
            br#"\u00e9"#,
            br#"\u20ac"#,
            br#"\ud83d\ude00"#,
            br#"\ud83d"#,
            br#"\ude00"#,
            br#"\ud83dx"#,
            br#"\ud83d\u0041"#,
            br#"\\\\\n"#,
        ];
        // Every offset modulo the word size, plain text of one and of two bytes per character,
        // and escapes back to back.
        for escape in escapes {
            for before in 0..20 {
                for filler in ["x", "é"] {
                    for after in [0, 1, 7, 8, 9, 20] {
                        let body =
                            [filler.repeat(before).as_bytes(), escape, escape, "y".repeat(after).as_bytes()].concat();
                        assert_eq!(unescape(&body), by_pieces(&body), "{:?}", String::from_utf8_lossy(&body));
                        // The characters one at a time ([`StringSpan::chars`]) spell the same text.
                        let text = StringSpan::escaped(Span { start: 0, end: body.len() });
                        let chars: String = text.chars(&body).collect();
                        assert_eq!(chars.as_bytes(), by_pieces(&body), "{:?}", String::from_utf8_lossy(&body));
                    }
                }
            }
        }
        assert_eq!(unescape(br#"a\nb\u00e9\ud83d\ude00\ud800"#), "a\nbé😀\u{FFFD}".as_bytes());
    }

    /// The offsets where a flag kept in a `usize` bit met the offset on some target: 2^30 and 2^31
    /// (a 32-bit target's two top bits) and 2^32 (past its last offset), each with its neighbours.
    fn boundary_offsets() -> Vec<usize> {
        let mut offsets = vec![0, 1, 1 << 29];
        for bit in [30, 31, 32, 33, 40, 61] {
            if let Some(at) = 1usize.checked_shl(bit) {
                offsets.extend([at - 1, at, at + 1]);
            }
        }
        offsets.push(usize::MAX >> 1);
        offsets.push((usize::MAX >> 1) - 1);
        // The last offsets of a 32-bit target, or the last that a 64-bit one keeps (below bit 62).
        offsets.push(usize::try_from(u32::MAX - 1).unwrap_or(usize::MAX));
        offsets.retain(|&at| (at as u64) < 1 << 62);
        offsets
    }

    /// Every offset around the boundaries, with every pair of flags, comes back whole, with its
    /// flags, from a [`TaggedOffset`] and from a [`StringToken`] (the offsets are given, not read from a
    /// document of that size, so the test is cheap on every target; on a 32-bit one, the flags
    /// once took bits 30 and 31 of the offset).
    #[test]
    fn tagged_offsets_keep_offsets_past_1_gib_with_their_flags() {
        for offset in boundary_offsets() {
            for escaped in [false, true] {
                for unchecked in [false, true] {
                    let tagged = TaggedOffset::new(offset, escaped, unchecked);
                    assert_eq!((tagged.offset(), tagged.escaped(), tagged.unchecked()), (offset, escaped, unchecked));
                    let token = StringToken::new(offset, b"x", escaped, unchecked);
                    let span = token.span();
                    assert_eq!((span.start, span.end), (offset, offset + 1), "{offset:#x}");
                    assert_eq!((token.has_escapes(), token.is_unchecked()), (escaped, unchecked), "{offset:#x}");
                    // A kept field, for the ends a slice can have (`isize::MAX` bytes at most).
                    if span.end <= isize::MAX as usize {
                        let text = token.text();
                        assert_eq!((text.span(), text.has_escapes()), (span, escaped), "{offset:#x}");
                    }
                }
            }
        }
    }

    /// A [`StringSpan`] keeps its flag in the top bit of its end: every offset a slice can hold stays
    /// whole (`isize::MAX` included).
    #[test]
    fn texts_keep_every_offset_a_slice_can_hold() {
        let ends_of_slices = boundary_offsets().into_iter().filter(|&at| at < isize::MAX as usize);
        for offset in ends_of_slices.chain([isize::MAX as usize - 1]) {
            let span = Span { start: offset, end: offset + 1 };
            assert_eq!(
                (StringSpan::plain(span).span(), StringSpan::plain(span).has_escapes()),
                (span, false),
                "{offset:#x}"
            );
            assert_eq!(
                (StringSpan::escaped(span).span(), StringSpan::escaped(span).has_escapes()),
                (span, true),
                "{offset:#x}"
            );
        }
    }

    /// Two bodies compare by their decoded text: escaped or not, equal or differing anywhere.
    #[test]
    fn decodes_equal_compares_the_text() {
        let bodies = [r"ab\u00e9", r"ab\u00e9", "abé", r"ab\u00e8", "ab", r"abé\n"];
        let mut doc = Vec::new();
        let mut spans = Vec::new();
        for body in bodies {
            doc.extend_from_slice(b"\"");
            spans.push((doc.len(), doc.len() + body.len()));
            doc.extend_from_slice(body.as_bytes());
            doc.extend_from_slice(b"\",");
        }
        let doc = doc.as_slice();
        let text = |k: usize| {
            let (start, end) = spans[k];
            let span = Span { start, end };
            if doc[start..end].contains(&b'\\') { StringSpan::escaped(span) } else { StringSpan::plain(span) }
        };
        let decoded = |k: usize| text(k).token(doc).decode().unwrap().into_owned();
        assert_eq!(decoded(0), "abé");
        assert_eq!(decoded(5), "abé\n");
        for a in 0..spans.len() {
            for b in 0..spans.len() {
                assert_eq!(text(a).decodes_equal(text(b), doc), decoded(a) == decoded(b), "{a} {b}");
            }
        }
    }
}
