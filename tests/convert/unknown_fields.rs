//! G16.8 loss 7 on the messages, parts, blocks and calls of every format (the review of
//! 2026-12-03): a member that the converter neither reads nor ignores as metadata, and that holds
//! something, is `dropped_unknown_field`, once per object, at its source message; the metadata each
//! format's paragraph names, and members holding nothing (`null`, `""`, `{}`, `[]`), lose nothing.
//! Every expectation is written from SPEC §16's text and the providers' documented shapes.

use loopcompact::ffi;
use serde_json::{Value, json};
use testkit::convert::convert;
use testkit::status::LC_CONVERT_LOSS;

const CHAT: i32 = ffi::LC_FORMAT_OPENAI_CHAT;
const RESPONSES: i32 = ffi::LC_FORMAT_OPENAI_RESPONSES;
const ANTHROPIC: i32 = ffi::LC_FORMAT_ANTHROPIC;
const GEMINI: i32 = ffi::LC_FORMAT_GEMINI;
const AI_SDK: i32 = ffi::LC_FORMAT_AI_SDK;
const LANGCHAIN: i32 = ffi::LC_FORMAT_LANGCHAIN;
const UNKNOWN: i32 = ffi::LC_LOSS_DROPPED_UNKNOWN_FIELD;

fn losses(format: i32, src: &str) -> Vec<(u64, i32)> {
    convert(format, src.as_bytes(), 0).unwrap_or_else(|(rc, d)| panic!("{rc} {d:?}: {src}")).losses.clone()
}

fn wire(format: i32, src: &str) -> Vec<Value> {
    let c = convert(format, src.as_bytes(), 0).unwrap_or_else(|(rc, d)| panic!("{rc} {d:?}: {src}"));
    serde_json::from_slice(&c.transcript).unwrap()
}

/// Each source must report exactly `expected`.
fn check(format: i32, cases: &[(&str, Vec<(u64, i32)>)]) {
    for (src, expected) in cases {
        assert_eq!(&losses(format, src), expected, "{src}");
    }
}

/// The location and expectation of the strict refusal of `src`.
fn strict(format: i32, src: &str) -> (i32, String, String) {
    let (rc, d) =
        convert(format, src.as_bytes(), ffi::LC_CONVERT_STRICT).err().unwrap_or_else(|| panic!("converted: {src}"));
    (rc, d.location, d.expected)
}

