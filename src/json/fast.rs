//! The parser's fast entries: each reads what [`Parser::next`] reads at that point (the same
//! tokens, the same errors at the same offsets, the same state after), but without building an
//! event, or several tokens in one loop, or a known key without scanning it. They serve the
//! readers' hot paths (every object's keys, every list's brackets, runs of numbers in raw values);
//! whatever they do not expect, errors included, they leave to `next` itself.
//!
//! They change the machine only through its transitions (`parser.rs`: open, close, comma, key,
//! scalar), and `differential.rs` checks every one against `next` on generated documents (a
//! proptest in `cargo test`, and the cargo-fuzz target `json_fast_paths`). One is not checked
//! there: [`Parser::skip_accepted_container`] trusts its caller to know the bytes it skips valid,
//! and `path.rs` checks its one caller against the token walk.

use super::parser::State;
use super::string::TaggedOffset;
use super::{Event, JResult, JsonError, NameTable, Parser, StringToken};

/// A key as [`Parser::next_key`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key<'a> {
    /// The name of index `.0` in the layout's [`NameTable`], as written; its body starts at `.1`.
    Field(usize, usize),
    /// Any other key.
    Token(StringToken<'a>),
}

/// A scanner of string bodies the parser may trust to skip its own scan (see
/// [`Parser::next_with_plain_prefix`]): the prefix it reports holds only plain JSON string bytes
/// (ASCII, none of `"`, `\\` or a control byte, J5.1). The implementing type is the proof: only its
/// own [`PlainPrefix::scan`] makes a value, so a prefix handed back with a string is that string's.
pub(crate) trait PlainPrefix: Copy {
    /// The prefix at the start of `body` (the rest of the document from the body's first byte).
    fn scan(body: &[u8]) -> Self;
    /// The prefix's length in bytes.
    fn len(self) -> usize;
}

/// An array that a scan has checked (see [`Parser::skip_checked_array`]): between its `[` and its
/// `]`, elements that J5.1 accepts, separated by `,`, none of them an array or an object (so that
/// skipping them skips no depth check, J5.2). The implementing type is the proof: a newtype whose
/// constructor is private to its scan, so no other offset can be passed off as a checked array.
pub(crate) trait CheckedArray: Copy {
    /// The offset of the array's `[`.
    fn start(self) -> usize;
    /// The offset just past its `]`.
    fn end(self) -> usize;
}

