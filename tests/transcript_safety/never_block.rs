//! Transcript safety that never blocks compaction (docs/SPEC.md §16.9) through the C ABI: the
//! pending tail (G16.13), every violation (G16.14), the repair plan (G16.15) and allowed cuts
//! (G16.16). Expected values come from the rules' text.

use std::ptr;

use loopcompact::ffi::{
    LC_CUT_PENDING_TAIL, LC_NO_BLOCK, lc_replacement_build, lc_transcript_cut_check_with,
    lc_transcript_pairing_violations, lc_transcript_repair, lc_transcript_repair_plan, lc_transcript_safe_cut_with,
    lc_violation,
};
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{
    CUT_UNSAFE, DUPLICATE_ID, DUPLICATE_RESULT, INVALID_ARGUMENT, Input, NULL_ARGUMENT, ORPHAN, UNANSWERED, assistant,
    cut_check, pairing, parse, safe_cut, tool, transcript, user, user_results, wire,
};

const BUFFER_TOO_SMALL: i32 = 2;
const REPLACEMENT_EMPTY_HEAD: i32 = 610;

fn safe_cut_with(input: &Input, keep_last: u64, flags: u32, allowed: Option<&[u8]>) -> Result<u64, i32> {
    let mut cut = u64::MAX;
    let (ptr, len) = allowed.map_or((ptr::null(), 0), |a| (a.as_ptr(), a.len()));
    // SAFETY: a live handle, an allowed list of its length, an out-pointer.
    let status = unsafe { lc_transcript_safe_cut_with(input.as_ptr(), keep_last, flags, ptr, len, &mut cut) };
    if status == 0 { Ok(cut) } else { Err(status) }
}

fn cut_check_with(input: &Input, cut: u64, flags: u32, allowed: Option<&[u8]>) -> i32 {
    let (ptr, len) = allowed.map_or((ptr::null(), 0), |a| (a.as_ptr(), a.len()));
    // SAFETY: a live handle and an allowed list of its length.
    unsafe { lc_transcript_cut_check_with(input.as_ptr(), cut, flags, ptr, len) }
}

fn violations(input: &Input) -> Vec<lc_violation> {
    let mut n = 0usize;
    // SAFETY: a size query: NULL with capacity 0.
    let status = unsafe { lc_transcript_pairing_violations(input.as_ptr(), ptr::null_mut(), 0, &mut n) };
    assert_eq!(status, if n == 0 { 0 } else { BUFFER_TOO_SMALL });
    let mut out = vec![lc_violation::default(); n];
    // SAFETY: a buffer of n elements.
    let status = unsafe { lc_transcript_pairing_violations(input.as_ptr(), out.as_mut_ptr(), n, &mut n) };
    assert_eq!(status, 0);
    out
}

/// A two-call bytes function of the input and flags: the bytes, or the status.
fn bytes(
    input: &Input,
    flags: u32,
    f: unsafe extern "C" fn(*const loopcompact::ffi::lc_compaction_input, u32, *mut u8, usize, *mut usize) -> i32,
) -> Result<Vec<u8>, i32> {
    let mut n = 0usize;
    // SAFETY: a size query.
    let status = unsafe { f(input.as_ptr(), flags, ptr::null_mut(), 0, &mut n) };
    if status != BUFFER_TOO_SMALL {
        return Err(status);
    }
    let mut buf = vec![0u8; n];
    // SAFETY: a buffer of n bytes.
    let status = unsafe { f(input.as_ptr(), flags, buf.as_mut_ptr(), n, &mut n) };
    assert_eq!((status, n), (0, buf.len()));
    Ok(buf)
}

/// The transcript of a document built around a transcript array.
fn reparse(transcript: &[u8]) -> Vec<String> {
    let v: Vec<Value> = serde_json::from_slice(transcript).expect("a JSON array");
    v.iter().map(Value::to_string).collect()
}