#[test]
fn chat_parts_calls_and_their_objects_report_unread_fields() {
    // §16.2: a part reads its type's member (`text`, `refusal`, `image_url` {url, detail},
    // `input_audio` {data, format}, `file` {file_data, file_id, filename}); a call reads `id`,
    // `type`, `function` {name, arguments} or `custom` {name, input}, with `index` metadata.
    check(
        CHAT,
        &[
            (r#"[{"role":"user","content":[{"type":"text","text":"a","x_trace":"t"}]}]"#, vec![(0, UNKNOWN)]),
            // A member of another part type is not read by a text part.
            (
                r#"[{"role":"user","content":[{"type":"text","text":"a","image_url":{"url":"https://x.test/a.png"}}]}]"#,
                vec![(0, UNKNOWN)],
            ),
            (
                r#"[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x.test/a.png","crop":[0,0,1,1]}}]}]"#,
                vec![(0, UNKNOWN)],
            ),
            (
                r#"[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav","rate":16000}}]}]"#,
                vec![(0, UNKNOWN)],
            ),
            (
                r#"[{"role":"user","content":[{"type":"file","file":{"file_data":"JVBERg==","filename":"a.pdf","pages":3}}]}]"#,
                vec![(0, UNKNOWN)],
            ),
            // A gateway's `extra_content` on a call is read for a Gemini thought signature only
            // (§16.2): the signature alone loses nothing, anything beside it or instead is a loss.
            (
                r#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"c2ln"}}}]}]"#,
                vec![],
            ),
            (
                r#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"c2ln","x":1}}}]}]"#,
                vec![(0, UNKNOWN)],
            ),
            (
                r#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"openrouter":{"x":1}}}]}]"#,
                vec![(0, UNKNOWN)],
            ),
            (
                r#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}","strict":true}}]}]"#,
                vec![(0, UNKNOWN)],
            ),
            (
                r#"[{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}","x":1}}]"#,
                vec![(0, UNKNOWN), (0, ffi::LC_LOSS_SYNTHESIZED_TOOL_ID)],
            ),
            (
                r#"[{"role":"assistant","content":null,"audio":{"id":"a","transcript":"hi","expires_at":1,"voice":"alloy"}}]"#,
                vec![(0, UNKNOWN)],
            ),
            // Metadata and members holding nothing lose nothing.
            (
                r#"[{"role":"user","content":[{"type":"text","text":"a","x":null,"y":"","z":{},"w":[]}]},
                   {"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}],
                    "audio":{"id":"a","transcript":"hi","expires_at":1}},
                   {"role":"tool","tool_call_id":"c","content":"ok"}]"#,
                vec![],
            ),
        ],
    );
    // Strict: refused at the part.
    assert_eq!(
        strict(CHAT, r#"[{"role":"user","content":[{"type":"text","text":"a","x_trace":"t"}]}]"#),
        (LC_CONVERT_LOSS, "messages[0].content[0]".to_owned(), "dropped_unknown_field".to_owned())
    );
}

#[test]
fn responses_items_and_parts_report_unread_fields() {
    // §16.3: messages read `type`, `role`, `content` (`id`, `status`, `phase` metadata); parts
    // their type's members; calls `call_id`, `name`, `arguments` / `input` (`id`, `status`
    // metadata); outputs `call_id`, `output` (`id`, `status` metadata).
    check(
        RESPONSES,
        &[
            (r#"{"input":[{"type":"message","role":"user","content":"a","x":"y"}]}"#, vec![(0, UNKNOWN)]),
            (r#"{"input":[{"role":"user","content":[{"type":"input_text","text":"a","x":1}]}]}"#, vec![(0, UNKNOWN)]),
            (
                r#"{"input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}","x":1},
                            {"type":"function_call_output","call_id":"c","output":"ok"}]}"#,
                vec![(0, UNKNOWN)],
            ),
            (
                r#"{"input":[{"type":"custom_tool_call","call_id":"c","name":"f","input":"x","x":1},
                            {"type":"custom_tool_call_output","call_id":"c","output":"ok","x":1}]}"#,
                vec![(0, UNKNOWN), (1, UNKNOWN)],
            ),
            (
                r#"{"input":[{"type":"computer_call","id":"cu","call_id":"c","action":{"type":"screenshot"},"status":"completed",
                              "pending_safety_checks":[{"id":"s","code":"malicious_instructions","message":"m"}]},
                            {"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","image_url":"https://x.test/s.png"}}]}"#,
                vec![(0, UNKNOWN)],
            ),
            // Metadata.
            (
                r#"{"input":[{"type":"message","id":"m","status":"completed","role":"assistant","phase":"final_answer",
                              "content":[{"type":"output_text","text":"a","annotations":[],"logprobs":[]}]},
                            {"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":"{}","status":"completed"},
                            {"type":"function_call_output","id":"o","call_id":"c","output":"ok","status":"completed"},
                            {"type":"computer_call","id":"cu","call_id":"d","action":{"type":"screenshot"},"status":"completed","pending_safety_checks":[]},
                            {"type":"computer_call_output","call_id":"d","acknowledged_safety_checks":[],"output":{"type":"computer_screenshot","image_url":"https://x.test/s.png"}}]}"#,
                vec![],
            ),
        ],
    );
}

