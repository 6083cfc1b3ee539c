//! The pull parser: grammar (J5.1) and depth (J5.2), iterative, with a fixed-size nesting stack.
//!
//! This file is the one plain state machine, [`Parser::next`], and its transitions: each reads
//! one token where the state allows it and moves to the next state (open or close a container, the
//! `,` after a value, a key with its `:`, a scalar). The fast entries, which read a token without
//! its event or several tokens in one loop, live in `fast.rs`; they change the state only through
//! these transitions, and `differential.rs` checks every one of them against `next`.

use super::string::TaggedOffset;
use super::{JResult, JsonError, MAX_DEPTH, StringToken};
use crate::lanes::Lanes;

/// One token of the document. Strings are borrowed and still escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event<'a> {
    ObjectStart,
    ObjectEnd,
    ArrayStart,
    ArrayEnd,
    /// An object key (the parser has already consumed the `:` after it).
    Key(StringToken<'a>),
    String(StringToken<'a>),
    /// The number's text, checked against the RFC 8259 grammar.
    Number(&'a [u8]),
    Bool(bool),
    Null,
}

// Events are moved once per token: keep them small (see `StringToken`).
const _: () = assert!(core::mem::size_of::<Event<'static>>() <= 32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
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

// The hot paths are `inline(always)` in optimised builds only: without optimisation every inlined
// body keeps its own locals, and the readers that recurse (block lists inside `tool_result`
// blocks, 128 deep) then outgrew a 2 MiB test thread's stack in debug builds.

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
    #[inline]
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// The whole document.
    #[inline]
    pub(crate) fn src(&self) -> &'a [u8] {
        self.src
    }

    /// Offset where the last event's token started.
    #[inline]
    pub(crate) fn token_start(&self) -> usize {
        self.token_start
    }

    /// Offset just after the last event's token.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The next event. After the top-level value, returns an error unless only whitespace follows
    /// (see [`Parser::finish`]); callers stop pulling once the depth is back to 0.
    pub(crate) fn next(&mut self) -> JResult<Event<'a>> {
        self.next_with::<false>()
    }

    /// [`Parser::next`], inlined into its caller with the reading of a value: for the loops that
    /// pull every event of a value (raw values, J5.9), where a call per token returning its event
    /// through memory cost more than the token.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn next_inline(&mut self) -> JResult<Event<'a>> {
        self.next_with::<true>()
    }

    /// The state machine: [`Parser::next`]; `INLINE`: with [`Parser::value`] inlined (elsewhere it
    /// is a call, which keeps the many callers of `next` small).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_with<const INLINE: bool>(&mut self) -> JResult<Event<'a>> {
        loop {
            self.skip_ws();
            let start = self.pos;
            self.token_start = start;
            let Some(b) = self.byte(start) else {
                return Err(JsonError::syntax(start));
            };
            match self.state {
                State::Value => return if INLINE { self.value_inline(b) } else { self.value(b) },
                State::ValueOrEnd => {
                    if b == b']' {
                        return Ok(self.close(false));
                    }
                    return if INLINE { self.value_inline(b) } else { self.value(b) };
                }
                State::KeyOrEnd | State::Key => {
                    if b == b'}' && self.state == State::KeyOrEnd {
                        return Ok(self.close(true));
                    }
                    if b != b'"' {
                        return Err(JsonError::syntax(start));
                    }
                    return self.key(start).map(Event::Key);
                }
                State::AfterValue => {
                    if self.depth == 0 {
                        return Err(JsonError::syntax(start));
                    }
                    let object = self.top_is_object();
                    match (b, object) {
                        (b',', _) => self.comma(object),
                        (b'}', true) => return Ok(self.close(true)),
                        (b']', false) => return Ok(self.close(false)),
                        _ => return Err(JsonError::syntax(start)),
                    }
                }
            }
        }
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

    // What the fast entries (fast.rs) read of the machine. They set nothing but `token_start`
    // (where the token they read starts) and the plain prefix: every other change goes through
    // the transitions below.

    /// The state the machine is in.
    #[inline(always)]
    pub(super) fn state(&self) -> State {
        self.state
    }

    /// Whether the document's UTF-8 is known good as a whole.
    #[inline(always)]
    pub(super) fn utf8_checked(&self) -> bool {
        self.utf8
    }

    /// The byte at `at`, if the document has one there.
    #[inline(always)]
    pub(super) fn byte(&self, at: usize) -> Option<u8> {
        self.src.get(at).copied()
    }

    /// Whether the innermost open container is an object (`false` at depth 0).
    #[inline(always)]
    pub(super) fn top_is_object(&self) -> bool {
        let d = self.depth.wrapping_sub(1);
        self.kinds.get(d / 64).is_some_and(|w| w >> (d % 64) & 1 == 1)
    }

    /// Whether the innermost open container is an array (`false` at depth 0).
    #[inline(always)]
    pub(super) fn top_is_array(&self) -> bool {
        self.depth > 0 && !self.top_is_object()
    }

    /// Where the token a fast entry reads starts ([`Parser::token_start`]).
    #[inline(always)]
    pub(super) fn set_token_start(&mut self, at: usize) {
        self.token_start = at;
    }

    /// The next string's first `len` body bytes are plain (J5.1): its scan starts after them. Only
    /// for a [`super::PlainPrefix`]'s count, and undone (0) once that string is read.
    #[inline(always)]
    pub(super) fn set_plain_prefix(&mut self, len: usize) {
        self.plain_prefix = len;
    }

    // The transitions. Each reads the token at `pos` (whitespace skipped) that the state allows
    // there, and leaves `pos` after it; errors are the J5.1 offsets `next` gives.

    /// Whitespace between tokens.
    #[inline(always)]
    pub(super) fn skip_ws(&mut self) {
        while let Some(b) = self.byte(self.pos) {
            if !is_ws(b) {
                break;
            }
            self.pos += 1;
        }
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

    /// Where a value is expected: the `{` or `[` that opens a container (J5.2: one level too deep
    /// is an error at the bracket).
    #[inline(always)]
    pub(super) fn open(&mut self, object: bool) -> JResult<Event<'a>> {
        self.push(object)?;
        self.pos += 1;
        if object {
            self.state = State::KeyOrEnd;
            Ok(Event::ObjectStart)
        } else {
            self.state = State::ValueOrEnd;
            Ok(Event::ArrayStart)
        }
    }

    /// The `}` or `]` of the innermost container, where the state allows it.
    #[inline(always)]
    pub(super) fn close(&mut self, object: bool) -> Event<'a> {
        self.pos += 1;
        self.depth -= 1;
        self.state = State::AfterValue;
        if object { Event::ObjectEnd } else { Event::ArrayEnd }
    }

    /// After a value in an object (`object`) or an array: the `,` before the next key or value.
    #[inline(always)]
    pub(super) fn comma(&mut self, object: bool) {
        self.pos += 1;
        self.state = if object { State::Key } else { State::Value };
    }

    /// The key whose `"` is under `start` (= `pos`), and the `:` after it.
    #[inline(always)]
    fn key(&mut self, start: usize) -> JResult<StringToken<'a>> {
        let end = self.key_end(start)?;
        Ok(self.token(start + 1, end))
    }

    /// [`Parser::key`] as its scan's result (see [`Parser::string_end`]).
    #[inline(always)]
    pub(super) fn key_end(&mut self, start: usize) -> JResult<TaggedOffset> {
        let end = self.string_end()?;
        self.colon(start)?;
        Ok(end)
    }

    /// The key whose `"` is at `start` and whose closing quote is at `quote` (the caller knows it
    /// without a scan, and that the body between is plain), and the `:` after it.
    #[inline(always)]
    pub(super) fn key_read(&mut self, start: usize, quote: usize) -> JResult<()> {
        self.pos = quote + 1;
        self.colon(start)
    }

    /// After the key whose `"` is at `start`: the `:`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn colon(&mut self, start: usize) -> JResult<()> {
        self.skip_ws();
        if self.byte(self.pos) != Some(b':') {
            return Err(JsonError::syntax(self.pos));
        }
        self.pos += 1;
        self.state = State::Value;
        self.token_start = start;
        Ok(())
    }

    /// Inside an array, right after its `[`: its elements, up to its `]` at `close`, which the
    /// caller knows to be read (a [`super::CheckedArray`]); the machine goes on at the `]`.
    #[inline(always)]
    pub(super) fn elements_read(&mut self, close: usize) {
        self.pos = close;
        self.state = State::AfterValue;
    }

    /// Where a value is expected: the scalar value (string, number, literal) that the caller read
    /// up to `end`, without an event.
    #[inline(always)]
    pub(super) fn scalar_read(&mut self, end: usize) {
        self.pos = end;
        self.state = State::AfterValue;
    }

    /// A compiler trick, not a function of its own: [`Parser::value_inline`] behind a call that is
    /// not marked for inlining, so that [`Parser::next`] keeps the reading of a value out of line
    /// (its many callers stay small) while [`Parser::next_inline`] inlines it. Keep it.
    fn value(&mut self, b: u8) -> JResult<Event<'a>> {
        self.value_inline(b)
    }

    /// Where a value is expected: the value whose first byte, `b`, is under `pos`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn value_inline(&mut self, b: u8) -> JResult<Event<'a>> {
        let start = self.pos;
        let event = match b {
            b'{' => return self.open(true),
            b'[' => return self.open(false),
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

    /// A run of ASCII digits from `pos`: its length, with `pos` after it. The first `BYTES` a byte
    /// at a time, then eight bytes a step: an integer part or an exponent is mostly one or two
    /// digits (`BYTES` = 2), a fraction mostly more (`BYTES` = 0).
    #[inline(always)]
    fn digits<const BYTES: usize>(&mut self) -> usize {
        let from = self.pos;
        for _ in 0..BYTES {
            if !self.byte(self.pos).is_some_and(|b| b.is_ascii_digit()) {
                return self.pos - from;
            }
            self.pos += 1;
        }
        while let Some(word) = self.src.get(self.pos..self.pos + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            let others = non_digits(u64::from_le_bytes(word));
            if others != 0 {
                self.pos += (others.trailing_zeros() / 8) as usize;
                return self.pos - from;
            }
            self.pos += 8;
        }
        while self.byte(self.pos).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - from
    }

    /// RFC 8259 `number` from `pos`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, its
    /// text, with `pos` after it (the state is the caller's).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn number(&mut self) -> JResult<&'a [u8]> {
        let start = self.pos;
        if self.byte(self.pos) == Some(b'-') {
            self.pos += 1;
        }
        match self.byte(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits::<2>();
            }
            _ => return Err(JsonError::syntax(self.pos)),
        }
        if self.byte(self.pos) == Some(b'.') {
            self.pos += 1;
            if self.digits::<0>() == 0 {
                return Err(JsonError::syntax(self.pos));
            }
        }
        if matches!(self.byte(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.byte(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits::<2>() == 0 {
                return Err(JsonError::syntax(self.pos));
            }
        }
        Ok(self.src.get(start..self.pos).unwrap_or_default())
    }

    /// A string starting at the `"` under `pos`: control bytes and escape syntax are checked here,
    /// UTF-8 later by whoever needs the text ([`StringToken`]). The state is the caller's.
    ///
    /// A compiler trick: inlined into each caller, around a scan that is not; the scan returns its
    /// verdict in two registers (`Result<TaggedOffset, usize>`), and the token is built here. A `JResult<StringToken>`
    /// returned from a call goes through memory and is read back at other widths, which stalls on
    /// store forwarding, once per string, more than the scan of a short string costs.
    #[inline(always)]
    pub(super) fn string(&mut self) -> JResult<StringToken<'a>> {
        let body = self.pos + 1;
        let end = self.string_end()?;
        Ok(self.token(body, end))
    }

    /// The scan of the string whose `"` is under `pos`, leaving `pos` after its closing quote:
    /// the quote's offset, tagged with what the scan saw.
    #[inline(always)]
    fn string_end(&mut self) -> JResult<TaggedOffset> {
        let from = self.pos + 1 + core::mem::take(&mut self.plain_prefix);
        // A document checked as a whole needs no per-string hint of non-ASCII bytes.
        let scanned =
            if self.utf8 { scan_string::<false>(self.src, from) } else { scan_string::<true>(self.src, from) };
        let end = scanned.map_err(JsonError::syntax)?;
        self.pos = end.offset() + 1;
        Ok(end)
    }

    /// The token of the string body that starts at `body`, from its scan's result (the offset of
    /// its closing quote).
    #[inline(always)]
    pub(super) fn token(&self, body: usize, end: TaggedOffset) -> StringToken<'a> {
        let raw = self.src.get(body..end.offset()).unwrap_or_default();
        StringToken::new(body, raw, end.escaped(), end.unchecked() && !self.utf8)
    }

    /// A snapshot of everything that decides what the machine reads next, for the differential
    /// tests: two parsers with equal snapshots give the same events from here on.
    #[cfg(any(test, fuzzing))]
    pub(super) fn snapshot(&self) -> Snapshot {
        let words = self.depth.div_ceil(64);
        let mut kinds: Vec<u64> = self.kinds.iter().take(words).copied().collect();
        if let Some(last) = kinds.last_mut()
            && !self.depth.is_multiple_of(64)
        {
            *last &= (1u64 << (self.depth % 64)) - 1;
        }
        Snapshot {
            pos: self.pos,
            token_start: self.token_start,
            state: self.state,
            depth: self.depth,
            kinds,
            utf8: self.utf8,
            plain_prefix: self.plain_prefix,
        }
    }
}

