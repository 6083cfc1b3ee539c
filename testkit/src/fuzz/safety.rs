//! Transcript safety that never blocks (docs/SPEC.md §16.9) on any input document.

use loopcompact::Status;
use loopcompact::wire::{CompactionInput, CutOptions, Repair};

use super::Reader;

/// The input document around a transcript (a JSON array), with `input`'s identity.
fn around(input: &CompactionInput, transcript: &[u8]) -> Vec<u8> {
    let quoted = |s: &str| serde_json::to_string(s).expect("a string serialises");
    let mut doc = format!(
        r#"{{"version":1,"basis":{{"revision":{},"through_event_id":"{}"}},"model":{{"provider":{},"model":{}}},"request_fingerprint":"{}","transcript":"#,
        input.revision(),
        input.through_event_id(),
        quoted(&input.provider()),
        quoted(&input.model()),
        input.request_fingerprint(),
    )
    .into_bytes();
    doc.extend_from_slice(transcript);
    doc.extend_from_slice(format!(r#","max_summary_tokens":{}}}"#, input.max_summary_tokens()).as_bytes());
    doc
}

/// Input: a `keep_last` byte, then an input document.
///
/// Invariants: the violations are in transcript order, one per place, the first being S14.3's,
/// each offset just after a quote; without options the cut functions are §14's; with the pending
/// tail the cut is at most the last assistant message, checks as safe, and its head pairs; the
/// repair plan exists unless an id repeats, and the repaired transcript (in the same document)
/// passes S14.3, or with the pending tail has at most a pending tail; the plan's JSON form has
/// one entry per edit.
pub fn target_transcript_safety(data: &[u8]) {
    let mut reader = Reader::new(data);
    let keep = u64::from(reader.u8());
    let wire = reader.rest();
    let Ok(input) = CompactionInput::parse(wire) else { return };
    let violations = input.pairing_violations();
    let first = input.pairing_check().err().map(|e| e.status());
    assert_eq!(violations.first().map(|v| v.status), first, "the first violation is not S14.3's");
    let place = |v: &loopcompact::wire::PairingViolation| (v.message, v.block.map_or(0, |b| b + 1));
    assert!(violations.windows(2).all(|w| place(&w[0]) < place(&w[1])), "violations out of order");
    for v in &violations {
        assert_eq!(wire.get(v.offset.wrapping_sub(1)), Some(&b'"'), "an offset not at an id");
    }
    assert_eq!(input.safe_cut_with(keep, CutOptions::default()), input.safe_cut(keep));
    let n = input.message_count();
    for cut in [0, keep as usize, n / 2, n, n + 1] {
        assert_eq!(input.cut_check_with(cut as u64, CutOptions::default()), input.cut_check(cut as u64));
    }
    let pending = CutOptions { pending_tail: true, allowed: None };
    if let Some(p) = input.pending_tail() {
        let c = input.safe_cut_with(keep, pending).expect("a pending tail has a cut");
        assert!(c <= p, "the cut passes the pending turn");
        assert_eq!(input.cut_check_with(c as u64, pending), Ok(()));
    } else {
        assert_eq!(input.safe_cut_with(keep, pending), input.safe_cut(keep));
    }
    let repeated = violations.iter().any(|v| v.status == Status::PairingDuplicateId);
    for pending_tail in [false, true] {
        let plan = input.repair_plan(pending_tail);
        let repaired = input.repaired_transcript(pending_tail);
        if repeated {
            assert_eq!(plan.map(|_| ()).map_err(|e| e.status()), Err(Status::PairingDuplicateId));
            assert!(repaired.is_err());
            continue;
        }
        let plan = plan.expect("a plan without repeated ids");
        let json: serde_json::Value =
            serde_json::from_slice(&input.repair_plan_json(pending_tail).expect("a plan")).expect("the plan is JSON");
        assert_eq!(json.as_array().map(Vec::len), Some(plan.len()), "the JSON plan has other edits");
        let adds = plan.iter().filter(|r| matches!(r, Repair::AddResult { .. })).count();
        let repaired = repaired.expect("a repaired transcript");
        if repaired == b"[]" {
            continue;
        }
        let again = CompactionInput::parse(&around(&input, &repaired)).expect("the repaired transcript parses");
        assert!(again.message_count() <= n + adds, "the repair added more than its plan");
        match again.pairing_check() {
            Ok(()) => {}
            Err(_) if pending_tail => {
                assert!(again.pending_tail().is_some(), "the repair left more than a pending tail")
            }
            Err(e) => panic!("the repaired transcript fails S14.3: {e}"),
        }
    }
}
