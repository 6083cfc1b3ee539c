//! Where in a JSON document a byte offset lies, as a path of layout names and indices (SPEC
//! C13.2): `transcript[3].blocks[0].type`. Used only to diagnose a document that failed, so it
//! walks the document again from the start; it never echoes a key: a key that is not one of the
//! layout names given ends the path.

use core::fmt::Write as _;

use super::{CheckedArray, ErrorKind, Event, Parser, StringToken};

/// Capacity of [`Diagnostic::location`](crate::diagnostic::Diagnostic::location) with its NUL
/// (`LC_LOCATION_CAP` in C).
pub const LOCATION_CAP: usize = 128;

/// What the walk found at the offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The path to the value, key or position holding the offset.
    pub(crate) location: Location,
    /// The layout names of the path, indices left out (`transcript`, `blocks`, `type` for
    /// `transcript[3].blocks[0].type`).
    pub(crate) names: Vec<&'static str>,
    /// What the token at the offset is.
    pub(crate) token: TokenKind,
}

/// The token that holds the offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// The grammar fails there (J5.1) or nests too deep (J5.2).
    Syntax(bool),
    /// A key (unknown or repeated, J5.5).
    Key,
    /// A number.
    Number,
    /// A string.
    String,
    /// `true`, `false` or `null`.
    Literal,
    /// `{`, `[`, or the end of an object or array (a key missing there).
    Container,
    /// Between tokens, or the end of the document.
    Other,
}

#[derive(Clone, Copy)]
enum Frame<'a> {
    /// In an object: no key yet (`None`), or the last key read, named only once the walk has
    /// found the offset (most keys are passed by, and naming each cost more than reading it).
    Object(Option<StringToken<'a>>),
    /// In an array: no element yet, or at element `i`.
    Array(Option<usize>),
}

/// The array type of [`no_array_scan`]: there is none.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Unscanned {}

impl CheckedArray for Unscanned {
    fn start(self) -> usize {
        match self {}
    }

    fn end(self) -> usize {
        match self {}
    }
}

/// The array scan of a document that has none: [`locate`] walks every array.
pub(crate) fn no_array_scan(_: &[u8], _: usize) -> Option<Unscanned> {
    None
}

/// The path to `offset` in `src`, naming keys only by the layout names in `names`.
///
/// `scan` is the document's own scan of an array from its `[` (a fingerprint's `Stop` array of a
/// million strings, say, [`no_array_scan`] for none): an array it checks that ends before the
/// offset is passed over whole, as its reader passed over it, not token by token.
pub(crate) fn locate<C: CheckedArray>(
    src: &[u8],
    offset: usize,
    names: &[&'static str],
    scan: impl Fn(&[u8], usize) -> Option<C>,
) -> Found {
    // One UTF-8 check of the whole document rather than one per string: the same errors at the
    // same offsets (`Parser::new_utf8_checked`).
    let mut p = Parser::new_utf8_checked(src);
    let mut frames: Vec<Frame<'_>> = Vec::new();
    let found = |frames: &[Frame<'_>], token| found(frames, token, names);
    loop {
        let event = p.next_inline();
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                let token = TokenKind::Syntax(e.kind == ErrorKind::Syntax && p.depth() >= super::MAX_DEPTH);
                return found(&frames, token);
            }
        };
        let (start, end) = (p.token_start(), p.pos());
        let is_value = !matches!(event, Event::Key(_) | Event::ObjectEnd | Event::ArrayEnd);
        if is_value && let Some(Frame::Array(at)) = frames.last_mut() {
            *at = Some(at.map_or(0, |i| i + 1));
        }
        if offset < start {
            // Passed it: the offset lies between tokens.
            return found(&frames, TokenKind::Other);
        }
        let here = offset < end.max(start + 1);
        match event {
            Event::Key(key) => {
                if let Some(Frame::Object(slot)) = frames.last_mut() {
                    *slot = Some(key);
                }
                if here {
                    // The key itself: the path ends at its object.
                    if let Some(Frame::Object(slot)) = frames.last_mut() {
                        *slot = None;
                    }
                    return found(&frames, TokenKind::Key);
                }
            }
            Event::ObjectStart | Event::ArrayStart if here => return found(&frames, TokenKind::Container),
            Event::ObjectStart => frames.push(Frame::Object(None)),
            Event::ArrayStart => {
                let before = scan(src, start).filter(|array| array.end() <= offset);
                match before {
                    Some(array) if p.skip_checked_array(array) => {
                        if frames.is_empty() {
                            return after_the_document(offset, array.end());
                        }
                    }
                    _ => frames.push(Frame::Array(None)),
                }
            }
            Event::ObjectEnd | Event::ArrayEnd => {
                if here {
                    if let Some(Frame::Object(slot)) = frames.last_mut() {
                        *slot = None;
                    }
                    if let Some(Frame::Array(at)) = frames.last_mut() {
                        *at = None;
                    }
                    return found(&frames, TokenKind::Container);
                }
                frames.pop();
                if frames.is_empty() {
                    return after_the_document(offset, end);
                }
            }
            Event::Number(_) if here => return found(&frames, TokenKind::Number),
            Event::String(_) if here => return found(&frames, TokenKind::String),
            Event::Bool(_) | Event::Null if here => return found(&frames, TokenKind::Literal),
            _ => {}
        }
        if frames.is_empty() && is_value {
            return after_the_document(offset, end);
        }
    }
}

