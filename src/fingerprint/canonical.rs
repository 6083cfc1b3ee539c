//! R10.5 read back: a document that already is canonical bytes, recognised in one pass.
//!
//! A Go host passes `json.Marshal` of its value unchanged (R10.1), and this library's own writers
//! write the same bytes: the documents `lc_request_fingerprint` sees are, as a rule, their own
//! canonical bytes. Their digest is the SHA-256 of the document itself, and what validation needs
//! is where each field lies. [`read`] walks the document against the R10.5 template (`template`,
//! the declaration the canonical writer is expanded from too): every key and separator is one
//! literal compare, every value is read in the one form the canonical writer gives it. Anything
//! else (other key order, whitespace, an escape in a string, a non-canonical number or UUID, the
//! end of the input early or late) is `None`, and the general decoder reads the document with its
//! own offsets and verdicts. So this path only ever accepts documents that the general one accepts
//! with the same values, and whose canonical bytes are the document: `tests.rs` checks both on
//! every document it accepts.

use super::FingerprintInput;
use super::decode::{Spans, StringField};
use super::float::put_f64;
use super::stop::stop_array_end;
use super::template::r10_5;
use crate::json::write::{SEPARATOR_LEAD, SliceSink, canonical_escape_len, starts_with_separator, unescaped_len};
use crate::json::{CheckedArray, Span, StringSpan};

/// The fields of `json` and the spans of its strings, as `decode::document` with spans gives
/// them, when `json` is exactly canonical bytes (R10.5); `None` otherwise.
pub(super) fn read(json: &[u8]) -> Option<(FingerprintInput, Spans)> {
    // Keys and separators are ASCII; string bodies are checked here once, all together.
    simdutf8::basic::from_utf8(json).ok()?;
    let mut c = TemplateReader { src: json, pos: 0, spans: Spans::default() };
    let input = c.document()?;
    (c.pos == json.len()).then_some((input, c.spans))
}

/// The reader's steps ([`r10_5!`]): each literal compared, then its value read into the input
/// (a string only has its span recorded, as `decode::document` with spans does).
macro_rules! read_steps {
    (
        ($reader:ident)
        $([$bytes:expr] $kind:ident ($($field:ident)?) ($($place:ident).+);)*
        end [$close:expr]
    ) => {{
        let mut input = FingerprintInput::default();
        $(
            $reader.lit($bytes.as_bytes())?;
            read_value!($reader, $kind ($($field)?), input.$($place).+);
        )*
        $reader.lit($close.as_bytes())?;
        Some(input)
    }};
}

/// One value of [`read_steps!`]: a string's span recorded, any other value read by the method of
/// its kind.
macro_rules! read_value {
    ($reader:ident, string($field:ident), $place:expr) => {
        $reader.string(StringField::$field)?
    };
    ($reader:ident, $kind:ident(), $place:expr) => {
        $place = $reader.$kind()?
    };
}

struct TemplateReader<'a> {
    src: &'a [u8],
    pos: usize,
    spans: Spans,
}

