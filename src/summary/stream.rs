//! Streaming validation of a summary (SPEC §17.3): the reply in chunks of any size, with a verdict
//! after each chunk ("still viable" or "dead") and, at the end, the whole-document verdict and
//! diagnosis of [`super::validate`] and [`super::diagnose`], whatever the split.
//!
//! The validator is a resumable state machine over bytes: the tokenizer of `tokenizer` and
//! `chars` and the classifier of `Document`, one byte at a time, with what a token needs carried
//! in a few fields (a partial UTF-8 sequence, a partial reference, how much of a name matched the
//! one name allowed there, the quote of an attribute value, the state of the `<?xml` declaration
//! scan). It keeps no text: memory is the size of [`SummaryStream`] whatever the reply's length.
//!
//! Character data inside a section, the bulk of every summary, takes a fast path: a window of a
//! chunk's run at a time, its rare bytes and line feeds found by vector compares and the rare bytes
//! read by the whole-document scan's own reader (`chars::text_rare`: references and UTF-8
//! characters complete in the chunk are read where they stand), a long chunk by the whole-document
//! scan itself (`chars::scan_text`). The byte machine takes over at a run's ends: the `<` after it,
//! a UTF-8 sequence cut by the end of the chunk, a `]` that might start `]]>`; a reference cut by
//! the end of the chunk is read on by the byte machine's reference reader from the fast path. The
//! tests prove the two paths give the same result for every split (`tests/stream`).
//!
//! Two verdicts come out:
//!
//! - while feeding, *dead* (T17.3): no continuation of the bytes fed so far can validate. The
//!   stream dies at the first byte that makes it so ([`SummaryStream::dead_at`]) and stays dead;
//!   its diagnosis then is the first problem known at that byte ([`SummaryStream::diagnosis`]);
//! - at the end, [`SummaryStream::finish`] and [`SummaryStream::finish_diagnose`]: exactly
//!   [`super::validate`] and [`super::diagnose`] of the concatenated chunks (T17.4).
//!
//! The two diagnoses can differ, as the whole-document rules rank problems that come later: a
//! token is read to its end before it is classified (X4.2), so a syntax error later in a rejected
//! token outranks its rejection, and `<![CDATA[` anywhere outranks everything (X4.3).

use super::chars::{
    Step, after, has_non_white_space, is_allowed_control, is_char, is_white_space, rare_or_control_mask,
    reference_len_in_word, scan_text, text_rare,
};
use super::diagnose::{Token, rule_of};
use super::name_chars::{is_digit_combining_or_extender, is_letter};
use super::tokenizer::is_name_byte;
use super::{CDATA_START, GOAL, ROOT, SECTIONS, STATE, Section};
use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::lanes::Lanes;
use crate::status::Status;

/// Bytes of character data per step of the fast path (the whole-document scan's window).
const WINDOW: usize = 64;

/// `ref_tail_len` when no cut reference is kept.
const NO_TAIL: u8 = u8::MAX;

/// A position in the reply with what a diagnosis needs about it: its line and column (C13.2),
/// the byte there and the one before (for the rule of a syntax error), and whether it lies in a
/// quoted attribute value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct At {
    offset: usize,
    line: u64,
    column: u64,
    /// `None`: the end of the input.
    byte: Option<u8>,
    before: Option<u8>,
    in_value: bool,
}

impl At {
    fn in_value(self) -> At {
        At { in_value: true, ..self }
    }
}

/// The classifier of `Document` (X4.17, X4.18, X4.20), without the borrowed names: the only names
/// it accepts are static, so a name is compared with the one allowed as it arrives ([`Matcher`]).
#[derive(Clone, Copy, Debug, Default)]
struct Classifier {
    root_seen: bool,
    root_closed: bool,
    /// 0 outside the root, 1 in the root, 2 in a section.
    depth: u8,
    /// Index into [`SECTIONS`] of the next section expected (0–5).
    next: u8,
    goal_has_content: bool,
    state_has_content: bool,
    /// The `<` of the goal and state start tags (the offset of an X4.20 diagnosis).
    goal_lt: At,
    state_lt: At,
}

impl Classifier {
    fn section(&self) -> Option<Section> {
        match self.depth {
            2 => Section::ALL.get(usize::from(self.next)).copied(),
            1 => Some(Section::Root),
            _ => None,
        }
    }

    /// The one start-tag name allowed here, if any.
    fn start_target(&self) -> Option<&'static [u8]> {
        if self.root_closed {
            None
        } else if !self.root_seen {
            Some(ROOT)
        } else if self.depth == 1 {
            SECTIONS.get(usize::from(self.next)).copied()
        } else {
            None
        }
    }

    /// The name of the innermost open element (X4.12).
    fn innermost(&self) -> Option<&'static [u8]> {
        match self.depth {
            2 => SECTIONS.get(usize::from(self.next)).copied(),
            1 => Some(ROOT),
            _ => None,
        }
    }

    /// `Document::start_element`.
    fn start_element(&mut self, tag: &Tag) -> core::result::Result<(), Status> {
        if self.root_closed {
            return Err(Status::SummaryXmlStructure);
        }
        if !self.root_seen {
            if !tag.local_is_root {
                return Err(Status::SummaryXmlRoot);
            }
            if tag.prefixed || tag.has_attributes {
                return Err(Status::SummaryXmlStructure);
            }
            self.root_seen = true;
            self.depth = 1;
            return Ok(());
        }
        if self.depth == 1 && usize::from(self.next) < SECTIONS.len() && tag.is_target && !tag.has_attributes {
            self.depth = 2;
            return Ok(());
        }
        Err(Status::SummaryXmlStructure)
    }

    /// `Document::end_element`.
    fn end_element(&mut self) -> core::result::Result<(), Status> {
        match self.depth {
            2 => {
                self.next += 1;
                self.depth = 1;
                Ok(())
            }
            1 if usize::from(self.next) == SECTIONS.len() => {
                self.root_closed = true;
                self.depth = 0;
                Ok(())
            }
            _ => Err(Status::SummaryXmlStructure),
        }
    }

    /// `Document::text`, for a run whose decoded text has a non-white-space character or not.
    fn text(&mut self, non_white: bool) -> core::result::Result<(), Status> {
        match (self.depth, usize::from(self.next)) {
            (0, _) => return Err(Status::SummaryXmlStructure),
            (1, _) if non_white => return Err(Status::SummaryXmlStructure),
            (1, _) => {}
            (_, GOAL) => self.goal_has_content = non_white,
            (_, STATE) => self.state_has_content = non_white,
            _ => {}
        }
        Ok(())
    }

    /// Whether a section's text may not be blank (X4.20): `goal` and `state`, the sections whose
    /// text [`Classifier::text`] records. For the section open at depth 2, or the one expected
    /// next at depth 1.
    fn text_must_not_be_blank(&self) -> bool {
        matches!(usize::from(self.next), GOAL | STATE)
    }

    /// `Document::finish`: the status of X4.20 at the end of the input, if any.
    fn finish(&self) -> Option<Status> {
        if !self.root_seen {
            Some(Status::SummaryXmlRoot)
        } else if self.depth > 0 {
            Some(Status::SummaryXmlSyntax)
        } else if !self.goal_has_content || !self.state_has_content {
            Some(Status::SummaryXmlContent)
        } else {
            None
        }
    }

    /// Whether the current section is goal or state with no text yet: closing it now leaves it
    /// blank (X4.20).
    fn blank_required_section(&self) -> bool {
        self.depth == 2
            && match usize::from(self.next) {
                GOAL => !self.goal_has_content,
                STATE => !self.state_has_content,
                _ => false,
            }
    }
}

/// A comparison of a name, as it arrives, with the one static name allowed.
#[derive(Clone, Copy, Debug, Default)]
struct Matcher {
    target: &'static [u8],
    len: usize,
    equal: bool,
}

impl Matcher {
    fn new(target: Option<&'static [u8]>) -> Matcher {
        Matcher { target: target.unwrap_or_default(), len: 0, equal: target.is_some() }
    }

    fn push(&mut self, b: u8) {
        self.equal &= self.target.get(self.len) == Some(&b);
        self.len += 1;
    }

    /// Some continuation can still equal the target.
    fn alive(&self) -> bool {
        self.equal
    }

    fn done(&self) -> bool {
        self.equal && self.len == self.target.len()
    }
}

/// A UTF-8 sequence being read (`chars::utf8_char`, a byte at a time).
#[derive(Clone, Copy, Debug, Default)]
struct Utf8 {
    lead: u8,
    need: u8,
    got: u8,
    cp: u32,
}

/// What the next byte of a character did.
enum Next {
    More,
    Done(u32),
    Fail,
}

