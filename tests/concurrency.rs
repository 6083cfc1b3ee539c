//! Concurrency (SPEC §1: reentrant, no global or thread-local state; W5.4: a handle is immutable and
//! shareable between threads; A3.6: the same limit always gives the same bytes).
//!
//! Threads share one input handle and call every function at once — `encode_within` at several
//! limits (no limit, exact fits, stubbing, too large, the two-call pattern), `output_validate` with
//! valid and failing replies, and the stateless functions (summary, policies, config, fingerprint,
//! limits, meta) — each thread in its own order; every result is compared with the result of the same
//! call made single-threaded first. Also: handles parsed on one thread and freed on another, and
//! parse/free racing on many threads.
//!
//! Runs as a plain stress test in `cargo test`, and under ThreadSanitizer in `scripts/tsan`
//! (`-Zsanitizer=thread` with a std rebuilt by `-Zbuild-std`, so that std's own synchronisation is
//! instrumented too).

use std::ffi::CStr;
use std::sync::Barrier;

use loopcompact::ffi::*;
// A handle is shareable between threads (W5.4): the test kit's wrapper is `Send + Sync`, and this
// test exists to check that claim.
use testkit::abi::Input;
use testkit::spec::{FINGERPRINT_EXAMPLE as FINGERPRINT, POLICY};

const THREADS: usize = 8;
const ROUNDS: usize = 12;

const IDENTITY: &str = r#""basis":{"revision":7,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"model":{"provider":"provider","model":"model"},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20""#;
const SUMMARY: &str = "<conversation_summary><goal>ship &amp; verify</goal><constraints/><decisions>kept the API</decisions><state>tests pass</state><open_items/></conversation_summary>";
const OBSERVATION: &str = r#"{"ReservedOutput":4096,"SafetyMargin":0,"CountTimeout":2000000000}"#;

/// An input with every block kind and 12 tool results of different sizes (so that fitting stubs a
/// different number of them at each limit), written with whitespace and escapes that the canonical
/// encoding changes.
fn input_wire() -> Vec<u8> {
    let mut messages = vec![
        r#"{"role":"system","blocks":[{"type":"text","text":"be brief <always> & kind"}]}"#.to_owned(),
        r#"{ "role" : "user", "blocks" : [ {"type":"text","text":"hello \u00e9 \ud800"},
            {"type":"image","media_type":"image/png","source":{"url":"","data":"iVBORw0KGgo="}},
            {"type":"document","media_type":"text/plain","name":"a.txt","data":null,"text":"doc"} ] }"#
            .to_owned(),
        r#"{"role":"assistant","blocks":[{"type":"thinking","thinking":"hmm","signature":"sig","signature_format":"f",
            "provider_state":{"b": [1, 2.50, "x"]},"provider_state_format":"p"},{"type":"refusal","text":"no"}],
            "usage":{"input_tokens":10,"output_tokens":5}}"#
            .to_owned(),
    ];
    for i in 0..12 {
        messages.push(format!(
            r#"{{"role":"assistant","blocks":[{{"type":"tool_use","id":"c{i}","name":"read","input":{{ "path" : "f{i}", "n": [ {i} ] }}}}],"usage":null}}"#
        ));
        let body = "line <x> & \\\"y\\\"\\n".repeat(8 * (i % 5 + 1));
        messages.push(format!(
            r#"{{"role":"tool","blocks":[{{"type":"text","text":"{body}"}},{{"type":"audio","media_type":"audio/wav","data":"UklG\r\nRg=="}}],"tool_use_id":"c{i}","is_error":{}}}"#,
            i % 3 == 0
        ));
    }
    format!(r#"{{"version":1,{IDENTITY},"transcript":[{}],"max_summary_tokens":500}}"#, messages.join(",")).into_bytes()
}

