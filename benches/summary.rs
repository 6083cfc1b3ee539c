//! Throughput of the summary grammar (SPEC §4) on realistic valid summaries of 4 KB and 1 MB,
//! through the C ABI (`lc_summary_xml_validate`) and the safe API (`summary::validate`): the
//! project's corpus, and the summaries of `benches/gen/make_summary.py` (`realistic/`, entity
//! and character references on every line) when python3 is there; without it the `realistic/`
//! benchmarks print one line saying so and are omitted.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use testkit::corpus::generated;
use testkit::corpus::summary as summary_corpus;

fn summary_validate(c: &mut Criterion) {
    let mut group = c.benchmark_group("summary_xml_validate");
    for (label, size) in [("4KB", 4 * 1024), ("1MB", 1024 * 1024)] {
        let xml = summary_corpus::summary(size);
        assert!(loopcompact::summary::validate(&xml).is_ok(), "the corpus must be valid");
        group.throughput(Throughput::Bytes(xml.len() as u64));
        group.bench_with_input(BenchmarkId::new("c_abi", label), &xml, |b, xml| {
            // SAFETY: a live buffer of `xml.len()` bytes.
            b.iter(|| unsafe {
                loopcompact::ffi::lc_summary_xml_validate(black_box(xml.as_ptr()), black_box(xml.len()))
            })
        });
        group.bench_with_input(BenchmarkId::new("safe_api", label), &xml, |b, xml| {
            b.iter(|| loopcompact::summary::validate(black_box(xml)))
        });
    }
    group.finish();
}

fn summary_validate_realistic(c: &mut Criterion) {
    let mut inputs = Vec::new();
    for (label, size) in [("4KB", 4096), ("1MB", 1024 * 1024)] {
        match generated("make_summary.py", size) {
            Ok(xml) => inputs.push((label, xml)),
            Err(why) => println!("summary_xml_validate/realistic/c_abi/{label}: omitted: {why}"),
        }
    }
    if inputs.is_empty() {
        return;
    }
    let mut group = c.benchmark_group("summary_xml_validate");
    for (label, xml) in inputs {
        assert!(loopcompact::summary::validate(&xml).is_ok(), "make_summary.py ({label}) must be valid");
        group.throughput(Throughput::Bytes(xml.len() as u64));
        group.bench_with_input(BenchmarkId::new("realistic/c_abi", label), &xml, |b, xml| {
            // SAFETY: a live buffer of `xml.len()` bytes.
            b.iter(|| unsafe {
                loopcompact::ffi::lc_summary_xml_validate(black_box(xml.as_ptr()), black_box(xml.len()))
            })
        });
    }
    group.finish();
}

/// SPEC §17.3: the streaming validator on the realistic 1 MB summary, fed in 64-byte chunks (a
/// streamed reply's deltas are smaller still) and in 4 KB chunks, next to the whole-document call
/// on the same input (the target: 64-byte chunks at 80 % of its throughput or more).
fn summary_stream_realistic(c: &mut Criterion) {
    let xml = match generated("make_summary.py", 1024 * 1024) {
        Ok(xml) => xml,
        Err(why) => {
            println!("summary_stream/realistic: omitted: {why}");
            return;
        }
    };
    let mut group = c.benchmark_group("summary_stream");
    group.throughput(Throughput::Bytes(xml.len() as u64));
    group.bench_with_input(BenchmarkId::new("realistic/whole", "1MB"), &xml, |b, xml| {
        b.iter(|| loopcompact::summary::validate(black_box(xml)))
    });
    for chunk in [64, 4096] {
        group.bench_with_input(BenchmarkId::new(format!("realistic/chunks_{chunk}"), "1MB"), &xml, |b, xml| {
            b.iter(|| {
                let mut stream = loopcompact::summary::SummaryStream::new();
                for piece in black_box(xml).chunks(chunk) {
                    let _ = stream.feed(piece);
                }
                stream.finish()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, summary_validate, summary_validate_realistic, summary_stream_realistic);
criterion_main!(benches);
