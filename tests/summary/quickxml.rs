//! Cross-check of the summary grammar against an independent XML reader (quick-xml): every summary
//! that `lc_summary_xml_validate` accepts must be well-formed to quick-xml, with exactly the root and
//! the five sections in order, and the same non-blank goal and state text once references are
//! resolved. (The converse does not hold: quick-xml accepts much that SPEC §4 rejects.)

use proptest::prelude::*;
use quick_xml::events::Event;

const SECTIONS: [&str; 5] = ["goal", "constraints", "decisions", "state", "open_items"];

/// Element names in document order and the decoded text of each section, per quick-xml.
fn read_with_quick_xml(xml: &[u8]) -> Result<(Vec<String>, Vec<String>), String> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    reader.config_mut().check_end_names = true;
    let mut names = Vec::new();
    let mut texts = vec![String::new(); SECTIONS.len()];
    let mut current: Option<usize> = None;
    loop {
        match reader.read_event().map_err(|e| e.to_string())? {
            Event::Start(e) | Event::Empty(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref().as_ref()).into_owned();
                current = SECTIONS.iter().position(|s| *s == name);
                names.push(name);
            }
            Event::End(_) => current = None,
            Event::Text(t) => {
                if let Some(i) = current {
                    texts[i].push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                if let Some(i) = current {
                    let c = match r.resolve_char_ref().map_err(|e| e.to_string())? {
                        Some(c) => c,
                        None => match &*String::from_utf8_lossy(r.as_ref().as_ref()) {
                            "lt" => '<',
                            "gt" => '>',
                            "amp" => '&',
                            "apos" => '\'',
                            "quot" => '"',
                            _ => return Err("unknown entity".into()),
                        },
                    };
                    texts[i].push(c);
                }
            }
            Event::Eof => return Ok((names, texts)),
            _ => {}
        }
    }
}

fn accepted(xml: &[u8]) -> bool {
    unsafe { loopcompact::ffi::lc_summary_xml_validate(xml.as_ptr(), xml.len()) == 0 }
}

fn check_agreement(xml: &[u8]) -> Result<(), TestCaseError> {
    if !accepted(xml) {
        return Ok(());
    }
    let (names, texts) = read_with_quick_xml(xml)
        .map_err(|e| TestCaseError::fail(format!("quick-xml rejects an accepted summary: {e}")))?;
    let mut expected = vec!["conversation_summary".to_owned()];
    expected.extend(SECTIONS.iter().map(|s| s.to_string()));
    prop_assert_eq!(names, expected);
    prop_assert!(!texts[0].trim().is_empty(), "accepted a blank goal");
    prop_assert!(!texts[3].trim().is_empty(), "accepted a blank state");
    Ok(())
}

/// Section text: any characters, escaped as a producer would, sometimes with character references.
fn section_text() -> impl Strategy<Value = String> {
    proptest::collection::vec((any::<char>(), 0u8..8), 0..24).prop_map(|chars| {
        let mut s = String::new();
        for (c, style) in chars {
            match (c, style) {
                ('<', _) => s.push_str("&lt;"),
                ('&', _) => s.push_str("&amp;"),
                ('>', 0) => s.push_str("&gt;"),
                (c, 1) => s.push_str(&format!("&#x{:X};", c as u32)),
                (c, 2) => s.push_str(&format!("&#{};", c as u32)),
                (c, _) => s.push(c),
            }
        }
        s
    })
}

fn summary() -> impl Strategy<Value = Vec<u8>> {
    (proptest::collection::vec((section_text(), any::<bool>()), 5), "[ \t\r\n]{0,3}").prop_map(|(sections, gap)| {
        let mut xml = String::from("<conversation_summary>");
        for (name, (text, self_close)) in SECTIONS.iter().zip(sections) {
            xml.push_str(&gap);
            if self_close && text.is_empty() {
                xml.push_str(&format!("<{name}/>"));
            } else {
                xml.push_str(&format!("<{name}>{text}</{name}>"));
            }
        }
        xml.push_str(&gap);
        xml.push_str("</conversation_summary>");
        xml.into_bytes()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn accepted_summaries_are_well_formed_to_quick_xml(xml in summary()) {
        check_agreement(&xml)?;
    }
}

#[test]
fn corpus_summaries_agree() {
    for size in [300, 4096, 65536] {
        let xml = testkit::corpus::summary::summary(size);
        assert!(accepted(&xml));
        check_agreement(&xml).unwrap();
    }
}
