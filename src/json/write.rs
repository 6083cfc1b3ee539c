//! The canonical JSON writer shared by the input encoding (SPEC §7.1) and the request fingerprint
//! (R10.5): strings per E7.6, raw values per E7.7, integers per E7.8.
//!
//! serde_json's serializer escapes neither `<`, `>`, `&` nor U+2028/U+2029 and has no `\b`/`\f`
//! short forms, so the bytes are written here.

use crate::json::string::escape_at;
#[cfg(any(test, fuzzing))]
use crate::json::string::{Piece, for_each_piece};
use crate::lanes::Lanes;

/// Where canonical bytes go: a buffer, or a counter when only the length matters (fitting, F7.3).
pub(crate) trait Sink {
    fn put(&mut self, bytes: &[u8]);

    /// `count` copies of `bytes` in a row, as `count` calls of [`Sink::put`] write them. For a
    /// sink that can do better with a long repetition (a run of one escaped character).
    fn put_repeated(&mut self, bytes: &[u8], count: usize) {
        for _ in 0..count {
            self.put(bytes);
        }
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A sink over a caller's buffer. Bytes past its end are counted and dropped, never written: once
/// one write does not fit, no later one does either, so what is written is always a prefix.
pub(crate) struct SliceSink<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> SliceSink<'b> {
    pub(crate) fn new(buf: &'b mut [u8]) -> SliceSink<'b> {
        SliceSink { buf, len: 0 }
    }

    /// Bytes put so far, written or not.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        if let Some(dst) = self.buf.get_mut(self.len..self.len + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
        self.len += bytes.len();
    }
}

/// A sink that only counts bytes.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Counter(pub(crate) usize);

impl Sink for Counter {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

// E7.6, the escape set, declared once: every ASCII byte's escape is in [`ESCAPES`]; beyond ASCII
// only U+2028 and U+2029 are escaped, as [`SEPARATORS`] writes them. The scans of the writer
// (`needs_escape`, `special_bytes`, `escape_mask`, `put_raw`) look for the bytes of [`LOOKED_AT`]
// and the control bytes; [`canonical_escape_len`] accepts exactly the escapes these tables write.
// A compile-time check below ties [`LOOKED_AT`] to [`ESCAPES`].

/// The bytes of text other than the control bytes that E7.6 escapes or may escape: the printable
/// ASCII bytes [`ESCAPES`] escapes, and 0xE2, the first byte of U+2028 and U+2029.
const LOOKED_AT: [u8; 6] = [b'"', b'\\', b'<', b'>', b'&', SEPARATOR_LEAD];

/// The first byte of U+2028 and U+2029 (and of other characters, which are not escaped).
pub(crate) const SEPARATOR_LEAD: u8 = 0xE2;

/// U+2028 and U+2029 in UTF-8, and their escapes: the characters beyond ASCII that E7.6 escapes.
const SEPARATORS: [([u8; 3], &[u8; 6]); 2] = [([0xE2, 0x80, 0xA8], b"\\u2028"), ([0xE2, 0x80, 0xA9], b"\\u2029")];

// Every control byte, and exactly the ASCII bytes of `LOOKED_AT` above them, have an escape.
#[allow(clippy::indexing_slicing)] // Evaluated at compile time.
const _: () = {
    let mut i = 0;
    while i < 128 {
        let mut looked_at = i < 0x20;
        let mut k = 0;
        while k < LOOKED_AT.len() {
            looked_at |= LOOKED_AT[k] as usize == i;
            k += 1;
        }
        assert!(looked_at == (ESCAPES[i][7] != 1), "LOOKED_AT and ESCAPES disagree");
        i += 1;
    }
    let mut k = 0;
    while k < SEPARATORS.len() {
        assert!(SEPARATORS[k].0[0] == SEPARATOR_LEAD);
        k += 1;
    }
};

/// Whether a byte of plain text needs a look: a control byte or one of [`LOOKED_AT`].
#[inline]
fn needs_escape(b: u8) -> bool {
    b < 0x20 || is_looked_at(b)
}

/// Whether `b` is one of [`LOOKED_AT`]: six compares, unrolled (`contains` would call `memchr`).
#[inline(always)]
fn is_looked_at(b: u8) -> bool {
    LOOKED_AT.iter().fold(false, |m, &c| m | (b == c))
}

/// The escape of U+2028 or U+2029 when `text` starts with one of them.
#[inline]
fn separator_escape(text: &[u8]) -> Option<&'static [u8; 6]> {
    SEPARATORS.iter().find(|(utf8, _)| text.starts_with(utf8)).map(|&(_, escape)| escape)
}

/// Whether `text` starts with U+2028 or U+2029, the characters beyond ASCII E7.6 escapes.
#[inline]
pub(crate) fn starts_with_separator(text: &[u8]) -> bool {
    separator_escape(text).is_some()
}

/// The lanes of `v` that hold a byte of [`LOOKED_AT`].
#[inline(always)]
fn looked_at(v: Lanes) -> Lanes {
    LOOKED_AT.iter().fold(v.eq(SEPARATOR_LEAD), |m, &c| m.or(v.eq(c)))
}

/// The length of the escape at the start of `s` (a `\\`) when it is the one E7.6 writes for its
/// character (from [`ESCAPES`] and [`SEPARATORS`], so `\\u` in lower-case hex); `None` otherwise.
#[inline]
pub(crate) fn canonical_escape_len(s: &[u8]) -> Option<usize> {
    let second = *s.get(1)?;
    if second != b'u' {
        return (SHORT_ESCAPED.get(usize::from(second)) == Some(&true)).then_some(2);
    }
    let escape = s.get(..6)?;
    let code = escape.get(2..)?.iter().try_fold(0u32, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))?;
    let written: &[u8] = match ESCAPES.get(code as usize) {
        Some(ascii) => ascii.get(..usize::from(ascii[7])).unwrap_or_default(),
        None => SEPARATORS.iter().map(|(_, e)| &e[..]).find(|e| *e == escape).unwrap_or_default(),
    };
    (written == escape).then_some(6)
}