impl Utf8 {
    /// A lead byte (>= 0x80): the sequence it starts, or `None` when it starts none.
    fn start(lead: u8) -> Option<Utf8> {
        let (need, cp) = match lead {
            0xC2..=0xDF => (1, lead & 0x1F),
            0xE0..=0xEF => (2, lead & 0x0F),
            0xF0..=0xF4 => (3, lead & 0x07),
            _ => return None,
        };
        Some(Utf8 { lead, need, got: 0, cp: u32::from(cp) })
    }

    fn push(&mut self, b: u8) -> Next {
        // The allowed range of the second byte depends on the first (RFC 3629 table).
        let (lo, hi) = match (self.got, self.lead) {
            (0, 0xE0) => (0xA0, 0xBF),
            (0, 0xED) => (0x80, 0x9F),
            (0, 0xF0) => (0x90, 0xBF),
            (0, 0xF4) => (0x80, 0x8F),
            _ => (0x80, 0xBF),
        };
        if !(lo..=hi).contains(&b) {
            return Next::Fail;
        }
        self.cp = (self.cp << 6) | u32::from(b & 0x3F);
        self.got += 1;
        if self.got < self.need {
            Next::More
        } else if self.need == 2 && self.cp >= 0xFFFE {
            // U+FFFE and U+FFFF are the only 3-byte values that are not Chars.
            Next::Fail
        } else {
            Next::Done(self.cp)
        }
    }
}

/// The entity references of X4.6 with their values.
const NAMED: [(&[u8], u32); 5] = [(b"lt;", 0x3C), (b"gt;", 0x3E), (b"amp;", 0x26), (b"apos;", 0x27), (b"quot;", 0x22)];

/// A reference being read after its `&` (`chars::reference`, a byte at a time).
#[derive(Clone, Copy, Debug, Default)]
struct Reference {
    /// Bytes read after the `&`.
    len: u8,
    /// 0: nothing yet; 1: a name (`names`: the ones still possible); 2: after `#`; 3: decimal
    /// digits; 4: hex digits (after `#x`).
    kind: u8,
    names: u8,
    value: u32,
    digits: bool,
}

impl Reference {
    #[inline(always)]
    fn push(&mut self, b: u8) -> Next {
        match (self.kind, b) {
            (0, b'#') => {
                self.kind = 2;
                Next::More
            }
            (0, _) => {
                self.kind = 1;
                self.names = 0b1_1111;
                self.name(b)
            }
            (1, _) => self.name(b),
            (2, b'x') => {
                self.kind = 4;
                Next::More
            }
            (2, _) => {
                self.kind = 3;
                self.digit(b, 10)
            }
            (3, _) => self.digit(b, 10),
            _ => self.digit(b, 16),
        }
    }

    #[inline(always)]
    fn name(&mut self, b: u8) -> Next {
        let n = usize::from(self.len);
        let mut still = 0;
        for (k, &(name, cp)) in NAMED.iter().enumerate() {
            if self.names & (1 << k) != 0 && name.get(n) == Some(&b) {
                if n + 1 == name.len() {
                    return Next::Done(cp);
                }
                still |= 1 << k;
            }
        }
        self.names = still;
        self.len = self.len.saturating_add(1);
        if still == 0 { Next::Fail } else { Next::More }
    }

    #[inline(always)]
    fn digit(&mut self, b: u8, base: u32) -> Next {
        if b == b';' {
            return if self.digits && is_char(self.value) { Next::Done(self.value) } else { Next::Fail };
        }
        let Some(d) = char::from(b).to_digit(base) else {
            return Next::Fail;
        };
        self.value = self.value * base + d;
        self.digits = true;
        // As `chars::char_reference`: no value above U+10FFFF, however many digits follow.
        if self.value > 0x10_FFFF { Next::Fail } else { Next::More }
    }
}

/// A character of text or of an attribute value that is not read yet: a reference or a UTF-8
/// sequence, with where it started.
#[derive(Clone, Copy, Debug, Default)]
enum Pending {
    #[default]
    None,
    Reference(At, Reference),
    Utf8(At, Utf8),
}

/// A name being read (X4.9, X4.10): whether it is a name so far, its colons, and how it compares
/// with the name allowed there.
#[derive(Clone, Copy, Debug, Default)]
struct Name {
    start: At,
    len: usize,
    valid: bool,
    utf8: Option<Utf8>,
    colons: u8,
    /// Index of the first colon.
    colon: usize,
    /// The second colon (X4.10).
    second: At,
    /// The whole name against the name allowed here.
    whole: Matcher,
    /// What follows the first colon against `conversation_summary` (a prefixed root).
    local: Matcher,
}

impl Name {
    fn new(target: Option<&'static [u8]>) -> Name {
        Name { valid: true, whole: Matcher::new(target), local: Matcher::new(Some(ROOT)), ..Name::default() }
    }

    fn push(&mut self, b: u8, at: At) {
        if self.len == 0 {
            self.start = at;
        }
        let first = self.len == 0;
        if let Some(mut utf8) = self.utf8.take() {
            match utf8.push(b) {
                Next::More => self.utf8 = Some(utf8),
                Next::Fail => self.valid = false,
                Next::Done(cp) => {
                    let first_char = self.len == usize::from(utf8.need);
                    self.valid &= is_letter(cp) || (!first_char && is_digit_combining_or_extender(cp));
                }
            }
        } else if b < 0x80 {
            if first {
                self.valid &= b.is_ascii_alphabetic() || b == b'_' || b == b':';
            }
        } else {
            match Utf8::start(b) {
                Some(utf8) => self.utf8 = Some(utf8),
                None => self.valid = false,
            }
        }
        if b == b':' {
            self.colons = self.colons.saturating_add(1);
            match self.colons {
                1 => self.colon = self.len,
                2 => self.second = at,
                _ => {}
            }
        } else if self.colons > 0 {
            self.local.push(b);
        }
        self.whole.push(b);
        self.len += 1;
    }

    /// `tokenizer::is_name` of the whole name.
    fn is_name(&self) -> bool {
        self.len > 0 && self.valid && self.utf8.is_none()
    }

    /// X4.10: one colon, neither first nor last.
    fn prefixed(&self) -> bool {
        self.colons == 1 && self.colon != 0 && self.colon + 1 != self.len
    }
}

/// What the classifier needs of a start tag.
#[derive(Clone, Copy, Debug, Default)]
struct Tag {
    local_is_root: bool,
    prefixed: bool,
    is_target: bool,
    has_attributes: bool,
}

/// Where a start tag is (X4.11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum TagStage {
    #[default]
    Name,
    /// After the name or a value: white space, then `>`, `/` or an attribute.
    Space,
    Slash,
    AttributeName,
    Equals,
    Quote,
    Value,
}

#[derive(Clone, Copy, Debug, Default)]
struct StartTag {
    stage: TagStage,
    name: Name,
    tag: Tag,
    slash: At,
    attribute: Name,
    quote: u8,
    pending: Pending,
}

/// A processing instruction (X4.14): target, white space, content up to `?>`.
#[derive(Clone, Copy, Debug, Default)]
struct Pi {
    /// 0: target; 1: white space; 2: content.
    stage: u8,
    target: Name,
    /// A `?` that may start `?>`.
    question: bool,
    version: Pseudo,
    encoding: Pseudo,
}

/// `tokenizer::pseudo_attribute` of one key over the content of an `<?xml` declaration, a byte
/// at a time, with the value compared as it arrives with the one supported value.
#[derive(Clone, Copy, Debug, Default)]
struct Pseudo {
    key: &'static [u8],
    supported: &'static [u8],
    /// Bytes of `key` matched; `key.len()`: the key was found and the next byte decides.
    matched: usize,
    /// The quote of the value being read (0: none).
    quote: u8,
    value: Matcher,
    /// Whether the value is supported, once it is closed.
    result: Option<bool>,
}

impl Pseudo {
    fn new(key: &'static [u8], supported: &'static [u8]) -> Pseudo {
        Pseudo { key, supported, ..Pseudo::default() }
    }

    fn push(&mut self, b: u8) {
        if self.result.is_some() {
            return;
        }
        if self.quote != 0 {
            if b == self.quote {
                let v = self.value;
                self.result = Some(v.len == 0 || v.done());
            } else {
                // `encoding` compares in any ASCII case; folding changes nothing for `version`,
                // whose one supported value has no letters.
                self.value.push(b.to_ascii_lowercase());
            }
            return;
        }
        if self.matched == self.key.len() {
            // The byte after the key: a quote opens the value; any other byte is skipped and the
            // scan goes on after it (the amended X4.14 scan).
            if matches!(b, b'"' | b'\'') {
                self.quote = b;
                self.value = Matcher::new(Some(self.supported));
            }
            self.matched = 0;
            return;
        }
        // Neither key has a proper prefix that is also a suffix: a mismatch starts over.
        if self.key.get(self.matched) == Some(&b) {
            self.matched += 1;
        } else {
            self.matched = usize::from(self.key.first() == Some(&b));
        }
    }

