//! LangChain sources the review of 2026-12-03 found converted with a silent loss or refused
//! (docs/SPEC.md §16.6): each case gives the loss its table names, never nothing.

use loopcompact::ffi;
use serde_json::{Value, json};
use testkit::convert::{Converted, convert};
use testkit::status::LC_CONVERT_LOSS;

const LANGCHAIN: i32 = ffi::LC_FORMAT_LANGCHAIN;
const UNKNOWN_FIELD: i32 = ffi::LC_LOSS_DROPPED_UNKNOWN_FIELD;
const UNPARSEABLE: i32 = ffi::LC_LOSS_ARGUMENTS_UNPARSEABLE;

fn converted(src: &str) -> Converted {
    convert(LANGCHAIN, src.as_bytes(), 0).unwrap_or_else(|(rc, d)| panic!("{rc} {d:?}: {src}"))
}

fn wire(c: &Converted) -> Vec<Value> {
    serde_json::from_slice(&c.transcript).unwrap()
}

/// The `(id, name, input)` of every tool_use block of wire message `m`, in order.
fn calls(m: &Value) -> Vec<(Value, Value, Value)> {
    m["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| (b["id"].clone(), b["name"].clone(), b["input"].clone()))
        .collect()
}

#[test]
fn a_tool_message_artifact_is_reported() {
    // §16.6: `tool` {tool_call_id, content, status, artifact} → `tool`; non-null `artifact`:
    // `dropped_unknown_field`, at the source index of the ToolMessage (G16.8). A null artifact
    // (every ToolMessage made without one) holds nothing.
    let src = r#"[
      {"type":"ai","data":{"content":"","tool_calls":[{"id":"a","name":"f","args":{}},{"id":"b","name":"f","args":{}}]}},
      {"type":"tool","data":{"content":"r","tool_call_id":"a","artifact":{"rows":[1,2,3]}}},
      {"type":"tool","data":{"content":"s","tool_call_id":"b","artifact":null}}]"#;
    let c = converted(src);
    assert_eq!(c.losses, vec![(1, UNKNOWN_FIELD)]);
    let m = wire(&c);
    assert_eq!(
        (&m[1]["role"], &m[1]["tool_use_id"], &m[1]["blocks"]),
        (&json!("tool"), &json!("a"), &json!([{"type":"text","text":"r"}]))
    );

    // Strict: the first loss refuses, at the artifact (G16.8).
    let (rc, d) = convert(LANGCHAIN, src.as_bytes(), ffi::LC_CONVERT_STRICT).err().unwrap();
    assert_eq!(
        (rc, d.location.as_str(), d.expected.as_str()),
        (LC_CONVERT_LOSS, "[1].artifact", "dropped_unknown_field")
    );
}

#[test]
fn a_repeated_tool_calls_id_keeps_both_calls() {
    // G16.1: no call is dropped to make the transcript pair; §16.6's pairing is S14.3 on a
    // one-to-one mapping, so the repeated id is for pairing to report, as with Chat.
    let c = converted(
        r#"[{"type":"ai","data":{"content":"","tool_calls":[
          {"id":"a","name":"f","args":{"x":1}},{"id":"a","name":"g","args":{}}]}}]"#,
    );
    assert_eq!(
        calls(&wire(&c)[0]),
        vec![(json!("a"), json!("f"), json!({"x":1})), (json!("a"), json!("g"), json!({}))]
    );
    assert!(c.losses.is_empty());
}

#[test]
fn a_content_call_repeated_in_tool_calls_is_one_call() {
    // §16.6: a `tool_use` content block with the same id as a `tool_calls` entry is the same
    // call: once. A second `tool_calls` entry with that id is another call and stays.
    let c = converted(
        r#"[{"type":"ai","data":{"content":[{"type":"tool_use","id":"a","name":"f","input":{"x":1}}],
          "tool_calls":[{"id":"a","name":"f","args":{"x":1}},{"id":"a","name":"f","args":{"x":2}}]}}]"#,
    );
    assert_eq!(
        calls(&wire(&c)[0]),
        vec![(json!("a"), json!("f"), json!({"x":1})), (json!("a"), json!("f"), json!({"x":2}))]
    );
    assert!(c.losses.is_empty());
}