/// Per ASCII byte `c`: whether `\\c` is a short escape [`ESCAPES`] writes.
static SHORT_ESCAPED: [bool; 128] = short_escaped();

#[allow(clippy::indexing_slicing)] // Evaluated at compile time.
const fn short_escaped() -> [bool; 128] {
    let mut table = [false; 128];
    let mut i = 0;
    while i < 128 {
        if ESCAPES[i][7] == 2 {
            table[ESCAPES[i][1] as usize] = true;
        }
        i += 1;
    }
    table
}

/// The bytes of the word `x` (little-endian) that [`needs_escape`], as their high bits: SWAR, eight
/// bytes per step. The lowest flagged byte is exact (a borrow only runs upwards), which is all a
/// scan needs; bytes above it may be flagged falsely.
#[inline]
fn special_bytes(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |y: u64| y.wrapping_sub(ONES) & !y;
    let eq = |c: u8| zero(x ^ (ONES * u64::from(c)));
    let control = x.wrapping_sub(ONES * 0x20) & !x;
    LOOKED_AT.iter().fold(control, |m, &c| m | eq(c)) & HIGH
}

/// Bit `k` set: byte `k` of `block` [`needs_escape`], by vector compares ([`Lanes`]).
#[inline(always)]
pub(crate) fn escape_mask(block: &[u8; 32]) -> u32 {
    let v = Lanes::load(block);
    looked_at(v).or(v.le(0x1F)).mask()
}

/// Length of the leading run of `bytes` that is copied verbatim: 32 bytes per step as one bit mask,
/// then sixteen (SWAR) for the rest, which is all of most strings.
#[inline]
pub(crate) fn unescaped_len(bytes: &[u8]) -> usize {
    let mut done = 0;
    let mut rest = bytes;
    while let Some((block, tail)) = rest.split_first_chunk::<32>() {
        let mask = escape_mask(block);
        if mask != 0 {
            return done + mask.trailing_zeros() as usize;
        }
        done += 32;
        rest = tail;
    }
    while let Some((pair, tail)) = rest.split_first_chunk::<16>() {
        let (lo, hi) = pair.split_at(8);
        let lo = special_bytes(u64::from_le_bytes(lo.try_into().unwrap_or_default()));
        let hi = special_bytes(u64::from_le_bytes(hi.try_into().unwrap_or_default()));
        if lo | hi != 0 {
            let at = if lo != 0 { lo.trailing_zeros() } else { 64 + hi.trailing_zeros() };
            return done + (at / 8) as usize;
        }
        done += 16;
        rest = tail;
    }
    done + rest.iter().position(|&b| needs_escape(b)).unwrap_or(rest.len())
}

/// Writes the body of valid UTF-8 text with the E7.6 escapes (no quotes), a run or a byte at a
/// time: the rule [`put_body`]'s one walk is held equal to (tests and fuzzing only).
#[cfg(any(test, fuzzing))]
fn put_text_body<S: Sink>(out: &mut S, text: &[u8]) {
    // Most strings need no escape at all: no buffer for them.
    let first = unescaped_len(text);
    if first >= text.len() {
        out.put(text);
        return;
    }
    let mut escapes = Escapes { buf: [0; 256], len: 0 };
    let mut rest = text;
    loop {
        let run = unescaped_len(rest);
        let (plain, tail) = rest.split_at(run.min(rest.len()));
        if !plain.is_empty() {
            escapes.flush(out);
            out.put(plain);
        }
        rest = tail;
        // A run of bytes that need a look, one at a time, until a plain byte (or the end).
        while let Some(&b) = rest.first() {
            if !needs_escape(b) {
                break;
            }
            if b == SEPARATOR_LEAD {
                // Only U+2028 and U+2029 among the characters starting with 0xE2 are escaped.
                match separator_escape(rest) {
                    Some(escape) => escapes.push(out, escape),
                    None => {
                        escapes.push(out, &[b]);
                        rest = rest.get(1..).unwrap_or_default();
                        continue;
                    }
                }
                rest = rest.get(3..).unwrap_or_default();
            } else {
                let n = escapes.push_run(out, rest, b);
                rest = rest.get(n..).unwrap_or_default();
            }
        }
        if rest.is_empty() {
            escapes.flush(out);
            return;
        }
    }
}

