//! C13.3 and C13.5: the status classes through the diagnostics, and `lc_retry_message` (two-call
//! pattern, checked by the test kit's wrapper on every call): for a RETRY-class failure it says
//! where (line, column, section), what was expected, the rule and the rules it broke, with both
//! numbers of a byte or token limit; for any other class it says that no retry is useful; for
//! `LC_OK` that there is nothing to retry. Phrases are checked by the facts they must carry (the
//! numbers, names and ids), not by wording, except the two fixed verdicts of C13.5.

use std::ffi::CString;
use std::ptr;

use loopcompact::ffi::{self, lc_diagnostic};
use testkit::abi::Input;
use testkit::spec::{EVENT_ID, POLICY, REQUEST_FINGERPRINT};

use super::support::*;
use super::wire::{INPUT, SUMMARY, reply, reply_with};

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// C13.5: "For a status that is not LC_CLASS_RETRY it says that no retry is useful".
fn says_no_retry(message: &str) -> bool {
    lower(message).contains("no retry")
}

#[test]
fn retry_class_failures_say_where_and_what() {
    // xml_structure in decisions' place, line 3, column 1: section constraints expected.
    let xml =
        b"<conversation_summary>\n<goal>x</goal>\n<decisions/><state>y</state><open_items/></conversation_summary>";
    let (rc, diag) = kit::summary_xml_diagnose(xml);
    assert_eq!((rc, diag.status_class, diag.line, diag.column), (status::LC_SUMMARY_XML_STRUCTURE, CLASS_RETRY, 3, 1));
    let message = diag.retry_message();
    for fact in ["line 3", "column 1", "constraints", "<constraints>", "X4.18"] {
        assert!(message.contains(fact), "the retry message lacks {fact:?}: {message}");
    }
    assert!(!says_no_retry(&message), "{message}");
    // The restatement: the five sections in order.
    let mut last = 0;
    for name in SECTION_NAMES {
        let at = message[last..].find(name).map(|i| i + last);
        let at = at.unwrap_or_else(|| panic!("the retry message does not restate {name} in order: {message}"));
        last = at + name.len();
    }

    // xml_syntax inside state on line 2: what to escape.
    let xml = b"<conversation_summary><goal>x</goal><constraints/><decisions/>\n<state>a & b</state><open_items/>\
        </conversation_summary>";
    let (rc, diag) = kit::summary_xml_diagnose(xml);
    assert_eq!((rc, diag.section, diag.line, diag.column), (status::LC_SUMMARY_XML_SYNTAX, STATE, 2, 10));
    let message = diag.retry_message();
    for fact in ["line 2", "column 10", "state", "X4.6", "&amp;"] {
        assert!(message.contains(fact), "the retry message lacks {fact:?}: {message}");
    }

    // xml_content: goal and state must not be blank.
    let xml = b"<conversation_summary><goal>x</goal><constraints/><decisions/><state> </state><open_items/>\
        </conversation_summary>";
    let (rc, diag) = kit::summary_xml_diagnose(xml);
    assert_eq!(rc, status::LC_SUMMARY_XML_CONTENT);
    let message = diag.retry_message();
    for fact in ["line 1", "column 63", "state", "goal", "non-blank text", "X4.20"] {
        assert!(message.contains(fact), "the retry message lacks {fact:?}: {message}");
    }
}

#[test]
fn limits_carry_both_numbers() {
    let input = Input::parse(INPUT.as_bytes()).unwrap();
    let ok = reply(SUMMARY);
    let n = ok.len() as u64;
    // One byte short: a shorter summary fits, so the summariser can fix it.
    let (_, diag) = input.output_diagnose(ok.as_bytes(), 100, n - 1);
    assert_eq!(
        (diag.status, diag.status_class, diag.limits()),
        (status::LC_SUMMARY_BYTE_LIMIT, CLASS_RETRY, Some((n - 1, n)))
    );
    let message = diag.retry_message();
    assert!(
        message.contains(&(n - 1).to_string()) && message.contains(&n.to_string()),
        "byte limit and length: {message}"
    );
    assert!(!says_no_retry(&message), "{message}");
    // R15.2: 77 bytes cannot hold this identity and the smallest summary: the host's limit.
    let (_, diag) = input.output_diagnose(ok.as_bytes(), 100, 77);
    assert_eq!(
        (diag.status, diag.status_class, diag.limits()),
        (status::LC_SUMMARY_BYTE_LIMIT, CLASS_HOST, Some((77, n)))
    );
    let message = diag.retry_message();
    assert!(says_no_retry(&message) && message.contains("77"), "{message}");
    let (_, diag) = input.output_diagnose(ok.as_bytes(), 4321, u64::MAX);
    assert_eq!((diag.status, diag.limits()), (status::LC_SUMMARY_TOKEN_LIMIT, Some((500, 4321))));
    let message = diag.retry_message();
    assert!(message.contains("500") && message.contains("4321"), "token limit and usage: {message}");
}

