//! Native SHA-256 timed as bench/time.mjs times the wasm build: batches of at least 200 ms, the
//! median of 7, CPU time of the process. `sha256-bench FILE...`: one line `{"bytes":…,"ns":…}` each.

use std::hint::black_box;
use std::time::{Duration, Instant};

fn cpu_ns() -> u128 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid clock id and a live timespec to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).expect("read input");
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(300) {
            black_box(loopcompact_sha256_bench::hash(black_box(&bytes)));
        }
        let mut per_call = Vec::new();
        for _ in 0..7 {
            let (t, cpu, mut n) = (Instant::now(), cpu_ns(), 0u64);
            while t.elapsed() < Duration::from_millis(200) {
                black_box(loopcompact_sha256_bench::hash(black_box(&bytes)));
                n += 1;
            }
            per_call.push((cpu_ns() - cpu) as f64 / n as f64);
        }
        per_call.sort_by(f64::total_cmp);
        println!("{{\"bytes\":{},\"ns\":{:.1}}}", bytes.len(), per_call[3]);
    }
}
