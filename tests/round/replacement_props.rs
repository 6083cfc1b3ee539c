//! Properties of the replacement (R15.9–R15.11) on random well-paired transcripts: the built
//! replacement passes its check, and every single-byte change of a kept signature and every
//! dropped kept block is found, at the message and block where it is.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;
use serde_json::{Value, json};
use testkit::abi::Input;
use testkit::spec::wire_of;
use testkit::status::*;

/// Text with what JSON and the canonical encoding escape, and non-ASCII.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "word ", "<b>", "&", "\"", "\\", "\n", "é", "😀", "\u{2028}"]),
        0..5,
    )
    .prop_map(|v| v.concat())
}

fn signature() -> impl Strategy<Value = String> {
    "[A-Za-z0-9+/]{8,40}={0,2}"
}

#[derive(Debug, Clone)]
enum Turn {
    User(String),
    Assistant { text: String, signed: Option<(String, String)> },
    Tools { signed: (String, String), calls: Vec<(String, i64)>, as_user_blocks: bool },
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        text().prop_map(Turn::User),
        (text(), prop::option::of((text(), signature()))).prop_map(|(text, signed)| Turn::Assistant { text, signed }),
        ((text(), signature()), prop::collection::vec((text(), any::<i64>()), 1..4), any::<bool>())
            .prop_map(|(signed, calls, as_user_blocks)| Turn::Tools { signed, calls, as_user_blocks }),
    ]
}

/// Messages as JSON values (keys of raw values sorted, integers only, so that serde's spelling
/// is the canonical one).
fn transcript(systems: usize, turns: &[Turn]) -> Vec<Value> {
    let mut out: Vec<Value> =
        (0..systems).map(|i| json!({"role":"system","blocks":[{"type":"text","text":format!("rule {i}")}]})).collect();
    for (t, turn) in turns.iter().enumerate() {
        match turn {
            Turn::User(text) => out.push(json!({"role":"user","blocks":[{"type":"text","text":text}]})),
            Turn::Assistant { text, signed } => {
                let mut blocks = vec![];
                if let Some((thinking, signature)) = signed {
                    blocks.push(json!({"type":"thinking","thinking":thinking,"signature":signature}));
                }
                blocks.push(json!({"type":"text","text":text}));
                out.push(json!({"role":"assistant","blocks":blocks,"usage":null}));
            }
            Turn::Tools { signed, calls, as_user_blocks } => {
                let mut blocks = vec![json!({"type":"thinking","thinking":signed.0,"signature":signed.1})];
                let ids: Vec<String> = (0..calls.len()).map(|k| format!("call_{t}_{k}")).collect();
                for (id, (arg, n)) in ids.iter().zip(calls) {
                    blocks.push(json!({"type":"tool_use","id":id,"name":"run","input":{"arg":arg,"n":n}}));
                }
                let usage = json!({"input_tokens":1,"output_tokens":2,"cache_read_tokens":0,"cache_creation_tokens":0,"reasoning_tokens":0});
                out.push(json!({"role":"assistant","blocks":blocks,"usage":usage}));
                if *as_user_blocks {
                    let results: Vec<Value> = ids
                        .iter()
                        .map(|id| json!({"type":"tool_result","tool_use_id":id,"content":[{"type":"text","text":"out"}],"is_error":false}))
                        .collect();
                    out.push(json!({"role":"user","blocks":results}));
                } else {
                    for id in &ids {
                        out.push(json!({"role":"tool","blocks":[{"type":"text","text":"out"}],"tool_use_id":id,"is_error":false}));
                    }
                }
            }
        }
    }
    out
}

const SUMMARIES: &[&str] = &[
    "<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>",
    testkit::spec::SUMMARY,
    "<conversation_summary>\r\n<goal>a &lt; b &#x1F600;</goal>\r\n<constraints> </constraints><decisions/><state>\"q\" 'a'</state><open_items>x</open_items></conversation_summary>",
];

struct Case {
    handle: Input,
    cut: usize,
    built: Value,
    /// How many messages of the replacement come before the summary message.
    lead: usize,
}

fn case(systems: usize, turns: &[Turn], pick: Index, summary: Index) -> Option<Case> {
    let messages = transcript(systems, turns);
    let texts: Vec<String> = messages.iter().map(|m| serde_json::to_string(m).unwrap()).collect();
    let handle = Input::parse(&wire_of(&texts, 64)).expect("a generated transcript parses");
    let n = messages.len();
    // Safe cuts with something to summarise, found through the C ABI (S14.4).
    let cuts: Vec<usize> = (systems + 1..=n)
        // SAFETY: a live handle.
        .filter(|&c| unsafe { loopcompact::ffi::lc_transcript_cut_check(handle.as_ptr(), c as u64) } == LC_OK)
        .collect();
    if cuts.is_empty() {
        return None;
    }
    let cut = cuts[pick.index(cuts.len())];
    let summary = SUMMARIES[summary.index(SUMMARIES.len())];
    let built = handle.build(cut as u64, summary.as_bytes()).expect("a safe cut builds");
    let built: Value = serde_json::from_slice(&built).expect("the replacement is JSON");
    Some(Case { handle, cut, built, lead: systems })
}

