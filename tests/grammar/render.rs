//! G17.8, G17.9: the renderer.

use proptest::prelude::*;

use super::support::*;
use testkit::abi::summary_xml;
use testkit::diagnostic::summary_section_text;

const SECTIONS: [i32; 5] = [
    ffi::LC_SECTION_GOAL,
    ffi::LC_SECTION_CONSTRAINTS,
    ffi::LC_SECTION_DECISIONS,
    ffi::LC_SECTION_STATE,
    ffi::LC_SECTION_OPEN_ITEMS,
];

/// Characters a section may hold, weighted towards what needs care: the escapes, CR and CR LF,
/// `]]>`, White_Space of every kind, controls XML allows (DEL, C1), the Char boundaries and
/// astral characters.
fn section_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => proptest::char::range('a', 'z'),
        4 => prop::sample::select(vec!['&', '<', '>', '\r', '\n', '\t', ' ', ']', '"', '\'', ';', '#']),
        2 => prop::sample::select(vec![
            '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{200a}', '\u{200b}', '\u{2028}', '\u{3000}', '\u{feff}',
            '\u{7f}', '\u{80}', '\u{9f}', '\u{d7ff}', '\u{e000}', '\u{fffd}', '\u{10000}', '\u{10ffff}', '\u{1f600}',
        ]),
        1 => any::<char>().prop_filter("a Char", |c| !matches!(*c as u32, 0..=8 | 0xB | 0xC | 0xE..=0x1F | 0xFFFE | 0xFFFF)),
    ]
}

fn section_text() -> impl Strategy<Value = String> {
    prop::collection::vec(section_char(), 0..40).prop_map(|v| v.into_iter().collect())
}

fn blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Every accepted input renders to a summary that validates, whose section texts (C13.8) are
    /// the inputs; a blank goal or state is refused with `xml_content`.
    #[test]
    fn rendered_summaries_validate_and_give_the_sections_back(
        goal in section_text(), constraints in section_text(), decisions in section_text(),
        state in section_text(), open_items in section_text(),
    ) {
        let inputs = [&goal, &constraints, &decisions, &state, &open_items];
        let result = render(inputs.map(|s| s.as_bytes()));
        // Rust's `char::is_whitespace` is the White_Space property of X4.21.
        if blank(&goal) || blank(&state) {
            prop_assert_eq!(result, Err(LC_SUMMARY_XML_CONTENT));
            return Ok(());
        }
        let xml = result.expect("renders");
        prop_assert_eq!(summary_xml(&xml), LC_OK, "{:?}", String::from_utf8_lossy(&xml));
        for (section, input) in SECTIONS.iter().zip(inputs) {
            prop_assert_eq!(&summary_section_text(&xml, *section).expect("section text"), input);
        }
    }
}

#[test]
fn empty_optional_sections_are_self_closed_and_escapes_are_the_predefined_ones() {
    let xml = render([b"a<b>&c]]>d\r\ne", b"", b"", b"s", b""]).unwrap();
    let expected = "<conversation_summary>\n<goal>a&lt;b&gt;&amp;c]]&gt;d&#13;\ne</goal>\n<constraints/>\n\
                    <decisions/>\n<state>s</state>\n<open_items/>\n</conversation_summary>";
    assert_eq!(String::from_utf8(xml).unwrap(), expected);
}

/// Rendered summaries of text without DEL, C1 controls or goal/state that start with white space
/// references lie inside the subset: the regex matches them (G17.8).
#[test]
fn rendered_summaries_are_inside_the_subset() {
    let re = regex();
    let mut rng = Seeded::new(17);
    let alphabet: Vec<char> = "abc XYZ 0123 &<>\"'\r\n\t]]; é中🚀\u{a0}\u{3000}".chars().collect();
    for _ in 0..3000 {
        let mut text = |nonblank: bool| {
            let mut s: String = (0..rng.below(30)).map(|_| alphabet[rng.below(alphabet.len())]).collect();
            if nonblank {
                s.push('x');
            }
            s
        };
        let sections = [text(true), text(false), text(false), text(true), text(false)];
        let xml = render(sections.each_ref().map(|s| s.as_bytes())).unwrap();
        let xml = String::from_utf8(xml).unwrap();
        assert!(re.is_match(&xml), "{xml:?}");
    }
}

