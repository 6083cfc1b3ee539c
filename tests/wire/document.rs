//! The input document (SPEC §5.1, §5.2, §11): the template, every top-level field, the W5.2
//! decoding order pair by pair, the divergences D1–D3 and the J5 rules inside and outside the
//! transcript.

use super::support::*;

#[test]
fn template_and_constants_follow_the_spec() {
    let mut c = Cases::default();
    c.input("template", &doc(&format!("[{HELLO}]")), OK);
    c.truth("Top::input() is the template", Top::input().bytes() == doc(&format!("[{HELLO}]")));
    for (code, name) in [
        (WIRE, "LC_INPUT_WIRE"),
        (BASIS, "LC_INPUT_BASIS"),
        (MODEL, "LC_INPUT_MODEL"),
        (FINGERPRINT, "LC_INPUT_REQUEST_FINGERPRINT"),
        (TRANSCRIPT, "LC_INPUT_TRANSCRIPT"),
        (MAX_TOKENS, "LC_INPUT_MAX_SUMMARY_TOKENS"),
        (TOO_LARGE, "LC_INPUT_TOO_LARGE"),
        (S_WIRE, "LC_SUMMARY_WIRE"),
        (IDENTITY, "LC_SUMMARY_IDENTITY"),
        (BYTE_LIMIT, "LC_SUMMARY_BYTE_LIMIT"),
        (TOKEN_USAGE, "LC_SUMMARY_TOKEN_USAGE"),
        (TOKEN_LIMIT, "LC_SUMMARY_TOKEN_LIMIT"),
        (XML_SYNTAX, "LC_SUMMARY_XML_SYNTAX"),
        (XML_ROOT, "LC_SUMMARY_XML_ROOT"),
        (XML_STRUCTURE, "LC_SUMMARY_XML_STRUCTURE"),
        (XML_CONTENT, "LC_SUMMARY_XML_CONTENT"),
    ] {
        c.truth(format!("name of {code}"), status::name(code) == name);
    }
    c.finish();
}

// ---------------------------------------------------------------------------------------------

