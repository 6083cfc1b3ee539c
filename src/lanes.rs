//! 32-byte blocks compared a vector at a time, for the scans over text: JSON strings (J5.1) and
//! summary character data and attribute values (X4.5–X4.8, X4.11).
//!
//! A scan asks of each block which of its bytes need a closer look, as a 32-bit mask (bit `k` for
//! byte `k`), and then visits only those bytes. [`Lanes`] is the vector those questions are asked
//! in: 32 lanes of one byte, each comparison giving `0xFF` where it holds and `0` where it does not,
//! and [`Lanes::mask`] gathering the lanes' top bits into the mask.
//!
//! On x86 and x86-64 with SSE2 (the x86-64 baseline), a block is two SSE2 registers and the mask
//! is two `pmovmskb`, through `safe_arch`'s safe wrappers of `core::arch`: the core stays free of
//! `unsafe`. Without the intrinsic, the compiler cannot form that gather from scalar code: it took
//! a dozen shifts and ors, or a multiplication per eight lanes. On wasm32 built with the `simd128`
//! target feature (the JavaScript package's build), a block is two `v128` and the mask two
//! `i8x16.bitmask`, through `core::arch::wasm32`, whose intrinsics are safe functions, and a set of
//! control bytes ([`Lanes::in_low`]) is one `i8x16.swizzle` of a table (a wasm
//! engine without SIMD refuses the whole module when it compiles it, so no instruction can run
//! where it is missing). Elsewhere (aarch64, wasm32 without `simd128`), the portable lanes below
//! are plain arrays, which the compiler vectorises where it can, and the mask is gathered by
//! multiplication. The portable implementation is compiled on every target and the tests compare
//! the target's own against it and against a byte model (scripts/test-wasm runs them on wasm32,
//! with and without `simd128`).

/// The portable implementation: 32 bytes of `0` or `0xFF` per comparison. (On SSE2 and `simd128`
/// targets, the tests' reference only.)
#[derive(Clone, Copy)]
#[cfg_attr(
    any(
        all(any(target_arch = "x86", target_arch = "x86_64"), target_feature = "sse2"),
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    allow(dead_code)
)]
pub(crate) struct Portable([u8; 32]);

#[cfg_attr(
    any(
        all(any(target_arch = "x86", target_arch = "x86_64"), target_feature = "sse2"),
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    allow(dead_code)
)]
impl Portable {
    #[inline(always)]
    fn map(self, other: Self, f: impl Fn(u8, u8) -> u8) -> Self {
        let mut out = [0u8; 32];
        for ((o, &a), &b) in out.iter_mut().zip(&self.0).zip(&other.0) {
            *o = f(a, b);
        }
        Self(out)
    }

    #[inline(always)]
    fn load(block: &[u8; 32]) -> Self {
        Self(*block)
    }

    #[inline(always)]
    fn splat(b: u8) -> Self {
        Self([b; 32])
    }

    #[inline(always)]
    fn eq(self, other: Self) -> Self {
        self.map(other, |a, b| if a == b { 0xFF } else { 0 })
    }

    #[inline(always)]
    fn lt_signed(self, other: Self) -> Self {
        self.map(other, |a, b| if (a as i8) < (b as i8) { 0xFF } else { 0 })
    }

    #[inline(always)]
    fn min_unsigned(self, other: Self) -> Self {
        self.map(other, u8::min)
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        self.map(other, |a, b| a | b)
    }

    #[inline(always)]
    fn in_low(self, set: u16) -> Self {
        let mut out = [0u8; 32];
        for (o, &a) in out.iter_mut().zip(&self.0) {
            *o = if a < 16 && set >> a & 1 == 1 { 0xFF } else { 0 };
        }
        Self(out)
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        self.map(other, |a, b| a & !b)
    }

    /// Bit `k`: the top bit of lane `k`. Each eight lanes' top bits are gathered into a byte by one
    /// multiplication: bit `8j` of the word (the lane's top bit shifted down to its bottom) times bit
    /// `56 - 7j` of the constant lands on bit `56 + j`, and no two products share a bit.
    #[inline(always)]
    fn mask(self) -> u32 {
        let mut mask = 0u32;
        for (k, word) in self.0.chunks_exact(8).enumerate() {
            let x = word.try_into().map(u64::from_le_bytes).unwrap_or_default() >> 7 & 0x0101_0101_0101_0101;
            mask |= ((x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32) << (8 * k);
        }
        mask
    }
}

#[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), target_feature = "sse2"))]
mod sse2 {
    use safe_arch::{
        bitandnot_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i, load_unaligned_m128i, m128i,
        min_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };

