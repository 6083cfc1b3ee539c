//! Grammars of the summary language for constrained decoding, and the JSON Schema of its
//! structured-output form (SPEC §17.1, §17.2; rules G17.1–G17.9).
//!
//! The three grammars describe one language, a subset of what [`super::validate`] accepts
//! (G17.2): every string they match validates, and they cover what a summariser writes (prose, the
//! five predefined entities, character references, newlines, empty, blank and self-closed optional
//! sections). What they leave out is listed in G17.3. They share their character classes, written
//! once below in the escape syntax that Python's `re`, Rust's `regex`, llguidance and llama.cpp's
//! GBNF all read (`\xHH`, `\uHHHH`, `\UHHHHHHHH`), so the three texts cannot drift apart.

use core::ffi::CStr;

/// Which grammar text [`grammar`] returns (`LC_GRAMMAR_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum GrammarKind {
    /// One regular expression, matched against the whole reply (`LC_GRAMMAR_REGEX`, 1).
    Regex = 1,
    /// A Lark grammar whose start rule is `start` (`LC_GRAMMAR_LARK`, 2).
    Lark = 2,
    /// A GBNF grammar whose start rule is `root` (`LC_GRAMMAR_GBNF`, 3).
    Gbnf = 3,
}

impl GrammarKind {
    /// The three kinds, in code order.
    pub const ALL: [GrammarKind; 3] = [GrammarKind::Regex, GrammarKind::Lark, GrammarKind::Gbnf];

    /// The C ABI value (`LC_GRAMMAR_*`).
    #[must_use]
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The kind of a C ABI value; `None` for any other value.
    #[must_use]
    pub const fn from_code(code: i32) -> Option<GrammarKind> {
        match code {
            1 => Some(GrammarKind::Regex),
            2 => Some(GrammarKind::Lark),
            3 => Some(GrammarKind::Gbnf),
            _ => None,
        }
    }
}

// The character classes (the inside of `[...]`), shared by the three grammars.

/// Raw White_Space characters (X4.21) a section may hold: TAB, LF, SP and the Unicode spaces that
/// are Chars. CR is left out (G17.3), as are U+000B and U+000C (not Chars) and U+0085 (a C1
/// control).
macro_rules! ws_raw {
    () => {
        r"\t\n \xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000"
    };
}

/// Raw characters without the White_Space property: printable ASCII except `&`, `<` and `>`, and
/// every Char from U+00A1 up except the spaces of [`ws_raw`]. DEL and the C1 controls
/// (U+007F–U+009F) are left out (G17.3).
macro_rules! nonws_raw {
    () => {
        concat!(nonws_bmp!(), r"\U00010000-\U0010FFFF")
    };
}

/// [`nonws_raw`] below U+10000.
macro_rules! nonws_bmp {
    () => {
        r"\x21-\x25\x27-\x3B\x3D\x3F-\x7E\xA1-\u167F\u1681-\u1FFF\u200B-\u2027\u202A-\u202E\u2030-\u205E\u2060-\u2FFF\u3001-\uD7FF\uE000-\uFFFD"
    };
}

/// [`nonws_raw`] for the GBNF text: the supplementary planes as raw characters, because
/// llguidance's GBNF reader (`gbnf_to_lark`) turns `\U00010000` into `\U10000`, which no regex
/// reads; llama.cpp reads both forms alike.
macro_rules! nonws_raw_gbnf {
    () => {
        concat!(nonws_bmp!(), "\u{10000}-\u{10FFFF}")
    };
}

/// A decimal character reference's value without leading zeros: 9, 10, 13, 32–55295 (U+D7FF).
macro_rules! dec_regex {
    () => {
        r"(?:9|10|13|3[2-9]|[4-9][0-9]|[1-9][0-9]{2,3}|[1-4][0-9]{4}|5[0-4][0-9]{3}|55[01][0-9]{2}|552[0-8][0-9]|5529[0-5])"
    };
}

/// A hexadecimal character reference's value without leading zeros: 9, A, D, 20–D7FF,
/// E000–FFFD, 10000–10FFFF, digits in either case.
macro_rules! hex_regex {
    () => {
        concat!(
            r"(?:[9ADad]|[2-9A-Fa-f][0-9A-Fa-f]|[1-9A-Fa-f][0-9A-Fa-f]{2}|[1-9A-Ca-c][0-9A-Fa-f]{3}",
            r"|[Dd][0-7][0-9A-Fa-f]{2}|[Ee][0-9A-Fa-f]{3}|[Ff][0-9A-Ea-e][0-9A-Fa-f]{2}",
            r"|[Ff][Ff][0-9A-Ea-e][0-9A-Fa-f]|[Ff][Ff][Ff][0-9A-Da-d]|[1-9A-Fa-f][0-9A-Fa-f]{4}",
            r"|10[0-9A-Fa-f]{4})"
        )
    };
}

