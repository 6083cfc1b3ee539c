//! Object layouts, declared once (D6, J5.5). [`layout!`] turns a list of `Variant = "key"` pairs
//! into a field enum: the reader's arms match on the variant that names the key (the compiler
//! checks that every key has its arm), and the key names and presence bits come from the same
//! declaration, so the three can no longer disagree. An object layout also says what each key's
//! value must be (`Variant = "key": Expect`, see [`super::expect`]), for a diagnosis.

use core::marker::PhantomData;

use super::{JResult, JsonError, Parser};

/// A field enum made by [`layout!`]: the keys of one object layout.
pub(crate) trait Layout: Copy + 'static {
    /// The keys, in the order of the variants.
    const NAMES: &'static [&'static str];
    /// The variants, in order: `ALL[i]` is the field whose key is `NAMES[i]`.
    const ALL: &'static [Self];
    /// [`Layout::NAMES`] as the parser finds them in a document ([`NameTable`]).
    const KEYS: &'static NameTable;

    /// The variant whose name is `name` (decoded, or raw where that is the same).
    fn named(name: &[u8]) -> Option<Self> {
        Self::NAMES.iter().position(|n| n.as_bytes() == name).and_then(|i| Self::ALL.get(i).copied())
    }
}

/// A set of names (the keys of a layout, the values of an enumeration such as a role), arranged to
/// be recognised in a document without scanning them: a string token whose next bytes are one of
/// the names and its closing `"` is that name (the names have none of the bytes that end or escape
/// a string, so the string scan would stop at the same quote). Strings written any other way
/// (escaped, unknown, at the very end of the document) are scanned and looked up as before, so
/// this changes no verdict and no offset.
///
/// Built at compile time: a layout whose names do not fit panics there.
pub(crate) struct NameTable {
    names: &'static [&'static str],
    /// Per hash of a key's first two bytes ([`NameTable::slot`]): the indexes of the names that
    /// hash there, then `NONE`.
    slots: [[u8; SLOT_NAMES]; SLOTS],
    /// Per name: the first 16 bytes of `name"` (zero-padded) and the mask of those bytes, as
    /// little-endian words: `[low, high, low mask, high mask]`.
    words: [[u64; 4]; 64],
}

const SLOTS: usize = 64;
const SLOT_NAMES: usize = 4;
const NONE: u8 = u8::MAX;

impl NameTable {
    #[allow(clippy::indexing_slicing)] // Evaluated at compile time: an index out of range would not compile.
    pub(crate) const fn new(names: &'static [&'static str]) -> NameTable {
        assert!(names.len() <= 64, "a layout has at most 64 keys (its presence mask is a u64)");
        let mut table = NameTable { names, slots: [[NONE; SLOT_NAMES]; SLOTS], words: [[0; 4]; 64] };
        let mut i = 0;
        while i < names.len() {
            let name = names[i].as_bytes();
            let mut k = 0;
            while k < name.len() {
                assert!(name[k] >= 0x20 && name[k] < 0x7F && name[k] != b'"' && name[k] != b'\\', "a plain key");
                k += 1;
            }
            // `name"`, its first 16 bytes.
            let mut k = 0;
            while k <= name.len() && k < 16 {
                let byte = if k < name.len() { name[k] } else { b'"' };
                table.words[i][k / 8] |= (byte as u64) << (8 * (k % 8));
                table.words[i][2 + k / 8] |= 0xFF << (8 * (k % 8));
                k += 1;
            }
            assert!(!name.is_empty(), "a named key");
            let second = if name.len() > 1 { name[1] } else { b'"' };
            let slot = &mut table.slots[NameTable::slot(name[0], second)];
            let mut c = 0;
            while slot[c] != NONE {
                c += 1;
                assert!(c < SLOT_NAMES, "too many keys of one layout share a slot: change NameTable::slot");
            }
            slot[c] = i as u8;
            i += 1;
        }
        table
    }

    /// The slot of a key that starts with these two bytes.
    #[inline(always)]
    const fn slot(first: u8, second: u8) -> usize {
        ((first as usize).wrapping_mul(5) ^ (second as usize)) % SLOTS
    }

    /// The index and length of the name that the string whose body starts at `src[body]` is, with
    /// its closing quote right after it; `None` when it is none of them or fewer than 16 bytes are
    /// left.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn find(&self, src: &[u8], body: usize) -> Option<(usize, usize)> {
        let bytes: &[u8; 16] = src.get(body..body + 16)?.try_into().ok()?;
        let (low, high) = bytes.split_at(8);
        let low = u64::from_le_bytes(low.try_into().ok()?);
        let high = u64::from_le_bytes(high.try_into().ok()?);
        let slot = self.slots.get(NameTable::slot(bytes[0], bytes[1]))?;
        for &i in slot {
            let i = usize::from(i);
            let [want_low, want_high, mask_low, mask_high] = *self.words.get(i)?;
            if low & mask_low == want_low && high & mask_high == want_high {
                let name = self.names.get(i)?.as_bytes();
                // A name of 16 bytes or more: the rest of `name"` after the words.
                // (Another name of the slot may share those 16 bytes: `StructuredOutput` and
                // `StructuredOutputWithTools`.)
                if name.len() >= 16 {
                    let rest = src.get(body + 16..body + name.len() + 1);
                    if rest.and_then(<[u8]>::split_last) != Some((&b'"', name.get(16..).unwrap_or_default())) {
                        continue;
                    }
                }
                return Some((i, name.len()));
            }
        }
        None
    }
}