    /// Two SSE2 registers: bytes 0–15, then 16–31.
    #[derive(Clone, Copy)]
    pub(crate) struct Sse2(m128i, m128i);

    impl Sse2 {
        #[inline(always)]
        fn map(self, other: Self, f: impl Fn(m128i, m128i) -> m128i) -> Self {
            Self(f(self.0, other.0), f(self.1, other.1))
        }

        #[inline(always)]
        pub(super) fn load(block: &[u8; 32]) -> Self {
            let (lo, hi) = block.split_at(16);
            let half = |h: &[u8]| <&[u8; 16]>::try_from(h).map_or(m128i::default(), load_unaligned_m128i);
            Self(half(lo), half(hi))
        }

        #[inline(always)]
        pub(super) fn splat(b: u8) -> Self {
            let v = set_splat_i8_m128i(b as i8);
            Self(v, v)
        }

        #[inline(always)]
        pub(super) fn eq(self, other: Self) -> Self {
            self.map(other, cmp_eq_mask_i8_m128i)
        }

        #[inline(always)]
        pub(super) fn lt_signed(self, other: Self) -> Self {
            self.map(other, cmp_lt_mask_i8_m128i)
        }

        #[inline(always)]
        pub(super) fn min_unsigned(self, other: Self) -> Self {
            self.map(other, min_u8_m128i)
        }

        #[inline(always)]
        pub(super) fn or(self, other: Self) -> Self {
            self.map(other, bitor_m128i)
        }

        /// SSE2 has no byte shuffle (`pshufb` is SSSE3): an equality per member of the set, which
        /// the compiler unrolls for a constant set (and merges where it can, as for `\t` `\n`).
        #[inline(always)]
        pub(super) fn in_low(self, set: u16) -> Self {
            let mut acc = Self(m128i::default(), m128i::default());
            for k in 0..16u8 {
                if set >> k & 1 == 1 {
                    acc = acc.or(self.eq(Self::splat(k)));
                }
            }
            acc
        }

        #[inline(always)]
        pub(super) fn and_not(self, other: Self) -> Self {
            // `bitandnot_m128i(a, b)` is `!a & b`.
            self.map(other, |a, b| bitandnot_m128i(b, a))
        }

