//! OpenAI Chat sources the review of 2026-12-03 found converted with a silent loss
//! (docs/SPEC.md §16.2). Every expectation is written from the rule's text.

use loopcompact::ffi;
use serde_json::{Value, json};
use testkit::convert::convert;

const CHAT: i32 = ffi::LC_FORMAT_OPENAI_CHAT;

#[test]
fn reasoning_content_and_reasoning_are_both_converted_unless_they_repeat() {
    // §16.2: the gateway strings `reasoning_content` and `reasoning` are thinking blocks first,
    // `reasoning_content` then `reasoning`; the same text under both (vLLM wrote both while it
    // renamed the field) is one block. Nothing is lost either way.
    let thinking = |src: &str| -> (Vec<Value>, Vec<(u64, i32)>) {
        let c = convert(CHAT, src.as_bytes(), 0).unwrap();
        let m: Vec<Value> = serde_json::from_slice(&c.transcript).unwrap();
        let t = m[0]["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "thinking")
            .map(|b| b["thinking"].clone());
        (t.collect(), c.losses.clone())
    };
    assert_eq!(
        thinking(r#"[{"role":"assistant","content":"x","reasoning_content":"A","reasoning":"B"}]"#),
        (vec![json!("A"), json!("B")], vec![])
    );
    assert_eq!(
        thinking(r#"[{"role":"assistant","content":"x","reasoning_content":"A","reasoning":"A"}]"#),
        (vec![json!("A")], vec![])
    );
    assert_eq!(thinking(r#"[{"role":"assistant","content":"x","reasoning":"B"}]"#), (vec![json!("B")], vec![]));
    // The thinking blocks come first, then the text.
    let c =
        convert(CHAT, br#"[{"role":"assistant","content":"x","reasoning_content":"A","reasoning":"B"}]"#, 0).unwrap();
    let m: Vec<Value> = serde_json::from_slice(&c.transcript).unwrap();
    assert_eq!(m[0]["blocks"][2], json!({"type":"text","text":"x"}));
}

/// The wire messages and losses of a Chat source.
fn converted(src: &str) -> (Vec<Value>, Vec<(u64, i32)>) {
    let c = convert(CHAT, src.as_bytes(), 0).unwrap_or_else(|(rc, d)| panic!("{rc} {d:?}: {src}"));
    (serde_json::from_slice(&c.transcript).unwrap(), c.losses.clone())
}

#[test]
fn gemini_thought_signatures_from_the_openai_compatible_endpoint_are_kept() {
    // §16.2, G16.3: Gemini's OpenAI-compatible endpoint writes each signature as
    // `extra_content.google.thought_signature`: a call's goes into its tool_use as the provider
    // state of a Gemini functionCall part, a message's into an empty thinking block first in it,
    // byte for byte (here with an escape and a `+/=` base64 tail), and nothing is lost.
    let (m, losses) = converted(
        r#"[{"role":"user","content":"Weather?"},
            {"role":"assistant","content":"Checking.","extra_content":{"google":{"thought_signature":"Q2hl\/Y2s+x="}},
             "tool_calls":[
               {"id":"call_a","type":"function","function":{"name":"get","arguments":"{\"city\":\"Paris\"}"},
                "extra_content":{"google":{"thought_signature":"c2lnLWE="}}},
               {"id":"call_b","type":"function","function":{"name":"get","arguments":"{\"city\":\"Oslo\"}"}}]},
            {"role":"tool","tool_call_id":"call_a","content":"18C"},
            {"role":"tool","tool_call_id":"call_b","content":"4C"}]"#,
    );
    assert_eq!(losses, vec![]);
    assert_eq!(
        m[1]["blocks"],
        json!([
            {"type":"thinking","thinking":"","signature":"Q2hl/Y2s+x=","signature_format":"gemini.thought_signature"},
            {"type":"text","text":"Checking."},
            {"type":"tool_use","id":"call_a","name":"get","input":{"city":"Paris"},
             "provider_state":{"thoughtSignature":"c2lnLWE="},"provider_state_format":"gemini.part"},
            {"type":"tool_use","id":"call_b","name":"get","input":{"city":"Oslo"}}
        ])
    );
}

#[test]
fn extra_content_other_than_a_signature_is_reported() {
    // §16.2: `extra_content` is read for the signature alone. Anything else it holds (another
    // member, a signature that is not a string) is `dropped_unknown_field`, once; so is an
    // `extra_content` on a message that is not an assistant's; one holding nothing loses nothing.
    const UNKNOWN: i32 = ffi::LC_LOSS_DROPPED_UNKNOWN_FIELD;
    for (src, expected) in [
        (r#"[{"role":"assistant","content":"x","extra_content":{"google":{"thought_signature":"s"},"trace":"t"}}]"#, 1),
        (r#"[{"role":"assistant","content":"x","extra_content":{"google":{"thought_signature":7}}}]"#, 1),
        (r#"[{"role":"assistant","content":"x","extra_content":"s"}]"#, 1),
        (r#"[{"role":"user","content":"x","extra_content":{"google":{"thought_signature":"s"}}}]"#, 1),
        (r#"[{"role":"user","content":"x","extra_content":{"google":{"thought_signature":"s"}},"x_trace":1}]"#, 1),
        (r#"[{"role":"assistant","content":"x","extra_content":{}}]"#, 0),
        (r#"[{"role":"assistant","content":"x","extra_content":{"google":{"thought_signature":""}}}]"#, 0),
        (r#"[{"role":"assistant","content":"x","extra_content":null}]"#, 0),
    ] {
        let (m, losses) = converted(src);
        assert_eq!(losses, vec![(0, UNKNOWN); expected], "{src}");
        // The signature kept beside a loss is still kept; no other is made up.
        let signed = m[0]["blocks"].as_array().unwrap().iter().any(|b| b["type"] == "thinking");
        assert_eq!(signed, src.contains(r#""thought_signature":"s"},"trace""#), "{src}");
    }
    // A signature repeated in its object is refused, as any repeated key outside tool inputs.
    let dup = r#"[{"role":"assistant","content":"x","extra_content":{"google":{"thought_signature":"a","thought_signature":"b"}}}]"#;
    let (rc, d) = convert(CHAT, dup.as_bytes(), 0).err().unwrap();
    assert_eq!((rc, d.location.as_str()), (testkit::status::LC_CONVERT_SHAPE, "messages[0].extra_content.google"));
}

#[test]
fn litellm_thinking_blocks_keep_their_signatures() {
    // §16.2: LiteLLM keeps Anthropic's thinking blocks in `thinking_blocks`, their text again in
    // `reasoning_content`. Each entry is a thinking block first in the message, as §16.4 converts
    // it (signature `anthropic`; a redacted block's data as `anthropic.redacted_thinking` state);
    // the repeated text is not read again; nothing is lost.
    let (m, losses) = converted(
        r#"[{"role":"assistant","content":"Listing.","reasoning_content":"Use ls.",
             "thinking_blocks":[{"type":"thinking","thinking":"Use ls.","signature":"c2lnL0E+"},
                                {"type":"redacted_thinking","data":"ZGF0YQ=="},
                                {"type":"thinking","thinking":"unsigned"}],
             "tool_calls":[{"id":"call_ls","type":"function","function":{"name":"ls","arguments":"{}"}}]},
            {"role":"tool","tool_call_id":"call_ls","content":"a.txt"}]"#,
    );
    assert_eq!(losses, vec![]);
    assert_eq!(
        m[0]["blocks"],
        json!([
            {"type":"thinking","thinking":"Use ls.","signature":"c2lnL0E+","signature_format":"anthropic"},
            {"type":"thinking","thinking":"","signature":"",
             "provider_state":{"data":"ZGF0YQ=="},"provider_state_format":"anthropic.redacted_thinking"},
            {"type":"thinking","thinking":"unsigned","signature":""},
            {"type":"text","text":"Listing."},
            {"type":"tool_use","id":"call_ls","name":"ls","input":{}}
        ])
    );
}

#[test]
fn thinking_blocks_that_are_not_read_are_reported() {
    const UNKNOWN: i32 = ffi::LC_LOSS_DROPPED_UNKNOWN_FIELD;
    const UNKNOWN_CONTENT: i32 = ffi::LC_LOSS_UNKNOWN_CONTENT_DROPPED;
    for (src, expected) in [
        // Another entry type.
        (
            r#"[{"role":"assistant","content":"x","thinking_blocks":[{"type":"text","text":"t"}]}]"#,
            vec![(0, UNKNOWN_CONTENT)],
        ),
        // Another member of an entry.
        (
            r#"[{"role":"assistant","content":"x","thinking_blocks":[{"type":"thinking","thinking":"t","x":1}]}]"#,
            vec![(0, UNKNOWN)],
        ),
        // Beside `reasoning_details`, which is read.
        (
            r#"[{"role":"assistant","content":"x","reasoning_details":[{"type":"reasoning.text","text":"t"}],"thinking_blocks":[{"type":"thinking","thinking":"t"}]}]"#,
            vec![(0, UNKNOWN)],
        ),
        // On a message that is not an assistant's.
        (
            r#"[{"role":"user","content":"x","thinking_blocks":[{"type":"thinking","thinking":"t"}]}]"#,
            vec![(0, UNKNOWN)],
        ),
        // Holding nothing: nothing lost, and the strings are read as before.
        (r#"[{"role":"assistant","content":"x","thinking_blocks":[],"reasoning_content":"r"}]"#, vec![]),
    ] {
        let (_, losses) = converted(src);
        assert_eq!(losses, expected, "{src}");
    }
    let (m, _) = converted(r#"[{"role":"assistant","content":"x","thinking_blocks":null,"reasoning_content":"r"}]"#);
    assert_eq!(m[0]["blocks"][0], json!({"type":"thinking","thinking":"r","signature":""}));
    // Not an array: refused at the field.
    let (rc, d) = convert(CHAT, br#"[{"role":"assistant","content":"x","thinking_blocks":"t"}]"#, 0).err().unwrap();
    assert_eq!((rc, d.location.as_str()), (testkit::status::LC_CONVERT_SHAPE, "messages[0].thinking_blocks"));
}
