//! Properties on generated OpenAI Chat and Anthropic conversations (parallel calls, errors, signed
//! thinking, a pending tail): the wire pairs exactly when the source pairs by its own rule, every
//! allowed safe wire cut maps to a safe source cut, signatures arrive byte-exact; and bytes changed
//! anywhere give a conversion or a status of the converter's, never anything else.

use loopcompact::ffi;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;
use serde_json::{Value, json};
use testkit::convert::convert;
use testkit::status::*;

use super::oracle;

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!["ok", " ", "<b>", "&", "\"q\"", "\\", "\n", "é", "😀"]), 0..4)
        .prop_map(|v| v.concat())
}

#[derive(Debug, Clone)]
enum Turn {
    User(String),
    Text(String),
    Tools { calls: usize, signature: String, error: bool, trailing: Option<String> },
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        text().prop_map(Turn::User),
        text().prop_map(Turn::Text),
        (1usize..4, "[A-Za-z0-9+/]{12,40}", any::<bool>(), prop::option::of(text()))
            .prop_map(|(calls, signature, error, trailing)| Turn::Tools { calls, signature, error, trailing }),
    ]
}

/// A Chat conversation; `pending`: the last call round has no results yet.
fn chat(turns: &[Turn], pending: bool) -> Value {
    let mut m = vec![json!({"role": "system", "content": "rules"})];
    for (t, turn) in turns.iter().enumerate() {
        match turn {
            Turn::User(s) => m.push(json!({"role": "user", "content": s})),
            Turn::Text(s) => m.push(json!({"role": "assistant", "content": s})),
            Turn::Tools { calls, error, trailing, .. } => {
                let ids: Vec<String> = (0..*calls).map(|k| format!("call_{t}_{k}")).collect();
                let tool_calls: Vec<Value> = ids
                    .iter()
                    .map(|id| json!({"id": id, "type": "function", "function": {"name": "run", "arguments": format!("{{\"n\": {t}}}")}}))
                    .collect();
                m.push(json!({"role": "assistant", "content": null, "tool_calls": tool_calls}));
                if pending && t + 1 == turns.len() {
                    break;
                }
                for id in &ids {
                    let out = if *error { "error: failed" } else { "done" };
                    m.push(json!({"role": "tool", "tool_call_id": id, "content": out}));
                }
                if let Some(s) = trailing {
                    m.push(json!({"role": "user", "content": s}));
                }
            }
        }
    }
    Value::Array(m)
}

/// An Anthropic conversation; results inside user messages, with an optional trailing text.
fn anthropic(turns: &[Turn], pending: bool) -> Value {
    let mut m = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        match turn {
            Turn::User(s) => m.push(json!({"role": "user", "content": s})),
            Turn::Text(s) => m.push(json!({"role": "assistant", "content": [{"type": "text", "text": s}]})),
            Turn::Tools { calls, signature, error, trailing } => {
                let ids: Vec<String> = (0..*calls).map(|k| format!("toolu_{t}_{k}")).collect();
                let mut blocks = vec![json!({"type": "thinking", "thinking": "plan", "signature": signature})];
                blocks.extend(
                    ids.iter().map(|id| json!({"type": "tool_use", "id": id, "name": "run", "input": {"n": t}})),
                );
                m.push(json!({"role": "assistant", "content": blocks}));
                if pending && t + 1 == turns.len() {
                    break;
                }
                let mut results: Vec<Value> = ids
                    .iter()
                    .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "out", "is_error": error}))
                    .collect();
                if let Some(s) = trailing {
                    results.push(json!({"type": "text", "text": s}));
                }
                m.push(json!({"role": "user", "content": results}));
            }
        }
    }
    json!({"system": "rules", "messages": m})
}

fn check(format: i32, name: &str, source: &Value) -> Result<(), TestCaseError> {
    let src = serde_json::to_vec(source).unwrap();
    let c = convert(format, &src, 0).map_err(|(rc, d)| TestCaseError::fail(format!("{rc} at {}", d.location)))?;
    let Ok(input) = c.input("p", "m", 1000, 1, None) else {
        // Only an empty transcript has no input.
        prop_assert!(c.source_index.is_empty());
        return Ok(());
    };
    // SAFETY: a live handle; diag NULL is allowed.
    let wire_ok = unsafe { ffi::lc_transcript_pairing_check(input.as_ptr(), std::ptr::null_mut()) } == LC_OK;
    let pairs = oracle::pairs(name, source);
    prop_assert_eq!(wire_ok, pairs.is_some());
    if let Some(pairs) = pairs {
        for cut in 0..=c.source_index.len() {
            // SAFETY: a live handle.
            if unsafe { ffi::lc_transcript_cut_check(input.as_ptr(), cut as u64) } != LC_OK {
                continue;
            }
            let s = c.source_cut(cut).map_err(|rc| TestCaseError::fail(format!("allowed cut {cut}: {rc}")))? as usize;
            prop_assert!(pairs.iter().all(|&(a, b)| !(a < s && s <= b)), "cut {} -> source {} splits a pair", cut, s);
        }
    }
    let wire = String::from_utf8(c.transcript.clone()).unwrap();
    for sig in source.to_string().split("\"signature\":\"").skip(1).map(|r| r.split('"').next().unwrap_or("")) {
        let expected = format!("\"signature\":\"{sig}\"");
        prop_assert!(wire.contains(&expected));
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 300, failure_persistence: None, ..Config::default() })]

    #[test]
    fn chat_pairs_and_cuts(turns in prop::collection::vec(turn(), 1..10), pending: bool) {
        check(ffi::LC_FORMAT_OPENAI_CHAT, "openai_chat", &chat(&turns, pending))?;
    }

    #[test]
    fn anthropic_pairs_and_cuts(turns in prop::collection::vec(turn(), 1..10), pending: bool) {
        check(ffi::LC_FORMAT_ANTHROPIC, "anthropic", &anthropic(&turns, pending))?;
    }

    #[test]
    fn changed_bytes_give_a_conversion_or_a_converter_status(
        turns in prop::collection::vec(turn(), 1..6),
        edits in prop::collection::vec((any::<Index>(), any::<u8>()), 1..4),
        format in prop::sample::select(vec![1, 2, 3, 4, 5, 6]),
    ) {
        let mut src = serde_json::to_vec(&if format == 3 { anthropic(&turns, false) } else { chat(&turns, false) }).unwrap();
        for (at, byte) in edits {
            let i = at.index(src.len());
            src[i] = byte;
        }
        match convert(format, &src, 0) {
            Ok(c) => prop_assert!(c.transcript.starts_with(b"[") && c.transcript.ends_with(b"]")),
            Err((rc, d)) => {
                prop_assert!([LC_CONVERT_WIRE, LC_CONVERT_SHAPE].contains(&rc), "status {}", rc);
                prop_assert!(d.offset().is_some());
            }
        }
    }
}