    /// Whether the declaration's value for this key is supported (no value: it is).
    fn supported(&self) -> bool {
        self.result.unwrap_or(true)
    }
}

/// A directive (X4.15), scanned with a quote, a depth and `<!-- … -->` comments skipped.
#[derive(Clone, Copy, Debug, Default)]
struct Directive {
    depth: usize,
    quote: u8,
    /// Bytes of `<!--` matched after a `<` (1–3; 0: none).
    open: u8,
    comment: bool,
    dashes: u8,
}

/// The tokenizer's state between two bytes.
#[derive(Clone, Copy, Debug, Default)]
enum Lex {
    /// The next byte starts a token.
    #[default]
    Between,
    /// Character data (X4.5): whether its decoded text has a non-white-space character so far,
    /// the `]` just before (0–2), a character not read yet.
    Text {
        non_white: bool,
        brackets: u8,
        pending: Pending,
    },
    /// After `<`.
    Lt,
    Start(StartTag),
    /// An end tag: its name against the innermost open element, then white space and `>`.
    End {
        name: Matcher,
        len: usize,
        space: bool,
    },
    Pi(Pi),
    /// After `<!`.
    Bang,
    /// After `<!-`.
    CommentOpen,
    /// A comment's content: the `-` just before (0–2), the first of them.
    Comment {
        dashes: u8,
        dash: At,
    },
    Directive(Directive),
    /// The first error is known: the tokenizer stops (only X4.3 is still looked for).
    Stopped,
}

/// A failure and what explaining it needs: the state the classifier was in and the token read.
#[derive(Clone, Copy, Debug)]
struct Failure {
    status: Status,
    at: At,
    token: Token,
    class: Classifier,
}

/// The streaming summary validator (SPEC §17.3).
///
/// Feed the reply in chunks of any size with [`SummaryStream::feed`]; it says whether some
/// continuation can still validate. [`SummaryStream::finish`] gives the whole-document verdict of
/// everything fed so far, exactly [`super::validate`] of the concatenated chunks, and can be asked
/// at any point (it does not end the stream).
///
/// ```
/// use loopcompact::summary::SummaryStream;
///
/// let mut stream = SummaryStream::new();
/// assert!(stream.feed(b"<conversation_summary><goal>fix &am").is_ok());
/// assert!(stream.feed(b"p; ship</goal>").is_ok());
/// assert!(stream.finish().is_err()); // not a whole summary yet
/// assert!(stream.feed(b"<notes>").is_err()); // no continuation can validate
/// assert_eq!(stream.dead_at(), Some(50)); // the `n` of `<notes>`
/// ```
#[derive(Clone, Debug)]
pub struct SummaryStream {
    /// Bytes fed so far, with the line and column of the next one.
    pos: usize,
    line: u64,
    column: u64,
    prev: Option<u8>,
    class: Classifier,
    lex: Lex,
    /// The first byte of the token being read (or the last one).
    token: At,
    token_kind: Token,
    error: Option<Failure>,
    /// Where the stream died and the diagnosis known then.
    dead: Option<(usize, Failure)>,
    /// Bytes of `<![CDATA[` matched up to the last byte, from `cdata_lt`.
    cdata_matched: usize,
    cdata_lt: At,
    /// The first `<![CDATA[` and the section the classifier was in (X4.3).
    cdata: Option<(At, Option<Section>)>,
    /// A reference in section text cut by the end of the last chunk, as raw bytes: the
    /// `ref_tail_len` bytes after its `&` (the low bytes of `ref_tail`), valid while nothing more
    /// is read (`ref_tail_at`: the offset the stream was at). The next chunk completes it a word at
    /// a time ([`SummaryStream::resume_reference`]); the byte machine's pending reference stays the
    /// state, and reads on whenever the word cannot decide.
    ref_tail: u64,
    ref_tail_len: u8,
    ref_tail_at: usize,
    /// Set by each feed that leaves the stream viable in section text with nothing pending (the
    /// state [`SummaryStream::windows`] reads from): the next feed starts there without looking
    /// at the state.
    fast: bool,
}

impl Default for SummaryStream {
    fn default() -> SummaryStream {
        SummaryStream::new()
    }
}

impl SummaryStream {
    /// A stream with nothing fed yet.
    #[must_use]
    pub fn new() -> SummaryStream {
        SummaryStream {
            pos: 0,
            line: 1,
            column: 1,
            prev: None,
            class: Classifier::default(),
            lex: Lex::Between,
            token: At::default(),
            token_kind: Token::Text,
            error: None,
            dead: None,
            cdata_matched: 0,
            cdata_lt: At::default(),
            cdata: None,
            ref_tail: 0,
            ref_tail_len: NO_TAIL,
            ref_tail_at: 0,
            fast: false,
        }
    }

