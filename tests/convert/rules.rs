//! Single rules of §16 on hand-written sources, each expectation written from the rule's text:
//! JSON values as text (G16.17), the URL test of the AI SDK (§16.7), tool output references
//! (G16.7), the location of an unknown AI SDK role, the J5.2 rule of a source nested too deep, and
//! the cut after a system parameter (G16.2).

use loopcompact::ffi;
use serde_json::{Value, json};
use testkit::convert::convert;
use testkit::status::{LC_CONVERT_SHAPE, LC_CONVERT_WIRE};

const GEMINI: i32 = ffi::LC_FORMAT_GEMINI;
const AI_SDK: i32 = ffi::LC_FORMAT_AI_SDK;
const ANTHROPIC: i32 = ffi::LC_FORMAT_ANTHROPIC;

fn wire(format: i32, src: &str) -> Vec<Value> {
    let c = convert(format, src.as_bytes(), 0).unwrap_or_else(|(rc, d)| panic!("{rc} {d:?}: {src}"));
    serde_json::from_slice::<Vec<Value>>(&c.transcript).unwrap()
}

/// The tool message answering `id`.
fn tool<'a>(messages: &'a [Value], id: &str) -> &'a Value {
    messages.iter().find(|m| m["role"] == "tool" && m["tool_use_id"] == id).expect("a tool message")
}

#[test]
fn json_results_are_their_text_without_whitespace_between_tokens() {
    // Indented as Python's json.dumps(indent=1) would, with whitespace inside a string kept.
    let gemini = r#"{"contents":[
      {"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}}]},
      {"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response": {
        "output" : [ 1, 2.50 ],
        "s" : "a \" b\n",
        "e": "\u00e9"
      }}}]}]}"#;
    let m = wire(GEMINI, gemini);
    let t = tool(&m, "c1");
    assert_eq!(t["blocks"][0]["text"], r#"{"output":[1,2.50],"s":"a \" b\n","e":"\u00e9"}"#);
    assert_eq!(t["is_error"], false);

    let ai = r#"[
      {"role":"assistant","content":[{"type":"tool-call","toolCallId":"a","toolName":"f","input":{}},
                                     {"type":"tool-call","toolCallId":"b","toolName":"f","input":{}}]},
      {"role":"tool","content":[
        {"type":"tool-result","toolCallId":"a","toolName":"f","output":{"type":"json","value":{ "k" : [ true , null ] }}},
        {"type":"tool-result","toolCallId":"b","toolName":"f","output":{"type":"error-json","value":{ "error" : "x y" }}}]}]"#;
    let m = wire(AI_SDK, ai);
    assert_eq!(tool(&m, "a")["blocks"][0]["text"], r#"{"k":[true,null]}"#);
    assert_eq!(tool(&m, "a")["is_error"], false);
    assert_eq!(tool(&m, "b")["blocks"][0]["text"], r#"{"error":"x y"}"#);
    assert_eq!(tool(&m, "b")["is_error"], true);
}

#[test]
fn an_ai_sdk_string_with_a_url_scheme_is_a_url() {
    let src = r#"[{"role":"user","content":[
      {"type":"image","image":"gs://bucket/cat.png"},
      {"type":"image","image":"s3://b/k.png","mediaType":"image/png"},
      {"type":"image","image":"iVBORw0KGgo="}]}]"#;
    let m = wire(AI_SDK, src);
    let blocks = m[0]["blocks"].as_array().unwrap();
    assert_eq!(blocks[0]["type"], "image");
    assert_eq!(
        (&blocks[0]["source"]["url"], &blocks[0]["source"]["data"]),
        (&json!("gs://bucket/cat.png"), &Value::Null)
    );
    assert_eq!((&blocks[1]["source"]["url"], &blocks[1]["media_type"]), (&json!("s3://b/k.png"), &json!("image/png")));
    // Base64 has no `:`: bytes, standard padded base64 in the wire.
    assert_eq!((&blocks[2]["source"]["url"], &blocks[2]["source"]["data"]), (&json!(""), &json!("iVBORw0KGgo=")));
}

