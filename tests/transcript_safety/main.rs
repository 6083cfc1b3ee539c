//! Transcript safety (docs/SPEC.md §14) through the C ABI: the pairing check (S14.2, S14.3), safe
//! cuts (S14.4) and the loop guard (S14.5, S14.6). Expected values come from the rules' text: each
//! case names the message and block it breaks.

use std::ffi::CStr;
use std::mem::size_of;
use std::ptr;

use loopcompact::ffi::{
    lc_compaction_progress_check, lc_compaction_threshold_check, lc_diagnostic, lc_transcript_cut_check,
    lc_transcript_pairing_check, lc_transcript_safe_cut,
};
use proptest::prelude::*;
use testkit::abi::Input;
use testkit::spec::{EVENT_ID, POLICY, REQUEST_FINGERPRINT};

const UNANSWERED: i32 = 500;
const ORPHAN: i32 = 501;
const DUPLICATE_ID: i32 = 502;
const DUPLICATE_RESULT: i32 = 503;
const CUT_UNSAFE: i32 = 510;
const NO_PROGRESS: i32 = 520;
const UNREACHABLE: i32 = 521;
const INVALID_ARGUMENT: i32 = 4;
const NULL_ARGUMENT: i32 = 1;
const ZERO_LIMIT: i32 = 361;
const POLICY_WIRE: i32 = 300;

/// A compaction input wire around `messages` (JSON message objects).
fn wire(messages: &[String]) -> Vec<u8> {
    format!(
        r#"{{"version":1,"basis":{{"revision":1,"through_event_id":"{EVENT_ID}"}},"model":{{"provider":"p","model":"m"}},"request_fingerprint":"{REQUEST_FINGERPRINT}","transcript":[{}],"max_summary_tokens":64}}"#,
        messages.join(",")
    )
    .into_bytes()
}

fn user(text: &str) -> String {
    format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"{text}"}}]}}"#)
}

