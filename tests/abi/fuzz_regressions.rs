//! Fuzzing, replayed in `cargo test`: every input under `fuzz/seeds/<target>/` goes through the same
//! target body, with the same invariants, as under libFuzzer (both call `testkit::fuzz`, so there is
//! one copy of the invariants).
//!
//! The committed seeds are a hand-picked set, one per outcome each target reached in its 10-minute
//! runs: the smallest corpus input for every status (and, for `input_parse`, for "fits as is",
//! "fitted" and "too large"; for `limits`, for every combination of results seen). A crash input
//! found later goes into `fuzz/seeds/<target>/` under a name that says what it was, and becomes a
//! regression test here and a seed there. No fuzz run has found a crash so far.

use std::path::Path;

use testkit::fuzz;
use testkit::status::{SUMMARY_CODES, check_status};

/// Runs `target` on every seed of `fuzz/seeds/<name>/`; a failing seed is named in the panic.
fn replay(name: &str, target: impl Fn(&[u8]) + std::panic::RefUnwindSafe) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join("seeds").join(name);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no seeds", dir.display());
    for file in files {
        let data = std::fs::read(&file).unwrap();
        if let Err(panic) = std::panic::catch_unwind(|| target(&data)) {
            let message = panic.downcast_ref::<String>().map(String::as_str).or(panic.downcast_ref::<&str>().copied());
            panic!("{}: {}", file.display(), message.unwrap_or("panic"));
        }
    }
}

#[test]
fn summary_xml() {
    replay("summary_xml", fuzz::target_summary_xml);
}

#[test]
fn input_parse() {
    replay("input_parse", fuzz::target_input_parse);
}

#[test]
fn output_validate() {
    replay("output_validate", fuzz::target_output_validate);
}

#[test]
fn compaction_reply() {
    replay("compaction_reply", fuzz::target_compaction_reply);
}

#[test]
fn replacement() {
    replay("replacement", fuzz::target_replacement);
}

#[test]
fn transcript_safety() {
    replay("transcript_safety", fuzz::target_transcript_safety);
}

#[test]
fn convert() {
    for (code, target) in [
        (1, "convert_openai_chat"),
        (2, "convert_openai_responses"),
        (3, "convert_anthropic"),
        (4, "convert_gemini"),
        (5, "convert_ai_sdk"),
        (6, "convert_langchain"),
    ] {
        replay(target, |data| fuzz::target_convert(code, data));
    }
}

#[test]
fn compaction_policy() {
    replay("compaction_policy", fuzz::target_compaction_policy);
}

#[test]
fn context_observation() {
    replay("context_observation", fuzz::target_context_observation);
}

#[test]
fn context_config() {
    replay("context_config", fuzz::target_context_config);
}

#[test]
fn request_fingerprint() {
    replay("request_fingerprint", fuzz::target_request_fingerprint);
}

#[test]
fn limits() {
    replay("limits", fuzz::target_limits);
}

/// The targets reject what they must: a broken invariant panics (checked on one target with an
/// input whose status cannot be in its set, so that a silently passing harness is noticed).
#[test]
fn a_broken_invariant_is_reported() {
    let result = std::panic::catch_unwind(|| check_status("lc_summary_xml_validate", 100, SUMMARY_CODES));
    assert!(result.is_err(), "check_status accepted a status outside the set");
}