fn reply(summary: &str, revision: u64) -> Vec<u8> {
    let identity = IDENTITY.replace(r#""revision":7"#, &format!(r#""revision":{revision}"#));
    format!(r#"{{"version":1,{identity},"summary":{}}}"#, serde_json::to_string(summary).unwrap()).into_bytes()
}

/// One call of the mix, and its result in a comparable form.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Bytes(Result<Vec<u8>, i32>),
    Status(i32),
    Resolved(i32, [u64; 3]),
    Occupancy(i32, u16),
    Digest(i32, [u8; 32]),
    Text(String),
}

/// Every call of the mix, as closures over shared data.
fn calls<'a>(handle: &'a Input, data: &'a Data) -> Vec<Box<dyn Fn() -> Outcome + Sync + 'a>> {
    let mut calls: Vec<Box<dyn Fn() -> Outcome + Sync + 'a>> = Vec::new();
    for &limit in &data.limits {
        calls.push(Box::new(move || Outcome::Bytes(handle.encode(limit))));
    }
    for (reply, tokens, max) in &data.replies {
        calls.push(Box::new(move || Outcome::Bytes(handle.output(reply, *tokens, *max))));
    }
    for xml in &data.summaries {
        // SAFETY: a live buffer.
        calls.push(Box::new(move || Outcome::Status(unsafe { lc_summary_xml_validate(xml.as_ptr(), xml.len()) })));
    }
    for wire in &data.wires {
        // SAFETY: a live buffer.
        calls.push(Box::new(move || {
            Outcome::Status(unsafe { lc_compaction_input_validate(wire.as_ptr(), wire.len()) })
        }));
    }
    for q in [0, 1, 2, 3, 259] {
        calls.push(Box::new(move || {
            // SAFETY: live buffers.
            Outcome::Status(unsafe {
                lc_compaction_policy_validate(POLICY.as_ptr(), POLICY.len(), q) * 1000
                    + lc_context_observation_validate(OBSERVATION.as_ptr(), OBSERVATION.len(), q)
            })
        }));
    }
    for doc in &data.configs {
        // SAFETY: a live buffer.
        calls.push(Box::new(move || Outcome::Status(unsafe { lc_context_config_validate(doc.as_ptr(), doc.len()) })));
    }
    for doc in &data.fingerprints {
        calls.push(Box::new(move || {
            let mut out = [0u8; 32];
            // SAFETY: a live buffer and 32 writable bytes.
            let rc = unsafe { lc_request_fingerprint(doc.as_ptr(), doc.len(), out.as_mut_ptr()) };
            Outcome::Digest(rc, out)
        }));
    }
    calls.push(Box::new(|| {
        let limits = lc_context_limits { window_tokens: 128_000, max_input_tokens: 100_000, max_output_tokens: 8192 };
        let mut out = lc_resolved_limits::default();
        // SAFETY: a writable out-pointer.
        let rc = unsafe { lc_context_limits_resolve(limits, 16_000, 2000, &mut out) };
        Outcome::Resolved(rc, [out.reserved_output, out.raw_input_limit, out.input_limit])
    }));
    calls.push(Box::new(|| {
        let mut out = 0;
        // SAFETY: a writable out-pointer.
        let rc = unsafe { lc_occupancy_basis_points(u64::MAX / 3, u64::MAX, &mut out) };
        Outcome::Occupancy(rc, out)
    }));
    calls.push(Box::new(|| {
        Outcome::Status(
            lc_pressure_level(2, 6000, true, 8000, 6000) * 100
                + lc_pressure_level(1, 7999, true, 8000, 6000) * 10
                + lc_replacement_check(5, 5),
        )
    }));
    calls.push(Box::new(|| {
        // SAFETY: static NUL-terminated strings.
        let name = unsafe { CStr::from_ptr(lc_status_name(208)) };
        // SAFETY: as above.
        let version = unsafe { CStr::from_ptr(lc_version()) };
        Outcome::Text(format!("{} {} {}", name.to_str().unwrap(), version.to_str().unwrap(), lc_abi_version()))
    }));
    calls
}

struct Data {
    limits: Vec<u64>,
    replies: Vec<(Vec<u8>, u64, u64)>,
    summaries: Vec<Vec<u8>>,
    wires: Vec<Vec<u8>>,
    configs: Vec<Vec<u8>>,
    fingerprints: Vec<Vec<u8>>,
}

fn data(handle: &Input, wire: &[u8]) -> Data {
    let full = handle.encode(u64::MAX).unwrap().len() as u64;
    // No limit, the exact size, and fractions that stub more and more tool results, down to
    // LC_INPUT_TOO_LARGE; 0 is always too large.
    let mut limits = vec![u64::MAX, full, full - 1, 0, 1];
    limits.extend((1..=16).map(|k| full * k / 17));
    let valid = reply(SUMMARY, 7);
    let replies = vec![
        (valid.clone(), 100, valid.len() as u64),
        (valid.clone(), 100, valid.len() as u64 - 1),
        (valid.clone(), 0, u64::MAX),
        (valid.clone(), 501, u64::MAX),
        (reply(SUMMARY, 8), 100, u64::MAX),
        (reply("<conversation_summary><goal>x</goal></conversation_summary>", 7), 100, u64::MAX),
        (valid[..valid.len() - 2].to_vec(), 100, u64::MAX),
    ];
    let summaries = vec![
        SUMMARY.as_bytes().to_vec(),
        b"<summary/>".to_vec(),
        b"<conversation_summary><goal>&bogus;</goal>".to_vec(),
        SUMMARY.replace("tests pass", " ").into_bytes(),
    ];
    let wires = vec![wire.to_vec(), wire[..wire.len() / 2].to_vec(), b"{}".to_vec()];
    let identity = ["0"; 32].join(",");
    let configs = vec![
        br#"{"Compaction":null,"ContextObservation":null,"CounterCapability":null,"InferenceCapability":null}"#.to_vec(),
        format!(
            r#"{{"Compaction":{POLICY},"ContextObservation":null,"CounterCapability":{{"Provider":"","Transport":1,"SecurityIdentity":[{identity}],"Retention":1,"TokenizerRev":"t","Quality":3}},"InferenceCapability":{{"Provider":"","Transport":1,"SecurityIdentity":[{identity}],"Retention":1}}}}"#
        )
        .into_bytes(),
        POLICY.as_bytes().to_vec(),
    ];
    let fingerprints = vec![
        FINGERPRINT.as_bytes().to_vec(),
        FINGERPRINT.replace("system-v1", "system-v2").into_bytes(),
        FINGERPRINT.replace(r#""Name":"m""#, r#""Name":"""#).into_bytes(),
    ];
    Data { limits, replies, summaries, wires, configs, fingerprints }
}

#[test]
fn threads_share_one_handle() {
    let wire = input_wire();
    let handle = Input::parse(&wire).unwrap();
    let data = data(&handle, &wire);
    let calls = calls(&handle, &data);
    let expected: Vec<Outcome> = calls.iter().map(|call| call()).collect();

    // The single-threaded results are what the spec says, not just self-consistent.
    let stubbed: Vec<_> = data.limits.iter().map(|&l| handle.encode(l)).collect();
    assert!(stubbed.iter().any(Result::is_ok) && stubbed.contains(&Err(110)), "the limits exercise fitting");
    assert!(
        stubbed.iter().filter_map(|r| r.as_ref().ok()).map(Vec::len).collect::<std::collections::BTreeSet<_>>().len()
            > 5,
        "several different stub counts"
    );
    assert_eq!(handle.output(&data.replies[0].0, 100, u64::MAX), Ok(SUMMARY.as_bytes().to_vec()));

    let barrier = Barrier::new(THREADS);
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let (calls, expected, barrier) = (&calls, &expected, &barrier);
            scope.spawn(move || {
                barrier.wait();
                for round in 0..ROUNDS {
                    // Every thread walks the calls in its own rotation and direction.
                    let n = calls.len();
                    for k in 0..n {
                        let i = if t % 2 == 0 { (k + t * 7 + round) % n } else { (n - 1 - k + t * 3) % n };
                        let got = calls[i]();
                        assert_eq!(got, expected[i], "thread {t} round {round}: call {i} changed its result");
                    }
                }
            });
        }
    });
    // The handle did not change (A3.6).
    assert_eq!(calls.iter().map(|call| call()).collect::<Vec<_>>(), expected);
}

#[test]
fn handles_move_between_threads() {
    let wire = input_wire();
    let expected = Input::parse(&wire).unwrap().encode(u64::MAX).unwrap();
    // Parsed on worker threads, used and freed on others; parse and free race with each other.
    let handles: Vec<Input> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS).map(|_| scope.spawn(|| Input::parse(&wire).unwrap())).collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    std::thread::scope(|scope| {
        for handle in handles {
            let expected = &expected;
            let wire = &wire;
            scope.spawn(move || {
                assert_eq!(&handle.encode(u64::MAX).unwrap(), expected);
                drop(handle);
                for _ in 0..ROUNDS {
                    let other = Input::parse(wire).unwrap();
                    assert_eq!(&other.encode(u64::MAX).unwrap(), expected);
                }
            });
        }
    });
}
