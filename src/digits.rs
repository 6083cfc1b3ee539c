//! Digit values by table, shared by the readers of numeric character references (summary XML) and
//! of `\u` escapes (JSON).

/// The value of each byte as a digit: `0`–`9`, `a`–`f` and `A`–`F`; 0xFF for every other byte.
pub(crate) const DIGIT_VALUE: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut b = 0;
    while b < 256 {
        #[allow(clippy::indexing_slicing)] // b < 256
        {
            t[b] = match b as u8 {
                c @ b'0'..=b'9' => c - b'0',
                c @ b'a'..=b'f' => c - b'a' + 10,
                c @ b'A'..=b'F' => c - b'A' + 10,
                _ => 0xFF,
            };
        }
        b += 1;
    }
    t
};

/// The value of four hex digits (either case), or `None` when `bytes` are not four hex digits: a
/// table lookup per digit, without a branch per digit.
#[inline]
pub(crate) fn hex4_value(bytes: &[u8]) -> Option<u32> {
    let &[a, b, c, d] = bytes else { return None };
    let [a, b, c, d] = [a, b, c, d].map(|x| DIGIT_VALUE.get(usize::from(x)).copied().unwrap_or(0xFF));
    // A digit's value is under 16; every other byte's is 0xFF.
    if (a | b | c | d) > 0x0F {
        return None;
    }
    Some(u32::from(a) << 12 | u32::from(b) << 8 | u32::from(c) << 4 | u32::from(d))
}