/// The top-level value ended at `end`: an offset past it is a second value or other bytes after
/// the document (J5.1).
fn after_the_document(offset: usize, end: usize) -> Found {
    found(&[], if offset >= end { TokenKind::Syntax(false) } else { TokenKind::Other }, &[])
}

fn found(frames: &[Frame<'_>], token: TokenKind, known: &[&'static str]) -> Found {
    let mut location = PathBuilder::default();
    let mut names = Vec::new();
    for frame in frames {
        match *frame {
            Frame::Object(Some(key)) => {
                // Decoded once, then compared with each name (not decoded once per name).
                let name = key.decode().ok().and_then(|k| known.iter().copied().find(|n| *n == k));
                // An unknown key: nothing of it is named, and nothing below it.
                let Some(name) = name else { break };
                location.push_name(name);
                names.push(name);
            }
            Frame::Array(Some(i)) => location.push_index(i),
            Frame::Object(None) | Frame::Array(None) => {}
        }
    }
    Found { location: location.finish(), names, token }
}

/// A path of layout names and indices in a fixed buffer (C13.2): `transcript[3].blocks[0].type`.
/// Built only from static names and numbers; a path longer than the buffer keeps its start and
/// ends in `...`.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Location {
    buf: [u8; LOCATION_CAP - 1],
    len: usize,
}

impl core::fmt::Debug for Location {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.as_str().fmt(f)
    }
}

impl Location {
    pub(crate) const EMPTY: Location = Location { buf: [0; LOCATION_CAP - 1], len: 0 };

    /// A location of one static name.
    pub(crate) fn name(name: &'static str) -> Location {
        Location::path(name)
    }

    /// The location of a whole path (`basis.revision`), cut to the buffer with `...` at the end.
    pub(crate) fn path(path: &str) -> Location {
        const ELLIPSIS: &[u8] = b"...";
        let mut location = Location::EMPTY;
        let bytes = path.as_bytes();
        let (head, tail): (&[u8], &[u8]) = if bytes.len() <= location.buf.len() {
            (bytes, b"")
        } else {
            (bytes.get(..location.buf.len() - ELLIPSIS.len()).unwrap_or_default(), ELLIPSIS)
        };
        for (slot, &b) in location.buf.iter_mut().zip(head.iter().chain(tail)) {
            *slot = b;
        }
        location.len = head.len() + tail.len();
        location
    }

