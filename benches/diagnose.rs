//! The diagnoses (SPEC C13.4) beside their plain functions, on documents that fail: a `_diagnose`
//! sibling reads the document once as the plain function does and, for a JSON error, walks it
//! again up to the error's offset for its location, line and column; and every host binding
//! diagnoses each failure, so the pair's time is what a host pays for a rejection. The target is
//! at most twice the plain call (issue #28). Small documents (the 943-byte R10.7 example, a policy)
//! and 1 MB ones (a `Stop` array of 250 000 entries, a transcript of 1 000 answered calls), each
//! failing at its end (a JSON error after the last byte) and on a field rule.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use loopcompact::ffi::{
    LC_FINGERPRINT_LEN, lc_compaction_input_diagnose, lc_compaction_input_validate, lc_compaction_policy_diagnose,
    lc_compaction_policy_validate, lc_diagnostic, lc_request_fingerprint, lc_request_fingerprint_diagnose,
};
use testkit::corpus::repeated;
use testkit::spec::{FINGERPRINT_EXAMPLE, POLICY};

fn blank_diagnostic() -> lc_diagnostic {
    // SAFETY: every field of `lc_diagnostic` is an integer, a raw pointer or an array of `c_char`,
    // for which all-zero bytes are a valid value.
    let mut d: lc_diagnostic = unsafe { std::mem::zeroed() };
    d.struct_size = size_of::<lc_diagnostic>();
    d
}

fn with_byte_after(doc: &[u8]) -> Vec<u8> {
    [doc, b"x"].concat()
}

fn fingerprint_plain(doc: &[u8]) -> i32 {
    let mut out = [0u8; LC_FINGERPRINT_LEN];
    // SAFETY: a live buffer and 32 writable bytes.
    unsafe { lc_request_fingerprint(black_box(doc.as_ptr()), doc.len(), out.as_mut_ptr()) }
}

fn fingerprint_diagnose(doc: &[u8]) -> i32 {
    let mut out = [0u8; LC_FINGERPRINT_LEN];
    let mut d = blank_diagnostic();
    // SAFETY: a live buffer, 32 writable bytes and a full diagnostic.
    let rc = unsafe { lc_request_fingerprint_diagnose(black_box(doc.as_ptr()), doc.len(), out.as_mut_ptr(), &mut d) };
    black_box(&d);
    rc
}

fn policy_plain(doc: &[u8]) -> i32 {
    // SAFETY: a live buffer.
    unsafe { lc_compaction_policy_validate(black_box(doc.as_ptr()), doc.len(), 2) }
}

fn policy_diagnose(doc: &[u8]) -> i32 {
    let mut d = blank_diagnostic();
    // SAFETY: a live buffer and a full diagnostic.
    let rc = unsafe { lc_compaction_policy_diagnose(black_box(doc.as_ptr()), doc.len(), 2, &mut d) };
    black_box(&d);
    rc
}

fn input_plain(doc: &[u8]) -> i32 {
    // SAFETY: a live buffer.
    unsafe { lc_compaction_input_validate(black_box(doc.as_ptr()), doc.len()) }
}

fn input_diagnose(doc: &[u8]) -> i32 {
    let mut d = blank_diagnostic();
    // SAFETY: a live buffer and a full diagnostic.
    let rc = unsafe { lc_compaction_input_diagnose(black_box(doc.as_ptr()), doc.len(), &mut d) };
    black_box(&d);
    rc
}

/// A compaction input around 1 000 answered calls of about 1 KB each.
fn transcript() -> String {
    let result = "r".repeat(900);
    let messages: Vec<String> = (0..1000)
        .map(|i| {
            format!(
                r#"{{"role":"assistant","blocks":[{{"type":"tool_use","id":"c{i}","name":"read","input":{{"path":"f{i}"}}}}],"usage":null}},{{"role":"tool","blocks":[{{"type":"text","text":"{result}"}}],"tool_use_id":"c{i}","is_error":false}}"#
            )
        })
        .collect();
    format!(
        r#"{{"version":1,"basis":{{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}},"model":{{"provider":"provider","model":"model"}},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":[{}],"max_summary_tokens":32}}"#,
        messages.join(",")
    )
}

type Call = fn(&[u8]) -> i32;

fn diagnoses(c: &mut Criterion) {
    let stop = String::from_utf8([b"[".as_slice(), &repeated(r#""a""#, 250_000), b"]"].concat()).unwrap();
    let big_fingerprint = FINGERPRINT_EXAMPLE.replace(r#""Stop":null"#, &format!(r#""Stop":{stop}"#));
    let zero_revision = |doc: &str| doc.replace(r#""revision":1"#, r#""revision":0"#).into_bytes();
    let rearm = POLICY.replace(r#""RearmBelow":6000"#, r#""RearmBelow":9000"#).into_bytes();
    let transcript = transcript();
    let cases: Vec<(&str, Vec<u8>, Call, Call)> = vec![
        (
            "fingerprint/example/json_error",
            with_byte_after(FINGERPRINT_EXAMPLE.as_bytes()),
            fingerprint_plain,
            fingerprint_diagnose,
        ),
        ("fingerprint/example/revision_0", zero_revision(FINGERPRINT_EXAMPLE), fingerprint_plain, fingerprint_diagnose),
        (
            "fingerprint/1mb_stop/json_error",
            with_byte_after(big_fingerprint.as_bytes()),
            fingerprint_plain,
            fingerprint_diagnose,
        ),
        ("fingerprint/1mb_stop/revision_0", zero_revision(&big_fingerprint), fingerprint_plain, fingerprint_diagnose),
        ("policy/json_error", with_byte_after(POLICY.as_bytes()), policy_plain, policy_diagnose),
        ("policy/rearm_below", rearm, policy_plain, policy_diagnose),
        ("input/1mb/json_error", with_byte_after(transcript.as_bytes()), input_plain, input_diagnose),
        (
            "input/1mb/version_2",
            transcript.replace(r#""version":1"#, r#""version":2"#).into_bytes(),
            input_plain,
            input_diagnose,
        ),
    ];
    for (name, doc, plain, diagnose) in cases {
        let rc = plain(&doc);
        assert!(rc != 0 && diagnose(&doc) == rc, "{name}: fails, with the same status both ways");
        let mut group = c.benchmark_group(format!("diagnose/{name}"));
        group.throughput(Throughput::Bytes(doc.len() as u64));
        group.bench_function("plain", |b| b.iter(|| plain(&doc)));
        group.bench_function("diagnose", |b| b.iter(|| diagnose(&doc)));
        group.finish();
    }
}

criterion_group!(benches, diagnoses);
criterion_main!(benches);
