//! Output validation (SPEC §6): the O6.2 check order pair by pair, the summary bytes (O6.4), the
//! XML reasons of step 9 and the two-call pattern of the summary buffer.

use std::ptr;

use loopcompact::ffi::*;

use super::support::*;

#[test]
fn output_check_order_o6_2() {
    let mut c = Cases::default();
    let o = Top::output;
    let valid = o().bytes();
    let n = valid.len() as u64;
    // Step 1: bytes, not characters.
    c.output("valid", &valid, 32, n, OK);
    c.output("max = len", &valid, 1, n, OK);
    c.output("max = len - 1", &valid, 1, n - 1, BYTE_LIMIT);
    c.output("max 0", &valid, 1, 0, BYTE_LIMIT);
    c.output("max 0, empty reply", b"", 1, 0, BYTE_LIMIT);
    let wide = o().set("summary", &s(&SUMMARY.replace("ship", "shïp ✓ 😀"))).bytes();
    let chars = String::from_utf8(wide.clone()).unwrap().chars().count() as u64;
    c.truth("multi-byte reply", chars + 6 == wide.len() as u64);
    c.output("multi-byte, max = bytes", &wide, 1, wide.len() as u64, OK);
    c.output("multi-byte, max = characters", &wide, 1, chars, BYTE_LIMIT);
    // Step 1 before 2, 3, 4.
    c.output("byte limit + tokens 0", &valid, 0, n - 1, BYTE_LIMIT);
    c.output("byte limit + tokens over", &valid, 33, 0, BYTE_LIMIT);
    c.output("byte limit + not JSON", b"nope", 1, 3, BYTE_LIMIT);
    // Step 2.
    c.output("tokens 0", &valid, 0, n, TOKEN_USAGE);
    c.output("tokens 0 + not JSON", b"nope", 0, 100, TOKEN_USAGE);
    c.output("tokens 0 + wrong identity", &o().set("basis", &basis("4", &s(UUID))).bytes(), 0, u64::MAX, TOKEN_USAGE);
    // Step 3: equal is fine.
    c.output("tokens = max_summary_tokens", &valid, 32, n, OK);
    c.output("tokens max + 1", &valid, 33, n, TOKEN_LIMIT);
    c.output("tokens u64::MAX", &valid, u64::MAX, n, TOKEN_LIMIT);
    c.output("tokens over + not JSON", b"nope", 33, 100, TOKEN_LIMIT);
    c.output(
        "tokens over + wrong identity",
        &o().set("model", &model("\"x\"", "\"model\"")).bytes(),
        33,
        u64::MAX,
        TOKEN_LIMIT,
    );
    // Step 4: J5 and the layout.
    let m = u64::MAX;
    for (name, reply) in [
        ("empty", Vec::new()),
        ("not JSON", b"nope".to_vec()),
        ("null", b"null".to_vec()),
        ("[]", b"[]".to_vec()),
        ("string", s(SUMMARY).into_bytes()),
        ("{}", b"{}".to_vec()),
        ("trailing value", [valid.clone(), b"{}".to_vec()].concat()),
        ("trailing null", [valid.clone(), b" null".to_vec()].concat()),
        ("BOM", [b"\xEF\xBB\xBF".to_vec(), valid.clone()].concat()),
        ("unknown key", o().push("extra", "1").bytes()),
        ("transcript key", o().push("transcript", "[]").bytes()),
        ("max_summary_tokens key", o().push("max_summary_tokens", "32").bytes()),
        ("SUMMARY (D1)", o().without("summary").push("SUMMARY", &s(SUMMARY)).bytes()),
        ("ſummary (D1)", o().without("summary").push("ſummary", &s(SUMMARY)).bytes()),
        ("Version (D1)", o().without("version").push("Version", "1").bytes()),
        ("Through_Event_ID (D1)", o().set("basis", &obj(&[("revision", "3"), ("Through_Event_ID", &s(UUID))])).bytes()),
        ("summary twice (D2)", o().push("summary", &s(SUMMARY)).bytes()),
        ("summary twice, escaped (D2)", o().push(r"\u0073ummary", &s(SUMMARY)).bytes()),
        ("summary twice, second null (D2)", o().push("summary", "null").bytes()),
        (
            "basis revision twice (D2)",
            o().set("basis", &obj(&[("revision", "3"), ("revision", "3"), ("through_event_id", &s(UUID))])).bytes(),
        ),
        (
            "model provider twice (D2)",
            o().set(
                "model",
                &obj(&[("provider", "\"provider\""), ("model", "\"model\""), ("provider", "\"provider\"")]),
            )
            .bytes(),
        ),
        ("summary number", o().set("summary", "1").bytes()),
        ("summary array", o().set("summary", &format!("[{}]", s(SUMMARY))).bytes()),
        ("summary object", o().set("summary", "{}").bytes()),
        ("version string", o().set("version", "\"1\"").bytes()),
        ("version 256", o().set("version", "256").bytes()),
        ("version 1.0", o().set("version", "1.0").bytes()),
        ("revision negative", o().set("basis", &basis("-3", &s(UUID))).bytes()),
        ("revision string", o().set("basis", &basis("\"3\"", &s(UUID))).bytes()),
        ("basis array", o().set("basis", "[]").bytes()),
        ("model string", o().set("model", "\"model\"").bytes()),
        ("fingerprint number", o().set("request_fingerprint", "1").bytes()),
        ("raw control byte in summary", splice(&valid, b"ship", b"sh\x01p")),
        ("bad escape in summary", splice(&valid, b"ship", b"sh\\ip")),
        // Step 5.
        ("version absent", o().without("version").bytes()),
        ("version null", o().set("version", "null").bytes()),
        ("version 2", o().set("version", "2").bytes()),
        ("version 0", o().set("version", "0").bytes()),
        ("basis absent", o().without("basis").bytes()),
        ("basis null", o().set("basis", "null").bytes()),
        ("model absent", o().without("model").bytes()),
        ("model null", o().set("model", "null").bytes()),
        ("fingerprint absent", o().without("request_fingerprint").bytes()),
        ("fingerprint null", o().set("request_fingerprint", "null").bytes()),
        ("summary absent", o().without("summary").bytes()),
        ("summary null", o().set("summary", "null").bytes()),
        ("revision null", o().set("basis", &basis("null", &s(UUID))).bytes()),
        ("revision absent", o().set("basis", &obj(&[("through_event_id", &s(UUID))])).bytes()),
        ("event id null", o().set("basis", &basis("3", "null")).bytes()),
        ("event id absent", o().set("basis", &obj(&[("revision", "3")])).bytes()),
        ("provider null", o().set("model", &model("null", "\"model\"")).bytes()),
        ("model name absent", o().set("model", &obj(&[("provider", "\"provider\"")])).bytes()),
        // Step 6: a non-canonical event id is wire, not identity.
        ("event id upper case", o().set("basis", &basis("3", &s(&UUID.to_uppercase()))).bytes()),
        ("event id braces", o().set("basis", &basis("3", &s(&format!("{{{UUID}}}")))).bytes()),
        ("event id without hyphens", o().set("basis", &basis("3", &s(&UUID.replace('-', "")))).bytes()),
        ("event id spaces", o().set("basis", &basis("3", &s(&format!(" {UUID}")))).bytes()),
        // Step 7: a malformed fingerprint is wire, not identity.
        ("fingerprint upper case", o().set("request_fingerprint", &s(&FP.to_uppercase())).bytes()),
        ("fingerprint 63", o().set("request_fingerprint", &s(&FP[..63])).bytes()),
        ("fingerprint 65", o().set("request_fingerprint", &s(&format!("{FP}0"))).bytes()),
        ("fingerprint empty", o().set("request_fingerprint", &s("")).bytes()),
        // Steps 4–7 before step 8 (identity).
        ("unknown key + wrong revision", o().set("basis", &basis("4", &s(UUID))).push("x", "1").bytes()),
        ("version 2 + wrong model", o().set("version", "2").set("model", &model("\"p\"", "\"m\"")).bytes()),
        ("summary null + wrong revision", o().set("summary", "null").set("basis", &basis("4", &s(UUID))).bytes()),
        ("upper-case event id + wrong revision", o().set("basis", &basis("4", &s(&UUID.to_uppercase()))).bytes()),
        (
            "upper-case fingerprint + wrong model",
            o().set("request_fingerprint", &s(&FP.to_uppercase())).set("model", &model("\"p\"", "\"m\"")).bytes(),
        ),
    ] {
        c.output(name, &reply, 1, m, S_WIRE);
    }
    // (NULL, 0) is the empty reply: wire (step 4).
    {
        let h = parse(&doc(&format!("[{HELLO}]")));
        let mut len = 0usize;
        let rc =
            unsafe { lc_compaction_output_validate(h.as_ptr(), ptr::null(), 0, 1, 100, ptr::null_mut(), 0, &mut len) };
        c.status("(NULL, 0) reply", rc, S_WIRE);
    }
    // Step 8: exact equality (O6.3: zero values are identity too).
    let other_uuid = "7c9e6679-7425-40de-944b-e07fc1f90ae8";
    let other_fp = format!("{}21", &FP[..62]);
    for (name, reply) in [
        ("revision 4", o().set("basis", &basis("4", &s(UUID))).bytes()),
        ("revision 0 (O6.3)", o().set("basis", &basis("0", &s(UUID))).bytes()),
        ("revision u64::MAX", o().set("basis", &basis("18446744073709551615", &s(UUID))).bytes()),
        ("other event id", o().set("basis", &basis("3", &s(other_uuid))).bytes()),
        ("zero event id (O6.3)", o().set("basis", &basis("3", &s(UUID_ZERO))).bytes()),
        ("provider case", o().set("model", &model("\"Provider\"", "\"model\"")).bytes()),
        ("provider trailing space", o().set("model", &model("\"provider \"", "\"model\"")).bytes()),
        ("provider empty", o().set("model", &model("\"\"", "\"model\"")).bytes()),
        ("model case", o().set("model", &model("\"provider\"", "\"MODEL\"")).bytes()),
        ("model leading space", o().set("model", &model("\"provider\"", "\" model\"")).bytes()),
        ("model and provider swapped", o().set("model", &model("\"model\"", "\"provider\"")).bytes()),
        ("other fingerprint", o().set("request_fingerprint", &s(&other_fp)).bytes()),
        ("zero fingerprint (O6.3)", o().set("request_fingerprint", &s(FP_ZERO)).bytes()),
        // Step 8 before step 9.
        ("wrong revision + empty summary", o().set("basis", &basis("4", &s(UUID))).set("summary", "\"\"").bytes()),
        (
            "wrong model + bad XML",
            o().set("model", &model("\"provider\"", "\"m\"")).set("summary", "\"<oops\"").bytes(),
        ),
    ] {
        c.output(name, &reply, 1, m, IDENTITY);
    }
    c.output("escaped fingerprint", &o().set("request_fingerprint", &s(&FP.replace('0', r"\u0030"))).bytes(), 1, m, OK);
    // Identity compares decoded strings (J5.4): escapes and lone surrogates.
    c.output(
        "escaped identity",
        &o().set("model", &model(r#""pr\u006fvider""#, r#""\u006d\u006f\u0064\u0065\u006c""#))
            .set("basis", &basis("3", &s(r"\u0037c9e6679-7425-40de-944b-e07fc1f90ae7")))
            .bytes(),
        1,
        m,
        OK,
    );
    {
        let h = parse(&doc_with(r#""p\ud800""#, r#""\u00e9""#, &format!("[{HELLO}]")));
        let reply = o().set("model", &model(r#""p\udbff""#, "\"é\"")).bytes();
        c.output_with("lone surrogates decode to the same U+FFFD", &h, &reply, 1, m, OK);
        let reply = o().set("model", &model("\"p\u{fffd}\"", r#""\u00E9""#)).bytes();
        c.output_with("raw U+FFFD equals a lone surrogate escape", &h, &reply, 1, m, OK);
        let reply = o().set("model", &model("\"p\"", "\"é\"")).bytes();
        c.output_with("without the U+FFFD", &h, &reply, 1, m, IDENTITY);
    }
    // Key order is free.
    let mut reversed = o();
    reversed.0.reverse();
    c.output("reversed keys", &reversed.bytes(), 1, m, OK);
    c.finish();
}

#[test]
fn output_summary_bytes_o6_4() {
    let mut c = Cases::default();
    let h = parse(&doc(&format!("[{HELLO}]")));
    let o = Top::output;
    c.bytes("summary written", h.output(&o().bytes(), 1, u64::MAX), SUMMARY.as_bytes());
    // Escapes are resolved: \u003c is `<`, \/ is `/`, and entities stay as written (X4.22).
    let escaped = SUMMARY.replace('<', r"\u003c").replace('>', r"\u003E").replace('/', r"\/");
    c.bytes(
        "escaped summary decoded",
        h.output(&o().set("summary", &s(&escaped)).bytes(), 1, u64::MAX),
        SUMMARY.as_bytes(),
    );
    // A lone surrogate escape is U+FFFD, which §4 allows in text.
    let lone = SUMMARY.replace("ready", r"re\ud800dy");
    c.bytes(
        "lone surrogate in state",
        h.output(&o().set("summary", &s(&lone)).bytes(), 1, u64::MAX),
        SUMMARY.replace("ready", "re\u{fffd}dy").as_bytes(),
    );
    // Surrounding whitespace of the reply is not part of the summary.
    let spaced = [b" \n".to_vec(), o().bytes(), b"\r\n".to_vec()].concat();
    c.bytes("reply with whitespace", h.output(&spaced, 1, u64::MAX), SUMMARY.as_bytes());
    let nl = SUMMARY.replace("ship", r"ship\nnow\ttoo");
    c.bytes(
        "escaped newline in goal",
        h.output(&o().set("summary", &s(&nl)).bytes(), 1, u64::MAX),
        SUMMARY.replace("ship", "ship\nnow\ttoo").as_bytes(),
    );
    c.finish();
}

/// O6.2 step 9: needs the §4 validator.
#[test]
fn output_xml_reasons_step_9() {
    let mut c = Cases::default();
    let o = Top::output;
    let m = u64::MAX;
    c.output("empty summary (O6.3)", &o().set("summary", "\"\"").bytes(), 1, m, XML_ROOT);
    c.output(
        r"\u0000 in goal",
        &o().set("summary", &s(&SUMMARY.replace("ship", r"sh\u0000ip"))).bytes(),
        1,
        m,
        XML_SYNTAX,
    );
    c.output(
        r"\u0001 in goal",
        &o().set("summary", &s(&SUMMARY.replace("ship", r"sh\u0001ip"))).bytes(),
        1,
        m,
        XML_SYNTAX,
    );
    c.output(r"escaped \u003c of a wrong root", &o().set("summary", &s(r"\u003croot/\u003e")).bytes(), 1, m, XML_ROOT);
    c.output("wrong root", &o().set("summary", &s("<summary><goal>x</goal></summary>")).bytes(), 1, m, XML_ROOT);
    c.output("CDATA", &o().set("summary", &s(&SUMMARY.replace("ship", "<![CDATA[x]]>"))).bytes(), 1, m, XML_STRUCTURE);
    c.output("trailing newline", &o().set("summary", &s(&format!(r"{SUMMARY}\n"))).bytes(), 1, m, XML_STRUCTURE);
    c.output(
        "blank goal",
        &o().set("summary", &s(&SUMMARY.replace("ship &amp; verify", " "))).bytes(),
        1,
        m,
        XML_CONTENT,
    );
    c.output("blank state", &o().set("summary", &s(&SUMMARY.replace("ready", r"\n\t"))).bytes(), 1, m, XML_CONTENT);
    c.output("unknown entity", &o().set("summary", &s(&SUMMARY.replace("&amp;", "&nbsp;"))).bytes(), 1, m, XML_SYNTAX);
    c.output(
        "surrogate char ref (D5)",
        &o().set("summary", &s(&SUMMARY.replace("ready", "&#xD800;"))).bytes(),
        1,
        m,
        XML_SYNTAX,
    );
    c.output(
        "lone surrogate escape is U+FFFD, a Char",
        &o().set("summary", &s(&SUMMARY.replace("ready", r"\udc00"))).bytes(),
        1,
        m,
        OK,
    );
    c.finish();
}

#[test]
fn output_buffer_two_call_pattern() {
    let mut c = Cases::default();
    let h = parse(&doc(&format!("[{HELLO}]")));
    let reply = Top::output().bytes();
    let call = |reply: &[u8], buf: *mut u8, cap: usize, len: *mut usize| unsafe {
        lc_compaction_output_validate(h.as_ptr(), reply.as_ptr(), reply.len(), 1, u64::MAX, buf, cap, len)
    };
    // Size query.
    let mut len = 0usize;
    c.status("NULL, 0: size query", call(&reply, ptr::null_mut(), 0, &mut len), BUFFER_TOO_SMALL);
    c.truth("size query sets *summary_len", len == SUMMARY.len());
    // One byte short: nothing written.
    let mut buf = vec![0xAAu8; SUMMARY.len() - 1];
    let mut len = 0usize;
    c.status("cap len - 1", call(&reply, buf.as_mut_ptr(), buf.len(), &mut len), BUFFER_TOO_SMALL);
    c.truth("cap len - 1 sets *summary_len", len == SUMMARY.len());
    c.truth("cap len - 1 writes nothing", buf.iter().all(|&b| b == 0xAA));
    // Exact capacity.
    let mut buf = vec![0u8; SUMMARY.len()];
    let mut len = 0usize;
    c.status("exact cap", call(&reply, buf.as_mut_ptr(), buf.len(), &mut len), OK);
    c.truth("exact cap bytes", len == SUMMARY.len() && buf == SUMMARY.as_bytes());
    // Larger capacity: the length tells where the summary ends.
    let mut buf = vec![0u8; SUMMARY.len() + 10];
    let mut len = 0usize;
    c.status("larger cap", call(&reply, buf.as_mut_ptr(), buf.len(), &mut len), OK);
    c.truth("larger cap bytes", len == SUMMARY.len() && &buf[..len] == SUMMARY.as_bytes());
    // A3.1: a content result wins over a small buffer, and *summary_len stays untouched.
    for (name, bad, expect) in [
        ("identity", Top::output().set("basis", &basis("4", &s(UUID))).bytes(), IDENTITY),
        ("wire", b"{".to_vec(), S_WIRE),
    ] {
        let mut len = 12345usize;
        c.status(format!("{name} with cap 0"), call(&bad, ptr::null_mut(), 0, &mut len), expect);
        c.truth(format!("{name}: *summary_len untouched"), len == 12345);
        let mut buf = vec![0xAAu8; 4];
        c.status(format!("{name} with cap 4"), call(&bad, buf.as_mut_ptr(), buf.len(), &mut len), expect);
        c.truth(format!("{name}: buffer untouched"), len == 12345 && buf.iter().all(|&b| b == 0xAA));
    }
    let mut len = 12345usize;
    let rc = unsafe {
        lc_compaction_output_validate(
            h.as_ptr(),
            reply.as_ptr(),
            reply.len(),
            0,
            u64::MAX,
            ptr::null_mut(),
            0,
            &mut len,
        )
    };
    c.status("token_usage with cap 0", rc, TOKEN_USAGE);
    let rc = unsafe {
        lc_compaction_output_validate(h.as_ptr(), reply.as_ptr(), reply.len(), 1, 1, ptr::null_mut(), 0, &mut len)
    };
    c.status("byte_limit with cap 0", rc, BYTE_LIMIT);
    c.truth("*summary_len untouched on content errors", len == 12345);
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// Handles and the boundary (§1, A3.1, A3.2)

// ---------------------------------------------------------------------------------------------
// J5.3 in the reply's `summary` string is a step-4 `wire` error (O6.2): it must win over an
// identity mismatch (step 8) and over the grammar (step 9), although the library checks it lazily.

const UTF8_INPUT: &str = r#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"model":{"provider":"p","model":"m"},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":[{"role":"user","blocks":[{"type":"text","text":"hi"}]}],"max_summary_tokens":32}"#;

fn utf8_reply(revision: u32, summary: &[u8]) -> Vec<u8> {
    let mut out = format!(r#"{{"version":1,"basis":{{"revision":{revision},"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}},"model":{{"provider":"p","model":"m"}},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","summary":""#).into_bytes();
    out.extend_from_slice(summary);
    out.extend_from_slice(b"\"}");
    out
}

fn utf8_check(reply: &[u8]) -> i32 {
    parse(UTF8_INPUT.as_bytes()).output(reply, 1, u64::MAX).err().unwrap_or(OK)
}

const UTF8_GOOD: &[u8] = b"<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";

#[test]
fn invalid_utf8_in_the_summary_is_wire_at_every_later_step() {
    let with_bad_byte = |at_goal: bool| {
        let text = std::str::from_utf8(UTF8_GOOD).unwrap();
        let bad = if at_goal { text.replace("<goal>g", "<goal>g\u{1}") } else { text.to_owned() };
        bad.replace('\u{1}', "\u{FFFD}")
            .into_bytes()
            .iter()
            .flat_map(|&b| if b == 0xEF { vec![0xFF] } else { vec![b] })
            .collect::<Vec<u8>>()
    };
    assert_eq!(utf8_check(&utf8_reply(3, UTF8_GOOD)), 0, "control: the valid reply");
    assert_eq!(utf8_check(&utf8_reply(4, UTF8_GOOD)), IDENTITY, "control: identity");
    // A stray 0xFF byte inside goal text (D3).
    let bad = with_bad_byte(true);
    assert!(std::str::from_utf8(&bad).is_err());
    assert_eq!(utf8_check(&utf8_reply(3, &bad)), S_WIRE, "step 4 before step 9 (the grammar would say xml_syntax)");
    assert_eq!(utf8_check(&utf8_reply(4, &bad)), S_WIRE, "step 4 before step 8 (identity)");
    // Invalid UTF-8 before the root: the grammar would stop at xml_structure/xml_syntax first.
    let mut early = vec![0xC3];
    early.extend_from_slice(UTF8_GOOD);
    assert_eq!(utf8_check(&utf8_reply(3, &early)), S_WIRE);
    // Control: a grammar failure with valid UTF-8 keeps its own reason.
    assert_eq!(utf8_check(&utf8_reply(3, b"<summary/>")), XML_ROOT);
    assert_eq!(utf8_check(&utf8_reply(3, b"<conversation_summary>&nbsp;")), XML_SYNTAX);
}
