//! Sources a review found converted with a silent drop (docs/SPEC.md §16, G16.8: every construct is
//! mapped, reported with a loss, or refused). Every expectation is written from SPEC §16's rows and
//! the providers' documented shapes, never from the converters' output.

use loopcompact::ffi;
use serde_json::{Value, json};
use testkit::convert::convert;
use testkit::status::{LC_CONVERT_LOSS, LC_CONVERT_SHAPE};

const CHAT: i32 = ffi::LC_FORMAT_OPENAI_CHAT;
const RESPONSES: i32 = ffi::LC_FORMAT_OPENAI_RESPONSES;
const ANTHROPIC: i32 = ffi::LC_FORMAT_ANTHROPIC;
const GEMINI: i32 = ffi::LC_FORMAT_GEMINI;
const AI_SDK: i32 = ffi::LC_FORMAT_AI_SDK;
const LANGCHAIN: i32 = ffi::LC_FORMAT_LANGCHAIN;
const CACHE: i32 = ffi::LC_LOSS_DROPPED_CACHE_CONTROL;
const CITATIONS: i32 = ffi::LC_LOSS_DROPPED_CITATIONS;
const UNKNOWN: i32 = ffi::LC_LOSS_DROPPED_UNKNOWN_FIELD;
const UNKNOWN_CONTENT: i32 = ffi::LC_LOSS_UNKNOWN_CONTENT_DROPPED;
const NOT_INLINE: i32 = ffi::LC_LOSS_DOCUMENT_NOT_INLINE;
const UNPARSEABLE: i32 = ffi::LC_LOSS_ARGUMENTS_UNPARSEABLE;

/// The wire messages and the losses of `src`, which must convert.
fn converted(format: i32, src: &str) -> (Vec<Value>, Vec<(u64, i32)>) {
    let c = convert(format, src.as_bytes(), 0).unwrap_or_else(|(rc, d)| panic!("{rc} {d:?}: {src}"));
    (serde_json::from_slice(&c.transcript).unwrap(), c.losses.clone())
}

/// The status, location and expectation of the strict refusal of `src`.
fn strict(format: i32, src: &str) -> (i32, String, String) {
    let (rc, d) =
        convert(format, src.as_bytes(), ffi::LC_CONVERT_STRICT).err().unwrap_or_else(|| panic!("converted: {src}"));
    (rc, d.location, d.expected)
}

fn image(media_type: &str, url: &str, data: Option<&str>) -> Value {
    json!({"type":"image","media_type":media_type,"source":{"url":url,"data":data}})
}

fn document(media_type: &str, name: &str, text: &str, data: Option<&str>) -> Value {
    json!({"type":"document","media_type":media_type,"name":name,"text":text,"data":data})
}

