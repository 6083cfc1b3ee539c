//! Byte fields (`data`): standard base64 as T5.6 accepts it, and the canonical form of E7.5.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// What T5.6 validation learned about a byte field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Checked {
    /// Number of decoded bytes (0 from a later walk of an escaped text, which does not decode it).
    pub(crate) len: usize,
    /// The text is already canonical (E7.5): no CR/LF and zero unused bits.
    pub(crate) canonical: bool,
}

use crate::json::PlainPrefix;

/// Whole 32-byte chunks of alphabet characters checked at a time (branch-free, vectorised).
const CHUNK: usize = 32;

/// The leading run of a text made of whole [`CHUNK`]s of alphabet characters: plain JSON string
/// bytes (ASCII, no quote, backslash or control byte), so the parser can take them without its own
/// scan, and bytes [`check`] need not look at again. Only [`AlphabetPrefix::scan`] makes one, so
/// `check` can trust it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AlphabetPrefix(usize);

impl PlainPrefix for AlphabetPrefix {
    fn scan(text: &[u8]) -> AlphabetPrefix {
        AlphabetPrefix(text.chunks_exact(CHUNK).take_while(|chunk| all_alphabet(chunk)).count() * CHUNK)
    }

    fn len(self) -> usize {
        self.0
    }
}

#[inline]
fn all_alphabet(chunk: &[u8]) -> bool {
    chunk.iter().fold(true, |ok, &b| ok & in_alphabet(b))
}

/// T5.6: CR and LF are ignored anywhere; the rest is a multiple of 4 characters of the standard
/// alphabet with `=` padding at the very end only; unused low bits are ignored. The first `known`
/// bytes are alphabet characters, as the scan that made `run` found (escapes in a JSON string
/// can only follow that run, so decoding leaves it in place).
pub(crate) fn check(text: &[u8], run: AlphabetPrefix) -> Option<Checked> {
    let (mut checker, rest) = Checker::after(text, run);
    checker.feed(rest);
    checker.finish()
}

/// [`check`] of the decoded text of a JSON string body with escapes (`\r\n` between lines, `\/`),
/// decoded a piece at a time as it is checked: nothing of its size is built (a field can be as
/// large as the document). The same verdict as [`check`] of the decoded text.
pub(crate) fn check_escaped(body: &[u8], run: AlphabetPrefix) -> Option<Checked> {
    let (mut checker, rest) = Checker::after(body, run);
    crate::json::string::for_each_piece(rest, |piece| match piece {
        crate::json::string::Piece::Raw(bytes) => checker.feed(bytes),
        // Any character outside ASCII is outside the alphabet: NUL stands for it.
        crate::json::string::Piece::Char(c) => checker.feed(&[if c.is_ascii() { c as u8 } else { 0 }]),
    });
    checker.finish()
}

/// The state of [`check`] between pieces of the text.
struct Checker {
    /// Significant characters so far, padding included.
    count: usize,
    padding: usize,
    newlines: bool,
    /// The last alphabet character.
    last: u8,
    /// A byte that T5.6 rejects was seen: the verdict is known.
    failed: bool,
}

impl Checker {
    /// The state after `run`, and the rest of `text` to feed.
    fn after(text: &[u8], run: AlphabetPrefix) -> (Checker, &[u8]) {
        let known = run.0.min(text.len());
        let last = if known > 0 { text.get(known - 1).copied().unwrap_or(0) } else { 0 };
        let checker = Checker { count: known, padding: 0, newlines: false, last, failed: false };
        (checker, text.get(known..).unwrap_or_default())
    }

    fn feed(&mut self, bytes: &[u8]) {
        // Fast path: whole chunks of alphabet characters. Padding and line breaks only occur at the
        // end and every few dozen characters.
        let mut rest = bytes;
        while !self.failed {
            while let Some((chunk, tail)) = rest.split_first_chunk::<CHUNK>() {
                if self.padding > 0 || !all_alphabet(chunk) {
                    break;
                }
                self.count += CHUNK;
                self.last = chunk[CHUNK - 1];
                rest = tail;
            }
            let Some((&c, tail)) = rest.split_first() else { break };
            rest = tail;
            match c {
                b'\r' | b'\n' => self.newlines = true,
                b'=' => {
                    self.padding += 1;
                    self.count += 1;
                }
                _ => {
                    if !in_alphabet(c) || self.padding > 0 {
                        self.failed = true;
                    }
                    self.last = c;
                    self.count += 1;
                }
            }
        }
    }

    fn finish(self) -> Option<Checked> {
        if self.failed || !self.count.is_multiple_of(4) || self.padding > 2 {
            return None;
        }
        let last = value(self.last).unwrap_or(0);
        let unused_bits_zero = match self.padding {
            1 => last & 0b11 == 0,
            2 => last & 0b1111 == 0,
            _ => true,
        };
        Some(Checked { len: self.count / 4 * 3 - self.padding, canonical: !self.newlines && unused_bits_zero })
    }
}

