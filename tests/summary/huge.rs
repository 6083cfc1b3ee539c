//! Huge inputs: each answered quickly, with the status the rules give.

use super::support::*;

// (4) Huge inputs: each answered quickly, with the status the rules give

fn repeat(part: &str, n: usize) -> String {
    part.repeat(n)
}

#[test]
fn huge_nesting() {
    let n = 1_000_000;
    let xml = format!("<conversation_summary><goal>{}", repeat("<a>", n));
    assert_eq!(verdict(&xml), "xml_structure");
    let xml = format!("<conversation_summary>{}", repeat("<a>", n));
    assert_eq!(verdict(&xml), "xml_structure");
    let xml = format!("<conversation_summary><goal>x</goal>{}", repeat("</goal>", n));
    assert_eq!(verdict(&xml), "xml_syntax");
    let xml = repeat("<a>", n);
    assert_eq!(verdict(&xml), "xml_root");
    // Nested directives: one token, read to the end of the input.
    let xml = format!("<!x {}", repeat("<", n));
    assert_eq!(verdict(&xml), "xml_syntax");
    let xml = format!("<!x {}{}>", repeat("<", n), repeat(">", n));
    assert_eq!(verdict(&xml), "xml_structure");
}

#[test]
fn huge_text() {
    // 100 MB in release builds, 8 MB in debug builds (same code path, kept under the time budget).
    let size = if cfg!(debug_assertions) { 8 << 20 } else { 100 << 20 };
    let line = "the agent keeps context — café &amp; résumé tokens and limits\n";
    let text = line.repeat(size / line.len() + 1);
    assert!(text.len() >= size);
    assert_eq!(verdict(goal(&text)), "ok");
    // The same run with one bad byte at its very end.
    let mut bad = text.clone().into_bytes();
    bad.push(0x01);
    assert_eq!(verdict(goal(&bad)), "xml_syntax");
    // Blank, and outside the root.
    let blank = " \n".repeat(size / 2);
    assert_eq!(verdict(goal(&blank)), "xml_content");
    assert_eq!(verdict(between(&blank)), "ok");
    assert_eq!(verdict(before(&text)), "xml_structure");
    // Unterminated constructs that run to the end of the input.
    assert_eq!(verdict(format!("<!--{text}")), "xml_syntax");
    assert_eq!(verdict(format!("<?pi {text}")), "xml_syntax");
    assert_eq!(verdict(format!("<!DOCTYPE \"{text}")), "xml_syntax");
    assert_eq!(verdict(format!("<summary a=\"{}", text.replace('<', ""))), "xml_syntax");
}

#[test]
fn huge_attribute_counts() {
    let n = 100_000;
    let attrs = (0..n).map(|i| format!(" a{i}=\"{i}\"")).collect::<String>();
    assert_eq!(verdict(format!("<conversation_summary{attrs}>{BODY}</conversation_summary>")), "xml_structure");
    assert_eq!(verdict(format!("<conversation_summary><goal{attrs}>x</goal></conversation_summary>")), "xml_structure");
    assert_eq!(verdict(format!("<summary{attrs}/>")), "xml_root");
    // The whole tag is read first: a bad last attribute makes it syntax.
    assert_eq!(verdict(format!("<summary{attrs} bad>")), "xml_syntax");
    assert_eq!(verdict(format!("<conversation_summary{attrs} x=\"&#0;\">")), "xml_syntax");
    // Repeated names, no separators.
    let same = "a=\"1\"".repeat(n);
    assert_eq!(verdict(format!("<conversation_summary {same}>{BODY}</conversation_summary>")), "xml_structure");
}

#[test]
fn huge_token_counts() {
    let n = 1_000_000;
    assert_eq!(verdict(repeat("<!--x-->", n)), "xml_structure");
    assert_eq!(verdict(repeat("<?pi x?>", n)), "xml_structure");
    assert_eq!(verdict(repeat("<!x>", n)), "xml_structure");
    assert_eq!(verdict(goal(repeat("&amp;", n))), "ok");
    assert_eq!(verdict(goal(repeat("&#x1F600;", n))), "ok");
    assert_eq!(verdict(goal(repeat("é—", n))), "ok");
    assert_eq!(verdict(goal(repeat("]", n))), "ok");
    assert_eq!(verdict(goal(format!("{}>", repeat("]", n)))), "xml_syntax");
    assert_eq!(verdict(goal(repeat("-", n))), "ok");
    assert_eq!(verdict(format!("<!--{}", repeat("-x", n))), "xml_syntax");
    assert_eq!(verdict(format!("<?pi {}", repeat("?x", n))), "xml_syntax");
    assert_eq!(verdict(before(format!("<?xml {}?>", repeat("version=x ", n)))), "xml_structure");
    assert_eq!(verdict(format!("<{}/>", repeat("a", n))), "xml_root");
    assert_eq!(verdict(format!("<{}/>", repeat("é", n))), "xml_root");
    assert_eq!(verdict(format!("<{}/>", repeat("a:", n))), "xml_syntax");
    assert_eq!(verdict(goal(format!("&#{}65;", repeat("0", n)))), "ok");
    assert_eq!(verdict(goal(format!("&#{};", repeat("9", n)))), "xml_syntax");
    assert_eq!(verdict(repeat("<", n)), "xml_syntax");
    assert_eq!(verdict(repeat("&", n)), "xml_syntax");
    assert_eq!(verdict(repeat("<![CDATA[", n)), "xml_structure");
}
