//! Duplicate-key detection for objects of any shape (J5.5, J5.9, D2): keys are compared after
//! decoding their escapes, so `"a"` and `"\u0061"` are the same key.
//!
//! Memory is eight bytes per key of the open objects, whatever the keys. Most objects are small
//! and their keys have no escape: such a key is kept as its place in the document (offset and
//! length in one word), and when its object closes the keys are compared pairwise, as written,
//! which is their decoded text. Any other object (more than [`SMALL_OBJECT`] keys, an escaped
//! key, a place that does not fit the word) keeps each key as a 64-bit keyed hash, and the hashes
//! of an object are sorted when it closes. Equal hashes are only suspects: the object is then
//! read again from the document and its suspect keys compared decoded, so the verdict is exact.
//! A re-read costs the object's size, so hashes must (almost) never collide by chance: with 64
//! bits and a key the document cannot know, even 10^7 keys in one object collide with odds of
//! about 3 in a million (32 bits would collide in most objects of 10^5 keys, and nested ones
//! would then be re-read once per level). A duplicate is therefore reported when its object
//! closes, at the first key that repeats an earlier one (the offset an immediate check would
//! give); errors inside the object's values come first, which changes no status: every error
//! inside a raw value has the same one.
//!
//! Both ways give the same verdict; `tests::places_and_hashes_agree` holds them equal, with the
//! hashes alone as the plain rule.

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

use super::{Event, JResult, JsonError, Parser, Span, StringToken};

/// Objects of at most this many keys, none escaped, compare their keys pairwise
/// ([`first_repeat_pairwise`]: at most 120 compares, most of them settled by the length or the
/// first byte): cheaper than a keyed hash of each key (8 % of reading the realistic transcript
/// went to SipHash), and than a set of them (the converters' trees).
pub(crate) const SMALL_OBJECT: usize = 16;
/// A key's place in one word: the offset of its body in the low [`PLACE_OFFSET_BITS`] bits above
/// its length.
const PLACE_LEN_BITS: u32 = 24;
const PLACE_OFFSET_BITS: u32 = 64 - PLACE_LEN_BITS;

/// The keys of every object currently open inside a raw value, innermost last.
pub(crate) struct KeyFrames {
    /// Per key of the open objects, in order (each frame owns a suffix): its place in the
    /// document, or in a hashed frame its keyed hash.
    hashes: Vec<u64>,
    /// Per open object: where its keys start, the offset of its `{` in the document, and how
    /// its keys are kept.
    frames: Vec<Frame>,
    /// Keyed (per process and table), so that no document can be built to collide.
    state: RandomState,
    /// The most keys an object keeps as places ([`SMALL_OBJECT`]; 0 in tests: hashes only).
    small: usize,
}

impl Default for KeyFrames {
    fn default() -> KeyFrames {
        KeyFrames { hashes: Vec::new(), frames: Vec::new(), state: RandomState::new(), small: SMALL_OBJECT }
    }
}

struct Frame {
    start: usize,
    object: usize,
    /// Its keys are hashes (else places).
    hashed: bool,
}

/// A key body's place (`span` in the document) as one word, if it fits.
fn place(span: Span) -> Option<u64> {
    let offset = u64::try_from(span.start).ok().filter(|&o| o < 1 << PLACE_OFFSET_BITS)?;
    let len = u64::try_from(span.end - span.start).ok().filter(|&l| l < 1 << PLACE_LEN_BITS)?;
    Some(offset << PLACE_LEN_BITS | len)
}

/// The body of the key at `place` in `src`, and its offset.
fn placed(src: &[u8], place: u64) -> (&[u8], usize) {
    // Both fields came from a span of `src`: they fit a `usize` and lie within it.
    let start = usize::try_from(place >> PLACE_LEN_BITS).unwrap_or(usize::MAX);
    let len = usize::try_from(place & ((1 << PLACE_LEN_BITS) - 1)).unwrap_or(0);
    (src.get(start..start.saturating_add(len)).unwrap_or_default(), start)
}

/// The index of the first of an object's `n` keys that repeats an earlier one, by pairwise
/// compares of `key(i)` (the `i`-th key's decoded text): the check of a small object, here and in
/// the converters' trees.
pub(crate) fn first_repeat_pairwise<'k>(n: usize, key: impl Fn(usize) -> &'k [u8]) -> Option<usize> {
    (1..n).find(|&i| {
        let this = key(i);
        (0..i).any(|j| key(j) == this)
    })
}

