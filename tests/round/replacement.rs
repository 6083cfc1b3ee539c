//! The replacement (R15.9, R15.10) and its check (R15.11), on hand-written transcripts whose
//! expected replacements are written out here from the rules.

use testkit::diagnostic::Diag;
use testkit::status::*;

use super::support::*;

/// A summary whose canonical string (E7.6) is written by hand below.
const S: &str = "<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";
const S_JSON: &str = r#""\u003cconversation_summary\u003e\u003cgoal\u003eg\u003c/goal\u003e\u003cconstraints/\u003e\u003cdecisions/\u003e\u003cstate\u003es\u003c/state\u003e\u003copen_items/\u003e\u003c/conversation_summary\u003e""#;

/// 0 system, 1 user, 2 assistant calls c1 (signed thinking), 3 tool c1, 4 assistant (keys in
/// another order, whitespace), 5 user, 6 assistant.
fn messages() -> Vec<String> {
    vec![
        system("rules"),
        user("hello"),
        calls("c1", "sig-1"),
        tool("c1"),
        r#"{ "usage" : null, "blocks":[{"text":"done","type":"text"}], "role":"assistant" }"#.to_owned(),
        user("next"),
        assistant("ok"),
    ]
}

const SYSTEM: &str = r#"{"role":"system","blocks":[{"type":"text","text":"rules"}]}"#;
const CALLS: &str = r#"{"role":"assistant","blocks":[{"type":"thinking","thinking":"plan","signature":"sig-1"},{"type":"tool_use","id":"c1","name":"grep","input":{"q":"x"}}],"usage":{"input_tokens":5,"output_tokens":7,"cache_read_tokens":0,"cache_creation_tokens":0,"reasoning_tokens":0}}"#;
const TOOL: &str = r#"{"role":"tool","blocks":[{"type":"text","text":"found"}],"tool_use_id":"c1","is_error":false}"#;
const DONE: &str = r#"{"role":"assistant","blocks":[{"type":"text","text":"done"}],"usage":null}"#;
const NEXT: &str = r#"{"role":"user","blocks":[{"type":"text","text":"next"}]}"#;
const OK: &str = r#"{"role":"assistant","blocks":[{"type":"text","text":"ok"}],"usage":null}"#;

