//! The pull parser: grammar (J5.1) and depth (J5.2), iterative, with a fixed-size nesting stack.

use super::{JResult, JStr, JsonError, MAX_DEPTH};

/// One token of the document. Strings are borrowed and still escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event<'a> {
    ObjectStart,
    ObjectEnd,
    ArrayStart,
    ArrayEnd,
    /// An object key (the parser has already consumed the `:` after it).
    Key(JStr<'a>),
    String(JStr<'a>),
    /// The number's text, checked against the RFC 8259 grammar.
    Number(&'a [u8]),
    Bool(bool),
    Null,
}

// Events are moved once per token: keep them small (see `JStr`).
const _: () = assert!(core::mem::size_of::<Event<'static>>() <= 32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// A value is expected (document start, after `:` or after `,` in an array).
    Value,
    /// Just after `[`: a value or `]`.
    ValueOrEnd,
    /// Just after `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key.
    Key,
    /// After a value: `,` or the end of the container; at depth 0 the end of the document.
    AfterValue,
}

const STACK_WORDS: usize = MAX_DEPTH.div_ceil(64);

/// The pull parser. It never recurses and never allocates.
pub(crate) struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    state: State,
    depth: usize,
    /// Bit `d` set: the container at depth `d + 1` is an object.
    kinds: [u64; STACK_WORDS],
    /// Start offset of the last event's token.
    token_start: usize,
    /// The whole document is known to be valid UTF-8, so no string needs its own check (J5.3).
    utf8: bool,
    /// Bytes at the start of the next string's body already known to be plain (see
    /// [`Parser::next_with_plain_prefix`]); 0 otherwise.
    plain_prefix: usize,
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// A scanner of string bodies the parser may trust to skip its own scan (see
/// [`Parser::next_with_plain_prefix`]): the run it reports holds only plain JSON string bytes
/// (ASCII, none of `"`, `\\` or a control byte, J5.1). The implementing type is the proof: only its
/// own [`PlainRun::scan`] makes a value, so a run handed back with a string is that string's.
pub(crate) trait PlainRun: Copy {
    /// The run at the start of `body` (the rest of the document from the body's first byte).
    fn scan(body: &[u8]) -> Self;
    /// The run's length in bytes.
    fn len(self) -> usize;
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a [u8]) -> Parser<'a> {
        Parser {
            src,
            pos: 0,
            state: State::Value,
            depth: 0,
            kinds: [0; STACK_WORDS],
            token_start: 0,
            utf8: false,
            plain_prefix: 0,
        }
    }

    /// A parser that first checks the whole document's UTF-8 in one pass. When that passes, no
    /// string is checked on its own; when it fails, every string is checked as it is read, so
    /// errors and their order are those of [`Parser::new`]. For large documents with much
    /// non-ASCII text: one pass over everything is cheaper than a call per string.
    pub(crate) fn new_utf8_checked(src: &'a [u8]) -> Parser<'a> {
        Parser { utf8: simdutf8::basic::from_utf8(src).is_ok(), ..Parser::new(src) }
    }

    /// A parser that reads the value starting at `at` of a document already known to be valid
    /// (JSON and UTF-8): a later walk over part of a checked document. It stops being useful once
    /// that value is read.
    pub(crate) fn resume_valid(src: &'a [u8], at: usize) -> Parser<'a> {
        Parser { pos: at, token_start: at, utf8: true, ..Parser::new(src) }
    }

    /// Current nesting depth (0 outside every container).
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// The whole document.
    pub(crate) fn src(&self) -> &'a [u8] {
        self.src
    }

    /// Offset where the last event's token started.
    pub(crate) fn token_start(&self) -> usize {
        self.token_start
    }

    /// Offset just after the last event's token.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    fn byte(&self, at: usize) -> Option<u8> {
        self.src.get(at).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(b) = self.byte(self.pos) {
            if !is_ws(b) {
                break;
            }
            self.pos += 1;
        }
    }

    fn top_is_object(&self) -> bool {
        let d = self.depth.wrapping_sub(1);
        self.kinds.get(d / 64).is_some_and(|w| w >> (d % 64) & 1 == 1)
    }

    fn push(&mut self, object: bool) -> JResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(JsonError::syntax(self.pos));
        }
        let d = self.depth;
        if let Some(word) = self.kinds.get_mut(d / 64) {
            let bit = 1u64 << (d % 64);
            if object { *word |= bit } else { *word &= !bit }
        }
        self.depth += 1;
        Ok(())
    }

    /// The next event. After the top-level value, returns an error unless only whitespace follows
    /// (see [`Parser::finish`]); callers stop pulling once the depth is back to 0.
    pub(crate) fn next(&mut self) -> JResult<Event<'a>> {
        loop {
            self.skip_ws();
            let start = self.pos;
            self.token_start = start;
            let Some(b) = self.byte(start) else {
                return Err(JsonError::syntax(start));
            };
            match self.state {
                State::Value => return self.value(b),
                State::ValueOrEnd => {
                    if b == b']' {
                        return Ok(self.close(false));
                    }
                    return self.value(b);
                }
                State::KeyOrEnd | State::Key => {
                    if b == b'}' && self.state == State::KeyOrEnd {
                        return Ok(self.close(true));
                    }
                    if b != b'"' {
                        return Err(JsonError::syntax(start));
                    }
                    let key = self.string()?;
                    self.skip_ws();
                    if self.byte(self.pos) != Some(b':') {
                        return Err(JsonError::syntax(self.pos));
                    }
                    self.pos += 1;
                    self.state = State::Value;
                    self.token_start = start;
                    return Ok(Event::Key(key));
                }
                State::AfterValue => {
                    if self.depth == 0 {
                        return Err(JsonError::syntax(start));
                    }
                    let object = self.top_is_object();
                    match (b, object) {
                        (b',', true) => {
                            self.pos += 1;
                            self.state = State::Key;
                        }
                        (b',', false) => {
                            self.pos += 1;
                            self.state = State::Value;
                        }
                        (b'}', true) => return Ok(self.close(true)),
                        (b']', false) => return Ok(self.close(false)),
                        _ => return Err(JsonError::syntax(start)),
                    }
                }
            }
        }
    }

    /// [`Parser::next`] for a value whose strings are expected to start with a long run of bytes
    /// that `R` recognises faster than the generic string scan (base64 text, say). When the value
    /// is a string, [`PlainRun::scan`] gets the rest of the document from the body's first byte;
    /// the parser's own scan resumes after the run. Returns the event and, for a string, the run
    /// (which then also proves what it counts to whoever reads the string next).
    pub(crate) fn next_with_plain_prefix<R: PlainRun>(&mut self) -> JResult<(Event<'a>, Option<R>)> {
        self.skip_ws();
        let mut run = None;
        if matches!(self.state, State::Value | State::ValueOrEnd) && self.byte(self.pos) == Some(b'"') {
            let body = self.src.get(self.pos + 1..).unwrap_or_default();
            let scanned = R::scan(body);
            self.plain_prefix = scanned.len().min(body.len());
            run = Some(scanned);
        }
        let event = self.next();
        self.plain_prefix = 0;
        let event = event?;
        Ok((event, run.filter(|_| matches!(event, Event::String(_)))))
    }

    fn close(&mut self, object: bool) -> Event<'a> {
        self.pos += 1;
        self.depth -= 1;
        self.state = State::AfterValue;
        if object { Event::ObjectEnd } else { Event::ArrayEnd }
    }

    fn value(&mut self, b: u8) -> JResult<Event<'a>> {
        let start = self.pos;
        let event = match b {
            b'{' => {
                self.push(true)?;
                self.pos += 1;
                self.state = State::KeyOrEnd;
                return Ok(Event::ObjectStart);
            }
            b'[' => {
                self.push(false)?;
                self.pos += 1;
                self.state = State::ValueOrEnd;
                return Ok(Event::ArrayStart);
            }
            b'"' => Event::String(self.string()?),
            b't' => self.literal(b"true", Event::Bool(true))?,
            b'f' => self.literal(b"false", Event::Bool(false))?,
            b'n' => self.literal(b"null", Event::Null)?,
            b'-' | b'0'..=b'9' => Event::Number(self.number()?),
            _ => return Err(JsonError::syntax(start)),
        };
        self.state = State::AfterValue;
        Ok(event)
    }

    fn literal(&mut self, word: &'static [u8], event: Event<'a>) -> JResult<Event<'a>> {
        let end = self.pos + word.len();
        if self.src.get(self.pos..end) != Some(word) {
            return Err(JsonError::syntax(self.pos));
        }
        self.pos = end;
        Ok(event)
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while self.byte(self.pos).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - from
    }

    /// RFC 8259 `number`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> JResult<&'a [u8]> {
        let start = self.pos;
        if self.byte(self.pos) == Some(b'-') {
            self.pos += 1;
        }
        match self.byte(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(JsonError::syntax(self.pos)),
        }
        if self.byte(self.pos) == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(JsonError::syntax(self.pos));
            }
        }
        if matches!(self.byte(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.byte(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(JsonError::syntax(self.pos));
            }
        }
        Ok(self.src.get(start..self.pos).unwrap_or_default())
    }

    /// A string starting at the `"` under `pos`: control bytes and escape syntax are checked here,
    /// UTF-8 later by whoever needs the text ([`JStr`]).
    fn string(&mut self) -> JResult<JStr<'a>> {
        let open = self.pos;
        let body = open + 1;
        let mut i = body + core::mem::take(&mut self.plain_prefix);
        let mut high = 0u8;
        let mut escaped = false;
        loop {
            let rest = self.src.get(i..).unwrap_or_default();
            let (skip, h) = scan_plain(rest);
            high |= h;
            i += skip;
            let Some(b) = self.byte(i) else {
                return Err(JsonError::syntax(i));
            };
            match b {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    match self.byte(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                        Some(b'u') => {
                            let hex = self.src.get(i + 2..i + 6).unwrap_or_default();
                            if hex.len() != 4 || !hex.iter().all(u8::is_ascii_hexdigit) {
                                return Err(JsonError::syntax(i));
                            }
                            i += 6;
                        }
                        _ => return Err(JsonError::syntax(i)),
                    }
                }
                // A raw control byte (J5.1).
                _ => return Err(JsonError::syntax(i)),
            }
        }
        self.pos = i + 1;
        Ok(JStr::new(body, self.src.get(body..i).unwrap_or_default(), escaped, high >= 0x80 && !self.utf8))
    }

    /// After the top-level value: only whitespace may follow (J5.1).
    pub(crate) fn finish(&mut self) -> JResult<()> {
        self.skip_ws();
        if self.depth != 0 || self.state != State::AfterValue || self.pos != self.src.len() {
            return Err(JsonError::syntax(self.pos));
        }
        Ok(())
    }

    /// Skips the rest of the container that is open at `depth` (and everything inside it), checking
    /// only the grammar; returns when the parser is back at `depth - 1`. With `depth` equal to the
    /// current depth, this skips to the end of the innermost open container.
    pub(crate) fn skip_to_depth(&mut self, depth: usize) -> JResult<()> {
        while self.depth >= depth && self.depth > 0 {
            self.next()?;
        }
        Ok(())
    }
}