impl KeyFrames {
    /// An object starts at offset `object` of the document.
    pub(crate) fn open(&mut self, object: usize) {
        self.frames.push(Frame { start: self.hashes.len(), object, hashed: self.small == 0 });
    }

    /// Forgets every open object (after an error, before reuse).
    pub(crate) fn clear(&mut self) {
        self.hashes.clear();
        self.frames.clear();
    }

    /// A key of the innermost object of the document `src` (its UTF-8 is checked here, J5.3).
    pub(crate) fn insert(&mut self, key: &StringToken<'_>, src: &[u8]) -> JResult<()> {
        let Some(frame) = self.frames.last_mut() else {
            return key.check_utf8();
        };
        if !frame.hashed {
            if !key.has_escapes()
                && self.hashes.len() - frame.start < self.small
                && let Some(at) = place(key.span())
            {
                key.check_utf8()?;
                self.hashes.push(at);
                return Ok(());
            }
            // From here on the frame keeps hashes: those of the keys placed so far first (they
            // have no escape, so their bodies are their decoded text).
            frame.hashed = true;
            let start = frame.start;
            for i in start..self.hashes.len() {
                if let Some(h) = self.hashes.get(i).map(|&at| self.hash(placed(src, at).0))
                    && let Some(slot) = self.hashes.get_mut(i)
                {
                    *slot = h;
                }
            }
        }
        let decoded = key.decode_bytes()?;
        self.hashes.push(self.hash(&decoded));
        Ok(())
    }

    /// The innermost object, whose text is `src[object..]`, ends: an error at the first key that
    /// repeats an earlier one.
    pub(crate) fn close(&mut self, src: &[u8]) -> JResult<()> {
        let Some(frame) = self.frames.pop() else {
            return Ok(());
        };
        let own = self.hashes.get_mut(frame.start..).unwrap_or_default();
        if !frame.hashed {
            // A place resolves with two shifts: no copy of the bodies is gathered first.
            let body = |i: usize| own.get(i).map_or(&[][..], |&at| placed(src, at).0);
            let repeat = first_repeat_pairwise(own.len(), body).and_then(|i| own.get(i)).map(|&at| placed(src, at).1);
            self.hashes.truncate(frame.start);
            return repeat.map_or(Ok(()), |offset| Err(JsonError::invalid(offset)));
        }
        own.sort_unstable();
        let suspects: HashSet<u64> =
            own.windows(2).filter(|w| w.first() == w.last()).filter_map(|w| w.first().copied()).collect();
        self.hashes.truncate(frame.start);
        if suspects.is_empty() {
            return Ok(());
        }
        self.first_repeat(src.get(frame.object..).unwrap_or_default(), &suspects)
            .map_err(|at| JsonError::invalid(frame.object + at))
    }

    fn hash(&self, decoded: &[u8]) -> u64 {
        self.state.hash_one(decoded)
    }

