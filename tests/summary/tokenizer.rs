//! The tokenizer (SPEC §4.1): one test per rule, X4.1–X4.16.

use super::support::*;

// (2) One test per rule of §4

#[test]
fn x4_1_shape() {
    check(&[
        (goal("x"), "ok"),
        (b"<conversation_summary><goal>g</goal><constraints>c</constraints><decisions>d</decisions><state>s</state><open_items>o</open_items></conversation_summary>".to_vec(), "ok"),
        (b"<conversation_summary>\n  <goal>g</goal>\n  <constraints />\n  <decisions\n/>\n  <state >s</state\t>\n  <open_items/>\n</conversation_summary>".to_vec(), "ok"),
        (b"<conversation_summary ><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary\n>".to_vec(), "ok"),
    ]);
}

#[test]
fn x4_3_cdata_pre_check() {
    check(&[
        // Anywhere, in any state of the document, the marker decides.
        (goal("a<![CDATA[b]]>c"), "xml_structure"),
        (before("<![CDATA[x]]>"), "xml_structure"),
        (after("<![CDATA[x]]>"), "xml_structure"),
        (root_tag(" a=\"<![CDATA[\">"), "xml_structure"),
        (before("<!-- <![CDATA[ -->"), "xml_structure"),
        (before("<?pi <![CDATA[ ?>"), "xml_structure"),
        (before("<!DOCTYPE x \"<![CDATA[\">"), "xml_structure"),
        (b"\0<![CDATA[".to_vec(), "xml_structure"),
        (b"<wrong><![CDATA[".to_vec(), "xml_structure"),
        (b"<summary/>\xff<![CDATA[".to_vec(), "xml_structure"),
        (goal("&bogus; <![CDATA["), "xml_structure"),
        (b"<![CDATA[<![CDATA[".to_vec(), "xml_structure"),
        // Variants are not the marker: they fail X4.15.
        (goal("a<![cdata[b]]>"), "xml_syntax"),
        (goal("a<![CDATA b"), "xml_syntax"),
        (goal("a<![CDATA"), "xml_syntax"),
        (goal("a<!["), "xml_syntax"),
        (goal("a<![]>"), "xml_syntax"),
        (b"<![CDATA".to_vec(), "xml_syntax"),
        (b"< ![CDATA[".to_vec(), "xml_syntax"),
    ]);
}

#[test]
fn x4_4_raw_bytes_no_bom_handling() {
    check(&[
        // EF BB BF is the character U+FEFF: text before the root.
        (before("\u{FEFF}"), "xml_structure"),
        (b"\xEF\xBB\xBF<summary/>".to_vec(), "xml_structure"),
        (goal("\u{FEFF}"), "ok"),
        // A UTF-16 BOM is not UTF-8 at all.
        (b"\xFF\xFE<\x00".to_vec(), "xml_syntax"),
        (b"\xFE\xFF\x00<".to_vec(), "xml_syntax"),
    ]);
}

#[test]
fn x4_5_character_data_runs_to_the_next_lt() {
    check(&[
        (goal("a > b"), "ok"),
        (goal("a ? b ! c / d = e \" f ' g"), "ok"),
        (goal("line one\nline two\r\nline three\r"), "ok"),
        // One run: a syntax error anywhere in it outranks the classification of the run.
        (b"leading prose \x01<summary/>".to_vec(), "xml_syntax"),
        (b"leading prose<summary/>".to_vec(), "xml_structure"),
    ]);
}

