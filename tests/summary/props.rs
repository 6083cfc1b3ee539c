//! Properties: never a panic, one of the four statuses or OK, deterministic, both APIs agree.

use proptest::prelude::*;

use super::support::*;

// (5) Properties: never a panic, one of the four statuses or OK, deterministic, both APIs agree

/// The outcome as a status code, checked against the contract of `validate`.
fn outcome(xml: &[u8]) -> i32 {
    let safe = validate(xml);
    let code = match &safe {
        Ok(()) => 0,
        Err(e) => {
            assert!(
                matches!(
                    e.status(),
                    Status::SummaryXmlSyntax
                        | Status::SummaryXmlRoot
                        | Status::SummaryXmlStructure
                        | Status::SummaryXmlContent
                ),
                "unexpected status {:?}",
                e.status()
            );
            assert!(e.offset().is_some_and(|o| o <= xml.len()), "offset {:?} beyond {}", e.offset(), xml.len());
            e.status().code()
        }
    };
    assert_eq!(validate(xml), safe, "not deterministic");
    // SAFETY: a live buffer of `xml.len()` bytes.
    assert_eq!(unsafe { lc_summary_xml_validate(xml.as_ptr(), xml.len()) }, code);
    code
}

const FRAGMENTS: &[&[u8]] = &[
    b"<",
    b">",
    b"&",
    b"]]>",
    b"<!--",
    b"-->",
    b"--",
    b"&#0;",
    b"&#x10FFFF;",
    b"&#xD800;",
    b"&amp;",
    b"&bogus;",
    b"<![CDATA[",
    b"<?xml version=\"2.0\"?>",
    b"<?pi?>",
    b"<!DOCTYPE x>",
    b"</goal>",
    b"<goal>",
    b"<state/>",
    b"<a:b:c/>",
    b"\"",
    b"'",
    b"=",
    b"/>",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xef\xbf\xbe",
    b"\xef\xbb\xbf",
    b" ",
    b"\n",
    b"\r",
    b"\xc2\xa0",
    b"\xe3\x80\x80",
    b"x",
];

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, u8),
    Delete(usize),
    Replace(usize, u8),
    Splice(usize, usize),
    Truncate(usize),
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Edit::Insert(at, b)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Edit::Replace(at, b)),
        (any::<usize>(), 0..FRAGMENTS.len()).prop_map(|(at, f)| Edit::Splice(at, f)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(xml: &mut Vec<u8>, edit: &Edit) {
    let pos = |at: usize, len: usize| if len == 0 { 0 } else { at % (len + 1) };
    match *edit {
        Edit::Insert(at, b) => {
            let at = pos(at, xml.len());
            xml.insert(at, b);
        }
        Edit::Delete(at) if !xml.is_empty() => {
            let at = at % xml.len();
            xml.remove(at);
        }
        Edit::Replace(at, b) if !xml.is_empty() => {
            let at = at % xml.len();
            xml[at] = b;
        }
        Edit::Splice(at, f) => {
            let at = pos(at, xml.len());
            xml.splice(at..at, FRAGMENTS[f].iter().copied());
        }
        Edit::Truncate(at) => {
            let at = pos(at, xml.len());
            xml.truncate(at);
        }
        _ => {}
    }
}

fn seeds() -> Vec<Vec<u8>> {
    vec![
        goal("ship &lt;safe&gt; é — &#x41;"),
        between("\n  "),
        b"<conversation_summary><goal>g</goal><constraints>c</constraints><decisions>d</decisions><state>s</state><open_items>o</open_items></conversation_summary>".to_vec(),
        corpus::summary(400),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(xml in proptest::collection::vec(any::<u8>(), 0..300)) {
        outcome(&xml);
    }

    #[test]
    fn random_markup_soup(parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..40)) {
        let xml: Vec<u8> = parts.iter().flat_map(|&f| FRAGMENTS[f].iter().copied()).collect();
        outcome(&xml);
    }

    #[test]
    fn mutated_summaries(seed in 0usize..4, edits in proptest::collection::vec(edit_strategy(), 1..6)) {
        let mut xml = seeds()[seed].clone();
        for edit in &edits {
            apply(&mut xml, edit);
        }
        outcome(&xml);
    }

    #[test]
    fn nothing_is_read_ahead(
        seed in 0usize..4,
        cut in any::<usize>(),
        token in 0..DECIDING_TOKENS.len(),
        tail in proptest::collection::vec(0..FRAGMENTS.len(), 0..8),
    ) {
        // X4.2: a token that is rejected decides the result, whatever comes after it. The head is
        // a valid summary cut just before one of its tags, so every token in it is accepted.
        let xml = &seeds()[seed];
        let cuts: Vec<usize> = xml.iter().enumerate().filter(|&(_, &b)| b == b'<').map(|(i, _)| i).collect();
        let head = &xml[..cuts[cut % cuts.len()]];
        let decided = cat(&[head, DECIDING_TOKENS[token]]);
        let expected = validate(&decided);
        prop_assert!(expected.is_err());
        let mut longer = decided.clone();
        for &f in &tail {
            longer.extend_from_slice(FRAGMENTS[f]);
        }
        if !longer.windows(9).any(|w| w == b"<![CDATA[") {
            prop_assert_eq!(validate(&longer), expected);
        }
    }
}

/// Tokens that are rejected wherever they appear after a valid prefix that ends before a tag.
const DECIDING_TOKENS: &[&[u8]] = &[
    b"<!---->",
    b"<?pi?>",
    b"<!x>",
    b"<x/>",
    b"<x>",
    b"</wrong>",
    b"<x a=\"1\"/>",
    b"<?xml version=\"2\"?>",
    b"<!-- -- -->",
    b"\x00",
    b"&bogus;",
    b"]]>",
    b"\xff",
    b"<1/>",
    b"<a:b:c>",
    b"<![x",
];

#[test]
fn valid_corpus_sizes() {
    for size in [0, 100, 300, 1000, 4096, 65536, 1 << 20] {
        let xml = corpus::summary(size);
        assert_eq!(verdict(&xml), "ok", "corpus of {size} bytes");
    }
}
