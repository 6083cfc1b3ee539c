//! R10.5: the canonical bytes of a [`FingerprintInput`] (strings E7.6, floats R10.6), written into
//! any sink: a vector for [`FingerprintInput::canonical_bytes`], or straight into SHA-256 for the C
//! path, which never holds the canonical bytes.

use sha2::{Digest, Sha256};

use super::decode::{Spans, StringField};
use super::template::r10_5;
use super::{FingerprintInput, LEN, float};
use crate::json::write::{Sink, put_bool, put_i64, put_json_str, put_str, put_u64};
use crate::json::{Parser, Span};

/// The writer's steps ([`r10_5!`]): each literal, then its value from the input.
macro_rules! write_steps {
    (
        ($input:ident, $out:ident, $from:ident)
        $([$bytes:expr] $kind:ident ($($field:ident)?) ($($place:ident).+);)*
        end [$close:expr]
    ) => {
        $(
            $out.put($bytes.as_bytes());
            write_value!($out, $from, $kind ($($field)?), $input.$($place).+);
        )*
        $out.put($close.as_bytes());
    };
}

/// One value of [`write_steps!`], by its kind.
macro_rules! write_value {
    ($out:ident, $from:ident, string($field:ident), $value:expr) => {
        put_field($out, $from, StringField::$field, &$value)
    };
    ($out:ident, $from:ident, bool(), $value:expr) => {
        put_bool($out, $value)
    };
    ($out:ident, $from:ident, u8(), $value:expr) => {
        put_u64($out, u64::from($value))
    };
    ($out:ident, $from:ident, u64(), $value:expr) => {
        put_u64($out, $value)
    };
    ($out:ident, $from:ident, f64_or_null(), $value:expr) => {
        put_opt_f64($out, $value)
    };
    ($out:ident, $from:ident, i64_or_null(), $value:expr) => {
        match $value {
            Some(n) => put_i64($out, n),
            None => $out.put(b"null"),
        }
    };
    ($out:ident, $from:ident, stop(), $value:expr) => {
        put_stop($out, $from, $value.as_deref())
    };
    ($out:ident, $from:ident, uuid(), $value:expr) => {
        put_str($out, &$value.to_ascii_lowercase())
    };
    ($out:ident, $from:ident, identity(), $value:expr) => {
        put_identity($out, &$value)
    };
}

impl FingerprintInput {
    /// R10.5, with every float finite.
    pub(super) fn write<S: Sink>(&self, out: &mut S) {
        self.write_from(out, None);
    }

    /// R10.5, with `BaseURL` and `Stop` taken from the document `src` where `spans` says when
    /// `from` is given (the digest path, see [`Spans`]).
    pub(super) fn write_from<S: Sink>(&self, out: &mut S, from: Option<(&[u8], &Spans)>) {
        r10_5!(write_steps!(self, out, from));
    }
}

/// SHA-256 of bytes already canonical.
pub(super) fn sha256(bytes: &[u8]) -> [u8; LEN] {
    Sha256::digest(bytes).into()
}

/// A sink that hashes what is put into it, in chunks of a stack buffer (SHA-256 is streaming).
pub(super) struct HashSink {
    hasher: Sha256,
    buf: [u8; 1024],
    len: usize,
}

impl HashSink {
    pub(super) fn new() -> HashSink {
        HashSink { hasher: Sha256::new(), buf: [0; 1024], len: 0 }
    }

    pub(super) fn finish(mut self) -> [u8; LEN] {
        self.hasher.update(self.buf.get(..self.len).unwrap_or_default());
        self.hasher.finalize().into()
    }
}

impl Sink for HashSink {
    /// Inlined: most pieces are the writer's constant keys and punctuation, whose copies then
    /// compile to a few moves instead of a `memcpy` call each.
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        match self.buf.get_mut(self.len..self.len + bytes.len()) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                self.len += bytes.len();
            }
            None => self.flush_and_put(bytes),
        }
    }

    /// A long repetition (a `Stop` string of `<` is six canonical bytes per byte, all hashed): the
    /// buffer is filled with whole copies once and hashed as many times as it fits in the
    /// repetition, instead of copying every byte into it.
    fn put_repeated(&mut self, bytes: &[u8], count: usize) {
        let per_buffer = self.buf.len().checked_div(bytes.len()).unwrap_or(0);
        if per_buffer < 2 || count < 2 * per_buffer {
            for _ in 0..count {
                self.put(bytes);
            }
            return;
        }
        self.hasher.update(self.buf.get(..self.len).unwrap_or_default());
        let filled = per_buffer * bytes.len();
        if let Some(copies) = self.buf.get_mut(..filled) {
            for copy in copies.chunks_exact_mut(bytes.len()) {
                copy.copy_from_slice(bytes);
            }
        }
        let whole = self.buf.get(..filled).unwrap_or_default();
        for _ in 0..count / per_buffer {
            self.hasher.update(whole);
        }
        // The last partial buffer stays in it, already in place, for the bytes that follow.
        self.len = count % per_buffer * bytes.len();
    }
}