#[test]
fn x4_6_references() {
    check(&[
        (goal("&lt;&gt;&amp;&apos;&quot;"), "ok"),
        (goal("&LT;"), "xml_syntax"),
        (goal("&Amp;"), "xml_syntax"),
        (goal("&nbsp;"), "xml_syntax"),
        (goal("&copy;"), "xml_syntax"),
        (goal("&lt"), "xml_syntax"),
        (goal("&lt x"), "xml_syntax"),
        (goal("&ltx;"), "xml_syntax"),
        (goal("&;"), "xml_syntax"),
        (goal("&"), "xml_syntax"),
        (goal("& amp;"), "xml_syntax"),
        (goal("&&amp;"), "xml_syntax"),
        (goal("&#65;&#x41;&#x4a;&#x4A;&#X4a;"), "xml_syntax"),
        (goal("&#65;&#x41;&#x4a;&#x4A;&#xaBcD;"), "ok"),
        (goal("&#0065;&#x00041;"), "ok"),
        (goal(format!("&#{}65;", "0".repeat(1000))), "ok"),
        (goal(format!("&#x{}41;", "0".repeat(1000))), "ok"),
        (goal("&#;"), "xml_syntax"),
        (goal("&#x;"), "xml_syntax"),
        (goal("&#X41;"), "xml_syntax"),
        (goal("&#-65;"), "xml_syntax"),
        (goal("&#+65;"), "xml_syntax"),
        (goal("&# 65;"), "xml_syntax"),
        (goal("&#65 ;"), "xml_syntax"),
        (goal("&#x 41;"), "xml_syntax"),
        (goal("&#6a;"), "xml_syntax"),
        (goal("&#x4g;"), "xml_syntax"),
        (goal("&#65"), "xml_syntax"),
        (goal("&#x41"), "xml_syntax"),
        (goal("&#"), "xml_syntax"),
        (goal("&#x"), "xml_syntax"),
        // Limits: U+10FFFF is the last code point; values beyond, even beyond 64 bits, are syntax.
        (goal("&#x10FFFF;&#1114111;"), "ok"),
        (goal("&#x110000;"), "xml_syntax"),
        (goal("&#1114112;"), "xml_syntax"),
        (goal("&#18446744073709551616;"), "xml_syntax"),
        (goal("&#18446744073709551615;"), "xml_syntax"),
        (goal("&#99999999999999999999999999999999;"), "xml_syntax"),
        (goal("&#xFFFFFFFFFFFFFFFFFFFF;"), "xml_syntax"),
        (goal("&#x100000041;"), "xml_syntax"),
        // Surrogates (D5), decimal and hexadecimal, in text and attribute values.
        (goal("&#xD800;"), "xml_syntax"),
        (goal("&#xDFFF;"), "xml_syntax"),
        (goal("&#xdbff;"), "xml_syntax"),
        (goal("&#55296;"), "xml_syntax"),
        (goal("&#57343;"), "xml_syntax"),
        (goal("&#xD7FF;&#55295;&#xE000;&#57344;"), "ok"),
        (root_tag(" a=\"&#xDFFF;\">"), "xml_syntax"),
        (root_tag(" a=\"&#55296;\">"), "xml_syntax"),
        // References in attribute values: same forms; a well-formed one leaves the attribute rule.
        (root_tag(" a=\"&lt;&#65;&#x41;\">"), "xml_structure"),
        (root_tag(" a=\"&bogus;\">"), "xml_syntax"),
        (root_tag(" a=\"&amp\">"), "xml_syntax"),
        (root_tag(" a='&#X41;'>"), "xml_syntax"),
        (root_tag(" a=\"&quot;\">"), "xml_structure"),
        (root_tag(" a='&apos;'>"), "xml_structure"),
        (root_tag(" a=\"&am\"p;\">"), "xml_syntax"),
        // A declared entity stays unknown (and the declaration itself is a directive).
        (b"<!DOCTYPE x [<!ENTITY e \"v\">]><summary>&e;</summary>".to_vec(), "xml_structure"),
        (goal("&e;"), "xml_syntax"),
    ]);
}

#[test]
fn x4_7_text_specifics() {
    check(&[
        (goal("a]]>b"), "xml_syntax"),
        (goal("a]]]>b"), "xml_syntax"),
        (goal("a]]]]]>b"), "xml_syntax"),
        (goal("]]>"), "xml_syntax"),
        (goal("a]] >b"), "ok"),
        (goal("a] ]>b"), "ok"),
        (goal("a]>b"), "ok"),
        (goal("a]]b>"), "ok"),
        (goal("a]]"), "ok"),
        (goal("]&#93;>"), "ok"),
        (goal("]]&gt;"), "ok"),
        (goal("&#93;&#93;>"), "ok"),
        (goal("&#93;]>"), "ok"),
        (goal("]&amp;]>"), "ok"),
        (goal("]\n]>"), "ok"),
        // Across the 32-byte blocks of the fast path.
        (goal(format!("{}]]>", "a".repeat(29))), "xml_syntax"),
        (goal(format!("{}]]>", "a".repeat(30))), "xml_syntax"),
        (goal(format!("{}]]>", "a".repeat(31))), "xml_syntax"),
        (goal(format!("{}]]{}>", "a".repeat(30), "")), "xml_syntax"),
        (goal(format!("]]{}>", "a".repeat(40))), "ok"),
        // Outside the root too, and before any classification of the run.
        (before("]]>"), "xml_syntax"),
        (after("]]>"), "xml_syntax"),
        (between("]]>"), "xml_syntax"),
        // Allowed in attribute values.
        (root_tag(" a=\"]]>\">"), "xml_structure"),
        (b"<summary a=']]>'/>".to_vec(), "xml_root"),
        // CR and CR LF are white space either way (X4.21).
        (goal("\r"), "xml_content"),
        (goal("\r\n"), "xml_content"),
        (state("\r\r\n\n"), "xml_content"),
        (between("\r\n"), "ok"),
    ]);
}