#[test]
fn ai_sdk_tool_output_references_are_media_blocks() {
    let src = r#"[
      {"role":"assistant","content":[{"type":"tool-call","toolCallId":"a","toolName":"shot","input":{}}]},
      {"role":"tool","content":[{"type":"tool-result","toolCallId":"a","toolName":"shot","output":{"type":"content","value":[
        {"type":"image-url","url":"https://x.test/a.png"},
        {"type":"file-url","url":"https://x.test/b.pdf","mediaType":"application/pdf"},
        {"type":"image-file-id","fileId":"file-1"},
        {"type":"file-id","fileId":{"openai":"file-2","anthropic":"file-3"}},
        {"type":"custom","providerOptions":{}}]}}]}]"#;
    let c = convert(AI_SDK, src.as_bytes(), 0).unwrap();
    let m: Vec<Value> = serde_json::from_slice(&c.transcript).unwrap();
    let blocks = tool(&m, "a")["blocks"].as_array().unwrap().clone();
    assert_eq!(blocks.len(), 4, "{blocks:?}");
    assert_eq!((&blocks[0]["type"], &blocks[0]["source"]["url"]), (&json!("image"), &json!("https://x.test/a.png")));
    // A document by URL keeps its name only, with the loss document_not_inline (G16.7).
    assert_eq!(blocks[1]["type"], "document");
    assert_eq!((&blocks[2]["type"], &blocks[2]["source"]["url"]), (&json!("image"), &json!("file-id:ai_sdk:file-1")));
    assert_eq!(blocks[3]["type"], "document");
    let names: Vec<&str> = c.losses.iter().map(|&(_, code)| testkit::convert::loss_name(code)).collect();
    assert_eq!(names, ["document_not_inline", "document_not_inline", "unknown_content_dropped"]);
}

#[test]
fn an_unknown_ai_sdk_role_is_located_at_the_role() {
    let (rc, d) =
        convert(AI_SDK, br#"[{"role":"user","content":"a"},{"role":"SECRET","content":"b"}]"#, 0).err().unwrap();
    assert_eq!((rc, d.location.as_str(), d.rule.as_str()), (LC_CONVERT_SHAPE, "[1].role", "G16.8"));
}

#[test]
fn a_source_nested_too_deep_is_rule_j5_2() {
    let deep = format!(r#"[{{"role":"user","content":"a","x":{}1{}}}]"#, "[".repeat(10_001), "]".repeat(10_001));
    let (rc, d) = convert(AI_SDK, deep.as_bytes(), 0).err().unwrap();
    assert_eq!((rc, d.rule.as_str()), (LC_CONVERT_WIRE, "J5.2"));
    let (rc, d) = convert(AI_SDK, br#"[{"role":"user","content":"a"},]"#, 0).err().unwrap();
    assert_eq!((rc, d.rule.as_str()), (LC_CONVERT_WIRE, "J5.1"));
}

#[test]
fn a_tool_input_nests_at_most_as_deep_as_the_input_document_can_hold_it() {
    // J5.2 allows 10000 nested containers in a document; an input document holds a tool input
    // inside five (the document, its transcript, the message, its blocks, the block), so a tool
    // input may nest 9995 deep.
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let chat = |arguments: &str| {
        format!(
            r#"[{{"role":"assistant","content":null,"tool_calls":[{{"id":"c","type":"function","function":{{"name":"f","arguments":"{arguments}"}}}}]}},{{"role":"tool","tool_call_id":"c","content":"ok"}}]"#
        )
    };
    let ok = convert(ffi::LC_FORMAT_OPENAI_CHAT, chat(&nested(9_995)).as_bytes(), 0).unwrap();
    assert_eq!(ok.losses, []);
    assert!(ok.input("p", "m", 1000, 1, None).is_ok());
    // Arguments text the wire cannot take as a value is kept as a string (G16.4).
    let deep = convert(ffi::LC_FORMAT_OPENAI_CHAT, chat(&nested(9_996)).as_bytes(), 0).unwrap();
    assert_eq!(deep.losses, [(0, ffi::LC_LOSS_ARGUMENTS_UNPARSEABLE)]);
    let m: Vec<Value> = serde_json::from_slice(&deep.transcript).unwrap();
    assert_eq!(m[0]["blocks"][0]["input"], Value::String(nested(9_996)));
    assert!(deep.input("p", "m", 1000, 1, None).is_ok());

    // An AI SDK tool input sits under four containers of its source: one nested 9996 deep is a
    // valid source the wire cannot hold, refused where it stands.
    let ai = |n: usize| {
        format!(
            r#"[{{"role":"assistant","content":[{{"type":"tool-call","toolCallId":"a","toolName":"f","input":{}}}]}}]"#,
            nested(n)
        )
    };
    let ok = convert(AI_SDK, ai(9_995).as_bytes(), 0).unwrap();
    assert!(ok.input("p", "m", 1000, 1, None).is_ok());
    let (rc, d) = convert(AI_SDK, ai(9_996).as_bytes(), 0).err().unwrap();
    assert_eq!((rc, d.rule.as_str(), d.location.as_str()), (LC_CONVERT_WIRE, "J5.2", "[0].content[0].input"));
}

#[test]
fn joined_texts_have_a_separator_between_two_texts_only() {
    // A Responses reasoning summary: the texts of its parts, a blank line between two of them; a
    // part without text adds nothing, not even a separator.
    let src = r#"{"input":[{"type":"reasoning","id":"r","summary":[{"type":"x"},{"type":"summary_text","text":"B"},
        {"type":"summary_text","text":"C"}]}]}"#;
    let m = wire(ffi::LC_FORMAT_OPENAI_RESPONSES, src);
    assert_eq!(m[0]["blocks"][0]["thinking"], "B\n\nC");
    // An Anthropic search result: its text blocks' texts, a line feed between two of them.
    let src = r#"{"messages":[{"role":"user","content":[{"type":"search_result","source":"s","title":"t",
        "content":[{"type":"image"},{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}]}"#;
    let m = wire(ANTHROPIC, src);
    assert_eq!(m[0]["blocks"][0]["text"], "a\nb");
    // Its content is an array of text blocks: a string is not the format's shape.
    let src =
        r#"{"messages":[{"role":"user","content":[{"type":"search_result","source":"s","title":"t","content":"a"}]}]}"#;
    let (rc, d) = convert(ANTHROPIC, src.as_bytes(), 0).err().unwrap();
    assert_eq!((rc, d.location.as_str()), (LC_CONVERT_SHAPE, "messages[0].content[0].content"));
}

