//! Typed reading on top of the parser: objects with a fixed set of keys, scalars with the J5.6–J5.8
//! rules, and raw values with the J5.9 checks.

use super::{Event, JResult, JsonError, Key, KeyFrames, Layout, Parser, PlainPrefix, Seen, Span, StringToken};

/// A raw JSON value kept as text (J5.9): its span in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawValue(pub(crate) Span);

impl<'a> Parser<'a> {
    fn invalid(&self) -> JsonError {
        JsonError::invalid(self.token_start())
    }

    /// Reads an object of layout `L` whose first event is `first`: for each key, finds its field
    /// (exact bytes after decoding, J5.5) and calls `f` to read the value. Unknown and repeated
    /// keys are errors.
    pub(crate) fn read_fields<L: Layout>(
        &mut self,
        first: Event<'a>,
        mut f: impl FnMut(&mut Parser<'a>, L) -> JResult<()>,
    ) -> JResult<Seen<L>> {
        if first != Event::ObjectStart {
            return Err(self.invalid());
        }
        let mut seen = 0u64;
        loop {
            let (index, at) = match self.next_key(L::KEYS)? {
                None => return Ok(Seen::new(seen)),
                Some(Key::Field(index, at)) => (Some(index), at),
                // Layout names are ASCII: an unescaped key matches by its raw bytes, and one that
                // matches nothing is an error whatever its encoding.
                Some(Key::Token(key)) if key.has_escapes() => {
                    let name = key.decode()?;
                    (L::NAMES.iter().position(|f| *f == name), key.span().start)
                }
                Some(Key::Token(key)) => {
                    (L::NAMES.iter().position(|f| short_eq(f.as_bytes(), key.raw())), key.span().start)
                }
            };
            let Some((index, &field)) = index.and_then(|i| Some((i, L::ALL.get(i)?))) else {
                return Err(JsonError::invalid(at));
            };
            let bit = 1u64 << index;
            if seen & bit != 0 {
                return Err(JsonError::invalid(at));
            }
            seen |= bit;
            f(self, field)?;
        }
    }

    /// Pulls a value that must be an object of layout `L` (see [`Parser::read_fields`]).
    pub(crate) fn fields<L: Layout>(&mut self, f: impl FnMut(&mut Parser<'a>, L) -> JResult<()>) -> JResult<Seen<L>> {
        let first = self.next()?;
        self.read_fields(first, f)
    }

    /// Pulls a value that is `null` (→ `None`) or an object of layout `L`.
    pub(crate) fn fields_or_null<L: Layout>(
        &mut self,
        f: impl FnMut(&mut Parser<'a>, L) -> JResult<()>,
    ) -> JResult<Option<Seen<L>>> {
        match self.next()? {
            Event::Null => Ok(None),
            first => self.read_fields(first, f).map(Some),
        }
    }

    /// Pulls an array and calls `element` with the first event of each element (J5.1 has
    /// checked the grammar; `element` decides what an element may be).
    pub(crate) fn array_of(&mut self, element: impl FnMut(&mut Parser<'a>, Event<'a>) -> JResult<()>) -> JResult<()> {
        let first = self.next()?;
        self.read_array(first, element)
    }

    /// Pulls an array of unsigned integers no greater than `max` (J5.6) and calls `element` with
    /// each: [`Parser::array_of`] with [`Parser::unsigned_of`] on every element, the common elements
    /// read without their events.
    pub(crate) fn unsigned_array_of(
        &mut self,
        max: u64,
        mut element: impl FnMut(&mut Parser<'a>, u64) -> JResult<()>,
    ) -> JResult<()> {
        if self.next()? != Event::ArrayStart {
            return Err(self.invalid());
        }
        loop {
            let value = match self.next_if_small_unsigned(max) {
                Some(value) => value,
                None => match self.next()? {
                    Event::ArrayEnd => return Ok(()),
                    e => self.unsigned_of(e, max)?,
                },
            };
            element(self, value)?;
        }
    }

    /// [`Parser::array_of`] with its first event already pulled: anything but an array is an error.
    pub(crate) fn read_array(
        &mut self,
        first: Event<'a>,
        mut element: impl FnMut(&mut Parser<'a>, Event<'a>) -> JResult<()>,
    ) -> JResult<()> {
        if first != Event::ArrayStart {
            return Err(self.invalid());
        }
        loop {
            match self.next()? {
                Event::ArrayEnd => return Ok(()),
                e => element(self, e)?,
            }
        }
    }

    /// J5.6 unsigned integer of an event: digits only, at most `max`.
    pub(crate) fn unsigned_of(&self, event: Event<'a>, max: u64) -> JResult<u64> {
        let Event::Number(text) = event else {
            return Err(self.invalid());
        };
        parse_unsigned(text).filter(|v| *v <= max).ok_or_else(|| self.invalid())
    }

    /// Pulls a u64 (J5.6).
    pub(crate) fn u64(&mut self) -> JResult<u64> {
        let e = self.next()?;
        self.unsigned_of(e, u64::MAX)
    }

    /// Pulls a u64 or `null`.
    pub(crate) fn u64_or_null(&mut self) -> JResult<Option<u64>> {
        match self.next()? {
            Event::Null => Ok(None),
            e => self.unsigned_of(e, u64::MAX).map(Some),
        }
    }

    /// Pulls a u8 (J5.6).
    pub(crate) fn u8(&mut self) -> JResult<u8> {
        let e = self.next()?;
        self.unsigned_of(e, u64::from(u8::MAX)).map(|v| v as u8)
    }

    /// Pulls a u16 (J5.6).
    pub(crate) fn u16(&mut self) -> JResult<u16> {
        let e = self.next()?;
        self.unsigned_of(e, u64::from(u16::MAX)).map(|v| v as u16)
    }

    /// J5.6 signed integer of an event: optional `-`, digits, within i64.
    pub(crate) fn signed_of(&self, event: Event<'a>) -> JResult<i64> {
        let Event::Number(text) = event else {
            return Err(self.invalid());
        };
        let (negative, digits) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, text),
        };
        let magnitude = parse_unsigned(digits).ok_or_else(|| self.invalid())?;
        if negative {
            if magnitude > i64::MIN.unsigned_abs() {
                return Err(self.invalid());
            }
            Ok((magnitude as i64).wrapping_neg())
        } else {
            i64::try_from(magnitude).map_err(|_| self.invalid())
        }
    }

    /// Pulls an i64 (J5.6).
    pub(crate) fn i64(&mut self) -> JResult<i64> {
        let e = self.next()?;
        self.signed_of(e)
    }

    /// J5.7 float of an event: any JSON number, nearest binary64; overflow is an error.
    pub(crate) fn float_of(&self, event: Event<'a>) -> JResult<f64> {
        let Event::Number(text) = event else {
            return Err(self.invalid());
        };
        // The grammar was checked: the text is ASCII and a valid Rust float literal.
        let value: f64 = std::str::from_utf8(text).ok().and_then(|t| t.parse().ok()).ok_or_else(|| self.invalid())?;
        if value.is_finite() { Ok(value) } else { Err(self.invalid()) }
    }

    /// Pulls an i64 (J5.6) or `null`.
    pub(crate) fn i64_or_null(&mut self) -> JResult<Option<i64>> {
        match self.next()? {
            Event::Null => Ok(None),
            e => self.signed_of(e).map(Some),
        }
    }

    /// Pulls a float (J5.7) or `null`.
    pub(crate) fn f64_or_null(&mut self) -> JResult<Option<f64>> {
        match self.next()? {
            Event::Null => Ok(None),
            e => self.float_of(e).map(Some),
        }
    }

    /// Pulls a string (J5.8) and decodes it (J5.4) into an owned `String`.
    pub(crate) fn owned_string(&mut self) -> JResult<String> {
        Ok(self.str()?.decode()?.into_owned())
    }

    /// Pulls a boolean (J5.8).
    pub(crate) fn bool(&mut self) -> JResult<bool> {
        match self.next()? {
            Event::Bool(b) => Ok(b),
            _ => Err(self.invalid()),
        }
    }

    /// Pulls a string (J5.8), UTF-8 checked (J5.3).
    #[inline(always)]
    pub(crate) fn str(&mut self) -> JResult<StringToken<'a>> {
        if let Some(s) = self.next_if_string()? {
            s.check_utf8()?;
            return Ok(s);
        }
        let e = self.next()?;
        self.str_of(e)
    }

    /// Pulls a string (J5.8) that should be one of the names of `L` (an enumeration such as a
    /// role): its token, UTF-8 checked, and the variant when the string is that name as written.
    /// `None` for any other string, escaped names included, which the caller then looks up.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn str_named<L: Layout>(&mut self) -> JResult<(StringToken<'a>, Option<L>)> {
        if let Some((index, token)) = self.next_if_name(L::KEYS) {
            return Ok((token, L::ALL.get(index).copied()));
        }
        Ok((self.str()?, None))
    }