/// Issue 27's case (adk-python#7236): the last assistant turn waits for a result. §14 refuses it;
/// the pending tail keeps that turn and cuts before it.
#[test]
fn a_pending_tail_keeps_its_turn() {
    // 0 user, 1 assistant(a), 2 tool a, 3 user, 4 assistant(b, c), 5 tool b.
    let messages =
        vec![user("q"), assistant(&["a"]), tool("a", false), user("q2"), assistant(&["b", "c"]), tool("b", false)];
    let input = parse(&messages);
    assert_eq!(safe_cut(&input, 0), Err(UNANSWERED));
    assert_eq!(safe_cut_with(&input, 0, 0, None), Err(UNANSWERED), "without the flag: §14's verdict");
    assert_eq!(safe_cut_with(&input, 0, LC_CUT_PENDING_TAIL, None), Ok(4));
    // keep_last 3 gives 3; keep_last 4 leaves cuts <= 2, and 2 splits the pair (1, 2).
    assert_eq!(safe_cut_with(&input, 3, LC_CUT_PENDING_TAIL, None), Ok(3));
    assert_eq!(safe_cut_with(&input, 4, LC_CUT_PENDING_TAIL, None), Ok(1));
    for (cut, want) in [(0, 0), (1, 0), (2, CUT_UNSAFE), (3, 0), (4, 0), (5, CUT_UNSAFE), (6, CUT_UNSAFE)] {
        assert_eq!(cut_check_with(&input, cut, LC_CUT_PENDING_TAIL, None), want, "cut {cut}");
    }
    assert_eq!(cut_check_with(&input, 7, LC_CUT_PENDING_TAIL, None), INVALID_ARGUMENT);
    assert_eq!(cut_check_with(&input, 4, 0, None), UNANSWERED);

    // R15.10: the replacement keeps the pending turn unchanged.
    let summary: &[u8] = b"<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";
    let mut n = 0usize;
    // SAFETY: a size query.
    let status =
        unsafe { lc_replacement_build(input.as_ptr(), 4, summary.as_ptr(), summary.len(), ptr::null_mut(), 0, &mut n) };
    assert_eq!(status, BUFFER_TOO_SMALL);
    let mut buf = vec![0u8; n];
    // SAFETY: a buffer of n bytes.
    let status = unsafe {
        lc_replacement_build(input.as_ptr(), 4, summary.as_ptr(), summary.len(), buf.as_mut_ptr(), n, &mut n)
    };
    assert_eq!(status, 0);
    let rebuilt: Vec<Value> = serde_json::from_slice(&buf).unwrap();
    assert_eq!(rebuilt.len(), 3, "the summary, then messages 4 and 5");
    assert_eq!(rebuilt[1], serde_json::from_str::<Value>(&messages[4]).unwrap());
    // SAFETY: a size query at an unsafe cut.
    let status =
        unsafe { lc_replacement_build(input.as_ptr(), 5, summary.as_ptr(), summary.len(), ptr::null_mut(), 0, &mut n) };
    assert_eq!(status, CUT_UNSAFE);
    // SAFETY: as above; a cut with nothing to summarise comes first (R15.10).
    let status =
        unsafe { lc_replacement_build(input.as_ptr(), 0, summary.as_ptr(), summary.len(), ptr::null_mut(), 0, &mut n) };
    assert_eq!(status, REPLACEMENT_EMPTY_HEAD);
}

/// A pending tail is only unanswered calls of the last assistant message: anything else keeps the
/// first violation's status.
#[test]
fn other_violations_are_no_pending_tail() {
    // An orphan before the pending turn.
    let input = parse(&[user("q"), tool("x", false), assistant(&["a"])]);
    assert_eq!(safe_cut_with(&input, 0, LC_CUT_PENDING_TAIL, None), Err(ORPHAN));
    // An unanswered call of an earlier assistant message.
    let input = parse(&[user("q"), assistant(&["a"]), user("q2"), assistant(&["b"])]);
    assert_eq!(safe_cut_with(&input, 0, LC_CUT_PENDING_TAIL, None), Err(UNANSWERED));
    // A well-paired transcript: the same cuts with or without the flag.
    let input = parse(&[user("q"), assistant(&["a"]), tool("a", false), user("q2")]);
    for keep in 0..5 {
        assert_eq!(safe_cut_with(&input, keep, LC_CUT_PENDING_TAIL, None), safe_cut(&input, keep));
    }
}

