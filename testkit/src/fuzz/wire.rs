//! The compaction input and output targets (SPEC §5–§7): parse, validate, encode and fit an input;
//! validate a reply against it.

use loopcompact::wire::CompactionInput;

use super::{Reader, padded};
use crate::abi::{Input, input_validate, summary_xml};
use crate::diagnostic::input_diagnose;
use crate::status::{INPUT_CODES, LC_INPUT_TOO_LARGE as INPUT_TOO_LARGE, OUTPUT_CODES, check_status, name};

/// The identity a fitted input keeps (F7.3: only tool messages' blocks change).
fn identity(wire: &[u8]) -> (u64, String, String, String, String, u64, usize) {
    let input = CompactionInput::parse(wire).expect("parsed through the C ABI, not through the safe API");
    (
        input.revision(),
        input.through_event_id().to_owned(),
        input.provider().into_owned(),
        input.model().into_owned(),
        input.request_fingerprint().to_owned(),
        input.max_summary_tokens(),
        input.message_count(),
    )
}

/// `lc_compaction_input_parse`, `_validate`, `_encode_within` and `_free` (SPEC §5, §7).
///
/// Input: a little-endian u32 limit selector, then the wire document. Selector with the high bit
/// set: the limit is the low 31 bits; otherwise the limit is `len(S) * (selector & 0xFFFF) / 65536`
/// for the canonical encoding S, so most limits force some fitting.
///
/// Invariants: the status is `LC_OK` or 100–105; `_validate` equals `_parse`, and
/// `lc_compaction_input_diagnose` returns it too and fills `diag.status` (C13.4); whitespace around the
/// document changes nothing (J5.1); on `LC_OK`: the canonical bytes S (limit `u64::MAX`) parse back
/// to an input with the same identity and re-encode to S (E7 is a fixed point); the limit len(S)
/// gives S (F7.2) and the limit 0 `LC_INPUT_TOO_LARGE`; with the limit from the data the fitted
/// bytes are no longer than the limit, parse back to the same identity and message count, and are
/// canonical, or the status is `LC_INPUT_TOO_LARGE` with S longer than the limit; since the kept
/// candidates of F7.3 shrink strictly, the limit len(fitted) gives the same bytes and one byte less
/// gives shorter bytes or `LC_INPUT_TOO_LARGE`; the handle never changes (A3.6). Every encode call
/// checks the two-call pattern (see `Input::encode`).
pub fn target_input_parse(data: &[u8]) {
    let mut reader = Reader::new(data);
    let selector = reader.u32();
    let wire = reader.rest();

    let parsed = Input::parse(wire);
    let rc = parsed.as_ref().err().copied().unwrap_or(0);
    check_status("lc_compaction_input_parse", rc, INPUT_CODES);
    let validated = input_validate(wire);
    assert_eq!(validated, rc, "_validate {} but _parse {}", name(validated), name(rc));
    assert_eq!(input_diagnose(wire).0, rc, "lc_compaction_input_diagnose differs from _parse");
    let wrapped = input_validate(&padded(wire));
    assert_eq!(wrapped, rc, "surrounding whitespace turned {} into {}", name(rc), name(wrapped));
    let Ok(input) = parsed else { return };
    let id = identity(wire);

    let full = input.encode(u64::MAX).expect("no limit: LC_INPUT_TOO_LARGE");
    let reparsed = Input::parse(&full).unwrap_or_else(|rc| panic!("canonical bytes rejected: {}", name(rc)));
    assert_eq!(reparsed.encode(u64::MAX).ok(), Some(full.clone()), "E7 is not a fixed point");
    assert_eq!(identity(&full), id, "the canonical bytes changed the identity");
    assert_eq!(input.encode(full.len() as u64).ok(), Some(full.clone()), "F7.2: len(S) must give S");
    assert_eq!(input.encode(0), Err(INPUT_TOO_LARGE), "F7.2: limit 0");

    let limit = if selector & 0x8000_0000 != 0 {
        u64::from(selector & 0x7FFF_FFFF)
    } else {
        (full.len() as u64 * u64::from(selector & 0xFFFF)) >> 16
    };
    match input.encode(limit) {
        Ok(fitted) => {
            assert!(fitted.len() as u64 <= limit, "fitted {} bytes over the limit {limit}", fitted.len());
            let again = Input::parse(&fitted).unwrap_or_else(|rc| panic!("fitted bytes rejected: {}", name(rc)));
            assert_eq!(again.encode(u64::MAX).ok(), Some(fitted.clone()), "fitted bytes are not canonical");
            assert_eq!(identity(&fitted), id, "fitting changed the identity or the message count");
            let n = fitted.len() as u64;
            assert_eq!(input.encode(n).ok(), Some(fitted.clone()), "limit len(fitted) gave other bytes");
            match input.encode(n - 1) {
                Ok(shorter) => assert!(shorter.len() < fitted.len(), "limit - 1 did not shrink"),
                Err(rc) => assert_eq!(rc, INPUT_TOO_LARGE, "limit - 1: {}", name(rc)),
            }
        }
        Err(rc) => {
            assert_eq!(rc, INPUT_TOO_LARGE, "encode_within: {}", name(rc));
            assert!(limit < full.len() as u64, "LC_INPUT_TOO_LARGE although S ({}) fits {limit}", full.len());
        }
    }
    assert_eq!(input.encode(u64::MAX).ok(), Some(full), "the handle changed (A3.6)");
}