    /// The string of an event, UTF-8 checked.
    pub(crate) fn str_of(&self, event: Event<'a>) -> JResult<StringToken<'a>> {
        match event {
            Event::String(s) => {
                s.check_utf8()?;
                Ok(s)
            }
            _ => Err(self.invalid()),
        }
    }

    /// Pulls a string or `null`.
    #[inline(always)]
    pub(crate) fn str_or_null(&mut self) -> JResult<Option<StringToken<'a>>> {
        if let Some(s) = self.next_if_string()? {
            s.check_utf8()?;
            return Ok(Some(s));
        }
        match self.next()? {
            Event::Null => Ok(None),
            e => self.str_of(e).map(Some),
        }
    }

    /// [`Parser::str_or_null`] with a fast scanner for the start of the string (see
    /// [`Parser::next_with_plain_prefix`]); also returns the run `R` found at its start.
    pub(crate) fn str_or_null_with_plain_prefix<R: PlainPrefix>(&mut self) -> JResult<Option<(StringToken<'a>, R)>> {
        match self.next_with_plain_prefix::<R>()? {
            (Event::Null, _) => Ok(None),
            (e, run) => {
                let s = self.str_of(e)?;
                run.map(|run| Some((s, run))).ok_or_else(|| self.invalid())
            }
        }
    }