#[test]
fn invalid_tool_calls_keep_their_args_text_as_a_string() {
    // §16.6: `invalid_tool_calls[k]` → tool_use, `input` the `args` text as a JSON string, with
    // `arguments_unparseable`: also when the text would parse (the call was invalid for another
    // reason, here a schema error). `args` null has no text: the value stays `null` (J5.9: the
    // input may be any JSON value), still with the loss.
    let c = converted(
        r#"[{"type":"ai","data":{"content":"","invalid_tool_calls":[
          {"type":"invalid_tool_call","id":"a","name":"f","args":"{\"x\": 1}","error":"schema"},
          {"type":"invalid_tool_call","id":"b","name":"g","args":null,"error":"bad"}]}}]"#,
    );
    assert_eq!(
        calls(&wire(&c)[0]),
        vec![(json!("a"), json!("f"), json!("{\"x\": 1}")), (json!("b"), json!("g"), Value::Null)]
    );
    assert_eq!(c.losses, vec![(0, UNPARSEABLE), (0, UNPARSEABLE)]);
}

#[test]
fn tool_calls_args_that_are_not_objects_are_copied() {
    // G16.4: LangChain `args` are copied as raw JSON; the wire's input is any JSON value (J5.9),
    // so a string or an array is the input as it is (nothing dropped, so no loss).
    let c = converted(
        r#"[{"type":"ai","data":{"content":"","tool_calls":[
          {"id":"a","name":"f","args":"{\"x\":1}"},{"id":"b","name":"f","args":[1,2]},{"id":"c","name":"f","args":null}]}}]"#,
    );
    assert_eq!(
        calls(&wire(&c)[0]),
        vec![
            (json!("a"), json!("f"), json!("{\"x\":1}")),
            (json!("b"), json!("f"), json!([1, 2])),
            (json!("c"), json!("f"), Value::Null)
        ]
    );
    assert!(c.losses.is_empty());
}

#[test]
fn chunk_types_are_their_messages() {
    // G16.11: the hosts accept the SDK's objects serialised as the SDK writes them, and
    // `message_to_dict` of an AIMessageChunk writes `"type": "AIMessageChunk"`: it is an `ai`
    // message (→ `assistant`, G16.1), a HumanMessageChunk a `human` one (→ `user`).
    let c = converted(
        r#"[{"type":"HumanMessageChunk","data":{"content":"hi","type":"HumanMessageChunk"}},
          {"type":"AIMessageChunk","data":{"content":"hello","type":"AIMessageChunk",
           "tool_calls":[{"id":"c1","name":"f","args":{"a":1}}],
           "tool_call_chunks":[{"id":"c1","name":"f","args":"{\"a\":1}","index":0}]}},
          {"type":"tool","data":{"content":"r","tool_call_id":"c1"}}]"#,
    );
    let m = wire(&c);
    assert_eq!(m[0], json!({"role":"user","blocks":[{"type":"text","text":"hi"}]}));
    assert_eq!(m[1]["role"], "assistant");
    assert_eq!(m[1]["blocks"][0], json!({"type":"text","text":"hello"}));
    assert_eq!(calls(&m[1]), vec![(json!("c1"), json!("f"), json!({"a":1}))]);
    assert!(c.losses.is_empty());
}

#[test]
fn other_additional_kwargs_are_reported() {
    // §16.6 maps `additional_kwargs.refusal` only; G16.8: a field of a known object the converter
    // does not map and that is not metadata is `dropped_unknown_field`, at its message. Empty
    // members (`"refusal": null` on every ChatOpenAI message, `{}`) hold nothing to lose.
    let src = r#"[
      {"type":"ai","data":{"content":"","additional_kwargs":{"refusal":null,"function_call":{"name":"f","arguments":"{}"}}}},
      {"type":"ai","data":{"content":"ok","additional_kwargs":{"reasoning_content":"I think"}}},
      {"type":"ai","data":{"content":"","additional_kwargs":{"refusal":"No."}}},
      {"type":"human","data":{"content":"x","additional_kwargs":{}}}]"#;
    let c = converted(src);
    assert_eq!(c.losses, vec![(0, UNKNOWN_FIELD), (1, UNKNOWN_FIELD)]);
    let m = wire(&c);
    assert_eq!(m[1]["blocks"], json!([{"type":"text","text":"ok"}]));
    assert_eq!(m[2]["blocks"], json!([{"type":"refusal","text":"No."}]));

    let (rc, d) = convert(LANGCHAIN, src.as_bytes(), ffi::LC_CONVERT_STRICT).err().unwrap();
    assert_eq!(
        (rc, d.location.as_str(), d.expected.as_str()),
        (LC_CONVERT_LOSS, "[0].additional_kwargs", "dropped_unknown_field")
    );
}