/// Bytes of one escaped ASCII byte in a row from which [`put_repeated_escape`] takes over.
const REPEAT_BLOCK: usize = 32;

/// Writes the escapes of `n` copies of the ASCII byte `b` (one that needs an escape): whole blocks of
/// [`REPEAT_BLOCK`] escapes per sink call, the rest through `escapes`.
#[cold]
fn put_repeated_escape<S: Sink, const N: usize>(out: &mut S, escapes: &mut Escapes<N>, b: u8, n: usize) {
    let Some(escape) = ESCAPES.get(usize::from(b)) else { return };
    let len = usize::from(escape[7]).max(1);
    let mut block = [0u8; 8 * REPEAT_BLOCK];
    for chunk in block.chunks_exact_mut(len).take(REPEAT_BLOCK) {
        chunk.copy_from_slice(escape.get(..len).unwrap_or_default());
    }
    let block = block.get(..len * REPEAT_BLOCK).unwrap_or_default();
    escapes.flush(out);
    out.put_repeated(block, n / REPEAT_BLOCK);
    for _ in 0..n % REPEAT_BLOCK {
        escapes.push_ascii(out, b);
    }
}

/// Escapes waiting to be written (see [`put_text_body`]).
struct Escapes<const N: usize = 256> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Escapes<N> {
    /// The escape of an ASCII byte from [`ESCAPES`]: eight bytes copied, its length kept.
    #[inline]
    fn push_ascii<S: Sink>(&mut self, out: &mut S, b: u8) {
        let Some(escape) = ESCAPES.get(usize::from(b)) else { return };
        if self.len + 8 > self.buf.len() {
            self.flush(out);
        }
        if let Some(slot) = self.buf.get_mut(self.len..self.len + 8) {
            slot.copy_from_slice(escape);
            self.len += usize::from(escape[7]);
        }
    }

    /// The escapes of the run of `b` (an ASCII byte with an escape) at the start of `text`;
    /// returns its length. A long run (a text of `<`) goes out [`REPEAT_BLOCK`] escapes at a
    /// time; mostly the byte is alone (a `\n`, a `<`), and the block search is for the long runs.
    #[inline]
    fn push_run<S: Sink>(&mut self, out: &mut S, text: &[u8], b: u8) -> usize {
        let n = if text.get(1) == Some(&b) { crate::lanes::run_of(text, b) } else { 1 };
        if n >= REPEAT_BLOCK {
            put_repeated_escape(out, self, b, n);
        } else {
            for _ in 0..n {
                self.push_ascii(out, b);
            }
        }
        n
    }

    #[inline]
    fn push<S: Sink>(&mut self, out: &mut S, bytes: &[u8]) {
        if self.len + bytes.len() > self.buf.len() {
            self.flush(out);
        }
        if let Some(slot) = self.buf.get_mut(self.len..self.len + bytes.len()) {
            slot.copy_from_slice(bytes);
            self.len += bytes.len();
        }
    }

    /// E7.6 of one character: the escape of an ASCII one ([`Escapes::push_ascii`]), `\u2028` and
    /// `\u2029` escaped, any other as its UTF-8 bytes (four copied, its length kept).
    #[inline]
    fn push_char<S: Sink>(&mut self, out: &mut S, c: char) {
        match c {
            _ if c.is_ascii() => self.push_ascii(out, c as u8),
            _ => {
                let mut utf8 = [0; 4];
                let len = c.encode_utf8(&mut utf8).len();
                if let Some(escape) = separator_escape(&utf8) {
                    return self.push(out, escape);
                }
                if self.len + 4 > self.buf.len() {
                    self.flush(out);
                }
                if let Some(slot) = self.buf.get_mut(self.len..self.len + 4) {
                    slot.copy_from_slice(&utf8);
                    self.len += len;
                }
            }
        }
    }

    #[inline]
    fn flush<S: Sink>(&mut self, out: &mut S) {
        if self.len > 0 {
            out.put(self.buf.get(..self.len).unwrap_or_default());
            self.len = 0;
        }
    }
}

/// The E7.6 escape of each ASCII byte, as up to six bytes and their count in the last byte: a short
/// escape, `\u00XX` for the other control bytes and `<`, `>`, `&`, or the byte itself.
static ESCAPES: [[u8; 8]; 128] = escape_table();

