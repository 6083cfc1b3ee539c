//! A 100 MB transcript through the C ABI: one 100 MB text block, and 100 MB of many messages, parse
//! and encode (W5.4, F7.2, F7.3); a 100 MB document with its one defect at the very end gets the
//! status of that defect (W5.2).
//!
//! The 100 MB runs take tens of seconds in a debug build, so they are ignored there
//! (`cargo test --release --test wire_huge`, or `--include-ignored`); each has a 8 MB variant that
//! runs everywhere.

use testkit::abi::Input;
use testkit::spec::STUB;
use testkit::status::{
    LC_INPUT_MAX_SUMMARY_TOKENS as MAX_TOKENS, LC_INPUT_TOO_LARGE as TOO_LARGE, LC_INPUT_TRANSCRIPT as TRANSCRIPT,
    LC_INPUT_WIRE as WIRE, LC_OK as OK,
};

const MB: usize = 1 << 20;
const FULL: usize = 100 * MB;
const SMALL: usize = 8 * MB;

const HEAD: &str = r#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"model":{"provider":"provider","model":"model"},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":"#;

/// The canonical template (E7.2) around a transcript written by `transcript`.
fn doc(max_summary_tokens: &str, transcript: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::with_capacity(FULL + 4096);
    out.extend_from_slice(HEAD.as_bytes());
    transcript(&mut out);
    out.extend_from_slice(b",\"max_summary_tokens\":");
    out.extend_from_slice(max_summary_tokens.as_bytes());
    out.push(b'}');
    out
}