#[test]
fn x4_8_characters() {
    let mut cases: Vec<(Vec<u8>, &str)> = Vec::new();
    // Every C0 control except TAB, LF, CR is illegal raw and as a reference, in text, attribute
    // values and outside the root.
    for c in (0u8..0x20).filter(|c| ![0x09, 0x0A, 0x0D].contains(c)) {
        cases.push((goal([b'a', c, b'b']), "xml_syntax"));
        cases.push((goal(format!("a&#{c};b")), "xml_syntax"));
        cases.push((goal(format!("a&#x{c:X};b")), "xml_syntax"));
        cases.push((root_tag([b' ', b'a', b'=', b'"', c, b'"', b'>']), "xml_syntax"));
        cases.push((before([c]), "xml_syntax"));
        cases.push((after([c]), "xml_syntax"));
    }
    for c in [0x09u8, 0x0A, 0x0D] {
        cases.push((goal([b'a', c, b'b']), "ok"));
        cases.push((goal(format!("a&#{c};b")), "ok"));
        cases.push((root_tag([b' ', b'a', b'=', b'"', c, b'"', b'>']), "xml_structure"));
    }
    let raw: &[(&[u8], &str)] = &[
        (b"\x7F", "ok"),                     // DEL
        (b"\xC2\x80", "ok"),                 // U+0080, a C1 control
        (b"\xC2\x9F", "ok"),                 // U+009F
        (b"\xED\x9F\xBF", "ok"),             // U+D7FF
        (b"\xEE\x80\x80", "ok"),             // U+E000
        (b"\xEF\xBF\xBD", "ok"),             // U+FFFD
        (b"\xEF\xBF\xBE", "xml_syntax"),     // U+FFFE
        (b"\xEF\xBF\xBF", "xml_syntax"),     // U+FFFF
        (b"\xF0\x90\x80\x80", "ok"),         // U+10000
        (b"\xF4\x8F\xBF\xBF", "ok"),         // U+10FFFF
        (b"\xF4\x90\x80\x80", "xml_syntax"), // above U+10FFFF
        (b"\xF5\x80\x80\x80", "xml_syntax"),
        (b"\xED\xA0\x80", "xml_syntax"),     // encoded surrogate U+D800
        (b"\xED\xBF\xBF", "xml_syntax"),     // encoded surrogate U+DFFF
        (b"\xC0\x80", "xml_syntax"),         // overlong NUL
        (b"\xC1\xBF", "xml_syntax"),         // overlong
        (b"\xE0\x80\x80", "xml_syntax"),     // overlong
        (b"\xE0\x9F\xBF", "xml_syntax"),     // overlong
        (b"\xF0\x80\x80\x80", "xml_syntax"), // overlong
        (b"\xF0\x8F\xBF\xBF", "xml_syntax"), // overlong
        (b"\x80", "xml_syntax"),             // stray continuation
        (b"\xBF", "xml_syntax"),
        (b"\xC3", "xml_syntax"), // a lead byte without its continuation
        (b"\xE2\x80", "xml_syntax"),
        (b"\xF0\x9F\x9A", "xml_syntax"),
        (b"\xC3\x28", "xml_syntax"), // bad continuation
        (b"\xE2\x28\xA1", "xml_syntax"),
        (b"\xF8\x88\x80\x80\x80", "xml_syntax"), // 5-byte form
        (b"\xFE", "xml_syntax"),
        (b"\xFF", "xml_syntax"),
    ];
    for &(bytes, expect) in raw {
        cases.push((goal(cat(&[b"a", bytes, b"b"])), expect));
        // Attribute values: the same characters, the attribute rule only after them.
        let attr_expect = if expect == "ok" { "xml_structure" } else { expect };
        cases.push((root_tag(cat(&[b" a=\"", bytes, b"\">"])), attr_expect));
        // Outside the root: legal text is structure, illegal text syntax.
        let outside = if expect == "ok" { "xml_structure" } else { expect };
        cases.push((after(bytes), outside));
        cases.push((before(bytes), outside));
    }
    // Truncated at the end of the input.
    cases.push((cat(&[&goal("x"), b"\xC3"]), "xml_syntax"));
    cases.push((cat(&[&goal("x"), b"\xF0\x9F\x9A"]), "xml_syntax"));
    // References to Chars and non-Chars.
    for (r, expect) in [
        ("&#x7F;", "ok"),
        ("&#x80;", "ok"),
        ("&#x85;", "ok"),
        ("&#xFFFD;", "ok"),
        ("&#xFFFE;", "xml_syntax"),
        ("&#xFFFF;", "xml_syntax"),
        ("&#65534;", "xml_syntax"),
        ("&#x10000;", "ok"),
        ("&#x1FFFE;", "ok"),
    ] {
        cases.push((goal(format!("a{r}b")), expect));
    }
    check(&cases);
}