fn summary_message() -> String {
    format!(r#"{{"role":"user","blocks":[{{"type":"text","text":{S_JSON}}}]}}"#)
}

fn array(items: &[&str]) -> Vec<u8> {
    format!("[{}]", items.join(",")).into_bytes()
}

#[test]
fn the_replacement_is_the_prefix_the_summary_and_the_tail() {
    let handle = input(&messages());
    let summary = summary_message();
    // A tail that starts with an assistant message: the summary is a message of its own.
    assert_eq!(handle.build(4, S.as_bytes()), Ok(array(&[SYSTEM, &summary, DONE, NEXT, OK])));
    assert_eq!(handle.build(2, S.as_bytes()), Ok(array(&[SYSTEM, &summary, CALLS, TOOL, DONE, NEXT, OK])));
    // A tail that starts with a user message: its blocks follow the summary's in one message.
    let merged =
        format!(r#"{{"role":"user","blocks":[{{"type":"text","text":{S_JSON}}},{{"type":"text","text":"next"}}]}}"#);
    assert_eq!(handle.build(5, S.as_bytes()), Ok(array(&[SYSTEM, &merged, OK])));
    // No tail: the summary ends the transcript.
    assert_eq!(handle.build(7, S.as_bytes()), Ok(array(&[SYSTEM, &summary])));
    // No leading system message.
    let plain = input(&messages()[1..]);
    assert_eq!(plain.build(3, S.as_bytes()), Ok(array(&[&summary, DONE, NEXT, OK])));
}

#[test]
fn a_build_refuses_in_the_order_of_its_rule() {
    let handle = input(&messages());
    let bad = b"<summary/>";
    assert_eq!(handle.build(8, bad), Err(LC_ERR_INVALID_ARGUMENT));
    assert_eq!(handle.build(u64::MAX, S.as_bytes()), Err(LC_ERR_INVALID_ARGUMENT));
    assert_eq!(handle.build(0, bad), Err(LC_REPLACEMENT_EMPTY_HEAD));
    assert_eq!(handle.build(1, bad), Err(LC_REPLACEMENT_EMPTY_HEAD));
    assert_eq!(handle.build(3, bad), Err(LC_CUT_UNSAFE));
    assert_eq!(handle.build(3, S.as_bytes()), Err(LC_CUT_UNSAFE));
    assert_eq!(handle.build(4, bad), Err(LC_REPLACEMENT_SUMMARY));
    assert_eq!(handle.build(4, b""), Err(LC_REPLACEMENT_SUMMARY));
    // A transcript that fails the pairing check has no cut (S14.4).
    let pending = input(&[user("hi"), calls("c9", "s"), assistant("x")]);
    assert_eq!(pending.build(1, S.as_bytes()), Err(LC_PAIRING_UNANSWERED_CALL));
}

fn verify(cut: u64, rebuilt: &[u8]) -> (i32, Diag) {
    input(&messages()).verify(cut, rebuilt)
}

/// (status, location) of a check.
fn finding(cut: u64, rebuilt: &[u8]) -> (i32, String) {
    let (rc, d) = verify(cut, rebuilt);
    let rule = match rc {
        LC_OK | LC_ERR_INVALID_ARGUMENT => "",
        LC_CUT_UNSAFE | LC_REPLACEMENT_EMPTY_HEAD => "R15.10",
        500..=503 => "S14.3",
        LC_REPLACEMENT_WIRE => &d.rule[..3],
        _ => "R15.11",
    };
    assert!(rule == "J5." || rule == "T5." || d.rule == rule, "rule {} for {}", d.rule, name(rc));
    assert!(!d.location.contains("sig") && !d.location.contains("rules"), "no echo: {}", d.location);
    (rc, d.location)
}

#[test]
fn the_built_replacement_and_other_spellings_of_it_pass() {
    let handle = input(&messages());
    for cut in [2, 4, 5, 7] {
        let built = handle.build(cut, S.as_bytes()).unwrap();
        assert_eq!(finding(cut, &built), (LC_OK, String::new()), "cut {cut}");
    }
    // Whitespace, key order and another spelling of the same strings change nothing.
    let summary =
        format!(r#"{{ "blocks" : [ {{ "text" : "{}", "type":"text" }} ], "role":"user" }}"#, S.replace('<', r"\u003C"));
    let spelled = format!(
        "[ {SYSTEM} ,\n {summary}, {}, {TOOL}, {DONE}, {NEXT}, {OK} ]",
        CALLS.replace(r#""sig-1""#, r#""sig\u002d1""#)
    );
    assert_eq!(finding(2, spelled.as_bytes()), (LC_OK, String::new()));
}

#[test]
fn every_change_of_a_kept_message_is_found_where_it_is() {
    let summary = summary_message();
    let cases: Vec<(Vec<u8>, i32, &str)> = vec![
        // A signature changed by one byte.
        (
            array(&[SYSTEM, &summary, &CALLS.replace("sig-1", "sig-2"), TOOL, DONE, NEXT, OK]),
            LC_REPLACEMENT_TAIL_CHANGED,
            "transcript[2].blocks[0]",
        ),
        // The thinking block dropped, then the tool call dropped.
        (
            array(&[
                SYSTEM,
                &summary,
                &CALLS.replace(r#"{"type":"thinking","thinking":"plan","signature":"sig-1"},"#, ""),
                TOOL,
                DONE,
                NEXT,
                OK,
            ]),
            LC_REPLACEMENT_TAIL_CHANGED,
            "transcript[2].blocks[0]",
        ),
        (
            array(&[
                SYSTEM,
                &summary,
                &CALLS.replace(r#",{"type":"tool_use","id":"c1","name":"grep","input":{"q":"x"}}"#, ""),
                TOOL,
                DONE,
                NEXT,
                OK,
            ]),
            LC_REPLACEMENT_TAIL_CHANGED,
            "transcript[2].blocks[1]",
        ),
        // The tool's input changed; the usage changed.
        (
            array(&[SYSTEM, &summary, &CALLS.replace(r#"{"q":"x"}"#, r#"{"q":"y"}"#), TOOL, DONE, NEXT, OK]),
            LC_REPLACEMENT_TAIL_CHANGED,
            "transcript[2].blocks[1]",
        ),
        (
            array(&[
                SYSTEM,
                &summary,
                &CALLS.replace(r#""output_tokens":7"#, r#""output_tokens":8"#),
                TOOL,
                DONE,
                NEXT,
                OK,
            ]),
            LC_REPLACEMENT_TAIL_CHANGED,
            "transcript[2]",
        ),
        // A kept message dropped, added at the end, missing at the end.
        (array(&[SYSTEM, &summary, CALLS, DONE, NEXT, OK]), LC_REPLACEMENT_TAIL_CHANGED, "transcript[3].role"),
        (array(&[SYSTEM, &summary, CALLS, TOOL, DONE, NEXT, OK, OK]), LC_REPLACEMENT_TAIL_CHANGED, "transcript[7]"),
        (array(&[SYSTEM, &summary, CALLS, TOOL, DONE, NEXT]), LC_REPLACEMENT_TAIL_CHANGED, "transcript[6]"),
        // The leading system message changed, or missing.
        (
            array(&[&SYSTEM.replace("rules", "rulez"), &summary, CALLS, TOOL, DONE, NEXT, OK]),
            LC_REPLACEMENT_PREFIX_CHANGED,
            "transcript[0].blocks[0]",
        ),
        (array(&[&summary, CALLS, TOOL, DONE, NEXT, OK]), LC_REPLACEMENT_PREFIX_CHANGED, "transcript[0].role"),
        // The summary message: missing, not a user message, not a text block, two blocks, invalid.
        (array(&[SYSTEM]), LC_REPLACEMENT_SUMMARY, "transcript[1]"),
        (
            array(&[SYSTEM, &summary.replace(r#""role":"user""#, r#""role":"system""#), CALLS, TOOL, DONE, NEXT, OK]),
            LC_REPLACEMENT_SUMMARY,
            "transcript[1].role",
        ),
        (
            array(&[SYSTEM, &summary.replace(r#""type":"text""#, r#""type":"refusal""#), CALLS, TOOL, DONE, NEXT, OK]),
            LC_REPLACEMENT_SUMMARY,
            "transcript[1].blocks[0]",
        ),
        (
            array(&[SYSTEM, &summary.replace("]}", r#",{"type":"text","text":"x"}]}"#), CALLS, TOOL, DONE, NEXT, OK]),
            LC_REPLACEMENT_SUMMARY,
            "transcript[1].blocks[1]",
        ),
        (
            array(&[
                SYSTEM,
                r#"{"role":"user","blocks":[{"type":"text","text":"<summary/>"}]}"#,
                CALLS,
                TOOL,
                DONE,
                NEXT,
                OK,
            ]),
            LC_REPLACEMENT_SUMMARY,
            "transcript[1].blocks[0].text",
        ),
        (
            array(&[SYSTEM, r#"{"role":"user","blocks":[]}"#, CALLS, TOOL, DONE, NEXT, OK]),
            LC_REPLACEMENT_SUMMARY,
            "transcript[1].blocks[0]",
        ),
        // Not a transcript.
        (
            br#"[{"role":"user","blocks":[{"type":"text","text":1}]}]"#.to_vec(),
            LC_REPLACEMENT_WIRE,
            "transcript[0].blocks[0].text",
        ),
        (b"[".to_vec(), LC_REPLACEMENT_WIRE, "transcript"),
        (b"".to_vec(), LC_REPLACEMENT_WIRE, "transcript"),
    ];
    for (rebuilt, status, location) in cases {
        assert_eq!(finding(2, &rebuilt), (status, location.to_owned()), "{}", String::from_utf8_lossy(&rebuilt));
    }
}

#[test]
fn a_kept_user_message_must_be_merged_into_the_summary() {
    let summary = summary_message();
    let merged =
        format!(r#"{{"role":"user","blocks":[{{"type":"text","text":{S_JSON}}},{{"type":"text","text":"next"}}]}}"#);
    assert_eq!(finding(5, &array(&[SYSTEM, &merged, OK])), (LC_OK, String::new()));
    // Two user messages where the summary meets the tail.
    assert_eq!(
        finding(5, &array(&[SYSTEM, &summary, NEXT, OK])),
        (LC_REPLACEMENT_ADJACENT_USER, "transcript[2]".to_owned())
    );
    // The kept user message dropped: missing from the summary message.
    assert_eq!(
        finding(5, &array(&[SYSTEM, &summary, OK])),
        (LC_REPLACEMENT_TAIL_CHANGED, "transcript[1].blocks[1]".to_owned())
    );
    assert_eq!(
        finding(5, &array(&[SYSTEM, &summary])),
        (LC_REPLACEMENT_TAIL_CHANGED, "transcript[1].blocks[1]".to_owned())
    );
    // Merged, with its block changed.
    let changed = merged.replace(r#""next""#, r#""nxt""#);
    assert_eq!(
        finding(5, &array(&[SYSTEM, &changed, OK])),
        (LC_REPLACEMENT_TAIL_CHANGED, "transcript[1].blocks[1]".to_owned())
    );
    // A user message after the summary where the tail starts with an assistant message: the tail
    // changed at that message.
    assert_eq!(
        finding(4, &array(&[SYSTEM, &summary, NEXT, DONE, NEXT, OK])),
        (LC_REPLACEMENT_TAIL_CHANGED, "transcript[2].role".to_owned())
    );
    // A kept user message with no blocks merges into a lone summary block.
    let empty_user = input(&[user("a"), assistant("b"), r#"{"role":"user","blocks":[]}"#.to_owned()]);
    let built = empty_user.build(2, S.as_bytes()).unwrap();
    assert_eq!(built, array(&[&summary]));
    assert_eq!(empty_user.verify(2, &built).0, LC_OK);
}

#[test]
fn the_cut_is_checked_first() {
    let built = input(&messages()).build(4, S.as_bytes()).unwrap();
    assert_eq!(finding(3, &built).0, LC_CUT_UNSAFE);
    assert_eq!(finding(1, &built).0, LC_REPLACEMENT_EMPTY_HEAD);
    assert_eq!(finding(9, &built).0, LC_ERR_INVALID_ARGUMENT);
    let pending = input(&[user("hi"), calls("c9", "s"), assistant("x")]);
    let (rc, d) = pending.verify(1, b"[]");
    assert_eq!((rc, d.location.as_str()), (LC_PAIRING_UNANSWERED_CALL, "transcript[1].blocks[1]"));
}
