//! R10.6: the reference's float layout (Go `encoding/json` for a float64).
//!
//! The digits are the shortest decimal string that reads back to the same binary64, and of two such
//! strings equally close to the exact value, the one whose last digit is even (Go's `strconv`, round
//! half to even). Rust's `{:e}` formatting yields a shortest, closest digit string; on an exact tie
//! it may take the odd neighbour, so [`shortest_digits`] checks the one case where that can happen
//! (the exact value is the midpoint of two shortest strings) with integer arithmetic and takes the
//! even one. The layout is Go's: plain notation for 1e-6 ≤ |x| < 1e21, otherwise `d[.ddd]e±X` with
//! no leading zeros in the exponent. Nothing is allocated.

use std::fmt::Write as _;

use crate::json::write::{Sink, put_u64};

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

/// The decimal digits of a positive finite double: `digits × 10^exponent`, where `digits` has no
/// trailing zero and at most 17 decimal digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    pub(crate) digits: u64,
    /// The power of ten of the last digit.
    pub(crate) exponent: i32,
}

/// R10.6's digits of a positive finite `abs`: shortest, closest, ties to the even last digit.
pub(crate) fn shortest_digits(abs: f64) -> Decimal {
    let shortest = rust_shortest(abs);
    if shortest.digits % 2 == 1 {
        // An odd last digit may be one side of an exact tie: the other side is one unit away.
        for neighbour in [shortest.digits - 1, shortest.digits + 1] {
            if is_midpoint(abs, shortest.digits + neighbour, shortest.exponent)
                && reads_back(neighbour, shortest.exponent, abs)
            {
                return Decimal { digits: neighbour, exponent: shortest.exponent };
            }
        }
    }
    shortest
}

/// The digits of Rust's `{:e}` (shortest round trip, closest to the exact value).
fn rust_shortest(abs: f64) -> Decimal {
    let mut sci = Scratch { buf: [0; SCRATCH], len: 0 };
    let _ = write!(sci, "{abs:e}");
    let text = sci.buf.get(..sci.len).unwrap_or_default();
    let e = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
    let (mantissa, exponent) = (text.get(..e).unwrap_or_default(), text.get(e + 1..).unwrap_or_default());
    let mut digits = 0u64;
    let mut fraction_digits = 0i32;
    let mut after_point = false;
    for &b in mantissa {
        if b == b'.' {
            after_point = true;
        } else {
            digits = digits * 10 + u64::from(b.wrapping_sub(b'0'));
            fraction_digits += i32::from(after_point);
        }
    }
    let (negative, magnitude) = match exponent.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, exponent),
    };
    let magnitude = magnitude.iter().fold(0i32, |acc, &d| acc * 10 + i32::from(d.wrapping_sub(b'0')));
    let exponent = if negative { -magnitude } else { magnitude };
    Decimal { digits, exponent: exponent - fraction_digits }
}

/// Whether `abs` is exactly `twice_mid / 2 × 10^exponent`, i.e. `(10·twice_mid/2) × 10^(exponent-1)`
/// with an odd `5·twice_mid` (the midpoint ends in the digit 5). Exact integer arithmetic on
/// `abs = m × 2^e`.
fn is_midpoint(abs: f64, twice_mid: u64, exponent: i32) -> bool {
    // The midpoint is t × 10^j with t = 5·twice_mid (odd, since twice_mid is odd) and j = exponent - 1.
    let Some(t) = u128::from(twice_mid).checked_mul(5) else { return false };
    let j = exponent - 1;
    let (m, e) = odd_mantissa(abs);
    // t·10^j = t·5^j·2^j for j ≥ 0; for j < 0, abs·10^(-j) = t, i.e. m·5^(-j)·2^(e-j) = t.
    let five_pow = |k: i32| 5u128.checked_pow(k.unsigned_abs());
    if j >= 0 {
        e == j && five_pow(j).and_then(|p| t.checked_mul(p)) == Some(u128::from(m))
    } else {
        e == j && five_pow(j).and_then(|p| u128::from(m).checked_mul(p)) == Some(t)
    }
}

/// `abs = m × 2^e` with `m` odd (`abs` positive and finite).
fn odd_mantissa(abs: f64) -> (u64, i32) {
    let bits = abs.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mut m, mut e) = if biased == 0 { (fraction, -1074) } else { (fraction | (1 << 52), biased - 1075) };
    let zeros = m.trailing_zeros();
    m >>= zeros;
    e += zeros as i32;
    (m, e)
}

/// Whether `digits × 10^exponent` reads back to `abs` (a correctly rounded parse).
fn reads_back(digits: u64, exponent: i32, abs: f64) -> bool {
    let mut text = Scratch { buf: [0; SCRATCH], len: 0 };
    let _ = write!(text, "{digits}e{exponent}");
    std::str::from_utf8(text.buf.get(..text.len).unwrap_or_default())
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .is_some_and(|back| back == abs)
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
    let decimal = shortest_digits(abs);
    let mut text = [0u8; 20];
    let n = {
        let mut sink = crate::json::write::SliceSink::new(&mut text);
        put_u64(&mut sink, decimal.digits);
        sink.len()
    };
    let digits = text.get(..n).unwrap_or_default();
    // The decimal exponent of the first digit.
    let exponent = i64::from(decimal.exponent) + n as i64 - 1;
    let (first, rest) = digits.split_at(1.min(digits.len()));

    if (1e-6..1e21).contains(&abs) {
        // Plain notation of `first.rest × 10^exponent`: the point goes after `exponent + 1` digits.
        let n = n as i64;
        let point = exponent + 1;
        if point <= 0 {
            out.put(b"0.");
            put_zeros(out, (-point) as usize);
            out.put(digits);
        } else if point < n {
            let (int, frac) = digits.split_at(point as usize);
            out.put(int);
            out.put(b".");
            out.put(frac);
        } else {
            out.put(digits);
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
