//! J5.3 in the reply's `summary` string is a step-4 `wire` error (O6.2): it must win over an
//! identity mismatch (step 8) and over the grammar (step 9), although the library checks it lazily.

use std::ptr;

use loopcompact::ffi::*;

const INPUT: &str = r#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"model":{"provider":"p","model":"m"},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":[{"role":"user","blocks":[{"type":"text","text":"hi"}]}],"max_summary_tokens":32}"#;

fn reply(revision: u32, summary: &[u8]) -> Vec<u8> {
    let mut out = format!(r#"{{"version":1,"basis":{{"revision":{revision},"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}},"model":{{"provider":"p","model":"m"}},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","summary":""#).into_bytes();
    out.extend_from_slice(summary);
    out.extend_from_slice(b"\"}");
    out
}

fn check(reply: &[u8]) -> i32 {
    let mut handle = ptr::null_mut();
    assert_eq!(unsafe { lc_compaction_input_parse(INPUT.as_ptr(), INPUT.len(), &mut handle) }, 0);
    let mut buf = vec![0u8; reply.len()];
    let mut len = 0;
    let rc = unsafe {
        lc_compaction_output_validate(
            handle,
            reply.as_ptr(),
            reply.len(),
            1,
            u64::MAX,
            buf.as_mut_ptr(),
            buf.len(),
            &mut len,
        )
    };
    unsafe { lc_compaction_input_free(handle) };
    rc
}

const GOOD: &[u8] = b"<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";
const WIRE: i32 = 200;
const IDENTITY: i32 = 201;
const XML_SYNTAX: i32 = 206;
const XML_ROOT: i32 = 207;

#[test]
fn invalid_utf8_in_the_summary_is_wire_at_every_later_step() {
    let with_bad_byte = |at_goal: bool| {
        let text = std::str::from_utf8(GOOD).unwrap();
        let bad = if at_goal { text.replace("<goal>g", "<goal>g\u{1}") } else { text.to_owned() };
        bad.replace('\u{1}', "\u{FFFD}")
            .into_bytes()
            .iter()
            .flat_map(|&b| if b == 0xEF { vec![0xFF] } else { vec![b] })
            .collect::<Vec<u8>>()
    };
    assert_eq!(check(&reply(3, GOOD)), 0, "control: the valid reply");
    assert_eq!(check(&reply(4, GOOD)), IDENTITY, "control: identity");
    // A stray 0xFF byte inside goal text (D3).
    let bad = with_bad_byte(true);
    assert!(std::str::from_utf8(&bad).is_err());
    assert_eq!(check(&reply(3, &bad)), WIRE, "step 4 before step 9 (the grammar would say xml_syntax)");
    assert_eq!(check(&reply(4, &bad)), WIRE, "step 4 before step 8 (identity)");
    // Invalid UTF-8 before the root: the grammar would stop at xml_structure/xml_syntax first.
    let mut early = vec![0xC3];
    early.extend_from_slice(GOOD);
    assert_eq!(check(&reply(3, &early)), WIRE);
    // Control: a grammar failure with valid UTF-8 keeps its own reason.
    assert_eq!(check(&reply(3, b"<summary/>")), XML_ROOT);
    assert_eq!(check(&reply(3, b"<conversation_summary>&nbsp;")), XML_SYNTAX);
}