#[test]
fn allowed_cuts_and_arguments() {
    let input = parse(&[user("q"), assistant(&["a"]), tool("a", false), user("q2")]);
    // n = 4: five entries; cut 4 and 3 not allowed, 2 is unsafe: 1.
    assert_eq!(safe_cut_with(&input, 0, 0, Some(&[1, 1, 1, 0, 0])), Ok(1));
    assert_eq!(cut_check_with(&input, 3, 0, Some(&[1, 1, 1, 0, 0])), CUT_UNSAFE);
    assert_eq!(cut_check_with(&input, 3, 0, Some(&[1, 1, 1, 1, 0])), 0);
    assert_eq!(safe_cut_with(&input, 0, 0, Some(&[1, 1, 1, 1])), Err(INVALID_ARGUMENT), "n entries, not n + 1");
    assert_eq!(safe_cut_with(&input, 0, 0, Some(&[1, 1, 2, 1, 1])), Err(INVALID_ARGUMENT), "a byte other than 0, 1");
    assert_eq!(safe_cut_with(&input, 0, 2, None), Err(INVALID_ARGUMENT), "a flag that is not one");
    assert_eq!(cut_check_with(&input, 5, 2, None), INVALID_ARGUMENT);
    // SAFETY: NULL pointers are the cases under test.
    unsafe {
        assert_eq!(lc_transcript_safe_cut_with(input.as_ptr(), 0, 0, ptr::null(), 0, ptr::null_mut()), NULL_ARGUMENT);
        assert_eq!(lc_transcript_safe_cut_with(input.as_ptr(), 0, 0, ptr::null(), 3, &mut 0), NULL_ARGUMENT);
        assert_eq!(lc_transcript_cut_check_with(ptr::null(), 0, 0, ptr::null(), 0), NULL_ARGUMENT);
        assert_eq!(lc_transcript_pairing_violations(input.as_ptr(), ptr::null_mut(), 1, &mut 0), NULL_ARGUMENT);
        assert_eq!(lc_transcript_repair(input.as_ptr(), 2, ptr::null_mut(), 0, &mut 0), INVALID_ARGUMENT);
    }
}

/// G16.14: every violation, in transcript order, at the id; the first is S14.3's.
#[test]
fn every_violation_is_listed() {
    // 0 user, 1 assistant(a, b): block 0 text, 1 a, 2 b; 2 tool x (orphan); 3 tool b; 4 tool b
    // (second result); a unanswered.
    let messages = vec![user("q"), assistant(&["a", "b"]), tool("x", false), tool("b", false), tool("b", false)];
    let input = parse(&messages);
    let src = wire(&messages);
    let got: Vec<(i32, u64, u64)> = violations(&input).iter().map(|v| (v.status, v.message, v.block)).collect();
    assert_eq!(got, vec![(UNANSWERED, 1, 1), (ORPHAN, 2, LC_NO_BLOCK), (DUPLICATE_RESULT, 4, LC_NO_BLOCK)]);
    assert_eq!(pairing(&messages).0, UNANSWERED);
    for (v, id) in violations(&input).iter().zip([b"a\"", b"x\"", b"b\""]) {
        let at = v.offset as usize;
        assert_eq!(&src[at - 1..at + 2], [&b"\""[..], id].concat(), "the offset of the id's body");
    }
    // A repeated id: each repeat.
    let input = parse(&[
        user("q"),
        assistant(&["a"]),
        tool("a", false),
        assistant(&["a"]),
        tool("a", false),
        assistant(&["a"]),
    ]);
    let got: Vec<(i32, u64)> = violations(&input).iter().map(|v| (v.status, v.message)).collect();
    assert_eq!(got, vec![(DUPLICATE_ID, 3), (DUPLICATE_ID, 5)]);
    assert!(violations(&parse(&[user("q")])).is_empty());
}

