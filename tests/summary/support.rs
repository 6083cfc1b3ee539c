//! What the summary grammar's test modules share: the verdict through both APIs, a checker that
//! reports every failing case at once, and builders of summaries around one part.

pub use loopcompact::Status;
pub use loopcompact::ffi::lc_summary_xml_validate;
pub use loopcompact::summary::validate;
pub use testkit::corpus::summary as corpus;
pub use testkit::{status, vectors};

/// The verdict for `xml` in the vectors' terms (`"ok"` or the reason string), through the C ABI;
/// the safe API must agree.
pub fn verdict(xml: impl AsRef<[u8]>) -> String {
    let xml = xml.as_ref();
    let rc = testkit::abi::summary_xml(xml);
    let safe = match validate(xml) {
        Ok(()) => 0,
        Err(e) => e.status().code(),
    };
    assert_eq!(rc, safe, "C ABI and safe API disagree on {:?}", String::from_utf8_lossy(xml));
    status::verdict(rc)
}

/// Checks every case and reports all the failing ones at once.
pub fn check<X: AsRef<[u8]>>(cases: &[(X, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(xml, expect)| {
            let got = verdict(xml);
            (got != *expect)
                .then(|| format!("{:?}: expected {expect}, got {got}", String::from_utf8_lossy(xml.as_ref())))
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} cases fail:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

pub const BODY: &str = "<goal>x</goal><constraints/><decisions/><state>y</state><open_items/>";

/// A summary whose goal section holds `goal` (raw bytes); valid for any non-blank, legal goal.
pub fn goal(goal: impl AsRef<[u8]>) -> Vec<u8> {
    let mut xml = b"<conversation_summary><goal>".to_vec();
    xml.extend_from_slice(goal.as_ref());
    xml.extend_from_slice(b"</goal><constraints/><decisions/><state>y</state><open_items/></conversation_summary>");
    xml
}

/// A summary whose state section holds `state`.
pub fn state(state: impl AsRef<[u8]>) -> Vec<u8> {
    let mut xml = b"<conversation_summary><goal>x</goal><constraints/><decisions/><state>".to_vec();
    xml.extend_from_slice(state.as_ref());
    xml.extend_from_slice(b"</state><open_items/></conversation_summary>");
    xml
}

/// A summary whose root start tag is `<conversation_summary` + `rest_of_tag`.
pub fn root_tag(rest_of_tag: impl AsRef<[u8]>) -> Vec<u8> {
    let mut xml = b"<conversation_summary".to_vec();
    xml.extend_from_slice(rest_of_tag.as_ref());
    xml.extend_from_slice(BODY.as_bytes());
    xml.extend_from_slice(b"</conversation_summary>");
    xml
}

/// A summary with `text` between the root start tag and the goal, and between every two sections.
pub fn between(text: impl AsRef<[u8]>) -> Vec<u8> {
    let t = text.as_ref();
    let mut xml = b"<conversation_summary>".to_vec();
    for section in ["<goal>x</goal>", "<constraints/>", "<decisions/>", "<state>y</state>", "<open_items/>"] {
        xml.extend_from_slice(t);
        xml.extend_from_slice(section.as_bytes());
    }
    xml.extend_from_slice(t);
    xml.extend_from_slice(b"</conversation_summary>");
    xml
}

/// A valid summary followed by `tail`.
pub fn after(tail: impl AsRef<[u8]>) -> Vec<u8> {
    let mut xml = goal("x");
    xml.extend_from_slice(tail.as_ref());
    xml
}

/// `head` followed by a valid summary.
pub fn before(head: impl AsRef<[u8]>) -> Vec<u8> {
    let mut xml = head.as_ref().to_vec();
    xml.extend_from_slice(&goal("x"));
    xml
}

pub fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}