#[test]
fn other_classes_say_no_retry_is_useful() {
    let input = Input::parse(INPUT.as_bytes()).unwrap();
    let s = json_string(SUMMARY);
    let discard = [
        input.output_diagnose(b"{", 100, u64::MAX).1,
        input
            .output_diagnose(reply_with("8", EVENT_ID, "acme", "m1", REQUEST_FINGERPRINT, &s).as_bytes(), 100, u64::MAX)
            .1,
        input.output_diagnose(reply(SUMMARY).as_bytes(), 0, u64::MAX).1,
    ];
    for diag in &discard {
        assert_eq!(diag.status_class, CLASS_DISCARD, "{diag:?}");
        let message = diag.retry_message();
        assert!(says_no_retry(&message), "{}: {message}", status::name(diag.status));
    }
    let host = [
        kit::input_diagnose(b"{}").1,
        kit::compaction_policy_diagnose(POLICY.replace("6000", "0").as_bytes(), 2).1,
        kit::context_config_diagnose(b"null").1,
        kit::request_fingerprint_diagnose(b"{}").1,
    ];
    for diag in &host {
        assert_eq!(diag.status_class, CLASS_HOST, "{diag:?}");
        let message = diag.retry_message();
        assert!(says_no_retry(&message), "{}: {message}", status::name(diag.status));
    }
    // LC_OK: nothing to retry.
    let (rc, diag) = kit::summary_xml_diagnose(SUMMARY.as_bytes());
    assert_eq!(rc, 0);
    let message = diag.retry_message();
    assert!(lower(&message).contains("nothing to retry"), "{message}");
}

/// C13.5: a `rule` not of the form of a rule id, or an `expected` that is not one of the
/// library's own strings, is left out; NULL strings are allowed.
#[test]
fn foreign_strings_are_left_out() {
    let (_, diag) =
        kit::summary_xml_diagnose(b"<conversation_summary><goal>x</goal><decisions/></conversation_summary>");
    let mut raw = diag.raw();
    let rule = CString::new("ZQXJ rule").unwrap();
    let expected = CString::new("ZQXJ <constraints>").unwrap();
    raw.rule = rule.as_ptr();
    raw.expected = expected.as_ptr();
    let message = kit::retry_message(&raw);
    assert!(!message.contains("ZQXJ"), "{message}");
    // The library's own strings at other addresses are still shown.
    let rule = CString::new("X4.18").unwrap();
    let expected = CString::new("<constraints>").unwrap();
    raw.rule = rule.as_ptr();
    raw.expected = expected.as_ptr();
    let message = kit::retry_message(&raw);
    assert!(message.contains("X4.18") && message.contains("<constraints>"), "{message}");
    raw.rule = ptr::null();
    raw.expected = ptr::null();
    let message = kit::retry_message(&raw);
    assert!(!message.is_empty() && !says_no_retry(&message), "{message}");
}

/// The boundary of `lc_retry_message` (§1, A3.2): `diag` and `out_len` required, `buf` NULL only
/// with capacity 0.
#[test]
fn retry_message_boundary() {
    let (_, diag) = kit::summary_xml_diagnose(b"");
    let raw: lc_diagnostic = diag.raw();
    let mut len = usize::MAX;
    let mut buf = [0u8; 8];
    // SAFETY (each): NULL pointers where the contract says they are checked.
    unsafe {
        assert_eq!(ffi::lc_retry_message(ptr::null(), buf.as_mut_ptr(), buf.len(), &raw mut len), 1);
        assert_eq!(ffi::lc_retry_message(&raw const raw, buf.as_mut_ptr(), buf.len(), ptr::null_mut()), 1);
        assert_eq!(ffi::lc_retry_message(&raw const raw, ptr::null_mut(), 8, &raw mut len), 1);
    }
    assert_eq!(len, usize::MAX, "out_len written on a boundary error");
}

/// C13.3: a value not in the status table is LC_CLASS_HOST; a diagnostic holding one (a host that
/// fills the struct itself) gets the no-retry message, which must not name another status.
#[test]
fn unknown_status_is_not_reported_as_panic() {
    let (_, diag) = kit::summary_xml_diagnose(b"");
    let mut raw = diag.raw();
    raw.status = 12345;
    let message = kit::retry_message(&raw);
    assert!(says_no_retry(&message), "{message}");
    assert!(!message.contains("LC_ERR_PANIC") && !message.contains("(99)"), "C13.3 says HOST, not a bug: {message}");
}

/// C13.3 through the diagnostics: the class of what each function returns, and of the added 4.
#[test]
fn classes() {
    for code in [0, 1, 2, 3, 4, 99, 100, 110, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 250, 300, 340, 400] {
        assert_eq!(kit::status_class(code), spec_class(code), "class of {code}");
    }
    assert_eq!(kit::status_class(INVALID_ARGUMENT), CLASS_HOST, "C13.9");
    assert_eq!(kit::status_class(12345), CLASS_HOST, "C13.3: an unknown value is HOST");
}
