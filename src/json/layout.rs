//! Object layouts, declared once (D6, J5.5). [`layout!`] turns a list of `Variant = "key"` pairs
//! into a field enum: the reader's arms match on the variant that names the key (the compiler
//! checks that every key has its arm), and the key names and presence bits come from the same
//! declaration, so the three can no longer disagree.

use core::marker::PhantomData;

use super::{JResult, JsonError, Parser};

/// A field enum made by [`layout!`]: the keys of one object layout.
pub(crate) trait Layout: Copy + 'static {
    /// The keys, in the order of the variants.
    const NAMES: &'static [&'static str];
    /// The variants, in order: `ALL[i]` is the field whose key is `NAMES[i]`.
    const ALL: &'static [Self];
}

/// Declares the field enum of an object layout. Each variant gets its bit (`Field::X.bit()`, a
/// `const fn`, for presence masks) and the enum implements [`Layout`].
macro_rules! layout {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $key:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        #[allow(clippy::enum_variant_names)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        #[allow(dead_code)]
        impl $name {
            /// This key's bit in a presence mask ([`crate::json::Seen::mask`]).
            pub(crate) const fn bit(self) -> u64 {
                1 << (self as u8)
            }
        }

        impl $crate::json::Layout for $name {
            const NAMES: &'static [&'static str] = &[$($key),+];
            const ALL: &'static [$name] = &[$($name::$variant),+];
        }
    };
}
pub(crate) use layout;

/// The keys of layout `L` that an object had (each at most once: a repeated key is an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seen<L> {
    mask: u64,
    layout: PhantomData<L>,
}

impl<L: Layout> Seen<L> {
    pub(crate) const fn new(mask: u64) -> Seen<L> {
        Seen { mask, layout: PhantomData }
    }

    /// The presence bits (`Field::X.bit()` for each key seen).
    pub(crate) const fn mask(self) -> u64 {
        self.mask
    }

    /// D6, P8.1: every key of the layout is required; an object that lacks one is an error at
    /// the token after it (its closing brace).
    pub(crate) fn require_all(self, p: &Parser<'_>) -> JResult<()> {
        let all = if L::NAMES.len() >= 64 { u64::MAX } else { (1u64 << L::NAMES.len()) - 1 };
        if self.mask == all { Ok(()) } else { Err(JsonError::invalid(p.token_start())) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    layout! {
        enum Pair {
            First = "first",
            Second = "second",
        }
    }

    #[test]
    fn names_bits_and_variants_come_from_one_declaration() {
        assert_eq!(Pair::NAMES, &["first", "second"]);
        assert_eq!(Pair::ALL, &[Pair::First, Pair::Second]);
        assert_eq!((Pair::First.bit(), Pair::Second.bit()), (1, 2));
        let p = Parser::new(b"{}");
        assert!(Seen::<Pair>::new(3).require_all(&p).is_ok());
        assert!(Seen::<Pair>::new(2).require_all(&p).is_err());
    }
}