#[test]
fn anthropic_blocks_and_sources_report_unread_fields() {
    // §16.4: each block reads its type's fields; `cache_control`, `citations`, `context` and
    // `transformations` have their own losses; `citations: null` and `cache_control: null` hold
    // nothing.
    let user = |block: &str| format!(r#"{{"messages":[{{"role":"user","content":[{block}]}}]}}"#);
    check(
        ANTHROPIC,
        &[
            (&user(r#"{"type":"text","text":"a","x":1}"#), vec![(0, UNKNOWN)]),
            (
                &user(r#"{"type":"image","source":{"type":"url","url":"https://x.test/a.png","x":1}}"#),
                vec![(0, UNKNOWN)],
            ),
            (
                &user(r#"{"type":"document","source":{"type":"text","media_type":"text/plain","data":"d","x":1}}"#),
                vec![(0, UNKNOWN)],
            ),
            (
                r#"{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s","x":1},
                   {"type":"tool_use","id":"t","name":"f","input":{},"x":1}]},
                   {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok","x":1}]}]}"#,
                vec![(0, UNKNOWN), (0, UNKNOWN), (1, UNKNOWN)],
            ),
            (
                r#"{"messages":[{"role":"assistant","content":[{"type":"text","text":"a","citations":null,"cache_control":null},
                   {"type":"tool_use","id":"t","name":"f","input":{},"caller":null}]},
                   {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok","is_error":false}]}]}"#,
                vec![],
            ),
        ],
    );
}

#[test]
fn gemini_contents_parts_and_their_objects_report_unread_fields() {
    // §16.5: a Content reads `role`, `parts`; a part its data member and `thought`,
    // `thoughtSignature` (`videoMetadata`, `mediaResolution`, `partMetadata` have their own
    // losses); a FunctionCall `id`, `name`, `args`; a Blob `mimeType`, `data`, `displayName`; a
    // FileData `mimeType`, `fileUri`, `displayName`.
    check(
        GEMINI,
        &[
            (r#"{"contents":[{"role":"user","parts":[{"text":"a","x":1}]}]}"#, vec![(0, UNKNOWN)]),
            (r#"{"contents":[{"role":"user","parts":[{"text":"a"}],"x":1}]}"#, vec![(0, UNKNOWN)]),
            (
                r#"{"contents":[{"role":"model","parts":[{"functionCall":{"id":"c","name":"f","args":{},"x":1}}]},
                   {"role":"user","parts":[{"functionResponse":{"id":"c","name":"f","response":{},"x":1}}]}]}"#,
                vec![(0, UNKNOWN), (1, UNKNOWN)],
            ),
            (
                r#"{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AAAA","x":1}},
                   {"fileData":{"mimeType":"image/png","fileUri":"gs://b/a.png","x":1}}]}]}"#,
                vec![(0, UNKNOWN), (0, UNKNOWN)],
            ),
            // A function response part holds its response only.
            (
                r#"{"contents":[{"role":"model","parts":[{"functionCall":{"id":"c","name":"f","args":{}}}]},
                   {"role":"user","parts":[{"functionResponse":{"id":"c","name":"f","response":{}},"thoughtSignature":"c2ln"}]}]}"#,
                vec![(1, UNKNOWN)],
            ),
            // Both spellings of the metadata, members holding nothing, a display name.
            (
                r#"{"contents":[{"role":"user","parts":[{"text":"a","thought":false,"inline_data":null,"function_call":null},
                   {"inline_data":{"mime_type":"image/png","data":"AAAA","display_name":"a.png"}},
                   {"file_data":{"mime_type":"image/png","file_uri":"gs://b/a.png","display_name":"a.png"}}]}]}"#,
                vec![],
            ),
        ],
    );
}

#[test]
fn ai_sdk_messages_parts_and_outputs_report_unread_fields() {
    // §16.7: the `ModelMessage` and part shapes of AI SDK 5 to 7; a tool result's `toolName`
    // names its call (read by the call).
    check(
        AI_SDK,
        &[
            (r#"[{"role":"user","content":[{"type":"text","text":"a","x":1}]}]"#, vec![(0, UNKNOWN)]),
            (r#"[{"role":"user","content":"a","x":1}]"#, vec![(0, UNKNOWN)]),
            (
                r#"[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{},"x":1}]},
                   {"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f","output":{"type":"text","value":"ok"},"x":1}]}]"#,
                vec![(0, UNKNOWN), (1, UNKNOWN)],
            ),
            (
                r#"[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{}}]},
                   {"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f","output":{"type":"content","value":[
                     {"type":"text","text":"ok","x":1}]}}]}]"#,
                vec![(1, UNKNOWN)],
            ),
            (
                r#"[{"role":"user","content":[{"type":"image","image":"https://x.test/a.png","mediaType":"image/png","x":1}]}]"#,
                vec![(0, UNKNOWN)],
            ),
        ],
    );
    // An output's `providerOptions` are a part's: `dropped_provider_options`.
    assert_eq!(
        losses(
            AI_SDK,
            r#"[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{}}]},
               {"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f",
                 "output":{"type":"text","value":"ok","providerOptions":{"acme":{"trace":"t"}}}}]}]"#,
        ),
        vec![(1, ffi::LC_LOSS_DROPPED_PROVIDER_OPTIONS)]
    );
    // A content output's `file-data` names its document by its `filename`: read, not dropped.
    let m = wire(
        AI_SDK,
        r#"[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{}}]},
           {"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f","output":{"type":"content","value":[
             {"type":"file-data","data":"JVBERg==","mediaType":"application/pdf","filename":"a.pdf"}]}}]}]"#,
    );
    assert_eq!(
        m[1]["blocks"][0],
        json!({"type":"document","media_type":"application/pdf","name":"a.pdf","data":"JVBERg==","text":""})
    );
}