/// One user message with one text block of `size` bytes of mixed text (already canonical: no
/// character that E7.6 escapes).
fn one_block(size: usize) -> Vec<u8> {
    doc("32", |out| {
        out.extend_from_slice(br#"[{"role":"user","blocks":[{"type":"text","text":""#);
        let pattern = "The agent read the file, ran the tests (3 failed) and wrote a patch. Ünïcödé ✓ 😀\\n";
        while out.len() < size {
            out.extend_from_slice(pattern.as_bytes());
        }
        out.extend_from_slice(br#""}]}]"#);
    })
}

fn tool_message(i: usize) -> String {
    format!(
        r#"{{"role":"tool","blocks":[{{"type":"tool_result","tool_use_id":"call_{i}","content":[{{"type":"text","text":"{}"}}],"is_error":false}}],"tool_use_id":"call_{i}","is_error":false}}"#,
        "x".repeat(900)
    )
}

fn assistant_message(i: usize) -> String {
    format!(
        r#"{{"role":"assistant","blocks":[{{"type":"thinking","thinking":"step {i}","signature":"c2ln"}},{{"type":"tool_use","id":"call_{i}","name":"read","input":{{"path":"src/lib.rs","range":[1,{i}]}}}}],"usage":{{"input_tokens":{i},"output_tokens":7,"cache_read_tokens":0,"cache_creation_tokens":0,"reasoning_tokens":3}}}}"#
    )
}

/// Number of assistant/tool pairs (about 1.2 KB each) that make a document of at least `size` bytes.
fn pairs_for(size: usize) -> usize {
    size.div_ceil(assistant_message(0).len() + tool_message(0).len() + 2)
}

/// `pairs` assistant/tool message pairs, the first `stubbed` tool messages already replaced by their
/// stub (F7.3), then `last`.
fn many_messages(pairs: usize, stubbed: usize, last: &str) -> Vec<u8> {
    doc("32", |out| {
        out.push(b'[');
        for i in 0..pairs {
            out.extend_from_slice(assistant_message(i).as_bytes());
            out.push(b',');
            let tool = if i < stubbed { stub_message(i) } else { tool_message(i) };
            out.extend_from_slice(tool.as_bytes());
            out.push(b',');
        }
        out.extend_from_slice(last.as_bytes());
        out.push(b']');
    })
}

/// The stub of `tool_message(i)` (F7.3: tool_use_id and is_error stay).
fn stub_message(i: usize) -> String {
    format!(
        r#"{{"role":"tool","blocks":[{{"type":"text","text":"{STUB}"}}],"tool_use_id":"call_{i}","is_error":false}}"#
    )
}

const GO_ON: &str = r#"{"role":"user","blocks":[{"type":"text","text":"go on"}]}"#;

fn validate(wire: &[u8]) -> i32 {
    testkit::abi::input_validate(wire)
}

fn check_one_block(size: usize) {
    let wire = one_block(size);
    assert!(wire.len() >= size);
    assert_eq!(validate(&wire), OK);
    let h = Input::parse(&wire).unwrap();
    // The input is canonical already, so S is the input (F7.2).
    let s = h.encode(u64::MAX).unwrap();
    assert!(s == wire, "canonical encoding differs from the canonical input");
    assert!(h.encode(wire.len() as u64).unwrap() == wire);
    // A user message is never stubbed (F7.5).
    assert_eq!(h.encode(wire.len() as u64 - 1), Err(TOO_LARGE));
    drop(h);
    // The last character of the text: a stray byte is transcript (step 5), a raw control byte wire
    // (J5.1, step 1).
    let end = wire.windows(2).rposition(|w| w == b"\"}").unwrap();
    let mut bad = wire;
    assert_eq!(&bad[end - 3..end], b"\x80\\n", "the text ends with an emoji and an escape");
    bad[end - 3] = 0xff;
    assert_eq!(validate(&bad), TRANSCRIPT);
    bad[end - 3] = 0x01;
    assert_eq!(validate(&bad), WIRE);
}

fn check_many_messages(size: usize) {
    let pairs = pairs_for(size);
    let wire = many_messages(pairs, 0, GO_ON);
    assert!(wire.len() >= size);
    assert_eq!(validate(&wire), OK);
    let h = Input::parse(&wire).unwrap();
    let s = h.encode(u64::MAX).unwrap();
    assert!(s == wire, "canonical encoding differs from the canonical input");
    // F7.3 by hand: oldest first, each stub shrinks the encoding by the difference of the two
    // message encodings; stop at the first length under the limit.
    let half = wire.len() / 2;
    let mut current = wire.len();
    let mut stubbed = 0;
    while current > half {
        current -= tool_message(stubbed).len() - stub_message(stubbed).len();
        stubbed += 1;
    }
    let fitted = h.encode(half as u64).unwrap();
    assert_eq!(fitted.len(), current);
    assert!(fitted == many_messages(pairs, stubbed, GO_ON), "fitted bytes differ from {stubbed} stubs");
    // With every tool message stubbed, one byte less is too large (F7.4).
    let all = many_messages(pairs, pairs, GO_ON);
    assert_eq!(h.encode(all.len() as u64 - 1), Err(TOO_LARGE));
    assert!(h.encode(all.len() as u64).unwrap() == all);
}

/// `base` (ending in `GO_ON],"max_summary_tokens":32}`) with another last message and budget.
fn with_tail(base: &[u8], last: &str, max_summary_tokens: &str) -> Vec<u8> {
    let tail = format!(r#"{GO_ON}],"max_summary_tokens":32}}"#);
    assert!(base.ends_with(tail.as_bytes()));
    let mut out = Vec::with_capacity(base.len() + 128);
    out.extend_from_slice(&base[..base.len() - tail.len()]);
    out.extend_from_slice(format!(r#"{last}],"max_summary_tokens":{max_summary_tokens}}}"#).as_bytes());
    out
}

fn check_error_at_the_end(size: usize) {
    let wire = many_messages(pairs_for(size), 0, GO_ON);
    assert!(wire.len() >= size);
    assert_eq!(validate(&with_tail(&wire, GO_ON, "32")), OK);
    let bad_last = [
        // A defect in the last message of the transcript (step 5).
        (r#"{"role":"user","blocks":[{"type":"text","text":"go on","extra":1}]}"#, "32", TRANSCRIPT),
        (r#"{"role":"user","blocks":[{"type":"text","text":"go on","text":"again"}]}"#, "32", TRANSCRIPT),
        (r#"{"role":"tool","blocks":[],"tool_use_id":"t"}"#, "32", TRANSCRIPT),
        // The last step of W5.2.
        (GO_ON, "0", MAX_TOKENS),
        // J5.6 on the last field (step 1).
        (GO_ON, "-1", WIRE),
    ];
    for (last, max, expect) in bad_last {
        let bad = with_tail(&wire, last, max);
        assert_eq!(validate(&bad), expect, "last message {last}, max_summary_tokens {max}");
        assert_eq!(Input::parse(&bad).err(), Some(expect));
    }
    // Invalid UTF-8 in the last string of the transcript (step 5) and in the last byte (step 1).
    let mut utf8 = wire.clone();
    let at = utf8.windows(5).rposition(|w| w == b"go on").unwrap();
    utf8[at + 2] = 0xff;
    assert_eq!(validate(&utf8), TRANSCRIPT);
    let mut last_byte = wire.clone();
    *last_byte.last_mut().unwrap() = 0xff;
    assert_eq!(validate(&last_byte), WIRE);
    // Grammar at the very end (step 1).
    let mut unclosed = wire.clone();
    unclosed.pop();
    assert_eq!(validate(&unclosed), WIRE);
    let mut trailing = wire.clone();
    trailing.extend_from_slice(b" null");
    assert_eq!(validate(&trailing), WIRE);
    let mut comma = wire.clone();
    comma.insert(comma.len() - 1, b',');
    assert_eq!(validate(&comma), WIRE);
    // A repeated top-level key at the end (D2, step 1).
    let mut dup = wire;
    dup.pop();
    dup.extend_from_slice(b",\"version\":1}");
    assert_eq!(validate(&dup), WIRE);
}

#[test]
fn one_block_8mb() {
    check_one_block(SMALL);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "100 MB: slow in debug builds; run with --release")]
fn one_block_100mb() {
    check_one_block(FULL);
}

#[test]
fn many_messages_8mb() {
    check_many_messages(SMALL);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "100 MB: slow in debug builds; run with --release")]
fn many_messages_100mb() {
    check_many_messages(FULL);
}

#[test]
fn error_at_the_end_8mb() {
    check_error_at_the_end(SMALL);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "100 MB: slow in debug builds; run with --release")]
fn error_at_the_end_100mb() {
    check_error_at_the_end(FULL);
}