macro_rules! named_regex {
    () => {
        r"&(?:lt|gt|amp|apos|quot);"
    };
}

macro_rules! numeric_regex {
    () => {
        concat!(r"&#(?:0*", dec_regex!(), r"|x0*", hex_regex!(), r");")
    };
}

/// Any item of section text: a raw character or a reference.
macro_rules! item_regex {
    () => {
        concat!(r"(?:[", ws_raw!(), nonws_raw!(), r"]|", named_regex!(), "|", numeric_regex!(), ")")
    };
}

/// A decimal reference to White_Space (X4.21): 9, 10, 13, 32, 133, 160, 5760, 8192–8202, 8232, 8233,
/// 8239, 8287, 12288.
macro_rules! ws_dec_regex {
    () => {
        r"(?:9|10|13|32|133|160|5760|819[2-9]|820[0-2]|823[23]|8239|8287|12288)"
    };
}

/// The same values in hexadecimal.
macro_rules! ws_hex_regex {
    () => {
        r"(?:[9ADad]|20|85|[Aa]0|1680|200[0-9Aa]|202[89Ff]|205[Ff]|3000)"
    };
}

/// A decimal reference the non-blank rule counts: 33–127 (printable ASCII and DEL).
macro_rules! nonws_dec_regex {
    () => {
        r"(?:3[3-9]|[4-9][0-9]|1[01][0-9]|12[0-7])"
    };
}

/// A hexadecimal reference to a Char without White_Space: every value of [`hex_regex`] except the
/// values of [`ws_hex_regex`].
macro_rules! nonws_hex_regex {
    () => {
        concat!(
            r"(?:2[1-9A-Fa-f]|[3-79B-Fb-f][0-9A-Fa-f]|8[0-46-9A-Fa-f]|[Aa][1-9A-Fa-f]|[1-9A-Fa-f][0-9A-Fa-f]{2}",
            r"|1[0-57-9A-Fa-f][0-9A-Fa-f]{2}|16[0-79A-Fa-f][0-9A-Fa-f]|168[1-9A-Fa-f]",
            r"|2[1-9A-Fa-f][0-9A-Fa-f]{2}|20[1346-9A-Fa-f][0-9A-Fa-f]|200[B-Fb-f]|202[0-7A-Ea-e]|205[0-9A-Ea-e]",
            r"|3[1-9A-Fa-f][0-9A-Fa-f]{2}|30[1-9A-Fa-f][0-9A-Fa-f]|300[1-9A-Fa-f]",
            r"|[4-9A-Ca-c][0-9A-Fa-f]{3}|[Dd][0-7][0-9A-Fa-f]{2}|[Ee][0-9A-Fa-f]{3}|[Ff][0-9A-Ea-e][0-9A-Fa-f]{2}",
            r"|[Ff][Ff][0-9A-Ea-e][0-9A-Fa-f]|[Ff][Ff][Ff][0-9A-Da-d]|[1-9A-Fa-f][0-9A-Fa-f]{4}|10[0-9A-Fa-f]{4})"
        )
    };
}

/// Non-blank text (X4.21): White_Space characters and references to them, then a raw character
/// without White_Space, a named entity or a reference of [`nonws_dec_regex`] or
/// [`nonws_hex_regex`], then anything. Unambiguous: the first item that is not white space ends
/// the prefix.
macro_rules! nonblank_regex {
    () => {
        concat!(
            r"(?:[",
            ws_raw!(),
            r"]|&#(?:0*",
            ws_dec_regex!(),
            r"|x0*",
            ws_hex_regex!(),
            r");)*(?:[",
            nonws_raw!(),
            r"]|",
            named_regex!(),
            r"|&#(?:0*",
            nonws_dec_regex!(),
            r"|x0*",
            nonws_hex_regex!(),
            r");)",
            item_regex!(),
            "*"
        )
    };
}

macro_rules! sep_regex {
    () => {
        r"[\t\n ]*"
    };
}