#[test]
fn langchain_messages_blocks_and_calls_report_unread_fields() {
    // §16.6: standard blocks carry `id`, `index` as metadata and provider fields in `extras`;
    // `tool_calls[k]` reads `id`, `name`, `args`, `type`; a message reads LangChain's fields.
    check(
        LANGCHAIN,
        &[
            (
                r#"[{"type":"human","data":{"content":[{"type":"text","text":"a","id":"b","index":0,"x":1}]}}]"#,
                vec![(0, UNKNOWN)],
            ),
            (
                r#"[{"type":"human","data":{"content":[{"type":"text","text":"a","extras":{"k":"v"}}]}}]"#,
                vec![(0, UNKNOWN)],
            ),
            (r#"[{"type":"human","data":{"content":"a","x":1}}]"#, vec![(0, UNKNOWN)]),
            (
                r#"[{"type":"ai","data":{"content":"","tool_calls":[{"id":"c","name":"f","args":{},"type":"tool_call","x":1}]}},
                   {"type":"tool","data":{"content":"ok","tool_call_id":"c"}}]"#,
                vec![(0, UNKNOWN)],
            ),
            // An Anthropic tool_use kept in the content, streamed: its arguments are tool_calls'
            // args, and partial_json their text (read); without a tool_calls entry, partial_json
            // holds text nothing else does.
            (
                r#"[{"type":"ai","data":{"content":[{"type":"tool_use","id":"c","name":"f","input":{},"partial_json":"{\"a\":1}"}],
                    "tool_calls":[{"id":"c","name":"f","args":{"a":1}}]}},
                   {"type":"tool","data":{"content":"ok","tool_call_id":"c"}}]"#,
                vec![],
            ),
            (
                r#"[{"type":"ai","data":{"content":[{"type":"tool_use","id":"c","name":"f","input":{},"partial_json":"{\"a\":1}"}]}},
                   {"type":"tool","data":{"content":"ok","tool_call_id":"c"}}]"#,
                vec![(0, UNKNOWN)],
            ),
            // Metadata and members holding nothing.
            (
                r#"[{"type":"human","data":{"content":[{"type":"text","text":"a","id":"b","index":0,"extras":{"k":null}}],
                    "id":"h","name":null,"example":false,"additional_kwargs":{},"response_metadata":{}}},
                   {"type":"ai","data":{"content":[{"type":"tool_use","id":"c","name":"f","input":{},"toolset_name":null}],
                    "tool_calls":[{"id":"c","name":"f","args":{},"type":"tool_call"}],"invalid_tool_calls":[],
                    "usage_metadata":null,"response_metadata":{"model_provider":"anthropic"}}},
                   {"type":"tool","data":{"content":"ok","tool_call_id":"c","status":"success","artifact":null}}]"#,
                vec![],
            ),
        ],
    );
}

#[test]
fn langchain_block_cache_hints_and_text_plain_title_and_context() {
    // §16.6: `cache_control` on a standard block is `dropped_cache_control`; a `text-plain`
    // block is named by its `title` (no `extras.filename`, no `filename`), and its `context` is
    // `dropped_media_options`.
    let src = r#"[{"type":"human","data":{"content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},
        {"type":"text-plain","text":"notes","title":"n.txt","context":"from the wiki"}]}}]"#;
    assert_eq!(
        losses(LANGCHAIN, src),
        vec![(0, ffi::LC_LOSS_DROPPED_CACHE_CONTROL), (0, ffi::LC_LOSS_DROPPED_MEDIA_OPTIONS)]
    );
    let b = &wire(LANGCHAIN, src)[0]["blocks"][1];
    assert_eq!((&b["type"], &b["name"], &b["text"]), (&json!("document"), &json!("n.txt"), &json!("notes")));
}