/// See [`Parser::snapshot`]: the container kinds only up to the depth (bits above are stale).
#[cfg(any(test, fuzzing))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Snapshot {
    pos: usize,
    token_start: usize,
    state: State,
    depth: usize,
    kinds: Vec<u64>,
    utf8: bool,
    plain_prefix: usize,
}

/// The length of an escape by the byte after its `\\` (J5.1): 2, 6 for `\u` (its four hex digits are
/// checked apart), 0 for a byte that starts no escape.
static ESCAPE_LEN: [u8; 256] = escape_lengths();

// Evaluated at compile time: an index out of range would not compile.
#[allow(clippy::indexing_slicing)]
const fn escape_lengths() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = match i as u8 {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
            b'u' => 6,
            _ => 0,
        };
        i += 1;
    }
    table
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of `x` (little-endian) that may need attention inside a string (`"`, `\\` or
/// a control byte); the lowest one set is exact.
#[inline(always)]
fn special(x: u64) -> u64 {
    let q = x ^ (ONES * u64::from(b'"'));
    let b = x ^ (ONES * u64::from(b'\\'));
    ((q.wrapping_sub(ONES) & !q) | (b.wrapping_sub(ONES) & !b) | (x.wrapping_sub(ONES * 0x20) & !x)) & HIGH
}

#[inline(always)]
fn word_at(src: &[u8], i: usize) -> Option<u64> {
    src.get(i..i + 8).and_then(|w| w.try_into().ok()).map(u64::from_le_bytes)
}

/// The body of the string whose first unchecked byte is `src[i]`: the offset of its closing quote,
/// tagged with whether the body holds an escape and (`HIGH_BITS`) whether it may hold a non-ASCII
/// byte ([`TaggedOffset`]), or the offset of the J5.1 error.
///
/// Strings are mostly short (keys, ids, enum values) or long runs of text with escapes here and
/// there (prose, logs with `\n` and `\t` every few words). So the first eight bytes are one word
/// (SWAR), which ends most short strings; then 32-byte blocks, each classified once into a bit mask
/// of its special bytes (`"`, `\\`, a control byte: [`special_mask`]), from which every escape in
/// the block is found without scanning again. The last bytes of the document go one at a time.
///
/// Never inlined, as a compiler trick: its callers inline the token around it ([`Parser::string`]),
/// and one copy of the scan keeps them small.
#[inline(never)]
fn scan_string<const HIGH_BITS: bool>(src: &[u8], mut i: usize) -> Result<TaggedOffset, usize> {
    let mut high = 0u64;
    let mut escaped = false;
    if let Some(x) = word_at(src, i) {
        if HIGH_BITS {
            high |= x;
        }
        let sp = special(x);
        if sp == 0 {
            i += 8;
        } else {
            let at = i + (sp.trailing_zeros() / 8) as usize;
            if src.get(at) == Some(&b'"') {
                return Ok(TaggedOffset::new(at, false, high & HIGH != 0));
            }
            i = at;
        }
    }
    let end = 'scan: loop {
        let Some(block) = src.get(i..i + 32).and_then(|b| <&[u8; 32]>::try_from(b).ok()) else {
            break 'scan string_tail::<HIGH_BITS>(src, i, &mut escaped, &mut high)?;
        };
        if HIGH_BITS {
            for word in block.chunks_exact(8) {
                high |= word.try_into().map(u64::from_le_bytes).unwrap_or_default();
            }
        }
        let mut mask = special_mask(block);
        while mask != 0 {
            let at = i + mask.trailing_zeros() as usize;
            match src.get(at) {
                Some(b'"') => break 'scan at,
                Some(b'\\') => {
                    escaped = true;
                    let skip = at + escape_len(src, at)? - i;
                    if skip >= 32 {
                        i += skip;
                        continue 'scan;
                    }
                    mask &= u32::MAX << skip;
                }
                // A raw control byte (J5.1).
                _ => return Err(at),
            }
        }
        i += 32;
    };
    Ok(TaggedOffset::new(end, escaped, high & HIGH != 0))
}

