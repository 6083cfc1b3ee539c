//! The round's targets (docs/SPEC.md §15): the bare reply against its envelope, the head, the
//! replacement build and its check.

use loopcompact::ffi::{LC_STOP_LENGTH, LC_STOP_UNKNOWN};
use loopcompact::wire::CompactionInput;

use super::Reader;
use crate::abi::{Input, summary_xml};
use crate::round::Reply;
use crate::status::{BUILD_CODES, HEAD_CODES, LC_OK, REPLY_CODES, VERIFY_CODES, check_status, name};

/// The O6.1 reply document of `input`'s identity around `text`, any bytes: `"`, `\` and control
/// bytes escaped, every other byte as it is.
#[must_use]
pub fn envelope_for(input: &CompactionInput, text: &[u8]) -> Vec<u8> {
    let quoted = |s: &str| serde_json::to_string(s).expect("a string serialises");
    let mut out = format!(
        r#"{{"version":1,"basis":{{"revision":{},"through_event_id":"{}"}},"model":{{"provider":{},"model":{}}},"request_fingerprint":"{}","summary":""#,
        input.revision(),
        input.through_event_id(),
        quoted(&input.provider()),
        quoted(&input.model()),
        input.request_fingerprint(),
    )
    .into_bytes();
    for &b in text {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..=0x1F => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.extend_from_slice(b"\"}");
    out
}

/// `lc_compaction_reply_validate` (SPEC R15.1–R15.7) against an input parsed from the same data.
///
/// Input: u64 LE `output_tokens` selector (as `output_validate`'s), u64 LE `max_reply_bytes`, a
/// byte whose value % 4 is the stop (3: the invalid value 3), a byte whose low three bits are the
/// flags (4: an invalid bit), u32 LE length of the input wire, the wire, then the reply.
///
/// Invariants: the status is `LC_OK` or in the reply's set; `_diagnose` agrees and its removed
/// bytes add up (see `Input::reply_diagnose`); steps 1–4 of R15.3 match an oracle; an invalid
/// stop or flag is `LC_ERR_INVALID_ARGUMENT`; on `LC_OK` the summary is a piece of the reply that
/// `lc_summary_xml_validate` accepts, and equals the reply without cleanup; with no cleanup and no
/// length stop, the verdict and summary are `lc_compaction_output_validate`'s on the envelope
/// (R15.3); with the length stop, a rejected text is `LC_REPLY_TRUNCATED`.
pub fn target_compaction_reply(data: &[u8]) {
    let mut reader = Reader::new(data);
    let tokens_selector = reader.u64();
    let max_reply_bytes = reader.u64();
    let stop = i32::from(reader.u8() % 4);
    let flags = u32::from(reader.u8() & 7);
    let wire_len = reader.u32() as usize;
    let wire = reader.take(wire_len);
    let reply = reader.rest();

    let Ok(input) = Input::parse(wire) else { return };
    let safe = CompactionInput::parse(wire).expect("parsed through the C ABI");
    let budget = safe.max_summary_tokens();
    let output_tokens =
        if tokens_selector >> 63 != 0 { tokens_selector } else { tokens_selector % budget.saturating_add(1) };
    let args = Reply { output_tokens, stop, max_reply_bytes, flags };

    let (result, _) = input.reply_diagnose(reply, args);
    let rc = result.as_ref().err().copied().unwrap_or(LC_OK);
    check_status("lc_compaction_reply_validate", rc, REPLY_CODES);
    if stop == 3 || flags & 4 != 0 {
        assert_eq!(rc, 4, "an invalid stop or flag gave {}", name(rc));
        return;
    }
    let early = if max_reply_bytes < 114 {
        Some(601)
    } else if reply.len() as u64 > max_reply_bytes {
        Some(203)
    } else if output_tokens == 0 {
        Some(204)
    } else if output_tokens > budget {
        Some(205)
    } else {
        None
    };
    match early {
        Some(code) => assert_eq!(rc, code, "R15.3 steps 1-4: expected {} got {}", name(code), name(rc)),
        None => assert!(![601, 203, 204, 205].contains(&rc), "steps 1-4 passed but got {}", name(rc)),
    }
    if let Ok(summary) = &result {
        assert_eq!(summary_xml(summary), LC_OK, "an accepted summary that lc_summary_xml_validate rejects");
        assert!(
            reply.windows(summary.len()).any(|w| w == summary.as_slice()),
            "the summary is not a piece of the reply"
        );
        if flags == 0 {
            assert_eq!(summary.as_slice(), reply, "no cleanup, yet the summary is not the reply");
        }
    }
    if early.is_some() {
        return;
    }
    if stop == LC_STOP_LENGTH {
        assert!(rc == LC_OK || rc == 600, "a length stop gave {}", name(rc));
        return;
    }
    if flags == 0 {
        let doc = envelope_for(&safe, reply);
        let output = input.output(&doc, output_tokens, u64::MAX);
        assert_eq!(result, output, "the bare reply and its envelope disagree (R15.3)");
        let unknown = input.reply(reply, Reply { stop: LC_STOP_UNKNOWN, ..args });
        assert_eq!(unknown, result, "stop end and stop unknown disagree");
    }
}

/// The head, the replacement and its check (SPEC R15.8–R15.11) on an input parsed from the data.
///
/// Input: u64 LE cut selector (% (n + 2), so a cut past the end is tried too), u32 LE length of
/// the input wire, the wire, u32 LE length of the summary, the summary, then edits: pairs of a
/// u32 LE position (% length) and a byte, each replacing one byte of the built replacement.
///
/// Invariants: the head's status is in its set and, on `LC_OK`, equals the encoding of the same
/// input with only its first `cut` messages (checked by parsing it: same message count as the
/// cut); the build's status is in its set, its check's status equals it for every failure but the
/// summary's, and on `LC_OK` the built replacement passes `lc_replacement_verify`; an edited
/// replacement gives a status of the check's set (an edit can keep the canonical form, `\u003c`
/// for `\u003C`, so `LC_OK` stays possible), and bytes left equal still pass.
pub fn target_replacement(data: &[u8]) {
    let mut reader = Reader::new(data);
    let cut_selector = reader.u64();
    let wire_len = reader.u32() as usize;
    let wire = reader.take(wire_len);
    let summary_len = reader.u32() as usize;
    let summary = reader.take(summary_len).to_vec();
    let edits = reader.rest();

    let Ok(input) = Input::parse(wire) else { return };
    let safe = CompactionInput::parse(wire).expect("parsed through the C ABI");
    let n = safe.message_count() as u64;
    let cut = cut_selector % (n + 2);

    let head = input.head(cut, u64::MAX);
    let rc = head.as_ref().err().copied().unwrap_or(LC_OK);
    check_status("lc_compaction_input_encode_head_within", rc, HEAD_CODES);
    if let Ok(head) = &head {
        let parsed = CompactionInput::parse(head).unwrap_or_else(|e| panic!("the head does not parse: {e}"));
        assert_eq!(parsed.message_count() as u64, cut, "the head holds another number of messages");
        assert_eq!(parsed.request_fingerprint(), safe.request_fingerprint(), "the head changed the identity");
    }

    let built = input.build(cut, &summary);
    let rc = built.as_ref().err().copied().unwrap_or(LC_OK);
    check_status("lc_replacement_build", rc, BUILD_CODES);
    let (checked, _) = input.verify(cut, built.as_deref().unwrap_or(b"[]"));
    check_status("lc_replacement_verify", checked, VERIFY_CODES);
    let Ok(built) = built else {
        if rc != 611 {
            assert_eq!(checked, rc, "the build refused the cut with {}, its check with {}", name(rc), name(checked));
        }
        return;
    };
    assert_eq!(checked, LC_OK, "the built replacement fails its own check: {}", name(checked));
    let mut edited = built.clone();
    for pair in edits.chunks(5) {
        if pair.len() < 5 || edited.is_empty() {
            break;
        }
        let at = u32::from_le_bytes([pair[0], pair[1], pair[2], pair[3]]) as usize % edited.len();
        edited[at] = pair[4];
    }
    let (after, _) = input.verify(cut, &edited);
    check_status("lc_replacement_verify", after, VERIFY_CODES);
    if edited == built {
        assert_eq!(after, LC_OK, "the same bytes failed their check");
    }
}

/// `lc_transcript_convert` of `format` (SPEC §16) on any bytes.
///
/// Input: a flags byte (its low bit is `LC_CONVERT_STRICT`), then the source document.
///
/// Invariants: the status is `LC_OK`, `LC_CONVERT_WIRE`, `LC_CONVERT_SHAPE` or (strict)
/// `LC_CONVERT_LOSS`, with a diagnosis that has an offset; on `LC_OK` the accessors keep the
/// two-call pattern (see `testkit::convert::convert`), `cut_allowed` has n + 1 entries with the
/// ends allowed, every allowed cut has a source cut that never decreases, strict conversion gives
/// the same transcript when there is no loss, and the transcript parses as a wire transcript
/// (the input around it is `LC_OK` or, for no message, `LC_INPUT_TRANSCRIPT`).
pub fn target_convert(format: i32, data: &[u8]) {
    let mut reader = Reader::new(data);
    let flags = u32::from(reader.u8() & 1);
    let src = reader.rest();
    match crate::convert::convert(format, src, flags) {
        Err((rc, d)) => {
            let allowed =
                [crate::status::LC_CONVERT_WIRE, crate::status::LC_CONVERT_SHAPE, crate::status::LC_CONVERT_LOSS];
            assert!(allowed.contains(&rc), "lc_transcript_convert returned {}", name(rc));
            assert!(rc != crate::status::LC_CONVERT_LOSS || flags == 1, "a loss refused without the strict flag");
            assert!(d.offset().is_some(), "a refusal without an offset");
        }
        Ok(c) => {
            let n = c.source_index.len();
            assert!(c.cut_allowed[0], "cut 0 must be allowed (G16.2)");
            let mut last = 0;
            for cut in 0..=n {
                if c.cut_allowed[cut] {
                    let s = c.source_cut(cut).expect("an allowed cut has a source cut");
                    assert!(s >= last, "source cuts go back");
                    last = s;
                }
            }
            if flags == 1 {
                assert!(c.losses.is_empty(), "strict, yet losses");
            } else if c.losses.is_empty() {
                let strict = crate::convert::convert(format, src, 1).expect("no loss: strict converts too");
                assert_eq!(strict.transcript, c.transcript, "strict changed the transcript");
            }
            match c.input("p", "m", 100, 1, None) {
                Ok(_) => {}
                Err(rc) => assert_eq!((rc, n), (crate::status::LC_INPUT_TRANSCRIPT, 0), "the wire gives {}", name(rc)),
            }
        }
    }
}