#[test]
fn x4_8_fast_path_block_boundaries() {
    // A rare byte at every position of the 32-byte blocks, and at the end of the input.
    let mut cases: Vec<(Vec<u8>, &str)> = Vec::new();
    for pad in 0..70 {
        let p = "a".repeat(pad);
        cases.push((goal(format!("{p}\u{1}")), "xml_syntax"));
        cases.push((goal(format!("{p}é—")), "ok"));
        cases.push((goal(format!("{p}&amp;")), "ok"));
        cases.push((goal(format!("{p}&bad;")), "xml_syntax"));
        cases.push((goal(cat(&[p.as_bytes(), b"\xFF"])), "xml_syntax"));
        cases.push((goal(format!("x{p}\t\n\r")), "ok"));
        cases.push((cat(&[&goal("x"), p.as_bytes(), b"\x00"]), "xml_syntax"));
        cases.push((cat(&[&goal("x"), p.as_bytes()]), if pad == 0 { "ok" } else { "xml_structure" }));
        cases.push((root_tag(format!(" a=\"{p}\u{1}\">")), "xml_syntax"));
        cases.push((root_tag(format!(" a=\"{p}<\">")), "xml_syntax"));
        cases.push((root_tag(format!(" a=\"{p}'\">")), "xml_structure"));
        cases.push((root_tag(format!(" a='{p}\"'>")), "xml_structure"));
    }
    check(&cases);
}

#[test]
fn x4_9_names() {
    check(&[
        // Valid names with the wrong local name: xml_root, whatever their characters.
        (b"<summary/>".to_vec(), "xml_root"),
        ("<résumé/>".into(), "xml_root"),
        ("<_a/>".into(), "xml_root"),
        ("<a1.b-c_d/>".into(), "xml_root"),
        ("<\u{4E00}\u{3007}/>".into(), "xml_root"), // Ideographic
        ("<a\u{0300}/>".into(), "xml_root"),        // CombiningChar after the first
        ("<a\u{00B7}b/>".into(), "xml_root"),       // Extender
        ("<a\u{0661}/>".into(), "xml_root"),        // Digit (Arabic-Indic)
        ("<\u{0E01}\u{0E46}/>".into(), "xml_root"), // Thai letter, Extender
        ("<\u{AC00}/>".into(), "xml_root"),         // Hangul syllable
        ("<\u{0386}/>".into(), "xml_root"),         // single BaseChar entry
        // Invalid names: xml_syntax, even as the first start tag.
        ("<1a/>".into(), "xml_syntax"),
        ("<-a/>".into(), "xml_syntax"),
        ("<.a/>".into(), "xml_syntax"),
        ("<\u{0300}a/>".into(), "xml_syntax"),  // CombiningChar first
        ("<\u{00B7}a/>".into(), "xml_syntax"),  // Extender first
        ("<\u{0661}/>".into(), "xml_syntax"),   // Digit first
        ("<a\u{00A0}/>".into(), "xml_syntax"),  // NBSP bytes are name bytes, not a name char
        ("<a\u{2603}/>".into(), "xml_syntax"),  // not in Appendix B
        ("<\u{0132}/>".into(), "xml_syntax"),   // excluded from BaseChar (a ligature)
        ("<a\u{10000}/>".into(), "xml_syntax"), // outside the BMP: no Appendix B class
        ("<\u{3000}/>".into(), "xml_syntax"),
        (b"<a\xff/>".to_vec(), "xml_syntax"),
        (b"<a\xc3/>".to_vec(), "xml_syntax"),
        (b"<a\xef\xbf\xbe/>".to_vec(), "xml_syntax"),
        // Inside the root: a valid non-section name is structure, an invalid one syntax.
        (goal("<é/>"), "xml_structure"),
        (goal("<1/>"), "xml_syntax"),
        (root_tag(" é=\"1\">"), "xml_structure"),
        (root_tag(" 1a=\"1\">"), "xml_syntax"),
        (b"<summary 1a=\"1\">".to_vec(), "xml_syntax"),
        (b"<summary a\xff=\"1\">".to_vec(), "xml_syntax"),
        // Section names are ASCII and case-sensitive.
        (b"<conversation_summary><Goal>x</Goal></conversation_summary>".to_vec(), "xml_structure"),
        ("<conversation_summary><gоal>x</gоal></conversation_summary>".into(), "xml_structure"), // Cyrillic о
    ]);
}

