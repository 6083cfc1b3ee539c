//! Gemini sources the review of 2026-12-03 found converted with a silent loss or in quadratic time
//! (docs/SPEC.md §16.5): id-less calls and responses matched by name (G16.6), parts holding two
//! data fields, the parts of a function response, the system instruction's `parts`, and a part
//! holding only a thought signature (G16.3). Every expectation is written from the rule's text.

use loopcompact::ffi;
use serde_json::{Value, json};
use testkit::convert::{Converted, convert};
use testkit::status::{LC_CONVERT_LOSS, LC_CONVERT_SHAPE};

const GEMINI: i32 = ffi::LC_FORMAT_GEMINI;

fn converted(src: &str) -> Converted {
    convert(GEMINI, src.as_bytes(), 0).unwrap_or_else(|(rc, d)| panic!("{rc} {d:?}: {src}"))
}

fn wire(c: &Converted) -> Vec<Value> {
    serde_json::from_slice(&c.transcript).unwrap()
}

/// (status, location, rule, expected) of a refused conversion.
fn refusal(src: &str, flags: u32) -> (i32, String, String, String) {
    let (rc, d) = convert(GEMINI, src.as_bytes(), flags).err().unwrap_or_else(|| panic!("converted: {src}"));
    (rc, d.location, d.rule, d.expected)
}