impl HashSink {
    /// The buffer is full: hash it, then keep `bytes` (or hash them too when they are longer).
    #[cold]
    #[inline(never)]
    fn flush_and_put(&mut self, bytes: &[u8]) {
        self.hasher.update(self.buf.get(..self.len).unwrap_or_default());
        self.len = 0;
        if bytes.len() >= self.buf.len() {
            self.hasher.update(bytes);
        } else if let Some(slot) = self.buf.get_mut(..bytes.len()) {
            slot.copy_from_slice(bytes);
            self.len = bytes.len();
        }
    }
}

/// A string field: from the typed input, or re-read from the document (E7.6 either way).
fn put_field<S: Sink>(out: &mut S, from: Option<(&[u8], &Spans)>, field: StringField, owned: &str) {
    match from {
        Some((src, spans)) => {
            let text = spans.text(field);
            put_json_str(out, text.of(src), text.has_escapes());
        }
        None => put_str(out, owned),
    }
}

/// `Stop`: `null`, the array of the typed input, or the one in the document that `from` gives.
fn put_stop<S: Sink>(out: &mut S, from: Option<(&[u8], &Spans)>, stop: Option<&[String]>) {
    match (stop, from) {
        (Some(_), Some((src, Spans { stop: Some(span), stop_canonical, .. }))) => {
            put_stop_from(out, src, *span, *stop_canonical);
        }
        (Some(stop), _) => {
            out.put(b"[");
            for (i, text) in stop.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                put_str(out, text);
            }
            out.put(b"]");
        }
        (None, _) => out.put(b"null"),
    }
}

/// `Stop` re-read from its checked array in the document, each string re-escaped (E7.6).
fn put_stop_from<S: Sink>(out: &mut S, src: &[u8], span: Span, canonical: bool) {
    // An array already as R10.5 writes it (the decoder checked it in one scan) goes as it is.
    if canonical {
        out.put(span.of(src));
        return;
    }
    let mut p = Parser::resume_valid(src, span.start);
    let mut first = true;
    out.put(b"[");
    let walked = p.array_of(|p, event| {
        let text = p.str_of(event)?.text();
        if !first {
            out.put(b",");
        }
        first = false;
        put_json_str(out, text.of(src), text.has_escapes());
        Ok(())
    });
    debug_assert!(walked.is_ok(), "a checked Stop array reads again");
    out.put(b"]");
}

fn put_opt_f64<S: Sink>(out: &mut S, x: Option<f64>) {
    match x {
        Some(x) => float::put_f64(out, x),
        None => out.put(b"null"),
    }
}

/// `SecurityIdentity`: 32 decimal integers, not base64 (R10.5), written in one piece.
fn put_identity<S: Sink>(out: &mut S, id: &[u8; 32]) {
    // `[` + 32 × (up to 3 digits + `,` or `]`).
    let mut buf = [0u8; 1 + 32 * 4];
    let mut len = 0;
    let mut push = |b: u8| {
        if let Some(slot) = buf.get_mut(len) {
            *slot = b;
            len += 1;
        }
    };
    push(b'[');
    for (i, &v) in id.iter().enumerate() {
        if i > 0 {
            push(b',');
        }
        if v >= 100 {
            push(b'0' + v / 100);
        }
        if v >= 10 {
            push(b'0' + v / 10 % 10);
        }
        push(b'0' + v % 10);
    }
    push(b']');
    out.put(buf.get(..len).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a hash sink is given, in pieces and repetitions, hashes as the same bytes in one piece:
    /// repetitions of every length against the buffer, after and before pieces of every length.
    #[test]
    fn hash_sink_hashes_repetitions_as_their_bytes() {
        let mut next = crate::testing::xorshift(0x8F1B_BCDC_BB6E_92C5);
        for _ in 0..3_000 {
            let mut sink = HashSink::new();
            let mut all = Vec::new();
            for _ in 0..1 + next() % 4 {
                let piece: Vec<u8> = (0..next() % 1_300).map(|_| next() as u8).collect();
                let unit: Vec<u8> = (0..next() % 400).map(|_| next() as u8).collect();
                let count = (next() % 40) as usize;
                sink.put(&piece);
                sink.put_repeated(&unit, count);
                all.extend_from_slice(&piece);
                for _ in 0..count {
                    all.extend_from_slice(&unit);
                }
            }
            assert_eq!(sink.finish(), sha256(&all), "{} bytes", all.len());
        }
    }
}
