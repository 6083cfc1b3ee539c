//! What a key's value must be (C13.4's `expected`), declared with the key in [`layout!`]
//! (`Revision = "revision": Unsigned`), and found again for a diagnosis by the path to the value
//! from the document's root layout, never by a key's name alone: `model` is an object at the top of
//! the wires and a non-empty string inside it.
//!
//! [`layout!`]: super::layout

use core::ffi::CStr;
use std::sync::OnceLock;

use super::Layout;

/// Whether a number where the value should be breaks the integer rule (J5.6) or the layout (J5.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The value is an integer (or holds integers): a number that is not one breaks J5.6.
    Integer,
    /// Anything else: a wrong value breaks J5.8.
    Other,
}

/// Declares [`Expect`]: each variant with its kind and its sentence, and [`Expect::ALL`].
macro_rules! expectations {
    ($($(#[$meta:meta])* $variant:ident($kind:ident) = $text:literal,)+) => {
        /// What a key's value must be: one of the library's own sentences (a retry message shows
        /// no other, C13.5), with the [`Kind`] that decides between J5.6 and J5.8.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Expect {
            $($(#[$meta])* $variant),+
        }

        impl Expect {
            /// Every expectation, in declaration order.
            pub(crate) const ALL: &'static [Expect] = &[$(Expect::$variant),+];

            /// The sentence of a diagnosis's `expected` (`""` when any JSON value will do).
            pub(crate) const fn text(self) -> &'static CStr {
                match self {
                    $(Expect::$variant => $text),+
                }
            }

            pub(crate) const fn kind(self) -> Kind {
                match self {
                    $(Expect::$variant => Kind::$kind),+
                }
            }
        }
    };
}

expectations! {
    // The wires (W5.1, O6.1) and the transcript (T5.2–T5.6).
    /// `version`.
    /// W5.2 step 1: `version` is a u8 (a fraction breaks J5.6).
    VersionOne(Integer) = c"1",
    Object(Other) = c"a JSON object",
    ObjectOrNull(Other) = c"a JSON object or null",
    Unsigned(Integer) = c"an unsigned integer",
    UnsignedOrNull(Integer) = c"an unsigned integer or null",
    Uuid(Other) = c"a canonical UUID string",
    /// W5.2 step 8: `model.model` and `model.provider`.
    NonEmptyString(Other) = c"a non-empty JSON string",
    Hex64(Other) = c"64 lower-case hex characters",
    Messages(Other) = c"a non-empty JSON array of messages",
    Positive(Integer) = c"a positive integer",
    String(Other) = c"a JSON string",
    StringOrNull(Other) = c"a JSON string or null",
    Role(Other) = c"user, system, assistant or tool",
    Blocks(Other) = c"a JSON array of blocks",
    Bool(Other) = c"true or false",
    BlockType(Other) = c"a block type",
    Base64OrNull(Other) = c"a base64 string or null",
    /// Any JSON value (a tool call's `input`, `provider_state`).
    Any(Other) = c"",
    // Policies and capabilities (P8.2–P8.7).
    CounterPolicy(Other) = c"1 (exact) or 2 (conservative), accepting the counter's quality",
    CompactAt(Integer) = c"an unsigned integer below 10000",
    RearmBelow(Integer) = c"a non-zero integer below CompactAt",
    NonZeroUnsigned(Integer) = c"a non-zero unsigned integer",
    SafetyMargin(Integer) = c"an unsigned integer, non-zero with a heuristic counter",
    Nanoseconds(Integer) = c"a positive integer (nanoseconds)",
    Hustle(Other) = c"a non-blank name not starting with _looprig.",
    /// A number in place of the array breaks J5.6, as a number in it would.
    SecurityIdentity(Integer) = c"an array of 32 integers 0-255",
    // The request fingerprint (R10.1).
    BaseUrl(Other) = c"an http or https base URL",
    ThinkingDialect(Other) = c"\"\", adaptive or budget",
    FiniteOrNull(Other) = c"a finite number or null",
    IntegerOrNull(Integer) = c"an integer or null",
    StringsOrNull(Other) = c"an array of strings or null",
}

/// One key of an object layout, as [`layout!`](super::layout) declares it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    pub(crate) name: &'static str,
    pub(crate) expect: Expect,
    /// The keys of the objects the value holds (itself, or its elements for an array of
    /// objects); empty when none are declared. A function, as a layout may hold itself (a tool
    /// result's `content` holds blocks).
    pub(crate) inner: fn() -> &'static [Rule],
}

/// A field enum made by [`layout!`](super::layout) with expectations: an object layout.
pub(crate) trait Fields: Layout {
    /// The keys with what their values must be, in the order of [`Layout::NAMES`].
    const RULES: &'static [Rule];

    /// [`Fields::RULES`], for [`Rule::inner`].
    fn rules() -> &'static [Rule] {
        Self::RULES
    }
}