#[test]
fn reasoning_texts_are_joined_with_separators_between_texts_only() {
    // §16.3 (a Responses reasoning item kept in LangChain content): the summary texts joined by
    // `\n\n`: a separator stands between two texts, so a first part without text adds none.
    let c = converted(
        r#"[{"type":"ai","data":{"content":[{"type":"reasoning","id":"rs_1",
          "summary":[{"type":"other"},{"type":"summary_text","text":"B"},{"type":"summary_text","text":"C"}]}]}}]"#,
    );
    let m = wire(&c);
    assert_eq!((&m[0]["blocks"][0]["type"], &m[0]["blocks"][0]["thinking"]), (&json!("thinking"), &json!("B\n\nC")));
}

#[test]
fn chat_parts_in_content_convert_as_chat_converts_them() {
    // §16.6: provider-native blocks convert as §16.2 says: `image_url` with `detail` other than
    // `auto`: `dropped_media_options`; a `file` part `{file: {file_data, filename}}` is a document
    // (`file_data` a data URL gives the media type and bytes, G16.7), by `file_id`
    // `document_not_inline` with the pseudo-URL `file-id:openai:<id>` as its name.
    let c = converted(
        r#"[{"type":"human","data":{"content":[
          {"type":"image_url","image_url":{"url":"https://x.test/a.png","detail":"high"}},
          {"type":"image_url","image_url":{"url":"https://x.test/b.png","detail":"auto"}},
          {"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERg==","filename":"a.pdf"}},
          {"type":"file","file":{"file_id":"file-9"}}]}}]"#,
    );
    assert_eq!(c.losses, vec![(0, ffi::LC_LOSS_DROPPED_MEDIA_OPTIONS), (0, ffi::LC_LOSS_DOCUMENT_NOT_INLINE)]);
    let b = &wire(&c)[0]["blocks"];
    assert_eq!(b[0]["source"]["url"], "https://x.test/a.png");
    assert_eq!(b[1]["source"]["url"], "https://x.test/b.png");
    assert_eq!(
        b[2],
        json!({"type":"document","media_type":"application/pdf","name":"a.pdf","data":"JVBERg==","text":""})
    );
    assert_eq!(
        (&b[3]["type"], &b[3]["name"], &b[3]["data"]),
        (&json!("document"), &json!("file-id:openai:file-9"), &Value::Null)
    );
}

#[test]
fn anthropic_media_and_chat_audio_in_content_convert_as_their_providers() {
    // §16.6: provider-native blocks as §16.4 (Anthropic `image` / `document` with a `source`) and
    // §16.2 (`input_audio`, format `wav` is audio/wav) convert them.
    let c = converted(
        r#"[{"type":"human","data":{"content":[
          {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
          {"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"},"title":"n.txt"},
          {"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}}]"#,
    );
    assert_eq!(c.losses, vec![]);
    let b = &wire(&c)[0]["blocks"];
    assert_eq!(
        (&b[0]["type"], &b[0]["media_type"], &b[0]["source"]["data"]),
        (&json!("image"), &json!("image/png"), &json!("iVBORw0KGgo="))
    );
    assert_eq!((&b[1]["type"], &b[1]["name"], &b[1]["text"]), (&json!("document"), &json!("n.txt"), &json!("notes")));
    assert_eq!(
        (&b[2]["type"], &b[2]["media_type"], &b[2]["data"]),
        (&json!("audio"), &json!("audio/wav"), &json!("UklGRg=="))
    );
}

#[test]
fn a_tool_call_without_id_gets_one_made_from_its_place() {
    // LangChain's ToolCall and InvalidToolCall allow `id: None`. G16.6: a call without an id
    // gets `langchain:<i>:<field>:<k>` (message i, `tool_calls` / `invalid_tool_calls` /
    // `content`, index k) with the loss `synthesized_tool_id`.
    let c = converted(
        r#"[{"type":"human","data":{"content":"go"}},
          {"type":"ai","data":{"content":"","tool_calls":[{"id":null,"name":"f","args":{"a":1}},{"name":"g","args":{}}],
           "invalid_tool_calls":[{"id":null,"name":"h","args":"{bad","error":null}]}}]"#,
    );
    let m = wire(&c);
    assert_eq!(
        calls(&m[1]),
        vec![
            (json!("langchain:1:tool_calls:0"), json!("f"), json!({"a":1})),
            (json!("langchain:1:tool_calls:1"), json!("g"), json!({})),
            (json!("langchain:1:invalid_tool_calls:0"), json!("h"), json!("{bad")),
        ]
    );
    let synthesized = ffi::LC_LOSS_SYNTHESIZED_TOOL_ID;
    assert_eq!(c.losses, vec![(1, synthesized), (1, synthesized), (1, synthesized), (1, UNPARSEABLE)]);
}