#[test]
fn chat_gateway_fields_of_the_wrong_type_are_not_the_shape() {
    for (field, value) in [("annotations", r#""x""#), ("reasoning_details", r#""x""#), ("reasoning_details", "{}")] {
        let src = format!(r#"[{{"role":"assistant","content":"a","{field}":{value}}}]"#);
        let (rc, d) = convert(ffi::LC_FORMAT_OPENAI_CHAT, src.as_bytes(), 0).err().unwrap();
        assert_eq!((rc, d.location.as_str()), (LC_CONVERT_SHAPE, format!("messages[0].{field}").as_str()), "{src}");
    }
    // null is absent; an empty list of annotations loses nothing.
    let src = r#"[{"role":"assistant","content":"a","annotations":[],"reasoning_details":null}]"#;
    let c = convert(ffi::LC_FORMAT_OPENAI_CHAT, src.as_bytes(), 0).unwrap();
    assert_eq!(c.losses, []);
}

#[test]
fn a_null_cache_control_loses_nothing_and_redacted_reasoning_keeps_its_text() {
    // cache_control: null sets no cache breakpoint, so nothing is dropped (G16.8).
    let src = r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok","cache_control":null}]}]}"#;
    assert_eq!(convert(ANTHROPIC, src.as_bytes(), 0).unwrap().losses, []);
    // An AI SDK reasoning part with Anthropic's redacted data: its text is the block's text, the
    // data its provider state (§16.7).
    let src = r#"[{"role":"assistant","content":[{"type":"reasoning","text":"r",
        "providerOptions":{"anthropic":{"redactedData":"abc"}}}]}]"#;
    let m = wire(AI_SDK, src);
    assert_eq!(m[0]["blocks"][0]["thinking"], "r");
    assert_eq!(m[0]["blocks"][0]["provider_state"], json!({"data": "abc"}));
    assert_eq!(m[0]["blocks"][0]["provider_state_format"], "anthropic.redacted_thinking");
}

