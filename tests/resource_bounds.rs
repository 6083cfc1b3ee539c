//! Resource bounds: every function that takes bytes, driven through the C ABI with hostile
//! shapes — 10^6-deep JSON nesting (arrays and objects) in the input wire's `tool_use` input, in a
//! policy, an observation, a context config and a fingerprint document; 10^6-deep XML nesting in a
//! summary; 100 MB inputs (a summary text node, a transcript, a summariser reply); 10^5 keys in a raw
//! JSON value and in the other documents; 10^5 XML attributes — with the heap measured by a counting
//! global allocator (peak live bytes and number of allocations on the calling thread).
//!
//! Memory is asserted, never time. The bounds, with `n` the input length:
//! - summary validation: no allocation at all (also inside output validation's XML step);
//! - input validation: peak ≤ 1 MiB (the transcript is walked, never built), and input parse:
//!   peak ≤ 1.5n + 1 MiB (the handle keeps one copy of the wire and, for keys out of canonical
//!   order, a side table of at most 0.5n; see the shape zoo at the end), where the 1 MiB covers the duplicate-key frames of up to 10000 open objects (J5.2, J5.9: 16 bytes per
//!   frame and 8 per key, about 0.5 MiB at 10000 nested objects), plus 24 bytes per key of an
//!   object with 10^5 keys (a 64-bit hash per key in a vector that grows by doubling, old and new
//!   buffers counted together);
//! - encode_within: peak ≤ n + 1 MiB when the canonical encoding S is no longer than the input
//!   (as for every input here): S is written once into a vector of the input's size, and when it
//!   does not fit the limit that vector is dropped before the fitted bytes are built (F7.3); the
//!   size query of the two-call pattern only counts, with no allocation of S's size; into a caller
//!   buffer (the C path) nothing of the output's size is allocated at all, whatever that size (a
//!   text of `<`, six times the input) and for a byte field that must be re-encoded: ≤ 1 MiB;
//! - output validation: peak ≤ n + 1 MiB (the decoded summary, when it has escapes, is at most the
//!   reply's length);
//! - policy, observation, context config and fingerprint documents: peak ≤ n + 1 MiB;
//! - every `_diagnose` sibling on a failing document: its plain function's bound (the fingerprint's
//!   0.5n + 1 MiB, the input's 1 MiB, ...), for a JSON error after the last byte and for a field rule
//!   broken after the whole document was read;
//! - every rejection of a nesting bomb: peak ≤ 1 MiB in the input wire, 2 MiB in the other
//!   documents, and the same at 10^6 levels as at 20000 (J5.2 stops at 10001, so the depth of the
//!   bomb does not matter).
//!
//! No stack overflow either: the test threads keep Rust's default 2 MiB stack, and 10^6 nesting
//! would overflow any recursive parser.
//!
//! The 100 MB cases are ignored in debug builds (slow there, not unbounded) and run with
//! `cargo test --release --test resource_bounds` (scripts/test); a 4 MB variant of each runs
//! everywhere with the same bounds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::ptr;

use loopcompact::ffi::*;
use testkit::abi::{self, Input};
use testkit::corpus::repeated;
use testkit::spec::{FINGERPRINT_EXAMPLE as FINGERPRINT, OBSERVATION, POLICY};

// ---------------------------------------------------------------------------------------------
// The counting allocator: live bytes, peak and allocation count of the thread that turned it on.

struct CountingAllocator;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Records a change of `delta` live bytes (and one allocation when `allocation`).
fn note(delta: isize, allocation: bool) {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    if !COUNTING.try_with(Cell::get).unwrap_or(false) {
        return;
    }
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
    if allocation {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call is forwarded to `System` unchanged; the bookkeeping touches only
// const-initialised thread-locals without destructors, which never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize, true);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize, true);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Counted as the larger of the two sizes while both may exist: the peak can only be
        // overstated.
        note(new_size as isize, true);
        note(-(layout.size() as isize), false);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as isize), false);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// What a call cost on the heap.
#[derive(Debug, Clone, Copy)]
struct Usage {
    /// The highest number of live bytes above the level at the start.
    peak: usize,
    /// Allocations made (reallocations included).
    allocations: usize,
}

/// Runs `f` with the counter on; memory it allocates and keeps (a handle) stays counted in the
/// peak but is not freed here.
fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    let result = black_box(f());
    COUNTING.with(|c| c.set(false));
    let usage = Usage { peak: PEAK.with(Cell::get).max(0) as usize, allocations: ALLOCATIONS.with(Cell::get) };
    (result, usage)
}

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;
const DEEP: usize = 1_000_000;
/// Heap allowed on top of the input-proportional part for the input wire (see the module docs).
const WIRE_SLACK: usize = MIB;
/// Heap allowed for the duplicate-key hashes, per key of the largest object.
const PER_KEY: usize = 24;
/// Heap allowed for encode_within on top of the input's length (see the module docs).
const ENCODE_SLACK: usize = MIB;
const KEYS: usize = 100_000;

/// Asserts `usage.peak <= bound` and prints the measurement (`--nocapture` shows it).
fn within(what: &str, input_len: usize, usage: Usage, bound: usize) {
    println!(
        "{what}: input {input_len} bytes, peak heap {} bytes ({} allocations), bound {bound}",
        usage.peak, usage.allocations
    );
    assert!(usage.peak <= bound, "{what}: peak heap {} bytes over the bound {bound} (input {input_len})", usage.peak);
}

// ---------------------------------------------------------------------------------------------
// The C calls.

fn summary(xml: &[u8]) -> i32 {
    abi::summary_xml(xml)
}

fn validate(wire: &[u8]) -> i32 {
    abi::input_validate(wire)
}

// The calls with caller buffers stay here: their buffers are allocated outside the measurement.

/// `encode_within` into a caller buffer of `cap` bytes; returns the status and the length.
fn encode_into(handle: &Input, max_bytes: u64, buf: &mut [u8]) -> (i32, usize) {
    let mut len = 0;
    // SAFETY: a live handle and buffer.
    let rc =
        unsafe { lc_compaction_input_encode_within(handle.as_ptr(), max_bytes, buf.as_mut_ptr(), buf.len(), &mut len) };
    (rc, len)
}

/// The size query of `encode_within`.
fn encoded_len(handle: &Input, max_bytes: u64) -> usize {
    let mut len = 0;
    // SAFETY: a live handle; NULL with capacity 0 is the size query.
    let rc = unsafe { lc_compaction_input_encode_within(handle.as_ptr(), max_bytes, ptr::null_mut(), 0, &mut len) };
    assert_eq!(rc, 2, "size query");
    len
}

fn output(handle: &Input, reply: &[u8], buf: &mut [u8]) -> (i32, usize) {
    let mut len = 0;
    // SAFETY: a live handle and buffers.
    let rc = unsafe {
        lc_compaction_output_validate(
            handle.as_ptr(),
            reply.as_ptr(),
            reply.len(),
            1,
            u64::MAX,
            buf.as_mut_ptr(),
            buf.len(),
            &mut len,
        )
    };
    (rc, len)
}

