//! The fast entries of the parser (`fast.rs`) checked against the plain machine
//! ([`Parser::next`]): two parsers read one document, one through the fast entries, the other
//! through `next` alone, and after every step they must agree on the verdict, the error's kind and
//! offset, the events, and the state from which they go on ([`Parser::snapshot`]). A script of
//! bytes chooses the entries and their arguments, so that a proptest and the cargo-fuzz target
//! `json_fast_paths` (both in `src/fuzzing.rs`) drive the same check.
//!
//! For each entry, "the same" means what its documentation promises: `next_key` gives the key or
//! `}` that `next` gives (a key that is a layout name as written, by its index, whenever
//! [`NameTable::find`] can see it); `next_if_name`, `next_if_string` and `next_if_small_unsigned` give
//! the event `next` gives, or `None` and leave the parser where `next` reads on to the same event
//! (which must then not be one they should have taken); `skip_checked_array` lands where `next`
//! lands after pulling every element and the `]`; the runs (`numbers_after_number`,
//! `arrays_after_array`, `ends_after_array_end`) read what `next` reads while their condition
//! holds.

use super::fast::{CheckedArray, Key, PlainPrefix};
use super::parser::State;
use super::{Event, JResult, NameTable, Parser, StringToken};

/// The names the script can hand to `next_key` and `next_if_name`: keys of the input wire, one
/// that shares its first 16 bytes with another (`NameTable::find` reads 16 bytes, then the rest), the
/// shortest, and role names.
const LISTS: [&[&str]; 3] = [
    &[
        "role",
        "content",
        "type",
        "text",
        "id",
        "tool_use_id",
        "is_error",
        "StructuredOutput",
        "StructuredOutputWithTools",
        "a",
        "b",
    ],
    &["user", "assistant", "tool", "system"],
    &["k", "key", "a_key_of_more_than_sixteen_bytes"],
];

static TABLES: [NameTable; 3] = [NameTable::new(LISTS[0]), NameTable::new(LISTS[1]), NameTable::new(LISTS[2])];

/// The entries a script byte chooses (the byte modulo their number; the rest of the byte is an
/// argument).
const ENTRIES: u8 = 12;

/// How many steps a check may take: every step but a run reads a token, and a run stops.
fn step_limit(doc: &[u8], script: &[u8]) -> usize {
    2 * doc.len() + 2 * script.len() + 8
}

/// Which parser both sides start with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// [`Parser::new`]: every string's UTF-8 checked on its own.
    Plain,
    /// [`Parser::new_utf8_checked`]: the whole document's UTF-8 first.
    Utf8Checked,
    /// [`Parser::resume_valid`] at 0: UTF-8 taken as checked.
    ResumeValid,
}

impl Start {
    pub(crate) fn of(byte: u8) -> Start {
        match byte % 3 {
            0 => Start::Plain,
            1 => Start::Utf8Checked,
            _ => Start::ResumeValid,
        }
    }

    fn parser(self, doc: &[u8]) -> Parser<'_> {
        match self {
            Start::Plain => Parser::new(doc),
            Start::Utf8Checked => Parser::new_utf8_checked(doc),
            Start::ResumeValid => Parser::resume_valid(doc, 0),
        }
    }
}

/// Reads `doc` twice, through the fast entries that `script` chooses and through `next`, and
/// returns what first differs. `scan` makes the proofs for `skip_checked_array` (a checked scan of
/// the array whose `[` is at the offset it is given); `R` is the run for `next_with_plain_prefix`.
pub(crate) fn check<A: CheckedArray, R: PlainPrefix>(
    doc: &[u8],
    start: Start,
    script: &[u8],
    scan: impl Fn(&[u8], usize) -> Option<A>,
) -> Result<(), String> {
    let mut pair = Pair { doc, fast: start.parser(doc), plain: start.parser(doc), last: None };
    // After the script, `next` to the end of the document.
    let steps = script.iter().copied().chain(core::iter::repeat(0));
    for byte in steps.take(step_limit(doc, script)) {
        if pair.plain.depth() == 0 && pair.plain.state() == State::AfterValue {
            let (fast, plain) = (pair.fast.finish(), pair.plain.finish());
            return if fast == plain { pair.same() } else { Err(format!("finish: fast {fast:?}, plain {plain:?}")) };
        }
        match pair.step::<A, R>(byte, &scan)? {
            Flow::Go => {}
            Flow::Stop => return Ok(()),
        }
    }
    Err(String::from("the documents did not end within the step limit"))
}