    /// Bytes fed so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pos
    }

    /// Whether nothing was fed yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pos == 0
    }

    /// Reads the next chunk of the reply.
    ///
    /// # Errors
    /// Once no continuation of the bytes fed so far can validate (T17.3): the status and offset
    /// of [`SummaryStream::diagnosis`], from that chunk on, for every later chunk too.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        if self.fast && chunk.len() >= WINDOW {
            // The common case of a long reply: a chunk of section text.
            let mut start = 0;
            if self.ref_tail_len != NO_TAIL {
                // After a reference the last chunk cut.
                start = self.resume_reference(chunk);
                if start == 0 {
                    return self.feed_from(chunk, 0);
                }
            }
            return match self.windows(chunk, start, true) {
                Ok(_) => Ok(()),
                // A reference cut by the end of this chunk, its bytes kept: still the fast state.
                Err(next) if next == chunk.len() && self.kept_reference() => Ok(()),
                Err(next) => self.feed_from(chunk, next),
            };
        }
        self.feed_from(chunk, 0)
    }

    /// [`Self::feed`] from `chunk[i]`.
    #[inline(never)]
    fn feed_from(&mut self, chunk: &[u8], mut i: usize) -> Result<()> {
        while i < chunk.len() {
            if let Lex::Text { non_white, brackets: 0, pending } = self.lex
                && self.class.depth == 2
            {
                let end = match pending {
                    Pending::None if chunk.len() >= WINDOW => self.text_windows(chunk, i, non_white),
                    Pending::None => self.text_run(chunk, i, non_white),
                    // A reference cut by the end of the last chunk, kept for this one.
                    Pending::Reference(..)
                        if i == 0 && self.ref_tail_len != NO_TAIL && self.ref_tail_at == self.pos =>
                    {
                        self.resume_reference(chunk)
                    }
                    _ => i,
                };
                if end > i {
                    i = end;
                    continue;
                }
                // The `<` after the run, or a character the scan leaves to the byte machine.
            }
            i = self.bytes(chunk, i);
        }
        // Plain section text, or a reference in it whose bytes are kept (`resume_reference`).
        self.fast = self.dead.is_none()
            && self.class.depth == 2
            && (matches!(self.lex, Lex::Text { non_white: true, brackets: 0, pending: Pending::None })
                || self.kept_reference());
        match self.dead {
            Some(_) => self.dead_error(),
            None => Ok(()),
        }
    }

    /// Whether the stream is viable in section text, after an `&` whose reference the last chunk
    /// cut, with its bytes kept for the next one ([`Self::resume_reference`]).
    fn kept_reference(&self) -> bool {
        self.dead.is_none()
            && self.class.depth == 2
            && matches!(self.lex, Lex::Text { non_white: true, brackets: 0, pending: Pending::Reference(..) })
            && self.ref_tail_len != NO_TAIL
            && self.ref_tail_at == self.pos
    }

    /// The error of a dead stream.
    #[cold]
    #[inline(never)]
    fn dead_error(&self) -> Result<()> {
        let d = self.diagnosis();
        Err(Error::at(d.status(), d.offset().unwrap_or(self.pos)))
    }

    /// The byte machine from `chunk[i]` (at least one byte of it): returns where the text fast
    /// path can take over again, or the end of the chunk. Out of line, so that [`Self::feed`]'s
    /// loop around the fast path stays small.
    #[inline(never)]
    fn bytes(&mut self, chunk: &[u8], mut i: usize) -> usize {
        while let Some(&b) = chunk.get(i) {
            if matches!(self.lex, Lex::Stopped) {
                self.after_stop(chunk.get(i..).unwrap_or_default());
                return chunk.len();
            }
            if let Lex::Text { non_white, pending: Pending::Reference(start, reference), .. } = self.lex
                && self.class.depth == 2
            {
                // A reference cut by the end of the last chunk or window, finished here.
                let end = self.finish_reference(chunk, i, non_white, start, reference);
                if end > i {
                    i = end;
                    if self.fast_text() {
                        return i;
                    }
                    continue;
                }
            }
            self.step(b);
            i += 1;
            if self.fast_text() {
                return i;
            }
        }
        i
    }

    /// Whether the text fast path can read the next byte.
    fn fast_text(&self) -> bool {
        matches!(self.lex, Lex::Text { brackets: 0, pending: Pending::None, .. }) && self.class.depth == 2
    }

    /// The offset of the byte at which the stream died: the bytes up to and including it have no
    /// continuation that validates. `None` while the stream is viable.
    #[must_use]
    pub fn dead_at(&self) -> Option<usize> {
        self.dead.map(|(at, _)| at)
    }

    /// The diagnosis known when the stream died (C13.4 fields, offsets from the start of the
    /// reply), or [`Diagnostic::ok`] while it is viable. It names the first rule the bytes fed
    /// break; the whole document's diagnosis ([`SummaryStream::finish_diagnose`]) may name one that
    /// outranks it (a syntax error later in the same token, X4.2, or `<![CDATA[`, X4.3).
    #[must_use]
    pub fn diagnosis(&self) -> Diagnostic {
        self.dead.map_or_else(Diagnostic::ok, |(_, failure)| explain(&failure))
    }

    /// The whole-document verdict of everything fed so far: [`super::validate`] of the
    /// concatenated chunks. The stream goes on: more chunks can be fed after it.
    ///
    /// # Errors
    /// As [`super::validate`].
    pub fn finish(&self) -> Result<()> {
        match self.end() {
            (None, _) => Ok(()),
            (Some(_), Some((at, _))) => Err(Error::at(Status::SummaryXmlStructure, at.offset)),
            (Some(failure), None) => Err(Error::at(failure.status, failure.at.offset)),
        }
    }

    /// [`SummaryStream::finish`] with its diagnosis: [`super::diagnose`] of the concatenated
    /// chunks.
    #[must_use]
    pub fn finish_diagnose(&self) -> Diagnostic {
        match self.end() {
            (None, _) => Diagnostic::ok(),
            (Some(_), Some((at, section))) => Diagnostic::new(Status::SummaryXmlStructure)
                .at_position(at.offset, at.line, at.column)
                .with_section(section)
                .with_rule(c"X4.3"),
            (Some(failure), None) => explain(&failure),
        }
    }

    /// The first failure of the whole document (the end of the input applied to a copy) and the
    /// first `<![CDATA[`.
    fn end(&self) -> (Option<Failure>, Option<(At, Option<Section>)>) {
        if self.error.is_some() {
            return (self.error, self.cdata);
        }
        let mut end = self.clone();
        end.end_of_input();
        (end.error, end.cdata)
    }

    /// The current position, for the byte `b` about to be read.
    fn here(&self, b: u8) -> At {
        At { offset: self.pos, line: self.line, column: self.column, byte: Some(b), before: self.prev, in_value: false }
    }

    /// The end of the input.
    fn eof(&self) -> At {
        At { offset: self.pos, line: self.line, column: self.column, byte: None, before: self.prev, in_value: false }
    }

    /// Moves past one byte.
    fn advance(&mut self, b: u8) {
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else if (b as i8) >= -0x40 {
            // Not a UTF-8 continuation byte: a new scalar value (C13.2).
            self.column += 1;
        }
        self.prev = Some(b);
    }

    /// Moves past `bytes`, counting lines and columns a run at a time.
    fn advance_run(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else { return };
        self.pos += bytes.len();
        let columns = |run: &[u8]| run.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64;
        match memchr::memrchr(b'\n', bytes) {
            Some(nl) => {
                self.line += memchr::memchr_iter(b'\n', bytes).count() as u64;
                self.column = 1 + columns(bytes.get(nl + 1..).unwrap_or_default());
            }
            None => self.column += columns(bytes),
        }
        self.prev = Some(last);
    }

    /// The first error: the tokenizer stops; the stream dies here if it has not yet.
    fn fail(&mut self, status: Status, at: At) {
        let failure = Failure { status, at, token: self.token_kind, class: self.class };
        self.error = Some(failure);
        self.lex = Lex::Stopped;
        if self.dead.is_none() {
            self.dead = Some((self.pos, failure));
        }
    }

    /// No continuation can validate from this byte on, though the first error is not known yet:
    /// the diagnosis of the problem as it stands, with the classifier state `class`.
    fn doom_with(&mut self, status: Status, at: At, class: Classifier) {
        if self.dead.is_none() {
            self.dead = Some((self.pos, Failure { status, at, token: self.token_kind, class }));
        }
    }

    fn doom(&mut self, status: Status, at: At) {
        self.doom_with(status, at, self.class);
    }

    /// Character data in a section from `chunk[i]`, at most one window of it, by the
    /// whole-document scan's rules: returns where the byte machine takes over (the end of the
    /// window or chunk, the `<` after the run, or a character the scan could not finish in this
    /// window or rejects).
    ///
    /// The window's rare bytes and line feeds are found as two masks, and the rare bytes are read
    /// by `chars::text_rare`, the whole-document scan's own reader, so a reference or character
    /// complete in the chunk is read where it stands. The window is read from the chunk itself:
    /// its next 64 bytes, or, for a shorter rest, the chunk's last 64 bytes with the bits before
    /// `i` shifted out. Only a chunk shorter than a window is scanned in a copy, padded with `a`:
    /// a padding byte never completes a character, a reference or `]]>`, so whatever the real
    /// bytes leave open fails at its first byte, where the byte machine reads it again; a padding
    /// byte is never a problem itself, so the scan's answers before the real end are the real ones.
    #[inline(never)]
    fn text_run(&mut self, chunk: &[u8], i: usize, non_white: bool) -> usize {
        let rest = chunk.get(i..).unwrap_or_default();
        if rest.len() >= 2 * WINDOW {
            // A long chunk: its whole windows in one scan, lines counted by `memchr`.
            let span = rest.get(..rest.len() / WINDOW * WINDOW).unwrap_or_default();
            let (end, complete) = match scan_text(span, 0) {
                Ok(end) => (end, true),
                Err(at) => (at, false),
            };
            let run = span.get(..end).unwrap_or_default();
            self.advance_run(run);
            return self.text_done(run, complete && end == span.len(), non_white, i);
        }
        let real = rest.len().min(WINDOW);
        let padded: [u8; WINDOW];
        // The window, the bytes the readers may look at (a reference read across the window's end
        // would leave the run past the masks), where the run starts in them, and the bits of the
        // window before it.
        let (window, xml, start, shift) = if let Some(window) = rest.first_chunk::<WINDOW>() {
            (window, chunk.get(..i + WINDOW).unwrap_or_default(), i, 0)
        } else if let Some(window) = chunk.last_chunk::<WINDOW>() {
            (window, chunk, i, WINDOW - real)
        } else {
            let mut copy = [b'a'; WINDOW];
            if let Some(head) = copy.get_mut(..real) {
                head.copy_from_slice(rest);
            }
            padded = copy;
            (&padded, &padded[..], 0, 0)
        };
        let (lo, hi) = window.split_at(WINDOW / 2);
        let half = |h: &[u8], f: fn(&[u8; WINDOW / 2]) -> u32| <&[u8; WINDOW / 2]>::try_from(h).map_or(0, f);
        let real_bits = u64::MAX >> (WINDOW - real);
        // The rare bytes with TAB, LF and CR: the walk counts the line feeds and skips the others,
        // which costs less than a second mask for the line feeds and the compares that leave them
        // out of the rare bytes (summaries have a line feed every few dozen bytes).
        let rare = |h: &[u8; WINDOW / 2]| rare_or_control_mask(h);
        let mut mask = ((u64::from(half(lo, rare)) | u64::from(half(hi, rare)) << 32) >> shift) & real_bits;
        // Everything in `xml` before `next` is read.
        let mut end = start + real;
        let mut open = true;
        let mut non_ascii = false;
        let mut reference = false;
        // The line feeds of the run, and the last one's index in it.
        let mut lines = 0u64;
        let mut last_lf = 0usize;
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            let p = start + k;
            let b = xml.get(p).copied().unwrap_or_default();
            if is_allowed_control(b) {
                if b == b'\n' {
                    lines += 1;
                    last_lf = k;
                }
                mask &= mask - 1;
                continue;
            }
            match text_rare(xml, start, p) {
                Ok(Step::Next(next)) => {
                    non_ascii |= b >= 0x80;
                    mask &= after(next - start);
                }
                Ok(Step::End(lt)) => {
                    end = lt;
                    open = false;
                    break;
                }
                Err(at) => {
                    end = at;
                    open = false;
                    reference = xml.get(at) == Some(&b'&');
                    break;
                }
            }
        }
        let len = end - start;
        if len > 0 {
            // A UTF-8 continuation byte is 0x80-0xBF: below 0xC0 as a signed byte. Only a run with
            // a non-ASCII character has any.
            let cont = |h: &[u8; WINDOW / 2]| Lanes::load(h).lt_signed(0xC0).mask();
            let cont = if non_ascii {
                ((u64::from(half(lo, cont)) | u64::from(half(hi, cont)) << 32) >> shift) & (u64::MAX >> (WINDOW - len))
            } else {
                0
            };
            self.advance_lines(len, lines, last_lf, cont, xml.get(end - 1).copied());
        }
        let next = self.text_done(xml.get(start..end).unwrap_or_default(), open, non_white, i);
        if reference {
            // A reference the window does not hold whole (cut by the end of the chunk or window),
            // or a bad one: read on here, as the byte machine would.
            return self.reference_in_text(chunk, next);
        }
        next
    }

    /// Character data in a section from `chunk[i]` (a chunk of a window or more), by the
    /// whole-document scan's rules, a window at a time: returns where the byte machine takes over
    /// (the end of the chunk, the `<` after the run, or a character the scan rejects or cannot
    /// finish in the chunk).
    ///
    /// The windows are read from the chunk itself: its next 64 bytes, and for a shorter rest the
    /// chunk's last 64 bytes with the bits before the rest cleared. Their rare bytes (with TAB, LF
    /// and CR) are found as one mask and read by `chars::text_rare`, the whole-document scan's own
    /// reader, over the whole chunk, so a reference or character that crosses a window's end is
    /// read where it stands; line feeds are counted in the same walk. The line and column are
    /// kept in registers across the windows and stored once.
    fn text_windows(&mut self, chunk: &[u8], start: usize, non_white: bool) -> usize {
        match self.windows(chunk, start, non_white) {
            Ok(end) | Err(end) => end,
        }
    }

    /// [`Self::text_windows`]: `Ok` with the end of the chunk when it ends in plain text, the
    /// state as it was but for the position; `Err` with where the byte machine takes over.
    #[inline(always)]
    fn windows(&mut self, chunk: &[u8], start: usize, non_white: bool) -> core::result::Result<usize, usize> {
        let mut i = start;
        let mut line = self.line;
        // The column of `chunk[x]`, for `x` on the current line, is `x + column` (wrapping), less
        // the UTF-8 continuation bytes, which are subtracted as their characters are read.
        let mut column = self.column.wrapping_sub(start as u64);
        let mut open = true;
        let mut reference = false;
        // An `&` whose reference the chunk cuts (or a bad one), and the bytes after it.
        let mut cut = None;
        // The last window's start (`chunk` holds a window or more).
        let last_base = chunk.len().saturating_sub(WINDOW);
        while i < chunk.len() {
            let base = i.min(last_base);
            let Some(window) = chunk.get(base..).and_then(|rest| rest.first_chunk::<WINDOW>()) else { break };
            let (lo, hi) = window.split_at(WINDOW / 2);
            let half = |h: &[u8]| <&[u8; WINDOW / 2]>::try_from(h).map_or(0, rare_or_control_mask);
            let mut mask = u64::from(half(lo)) | u64::from(half(hi)) << 32;
            if i > base {
                // The chunk's last window, or one after a character that crossed its start.
                mask &= after(i - base);
            }
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                let p = base + k;
                let b = window.get(k).copied().unwrap_or_default();
                if b == b'&' {
                    // The eight bytes after it as one word, or those the chunk has as the low
                    // bytes of its last word: the whole-document scan's word
                    // (`chars::reference_len_in_word`).
                    if let Some(word) = chunk.get(p + 1..p + 9).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
                        if reference_len_in_word(u64::from_le_bytes(word)).is_some() {
                            // A reference's bytes (`#`, `x`, letters, digits, `;`) are never rare:
                            // no bit of the mask, in this window or the next, is inside it.
                            mask &= mask - 1;
                            continue;
                        }
                        // A long reference or a bad one: the scan's reader below decides.
                    } else {
                        let avail = chunk.len() - p - 1;
                        let last = chunk.last_chunk::<8>().map_or(0, |w| u64::from_le_bytes(*w));
                        let word = last.checked_shr(8 * (8 - avail) as u32).unwrap_or(0);
                        match reference_len_in_word(word) {
                            // Whole in the chunk (the word's zero padding never completes one).
                            Some(len) if len - 1 <= avail => {
                                mask &= mask - 1;
                                continue;
                            }
                            _ => {
                                i = p;
                                open = false;
                                cut = Some(word);
                                break;
                            }
                        }
                    }
                }
                if is_allowed_control(b) {
                    if b == b'\n' {
                        line += 1;
                        // The byte after it is column 1.
                        column = (p as u64).wrapping_neg();
                    }
                    mask &= mask - 1;
                    continue;
                }
                match text_rare(chunk, start, p) {
                    Ok(Step::Next(next)) => {
                        if b >= 0x80 {
                            // One column for the character's bytes.
                            column = column.wrapping_sub((next - p - 1) as u64);
                        }
                        i = next;
                        mask &= after(next - base);
                    }
                    Ok(Step::End(lt)) => {
                        i = lt;
                        open = false;
                        break;
                    }
                    Err(at) => {
                        i = at;
                        open = false;
                        reference = chunk.get(at) == Some(&b'&');
                        break;
                    }
                }
            }
            if !open {
                break;
            }
            // Past the window, or past a character that crossed its end.
            i = i.max(base + WINDOW);
        }
        let end = i;
        if end > start {
            self.pos += end - start;
            self.line = line;
            self.column = column.wrapping_add(end as u64);
            let last = chunk.get(end - 1).copied();
            self.prev = last;
            if open && non_white && last != Some(b']') {
                // The common case: the chunk read to its end, the state as it was.
                return Ok(end);
            }
        }
        Err(self.windows_done(chunk, start, end, open, non_white, cut, reference))
    }

    /// The end of [`Self::windows`] but for the common case: the text state after the run
    /// `chunk[start..end]` (position already moved past it), then the reference it stopped at.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn windows_done(
        &mut self,
        chunk: &[u8],
        start: usize,
        end: usize,
        open: bool,
        non_white: bool,
        cut: Option<u64>,
        reference: bool,
    ) -> usize {
        if let Some(word) = cut
            && non_white
        {
            // The text state is as it was (no `]` before an `&` to count, nothing left blank).
            return self.cut_reference(chunk, end, word);
        }
        let next = self.text_done(chunk.get(start..end).unwrap_or_default(), open, non_white, start);
        if let Some(word) = cut {
            return self.cut_reference(chunk, next, word);
        }
        if reference {
            // A reference the chunk does not hold whole, or a bad one: read on here, as the byte
            // machine would.
            return self.reference_in_text(chunk, next);
        }
        next
    }

    /// The `&` at `chunk[i]` in section text, with fewer than eight bytes after it in the chunk
    /// (`word`: them, as its low bytes) and not a whole reference: when they are the start of one,
    /// the byte machine's state after them (the pending reference, read by the byte machine's own
    /// reader) and the bytes kept for the next chunk; otherwise the byte machine reads it.
    #[inline(never)]
    fn cut_reference(&mut self, chunk: &[u8], i: usize, word: u64) -> usize {
        let Lex::Text { non_white, brackets: 0, pending: Pending::None } = self.lex else { return i };
        let tail = chunk.get(i + 1..).unwrap_or_default();
        let mut reference = Reference::default();
        for &b in tail {
            if !matches!(reference.push(b), Next::More) {
                // A bad reference, read and reported where it fails.
                return self.reference_in_text(chunk, i);
            }
        }
        let start = self.here(b'&');
        // `&` and the bytes after it: ASCII (`#`, `x`, letters and digits), a column each.
        let len = 1 + tail.len();
        self.pos += len;
        self.column += len as u64;
        self.prev = chunk.last().copied();
        self.lex = Lex::Text { non_white, brackets: 0, pending: Pending::Reference(start, reference) };
        self.ref_tail = word;
        self.ref_tail_len = tail.len() as u8;
        self.ref_tail_at = self.pos;
        chunk.len()
    }

    /// The `&` at `chunk[i]` in section text (no `]` before it, no character pending): the byte
    /// machine's `step` for it, then the rest of the reference by [`Self::finish_reference`].
    fn reference_in_text(&mut self, chunk: &[u8], i: usize) -> usize {
        let Lex::Text { non_white, brackets: 0, pending: Pending::None } = self.lex else { return i };
        self.cdata_byte(b'&');
        let at = self.here(b'&');
        self.advance(b'&');
        let end = self.finish_reference(chunk, i + 1, non_white, at, Reference::default());
        if end == chunk.len()
            && let Lex::Text { pending: Pending::Reference(..), .. } = self.lex
            && let Some(tail) = chunk.get(i + 1..).filter(|tail| tail.len() < 8)
        {
            // Cut by the end of the chunk: kept for the next chunk's word.
            let mut word = [0u8; 8];
            if let Some(head) = word.get_mut(..tail.len()) {
                head.copy_from_slice(tail);
            }
            self.ref_tail = u64::from_le_bytes(word);
            self.ref_tail_len = tail.len() as u8;
            self.ref_tail_at = self.pos;
        }
        end
    }

    /// The reference kept by [`Self::reference_in_text`] at the end of the last chunk, completed
    /// from the start of `chunk` when the eight bytes after its `&` decide it
    /// (`chars::reference_len_in_word`, the whole-document scan's word): returns how many bytes of
    /// `chunk` it took, or 0, and the byte machine reads on from its pending reference.
    #[inline(never)]
    fn resume_reference(&mut self, chunk: &[u8]) -> usize {
        let kept = usize::from(self.ref_tail_len);
        self.ref_tail_len = NO_TAIL;
        // (A blank section's text needs the reference's value: the byte machine reads it.)
        let Lex::Text { non_white: true, brackets: 0, pending: Pending::Reference(..) } = self.lex else { return 0 };
        let Some(head) = chunk.first_chunk::<8>().map(|head| u64::from_le_bytes(*head)) else { return 0 };
        let Some(shift) = u32::try_from(8 * kept).ok().filter(|&s| s < 64) else { return 0 };
        let word = self.ref_tail | head << shift;
        let Some(len) = reference_len_in_word(word) else { return 0 };
        // `len` counts the `&` and the kept bytes, which were read (the pending reference).
        let Some(take) = len.checked_sub(1 + kept).filter(|&take| take > 0) else { return 0 };
        let Some(&last) = chunk.get(take - 1) else { return 0 };
        self.pos += take;
        self.column += take as u64;
        self.prev = Some(last);
        self.lex = Lex::Text { non_white: true, brackets: 0, pending: Pending::None };
        take
    }

    /// The text state after a run the fast path read from `chunk[i]` (lines and columns already
    /// counted): `open`, the run reaches the end of what was scanned, where a `]` may start `]]>`
    /// with the next bytes.
    ///
    /// Whether a section's text is blank matters in `goal` and `state` only (the classifier's
    /// `text` reads it there and nowhere else at depth 2): elsewhere the run counts as non-white
    /// without a look, which is the state [`Self::feed`]'s fast path reads from, so the next chunk
    /// of a `decisions` or `open_items` section takes it too.
    fn text_done(&mut self, run: &[u8], open: bool, non_white: bool, i: usize) -> usize {
        let non_white = non_white || !self.class.text_must_not_be_blank() || has_non_white_space(run);
        let brackets = match run.split_last() {
            Some((b']', before)) if open => 1 + u8::from(before.last() == Some(&b']')),
            _ => 0,
        };
        self.lex = Lex::Text { non_white, brackets, pending: Pending::None };
        i + run.len()
    }

    /// The rest of a reference in section text from `chunk[i]`: returns where the byte machine
    /// takes over (a byte that ends the reference badly is left to it, which reports it).
    fn finish_reference(
        &mut self,
        chunk: &[u8],
        mut i: usize,
        non_white: bool,
        start: At,
        mut reference: Reference,
    ) -> usize {
        let from = i;
        while let Some(&b) = chunk.get(i) {
            let before = reference;
            match reference.push(b) {
                Next::More => i += 1,
                Next::Done(cp) => {
                    self.advance_reference(chunk, from, i + 1);
                    let non_white = non_white || !is_white_space(cp);
                    self.lex = Lex::Text { non_white, brackets: 0, pending: Pending::None };
                    return i + 1;
                }
                Next::Fail => {
                    reference = before;
                    break;
                }
            }
        }
        self.advance_reference(chunk, from, i);
        self.lex = Lex::Text { non_white, brackets: 0, pending: Pending::Reference(start, reference) };
        i
    }

    /// Moves past `chunk[from..to]`, bytes a reference took: `#`, `x`, `;`, ASCII letters and
    /// digits, each one column.
    fn advance_reference(&mut self, chunk: &[u8], from: usize, to: usize) {
        let Some(&last) = to.checked_sub(1).and_then(|k| chunk.get(k)).filter(|_| to > from) else { return };
        debug_assert!(chunk.get(from..to).is_some_and(|r| r.iter().all(|b| b.is_ascii_graphic())));
        self.pos += to - from;
        self.column += (to - from) as u64;
        self.prev = Some(last);
    }

    /// Moves past a run of `len` bytes (1 to 64) with `lines` line feeds, the last at index
    /// `last_lf`, whose UTF-8 continuation bytes are the bits of `cont`, and whose last byte is
    /// `last`.
    fn advance_lines(&mut self, len: usize, lines: u64, last_lf: usize, cont: u64, last: Option<u8>) {
        self.pos += len;
        // The baseline x86-64 target counts bits in a dozen instructions: ASCII text needs none.
        let columns = |bytes: u64, cont: u64| if cont == 0 { bytes } else { bytes - u64::from(cont.count_ones()) };
        if lines == 0 {
            self.column += columns(len as u64, cont);
        } else {
            self.line += lines;
            // The bytes after the last line feed, less the continuation bytes among them.
            self.column = 1 + columns((len - last_lf - 1) as u64, cont & after(last_lf + 1));
        }
        self.prev = last;
    }

    /// After the first error: only the first `<![CDATA[` is still looked for (X4.3).
    fn after_stop(&mut self, chunk: &[u8]) {
        if self.cdata.is_some() {
            self.pos += chunk.len();
            return;
        }
        let mut i = 0;
        // A match begun in an earlier chunk, byte by byte.
        while self.cdata_matched > 0 && self.cdata.is_none() {
            let Some(&b) = chunk.get(i) else { return };
            self.cdata_byte(b);
            self.advance(b);
            i += 1;
        }
        let rest = chunk.get(i..).unwrap_or_default();
        // From the next `<![CDATA[`, or the last `<` (a match the next chunk may finish), on.
        let from = memchr::memmem::find(rest, CDATA_START)
            .or_else(|| memchr::memrchr(b'<', rest).filter(|&lt| rest.len() - lt < CDATA_START.len()));
        let (plain, tail) = rest.split_at(from.unwrap_or(rest.len()));
        self.advance_run(plain);
        for &b in tail {
            if self.cdata.is_some() {
                self.pos += 1;
                continue;
            }
            self.cdata_byte(b);
            self.advance(b);
        }
    }

    /// X4.3: the first `<![CDATA[`, with the section the classifier was in before it (the state
    /// `diagnose` reads from the document cut there).
    fn cdata_byte(&mut self, b: u8) {
        if self.cdata.is_some() {
            return;
        }
        if CDATA_START.get(self.cdata_matched) == Some(&b) {
            if self.cdata_matched == 0 {
                self.cdata_lt = self.here(b);
            }
            self.cdata_matched += 1;
            if self.cdata_matched == CDATA_START.len() {
                self.cdata = Some((self.cdata_lt, self.class.section()));
            }
        } else if b == b'<' {
            self.cdata_lt = self.here(b);
            self.cdata_matched = 1;
        } else {
            self.cdata_matched = 0;
        }
    }

    /// One byte through the tokenizer, the classifier and the X4.3 scan.
    fn step(&mut self, b: u8) {
        self.cdata_byte(b);
        let at = self.here(b);
        self.token_step(b, at);
        self.advance(b);
    }

    fn token_step(&mut self, b: u8, at: At) {
        match self.lex {
            Lex::Between => self.between(b, at),
            Lex::Text { non_white, brackets, pending } => self.text(b, at, non_white, brackets, pending),
            Lex::Lt => self.lt(b, at),
            Lex::Start(tag) => self.start_tag(b, at, tag),
            Lex::End { name, len, space } => self.end_tag(b, at, name, len, space),
            Lex::Pi(pi) => self.pi(b, at, pi),
            Lex::Bang => match b {
                b'-' => {
                    self.token_kind = Token::Comment;
                    self.lex = Lex::CommentOpen;
                }
                b'[' => self.fail(Status::SummaryXmlSyntax, self.token),
                // The first byte after `<!` is taken without interpretation.
                _ => self.lex = Lex::Directive(Directive::default()),
            },
            Lex::CommentOpen if b == b'-' => self.lex = Lex::Comment { dashes: 0, dash: at },
            Lex::CommentOpen => self.fail(Status::SummaryXmlSyntax, at),
            Lex::Comment { dashes: 2, dash } => {
                if b == b'>' {
                    self.fail(Status::SummaryXmlStructure, self.token);
                } else {
                    self.fail(Status::SummaryXmlSyntax, dash);
                }
            }
            Lex::Comment { dashes, dash } => {
                self.lex = match (b, dashes) {
                    (b'-', 0) => Lex::Comment { dashes: 1, dash: at },
                    (b'-', _) => Lex::Comment { dashes: 2, dash },
                    _ => Lex::Comment { dashes: 0, dash },
                };
            }
            Lex::Directive(d) => self.directive(b, d),
            Lex::Stopped => {}
        }
    }

    /// The first byte of a token.
    fn between(&mut self, b: u8, at: At) {
        self.token = at;
        if b == b'<' {
            self.token_kind = Token::StartTag;
            self.lex = Lex::Lt;
            self.lt_opened(at);
            return;
        }
        self.token_kind = Token::Text;
        if self.class.depth == 0 {
            // Text outside the root is rejected (X4.18), white space included.
            self.doom(Status::SummaryXmlStructure, at);
        }
        self.text(b, at, false, 0, Pending::None);
    }

    /// A `<` was read with the classifier in its current state.
    fn lt_opened(&mut self, at: At) {
        if self.class.root_closed {
            self.doom(Status::SummaryXmlStructure, at);
        } else if self.class.blank_required_section() {
            // Whatever follows: an end tag closes goal or state blank (X4.20), and any other
            // token in a section is rejected.
            let class = self.class;
            self.doom_with(Status::SummaryXmlContent, at, class);
        }
    }

    fn text(&mut self, b: u8, at: At, mut non_white: bool, mut brackets: u8, pending: Pending) {
        let was_white = !non_white;
        let mut pending_next = Pending::None;
        match pending {
            Pending::Reference(start, mut reference) => match reference.push(b) {
                Next::More => pending_next = Pending::Reference(start, reference),
                Next::Fail => return self.fail(Status::SummaryXmlSyntax, start),
                Next::Done(cp) => non_white |= !is_white_space(cp),
            },
            Pending::Utf8(start, mut utf8) => match utf8.push(b) {
                Next::More => pending_next = Pending::Utf8(start, utf8),
                Next::Fail => return self.fail(Status::SummaryXmlSyntax, start),
                Next::Done(cp) => non_white |= !is_white_space(cp),
            },
            Pending::None => match b {
                b'<' => {
                    if let Err(status) = self.class.text(non_white) {
                        return self.fail(status, self.token);
                    }
                    self.token = at;
                    self.token_kind = Token::StartTag;
                    self.lex = Lex::Lt;
                    self.lt_opened(at);
                    return;
                }
                b'&' => {
                    brackets = 0;
                    pending_next = Pending::Reference(at, Reference::default());
                }
                b'>' if brackets >= 2 => {
                    // X4.7: `]]>`, at its first `]` (two ASCII bytes back on this line).
                    let first =
                        At { offset: at.offset - 2, column: at.column - 2, byte: Some(b']'), before: None, ..at };
                    return self.fail(Status::SummaryXmlSyntax, first);
                }
                b']' => {
                    brackets = (brackets + 1).min(2);
                    non_white = true;
                }
                b'\t' | b'\n' | b'\r' | b' ' => brackets = 0,
                0x80..=0xFF => match Utf8::start(b) {
                    Some(utf8) => {
                        brackets = 0;
                        pending_next = Pending::Utf8(at, utf8);
                    }
                    None => return self.fail(Status::SummaryXmlSyntax, at),
                },
                0..0x20 => return self.fail(Status::SummaryXmlSyntax, at),
                _ => {
                    brackets = 0;
                    non_white = true;
                }
            },
        }
        if !matches!(pending_next, Pending::None) {
            brackets = 0;
        }
        if was_white && non_white && self.class.depth == 1 {
            // Text between sections must be white space (X4.18).
            self.doom(Status::SummaryXmlStructure, self.token);
        }
        self.lex = Lex::Text { non_white, brackets, pending: pending_next };
    }

    /// The byte after `<`.
    fn lt(&mut self, b: u8, at: At) {
        match b {
            b'/' => {
                self.token_kind = Token::EndTag;
                let class = self.class;
                if class.depth == 0 {
                    self.doom(Status::SummaryXmlSyntax, self.token);
                } else if class.depth == 1 && usize::from(class.next) < SECTIONS.len() {
                    self.doom(Status::SummaryXmlStructure, self.token);
                }
                self.lex = Lex::End { name: Matcher::new(class.innermost()), len: 0, space: false };
            }
            b'?' => {
                self.token_kind = Token::ProcessingInstruction;
                self.doom(Status::SummaryXmlStructure, self.token);
                let pi = Pi {
                    target: Name::new(Some(b"xml")),
                    version: Pseudo::new(b"version=", b"1.0"),
                    encoding: Pseudo::new(b"encoding=", b"utf-8"),
                    ..Pi::default()
                };
                self.lex = Lex::Pi(pi);
            }
            b'!' => {
                self.token_kind = Token::Bang;
                self.doom(Status::SummaryXmlStructure, self.token);
                self.lex = Lex::Bang;
            }
            _ => {
                let target = self.class.start_target();
                if target.is_none() {
                    self.doom(Status::SummaryXmlStructure, self.token);
                }
                let tag = StartTag { name: Name::new(target), ..StartTag::default() };
                self.start_tag(b, at, tag);
            }
        }
    }

    /// The status a start tag whose name is not the one allowed gets.
    fn rejected_start(&self) -> Status {
        if self.class.root_seen { Status::SummaryXmlStructure } else { Status::SummaryXmlRoot }
    }

    fn start_tag(&mut self, b: u8, at: At, mut tag: StartTag) {
        let white = matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        match tag.stage {
            TagStage::Name if is_name_byte(b) => {
                tag.name.push(b, at);
                if !tag.name.whole.alive() {
                    self.doom(self.rejected_start(), self.token);
                }
            }
            TagStage::Name => {
                if let Err(error_at) = qualified(&tag.name, at) {
                    return self.fail(Status::SummaryXmlSyntax, error_at);
                }
                let name = tag.name;
                tag.tag.prefixed = name.prefixed();
                tag.tag.is_target = name.whole.done();
                tag.tag.local_is_root = if tag.tag.prefixed { name.local.done() } else { name.whole.done() };
                if !tag.tag.is_target {
                    self.doom(self.rejected_start(), self.token);
                }
                tag.stage = TagStage::Space;
                return self.start_tag(b, at, tag);
            }
            TagStage::Space if white => {}
            TagStage::Space if b == b'>' => return self.start_complete(&tag, false),
            TagStage::Space if b == b'/' => {
                tag.slash = at;
                tag.stage = TagStage::Slash;
                self.doom_empty_element();
            }
            TagStage::Space => {
                // An attribute: no section and no root may have one (X4.18).
                self.doom(Status::SummaryXmlStructure, self.token);
                tag.attribute = Name::new(None);
                tag.stage = TagStage::AttributeName;
                return self.start_tag(b, at, tag);
            }
            TagStage::Slash if b == b'>' => return self.start_complete(&tag, true),
            TagStage::Slash => return self.fail(Status::SummaryXmlSyntax, tag.slash),
            TagStage::AttributeName if is_name_byte(b) => tag.attribute.push(b, at),
            TagStage::AttributeName => {
                if let Err(error_at) = qualified(&tag.attribute, at) {
                    return self.fail(Status::SummaryXmlSyntax, error_at);
                }
                tag.stage = TagStage::Equals;
                return self.start_tag(b, at, tag);
            }
            TagStage::Equals if white => {}
            TagStage::Equals if b == b'=' => tag.stage = TagStage::Quote,
            TagStage::Quote if white => {}
            TagStage::Quote if matches!(b, b'"' | b'\'') => {
                tag.quote = b;
                tag.stage = TagStage::Value;
            }
            TagStage::Equals | TagStage::Quote => return self.fail(Status::SummaryXmlSyntax, at),
            TagStage::Value => {
                let at = at.in_value();
                match tag.pending {
                    Pending::Reference(start, mut reference) => match reference.push(b) {
                        Next::More => tag.pending = Pending::Reference(start, reference),
                        Next::Fail => return self.fail(Status::SummaryXmlSyntax, start),
                        Next::Done(_) => tag.pending = Pending::None,
                    },
                    Pending::Utf8(start, mut utf8) => match utf8.push(b) {
                        Next::More => tag.pending = Pending::Utf8(start, utf8),
                        Next::Fail => return self.fail(Status::SummaryXmlSyntax, start),
                        Next::Done(_) => tag.pending = Pending::None,
                    },
                    Pending::None => match b {
                        _ if b == tag.quote => {
                            tag.tag.has_attributes = true;
                            tag.stage = TagStage::Space;
                        }
                        b'<' => return self.fail(Status::SummaryXmlSyntax, at),
                        b'&' => tag.pending = Pending::Reference(at, Reference::default()),
                        b'\t' | b'\n' | b'\r' | 0x20..=0x7F => {}
                        0x80..=0xFF => match Utf8::start(b) {
                            Some(utf8) => tag.pending = Pending::Utf8(at, utf8),
                            None => return self.fail(Status::SummaryXmlSyntax, at),
                        },
                        _ => return self.fail(Status::SummaryXmlSyntax, at),
                    },
                }
            }
        }
        self.lex = Lex::Start(tag);
    }

    /// `/` after a start tag's name: `<conversation_summary/>` has no sections, and a
    /// self-closed goal or state is blank.
    fn doom_empty_element(&mut self) {
        let mut class = self.class;
        if !class.root_seen {
            // The root opens, then fails to close (X4.18), as the classifier will see it.
            class.root_seen = true;
            class.depth = 1;
            self.doom_with(Status::SummaryXmlStructure, self.token, class);
        } else if class.depth == 1 && class.text_must_not_be_blank() {
            match usize::from(class.next) {
                GOAL => class.goal_lt = self.token,
                _ => class.state_lt = self.token,
            }
            self.doom_with(Status::SummaryXmlContent, self.token, class);
        }
    }

    /// `>` of a start tag (`empty`: `/>`).
    fn start_complete(&mut self, tag: &StartTag, empty: bool) {
        let lt = self.token;
        if let Err(status) = self.class.start_element(&tag.tag) {
            return self.fail(status, lt);
        }
        let section = (self.class.depth == 2).then_some(usize::from(self.class.next));
        if empty && let Err(status) = self.class.end_element() {
            return self.fail(status, lt);
        }
        match section {
            Some(GOAL) => self.class.goal_lt = lt,
            Some(STATE) => self.class.state_lt = lt,
            _ => {}
        }
        self.lex = Lex::Between;
    }

    fn end_tag(&mut self, b: u8, at: At, mut name: Matcher, len: usize, space: bool) {
        if !space && is_name_byte(b) {
            name.push(b);
            if !name.alive() {
                self.doom(Status::SummaryXmlSyntax, self.token);
            }
            self.lex = Lex::End { name, len: len + 1, space };
            return;
        }
        if !space && len == 0 {
            return self.fail(Status::SummaryXmlSyntax, at);
        }
        if !space && !name.done() {
            self.doom(Status::SummaryXmlSyntax, self.token);
        }
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => self.lex = Lex::End { name, len, space: true },
            b'>' => {
                let lt = self.token;
                if !name.done() {
                    return self.fail(Status::SummaryXmlSyntax, lt);
                }
                if let Err(status) = self.class.end_element() {
                    return self.fail(status, lt);
                }
                self.lex = Lex::Between;
            }
            _ => self.fail(Status::SummaryXmlSyntax, at),
        }
    }

    fn pi(&mut self, b: u8, at: At, mut pi: Pi) {
        match pi.stage {
            0 if is_name_byte(b) => pi.target.push(b, at),
            0 => {
                // The target is a name of any number of colons: X4.10 does not apply.
                if !pi.target.is_name() {
                    let start = if pi.target.len == 0 { at } else { pi.target.start };
                    return self.fail(Status::SummaryXmlSyntax, start);
                }
                pi.stage = 1;
                return self.pi(b, at, pi);
            }
            1 if matches!(b, b' ' | b'\t' | b'\r' | b'\n') => {}
            1 => {
                pi.stage = 2;
                return self.pi(b, at, pi);
            }
            _ => {
                if pi.question && b == b'>' {
                    let lt = self.token;
                    let declaration = pi.target.whole.done();
                    if declaration && !(pi.version.supported() && pi.encoding.supported()) {
                        return self.fail(Status::SummaryXmlSyntax, lt);
                    }
                    return self.fail(Status::SummaryXmlStructure, lt);
                }
                if pi.question {
                    pi.version.push(b'?');
                    pi.encoding.push(b'?');
                }
                pi.question = b == b'?';
                if !pi.question {
                    pi.version.push(b);
                    pi.encoding.push(b);
                }
            }
        }
        self.lex = Lex::Pi(pi);
    }

    fn directive(&mut self, b: u8, mut d: Directive) {
        if d.comment {
            // A comment inside the directive, up to the first `-->`.
            match b {
                b'-' => d.dashes = (d.dashes + 1).min(2),
                b'>' if d.dashes == 2 => {
                    d.comment = false;
                    d.dashes = 0;
                }
                _ => d.dashes = 0,
            }
            self.lex = Lex::Directive(d);
            return;
        }
        if d.quote != 0 {
            if b == d.quote {
                d.quote = 0;
            }
            self.lex = Lex::Directive(d);
            return;
        }
        if d.open > 0 {
            if b"!--".get(usize::from(d.open) - 1) == Some(&b) {
                d.open += 1;
                if d.open == 4 {
                    d.open = 0;
                    d.comment = true;
                    d.dashes = 0;
                }
                self.lex = Lex::Directive(d);
                return;
            }
            // A `<` that does not open a comment: one level deeper, and this byte as usual.
            d.open = 0;
            d.depth = d.depth.saturating_add(1);
        }
        match b {
            b'>' if d.depth == 0 => return self.fail(Status::SummaryXmlStructure, self.token),
            b'>' => d.depth -= 1,
            b'"' | b'\'' => d.quote = b,
            b'<' => d.open = 1,
            _ => {}
        }
        self.lex = Lex::Directive(d);
    }

    /// The end of the input: what `Document::read` finds there.
    fn end_of_input(&mut self) {
        let eof = self.eof();
        let syntax = Status::SummaryXmlSyntax;
        match self.lex {
            Lex::Stopped => return,
            Lex::Between => {}
            Lex::Text { non_white, pending, .. } => match pending {
                Pending::Reference(start, _) | Pending::Utf8(start, _) => return self.fail(syntax, start),
                Pending::None => {
                    if let Err(status) = self.class.text(non_white) {
                        return self.fail(status, self.token);
                    }
                }
            },
            Lex::Start(tag) => {
                let at = match tag.stage {
                    TagStage::Name => qualified(&tag.name, eof).err().unwrap_or(eof),
                    TagStage::AttributeName => qualified(&tag.attribute, eof).err().unwrap_or(eof),
                    TagStage::Slash => tag.slash,
                    TagStage::Value => match tag.pending {
                        Pending::Reference(start, _) | Pending::Utf8(start, _) => start,
                        Pending::None => eof.in_value(),
                    },
                    _ => eof,
                };
                return self.fail(syntax, at);
            }
            Lex::Pi(pi) if pi.stage == 0 && !pi.target.is_name() => {
                let start = if pi.target.len == 0 { eof } else { pi.target.start };
                return self.fail(syntax, start);
            }
            Lex::Comment { dashes: 2, dash } => return self.fail(syntax, dash),
            Lex::Lt | Lex::End { .. } | Lex::Pi(_) | Lex::Bang | Lex::CommentOpen | Lex::Comment { .. } => {
                return self.fail(syntax, eof);
            }
            Lex::Directive(_) => return self.fail(syntax, eof),
        }
        if let Some(status) = self.class.finish() {
            self.fail(status, eof);
        }
    }
}