#[test]
fn a_request_without_its_messages_is_not_the_shape() {
    // Anthropic's request has `messages`, Gemini's `contents`: an object without them (a response
    // object passed by mistake) is not a request (701), whatever else it holds.
    for (format, src) in
        [(ANTHROPIC, r#"{"system":"S"}"#), (ANTHROPIC, r#"{"content":[]}"#), (GEMINI, r#"{"candidates":[]}"#)]
    {
        let (rc, _) = convert(format, src.as_bytes(), 0).err().unwrap();
        assert_eq!(rc, LC_CONVERT_SHAPE, "{src}");
    }
    assert!(convert(ANTHROPIC, br#"{"messages":[]}"#, 0).unwrap().source_index.is_empty());
}

#[test]
fn after_a_system_parameter_cut_one_maps_to_source_cut_zero() {
    let src = r#"{"system":"be brief","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}"#;
    let c = convert(ANTHROPIC, src.as_bytes(), 0).unwrap();
    assert_eq!(c.source_index, [u64::MAX, 0, 1]);
    assert_eq!(c.cut_allowed, [true, true, true, true]);
    assert_eq!(c.source_cut(1), Ok(0));
    assert_eq!(c.source_cut(2), Ok(1));
    let input = c.input("p", "m", 1000, 1, None).unwrap();
    // The replacement refuses cut 1 as an empty head (R15.10).
    let mut len = 0usize;
    // SAFETY: a live handle; a size query with a NULL buffer of capacity 0.
    let rc = unsafe {
        ffi::lc_replacement_build(input.as_ptr(), 1, b"x".as_ptr(), 1, std::ptr::null_mut(), 0, &raw mut len)
    };
    assert_eq!(testkit::status::name(rc), "LC_REPLACEMENT_EMPTY_HEAD");
}

#[test]
fn a_compaction_item_after_a_system_parameter_allows_the_cut_right_before_it() {
    // G16.2 and G16.8: no cut after a compaction item; the system parameter's wire message comes
    // first, so the item's message is wire message 2 and cut 2 (the system and "hi") is allowed.
    let anthropic = r#"{"system":"S","messages":[{"role":"user","content":"hi"},
        {"role":"assistant","content":[{"type":"compaction","content":"x"}]}]}"#;
    let c = convert(ANTHROPIC, anthropic.as_bytes(), 0).unwrap();
    assert_eq!(c.source_index, [u64::MAX, 0, 1]);
    assert_eq!(c.cut_allowed, [true, true, true, false]);
    // The same with Responses' `instructions` (given after the items) and a `compaction` item.
    let responses = r#"{"input":[{"role":"user","content":"hi"},{"type":"compaction","encrypted_content":"e"},
        {"role":"user","content":"next"}],"instructions":"S"}"#;
    let c = convert(ffi::LC_FORMAT_OPENAI_RESPONSES, responses.as_bytes(), 0).unwrap();
    assert_eq!(c.source_index, [u64::MAX, 0, 2]);
    assert_eq!(c.cut_allowed, [true, true, true, false]);
}

#[test]
fn provider_state_that_repeats_a_key_is_refused() {
    // G16.8: a repeated key outside tool inputs is refused; provider state is a raw value on the
    // wire (E7.7), which J5.9 would reject, so the conversion refuses it instead of writing it.
    let responses = br#"{"input":[{"role":"user","content":"q"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"AAAA","content":[{"type":"a","type":"b"}]}]}"#;
    let (rc, d) = convert(ffi::LC_FORMAT_OPENAI_RESPONSES, responses, 0).err().unwrap();
    assert_eq!((rc, d.location.as_str(), d.rule.as_str()), (LC_CONVERT_SHAPE, "input[1]", "G16.8"));
    let ai = br#"[{"role":"assistant","content":[{"type":"reasoning","text":"t","providerOptions":{"x":{"k":{"a":1,"a":2}}}}]}]"#;
    let (rc, d) = convert(AI_SDK, ai, 0).err().unwrap();
    assert_eq!((rc, d.rule.as_str()), (LC_CONVERT_SHAPE, "G16.8"));
    // Without the repetition both convert, the state byte for byte.
    let fine = br#"{"input":[{"role":"user","content":"q"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"AAAA","content":[{"type":"a"}]}]}"#;
    let m: Vec<Value> =
        serde_json::from_slice(&convert(ffi::LC_FORMAT_OPENAI_RESPONSES, fine, 0).unwrap().transcript).unwrap();
    assert_eq!(m[1]["blocks"][0]["provider_state"], json!({"id": "rs_1", "summary": [], "content": [{"type": "a"}]}));
}