/// [`Rule::inner`] of a value that holds no declared object.
pub(crate) fn no_rules() -> &'static [Rule] {
    &[]
}

/// The rule of the key at the end of `names`: the layout names of a path from the document's root
/// (`["transcript", "blocks", "type"]`, indices left out). `None` where the path leaves what the
/// layouts declare (below a value any JSON may be, or a name its object does not have).
pub(crate) fn rule_at<'n>(root: &'static [Rule], names: impl IntoIterator<Item = &'n str>) -> Option<Rule> {
    let mut layout = root;
    let mut rule = None;
    for name in names {
        let found = *layout.iter().find(|r| r.name == name)?;
        layout = (found.inner)();
        rule = Some(found);
    }
    rule
}

/// How deep [`names_of`] looks: deeper than any path of distinct layouts (the deepest,
/// `transcript.blocks.content.source.url`, is 5), so a layout that holds itself adds no name
/// below this.
const NAME_DEPTH: usize = 8;

/// The layout of a whole document: its root layout, and the names a location in it may show,
/// gathered once, at its first diagnosis.
pub(crate) struct DocumentLayout {
    root: &'static [Rule],
    names: OnceLock<Vec<&'static str>>,
}

impl DocumentLayout {
    pub(crate) const fn new(root: &'static [Rule]) -> DocumentLayout {
        DocumentLayout { root, names: OnceLock::new() }
    }

    /// The keys of the top-level object.
    #[cfg(test)]
    pub(crate) const fn root(&self) -> &'static [Rule] {
        self.root
    }

    /// Every name its layouts declare, each once ([`names_of`]).
    pub(crate) fn names(&self) -> &[&'static str] {
        self.names.get_or_init(|| names_of(self.root))
    }

    /// The rule of the key at the end of `names` ([`rule_at`]).
    pub(crate) fn rule_at<'n>(&self, names: impl IntoIterator<Item = &'n str>) -> Option<Rule> {
        rule_at(self.root, names)
    }
}

/// Every name of the layouts a document with this root declares, each once: the names a
/// location in it may show.
pub(crate) fn names_of(root: &'static [Rule]) -> Vec<&'static str> {
    fn walk(layout: &'static [Rule], depth: usize, names: &mut Vec<&'static str>) {
        for rule in layout {
            if !names.contains(&rule.name) {
                names.push(rule.name);
            }
            if depth < NAME_DEPTH {
                walk((rule.inner)(), depth + 1, names);
            }
        }
    }
    let mut names = Vec::new();
    walk(root, 1, &mut names);
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sentence_is_declared_once() {
        for (i, a) in Expect::ALL.iter().enumerate() {
            for b in Expect::ALL.get(i + 1..).unwrap_or_default() {
                assert_ne!(a.text(), b.text(), "{a:?} and {b:?}");
            }
        }
        // Only `Any` says nothing.
        let empty: Vec<_> = Expect::ALL.iter().filter(|e| e.text().is_empty()).collect();
        assert_eq!(empty, [&Expect::Any]);
    }

    /// A retry message shows the sentence and not the kind: a sentence speaks of integers (or is
    /// one, `1` for `version`) exactly when a number that is not one breaks J5.6.
    #[test]
    fn the_sentence_says_the_kind() {
        for e in Expect::ALL {
            let text = e.text().to_bytes();
            let says =
                text.windows(7).any(|w| w == b"integer") || (!text.is_empty() && text.iter().all(u8::is_ascii_digit));
            assert_eq!(says, e.kind() == Kind::Integer, "{e:?}");
        }
    }

    crate::json::layout! {
        enum Inner {
            Model = "model": NonEmptyString,
            Count = "count": Unsigned,
        }
    }

    crate::json::layout! {
        enum Outer {
            Model = "model": Object { Inner },
            Items = "items": Blocks { Inner },
            Free = "free": Any,
        }
    }

    #[test]
    fn a_rule_is_found_by_its_path_not_its_name() {
        let at = |path: &[&str]| rule_at(Outer::RULES, path.iter().copied()).map(|r| r.expect);
        assert_eq!(at(&["model"]), Some(Expect::Object));
        assert_eq!(at(&["model", "model"]), Some(Expect::NonEmptyString));
        assert_eq!(at(&["items", "count"]), Some(Expect::Unsigned));
        // Not declared: below a free value, a name of another layout, the root itself.
        assert_eq!(at(&["free", "model"]), None);
        assert_eq!(at(&["count"]), None);
        assert_eq!(at(&[]), None);
        assert_eq!(names_of(Outer::RULES), ["model", "count", "items", "free"]);
    }
}
