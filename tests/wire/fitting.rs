//! Fitting (SPEC §7, F7): stubbing old tool results, in place and to a limit.

use super::support::*;

fn stub_msg(id: &str, is_error: bool) -> String {
    format!(
        r#"{{"role":"tool","blocks":[{{"type":"text","text":"{STUB}"}}],"tool_use_id":"{id}","is_error":{is_error}}}"#
    )
}

fn too_large_size(wire: &[u8], max: u64) -> Option<u64> {
    let input = loopcompact::wire::CompactionInput::parse(wire).ok()?;
    let err = input.encode_within(max).err()?;
    (err.max_bytes == max).then_some(err.size)
}

/// The safe API's two steps: `fit` knows the length before anything is written, `write_to` writes
/// exactly those bytes in place and refuses a short buffer without touching it; both agree with
/// `encode_within` and with the C ABI.
#[test]
fn fitting_in_place() {
    let m0 = r#"{"role":"user","blocks":[{"type":"text","text":"q"}]}"#;
    let m1 = tool_msg("t1", &"A".repeat(200));
    let s_doc = doc(&format!("[{m0},{m1}]"));
    let stubbed = doc(&format!("[{m0},{}]", stub_msg("t1", false)));
    let input = loopcompact::wire::CompactionInput::parse(&s_doc).unwrap();
    let h = parse(&s_doc);
    for (max, want) in [(u64::MAX, &s_doc), (s_doc.len() as u64 - 1, &stubbed)] {
        let fitted = input.fit(max).unwrap();
        assert_eq!(fitted.len(), want.len());
        assert!(!fitted.is_empty());
        assert_eq!(&fitted.to_vec(), want);
        assert_eq!(&input.encode_within(max).unwrap(), want);
        assert_eq!(&h.encode(max).unwrap(), want, "C ABI");
        // A buffer with room to spare: the bytes go to its start, the rest is untouched.
        let mut buf = vec![0xAA; want.len() + 3];
        assert_eq!(fitted.write_to(&mut buf), Some(want.len()));
        assert_eq!(&buf[..want.len()], want.as_slice());
        assert_eq!(&buf[want.len()..], &[0xAA; 3]);
        // One byte short: nothing is written.
        let mut short = vec![0xAA; want.len() - 1];
        assert_eq!(fitted.write_to(&mut short), None);
        assert!(short.iter().all(|&b| b == 0xAA));
    }
    let err = input.fit(10).unwrap_err();
    assert_eq!((err.max_bytes, err.size), (10, stubbed.len() as u64));
    assert_eq!(input.encode(), s_doc);
}

