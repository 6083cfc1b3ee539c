//! The shape zoo (hostile but valid shapes, issue "bounded cost"): times the summary grammar on
//! each shape and prints MB/s, one line per shape. A measuring tool for scripts/bench and for
//! BENCHMARKS.md, not a test: `cargo run --release --example shapes [MB]`.

use std::hint::black_box;
use std::time::Instant;

fn summary_with_goal(text: &[u8]) -> Vec<u8> {
    let mut doc = b"<conversation_summary><goal>".to_vec();
    doc.extend_from_slice(text);
    doc.extend_from_slice(b"</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>");
    doc
}

fn main() {
    let mb: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(16);
    let n = mb << 20;
    let shapes: Vec<(&str, Vec<u8>)> = vec![
        ("plain prose", summary_with_goal(&b"the quick brown fox jumps over the lazy dog. ".repeat(n / 45))),
        ("a run of ]", summary_with_goal(&vec![b']'; n])),
        ("] and text", summary_with_goal(&b"a]b]]c".repeat(n / 6))),
        (
            "long references &#000...65;",
            summary_with_goal(&{
                let mut r = b"&#".to_vec();
                r.extend(std::iter::repeat_n(b'0', n));
                r.extend_from_slice(b"65;");
                r
            }),
        ),
        ("many references", summary_with_goal(&b"&amp;&#x41;&lt;".repeat(n / 15))),
        ("whitespace between sections", {
            let ws = b" \n\t".repeat(n / 6);
            let mut d = b"<conversation_summary>".to_vec();
            for s in ["goal", "constraints", "decisions", "state", "open_items"] {
                d.extend_from_slice(&ws);
                d.extend_from_slice(format!("<{s}>x</{s}>").as_bytes());
            }
            d.extend_from_slice(b"</conversation_summary>");
            d
        }),
        ("a long element name", {
            let name = "g".repeat(n);
            format!("<conversation_summary><{name}/></conversation_summary>").into_bytes()
        }),
        ("a long attribute value", {
            let value = "v".repeat(n);
            format!("<conversation_summary a=\"{value}\"><goal>g</goal></conversation_summary>").into_bytes()
        }),
    ];
    let mut shapes = shapes;
    // The realistic summary of ../shared/bench (entity and character references on every line).
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/make_summary.py");
    if let Ok(out) = std::process::Command::new("python3").arg(&script).arg(n.to_string()).output()
        && out.status.success()
    {
        shapes.push(("make_summary.py (realistic)", out.stdout));
    }
    for (name, doc) in &shapes {
        let start = Instant::now();
        let mut runs = 0;
        while runs < 3 || start.elapsed().as_secs_f64() < 0.5 {
            let _ = black_box(loopcompact::summary::validate(black_box(doc)).map_err(|e| e.status()));
            runs += 1;
        }
        let secs = start.elapsed().as_secs_f64() / f64::from(runs);
        let status = loopcompact::summary::validate(doc).map_err(|e| e.status().name());
        println!("{name:32} {:>8.0} MB/s  ({} bytes, {status:?})", doc.len() as f64 / secs / 1e6, doc.len());
    }
}