// Evaluated at compile time: an index out of range would not compile.
#[allow(clippy::indexing_slicing)]
const fn escape_table() -> [[u8; 8]; 128] {
    const fn hex(d: u8) -> u8 {
        if d < 10 { b'0' + d } else { b'a' + d - 10 }
    }
    let mut table = [[0u8; 8]; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        table[i] = match b {
            b'"' => [b'\\', b'"', 0, 0, 0, 0, 0, 2],
            b'\\' => [b'\\', b'\\', 0, 0, 0, 0, 0, 2],
            b'\n' => [b'\\', b'n', 0, 0, 0, 0, 0, 2],
            b'\r' => [b'\\', b'r', 0, 0, 0, 0, 0, 2],
            b'\t' => [b'\\', b't', 0, 0, 0, 0, 0, 2],
            0x08 => [b'\\', b'b', 0, 0, 0, 0, 0, 2],
            0x0C => [b'\\', b'f', 0, 0, 0, 0, 0, 2],
            0x00..=0x1F | b'<' | b'>' | b'&' => [b'\\', b'u', b'0', b'0', hex(b >> 4), hex(b & 15), 0, 6],
            _ => [b, 0, 0, 0, 0, 0, 0, 1],
        };
        i += 1;
    }
    table
}

/// E7.6: a string from its decoded text.
pub(crate) fn put_str<S: Sink>(out: &mut S, text: &str) {
    out.put(b"\"");
    put_body(out, text.as_bytes(), false);
    out.put(b"\"");
}

/// E7.6: a string from the body of a JSON string token (escapes as written, UTF-8 checked):
/// escapes are decoded (J5.4) and the text re-escaped canonically, in one pass ([`put_body`]).
/// `escaped` is false when the body holds no escape (the parser said so, see `json::StringSpan`):
/// it is plain text.
pub(crate) fn put_json_str<S: Sink>(out: &mut S, body: &[u8], escaped: bool) {
    out.put(b"\"");
    put_body(out, body, escaped);
    out.put(b"\"");
}

/// E7.6 of a string body (no quotes) in one pass: `escaped`, the body of a JSON string token
/// (escape grammar valid, UTF-8 checked), whose escapes are decoded (J5.4) and the text
/// re-escaped; otherwise plain UTF-8 text.
///
/// Most bodies are written as they stand ([`kept_len`]): plain bytes, escapes E7.6 writes the same
/// (`\n`, `\u003c`), characters led by 0xE2 other than U+2028 and U+2029. The others go through
/// [`put_body_rest`]. The plain rules are [`put_text_body`] for text and [`put_escaped_body_plain`]
/// for an escaped body; `tests::one_pass_writer_agrees_with_the_plain_rules` holds them equal.
#[inline]
fn put_body<S: Sink>(out: &mut S, body: &[u8], escaped: bool) {
    let kept = kept_len(body, escaped);
    if kept >= body.len() {
        out.put(body);
    } else {
        put_body_rest(out, body, kept, escaped);
    }
}

/// The block of `body` at `base`: its next 32 bytes, or a copy of the last ones padded with a byte
/// that needs no look (`pad`, the copy's room).
#[inline(always)]
fn block_at<'a>(body: &'a [u8], base: usize, pad: &'a mut [u8; 32]) -> &'a [u8; 32] {
    match body.get(base..base + 32).and_then(|b| <&[u8; 32]>::try_from(b).ok()) {
        Some(block) => block,
        None => {
            let tail = body.get(base..).unwrap_or_default();
            if let Some(head) = pad.get_mut(..tail.len()) {
                head.copy_from_slice(tail);
            }
            pad
        }
    }
}

/// The bytes at the start of `rest` (a byte [`escape_mask`] marks) that E7.6 writes as they stand:
/// an escape it writes the same (in an `escaped` body), a character led by 0xE2 other than U+2028
/// and U+2029; `None` for bytes it replaces.
#[inline(always)]
fn kept_at(rest: &[u8], escaped: bool) -> Option<usize> {
    match rest.first() {
        Some(b'\\') if escaped => canonical_escape_len(rest),
        Some(&SEPARATOR_LEAD) => (!starts_with_separator(rest)).then_some(1),
        _ => None,
    }
}

/// The walk of [`kept_len`] and [`put_body_rest`] from `body[start]` (a character's start): the
/// bytes [`escape_mask`] marks, 32 bytes per step as one bit mask whose set bits are visited in
/// turn, those E7.6 writes as they stand ([`kept_at`]) passed over, and for each other one at `p`,
/// `replaced(p)`: the bytes it took, or `None` to stop there. Returns where it stopped, or the
/// length of `body`.
#[inline(always)]
fn walk(body: &[u8], start: usize, escaped: bool, mut replaced: impl FnMut(usize) -> Option<usize>) -> usize {
    let mut base = start;
    while base < body.len() {
        let mut pad = [b'a'; 32];
        let mut mask = escape_mask(block_at(body, base, &mut pad));
        let mut next = base + 32;
        while mask != 0 {
            let p = base + mask.trailing_zeros() as usize;
            let len = match kept_at(body.get(p..).unwrap_or_default(), escaped) {
                Some(len) => len,
                None => match replaced(p) {
                    Some(len) => len,
                    None => return p,
                },
            };
            next = p + len;
            let k = next - base;
            if k >= 32 {
                break;
            }
            mask &= u32::MAX << k;
            next = base + 32;
        }
        // The next block: after this one, or after what was read past its end.
        base = next;
    }
    body.len()
}