/// The high bit of each byte of `x` (eight bytes, little-endian) that is not an ASCII digit. A
/// digit XOR `0x30` is below 10 and no other byte is; `(y & 0x7F) + 0x76` sets the high bit of a
/// byte whose low seven bits are 10 or more, without a carry into the next byte.
#[inline(always)]
fn non_digits(x: u64) -> u64 {
    let y = x ^ (ONES * 0x30);
    (((y & (ONES * 0x7F)) + ONES * 0x76) | y) & (ONES * 0x80)
}

/// The last bytes of the document (under a block), one at a time: the offset of the closing quote.
#[cold]
fn string_tail<const HIGH_BITS: bool>(
    src: &[u8],
    mut i: usize,
    escaped: &mut bool,
    high: &mut u64,
) -> Result<usize, usize> {
    loop {
        match src.get(i) {
            Some(b'"') => return Ok(i),
            Some(b'\\') => {
                *escaped = true;
                i += escape_len(src, i)?;
            }
            Some(&b) if b >= 0x20 => {
                if HIGH_BITS {
                    *high |= u64::from(b) << 56;
                }
                i += 1;
            }
            // A raw control byte (J5.1), or the end of the document.
            _ => return Err(i),
        }
    }
}

/// The length of the escape whose `\\` is at `src[at]` (J5.1), or the error's offset (`at`).
#[inline(always)]
fn escape_len(src: &[u8], at: usize) -> Result<usize, usize> {
    // A table, not a `match`: logs alternate `\n` and `\t`, and a jump table per escape
    // mispredicts at every change.
    match src.get(at + 1).and_then(|&e| ESCAPE_LEN.get(usize::from(e))) {
        Some(2) => Ok(2),
        Some(6) if src.get(at + 2..at + 6).and_then(crate::digits::hex4_value).is_some() => Ok(6),
        _ => Err(at),
    }
}

