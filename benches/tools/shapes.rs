//! The shape zoo (hostile but valid shapes, issue "bounded cost"): times the summary grammar and
//! the JSON entry points on each shape and prints MB/s, one line per shape and call. A measuring
//! tool for scripts/bench and for BENCHMARKS.md, not a test (tests/resource_bounds.rs asserts the
//! memory of the same shapes): `cargo run --release --example shapes [MB]`.

use sha2::Digest;
use std::hint::black_box;
use std::time::Instant;
use testkit::corpus::repeated;

fn summary_with_goal(text: &[u8]) -> Vec<u8> {
    let mut doc = b"<conversation_summary><goal>".to_vec();
    doc.extend_from_slice(text);
    doc.extend_from_slice(b"</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>");
    doc
}

/// Mean seconds per call of `f` (at least three calls and half a second).
fn time(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut runs = 0;
    while runs < 3 || start.elapsed().as_secs_f64() < 0.5 {
        f();
        runs += 1;
    }
    start.elapsed().as_secs_f64() / f64::from(runs)
}

/// An input wire around `messages` (comma-separated message objects).
fn wire(messages: &[u8]) -> Vec<u8> {
    let mut out = br#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"model":{"provider":"p","model":"m"},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":["#.to_vec();
    out.extend_from_slice(messages);
    out.extend_from_slice(br#"],"max_summary_tokens":32}"#);
    out
}

/// `doc` (compact JSON) indented by two spaces per level, with a space after each `:`, as Python's
/// `json.dumps(indent=2)` writes it (keys in their order).
fn pretty_printed(doc: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(doc.len() * 2);
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', 2 * depth));
    };
    for (i, &b) in doc.iter().enumerate() {
        if in_string {
            out.push(b);
            (in_string, escaped) = (escaped || b != b'"', !escaped && b == b'\\');
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                out.push(b);
            }
            b'{' | b'[' => {
                out.push(b);
                depth += 1;
                if !matches!(doc.get(i + 1), Some(b'}' | b']')) {
                    newline(&mut out, depth);
                }
            }
            b'}' | b']' => {
                depth -= 1;
                if !matches!(doc.get(i.wrapping_sub(1)), Some(b'{' | b'[')) {
                    newline(&mut out, depth);
                }
                out.push(b);
            }
            b',' => {
                out.push(b);
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
    }
    out
}

/// The JSON shapes of issue #14 (the table of tests/resource_bounds.rs), about `n` bytes each.
fn json_shapes(n: usize) {
    let one_message = |block: &str| {
        let mut m = br#"{"role":"user","blocks":["#.to_vec();
        m.extend(repeated(block, n / (block.len() + 1)));
        m.extend_from_slice(b"]}");
        wire(&m)
    };
    let transcripts: Vec<(&str, Vec<u8>)> = vec![
        ("minimal text blocks", one_message(r#"{"type":"text","text":""}"#)),
        ("thinking blocks", one_message(r#"{"type":"thinking","thinking":"","signature":""}"#)),
        ("empty user messages", wire(&repeated(r#"{"role":"user","blocks":[]}"#, n / 28))),
        (
            "empty tool messages",
            wire(&repeated(r#"{"role":"tool","blocks":[],"tool_use_id":"","is_error":false}"#, n / 62)),
        ),
        (
            "late roles and ids",
            wire(&repeated(
                r#"{"blocks":[{"content":[],"is_error":false,"tool_use_id":"","type":"tool_result"}],"role":"user"}"#,
                n / 95,
            )),
        ),
        ("escaped base64 audio", {
            // An escaped CR LF every 76 characters (T5.6 ignores them, E7.5 drops them).
            let line = format!("{}\\r\\n", "QUJD".repeat(19));
            let data = line.repeat(n / line.len());
            wire(
                format!(r#"{{"role":"user","blocks":[{{"type":"audio","media_type":"audio/wav","data":"{data}"}}]}}"#)
                    .as_bytes(),
            )
        }),
        ("escaped base64 image", {
            let line = format!("{}\\r\\n", "QUJD".repeat(19));
            let data = line.repeat(n / line.len());
            wire(
                format!(
                    r#"{{"role":"user","blocks":[{{"type":"image","media_type":"image/png","source":{{"url":"","data":"{data}"}}}}]}}"#
                )
                .as_bytes(),
            )
        }),
        // Many calls in one assistant message, answered by one message of results (S14.3 pairs
        // them while parsing).
        ("calls in one message", {
            let k = n / 120;
            let calls: Vec<String> =
                (0..k).map(|c| format!(r#"{{"type":"tool_use","id":"c{c}","name":"n","input":0}}"#)).collect();
            let results: Vec<String> = (0..k)
                .map(|c| format!(r#"{{"type":"tool_result","tool_use_id":"c{c}","content":[],"is_error":false}}"#))
                .collect();
            wire(
                format!(
                    r#"{{"role":"assistant","blocks":[{}]}},{{"role":"user","blocks":[{}]}}"#,
                    calls.join(","),
                    results.join(",")
                )
                .as_bytes(),
            )
        }),
        ("a text of \\u00e9 escapes", {
            let text = "\\u00e9".repeat(n / 6);
            wire(format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"{text}"}}]}}"#).as_bytes())
        }),
        ("tool input: millions of keys", {
            let keys: Vec<String> = (0..n / 14).map(|i| format!(r#""k{i}":{i}"#)).collect();
            let input = format!("{{{}}}", keys.join(","));
            wire(
                format!(
                    r#"{{"role":"assistant","blocks":[{{"type":"tool_use","id":"t","name":"n","input":{input}}}]}}"#
                )
                .as_bytes(),
            )
        }),
        ("tool input: a file's text", {
            // What a coding agent's write_file call carries: one long string with escapes.
            let line = r##"    let x = \"<a href=\\\"#\\\">\" & y;\n"##;
            let content = line.repeat(n / line.len());
            wire(
                format!(
                    r#"{{"role":"assistant","blocks":[{{"type":"tool_use","id":"t","name":"write_file","input":{{"path":"src/a.rs","content":"{content}"}}}}]}}"#
                )
                .as_bytes(),
            )
        }),
        ("tool input: millions of numbers", {
            let input = format!("[{}]", vec!["1"; n / 2].join(","));
            wire(
                format!(
                    r#"{{"role":"assistant","blocks":[{{"type":"tool_use","id":"t","name":"n","input":{input}}}]}}"#
                )
                .as_bytes(),
            )
        }),
        ("tool input: a vector of floats", {
            // What a vector store's tool carries: floats of seven decimals (`-0.1234567`).
            let floats: Vec<String> =
                (0..n / 11).map(|i| format!("{:.7}", (i * 2_654_435_761 % 2_000_001) as f64 / 1e6 - 1.0)).collect();
            let input = format!(r#"{{"vector":[{}]}}"#, floats.join(","));
            wire(
                format!(
                    r#"{{"role":"assistant","blocks":[{{"type":"tool_use","id":"t","name":"store","input":{input}}}]}}"#
                )
                .as_bytes(),
            )
        }),
        ("tool inputs nested 5000 deep", {
            let nest = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
            let blocks: Vec<String> = (0..n / 10_000)
                .map(|i| format!(r#"{{"type":"tool_use","id":"t{i}","name":"n","input":{nest}}}"#))
                .collect();
            wire(format!(r#"{{"role":"assistant","blocks":[{}]}}"#, blocks.join(",")).as_bytes())
        }),
        (
            "a text of <",
            wire(format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"{}"}}]}}"#, "<".repeat(n)).as_bytes()),
        ),
    ];
    let mut transcripts = transcripts;
    // The realistic transcript of benches/gen as Python's `json.dumps(indent=2)` writes it.
    if let Ok(wire) = testkit::corpus::generated("make_transcript.py", n) {
        transcripts.push(("make_transcript.py (realistic)", wire.clone()));
        transcripts.push(("the same, pretty-printed", pretty_printed(&wire)));
    }
    for (name, doc) in &transcripts {
        let mb = |secs: f64| doc.len() as f64 / secs / 1e6;
        let validate = time(|| {
            let _ = black_box(loopcompact::wire::CompactionInput::validate(black_box(doc)));
        });
        let input = loopcompact::wire::CompactionInput::parse(doc).expect("a valid shape");
        let parse = time(|| {
            black_box(loopcompact::wire::CompactionInput::parse(black_box(doc)).map(|i| i.message_count()).ok());
        });
        let len = input.fit(u64::MAX).map(|f| f.len()).unwrap_or(0);
        let mut buf = vec![0u8; len];
        let encode = time(|| {
            let _ = black_box(input.encode_into(u64::MAX, black_box(&mut buf)));
        });
        println!(
            "{name:32} validate {:>6.0}  parse {:>6.0}  encode_within {:>6.0} MB/s  ({} bytes)",
            mb(validate),
            mb(parse),
            mb(encode),
            doc.len()
        );
    }
    let example = include_str!("../../examples/data/fingerprint_valid.json");
    let stop = |value: Vec<u8>| {
        let at = example.find(r#""Stop": null"#).expect("the example has Stop null");
        [&example.as_bytes()[..at], br#""Stop": "#, &value, &example.as_bytes()[at + 12..]].concat()
    };
    // The same shapes in a document that is its own canonical bytes (as a Go host sends it), which
    // is hashed as it is: R10.7 with its `Stop` replaced.
    let canonical_stop = |value: Vec<u8>| {
        let example = testkit::spec::FINGERPRINT_EXAMPLE;
        let at = example.find(r#""Stop":null"#).expect("R10.7 has Stop null");
        [&example.as_bytes()[..at], br#""Stop":"#, &value, &example.as_bytes()[at + 11..]].concat()
    };
    let entries = || [b"[".as_slice(), &repeated(r#""a""#, n / 4), b"]"].concat();
    let run = || format!(r#"["{}"]"#, "<".repeat(n)).into_bytes();
    let escaped_run = || format!(r#"["{}"]"#, "\\u003c".repeat(n / 6)).into_bytes();
    let fingerprints: Vec<(&str, Vec<u8>)> = vec![
        ("Stop with millions of entries", stop(entries())),
        ("one Stop string of <", stop(run())),
        ("BaseURL of millions of groups", {
            // More than eight groups: not an IPv6 address (R10.4), an invalid model (404).
            let at = example.find(r#""BaseURL": "http://localhost:1234""#).expect("the example has this BaseURL");
            let groups = format!(r#""BaseURL": "https://[{}0]""#, "0:".repeat(n / 2));
            [&example.as_bytes()[..at], groups.as_bytes(), &example.as_bytes()[at + 34..]].concat()
        }),
        ("canonical: millions of entries", canonical_stop(entries())),
        ("canonical: a Stop of \\u003c", canonical_stop(escaped_run())),
    ];
    for (name, doc) in &fingerprints {
        let secs = time(|| {
            let _ = black_box(loopcompact::fingerprint::RequestFingerprint::digest_of(black_box(doc)));
        });
        let rate = doc.len() as f64 / secs / 1e6;
        print!("{name:32} lc_request_fingerprint {rate:>6.0} MB/s  ({} bytes", doc.len());
        // What no implementation can pass: SHA-256 of the document's canonical bytes, alone, in MB/s
        // of the document (a `Stop` string of `<` is six canonical bytes per byte).
        // (Only for a document with a fingerprint: the `BaseURL` one fails validation first.)
        let digest = loopcompact::fingerprint::RequestFingerprint::digest_of(doc);
        let canonical = loopcompact::fingerprint::FingerprintInput::from_json(doc).and_then(|i| i.canonical_bytes());
        match digest.and(canonical) {
            Ok(canonical) => {
                let hash = time(|| {
                    black_box(sha2::Sha256::digest(black_box(&canonical)));
                });
                let bound = doc.len() as f64 / hash / 1e6;
                println!(
                    "; SHA-256 of its {} canonical bytes alone: {bound:.0} MB/s, reached {:.0} %)",
                    canonical.len(),
                    100.0 * rate / bound
                );
            }
            Err(_) => println!(")"),
        }
    }
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
    // The realistic summary of benches/gen (entity and character references on every line).
    if let Ok(xml) = testkit::corpus::generated("make_summary.py", n) {
        shapes.push(("make_summary.py (realistic)", xml));
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
    json_shapes(n);
}