/// Length of the leading stretch of `body` that E7.6 writes as it stands ([`kept_at`]), ending at a
/// character's start and never inside an escape.
#[inline]
fn kept_len(body: &[u8], escaped: bool) -> usize {
    walk(body, 0, escaped, |_| None)
}

/// [`put_body`] from `body[first]`, a byte E7.6 replaces (`body[..first]` is written as it stands).
///
/// The bytes between those replaced go to the sink as one run. The replacements are gathered in a
/// small buffer as [`put_text_body`] gathers them (a long run of one escaped byte a block of
/// escapes at a time); an escape E7.6 writes otherwise (`\/`, `\u00e9`, a surrogate pair) is
/// decoded and its character written.
#[inline(never)]
fn put_body_rest<S: Sink>(out: &mut S, body: &[u8], first: usize, escaped: bool) {
    let mut escapes = Escapes::<32> { buf: [0; 32], len: 0 };
    // `body[from..]` is not written yet.
    let mut from = 0;
    walk(body, first, escaped, |p| {
        let rest = body.get(p..).unwrap_or_default();
        if from < p {
            escapes.flush(out);
            out.put(body.get(from..p).unwrap_or_default());
        }
        let b = rest.first().copied().unwrap_or_default();
        let len = if b == b'\\' && escaped {
            // An escape written otherwise (a surrogate pair is one).
            let (c, len) = escape_at(rest, 0);
            escapes.push_char(out, c);
            len.clamp(1, rest.len())
        } else if b == SEPARATOR_LEAD {
            // U+2028 or U+2029 (the others led by 0xE2 are kept).
            escapes.push(out, separator_escape(rest).map_or(&[][..], |e| &e[..]));
            3
        } else {
            // An ASCII byte with an escape, and the run of it.
            escapes.push_run(out, rest, b)
        };
        from = p + len;
        Some(len)
    });
    if from < body.len() {
        escapes.flush(out);
        out.put(body.get(from..).unwrap_or_default());
    }
    escapes.flush(out);
}

/// The plain rule of E7.6 for an escaped body (no quotes): each escape decoded (J5.4) and the text
/// written with [`put_text_body`]'s escapes.
#[cfg(any(test, fuzzing))]
fn put_escaped_body_plain<S: Sink>(out: &mut S, body: &[u8]) {
    // Decoded non-ASCII characters gather in a small stack buffer (a text of `\u` escapes is
    // one character per six bytes, and a sink call per character cost more than its decoding);
    // an ASCII one, mostly alone between plain runs (`\n`), goes to the sink as its escape.
    let mut chars = Escapes { buf: [0; 64], len: 0 };
    for_each_piece(body, |piece| match piece {
        Piece::Raw(bytes) => {
            chars.flush(out);
            put_text_body(out, bytes);
        }
        Piece::Char(c) if c.is_ascii() => {
            chars.flush(out);
            let Some(escape) = ESCAPES.get(usize::from(c as u8)) else { return };
            out.put(escape.get(..usize::from(escape[7])).unwrap_or_default());
        }
        Piece::Char(c) => chars.push_char(out, c),
    });
    chars.flush(out);
}