fn policy(json: &[u8]) -> i32 {
    abi::compaction_policy(json, 2)
}

fn observation(json: &[u8]) -> i32 {
    abi::context_observation(json, 2)
}

fn config(json: &[u8]) -> i32 {
    abi::context_config(json)
}

fn fingerprint(json: &[u8]) -> i32 {
    abi::request_fingerprint(json).err().unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// Documents.

const IDENTITY: &str = r#""basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"model":{"provider":"provider","model":"model"},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20""#;

/// An input wire around a transcript (the messages, comma-separated, without brackets).
fn wire(messages: &[u8]) -> Vec<u8> {
    let mut out = format!(r#"{{"version":1,{IDENTITY},"transcript":["#).into_bytes();
    out.extend_from_slice(messages);
    out.extend_from_slice(br#"],"max_summary_tokens":32}"#);
    out
}

/// An assistant message with one tool_use block whose raw `input` is `input`.
fn tool_use(input: &[u8]) -> Vec<u8> {
    let mut out = br#"{"role":"assistant","blocks":[{"type":"tool_use","id":"t1","name":"probe","input":"#.to_vec();
    out.extend_from_slice(input);
    out.extend_from_slice(br#"}],"usage":null}"#);
    out
}

/// `depth` nested arrays, or objects `{"a":…}`, around `null`.
fn nested(depth: usize, objects: bool) -> Vec<u8> {
    let (open, close): (&[u8], &[u8]) = if objects { (br#"{"a":"#, b"}") } else { (b"[", b"]") };
    let mut out = Vec::with_capacity(depth * (open.len() + close.len()) + 4);
    for _ in 0..depth {
        out.extend_from_slice(open);
    }
    out.extend_from_slice(b"null");
    for _ in 0..depth {
        out.extend_from_slice(close);
    }
    out
}

/// An object with `n` distinct keys (plus a repeat of the first key when `duplicate`).
fn many_keys(n: usize, duplicate: bool) -> Vec<u8> {
    let mut out = b"{".to_vec();
    for i in 0..n {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(format!("\"k{i}\":{i}").as_bytes());
    }
    if duplicate {
        out.extend_from_slice(b",\"k0\":0");
    }
    out.push(b'}');
    out
}

/// `doc` with `value` spliced in as the value of its first key (`{"K":VALUE,…`).
fn with_first_value(doc: &str, value: &[u8]) -> Vec<u8> {
    let bytes = doc.as_bytes();
    let colon = doc.find(':').unwrap();
    let end = doc[colon..].find(',').unwrap() + colon;
    [&bytes[..=colon], value, &bytes[end..]].concat()
}

/// `doc` with its one occurrence of `old` replaced by `new`.
fn replace_once(doc: &str, old: &str, new: &[u8]) -> Vec<u8> {
    let at = doc.find(old).unwrap();
    [&doc.as_bytes()[..at], new, &doc.as_bytes()[at + old.len()..]].concat()
}

/// One document, the function that checks it, and the status it must give.
type Case = (&'static str, Vec<u8>, fn(&[u8]) -> i32, i32);

/// A valid summary with a goal of about `size` bytes of text (with an entity every 64 bytes).
fn big_summary(size: usize) -> Vec<u8> {
    let mut out = b"<conversation_summary><goal>".to_vec();
    let chunk = b"the build passes &amp; the agent keeps its context window small.\n";
    while out.len() < size {
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(b"</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>");
    out
}

/// A transcript of about `size` bytes: pairs of an assistant tool_use message and a tool message
/// holding a 64 KiB result, so that fitting has candidates.
fn big_transcript(size: usize) -> Vec<u8> {
    let result = "r".repeat(64 * KIB - 200);
    let mut messages = Vec::with_capacity(size + 64 * KIB);
    let mut i = 0;
    while messages.len() < size {
        if i > 0 {
            messages.push(b',');
        }
        messages.extend_from_slice(
            format!(
                r#"{{"role":"assistant","blocks":[{{"type":"tool_use","id":"c{i}","name":"read","input":{{"path":"f{i}"}}}}],"usage":null}},{{"role":"tool","blocks":[{{"type":"text","text":"{result}"}}],"tool_use_id":"c{i}","is_error":false}}"#
            )
            .as_bytes(),
        );
        i += 1;
    }
    wire(&messages)
}

// ---------------------------------------------------------------------------------------------
// 10^6-deep nesting: rejected (J5.2: at most 10000) with bounded memory and no stack overflow.

#[test]
fn nesting_in_tool_use_input() {
    for objects in [false, true] {
        let doc = wire(&tool_use(&nested(DEEP, objects)));
        let (rc, usage) = measure(|| validate(&doc));
        assert_eq!(rc, 100, "10^6 nesting is a J5.2 error: wire");
        within("input: 10^6-deep tool_use input (validate)", doc.len(), usage, WIRE_SLACK);
        let (rc, usage) = measure(|| Input::parse(&doc).err());
        assert_eq!(rc, Some(100));
        within("input: 10^6-deep tool_use input (parse)", doc.len(), usage, WIRE_SLACK);
        let shallow = wire(&tool_use(&nested(20_000, objects)));
        let (rc, shallow_usage) = measure(|| validate(&shallow));
        assert_eq!(rc, 100);
        assert_eq!(usage.peak, shallow_usage.peak, "the memory of a rejected nesting bomb depends on its depth");
    }
}

#[test]
fn nesting_at_the_limit_in_tool_use_input() {
    // J5.2: 10000 levels in the whole document; the tool_use input sits at depth 6 (document,
    // transcript, message, blocks, block, input), so 9995 more levels reach exactly 10000.
    for objects in [false, true] {
        let doc = wire(&tool_use(&nested(9995, objects)));
        let (handle, usage) = measure(|| Input::parse(&doc));
        let handle = handle.unwrap_or_else(|rc| panic!("10000 levels are accepted (J5.2), got {rc}"));
        within("input: 10000-deep document (parse)", doc.len(), usage, 2 * doc.len() + WIRE_SLACK);
        let n = encoded_len(&handle, u64::MAX);
        let mut buf = vec![0u8; n];
        let ((rc, _), usage) = measure(|| encode_into(&handle, u64::MAX, &mut buf));
        assert_eq!(rc, 0);
        assert!(n <= doc.len());
        within("input: 10000-deep document (encode)", n, usage, doc.len() + ENCODE_SLACK);
        let too_deep = wire(&tool_use(&nested(9996, objects)));
        assert_eq!(validate(&too_deep), 100, "10001 levels");
    }
}

#[test]
fn nesting_in_documents() {
    for objects in [false, true] {
        let bomb = nested(DEEP, objects);
        let cases: [Case; 5] = [
            ("policy", with_first_value(POLICY, &bomb), policy, 300),
            ("observation", with_first_value(OBSERVATION, &bomb), observation, 320),
            ("context config", [br#"{"Compaction":"#.as_slice(), &bomb, b"}"].concat(), config, 340),
            ("fingerprint", with_first_value(FINGERPRINT, &bomb), fingerprint, 400),
            (
                "fingerprint Stop",
                replace_once(FINGERPRINT, r#""Stop":null"#, &[br#""Stop":"#.as_slice(), &bomb].concat()),
                fingerprint,
                400,
            ),
        ];
        for (what, doc, call, expected) in cases {
            let (rc, usage) = measure(|| call(&doc));
            assert_eq!(rc, expected, "{what}: 10^6 nesting");
            within(&format!("{what}: 10^6 nesting"), doc.len(), usage, 2 * MIB);
        }
    }
}

#[test]
fn nesting_in_summaries() {
    // Nested elements inside a section, nested elements as the root, and 10^6 `<` inside a
    // directive (X4.15 counts them): none of it allocates.
    let mut inside = b"<conversation_summary><goal>".to_vec();
    inside.extend(std::iter::repeat_n(b"<a>".as_slice(), DEEP).flatten());
    let root: Vec<u8> = std::iter::repeat_n(b"<a>".as_slice(), DEEP).flatten().copied().collect();
    let mut directive = b"<!DOCTYPE x ".to_vec();
    directive.extend(std::iter::repeat_n(b'<', DEEP));
    directive.extend(std::iter::repeat_n(b'>', DEEP + 1));
    let mut closed = b"<conversation_summary><goal>x".to_vec();
    closed.extend(std::iter::repeat_n(b"</a>".as_slice(), DEEP).flatten());
    for (what, xml, expected) in [
        ("in a section", inside, 208),
        ("as the root", root, 207),
        ("in a directive", directive, 208),
        ("end tags", closed, 206),
    ] {
        let (rc, usage) = measure(|| summary(&xml));
        assert_eq!(rc, expected, "summary: 10^6 nesting {what}");
        assert_eq!(usage.allocations, 0, "summary validation allocated ({what})");
    }
}

// ---------------------------------------------------------------------------------------------
// 10^5 keys and attributes.

#[test]
fn many_keys_in_a_raw_value() {
    let doc = wire(&tool_use(&many_keys(KEYS, false)));
    let (handle, usage) = measure(|| Input::parse(&doc));
    let handle = handle.unwrap_or_else(|rc| panic!("10^5 distinct keys are fine, got {rc}"));
    within("input: 10^5 keys in a raw value (parse)", doc.len(), usage, 2 * doc.len() + PER_KEY * KEYS + WIRE_SLACK);
    let n = encoded_len(&handle, u64::MAX);
    let mut buf = vec![0u8; n];
    let ((rc, _), usage) = measure(|| encode_into(&handle, u64::MAX, &mut buf));
    assert_eq!(rc, 0);
    assert!(n <= doc.len());
    within("input: 10^5 keys in a raw value (encode)", n, usage, doc.len() + ENCODE_SLACK);

    // The same with one duplicate at the very end: every key must be remembered (J5.5, D2).
    let doc = wire(&tool_use(&many_keys(KEYS, true)));
    let (rc, usage) = measure(|| validate(&doc));
    assert_eq!(rc, 104, "a duplicate key in a raw value is a transcript error");
    within(
        "input: 10^5 keys and a duplicate in a raw value",
        doc.len(),
        usage,
        2 * doc.len() + PER_KEY * KEYS + WIRE_SLACK,
    );
}

#[test]
fn many_keys_in_documents() {
    let keys = many_keys(KEYS, false);
    let unknown = |doc: &str| [&keys[..keys.len() - 1], b",", &doc.as_bytes()[1..]].concat();
    let cases: [Case; 5] = [
        ("policy", unknown(POLICY), policy, 300),
        ("observation", unknown(OBSERVATION), observation, 320),
        ("context config", keys.clone(), config, 340),
        ("fingerprint", unknown(FINGERPRINT), fingerprint, 400),
        ("fingerprint value", with_first_value(FINGERPRINT, &keys), fingerprint, 400),
    ];
    for (what, doc, call, expected) in cases {
        let (rc, usage) = measure(|| call(&doc));
        assert_eq!(rc, expected, "{what}: 10^5 unknown keys");
        within(&format!("{what}: 10^5 keys"), doc.len(), usage, doc.len() + MIB);
    }
    // 10^5 keys inside a raw value of a compaction input's tool_use, as a thinking provider_state.
    let block = [
        br#"{"role":"assistant","blocks":[{"type":"thinking","thinking":"t","signature":"s","provider_state":"#
            .as_slice(),
        &keys,
        br#","provider_state_format":"f"}],"usage":null}"#,
    ]
    .concat();
    let doc = wire(&block);
    let (rc, usage) = measure(|| validate(&doc));
    assert_eq!(rc, 0);
    within("input: 10^5 keys in provider_state", doc.len(), usage, 2 * doc.len() + PER_KEY * KEYS + WIRE_SLACK);
}

#[test]
fn many_attributes_in_summaries() {
    let attributes: Vec<u8> = (0..KEYS).flat_map(|i| format!(" a{i}=\"v&amp;{i}\"").into_bytes()).collect();
    let on_root = [b"<conversation_summary".as_slice(), &attributes, b">"].concat();
    let on_section = [b"<conversation_summary><goal".as_slice(), &attributes, b">"].concat();
    let on_wrong_root = [b"<summary".as_slice(), &attributes, b">"].concat();
    for (what, xml, expected) in
        [("root", on_root, 208), ("section", on_section, 208), ("wrong root", on_wrong_root, 207)]
    {
        let (rc, usage) = measure(|| summary(&xml));
        assert_eq!(rc, expected, "summary: 10^5 attributes on the {what}");
        assert_eq!(usage.allocations, 0, "summary validation allocated (10^5 attributes on the {what})");
    }
}

// ---------------------------------------------------------------------------------------------
// Large inputs: a summary text node, a transcript, a reply.

fn check_big_summary(size: usize) {
    let xml = big_summary(size);
    let (rc, usage) = measure(|| summary(&xml));
    assert_eq!(rc, 0);
    assert_eq!(usage.allocations, 0, "summary validation of {} bytes allocated", xml.len());
    println!("summary: {} bytes, {} allocations", xml.len(), usage.allocations);
}

fn check_big_transcript(size: usize) {
    let doc = big_transcript(size);
    let (rc, usage) = measure(|| validate(&doc));
    assert_eq!(rc, 0);
    within("input: large transcript (validate)", doc.len(), usage, WIRE_SLACK);
    let (handle, usage) = measure(|| Input::parse(&doc));
    let handle = handle.unwrap();
    within("input: large transcript (parse)", doc.len(), usage, doc.len() + doc.len() / 2 + WIRE_SLACK);

    let (n, usage) = measure(|| encoded_len(&handle, u64::MAX));
    assert!(n <= doc.len());
    within("input: large transcript (size query)", n, usage, ENCODE_SLACK);
    let mut buf = vec![0u8; n];
    let ((rc, len), usage) = measure(|| encode_into(&handle, u64::MAX, &mut buf));
    assert_eq!((rc, len), (0, n));
    within("input: large transcript (encode, no limit)", n, usage, doc.len() + ENCODE_SLACK);
    // Half the size: about half of the tool results are stubbed (F7.3).
    let half = (n / 2) as u64;
    let ((rc, len), usage) = measure(|| encode_into(&handle, half, &mut buf));
    assert_eq!(rc, 0);
    assert!(len as u64 <= half);
    within("input: large transcript (encode, half the size)", n, usage, doc.len() + ENCODE_SLACK);
    // Too large even with every candidate stubbed.
    let ((rc, _), usage) = measure(|| encode_into(&handle, 1024, &mut buf));
    assert_eq!(rc, 110);
    within("input: large transcript (encode, too large)", n, usage, doc.len() + ENCODE_SLACK);
}

fn check_big_reply(size: usize) {
    let doc = wire(br#"{"role":"user","blocks":[{"type":"text","text":"hi"}]}"#);
    let handle = Input::parse(&doc).unwrap();
    // The summary as a JSON string: `"` needs no escape in XML text, so escape only the newlines
    // (and the entity's `&` is plain in JSON).
    let xml = big_summary(size);
    let text = String::from_utf8(xml.clone()).unwrap().replace('\n', "\\n");
    let reply = format!(r#"{{"version":1,{IDENTITY},"summary":"{text}"}}"#).into_bytes();
    let mut buf = vec![0u8; reply.len()];
    let ((rc, len), usage) = measure(|| output(&handle, &reply, &mut buf));
    assert_eq!(rc, 0);
    assert_eq!(&buf[..len], &xml[..]);
    within("output: large reply (escaped summary)", reply.len(), usage, reply.len() + MIB);
    // Without escapes the summary can be borrowed from the reply.
    let plain = String::from_utf8(xml).unwrap().replace('\n', " ");
    let reply = format!(r#"{{"version":1,{IDENTITY},"summary":"{plain}"}}"#).into_bytes();
    let ((rc, _), usage) = measure(|| output(&handle, &reply, &mut buf));
    assert_eq!(rc, 0);
    within("output: large reply (plain summary)", reply.len(), usage, reply.len() + MIB);
}

#[test]
fn summary_4mb() {
    check_big_summary(4 * MIB);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "100 MB: slow in debug builds; cargo test --release --test resource_bounds")]
fn summary_100mb() {
    check_big_summary(100 * MIB);
}

#[test]
fn transcript_4mb() {
    check_big_transcript(4 * MIB);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "100 MB: slow in debug builds; cargo test --release --test resource_bounds")]
fn transcript_100mb() {
    check_big_transcript(100 * MIB);
}

#[test]
fn reply_4mb() {
    check_big_reply(4 * MIB);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "100 MB: slow in debug builds; cargo test --release --test resource_bounds")]
fn reply_100mb() {
    check_big_reply(100 * MIB);
}

#[test]
fn the_counter_sees_allocations() {
    // Without this, a broken counter would pass every test above.
    let (_, usage) = measure(|| black_box(vec![1u8; 64 * KIB]));
    assert!(usage.allocations >= 1 && usage.peak >= 64 * KIB, "{usage:?}");
}

// ---------------------------------------------------------------------------------------------
// Fitting writes in place (issue "bounded cost"): whatever the output's size, encode_within into a
// caller buffer and its size query cost at most 1 MiB beyond the handle.

/// A user message with one text block of `n` bytes `<`: each becomes `\u003c`, 6 bytes (E7.6), so
/// the encoding is six times the input.
fn markup_text(n: usize) -> Vec<u8> {
    let text = "<".repeat(n);
    wire(format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"{text}"}}]}}"#).as_bytes())
}

/// An audio block whose base64 data has an escaped CR LF every 76 characters (T5.6 ignores them,
/// E7.5 drops them): not canonical, so fitting re-encodes it.
fn escaped_audio(n: usize) -> Vec<u8> {
    let line = "QUJD".repeat(19);
    let mut data = String::with_capacity(n + n / 19);
    while data.len() < n {
        data.push_str(&line);
        data.push_str("\\r\\n");
    }
    wire(
        format!(r#"{{"role":"user","blocks":[{{"type":"audio","media_type":"audio/wav","data":"{data}"}}]}}"#)
            .as_bytes(),
    )
}

fn check_in_place(what: &str, doc: &[u8]) {
    let handle = Input::parse(doc).expect("a valid input");
    let (len, usage) = measure(|| encoded_len(&handle, u64::MAX));
    within(&format!("{what}: size query"), doc.len(), usage, MIB);
    let mut buf = vec![0u8; len];
    let ((rc, written), usage) = measure(|| encode_into(&handle, u64::MAX, &mut buf));
    assert_eq!((rc, written), (0, len));
    within(&format!("{what}: encode_within into the caller's buffer of {len} bytes"), doc.len(), usage, MIB);
    // One byte short: too small, and nothing of the output's size is built to say so.
    let ((rc, _), usage) = measure(|| encode_into(&handle, u64::MAX, &mut buf[..len - 1]));
    assert_eq!(rc, 2);
    within(&format!("{what}: encode_within one byte short"), doc.len(), usage, MIB);
}

#[test]
fn fitting_writes_in_place_4mb() {
    check_in_place("4 MB of <", &markup_text(4 * MIB));
    check_in_place("4 MB of escaped base64", &escaped_audio(4 * MIB));
}

#[test]
#[cfg_attr(debug_assertions, ignore = "100 MB: release only (scripts/test)")]
fn fitting_writes_in_place_50mb() {
    check_in_place("50 MB of <", &markup_text(50 * MIB));
    check_in_place("50 MB of escaped base64", &escaped_audio(50 * MIB));
}

// ---------------------------------------------------------------------------------------------
// The shape zoo (issue #14): valid documents made of millions of tiny things, where memory used to
// grow with their number rather than with the document's size. Bounds, n the document's size:
// `_validate` and the fingerprint ≤ 0.5n + 1 MiB (and for the transcripts, which have no wide
// object, ≤ 1 MiB: validation builds nothing); `_parse` ≤ 1.5n + 1 MiB (the handle's copy of the
// wire and at most a side table); `encode_within` into a caller buffer ≤ 1 MiB beyond the handle.

/// The transcript shapes, about `size` bytes each: (name, wire).
fn transcript_shapes(size: usize) -> Vec<(&'static str, Vec<u8>)> {
    let blocks = |block: &str| {
        let mut m = br#"{"role":"user","blocks":["#.to_vec();
        m.extend(repeated(block, size / (block.len() + 1)));
        m.extend_from_slice(b"]}");
        wire(&m)
    };
    let text = r#"{"type":"text","text":""}"#;
    let thinking = r#"{"type":"thinking","thinking":"","signature":""}"#;
    let user = r#"{"role":"user","blocks":[]}"#;
    let tool = r#"{"role":"tool","blocks":[],"tool_use_id":"","is_error":false}"#;
    // Every role and id after what it precedes: each message and result lands in the side table.
    let late = r#"{"blocks":[{"content":[],"is_error":false,"tool_use_id":"","type":"tool_result"}],"role":"user"}"#;
    // Minimal answered calls with distinct ids: the parse walk pairs them (S14.3), so its id set
    // grows with the number of calls.
    let mut calls = Vec::new();
    for k in 0..size / 150 {
        if k > 0 {
            calls.push(b',');
        }
        calls.extend(
            format!(
                r#"{{"role":"assistant","blocks":[{{"type":"tool_use","id":"t{k}","name":"n","input":0}}],"usage":null}},{{"role":"tool","blocks":[],"tool_use_id":"t{k}","is_error":false}}"#
            )
            .bytes(),
        );
    }
    // Many calls in one assistant message (a model that fans out), answered by one user message of
    // results, by as many tool messages, or not at all; and with the roles after the blocks. The
    // parse walk pairs them (S14.3): what it keeps per call must stay within the parse's bound.
    let fan_out = |late: bool, answers: &dyn Fn(usize) -> String| {
        let k = size / 120;
        let calls: Vec<String> =
            (0..k).map(|c| format!(r#"{{"type":"tool_use","id":"c{c}","name":"n","input":0}}"#)).collect();
        let calls = calls.join(",");
        let message = if late {
            format!(r#"{{"blocks":[{calls}],"role":"assistant"}}"#)
        } else {
            format!(r#"{{"role":"assistant","blocks":[{calls}]}}"#)
        };
        wire(format!("{message}{}", answers(k)).as_bytes())
    };
    let result = |c: usize| format!(r#"{{"type":"tool_result","tool_use_id":"c{c}","content":[],"is_error":false}}"#);
    let results =
        |k: usize| format!(r#",{{"role":"user","blocks":[{}]}}"#, (0..k).map(result).collect::<Vec<_>>().join(","));
    let tool_messages = |k: usize| {
        (0..k).map(|c| format!(r#",{{"role":"tool","blocks":[],"tool_use_id":"c{c}","is_error":false}}"#)).collect()
    };
    // A tool message carrying every result as a block too, its own id after them.
    let late_results = |k: usize| {
        format!(
            r#",{{"blocks":[{}],"role":"tool","tool_use_id":"c0","is_error":false}}"#,
            (0..k).map(result).collect::<Vec<_>>().join(",")
        )
    };
    // Tool inputs of numbers: one-byte integers, and floats of seven decimals (a vector store's).
    let ones = [b"[".as_slice(), &repeated("1", size / 2), b"]"].concat();
    let floats: Vec<String> =
        (0..size / 11).map(|i| format!("{:.7}", (i * 2_654_435_761 % 2_000_001) as f64 / 1e6 - 1.0)).collect();
    let vector = format!(r#"{{"vector":[{}]}}"#, floats.join(","));
    // Base64 data with an escaped CR LF every 76 characters, in an audio block and in an image's
    // source: validation checks it as it decodes the escapes, never into a copy (T5.6).
    let line = format!("{}\\r\\n", "QUJD".repeat(19));
    let data = line.repeat(size / line.len());
    let audio = format!(r#"{{"role":"user","blocks":[{{"type":"audio","media_type":"audio/wav","data":"{data}"}}]}}"#);
    let image = format!(
        r#"{{"role":"user","blocks":[{{"type":"image","media_type":"image/png","source":{{"url":"","data":"{data}"}}}}]}}"#
    );
    vec![
        ("answered tool calls", wire(&calls)),
        ("calls in one message, answered by one message", fan_out(false, &results)),
        ("calls in one message, answered by tool messages", fan_out(false, &tool_messages)),
        ("calls in one message, unanswered", fan_out(false, &|_| String::new())),
        ("calls in one message, roles last", fan_out(true, &late_results)),
        ("escaped base64 audio", wire(audio.as_bytes())),
        ("escaped base64 image", wire(image.as_bytes())),
        ("tool input: millions of numbers", wire(&tool_use(&ones))),
        ("tool input: a vector of floats", wire(&tool_use(vector.as_bytes()))),
        ("minimal text blocks", blocks(text)),
        ("thinking blocks", blocks(thinking)),
        ("empty user messages", wire(&repeated(user, size / (user.len() + 1)))),
        ("empty tool messages", wire(&repeated(tool, size / (tool.len() + 1)))),
        ("late roles and ids", wire(&repeated(late, size / (late.len() + 1)))),
    ]
}

fn check_transcript_shapes(size: usize) {
    for (name, doc) in transcript_shapes(size) {
        let n = doc.len();
        let (rc, usage) = measure(|| validate(&doc));
        assert_eq!(rc, 0, "{name}");
        within(&format!("shape {name}: validate"), n, usage, WIRE_SLACK);
        let (handle, usage) = measure(|| Input::parse(&doc));
        let handle = handle.expect("a valid input");
        within(&format!("shape {name}: parse"), n, usage, n + n / 2 + WIRE_SLACK);
        let (len, usage) = measure(|| encoded_len(&handle, u64::MAX));
        within(&format!("shape {name}: size query"), n, usage, MIB);
        let mut buf = vec![0u8; len];
        let ((rc, written), usage) = measure(|| encode_into(&handle, u64::MAX, &mut buf));
        assert_eq!((rc, written), (0, len), "{name}");
        within(&format!("shape {name}: encode_within into the caller's buffer"), n, usage, MIB);
        // SAFETY: a live handle; NULL diagnostic.
        let (rc, usage) = measure(|| unsafe { lc_transcript_pairing_check(handle.as_ptr(), ptr::null_mut()) });
        println!("shape {name}: pairing check {rc}, peak heap {} bytes", usage.peak);
    }
}

#[test]
fn transcript_shapes_4mb() {
    check_transcript_shapes(4 * MIB);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "32 MB: release only (scripts/test)")]
fn transcript_shapes_32mb() {
    check_transcript_shapes(32 * MIB);
}

/// The fingerprint shapes, about `size` bytes each: (name, document, status).
fn fingerprint_shapes(size: usize) -> Vec<(&'static str, Vec<u8>, i32)> {
    let stop =
        |value: Vec<u8>| replace_once(FINGERPRINT, r#""Stop":null"#, &[br#""Stop":"#.as_slice(), &value].concat());
    let many = [b"[".as_slice(), &repeated(r#""a""#, size / 4), b"]"].concat();
    let long = format!(r#"["{}"]"#, "<".repeat(size)).into_bytes();
    let groups = format!(r#""BaseURL":"https://[{}0]""#, "0:".repeat(size / 2));
    vec![
        ("Stop with millions of entries", stop(many), 0),
        ("one Stop string of <", stop(long), 0),
        // More than eight groups: not an IPv6 address (R10.4), so the model is invalid (404).
        (
            "BaseURL with millions of IPv6 groups",
            replace_once(FINGERPRINT, r#""BaseURL":"http://localhost:1234""#, groups.as_bytes()),
            404,
        ),
    ]
}

fn check_fingerprint_shapes(size: usize, compare: bool) {
    for (name, doc, status) in fingerprint_shapes(size) {
        let n = doc.len();
        let (result, usage) = measure(|| abi::request_fingerprint(&doc));
        assert_eq!(result.err().unwrap_or(0), status, "{name}");
        within(&format!("shape {name}: lc_request_fingerprint"), n, usage, n / 2 + MIB);
        // The C path keeps BaseURL and Stop in the document; the Rust API decodes them: the same
        // digest both ways.
        if compare && let Ok(digest) = result {
            let owned = loopcompact::fingerprint::RequestFingerprint::compute(&doc).expect("valid");
            assert_eq!(&digest, owned.as_bytes(), "{name}");
        }
    }
}

#[test]
fn fingerprint_shapes_4mb() {
    check_fingerprint_shapes(4 * MIB, true);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "32 MB: release only (scripts/test)")]
fn fingerprint_shapes_32mb() {
    check_fingerprint_shapes(32 * MIB, false);
}

/// Text-heavy documents: one string of `size` bytes in the string fields of a fingerprint document
/// and in a policy's `Hustle`, which the C path reads in place, escaped or not: ≤ 0.5n + 1 MiB, and
/// ≤ 1 MiB for the escaped `Hustle` and providers of the policy calls.
fn check_long_strings(size: usize) {
    let long = format!(r#""{}""#, "a".repeat(size));
    let field = |doc: &str, key: &str, old: &str| {
        replace_once(doc, &format!(r#""{key}":{old}"#), format!(r#""{key}":{long}"#).as_bytes())
    };
    let half = |n: usize| n / 2 + MIB;
    // Nothing of the document's size at all: the escaped strings that are read one character at a
    // time (an unescaping buffer would be the body's size).
    let nothing = |_: usize| MIB;
    /// (name, document, call, status, bound of the document's length).
    type LongCase<'b> = (&'b str, Vec<u8>, fn(&[u8]) -> i32, i32, &'b dyn Fn(usize) -> usize);
    let cases: Vec<LongCase> = vec![
        ("fingerprint BaseURL", field(FINGERPRINT, "BaseURL", r#""http://localhost:1234""#), fingerprint, 404, &half),
        ("policy Hustle", field(POLICY, "Hustle", r#""context.compact""#), policy, 0, &half),
        // Escaped: P8.5 reads the decoded characters one at a time, never a copy.
        (
            "policy Hustle (escaped)",
            replace_once(
                POLICY,
                r#""Hustle":"context.compact""#,
                format!(r#""Hustle":"{}""#, r"\u00e9".repeat(size / 6)).as_bytes(),
            ),
            policy,
            0,
            &nothing,
        ),
        ("fingerprint SystemRevision", field(FINGERPRINT, "SystemRevision", r#""system-v1""#), fingerprint, 0, &half),
        ("fingerprint Model.Name", field(FINGERPRINT, "Name", r#""m""#), fingerprint, 0, &half),
        ("fingerprint TokenizerRev", field(FINGERPRINT, "TokenizerRev", r#""exact-v1""#), fingerprint, 0, &half),
        // Not one of the two dialects, and longer than any escaped one: rejected unread (404).
        ("fingerprint ThinkingDialect", field(FINGERPRINT, "ThinkingDialect", r#""""#), fingerprint, 404, &half),
        // Escaped: decoded as it is hashed, never into a copy.
        (
            "fingerprint Effort (escaped)",
            replace_once(
                FINGERPRINT,
                r#""Effort":"""#,
                format!(r#""Effort":"{}""#, r"\u00e9".repeat(size / 6)).as_bytes(),
            ),
            fingerprint,
            0,
            &half,
        ),
        // Longer than any escaped UUID: rejected unread (400).
        (
            "fingerprint through_event_id",
            field(FINGERPRINT, "through_event_id", r#""01000000-0000-0000-0000-000000000000""#),
            fingerprint,
            400,
            &half,
        ),
    ];
    // A context config whose counter and inference capability name the same long provider
    // (same endpoint, P8.11: compared in place) and whose policy has a long Hustle.
    let id = format!("[{}]", vec!["7"; 32].join(","));
    let provider = "p".repeat(size / 3);
    let hustle = "h".repeat(size / 3);
    let context = format!(
        r#"{{"Compaction":{},"ContextObservation":null,"CounterCapability":{{"Provider":"{provider}","Transport":2,"SecurityIdentity":{id},"Retention":3,"TokenizerRev":"exact-v1","Quality":2}},"InferenceCapability":{{"Provider":"{provider}","Transport":2,"SecurityIdentity":{id},"Retention":3}}}}"#,
        POLICY.replace("context.compact", &hustle)
    );
    let typed = loopcompact::policy::ContextConfig::from_json(context.as_bytes()).and_then(|c| c.validate());
    assert_eq!(typed, Ok(()), "the long context config is valid");
    let mut cases = cases;
    // The same with every long string escaped: the providers are compared and `Hustle` trimmed
    // as they are decoded, one character at a time.
    let escaped = |text: &str| text.chars().map(|c| format!("\\u{:04x}", u32::from(c))).collect::<String>();
    let escaped_context = context.replace(&provider, &escaped(&provider)).replace(&hustle, &escaped(&hustle));
    let typed = loopcompact::policy::ContextConfig::from_json(escaped_context.as_bytes()).and_then(|c| c.validate());
    assert_eq!(typed, Ok(()), "the escaped context config is valid");
    // One provider one character shorter: not the same endpoint any more (P8.11, 347).
    let unequal = escaped_context.replacen(&escaped(&provider), &escaped(&provider[1..]), 1);
    cases.push(("context config providers and Hustle", context.into_bytes(), config, 0, &half));
    cases.push(("context config providers and Hustle (escaped)", escaped_context.into_bytes(), config, 0, &nothing));
    cases.push(("context config unequal escaped providers", unequal.into_bytes(), config, 347, &nothing));
    for (what, doc, call, status, bound) in cases {
        let (rc, usage) = measure(|| call(&doc));
        assert_eq!(rc, status, "{what}");
        within(&format!("long string: {what}"), doc.len(), usage, bound(doc.len()));
    }
}

#[test]
fn long_strings_4mb() {
    check_long_strings(4 * MIB);
}

// ---------------------------------------------------------------------------------------------
// The converters (SPEC §16): the peak stays within the input's size plus three times what the
// handle keeps (the transcript, 16 bytes of source index and end per wire message, a flag per cut:
// its vectors grow by doubling, and a growing vector has its old and new buffers) and 1 MiB,
// on the shapes of the zoo: many tiny messages, a huge arguments string, long content, deep
// content (a tool input at J5.2's depth, and a nesting bomb, refused). Not yet within it: one
// source message of very many JSON tokens (a user message of 10^5 text blocks, a tool output
// holding a JSON array of 10^6 numbers), whose element tree costs about 48 bytes a token (88 before
// 2026-12-03): 16.6 MB for 2.7 MB of text blocks, 49.5 MB for 2.0 MB of numbers.

/// The converter shapes, about `size` bytes each: (name, format, source).
fn convert_shapes(size: usize) -> Vec<(&'static str, i32, Vec<u8>)> {
    let tiny = [b"[".as_slice(), &repeated(r#"{"role":"user","content":"a"}"#, size / 30), b"]"].concat();
    // A Chat arguments string: JSON inside a JSON string, every quote escaped.
    let arguments = format!(
        r#"[{{"role":"user","content":"q"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"c","type":"function","function":{{"name":"f","arguments":"{{\"k\":[{}]}}"}}}}]}},{{"role":"tool","tool_call_id":"c","content":"ok"}}]"#,
        vec![r#"\"v\""#; size / 6].join(",")
    )
    .into_bytes();
    let long = format!(r#"[{{"role":"user","content":"{}"}}]"#, "<&>".repeat(size / 3)).into_bytes();
    let deep_input = format!(
        r#"{{"messages":[{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"f","input":{{"x":{}1{}}}}}]}},{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t","content":"ok"}}]}}]}}"#,
        "[".repeat(9_990),
        "]".repeat(9_990)
    )
    .into_bytes();
    let gemini_many =
        [br#"{"contents":["#.as_slice(), &repeated(r#"{"role":"user","parts":[{"text":"a"}]}"#, size / 38), b"]}"]
            .concat();
    vec![
        ("many tiny Chat messages", LC_FORMAT_OPENAI_CHAT, tiny),
        ("a huge Chat arguments string", LC_FORMAT_OPENAI_CHAT, arguments),
        ("a long text of markup", LC_FORMAT_OPENAI_CHAT, long),
        ("a tool input 9990 deep", LC_FORMAT_ANTHROPIC, deep_input),
        ("many tiny Gemini contents", LC_FORMAT_GEMINI, gemini_many),
    ]
}

fn check_convert_shapes(size: usize) {
    for (name, format, src) in convert_shapes(size) {
        let n = src.len();
        // The library alone: the handle is made while counting, read and freed after.
        let (handle, usage) = measure(|| {
            let mut out = ptr::null_mut();
            // SAFETY: a live buffer, `out` writable, NULL diagnostic.
            let rc = unsafe { lc_transcript_convert(format, src.as_ptr(), n, 0, &raw mut out, ptr::null_mut()) };
            assert_eq!(rc, 0, "{name}");
            out
        });
        let c = testkit::convert::convert(format, &src, 0).unwrap_or_else(|(rc, d)| panic!("{name}: {rc} {d:?}"));
        // SAFETY: the handle of lc_transcript_convert, freed once.
        unsafe { lc_conversion_free(handle) };
        let kept = c.transcript.len() + 16 * c.source_index.len() + c.cut_allowed.len();
        // The handle's vectors grow by doubling: while one grows, its old and new buffers are live,
        // up to three times what it keeps at the end.
        // A tree of up to 10000 nested containers (J5.2) costs about 2 MiB whatever the input's size.
        let slack = if name.ends_with("deep") { 3 * MIB } else { MIB };
        within(&format!("convert {name} (handle keeps {kept} bytes)"), n, usage, n + 3 * kept + slack);
    }
    // A nesting bomb in a tool input is refused (J5.2) within 4 MiB, however deep: the tree of the
    // 10000 levels read before the refusal, and the diagnosis.
    let bomb = format!(
        r#"[{{"role":"assistant","content":[{{"type":"tool-call","toolCallId":"a","toolName":"f","input":{}}}]}}]"#,
        "[".repeat(DEEP)
    );
    let (status, usage) =
        measure(|| testkit::convert::convert(LC_FORMAT_AI_SDK, bomb.as_bytes(), 0).err().map(|(rc, _)| rc));
    assert_eq!(status, Some(testkit::status::LC_CONVERT_WIRE));
    within("convert a nesting bomb", bomb.len(), usage, 4 * MIB);
}

#[test]
fn convert_shapes_4mb() {
    check_convert_shapes(4 * MIB);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "32 MB: release only (scripts/test)")]
fn convert_shapes_32mb() {
    check_convert_shapes(32 * MIB);
}

// Diagnoses (SPEC C13.4): every `_diagnose` sibling runs its plain function, then, on a failure,
// looks again for where and why. That second look stays within the plain function's bound: a host
// binding diagnoses every failure, so the diagnosis is what its users pay. Each shape above is made
// to fail in two ways: a JSON error after the last byte (the whole document is read first) and a
// field rule broken near the start (the whole document is read and then judged).

/// A diagnostic with only `struct_size` set, allocated outside the measurement.
fn blank_diagnostic() -> lc_diagnostic {
    // SAFETY: every field of `lc_diagnostic` is an integer, a raw pointer or an array of `c_char`,
    // for which all-zero bytes are a valid value.
    let mut d: lc_diagnostic = unsafe { std::mem::zeroed() };
    d.struct_size = size_of::<lc_diagnostic>();
    d
}

/// `doc` with one byte after it: a J5.1 error at its very end.
fn trailing(doc: &[u8]) -> Vec<u8> {
    [doc, b"x"].concat()
}

fn fingerprint_diagnose(json: &[u8]) -> i32 {
    let mut out = [0u8; 32];
    let mut d = blank_diagnostic();
    // SAFETY: live buffers, 32 writable bytes and a diagnostic of `struct_size` bytes.
    unsafe { lc_request_fingerprint_diagnose(json.as_ptr(), json.len(), out.as_mut_ptr(), &mut d) }
}

fn policy_diagnose(json: &[u8]) -> i32 {
    let mut d = blank_diagnostic();
    // SAFETY: a live buffer and diagnostic.
    unsafe { lc_compaction_policy_diagnose(json.as_ptr(), json.len(), 2, &mut d) }
}

fn observation_diagnose(json: &[u8]) -> i32 {
    let mut d = blank_diagnostic();
    // SAFETY: a live buffer and diagnostic.
    unsafe { lc_context_observation_diagnose(json.as_ptr(), json.len(), 2, &mut d) }
}

fn config_diagnose(json: &[u8]) -> i32 {
    let mut d = blank_diagnostic();
    // SAFETY: a live buffer and diagnostic.
    unsafe { lc_context_config_diagnose(json.as_ptr(), json.len(), &mut d) }
}

fn input_diagnose(wire: &[u8]) -> i32 {
    let mut d = blank_diagnostic();
    // SAFETY: a live buffer and diagnostic.
    unsafe { lc_compaction_input_diagnose(wire.as_ptr(), wire.len(), &mut d) }
}

/// The plain call and its `_diagnose` sibling on a failing `doc`: the same status, not 0, and the
/// diagnosis's peak within `bound`.
fn check_diagnosis(what: &str, doc: &[u8], plain: fn(&[u8]) -> i32, diagnose: fn(&[u8]) -> i32, bound: usize) {
    let (rc, plain_usage) = measure(|| plain(doc));
    assert_ne!(rc, 0, "{what}: the shape must fail");
    let (diagnosed, usage) = measure(|| diagnose(doc));
    assert_eq!(diagnosed, rc, "{what}: the diagnosis gives the plain status");
    println!("{what}: plain peak {} bytes", plain_usage.peak);
    within(&format!("{what} (diagnose, status {rc})"), doc.len(), usage, bound);
}

fn check_fingerprint_diagnoses(size: usize) {
    for (name, doc, _) in fingerprint_shapes(size) {
        let n = doc.len() + 1;
        let zero_revision = replace_once(std::str::from_utf8(&doc).unwrap(), r#""revision":1"#, br#""revision":0"#);
        check_diagnosis(
            &format!("{name}, JSON error at the end"),
            &trailing(&doc),
            fingerprint,
            fingerprint_diagnose,
            n / 2 + MIB,
        );
        check_diagnosis(&format!("{name}, revision 0"), &zero_revision, fingerprint, fingerprint_diagnose, n / 2 + MIB);
    }
}

/// A failing document, its plain call and that call's `_diagnose` sibling.
type Failing = (&'static str, Vec<u8>, fn(&[u8]) -> i32, fn(&[u8]) -> i32);
/// The same with a flag.
type FailingLong = (&'static str, Vec<u8>, fn(&[u8]) -> i32, fn(&[u8]) -> i32, bool);

fn check_document_diagnoses(size: usize) {
    // Long strings (the bounds of `check_long_strings`): a JSON error after them.
    let long = format!(r#""{}""#, "a".repeat(size));
    let escaped = format!(r#""{}""#, r"\u00e9".repeat(size / 6));
    // The last field: whether the long string is escaped (read one character at a time: 1 MiB).
    let cases: [FailingLong; 6] = [
        (
            "policy Hustle",
            replace_once(POLICY, r#""context.compact""#, long.as_bytes()),
            policy,
            policy_diagnose,
            false,
        ),
        (
            "policy Hustle (escaped)",
            replace_once(POLICY, r#""context.compact""#, escaped.as_bytes()),
            policy,
            policy_diagnose,
            true,
        ),
        (
            "fingerprint Model.Name",
            replace_once(FINGERPRINT, r#""Name":"m""#, format!(r#""Name":{long}"#).as_bytes()),
            fingerprint,
            fingerprint_diagnose,
            false,
        ),
        (
            "fingerprint Effort (escaped)",
            replace_once(FINGERPRINT, r#""Effort":"""#, format!(r#""Effort":{escaped}"#).as_bytes()),
            fingerprint,
            fingerprint_diagnose,
            false,
        ),
        (
            "context config Hustle",
            [br#"{"Compaction":"#.as_slice(), &replace_once(POLICY, r#""context.compact""#, long.as_bytes()), b"}"]
                .concat(),
            config,
            config_diagnose,
            false,
        ),
        (
            "context config Hustle (escaped)",
            [br#"{"Compaction":"#.as_slice(), &replace_once(POLICY, r#""context.compact""#, escaped.as_bytes()), b"}"]
                .concat(),
            config,
            config_diagnose,
            true,
        ),
    ];
    for (what, doc, plain, diagnose, escaped) in cases {
        let n = doc.len() + 1;
        let bound = if escaped { MIB } else { n / 2 + MIB };
        check_diagnosis(
            &format!("long string: {what}, JSON error at the end"),
            &trailing(&doc),
            plain,
            diagnose,
            bound,
        );
    }
    // A policy whose field rule fails after a long Hustle was read (RearmBelow above CompactAt).
    let rearm = |hustle: &str| {
        POLICY.replace(r#""RearmBelow":6000"#, r#""RearmBelow":9000"#).replace(r#""context.compact""#, hustle)
    };
    check_diagnosis(
        "long string: policy Hustle, RearmBelow",
        rearm(&long).as_bytes(),
        policy,
        policy_diagnose,
        (long.len() + 300) / 2 + MIB,
    );
    check_diagnosis(
        "long string: policy Hustle (escaped), RearmBelow",
        rearm(&escaped).as_bytes(),
        policy,
        policy_diagnose,
        MIB,
    );

    // 10^5 unknown keys (the bounds of `many_keys_in_documents`): rejected at the first of them
    // (J5.5), so the diagnosis must not read further either.
    let keys = many_keys(size / 12, false);
    let unknown = |doc: &str| [&keys[..keys.len() - 1], b",", &doc.as_bytes()[1..]].concat();
    let cases: [Failing; 4] = [
        ("policy", unknown(POLICY), policy, policy_diagnose),
        ("observation", unknown(OBSERVATION), observation, observation_diagnose),
        ("context config", keys.clone(), config, config_diagnose),
        ("fingerprint", unknown(FINGERPRINT), fingerprint, fingerprint_diagnose),
    ];
    for (what, doc, plain, diagnose) in cases {
        let doc = trailing(&doc);
        check_diagnosis(&format!("many keys: {what}"), &doc, plain, diagnose, doc.len() + MIB);
    }
}

fn check_input_diagnoses(size: usize) {
    for (name, doc) in transcript_shapes(size) {
        let text = std::str::from_utf8(&doc).unwrap();
        let version = replace_once(text, r#""version":1"#, br#""version":2"#);
        let tokens = replace_once(text, r#""max_summary_tokens":32"#, br#""max_summary_tokens":0"#);
        for (how, doc) in
            [("JSON error at the end", trailing(&doc)), ("version 2", version), ("max_summary_tokens 0", tokens)]
        {
            check_diagnosis(&format!("shape {name}, {how}"), &doc, validate, input_diagnose, WIRE_SLACK);
        }
    }
}

#[test]
fn diagnoses_within_their_plain_bounds_4mb() {
    check_fingerprint_diagnoses(4 * MIB);
    check_document_diagnoses(4 * MIB);
    check_input_diagnoses(4 * MIB);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "32 MB: release only (scripts/test)")]
fn diagnoses_within_their_plain_bounds_32mb() {
    check_fingerprint_diagnoses(32 * MIB);
    check_document_diagnoses(32 * MIB);
    check_input_diagnoses(32 * MIB);
}