#[test]
fn id_less_responses_answer_the_first_open_call_with_their_name_at_scale() {
    // G16.6: a call without id in content i, part k is `gemini:<i>:<k>`; a response without id
    // answers the first open call of the previous model turn with its name, in order, and
    // `gemini:?:<name>` when there is none. 50,000 calls alternate the names f and g (f at even
    // parts, g at odd ones); the responses name every g first, then every f, then one f too many.
    const PAIRS: usize = 50_000;
    let calls: Vec<String> = (0..PAIRS)
        .map(|k| format!(r#"{{"functionCall":{{"name":"{}","args":{{}}}}}}"#, if k % 2 == 0 { "f" } else { "g" }))
        .collect();
    let response = |name: &str| format!(r#"{{"functionResponse":{{"name":"{name}","response":{{}}}}}}"#);
    let mut responses: Vec<String> = Vec::with_capacity(PAIRS + 1);
    responses.extend((0..PAIRS / 2).map(|_| response("g")));
    responses.extend((0..PAIRS / 2 + 1).map(|_| response("f")));
    let src = format!(
        r#"{{"contents":[{{"role":"model","parts":[{}]}},{{"role":"user","parts":[{}]}}]}}"#,
        calls.join(","),
        responses.join(",")
    );
    let c = converted(&src);
    let m = wire(&c);
    // G16.1: the model turn, then one tool message per response, in source order.
    assert_eq!(m.len(), 1 + PAIRS + 1);
    let uses = m[0]["blocks"].as_array().unwrap();
    assert_eq!(uses.len(), PAIRS);
    for (k, u) in uses.iter().enumerate() {
        assert_eq!(u["id"], format!("gemini:0:{k}"), "call {k}");
    }
    // The j-th g response answers the j-th g call (part 2j+1); the j-th f response the j-th f
    // call (part 2j).
    for j in 0..PAIRS / 2 {
        assert_eq!(m[1 + j]["tool_use_id"], format!("gemini:0:{}", 2 * j + 1), "g response {j}");
        assert_eq!(m[1 + PAIRS / 2 + j]["tool_use_id"], format!("gemini:0:{}", 2 * j), "f response {j}");
    }
    assert_eq!(m[PAIRS + 1]["tool_use_id"], "gemini:?:f");
    // One synthesized_tool_id per call without id, at the model turn; the responses lose nothing.
    assert_eq!(c.losses.len(), PAIRS);
    assert!(c.losses.iter().all(|&l| l == (0, ffi::LC_LOSS_SYNTHESIZED_TOOL_ID)));
}

#[test]
fn a_later_model_turn_closes_the_open_calls() {
    // "the first open call of the previous model turn": a model turn in between leaves none open.
    let src = r#"{"contents":[
      {"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},
      {"role":"model","parts":[{"text":"more"}]},
      {"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}"#;
    let m = wire(&converted(src));
    assert_eq!(m[2]["tool_use_id"], "gemini:?:f");
}

#[test]
fn a_part_with_two_data_fields_is_refused_at_the_second() {
    // A Gemini Part carries one member of its `data` oneof (text, inlineData, fileData,
    // functionCall, functionResponse, ...); converting only one of two would drop the other
    // silently, which G16.8 forbids, so the part is refused as a shape error at the later field.
    let cases = [
        (
            r#"{"contents":[{"role":"model","parts":[{"text":"hi","functionCall":{"name":"f","args":{}}}]}]}"#,
            "contents[0].parts[0].functionCall",
        ),
        (
            r#"{"contents":[{"role":"user","parts":[{"text":"a"},{"text":"hi","inlineData":{"mimeType":"image/png","data":"AAAA"}}]}]}"#,
            "contents[0].parts[1].inlineData",
        ),
        (
            r#"{"contents":[{"role":"user","parts":[{"functionResponse":{"id":"c","name":"f","response":{}},"text":"x"}]}]}"#,
            "contents[0].parts[0].text",
        ),
        (
            r#"{"system_instruction":{"parts":[{"fileData":{"fileUri":"gs://b/x.png","mimeType":"image/png"},"text":"s"}]},"contents":[]}"#,
            "system_instruction.parts[0].text",
        ),
    ];
    for (src, location) in cases {
        let (rc, at, rule, _) = refusal(src, 0);
        assert_eq!((rc, at.as_str(), rule.as_str()), (LC_CONVERT_SHAPE, location, "G16.8"), "{src}");
    }
    // A `null` member is an absent one (proto3 JSON), so a part with one data field and nulls for
    // the others, as an SDK's dump without `exclude_none` writes it, is one text.
    let m = wire(&converted(
        r#"{"contents":[{"role":"user","parts":[
          {"text":"hi","inlineData":null,"functionResponse":null},
          {"text":null,"inlineData":{"mimeType":"image/png","data":"AAAA"},"functionCall":null}]}]}"#,
    ));
    let blocks = m[0]["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!(blocks[0], json!({"type": "text", "text": "hi"}));
    assert_eq!((&blocks[1]["type"], &blocks[1]["source"]["data"]), (&json!("image"), &json!("AAAA")));
}

#[test]
fn function_response_parts_are_media_blocks_or_reported() {
    // §16.5: a function response is a tool message whose text block is the response's JSON, then
    // `parts` as media blocks. A file reference there is converted as a `fileData` part is
    // (G16.7: an image by URL, a document by URL with `document_not_inline`).
    let refs = r#"{"fileData":{"mimeType":"image/png","fileUri":"gs://b/x.png"}},
                  {"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/y.pdf"}}"#;
    let src = format!(
        r#"{{"contents":[
          {{"role":"model","parts":[{{"functionCall":{{"id":"c1","name":"f","args":{{}}}}}}]}},
          {{"role":"user","parts":[{{"functionResponse":{{"id":"c1","name":"f","response":{{"output":1}},"parts":[
            {refs},
            {{"inlineData":{{"mimeType":"image/png","data":"AAAA"}}}},
            {{"somethingNew":{{}}}}]}}}}]}}]}}"#
    );
    let c = converted(&src);
    let m = wire(&c);
    let as_parts = wire(&converted(&format!(r#"{{"contents":[{{"role":"user","parts":[{refs}]}}]}}"#)));
    let blocks = m[1]["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 4, "{blocks:?}");
    assert_eq!(blocks[0], json!({"type": "text", "text": "{\"output\":1}"}));
    assert_eq!(blocks[1..3], as_parts[0]["blocks"].as_array().unwrap()[..]);
    assert_eq!((&blocks[1]["type"], &blocks[1]["source"]["url"]), (&json!("image"), &json!("gs://b/x.png")));
    assert_eq!((&blocks[2]["type"], &blocks[2]["data"]), (&json!("document"), &Value::Null));
    // Inline bytes: standard padded base64 (G16.7).
    assert_eq!((&blocks[3]["type"], &blocks[3]["source"]["data"]), (&json!("image"), &json!("AAAA")));
    // The PDF by URI and the part of an unknown kind are reported at the user content (index 1).
    assert_eq!(c.losses, [(1, ffi::LC_LOSS_DOCUMENT_NOT_INLINE), (1, ffi::LC_LOSS_UNKNOWN_CONTENT_DROPPED)]);

    // Strict: the first loss refuses, at its place.
    let (rc, at, _, expected) = refusal(&src, ffi::LC_CONVERT_STRICT);
    assert_eq!(
        (rc, at.as_str(), expected.as_str()),
        (LC_CONVERT_LOSS, "contents[1].parts[0].functionResponse.parts[1].fileData", "document_not_inline")
    );

    // A part that is not an object, and `parts` that is not an array, are not the format's shape.
    let head =
        r#"{"contents":[{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{},"parts":"#;
    let (rc, at, _, _) = refusal(&format!(r#"{head}[{{"inlineData":{{"data":"AAAA"}}}},7]}}}}]}}]}}"#), 0);
    assert_eq!((rc, at.as_str()), (LC_CONVERT_SHAPE, "contents[0].parts[0].functionResponse.parts[1]"));
    let (rc, at, _, _) = refusal(&format!(r#"{head}{{"inlineData":{{"data":"AAAA"}}}}}}}}]}}]}}"#), 0);
    assert_eq!((rc, at.as_str()), (LC_CONVERT_SHAPE, "contents[0].parts[0].functionResponse.parts"));
    // A FunctionResponsePart's data is a oneof too: bytes and a reference at once are refused.
    let both = format!(
        r#"{head}[{{"inlineData":{{"data":"AAAA"}},"fileData":{{"fileUri":"gs://b/x.png","mimeType":"image/png"}}}}]}}}}]}}]}}"#
    );
    let (rc, at, _, _) = refusal(&both, 0);
    assert_eq!((rc, at.as_str()), (LC_CONVERT_SHAPE, "contents[0].parts[0].functionResponse.parts[0].fileData"));
}

#[test]
fn system_instruction_parts_must_be_an_array() {
    // §16.5: `system_instruction` is a Content, whose `parts` is an array of parts.
    let (rc, at, rule, _) = refusal(r#"{"system_instruction":{"parts":"abc"},"contents":[]}"#, 0);
    assert_eq!((rc, at.as_str(), rule.as_str()), (LC_CONVERT_SHAPE, "system_instruction.parts", "G16.8"));
    // G16.2: the system parameter's message comes first.
    let m = wire(&converted(
        r#"{"system_instruction":{"parts":[{"text":"S"}]},"contents":[{"role":"user","parts":[{"text":"u"}]}]}"#,
    ));
    assert_eq!(m[0], json!({"role": "system", "blocks": [{"type": "text", "text": "S"}]}));
}

#[test]
fn a_part_holding_only_a_thought_signature_keeps_it() {
    // G16.3: `signature_format` `gemini.thought_signature` on a thinking block holds the part's
    // `thoughtSignature`, the same decoded string; a part that is not a thought gets an empty
    // thinking block carrying it before its own block. A part with no block of its own keeps that
    // thinking block alone, and nothing is lost.
    let src = r#"{"contents":[{"role":"model","parts":[{"text":"answer"},{"thoughtSignature":"c2ln\/+\u003d"}]}]}"#;
    let c = converted(src);
    assert_eq!(c.losses, []);
    let blocks = wire(&c)[0]["blocks"].clone();
    assert_eq!(
        blocks,
        json!([
            {"type": "text", "text": "answer"},
            {"type": "thinking", "thinking": "", "signature": "c2ln/+=", "signature_format": "gemini.thought_signature"}
        ])
    );
    // Strict converts it too: nothing was dropped.
    assert!(convert(GEMINI, src.as_bytes(), ffi::LC_CONVERT_STRICT).is_ok());

    // Beside a member of a kind the converter does not know, the signature is still kept and the
    // unknown content is reported.
    let c = converted(r#"{"contents":[{"role":"model","parts":[{"thoughtSignature":"s","somethingNew":{}}]}]}"#);
    assert_eq!(wire(&c)[0]["blocks"][0]["signature"], "s");
    assert_eq!(c.losses, [(0, ffi::LC_LOSS_UNKNOWN_CONTENT_DROPPED)]);
}

#[test]
fn an_id_less_response_takes_the_id_of_the_call_it_answers() {
    // G16.6: a `functionResponse` without `id` answers the first open call of the previous model
    // turn with its `name`, in order, and carries that call's id: the call's own (copied) when it
    // has one, the one made for it otherwise. A call with an id loses nothing; the response
    // neither.
    let c = converted(
        r#"{"contents":[
          {"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}},{"functionCall":{"name":"f","args":{}}}]},
          {"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":1}}},
                                  {"functionResponse":{"name":"f","response":{"output":2}}}]}]}"#,
    );
    let m = wire(&c);
    assert_eq!((&m[0]["blocks"][0]["id"], &m[0]["blocks"][1]["id"]), (&json!("c1"), &json!("gemini:0:1")));
    assert_eq!((&m[1]["tool_use_id"], &m[2]["tool_use_id"]), (&json!("c1"), &json!("gemini:0:1")));
    assert_eq!(c.losses, vec![(0, ffi::LC_LOSS_SYNTHESIZED_TOOL_ID)]);
}

#[test]
fn a_response_with_an_id_answers_its_call_else_the_first_open_call_without_id_of_its_name() {
    // §16.5 pairing: by id, else by name in order. A response with an id answers the open call
    // with that id (whatever their order); when no open call has it, the first open call of its
    // name that has no id (the call had none to give it: it takes the id made for the call, and
    // the call's `synthesized_tool_id` covers both). A call that has another id is not taken.
    let c = converted(
        r#"{"contents":[
          {"role":"model","parts":[{"functionCall":{"id":"a","name":"f","args":{}}},{"functionCall":{"id":"b","name":"f","args":{}}},
                                   {"functionCall":{"name":"g","args":{}}}]},
          {"role":"user","parts":[{"functionResponse":{"id":"b","name":"f","response":{}}},
                                  {"functionResponse":{"name":"f","response":{}}},
                                  {"functionResponse":{"id":"r","name":"g","response":{}}}]}]}"#,
    );
    let m = wire(&c);
    let ids: Vec<&Value> = m[1..].iter().map(|t| &t["tool_use_id"]).collect();
    assert_eq!(ids, [&json!("b"), &json!("a"), &json!("gemini:0:2")]);
    assert_eq!(c.losses, vec![(0, ffi::LC_LOSS_SYNTHESIZED_TOOL_ID)]);

    // An id no open call has, and no open call without id of its name: the response keeps its
    // id, and pairing reports the orphan (G16.14), as the source does not pair.
    let m = wire(&converted(
        r#"{"contents":[
          {"role":"model","parts":[{"functionCall":{"id":"a","name":"f","args":{}}}]},
          {"role":"user","parts":[{"functionResponse":{"id":"z","name":"f","response":{}}}]}]}"#,
    ));
    assert_eq!(m[1]["tool_use_id"], "z");
}