#[test]
fn fitting_f7() {
    let mut c = Cases::default();
    let m0 = r#"{"role":"user","blocks":[{"type":"text","text":"q"}]}"#;
    let m1 = tool_msg("t1", &"A".repeat(200));
    let m2 = format!(
        r#"{{"role":"tool","blocks":[{{"type":"text","text":"{}"}},{{"type":"image","media_type":"m","source":{{"url":"u","data":null}}}}],"tool_use_id":"t2","is_error":true}}"#,
        "B".repeat(200)
    );
    let m3 = r#"{"role":"assistant","blocks":[{"type":"text","text":"done"}],"usage":null}"#;
    let s_doc = doc(&format!("[{m0},{m1},{m2},{m3}]"));
    let c1 = doc(&format!("[{m0},{},{m2},{m3}]", stub_msg("t1", false)));
    let c2 = doc(&format!("[{m0},{},{},{m3}]", stub_msg("t1", false), stub_msg("t2", true)));
    let (ls, l1, l2) = (s_doc.len() as u64, c1.len() as u64, c2.len() as u64);
    c.truth("lengths shrink", ls > l1 && l1 > l2);
    let h = parse(&s_doc);
    c.status("max_bytes 0 (F7.2)", h.encode(0).err().unwrap_or(OK), TOO_LARGE);
    c.bytes("u64::MAX", h.encode(u64::MAX), &s_doc);
    c.bytes("len(S)", h.encode(ls), &s_doc);
    c.bytes("len(S) - 1: first stub", h.encode(ls - 1), &c1);
    c.bytes("len(C1)", h.encode(l1), &c1);
    c.bytes("len(C1) - 1: both stubs", h.encode(l1 - 1), &c2);
    c.bytes("len(C2)", h.encode(l2), &c2);
    c.status("len(C2) - 1", h.encode(l2 - 1).err().unwrap_or(OK), TOO_LARGE);
    c.truth("too_large size is len(C2) (F7.4)", too_large_size(&s_doc, l2 - 1) == Some(l2));
    c.truth("max_bytes 0: size is len(S)", too_large_size(&s_doc, 0) == Some(ls));
    c.status("max_bytes 1", h.encode(1).err().unwrap_or(OK), TOO_LARGE);
    // The handle never changes (F7.3 works on a copy): S again after fitting.
    c.bytes("S after fitting", h.encode(u64::MAX), &s_doc);
    // A3.6: the same limit gives the same bytes.
    c.bytes("len(C1) - 1 again", h.encode(l1 - 1), &c2);

    // A candidate whose stub does not shrink the encoding is skipped, not kept.
    let small = tool_msg("s", "x");
    let big = tool_msg("b", &"C".repeat(300));
    let d = doc(&format!("[{m0},{small},{big}]"));
    let want = doc(&format!("[{m0},{small},{}]", stub_msg("b", false)));
    c.bytes("non-shrinking candidate skipped", parse(&d).encode(d.len() as u64 - 1), &want);
    // Equal length: len(C) ≥ len(current) is undone too.
    let equal = tool_msg("e", &"x".repeat(STUB.len()));
    c.truth("equal stub length", equal.len() == stub_msg("e", false).len());
    let d = doc(&format!("[{m0},{equal}]"));
    c.status("equal-length candidate undone", parse(&d).encode(d.len() as u64 - 1).err().unwrap_or(OK), TOO_LARGE);
    c.truth("equal-length: size is len(S)", too_large_size(&d, d.len() as u64 - 1) == Some(d.len() as u64));
    let longer = tool_msg("e", &"x".repeat(STUB.len() + 1));
    let d = doc(&format!("[{m0},{longer}]"));
    c.bytes(
        "one byte shorter stub kept",
        parse(&d).encode(d.len() as u64 - 1),
        &doc(&format!("[{m0},{}]", stub_msg("e", false))),
    );
    // A tool message with no block is no candidate.
    let empty = r#"{"role":"tool","blocks":[],"tool_use_id":"z","is_error":false}"#;
    let d = doc(&format!("[{empty},{big}]"));
    c.bytes(
        "empty tool message untouched",
        parse(&d).encode(d.len() as u64 - 1),
        &doc(&format!("[{empty},{}]", stub_msg("b", false))),
    );
    // All blocks of a candidate are replaced by one stub block.
    let multi = r#"{"role":"tool","blocks":[{"type":"text","text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_result","tool_use_id":"x","content":[],"is_error":false}],"tool_use_id":"m","is_error":true}"#;
    let d = doc(&format!("[{multi}]"));
    c.bytes("all blocks replaced", parse(&d).encode(d.len() as u64 - 1), &doc(&format!("[{}]", stub_msg("m", true))));
    // Oldest first: with room for one stub, only the oldest candidate is stubbed.
    let d = doc(&format!("[{big},{big}]"));
    let one = doc(&format!("[{},{big}]", stub_msg("b", false)));
    c.bytes("oldest first", parse(&d).encode(one.len() as u64), &one);

    // F7.5: tool_result blocks in other messages, and user/assistant/system text, are never stubbed.
    let big_result = format!(
        r#"{{"role":"user","blocks":[{{"type":"tool_result","tool_use_id":"t","content":[{{"type":"text","text":"{}"}}],"is_error":false}}]}}"#,
        "D".repeat(500)
    );
    for (name, message) in [
        ("user tool_result", big_result.clone()),
        (
            "assistant text",
            format!(r#"{{"role":"assistant","blocks":[{{"type":"text","text":"{}"}}],"usage":null}}"#, "E".repeat(500)),
        ),
        ("system text", format!(r#"{{"role":"system","blocks":[{{"type":"text","text":"{}"}}]}}"#, "F".repeat(500))),
    ] {
        let d = doc(&format!("[{message}]"));
        c.status(format!("{name} never stubbed"), parse(&d).encode(d.len() as u64 - 1).err().unwrap_or(OK), TOO_LARGE);
        c.truth(format!("{name}: size is len(S)"), too_large_size(&d, d.len() as u64 - 1) == Some(d.len() as u64));
    }
    // Lengths are canonical byte lengths: each `<`, `>`, `&` costs 6 bytes (E7.6).
    let given = block_doc(r#"{"type":"text","text":"<<<<<>>>>>&&&&&"}"#);
    let canon = block_doc(&format!(
        r#"{{"type":"text","text":"{}{}{}"}}"#,
        r"\u003c".repeat(5),
        r"\u003e".repeat(5),
        r"\u0026".repeat(5)
    ));
    c.truth("markup costs 6 bytes", canon.len() == given.len() + 75);
    let h = parse(&given);
    c.bytes("markup at len(S)", h.encode(canon.len() as u64), &canon);
    c.status("markup at len(S) - 1", h.encode(canon.len() as u64 - 1).err().unwrap_or(OK), TOO_LARGE);
    c.status("markup at the input's own length", h.encode(given.len() as u64).err().unwrap_or(OK), TOO_LARGE);
    // An input sent with whitespace that only fits once canonical: no stub needed.
    let compact = doc(&format!("[{m0},{m1}]"));
    let spaced = String::from_utf8(compact.clone()).unwrap().replace(',', " ,\n  ").replace(':', " :  ");
    c.truth("spaced is longer", spaced.len() > compact.len() + 50);
    c.bytes("whitespace input fits canonically", parse(spaced.as_bytes()).encode(compact.len() as u64), &compact);
    // Escapes written in the input cost their canonical length, not their written one.
    let escaped = block_doc(r#"{"type":"text","text":"\u0041\u0042\u0043\/"}"#);
    let plain = block_doc(r#"{"type":"text","text":"ABC/"}"#);
    c.bytes("escaped input fits canonically", parse(&escaped).encode(plain.len() as u64), &plain);
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// §6 output validation
