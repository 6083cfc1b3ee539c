//! The bare reply (R15.1–R15.7): equal to the envelope's verdict and diagnosis, cleanup, the stop,
//! the limits.

use loopcompact::ffi::{LC_CLASS_HOST, LC_CLASS_RETRY, LC_REPLY_TRIM, LC_REPLY_UNFENCE, LC_STOP_END, LC_STOP_LENGTH};
use proptest::prelude::*;
use proptest::test_runner::Config;
use testkit::diagnostic::Diag;
use testkit::round::Reply;
use testkit::spec::{SUMMARY, envelope, envelope_offset};
use testkit::status::*;
use testkit::vectors;

use super::support::*;

const BIG: u64 = u64::MAX;

fn sample() -> testkit::abi::Input {
    input(&[user("hello"), assistant("hi")])
}

/// Line and column of `offset` in `text` (C13.2), counted here.
fn line_column(text: &[u8], offset: usize) -> (u64, u64) {
    let before = &text[..offset.min(text.len())];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count() as u64;
    let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = 1 + before[start..].iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
    (line, column)
}

/// R15.3: the bare reply and the envelope around the same text give the same verdict, class and
/// diagnosis; offsets of a J5.3 failure count bytes of the reply, not of the envelope.
fn same_as_envelope(text: &[u8], output_tokens: u64) {
    let handle = sample();
    let (reply, reply_diag) = handle.reply_diagnose(text, Reply::new(output_tokens, BIG));
    let (doc, start) = envelope(text);
    let (output, output_diag) = handle.output_diagnose(&doc, output_tokens, BIG);
    assert_eq!(reply, output, "verdicts differ for {text:?}");
    let strip = |d: &Diag| {
        (d.status, d.status_class, d.section, d.rule.clone(), d.expected.clone(), d.location.clone(), d.limit, d.actual)
    };
    assert_eq!(strip(&reply_diag), strip(&output_diag), "diagnoses differ for {text:?}");
    if reply_diag.status == LC_SUMMARY_WIRE {
        // The first byte that is not UTF-8, found by the reply and by the envelope.
        let k = reply_diag.offset().expect("a J5.3 failure has an offset") as usize;
        assert!(std::str::from_utf8(&text[..k]).is_ok() && std::str::from_utf8(&text[k..]).is_err());
        assert_eq!(output_diag.offset(), Some((start + envelope_offset(text, k)) as u64));
        assert_eq!((reply_diag.line, reply_diag.column), line_column(text, k));
    } else {
        assert_eq!(
            (reply_diag.offset, reply_diag.line, reply_diag.column),
            (output_diag.offset, output_diag.line, output_diag.column)
        );
    }
    assert_eq!((reply_diag.removed, reply_diag.removed_before, reply_diag.removed_after), (0, 0, 0));
}

#[test]
fn every_summary_vector_is_judged_as_its_envelope() {
    let rows = vectors::rows("summary_xml.jsonl");
    assert!(rows.len() > 100);
    for row in &rows {
        let xml = vectors::bytes_field(row, "xml").expect("xml or xml_base64");
        for tokens in [0, 1, 1000, 1001] {
            same_as_envelope(&xml, tokens);
        }
    }
}

#[test]
fn bytes_that_are_not_utf8_are_the_envelopes_wire_failure() {
    for text in
        [&b"\xff"[..], b"<conversation_summary>\xc3</conversation_summary>", b"<goal>a\xed\xa0\x80</goal>", b"\x80<"]
    {
        same_as_envelope(text, 10);
        let (rc, d) = sample().reply_diagnose(text, Reply::new(10, BIG));
        assert_eq!((rc, d.rule.as_str(), d.location.as_str()), (Err(LC_SUMMARY_WIRE), "J5.3", "summary"));
    }
}

fn mutated() -> impl Strategy<Value = Vec<u8>> {
    let base =
        prop::sample::select(vec![SUMMARY.as_bytes().to_vec(), testkit::spec::SUMMARY.as_bytes()[..40].to_vec()]);
    let edit = (
        any::<prop::sample::Index>(),
        prop::sample::select(vec![
            &b""[..],
            b"<",
            b">",
            b"&",
            b"&amp;",
            b"\"",
            b"\\",
            b"\x00",
            b"\n",
            b"\r",
            b"\xff",
            b"\xc3\xa9",
            b"</goal>",
            b"<x/>",
            b"]]>",
            b"&#0;",
            b"<!--",
        ]),
        0usize..3,
    );
    (base, prop::collection::vec(edit, 0..4)).prop_map(|(mut text, edits)| {
        for (at, piece, cut) in edits {
            let i = at.index(text.len() + 1);
            let end = (i + cut).min(text.len());
            text.splice(i..end, piece.iter().copied());
        }
        text
    })
}