        #[inline(always)]
        pub(super) fn mask(self) -> u32 {
            // Each `pmovmskb` gives 16 bits in the low half of an `i32`.
            (move_mask_i8_m128i(self.0) as u32 & 0xFFFF) | (move_mask_i8_m128i(self.1) as u32) << 16
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::{
        i8x16_lt, i8x16_swizzle, u8x16_bitmask, u8x16_eq, u8x16_min, u8x16_splat, v128, v128_andnot, v128_or,
    };

    /// Two wasm `v128`: bytes 0–15, then 16–31.
    #[derive(Clone, Copy)]
    pub(crate) struct Simd128(v128, v128);

    /// Sixteen bytes as a `v128`: one `v128.load`. (`v128_load` takes a raw pointer, and a vector
    /// built from the 16 bytes as lanes compiles to 16 one-byte lane loads.)
    #[inline(always)]
    fn half(h: &[u8; 16]) -> v128 {
        bytemuck::cast(*h)
    }

    impl Simd128 {
        #[inline(always)]
        fn map(self, other: Self, f: impl Fn(v128, v128) -> v128) -> Self {
            Self(f(self.0, other.0), f(self.1, other.1))
        }

        #[inline(always)]
        pub(super) fn load(block: &[u8; 32]) -> Self {
            let (lo, hi) = block.split_at(16);
            let part = |h: &[u8]| <&[u8; 16]>::try_from(h).map_or(u8x16_splat(0), half);
            Self(part(lo), part(hi))
        }

        #[inline(always)]
        pub(super) fn splat(b: u8) -> Self {
            let v = u8x16_splat(b);
            Self(v, v)
        }

        #[inline(always)]
        pub(super) fn eq(self, other: Self) -> Self {
            self.map(other, |a, b| u8x16_eq(a, b))
        }

        #[inline(always)]
        pub(super) fn lt_signed(self, other: Self) -> Self {
            self.map(other, |a, b| i8x16_lt(a, b))
        }

        #[inline(always)]
        pub(super) fn min_unsigned(self, other: Self) -> Self {
            self.map(other, |a, b| u8x16_min(a, b))
        }

        #[inline(always)]
        pub(super) fn or(self, other: Self) -> Self {
            self.map(other, |a, b| v128_or(a, b))
        }

        /// One `i8x16.swizzle` of a 16-byte table per half: a lane's byte indexes the table, and an
        /// index from 16 up gives 0. (The same set as equalities, `\t` `\n` `\r` say, the compiler
        /// merges into unsigned range compares, which wasm engines expand into several instructions
        /// each on x86: twice the work of the whole block's other compares.)
        #[inline(always)]
        pub(super) fn in_low(self, set: u16) -> Self {
            let mut table = [0u8; 16];
            for (k, t) in table.iter_mut().enumerate() {
                *t = if set >> k & 1 == 1 { 0xFF } else { 0 };
            }
            let table = half(&table);
            Self(i8x16_swizzle(table, self.0), i8x16_swizzle(table, self.1))
        }

        #[inline(always)]
        pub(super) fn and_not(self, other: Self) -> Self {
            // `v128_andnot(a, b)` is `a & !b`.
            self.map(other, |a, b| v128_andnot(a, b))
        }

        #[inline(always)]
        pub(super) fn mask(self) -> u32 {
            // `i8x16.bitmask`: the lanes' top bits, 16 of them.
            u32::from(u8x16_bitmask(self.0)) | u32::from(u8x16_bitmask(self.1)) << 16
        }
    }
}

#[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), target_feature = "sse2"))]
type Imp = sse2::Sse2;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Imp = simd128::Simd128;
#[cfg(not(any(
    all(any(target_arch = "x86", target_arch = "x86_64"), target_feature = "sse2"),
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
type Imp = Portable;

/// 32 lanes of one byte. Comparisons give `0xFF` in each lane where they hold, `0` elsewhere.
#[derive(Clone, Copy)]
pub(crate) struct Lanes(Imp);

impl Lanes {
    /// The block's bytes, one per lane.
    #[inline(always)]
    pub(crate) fn load(block: &[u8; 32]) -> Self {
        Self(Imp::load(block))
    }

    /// Lanes equal to `b`.
    #[inline(always)]
    pub(crate) fn eq(self, b: u8) -> Self {
        Self(self.0.eq(Imp::splat(b)))
    }

    /// Lanes below `b`, both read as `i8`: for `b` in `0..=0x7F`, the bytes below `b` and every
    /// byte from `0x80` up; for `b` from `0x80` up, the bytes from `0x80` to below `b`.
    #[inline(always)]
    pub(crate) fn lt_signed(self, b: u8) -> Self {
        Self(self.0.lt_signed(Imp::splat(b)))
    }

    /// Lanes at most `b`, both read as `u8`.
    #[inline(always)]
    pub(crate) fn le(self, b: u8) -> Self {
        Self(self.0.min_unsigned(Imp::splat(b)).eq(self.0))
    }

    /// Lanes whose byte is below 16 and a member of `set` (bit `b` for byte `b`): the control
    /// characters of a set, such as `\t` `\n` `\r`. On wasm `simd128` one table lookup
    /// (`i8x16.swizzle`) per half; elsewhere an equality per member.
    #[inline(always)]
    pub(crate) fn in_low(self, set: u16) -> Self {
        Self(self.0.in_low(set))
    }

    /// Each lane's byte with the bits of `b` set (a bitwise or, not a comparison): with
    /// [`Lanes::eq`], one compare for the bytes that differ only in those bits.
    #[inline(always)]
    pub(crate) fn or_byte(self, b: u8) -> Self {
        Self(self.0.or(Imp::splat(b)))
    }

    /// Lanes set in either.
    #[inline(always)]
    pub(crate) fn or(self, other: Self) -> Self {
        Self(self.0.or(other.0))
    }

    /// Lanes set in `self` and not in `other`.
    #[inline(always)]
    pub(crate) fn and_not(self, other: Self) -> Self {
        Self(self.0.and_not(other.0))
    }

