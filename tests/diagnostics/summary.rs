//! C13.4, summary grammar: one row per rule of §4 that a diagnosis names, through
//! `lc_summary_xml_diagnose`.
//!
//! How the rows were derived. Every input is the seven-line summary [`LINES`] with one line edited
//! (so that lines and columns are not trivially 1), and the `goal` line holds `é` (2 bytes) and `—`
//! (3 bytes), so that a column counting bytes would be wrong. The offset of each row is found in
//! the row's own input with `find` of the byte C13.4 names:
//!
//! - a rejected token (X4.18, xml_root, xml_structure): its first byte; a section missing or out of
//!   order: the `<` of the start tag found instead, or of the root's end tag, with `section` the
//!   section expected and `expected` its start tag (`</conversation_summary>` after open_items);
//! - a blank goal or state (X4.20): the `<` of that section's start tag, `expected` `non-blank text`;
//! - a syntax error: where it was found: the bad character, the `&` of a bad reference, the first
//!   `]` of `]]>`, the `<` of an end tag that does not match (`expected` the end tag that would
//!   close the open element), the end of the input (X4.16); inside markup the spec does not say
//!   which byte, so those rows accept any offset inside the token (`Off::Within`);
//! - `section`: the section whose content holds the problem, ROOT between sections, NONE outside
//!   the root.
//!
//! Lines and columns are counted by hand from the edited line (they are also checked against the
//! table's own offset with an independent C13.2 counter, so a miscount in the table fails loudly).

use super::support::*;

/// The valid summary every row edits: one element per line, `é` and `—` on the goal line.
const LINES: [&str; 7] = [
    "<conversation_summary>",
    "<goal>Ship the café — v2</goal>",
    "<constraints/>",
    "<decisions>none</decisions>",
    "<state>done</state>",
    "<open_items/>",
    "</conversation_summary>",
];

const SYNTAX: i32 = status::LC_SUMMARY_XML_SYNTAX;
const ROOT_ERR: i32 = status::LC_SUMMARY_XML_ROOT;
const STRUCTURE: i32 = status::LC_SUMMARY_XML_STRUCTURE;
const CONTENT: i32 = status::LC_SUMMARY_XML_CONTENT;

/// [`LINES`] joined by LF, with line `n` (1-based) replaced by `with` (bytes).
fn line(n: usize, with: &[u8]) -> Vec<u8> {
    lines(&[(n, with)])
}

fn lines(edits: &[(usize, &[u8])]) -> Vec<u8> {
    let mut out: Vec<Vec<u8>> = LINES.iter().map(|l| l.as_bytes().to_vec()).collect();
    for &(n, with) in edits {
        out[n - 1] = with.to_vec();
    }
    out.join(&b'\n')
}

/// [`LINES`] without line `n`.
fn without(n: usize) -> Vec<u8> {
    let kept: Vec<&str> = LINES.iter().enumerate().filter(|(i, _)| i + 1 != n).map(|(_, l)| *l).collect();
    kept.join("\n").into_bytes()
}

fn base() -> Vec<u8> {
    LINES.join("\n").into_bytes()
}

pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |case: Case| cases.push(case);

    // The base is valid: the rows below differ from it only where they say.
    assert_eq!(kit::summary_xml_diagnose(&base()).0, 0, "the base summary must be valid");

    // X4.3: CDATA anywhere, nothing else looked at.
    let x = line(4, b"<decisions>a <![CDATA[x]]> b</decisions>");
    add(Case::new("X4.3 cdata in decisions", x.clone(), STRUCTURE, Off::At(find(&x, "<![CDATA["), 4, 14))
        .section(DECISIONS)
        .rule("X4.3"));
    // X4.3 wins over an earlier syntax error (X4.2 step 1); the marker lies in state's content.
    let x = lines(&[(2, b"<goal>a &bogus; b</goal>"), (5, b"<state><![CDATA[x]]></state>")]);
    add(Case::new(
        "X4.3 cdata after an earlier syntax error",
        x.clone(),
        STRUCTURE,
        Off::At(find(&x, "<![CDATA["), 5, 8),
    )
    // C13.4: the section comes from reading the document up to the marker; an earlier syntax
    // error ends that reading, in goal.
    .section(GOAL)
    .rule("X4.3"));

    // X4.5/X4.8: character data must decode to Chars.
    let x = line(2, "<goal>Ship the café — v2\u{1}</goal>".as_bytes());
    add(Case::new("X4.8 control character in goal", x.clone(), SYNTAX, Off::At(find(&x, "\u{1}"), 2, 25))
        .section(GOAL)
        .rule("X4.8"));
    let x = line(6, b"<open_items>x\xffy</open_items>");
    add(Case::new("X4.5/X4.8 invalid UTF-8 in open_items", x.clone(), SYNTAX, Off::At(find(&x, b"\xff"), 6, 14))
        .section(OPEN_ITEMS)
        .rule("X4.8"));
    let x = line(3, b"<constraints>a&#1;</constraints>");
    add(Case::new("X4.8 reference to a non-Char", x.clone(), SYNTAX, Off::At(find(&x, "&#1;"), 3, 15))
        .section(CONSTRAINTS)
        .rules(&["X4.6", "X4.8"]));

    // X4.6: references.
    let x = line(5, b"<state>done &nbsp; now</state>");
    add(Case::new("X4.6 unknown entity in state", x.clone(), SYNTAX, Off::At(find(&x, "&nbsp;"), 5, 13))
        .section(STATE)
        .rule("X4.6"));
    let x = line(3, b"<constraints>&#xD800;</constraints>");
    add(Case::new("X4.6 surrogate reference (D5)", x.clone(), SYNTAX, Off::At(find(&x, "&#xD800;"), 3, 14))
        .section(CONSTRAINTS)
        .rule("X4.6"));
    let x = line(4, b"<decisions>&#X41;</decisions>");
    add(Case::new("X4.6 upper-case X", x.clone(), SYNTAX, Off::At(find(&x, "&#X41;"), 4, 12))
        .section(DECISIONS)
        .rule("X4.6"));

    // X4.7: `]]>` in text.
    let x = line(4, b"<decisions>a]]>b</decisions>");
    add(Case::new("X4.7 ]]> in decisions", x.clone(), SYNTAX, Off::At(find(&x, "]]>"), 4, 13))
        .section(DECISIONS)
        .rule("X4.7"));

    // X4.9/X4.10: names. U+00D7 is no NameChar (XML 1.0 Appendix B). The spec does not say which
    // byte of a bad name is reported: anywhere in the tag.
    let x = line(4, "<decisions×>none</decisions×>".as_bytes());
    let at = rfind(&x, "\n<decisions") + 1;
    add(Case::new("X4.9 invalid name character", x.clone(), SYNTAX, Off::Within(at, at + 13))
        .section(ROOT)
        .rule("X4.9"));
    let x = line(2, b"<goal>x<a:b:c>y</a:b:c></goal>");
    let at = find(&x, "<a:b:c>");
    add(Case::new("X4.10 two colons", x.clone(), SYNTAX, Off::Within(at, at + 7)).section(GOAL).rule("X4.10"));

    // X4.11: start tag; the value must be quoted: found at the byte where the quote should be.
    let x = line(3, b"<constraints a=b>x</constraints>");
    add(Case::new("X4.11 unquoted attribute value", x.clone(), SYNTAX, Off::At(find(&x, "b>x"), 3, 16))
        .section(ROOT)
        .rule("X4.11"));

    // X4.12: end tags.
    let x = line(2, "<goal>Ship the café — v2</state>".as_bytes());
    add(Case::new("X4.12 end tag of another element", x.clone(), SYNTAX, Off::At(find(&x, "</state>"), 2, 25))
        .section(GOAL)
        .rule("X4.12")
        .expects("</goal>"));
    let x = line(2, b"<goal>x</goal></goal>");
    add(Case::new("X4.12 end tag at the root's level", x.clone(), SYNTAX, Off::At(rfind(&x, "</goal>"), 2, 15))
        .section(ROOT)
        .rule("X4.12")
        .expects("</conversation_summary>"));
    let x = line(2, b"<goal>x</conversation_summary>");
    add(Case::new(
        "X4.12 root end tag inside goal",
        x.clone(),
        SYNTAX,
        Off::At(find(&x, "</conversation_summary>"), 2, 8),
    )
    .section(GOAL)
    .rule("X4.12")
    .expects("</goal>"));

    // X4.13: `--` inside a comment (anywhere in the comment).
    let x = line(4, b"<decisions>a<!-- b -- c -->d</decisions>");
    let (start, end) = (find(&x, "<!--"), find(&x, "-->") + 3);
    add(Case::new("X4.13 -- inside a comment", x.clone(), SYNTAX, Off::Within(start, end))
        .section(DECISIONS)
        .rule("X4.13"));

    // X4.14: an XML declaration with another version, before the root: outside the root.
    let x = [b"<?xml version=\"2.0\"?>".as_slice(), &base()].concat();
    add(Case::new("X4.14 version 2.0", x, SYNTAX, Off::Within(0, 21)).section(NONE).rule("X4.14"));

    // X4.15: `<![` not followed by `CDATA[`.
    let x = line(2, b"<goal>x<![INCLUDE[y]]></goal>");
    let at = find(&x, "<![INCLUDE[");
    add(Case::new("X4.15 <![INCLUDE[", x.clone(), SYNTAX, Off::Within(at, at + 11)).section(GOAL).rule("X4.15"));

    // X4.16: the end of the input, at the input's length.
    let x = b"<conversation_summary>\n<goal>x".to_vec();
    add(Case::new("X4.16 end inside goal", x.clone(), SYNTAX, Off::At(x.len(), 2, 8)).section(GOAL).rule("X4.16"));
    let x = b"<conversation_summary>\n<goal>x</goal>\n<constr".to_vec();
    add(Case::new("X4.16 end inside a tag", x.clone(), SYNTAX, Off::At(x.len(), 3, 8)).section(ROOT).rule("X4.16"));
    let x = without(7);
    add(Case::new("X4.16 root never closed", x.clone(), SYNTAX, Off::At(x.len(), 6, 14))
        .section(ROOT)
        .rule("X4.16")
        .expected(Text::Any));

    // X4.18: the classifier.
    let x = lines(&[(1, b"<summary>"), (7, b"</summary>")]);
    add(Case::new("X4.18 wrong root", x, ROOT_ERR, Off::At(0, 1, 1))
        .section(ROOT)
        .rule("X4.18")
        .expects("<conversation_summary>"));
    let x = b"<summary><goal>&bogus;".to_vec();
    add(Case::new("X4.18 wrong root wins over later syntax", x, ROOT_ERR, Off::At(0, 1, 1))
        .section(ROOT)
        .rule("X4.18")
        .expects("<conversation_summary>"));
    let x = without(3);
    add(Case::new("X4.18 missing section", x.clone(), STRUCTURE, Off::At(find(&x, "<decisions>"), 3, 1))
        .section(CONSTRAINTS)
        .rule("X4.18")
        .expects("<constraints>"));
    let x = lines(&[(4, b"<state>done</state>"), (5, b"<decisions>none</decisions>")]);
    add(Case::new("X4.18 section out of order", x.clone(), STRUCTURE, Off::At(find(&x, "<state>"), 4, 1))
        .section(DECISIONS)
        .rule("X4.18")
        .expects("<decisions>"));
    let x = without(6);
    add(Case::new(
        "X4.18 open_items missing at the root's end tag",
        x.clone(),
        STRUCTURE,
        Off::At(find(&x, "</conversation_summary>"), 6, 1),
    )
    .section(OPEN_ITEMS)
    .rule("X4.18")
    .expects("<open_items>"));
    let x = line(3, b"<goal>again</goal>");
    add(Case::new("X4.18 repeated section", x.clone(), STRUCTURE, Off::At(rfind(&x, "<goal>"), 3, 1))
        .section(CONSTRAINTS)
        .rule("X4.18")
        .expects("<constraints>"));
    let x = line(6, b"<open_items/><goal>x</goal>");
    add(Case::new("X4.18 extra section after open_items", x.clone(), STRUCTURE, Off::At(rfind(&x, "<goal>"), 6, 14))
        .section(ROOT)
        .rule("X4.18")
        .expects("</conversation_summary>"));
    let x = line(4, b"<decisions>a <b>bold</b></decisions>");
    add(Case::new("X4.18 nested tag", x.clone(), STRUCTURE, Off::At(find(&x, "<b>"), 4, 14))
        .section(DECISIONS)
        .rule("X4.18"));
    // Text between sections: the character data token runs from right after `</goal>` (X4.5).
    let x = line(2, b"<goal>x</goal> note");
    add(Case::new("X4.18 text between sections", x.clone(), STRUCTURE, Off::At(find(&x, " note"), 2, 15))
        .section(CONSTRAINTS)
        .rule("X4.18")
        .expects("<constraints>"));
    let x = line(6, b"<open_items/>tail");
    add(Case::new("X4.18 text after open_items", x.clone(), STRUCTURE, Off::At(find(&x, "tail"), 6, 14))
        .section(ROOT)
        .rule("X4.18")
        .expects("</conversation_summary>"));
    let x = [base(), b"\n".to_vec()].concat();
    add(Case::new("X4.18 newline after the root", x.clone(), STRUCTURE, Off::At(x.len() - 1, 7, 24))
        .section(NONE)
        .rule("X4.18"));
    let x = [base(), b"<goal>".to_vec()].concat();
    add(Case::new("X4.18 start tag after the root", x.clone(), STRUCTURE, Off::At(base().len(), 7, 24))
        .section(NONE)
        .rule("X4.18"));
    let x = line(5, b"<state>done<!-- c --></state>");
    add(Case::new("X4.18 comment in state", x.clone(), STRUCTURE, Off::At(find(&x, "<!--"), 5, 12))
        .section(STATE)
        .rule("X4.18"));
    let x = line(2, b"<goal>x<?pi y?></goal>");
    add(Case::new("X4.18 processing instruction in goal", x.clone(), STRUCTURE, Off::At(find(&x, "<?pi"), 2, 8))
        .section(GOAL)
        .rule("X4.18"));
    let x = [b"<!DOCTYPE conversation_summary>".as_slice(), &base()].concat();
    add(Case::new("X4.18 DOCTYPE before the root", x, STRUCTURE, Off::At(0, 1, 1)).section(NONE).rule("X4.18"));
    let x = [b"<?xml version=\"1.0\"?>".as_slice(), &base()].concat();
    add(Case::new("X4.18 XML declaration before the root", x, STRUCTURE, Off::At(0, 1, 1)).section(NONE).rule("X4.18"));
    // Text before the root: the root was expected there (as a section is for a missing section).
    let x = [b" \n".as_slice(), &base()].concat();
    add(Case::new("X4.18 whitespace before the root", x, STRUCTURE, Off::At(0, 1, 1))
        .section(ROOT)
        .rule("X4.18")
        .expects("<conversation_summary>"));
    let x = [b"\xEF\xBB\xBF".as_slice(), &base()].concat();
    add(Case::new("X4.18 BOM before the root", x, STRUCTURE, Off::At(0, 1, 1))
        .section(ROOT)
        .rule("X4.18")
        .expects("<conversation_summary>"));
    let x = line(1, b"<conversation_summary id=\"1\">");
    add(Case::new("X4.18 root with an attribute", x, STRUCTURE, Off::At(0, 1, 1))
        .any_section()
        .rule("X4.18")
        .expected(Text::Any));

    // X4.20: the end of the input.
    let x = line(2, b"<goal> &#x20;\t</goal>");
    add(Case::new("X4.20 blank goal", x.clone(), CONTENT, Off::At(find(&x, "<goal>"), 2, 1))
        .section(GOAL)
        .rule("X4.20")
        .expects("non-blank text"));
    let x = line(2, b"<goal/>");
    add(Case::new("X4.20 self-closed goal", x.clone(), CONTENT, Off::At(find(&x, "<goal/>"), 2, 1))
        .section(GOAL)
        .rule("X4.20")
        .expects("non-blank text"));
    let x = line(5, b"<state>&#xA0;</state>");
    add(Case::new("X4.20 blank state", x.clone(), CONTENT, Off::At(find(&x, "<state>"), 5, 1))
        .section(STATE)
        .rule("X4.20")
        .expects("non-blank text"));
    let x = line(5, b"<state >\n</state>");
    add(Case::new("X4.20 blank state over two lines", x.clone(), CONTENT, Off::At(find(&x, "<state >"), 5, 1))
        .section(STATE)
        .rule("X4.20")
        .expects("non-blank text"));
    // X4.19: illegal text outside the root is xml_syntax, outside any section.
    let x = [base(), b"\0".to_vec()].concat();
    add(Case::new("X4.8 NUL after the root", x.clone(), SYNTAX, Off::At(base().len(), 7, 24))
        .section(NONE)
        .rule("X4.8"));
    let x = [b"\x01".as_slice(), &base()].concat();
    add(Case::new("X4.8 control character before the root", x, SYNTAX, Off::At(0, 1, 1)).section(NONE).rule("X4.8"));
    // A 4-byte character is one column.
    let x = line(2, "<goal>\u{1F642}&x;</goal>".as_bytes());
    add(Case::new("X4.6 after a 4-byte character", x.clone(), SYNTAX, Off::At(find(&x, "&x;"), 2, 8))
        .section(GOAL)
        .rule("X4.6"));
    // C13.2: lines end at LF only; a CR is a character of the line.
    let x = b"<conversation_summary>\r<goal>x</goal>\r<decisions/>".to_vec();
    add(Case::new("X4.18 lines end at LF only", x.clone(), STRUCTURE, Off::At(find(&x, "<decisions/>"), 1, 39))
        .section(CONSTRAINTS)
        .rule("X4.18")
        .expects("<constraints>"));
    // X4.8 in an attribute value (X4.11: the decoded value must satisfy X4.8), after a space.
    let x = line(2, b"<goal a=\" \xff\">x</goal>");
    add(Case::new("X4.8 invalid UTF-8 in an attribute value", x.clone(), SYNTAX, Off::At(find(&x, b"\xff"), 2, 11))
        .section(ROOT)
        .rule("X4.8"));
    add(Case::new("X4.20 empty document", Vec::new(), ROOT_ERR, Off::At(0, 1, 1))
        .section(ROOT)
        .rule("X4.20")
        .expects("<conversation_summary>"));
    cases
}

fn call(case: &Case) -> (i32, testkit::diagnostic::Diag) {
    kit::summary_xml_diagnose(&case.text)
}

#[test]
fn summary_rules_table() {
    let cases = cases();
    assert!(cases.len() >= 40, "the table must cover at least 40 cases, has {}", cases.len());
    run(&cases, call);
}