proptest! {
    #![proptest_config(Config { cases: 400, failure_persistence: None, ..Config::default() })]

    #[test]
    fn mutated_replies_are_judged_as_their_envelope(text in mutated(), tokens in prop::sample::select(vec![0u64, 7, 1000, 1001])) {
        same_as_envelope(&text, tokens);
    }

    #[test]
    fn any_bytes_are_judged_as_their_envelope(text in prop::collection::vec(any::<u8>(), 0..64)) {
        same_as_envelope(&text, 5);
    }
}

#[test]
fn a_valid_reply_is_its_own_summary() {
    let handle = sample();
    assert_eq!(handle.reply(SUMMARY.as_bytes(), Reply::new(900, 4096)), Ok(SUMMARY.as_bytes().to_vec()));
    // R15.6: nothing is trimmed without the flag, so surrounding text fails as in the envelope.
    let padded = format!("\n{SUMMARY}\n");
    assert_eq!(handle.reply(padded.as_bytes(), Reply::new(900, 4096)), Err(LC_SUMMARY_XML_STRUCTURE));
}

/// R15.5: what each cleanup removes, and what it leaves.
#[test]
fn cleanup_removes_only_whitespace_and_one_fence() {
    let handle = sample();
    let s = SUMMARY;
    let both = LC_REPLY_TRIM | LC_REPLY_UNFENCE;
    // (reply, flags, Ok((removed, before, after)) or the status).
    type Removed = Result<(u32, u64, u64), i32>;
    let cases: Vec<(String, u32, Removed)> = vec![
        (format!(" \n\t{s}\r\n \u{a0}"), LC_REPLY_TRIM, Ok((1, 3, 5))),
        (format!("\u{3000}{s}"), LC_REPLY_TRIM, Ok((1, 3, 0))),
        // U+FEFF and U+200B are not White_Space (X4.21): never trimmed.
        (format!("\u{feff}{s}"), LC_REPLY_TRIM, Err(LC_SUMMARY_XML_STRUCTURE)),
        (format!("{s}\u{200b}"), LC_REPLY_TRIM, Err(LC_SUMMARY_XML_STRUCTURE)),
        (format!("```xml\n{s}\n```"), LC_REPLY_UNFENCE, Ok((2, 7, 4))),
        (format!("```xml\n{s}\n```\n"), LC_REPLY_UNFENCE, Ok((2, 7, 5))),
        (format!("```\n{s}\n```"), LC_REPLY_UNFENCE, Ok((2, 4, 4))),
        (format!("~~~~ xml\r\n{s}\r\n~~~~~  \r\n"), LC_REPLY_UNFENCE, Ok((2, 10, 11))),
        // A fence needs its own lines; a closing run shorter than the opening is not one.
        (format!("```xml {s}```"), LC_REPLY_UNFENCE, Err(LC_SUMMARY_XML_STRUCTURE)),
        (format!("````\n{s}\n```"), LC_REPLY_UNFENCE, Err(LC_SUMMARY_XML_STRUCTURE)),
        // Prose is never removed, with or without a fence.
        (format!("Here it is:\n```xml\n{s}\n```"), both, Err(LC_SUMMARY_XML_STRUCTURE)),
        (format!("```xml\n{s}\n```\nDone."), both, Err(LC_SUMMARY_XML_STRUCTURE)),
        // Whitespace around and inside the fence, with both flags.
        (format!("\n  ```xml\n\n{s}\n\n```  \n"), both, Ok((3, 11, 8))),
        // Without the trim flag the fence must be the whole reply.
        (format!(" ```xml\n{s}\n```"), LC_REPLY_UNFENCE, Err(LC_SUMMARY_XML_STRUCTURE)),
        // One fence only: a second one inside stays (and fails the grammar).
        (format!("```\n```\n{s}\n```\n```"), LC_REPLY_UNFENCE, Err(LC_SUMMARY_XML_STRUCTURE)),
        // Nothing to remove: reported as nothing.
        (s.to_owned(), both, Ok((0, 0, 0))),
    ];
    for (text, flags, want) in cases {
        let args = Reply { flags, ..Reply::new(900, 1 << 20) };
        let (got, d) = handle.reply_diagnose(text.as_bytes(), args);
        match want {
            Ok((removed, before, after)) => {
                assert_eq!(got, Ok(s.as_bytes().to_vec()), "{text:?}");
                assert_eq!((d.removed, d.removed_before, d.removed_after), (removed, before, after), "{text:?}");
            }
            Err(rc) => assert_eq!(got, Err(rc), "{text:?}"),
        }
    }
}