/// Bit `k` set: byte `k` of `block` is a `"`, a `\\` or a control byte (J5.1), by vector
/// compares ([`Lanes`]).
#[inline(always)]
fn special_mask(block: &[u8; 32]) -> u32 {
    let v = Lanes::load(block);
    v.eq(b'"').or(v.eq(b'\\')).or(v.le(0x1F)).mask()
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

    /// J5.1's string grammar byte by byte, the model for the word, block and mask scans: the offset
    /// of the closing quote and whether an escape came before it, or the offset of the error.
    fn model_string(doc: &[u8], open: usize) -> Result<(usize, bool), usize> {
        let (mut i, mut escaped) = (open + 1, false);
        loop {
            match doc.get(i) {
                None => return Err(i),
                Some(b'"') => return Ok((i, escaped)),
                Some(b'\\') => {
                    escaped = true;
                    match doc.get(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                        Some(b'u') if doc.get(i + 2..i + 6).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) => {
                            i += 6
                        }
                        _ => return Err(i),
                    }
                }
                Some(&b) if b < 0x20 => return Err(i),
                Some(_) => i += 1,
            }
        }
    }

    /// Random string bodies at every alignment, ending anywhere from the middle of a block to the
    /// last byte of the document: the scans agree with the model on the end, the escape flag and
    /// every error offset, and never miss a non-ASCII byte (the UTF-8 verdict of each string).
    #[test]
    fn string_scan_agrees_with_the_byte_model() {
        // Weighted so that escapes, quotes, controls and non-ASCII bytes all come often, and
        // plain runs long enough to cross blocks.
        const ALPHABET: &[u8] = b"aaaaaaaaaaaaaaaabbbbbbbbcd \\\\\"nnttuu0f9A/\x01\x1f\xc3\xa9\xe2\x82\xac\xff\x80";
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..60_000 {
            let pad = (next() % 40) as usize;
            let len = (next() % 160) as usize;
            let mut doc = vec![b' '; pad];
            doc.push(b'"');
            doc.extend((0..len).map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize]));
            match next() % 3 {
                0 => {}
                1 => doc.push(b'"'),
                _ => doc.extend(std::iter::repeat_n(b'x', (next() % 40) as usize)),
            }
            let want = model_string(&doc, pad);
            for mut p in [Parser::new(&doc), Parser::new_utf8_checked(&doc)] {
                let got = p.next().map_err(|e| e.offset);
                match (want, got) {
                    (Ok((end, escaped)), Ok(Event::String(s))) => {
                        assert_eq!((s.span().start, s.span().end, s.has_escapes()), (pad + 1, end, escaped), "{doc:?}");
                        let body = &doc[pad + 1..end];
                        assert_eq!(s.check_utf8().is_ok(), std::str::from_utf8(body).is_ok(), "{doc:?}");
                        assert_eq!(p.pos(), end + 1);
                    }
                    (Err(at), Err(got)) => assert_eq!(at, got, "{doc:?}"),
                    (want, got) => panic!("{doc:?}: model {want:?}, parser {got:?}"),
                }
            }
        }
    }

    /// Every byte value in every lane of a word of digits, and of a word of other bytes.
    #[test]
    fn non_digits_marks_every_byte_but_the_digits() {
        for filler in [b'5', b'a'] {
            for lane in 0..8 {
                for b in 0..=255u8 {
                    let mut word = [filler; 8];
                    word[lane] = b;
                    let want = word
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| !c.is_ascii_digit())
                        .fold(0u64, |m, (k, _)| m | 0x80 << (8 * k));
                    assert_eq!(non_digits(u64::from_le_bytes(word)), want, "{word:?}");
                }
            }
        }
    }

    /// RFC 8259 `number` read a byte at a time: the offset after it, or the offset of the byte
    /// where it fails.
    fn model_number(doc: &[u8]) -> Result<usize, usize> {
        let digit = |i: usize| doc.get(i).is_some_and(u8::is_ascii_digit);
        let run = |mut i: usize| {
            while digit(i) {
                i += 1;
            }
            i
        };
        let mut i = usize::from(doc.first() == Some(&b'-'));
        i = match doc.get(i) {
            Some(b'0') => i + 1,
            Some(b'1'..=b'9') => run(i),
            _ => return Err(i),
        };
        if doc.get(i) == Some(&b'.') {
            if !digit(i + 1) {
                return Err(i + 1);
            }
            i = run(i + 1);
        }
        if matches!(doc.get(i), Some(b'e' | b'E')) {
            i += 1 + usize::from(matches!(doc.get(i + 1), Some(b'+' | b'-')));
            if !digit(i) {
                return Err(i);
            }
            i = run(i);
        }
        Ok(i)
    }

    /// Random numbers, mostly digits in runs that cross words and the end of the document: the
    /// parser reads each as the byte model does, to the same end or the same error offset.
    #[test]
    fn numbers_read_as_the_byte_model_reads_them() {
        const ALPHABET: &[u8] = b"0123456789012345678901234567890123456789-+.eE,]a \x80";
        let mut next = crate::xorshift(0x2545_F491_4F6C_DD1D);
        for _ in 0..100_000 {
            let len = 1 + (next() % 40) as usize;
            let mut doc: Vec<u8> = (0..len).map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize]).collect();
            // A number's first byte (what makes the parser read a number at all).
            doc[0] = b"-0123456789"[(next() % 11) as usize];
            let mut p = Parser::new(&doc);
            match (model_number(&doc), p.next()) {
                (Ok(end), Ok(Event::Number(text))) => {
                    assert_eq!((text, p.pos()), (&doc[..end], end), "{doc:?}");
                }
                (Err(at), Err(e)) => assert_eq!(e.offset, at, "{doc:?}"),
                (want, got) => panic!("{doc:?}: model {want:?}, parser {got:?}"),
            }
        }
    }

    /// Strings past 1 GiB (2^30 bytes) keep their offsets and flags: on a 32-bit target (wasm) the
    /// scan once kept a flag in bit 30 of the offset, and the parser jumped back 2^30 there.
    /// Ignored by default (it allocates 1 GiB); run it where it matters, on a 32-bit target:
    /// `cargo test --lib --target wasm32-wasip1 strings_past_1_gib -- --ignored`, with a WASI
    /// runtime as `CARGO_TARGET_WASM32_WASIP1_RUNNER` (wasmtime, or a few lines over Node's
    /// `node:wasi`). It failed there before offsets and flags were split (a syntax error at 2^30
    /// after the first string), and passes now.
    #[test]
    #[ignore = "allocates 1 GiB"]
    fn strings_past_1_gib_keep_their_offsets() {
        let pad = (1usize << 30) + 3;
        // Room for all of it at once: doubling 1 GiB would pass `isize::MAX` on a 32-bit target.
        let mut doc = Vec::with_capacity(pad + 64);
        doc.push(b'[');
        doc.resize(pad, b' ');
        doc.extend_from_slice("\"a\\n\",\"\u{e9}\",\"b\",\"a".as_bytes());
        doc.extend_from_slice(&[b'b'; 40]);
        doc.extend_from_slice(b"\"]");
        for mut p in [Parser::new(&doc), Parser::new_utf8_checked(&doc)] {
            assert_eq!(p.next(), Ok(Event::ArrayStart));
            let mut strings = Vec::new();
            while let Ok(Event::String(s)) = p.next() {
                assert_eq!(s.check_utf8(), Ok(()));
                strings.push((s.span().start - pad, s.span().end - pad, s.has_escapes()));
            }
            assert_eq!(strings, [(1, 4, true), (7, 9, false), (12, 13, false), (16, 57, false)]);
            assert_eq!((p.depth(), p.finish()), (0, Ok(())));
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
