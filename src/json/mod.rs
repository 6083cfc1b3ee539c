//! The strict JSON reader shared by every document of SPEC §5, §6, §8 and §10 (rules J5.1–J5.9).
//!
//! A pull parser ([`Parser`]) checks the grammar (J5.1) and the depth limit (J5.2) of the whole
//! document without recursion, and hands out events whose strings are borrowed and still escaped.
//! The typed layers above it decide what each event may be (J5.5–J5.8) and decode strings with the
//! J5.4 rules ([`StringToken::decode`]). Errors come in two kinds, because the input wire gives them
//! different statuses (W5.2 steps 1 and 5): [`ErrorKind::Syntax`] (J5.1, J5.2) and
//! [`ErrorKind::Invalid`] (J5.3–J5.9 and the layout).
//!
//! serde_json is not used here: it cannot decode lone surrogate escapes to U+FFFD (J5.4), does not
//! see duplicate keys inside raw values (J5.9), and recurses per nesting level (J5.2).

#[cfg(any(test, fuzzing))]
pub(crate) mod differential;
mod expect;
mod fast;
mod keys;
mod layout;
mod parser;
pub(crate) mod path;
mod read;
pub(crate) mod string;
pub(crate) mod write;

pub(crate) use expect::{DocumentLayout, Expect, Fields, Kind, Rule, no_rules};
#[cfg(test)]
pub(crate) use expect::{names_of, rule_at};
pub(crate) use fast::{CheckedArray, Key, PlainPrefix};
pub(crate) use keys::{KeyFrames, SMALL_OBJECT, first_repeat_pairwise};
pub(crate) use layout::{Layout, NameTable, Seen, layout};
pub(crate) use parser::{Event, Parser};
pub(crate) use read::RawValue;
pub(crate) use string::{DeferredUtf8, StringSpan, StringToken};

/// What went wrong, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub(crate) kind: ErrorKind,
    pub(crate) offset: usize,
}

/// The two families of JSON errors (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// Not JSON at all: grammar (J5.1) or nesting deeper than [`MAX_DEPTH`] (J5.2).
    Syntax,
    /// Well-formed JSON that breaks a rule of the layout: UTF-8, duplicate or unknown key, type,
    /// range, missing key.
    Invalid,
}

impl JsonError {
    pub(crate) const fn syntax(offset: usize) -> JsonError {
        JsonError { kind: ErrorKind::Syntax, offset }
    }
    pub(crate) const fn invalid(offset: usize) -> JsonError {
        JsonError { kind: ErrorKind::Invalid, offset }
    }
}

/// J5.2: arrays and objects nest at most this deep in a whole document.
pub(crate) const MAX_DEPTH: usize = 10_000;

/// Result of the JSON layer.
pub(crate) type JResult<T> = Result<T, JsonError>;

/// A byte range of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Span {
    pub(crate) const fn is_empty(self) -> bool {
        self.end == self.start
    }
    /// The bytes of this span in `src` (empty if out of range, which the parser never produces).
    pub(crate) fn of(self, src: &[u8]) -> &[u8] {
        src.get(self.start..self.end).unwrap_or_default()
    }
}