/// `lc_compaction_output_validate` (SPEC §6) against an input parsed from the same fuzz input.
///
/// Input: u64 LE `output_tokens` selector, u64 LE `max_output_bytes`, u32 LE length of the input
/// wire, the input wire, then the reply. Tokens selector with the high bit set: used as is (above
/// any budget); otherwise taken modulo `max_summary_tokens + 1`, so most calls pass steps 2–3.
///
/// Invariants: the status is `LC_OK` or in A3.9's set; `lc_compaction_output_diagnose` returns the
/// same status and summary and fills `diag.status` (C13.4); steps 1–3 of O6.2 are checked against an
/// oracle (byte limit, token usage, token limit, in that order); on `LC_OK` the written summary is
/// at most `output_len` bytes, non-empty, passes `lc_summary_xml_validate`, and the two-call pattern
/// gives the same length (see `Input::output`); the same call gives the same result; surrounding
/// whitespace in the reply changes nothing but the byte count (J5.1).
pub fn target_output_validate(data: &[u8]) {
    let mut reader = Reader::new(data);
    let tokens_selector = reader.u64();
    let max_output_bytes = reader.u64();
    let wire_len = reader.u32() as usize;
    let wire = reader.take(wire_len);
    let reply = reader.rest();

    let Ok(input) = Input::parse(wire) else { return };
    let budget = CompactionInput::parse(wire).expect("parsed through the C ABI").max_summary_tokens();
    let output_tokens =
        if tokens_selector >> 63 != 0 { tokens_selector } else { tokens_selector % budget.saturating_add(1) };

    let result = input.output(reply, output_tokens, max_output_bytes);
    let rc = result.as_ref().err().copied().unwrap_or(0);
    check_status("lc_compaction_output_validate", rc, OUTPUT_CODES);
    assert_eq!(input.output_diagnose(reply, output_tokens, max_output_bytes).0, result, "_diagnose differs");
    let expected_early = if max_output_bytes == 0 || reply.len() as u64 > max_output_bytes {
        Some(203)
    } else if output_tokens == 0 {
        Some(204)
    } else if output_tokens > budget {
        Some(205)
    } else {
        None
    };
    match expected_early {
        Some(code) => assert_eq!(rc, code, "O6.2 steps 1-3: expected {} got {}", name(code), name(rc)),
        None => assert!(!(203..=205).contains(&rc), "O6.2 steps 1-3 passed but got {}", name(rc)),
    }
    if let Ok(summary) = &result {
        let xml = summary_xml(summary);
        assert_eq!(xml, 0, "LC_OK with a summary that lc_summary_xml_validate calls {}", name(xml));
    }
    assert_eq!(input.output(reply, output_tokens, max_output_bytes), result, "not deterministic");

    if expected_early.is_none() {
        let wrapped = padded(reply);
        let again = input.output(&wrapped, output_tokens, u64::MAX);
        assert_eq!(again, result, "surrounding whitespace changed the result");
    }
}