#[test]
fn x4_10_qualified_names() {
    check(&[
        // One colon, neither first nor last: a prefix.
        (b"<x:conversation_summary/>".to_vec(), "xml_structure"),
        (b"<x:summary/>".to_vec(), "xml_root"),
        (b"<conversation_summary:x/>".to_vec(), "xml_root"),
        // A colon first or last: no prefix, the local name is the whole name.
        (b"<:conversation_summary/>".to_vec(), "xml_root"),
        (b"<conversation_summary:/>".to_vec(), "xml_root"),
        (b"<:/>".to_vec(), "xml_root"),
        (b"<conversation_summary><:goal>x</:goal></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><goal:>x</goal:></conversation_summary>".to_vec(), "xml_structure"),
        // Two or more colons: syntax, in element and attribute names, on any tag.
        (b"<a::b/>".to_vec(), "xml_syntax"),
        (b"<::/>".to_vec(), "xml_syntax"),
        (b"<a:b:/>".to_vec(), "xml_syntax"),
        (b"<:a:b/>".to_vec(), "xml_syntax"),
        (b"<conversation_summary><x:y:goal>x</x:y:goal></conversation_summary>".to_vec(), "xml_syntax"),
        (b"<summary a:b:c=\"1\"/>".to_vec(), "xml_syntax"),
        (b"<summary ::=\"1\"/>".to_vec(), "xml_syntax"),
        // Prefixed and colon-edged attribute names are well formed.
        (root_tag(" x:a=\"1\">"), "xml_structure"),
        (root_tag(" :a=\"1\">"), "xml_structure"),
        (root_tag(" a:=\"1\">"), "xml_structure"),
        // An undeclared prefix is not an error; end tags match byte for byte.
        (b"<x:a></x:a>".to_vec(), "xml_root"),
        (b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>y</state><open_items/></x:conversation_summary>".to_vec(), "xml_syntax"),
    ]);
}

#[test]
fn x4_11_start_tags() {
    check(&[
        (goal("x"), "ok"),
        (b"<conversation_summary\t\r\n><goal >x</goal><constraints\n/><decisions\t/><state\r>y</state><open_items /></conversation_summary>".to_vec(), "ok"),
        // `/` must be followed directly by `>`.
        (goal("x").replace_range_copy("<constraints/>", "<constraints/ >"), "xml_syntax"),
        (goal("x").replace_range_copy("<constraints/>", "<constraints/x>"), "xml_syntax"),
        (goal("x").replace_range_copy("<constraints/>", "<constraints//>"), "xml_syntax"),
        // Nothing where a name is expected.
        (b"<".to_vec(), "xml_syntax"),
        (b"< summary/>".to_vec(), "xml_syntax"),
        (b"<>".to_vec(), "xml_syntax"),
        (b"</>".to_vec(), "xml_syntax"),
        (b"<=a/>".to_vec(), "xml_syntax"),
        (b"<\"a\"/>".to_vec(), "xml_syntax"),
        (b"<a=b>".to_vec(), "xml_syntax"),
        (b"<goal\"x\">".to_vec(), "xml_syntax"),
        (b"<summary \"x\">".to_vec(), "xml_syntax"),
        (b"<summary =\"x\">".to_vec(), "xml_syntax"),
        // Attribute forms: well formed (then the attribute rule) ...
        (root_tag(" a=\"1\">"), "xml_structure"),
        (root_tag(" a='1'>"), "xml_structure"),
        (root_tag(" a = \"1\" >"), "xml_structure"),
        (root_tag("\ta\n=\r'1'\n>"), "xml_structure"),
        (root_tag(" a=\"1\"b=\"2\">"), "xml_structure"),
        (root_tag(" a=\"1\" a=\"2\">"), "xml_structure"),
        (root_tag(" a=\"x'y\" b='x\"y'>"), "xml_structure"),
        (root_tag(" a=\"\">"), "xml_structure"),
        (root_tag(" a=\">\">"), "xml_structure"),
        (root_tag(" a=\"/>\">"), "xml_structure"),
        (root_tag(" a=\"1\"/>"), "xml_structure"),
        // ... or not.
        (root_tag(" a=1>"), "xml_syntax"),
        (root_tag(" a>"), "xml_syntax"),
        (root_tag(" a \"1\">"), "xml_syntax"),
        (root_tag(" a==\"1\">"), "xml_syntax"),
        (root_tag(" a=\"<\">"), "xml_syntax"),
        (root_tag(" a='<'>"), "xml_syntax"),
        (root_tag(" a=\"1\"\">"), "xml_syntax"),
        (root_tag(" a=\"1\" =\"2\">"), "xml_syntax"),
        // The whole tag is read before the classifier sees it: a malformed attribute is syntax
        // even on a wrong root; a well-formed one leaves the root rule.
        (b"<summary a=1>".to_vec(), "xml_syntax"),
        (b"<summary a=\"<\">".to_vec(), "xml_syntax"),
        (b"<summary a=\"1\" b>".to_vec(), "xml_syntax"),
        (b"<summary a=\"1\" b=\"2\"><<<".to_vec(), "xml_root"),
        (b"<conversation_summary><goal a=1>x</goal></conversation_summary>".to_vec(), "xml_syntax"),
        (b"<conversation_summary><goal a=\"1\">x</goal></conversation_summary>".to_vec(), "xml_structure"),
        // The end of the input anywhere inside a tag.
        (b"<conversation_summary".to_vec(), "xml_syntax"),
        (b"<conversation_summary ".to_vec(), "xml_syntax"),
        (b"<conversation_summary/".to_vec(), "xml_syntax"),
        (b"<summary".to_vec(), "xml_syntax"),
        (b"<summary a".to_vec(), "xml_syntax"),
        (b"<summary a=".to_vec(), "xml_syntax"),
        (b"<summary a=\"".to_vec(), "xml_syntax"),
        (b"<summary a=\"1".to_vec(), "xml_syntax"),
        (b"<summary a=\"1\"".to_vec(), "xml_syntax"),
        (b"<summary a=\"1\" ".to_vec(), "xml_syntax"),
        (b"<summary a=\"1\"/".to_vec(), "xml_syntax"),
    ]);
}

/// `replace_range_copy` for the start-tag table: a copy of the bytes with the first `from`
/// replaced by `to`.
trait ReplaceCopy {
    fn replace_range_copy(&self, from: &str, to: &str) -> Vec<u8>;
}

impl ReplaceCopy for Vec<u8> {
    fn replace_range_copy(&self, from: &str, to: &str) -> Vec<u8> {
        let text = String::from_utf8(self.clone()).unwrap();
        assert!(text.contains(from));
        text.replacen(from, to, 1).into_bytes()
    }
}

#[test]
fn x4_12_end_tags() {
    let open = "<conversation_summary><goal>x";
    check(&[
        (
            format!("{open}</goal ><constraints/><decisions/><state>y</state><open_items/></conversation_summary\n\t>"),
            "ok",
        ),
        (format!("{open}</ goal>"), "xml_syntax"),
        (format!("{open}</goal x=\"1\">"), "xml_syntax"),
        (format!("{open}</goal/>"), "xml_syntax"),
        (format!("{open}</goal"), "xml_syntax"),
        (format!("{open}</goal "), "xml_syntax"),
        (format!("{open}</"), "xml_syntax"),
        (format!("{open}</>"), "xml_syntax"),
        (format!("{open}</GOAL>"), "xml_syntax"),
        (format!("{open}</goal.>"), "xml_syntax"),
        (format!("{open}</goa>"), "xml_syntax"),
        (format!("{open}</conversation_summary>"), "xml_syntax"),
        (format!("{open}</state>"), "xml_syntax"),
        // No open element at all.
        ("</conversation_summary>".into(), "xml_syntax"),
        ("</x>".into(), "xml_syntax"),
        (String::from_utf8(after("</conversation_summary>")).unwrap(), "xml_syntax"),
        (String::from_utf8(after("</goal>")).unwrap(), "xml_syntax"),
        // An end tag that closes the root too early is a well-formed token: structure.
        ("<conversation_summary><goal>x</goal></conversation_summary>".into(), "xml_structure"),
        ("<conversation_summary></conversation_summary>".into(), "xml_structure"),
    ]);
}

#[test]
fn x4_13_comments() {
    check(&[
        (before("<!---->"), "xml_structure"),
        (before("<!-- x -->"), "xml_structure"),
        (before("<!--->-->"), "xml_structure"),
        (before("<!--> -->"), "xml_structure"),
        (before("<!---> -->"), "xml_structure"),
        (before("<!-- - -->"), "xml_structure"),
        (before("<!-- a -- b -->"), "xml_syntax"),
        (before("<!-- a --->"), "xml_syntax"),
        (before("<!-- a -- >"), "xml_syntax"),
        (before("<!------>"), "xml_syntax"),
        (before("<!-x-->"), "xml_syntax"),
        (before("<!- -->"), "xml_syntax"),
        (b"<!-".to_vec(), "xml_syntax"),
        (b"<!--".to_vec(), "xml_syntax"),
        (b"<!-- abc".to_vec(), "xml_syntax"),
        (b"<!-- abc -".to_vec(), "xml_syntax"),
        (b"<!-- abc --".to_vec(), "xml_syntax"),
        (b"<!-->".to_vec(), "xml_syntax"),
        (b"<!--->".to_vec(), "xml_syntax"),
        // The content is not checked.
        (before(b"<!-- \x00 \x01 \xff \xc3 & &bogus; ]]> < -->"), "xml_structure"),
        // Anywhere, a well-formed comment is structure; it ends validation.
        (goal("a<!-- x -->b"), "xml_structure"),
        (between("<!---->"), "xml_structure"),
        (after("<!---->"), "xml_structure"),
        (b"<!---->\x00".to_vec(), "xml_structure"),
        (b"<!---->&bogus;".to_vec(), "xml_structure"),
    ]);
}

#[test]
fn x4_14_processing_instructions() {
    check(&[
        (before("<?pi?>"), "xml_structure"),
        (before("<?pi data?>"), "xml_structure"),
        (before("<?pi\n data ? > ?>"), "xml_structure"),
        (before("<?pi>?>"), "xml_structure"),
        (before("<?a:b:c data?>"), "xml_structure"), // any number of colons in a target
        (before("<?é?>"), "xml_structure"),
        (before(b"<?pi \x00\xff\x01?>"), "xml_structure"),
        (before("<?>"), "xml_syntax"),
        (before("<??>"), "xml_syntax"),
        (before("<? pi?>"), "xml_syntax"),
        (before("<?1pi?>"), "xml_syntax"),
        (before("<?-pi?>"), "xml_syntax"),
        (before(b"<?p\xff?>"), "xml_syntax"),
        (b"<?".to_vec(), "xml_syntax"),
        (b"<?pi".to_vec(), "xml_syntax"),
        (b"<?pi data".to_vec(), "xml_syntax"),
        (b"<?pi data?".to_vec(), "xml_syntax"),
        (b"<?pi data>".to_vec(), "xml_syntax"),
        // The XML declaration: version and encoding, wherever it occurs.
        (before("<?xml?>"), "xml_structure"),
        (before("<?xml version=\"1.0\"?>"), "xml_structure"),
        (before("<?xml version='1.0' encoding='UTF-8'?>"), "xml_structure"),
        (before("<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>"), "xml_structure"),
        (before("<?xml encoding=\"uTf-8\"?>"), "xml_structure"),
        (before("<?xml version=\"\"?>"), "xml_structure"),
        (before("<?xml encoding=''?>"), "xml_structure"),
        (before("<?xml version=\"1.1\"?>"), "xml_syntax"),
        (before("<?xml version=\"2.0\"?>"), "xml_syntax"),
        (before("<?xml version=\"1.0 \"?>"), "xml_syntax"),
        (before("<?xml version='1'?>"), "xml_syntax"),
        (before("<?xml encoding=\"utf8\"?>"), "xml_syntax"),
        (before("<?xml encoding=\"UTF-16\"?>"), "xml_syntax"),
        (before("<?xml version=\"1.0\" encoding=\"latin1\"?>"), "xml_syntax"),
        // Occurrences not directly followed by a quote are skipped.
        (before("<?xml version=1 version=\"2.0\"?>"), "xml_syntax"),
        (before("<?xml version=1.1?>"), "xml_structure"),
        (before("<?xml version = \"2.0\"?>"), "xml_structure"),
        (before("<?xml encoding=latin1 encoding='utf-8'?>"), "xml_structure"),
        // Amended X4.14: after such an occurrence the scan resumes two bytes after its `=`, so an
        // occurrence starting right after the `=` is never seen.
        (before("<?xml version=version=\"2.0\"?>"), "xml_structure"),
        (before("<?xml encoding=encoding=\"latin1\"?>"), "xml_structure"),
        (before("<?xml version=version=\"1.0\" version=\"2\"?>"), "xml_syntax"),
        (before("<?xml version=version=\"2.0\" version=\"1.0\"?>"), "xml_structure"),
        (before("<?xml version= version=\"x\"?>"), "xml_syntax"),
        (before("<?xml encoding= encoding=\"x\"?>"), "xml_syntax"),
        (before("<?xml version==version=\"3\"?>"), "xml_syntax"),
        // An occurrence at the very end, and the quote at the very end.
        (before("<?xml a version=?>"), "xml_structure"),
        (before("<?xml version=\"?>"), "xml_structure"),
        (before("<?xml encoding='?>"), "xml_structure"),
        // The value runs to the next same quote; none before `?>` means no value.
        (before("<?xml version=\"2.0?>"), "xml_structure"),
        (before("<?xml version=\"1.0' encoding='x\"?>"), "xml_syntax"),
        (before("<?xml version='1.0\" x=\"y'?>"), "xml_syntax"),
        // Plain byte search: the bytes may sit inside another pseudo-attribute.
        (before("<?xml note=\"xversion='3'\"?>"), "xml_syntax"),
        // Only the exact target `xml`.
        (before("<?XML version=\"2.0\"?>"), "xml_structure"),
        (before("<?xml-stylesheet version=\"2.0\"?>"), "xml_structure"),
        (before("<?xmlx version=\"2.0\"?>"), "xml_structure"),
        // Anywhere: in a section, after the root.
        (goal("a<?xml version=\"9\"?>"), "xml_syntax"),
        (goal("a<?pi?>"), "xml_structure"),
        (after("<?xml version=\"1.0\"?>"), "xml_structure"),
        (after("<?xml encoding=\"EBCDIC\"?>"), "xml_syntax"),
    ]);
}

#[test]
fn x4_15_bang_constructs() {
    check(&[
        (b"<!".to_vec(), "xml_syntax"),
        // `<` is the directive's uninterpreted first byte; the directive ends at `goal>`.
        (goal("<!"), "xml_structure"),
        (goal("<!-"), "xml_syntax"),
        (before("<![x"), "xml_syntax"),
        (before("<![CDATAx[x]]>"), "xml_syntax"),
        (before("<!DOCTYPE conversation_summary>"), "xml_structure"),
        (before("<!doctype x>"), "xml_structure"),
        (before("<!ENTITY e \"x\">"), "xml_structure"),
        (before("<!BOGUS>"), "xml_structure"),
        (before("<!x>"), "xml_structure"),
        // The first byte after `<!` is taken without interpretation.
        (before("<!>>"), "xml_structure"),
        (b"<!>".to_vec(), "xml_syntax"),
        (before("<!\"x>"), "xml_structure"),
        (before("<!'>"), "xml_structure"),
        (before("<!<x>"), "xml_structure"),
        // Quotes hide `>` and `<`; the same byte closes them.
        (before("<!x \"a>b\">"), "xml_structure"),
        (before("<!x 'a>b'>"), "xml_structure"),
        (before("<!x \"a'>\">"), "xml_structure"),
        (before("<!x \"<\">"), "xml_structure"),
        (b"<!x \"a>b".to_vec(), "xml_syntax"),
        (b"<!x 'a\">".to_vec(), "xml_syntax"),
        // Depth.
        (before("<!x <y> >"), "xml_structure"),
        (before("<!x <y <z>> >"), "xml_structure"),
        (before("<!x [<!ENTITY e \"v\"> <!ELEMENT a (#PCDATA)>]>"), "xml_structure"),
        (b"<!x <y>".to_vec(), "xml_syntax"),
        (b"<!x <<>>".to_vec(), "xml_syntax"),
        (before("<!x <<>>>"), "xml_structure"),
        (before("<!x <!->>"), "xml_structure"),
        // Comments inside are skipped up to the next `-->` after their `<!--`.
        (before("<!x <!-- > \" ' < -->>"), "xml_structure"),
        (before("<!x <!---->>"), "xml_structure"),
        (before("<!x <!-- -- -->>"), "xml_structure"),
        (b"<!x <!-- -->".to_vec(), "xml_syntax"),
        (b"<!x <!-->".to_vec(), "xml_syntax"),
        (b"<!x <!--->".to_vec(), "xml_syntax"),
        (b"<!x <!-- >".to_vec(), "xml_syntax"),
        (before("<!x \"<!--\">"), "xml_structure"),
        // Contents are not otherwise checked.
        (before(b"<!x \x00\xff&bogus;]]>"), "xml_structure"),
        (b"<!DOCTYPE conversation_summary".to_vec(), "xml_syntax"),
        (goal("a<!DOCTYPE x>"), "xml_structure"),
        (after("<!DOCTYPE x>"), "xml_structure"),
    ]);
}

#[test]
fn x4_16_end_of_input() {
    check(&[
        (b"<conversation_summary>".to_vec(), "xml_syntax"),
        (b"<conversation_summary><goal>x".to_vec(), "xml_syntax"),
        (b"<conversation_summary><goal>x</goal>".to_vec(), "xml_syntax"),
        (
            b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>y</state><open_items/>".to_vec(),
            "xml_syntax",
        ),
        (
            b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>y</state><open_items/>\n".to_vec(),
            "xml_syntax",
        ),
        (b"<conversation_summary><goal>&amp".to_vec(), "xml_syntax"),
        (b"<conversation_summary><goal>x</goal".to_vec(), "xml_syntax"),
    ]);
    // Every non-empty strict prefix of a valid summary ends inside a token or an open element.
    for xml in [goal("a &amp; é — &#x41; b"), corpus::summary(600)] {
        for end in 1..xml.len() {
            assert_eq!(verdict(&xml[..end]), "xml_syntax", "prefix of {end} bytes");
        }
        assert_eq!(verdict(&xml), "ok");
    }
}