macro_rules! regex_text {
    () => {
        concat!(
            "<conversation_summary>",
            sep_regex!(),
            "<goal>",
            nonblank_regex!(),
            "</goal>",
            sep_regex!(),
            "(?:<constraints/>|<constraints>",
            item_regex!(),
            "*</constraints>)",
            sep_regex!(),
            "(?:<decisions/>|<decisions>",
            item_regex!(),
            "*</decisions>)",
            sep_regex!(),
            "<state>",
            nonblank_regex!(),
            "</state>",
            sep_regex!(),
            "(?:<open_items/>|<open_items>",
            item_regex!(),
            "*</open_items>)",
            sep_regex!(),
            "</conversation_summary>"
        )
    };
}

macro_rules! lark_text {
    () => {
        concat!(
            "// The loopcompact summary (docs/SPEC.md §17.1): a subset of the XML of §4.\n",
            "start: \"<conversation_summary>\" _SEP? goal _SEP? constraints _SEP? decisions _SEP? state _SEP? open_items _SEP? \"</conversation_summary>\"\n",
            "goal: \"<goal>\" NONBLANK \"</goal>\"\n",
            "constraints: \"<constraints/>\" | \"<constraints>\" TEXT? \"</constraints>\"\n",
            "decisions: \"<decisions/>\" | \"<decisions>\" TEXT? \"</decisions>\"\n",
            "state: \"<state>\" NONBLANK \"</state>\"\n",
            "open_items: \"<open_items/>\" | \"<open_items>\" TEXT? \"</open_items>\"\n",
            "_SEP: /[\\t\\n ]+/\n",
            "TEXT: /",
            item_regex!(),
            "+/\n",
            "NONBLANK: /",
            nonblank_regex!(),
            "/\n"
        )
    };
}

macro_rules! gbnf_text {
    () => {
        concat!(
            "# The loopcompact summary (docs/SPEC.md §17.1): a subset of the XML of §4.\n",
            "root ::= \"<conversation_summary>\" sep goal sep constraints sep decisions sep state sep open-items sep \"</conversation_summary>\"\n",
            "goal ::= \"<goal>\" nonblank \"</goal>\"\n",
            "constraints ::= \"<constraints/>\" | \"<constraints>\" item* \"</constraints>\"\n",
            "decisions ::= \"<decisions/>\" | \"<decisions>\" item* \"</decisions>\"\n",
            "state ::= \"<state>\" nonblank \"</state>\"\n",
            "open-items ::= \"<open_items/>\" | \"<open_items>\" item* \"</open_items>\"\n",
            "sep ::= [\\t\\n ]*\n",
            "nonblank ::= ws-item* nonws-item item*\n",
            "item ::= [",
            ws_raw!(),
            nonws_raw_gbnf!(),
            "] | named | numeric\n",
            "ws-item ::= [",
            ws_raw!(),
            "] | \"&#\" (\"0\"* ws-dec | \"x\" \"0\"* ws-hex) \";\"\n",
            "nonws-item ::= [",
            nonws_raw_gbnf!(),
            "] | named | \"&#\" (\"0\"* nonws-dec | \"x\" \"0\"* nonws-hex) \";\"\n",
            "named ::= \"&\" (\"lt\" | \"gt\" | \"amp\" | \"apos\" | \"quot\") \";\"\n",
            "numeric ::= \"&#\" (\"0\"* dec | \"x\" \"0\"* hex) \";\"\n",
            "dec ::= \"9\" | \"10\" | \"13\" | \"3\" [2-9] | [4-9] d | [1-9] d d | [1-9] d d d | [1-4] d d d d",
            " | \"5\" [0-4] d d d | \"55\" [01] d d | \"552\" [0-8] d | \"5529\" [0-5]\n",
            "hex ::= [9ADad] | [2-9A-Fa-f] h | [1-9A-Fa-f] h h | [1-9A-Ca-c] h h h | [Dd] [0-7] h h",
            " | [Ee] h h h | [Ff] [0-9A-Ea-e] h h | [Ff] [Ff] [0-9A-Ea-e] h | [Ff] [Ff] [Ff] [0-9A-Da-d]",
            " | [1-9A-Fa-f] h h h h | \"10\" h h h h\n",
            "ws-dec ::= \"9\" | \"10\" | \"13\" | \"32\" | \"133\" | \"160\" | \"5760\" | \"819\" [2-9] | \"820\" [0-2]",
            " | \"823\" [23] | \"8239\" | \"8287\" | \"12288\"\n",
            "ws-hex ::= [9ADad] | \"20\" | \"85\" | [Aa] \"0\" | \"1680\" | \"200\" [0-9Aa] | \"202\" [89Ff] | \"205\" [Ff]",
            " | \"3000\"\n",
            "nonws-dec ::= \"3\" [3-9] | [4-9] d | \"1\" [01] d | \"12\" [0-7]\n",
            "nonws-hex ::= \"2\" [1-9A-Fa-f] | [3-79B-Fb-f] h | \"8\" [0-46-9A-Fa-f] | [Aa] [1-9A-Fa-f] | [1-9A-Fa-f] h h",
            " | \"1\" [0-57-9A-Fa-f] h h | \"16\" [0-79A-Fa-f] h | \"168\" [1-9A-Fa-f]",
            " | \"2\" [1-9A-Fa-f] h h | \"20\" [1346-9A-Fa-f] h | \"200\" [B-Fb-f] | \"202\" [0-7A-Ea-e] | \"205\" [0-9A-Ea-e]",
            " | \"3\" [1-9A-Fa-f] h h | \"30\" [1-9A-Fa-f] h | \"300\" [1-9A-Fa-f]",
            " | [4-9A-Ca-c] h h h | [Dd] [0-7] h h | [Ee] h h h | [Ff] [0-9A-Ea-e] h h",
            " | [Ff] [Ff] [0-9A-Ea-e] h | [Ff] [Ff] [Ff] [0-9A-Da-d] | [1-9A-Fa-f] h h h h | \"10\" h h h h\n",
            "d ::= [0-9]\n",
            "h ::= [0-9A-Fa-f]\n"
        )
    };
}