#[test]
fn tool_call_blocks_in_content_are_calls() {
    // §16.6: a `tool_call` content block (LangChain's v1 standard block) is a tool_use in its
    // place; a `tool_calls` entry with the same id is the same call, counted once. So a message
    // whose calls are only in its content keeps them. An `invalid_tool_call` block is as an
    // `invalid_tool_calls` entry.
    let c = converted(
        r#"[{"type":"ai","data":{"content":[{"type":"text","text":"t"},
            {"type":"tool_call","id":"c1","name":"f","args":{"a":1}},
            {"type":"invalid_tool_call","id":"c2","name":"g","args":"{x","error":"bad"}],
           "tool_calls":[]}},
          {"type":"ai","data":{"content":[{"type":"tool_call","id":"c3","name":"f","args":{},"index":0,"extras":{"toolset_name":null}}],
           "tool_calls":[{"id":"c3","name":"f","args":{},"type":"tool_call"}]}},
          {"type":"ai","data":{"content":[{"type":"tool_call","id":null,"name":"f","args":{}}],"tool_calls":[{"id":null,"name":"f","args":{}}]}}]"#,
    );
    let m = wire(&c);
    assert_eq!(m[0]["blocks"][0], json!({"type":"text","text":"t"}));
    assert_eq!(calls(&m[0]), vec![(json!("c1"), json!("f"), json!({"a":1})), (json!("c2"), json!("g"), json!("{x"))]);
    assert_eq!(calls(&m[1]), vec![(json!("c3"), json!("f"), json!({}))]);
    // Without ids, the block and the entry are the same call too (the first such of each, in
    // order): one call, its id made from the block's place.
    assert_eq!(calls(&m[2]), vec![(json!("langchain:2:content:0"), json!("f"), json!({}))]);
    assert_eq!(c.losses, vec![(0, UNPARSEABLE), (2, ffi::LC_LOSS_SYNTHESIZED_TOOL_ID)]);
}

#[test]
fn a_tool_call_chunk_block_of_no_call_of_the_message_is_reported() {
    // §16.6: a `tool_call_chunk` block is a piece of a call LangChain parses into `tool_calls` or
    // `invalid_tool_calls`; one whose id no call of the message has holds a call the message does
    // not: `unknown_content_dropped` (G16.8), never nothing.
    let c = converted(
        r#"[{"type":"AIMessageChunk","data":{"content":[{"type":"tool_call_chunk","id":"c1","name":"f","args":"{\"a\":1}","index":0},
            {"type":"tool_call_chunk","id":"c9","name":"g","args":"{","index":1}],
           "tool_calls":[{"id":"c1","name":"f","args":{"a":1}}]}}]"#,
    );
    assert_eq!(calls(&wire(&c)[0]), vec![(json!("c1"), json!("f"), json!({"a":1}))]);
    assert_eq!(c.losses, vec![(0, ffi::LC_LOSS_UNKNOWN_CONTENT_DROPPED)]);
}