/// R15.7: a failure after cleanup is located in the reply as it arrived.
#[test]
fn offsets_count_bytes_of_the_reply_as_it_arrived() {
    let handle = sample();
    let broken = SUMMARY.replace("</decisions>", "</decision>");
    let at = broken.find("</decision>").unwrap();
    let text = format!("\n\n```xml\n{broken}\n```\n");
    let args = Reply { flags: LC_REPLY_TRIM | LC_REPLY_UNFENCE, ..Reply::new(900, 1 << 20) };
    let (rc, d) = handle.reply_diagnose(text.as_bytes(), args);
    assert_eq!(rc, Err(LC_SUMMARY_XML_SYNTAX));
    let in_reply = 2 + "```xml\n".len() + at;
    assert_eq!(d.offset(), Some(in_reply as u64));
    assert_eq!((d.line, d.column), line_column(text.as_bytes(), in_reply));
    assert_eq!((d.removed, d.removed_before, d.removed_after), (3, 9, 5));
    assert_eq!((d.location.as_str(), d.rule.as_str()), ("summary", "X4.12"));
}

/// R15.4: a reply cut at the output limit that is not a summary asks for a shorter one.
#[test]
fn a_reply_stopped_by_length_is_truncated_not_malformed() {
    let handle = sample();
    let cut_off = &SUMMARY.as_bytes()[..SUMMARY.len() / 2];
    let args = Reply { stop: LC_STOP_LENGTH, ..Reply::new(1000, 1 << 20) };
    let (rc, d) = handle.reply_diagnose(cut_off, args);
    assert_eq!(rc, Err(LC_REPLY_TRUNCATED));
    assert_eq!((d.status_class, d.rule.as_str(), d.limits()), (LC_CLASS_RETRY, "R15.4", Some((1000, 1000))));
    let message = d.retry_message();
    assert!(message.contains("cut off") && message.contains("1000 tokens"), "{message}");
    assert!(!message.contains("well-formed"), "no syntax advice for a cut reply: {message}");
    // The same text with another stop is the grammar's verdict.
    for stop in [0, LC_STOP_END] {
        assert_eq!(handle.reply(cut_off, Reply { stop, ..Reply::new(1000, 1 << 20) }), Err(LC_SUMMARY_XML_SYNTAX));
    }
    // A complete summary that ended exactly at the limit is accepted.
    assert_eq!(handle.reply(SUMMARY.as_bytes(), args), Ok(SUMMARY.as_bytes().to_vec()));
    // Limits and usage come first: a cut reply over the token budget is token_limit.
    assert_eq!(
        handle.reply(cut_off, Reply { stop: LC_STOP_LENGTH, ..Reply::new(1001, 1 << 20) }),
        Err(LC_SUMMARY_TOKEN_LIMIT)
    );
    assert_eq!(
        handle.reply(cut_off, Reply { stop: LC_STOP_LENGTH, ..Reply::new(0, 1 << 20) }),
        Err(LC_SUMMARY_TOKEN_USAGE)
    );
    // A cut in the middle of a character is truncation too.
    let mid_char = "<conversation_summary><goal>caf\u{e9}".as_bytes();
    let mid_char = &mid_char[..mid_char.len() - 1];
    assert_eq!(handle.reply(mid_char, args), Err(LC_REPLY_TRUNCATED));
}

/// R15.2, R15.3: the byte limit counts the reply as it arrived; a limit below the smallest summary
/// is the host's.
#[test]
fn byte_limits() {
    let handle = sample();
    let smallest = "<conversation_summary><goal>.</goal><constraints/><decisions/><state>.</state><open_items/></conversation_summary>";
    assert_eq!(smallest.len(), 114);
    assert_eq!(testkit::abi::summary_xml(smallest.as_bytes()), LC_OK);
    // No shorter text validates: every single-byte deletion fails.
    for i in 0..smallest.len() {
        let mut shorter = smallest.as_bytes().to_vec();
        shorter.remove(i);
        assert_ne!(testkit::abi::summary_xml(&shorter), LC_OK, "deleting byte {i}");
    }
    assert_eq!(handle.reply(smallest.as_bytes(), Reply::new(1, 114)), Ok(smallest.as_bytes().to_vec()));
    for limit in [0, 1, 113] {
        let (rc, d) = handle.reply_diagnose(smallest.as_bytes(), Reply::new(1, limit));
        assert_eq!(rc, Err(LC_REPLY_BYTE_LIMIT_UNREACHABLE));
        assert_eq!((d.status_class, d.limits(), d.rule.as_str()), (LC_CLASS_HOST, Some((limit, 114)), "R15.2"));
        assert!(d.retry_message().starts_with("No retry is useful"), "{}", d.retry_message());
    }
    // The raw reply counts, whitespace removed by cleanup included.
    let padded = format!("{smallest}\n");
    let args = Reply { flags: LC_REPLY_TRIM, ..Reply::new(1, 114) };
    let (rc, d) = handle.reply_diagnose(padded.as_bytes(), args);
    assert_eq!((rc, d.limits(), d.status_class), (Err(LC_SUMMARY_BYTE_LIMIT), Some((114, 115)), LC_CLASS_RETRY));
}