#[test]
fn what_xml_cannot_carry_is_refused_at_the_first_section() {
    for bad in ["\u{0}", "\u{1}", "\u{8}", "\u{b}", "\u{c}", "\u{e}", "\u{1f}", "\u{fffe}", "\u{ffff}"] {
        for k in 0..5 {
            let mut sections: [&[u8]; 5] = [b"g", b"", b"", b"s", b""];
            let text = format!("ok{bad}");
            sections[k] = text.as_bytes();
            assert_eq!(render(sections), Err(LC_SUMMARY_XML_SYNTAX), "{bad:?} in section {k}");
        }
    }
    // Bytes that are not UTF-8: a stray continuation byte, an encoded surrogate, a truncation.
    for bad in [&b"\x80"[..], b"\xED\xA0\x80", b"\xE2\x82", b"\xC0\xAF"] {
        assert_eq!(render([bad, b"", b"", b"s", b""]), Err(LC_SUMMARY_XML_SYNTAX));
        assert_eq!(render([b"g", b"", b"", b"s", bad]), Err(LC_SUMMARY_XML_SYNTAX));
    }
    // The first refusal in section order: a NUL in constraints before a blank state.
    assert_eq!(render([b"g", b"\0", b"", b" ", b""]), Err(LC_SUMMARY_XML_SYNTAX));
    assert_eq!(render([b"g", b"", b"", b" ", b"\0"]), Err(LC_SUMMARY_XML_CONTENT));
    for blank in ["", " ", "\r\n", "\u{a0}\u{3000}\u{2028}", "\u{85}"] {
        assert_eq!(render([blank.as_bytes(), b"", b"", b"s", b""]), Err(LC_SUMMARY_XML_CONTENT), "{blank:?}");
        assert_eq!(render([b"g", b"", b"", blank.as_bytes(), b""]), Err(LC_SUMMARY_XML_CONTENT), "{blank:?}");
    }
    // Not White_Space, so not blank (X4.21).
    for not_blank in ["\u{200b}", "\u{feff}", "\u{180e}", "\u{1c}"] {
        let result = render([not_blank.as_bytes(), b"", b"", b"s", b""]);
        if not_blank == "\u{1c}" {
            assert_eq!(result, Err(LC_SUMMARY_XML_SYNTAX), "U+001C is not a Char");
        } else {
            assert!(result.is_ok(), "{not_blank:?}");
        }
    }
}

#[test]
fn the_safe_api_names_section_and_offset() {
    use loopcompact::Status;
    use loopcompact::summary::{Section, render as safe_render};
    let e = safe_render([b"g", b"ok", b"abc\0", b"s", b""]).unwrap_err();
    assert_eq!((e.status(), e.section(), e.offset()), (Status::SummaryXmlSyntax, Section::Decisions, 3));
    let e = safe_render([b"g", b"", b"", b"s", b"\xFF"]).unwrap_err();
    assert_eq!((e.status(), e.section(), e.offset()), (Status::SummaryXmlSyntax, Section::OpenItems, 0));
    let e = safe_render([b"g", b"", b"", b" \t", b""]).unwrap_err();
    assert_eq!((e.status(), e.section(), e.offset()), (Status::SummaryXmlContent, Section::State, 2));
    // No input bytes in the message (SPEC §1).
    assert!(!e.to_string().contains('\t'));
}

#[test]
fn boundary() {
    let mut len = 7usize;
    let g = b"g";
    // SAFETY: NULL with a non-zero length is refused before any read; other pointers are live.
    unsafe {
        let rc = ffi::lc_summary_render(
            std::ptr::null(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            std::ptr::null_mut(),
            0,
            &mut len,
        );
        assert_eq!(rc, LC_ERR_NULL_ARGUMENT);
        let rc = ffi::lc_summary_render(
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
        );
        assert_eq!(rc, LC_ERR_NULL_ARGUMENT);
        let rc = ffi::lc_summary_render(
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            std::ptr::null_mut(),
            5,
            &mut len,
        );
        assert_eq!(rc, LC_ERR_NULL_ARGUMENT);
        // Pointer checks before length checks (A3.1): the length is only compared.
        let rc = ffi::lc_summary_render(
            g.as_ptr(),
            usize::MAX,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            g.as_ptr(),
            1,
            std::ptr::null_mut(),
            0,
            &mut len,
        );
        assert_eq!(rc, LC_ERR_LENGTH_OVERFLOW);
        assert_eq!(len, 7, "*len untouched on failure");
    }
}
