//! The classifier (SPEC §4.2): X4.18–X4.21.

use super::support::*;

#[test]
fn x4_18_classifier() {
    check(&[
        // Start tags.
        (after("<conversation_summary/>"), "xml_structure"),
        (b"<conversation_summary><goal>x</goal><goal>x</goal></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><goal><goal>x</goal></goal></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>y</state><open_items/><extra/></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>y</state><open_items/><open_items/></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><conversation_summary/></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><state>y</state></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><goal>x</goal><decisions/></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><goal xmlns=\"\">x</goal></conversation_summary>".to_vec(), "xml_structure"),
        // The first start tag decides the root, whatever follows.
        (b"<summary><<<".to_vec(), "xml_root"),
        (b"<summary>\x00".to_vec(), "xml_root"),
        (b"<summary>]]>".to_vec(), "xml_root"),
        (b"<summary/><![CDATA[".to_vec(), "xml_structure"),
        (b"<x:summary a=\"1\">".to_vec(), "xml_root"),
        (b"<Conversation_Summary/>".to_vec(), "xml_root"),
        (b"<conversation_summary_/>".to_vec(), "xml_root"),
        (b"<conversation/>".to_vec(), "xml_root"),
        // Character data.
        (before("\n"), "xml_structure"),
        (before(" "), "xml_structure"),
        (before("\u{A0}"), "xml_structure"),
        (before("&#x20;"), "xml_structure"),
        (after("\n"), "xml_structure"),
        (after("&#x20;"), "xml_structure"),
        (after("x"), "xml_structure"),
        (between(" \n\t\r"), "ok"),
        (between("&#x20;&#xA;&#9;&#xD;"), "ok"),
        (between("\u{A0}\u{3000}\u{2028}\u{85}"), "ok"),
        (between("&#xA0;&#x3000;"), "ok"),
        (between("x"), "xml_structure"),
        (between("&amp;"), "xml_structure"),
        (between("\u{200B}"), "xml_structure"),
        (between("\u{FEFF}"), "xml_structure"),
        (between("&#x200B;"), "xml_structure"),
        // Comments, processing instructions, directives: anywhere.
        (between("<!---->"), "xml_structure"),
        (between("<?pi?>"), "xml_structure"),
        (between("<!x>"), "xml_structure"),
    ]);
}

#[test]
fn x4_19_consequences() {
    check(&[
        (b"".to_vec(), "xml_root"),
        (b" ".to_vec(), "xml_structure"),
        (b"\n".to_vec(), "xml_structure"),
        (b"\r\n\t ".to_vec(), "xml_structure"),
        ("\u{FEFF}".into(), "xml_structure"),
        (b"prose".to_vec(), "xml_structure"),
        ("\u{FEFF}<summary/>".into(), "xml_structure"),
        (b"\n<summary/>".to_vec(), "xml_structure"),
        (b"prose <summary/>".to_vec(), "xml_structure"),
        (b"\x00<summary/>".to_vec(), "xml_syntax"),
        (b"\xff<summary/>".to_vec(), "xml_syntax"),
        (b"&bogus;<summary/>".to_vec(), "xml_syntax"),
        (b"<summary></x>".to_vec(), "xml_root"),
        (b"<summary".to_vec(), "xml_syntax"),
        (b"<conversation_summary/>".to_vec(), "xml_structure"),
        (b"<conversation_summary><goal/><constraints/><decisions/><state>y</state><open_items/></conversation_summary>".to_vec(), "xml_content"),
        (b"<conversation_summary><goal> </goal><constraints/><decisions/><state>y</state></conversation_summary>".to_vec(), "xml_structure"),
        (b"<conversation_summary><goal> </goal><constraints/><decisions/><state>y</state><open_items/>".to_vec(), "xml_syntax"),
        (goal("<ul><li>a</li></ul>"), "xml_structure"),
        (goal("<br/>"), "xml_structure"),
        (after("trailing"), "xml_structure"),
        (after("\0"), "xml_syntax"),
        (after(b"\x80"), "xml_syntax"),
        (after("&foo;"), "xml_syntax"),
        (after("&amp;"), "xml_structure"),
    ]);
}

#[test]
fn x4_20_end_of_input() {
    let doc = |goal: &str, state: &str| {
        format!(
            "<conversation_summary><goal>{goal}</goal><constraints/><decisions/><state>{state}</state><open_items/></conversation_summary>"
        )
    };
    check(&[
        (doc("x", "y"), "ok"),
        (doc("", "y"), "xml_content"),
        (doc("x", ""), "xml_content"),
        (doc(" ", " "), "xml_content"),
        ("<conversation_summary><goal>x</goal><constraints/><decisions/><state/><open_items/></conversation_summary>".into(), "xml_content"),
        ("<conversation_summary><goal>x</goal><constraints></constraints><decisions> </decisions><state>y</state><open_items>\n</open_items></conversation_summary>".into(), "ok"),
        ("<conversation_summary><goal>x</goal><constraints>c</constraints><decisions>d</decisions><state>y</state><open_items>o</open_items></conversation_summary>".into(), "ok"),
        (doc("0", "-"), "ok"),
        (doc("&#x41;", "&amp;"), "ok"),
    ]);
}

#[test]
fn x4_21_blank() {
    let white = [
        0x09u32, 0x0A, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
        0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
    ];
    let not_white = [0x200Bu32, 0xFEFF, 0x180E, 0x2060, 0x200C, 0x200D, 0x7F, 0x80, 0x1FFF, 0x3001, 0xFFFD];
    let mut cases: Vec<(Vec<u8>, &str)> = Vec::new();
    for cp in white {
        let c = char::from_u32(cp).unwrap();
        cases.push((goal(format!("{c}")), "xml_content"));
        cases.push((goal(format!("&#x{cp:X};")), "xml_content"));
        cases.push((goal(format!("&#{cp};")), "xml_content"));
        cases.push((state(format!("{c}&#x{cp:x};{c}")), "xml_content"));
        cases.push((goal(format!("{c}x{c}")), "ok"));
        cases.push((between(format!("{c}")), "ok"));
    }
    for cp in not_white {
        let c = char::from_u32(cp).unwrap();
        cases.push((goal(format!("{c}")), "ok"));
        cases.push((goal(format!("&#x{cp:X};")), "ok"));
        cases.push((state(format!(" {c} ")), "ok"));
        cases.push((between(format!("{c}")), "xml_structure"));
    }
    // U+000B, U+000C and U+001C–U+001F are not Chars: never blank, never accepted.
    for cp in [0x0Bu32, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F] {
        cases.push((goal(format!("&#x{cp:X};")), "xml_syntax"));
    }
    // A mixture, long enough to cross blocks.
    cases.push((goal(" \t\n\r\u{A0}\u{3000}&#x20;&#xA0;\u{2028}".repeat(10)), "xml_content"));
    cases.push((goal(format!("{}x", " \t\n\r\u{A0}\u{3000}&#x20;".repeat(10))), "ok"));
    cases.push((goal("&lt;"), "ok"));
    cases.push((goal("&quot;"), "ok"));
    check(&cases);
}