#[inline]
fn in_alphabet(b: u8) -> bool {
    ((b | 0x20).wrapping_sub(b'a') < 26) | (b.wrapping_sub(b'0') < 10) | (b == b'+') | (b == b'/')
}

/// Writes the canonical form (E7.5) of text that passed [`check`] straight into `out`: standard
/// base64 with padding and no line breaks, the unused bits of the last quantum zeroed. The text is
/// the body of a JSON string, decoded on the way when `escaped`; nothing of its size is allocated.
pub(crate) fn put_canonical<S: crate::json::write::Sink>(out: &mut S, body: &[u8], escaped: bool) {
    let mut w = Canonical { buf: [0; 256], len: 0, quad: [0; 4], n: 0 };
    if escaped {
        crate::json::string::for_each_piece(body, |piece| match piece {
            crate::json::string::Piece::Raw(bytes) => w.push_all(out, bytes),
            // A valid byte field's escapes are ASCII (an alphabet character, `=`, CR or LF).
            crate::json::string::Piece::Char(c) => w.push(out, u8::try_from(c).unwrap_or(b'=')),
        });
    } else {
        w.push_all(out, body);
    }
    w.finish(out);
}

/// The state of [`put_canonical`]: output buffered in a stack array, the sextets of the quantum
/// being read.
struct Canonical {
    buf: [u8; 256],
    len: usize,
    quad: [u8; 4],
    n: usize,
}

impl Canonical {
    fn emit<S: crate::json::write::Sink>(&mut self, out: &mut S, chars: [u8; 4]) {
        if self.len + 4 > self.buf.len() {
            out.put(self.buf.get(..self.len).unwrap_or_default());
            self.len = 0;
        }
        if let Some(slot) = self.buf.get_mut(self.len..self.len + 4) {
            slot.copy_from_slice(&chars);
            self.len += 4;
        }
    }

    fn push<S: crate::json::write::Sink>(&mut self, out: &mut S, c: u8) {
        // CR and LF are ignored (T5.6); `=` only pads the last quantum, handled at the end.
        let Some(v) = value(c) else { return };
        if let Some(slot) = self.quad.get_mut(self.n) {
            *slot = v;
            self.n += 1;
        }
        if self.n == 4 {
            let [a, b, c, d] = self.quad.map(sym);
            self.emit(out, [a, b, c, d]);
            self.n = 0;
        }
    }

    /// [`Canonical::push`] of every byte of `bytes`, with whole quanta of alphabet characters
    /// written as they are (each is its own canonical form; only a last, padded quantum changes).
    fn push_all<S: crate::json::write::Sink>(&mut self, out: &mut S, bytes: &[u8]) {
        let mut rest = bytes;
        loop {
            // A quantum already open is completed one character at a time.
            while self.n != 0 {
                let Some((&c, tail)) = rest.split_first() else { return };
                self.push(out, c);
                rest = tail;
            }
            let mut run = rest.chunks_exact(CHUNK).take_while(|chunk| all_alphabet(chunk)).count() * CHUNK;
            run += rest.get(run..).unwrap_or_default().iter().take_while(|&&b| in_alphabet(b)).count();
            let (whole, tail) = rest.split_at(run / 4 * 4);
            if !whole.is_empty() {
                out.put(self.buf.get(..self.len).unwrap_or_default());
                self.len = 0;
                out.put(whole);
            }
            // Then up to three alphabet characters and a byte that is none (a line break, `=`).
            let Some((&c, tail)) = tail.split_first() else { return };
            self.push(out, c);
            rest = tail;
        }
    }

    fn finish<S: crate::json::write::Sink>(mut self, out: &mut S) {
        let [v0, v1, v2, _] = self.quad;
        match self.n {
            2 => self.emit(out, [sym(v0), sym(v1 & 0b11_0000), b'=', b'=']),
            3 => self.emit(out, [sym(v0), sym(v1), sym(v2 & 0b11_1100), b'=']),
            _ => {}
        }
        out.put(self.buf.get(..self.len).unwrap_or_default());
    }
}

/// The alphabet character of a sextet.
fn sym(v: u8) -> u8 {
    ALPHABET.get(usize::from(v & 63)).copied().unwrap_or(b'A')
}

