//! The round of docs/SPEC.md §15 on the project's corpus: the bare reply (4 KB summary, the text
//! of `reply_4k`'s envelope) through the C ABI and the Rust API beside output validation of the
//! same summary in its envelope; and on a 1 MiB transcript, the head, the replacement build and its
//! check, beside the canonical encoding of the same input (`CompactionInput::encode`).

use std::hint::black_box;
use std::ptr;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use loopcompact::ffi::*;
use loopcompact::round::ReplyOptions;
use loopcompact::wire::CompactionInput;
use testkit::corpus::wire::{reply_4k, transcript_wire};

/// The corpus transcript without its last turns up to the last tool result: it ends with a call
/// still waiting for its result, which no cut may pass (S14.4).
fn well_paired(wire: &[u8]) -> Vec<u8> {
    let mut doc: serde_json::Value = serde_json::from_slice(wire).expect("the corpus is JSON");
    let transcript = doc["transcript"].as_array_mut().expect("a transcript");
    while transcript.last().is_some_and(|m| m["role"] != "tool") {
        transcript.pop();
    }
    serde_json::to_vec(&doc).expect("serialises")
}

fn bench(c: &mut Criterion) {
    let wire = well_paired(&transcript_wire(1 << 20));
    let envelope = reply_4k();
    let input = CompactionInput::parse(&wire).expect("benchmark transcript is valid");
    let summary = input.validate_output(&envelope, 1, u64::MAX).expect("benchmark reply is valid").into_string();
    let text = summary.as_bytes();
    let options = ReplyOptions::new(1, u64::MAX);
    assert_eq!(input.validate_reply(text, &options).map(|r| r.summary().len()), Ok(text.len()));

    let mut handle = ptr::null_mut();
    // SAFETY: a live buffer; `handle` is written on success.
    assert_eq!(unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), &mut handle) }, 0);

    let mut g = c.benchmark_group("round");
    g.throughput(Throughput::Bytes(text.len() as u64));
    let mut buf = vec![0u8; text.len()];
    g.bench_function("lc_compaction_reply_validate/4KB", |b| {
        b.iter(|| unsafe {
            let mut len = 0;
            lc_compaction_reply_validate(
                handle,
                black_box(text.as_ptr()),
                text.len(),
                1,
                LC_STOP_END,
                u64::MAX,
                0,
                buf.as_mut_ptr(),
                buf.len(),
                &mut len,
            )
        })
    });
    // The grammar alone on the same text: what the bare reply adds to it.
    g.bench_function("summary::validate/4KB", |b| b.iter(|| loopcompact::summary::validate(black_box(text))));
    g.bench_function("CompactionInput::validate_reply/4KB", |b| {
        b.iter(|| input.validate_reply(black_box(text), &options).map(|r| r.summary().len()))
    });
    let cleaning = ReplyOptions { trim: true, unfence: true, ..options };
    let fenced = format!("```xml\n{summary}\n```\n");
    g.bench_function("CompactionInput::validate_reply/4KB/fenced+cleanup", |b| {
        b.iter(|| input.validate_reply(black_box(fenced.as_bytes()), &cleaning).map(|r| r.summary().len()))
    });
    g.finish();

    let cut = input.safe_cut(8).expect("a well-paired corpus") as u64;
    let replacement = input.build_replacement(cut, text).expect("a safe cut builds");
    let mut g = c.benchmark_group("round");
    g.throughput(Throughput::Bytes(wire.len() as u64));
    g.bench_function("CompactionInput::encode/1MB", |b| b.iter(|| black_box(&input).encode().len()));
    let mut out = vec![0u8; wire.len() * 2];
    g.bench_function("lc_compaction_input_encode_head_within/1MB", |b| {
        b.iter(|| unsafe {
            let mut len = 0;
            lc_compaction_input_encode_head_within(handle, cut, u64::MAX, out.as_mut_ptr(), out.len(), &mut len)
        })
    });
    g.bench_function("CompactionInput::build_replacement/1MB", |b| {
        b.iter(|| black_box(&input).build_replacement(cut, text).map(|r| r.len()))
    });
    g.bench_function("lc_replacement_build/1MB", |b| {
        b.iter(|| unsafe {
            let mut len = 0;
            lc_replacement_build(handle, cut, text.as_ptr(), text.len(), out.as_mut_ptr(), out.len(), &mut len)
        })
    });
    g.bench_function("lc_replacement_verify/1MB", |b| {
        b.iter(|| unsafe {
            lc_replacement_verify(handle, cut, black_box(replacement.as_ptr()), replacement.len(), ptr::null_mut())
        })
    });
    // A host's own spelling (not canonical): the plain check.
    let spelled = String::from_utf8(replacement.clone()).unwrap().replace("},{", "}, {");
    g.bench_function("lc_replacement_verify/1MB/respelled", |b| {
        b.iter(|| unsafe {
            lc_replacement_verify(handle, cut, black_box(spelled.as_ptr()), spelled.len(), ptr::null_mut())
        })
    });
    g.finish();
    // SAFETY: the handle from lc_compaction_input_parse, freed once.
    unsafe { lc_compaction_input_free(handle) };
}

criterion_group!(benches, bench);
criterion_main!(benches);