    /// Bit `k` set when lane `k` is set.
    #[inline(always)]
    pub(crate) fn mask(self) -> u32 {
        self.0.mask()
    }
}

/// The offset of the first byte of `s` in a set, 32 bytes a step: `lanes` marks the set's bytes in
/// a block, `byte` tells whether one byte is in it (the same set, for the bytes after the last
/// whole block).
#[inline(always)]
pub(crate) fn position(s: &[u8], lanes: impl Fn(Lanes) -> Lanes, byte: impl Fn(u8) -> bool) -> Option<usize> {
    let mut blocks = s.chunks_exact(32);
    let mut at = 0;
    for block in &mut blocks {
        if let Ok(block) = <&[u8; 32]>::try_from(block) {
            let m = lanes(Lanes::load(block)).mask();
            if m != 0 {
                return Some(at + m.trailing_zeros() as usize);
            }
        }
        at += 32;
    }
    blocks.remainder().iter().position(|&b| byte(b)).map(|k| at + k)
}

/// The offset of the first occurrence of `needle` (two bytes or more) in `haystack`: blocks whose
/// lanes hold the needle's first byte where the lanes `needle.len() - 1` bytes on hold its last,
/// each candidate then compared whole.
pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, &last) = (needle.first()?, needle.last()?);
    let shift = needle.len() - 1;
    let mut at = 0;
    while let (Some(a), Some(b)) = (haystack.get(at..at + 32), haystack.get(at + shift..at + shift + 32)) {
        if let (Ok(a), Ok(b)) = (<&[u8; 32]>::try_from(a), <&[u8; 32]>::try_from(b)) {
            let mut m = Lanes::load(a).eq(first).mask() & Lanes::load(b).eq(last).mask();
            while m != 0 {
                let k = at + m.trailing_zeros() as usize;
                if haystack.get(k..k + needle.len()) == Some(needle) {
                    return Some(k);
                }
                m &= m - 1;
            }
        }
        at += 32;
    }
    let tail = haystack.get(at..).unwrap_or_default();
    tail.windows(needle.len()).position(|w| w == needle).map(|k| at + k)
}

/// The length of the run of `byte` that starts `s` (the offset of its first other byte, or the
/// length of `s`), 32 bytes a step.
pub(crate) fn run_of(s: &[u8], byte: u8) -> usize {
    let mut at = 0;
    while let Some(block) = s.get(at..at + 32).and_then(|b| <&[u8; 32]>::try_from(b).ok()) {
        let other = !Lanes::load(block).eq(byte).mask();
        if other != 0 {
            return at + other.trailing_zeros() as usize;
        }
        at += 32;
    }
    let tail = s.get(at..).unwrap_or_default();
    at + tail.iter().position(|&b| b != byte).unwrap_or(tail.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes' answers, as the portable implementation gives them and as a byte-by-byte model.
    fn portable_mask(block: &[u8; 32], f: impl Fn(Portable) -> Portable) -> u32 {
        f(Portable::load(block)).mask()
    }

    fn model_mask(block: &[u8; 32], f: impl Fn(u8) -> bool) -> u32 {
        block.iter().enumerate().fold(0, |m, (k, &b)| m | u32::from(f(b)) << k)
    }

    /// Every operation, on blocks of every byte value at every lane, in both implementations (the
    /// one this target uses and the portable one), against the byte model.
    #[test]
    fn lanes_agree_with_the_byte_model() {
        let mut next = crate::xorshift(0x9E37_79B9_7F4A_7C15u64);
        for round in 0..4000u32 {
            let mut block = [0u8; 32];
            for (k, b) in block.iter_mut().enumerate() {
                // Every byte value in every lane within the first 256 rounds, then random ones.
                *b = if round < 256 { (round as usize + k * 37) as u8 } else { next() as u8 };
            }
            let x = (next() % 256) as u8;
            let y = (next() % 128) as u8;
            let set = next() as u16;
            let v = Lanes::load(&block);
            let in_set = |b: u8| b < 16 && set >> b & 1 == 1;
            let cases: [(u32, u32, u32); 8] = [
                (v.eq(x).mask(), portable_mask(&block, |p| p.eq(Portable::splat(x))), model_mask(&block, |b| b == x)),
                (
                    v.lt_signed(y).mask(),
                    portable_mask(&block, |p| p.lt_signed(Portable::splat(y))),
                    model_mask(&block, |b| (b as i8) < (y as i8)),
                ),
                (
                    v.le(x).mask(),
                    portable_mask(&block, |p| p.min_unsigned(Portable::splat(x)).eq(p)),
                    model_mask(&block, |b| b <= x),
                ),
                (
                    v.eq(x).or(v.eq(y)).mask(),
                    portable_mask(&block, |p| p.eq(Portable::splat(x)).or(p.eq(Portable::splat(y)))),
                    model_mask(&block, |b| b == x || b == y),
                ),
                (
                    v.le(x).and_not(v.eq(y)).mask(),
                    portable_mask(&block, |p| {
                        p.min_unsigned(Portable::splat(x)).eq(p).and_not(p.eq(Portable::splat(y)))
                    }),
                    model_mask(&block, |b| b <= x && b != y),
                ),
                (v.in_low(set).mask(), portable_mask(&block, |p| p.in_low(set)), model_mask(&block, in_set)),
                (
                    v.or_byte(y).eq(x).mask(),
                    portable_mask(&block, |p| p.or(Portable::splat(y)).eq(Portable::splat(x))),
                    model_mask(&block, |b| b | y == x),
                ),
                (
                    v.lt_signed(0x20).and_not(v.in_low(set)).mask(),
                    portable_mask(&block, |p| p.lt_signed(Portable::splat(0x20)).and_not(p.in_low(set))),
                    model_mask(&block, |b| (b as i8) < 0x20 && !in_set(b)),
                ),
            ];
            for (k, (target, portable, model)) in cases.into_iter().enumerate() {
                assert_eq!(target, model, "operation {k}, block {block:?}, x {x}, y {y}");
                assert_eq!(portable, model, "portable operation {k}, block {block:?}, x {x}, y {y}");
            }
        }
        // A block of one byte value: every lane.
        assert_eq!(Lanes::load(&[7; 32]).eq(7).mask(), u32::MAX);
    }

    proptest::proptest! {
        /// Each operation of the target's lanes (SSE2, wasm `simd128` or portable) against the
        /// portable lanes, on any block and any operands: the gathered mask of the raw bytes too.
        #[test]
        fn target_lanes_agree_with_the_portable_lanes(block: [u8; 32], x: u8, y: u8, set: u16) {
            let v = Lanes::load(&block);
            let p = Portable::load(&block);
            let (px, py) = (Portable::splat(x), Portable::splat(y));
            proptest::prop_assert_eq!(v.mask(), p.mask());
            proptest::prop_assert_eq!(v.eq(x).mask(), p.eq(px).mask());
            proptest::prop_assert_eq!(v.lt_signed(y).mask(), p.lt_signed(py).mask());
            proptest::prop_assert_eq!(v.le(x).mask(), p.min_unsigned(px).eq(p).mask());
            proptest::prop_assert_eq!(v.eq(x).or(v.le(y)).mask(), p.eq(px).or(p.min_unsigned(py).eq(p)).mask());
            proptest::prop_assert_eq!(v.lt_signed(x).and_not(v.eq(y)).mask(), p.lt_signed(px).and_not(p.eq(py)).mask());
            proptest::prop_assert_eq!(v.in_low(set).mask(), p.in_low(set).mask());
            proptest::prop_assert_eq!(v.or_byte(y).eq(x).mask(), p.or(py).eq(px).mask());
            proptest::prop_assert_eq!(v.le(x).and_not(v.in_low(set)).mask(), p.min_unsigned(px).eq(p).and_not(p.in_low(set)).mask());
        }
    }

    /// `position` and `find` against the byte loops they replace, on random haystacks of a small
    /// alphabet (so that needles occur, overlap and are cut by block edges) of every length to 130.
    #[test]
    fn searches_agree_with_the_byte_loops() {
        let mut next = crate::xorshift(0xD1B5_4A32_D192_ED03);
        let needles: [&[u8]; 5] = [b"::", b"%25", b"ab", b"aaa", b"b"];
        for _ in 0..20_000 {
            let len = (next() % 130) as usize;
            // Every third haystack is mostly one byte, so runs cross whole blocks.
            let alphabet: &[u8] =
                if next().is_multiple_of(3) { b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" } else { b"ab:%25" };
            let hay: Vec<u8> = (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
            for needle in needles {
                let want = hay.windows(needle.len()).position(|w| w == needle);
                assert_eq!(find(&hay, needle), want, "{hay:?} {needle:?}");
            }
            for byte in [b'a', b':', b'%', b'x'] {
                let want = hay.iter().position(|&b| b == byte);
                assert_eq!(position(&hay, |v| v.eq(byte), |b| b == byte), want, "{hay:?} {byte}");
                let run = hay.iter().take_while(|&&b| b == byte).count();
                assert_eq!(run_of(&hay, byte), run, "{hay:?} {byte}");
            }
        }
    }
}