    pub(crate) fn as_str(&self) -> &str {
        core::str::from_utf8(self.buf.get(..self.len).unwrap_or_default()).unwrap_or_default()
    }
}

/// Builds a [`Location`]: layout names joined by `.`, indices as `[i]`, in a string first so that
/// the cut to the buffer happens once, at the end.
#[derive(Default)]
pub(crate) struct PathBuilder(String);

impl PathBuilder {
    /// Appends `.name` (or `name` at the start).
    pub(crate) fn push_name(&mut self, name: &'static str) {
        if !self.0.is_empty() {
            self.0.push('.');
        }
        self.0.push_str(name);
    }

    /// Appends `[index]`.
    pub(crate) fn push_index(&mut self, index: usize) {
        let _ = write!(self.0, "[{index}]");
    }

    pub(crate) fn finish(&self) -> Location {
        Location::path(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["transcript", "blocks", "type", "text", "role"];

    fn at(doc: &str, marker: &str) -> (String, TokenKind) {
        let offset = doc.find(marker).unwrap();
        let found = locate(doc.as_bytes(), offset, NAMES, no_array_scan);
        (found.location.as_str().to_owned(), found.token)
    }

    #[test]
    fn paths_name_layout_keys_and_indices() {
        let doc = r#"{"transcript":[{"role":"user","blocks":[{"type":"text","text":"a"},{"type":"x"}]}]}"#;
        assert_eq!(at(doc, r#""x""#), ("transcript[0].blocks[1].type".to_owned(), TokenKind::String));
        assert_eq!(at(doc, r#""user""#), ("transcript[0].role".to_owned(), TokenKind::String));
        assert_eq!(at(doc, r#""role""#), ("transcript[0]".to_owned(), TokenKind::Key));
    }

    #[test]
    fn unknown_keys_are_never_named() {
        let doc = r#"{"transcript":[{"SECRET":{"a":1}}]}"#;
        let (location, token) = at(doc, r#""SECRET""#);
        assert_eq!((location.as_str(), token), ("transcript[0]", TokenKind::Key));
        let (location, _) = at(doc, "1}");
        assert_eq!(location, "transcript[0]");
    }

    #[test]
    fn arrays_passed_over_whole_give_the_walk_s_answers() {
        // A document's own array scan (a fingerprint's `Stop`) changes no answer: at every offset
        // of documents with such arrays (top level, nested, empty, with escapes and non-ASCII,
        // followed by an error), and of every prefix of them.
        const NAMES: &[&str] = &["Model", "Stop", "Limits"];
        let docs = [
            r#"{"Model":{"Stop":["a","b\n","\u00e9","é"],"Limits":1},"Stop":[]}"#,
            r#"["a","b"]"#,
            r#"{"Stop":["a","b"],"Stop":["c"]} x"#,
            r#"{"Stop":["a",1,"b"],"Model":[["x"],"y"]}"#,
            r#"{"Stop":["a","b\q"]}"#,
        ];
        for doc in docs {
            for cut in 0..=doc.len() {
                let Some(src) = doc.get(..cut) else { continue };
                for offset in 0..=src.len() {
                    let walked = locate(src.as_bytes(), offset, NAMES, no_array_scan);
                    let scanned = locate(src.as_bytes(), offset, NAMES, crate::fingerprint::stop_array_end);
                    assert_eq!(walked, scanned, "{src:?} at {offset}");
                }
            }
        }
    }

    #[test]
    fn syntax_errors_stop_where_the_grammar_fails() {
        let doc = r#"{"transcript":[{"role":"user",]}"#;
        let found = locate(doc.as_bytes(), doc.find(",]").unwrap() + 1, NAMES, no_array_scan);
        assert_eq!(found.token, TokenKind::Syntax(false));
        assert_eq!(found.location.as_str(), "transcript[0].role");
    }
}