/// E7.7: a raw value's text with whitespace outside strings removed and `<`, `>`, `&`, U+2028,
/// U+2029 escaped; everything else verbatim.
///
/// Runs of bytes kept as they are go 32 a step: a block in which no byte is one to look at (in a
/// string: a quote, a backslash, markup, 0xE2; outside: a quote or whitespace) is passed over.
pub(crate) fn put_raw<S: Sink>(out: &mut S, raw: &[u8]) {
    let mut in_string = false;
    let mut from = 0;
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        // A byte that is not one to look at starts a run, passed over a block at a time.
        let look = if in_string { is_looked_at(b) } else { b == b'"' || b <= b' ' };
        if let Some(block) = raw.get(i..i + 32).and_then(|b| <&[u8; 32]>::try_from(b).ok()).filter(|_| !look) {
            let v = Lanes::load(block);
            let look = if in_string {
                looked_at(v)
            } else {
                // Outside strings a checked value has no byte under a space but whitespace.
                v.eq(b'"').or(v.le(b' '))
            };
            let kept = look.mask().trailing_zeros() as usize;
            if kept > 0 {
                i += kept;
                continue;
            }
        }
        // (replacement, bytes of `raw` it replaces)
        let replacement: Option<(&[u8], usize)> = if in_string {
            match b {
                b'\\' => {
                    // An escape is two bytes at least; its tail never holds a quote or markup.
                    i += 2;
                    continue;
                }
                b'"' => {
                    in_string = false;
                    None
                }
                // E7.7: markup as E7.6 escapes it (a checked raw string holds no other byte that
                // E7.6 escapes: no control byte, and a quote or backslash only as its escape).
                b'<' | b'>' | b'&' => {
                    ESCAPES.get(usize::from(b)).map(|e| (e.get(..usize::from(e[7])).unwrap_or_default(), 1))
                }
                SEPARATOR_LEAD => raw.get(i..).and_then(separator_escape).map(|e| (&e[..], 3)),
                _ => None,
            }
        } else {
            match b {
                b'"' => {
                    in_string = true;
                    None
                }
                // A whole run of whitespace at once (indentation is many bytes).
                b' ' | b'\t' | b'\n' | b'\r' => {
                    let run = raw.get(i..).unwrap_or_default().iter().take_while(|b| b" \t\n\r".contains(b)).count();
                    Some((b"", run))
                }
                _ => None,
            }
        };
        if let Some((rep, consumed)) = replacement {
            out.put(raw.get(from..i).unwrap_or_default());
            out.put(rep);
            i += consumed;
            from = i;
        } else {
            i += 1;
        }
    }
    out.put(raw.get(from..).unwrap_or_default());
}

