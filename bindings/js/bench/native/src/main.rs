//! Times the C ABI on the files given (`summary.xml transcript.json fingerprint.json`) the way
//! bench.mjs times the WebAssembly package: batches of calls of at least 200 ms, the median batch.
//! Prints one JSON object per case: `{"case":…,"bytes":…,"ns":…}` (nanoseconds per call).

use std::hint::black_box;
use std::time::{Duration, Instant};

use loopcompact::ffi::{
    lc_compaction_input_diagnose, lc_diagnostic, lc_request_fingerprint_diagnose, lc_summary_xml_diagnose,
};

fn diag() -> lc_diagnostic {
    // SAFETY: all-zero is a valid lc_diagnostic (integers, NULL pointers, a zeroed array).
    let mut d: lc_diagnostic = unsafe { std::mem::zeroed() };
    d.struct_size = std::mem::size_of::<lc_diagnostic>();
    d
}

/// Median nanoseconds per call over 7 batches of at least 200 ms each.
fn time(mut call: impl FnMut() -> i32) -> f64 {
    assert_eq!(call(), 0, "the benchmark input must be valid");
    let mut per_call = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(300) {
        black_box(call());
    }
    for _ in 0..7 {
        let mut n = 0u64;
        let t = Instant::now();
        while t.elapsed() < Duration::from_millis(200) {
            black_box(call());
            n += 1;
        }
        per_call.push(t.elapsed().as_nanos() as f64 / n as f64);
    }
    per_call.sort_by(f64::total_cmp);
    per_call[per_call.len() / 2]
}

fn main() {
    let files: Vec<Vec<u8>> = std::env::args().skip(1).map(|p| std::fs::read(&p).expect("read input")).collect();
    let [summary, transcript, fingerprint] = <[Vec<u8>; 3]>::try_from(files).expect("three files");
    let mut d = diag();
    let mut out = [0u8; 32];
    let cases: [(&str, usize, f64); 3] = [
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
    ];
    for (case, bytes, ns) in cases {
        println!("{{\"case\":\"{case}\",\"bytes\":{bytes},\"ns\":{ns:.1}}}");
    }
}