#[test]
fn document_fields_w5() {
    let mut c = Cases::default();
    let t = Top::input;
    // Top-level shape (step 1, 2).
    for bad in ["", "null", "[]", "{}", "1", r#""x""#, "true", " ", "{", "}"] {
        c.input(format!("document {bad:?}"), bad.as_bytes(), WIRE);
    }
    let mut with_ws = b" \t\r\n".to_vec();
    with_ws.extend(t().bytes());
    with_ws.extend(b"\n\r\t ");
    c.input("surrounding whitespace", &with_ws, OK);
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(t().bytes());
    c.input("BOM", &bom, WIRE);
    for trailer in [&b" null"[..], b"{}", b"1", b"\x0c", b"\x00", b",", b"}"] {
        let mut d = t().bytes();
        d.extend_from_slice(trailer);
        c.input(format!("trailing {:?}", String::from_utf8_lossy(trailer)), &d, WIRE);
    }
    let mut ff = b"\x0c".to_vec();
    ff.extend(t().bytes());
    c.input("form feed before", &ff, WIRE);
    // version: u8, must be 1.
    c.input("version absent", &t().without("version").bytes(), WIRE);
    for (v, expect) in [
        ("null", WIRE),
        ("0", WIRE),
        ("2", WIRE),
        ("255", WIRE),
        ("256", WIRE),
        ("-1", WIRE),
        ("1.0", WIRE),
        ("1e0", WIRE),
        ("01", WIRE),
        ("\"1\"", WIRE),
        ("true", WIRE),
        ("[1]", WIRE),
    ] {
        c.input(format!("version {v}"), &t().set("version", v).bytes(), expect);
    }
    // basis and model objects.
    for (k, v) in [
        ("basis", "null"),
        ("basis", "[]"),
        ("basis", r#""x""#),
        ("basis", "{}"),
        ("model", "null"),
        ("model", "[]"),
        ("model", "{}"),
        ("model", r#""provider/model""#),
        ("max_summary_tokens", "null"),
        ("request_fingerprint", "null"),
        ("request_fingerprint", "1"),
        ("request_fingerprint", "[]"),
    ] {
        c.input(format!("{k} {v}"), &t().set(k, v).bytes(), WIRE);
    }
    for k in ["basis", "model", "request_fingerprint", "transcript", "max_summary_tokens"] {
        c.input(format!("{k} absent"), &t().without(k).bytes(), WIRE);
    }
    // basis fields (step 1 types, step 3 presence, steps 6, 7).
    let b = |rev: &str, id: &str| t().set("basis", &basis(rev, id)).bytes();
    for (rev, expect) in [
        ("1", OK),
        ("18446744073709551615", OK),
        ("0", BASIS),
        ("18446744073709551616", WIRE),
        ("-1", WIRE),
        ("-0", WIRE),
        ("3.0", WIRE),
        ("3e0", WIRE),
        ("\"3\"", WIRE),
        ("null", WIRE),
        ("true", WIRE),
    ] {
        c.input(format!("revision {rev}"), &b(rev, &s(UUID)), expect);
    }
    for (id, expect) in [
        (s(UUID_ZERO), BASIS),
        (s(&UUID.to_uppercase()), BASIS),
        (s("7C9E6679-7425-40de-944b-e07fc1f90ae7"), BASIS),
        (s(&format!("{{{UUID}}}")), BASIS),
        (s(&format!("urn:uuid:{UUID}")), BASIS),
        (s(&UUID.replace('-', "")), BASIS),
        (s(&format!(" {UUID}")), BASIS),
        (s(&format!("{UUID} ")), BASIS),
        (s("7c9e6679-742540de-944b-e07fc1f90ae7-"), BASIS),
        (s("7c9e667-97425-40de-944b-e07fc1f90ae7"), BASIS),
        (s(&UUID[..35]), BASIS),
        (s(&format!("{UUID}0")), BASIS),
        (s("7c9e6679-7425-40de-944b-e07fc1f90aeg"), BASIS),
        (s(""), BASIS),
        ("null".into(), WIRE),
        ("1".into(), WIRE),
        ("[]".into(), WIRE),
        // Escapes are decoded (J5.4): the value is canonical.
        (s(r"\u0037c9e6679-7425-40de-944b-e07fc1f90ae7"), OK),
        // A lone surrogate escape decodes to U+FFFD (3 bytes): not canonical.
        (s(r"\ud800c9e6679-7425-40de-944b-e07fc1f90ae7"), BASIS),
        (s(r"7c9e6679-7425-40de-944b-e07fc1f90a\ud800"), BASIS),
    ] {
        c.input(format!("through_event_id {id}"), &b("3", &id), expect);
    }
    c.input("basis without revision", &t().set("basis", &obj(&[("through_event_id", &s(UUID))])).bytes(), WIRE);
    c.input("basis without event id", &t().set("basis", &obj(&[("revision", "3")])).bytes(), WIRE);
    c.input(
        "basis extra key",
        &t().set("basis", &obj(&[("revision", "3"), ("through_event_id", &s(UUID)), ("x", "1")])).bytes(),
        WIRE,
    );
    c.input(
        "basis revision twice",
        &t().set("basis", &obj(&[("revision", "3"), ("through_event_id", &s(UUID)), ("revision", "3")])).bytes(),
        WIRE,
    );
    c.input(
        "basis keys reversed",
        &t().set("basis", &obj(&[("through_event_id", &s(UUID)), ("revision", "3")])).bytes(),
        OK,
    );
    // model fields (step 8).
    let m = |p: &str, n: &str| t().set("model", &model(p, n)).bytes();
    for (p, n, expect) in [
        (r#""""#, r#""model""#, MODEL),
        (r#""provider""#, r#""""#, MODEL),
        (r#""""#, r#""""#, MODEL),
        (r#"" ""#, r#"" ""#, OK),
        (r#""\u0000""#, r#""<&>""#, OK),
        (r#""\ud800""#, r#""m""#, OK),
        ("null", r#""model""#, WIRE),
        (r#""provider""#, "null", WIRE),
        ("1", r#""model""#, WIRE),
        (r#""provider""#, "[]", WIRE),
    ] {
        c.input(format!("model {p} {n}"), &m(p, n), expect);
    }
    c.input("model without provider", &t().set("model", &obj(&[("model", "\"m\"")])).bytes(), WIRE);
    c.input("model without model", &t().set("model", &obj(&[("provider", "\"p\"")])).bytes(), WIRE);
    c.input(
        "model extra key",
        &t().set("model", &obj(&[("provider", "\"p\""), ("model", "\"m\""), ("name", "\"n\"")])).bytes(),
        WIRE,
    );
    c.input(
        "model provider twice",
        &t().set("model", &obj(&[("provider", "\"p\""), ("model", "\"m\""), ("provider", "\"p\"")])).bytes(),
        WIRE,
    );
    // request_fingerprint (steps 4, 9).
    for (fp, expect) in [
        (s(FP_ZERO), FINGERPRINT),
        (s(&FP.to_uppercase()), FINGERPRINT),
        (s(&FP[..63]), FINGERPRINT),
        (s(&format!("{FP}0")), FINGERPRINT),
        (s(&format!("{}g", &FP[..63])), FINGERPRINT),
        (s(&format!(" {}", &FP[..63])), FINGERPRINT),
        (s(""), FINGERPRINT),
        (s(&format!("0x{}", &FP[..62])), FINGERPRINT),
        (s(&format!(r"\u0030{}", &FP[1..])), OK),
        (s(&format!("{}1", &FP_ZERO[..63])), OK),
    ] {
        c.input(format!("fingerprint {fp}"), &t().set("request_fingerprint", &fp).bytes(), expect);
    }
    // max_summary_tokens (step 11).
    for (v, expect) in [
        ("0", MAX_TOKENS),
        ("1", OK),
        ("18446744073709551615", OK),
        ("18446744073709551616", WIRE),
        ("-1", WIRE),
        ("-0", WIRE),
        ("1.0", WIRE),
        ("1e3", WIRE),
        ("\"32\"", WIRE),
        ("true", WIRE),
    ] {
        c.input(format!("max_summary_tokens {v}"), &t().set("max_summary_tokens", v).bytes(), expect);
    }
    // Unknown and repeated top-level keys (J5.5, D2).
    let summary = s(SUMMARY);
    for (k, v) in [("extra", "1"), ("extra", "null"), ("summary", summary.as_str()), ("Version", "1"), ("", "1")] {
        c.input(format!("top-level key {k:?}"), &t().push(k, v).bytes(), WIRE);
    }
    for k in ["version", "basis", "model", "request_fingerprint", "transcript", "max_summary_tokens"] {
        let value = t().0.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()).unwrap_or_default();
        c.input(format!("{k} twice"), &t().push(k, &value).bytes(), WIRE);
    }
    c.input("transcript twice, second null", &t().push("transcript", "null").bytes(), WIRE);
    c.input("version twice, once escaped", &t().push(r"\u0076ersion", "1").bytes(), WIRE);
    // Key order is free.
    let mut reversed = t();
    reversed.0.reverse();
    c.input("top-level keys reversed", &reversed.bytes(), OK);
    c.finish();
}

#[test]
fn decoding_order_w5_2_pairs() {
    let mut c = Cases::default();
    let t = Top::input;
    let bad_fp = s(&FP.to_uppercase());
    let bad_uuid = s(&UUID.to_uppercase());
    let bad_t = BAD_TRANSCRIPT;
    // Step 4 before step 5.
    c.input(
        "bad fingerprint + bad transcript",
        &t().set("request_fingerprint", &bad_fp).set("transcript", bad_t).bytes(),
        FINGERPRINT,
    );
    c.input(
        "bad fingerprint + transcript null",
        &t().set("request_fingerprint", &bad_fp).set("transcript", "null").bytes(),
        FINGERPRINT,
    );
    // Step 5 before 6, 7, 8, 9, 10, 11.
    c.input(
        "bad transcript + non-canonical uuid",
        &t().set("transcript", bad_t).set("basis", &basis("3", &bad_uuid)).bytes(),
        TRANSCRIPT,
    );
    c.input(
        "bad transcript + revision 0",
        &t().set("transcript", bad_t).set("basis", &basis("0", &s(UUID))).bytes(),
        TRANSCRIPT,
    );
    c.input(
        "bad transcript + zero uuid",
        &t().set("transcript", bad_t).set("basis", &basis("3", &s(UUID_ZERO))).bytes(),
        TRANSCRIPT,
    );
    c.input(
        "bad transcript + empty provider",
        &t().set("transcript", bad_t).set("model", &model("\"\"", "\"m\"")).bytes(),
        TRANSCRIPT,
    );
    c.input(
        "bad transcript + zero fingerprint",
        &t().set("transcript", bad_t).set("request_fingerprint", &s(FP_ZERO)).bytes(),
        TRANSCRIPT,
    );
    c.input(
        "bad transcript + max_summary_tokens 0",
        &t().set("transcript", bad_t).set("max_summary_tokens", "0").bytes(),
        TRANSCRIPT,
    );
    c.input(
        "transcript string + empty model",
        &t().set("transcript", r#""x""#).set("model", &model("\"p\"", "\"\"")).bytes(),
        TRANSCRIPT,
    );
    // Step 6 before 7, 8.
    c.input("non-canonical uuid + revision 0", &t().set("basis", &basis("0", &bad_uuid)).bytes(), BASIS);
    c.input(
        "non-canonical uuid + empty provider",
        &t().set("basis", &basis("3", &bad_uuid)).set("model", &model("\"\"", "\"\"")).bytes(),
        BASIS,
    );
    // Step 7 before 8, 9.
    c.input(
        "revision 0 + empty provider",
        &t().set("basis", &basis("0", &s(UUID))).set("model", &model("\"\"", "\"m\"")).bytes(),
        BASIS,
    );
    c.input(
        "zero uuid + empty model",
        &t().set("basis", &basis("3", &s(UUID_ZERO))).set("model", &model("\"p\"", "\"\"")).bytes(),
        BASIS,
    );
    c.input(
        "zero uuid + zero fingerprint",
        &t().set("basis", &basis("3", &s(UUID_ZERO))).set("request_fingerprint", &s(FP_ZERO)).bytes(),
        BASIS,
    );
    // Step 8 before 9.
    c.input(
        "empty provider + zero fingerprint",
        &t().set("model", &model("\"\"", "\"m\"")).set("request_fingerprint", &s(FP_ZERO)).bytes(),
        MODEL,
    );
    c.input(
        "empty model + zero fingerprint",
        &t().set("model", &model("\"p\"", "\"\"")).set("request_fingerprint", &s(FP_ZERO)).bytes(),
        MODEL,
    );
    c.input(
        "empty model + empty transcript",
        &t().set("model", &model("\"p\"", "\"\"")).set("transcript", "[]").bytes(),
        MODEL,
    );
    // Step 9 before 10, 11.
    c.input(
        "zero fingerprint + empty transcript",
        &t().set("request_fingerprint", &s(FP_ZERO)).set("transcript", "[]").bytes(),
        FINGERPRINT,
    );
    c.input(
        "zero fingerprint + max 0",
        &t().set("request_fingerprint", &s(FP_ZERO)).set("max_summary_tokens", "0").bytes(),
        FINGERPRINT,
    );
    // Step 10 before 11.
    c.input(
        "empty transcript + max 0",
        &t().set("transcript", "[]").set("max_summary_tokens", "0").bytes(),
        TRANSCRIPT,
    );
    c.input("empty transcript", &t().set("transcript", "[]").bytes(), TRANSCRIPT);
    c.input("max 0", &t().set("max_summary_tokens", "0").bytes(), MAX_TOKENS);
    // Steps 1–3 (wire) before step 4 and step 5.
    let bad_t_doc = t().set("transcript", bad_t).bytes();
    let mut after = bad_t_doc.clone();
    after.pop();
    after.extend_from_slice(b",}");
    c.input("syntax error after the transcript + bad transcript", &after, WIRE);
    let mut unclosed = bad_t_doc.clone();
    unclosed.pop();
    c.input("unclosed document + bad transcript", &unclosed, WIRE);
    let mut trailing = bad_t_doc.clone();
    trailing.extend_from_slice(b"{}");
    c.input("second value + bad transcript", &trailing, WIRE);
    c.input(
        "unknown key after the transcript + bad transcript",
        &t().set("transcript", bad_t).push("extra", "1").bytes(),
        WIRE,
    );
    c.input(
        "max_summary_tokens string + bad transcript",
        &t().set("transcript", bad_t).set("max_summary_tokens", "\"32\"").bytes(),
        WIRE,
    );
    c.input("missing version + bad transcript", &t().without("version").set("transcript", bad_t).bytes(), WIRE);
    c.input("version 2 + bad fingerprint", &t().set("version", "2").set("request_fingerprint", &bad_fp).bytes(), WIRE);
    c.input(
        "missing max_summary_tokens + bad transcript",
        &t().without("max_summary_tokens").set("transcript", bad_t).bytes(),
        WIRE,
    );
    c.input(
        "missing transcript + bad fingerprint",
        &t().without("transcript").set("request_fingerprint", &bad_fp).bytes(),
        WIRE,
    );
    c.input(
        "revision missing + bad fingerprint",
        &t().set("basis", &obj(&[("through_event_id", &s(UUID))])).set("request_fingerprint", &bad_fp).bytes(),
        WIRE,
    );
    c.input(
        "revision null + bad transcript",
        &t().set("basis", &basis("null", &s(UUID))).set("transcript", bad_t).bytes(),
        WIRE,
    );
    c.input(
        "provider null + bad fingerprint",
        &t().set("model", &model("null", "\"m\"")).set("request_fingerprint", &bad_fp).bytes(),
        WIRE,
    );
    c.input("model null + bad transcript", &t().set("model", "null").set("transcript", bad_t).bytes(), WIRE);
    c.input(
        "fingerprint number + bad transcript",
        &t().set("request_fingerprint", "1").set("transcript", bad_t).bytes(),
        WIRE,
    );
    // Invalid UTF-8 outside the transcript is step 1 (wire), before steps 4 and 5.
    let uuid_ff = splice(&t().set("request_fingerprint", &bad_fp).bytes(), b"7c9e6679", b"7c9e667\xff");
    c.input("invalid UTF-8 in the event id + bad fingerprint", &uuid_ff, WIRE);
    let provider_ff = splice(&t().set("transcript", bad_t).bytes(), b":\"provider\"", b":\"prov\xffider\"");
    c.input("invalid UTF-8 in the provider + bad transcript", &provider_ff, WIRE);
    let fp_ff = splice(&t().set("transcript", bad_t).bytes(), FP.as_bytes(), b"\xff");
    c.input("invalid UTF-8 in the fingerprint + bad transcript", &fp_ff, WIRE);
    // Invalid UTF-8 inside the transcript is step 5, after step 4 and before step 6.
    let text_ff = |top: Top| splice(&top.bytes(), b"hello", b"hel\xfflo");
    c.input(
        "invalid UTF-8 in the transcript + bad fingerprint",
        &text_ff(t().set("request_fingerprint", &bad_fp)),
        FINGERPRINT,
    );
    c.input(
        "invalid UTF-8 in the transcript + bad uuid",
        &text_ff(t().set("basis", &basis("3", &bad_uuid))),
        TRANSCRIPT,
    );
    c.input(
        "invalid UTF-8 in the transcript + empty model",
        &text_ff(t().set("model", &model("\"p\"", "\"\""))),
        TRANSCRIPT,
    );
    // D2 inside the transcript is step 5 too.
    let dup = r#"[{"role":"user","role":"user","blocks":[]}]"#;
    c.input(
        "duplicate in the transcript + bad fingerprint",
        &t().set("transcript", dup).set("request_fingerprint", &bad_fp).bytes(),
        FINGERPRINT,
    );
    c.input(
        "duplicate in the transcript + zero uuid",
        &t().set("transcript", dup).set("basis", &basis("3", &s(UUID_ZERO))).bytes(),
        TRANSCRIPT,
    );
    // Key order does not change the order of the checks.
    let reordered = Top(vec![
        ("transcript".into(), bad_t.into()),
        ("max_summary_tokens".into(), "0".into()),
        ("request_fingerprint".into(), bad_fp.clone()),
        ("model".into(), model("\"\"", "\"\"")),
        ("basis".into(), basis("0", &bad_uuid)),
        ("version".into(), "1".into()),
    ]);
    c.input("transcript first, every later step broken", &reordered.bytes(), FINGERPRINT);
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// §11 divergences and J5 rules on the input wire

#[test]
fn divergences_d1_keys_by_exact_bytes() {
    let mut c = Cases::default();
    let t = Top::input;
    // D1 at the top level, in basis and in model: unknown keys (wire).
    for (k, real) in [
        ("Version", "version"),
        ("VERSION", "version"),
        (r"ba\u017Fis", "basis"),
        ("baſis", "basis"),
        ("MODEL", "model"),
        (r"max_summary_to\u212Aens", "max_summary_tokens"),
        ("max_summary_toKens", "max_summary_tokens"),
        ("Transcript", "transcript"),
        ("request_Fingerprint", "request_fingerprint"),
    ] {
        let value = t().0.iter().find(|(key, _)| key == real).map(|(_, v)| v.clone()).unwrap_or_default();
        c.input(format!("top-level {k} instead of {real}"), &t().without(real).push(k, &value).bytes(), WIRE);
        c.input(format!("top-level {k} beside {real}"), &t().push(k, &value).bytes(), WIRE);
    }
    c.input(
        "basis Revision",
        &t().set("basis", &obj(&[("Revision", "3"), ("through_event_id", &s(UUID))])).bytes(),
        WIRE,
    );
    c.input(
        "basis Through_Event_ID",
        &t().set("basis", &obj(&[("revision", "3"), ("Through_Event_ID", &s(UUID))])).bytes(),
        WIRE,
    );
    c.input("model Provider", &t().set("model", &obj(&[("Provider", "\"p\""), ("model", "\"m\"")])).bytes(), WIRE);
    c.input(
        "model ſ",
        &t().set("model", &obj(&[("provider", "\"p\""), ("model", "\"m\""), ("ſ", "\"m\"")])).bytes(),
        WIRE,
    );
    // D1 inside the transcript: transcript.
    c.input("message Role", &msg_doc(r#"{"Role":"user","blocks":[]}"#), TRANSCRIPT);
    c.input(r"message bloc\u212As", &msg_doc(r#"{"role":"user","bloc\u212As":[]}"#), TRANSCRIPT);
    c.input("message BLOCKS", &msg_doc(r#"{"role":"user","BLOCKS":[]}"#), TRANSCRIPT);
    c.input("block Type", &block_doc(r#"{"Type":"text","text":"x"}"#), TRANSCRIPT);
    c.input("block TEXT", &block_doc(r#"{"type":"text","TEXT":"x"}"#), TRANSCRIPT);
    c.input("block ſignature", &block_doc(r#"{"type":"thinking","thinking":"t","ſignature":"s"}"#), TRANSCRIPT);
    c.input(
        "usage Input_Tokens",
        &msg_doc(r#"{"role":"assistant","blocks":[],"usage":{"Input_Tokens":1}}"#),
        TRANSCRIPT,
    );
    c.input("tool Is_Error", &msg_doc(r#"{"role":"tool","blocks":[],"tool_use_id":"t","Is_Error":false}"#), TRANSCRIPT);
    // Escapes in keys are decoded (J5.5): these are the real keys.
    c.input(
        "escaped top-level keys",
        &Top(t().0.into_iter().map(|(k, v)| (k.replace('v', r"\u0076").replace('t', r"\u0074"), v)).collect()).bytes(),
        OK,
    );
    c.input(
        "escaped message and block keys",
        &msg_doc(r#"{"\u0072ole":"user","bl\u006fcks":[{"\u0074\u0079\u0070\u0065":"text","te\u0078t":"x"}]}"#),
        OK,
    );
    // In raw values, any keys are fine (J5.9), case variants included.
    c.input("raw keys differing by case", &tool_use_with_input(r#"{"a":1,"A":2,"ſ":3,"s":4,"K":5,"\u212A":6}"#), OK);
    c.finish();
}

#[test]
fn divergences_d2_duplicate_keys() {
    let mut c = Cases::default();
    // Top level, basis, model: wire (covered field by field in document_fields_w5); escaped forms here.
    c.input(
        "top-level a vs \\u escape",
        &Top::input().push(r"m\u006fdel", &model("\"provider\"", "\"model\"")).bytes(),
        WIRE,
    );
    c.input(
        "basis dup through escape",
        &Top::input()
            .set("basis", &obj(&[("revision", "3"), ("through_event_id", &s(UUID)), (r"\u0072evision", "3")]))
            .bytes(),
        WIRE,
    );
    // Message and block: transcript.
    c.input("message blocks twice", &msg_doc(r#"{"role":"user","blocks":[],"blocks":[]}"#), TRANSCRIPT);
    c.input(
        "message role twice, different values",
        &msg_doc(r#"{"role":"user","blocks":[],"role":"system"}"#),
        TRANSCRIPT,
    );
    c.input("block text twice", &block_doc(r#"{"type":"text","text":"a","text":"b"}"#), TRANSCRIPT);
    c.input("block text twice, once escaped", &block_doc(r#"{"type":"text","text":"a","\u0074ext":"b"}"#), TRANSCRIPT);
    c.input(
        "block null repeated",
        &block_doc(r#"{"type":"audio","media_type":"m","data":null,"data":null}"#),
        TRANSCRIPT,
    );
    c.input(
        "source repeated",
        &block_doc(
            r#"{"type":"image","media_type":"m","source":{"url":"u","data":null},"source":{"url":"u","data":null}}"#,
        ),
        TRANSCRIPT,
    );
    // Raw values (J5.9): duplicates anywhere inside them.
    for (raw, expect) in [
        (r#"{"a":1,"a":2}"#, TRANSCRIPT),
        (r#"{"a":1,"\u0061":2}"#, TRANSCRIPT),
        (r#"{"\u0061":1,"\u0061":2}"#, TRANSCRIPT),
        (r#"{"a":null,"a":null}"#, TRANSCRIPT),
        (r#"{"a":{"b":1,"b":2}}"#, TRANSCRIPT),
        (r#"[{"a":1},{"b":1,"b":1}]"#, TRANSCRIPT),
        (r#"{"a":{},"b":[],"a":{}}"#, TRANSCRIPT),
        (r#"{"\ud800":1,"\udc00":2}"#, TRANSCRIPT), // both decode to U+FFFD (J5.4)
        (r#"{"é":1,"\u00e9":2}"#, TRANSCRIPT),
        (r#"{"\ud83d\ude00":1,"😀":2}"#, TRANSCRIPT),
        (r#"[{"a":1},{"a":1}]"#, OK),
        (r#"{"a":{"b":1},"b":2}"#, OK),
        (r#"{"a":{"a":{"a":1}}}"#, OK),
        (r#"{"a":1,"A":1}"#, OK),
        (r#"{"a":1,"a ":1}"#, OK),
        (r#"{"\ud800\udc00":1,"\ud800":2}"#, OK),
        (r#"{"":1,"\u0000":2}"#, OK),
        (r#"{"":1,"":2}"#, TRANSCRIPT),
    ] {
        c.input(format!("tool input {raw}"), &tool_use_with_input(raw), expect);
        c.input(
            format!("provider_state {raw}"),
            &block_doc(&format!(r#"{{"type":"tool_use","id":"i","name":"n","input":null,"provider_state":{raw},"provider_state_format":"f"}}"#)),
            expect,
        );
    }
    // Many keys: the duplicate is the 40th key of an object, after a nested object with the same
    // keys, and once after the nested object closes.
    let keys: Vec<String> = (0..39).map(|i| format!(r#""k{i}":{i}"#)).collect();
    let nested: Vec<String> = (0..39).map(|i| format!(r#""k{i}":{i}"#)).collect();
    let wide_ok = format!("{{{},\"inner\":{{{}}}}}", keys.join(","), nested.join(","));
    c.input("39 keys and a nested copy", &tool_use_with_input(&wide_ok), OK);
    let wide_dup = format!("{{{},\"inner\":{{{}}},\"k0\":1}}", keys.join(","), nested.join(","));
    c.input("duplicate of the 1st key after 40 keys and a nested object", &tool_use_with_input(&wide_dup), TRANSCRIPT);
    let wide_dup_last = format!("{{{},\"k38\":1}}", keys.join(","));
    c.input("duplicate of the 39th key", &tool_use_with_input(&wide_dup_last), TRANSCRIPT);
    let nested_dup = format!("{{{},\"inner\":{{{},\"k5\":0}}}}", keys.join(","), nested.join(","));
    c.input("duplicate inside the nested object", &tool_use_with_input(&nested_dup), TRANSCRIPT);
    // Two raw values in one block are two objects: the same keys in both are fine.
    c.input(
        "input and provider_state with the same keys",
        &block_doc(r#"{"type":"tool_use","id":"i","name":"n","input":{"a":1},"provider_state":{"a":1},"provider_state_format":"f"}"#),
        OK,
    );
    c.finish();
}

#[test]
fn divergences_d3_utf8() {
    let mut c = Cases::default();
    let t = Top::input;
    let bad_sequences: &[(&str, &[u8])] = &[
        ("stray FF", b"\xff"),
        ("stray continuation", b"\x80"),
        ("overlong NUL", b"\xc0\x80"),
        ("overlong slash", b"\xe0\x80\xaf"),
        ("encoded surrogate", b"\xed\xa0\x80"),
        ("truncated 3-byte", b"\xe2\x82"),
        ("truncated 4-byte", b"\xf0\x9f\x98"),
        ("above U+10FFFF", b"\xf4\x90\x80\x80"),
        ("F5", b"\xf5\x80\x80\x80"),
    ];
    let template = t().bytes();
    for (what, seq) in bad_sequences {
        // Outside the transcript, inside strings: wire.
        let inner = [b":\"prov".as_slice(), seq, b"ider\""].concat();
        c.input(format!("{what} in provider"), &splice(&template, b":\"provider\"", &inner), WIRE);
        let model_value = [b"\"model".as_slice(), seq, b"\""].concat();
        c.input(
            format!("{what} in model"),
            &splice(&template, b"\"model\"}", &[&model_value[..], b"}"].concat()),
            WIRE,
        );
        let key = [b"\"x".as_slice(), seq, b"\":1,\"version\""].concat();
        c.input(format!("{what} in a top-level key"), &splice(&template, b"\"version\"", &key), WIRE);
        // Inside a string of the transcript: transcript.
        let text = [b"hel".as_slice(), seq, b"lo"].concat();
        c.input(format!("{what} in a transcript text"), &splice(&template, b"hello", &text), TRANSCRIPT);
        let raw = tool_use_with_input(r#"{"key":"value"}"#);
        let value = [b"val".as_slice(), seq].concat();
        c.input(format!("{what} in a raw input string"), &splice(&raw, b"value", &value), TRANSCRIPT);
        let raw_key = [b"ke".as_slice(), seq].concat();
        c.input(format!("{what} in a raw input key"), &splice(&raw, b"key", &raw_key), TRANSCRIPT);
        let role = [b"us".as_slice(), seq, b"er"].concat();
        c.input(format!("{what} in a role"), &splice(&template, b"user", &role), TRANSCRIPT);
        let tkey = [b"te".as_slice(), seq, b"xt\":\"a\",\"text"].concat();
        c.input(
            format!("{what} in a block key"),
            &splice(&template, b"text\":\"hello", &[&tkey[..], b"\":\"hello"].concat()),
            TRANSCRIPT,
        );
        // Outside strings (in the transcript or not): a J5.1 error, wire.
        let between = [b"[".as_slice(), seq].concat();
        c.input(
            format!("{what} between transcript tokens"),
            &splice(&template, b"[{\"role\"", &[&between[..], b"{\"role\""].concat()),
            WIRE,
        );
        c.input(
            format!("{what} in raw input between tokens"),
            &splice(&raw, b"{\"key\"", &[*seq, b"{\"key\""].concat()),
            WIRE,
        );
        c.input(
            format!("{what} at the top level"),
            &splice(&template, b"{\"version\"", &[*seq, b"{\"version\""].concat()),
            WIRE,
        );
        // Invalid UTF-8 in a string after a transcript failure still counts for the transcript, in
        // the skipped rest of the transcript value (only J5.1/J5.2 apply there).
        let rest = doc(r#"[{"role":"bot","blocks":[]},{"role":"user","blocks":[{"type":"text","text":"hello"}]}]"#);
        c.input(format!("bad message, then {what} in a later text"), &splice(&rest, b"hello", &text), TRANSCRIPT);
        let rest_raw = doc(
            r#"[{"role":"bot","blocks":[]},{"role":"assistant","blocks":[{"type":"tool_use","id":"i","name":"n","input":{"key":"value"}}]}]"#,
        );
        c.input(
            format!("bad message, then {what} in a later raw key"),
            &splice(&rest_raw, b"key", &raw_key),
            TRANSCRIPT,
        );
        // And in the output reply: wire.
        let h = parse(&doc(&format!("[{HELLO}]")));
        let reply = Top::output().bytes();
        let goal = [b"ship".as_slice(), seq].concat();
        c.output_with(format!("{what} in summary"), &h, &splice(&reply, b"ship", &goal), 1, u64::MAX, S_WIRE);
        let provider = [b":\"prov".as_slice(), seq].concat();
        c.output_with(
            format!("{what} in output provider"),
            &h,
            &splice(&reply, b":\"prov", &provider),
            1,
            u64::MAX,
            S_WIRE,
        );
    }
    // Valid non-ASCII everywhere is fine.
    c.input(
        "valid UTF-8 in provider and text",
        &splice(
            &splice(&template, b":\"provider\"", ":\"prövïdér 😀\"".as_bytes()),
            b"hello",
            "ħęłłø \u{10FFFF}\u{FEFF}".as_bytes(),
        ),
        OK,
    );
    c.finish();
}

#[test]
fn json_rules_j5_inside_and_outside_the_transcript() {
    let mut c = Cases::default();
    let template = Top::input().bytes();
    // J5.1 anywhere: wire, also inside the transcript value.
    for (what, from, to) in [
        ("raw TAB in a transcript text", &b"hello"[..], &b"hel\tlo"[..]),
        ("raw LF in a transcript text", b"hello", b"hel\nlo"),
        ("raw NUL in a transcript text", b"hello", b"hel\x00lo"),
        ("raw 0x1f in a transcript text", b"hello", b"hel\x1flo"),
        ("bad escape in a transcript text", b"hello", b"hel\\xlo"),
        ("short \\u in a transcript text", b"hello", b"hel\\u12"),
        ("\\U in a transcript text", b"hello", b"hel\\U0041lo"),
        ("\\' in a transcript text", b"hello", b"hel\\'lo"),
        ("unterminated string", b"hello\"}", b"hello}"),
        ("trailing comma in blocks", b"\"hello\"}]", b"\"hello\"},]"),
        ("missing colon", b"\"text\":\"hello\"", b"\"text\" \"hello\""),
        ("single quotes", b"\"hello\"", b"'hello'"),
        ("raw TAB in provider", b"provider", b"pro\tvider"),
    ] {
        c.input(what, &splice(&template, from, to), WIRE);
    }
    for number in ["+1", "01", ".5", "1.", "NaN", "Infinity", "-", "1e", "1e+", "0x10", "-01", "1.e5", "--1", "Inf"] {
        c.input(format!("number {number} in a raw input"), &tool_use_with_input(number), WIRE);
        c.input(format!("number {number} in a raw array"), &tool_use_with_input(&format!("[1,{number}]")), WIRE);
    }
    for number in ["0", "-0", "1.5", "1E2", "1e-400", "1e400", "-1.0e+5", "123456789012345678901234567890"] {
        c.input(format!("number {number} in a raw input"), &tool_use_with_input(number), OK);
    }
    for literal in ["nul", "True", "NULL", "undefined", "nulll", "truee"] {
        c.input(format!("literal {literal} in a raw input"), &tool_use_with_input(literal), WIRE);
    }
    // Escapes in either hex case, all short forms.
    c.input("every escape", &block_doc(r#"{"type":"text","text":"\"\\\/\b\f\n\r\t\u00e9\u00E9\uABCD\uabcd"}"#), OK);
    // J5.4 lone surrogates are accepted everywhere.
    for text in [
        r"\ud800",
        r"\udc00",
        r"\udbff\u0041",
        r"\ud800\ud800",
        r"\udc00\ud800",
        r"\ud800x",
        r"\uDFFF",
        r"\ud83d\ude00",
        r"a\ud800",
    ] {
        c.input(format!("text {text}"), &block_doc(&format!(r#"{{"type":"text","text":"{text}"}}"#)), OK);
    }
    // J5.6 in the transcript (usage counters): transcript; at the top: wire.
    c.input(
        "usage counter 1e0",
        &msg_doc(r#"{"role":"assistant","blocks":[],"usage":{"input_tokens":1e0}}"#),
        TRANSCRIPT,
    );
    c.input("revision 3e0", &Top::input().set("basis", &basis("3e0", &s(UUID))).bytes(), WIRE);
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// §7 canonical encoding