/// E7.8: an unsigned integer in decimal.
pub(crate) fn put_u64<S: Sink>(out: &mut S, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        if let Some(slot) = buf.get_mut(at) {
            *slot = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.put(buf.get(at..).unwrap_or_default());
}

/// E7.8: a signed integer in decimal.
pub(crate) fn put_i64<S: Sink>(out: &mut S, v: i64) {
    if v < 0 {
        out.put(b"-");
    }
    put_u64(out, v.unsigned_abs());
}

/// `true` or `false`.
pub(crate) fn put_bool<S: Sink>(out: &mut S, v: bool) {
    out.put(if v { b"true" } else { b"false" });
}

/// [`put_body`] against the plain rule of its kind ([`put_text_body`], [`put_escaped_body_plain`])
/// on `body` (valid UTF-8 text, or with `escaped` a string token's body as the parser hands it
/// over), into a `Vec`, a [`Counter`] and a [`SliceSink`]: `Err` says what differed. The unit
/// tests' and the fuzz target `json_write`'s check.
#[cfg(any(test, fuzzing))]
pub(crate) fn one_pass_agrees(body: &[u8], escaped: bool) -> Result<(), String> {
    let mut plain = Vec::new();
    if escaped {
        put_escaped_body_plain(&mut plain, body);
    } else {
        put_text_body(&mut plain, body);
    }
    let mut fast = Vec::new();
    put_body(&mut fast, body, escaped);
    if fast != plain {
        return Err(format!(
            "escaped {escaped}: one pass wrote {:?}, the plain rule {:?}",
            String::from_utf8_lossy(&fast),
            String::from_utf8_lossy(&plain)
        ));
    }
    let mut counter = Counter::default();
    put_body(&mut counter, body, escaped);
    let mut buf = vec![0u8; plain.len()];
    let mut slice = SliceSink::new(&mut buf);
    put_body(&mut slice, body, escaped);
    if counter.0 != plain.len() || slice.len() != plain.len() || buf != plain {
        return Err(format!("escaped {escaped}: a counter or slice sink disagrees with the Vec"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// E7.7 byte by byte, the model for `put_raw`'s blocks: whitespace outside strings dropped,
    /// markup and U+2028, U+2029 escaped inside them, escapes passed over.
    fn model_raw(raw: &[u8]) -> Vec<u8> {
        let (mut out, mut in_string, mut i) = (Vec::new(), false, 0);
        while let Some(&b) = raw.get(i) {
            let rest = &raw[i..];
            match (in_string, b) {
                (true, b'\\') => {
                    out.extend_from_slice(&rest[..2]);
                    i += 2;
                    continue;
                }
                (true, b'<') => out.extend_from_slice(b"\\u003c"),
                (true, b'>') => out.extend_from_slice(b"\\u003e"),
                (true, b'&') => out.extend_from_slice(b"\\u0026"),
                (true, _) if rest.starts_with("\u{2028}".as_bytes()) => {
                    out.extend_from_slice(b"\\u2028");
                    i += 3;
                    continue;
                }
                (true, _) if rest.starts_with("\u{2029}".as_bytes()) => {
                    out.extend_from_slice(b"\\u2029");
                    i += 3;
                    continue;
                }
                (false, b' ' | b'\t' | b'\n' | b'\r') => {}
                (_, b'"') => {
                    in_string = !in_string;
                    out.push(b);
                }
                _ => out.push(b),
            }
            i += 1;
        }
        out
    }

    /// Random raw values (strings with markup, escapes and U+2028 among plain runs, whitespace
    /// between tokens) cut at every distance from a block edge: `put_raw` writes what the model
    /// writes.
    #[test]
    fn put_raw_agrees_with_the_byte_model() {
        let strings: [&str; 8] = [
            "plain text ",
            "<a&b>",
            "\\\"q\\\"",
            "\\u2028",
            "\u{2028}\u{2029}",
            "\u{2027}é",
            "\\\\",
            "0123456789abcdef",
        ];
        let mut next = crate::testing::xorshift(0x6A09_E667_F3BC_C908);
        for _ in 0..5_000 {
            let mut raw = String::from("{");
            for k in 0..(next() % 12) {
                if k > 0 {
                    raw.push(',');
                }
                raw.push_str(["", " ", "\n  ", "\t", " \r\n "][(next() % 5) as usize]);
                raw.push_str(&format!("\"k{k}\""));
                raw.push_str([":", " : ", ":\n"][(next() % 3) as usize]);
                let mut value = String::from("\"");
                for _ in 0..(next() % 8) {
                    value.push_str(strings[(next() % 8) as usize]);
                }
                value.push('"');
                raw.push_str(if next().is_multiple_of(4) { "[1, 2,  3]" } else { &value });
            }
            raw.push_str(&" ".repeat((next() % 40) as usize));
            raw.push('}');
            let mut got = Vec::new();
            put_raw(&mut got, raw.as_bytes());
            assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&model_raw(raw.as_bytes())), "{raw}");
        }
    }

    /// The SWAR scan finds the first byte that needs a look, for every byte value at every position
    /// of both words of a step and of the tail, behind plain ASCII or non-ASCII text.
    #[test]
    fn plain_run_stops_at_the_first_special_byte() {
        for filler in [b'a', 0x80, 0xC3, 0xE1, 0xE3, 0x1F + 1, b'=', b'?', b']'] {
            for len in [0, 1, 7, 8, 15, 16, 17, 31, 33, 40] {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut text = vec![filler; len];
                        text[at] = b;
                        let want = text.iter().position(|&c| needs_escape(c)).unwrap_or(len);
                        assert_eq!(unescaped_len(&text), want, "filler {filler:#x} byte {b:#x} at {at} of {len}");
                    }
                }
                assert_eq!(unescaped_len(&vec![filler; len]), if needs_escape(filler) && len > 0 { 0 } else { len });
            }
        }
    }

    /// E7.6 for one character, from the rule's text: the short escapes, `\u00xx` (lower-case hex)
    /// for the other controls and `<`, `>`, `&`, `\u2028`, `\u2029`, everything else as it is.
    fn model_escape(c: char) -> String {
        match c {
            '"' => "\\\"".into(),
            '\\' => "\\\\".into(),
            '\n' => "\\n".into(),
            '\r' => "\\r".into(),
            '\t' => "\\t".into(),
            '\u{8}' => "\\b".into(),
            '\u{c}' => "\\f".into(),
            '\u{0}'..='\u{1f}' | '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => format!("\\u{:04x}", u32::from(c)),
            _ => c.to_string(),
        }
    }

    /// `put_json_str` of an escaped body writes the E7.6 form of the body's decoded text (J5.4):
    /// random bodies of `\\u` escapes (surrogate pairs, lone surrogates, controls, markup,
    /// U+2028), short escapes and raw runs, long enough to fill the gathering buffer many times.
    #[test]
    fn escaped_bodies_are_written_as_their_decoded_text() {
        let pieces: [&str; 14] = [
            "\\u00e9",
            "\\u4e2d",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\udc00x",
            "\\u0001",
            "\\u003C",
            "\\u2028",
            "\\n",
            "\\\"",
            "\\/",
            "plain ",
            "<&>",
            "\u{e9}\u{2029}",
        ];
        let mut next = crate::testing::xorshift(0xBB67_AE85_84CA_A73B);
        for _ in 0..3_000 {
            let body: String = (0..next() % 200).map(|_| pieces[(next() % 14) as usize]).collect();
            let decoded = crate::json::StringToken::new(0, body.as_bytes(), true, false).decode().unwrap();
            let want: String = decoded.chars().map(model_escape).collect();
            let mut got = Vec::new();
            put_json_str(&mut got, body.as_bytes(), true);
            assert_eq!(String::from_utf8(got).unwrap(), format!("\"{want}\""), "{body}");
        }
    }

    /// Runs of one escaped character of every length around the run path's block (the escape
    /// written [`REPEAT_BLOCK`] at a time) and its threshold, between plain text and other escapes, into
    /// each kind of sink, against the character model.
    #[test]
    fn runs_of_escapes_are_written_as_each_character() {
        for c in ['<', '>', '&', '\n', '\u{1}', '"', '\u{2028}'] {
            for n in [0, 1, 2, 31, 32, 33, 63, 64, 65, 100, 1000] {
                for (before, after) in [("", ""), ("a", "b"), ("<", ">"), ("\u{e9}", "&")] {
                    let text = format!("{before}{}{after}", c.to_string().repeat(n));
                    let want: String = text.chars().map(model_escape).collect();
                    let mut vec = Vec::new();
                    put_text_body(&mut vec, text.as_bytes());
                    assert_eq!(String::from_utf8(vec).unwrap(), want, "{c:?} x {n}");
                    // The one-pass writer, into every sink, against that plain rule.
                    one_pass_agrees(text.as_bytes(), false).unwrap_or_else(|e| panic!("{c:?} x {n}: {e}"));
                }
            }
        }
    }

    /// The fast writer of escaped bodies against the plain rule alone, on random bodies of
    /// canonical escapes, escapes E7.6 writes otherwise, raw markup, U+2028 and other characters led
    /// by 0xE2, and plain runs of every length around the 32-byte block, each body also cut at every
    /// offset of its first 40 bytes so that escapes straddle block edges.
    #[test]
    fn fast_escaped_bodies_agree_with_the_plain_rule() {
        let pieces: [&str; 22] = [
            "\\n",
            "\\t",
            "\\\"",
            "\\\\",
            "\\u003c",
            "\\u0001",
            "\\u2028",
            "\\u003C",
            "\\/",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\b",
            "\\u0008",
            "<",
            "&>",
            "\u{2028}",
            "\u{20ac}",
            "\u{e9}",
            "plain ",
            "0123456789abcdefghijklmnopqrstu",
            "x",
        ];
        let mut next = crate::testing::xorshift(0x3C6E_F372_FE94_F82B);
        for _ in 0..4_000 {
            let body: String = (0..next() % 40).map(|_| pieces[(next() % 22) as usize]).collect();
            for cut in 0..body.len().min(40) {
                let b = &body.as_bytes()[cut..];
                // Cut only at a piece's start: a body starting inside an escape is not a body.
                if cut > 0 && (std::str::from_utf8(b).is_err() || body.as_bytes()[..cut].ends_with(b"\\")) {
                    continue;
                }
                let Ok(text) = std::str::from_utf8(b) else { continue };
                if crate::json::StringToken::new(0, text.as_bytes(), true, false).decode().is_err() {
                    continue;
                }
                let mut plain = b"\"".to_vec();
                put_escaped_body_plain(&mut plain, b);
                plain.push(b'"');
                let mut fast = Vec::new();
                put_json_str(&mut fast, b, true);
                assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&plain), "{text}");
                let mut counter = Counter::default();
                put_json_str(&mut counter, b, true);
                assert_eq!(counter.0, plain.len());
            }
        }
    }

    /// The one-pass writer ([`put_body`]) against the plain rules, into each kind of sink: random
    /// texts and escaped bodies of every byte [`escape_mask`] marks (kept or replaced), runs of one
    /// escaped byte across the run path's threshold, characters led by 0xE2 and plain runs of
    /// every length around the 32-byte block, each also cut at every offset of its first 40 bytes
    /// so that what the walk reads straddles block edges.
    #[test]
    fn one_pass_writer_agrees_with_the_plain_rules() {
        let text_pieces: [&str; 16] = [
            "<",
            "&>",
            "\"",
            "\\",
            "\n",
            "\u{1}\u{1f}",
            "\u{2028}",
            "\u{2029}x",
            "\u{2027}",
            "\u{20ac}",
            "\u{e9}",
            "plain ",
            "0123456789abcdefghijklmnopqrstu",
            "x",
            "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
            r"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\",
        ];
        let body_pieces: [&str; 16] = [
            "\\n",
            "\\\"",
            "\\\\",
            "\\u003c",
            "\\u003C",
            "\\/",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\udc00",
            "\\u2028",
            "<&>",
            "\u{2028}",
            "\u{2027}\u{e9}",
            "plain ",
            "0123456789abcdefghijklmnopqrstu",
            "&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&",
        ];
        let mut next = crate::testing::xorshift(0x510E_527F_ADE6_82D1);
        for round in 0..6_000 {
            let escaped = round % 2 == 1;
            let pieces = if escaped { &body_pieces } else { &text_pieces };
            let whole: String = (0..next() % 30).map(|_| pieces[(next() % 16) as usize]).collect();
            for cut in 0..whole.len().min(40) {
                let b = &whole.as_bytes()[cut..];
                // A cut inside a character or an escape leaves something that is not a body.
                let Ok(text) = std::str::from_utf8(b) else { continue };
                if escaped && crate::json::StringToken::new(0, text.as_bytes(), true, false).decode().is_err() {
                    continue;
                }
                if let Err(difference) = one_pass_agrees(b, escaped) {
                    panic!("{text:?}: {difference}");
                }
            }
        }
    }
}