#[test]
fn anthropic_content_document_keeps_its_images_after_it_and_reports_the_rest() {
    // §16.4: a `content` source (Anthropic's `ContentBlockSource`, whose `content` holds text and
    // image blocks) is a document of its texts joined by `\n`; each image in it follows the
    // document as an image block (G16.7), in order. Inner blocks are read as §16.4's blocks: a
    // cache hint is `dropped_cache_control`, citations `dropped_citations`, an unread field
    // `dropped_unknown_field`, another block type `unknown_content_dropped`.
    let src = r#"{"messages":[{"role":"user","content":[{"type":"document","title":"T","source":{"type":"content","content":[
        {"type":"text","text":"a"},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}},
        {"type":"text","text":"b"},
        {"type":"image","source":{"type":"url","url":"https://x.test/i.png"}}]}},
      {"type":"text","text":"after"}]}]}"#;
    let (m, losses) = converted(ANTHROPIC, src);
    assert_eq!(losses, vec![]);
    assert_eq!(
        m[0]["blocks"],
        json!([
            document("text/plain", "T", "a\nb", None),
            image("image/png", "", Some("AAAA")),
            image("", "https://x.test/i.png", None),
            {"type":"text","text":"after"}
        ])
    );

    // The inner blocks' hints, citations, unread fields and unknown types are reported.
    let src = r#"{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"content","content":[
        {"type":"text","text":"a","cache_control":{"type":"ephemeral"}},
        {"type":"text","text":"b","citations":[{"type":"char_location","cited_text":"b"}]},
        {"type":"text","text":"c","x_note":"n"},
        {"type":"document","source":{"type":"text","media_type":"text/plain","data":"d"}},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"},"cache_control":{"type":"ephemeral"}}]}}]}]}"#;
    let (m, losses) = converted(ANTHROPIC, src);
    assert_eq!(
        losses,
        vec![(0, CACHE), (0, CITATIONS), (0, ffi::LC_LOSS_DROPPED_UNKNOWN_FIELD), (0, UNKNOWN_CONTENT), (0, CACHE)]
    );
    assert_eq!(
        m[0]["blocks"],
        json!([document("text/plain", "", "a\nb\nc", None), image("image/png", "", Some("AAAA"))])
    );
    // Null hints and empty citations hold nothing (G16.8).
    let src = r#"{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"content","content":[
        {"type":"text","text":"a","cache_control":null,"citations":[]}]}}]}]}"#;
    assert_eq!(converted(ANTHROPIC, src).1, vec![]);
    // Strict: the first loss refuses at the inner block.
    let src = r#"{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"content","content":[
        {"type":"text","text":"a"},{"type":"search_result","source":"s","title":"t","content":[]}]}}]}]}"#;
    assert_eq!(
        strict(ANTHROPIC, src),
        (LC_CONVERT_LOSS, "messages[0].content[0].source.content[1]".to_owned(), "unknown_content_dropped".to_owned())
    );
    // A text block without its text is not a text block (701), as at the top level.
    let src = r#"{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"content","content":[{"type":"text"}]}}]}]}"#;
    let (rc, location, _) = strict(ANTHROPIC, src);
    assert_eq!((rc, location.as_str()), (LC_CONVERT_SHAPE, "messages[0].content[0].source.content[0].text"));
}

#[test]
fn anthropic_search_result_reads_its_content_blocks() {
    // §16.4: a `search_result`'s `content` is text blocks (Anthropic's `SearchResultBlockParam`):
    // read as text blocks; another type there is `unknown_content_dropped`, not skipped.
    let src = r#"{"messages":[{"role":"user","content":[{"type":"search_result","source":"https://x.test","title":"R","content":[
        {"type":"text","text":"a"},{"type":"image","source":{"type":"url","url":"https://x.test/i.png"}},{"type":"text","text":"b"}]}]}]}"#;
    let (m, losses) = converted(ANTHROPIC, src);
    assert_eq!(losses, vec![(0, UNKNOWN_CONTENT), (0, CITATIONS)]);
    assert_eq!(m[0]["blocks"], json!([document("text/plain", "R", "a\nb", None)]));
}

#[test]
fn langchain_invalid_call_without_a_name_keeps_an_empty_name() {
    // §16.6: LangChain's `InvalidToolCall` allows `name: None` (a streamed call that broke off);
    // the wire's tool names are free strings (T5.7), so the call keeps the name `""` and reports
    // what every invalid call reports, `arguments_unparseable`; `null` holds nothing (G16.8).
    let src = r#"[{"type":"ai","data":{"content":[
        {"type":"invalid_tool_call","id":"b","name":null,"args":"{\"y\":","error":null}],
      "invalid_tool_calls":[{"type":"invalid_tool_call","id":"a","name":null,"args":"{\"x\":","error":"bad"}]}}]"#;
    let (m, losses) = converted(LANGCHAIN, src);
    assert_eq!(losses, vec![(0, UNPARSEABLE), (0, UNPARSEABLE)]);
    assert_eq!(
        m[0]["blocks"],
        json!([
            {"type":"tool_use","id":"b","name":"","input":"{\"y\":"},
            {"type":"tool_use","id":"a","name":"","input":"{\"x\":"}
        ])
    );
    // A valid call's name is required (`ToolCall.name: str`): refused.
    let src = r#"[{"type":"ai","data":{"content":"","tool_calls":[{"id":"a","name":null,"args":{}}]}}]"#;
    assert_eq!(strict(LANGCHAIN, src).0, LC_CONVERT_SHAPE);
}