macro_rules! json_schema_text {
    () => {
        concat!(
            r#"{"type":"object","properties":{"#,
            r#""goal":{"type":"string","description":"What the user wants achieved. Must contain a character that is not white space."},"#,
            r#""constraints":{"type":"string","description":"Requirements and limits that still apply; empty when none."},"#,
            r#""decisions":{"type":"string","description":"Decisions taken and why; empty when none."},"#,
            r#""state":{"type":"string","description":"Where the work stands now. Must contain a character that is not white space."},"#,
            r#""open_items":{"type":"string","description":"What is still to do or undecided; empty when none."}},"#,
            r#""required":["goal","constraints","decisions","state","open_items"],"additionalProperties":false}"#
        )
    };
}

/// The regular expression of G17.4 (matched against the whole reply; it has no anchors).
pub const REGEX: &str = regex_text!();
/// The Lark grammar of G17.5 (start rule `start`).
pub const LARK: &str = lark_text!();
/// The GBNF grammar of G17.6 (start rule `root`).
pub const GBNF: &str = gbnf_text!();
/// The JSON Schema of G17.7: an object of the five sections as strings.
pub const JSON_SCHEMA: &str = json_schema_text!();

/// A `&'static str` with a NUL appended, as a `&'static CStr` (`c""` if it held a NUL, which the
/// tests rule out).
macro_rules! c_of {
    ($text:expr) => {
        match CStr::from_bytes_with_nul(concat!($text, "\0").as_bytes()) {
            Ok(c) => c,
            Err(_) => c"",
        }
    };
}

pub(crate) const REGEX_C: &CStr = c_of!(regex_text!());
pub(crate) const LARK_C: &CStr = c_of!(lark_text!());
pub(crate) const GBNF_C: &CStr = c_of!(gbnf_text!());
pub(crate) const JSON_SCHEMA_C: &CStr = c_of!(json_schema_text!());

/// The grammar text of `kind` (SPEC G17.1).
#[must_use]
pub const fn grammar(kind: GrammarKind) -> &'static str {
    match kind {
        GrammarKind::Regex => REGEX,
        GrammarKind::Lark => LARK,
        GrammarKind::Gbnf => GBNF,
    }
}

/// [`grammar`], NUL-terminated, for `lc_summary_grammar`.
pub(crate) const fn grammar_c(kind: GrammarKind) -> &'static CStr {
    match kind {
        GrammarKind::Regex => REGEX_C,
        GrammarKind::Lark => LARK_C,
        GrammarKind::Gbnf => GBNF_C,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_strings_are_the_texts() {
        for kind in GrammarKind::ALL {
            assert_eq!(grammar_c(kind).to_str().unwrap(), grammar(kind));
            assert!(!grammar(kind).is_empty());
        }
        assert_eq!(JSON_SCHEMA_C.to_str().unwrap(), JSON_SCHEMA);
    }
}
