//! C13.1 and A3.8: no diagnostic string (rule, expected, location) and no retry message carries a
//! byte of the input. Every input below fails and holds the marker `ZQXJ` where a careless
//! implementation would copy it out: keys, values, text, tag and attribute names, attribute values,
//! entity names, PI targets, DOCTYPE names, URLs, Hustle names.
//!
//! Three checks per input:
//! 1. no string contains the marker (in any letter case);
//! 2. no 4-byte window of a string that also occurs in the input is missing from the library's
//!    static texts (docs/SPEC.md, which names every layout key, tag and rule, the instructions,
//!    and the status names and messages), digits-only windows excepted (numbers are allowed);
//! 3. the same input with the marker replaced by `YPWM` (same length, same character class) gives
//!    the same diagnosis and the same retry message: nothing depends on those bytes.

use testkit::abi::Input;
use testkit::diagnostic::Diag;
use testkit::fuzz::config_around;
use testkit::spec::{EVENT_ID, FINGERPRINT_EXAMPLE, OBSERVATION, POLICY, REQUEST_FINGERPRINT};

use super::support::*;
use super::wire::{INPUT, SUMMARY, reply, reply_with};

const MARKER: &str = "ZQXJ";
const TWIN: &str = "YPWM";

/// The library's static texts a diagnosis may quote.
fn static_texts() -> String {
    let mut texts = std::fs::read_to_string(testkit::vectors::repo_dir().join("docs").join("SPEC.md")).unwrap();
    texts.push_str(kit::summary_instructions());
    for code in 0..1000 {
        texts.push_str(status::name(code));
        texts.push_str(status::message(code));
    }
    texts
}

/// Everything a host could show of one failed call: the diagnosis's strings and its retry message.
fn outputs(diag: &Diag) -> Vec<String> {
    let mut out: Vec<String> = diag.strings().iter().map(|s| s.to_string()).collect();
    out.push(diag.retry_message());
    out
}

/// The three checks on one failed call; `call` runs the diagnose function on an input.
fn check(what: &str, input: &[u8], statics: &str, call: &dyn Fn(&[u8]) -> (i32, Diag), failures: &mut Vec<String>) {
    assert!(input.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()), "{what}: no marker in the input");
    let (rc, diag) = call(input);
    if rc == 0 {
        failures.push(format!("{what}: the input must fail, got LC_OK"));
        return;
    }
    let shown = outputs(&diag);
    for text in &shown {
        if text.to_ascii_uppercase().contains(MARKER) {
            failures.push(format!("{what}: {text:?} contains the marker"));
        }
        for window in text.as_bytes().windows(4) {
            let echoed = input.windows(4).any(|w| w == window);
            let digits = window.iter().all(u8::is_ascii_digit);
            if echoed && !digits && !statics.as_bytes().windows(4).any(|w| w == window) {
                failures.push(format!(
                    "{what}: {:?} of {text:?} is input, not static text",
                    String::from_utf8_lossy(window)
                ));
                break;
            }
        }
    }
    let twin = String::from_utf8_lossy(input).replace(MARKER, TWIN);
    let twin = if std::str::from_utf8(input).is_ok() {
        twin.into_bytes()
    } else {
        // Invalid UTF-8 stays as is: replace the marker byte-wise.
        let mut bytes = input.to_vec();
        let n = MARKER.len();
        let mut i = 0;
        while i + n <= bytes.len() {
            if &bytes[i..i + n] == MARKER.as_bytes() {
                bytes[i..i + n].copy_from_slice(TWIN.as_bytes());
            }
            i += 1;
        }
        bytes
    };
    let (twin_rc, twin_diag) = call(&twin);
    if (twin_rc, outputs(&twin_diag), &twin_diag.rule_ptr) != (rc, shown, &diag.rule_ptr)
        || twin_diag.offset != diag.offset
    {
        failures.push(format!("{what}: the diagnosis changes with the marker's bytes"));
    }
}

