//! C13.7 `lc_summary_sections` and C13.8 `lc_summary_section_text` (both checked by the test
//! kit's wrappers: `out` untouched on failure, the two-call pattern). Spans were found in each
//! input with `find` of the start tag plus its length (C13.7: an empty or self-closing section is
//! length 0 at the position after its start tag, the self-closing tag being its start tag).

use loopcompact::ffi::{self, lc_span};

use super::support::*;

fn span(offset: usize, len: usize) -> lc_span {
    lc_span { offset, len }
}

/// The position after `tag` in `xml`.
fn after(xml: &str, tag: &str) -> usize {
    find(xml, tag) + tag.len()
}

#[test]
fn spans_of_every_form() {
    let xml = "<conversation_summary><goal>G &amp; H</goal><constraints></constraints><decisions> \n </decisions>\
               <state >S</state ><open_items/></conversation_summary>";
    let want = [
        span(after(xml, "<goal>"), "G &amp; H".len()),
        span(after(xml, "<constraints>"), 0),
        span(after(xml, "<decisions>"), 3),
        span(after(xml, "<state >"), 1),
        span(after(xml, "<open_items/>"), 0),
    ];
    assert_eq!(kit::summary_sections(xml.as_bytes()).unwrap(), want);

    let xml = "<conversation_summary>\n<goal>x</goal>\n<constraints/>\n<decisions />\n<state>y</state>\n<open_items\t/>\n\
        </conversation_summary>";
    let want = [
        span(after(xml, "<goal>"), 1),
        span(after(xml, "<constraints/>"), 0),
        span(after(xml, "<decisions />"), 0),
        span(after(xml, "<state>"), 1),
        span(after(xml, "<open_items\t/>"), 0),
    ];
    assert_eq!(kit::summary_sections(xml.as_bytes()).unwrap(), want);
}

#[test]
fn spans_hold_the_raw_text() {
    let xml = "<conversation_summary><goal>a&amp;b&#233;</goal><constraints>&lt;c&gt;</constraints><decisions/><state>s\r\nt\
        </state><open_items>o</open_items></conversation_summary>";
    let spans = kit::summary_sections(xml.as_bytes()).unwrap();
    let raw: Vec<&str> = spans.iter().map(|s| &xml[s.offset..s.offset + s.len]).collect();
    assert_eq!(raw, ["a&amp;b&#233;", "&lt;c&gt;", "", "s\r\nt", "o"]);
}

#[test]
fn section_text_as_go_delivers_it() {
    let goal = "a&amp;b&#233;c&#13;d\r\ne\rf&#x0D;g";
    let xml = format!(
        "<conversation_summary><goal>{goal}</goal><constraints></constraints><decisions> \r\n </decisions>\
         <state>&lt;&gt;&apos;&quot;\r</state><open_items/></conversation_summary>"
    );
    let text = |section| kit::summary_section_text(xml.as_bytes(), section).unwrap();
    // References resolved; `&#13;` and `&#x0D;` stay CR; raw CR LF and a lone raw CR become LF.
    assert_eq!(text(GOAL), "a&b\u{e9}c\rd\ne\nf\rg");
    assert_eq!(text(CONSTRAINTS), "", "an empty section: LC_OK with length 0");
    assert_eq!(text(DECISIONS), " \n ", "whitespace is kept");
    assert_eq!(text(STATE), "<>'\"\n");
    assert_eq!(text(OPEN_ITEMS), "", "a self-closing section: LC_OK with length 0");
}

#[test]
fn invalid_summaries_give_the_validation_status() {
    let cases: [(&[u8], i32); 5] = [
        (b"", status::LC_SUMMARY_XML_ROOT),
        (
            b"<conversation_summary><goal> </goal><constraints/><decisions/><state>s</state><open_items/>\
            </conversation_summary>",
            status::LC_SUMMARY_XML_CONTENT,
        ),
        (
            b"<conversation_summary><goal>x</goal><state>s</state></conversation_summary>",
            status::LC_SUMMARY_XML_STRUCTURE,
        ),
        (
            b"<conversation_summary><goal>&nbsp;</goal><constraints/><decisions/><state>s</state><open_items/>\
            </conversation_summary>",
            status::LC_SUMMARY_XML_SYNTAX,
        ),
        (
            b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>s</state><open_items/>\
            </conversation_summary>\n",
            status::LC_SUMMARY_XML_STRUCTURE,
        ),
    ];
    for (xml, want) in cases {
        // The wrappers check that `out` and `*out_len` are untouched.
        assert_eq!(kit::summary_sections(xml), Err(want), "{:?}", String::from_utf8_lossy(xml));
        for section in [GOAL, STATE, OPEN_ITEMS] {
            assert_eq!(kit::summary_section_text(xml, section), Err(want), "{:?}", String::from_utf8_lossy(xml));
        }
    }
}

#[test]
fn section_numbers_outside_the_five_are_invalid() {
    let xml = b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>s</state><open_items/>\
        </conversation_summary>";
    for section in [NONE, ROOT, 7, 99, -1, i32::MIN, i32::MAX] {
        assert_eq!(kit::summary_section_text(xml, section), Err(INVALID_ARGUMENT), "section {section}");
    }
    assert_eq!(kit::status_class(INVALID_ARGUMENT), CLASS_HOST);
}

#[test]
fn sections_boundary() {
    let xml = b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>s</state><open_items/>\
        </conversation_summary>";
    // SAFETY: `out` NULL is checked (C13.7); (NULL, 1) is checked before any read (A3.1).
    unsafe {
        assert_eq!(ffi::lc_summary_sections(xml.as_ptr(), xml.len(), std::ptr::null_mut()), 1);
        let mut out = [span(7, 7); 5];
        assert_eq!(ffi::lc_summary_sections(std::ptr::null(), 1, out.as_mut_ptr()), 1);
        assert_eq!(out, [span(7, 7); 5]);
        let mut len = usize::MAX;
        assert_eq!(
            ffi::lc_summary_section_text(xml.as_ptr(), xml.len(), GOAL, std::ptr::null_mut(), 0, std::ptr::null_mut()),
            1
        );
        assert_eq!(
            ffi::lc_summary_section_text(xml.as_ptr(), xml.len(), GOAL, std::ptr::null_mut(), 4, &raw mut len),
            1
        );
        assert_eq!(len, usize::MAX);
    }
}