#[test]
fn a_second_response_with_an_answered_id_stays_a_second_result() {
    // G16.6: a response with an id answers the open call with that id, else, when no call of the
    // turn has the id, the first open call without id of its name. An id a call of the turn has,
    // already answered, is a second result (G16.14 reports it): it is not moved to another call.
    let m = wire(&converted(
        r#"{"contents":[
          {"role":"model","parts":[{"functionCall":{"id":"a","name":"f","args":{}}},{"functionCall":{"name":"f","args":{}}}]},
          {"role":"user","parts":[{"functionResponse":{"id":"a","name":"f","response":{}}},
                                  {"functionResponse":{"id":"a","name":"f","response":{}}}]}]}"#,
    ));
    assert_eq!((&m[1]["tool_use_id"], &m[2]["tool_use_id"]), (&json!("a"), &json!("a")));
}

#[test]
fn a_candidate_passed_instead_of_its_content_is_refused() {
    // §16.5: `response.candidates[0]` appended instead of `.content` has no `parts` and holds the
    // turn in `content`; read as a Content it would be an empty user turn. It is refused at its
    // element, and nothing of it is echoed.
    let candidate = r#"{"contents":[{"role":"user","parts":[{"text":"hello"}]},
        {"content":{"role":"model","parts":[{"text":"SECRET reply"}]},"finishReason":"STOP","index":0}]}"#;
    let (rc, location, _, expected) = refusal(candidate, 0);
    assert_eq!((rc, location.as_str()), (LC_CONVERT_SHAPE, "contents[1]"));
    assert!(expected.contains("Candidate") && !expected.contains("SECRET"), "{expected}");
    // The Content itself converts; so does a Content whose unknown `content` member is not an
    // object (a loss), and one that has `parts` beside such a member.
    let content = r#"{"contents":[{"role":"model","parts":[{"text":"hi"}]}]}"#;
    assert_eq!(wire(&converted(content))[0]["blocks"], json!([{"type":"text","text":"hi"}]));
    let odd = r#"{"contents":[{"role":"model","content":"x"}]}"#;
    assert_eq!(converted(odd).losses, vec![(0, ffi::LC_LOSS_DROPPED_UNKNOWN_FIELD)]);
    let both = r#"{"contents":[{"role":"model","parts":[{"text":"hi"}],"content":{"parts":[]}}]}"#;
    assert_eq!(converted(both).losses, vec![(0, ffi::LC_LOSS_DROPPED_UNKNOWN_FIELD)]);
}
