//! Scaling: the same work on one thread and on two threads at once (the library has no shared state,
//! so two threads should give close to twice the throughput on two cores). Each measurement runs
//! `iters` calls per thread and reports the wall time; throughput is per call, so the two-thread
//! figure is the aggregate of both threads.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use loopcompact::wire::CompactionInput;
use testkit::corpus::{summary as summary_corpus, wire as wire_corpus};

/// (name, input, one call).
type Case<'a> = (&'a str, &'a [u8], &'a (dyn Fn() + Sync));

/// Wall time of `threads` threads each calling `f` `iters` times, started together.
fn run(threads: usize, iters: u64, f: &(dyn Fn() + Sync)) -> Duration {
    let barrier = std::sync::Barrier::new(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let start = Instant::now();
                    for _ in 0..iters {
                        f();
                    }
                    start.elapsed()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).max().unwrap_or_default()
    })
}

fn scaling(c: &mut Criterion) {
    let summary_4k = summary_corpus::summary(4 * 1024);
    let summary_1m = summary_corpus::summary(1024 * 1024);
    let wire = wire_corpus::transcript_wire(1 << 20);
    let summary_4k_call = || {
        let _ = black_box(loopcompact::summary::validate(black_box(&summary_4k)));
    };
    let summary_1m_call = || {
        let _ = black_box(loopcompact::summary::validate(black_box(&summary_1m)));
    };
    let transcript_call = || {
        let _ = black_box(CompactionInput::validate(black_box(&wire)));
    };
    let cases: [Case<'_>; 3] = [
        ("summary_4KB", &summary_4k, &summary_4k_call),
        ("summary_1MB", &summary_1m, &summary_1m_call),
        ("transcript_1MB", &wire, &transcript_call),
    ];
    let mut g = c.benchmark_group("threads");
    for (name, bytes, f) in cases {
        for threads in [1usize, 2] {
            // Throughput counts the bytes of every thread's calls.
            g.throughput(Throughput::Bytes((bytes.len() * threads) as u64));
            g.bench_function(format!("{name}/{threads}"), |b| b.iter_custom(|iters| run(threads, iters, f)));
        }
    }
    g.finish();
}

criterion_group!(benches, scaling);
criterion_main!(benches);
