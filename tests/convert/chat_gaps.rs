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