/// G16.15: the plan as the rule writes it, and the repaired transcript passes S14.3.
#[test]
fn the_repair_plan_and_its_application() {
    // 0 user, 1 assistant(a, b), 2 tool a, 3 user with an orphan result block and text, 4 tool z
    // (orphan tool message), 5 user.
    let messages =
        vec![user("q"), assistant(&["a", "b"]), tool("a", false), user_results(&["zz"]), tool("z", false), user("q2")];
    let input = parse(&messages);
    let plan: Value = serde_json::from_slice(&bytes(&input, 0, lc_transcript_repair_plan).unwrap()).unwrap();
    let text = "[no result was recorded for this tool call]";
    assert_eq!(
        plan,
        json!([
            {"action": "add_result", "before": 3, "call_message": 1, "call_block": 2, "tool_use_id": "b", "text": text},
            {"action": "drop_result", "message": 3, "block": 1},
            {"action": "drop_result", "message": 4, "block": null}
        ])
    );
    let repaired = reparse(&bytes(&input, 0, lc_transcript_repair).unwrap());
    let synthetic =
        json!({"role": "tool", "blocks": [{"type": "text", "text": text}], "tool_use_id": "b", "is_error": true});
    let want: Vec<Value> = vec![
        serde_json::from_str(&messages[0]).unwrap(),
        serde_json::from_str(&messages[1]).unwrap(),
        serde_json::from_str(&messages[2]).unwrap(),
        synthetic,
        json!({"role": "user", "blocks": [{"type": "text", "text": "results"}]}),
        serde_json::from_str(&messages[5]).unwrap(),
    ];
    let got: Vec<Value> = repaired.iter().map(|m| serde_json::from_str(m).unwrap()).collect();
    assert_eq!(got, want);
    assert_eq!(pairing(&repaired).0, 0);
    // A well-paired transcript: an empty plan, the same transcript.
    let fine = parse(&[user("q"), assistant(&["a"]), tool("a", false)]);
    assert_eq!(bytes(&fine, 0, lc_transcript_repair_plan).unwrap(), b"[]");
    // A repeated id: no plan.
    let repeated = parse(&[user("q"), assistant(&["a"]), tool("a", false), assistant(&["a"]), tool("a", false)]);
    assert_eq!(bytes(&repeated, 0, lc_transcript_repair_plan), Err(DUPLICATE_ID));
    assert_eq!(bytes(&repeated, 0, lc_transcript_repair), Err(DUPLICATE_ID));
    // With the pending tail flag, the last turn's calls get no result.
    let pending = parse(&[user("q"), assistant(&["a"]), tool("x", false)]);
    let plan: Value =
        serde_json::from_slice(&bytes(&pending, LC_CUT_PENDING_TAIL, lc_transcript_repair_plan).unwrap()).unwrap();
    assert_eq!(plan, json!([{"action": "drop_result", "message": 2, "block": null}]));
}

/// A transcript made well-paired, then broken: drop some results, add orphans.
fn broken() -> impl Strategy<Value = Vec<String>> {
    (transcript(), prop::collection::vec(any::<u16>(), 0..4), prop::collection::vec(any::<u16>(), 0..3)).prop_map(
        |(mut messages, drops, orphans)| {
            for d in drops {
                let i = d as usize % messages.len();
                if messages[i].contains(r#""role":"tool""#) {
                    messages.remove(i);
                }
            }
            for (k, o) in orphans.iter().enumerate() {
                let i = *o as usize % (messages.len() + 1);
                messages.insert(i, tool(&format!("orphan{k}"), false));
            }
            if messages.is_empty() {
                messages.push(user("q"));
            }
            messages
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Without options the functions are §14's; the first violation is S14.3's; the repair passes.
    #[test]
    fn never_blocking_safety_through_the_abi(messages in broken()) {
        let input = parse(&messages);
        let n = messages.len() as u64;
        for keep in 0..=n + 1 {
            prop_assert_eq!(safe_cut_with(&input, keep, 0, None), safe_cut(&input, keep));
        }
        for cut in 0..=n + 1 {
            prop_assert_eq!(cut_check_with(&input, cut, 0, None), cut_check(&input, cut));
        }
        let first = pairing(&messages).0;
        let listed = violations(&input);
        prop_assert_eq!(listed.first().map_or(0, |v| v.status), first);
        for flags in [0, LC_CUT_PENDING_TAIL] {
            let repaired = reparse(&bytes(&input, flags, lc_transcript_repair).or_else(|s| if s == BUFFER_TOO_SMALL { Ok(Vec::new()) } else { Err(s) }).unwrap());
            if repaired.is_empty() {
                continue;
            }
            let again = parse(&repaired);
            let status = pairing(&repaired).0;
            if flags == 0 {
                prop_assert_eq!(status, 0);
            } else {
                prop_assert!(status == 0 || safe_cut_with(&again, 0, LC_CUT_PENDING_TAIL, None).is_ok());
            }
        }
    }
}