#[test]
fn responses_failed_apply_patch_output_is_an_error() {
    // §16.3: an `apply_patch_call_output`'s `status` is the patch's outcome (`completed` or
    // `failed`): a failed one is an error result. Other items' `status` is metadata.
    let src = |status: &str| {
        format!(
            r#"{{"input":[{{"type":"apply_patch_call","call_id":"p","status":"completed","operation":{{"type":"delete_file","path":"a"}}}},
              {{"type":"apply_patch_call_output","call_id":"p","status":"{status}","output":"no such file"}},
              {{"type":"shell_call","call_id":"s","action":{{"commands":["false"]}}}},
              {{"type":"shell_call_output","call_id":"s","status":"{status}","output":[{{"stdout":"","stderr":"","outcome":{{"type":"exit","exit_code":1}}}}]}}]}}"#
        )
    };
    let (m, losses) = converted(RESPONSES, &src("failed"));
    assert_eq!(losses, vec![]);
    assert_eq!((&m[1]["tool_use_id"], &m[1]["is_error"]), (&json!("p"), &json!(true)));
    assert_eq!(m[1]["blocks"], json!([{"type":"text","text":"no such file"}]));
    assert_eq!((&m[3]["tool_use_id"], &m[3]["is_error"]), (&json!("s"), &json!(false)));
    let (m, _) = converted(RESPONSES, &src("completed"));
    assert_eq!((&m[1]["is_error"], &m[3]["is_error"]), (&json!(false), &json!(false)));
}