/// Length of the leading run of bytes that need no attention inside a string (not `"`, `\` or a
/// control byte), and a byte whose bit 7 is set if the run may hold a non-ASCII byte. Eight bytes
/// are tested at a time (SWAR): the lowest flagged byte of a word is exact, so its position comes
/// from the mask directly.
#[inline]
fn scan_plain(bytes: &[u8]) -> (usize, u8) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut high = 0u64;
    let mut done = 0;
    let mut rest = bytes;
    #[inline]
    fn special(x: u64) -> u64 {
        let q = x ^ (ONES * u64::from(b'"'));
        let b = x ^ (ONES * u64::from(b'\\'));
        ((q.wrapping_sub(ONES) & !q) | (b.wrapping_sub(ONES) & !b) | (x.wrapping_sub(ONES * 0x20) & !x)) & HIGH
    }
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        let x = u64::from_le_bytes(*word);
        let sp = special(x);
        // Bytes after a special one may also count as non-ASCII: a false positive only costs a
        // UTF-8 check of the string.
        high |= x;
        if sp != 0 {
            done += (sp.trailing_zeros() / 8) as usize;
            return (done, if high & HIGH != 0 { 0x80 } else { 0 });
        }
        done += 8;
        rest = tail;
    }
    let mut high = if high & HIGH != 0 { 0x80 } else { 0 };
    for &b in rest {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        high |= b;
        done += 1;
    }
    (done, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event of `src`, with each string's own UTF-8 verdict in place of the string.
    fn trace(mut p: Parser<'_>) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            match p.next() {
                Ok(Event::String(s) | Event::Key(s)) => out.push(format!("str {:?} {:?}", s.span(), s.check_utf8())),
                Ok(e) => out.push(format!("{e:?}")),
                Err(e) => {
                    out.push(format!("{e:?}"));
                    return out;
                }
            }
            if p.depth() == 0 {
                out.push(format!("{:?}", p.finish()));
                return out;
            }
        }
    }

    /// The whole-document UTF-8 pass changes nothing a caller sees: strings of a valid document
    /// are valid (their quotes are ASCII, so they cannot cut a character), and in an invalid one
    /// each string is still checked on its own.
    #[test]
    fn utf8_checked_parser_sees_what_the_plain_one_sees() {
        let docs: [&[u8]; 8] = [
            br#"{"a":"caf\xc3\xa9","b":["\u00e9x",1]}"#,
            b"{\"a\":\"\xff\",\"b\":\"ok\"}",
            b"{\"a\":\"ok\",\"\xc3\":\"\xe2\x82\"}",
            b"[\"\xed\xa0\x80\"]",
            b"[\"x\"] \xff",
            b"{\"k\":\"\xc3\xa9\xc3\"}",
            b"\"\xf0\x9f\x98\x80\"",
            b"[\"a\\n\xc3\xa9\", \"\x80\"]",
        ];
        for doc in docs {
            assert_eq!(trace(Parser::new(doc)), trace(Parser::new_utf8_checked(doc)), "{doc:?}");
        }
    }
}
