//! The converters of docs/SPEC.md §16 through the C ABI on a realistic 1 MiB OpenAI Chat session
//! and a 1 MiB Anthropic session (testkit::corpus::convert), beside parsing the wire input that
//! each conversion gives (the target: converting costs no more than parsing its result), and beside
//! writing that wire in canonical bytes (a converter reads one document and writes another).

use std::hint::black_box;
use std::ptr;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use loopcompact::convert::{Format, convert};
use loopcompact::ffi::*;
use testkit::corpus::convert::{anthropic_session, chat_session};

fn bench(c: &mut Criterion) {
    for (name, format, src) in [
        ("openai_chat", Format::OpenAiChat, chat_session(1 << 20)),
        ("anthropic", Format::Anthropic, anthropic_session(1 << 20)),
    ] {
        let conversion = convert(format, &src, 0).expect("the benchmark session converts");
        assert!(conversion.losses().is_empty());
        let input = conversion.input("p", "m", 4096, 1, None).expect("its wire parses");
        let wire = input.encode();
        let mut g = c.benchmark_group("convert");
        g.throughput(Throughput::Bytes(src.len() as u64));
        g.bench_function(format!("lc_transcript_convert/{name}/1MiB"), |b| {
            b.iter(|| unsafe {
                let mut out = ptr::null_mut();
                let rc = lc_transcript_convert(
                    format.code(),
                    black_box(src.as_ptr()),
                    src.len(),
                    0,
                    &mut out,
                    ptr::null_mut(),
                );
                lc_conversion_free(out);
                rc
            })
        });
        g.throughput(Throughput::Bytes(wire.len() as u64));
        g.bench_function(format!("lc_compaction_input_parse+free/{name}-wire/1MiB"), |b| {
            b.iter(|| unsafe {
                let mut h = ptr::null_mut();
                let rc = lc_compaction_input_parse(black_box(wire.as_ptr()), wire.len(), &mut h);
                lc_compaction_input_free(h);
                rc
            })
        });
        // Writing the same wire in canonical bytes: the write half of a conversion.
        g.bench_function(format!("CompactionInput::encode/{name}-wire/1MiB"), |b| {
            b.iter(|| black_box(&input).encode().len())
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