fn summaries() -> Vec<(&'static str, Vec<u8>)> {
    let body = "<constraints/><decisions/><state>s</state><open_items/>";
    // A summary whose root start tag is `root` and whose content is `content`.
    let root = |root: &str, content: &str| format!("{root}{content}</conversation_summary>").into_bytes();
    let plain = |content: &str| root("<conversation_summary>", content);
    let doc = |goal: &str| plain(&format!("<goal>{goal}</goal>{body}"));
    vec![
        ("entity name", doc("a &ZQXJ; b")),
        ("text with a control character", doc("ZQXJ\u{1}")),
        ("text with invalid UTF-8", [doc("ZQXJ").as_slice(), b"\xff"].concat()),
        ("wrong root's name", b"<ZQXJ><goal>x</goal></ZQXJ>".to_vec()),
        ("root attribute", root("<conversation_summary ZQXJ=\"ZQXJ\">", &format!("<goal>x</goal>{body}"))),
        ("section attribute value", plain(&format!("<goal a=\"ZQXJ\">x</goal>{body}"))),
        ("unknown section", plain("<goal>x</goal><ZQXJ/>")),
        ("nested element", doc("<ZQXJ>x</ZQXJ>")),
        ("end tag name", b"<conversation_summary><goal>x</ZQXJ>".to_vec()),
        ("prefixed section", plain(&format!("<ZQXJ:goal>x</ZQXJ:goal>{body}"))),
        ("processing instruction", doc("x<?ZQXJ ZQXJ?>")),
        ("comment", doc("x<!-- ZQXJ -->")),
        ("DOCTYPE", [b"<!DOCTYPE ZQXJ [<!ENTITY ZQXJ \"x\">]>".as_slice(), &doc("&ZQXJ;")].concat()),
        ("CDATA", doc("<![CDATA[ZQXJ]]>")),
        ("text between sections", plain(&format!("<goal>x</goal>ZQXJ{body}"))),
        ("text after the root", [doc("x").as_slice(), b"ZQXJ"].concat()),
        (
            "blank goal beside marked text",
            plain("<goal> </goal><constraints>ZQXJ</constraints><decisions/><state>s</state><open_items/>"),
        ),
        ("bad version in a declaration", [b"<?xml version=\"ZQXJ\"?>".as_slice(), &doc("x")].concat()),
    ]
}

fn inputs() -> Vec<(&'static str, String)> {
    let e = |from: &str, to: &str| edit(INPUT, from, to);
    vec![
        ("unknown top-level key", e("\"version\": 1,", "\"version\": 1, \"ZQXJ\": 1,")),
        ("unknown key, escaped", e("\"version\": 1,", "\"version\": 1, \"ZQ\\u0058JZQXJ\": 1,")),
        ("unknown key in basis", e("{\"revision\": 7,", "{\"ZQXJ\": 7, \"revision\": 7,")),
        ("unknown key in a message", e("{\"role\": \"user\",", "{\"role\": \"user\", \"ZQXJ\": 1,")),
        ("unknown key in a block", e("\"text\": \"ok\"}", "\"text\": \"ok\", \"ZQXJ\": 1}")),
        ("unknown role", e("\"role\": \"user\"", "\"role\": \"ZQXJ\"")),
        ("unknown block type", e("\"type\": \"text\", \"text\": \"ok\"", "\"type\": \"ZQXJ\", \"text\": \"ok\"")),
        (
            "duplicate key in a tool input",
            e(
                "{\"type\": \"text\", \"text\": \"ok\"}",
                "{\"type\": \"tool_use\", \"id\": \"ZQXJ\", \"name\": \"ZQXJ\", \"input\": {\"ZQXJ\": 1, \"ZQXJ\": 2}}",
            ),
        ),
        (
            "bad base64",
            e(
                "{\"type\": \"text\", \"text\": \"ok\"}",
                "{\"type\": \"audio\", \"media_type\": \"ZQXJ\", \"data\": \"ZQXJ=\"}",
            ),
        ),
        ("unknown usage key", e("{\"role\": \"assistant\",", "{\"role\": \"assistant\", \"usage\": {\"ZQXJ\": 1},")),
        ("event id", e(EVENT_ID, "ZQXJ6679-7425-40de-944b-e07fc1f90ae7")),
        ("fingerprint", e(REQUEST_FINGERPRINT, "ZQXJ")),
        ("version a string", e("\"version\": 1", "\"version\": \"ZQXJ\"")),
        ("max_summary_tokens a string", e("\"max_summary_tokens\": 500", "\"max_summary_tokens\": \"ZQXJ\"")),
        (
            "empty provider beside a marked model",
            e("\"provider\": \"acme\", \"model\": \"m1\"", "\"provider\": \"\", \"model\": \"ZQXJ\""),
        ),
        ("marked text, then a bad key", e("\"text\": \"héllo\"}", "\"text\": \"ZQXJ\", \"ZQXJ\": 0}")),
    ]
}