/// §16.6: an Anthropic `tool_use` kept in an AI message's content whose call `tool_calls` lists
/// takes that entry's `args` (LangChain's parsed arguments, what langchain-anthropic sends): a
/// streamed ChatAnthropic message holds `input: {}` and the arguments' text in `partial_json`,
/// and a host that edits a call before it runs (LangGraph's human in the loop) edits `tool_calls`.
#[test]
fn a_tool_use_block_takes_the_args_tool_calls_lists() {
    let streamed = converted(
        r#"[{"type":"ai","data":{"content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{},"index":0,"partial_json":"{\"a\":1}"}],
            "tool_calls":[{"id":"toolu_1","name":"f","args":{"a":1},"type":"tool_call"}]}},
           {"type":"tool","data":{"content":"ok","tool_call_id":"toolu_1"}}]"#,
    );
    assert_eq!(calls(&wire(&streamed)[0]), vec![(json!("toolu_1"), json!("f"), json!({"a": 1}))]);
    assert_eq!(streamed.losses, vec![]);
    let edited = converted(
        r#"[{"type":"ai","data":{"content":[{"type":"text","text":"paying"},{"type":"tool_use","id":"toolu_1","name":"transfer","input":{"amount":100}}],
            "tool_calls":[{"id":"toolu_1","name":"transfer","args":{"amount":5}}]}},
           {"type":"tool","data":{"content":"done","tool_call_id":"toolu_1"}}]"#,
    );
    let w = wire(&edited);
    assert_eq!(calls(&w[0]), vec![(json!("toolu_1"), json!("transfer"), json!({"amount": 5}))]);
    // In the content's place, after the text, and once.
    assert_eq!(w[0]["blocks"][0]["type"], "text");
    assert_eq!(w[0]["blocks"].as_array().unwrap().len(), 2);
    // Without a tool_calls entry the block's own input stays.
    let alone = converted(
        r#"[{"type":"ai","data":{"content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{"b":2}}]}},
           {"type":"tool","data":{"content":"ok","tool_call_id":"toolu_1"}}]"#,
    );
    assert_eq!(calls(&wire(&alone)[0]), vec![(json!("toolu_1"), json!("f"), json!({"b": 2}))]);
}

#[test]
fn gemini_call_signatures_in_additional_kwargs_go_to_their_calls() {
    // §16.6, G16.3: langchain-google-genai keeps a call's Gemini thought signature in
    // `additional_kwargs.__gemini_function_call_thought_signatures__`, by call id. Each goes into
    // its call's tool_use as a Gemini functionCall part's provider state, byte for byte, with no
    // loss; a call without an entry has none.
    let src = r#"[{"type":"human","data":{"content":"Weather?","type":"human"}},
        {"type":"ai","data":{"content":"","type":"ai",
          "additional_kwargs":{"__gemini_function_call_thought_signatures__":{"call_a":"c2ln\/LWE=","call_c":"c2lnLWM="}},
          "tool_calls":[{"name":"get","args":{"city":"Paris"},"id":"call_a","type":"tool_call"},
                        {"name":"get","args":{"city":"Oslo"},"id":"call_b","type":"tool_call"}],
          "invalid_tool_calls":[{"name":"get","args":"{","id":"call_c","error":null,"type":"invalid_tool_call"}]}}]"#;
    let c = converted(src);
    assert_eq!(c.losses, vec![(1, UNPARSEABLE)]);
    let blocks = &wire(&c)[1]["blocks"];
    assert_eq!(
        blocks,
        &json!([
            {"type":"tool_use","id":"call_a","name":"get","input":{"city":"Paris"},
             "provider_state":{"thoughtSignature":"c2ln/LWE="},"provider_state_format":"gemini.part"},
            {"type":"tool_use","id":"call_b","name":"get","input":{"city":"Oslo"}},
            {"type":"tool_use","id":"call_c","name":"get","input":"{",
             "provider_state":{"thoughtSignature":"c2lnLWM="},"provider_state_format":"gemini.part"}
        ])
    );
    // A v1 `tool_call` content block is the same call, and gets the same signature.
    let v1 = r#"[{"type":"ai","data":{"type":"ai",
          "content":[{"type":"tool_call","name":"get","args":{"city":"Paris"},"id":"call_a"}],
          "additional_kwargs":{"__gemini_function_call_thought_signatures__":{"call_a":"c2lnLWE="}},
          "tool_calls":[{"name":"get","args":{"city":"Paris"},"id":"call_a","type":"tool_call"}]}}]"#;
    let c = converted(v1);
    assert_eq!(c.losses, vec![]);
    assert_eq!(wire(&c)[0]["blocks"][0]["provider_state"], json!({"thoughtSignature":"c2lnLWE="}));
}

