//! Throughput of the summary grammar (SPEC §4) on realistic valid summaries of 4 KB and 1 MB,
//! through the C ABI (`lc_summary_xml_validate`) and the safe API (`summary::validate`).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
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

criterion_group!(benches, summary_validate);
criterion_main!(benches);