#[cfg(test)]
/// Decodes text that passed [`check`].
pub(crate) fn decode(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for &c in text {
        let Some(v) = value(c) else { continue };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Standard base64 with padding, no line breaks (E7.5): the test model of the streaming writer,
/// and the converters' encoder of media decoded from the URL-safe alphabet (SPEC §16).
pub(crate) fn encode(bytes: &[u8], out: &mut Vec<u8>) {
    let sym = |v: u32| ALPHABET.get((v & 63) as usize).copied().unwrap_or(b'A');
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = c.iter().fold(0u32, |acc, &b| acc << 8 | u32::from(b));
        out.extend_from_slice(&[sym(n >> 18), sym(n >> 12), sym(n >> 6), sym(n)]);
    }
    match *chunks.remainder() {
        [a] => {
            let n = u32::from(a) << 16;
            out.extend_from_slice(&[sym(n >> 18), sym(n >> 12), b'=', b'=']);
        }
        [a, b] => {
            let n = u32::from(a) << 16 | u32::from(b) << 8;
            out.extend_from_slice(&[sym(n >> 18), sym(n >> 12), sym(n >> 6), b'=']);
        }
        _ => {}
    }
}

#[cfg(test)]
/// Length of the canonical encoding of `len` bytes.
pub(crate) fn encoded_len(len: usize) -> usize {
    len.div_ceil(3) * 4
}

#[cfg(test)]
mod tests {

    /// The streaming canonical writer gives what decoding and re-encoding the whole field gives:
    /// every length mod 3, CR/LF anywhere, non-zero unused bits, JSON escapes.
    #[test]
    fn put_canonical_is_decode_then_encode() {
        let mut next = crate::xorshift(0x1234_5678_9abc_def0u64);
        for len in (0..200usize).chain([300, 457, 1000]) {
            let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let mut text = Vec::new();
            encode(&bytes, &mut text);
            // Non-zero unused bits in the last character before the padding.
            if text.ends_with(b"=") && next().is_multiple_of(2) {
                let at = text.iter().rposition(|&b| b != b'=').unwrap();
                let v = value(text[at]).unwrap() | if text.ends_with(b"==") { 0b1111 } else { 0b11 };
                text[at] = ALPHABET[usize::from(v)];
            }
            // Line breaks here and there.
            let mut broken = Vec::new();
            for (i, &c) in text.iter().enumerate() {
                if i > 0 && next().is_multiple_of(7) {
                    broken.extend_from_slice(if next().is_multiple_of(2) { b"\r\n" } else { b"\n" });
                }
                broken.push(c);
            }
            assert!(check(&broken, AlphabetPrefix(0)).is_some(), "{}", String::from_utf8_lossy(&broken));
            let mut want = Vec::new();
            encode(&decode(&broken), &mut want);
            let mut got = Vec::new();
            put_canonical(&mut got, &broken, false);
            assert_eq!(got, want, "{}", String::from_utf8_lossy(&broken));
            // The same field as a JSON string body with escapes: `\r\n`, `\/`, `\u0041`.
            let escaped: Vec<u8> = broken
                .iter()
                .flat_map(|&c| match c {
                    b'\r' => b"\\r".to_vec(),
                    b'\n' => b"\\n".to_vec(),
                    b'/' => b"\\/".to_vec(),
                    b'A' => b"\\u0041".to_vec(),
                    c => vec![c],
                })
                .collect();
            let mut got = Vec::new();
            put_canonical(&mut got, &escaped, true);
            assert_eq!(got, want, "{}", String::from_utf8_lossy(&escaped));
        }
    }

    use super::*;
    use proptest::prelude::*;

    /// The decoded text of a JSON string body, through the pieces (the reference decoding).
    fn decoded(body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        crate::json::string::for_each_piece(body, |piece| match piece {
            crate::json::string::Piece::Raw(bytes) => out.extend_from_slice(bytes),
            crate::json::string::Piece::Char(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        });
        out
    }

    /// A byte field's JSON string body: valid base64 of some bytes (its last character's unused
    /// bits sometimes set), with escaped line breaks here and there and some characters written as
    /// escapes (`\/`, `\u0041`), and sometimes one piece T5.6 rejects spliced in (a non-ASCII
    /// character, raw or escaped, a lone surrogate, `-`, `=` too early, an escaped quote).
    fn body() -> impl Strategy<Value = Vec<u8>> {
        let spoilers = prop::sample::select(vec![
            "é",
            r"\u00e9",
            r"\ud83d",
            r"\ud83d\ude00",
            "-",
            "=",
            r#"\""#,
            r"\\",
            r"\t",
            "QQ",
        ]);
        (
            prop::collection::vec(any::<u8>(), 0..120),
            prop::collection::vec(0u8..16, 200),
            any::<bool>(),
            prop::option::of((any::<prop::sample::Index>(), spoilers)),
        )
            .prop_map(|(bytes, choices, dirty_bits, spoiler)| {
                let mut text = Vec::new();
                encode(&bytes, &mut text);
                if dirty_bits && text.ends_with(b"=") {
                    let at = text.iter().rposition(|&b| b != b'=').unwrap_or(0);
                    let v = value(text[at]).unwrap_or(0) | 1;
                    text[at] = ALPHABET[usize::from(v)];
                }
                // One piece per character (with the line break before it), so that a spoiler
                // goes between pieces, never inside an escape.
                let mut pieces: Vec<Vec<u8>> = Vec::new();
                for (i, &c) in text.iter().enumerate() {
                    let mut piece = match choices.get(i).copied().unwrap_or(0) {
                        1 => br"\r\n".to_vec(),
                        2 => br"\n".to_vec(),
                        _ => Vec::new(),
                    };
                    match (c, choices.get(i).copied().unwrap_or(0)) {
                        (b'/', _) => piece.extend_from_slice(br"\/"),
                        (_, 3) => piece.extend_from_slice(format!(r"\u{:04x}", c).as_bytes()),
                        _ => piece.push(c),
                    }
                    pieces.push(piece);
                }
                if let Some((at, spoiler)) = spoiler {
                    pieces.insert(at.index(pieces.len() + 1), spoiler.as_bytes().to_vec());
                }
                pieces.concat()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The streaming check of an escaped body gives the verdict of checking its decoded text.
        #[test]
        fn check_escaped_is_check_of_the_decoded_text(body in body()) {
            let run = AlphabetPrefix::scan(&body);
            let text = decoded(&body);
            prop_assert_eq!(check_escaped(&body, run), check(&text, AlphabetPrefix(0)));
            prop_assert_eq!(check_escaped(&body, run), check(&text, run));
        }
    }

    fn check0(text: &[u8]) -> Option<Checked> {
        check(text, AlphabetPrefix(0))
    }

    /// The run the parser skips is alphabet only, whole chunks, and checking after it gives what
    /// checking everything gives.
    #[test]
    fn alphabet_run_is_a_prefix_check_can_trust() {
        let body: Vec<u8> = (0..200u32).map(|i| ALPHABET[(i * 7 % 64) as usize]).collect();
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for cut in [0, 1, 31, 32, 33, 63, 64, 65, 100, 199, 200] {
            let head = &body[..cut];
            for tail in [&b""[..], b"=", b"==", b"\"", b"\\n", b"\r\n", b"\x01", b"\xc3\xa9", b"-", b"QQ=="] {
                texts.push([head, tail, b"QUJD".as_slice()].concat());
                texts.push([head, tail].concat());
            }
        }
        for text in &texts {
            let run = AlphabetPrefix::scan(text);
            assert_eq!(run.len() % CHUNK, 0);
            let (check_run, run) = (run, run.len());
            assert!(text[..run].iter().all(|&b| in_alphabet(b)), "{text:?}");
            assert!(text.get(run..run + CHUNK).is_none_or(|c| !all_alphabet(c)), "{text:?}: run stops early");
            assert_eq!(check(text, check_run), check0(text), "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn check_follows_t5_6() {
        assert_eq!(check0(b""), Some(Checked { len: 0, canonical: true }));
        assert_eq!(check0(b"QUJD"), Some(Checked { len: 3, canonical: true }));
        assert_eq!(check0(b"QQ=="), Some(Checked { len: 1, canonical: true }));
        assert_eq!(check0(b"QR=="), Some(Checked { len: 1, canonical: false }));
        assert_eq!(check0(b"QUI="), Some(Checked { len: 2, canonical: true }));
        assert_eq!(check0(b"QUJ="), Some(Checked { len: 2, canonical: false }));
        assert_eq!(check0(b"QU\r\nJD"), Some(Checked { len: 3, canonical: false }));
        assert_eq!(check0(b"QQ==\n"), Some(Checked { len: 1, canonical: false }));
        for bad in [&b"QQ"[..], b"QQ=", b"Q===", b"QQ==QQ==", b"QQ=A", b"QU-_", b"QU J", b"====", b"QUJD="] {
            assert_eq!(check0(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn decode_ignores_unused_bits_and_encode_is_canonical() {
        assert_eq!(decode(b"QR=="), b"A");
        assert_eq!(decode(b"QU\nJD"), b"ABC");
        let mut out = Vec::new();
        encode(b"A", &mut out);
        assert_eq!(out, b"QQ==");
        out.clear();
        encode(b"AB", &mut out);
        assert_eq!(out, b"QUI=");
        out.clear();
        encode(b"ABC", &mut out);
        assert_eq!(out, b"QUJD");
        assert_eq!(encoded_len(0), 0);
        assert_eq!(encoded_len(1), 4);
        assert_eq!(encoded_len(3), 4);
        assert_eq!(encoded_len(4), 8);
    }
}