fn replies() -> Vec<(&'static str, String)> {
    let s = json_string(SUMMARY);
    let with_summary = |summary: &str| reply(summary);
    vec![
        ("unknown key", reply(SUMMARY).replacen("\"summary\"", "\"ZQXJ\":1,\"summary\"", 1)),
        ("provider differs", reply_with("7", EVENT_ID, "ZQXJ", "m1", REQUEST_FINGERPRINT, &s)),
        ("model differs", reply_with("7", EVENT_ID, "acme", "ZQXJ", REQUEST_FINGERPRINT, &s)),
        ("event id not canonical", reply_with("7", "ZQXJ", "acme", "m1", REQUEST_FINGERPRINT, &s)),
        ("fingerprint not hex", reply_with("7", EVENT_ID, "acme", "m1", "ZQXJ", &s)),
        ("summary not a string", reply_with("7", EVENT_ID, "acme", "m1", REQUEST_FINGERPRINT, "{\"ZQXJ\":1}")),
        ("summary wrong root", with_summary("<ZQXJ/>")),
        ("summary entity", with_summary("<conversation_summary><goal>&ZQXJ;</goal></conversation_summary>")),
        (
            "summary section attribute",
            with_summary("<conversation_summary><goal ZQXJ=\"ZQXJ\">x</goal></conversation_summary>"),
        ),
        ("summary text after the root", with_summary(&format!("{SUMMARY}ZQXJ"))),
    ]
}

fn policies() -> Vec<(&'static str, String)> {
    let p = |from: &str, to: &str| edit(POLICY, from, to);
    vec![
        ("unknown key", p("{\"Automatic\"", "{\"ZQXJ\":1,\"Automatic\"")),
        ("reserved Hustle", p("context.compact", "_looprig.ZQXJ")),
        ("CompactAt a string", p("\"CompactAt\":8000", "\"CompactAt\":\"ZQXJ\"")),
        ("Hustle a number, marked key after", p("\"Hustle\":\"context.compact\"", "\"Hustle\":1,\"ZQXJ\":\"ZQXJ\"")),
    ]
}

fn configs() -> Vec<(&'static str, String)> {
    let config = String::from_utf8(config_around("Compaction", POLICY.as_bytes(), 2)).unwrap();
    let c = |from: &str, to: &str| edit(&config, from, to);
    vec![
        ("unknown top-level key", c("{\"Compaction\"", "{\"ZQXJ\":null,\"Compaction\"")),
        ("unknown key in the policy", c("{\"Automatic\"", "{\"ZQXJ\":1,\"Automatic\"")),
        ("reserved Hustle", c("context.compact", "_looprig.ZQXJ")),
        (
            "counter provider, incompatible",
            c("\"CounterCapability\":{\"Provider\":\"\"", "\"CounterCapability\":{\"Provider\":\"ZQXJ\""),
        ),
        ("unknown key in the counter", c("\"TokenizerRev\"", "\"ZQXJ\":1,\"TokenizerRev\"")),
    ]
}

fn fingerprints() -> Vec<(&'static str, String)> {
    let f = |from: &str, to: &str| edit(FINGERPRINT_EXAMPLE, from, to);
    let url = "http://localhost:1234";
    vec![
        ("BaseURL host", f(url, "http://ZQXJ.example")),
        ("BaseURL userinfo", f(url, "https://ZQXJ@ZQXJ.example")),
        ("BaseURL scheme", f(url, "ZQXJ://localhost")),
        ("BaseURL escape", f(url, "https://localhost/%ZQXJ")),
        ("ThinkingDialect", f("\"ThinkingDialect\":\"\"", "\"ThinkingDialect\":\"ZQXJ\"")),
        ("unknown key in Model", f("\"Name\":\"m\"", "\"Name\":\"m\",\"ZQXJ\":1")),
        (
            "empty Name beside a marked provider",
            f(
                "\"Provider\":\"lmstudio\",\"APIFormat\":\"openai\",\"BaseURL\":\"http://localhost:1234\",\"Name\":\"m\"",
                "\"Provider\":\"ZQXJ\",\"APIFormat\":\"ZQXJ\",\"BaseURL\":\"\",\"Name\":\"\"",
            ),
        ),
        ("Stop with null", f("\"Stop\":null", "\"Stop\":[\"ZQXJ\",null]")),
        ("event id", f("01000000-0000-0000-0000-000000000000", "ZQXJ0000-0000-0000-0000-000000000000")),
        (
            "empty SystemRevision beside marked revisions",
            f("\"system-v1\",\"ToolPolicyRevision\":\"tools-v1\"", "\"\",\"ToolPolicyRevision\":\"ZQXJ\""),
        ),
    ]
}