#[test]
fn chat_file_data_wins_and_a_file_id_beside_it_is_reported() {
    // §16.2: `file_data` is the document; a `file_id` beside it is not read:
    // `dropped_unknown_field`. A `null` one holds nothing.
    let part = |file: &str| format!(r#"[{{"role":"user","content":[{{"type":"file","file":{file}}}]}}]"#);
    let (m, losses) = converted(
        CHAT,
        &part(r#"{"file_data":"data:application/pdf;base64,JVBERg==","file_id":"file-1","filename":"a.pdf"}"#),
    );
    assert_eq!(losses, vec![(0, UNKNOWN)]);
    assert_eq!(m[0]["blocks"], json!([document("application/pdf", "a.pdf", "", Some("JVBERg=="))]));
    assert_eq!(
        converted(CHAT, &part(r#"{"file_data":"JVBERg==","file_id":null}"#)),
        (vec![json!({"role":"user","blocks":[document("", "", "", Some("JVBERg=="))]})], vec![])
    );
    // A file id alone is the reference (`document_not_inline`).
    let (m, losses) = converted(CHAT, &part(r#"{"file_id":"file-1"}"#));
    assert_eq!(losses, vec![(0, NOT_INLINE)]);
    assert_eq!(m[0]["blocks"], json!([document("", "file-id:openai:file-1", "", None)]));
}

#[test]
fn responses_media_given_two_ways_read_the_first_and_report_the_other() {
    // §16.3: an `input_file` gives `file_data`, `file_url` or `file_id`; an `input_image`
    // `image_url` or `file_id`; a screenshot `image_url` or `file_id`. The first present is read;
    // another beside it is `dropped_unknown_field`.
    let user = |part: &str| format!(r#"{{"input":[{{"role":"user","content":[{part}]}}]}}"#);
    let (m, losses) = converted(
        RESPONSES,
        &user(
            r#"{"type":"input_file","file_data":"data:application/pdf;base64,JVBERg==","file_id":"file-1","filename":"a.pdf"}"#,
        ),
    );
    assert_eq!(losses, vec![(0, UNKNOWN)]);
    assert_eq!(m[0]["blocks"], json!([document("application/pdf", "a.pdf", "", Some("JVBERg=="))]));
    let (m, losses) =
        converted(RESPONSES, &user(r#"{"type":"input_file","file_url":"https://x.test/a.pdf","file_id":"file-1"}"#));
    assert_eq!(losses, vec![(0, UNKNOWN), (0, NOT_INLINE)]);
    assert_eq!(m[0]["blocks"], json!([document("", "https://x.test/a.pdf", "", None)]));
    let (m, losses) =
        converted(RESPONSES, &user(r#"{"type":"input_image","image_url":"https://x.test/i.png","file_id":"file-2"}"#));
    assert_eq!(losses, vec![(0, UNKNOWN)]);
    assert_eq!(m[0]["blocks"], json!([image("", "https://x.test/i.png", None)]));
    // Nothing beside the one read: nothing lost.
    assert_eq!(converted(RESPONSES, &user(r#"{"type":"input_image","image_url":null,"file_id":"file-2"}"#)).1, vec![]);

    let screenshot = |output: &str| {
        format!(
            r#"{{"input":[{{"type":"computer_call","call_id":"c","action":{{"type":"screenshot"}}}},
              {{"type":"computer_call_output","call_id":"c","output":{output}}}]}}"#
        )
    };
    let (m, losses) = converted(
        RESPONSES,
        &screenshot(r#"{"type":"computer_screenshot","image_url":"https://x.test/s.png","file_id":"file-3"}"#),
    );
    assert_eq!(losses, vec![(1, UNKNOWN)]);
    assert_eq!(m[1]["blocks"], json!([image("", "https://x.test/s.png", None)]));
    let (m, losses) = converted(RESPONSES, &screenshot(r#"{"type":"computer_screenshot","file_id":"file-3"}"#));
    assert_eq!(losses, vec![]);
    assert_eq!(m[1]["blocks"], json!([image("", "file-id:openai:file-3", None)]));
}

#[test]
fn responses_computer_call_reads_action_else_actions_and_reports_the_other() {
    // §16.3: a computer call's input is its `action`, or (the batched form) its `actions`; with
    // both, `actions` is not read: `dropped_unknown_field`. A field another client call does not
    // have (a shell call's `operation`) is unread too.
    let call = |fields: &str| format!(r#"{{"input":[{{"type":"computer_call","call_id":"c",{fields}}}]}}"#);
    let (m, losses) =
        converted(RESPONSES, &call(r#""action":{"type":"click","x":1,"y":2},"actions":[{"type":"wait"}]"#));
    assert_eq!(losses, vec![(0, UNKNOWN)]);
    assert_eq!(m[0]["blocks"][0]["input"], json!({"type":"click","x":1,"y":2}));
    let (m, losses) = converted(RESPONSES, &call(r#""action":null,"actions":[{"type":"wait"}]"#));
    assert_eq!(losses, vec![]);
    assert_eq!(m[0]["blocks"][0]["input"], json!([{"type":"wait"}]));
    let src =
        r#"{"input":[{"type":"shell_call","call_id":"s","action":{"commands":["ls"]},"operation":{"type":"x"}}]}"#;
    assert_eq!(converted(RESPONSES, src).1, vec![(0, UNKNOWN)]);
    // Neither: refused at `action`.
    let (rc, location, _) = strict(RESPONSES, &call(r#""status":"completed""#));
    assert_eq!((rc, location.as_str()), (LC_CONVERT_SHAPE, "input[0].action"));
}

#[test]
fn langchain_media_given_two_ways_read_the_first_and_report_the_other() {
    // §16.6: a standard media block gives `base64`, `url` or `file_id`; another beside the one
    // read is `dropped_unknown_field`.
    let src = r#"[{"type":"human","data":{"content":[
        {"type":"image","base64":"AAAA","mime_type":"image/png","url":"https://x.test/i.png"}]}}]"#;
    let (m, losses) = converted(LANGCHAIN, src);
    assert_eq!(losses, vec![(0, UNKNOWN)]);
    assert_eq!(m[0]["blocks"], json!([image("image/png", "", Some("AAAA"))]));
    let src = r#"[{"type":"human","data":{"content":[
        {"type":"file","url":"https://x.test/a.pdf","file_id":null,"mime_type":"application/pdf"}]}}]"#;
    assert_eq!(converted(LANGCHAIN, src).1, vec![(0, NOT_INLINE)]);
}

#[test]
fn null_cache_hints_report_nothing_in_every_format() {
    // G16.8: a member holding `null` (or `{}`) holds nothing; a cache hint that holds nothing asks
    // for no breakpoint, so dropping it loses nothing, in every format alike; a set hint is
    // `dropped_cache_control`.
    let cases: &[(i32, &str, &str)] = &[
        (
            CHAT,
            r#"[{"role":"user","content":[{"type":"text","text":"a","cache_control":HINT}]}]"#,
            r#"{"type":"ephemeral"}"#,
        ),
        (
            CHAT,
            r#"[{"role":"user","content":[{"type":"text","text":"a","prompt_cache_breakpoint":HINT}]}]"#,
            r#"{"type":"ephemeral"}"#,
        ),
        (CHAT, r#"[{"role":"user","content":"a","cache_control":HINT}]"#, r#"{"type":"ephemeral"}"#),
        (
            RESPONSES,
            r#"{"input":[{"role":"user","content":[{"type":"input_text","text":"a","prompt_cache_breakpoint":HINT}]}]}"#,
            r#"{"type":"ephemeral"}"#,
        ),
        (
            ANTHROPIC,
            r#"{"messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":HINT}]}]}"#,
            r#"{"type":"ephemeral"}"#,
        ),
        (
            ANTHROPIC,
            r#"{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r","cache_control":HINT}]}]}"#,
            r#"{"type":"ephemeral"}"#,
        ),
        (
            ANTHROPIC,
            r#"{"system":[{"type":"text","text":"s","cache_control":HINT}],"messages":[]}"#,
            r#"{"type":"ephemeral"}"#,
        ),
        (
            LANGCHAIN,
            r#"[{"type":"human","data":{"content":[{"type":"text","text":"a","cache_control":HINT}]}}]"#,
            r#"{"type":"ephemeral"}"#,
        ),
        (
            AI_SDK,
            r#"[{"role":"user","content":[{"type":"text","text":"a","providerOptions":{"anthropic":{"cacheControl":HINT}}}]}]"#,
            r#"{"type":"ephemeral"}"#,
        ),
        (
            AI_SDK,
            r#"[{"role":"user","content":"a","providerOptions":{"openai":{"promptCacheBreakpoint":HINT}}}]"#,
            "true",
        ),
    ];
    for &(format, template, set) in cases {
        let index = if template.starts_with(r#"{"system""#) { u64::MAX } else { 0 };
        for empty in ["null", "{}"] {
            let src = template.replace("HINT", empty);
            assert_eq!(converted(format, &src).1, vec![], "{src}");
        }
        let src = template.replace("HINT", set);
        assert_eq!(converted(format, &src).1, vec![(index, CACHE)], "{src}");
    }
}

#[test]
fn null_media_options_report_nothing() {
    // G16.8: an Anthropic image's `transformations` and a Gemini part's `videoMetadata` that hold
    // nothing drop nothing; set, they are `dropped_media_options`.
    let anthropic = r#"{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x.test/i.png"},"transformations":OPT}]}]}"#;
    let gemini = r#"{"contents":[{"role":"user","parts":[{"fileData":{"mimeType":"image/png","fileUri":"gs://b/i.png"},"videoMetadata":OPT}]}]}"#;
    for (format, template, set) in [(ANTHROPIC, anthropic, r#"[{"type":"crop"}]"#), (GEMINI, gemini, r#"{"fps":1}"#)] {
        assert_eq!(converted(format, &template.replace("OPT", "null")).1, vec![]);
        assert_eq!(converted(format, &template.replace("OPT", set)).1, vec![(0, ffi::LC_LOSS_DROPPED_MEDIA_OPTIONS)]);
    }
}

#[test]
fn ai_sdk_outputs_and_references_are_read_whole() {
    // §16.7: a `tool-result` reads 5's `output`, else 4's `result` and `isError`: 4's fields beside
    // an `output` are not read (`dropped_unknown_field`, G16.8's order).
    let src = r#"[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f",
        "output":{"type":"text","value":"new"},"result":"old"}]}]"#;
    let (m, losses) = converted(AI_SDK, src);
    assert_eq!(losses, vec![(0, UNKNOWN)]);
    assert_eq!(m[0]["blocks"], json!([{"type":"text","text":"new"}]));
    let src = r#"[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f","result":{"a":1},"isError":true}]}]"#;
    let (m, losses) = converted(AI_SDK, src);
    assert_eq!(losses, vec![]);
    assert_eq!((&m[0]["blocks"], &m[0]["is_error"]), (&json!([{"type":"text","text":"{\"a\":1}"}]), &json!(true)));

    // A reference record maps providers to id strings (G16.7): an id that is not a string is not
    // the SDK's shape (701), never left out of the pseudo-URL.
    let src = r#"[{"role":"user","content":[{"type":"file","mediaType":"application/pdf","data":{"type":"reference","reference":{"openai":"file-1","anthropic":7}}}]}]"#;
    let (rc, location, _) = strict(AI_SDK, src);
    assert_eq!((rc, location.as_str()), (LC_CONVERT_SHAPE, "[0].content[0].data.reference"));
    // A `content` output's value is an array of part objects: its elements have their place.
    let src = r#"[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f",
        "output":{"type":"content","value":[{"type":"text","text":"a"},"b"]}}]}]"#;
    let (rc, location, _) = strict(AI_SDK, src);
    assert_eq!((rc, location.as_str()), (LC_CONVERT_SHAPE, "[0].content[0].output.value[1]"));
    // A provider option that holds nothing is none; one that holds something is reported.
    let src = r#"[{"role":"user","content":"a","providerOptions":{"openai":{"user":null},"anthropic":{}}}]"#;
    assert_eq!(converted(AI_SDK, src).1, vec![]);
    let src = r#"[{"role":"user","content":"a","providerOptions":{"openai":{"user":"u"}}}]"#;
    assert_eq!(converted(AI_SDK, src).1, vec![(0, ffi::LC_LOSS_DROPPED_PROVIDER_OPTIONS)]);
}

#[test]
fn chat_reasoning_detail_keeps_a_summary_beside_its_text() {
    // G16.3: an `openrouter.reasoning_details` entry without the `text` (else the `summary`) and
    // `signature` that went into the block: a `summary` beside a `text` stays in the state.
    let src = r#"[{"role":"assistant","content":"x","reasoning_details":[
        {"type":"reasoning.text","text":"T","summary":"S","signature":"sig","format":"anthropic-claude-v1","index":0},
        {"type":"reasoning.summary","summary":"S2","format":"openai-responses-v1","index":1}]}]"#;
    let (m, losses) = converted(CHAT, src);
    assert_eq!(losses, vec![]);
    let blocks = &m[0]["blocks"];
    assert_eq!((&blocks[0]["thinking"], &blocks[0]["signature"]), (&json!("T"), &json!("sig")));
    assert_eq!(
        blocks[0]["provider_state"],
        json!({"type":"reasoning.text","summary":"S","format":"anthropic-claude-v1","index":0})
    );
    assert_eq!(blocks[1]["thinking"], json!("S2"));
    assert_eq!(
        blocks[1]["provider_state"],
        json!({"type":"reasoning.summary","format":"openai-responses-v1","index":1})
    );
}