impl<'a> Parser<'a> {
    /// Inside an object, after its `{` or after a member's value: the next key (with its `:`), or
    /// `None` once the object's `}` is read. The same as pulling [`Event::Key`] or
    /// [`Event::ObjectEnd`] with [`Parser::next`], without the event: readers of objects (every
    /// typed field of every document) call this once per member. A key that is one of `keys` as
    /// written comes as its index, without a scan (when at least 16 bytes of the document are left
    /// from its body on, [`NameTable::find`]); any other as its token. Anything else, errors included,
    /// goes through `next`, so offsets and verdicts are its own; an event other than a key or the
    /// `}` is an [`super::ErrorKind::Invalid`] error at its token.
    ///
    /// A compiler trick in the shape of the code: every scanning path gives the key as two numbers
    /// (body start, scan result) and the token is built once at the end. Merging tokens from
    /// several paths made the compiler move them through the stack in pieces, and the reader then
    /// stalled on reading them back. Keep the one `token` call.
    #[inline(always)]
    pub(crate) fn next_key(&mut self, keys: &NameTable) -> JResult<Option<Key<'a>>> {
        self.skip_ws();
        let start = self.pos();
        let b = self.byte(start);
        let in_object = self.top_is_object();
        let (body, end) = 'key: {
            match (self.state(), b) {
                (State::AfterValue, Some(b',')) if in_object => {
                    self.comma(true);
                    self.skip_ws();
                    let at = self.pos();
                    if self.byte(at) == Some(b'"') {
                        self.set_token_start(at);
                        if let Some(index) = self.known_key(at, keys)? {
                            return Ok(Some(Key::Field(index, at + 1)));
                        }
                        break 'key (at + 1, self.key_end(at)?);
                    }
                }
                (State::KeyOrEnd, Some(b'"')) => {
                    self.set_token_start(start);
                    if let Some(index) = self.known_key(start, keys)? {
                        return Ok(Some(Key::Field(index, start + 1)));
                    }
                    break 'key (start + 1, self.key_end(start)?);
                }
                (State::AfterValue | State::KeyOrEnd, Some(b'}')) if in_object => {
                    self.set_token_start(start);
                    self.close(true);
                    return Ok(None);
                }
                _ => {}
            }
            match self.next()? {
                Event::Key(key) => {
                    let span = key.span();
                    (span.start, TaggedOffset::new(span.end, key.has_escapes(), key.is_unchecked()))
                }
                Event::ObjectEnd => return Ok(None),
                _ => return Err(JsonError::invalid(self.token_start())),
            }
        };
        Ok(Some(Key::Token(self.token(body, end))))
    }

    /// The key whose `"` is under `start` (= `pos`) when its text is one of `keys` as written
    /// ([`NameTable::find`]): read with its `:`, as [`Parser::next`] reads it, and its index.
    /// `None`, nothing consumed, for any other key.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn known_key(&mut self, start: usize, keys: &NameTable) -> JResult<Option<usize>> {
        let Some((index, len)) = keys.find(self.src(), start + 1) else {
            return Ok(None);
        };
        self.key_read(start, start + 1 + len)?;
        Ok(Some(index))
    }

    /// [`Parser::next`] where a bracket is the likely next token: the next element of an array or
    /// its `]`, or a value that should be an object or an array. Those are read here, inline, as
    /// `next` reads them; anything else, errors included, goes through `next`, so offsets and
    /// verdicts are its own. (Lists of small objects, such as messages and blocks, pay a call and
    /// an event returned through memory per bracket otherwise.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn next_structural(&mut self) -> JResult<Event<'a>> {
        self.skip_ws();
        let mut at = self.pos();
        let in_array = self.top_is_array();
        if self.state() == State::AfterValue {
            match self.byte(at) {
                Some(b',') if in_array => {
                    self.comma(false);
                    self.skip_ws();
                    at = self.pos();
                }
                Some(b']') if in_array => {
                    self.set_token_start(at);
                    return Ok(self.close(false));
                }
                _ => return self.next(),
            }
        }
        let value = matches!(self.state(), State::Value | State::ValueOrEnd);
        match self.byte(at) {
            Some(b'{') if value => {
                self.set_token_start(at);
                self.open(true)
            }
            Some(b'[') if value => {
                self.set_token_start(at);
                self.open(false)
            }
            Some(b']') if self.state() == State::ValueOrEnd => {
                self.set_token_start(at);
                Ok(self.close(false))
            }
            _ => self.next(),
        }
    }

    /// Where a value is expected and a string starts that is one of `names` as written
    /// ([`NameTable::find`], so at least 16 bytes of the document are left from its body on): that
    /// string's index in `names` and its token, as [`Parser::next`] would give it, without a scan.
    /// `None` (nothing consumed but whitespace) for anything else.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn next_if_name(&mut self, names: &NameTable) -> Option<(usize, StringToken<'a>)> {
        self.skip_ws();
        let start = self.pos();
        if !matches!(self.state(), State::Value | State::ValueOrEnd) || self.byte(start) != Some(b'"') {
            return None;
        }
        let (index, len) = names.find(self.src(), start + 1)?;
        self.set_token_start(start);
        self.scalar_read(start + len + 2);
        // A name is plain ASCII: no escape, nothing to check.
        Some((index, self.token(start + 1, TaggedOffset::new(start + 1 + len, false, false))))
    }

    /// Where a value is expected and a string starts: that string, as [`Parser::next`] would give
    /// it in an [`Event::String`], without the event. `None` (nothing consumed but whitespace) for
    /// anything else, which the caller then pulls with `next`.
    #[inline(always)]
    pub(crate) fn next_if_string(&mut self) -> JResult<Option<StringToken<'a>>> {
        self.skip_ws();
        let start = self.pos();
        if !matches!(self.state(), State::Value | State::ValueOrEnd) || self.byte(start) != Some(b'"') {
            return Ok(None);
        }
        self.set_token_start(start);
        let s = self.string()?;
        self.scalar_read(self.pos());
        Ok(Some(s))
    }

    /// Right after the [`Event::ArrayStart`] of `array`, in a document whose UTF-8 is checked
    /// ([`Parser::new_utf8_checked`]): goes on after its `]` as if every element had been read and
    /// the [`Event::ArrayEnd`] pulled. Its scan has checked the elements ([`CheckedArray`]).
    /// `false`, and nothing done, when the document's UTF-8 is not known good or the parser is not
    /// right after that array's `[`.
    pub(crate) fn skip_checked_array(&mut self, array: impl CheckedArray) -> bool {
        let after_open = self.state() == State::ValueOrEnd && self.top_is_array() && array.start() + 1 == self.pos();
        if !self.utf8_checked() || !after_open || array.end() <= self.pos() {
            return false;
        }
        let close = array.end() - 1;
        self.elements_read(close);
        self.set_token_start(close);
        self.close(false);
        true
    }

    /// Right after the [`Event::ObjectStart`] or [`Event::ArrayStart`] whose token started at
    /// `start`, for a container whose closing `}` or `]` is the byte before `end`: goes on after
    /// it as if every member had been read and the end event pulled. Nothing here checks what lies
    /// between: only for a caller that knows those bytes to be valid JSON (a diagnosis walking
    /// again the part of a document its reader accepted, [`super::path::locate`]). `false`, and
    /// nothing done, when the parser is not right after that container's opening byte.
    pub(crate) fn skip_accepted_container(&mut self, start: usize, end: usize) -> bool {
        let object = self.top_is_object();
        let after_open = matches!((self.state(), object), (State::KeyOrEnd, true) | (State::ValueOrEnd, false))
            && start + 1 == self.pos();
        if !after_open || end <= self.pos() {
            return false;
        }
        let close = end - 1;
        self.elements_read(close);
        self.set_token_start(close);
        self.close(object);
        true
    }

    /// Inside an array (after its `[` or after an element): the next element when it is an
    /// integer of at most 18 digits (J5.6: no sign, fraction or exponent) no greater than `max`,
    /// read here without the event; `None` for anything else, the array's `]` included, with the
    /// parser as [`Parser::next`] leaves it after the whitespace and the `,`, so that `next` reads
    /// it with its own offsets and verdicts. (Arrays of small numbers: `SecurityIdentity`'s 32.)
    #[inline(always)]
    pub(crate) fn next_if_small_unsigned(&mut self, max: u64) -> Option<u64> {
        self.skip_ws();
        if self.state() == State::AfterValue {
            if !self.top_is_array() || self.byte(self.pos()) != Some(b',') {
                return None;
            }
            self.comma(false);
            self.skip_ws();
        } else if !matches!(self.state(), State::Value | State::ValueOrEnd) {
            return None;
        }
        let start = self.pos();
        let mut end = start;
        let mut value = 0u64;
        while let Some(d) = self.byte(end).filter(u8::is_ascii_digit) {
            value = value * 10 + u64::from(d - b'0');
            end += 1;
            if end - start > 18 {
                return None;
            }
        }
        let leading_zero = end - start > 1 && self.byte(start) == Some(b'0');
        if end == start || leading_zero || value > max || matches!(self.byte(end), None | Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.set_token_start(start);
        self.scalar_read(end);
        Some(value)
    }

    /// [`Parser::next`] for a value whose strings are expected to start with a long run of bytes
    /// that `R` recognises faster than the generic string scan (base64 text, say). When the value
    /// is a string, [`PlainPrefix::scan`] gets the rest of the document from the body's first byte;
    /// the parser's own scan resumes after the run. Returns the event and, for a string, the run
    /// (which then also proves what it counts to whoever reads the string next).
    pub(crate) fn next_with_plain_prefix<R: PlainPrefix>(&mut self) -> JResult<(Event<'a>, Option<R>)> {
        self.skip_ws();
        // An array's next element: past its `,` first, so that a string there has its run too.
        if self.state() == State::AfterValue && self.top_is_array() && self.byte(self.pos()) == Some(b',') {
            self.comma(false);
            self.skip_ws();
        }
        let mut run = None;
        if matches!(self.state(), State::Value | State::ValueOrEnd) && self.byte(self.pos()) == Some(b'"') {
            let body = self.src().get(self.pos() + 1..).unwrap_or_default();
            let scanned = R::scan(body);
            self.set_plain_prefix(scanned.len().min(body.len()));
            run = Some(scanned);
        }
        let event = self.next();
        self.set_plain_prefix(0);
        let event = event?;
        Ok((event, run.filter(|_| matches!(event, Event::String(_)))))
    }

    /// Right after an [`Event::Number`]: when it is an array's element, the numbers that follow it
    /// as the next elements, each right after its `,`, read as [`Parser::next`] reads them, without
    /// their events (for a reader that only checks them: raw values). Stops before anything else,
    /// whitespace included, with the parser where `next` leaves it after the last one; an error is
    /// the one `next` gives, at the same offset. (A tool input of numbers is a token per two or
    /// eleven bytes, and a state-machine step per token was most of its cost.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn numbers_after_number(&mut self) -> JResult<()> {
        if self.state() != State::AfterValue || !self.top_is_array() {
            return Ok(());
        }
        while self.byte(self.pos()) == Some(b',') && matches!(self.byte(self.pos() + 1), Some(b'-' | b'0'..=b'9')) {
            self.comma(false);
            self.set_token_start(self.pos());
            self.number()?;
            self.scalar_read(self.pos());
        }
        Ok(())
    }

    /// Right after an [`Event::ArrayStart`]: the `[` that follow it at once, each the first
    /// element of the array before it, read as [`Parser::next`] reads them, without their events
    /// (for raw values); the error of one too deep is `next`'s, at the same offset (J5.2).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn arrays_after_array(&mut self) -> JResult<()> {
        while self.byte(self.pos()) == Some(b'[') {
            self.set_token_start(self.pos());
            self.open(false)?;
        }
        Ok(())
    }

    /// Right after an [`Event::ArrayEnd`]: the `]` that follow it at once, each closing the array
    /// around the one before, read as [`Parser::next`] reads them, without their events, until the
    /// depth is `floor` (the end of a raw value, whose reader stops there).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn ends_after_array_end(&mut self, floor: usize) {
        while self.depth() > floor && self.byte(self.pos()) == Some(b']') && self.top_is_array() {
            self.set_token_start(self.pos());
            self.close(false);
        }
    }
}
