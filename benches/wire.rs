//! Compaction input parse+validate on a 1 MB transcript, output validation of a 4 KB summary reply,
//! and fitting (SPEC §5–§7), through the C ABI and the Rust API, on the project's corpus; and
//! parse+validate through the C ABI on the 1 MiB transcript of `benches/gen/make_transcript.py`
//! (`input/realistic/`: thinking with signatures, tool_use with JSON input, tool logs, images) when
//! python3 is there; without it those benchmarks print one line saying so and are omitted.

use std::hint::black_box;
use std::ptr;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use loopcompact::ffi::*;
use loopcompact::wire::CompactionInput;
use testkit::corpus::generated;
use testkit::corpus::wire::{reply_4k, transcript_wire};

fn bench(c: &mut Criterion) {
    let wire = transcript_wire(1 << 20);
    let reply = reply_4k();
    let input = CompactionInput::parse(&wire).expect("benchmark transcript is valid");
    let summary = input.validate_output(&reply, 1, u64::MAX).expect("benchmark reply is valid");
    assert!(!summary.is_empty());

    let mut g = c.benchmark_group("input");
    g.throughput(Throughput::Bytes(wire.len() as u64));
    g.bench_function("lc_compaction_input_validate/1MB", |b| {
        b.iter(|| unsafe { lc_compaction_input_validate(black_box(wire.as_ptr()), wire.len()) })
    });
    g.bench_function("lc_compaction_input_parse+free/1MB", |b| {
        b.iter(|| unsafe {
            let mut h = ptr::null_mut();
            let rc = lc_compaction_input_parse(black_box(wire.as_ptr()), wire.len(), &mut h);
            lc_compaction_input_free(h);
            rc
        })
    });
    g.bench_function("CompactionInput::validate/1MB", |b| b.iter(|| CompactionInput::validate(black_box(&wire))));
    g.finish();

    let mut g = c.benchmark_group("output");
    g.throughput(Throughput::Bytes(reply.len() as u64));
    let mut handle = ptr::null_mut();
    assert_eq!(unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), &mut handle) }, 0);
    let mut buf = vec![0u8; reply.len()];
    g.bench_function("lc_compaction_output_validate/4KB", |b| {
        b.iter(|| unsafe {
            let mut len = 0;
            lc_compaction_output_validate(
                handle,
                black_box(reply.as_ptr()),
                reply.len(),
                1,
                u64::MAX,
                buf.as_mut_ptr(),
                buf.len(),
                &mut len,
            )
        })
    });
    g.bench_function("CompactionInput::validate_output/4KB", |b| {
        b.iter(|| input.validate_output(black_box(&reply), 1, u64::MAX).map(|s| s.len()))
    });
    g.finish();

    let mut g = c.benchmark_group("fit");
    g.throughput(Throughput::Bytes(wire.len() as u64));
    let mut out = vec![0u8; wire.len() * 2];
    g.bench_function("lc_compaction_input_encode_within/1MB/fits", |b| {
        b.iter(|| unsafe {
            let mut len = 0;
            lc_compaction_input_encode_within(handle, u64::MAX, out.as_mut_ptr(), out.len(), &mut len)
        })
    });
    g.bench_function("lc_compaction_input_encode_within/1MB/half", |b| {
        b.iter(|| unsafe {
            let mut len = 0;
            lc_compaction_input_encode_within(handle, wire.len() as u64 / 2, out.as_mut_ptr(), out.len(), &mut len)
        })
    });
    g.finish();
    unsafe { lc_compaction_input_free(handle) };
}

fn realistic(c: &mut Criterion) {
    let wire = match generated("make_transcript.py", 1 << 20) {
        Ok(wire) => wire,
        Err(why) => {
            println!("input/realistic: omitted: {why}");
            return;
        }
    };
    // SAFETY: a live buffer of `wire.len()` bytes.
    assert_eq!(
        unsafe { lc_compaction_input_validate(wire.as_ptr(), wire.len()) },
        0,
        "make_transcript.py must be valid"
    );
    let mut g = c.benchmark_group("input");
    g.throughput(Throughput::Bytes(wire.len() as u64));
    g.bench_function("realistic/lc_compaction_input_validate/1MB", |b| {
        b.iter(|| unsafe { lc_compaction_input_validate(black_box(wire.as_ptr()), wire.len()) })
    });
    g.bench_function("realistic/lc_compaction_input_parse+free/1MB", |b| {
        b.iter(|| unsafe {
            let mut h = ptr::null_mut();
            let rc = lc_compaction_input_parse(black_box(wire.as_ptr()), wire.len(), &mut h);
            lc_compaction_input_free(h);
            rc
        })
    });
    g.finish();
}

criterion_group!(benches, bench, realistic);
criterion_main!(benches);