fn check(case: &Case, rebuilt: &Value) -> (i32, String) {
    let (rc, d) = case.handle.verify(case.cut as u64, &serde_json::to_vec(rebuilt).unwrap());
    (rc, d.location)
}

/// `(message, block)` of every block of the replacement that is kept from the original (the
/// summary block is not).
fn kept_blocks(case: &Case) -> Vec<(usize, usize)> {
    let mut out = vec![];
    for (i, m) in case.built.as_array().unwrap().iter().enumerate() {
        for j in 0..m["blocks"].as_array().unwrap().len() {
            if !(i == case.lead && j == 0) {
                out.push((i, j));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(Config { cases: 200, failure_persistence: None, ..Config::default() })]

    #[test]
    fn the_built_replacement_passes(systems in 0usize..3, turns in prop::collection::vec(turn(), 1..10), pick: Index, summary: Index) {
        let Some(case) = case(systems, &turns, pick, summary) else { return Ok(()) };
        // In serde's spelling (keys sorted: `blocks` before `role`), the same transcript.
        prop_assert_eq!(check(&case, &case.built), (LC_OK, String::new()));
        // The summary message is a user message; the first kept message, when it is a user
        // message, is merged into it (its blocks follow the summary's), so the summary never
        // meets another user message.
        let messages = case.built.as_array().unwrap();
        let original = transcript(systems, &turns);
        let summary_blocks = messages[case.lead]["blocks"].as_array().unwrap().len();
        prop_assert_eq!(&messages[case.lead]["role"], "user");
        match original.get(case.cut) {
            Some(first) if first["role"] == "user" => {
                prop_assert_eq!(summary_blocks, 1 + first["blocks"].as_array().unwrap().len());
                prop_assert_eq!(messages.len(), case.lead + original.len() - case.cut);
            }
            first => {
                prop_assert_eq!(summary_blocks, 1);
                prop_assert_eq!(messages.len(), case.lead + 1 + original.len() - case.cut);
                if let Some(first) = first {
                    prop_assert_eq!(&messages[case.lead + 1], first);
                }
            }
        }
    }

    #[test]
    fn a_changed_signature_is_found(systems in 0usize..3, turns in prop::collection::vec(turn(), 1..10), pick: Index, summary: Index, which: Index, at: Index, to: char) {
        let Some(case) = case(systems, &turns, pick, summary) else { return Ok(()) };
        let signed: Vec<(usize, usize)> = kept_blocks(&case)
            .into_iter()
            .filter(|&(i, j)| case.built[i]["blocks"][j]["type"] == "thinking")
            .collect();
        if signed.is_empty() {
            return Ok(());
        }
        let (i, j) = signed[which.index(signed.len())];
        let mut rebuilt = case.built.clone();
        let signature = rebuilt[i]["blocks"][j]["signature"].as_str().unwrap().to_owned();
        let k = at.index(signature.len());
        let old = signature.as_bytes()[k] as char;
        let new = if to == old || !to.is_ascii_alphanumeric() { if old == 'A' { 'B' } else { 'A' } } else { to };
        let mut changed = signature.into_bytes();
        changed[k] = new as u8;
        rebuilt[i]["blocks"][j]["signature"] = Value::String(String::from_utf8(changed).unwrap());
        prop_assert_eq!(check(&case, &rebuilt), (LC_REPLACEMENT_TAIL_CHANGED, format!("transcript[{i}].blocks[{j}]")));
    }

    #[test]
    fn a_dropped_block_is_found(systems in 0usize..3, turns in prop::collection::vec(turn(), 1..10), pick: Index, summary: Index, which: Index) {
        let Some(case) = case(systems, &turns, pick, summary) else { return Ok(()) };
        let kept = kept_blocks(&case);
        if kept.is_empty() {
            return Ok(());
        }
        let (i, j) = kept[which.index(kept.len())];
        let mut rebuilt = case.built.clone();
        let original = case.built[i]["blocks"].as_array().unwrap().clone();
        rebuilt[i]["blocks"].as_array_mut().unwrap().remove(j);
        let blocks = rebuilt[i]["blocks"].as_array().unwrap();
        // The first block that differs from the original's at the same index, from j on.
        let first = (j..original.len()).find(|&k| blocks.get(k) != original.get(k)).unwrap();
        let status = if i < case.lead { LC_REPLACEMENT_PREFIX_CHANGED } else { LC_REPLACEMENT_TAIL_CHANGED };
        // The first kept message's only block dropped from the summary message, when the message
        // after it is the same as that first kept message (two equal user turns in a row): the
        // replacement is then exactly the unmerged one, R15.11's adjacent user message.
        let messages = rebuilt.as_array().unwrap();
        let unmerged = i == case.lead && blocks.len() == 1 && messages.get(i + 1).is_some_and(|next| {
            next["role"] == "user" && next["blocks"].as_array().unwrap().as_slice() == &original[1..]
        });
        if unmerged {
            prop_assert_eq!(check(&case, &rebuilt), (LC_REPLACEMENT_ADJACENT_USER, format!("transcript[{}]", i + 1)));
        } else {
            prop_assert_eq!(check(&case, &rebuilt), (status, format!("transcript[{i}].blocks[{first}]")));
        }
    }
}
