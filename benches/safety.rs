//! Transcript safety (SPEC §14, §16.9) against parsing, through the C ABI: the pairing check and
//! the safe cut on a 1 MiB transcript must cost well under a tenth of parsing it; the functions
//! that never block (a pending tail's cut, every violation, the repair plan and the repaired
//! transcript) run on the same transcript made to fail S14.3, where they walk it again. The transcript is
//! `benches/gen/make_transcript.py`'s realistic one when python3 is there (thinking with
//! signatures, tool_use with JSON input, tool logs, images), else the project's own corpus; the
//! benchmark says which.

use std::hint::black_box;
use std::ptr;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use loopcompact::ffi::*;
use testkit::corpus::generated;
use testkit::corpus::wire::transcript_wire;

/// The realistic 1 MiB transcript, or the project's corpus (and which one it is).
fn transcript() -> (Vec<u8>, &'static str) {
    match generated("make_transcript.py", 1 << 20) {
        Ok(wire) => (wire, "make_transcript.py"),
        Err(_) => (transcript_wire(1 << 20), "testkit corpus"),
    }
}

fn bench(c: &mut Criterion) {
    let (wire, corpus) = transcript();
    eprintln!("safety: transcript from {corpus}, {} bytes", wire.len());
    let mut handle = ptr::null_mut();
    // SAFETY: a live buffer and out-pointer.
    assert_eq!(unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), &mut handle) }, 0);
    // SAFETY: a live handle.
    assert_eq!(unsafe { lc_transcript_pairing_check(handle, ptr::null_mut()) }, 0, "the transcript pairs");

    let mut g = c.benchmark_group("safety");
    g.throughput(Throughput::Bytes(wire.len() as u64));
    g.bench_function("lc_compaction_input_parse+free/1MiB", |b| {
        b.iter(|| unsafe {
            let mut h = ptr::null_mut();
            let rc = lc_compaction_input_parse(black_box(wire.as_ptr()), wire.len(), &mut h);
            lc_compaction_input_free(h);
            rc
        })
    });
    g.bench_function("lc_transcript_pairing_check/1MiB", |b| {
        b.iter(|| unsafe { lc_transcript_pairing_check(black_box(handle), ptr::null_mut()) })
    });
    g.bench_function("lc_transcript_safe_cut/1MiB", |b| {
        b.iter(|| unsafe {
            let mut cut = 0;
            let rc = lc_transcript_safe_cut(black_box(handle), 10, &mut cut);
            (rc, cut)
        })
    });
    g.bench_function("lc_transcript_cut_check/1MiB", |b| {
        b.iter(|| unsafe { lc_transcript_cut_check(black_box(handle), 500) })
    });
    g.bench_function("lc_compaction_input_message_count", |b| {
        b.iter(|| unsafe {
            let mut n = 0;
            (lc_compaction_input_message_count(black_box(handle), &mut n), n)
        })
    });
    g.finish();
    // SAFETY: the handle from above, freed once.
    unsafe { lc_compaction_input_free(handle) };

    never_blocking(c, &wire);
}

/// `wire` with its transcript changed by `edit` (a JSON array of messages).
fn edited(wire: &[u8], edit: impl FnOnce(&mut Vec<serde_json::Value>)) -> Vec<u8> {
    let mut doc: serde_json::Value = serde_json::from_slice(wire).expect("the wire is JSON");
    let messages = doc["transcript"].as_array_mut().expect("a transcript");
    edit(messages);
    serde_json::to_vec(&doc).expect("serialises")
}

fn parse(wire: &[u8]) -> *mut lc_compaction_input {
    let mut handle = ptr::null_mut();
    // SAFETY: a live buffer and out-pointer.
    assert_eq!(unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), &mut handle) }, 0);
    handle
}

/// SPEC §16.9 on two broken copies of the transcript: a pending tail (the results after the last
/// assistant message with calls removed) and a lost result plus an orphan in the middle.
fn never_blocking(c: &mut Criterion, wire: &[u8]) {
    let is_call = |m: &serde_json::Value| {
        m["role"] == "assistant" && m["blocks"].as_array().is_some_and(|b| b.iter().any(|b| b["type"] == "tool_use"))
    };
    let pending = edited(wire, |messages| {
        let last = messages.iter().rposition(is_call).expect("a call");
        messages.truncate(last + 1);
    });
    let broken = edited(wire, |messages| {
        let middle = messages.len() / 2;
        let tool = (middle..messages.len()).find(|&i| messages[i]["role"] == "tool").expect("a tool message");
        messages.remove(tool);
        messages.insert(
            middle,
            serde_json::json!({"role": "tool", "blocks": [], "tool_use_id": "orphan", "is_error": false}),
        );
    });
    let (pending, broken) = (parse(&pending), parse(&broken));
    let mut g = c.benchmark_group("safety");
    g.throughput(Throughput::Bytes(wire.len() as u64));
    g.bench_function("lc_transcript_safe_cut_with/pending/1MiB", |b| {
        b.iter(|| unsafe {
            let mut cut = 0;
            let rc = lc_transcript_safe_cut_with(black_box(pending), 10, LC_CUT_PENDING_TAIL, ptr::null(), 0, &mut cut);
            (rc, cut)
        })
    });
    g.bench_function("lc_transcript_cut_check_with/pending/1MiB", |b| {
        b.iter(|| unsafe { lc_transcript_cut_check_with(black_box(pending), 500, LC_CUT_PENDING_TAIL, ptr::null(), 0) })
    });
    let mut violations = vec![lc_violation::default(); 16];
    g.bench_function("lc_transcript_pairing_violations/broken/1MiB", |b| {
        b.iter(|| unsafe {
            let mut n = 0;
            lc_transcript_pairing_violations(black_box(broken), violations.as_mut_ptr(), violations.len(), &mut n)
        })
    });
    let mut out = vec![0u8; 4 << 20];
    g.bench_function("lc_transcript_repair_plan/broken/1MiB", |b| {
        b.iter(|| unsafe {
            let mut n = 0;
            lc_transcript_repair_plan(black_box(broken), 0, out.as_mut_ptr(), out.len(), &mut n)
        })
    });
    g.bench_function("lc_transcript_repair/broken/1MiB", |b| {
        b.iter(|| unsafe {
            let mut n = 0;
            lc_transcript_repair(black_box(broken), 0, out.as_mut_ptr(), out.len(), &mut n)
        })
    });
    g.finish();
    // SAFETY: the handles from above, freed once.
    unsafe {
        lc_compaction_input_free(pending);
        lc_compaction_input_free(broken);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
