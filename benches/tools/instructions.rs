//! Runs one benchmark case a fixed number of times, for instruction counting under
//! `valgrind --tool=callgrind` (a CPU-independent regression guard, see `scripts/bench`).
//!
//! `cargo run --release --example instructions -- CASE ITERATIONS`; the script runs each case with
//! 0 and N iterations and divides the difference by N, so input generation does not count.

use std::hint::black_box;

use loopcompact::wire::CompactionInput;
use testkit::corpus::{summary as summary_corpus, wire as wire_corpus};

const FINGERPRINT_DOC: &str = include_str!("../../examples/data/fingerprint_valid.json");

fn main() {
    let mut args = std::env::args().skip(1);
    let case = args.next().expect("usage: instructions CASE ITERATIONS");
    let iterations: u64 = args.next().and_then(|n| n.parse().ok()).expect("ITERATIONS must be a number");
    match case.as_str() {
        "summary_4KB" | "summary_1MB" => {
            let xml = summary_corpus::summary(if case == "summary_4KB" { 4 * 1024 } else { 1024 * 1024 });
            for _ in 0..iterations {
                loopcompact::summary::validate(black_box(&xml)).unwrap();
            }
        }
        "transcript_1MB" => {
            let wire = wire_corpus::transcript_wire(1 << 20);
            for _ in 0..iterations {
                CompactionInput::validate(black_box(&wire)).unwrap();
            }
        }
        "realistic_summary" => {
            // A file written by benches/gen/make_summary.py (path in LOOPCOMPACT_SUMMARY).
            let xml = std::fs::read(std::env::var("LOOPCOMPACT_SUMMARY").expect("LOOPCOMPACT_SUMMARY")).unwrap();
            for _ in 0..iterations {
                let _ = black_box(loopcompact::summary::validate(black_box(&xml)));
            }
        }
        _ if case.starts_with("realistic_summary_stream_") => {
            // The streaming validator (SPEC §17.3) on the same file, fed in chunks of the size the
            // case names (`realistic_summary_stream_64`, `_4096`: benches/summary.rs
            // `summary_stream`; any other size too): its instructions per byte against
            // `realistic_summary`'s are the chunked/whole ratio, free of the machine's noise.
            let xml = std::fs::read(std::env::var("LOOPCOMPACT_SUMMARY").expect("LOOPCOMPACT_SUMMARY")).unwrap();
            let chunk: usize = case["realistic_summary_stream_".len()..].parse().expect("a chunk size");
            for _ in 0..iterations {
                let mut stream = loopcompact::summary::SummaryStream::new();
                for piece in black_box(&xml).chunks(chunk) {
                    let _ = black_box(stream.feed(black_box(piece)));
                }
                let _ = black_box(stream.finish());
            }
        }
        "realistic_transcript" => {
            // A file written by benches/gen/make_transcript.py (path in LOOPCOMPACT_WIRE).
            let wire = std::fs::read(std::env::var("LOOPCOMPACT_WIRE").expect("LOOPCOMPACT_WIRE")).unwrap();
            for _ in 0..iterations {
                CompactionInput::validate(black_box(&wire)).unwrap();
            }
        }
        "realistic_transcript_parse" => {
            // lc_compaction_input_parse's path on the same file (the handle keeps a copy).
            let wire = std::fs::read(std::env::var("LOOPCOMPACT_WIRE").expect("LOOPCOMPACT_WIRE")).unwrap();
            for _ in 0..iterations {
                black_box(CompactionInput::parse(black_box(&wire)).unwrap().message_count());
            }
        }
        "realistic_transcript_encode" => {
            // lc_compaction_input_encode_within into a caller buffer of the canonical size.
            let wire = std::fs::read(std::env::var("LOOPCOMPACT_WIRE").expect("LOOPCOMPACT_WIRE")).unwrap();
            let input = CompactionInput::parse(&wire).unwrap();
            let mut out = vec![0u8; input.fit(u64::MAX).unwrap().len()];
            for _ in 0..iterations {
                let _ = black_box(input.encode_into(u64::MAX, black_box(&mut out)));
            }
        }
        "output_4KB" => {
            let input = CompactionInput::parse(&wire_corpus::transcript_wire(1 << 20)).unwrap();
            let reply = wire_corpus::reply_4k();
            for _ in 0..iterations {
                black_box(input.validate_output(black_box(&reply), 1, u64::MAX).unwrap());
            }
        }
        "fit_1MB_half" => {
            let wire = wire_corpus::transcript_wire(1 << 20);
            let input = CompactionInput::parse(&wire).unwrap();
            for _ in 0..iterations {
                // Half the size does not fit this transcript: the whole candidate walk runs either way.
                let _ = black_box(input.encode_within(wire.len() as u64 / 2));
            }
        }
        "encode_1MB" => {
            let wire = wire_corpus::transcript_wire(1 << 20);
            let input = CompactionInput::parse(&wire).unwrap();
            let mut out = vec![0u8; wire.len() * 2];
            for _ in 0..iterations {
                let _ = black_box(input.encode_into(u64::MAX, black_box(&mut out)));
            }
        }
        _ if case.starts_with("convert_") => {
            // The converters (SPEC §16) on benches/convert.rs's 1 MiB sessions: `convert_openai_chat`,
            // `convert_anthropic`; with `_wire_parse` or `_wire_encode`, parsing or writing the wire
            // that conversion gives (the yardstick, and the write half of a conversion).
            use loopcompact::convert::{Format, convert};
            use testkit::corpus::convert::{anthropic_session, chat_session};
            let rest = &case["convert_".len()..];
            let (format, src, what) = if let Some(what) = rest.strip_prefix("openai_chat") {
                (Format::OpenAiChat, chat_session(1 << 20), what)
            } else if let Some(what) = rest.strip_prefix("anthropic") {
                (Format::Anthropic, anthropic_session(1 << 20), what)
            } else {
                panic!("unknown case {case}")
            };
            let input = convert(format, &src, 0).unwrap().input("p", "m", 4096, 1, None).unwrap();
            let wire = input.encode();
            for _ in 0..iterations {
                match what {
                    "" => drop(black_box(convert(format, black_box(&src), 0).unwrap())),
                    "_wire_parse" => drop(black_box(CompactionInput::parse(black_box(&wire)).unwrap())),
                    "_wire_encode" => drop(black_box(black_box(&input).encode())),
                    _ => panic!("unknown case {case}"),
                }
            }
        }
        "fingerprint_digest" => {
            // What lc_request_fingerprint runs.
            for _ in 0..iterations {
                black_box(
                    loopcompact::fingerprint::RequestFingerprint::digest_of(black_box(FINGERPRINT_DOC.as_bytes()))
                        .unwrap(),
                );
            }
        }
        "fingerprint_R10.7" => {
            // The 943-byte worked example of SPEC R10.7, the per-call target.
            let doc = testkit::spec::FINGERPRINT_EXAMPLE.as_bytes();
            for _ in 0..iterations {
                black_box(loopcompact::fingerprint::RequestFingerprint::digest_of(black_box(doc)).unwrap());
            }
        }
        "fingerprint_file" => {
            // lc_request_fingerprint's path on a file (path in LOOPCOMPACT_FINGERPRINT).
            let doc =
                std::fs::read(std::env::var("LOOPCOMPACT_FINGERPRINT").expect("LOOPCOMPACT_FINGERPRINT")).unwrap();
            for _ in 0..iterations {
                let _ = black_box(loopcompact::fingerprint::RequestFingerprint::digest_of(black_box(&doc)));
            }
        }
        "fingerprint" => {
            for _ in 0..iterations {
                black_box(
                    loopcompact::fingerprint::RequestFingerprint::compute(black_box(FINGERPRINT_DOC.as_bytes()))
                        .unwrap(),
                );
            }
        }
        other => panic!("unknown case {other}"),
    }
}