/// What the check does after a step.
enum Flow {
    /// Both sides agree and read on.
    Go,
    /// Both sides gave the same error: the document ends here for both.
    Stop,
}

/// The last event both sides read (the entries that run after one need it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    ArrayStart,
    ArrayEnd,
    Number,
    Other,
}

fn last_of(event: &Event<'_>) -> Last {
    match event {
        Event::ArrayStart => Last::ArrayStart,
        Event::ArrayEnd => Last::ArrayEnd,
        Event::Number(_) => Last::Number,
        _ => Last::Other,
    }
}

struct Pair<'a> {
    doc: &'a [u8],
    fast: Parser<'a>,
    plain: Parser<'a>,
    last: Option<Last>,
}

/// An event as a reader sees it: a string or key by its span, its escape flag and its UTF-8
/// verdict (J5.3). Not by its hint that it may hold a non-ASCII byte ([`StringToken::is_unchecked`]):
/// the scan's blocks may see bytes past the closing quote, so two correct scans that start at
/// different bytes of one string can differ in the hint, never in the verdict.
#[derive(Debug, PartialEq)]
enum Seen<'a> {
    String(super::Span, bool, JResult<()>),
    Key(super::Span, bool, JResult<()>),
    Other(Event<'a>),
}

fn seen(event: JResult<Event<'_>>) -> JResult<Seen<'_>> {
    event.map(|event| match event {
        Event::String(s) => Seen::String(s.span(), s.has_escapes(), s.check_utf8()),
        Event::Key(s) => Seen::Key(s.span(), s.has_escapes(), s.check_utf8()),
        other => Seen::Other(other),
    })
}

/// Whether `token` is one of `names` as written, where [`NameTable::find`] sees it (16 bytes of the
/// document from its body on): then the fast entries must take it by its index.
fn findable(doc: &[u8], names: &[&str], token: &StringToken<'_>) -> bool {
    !token.has_escapes()
        && names.iter().any(|name| name.as_bytes() == token.raw())
        && token.span().start + 16 <= doc.len()
}

/// Whether `text`, read by `next` with more of the document after it, is a number that
/// `next_if_small_unsigned(max)` must take.
fn small_unsigned(text: &[u8], max: u64) -> bool {
    let digits = text.iter().all(u8::is_ascii_digit);
    let canonical = text.len() == 1 || text.first() != Some(&b'0');
    let value = std::str::from_utf8(text).ok().and_then(|t| t.parse::<u64>().ok());
    digits && canonical && (1..=18).contains(&text.len()) && value.is_some_and(|v| v <= max)
}

impl<'a> Pair<'a> {
    fn same(&self) -> Result<(), String> {
        let (fast, plain) = (self.fast.snapshot(), self.plain.snapshot());
        if fast == plain { Ok(()) } else { Err(format!("states differ: fast {fast:?}, plain {plain:?}")) }
    }

    /// Both sides read `fast` and `plain` (the same thing, if all is well).
    fn agree(&mut self, fast: JResult<Event<'a>>, plain: JResult<Event<'a>>) -> Result<Flow, String> {
        if seen(fast) != seen(plain) {
            return Err(format!("events differ: fast {fast:?}, plain {plain:?}"));
        }
        match plain {
            Ok(event) => {
                self.last = Some(last_of(&event));
                self.same().map(|()| Flow::Go)
            }
            Err(_) => Ok(Flow::Stop),
        }
    }

    /// Whether the state expects a value: where `next_if_name` and `next_if_string` must take a
    /// string (after a `,` in an array they leave it to `next`).
    fn value_expected(&self) -> bool {
        matches!(self.plain.state(), State::Value | State::ValueOrEnd)
    }

    /// Both sides pull with `next` (after a fast entry that declined).
    fn both_next(&mut self) -> (JResult<Event<'a>>, JResult<Event<'a>>) {
        (self.fast.next(), self.plain.next())
    }

    fn step<A: CheckedArray, R: PlainPrefix>(
        &mut self,
        byte: u8,
        scan: &impl Fn(&[u8], usize) -> Option<A>,
    ) -> Result<Flow, String> {
        let arg = usize::from(byte / ENTRIES);
        let list = LISTS.get(arg % LISTS.len()).copied().unwrap_or_default();
        let Some(names) = TABLES.get(arg % TABLES.len()) else {
            return Err(String::from("no names table"));
        };
        match byte % ENTRIES {
            1 => {
                let (fast, plain) = (self.fast.next_inline(), self.plain.next());
                self.agree(fast, plain)
            }
            2 => self.next_key(names, list),
            3 => {
                let (fast, plain) = (self.fast.next_structural(), self.plain.next());
                self.agree(fast, plain)
            }
            4 => self.next_if_name(names, list),
            5 => self.next_if_string(),
            6 if self.last == Some(Last::ArrayStart) => self.skip_checked_array(scan),
            7 => {
                const MAX: [u64; 8] = [0, 1, 9, 10, 255, 65_535, 999_999_999_999_999_999, u64::MAX];
                self.next_if_small_unsigned(MAX.get(arg % MAX.len()).copied().unwrap_or(u64::MAX))
            }
            8 => self.next_with_plain_prefix::<R>(),
            9 if self.last == Some(Last::Number) => self.numbers_after_number(),
            10 if self.last == Some(Last::ArrayStart) => self.arrays_after_array(),
            11 if self.last == Some(Last::ArrayEnd) => self.ends_after_array_end(arg % 3),
            // `next` itself, also for an entry whose event did not just come.
            _ => {
                let (fast, plain) = (self.fast.next(), self.plain.next());
                self.agree(fast, plain)
            }
        }
    }

    fn next_key(&mut self, names: &NameTable, list: &[&str]) -> Result<Flow, String> {
        let fast = self.fast.next_key(names);
        let plain = self.plain.next();
        let agreed = match (fast, plain) {
            (Err(a), Err(b)) if a == b => return Ok(Flow::Stop),
            // Anything but a key or `}` is an error at that token.
            (Err(a), Ok(event))
                if !matches!(event, Event::Key(_) | Event::ObjectEnd)
                    && a == super::JsonError::invalid(self.plain.token_start()) =>
            {
                return Ok(Flow::Stop);
            }
            (Ok(None), Ok(Event::ObjectEnd)) => true,
            (Ok(Some(Key::Field(index, at))), Ok(Event::Key(key))) => {
                let name = list.get(index).map(|name| name.as_bytes());
                !key.has_escapes() && name == Some(key.raw()) && at == key.span().start
            }
            (Ok(Some(Key::Token(token))), Ok(Event::Key(key))) => {
                seen(Ok(Event::Key(token))) == seen(Ok(Event::Key(key))) && !findable(self.doc, list, &key)
            }
            _ => false,
        };
        if !agreed {
            return Err(format!("next_key: fast {fast:?}, plain {plain:?}"));
        }
        self.last = Some(Last::Other);
        self.same().map(|()| Flow::Go)
    }

    fn next_if_name(&mut self, names: &NameTable, list: &[&str]) -> Result<Flow, String> {
        let expected = self.value_expected();
        match self.fast.next_if_name(names) {
            Some((index, token)) => {
                let plain = self.plain.next();
                let name = list.get(index).map(|name| name.as_bytes());
                if seen(plain) != seen(Ok(Event::String(token))) || token.has_escapes() || name != Some(token.raw()) {
                    return Err(format!("next_if_name: fast {:?}, plain {plain:?}", (index, token)));
                }
                self.last = Some(Last::Other);
                self.same().map(|()| Flow::Go)
            }
            None => {
                let (fast, plain) = self.both_next();
                if let Ok(Event::String(token)) = plain
                    && expected
                    && findable(self.doc, list, &token)
                {
                    return Err(format!("next_if_name declined the name {token:?}"));
                }
                self.agree(fast, plain)
            }
        }
    }

    fn next_if_string(&mut self) -> Result<Flow, String> {
        let expected = self.value_expected();
        match self.fast.next_if_string() {
            Ok(Some(token)) => {
                let (fast, plain) = (Ok(Event::String(token)), self.plain.next());
                self.agree(fast, plain)
            }
            Err(e) => {
                let (fast, plain) = (Err(e), self.plain.next());
                self.agree(fast, plain)
            }
            Ok(None) => {
                let (fast, plain) = self.both_next();
                if expected && matches!(plain, Ok(Event::String(_))) {
                    return Err(String::from("next_if_string declined a string"));
                }
                self.agree(fast, plain)
            }
        }
    }

    fn skip_checked_array<A: CheckedArray>(
        &mut self,
        scan: &impl Fn(&[u8], usize) -> Option<A>,
    ) -> Result<Flow, String> {
        let Some(array) = scan(self.doc, self.fast.token_start()) else {
            return Ok(Flow::Go);
        };
        if !self.fast.skip_checked_array(array) {
            // Right after the array's `[`: only a document whose UTF-8 is unknown is refused.
            if self.fast.utf8_checked() {
                return Err(String::from("skip_checked_array refused a checked array"));
            }
            return self.same().map(|()| Flow::Go);
        }
        // The plain side pulls every element and the `]`: scalars only, none of them an error.
        let depth = self.plain.depth();
        loop {
            match self.plain.next() {
                Ok(Event::ArrayEnd) if self.plain.depth() + 1 == depth => break,
                Ok(Event::ArrayStart | Event::ObjectStart | Event::ArrayEnd | Event::ObjectEnd | Event::Key(_)) => {
                    return Err(String::from("a checked array holds a container"));
                }
                Ok(_) => {}
                Err(e) => return Err(format!("a checked array is an error to next: {e:?}")),
            }
        }
        self.last = Some(Last::ArrayEnd);
        self.same().map(|()| Flow::Go)
    }

    fn next_if_small_unsigned(&mut self, max: u64) -> Result<Flow, String> {
        match self.fast.next_if_small_unsigned(max) {
            Some(value) => {
                let plain = self.plain.next();
                let text = value.to_string();
                if plain != Ok(Event::Number(text.as_bytes())) || value > max {
                    return Err(format!("next_if_small_unsigned: fast {value}, plain {plain:?}"));
                }
                self.last = Some(Last::Number);
                self.same().map(|()| Flow::Go)
            }
            None => {
                let (fast, plain) = self.both_next();
                // A number that `next` ends before another digit (`01`) is an error later; the
                // fast entry reads the digits on and leaves it to `next`.
                let digit_after = matches!(self.plain.byte(self.plain.pos()), Some(b'0'..=b'9'));
                if let Ok(Event::Number(text)) = plain
                    && small_unsigned(text, max)
                    && self.plain.pos() < self.doc.len()
                    && !digit_after
                {
                    return Err(format!("next_if_small_unsigned declined {text:?}"));
                }
                self.agree(fast, plain)
            }
        }
    }

    fn next_with_plain_prefix<R: PlainPrefix>(&mut self) -> Result<Flow, String> {
        let fast = self.fast.next_with_plain_prefix::<R>();
        let plain = self.plain.next();
        let (event, run) = match fast {
            Ok((event, run)) => (Ok(event), run),
            Err(e) => (Err(e), None),
        };
        let string = match event {
            Ok(Event::String(token)) => Some(token),
            _ => None,
        };
        // A run comes with a string, and counts bytes of its body only.
        let fits = match (run, string) {
            (Some(run), Some(token)) => run.len() <= token.raw().len(),
            (None, None) => true,
            _ => false,
        };
        if !fits {
            return Err(format!("next_with_plain_prefix: a run of {:?} with {event:?}", run.map(R::len)));
        }
        self.agree(event, plain)
    }

    fn numbers_after_number(&mut self) -> Result<Flow, String> {
        let fast = self.fast.numbers_after_number();
        let plain = loop {
            let p = &self.plain;
            let at = p.pos();
            let number_next = matches!(p.byte(at + 1), Some(b'-' | b'0'..=b'9'));
            if p.state() != State::AfterValue || !p.top_is_array() || p.byte(at) != Some(b',') || !number_next {
                break Ok(());
            }
            match self.plain.next() {
                Ok(Event::Number(_)) => {}
                Ok(event) => return Err(format!("numbers_after_number: next read {event:?}")),
                Err(e) => break Err(e),
            }
        };
        self.run_agrees("numbers_after_number", fast, plain)
    }

    fn arrays_after_array(&mut self) -> Result<Flow, String> {
        let fast = self.fast.arrays_after_array();
        let plain = loop {
            if self.plain.byte(self.plain.pos()) != Some(b'[') {
                break Ok(());
            }
            match self.plain.next() {
                Ok(Event::ArrayStart) => {}
                Ok(event) => return Err(format!("arrays_after_array: next read {event:?}")),
                Err(e) => break Err(e),
            }
        };
        self.run_agrees("arrays_after_array", fast, plain)
    }

    fn ends_after_array_end(&mut self, below: usize) -> Result<Flow, String> {
        let floor = self.plain.depth().saturating_sub(below);
        self.fast.ends_after_array_end(floor);
        loop {
            let p = &self.plain;
            if p.depth() <= floor || p.byte(p.pos()) != Some(b']') || !p.top_is_array() {
                break;
            }
            match self.plain.next() {
                Ok(Event::ArrayEnd) => {}
                other => return Err(format!("ends_after_array_end: next read {other:?}")),
            }
        }
        self.run_agrees("ends_after_array_end", Ok(()), Ok(()))
    }

    /// After a run: the same verdict and the same state (the last event's kind is unchanged).
    fn run_agrees(&self, entry: &str, fast: JResult<()>, plain: JResult<()>) -> Result<Flow, String> {
        if fast != plain {
            return Err(format!("{entry}: fast {fast:?}, plain {plain:?}"));
        }
        if plain.is_err() {
            return Ok(Flow::Stop);
        }
        self.same().map(|()| Flow::Go)
    }
}

/// A checked scan for [`check`] that knows nothing of R10.5: the array whose `[` is at `start`,
/// read with `next` from there, when it holds only scalars (and `next` finds no error in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PulledArray {
    start: usize,
    end: usize,
}

impl PulledArray {
    pub(crate) fn scan(doc: &[u8], start: usize) -> Option<PulledArray> {
        let mut p = Parser::resume_valid(doc, start);
        if p.next().ok()? != Event::ArrayStart {
            return None;
        }
        loop {
            match p.next().ok()? {
                Event::ArrayEnd => return Some(PulledArray { start, end: p.pos() }),
                Event::ArrayStart | Event::ObjectStart => return None,
                _ => {}
            }
        }
    }
}

impl CheckedArray for PulledArray {
    fn start(self) -> usize {
        self.start
    }

    fn end(self) -> usize {
        self.end
    }
}

/// A [`PlainPrefix`] for [`check`]: the ASCII letters and digits at the start of a body, which end
/// anywhere (before a quote, an escape, a space, a non-ASCII byte or the end of the document).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AlphanumericPrefix(usize);

impl PlainPrefix for AlphanumericPrefix {
    fn scan(body: &[u8]) -> AlphanumericPrefix {
        AlphanumericPrefix(body.iter().take_while(|b| b.is_ascii_alphanumeric()).count())
    }

    fn len(self) -> usize {
        self.0
    }
}
