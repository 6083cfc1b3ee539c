//! R10.6: the reference's float layout (Go `encoding/json` for a float64).
//!
//! The digits are the shortest decimal string that reads back to the same binary64. Rust's `{:e}`
//! formatting yields exactly those digits (its shortest mode, closest to the exact value); only the
//! layout differs from Go's and is redone here: plain notation for 1e-6 ≤ |x| < 1e21, otherwise
//! `d[.ddd]e±X` with no leading zeros in the exponent. Nothing is allocated.

use std::fmt::Write as _;

use crate::canonical::{Sink, put_u64};

/// `{:e}` of a binary64 is at most `d.dddddddddddddddde-324` (17 digits): 24 bytes.
const SCRATCH: usize = 32;

/// A fixed buffer for one `{:e}` rendering.
struct Scratch {
    buf: [u8; SCRATCH],
    len: usize,
}

impl std::fmt::Write for Scratch {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Zeros to pad plain notation with (at most 20 before the point, 5 after it).
const ZEROS: &[u8; 24] = b"000000000000000000000000";

fn put_zeros<S: Sink>(out: &mut S, n: usize) {
    out.put(ZEROS.get(..n).unwrap_or(ZEROS));
}

/// Writes a finite `x` per R10.6. The caller rejects NaN and the infinities (D7, 408).
pub(crate) fn put_f64<S: Sink>(out: &mut S, x: f64) {
    if x.is_sign_negative() {
        out.put(b"-");
    }
    let abs = x.abs();
    if abs == 0.0 {
        out.put(b"0");
        return;
    }
    // `d[.ddd]e[-]X`: the shortest round-trip digits and the decimal exponent of the first one.
    let mut sci = Scratch { buf: [0; SCRATCH], len: 0 };
    let _ = write!(sci, "{abs:e}");
    let text = sci.buf.get(..sci.len).unwrap_or_default();
    let (mantissa, exponent) = match text.iter().position(|&b| b == b'e') {
        Some(e) => (text.get(..e).unwrap_or_default(), text.get(e + 1..).unwrap_or_default()),
        None => (text, &b"0"[..]),
    };
    let (negative_exponent, exponent_digits) = match exponent.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, exponent),
    };
    let magnitude = exponent_digits.iter().fold(0i64, |acc, &d| acc * 10 + i64::from(d.wrapping_sub(b'0')));
    let exponent = if negative_exponent { -magnitude } else { magnitude };
    let (first, rest) = match mantissa.split_first() {
        Some((first, rest)) => (std::slice::from_ref(first), rest.strip_prefix(b".").unwrap_or(rest)),
        None => (&b"0"[..], &[][..]),
    };

    if (1e-6..1e21).contains(&abs) {
        // Plain notation of `first.rest × 10^exponent`: the point goes after `exponent + 1` digits.
        let n = 1 + rest.len() as i64;
        let point = exponent + 1;
        if point <= 0 {
            out.put(b"0.");
            put_zeros(out, (-point) as usize);
            out.put(first);
            out.put(rest);
        } else if point < n {
            let (int, frac) = rest.split_at((point - 1) as usize);
            out.put(first);
            out.put(int);
            out.put(b".");
            out.put(frac);
        } else {
            out.put(first);
            out.put(rest);
            put_zeros(out, (point - n) as usize);
        }
    } else {
        out.put(first);
        if !rest.is_empty() {
            out.put(b".");
            out.put(rest);
        }
        out.put(if exponent < 0 { b"e-" } else { b"e+" });
        put_u64(out, exponent.unsigned_abs());
    }
}