impl TemplateReader<'_> {
    /// The exact bytes `s` next.
    #[inline(always)]
    fn lit(&mut self, s: &[u8]) -> Option<()> {
        let end = self.pos + s.len();
        (self.src.get(self.pos..end)? == s).then(|| self.pos = end)
    }

    /// A string as E7.6 writes it; its span is recorded under `field`.
    fn string(&mut self, field: StringField) -> Option<()> {
        let text = self.text()?;
        *self.spans.slot(field)? = text;
        Some(())
    }

    /// A string as E7.6 writes it: raw text with no character the writer escapes, and escapes
    /// that are exactly the writer's (the short ones, `\u00xx` in lower case for the other
    /// controls and `<`, `>`, `&`, and `\u2028`, `\u2029`).
    fn text(&mut self) -> Option<StringSpan> {
        self.lit(b"\"")?;
        let start = self.pos;
        let mut escaped = false;
        loop {
            self.pos += unescaped_len(self.src.get(self.pos..)?);
            match *self.src.get(self.pos)? {
                b'"' => break,
                b'\\' => {
                    self.pos += canonical_escape_len(self.src.get(self.pos..)?)?;
                    escaped = true;
                }
                // 0xE2 starts U+2028 and U+2029, which the writer escapes, and other characters,
                // which it copies.
                SEPARATOR_LEAD if !starts_with_separator(self.src.get(self.pos..)?) => self.pos += 1,
                // A raw character the writer escapes.
                _ => return None,
            }
        }
        let span = Span { start, end: self.pos };
        self.pos += 1;
        Some(if escaped { StringSpan::escaped(span) } else { StringSpan::plain(span) })
    }

    /// Decimal digits as Go writes an unsigned integer: `0`, or no leading zero; within u64.
    fn u64(&mut self) -> Option<u64> {
        let start = self.pos;
        let mut value = 0u64;
        while let Some(&b) = self.src.get(self.pos).filter(|b| b.is_ascii_digit()) {
            if self.pos > start && value == 0 {
                // A leading zero.
                return None;
            }
            value = value.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            self.pos += 1;
        }
        (self.pos > start).then_some(value)
    }

    fn u8(&mut self) -> Option<u8> {
        u8::try_from(self.u64()?).ok()
    }

    fn bool(&mut self) -> Option<bool> {
        if self.lit(b"true").is_some() { Some(true) } else { self.lit(b"false").map(|()| false) }
    }

    /// `null`, or an i64 as Go writes it (never `-0`).
    fn i64_or_null(&mut self) -> Option<Option<i64>> {
        if self.lit(b"null").is_some() {
            return Some(None);
        }
        let negative = self.lit(b"-").is_some();
        let magnitude = self.u64()?;
        let value = if negative {
            if magnitude == 0 || magnitude > i64::MIN.unsigned_abs() {
                return None;
            }
            (magnitude as i64).wrapping_neg()
        } else {
            i64::try_from(magnitude).ok()?
        };
        Some(Some(value))
    }

    /// `null`, or a finite number whose text is the one R10.6 writes for its value.
    fn f64_or_null(&mut self) -> Option<Option<f64>> {
        if self.lit(b"null").is_some() {
            return Some(None);
        }
        let start = self.pos;
        while self.src.get(self.pos).is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')) {
            self.pos += 1;
        }
        let text = self.src.get(start..self.pos)?;
        let value: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
        if !value.is_finite() {
            return None;
        }
        // R10.6 writes at most 24 bytes (`-`, 17 digits, `.`, `e-324`); the text must be exactly
        // those bytes, which are always a JSON number (so the grammar needs no check of its own).
        let mut canonical = [0u8; 32];
        let mut sink = SliceSink::new(&mut canonical);
        put_f64(&mut sink, value);
        let len = sink.len();
        (canonical.get(..len) == Some(text)).then_some(Some(value))
    }

    /// `null`, or an array of strings as E7.6 writes them ([`stop_array_end`]): its span is
    /// recorded, and `Some(vec![])` stands for it, as with `decode::document`'s spans.
    fn stop(&mut self) -> Option<Option<Vec<String>>> {
        if self.lit(b"null").is_some() {
            return Some(None);
        }
        let start = self.pos;
        self.pos = stop_array_end(self.src, start)?.end();
        self.spans.stop = Some(Span { start, end: self.pos });
        self.spans.stop_canonical = true;
        Some(Some(Vec::new()))
    }

    /// 32 integers 0–255, each followed by `,` (the last by `]`).
    fn identity(&mut self) -> Option<[u8; 32]> {
        let mut id = [0u8; 32];
        self.lit(b"[")?;
        let last = id.len() - 1;
        for (k, slot) in id.iter_mut().enumerate() {
            // One to three digits, no leading zero, then the separator: read from one word.
            let at = self.pos;
            let digit = |i: usize| self.src.get(at + i).filter(|b| b.is_ascii_digit()).map(|&b| u32::from(b - b'0'));
            let (value, len) = match (digit(0)?, digit(1), digit(2)) {
                (0, Some(_), _) => return None,
                (a, None, _) => (a, 1),
                (a, Some(b), None) => (10 * a + b, 2),
                (a, Some(b), Some(c)) => (100 * a + 10 * b + c, 3),
            };
            *slot = u8::try_from(value).ok()?;
            self.pos = at + len;
            self.lit(if k == last { b"]" } else { b"," })?;
        }
        Some(id)
    }

    /// A UUID as R10.5 writes it: lower-case hex digits, `-` at offsets 8, 13, 18 and 23.
    fn uuid(&mut self) -> Option<String> {
        let text = self.text()?;
        let bytes = text.of(self.src);
        let canonical = bytes.len() == 36
            && bytes.iter().enumerate().all(|(i, &b)| match i {
                8 | 13 | 18 | 23 => b == b'-',
                _ => matches!(b, b'0'..=b'9' | b'a'..=b'f'),
            });
        canonical.then(|| bytes.iter().map(|&b| char::from(b)).collect())
    }

    /// R10.5's template, key by key ([`r10_5!`]).
    fn document(&mut self) -> Option<FingerprintInput> {
        r10_5!(read_steps!(self))
    }
}
