//! Where in a JSON document a byte offset lies, as a path of layout names and indices (SPEC
//! C13.2): `transcript[3].blocks[0].type`. Used only to diagnose a document that failed, so it
//! walks the document again from the start; it never echoes a key: a key that is not one of the
//! layout names given ends the path.

use core::fmt::Write as _;

use super::{CheckedArray, ErrorKind, Event, Parser, StringToken};
use crate::lanes::Lanes;

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
/// `offset` is where a reader of the document stopped: every object or array that ends before it
/// was accepted whole (J5.1–J5.3), as a document's reader accepts what it reads before failing
/// (or any offset of a valid document). Such a container is passed over whole, by a scan of its
/// brackets and strings ([`accepted_end`]), not token by token: the token walk it saves gives the
/// same answer there, and a 1 MB document failing at its end is one scan, not a million tokens.
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
    walk(src, offset, names, scan, true)
}

/// [`locate`]; `skip`: whether accepted containers are passed over whole (`false`: the token walk
/// alone, which the tests compare it with).
fn walk<C: CheckedArray>(
    src: &[u8],
    offset: usize,
    names: &[&'static str],
    scan: impl Fn(&[u8], usize) -> Option<C>,
    skip: bool,
) -> Found {
    // Scans that find no end before the offset (the containers around it) cost their bytes for
    // nothing; they stop once they have cost twice the bytes before the offset, so that a document
    // nested deep around its offset is not scanned once per level.
    let mut budget = if skip { 2 * offset.min(src.len()) + 64 } else { 0 };
    // A document that is one container ending before the offset (an error after its end): no
    // parser, no UTF-8 check, no walk.
    let root = src.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if let Some(start) = root.filter(|&start| skip && start < offset)
        && let Some(end) = accepted_end(src, start, offset, &mut budget)
    {
        return after_the_document(offset, end);
    }
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
            Event::ObjectStart | Event::ArrayStart => {
                let checked = match event {
                    Event::ArrayStart => scan(src, start).filter(|array| array.end() <= offset),
                    _ => None,
                };
                let skipped = match checked {
                    Some(array) if p.skip_checked_array(array) => Some(array.end()),
                    // The top level's was tried before the walk.
                    _ if frames.is_empty() => None,
                    _ => accepted_end(src, start, offset, &mut budget)
                        .filter(|&end| p.skip_accepted_container(start, end)),
                };
                match skipped {
                    Some(end) if frames.is_empty() => return after_the_document(offset, end),
                    Some(_) => {}
                    None if matches!(event, Event::ObjectStart) => frames.push(Frame::Object(None)),
                    None => frames.push(Frame::Array(None)),
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

/// The end (just past its `}` or `]`) of the object or array whose opening byte is at `open`, when
/// it closes before `limit`; `None` when it does not, or when something in it is not what valid
/// JSON has there (a `\\` outside a string, a closing byte of the other kind, nesting deeper than
/// J5.2 allows), or when `budget` (bytes a scan may yet cost for nothing) is spent.
///
/// Reads only brackets, quotes and backslashes, 32 bytes at a time ([`Lanes`]): the bytes before
/// `limit` are known valid JSON ([`locate`]), so those alone tell where each string and container
/// ends.
fn accepted_end(src: &[u8], open: usize, limit: usize, budget: &mut usize) -> Option<usize> {
    let region = src.get(..limit.min(src.len()))?;
    let object = match region.get(open) {
        Some(b'{') => true,
        Some(b'[') => false,
        _ => return None,
    };
    if *budget == 0 {
        return None;
    }
    let mut depth = 1usize;
    let mut in_string = false;
    // The byte after a backslash, which nothing reads as a quote.
    let mut escaped_at = usize::MAX;
    let mut visit = |at: usize, b: u8| -> Option<Option<usize>> {
        if at == escaped_at {
            return Some(None);
        }
        match b {
            b'"' => in_string = !in_string,
            b'\\' if in_string => escaped_at = at + 1,
            b'\\' => return None,
            _ if in_string => {}
            b'[' | b'{' => {
                depth += 1;
                if depth > super::MAX_DEPTH {
                    return None;
                }
            }
            _ => {
                depth -= 1;
                if depth == 0 {
                    return if (b == b'}') == object { Some(Some(at + 1)) } else { None };
                }
            }
        }
        Some(None)
    };
    let mut i = open + 1;
    let found = 'scan: {
        while let Some(block) = region.get(i..i + 32).and_then(|b| <&[u8; 32]>::try_from(b).ok()) {
            let lanes = Lanes::load(block);
            let mut mask = lanes
                .eq(b'"')
                .or(lanes.eq(b'\\'))
                .or(lanes.eq(b'['))
                .or(lanes.eq(b']'))
                .or(lanes.eq(b'{'))
                .or(lanes.eq(b'}'))
                .mask();
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let at = i + k;
                let Some(&b) = block.get(k) else { break 'scan None };
                match visit(at, b) {
                    Some(None) => {}
                    Some(Some(end)) => break 'scan Some(end),
                    None => break 'scan None,
                }
            }
            i += 32;
        }
        for (at, &b) in region.iter().enumerate().skip(i) {
            if matches!(b, b'"' | b'\\' | b'[' | b']' | b'{' | b'}') {
                match visit(at, b) {
                    Some(None) => {}
                    Some(Some(end)) => break 'scan Some(end),
                    None => break 'scan None,
                }
            }
        }
        None
    };
    if found.is_none() {
        *budget = budget.saturating_sub(region.len() - open);
    }
    found
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

/// Whether a reader of `src` accepts every container that ends before `offset`: the first error
/// of the token walk, if any, is at or after it ([`locate`]'s promise).
#[cfg(any(test, fuzzing))]
fn accepted_before(src: &[u8], offset: usize) -> bool {
    let mut p = Parser::new(src);
    loop {
        if let Err(e) = p.next() {
            return e.offset >= offset;
        }
    }
}

/// The differential of [`locate`]'s skips (the fuzz target `json_locate`, and the tests): at every
/// offset of `src` where a reader can stop, `locate` with the R10.5 `Stop` scan and without any
/// scan gives what the token walk alone gives; at the other offsets it only returns. `Err` says
/// what differed.
#[cfg(any(test, fuzzing))]
pub(crate) fn skips_against_walk(src: &[u8], names: &[&'static str]) -> Result<usize, String> {
    let mut compared = 0;
    for offset in 0..=src.len() + 1 {
        let stop = locate(src, offset, names, crate::fingerprint::stop_array_end);
        let bare = locate(src, offset, names, no_array_scan);
        if accepted_before(src, offset) {
            let walked = walk(src, offset, names, no_array_scan, false);
            if stop != walked || bare != walked {
                return Err(format!("at {offset}: walk {walked:?}, with the Stop scan {stop:?}, without {bare:?}"));
            }
            compared += 1;
        }
    }
    Ok(compared)
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
                    let walked = walk(src.as_bytes(), offset, NAMES, no_array_scan, false);
                    let scanned = walk(src.as_bytes(), offset, NAMES, crate::fingerprint::stop_array_end, false);
                    assert_eq!(walked, scanned, "{src:?} at {offset}");
                }
            }
        }
    }

    /// [`locate`] against the token walk alone, at every offset a reader can stop at, of `doc`
    /// and of every prefix of it; at the other offsets it must only return.
    fn skips_agree_with_the_walk(doc: &[u8], names: &[&'static str]) -> usize {
        let mut compared = 0;
        for cut in 0..=doc.len() {
            let src = &doc[..cut];
            compared +=
                skips_against_walk(src, names).unwrap_or_else(|e| panic!("{:?} {e}", String::from_utf8_lossy(src)));
        }
        compared
    }

    #[test]
    fn containers_passed_over_whole_give_the_walk_s_answers() {
        // Brackets, quotes and backslashes inside strings, escapes at the edges of 32-byte
        // blocks, empty and nested containers, whitespace, non-ASCII, errors, bytes after the end.
        const NAMES: &[&str] = &["transcript", "blocks", "type", "text", "role", "Stop", "Model"];
        let long = "x".repeat(29);
        let docs = [
            r#"{"transcript":[{"role":"a]}\"[{","blocks":[[],{},[1,{"type":null}]]}],"text":true} x"#.to_owned(),
            format!(r#"[ {{ "a" : [ "{long}\\" , "{long}\"]" ] }} , [ [ ] ] , "{long}\u005d" ] ]"#),
            format!(r#"{{"Stop":["a","{long}"],"Model":{{"Stop":[]}},"text":"\\\\\"{long}"}}{{}}"#),
            r#"{"transcript":[{"role":"é€😀","blocks":[{"type":"text","text":"[[{{"}]}],"role":1.5e3}"#.to_owned(),
            r#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["x"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] 1"#.to_owned(),
            r#"{"transcript":[{"role":"user",]},{"blocks":[1 2]}],"text":"\q"}"#.to_owned(),
            "\n\t[\r\n{\"type\" :\n[\"a\\\\\"]}\n,\n[]\n]\n\n".to_owned(),
        ];
        let mut compared = 0;
        for doc in &docs {
            compared += skips_agree_with_the_walk(doc.as_bytes(), NAMES);
        }
        assert!(compared > 10_000, "{compared}");
    }

    #[test]
    fn generated_documents_passed_over_whole_give_the_walk_s_answers() {
        // Documents from a small generator (a fixed sequence of pseudo-random choices), each
        // compared at every offset of every prefix.
        let mut seed = 7u64;
        let mut compared = 0;
        for _ in 0..60 {
            let mut doc = String::new();
            while doc.len() < 20 {
                doc.clear();
                value(&mut doc, &mut seed, 0);
            }
            doc.truncate(doc.floor_char_boundary(400));
            compared += skips_agree_with_the_walk(doc.as_bytes(), GENERATED_NAMES);
        }
        assert!(compared > 100_000, "{compared}");
    }

    const GENERATED_NAMES: &[&str] = &["a", "b", "Stop"];

    /// A JSON value from a small generator driven by `seed` (a pseudo-random sequence): strings
    /// with brackets, quotes and backslashes in them, long ones, keys of [`GENERATED_NAMES`].
    fn value(out: &mut String, seed: &mut u64, depth: u32) {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let pick = match depth {
            0 => 4 + (*seed >> 33) % 2,
            1..=4 => (*seed >> 33) % 6,
            _ => (*seed >> 33) % 4,
        };
        let strings = ["\"a\"", "\"]}\\\"[{\"", "\"\\\\\"", "\"é\"", "\"a_very_long_string_of_more_than_32_bytes[\""];
        match pick {
            0 => out.push_str(strings[(*seed >> 20) as usize % strings.len()]),
            1 => out.push_str(["1", "-2.5e1", "0"][(*seed >> 20) as usize % 3]),
            2 => out.push_str(["true", "null", "false"][(*seed >> 20) as usize % 3]),
            3 => out.push_str(" 3 "),
            4 => {
                out.push('[');
                for i in 0..(*seed >> 40) % 4 {
                    if i > 0 {
                        out.push(',');
                    }
                    value(out, seed, depth + 1);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..(*seed >> 40) % 4 {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(GENERATED_NAMES[(*seed >> 24) as usize % 3]);
                    out.push('"');
                    out.push(':');
                    value(out, seed, depth + 1);
                }
                out.push('}');
            }
        }
    }

    proptest::proptest! {
        /// A generated document, cut anywhere and followed by any piece (a closer, a comma, a
        /// stray byte, another value): the skips and the walk agree at every offset where a
        /// reader can stop.
        #[test]
        fn skips_agree_with_the_walk_on_generated_documents(
            seed: u64,
            cut in 0usize..400,
            tail in proptest::sample::select(vec!["", "]", "}", ",", " x", "\\", "\"", "{}", "[1 2]"]),
        ) {
            let mut seed = seed;
            let mut doc = String::new();
            value(&mut doc, &mut seed, 0);
            doc.truncate(doc.floor_char_boundary(cut.max(doc.len() / 2)));
            doc.push_str(tail);
            let src = doc.as_bytes();
            for offset in 0..=src.len() + 1 {
                if accepted_before(src, offset) {
                    let walked = walk(src, offset, GENERATED_NAMES, no_array_scan, false);
                    let stop = locate(src, offset, GENERATED_NAMES, crate::fingerprint::stop_array_end);
                    proptest::prop_assert_eq!(&stop, &walked);
                    proptest::prop_assert_eq!(&locate(src, offset, GENERATED_NAMES, no_array_scan), &walked);
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
