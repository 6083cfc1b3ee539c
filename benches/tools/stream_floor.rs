//! The streaming validator against the whole document and against a call that does nothing, by
//! time, in one process (issue 29's ratio, and the floor a call per chunk puts under it).
//!
//! ```text
//! python3 benches/gen/make_summary.py 1048576 > /tmp/summary.xml    # or plain_summary.py
//! cargo run --release --example stream_floor -- /tmp/summary.xml
//! ```
//!
//! Each figure is the best of 7 runs of 400 passes over the file: `summary::validate`, the stream
//! fed 64- and 4096-byte chunks, and a never-inlined function per 64-byte chunk that only adds the
//! chunk's length to a position (the least a stateful call per chunk does).

use std::hint::black_box;
use std::time::Instant;

/// The state of the call that does nothing.
struct Position {
    pos: usize,
    overflowed: bool,
}

#[inline(never)]
fn feed_nothing(s: &mut Position, chunk: &[u8]) -> Result<(), ()> {
    s.pos += chunk.len();
    if s.pos == usize::MAX {
        s.overflowed = true;
        return Err(());
    }
    Ok(())
}

/// Microseconds per pass of `f`: the best of 7 runs of 400 passes.
fn best(mut f: impl FnMut()) -> f64 {
    let passes = 400;
    (0..7)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..passes {
                f();
            }
            start.elapsed().as_secs_f64() * 1e6 / f64::from(passes)
        })
        .fold(f64::MAX, f64::min)
}

fn stream(xml: &[u8], chunk: usize) {
    let mut stream = loopcompact::summary::SummaryStream::new();
    for piece in black_box(xml).chunks(chunk) {
        let _ = stream.feed(piece);
    }
    let _ = black_box(stream.finish());
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: stream_floor SUMMARY.xml");
    let xml = std::fs::read(&path).expect("the summary file");
    let whole = best(|| {
        let _ = black_box(loopcompact::summary::validate(black_box(&xml)));
    });
    let chunks_64 = best(|| stream(&xml, 64));
    let chunks_4096 = best(|| stream(&xml, 4096));
    let nothing = best(|| {
        let mut s = Position { pos: 0, overflowed: false };
        for piece in black_box(&xml).chunks(64) {
            let _ = feed_nothing(&mut s, black_box(piece));
        }
        black_box((s.pos, s.overflowed));
    });
    let percent = |t: f64| 100.0 * whole / t;
    println!("{path}: {} bytes", xml.len());
    println!("whole document          {whole:8.1} us");
    println!(
        "64-byte chunks          {chunks_64:8.1} us ({:.0} % of the whole document's throughput)",
        percent(chunks_64)
    );
    println!("4096-byte chunks        {chunks_4096:8.1} us ({:.0} %)", percent(chunks_4096));
    println!(
        "a call that does nothing {nothing:7.1} us per pass at 64 bytes ({:.0} % of the whole document; alone it would allow {:.0} %)",
        100.0 * nothing / whole,
        percent(whole + nothing)
    );
}