#[test]
fn no_diagnosis_echoes_the_input() {
    let statics = static_texts();
    let mut failures = Vec::new();
    let mut count = 0;
    for (what, x) in summaries() {
        check(&format!("summary: {what}"), &x, &statics, &|b| kit::summary_xml_diagnose(b), &mut failures);
        count += 1;
    }
    for (what, x) in inputs() {
        check(&format!("input: {what}"), x.as_bytes(), &statics, &|b| kit::input_diagnose(b), &mut failures);
        count += 1;
    }
    let handle = Input::parse(INPUT.as_bytes()).unwrap();
    for (what, x) in replies() {
        let call = |b: &[u8]| {
            let (result, diag) = handle.output_diagnose(b, 100, u64::MAX);
            (result.err().unwrap_or(0), diag)
        };
        check(&format!("reply: {what}"), x.as_bytes(), &statics, &call, &mut failures);
        count += 1;
    }
    for (what, x) in policies() {
        check(
            &format!("policy: {what}"),
            x.as_bytes(),
            &statics,
            &|b| kit::compaction_policy_diagnose(b, 2),
            &mut failures,
        );
        count += 1;
    }
    let observation = edit(OBSERVATION, "{\"ReservedOutput\"", "{\"ZQXJ\":1,\"ReservedOutput\"");
    check(
        "observation: unknown key",
        observation.as_bytes(),
        &statics,
        &|b| kit::context_observation_diagnose(b, 2),
        &mut failures,
    );
    for (what, x) in configs() {
        check(&format!("config: {what}"), x.as_bytes(), &statics, &|b| kit::context_config_diagnose(b), &mut failures);
        count += 1;
    }
    for (what, x) in fingerprints() {
        let call = |b: &[u8]| {
            let (result, diag) = kit::request_fingerprint_diagnose(b);
            (result.err().unwrap_or(0), diag)
        };
        check(&format!("fingerprint: {what}"), x.as_bytes(), &statics, &call, &mut failures);
        count += 1;
    }
    assert!(failures.is_empty(), "{} failures over {} inputs:\n{}", failures.len(), count + 1, failures.join("\n"));
}

/// The location names layout keys only: a deep path through unknown keys stops at the first one.
#[test]
fn unknown_keys_end_the_path() {
    let x = edit(
        INPUT,
        "{\"type\": \"text\", \"text\": \"ok\"}",
        concat!(
            "{\"type\": \"tool_use\", \"id\": \"t\", \"name\": \"n\", ",
            "\"input\": {\"ZQXJ\": {\"text\": [1, {\"a\": 1, \"a\": 2}]}}}"
        ),
    );
    let (rc, diag) = kit::input_diagnose(x.as_bytes());
    assert_eq!(rc, status::LC_INPUT_TRANSCRIPT, "J5.9: a repeated key inside a raw value is a transcript error");
    assert!(!diag.location.contains(MARKER), "{diag:?}");
    assert!(
        diag.location.starts_with("transcript[1].blocks[0].input") && !diag.location.contains("text"),
        "a path below an unknown key names nothing of it: {:?}",
        diag.location
    );
}

/// The checker itself catches an echo (so that a silently passing check is noticed): a diagnosis
/// forged with the marker in its location, and one that changes with the marker's bytes.
#[test]
fn the_checker_catches_an_echo() {
    let statics = static_texts();
    let x = b"<ZQXJ/>".to_vec();
    let forged = |b: &[u8]| {
        let (rc, mut diag) = kit::summary_xml_diagnose(b);
        diag.location = String::from_utf8_lossy(&b[1..5]).into_owned();
        (rc, diag)
    };
    let mut failures = Vec::new();
    check("forged", &x, &statics, &forged, &mut failures);
    assert!(failures.iter().any(|f| f.contains("contains the marker")), "{failures:?}");
    assert!(failures.iter().any(|f| f.contains("changes with the marker")), "{failures:?}");
}
