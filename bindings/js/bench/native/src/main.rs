//! Times the C ABI on the files given (`summary.xml transcript.json fingerprint.json
//! summary_4k.xml`) the way bench.mjs times the WebAssembly package: batches of calls of at least
//! 200 ms, the median batch, in CPU time of the process (this is a shared machine: a process that
//! waits for a core is not charged for the wait). The 1 MiB documents and the fingerprint go through
//! the `_diagnose` functions the package calls; the host-overhead cases (the 4 KB summary, the
//! 1 MiB summary and transcript) through the plain functions a C host calls.
//! Prints one JSON object per case: `{"case":…,"bytes":…,"ns":…}` (nanoseconds per call).

use std::hint::black_box;
use std::time::{Duration, Instant};

use loopcompact::ffi::{
    lc_compaction_input_diagnose, lc_compaction_input_validate, lc_diagnostic, lc_request_fingerprint_diagnose,
    lc_summary_xml_diagnose, lc_summary_xml_validate,
};

/// CPU time of the process, in nanoseconds.
fn cpu_ns() -> u128 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid clock id and a live timespec to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

fn diag() -> lc_diagnostic {
    // SAFETY: all-zero is a valid lc_diagnostic (integers, NULL pointers, a zeroed array).
    let mut d: lc_diagnostic = unsafe { std::mem::zeroed() };
    d.struct_size = std::mem::size_of::<lc_diagnostic>();
    d
}

/// Median CPU nanoseconds per call over 7 batches of at least 200 ms each.
fn time(mut call: impl FnMut() -> i32) -> f64 {
    assert_eq!(call(), 0, "the benchmark input must be valid");
    let mut per_call = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(300) {
        black_box(call());
    }
    for _ in 0..7 {
        let mut n = 0u64;
        let (t, cpu) = (Instant::now(), cpu_ns());
        while t.elapsed() < Duration::from_millis(200) {
            black_box(call());
            n += 1;
        }
        per_call.push((cpu_ns() - cpu) as f64 / n as f64);
    }
    per_call.sort_by(f64::total_cmp);
    per_call[per_call.len() / 2]
}

fn main() {
    let files: Vec<Vec<u8>> = std::env::args().skip(1).map(|p| std::fs::read(&p).expect("read input")).collect();
    let [summary, transcript, fingerprint, summary_4k] = <[Vec<u8>; 4]>::try_from(files).expect("four files");
    let mut d = diag();
    let mut out = [0u8; 32];
    let cases: [(&str, usize, f64); 6] = [
        // SAFETY (each): live buffers of the lengths given, a live diagnostic and 32-byte output.
        (
            "summary",
            summary.len(),
            time(|| unsafe { lc_summary_xml_diagnose(summary.as_ptr(), summary.len(), &mut d) }),
        ),
        (
            "transcript",
            transcript.len(),
            time(|| unsafe { lc_compaction_input_diagnose(transcript.as_ptr(), transcript.len(), &mut d) }),
        ),
        (
            "fingerprint",
            fingerprint.len(),
            time(|| unsafe {
                lc_request_fingerprint_diagnose(fingerprint.as_ptr(), fingerprint.len(), out.as_mut_ptr(), &mut d)
            }),
        ),
        (
            "summary4kValidate",
            summary_4k.len(),
            time(|| unsafe { lc_summary_xml_validate(summary_4k.as_ptr(), summary_4k.len()) }),
        ),
        (
            "summaryValidate",
            summary.len(),
            time(|| unsafe { lc_summary_xml_validate(summary.as_ptr(), summary.len()) }),
        ),
        (
            "transcriptValidate",
            transcript.len(),
            time(|| unsafe { lc_compaction_input_validate(transcript.as_ptr(), transcript.len()) }),
        ),
    ];
    for (case, bytes, ns) in cases {
        println!("{{\"case\":\"{case}\",\"bytes\":{bytes},\"ns\":{ns:.1}}}");
    }
}