    /// Pulls a raw value (J5.9): any JSON value, with UTF-8 and duplicate keys checked throughout.
    /// `keys` is scratch space reused between calls.
    pub(crate) fn raw(&mut self, keys: &mut KeyFrames) -> JResult<RawValue> {
        let first = self.next()?;
        self.raw_from(first, keys)
    }

    /// [`Parser::raw`] with its first event already pulled.
    pub(crate) fn raw_from(&mut self, first: Event<'a>, keys: &mut KeyFrames) -> JResult<RawValue> {
        let start = self.token_start();
        let base = match first {
            Event::ObjectStart | Event::ArrayStart => self.depth().saturating_sub(1),
            Event::String(s) => {
                s.check_utf8()?;
                return Ok(RawValue(Span { start, end: self.pos() }));
            }
            _ => return Ok(RawValue(Span { start, end: self.pos() })),
        };
        keys.clear();
        let mut event = first;
        loop {
            match event {
                Event::ObjectStart => keys.open(self.token_start()),
                Event::ObjectEnd => keys.close(self.src())?,
                Event::Key(k) => keys.insert(&k, self.src())?,
                Event::String(s) => s.check_utf8()?,
                Event::Number(_) => self.numbers_after_number()?,
                Event::ArrayStart => self.arrays_after_array()?,
                Event::ArrayEnd => self.ends_after_array_end(base),
                _ => {}
            }
            if self.depth() == base {
                break;
            }
            event = self.next_inline()?;
        }
        Ok(RawValue(Span { start, end: self.pos() }))
    }
}

