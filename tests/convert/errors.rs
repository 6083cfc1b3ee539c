//! Refusals with their locations (never a byte of the source), the strict flag, the boundary, and
//! the hand-written cases of the loss codes no SDK builds.

use loopcompact::ffi;
use testkit::convert::{convert, loss_name};
use testkit::status::*;

const CHAT: i32 = ffi::LC_FORMAT_OPENAI_CHAT;
const ANTHROPIC: i32 = ffi::LC_FORMAT_ANTHROPIC;
const RESPONSES: i32 = ffi::LC_FORMAT_OPENAI_RESPONSES;
const GEMINI: i32 = ffi::LC_FORMAT_GEMINI;
const AI_SDK: i32 = ffi::LC_FORMAT_AI_SDK;

/// (status, location, rule, expected) of a refused conversion.
fn refused(format: i32, src: &str, flags: u32) -> (i32, String, String, String) {
    match convert(format, src.as_bytes(), flags) {
        Ok(_) => panic!("converted: {src}"),
        Err((rc, d)) => {
            assert!(!d.location.contains("SECRET") && !d.expected.contains("SECRET"), "an echo: {d:?}");
            (rc, d.location, d.rule, d.expected)
        }
    }
}

#[test]
fn malformed_json_is_convert_wire() {
    let (rc, _, rule, _) = refused(CHAT, r#"[{"role":"user","content":"SECRET"}"#, 0);
    assert_eq!((rc, rule.as_str()), (LC_CONVERT_WIRE, "J5.1"));
    let bad_utf8 = [br#"[{"role":"user","content":"SECRET "#.as_slice(), b"\xff", br#""}]"#].concat();
    let (rc, d) = convert(CHAT, &bad_utf8, 0).err().unwrap();
    assert_eq!((rc, d.rule.as_str(), d.offset()), (LC_CONVERT_WIRE, "J5.3", Some(34)));
    let (rc, ..) = refused(ANTHROPIC, r#"{"messages":[]} {}"#, 0);
    assert_eq!(rc, LC_CONVERT_WIRE);
    let (rc, ..) = refused(CHAT, "", 0);
    assert_eq!(rc, LC_CONVERT_WIRE);
}

#[test]
fn a_wrong_shape_is_located_by_the_formats_names() {
    let cases: &[(i32, &str, &str)] = &[
        (CHAT, r#"{"SECRET":1}"#, ""),
        (CHAT, r#"[{"role":"SECRET","content":"a"}]"#, "messages[0].role"),
        (CHAT, r#"[{"role":"user","content":"a","role":"user"}]"#, "messages[0]"),
        (
            CHAT,
            r#"[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":5}}]}]"#,
            "messages[1].tool_calls[0].function.arguments",
        ),
        (CHAT, r#"[{"role":"tool","content":"x"}]"#, "messages[0].tool_call_id"),
        (
            ANTHROPIC,
            r#"{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"SECRET!"}}]}]}"#,
            "messages[0].content[1].source.data",
        ),
        (ANTHROPIC, r#"{"messages":[{"role":"user"}]}"#, "messages[0].content"),
        (ANTHROPIC, r#"{"messages":[],"messages":[]}"#, ""),
        (
            GEMINI,
            r#"{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AAAA"},"inline_data":{"mimeType":"image/png","data":"AAAA"}}]}]}"#,
            "contents[0].parts[0]",
        ),
        (RESPONSES, r#"{"input":[{"type":"function_call","name":"f","arguments":"{}"}]}"#, "input[0].call_id"),
        (
            AI_SDK,
            r#"[{"role":"assistant","content":[{"type":"tool-call","toolName":"f","input":{}}]}]"#,
            "[0].content[0].toolCallId",
        ),
    ];
    for (format, src, location) in cases {
        let (rc, got, rule, _) = refused(*format, src, 0);
        assert_eq!((rc, got.as_str(), rule.as_str()), (LC_CONVERT_SHAPE, *location, "G16.8"), "{src}");
    }
}

#[test]
fn strict_refuses_the_first_loss() {
    let src = r#"[{"role":"user","content":"a","name":"SECRET"},{"role":"user","content":[{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]}]"#;
    let (rc, location, _, expected) = refused(CHAT, src, ffi::LC_CONVERT_STRICT);
    assert_eq!((rc, location.as_str(), expected.as_str()), (LC_CONVERT_LOSS, "messages[0]", "dropped_name"));
    // Without the flag, the same source converts with both losses reported.
    let c = convert(CHAT, src.as_bytes(), 0).unwrap();
    let names: Vec<&str> = c.losses.iter().map(|&(_, c)| loss_name(c)).collect();
    assert_eq!(names, ["dropped_name", "dropped_cache_control"]);
    // A lossless source converts under the flag.
    assert!(convert(CHAT, br#"[{"role":"user","content":"a"}]"#, ffi::LC_CONVERT_STRICT).is_ok());
}

#[test]
fn boundary() {
    for format in [0, 7, -1] {
        assert_eq!(refused(format, "[]", 0).0, LC_ERR_INVALID_ARGUMENT);
    }
    assert_eq!(refused(CHAT, "[]", 2).0, LC_ERR_INVALID_ARGUMENT);
    let mut out = std::ptr::null_mut();
    // SAFETY: NULL with a length is the boundary error; `out` writable.
    assert_eq!(
        unsafe { ffi::lc_transcript_convert(CHAT, std::ptr::null(), 3, 0, &raw mut out, std::ptr::null_mut()) },
        LC_ERR_NULL_ARGUMENT
    );
    // SAFETY: a live buffer; `out` NULL is the boundary error.
    assert_eq!(
        unsafe { ffi::lc_transcript_convert(CHAT, b"[]".as_ptr(), 2, 0, std::ptr::null_mut(), std::ptr::null_mut()) },
        LC_ERR_NULL_ARGUMENT
    );
    // An empty list converts to an empty transcript, which no input can hold (W5.2 step 10).
    let c = convert(CHAT, b"[]", 0).unwrap();
    assert_eq!((c.transcript.as_slice(), c.source_index.len(), c.cut_allowed.as_slice()), (&b"[]"[..], 0, &[true][..]));
    assert_eq!(c.input("p", "m", 10, 1, None).err(), Some(LC_INPUT_TRANSCRIPT));
}

/// The loss codes no SDK builds, from hand-written sources (named as such), each checked here:
/// returns their names for the every-code test.
pub fn hand_written_losses() -> Vec<&'static str> {
    let cases: &[(&str, i32, &str, &str)] = &[
        (
            "hand-written: Responses output text with log probabilities",
            RESPONSES,
            r#"{"input":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"4","annotations":[],"logprobs":[{"token":"4","logprob":-0.1}]}]}]}"#,
            "dropped_logprobs",
        ),
        (
            "hand-written: a Chat message with a field no OpenAI type has",
            CHAT,
            r#"[{"role":"user","content":"a","x_gateway_trace":"t"}]"#,
            "dropped_unknown_field",
        ),
        (
            "hand-written: a Chat assistant audio reference (id only)",
            CHAT,
            r#"[{"role":"user","content":"hi"},{"role":"assistant","content":null,"audio":{"id":"audio_1"}}]"#,
            "audio_reference_unresolvable",
        ),
        (
            "hand-written: an Anthropic block of an unknown type",
            ANTHROPIC,
            r#"{"messages":[{"role":"user","content":[{"type":"hologram","bits":1}]}]}"#,
            "unknown_content_dropped",
        ),
        (
            "hand-written: Anthropic tool input with a repeated key",
            ANTHROPIC,
            r#"{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":1,"b":2,"a":3}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}]}"#,
            "duplicate_argument_key",
        ),
        (
            "hand-written: Gemini args with a repeated key",
            GEMINI,
            r#"{"contents":[{"role":"model","parts":[{"functionCall":{"id":"x","name":"f","args":{"k":[1],"k":[2]}}}]},{"role":"user","parts":[{"functionResponse":{"id":"x","name":"f","response":{"output":1}}}]}]}"#,
            "duplicate_argument_key",
        ),
        (
            "hand-written: AI SDK tool input with a repeated key",
            AI_SDK,
            r#"[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{"p":"x","p":"y"}}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f","output":{"type":"text","value":"ok"}}]}]"#,
            "duplicate_argument_key",
        ),
    ];
    let mut out = Vec::new();
    for (what, format, src, code) in cases {
        let c = convert(*format, src.as_bytes(), 0).unwrap_or_else(|(rc, d)| panic!("{what}: {rc} at {}", d.location));
        let names: Vec<&str> = c.losses.iter().map(|&(_, c)| loss_name(c)).collect();
        assert!(names.contains(code), "{what}: {names:?}");
        out.push(*code);
    }
    out
}

#[test]
fn repeated_argument_keys_resolve_as_the_providers_parsers_do() {
    hand_written_losses();
    // The last value at the first key's place (Python json, pydantic, JSON.parse).
    let c = convert(AI_SDK, br#"[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{"a":1,"b":3,"a":{"x":[1,{"y":2,"y":4}]}}}]}]"#, 0).unwrap();
    let wire = String::from_utf8(c.transcript.clone()).unwrap();
    assert!(wire.contains(r#""input":{"a":{"x":[1,{"y":4}]},"b":3}"#), "{wire}");
    // Chat's arguments string: parsed, resolved, whitespace removed.
    let c = convert(CHAT, br#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\": 1, \"a\": 2}"}}]}]"#, 0).unwrap();
    assert!(String::from_utf8(c.transcript.clone()).unwrap().contains(r#""input":{"a":2}"#));
    // Unparseable arguments: the text as a JSON string.
    let c = convert(CHAT, br#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\": 1"}}]}]"#, 0).unwrap();
    assert!(String::from_utf8(c.transcript.clone()).unwrap().contains(r#""input":"{\"a\": 1""#));
}