/// `tokenizer::qualified_name` at the end of a name (`at`: the byte after it, for an empty one):
/// `Err` with where X4.9 or X4.10 fails.
fn qualified(name: &Name, at: At) -> core::result::Result<(), At> {
    if !name.is_name() {
        return Err(if name.len == 0 { at } else { name.start });
    }
    if name.colons >= 2 {
        return Err(name.second);
    }
    Ok(())
}

/// The diagnosis of a failure, as `diagnose::explain` gives it for the same state.
fn explain(failure: &Failure) -> Diagnostic {
    let Failure { status, at, token, class } = *failure;
    let expected_section = Section::ALL.get(usize::from(class.next)).copied();
    let (section, rule, expected, at) = match status {
        Status::SummaryXmlRoot => {
            // The end of an empty input (X4.20), else a token that is not the root (X4.18).
            let empty = at.offset == 0 && at.byte.is_none();
            (Some(Section::Root), if empty { c"X4.20" } else { c"X4.18" }, c"<conversation_summary>", at)
        }
        Status::SummaryXmlContent => {
            let (section, lt) =
                if class.goal_has_content { (Section::State, class.state_lt) } else { (Section::Goal, class.goal_lt) };
            (Some(section), c"X4.20", c"non-blank text", lt)
        }
        Status::SummaryXmlSyntax => {
            let rule = rule_of(token, at.in_value, at.byte, at.before);
            let expected = match (token, class.depth) {
                (Token::EndTag, 2) => expected_section.map_or(c"", Section::end_tag_c),
                (Token::EndTag, 1) => Section::Root.end_tag_c(),
                _ => c"",
            };
            (class.section(), rule, expected, at)
        }
        _ => {
            let (section, expected) = match (token, class.root_seen, class.depth) {
                (Token::Comment | Token::ProcessingInstruction | Token::Bang, _, _) => (class.section(), c""),
                _ if class.root_closed => (None, c""),
                (_, false, _) => (Some(Section::Root), c"<conversation_summary>"),
                (_, true, 2) => (class.section(), c""),
                (_, true, _) => match expected_section {
                    Some(next) => (Some(next), next.start_tag_c()),
                    None => (Some(Section::Root), Section::Root.end_tag_c()),
                },
            };
            (section, c"X4.18", expected, at)
        }
    };
    Diagnostic::new(status)
        .at_position(at.offset, at.line, at.column)
        .with_section(section)
        .with_rule(rule)
        .with_expected(expected)
}