/// R15.2 on the envelope: `lc_compaction_output_diagnose` keeps 203 but makes a limit that no
/// reply can meet the host's, so a host following C13.3 stops instead of retrying forever.
#[test]
fn an_envelope_limit_no_reply_can_meet_is_the_hosts() {
    let handle = sample();
    let smallest = "<conversation_summary><goal>.</goal><constraints/><decisions/><state>.</state><open_items/></conversation_summary>";
    let (doc, _) = envelope(smallest.as_bytes());
    // This identity's shortest envelope: the document above (no escape needed, no whitespace).
    let shortest = doc.len() as u64;
    assert_eq!(handle.output(&doc, 1, shortest), Ok(smallest.as_bytes().to_vec()));
    let (rc, d) = handle.output_diagnose(&doc, 1, shortest - 1);
    assert_eq!((rc, d.status_class), (Err(LC_SUMMARY_BYTE_LIMIT), LC_CLASS_HOST));
    assert!(d.retry_message().starts_with("No retry is useful"), "{}", d.retry_message());
    let (rc, d) = handle.output_diagnose(&doc, 1, 0);
    assert_eq!((rc, d.status_class), (Err(LC_SUMMARY_BYTE_LIMIT), LC_CLASS_HOST));
    // A reachable limit stays a retry.
    let long = format!("{{\"pad\":1,{}", &String::from_utf8(doc.clone()).unwrap()[1..]);
    let (rc, d) = handle.output_diagnose(long.as_bytes(), 1, shortest);
    assert_eq!((rc, d.status_class), (Err(LC_SUMMARY_BYTE_LIMIT), LC_CLASS_RETRY));
}

#[test]
fn stops_and_flags_outside_the_table_are_argument_errors() {
    let handle = sample();
    for stop in [-1, 3, i32::MAX] {
        let (rc, _) = handle.reply_diagnose(SUMMARY.as_bytes(), Reply { stop, ..Reply::new(1, 4096) });
        assert_eq!(rc, Err(LC_ERR_INVALID_ARGUMENT), "stop {stop}");
    }
    for flags in [4, 8, u32::MAX] {
        let (rc, _) = handle.reply_diagnose(SUMMARY.as_bytes(), Reply { flags, ..Reply::new(1, 4096) });
        assert_eq!(rc, Err(LC_ERR_INVALID_ARGUMENT), "flags {flags}");
    }
}

#[test]
fn boundary() {
    let handle = sample();
    let mut len = usize::MAX;
    let mut buf = [0u8; 8];
    let call = |input, reply: *const u8, n, buf: *mut u8, cap, len: *mut usize| {
        // SAFETY: every pointer is NULL or live for the lengths given (the cases below).
        unsafe { loopcompact::ffi::lc_compaction_reply_validate(input, reply, n, 1, 0, 4096, 0, buf, cap, len) }
    };
    let s = SUMMARY.as_bytes();
    assert_eq!(call(std::ptr::null(), s.as_ptr(), s.len(), buf.as_mut_ptr(), 8, &raw mut len), LC_ERR_NULL_ARGUMENT);
    assert_eq!(call(handle.as_ptr(), std::ptr::null(), 1, buf.as_mut_ptr(), 8, &raw mut len), LC_ERR_NULL_ARGUMENT);
    assert_eq!(call(handle.as_ptr(), s.as_ptr(), s.len(), std::ptr::null_mut(), 8, &raw mut len), LC_ERR_NULL_ARGUMENT);
    assert_eq!(
        call(handle.as_ptr(), s.as_ptr(), s.len(), buf.as_mut_ptr(), 8, std::ptr::null_mut()),
        LC_ERR_NULL_ARGUMENT
    );
    assert_eq!(
        call(handle.as_ptr(), s.as_ptr(), usize::MAX, buf.as_mut_ptr(), 8, &raw mut len),
        LC_ERR_LENGTH_OVERFLOW
    );
    assert_eq!(len, usize::MAX);
    // (NULL, 0) is the empty reply: no root.
    assert_eq!(handle.reply(b"", Reply::new(1, 4096)), Err(LC_SUMMARY_XML_ROOT));
}
