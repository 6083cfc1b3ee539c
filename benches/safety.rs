//! Transcript safety (SPEC §14) against parsing, through the C ABI: the pairing check and the safe
//! cut on a 1 MiB transcript must cost well under a tenth of parsing it. The transcript is
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
    g.finish();
    // SAFETY: the handle from above, freed once.
    unsafe { lc_compaction_input_free(handle) };
}

criterion_group!(benches, bench);
criterion_main!(benches);
