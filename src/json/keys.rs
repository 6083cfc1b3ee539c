//! Duplicate-key detection for objects of any shape (J5.5, J5.9, D2): keys are compared after
//! decoding their escapes, so `"a"` and `"\u0061"` are the same key.
//!
//! Memory is eight bytes per key of the open objects, whatever the keys: each key is kept as a
//! 64-bit keyed hash, and the hashes of an object are sorted when it closes. Equal hashes are only
//! suspects: the object is then read again from the document and its suspect keys compared
//! decoded, so the verdict is exact. A re-read costs the object's size, so hashes must (almost)
//! never collide by chance: with 64 bits and a key the document cannot know, even 10^7 keys in one
//! object collide with odds of about 3 in a million (32 bits would collide in most objects of
//! 10^5 keys, and nested ones would then be re-read once per level). A duplicate is therefore
//! reported when its object closes, at the first key that repeats an earlier one (the offset an
//! immediate check would give); errors inside the object's values come first, which changes no
//! status: every error inside a raw value has the same one.

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

use super::{Event, JResult, JsonError, Parser, StringToken};

/// The keys of every object currently open inside a raw value, innermost last.
#[derive(Default)]
pub(crate) struct KeyFrames {
    /// The hashes of the keys of the open objects, in order; each frame owns a suffix.
    hashes: Vec<u64>,
    /// Per open object: where its hashes start, and the offset of its `{` in the document.
    frames: Vec<Frame>,
    /// Keyed (per process and table), so that no document can be built to collide.
    state: RandomState,
}

struct Frame {
    start: usize,
    object: usize,
}

impl KeyFrames {
    /// An object starts at offset `object` of the document.
    pub(crate) fn open(&mut self, object: usize) {
        self.frames.push(Frame { start: self.hashes.len(), object });
    }

    /// Forgets every open object (after an error, before reuse).
    pub(crate) fn clear(&mut self) {
        self.hashes.clear();
        self.frames.clear();
    }

    /// A key of the innermost object (its UTF-8 is checked here, J5.3).
    pub(crate) fn insert(&mut self, key: &StringToken<'_>) -> JResult<()> {
        let decoded = key.decode_bytes()?;
        if !self.frames.is_empty() {
            self.hashes.push(self.hash(&decoded));
        }
        Ok(())
    }

    /// The innermost object, whose text is `src[object..]`, ends: an error at the first key that
    /// repeats an earlier one.
    pub(crate) fn close(&mut self, src: &[u8]) -> JResult<()> {
        let Some(frame) = self.frames.pop() else {
            return Ok(());
        };
        let own = self.hashes.get_mut(frame.start..).unwrap_or_default();
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
                Event::Key(k) => keys.insert(&k)?,
                _ => {}
            }
            if p.depth() == 0 {
                return Ok(());
            }
        }
    }

    #[test]
    fn duplicates_are_found_at_their_second_occurrence() {
        let mut keys = KeyFrames::default();
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
        let mut keys = KeyFrames::default();
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
}
