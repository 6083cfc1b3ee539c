//! Duplicate-key detection for objects of any shape (J5.5, J5.9, D2): keys are compared after
//! decoding their escapes, so `"a"` and `"\u0061"` are the same key.

use std::borrow::Cow;
use std::collections::HashSet;

use super::{JResult, JStr, JsonError};

/// Objects with more keys than this switch from a linear scan to a hash set, so that 10^5 keys in
/// one object stay linear in time.
const LINEAR_LIMIT: usize = 16;

/// One open object: 16 bytes, so that 10000 nested objects (J5.2) cost little; only objects with
/// many keys pay for a hash set.
struct Frame<'a> {
    start: usize,
    #[allow(clippy::box_collection, reason = "a boxed set keeps every frame at 16 bytes")]
    set: Option<Box<HashSet<Cow<'a, [u8]>>>>,
}

/// The keys of every object currently open inside a raw value, innermost last.
#[derive(Default)]
pub(crate) struct KeyFrames<'a> {
    keys: Vec<Cow<'a, [u8]>>,
    frames: Vec<Frame<'a>>,
}

impl<'a> KeyFrames<'a> {
    /// An object starts.
    pub(crate) fn open(&mut self) {
        self.frames.push(Frame { start: self.keys.len(), set: None });
    }

    /// The innermost object ends.
    pub(crate) fn close(&mut self) {
        if let Some(frame) = self.frames.pop() {
            self.keys.truncate(frame.start);
        }
    }

    /// Forgets every open object (after an error, before reuse).
    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.frames.clear();
    }

    /// A key of the innermost object: an error if it was already seen in that object.
    pub(crate) fn insert(&mut self, key: &JStr<'a>) -> JResult<()> {
        let duplicate = JsonError::invalid(key.span().start);
        let decoded: Cow<'a, [u8]> = match key.decode()? {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        };
        let Some(frame) = self.frames.last_mut() else {
            return Ok(());
        };
        if let Some(set) = &mut frame.set {
            return if set.insert(decoded) { Ok(()) } else { Err(duplicate) };
        }
        let current = self.keys.get(frame.start..).unwrap_or_default();
        if current.contains(&decoded) {
            return Err(duplicate);
        }
        if current.len() < LINEAR_LIMIT {
            self.keys.push(decoded);
        } else {
            let mut set: HashSet<Cow<'a, [u8]>> = self.keys.drain(frame.start..).collect();
            set.insert(decoded);
            frame.set = Some(Box::new(set));
        }
        Ok(())
    }
}