    /// Reads the object at the start of `text` again and returns the offset (in `text`) of its
    /// first key that repeats an earlier one among those whose hash is in `suspects`.
    fn first_repeat(&self, text: &[u8], suspects: &HashSet<u64>) -> Result<(), usize> {
        let mut p = Parser::new(text);
        let mut seen: HashSet<Cow<'_, [u8]>> = HashSet::new();
        // The object was read once already: nothing here can fail, and a failure ends the search.
        while let Ok(event) = p.next() {
            match event {
                Event::Key(key) if p.depth() == 1 => {
                    let Ok(decoded) = key.decode_bytes() else { return Ok(()) };
                    if suspects.contains(&self.hash(&decoded)) && !seen.insert(decoded) {
                        return Err(key.span().start);
                    }
                }
                Event::ObjectEnd if p.depth() == 0 => return Ok(()),
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `doc` (one raw value) with the frames, as `Parser::raw_from` does.
    fn check(doc: &[u8], keys: &mut KeyFrames) -> JResult<()> {
        let mut p = Parser::new(doc);
        loop {
            match p.next()? {
                Event::ObjectStart => keys.open(p.token_start()),
                Event::ObjectEnd => keys.close(doc)?,
                Event::Key(k) => keys.insert(&k, doc)?,
                _ => {}
            }
            if p.depth() == 0 {
                return Ok(());
            }
        }
    }

    #[test]
    fn duplicates_are_found_at_their_second_occurrence() {
        for small in [SMALL_OBJECT, 0] {
            found_at_their_second_occurrence(KeyFrames { small, ..KeyFrames::default() });
        }
    }

    fn found_at_their_second_occurrence(mut keys: KeyFrames) {
        let cases: [(&str, Option<&str>); 9] = [
            (r#"{"a":1,"b":2}"#, None),
            (r#"{"a":1,"a":2}"#, Some(r#"a":2}"#)),
            (r#"{"a":1,"\u0061":2}"#, Some(r#"\u0061":2}"#)),
            (r#"{"a":{"a":1},"b":[{"a":1,"b":2}]}"#, None),
            (r#"{"x":{"a":1,"b":2,"a":3}}"#, Some(r#"a":3}}"#)),
            (r#"{"a":1,"b":{"c":1},"c":2,"b":3}"#, Some(r#"b":3}"#)),
            (r#"[{"a":1},{"a":1}]"#, None),
            (r#"{"":1,"":2}"#, Some(r#"":2}"#)),
            (r#"{"k":1,"l":2,"m":3,"l":4,"k":5}"#, Some(r#"l":4,"k":5}"#)),
        ];
        for (doc, want) in cases {
            let got = check(doc.as_bytes(), &mut keys).map_err(|e| doc.get(e.offset..).unwrap_or_default());
            assert_eq!(got.err(), want, "{doc}");
            keys.clear();
        }
    }

    /// With every hash equal (the worst collision), the verdict is still exact: the re-read
    /// compares keys, not hashes.
    #[test]
    fn colliding_hashes_are_not_duplicates() {
        let mut keys = KeyFrames { small: 0, ..KeyFrames::default() };
        let doc = br#"{"a":1,"b":2,"c":{"d":1,"e":2}}"#;
        let mut p = Parser::new(doc);
        loop {
            match p.next().unwrap() {
                Event::ObjectStart => keys.open(p.token_start()),
                Event::ObjectEnd => keys.close(doc).unwrap(),
                Event::Key(_) => keys.hashes.push(7),
                _ => {}
            }
            if p.depth() == 0 {
                break;
            }
        }
        // The re-read compares the decoded keys of every suspect hash.
        let suspects: HashSet<u64> = [b"a".as_slice(), b"b"].iter().map(|k| keys.hash(k)).collect();
        assert_eq!(keys.first_repeat(br#"{"a":1,"b":2,"c":3}"#, &suspects), Ok(()));
        let dup = br#"{"a":1,"b":{"b":0},"\u0062":3}"#;
        let at = keys.first_repeat(dup, &suspects).unwrap_err();
        assert_eq!(&dup[at..], br#"\u0062":3}"#);
    }

    /// Places compared pairwise (the fast path) against hashes alone (the plain rule), on random
    /// nested objects of 0 to 40 keys (so across `SMALL_OBJECT`) drawn from keys that collide as
    /// written and through escapes, some of them escaped part-way through an object: the same
    /// verdict and the same offset every time.
    #[test]
    fn places_and_hashes_agree() {
        let keys = [r#""a""#, r#""b""#, r#""ab""#, r#""""#, r#""é""#, r#""\u0061""#, r#""\u00e9""#, r#""a\"""#];
        let mut random = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15u64);
        let mut next = move |n: u64| random() % n;
        fn object(next: &mut dyn FnMut(u64) -> u64, keys: &[&str], depth: u32) -> String {
            let members = next(41) as usize;
            let escaped = next(3) == 0;
            let distinct = next(2) == 0;
            let body: Vec<String> = (0..members)
                .map(|i| {
                    // Distinct keys (no duplicate at all) half the time, so long objects pass too.
                    let key = if distinct {
                        format!(r#""k{i}""#)
                    } else {
                        keys[next(if escaped { keys.len() as u64 } else { 5 }) as usize].to_string()
                    };
                    let value =
                        if depth < 3 && next(6) == 0 { object(next, keys, depth + 1) } else { next(9).to_string() };
                    format!("{key}:{value}")
                })
                .collect();
            format!("{{{}}}", body.join(","))
        }
        let (mut fast, mut plain) = (KeyFrames::default(), KeyFrames { small: 0, ..KeyFrames::default() });
        let mut failures = 0;
        for _ in 0..20_000 {
            let doc = object(&mut next, &keys, 0);
            let (a, b) = (check(doc.as_bytes(), &mut fast), check(doc.as_bytes(), &mut plain));
            assert_eq!(a.as_ref().map_err(|e| e.offset), b.as_ref().map_err(|e| e.offset), "{doc}");
            failures += usize::from(a.is_err());
            fast.clear();
            plain.clear();
        }
        // Both verdicts occur often.
        assert!((2_000..18_000).contains(&failures), "{failures}");
    }
}