/// An assistant message with a text block and one `tool_use` block per id.
fn assistant(ids: &[&str]) -> String {
    let mut blocks = vec![r#"{"type":"text","text":"calling"}"#.to_owned()];
    blocks.extend(ids.iter().map(|id| format!(r#"{{"type":"tool_use","id":"{id}","name":"t","input":{{}}}}"#)));
    format!(r#"{{"role":"assistant","blocks":[{}],"usage":null}}"#, blocks.join(","))
}

fn tool(id: &str, is_error: bool) -> String {
    format!(r#"{{"role":"tool","blocks":[{{"type":"text","text":"out"}}],"tool_use_id":"{id}","is_error":{is_error}}}"#)
}

fn result_block(id: &str, content: &str) -> String {
    format!(r#"{{"type":"tool_result","tool_use_id":"{id}","content":[{content}],"is_error":false}}"#)
}

/// A user message with a text block and one `tool_result` block per id.
fn user_results(ids: &[&str]) -> String {
    let mut blocks = vec![r#"{"type":"text","text":"results"}"#.to_owned()];
    blocks.extend(ids.iter().map(|id| result_block(id, "")));
    format!(r#"{{"role":"user","blocks":[{}]}}"#, blocks.join(","))
}

fn parse(messages: &[String]) -> Input {
    Input::parse(&wire(messages)).unwrap_or_else(|s| panic!("the test transcript does not parse: {s}"))
}

fn new_diag() -> lc_diagnostic {
    // SAFETY: an all-zero lc_diagnostic is valid (integers, NULL pointers, a zeroed array).
    let mut d: lc_diagnostic = unsafe { std::mem::zeroed() };
    d.struct_size = size_of::<lc_diagnostic>();
    d
}

/// The pairing status with its diagnosis: (status, location, rule).
fn pairing(messages: &[String]) -> Verdict {
    let input = parse(messages);
    let mut d = new_diag();
    // SAFETY: a live handle and diagnostic.
    let status = unsafe { lc_transcript_pairing_check(input.as_ptr(), &mut d) };
    assert_eq!(d.status, status);
    // SAFETY: the library's static strings and NUL-terminated location.
    let location = unsafe { CStr::from_ptr(d.location.as_ptr()) }.to_str().unwrap().to_owned();
    let rule = unsafe { CStr::from_ptr(d.rule) }.to_str().unwrap().to_owned();
    // Without a diagnostic: the same status.
    // SAFETY: a live handle; NULL diag is allowed.
    assert_eq!(unsafe { lc_transcript_pairing_check(input.as_ptr(), ptr::null_mut()) }, status);
    (status, location, rule)
}

/// A pairing verdict: status, location, rule.
type Verdict = (i32, String, String);

fn ok() -> Verdict {
    (0, String::new(), String::new())
}

fn at(status: i32, location: &str) -> Verdict {
    (status, location.to_owned(), "S14.3".to_owned())
}

#[test]
fn pairing_table() {
    let u = || user("hi");
    let cases: Vec<(&str, Vec<String>, Verdict)> = vec![
        ("no tools at all", vec![u(), assistant(&[]), u()], ok()),
        ("one call answered by a tool message", vec![u(), assistant(&["a"]), tool("a", false)], ok()),
        ("an error result is a result", vec![u(), assistant(&["a"]), tool("a", true)], ok()),
        (
            "parallel calls answered out of order",
            vec![u(), assistant(&["a", "b", "c"]), tool("c", false), tool("a", false), tool("b", false)],
            ok(),
        ),
        (
            "results as tool_result blocks of a user message",
            vec![u(), assistant(&["a", "b"]), user_results(&["b", "a"])],
            ok(),
        ),
        ("a user message between call and result", vec![u(), assistant(&["a"]), u(), tool("a", false)], ok()),
        // Message 1 block 1 is the call (block 0 is its text).
        (
            "a call answered only after the next assistant message",
            vec![u(), assistant(&["a"]), assistant(&[]), tool("a", false)],
            at(UNANSWERED, "transcript[1].blocks[1]"),
        ),
        (
            "a call never answered",
            vec![u(), assistant(&["a", "b"]), tool("a", false)],
            at(UNANSWERED, "transcript[1].blocks[2]"),
        ),
        ("a result with no call", vec![u(), tool("x", false)], at(ORPHAN, "transcript[1].tool_use_id")),
        (
            "a result block with no call",
            vec![u(), assistant(&[]), user_results(&["x"])],
            at(ORPHAN, "transcript[2].blocks[1]"),
        ),
        (
            "a result for an older assistant message's call",
            vec![u(), assistant(&["a"]), tool("a", false), assistant(&[]), tool("a", false)],
            at(ORPHAN, "transcript[4].tool_use_id"),
        ),
        (
            "an id reused by a later call",
            vec![u(), assistant(&["a"]), tool("a", false), assistant(&["a"]), tool("a", false)],
            at(DUPLICATE_ID, "transcript[3].blocks[1]"),
        ),
        // Also never answered: the repeated id is what S14.3 reports there, not a missing result.
        (
            "an id reused by a later call that is never answered",
            vec![u(), assistant(&["a"]), tool("a", false), assistant(&["a"])],
            at(DUPLICATE_ID, "transcript[3].blocks[1]"),
        ),
        (
            "an id reused in a message whose role comes last",
            vec![
                u(),
                assistant(&["a"]),
                tool("a", false),
                r#"{"blocks":[{"type":"tool_use","id":"b","name":"t","input":{}},{"type":"tool_use","id":"a","name":"t","input":{}}],"role":"assistant"}"#.to_owned(),
                tool("b", false),
            ],
            at(DUPLICATE_ID, "transcript[3].blocks[1]"),
        ),
        (
            "an id twice in one message",
            vec![u(), assistant(&["a", "a"]), tool("a", false)],
            at(DUPLICATE_ID, "transcript[1].blocks[2]"),
        ),
        (
            "two results for one call",
            vec![u(), assistant(&["a"]), tool("a", false), tool("a", false)],
            at(DUPLICATE_RESULT, "transcript[3].tool_use_id"),
        ),
        // Nested tool_result blocks are content (S14.2): they answer nothing and orphan nothing.
        (
            "a nested tool_result does not answer",
            // The call stays unanswered (message 1, before the orphan "z" of message 2).
            vec![
                u(),
                assistant(&["a"]),
                format!(r#"{{"role":"user","blocks":[{}]}}"#, result_block("z", &result_block("a", ""))),
            ],
            at(UNANSWERED, "transcript[1].blocks[1]"),
        ),
        (
            "a nested tool_result for an unknown id is ignored",
            vec![
                u(),
                assistant(&["a"]),
                format!(r#"{{"role":"user","blocks":[{}]}}"#, result_block("a", &result_block("zzz", ""))),
            ],
            ok(),
        ),
        // A tool message carrying its own result also as a tool_result block: one result (S14.2).
        (
            "a tool message with a tool_result block of its own id",
            vec![
                u(),
                assistant(&["a"]),
                format!(r#"{{"role":"tool","blocks":[{}],"tool_use_id":"a","is_error":false}}"#, result_block("a", "")),
            ],
            ok(),
        ),
        (
            "a tool message with a tool_result block of another open id",
            vec![
                u(),
                assistant(&["a", "b"]),
                format!(r#"{{"role":"tool","blocks":[{}],"tool_use_id":"a","is_error":false}}"#, result_block("b", "")),
            ],
            ok(),
        ),
        ("the empty id is an id", vec![u(), assistant(&[""]), tool("", false)], ok()),
        // The first violation in transcript order wins: the unanswered call (message 1) comes
        // before the orphan (message 2), though it is only known at message 3.
        (
            "first violation in transcript order",
            vec![u(), assistant(&["a"]), tool("b", false), assistant(&[])],
            at(UNANSWERED, "transcript[1].blocks[1]"),
        ),
        (
            "a result in an assistant message is an orphan",
            vec![u(), format!(r#"{{"role":"assistant","blocks":[{}]}}"#, result_block("a", ""))],
            at(ORPHAN, "transcript[1].blocks[0]"),
        ),
    ];
    for (name, messages, want) in cases {
        assert_eq!(pairing(&messages), want, "{name}");
    }
}

#[test]
fn ids_compare_decoded() {
    // "\u0061" is "a" (J5.4): the result answers the call.
    let messages = vec![user("hi"), assistant(&["a"]), tool("\\u0061", false)];
    assert_eq!(pairing(&messages), ok());
}

#[test]
fn the_location_never_holds_the_id() {
    let (status, location, _) = pairing(&[user("hi"), tool("SECRETID", false)]);
    assert_eq!(status, ORPHAN);
    assert!(!location.contains("SECRET"));
}

fn safe_cut(input: &Input, keep_last: u64) -> Result<u64, i32> {
    let mut cut = u64::MAX;
    // SAFETY: a live handle and an out-pointer.
    let status = unsafe { lc_transcript_safe_cut(input.as_ptr(), keep_last, &mut cut) };
    if status == 0 { Ok(cut) } else { Err(status) }
}

fn cut_check(input: &Input, cut: u64) -> i32 {
    // SAFETY: a live handle.
    unsafe { lc_transcript_cut_check(input.as_ptr(), cut) }
}

#[test]
fn cuts_on_a_small_transcript() {
    // 0 user, 1 assistant(a, b), 2 tool a, 3 tool b, 4 user, 5 assistant(c), 6 tool c, 7 user.
    let messages = vec![
        user("q"),
        assistant(&["a", "b"]),
        tool("a", false),
        tool("b", false),
        user("q2"),
        assistant(&["c"]),
        tool("c", false),
        user("q3"),
    ];
    let input = parse(&messages);
    // Unsafe cuts: (1, 3] for a and b, (5, 6] for c; so 2, 3 and 6 are unsafe.
    for (cut, want) in
        [(0, 0), (1, 0), (2, CUT_UNSAFE), (3, CUT_UNSAFE), (4, 0), (5, 0), (6, CUT_UNSAFE), (7, 0), (8, 0)]
    {
        assert_eq!(cut_check(&input, cut), want, "cut {cut}");
    }
    assert_eq!(cut_check(&input, 9), INVALID_ARGUMENT);
    for (keep, want) in [(0, 8), (1, 7), (2, 5), (3, 5), (4, 4), (5, 1), (6, 1), (7, 1), (8, 0), (9, 0), (u64::MAX, 0)]
    {
        assert_eq!(safe_cut(&input, keep), Ok(want), "keep {keep}");
    }
}

#[test]
fn cuts_need_a_well_paired_transcript_and_their_pointers() {
    let input = parse(&[user("q"), assistant(&["a"])]);
    assert_eq!(safe_cut(&input, 0), Err(UNANSWERED));
    assert_eq!(cut_check(&input, 0), UNANSWERED);
    assert_eq!(cut_check(&input, 2), UNANSWERED, "cut = n is a cut, and the pairing check decides");
    // S14.4, A3.1: the argument first. A cut above the message count is the call's fault, whatever
    // the transcript holds.
    for cut in [3, 4, u64::MAX] {
        assert_eq!(cut_check(&input, cut), INVALID_ARGUMENT, "cut {cut}");
    }
    // A keep_last above n is no error: it keeps everything (S14.4), so the pairing status stands.
    assert_eq!(safe_cut(&input, u64::MAX), Err(UNANSWERED));
    // SAFETY: NULL pointers are the cases under test.
    unsafe {
        assert_eq!(lc_transcript_safe_cut(input.as_ptr(), 0, ptr::null_mut()), NULL_ARGUMENT);
        assert_eq!(lc_transcript_safe_cut(ptr::null(), 0, &mut 0), NULL_ARGUMENT);
        assert_eq!(lc_transcript_cut_check(ptr::null(), 0), NULL_ARGUMENT);
        assert_eq!(lc_transcript_pairing_check(ptr::null(), ptr::null_mut()), NULL_ARGUMENT);
    }
}

#[test]
fn progress_check_follows_the_rearm_threshold() {
    // Occupancy floor(used * 10000 / limit) against rearm_below, inclusive (S14.5).
    assert_eq!(lc_compaction_progress_check(5_999, 10_000, 6_000), 0);
    assert_eq!(lc_compaction_progress_check(6_000, 10_000, 6_000), NO_PROGRESS);
    assert_eq!(lc_compaction_progress_check(10_000, 10_000, 6_000), NO_PROGRESS);
    assert_eq!(lc_compaction_progress_check(1, 0, 6_000), ZERO_LIMIT);
    // 59_999 / 100_000 is 5999.9 basis points: floor 5999, below 6000.
    assert_eq!(lc_compaction_progress_check(59_999, 100_000, 6_000), 0);
    assert_eq!(lc_compaction_progress_check(0, 1, 0), NO_PROGRESS);
}

fn threshold(policy: &str, input_limit: u64, fixed: u64) -> i32 {
    // SAFETY: a live slice.
    unsafe { lc_compaction_threshold_check(policy.as_ptr(), policy.len(), input_limit, fixed) }
}

#[test]
fn threshold_check_includes_the_summary_budget() {
    // testkit's policy: RearmBelow 6000, MaxSummaryTokens 2048. Limit 100_000: 6000 bp is
    // 60_000 tokens, so fixed + 2048 must stay below 60_000.
    assert_eq!(threshold(POLICY, 100_000, 57_951), 0);
    assert_eq!(threshold(POLICY, 100_000, 57_952), UNREACHABLE);
    assert_eq!(threshold(POLICY, 100_000, u64::MAX), UNREACHABLE);
    assert_eq!(threshold(POLICY, 0, 0), ZERO_LIMIT);
    assert_eq!(threshold("{", 100_000, 0), POLICY_WIRE);
    // SAFETY: the NULL-with-length case.
    assert_eq!(unsafe { lc_compaction_threshold_check(ptr::null(), 1, 1, 0) }, NULL_ARGUMENT);
}

/// A random pair-structured transcript: turns of (user text, assistant with calls, their results in
/// a random order as tool messages or user tool_result blocks, some user text in between).
fn transcript() -> impl Strategy<Value = Vec<String>> {
    let turn = (0usize..4, any::<u64>(), any::<bool>(), any::<bool>());
    prop::collection::vec(turn, 1..8).prop_map(|turns| {
        let mut messages = vec![user("start")];
        let mut next_id = 0;
        for (calls, seed, as_blocks, chatter) in turns {
            let ids: Vec<String> = (0..calls).map(|k| format!("id{}", next_id + k)).collect();
            next_id += calls;
            let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            messages.push(assistant(&refs));
            if chatter {
                messages.push(user("meanwhile"));
            }
            let mut order = refs.clone();
            // A deterministic shuffle from the seed.
            let mut s = seed;
            for i in (1..order.len()).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                order.swap(i, (s >> 33) as usize % (i + 1));
            }
            if as_blocks && !order.is_empty() {
                messages.push(user_results(&order));
            } else {
                messages.extend(order.iter().map(|id| tool(id, false)));
            }
        }
        messages
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// S14.4: for every K the cut is safe, maximal, and the kept tail passes the pairing check.
    #[test]
    fn safe_cuts_are_safe_maximal_and_keep_a_paired_tail(messages in transcript()) {
        let input = parse(&messages);
        prop_assert_eq!(pairing(&messages).0, 0);
        let n = messages.len() as u64;
        for keep in 0..=n + 1 {
            let cut = safe_cut(&input, keep).unwrap();
            prop_assert!(cut <= n.saturating_sub(keep));
            prop_assert_eq!(cut_check(&input, cut), 0);
            for larger in cut + 1..=n.saturating_sub(keep) {
                prop_assert_eq!(cut_check(&input, larger), CUT_UNSAFE, "cut {} is safe and larger than {}", larger, cut);
            }
            let tail = &messages[cut as usize..];
            if !tail.is_empty() {
                prop_assert_eq!(pairing(tail).0, 0, "the tail from {} is not paired", cut);
            }
        }
    }
}

mod never_block;
