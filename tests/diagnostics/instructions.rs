//! C13.6: `lc_summary_instructions()`: static, the exact structure with the five sections in
//! order, the rules a summary must follow, and one complete example (its last line, after the last
//! `Example:\n`) that `lc_summary_xml_validate` accepts.

use testkit::abi::summary_xml;

use super::support::*;

#[test]
fn the_example_is_a_valid_summary() {
    let text = kit::summary_instructions();
    let example = text.rsplit("Example:\n").next().unwrap();
    assert_ne!(example, text, "no \"Example:\\n\" in the instructions");
    assert!(!example.contains('\n'), "the example is the instructions' last line");
    assert_eq!(summary_xml(example.as_bytes()), 0, "the example fails lc_summary_xml_validate: {example:?}");
    let (rc, diag) = kit::summary_xml_diagnose(example.as_bytes());
    assert_eq!((rc, diag.status_class), (0, CLASS_OK));
    // It is a whole summary: every section there, in order, goal and state with text.
    let spans = kit::summary_sections(example.as_bytes()).unwrap();
    assert!(spans[0].len > 0 && spans[3].len > 0, "goal and state hold text: {spans:?}");
}

#[test]
fn the_five_sections_in_order() {
    let text = kit::summary_instructions();
    let at = |tag: String| text.find(&tag).unwrap_or_else(|| panic!("{tag} is not in the instructions"));
    let mut last = at("<conversation_summary>".to_owned());
    for name in SECTION_NAMES {
        let here = at(format!("<{name}>"));
        assert!(here > last, "<{name}> comes before the previous section in the instructions");
        last = here;
    }
    assert!(at("</conversation_summary>".to_owned()) > last, "the root's end tag comes last");
}

#[test]
fn the_rules_are_stated() {
    let text = kit::summary_instructions().to_ascii_lowercase();
    // C13.6: escaping; no attributes, comments, CDATA, processing instructions or DOCTYPE; past
    // tense and facts only; no tool calls.
    for must in [
        "&amp;",
        "&lt;",
        "&gt;",
        "attribute",
        "comment",
        "cdata",
        "processing instruction",
        "doctype",
        "past tense",
        "tool call",
    ] {
        assert!(text.contains(must), "the instructions do not mention {must:?}");
    }
}