#[test]
fn a_signature_with_no_call_or_not_a_string_is_reported() {
    // §16.6: an entry of the map whose id no call of the message has, or whose value is not a
    // string, has nowhere to go: `dropped_unknown_field`; the entries that do go to their calls.
    for map in [r#"{"call_a":"c2ln","call_z":"c2lnLXo="}"#, r#"{"call_a":"c2ln","call_b":1}"#, r#""c2ln""#] {
        let src = format!(
            r#"[{{"type":"ai","data":{{"content":"","type":"ai",
              "additional_kwargs":{{"__gemini_function_call_thought_signatures__":{map}}},
              "tool_calls":[{{"name":"get","args":{{}},"id":"call_a","type":"tool_call"}},
                            {{"name":"get","args":{{}},"id":"call_b","type":"tool_call"}}]}}}}]"#
        );
        let c = converted(&src);
        assert_eq!(c.losses, vec![(0, UNKNOWN_FIELD)], "{map}");
        let kept = wire(&c)[0]["blocks"][0].get("provider_state").cloned();
        assert_eq!(kept, map.starts_with('{').then(|| json!({"thoughtSignature":"c2ln"})), "{map}");
    }
    // On a message that is not an AI message, the map is not read.
    let human = r#"[{"type":"human","data":{"content":"x","type":"human",
          "additional_kwargs":{"__gemini_function_call_thought_signatures__":{"call_a":"c2ln"}}}}]"#;
    assert_eq!(converted(human).losses, vec![(0, UNKNOWN_FIELD)]);
}

#[test]
fn openai_function_call_ids_are_metadata() {
    // §16.6: langchain-openai's `__openai_function_call_ids__` maps the calls' ids to the ids of
    // their Responses `function_call` items, which §16.3 reads as metadata: no loss, no block.
    let src = r#"[{"type":"ai","data":{"content":"","type":"ai",
          "additional_kwargs":{"__openai_function_call_ids__":{"call_a":"fc_1"}},
          "tool_calls":[{"name":"ls","args":{"path":"/tmp"},"id":"call_a","type":"tool_call"}]}},
        {"type":"tool","data":{"content":"a.txt","type":"tool","tool_call_id":"call_a"}}]"#;
    let c = converted(src);
    assert_eq!(c.losses, vec![]);
    assert_eq!(wire(&c)[0]["blocks"], json!([{"type":"tool_use","id":"call_a","name":"ls","input":{"path":"/tmp"}}]));
}

#[test]
fn a_gemini_text_signature_in_extras_is_kept_before_its_text() {
    // §16.6, G16.3: langchain-google-genai keeps a text part's thought signature in the text
    // block's `extras.signature`: an empty thinking block carrying it, right before the text, with
    // the format `model_provider` names; nothing is lost. In a human message it is not read.
    let ai = r#"[{"type":"ai","data":{"type":"ai","response_metadata":{"model_provider":"google_genai"},
        "content":[{"type":"text","text":"Paris is 18C.","extras":{"signature":"c2lnL3Q+"}}]}}]"#;
    let c = converted(ai);
    assert_eq!(c.losses, vec![]);
    assert_eq!(
        wire(&c)[0]["blocks"],
        json!([
            {"type":"thinking","thinking":"","signature":"c2lnL3Q+","signature_format":"gemini.thought_signature"},
            {"type":"text","text":"Paris is 18C."}
        ])
    );
    // Beside the signature, another member of `extras` is still a loss; a signature that is not
    // a string is one too, and keeps no block.
    let more = ai.replace(r#""signature":"c2lnL3Q+""#, r#""signature":"c2lnL3Q+","trace":1"#);
    assert_eq!(converted(&more).losses, vec![(0, UNKNOWN_FIELD)]);
    let odd = ai.replace(r#""signature":"c2lnL3Q+""#, r#""signature":7"#);
    let c = converted(&odd);
    assert_eq!((c.losses.clone(), wire(&c)[0]["blocks"].as_array().unwrap().len()), (vec![(0, UNKNOWN_FIELD)], 1));
    let human = ai.replace(r#""type":"ai""#, r#""type":"human""#);
    assert_eq!(converted(&human).losses, vec![(0, UNKNOWN_FIELD)]);
}