/// Declares the field enum of an object layout, or an enumeration of names a string value may
/// take. Each variant gets its bit (`Field::X.bit()`, a `const fn`, for presence masks) and the
/// enum implements [`Layout`].
///
/// An object layout gives each key what its value must be, an [`Expect`](super::Expect), and the
/// layout of the objects the value holds, if any (`Basis = "basis": Object { BasisField }`, an
/// array of them too: `Blocks = "blocks": Blocks { BlockField }`); the enum then implements
/// [`Fields`](super::Fields) as well. Only a diagnosis reads them.
macro_rules! layout {
    (@inner) => { $crate::json::no_rules };
    (@inner $inner:ty) => { <$inner as $crate::json::Fields>::rules };
    (
        $(#[$meta:meta])* $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $key:literal : $expect:ident $({ $inner:ty })?),+ $(,)?
        }
    ) => {
        $crate::json::layout! { $(#[$meta])* $vis enum $name { $($(#[$vmeta])* $variant = $key),+ } }

        impl $crate::json::Fields for $name {
            const RULES: &'static [$crate::json::Rule] = &[$($crate::json::Rule {
                name: $key,
                expect: $crate::json::Expect::$expect,
                inner: $crate::json::layout!(@inner $($inner)?),
            }),+];
        }
    };
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
            const KEYS: &'static $crate::json::NameTable = &$crate::json::NameTable::new(&[$($key),+]);
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

    layout! {
        /// Names that share first bytes and slots, short and longer than the table's words.
        enum Crowd {
            Type = "type",
            Text = "text",
            Thinking = "thinking",
            ToolUseId = "tool_use_id",
            T = "t",
            Tt = "tt",
            SignatureFormat = "signature_format",
            ProviderStateFormat = "provider_state_format",
            Long = "StructuredOutputWithTools",
            Fifteen = "fifteen_bytes_x",
            Sixteen = "sixteen_bytes_xy",
            /// Sixteen bytes that begin `Long` (both in one slot, as in the fingerprint's `Caps`).
            StructuredOutput = "StructuredOutput",
            Id = "id",
        }
    }

    /// The string scan and the name lookup, the path a key takes without the table: the name's
    /// index and length, for an unescaped key that is a name.
    fn model(src: &[u8], body: usize) -> Option<(usize, usize)> {
        let end = body + src.get(body..)?.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if src.get(end) != Some(&b'"') {
            return None;
        }
        let key = src.get(body..end)?;
        Crowd::NAMES.iter().position(|n| n.as_bytes() == key).map(|i| (i, key.len()))
    }

    /// Keys written as each name, a prefix of it, a longer word, one byte changed or escaped,
    /// followed by anything and cut anywhere: the table finds exactly the model's name wherever
    /// 16 bytes are left, and nothing where fewer are.
    #[test]
    fn key_table_finds_what_the_scan_and_lookup_find() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let tails: [&[u8]; 6] = [b"\":1,", b"\"", b"x\":", b"\\u0061\":", b"\x01\"", b"\" : {\"t\":[]}"];
        let mut found = 0;
        for _ in 0..200_000 {
            let name = Crowd::NAMES[(next() % Crowd::NAMES.len() as u64) as usize].as_bytes();
            let mut key = name.to_vec();
            match next() % 6 {
                0 => {}
                1 => key.truncate((next() % (name.len() as u64 + 1)) as usize),
                2 => key.push(b"_sx\"\\"[(next() % 5) as usize]),
                3 => {
                    let at = (next() % name.len() as u64) as usize;
                    key[at] ^= 1 << (next() % 7);
                }
                4 => {
                    let at = (next() % name.len() as u64) as usize;
                    let escaped = format!("\\u{:04x}", key[at]);
                    key.splice(at..=at, escaped.bytes());
                }
                _ => key.insert(0, b' '),
            }
            let pad = (next() % 3) as usize;
            let mut src = vec![b' '; pad];
            src.push(b'"');
            src.extend_from_slice(&key);
            src.extend_from_slice(tails[(next() % tails.len() as u64) as usize]);
            src.extend(std::iter::repeat_n(b'a', (next() % 24) as usize));
            src.truncate(src.len() - (next() % 4) as usize % (src.len() - pad));
            let body = pad + 1;
            let want = if src.len() >= body + 16 { model(&src, body) } else { None };
            assert_eq!(Crowd::KEYS.find(&src, body), want, "{:?}", String::from_utf8_lossy(&src));
            found += usize::from(want.is_some());
        }
        // The cases were not all misses.
        assert!(found > 20_000, "{found}");
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
