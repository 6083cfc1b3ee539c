//! The summary grammar's target (SPEC §4).

use crate::abi::summary_xml;
use crate::diagnostic::summary_xml_diagnose;
use crate::status::{SUMMARY_CODES, check_status, name};

/// `lc_summary_xml_validate` (SPEC §4) on arbitrary bytes.
///
/// Invariants: the status is `LC_OK` or 206–209 (A3.9); `lc_summary_xml_diagnose` returns the same
/// status and fills `diag.status` with it (C13.4, checked by its wrapper); the same bytes give the
/// same status (X4.22: no state between calls); the safe API agrees with the C entry point; any
/// `<![CDATA[` is `xml_structure` (X4.3).
pub fn target_summary_xml(data: &[u8]) {
    let rc = summary_xml(data);
    check_status("lc_summary_xml_validate", rc, SUMMARY_CODES);
    assert_eq!(summary_xml_diagnose(data).0, rc, "lc_summary_xml_diagnose differs from _validate");
    assert_eq!(rc, summary_xml(data), "lc_summary_xml_validate is not deterministic");
    let safe = loopcompact::summary::validate(data).err().map_or(0, |e| e.status().code());
    assert_eq!(rc, safe, "C ABI {} vs safe API {}", name(rc), name(safe));
    if data.windows(9).any(|w| w == b"<![CDATA[") {
        assert_eq!(rc, 208, "X4.3: a document holding <![CDATA[ gave {}", name(rc));
    }
}

/// The streaming validator (SPEC §17.3) on arbitrary bytes at fuzzer-chosen splits: the first four
/// bytes give the chunk sizes (cycled, 1–64 each), the rest is the reply.
///
/// Invariants: the final verdict and diagnosis are those of `validate` and `diagnose` of the
/// reply (T17.4); a stream is never dead on a valid reply, dies inside the chunk that kills it and
/// then returns the same error for every chunk (T17.3).
pub fn target_summary_stream(data: &[u8]) {
    let (sizes, reply) = data.split_at(data.len().min(4));
    let mut stream = loopcompact::summary::SummaryStream::new();
    let mut start = 0;
    let mut first_error = None;
    for k in 0.. {
        if start >= reply.len() {
            break;
        }
        let size = sizes.get(k % sizes.len().max(1)).map_or(reply.len(), |&s| usize::from(s % 64) + 1);
        let end = (start + size).min(reply.len());
        let got = stream.feed(&reply[start..end]);
        match first_error {
            None => {
                if let Err(e) = got {
                    let at = stream.dead_at().expect("an error means dead");
                    assert!(at >= start && at < end, "died at {at} outside its chunk {start}..{end}");
                    first_error = Some(e);
                }
            }
            Some(first) => assert_eq!(got, Err(first), "a dead stream changed its status"),
        }
        start = end;
    }
    let whole = loopcompact::summary::validate(reply);
    assert_eq!(stream.finish(), whole, "stream and whole-document verdicts differ");
    assert_eq!(stream.finish_diagnose(), loopcompact::summary::diagnose(reply), "diagnoses differ");
    if whole.is_ok() {
        assert_eq!(stream.dead_at(), None, "dead on a valid reply");
    }
}