/// Byte equality for short keys, inline: cheaper than a `bcmp` call per candidate field name.
#[inline]
fn short_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Digits only (no sign, fraction or exponent), within u64 (J5.6).
///
/// Up to 19 digits cannot leave u64 (10^19 - 1 < 2^64), so they are summed without overflow
/// checks: on wasm32 a checked 64-bit multiply is a call to a 128-bit multiply per digit (1.5 %
/// of validating the realistic transcript there). Longer numbers take [`parse_unsigned_plain`],
/// the rule written out, which a test holds equal to this.
fn parse_unsigned(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > MAX_UNCHECKED_DIGITS {
        return parse_unsigned_plain(text);
    }
    text.iter().try_fold(0u64, |acc, &b| b.is_ascii_digit().then(|| acc * 10 + u64::from(b - b'0')))
}

/// The most digits whose value always fits in u64.
const MAX_UNCHECKED_DIGITS: usize = 19;

/// [`parse_unsigned`]'s rule, each step checked.
fn parse_unsigned_plain(text: &[u8]) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.iter().try_fold(0u64, |acc, &b| {
        if !b.is_ascii_digit() {
            return None;
        }
        acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::MAX_DEPTH;

    /// The unchecked sum of up to 19 digits agrees with the checked rule on every length from 0
    /// to 25 digits: around 2^64 (the largest values of 19 and 20 digits, u64::MAX and its
    /// neighbours), leading zeros, a byte that is not a digit at each place, and seeded random
    /// digit strings.
    #[test]
    fn unchecked_digits_agree_with_the_checked_rule() {
        let mut cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"0".to_vec(),
            b"9999999999999999999".to_vec(),
            b"10000000000000000000".to_vec(),
            b"18446744073709551615".to_vec(),
            b"18446744073709551616".to_vec(),
            b"18446744073709551619".to_vec(),
            b"99999999999999999999".to_vec(),
            b"0000000000000000000018446744073709551615".to_vec(),
        ];
        let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15u64);
        for len in 0..=25 {
            for _ in 0..200 {
                let digits: Vec<u8> = (0..len).map(|_| b'0' + (next() % 10) as u8).collect();
                cases.push(digits);
            }
            let nines = vec![b'9'; len];
            for at in 0..len {
                for bad in [b'/', b':', b'-', b'.', b'e', 0x80] {
                    let mut wrong = nines.clone();
                    if let Some(b) = wrong.get_mut(at) {
                        *b = bad;
                    }
                    cases.push(wrong);
                }
            }
            cases.push(nines);
        }
        for text in &cases {
            assert_eq!(parse_unsigned(text), parse_unsigned_plain(text), "{:?}", String::from_utf8_lossy(text));
        }
        assert_eq!(parse_unsigned(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_unsigned(b"18446744073709551616"), None);
        assert_eq!(parse_unsigned(b"9999999999999999999"), Some(9_999_999_999_999_999_999));
    }

    /// Reads `doc` (an array) with `unsigned_array_of` and with `array_of` + `unsigned_of`, the
    /// path it shortcuts: values, or the error and its offset, and where the parser stops.
    fn both(doc: &str, max: u64) -> [(JResult<Vec<u64>>, usize); 2] {
        let mut fast = Parser::new(doc.as_bytes());
        let mut values = Vec::new();
        let a = fast.unsigned_array_of(max, |_, v| {
            values.push(v);
            Ok(())
        });
        let a = (a.map(|()| values), fast.pos());
        let mut slow = Parser::new(doc.as_bytes());
        let mut values = Vec::new();
        let b = slow.array_of(|p, e| {
            values.push(p.unsigned_of(e, max)?);
            Ok(())
        });
        let b = (b.map(|()| values), slow.pos());
        [a, b]
    }

    #[test]
    fn unsigned_arrays_read_as_their_events() {
        let docs = [
            "[]",
            "[0]",
            "[0,1,2]",
            "[ 0 , 1 ,2 ]",
            "[\n7\t]",
            "[255]",
            "[256]",
            "[00]",
            "[01]",
            "[-1]",
            "[1.0]",
            "[1e2]",
            "[1E2]",
            "[1,]",
            "[,1]",
            "[1 2]",
            "[1",
            "[1,",
            "[",
            "[null]",
            "[\"1\"]",
            "[1,[2]]",
            "[1]x",
            "[999999999999999999]",
            "[9999999999999999999]",
            "[99999999999999999999]",
            "[18446744073709551615]",
            "[18446744073709551616]",
            "[1}",
            "{}",
            "1",
            "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
        ];
        for doc in docs {
            for max in [255, u64::MAX] {
                let [fast, slow] = both(doc, max);
                assert_eq!(fast, slow, "{doc} (max {max})");
            }
        }
    }
    /// The value at `depth` (after `depth` leading `[`) as [`Parser::raw`] reads it, by pulling
    /// every event with `next` (which reads one token per call, with no run of numbers or
    /// brackets): its span or the error's offset, and where the parser stops. Strings are not in these documents, and each object has one key.
    fn raw_by_events(doc: &[u8], depth: usize) -> (Result<(usize, usize), usize>, usize) {
        let mut p = Parser::new(doc);
        let walked = (|| {
            while p.depth() < depth {
                p.next()?;
            }
            let first = p.next()?;
            let start = p.token_start();
            if matches!(first, Event::ArrayStart | Event::ObjectStart) {
                while p.depth() > depth {
                    p.next()?;
                }
            }
            Ok((start, p.pos()))
        })();
        (walked.map_err(|e: JsonError| e.offset), p.pos())
    }

    /// [`Parser::raw`] on the value at `depth` (the first one there: `depth` leading `[`).
    fn raw_at(doc: &[u8], depth: usize) -> (Result<(usize, usize), usize>, usize) {
        let mut p = Parser::new(doc);
        let got = (|| {
            while p.depth() < depth {
                p.next()?;
            }
            p.raw(&mut KeyFrames::default()).map(|r| (r.0.start, r.0.end))
        })();
        (got.map_err(|e| e.offset), p.pos())
    }

    /// Arrays of numbers as tool inputs carry them, with whitespace, nesting and broken numbers
    /// among them: `raw` (which reads a run of numbers after a number in one loop) gives the span,
    /// error offset and end position that pulling every event gives.
    #[test]
    fn raw_runs_of_numbers_read_as_their_events() {
        #[rustfmt::skip]
        const PIECES: [&str; 20] = [
            "1", "-2", "0", "3.25", "-0.1234567", "6e9", "7E-1", ",", ",", ",", " ", "[", "]", "-", "1.",
            "01", r#"{"k":5}"#, r#"{"k":5,6}"#, r#"{"k":[1]}"#, r#"{"k":[[1]]]"#,
        ];
        let mut next = crate::testing::xorshift(0x6A09_E667_F3BC_C909);
        for _ in 0..100_000 {
            let mut doc = String::from("[");
            for _ in 0..next() % 30 {
                doc.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            if !next().is_multiple_of(4) {
                doc.push(']');
            }
            for depth in [0, 1] {
                assert_eq!(raw_at(doc.as_bytes(), depth), raw_by_events(doc.as_bytes(), depth), "{doc} at {depth}");
            }
        }
    }

    /// Runs of brackets as deep as J5.2 allows and one deeper, alone and inside an array (a raw
    /// value that ends before the document's last `]`), with and without a number inside: `raw`
    /// (which reads a run of `[` or `]` in one loop) gives what pulling every event gives.
    #[test]
    fn raw_runs_of_brackets_read_as_their_events() {
        for depth in [1, 2, 63, 64, 65, 128, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
            for inner in ["", "7", "[]", "1,[2]", "{}"] {
                let nest = format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth));
                for doc in [nest.clone(), format!("[{nest},1]"), format!("[{nest}]]"), format!("{nest}x")] {
                    let doc = doc.as_bytes();
                    for at in [0, 1] {
                        assert_eq!(raw_at(doc, at), raw_by_events(doc, at), "depth {depth}, inside {inner}, at {at}");
                    }
                }
            }
        }
    }
}
