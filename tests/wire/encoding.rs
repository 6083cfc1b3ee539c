//! The canonical encoding (SPEC §7.1, E7): every escape form in every string field, the layout
//! E7.1–E7.5, and the same bytes for the same handle (A3.6).

use super::support::*;

/// Encodes `wire` with no limit (F7.2: the result is S).
fn canonical(wire: &[u8]) -> Result<Vec<u8>, i32> {
    Input::parse(wire)?.encode(u64::MAX)
}

/// Every escape form of E7.6, as JSON text, and its canonical encoding.
fn string_torture() -> (String, String) {
    let input = concat!(
        r#"q\"b\\s\/n\nr\rt\tb\bf\f\u0000\u0001\u000b\u001b\u001F\u007f"#,
        "\u{7f}é\u{2028}\u{2029}",
        r#"\u2028\u2029\u00e9\u003C\u003e\u0026<>&\u000A\u0009\u0008\u000C\u000D\u0022\u005C\u002F"#,
        r#"\ud800x\ud83d\ude00\uDBFF\uDFFF\udc00\ud800\u0041\ufffd\u200B"#,
        "\u{fffd}\u{85}\u{a0}😀 end"
    );
    let want = concat!(
        r#"q\"b\\s/n\nr\rt\tb\bf\f\u0000\u0001\u000b\u001b\u001f"#,
        "\u{7f}\u{7f}é",
        r#"\u2028\u2029\u2028\u2029"#,
        "é",
        r#"\u003c\u003e\u0026\u003c\u003e\u0026\n\t\b\f\r\"\\/"#,
        "\u{fffd}x\u{1F600}\u{10FFFF}\u{fffd}\u{fffd}A\u{fffd}\u{200B}",
        "\u{fffd}\u{85}\u{a0}😀 end"
    );
    (input.to_owned(), want.to_owned())
}

#[test]
fn canonical_strings_e7_6_in_every_string_field() {
    let mut c = Cases::default();
    let (input, want) = string_torture();
    // Every string field of every block kind and message, in canonical key order, so that the
    // expected bytes are the same document with the canonical string.
    let transcript = concat!(
        r#"[{"role":"system","blocks":[{"type":"text","text":"@@"}]},"#,
        r#"{"role":"user","blocks":[{"type":"refusal","text":"@@"},{"type":"image","media_type":"@@","source":{"url":"@@","data":null}},"#,
        r#"{"type":"audio","media_type":"@@","data":null},{"type":"document","media_type":"@@","name":"@@","data":null,"text":"@@"}]},"#,
        r#"{"role":"assistant","blocks":[{"type":"thinking","thinking":"@@","signature":"@@","signature_format":"@@","provider_state":null,"provider_state_format":"@@"},"#,
        r#"{"type":"tool_use","id":"@@","name":"@@","input":null,"provider_state":1,"provider_state_format":"@@"}],"usage":null},"#,
        r#"{"role":"tool","blocks":[{"type":"tool_result","tool_use_id":"@@","content":[{"type":"text","text":"@@"}],"is_error":true}],"tool_use_id":"@@","is_error":false}]"#
    );
    let wire = doc_with("\"@@\"", "\"@@\"", transcript);
    let wire = String::from_utf8(wire).unwrap();
    let given = wire.replace("@@", &input);
    let expected = wire.replace("@@", &want);
    c.bytes("every string field", canonical(given.as_bytes()), expected.as_bytes());
    // Each piece on its own, to pin down a failure.
    for (piece, canon) in [
        (r"\/", "/"),
        (r"\u001F", r"\u001f"),
        (r"\u0000", r"\u0000"),
        (r"\u007f", "\u{7f}"),
        (r"\u0008", r"\b"),
        (r"\u000c", r"\f"),
        (r"\u000B", r"\u000b"),
        (r"\u003C", r"\u003c"),
        ("<", r"\u003c"),
        (">", r"\u003e"),
        ("&", r"\u0026"),
        ("\u{2028}", r"\u2028"),
        ("\u{2029}", r"\u2029"),
        (r"\u2028", r"\u2028"),
        (r"\u00e9", "é"),
        (r"\ud800", "\u{fffd}"),
        (r"\ud800\u0041", "\u{fffd}A"),
        (r"\ud800\ud800\udc00", "\u{fffd}\u{10000}"),
        (r"\udc00\ud800", "\u{fffd}\u{fffd}"),
        (r"\ud83d\ude00", "😀"),
        ("\u{e2}\u{80}", "\u{e2}\u{80}"),
        ("\u{2027}\u{202a}", "\u{2027}\u{202a}"),
        ("€", "€"),
    ] {
        let given = doc(&format!(r#"[{{"role":"user","blocks":[{{"type":"text","text":"{piece}"}}]}}]"#));
        let want = doc(&format!(r#"[{{"role":"user","blocks":[{{"type":"text","text":"{canon}"}}]}}]"#));
        c.bytes(format!("text {piece:?}"), canonical(&given), &want);
    }
    c.finish();
}

#[test]
fn canonical_layout_e7_1_to_e7_5() {
    let mut c = Cases::default();
    // Whitespace, key order, escaped keys and identity values (E7.1, E7.2).
    let given = format!(
        " {{ \"max_summary_tokens\" : 18446744073709551615 ,\n\t\"transcript\" : [ {{ \"blocks\" : [ {{ \"text\" : \"a<b>&c\" , \"type\" : \"text\" }} ] , \"role\" : \"user\" }} ] ,\r\n \"request_fingerprint\" : \"{}\" , \"model\" : {{ \"model\" : \"m\\u006fdel\" , \"provider\" : \"pro<vider>\" }} , \"basis\" : {{ \"through_event_id\" : \"\\u0037c9e6679-7425-40de-944b-e07fc1f90ae7\" , \"revision\" : 18446744073709551615 }} , \"\\u0076ersion\" : 1 }} ",
        FP.replace('a', r"\u0061")
    );
    let want = format!(
        r#"{{"version":1,"basis":{{"revision":18446744073709551615,"through_event_id":"{UUID}"}},"model":{{"provider":"pro\u003cvider\u003e","model":"model"}},"request_fingerprint":"{FP}","transcript":[{{"role":"user","blocks":[{{"type":"text","text":"a\u003cb\u003e\u0026c"}}]}}],"max_summary_tokens":18446744073709551615}}"#
    );
    c.bytes("whitespace, key order, escapes", canonical(given.as_bytes()), want.as_bytes());

    // (given message or block, canonical form); each in its own document.
    let cases: &[(&str, &str, &str)] = &[
        // E7.3 messages.
        ("user empty blocks", r#"{"blocks":[],"role":"user"}"#, r#"{"role":"user","blocks":[]}"#),
        ("system", r#"{"blocks":[],"role":"system"}"#, r#"{"role":"system","blocks":[]}"#),
        (
            "assistant, usage absent",
            r#"{"role":"assistant","blocks":[]}"#,
            r#"{"role":"assistant","blocks":[],"usage":null}"#,
        ),
        (
            "assistant, usage null",
            r#"{"usage":null,"role":"assistant","blocks":[]}"#,
            r#"{"role":"assistant","blocks":[],"usage":null}"#,
        ),
        (
            "assistant, usage {}",
            r#"{"role":"assistant","blocks":[],"usage":{}}"#,
            r#"{"role":"assistant","blocks":[],"usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_creation_tokens":0,"reasoning_tokens":0}}"#,
        ),
        (
            "assistant, usage with nulls",
            r#"{"role":"assistant","blocks":[],"usage":{"reasoning_tokens":5,"input_tokens":null,"output_tokens":18446744073709551615,"cache_creation_tokens":7}}"#,
            r#"{"role":"assistant","blocks":[],"usage":{"input_tokens":0,"output_tokens":18446744073709551615,"cache_read_tokens":0,"cache_creation_tokens":7,"reasoning_tokens":5}}"#,
        ),
        (
            "assistant, usage all null",
            r#"{"role":"assistant","blocks":[],"usage":{"input_tokens":null,"output_tokens":null,"cache_read_tokens":null,"cache_creation_tokens":null,"reasoning_tokens":null}}"#,
            r#"{"role":"assistant","blocks":[],"usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_creation_tokens":0,"reasoning_tokens":0}}"#,
        ),
        (
            "tool",
            r#"{"is_error":true,"tool_use_id":"t","blocks":[],"role":"tool"}"#,
            r#"{"role":"tool","blocks":[],"tool_use_id":"t","is_error":true}"#,
        ),
        // E7.4 blocks.
        (
            "refusal",
            r#"{"role":"user","blocks":[{"text":"no","type":"refusal"}]}"#,
            r#"{"role":"user","blocks":[{"type":"refusal","text":"no"}]}"#,
        ),
        (
            "image",
            r#"{"role":"user","blocks":[{"source":{"data":null,"url":"u"},"media_type":"m","type":"image"}]}"#,
            r#"{"role":"user","blocks":[{"type":"image","media_type":"m","source":{"url":"u","data":null}}]}"#,
        ),
        (
            "document",
            r#"{"role":"user","blocks":[{"text":"b","data":null,"name":"n","media_type":"m","type":"document"}]}"#,
            r#"{"role":"user","blocks":[{"type":"document","media_type":"m","name":"n","data":null,"text":"b"}]}"#,
        ),
        (
            "tool_result",
            r#"{"role":"user","blocks":[{"is_error":false,"content":[{"text":"x","type":"text"}],"tool_use_id":"t","type":"tool_result"}]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":false}]}"#,
        ),
        (
            "tool_use input null",
            r#"{"role":"assistant","blocks":[{"input":null,"name":"n","id":"i","type":"tool_use"}]}"#,
            r#"{"role":"assistant","blocks":[{"type":"tool_use","id":"i","name":"n","input":null}],"usage":null}"#,
        ),
        // T5.8 thinking signature_format.
        (
            "signature_format with empty signature",
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"","signature_format":"f"}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":""}]}"#,
        ),
        (
            "signature_format kept",
            r#"{"role":"user","blocks":[{"signature_format":"f","type":"thinking","thinking":"t","signature":"s"}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s","signature_format":"f"}]}"#,
        ),
        (
            "signature_format empty",
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s","signature_format":""}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s"}]}"#,
        ),
        (
            "signature_format null",
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s","signature_format":null}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s"}]}"#,
        ),
        // T5.8 provider-state pair.
        (
            "thinking provider state kept",
            r#"{"role":"user","blocks":[{"provider_state_format":"p","provider_state":{ "a" : [ 1 , 2 ] },"signature_format":"f","type":"thinking","thinking":"t","signature":"s"}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s","signature_format":"f","provider_state":{"a":[1,2]},"provider_state_format":"p"}]}"#,
        ),
        (
            "thinking provider state null kept",
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"","signature_format":"f","provider_state":null,"provider_state_format":"p"}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"","provider_state":null,"provider_state_format":"p"}]}"#,
        ),
        (
            "thinking provider state without format",
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s","provider_state":{"a":1}}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s"}]}"#,
        ),
        (
            "thinking provider state, format empty",
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s","provider_state":{"a":1},"provider_state_format":""}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s"}]}"#,
        ),
        (
            "thinking provider state, format null",
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s","provider_state":{"a":1},"provider_state_format":null}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s"}]}"#,
        ),
        (
            "thinking format without provider state",
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s","provider_state_format":"p"}]}"#,
            r#"{"role":"user","blocks":[{"type":"thinking","thinking":"t","signature":"s"}]}"#,
        ),
        (
            "tool_use provider state kept",
            r#"{"role":"user","blocks":[{"provider_state_format":"p","provider_state":"opaque","input":{},"name":"n","id":"i","type":"tool_use"}]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":{},"provider_state":"opaque","provider_state_format":"p"}]}"#,
        ),
        (
            "tool_use provider state null kept",
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":null,"provider_state":null,"provider_state_format":"p"}]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":null,"provider_state":null,"provider_state_format":"p"}]}"#,
        ),
        (
            "tool_use provider state dropped",
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":null,"provider_state":[1],"provider_state_format":""}]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":null}]}"#,
        ),
        (
            "tool_use format without state",
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":null,"provider_state_format":"p"}]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":null}]}"#,
        ),
        // E7.5 bytes.
        (
            "data null",
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":null}]}"#,
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":null}]}"#,
        ),
        (
            "data empty",
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":""}]}"#,
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":""}]}"#,
        ),
        (
            "data only newlines",
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"\r\n"}]}"#,
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":""}]}"#,
        ),
        (
            "data QR==",
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"QR=="}]}"#,
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"QQ=="}]}"#,
        ),
        (
            "data QUJ=",
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"QUJ="}]}"#,
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"QUI="}]}"#,
        ),
        (
            "data line breaks",
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"QU\r\nJD\nQU\rJD"}]}"#,
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"QUJDQUJD"}]}"#,
        ),
        (
            "data escaped",
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"\u0051\u0051=\u003d"}]}"#,
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"QQ=="}]}"#,
        ),
        (
            "data slashes",
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"\/\/\/\/"}]}"#,
            r#"{"role":"user","blocks":[{"type":"audio","media_type":"m","data":"////"}]}"#,
        ),
        (
            "image data",
            r#"{"role":"user","blocks":[{"type":"image","media_type":"m","source":{"url":"u","data":"QR==\n"}}]}"#,
            r#"{"role":"user","blocks":[{"type":"image","media_type":"m","source":{"url":"u","data":"QQ=="}}]}"#,
        ),
        (
            "document data",
            r#"{"role":"user","blocks":[{"type":"document","media_type":"m","name":"n","data":"QUJ=\r\n","text":"t"}]}"#,
            r#"{"role":"user","blocks":[{"type":"document","media_type":"m","name":"n","data":"QUI=","text":"t"}]}"#,
        ),
        // E7.7 raw values.
        (
            "raw whitespace and markup",
            "{\"role\":\"user\",\"blocks\":[{\"type\":\"tool_use\",\"id\":\"i\",\"name\":\"n\",\"input\": { \"b\" : [ 1.50 , 1E2 , -0 , true , null ] ,\n\t\"a\" : \"x y<>&\\/\\u00e9\\ud800\\n\" , \"c\" : \"\u{2028}\u{2029}\" , \"\\u003c\" : { } } }]}",
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":{"b":[1.50,1E2,-0,true,null],"a":"x y\u003c\u003e\u0026\/\u00e9\ud800\n","c":"\u2028\u2029","\u003c":{}}}]}"#,
        ),
        (
            "raw escapes before markup",
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":["\\<", "\"<", "\\", "\\\"&"]}]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":["\\\u003c","\"\u003c","\\","\\\"\u0026"]}]}"#,
        ),
        (
            "raw markup in keys",
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":{ "<a>" : { "&" : "<" } }}]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":{"\u003ca\u003e":{"\u0026":"\u003c"}}}]}"#,
        ),
        (
            "raw scalar string",
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":" a<b "}]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":" a\u003cb "}]}"#,
        ),
        (
            "raw number as spelled",
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input": -0.0e-00 }]}"#,
            r#"{"role":"user","blocks":[{"type":"tool_use","id":"i","name":"n","input":-0.0e-00}]}"#,
        ),
        (
            "raw non-ASCII kept",
            "{\"role\":\"user\",\"blocks\":[{\"type\":\"tool_use\",\"id\":\"i\",\"name\":\"n\",\"input\":{\"é\":\"\u{2027}\u{202a}😀\u{85}\"}}]}",
            "{\"role\":\"user\",\"blocks\":[{\"type\":\"tool_use\",\"id\":\"i\",\"name\":\"n\",\"input\":{\"é\":\"\u{2027}\u{202a}😀\u{85}\"}}]}",
        ),
    ];
    for (name, given, want) in cases {
        c.bytes(*name, canonical(&msg_doc(given)), &msg_doc(want));
    }
    // A longer byte field, checked against an encoder written here.
    let bytes: Vec<u8> = (0..=255u8).chain(0..100).collect();
    let b64 = test_base64(&bytes);
    let wrapped: String =
        b64.as_bytes().chunks(76).map(|l| std::str::from_utf8(l).unwrap()).collect::<Vec<_>>().join(r"\r\n");
    c.bytes(
        "356 bytes wrapped at 76",
        canonical(&block_doc(&format!(r#"{{"type":"audio","media_type":"m","data":"{wrapped}\r\n"}}"#))),
        &block_doc(&format!(r#"{{"type":"audio","media_type":"m","data":"{b64}"}}"#)),
    );
    c.truth("test encoder", test_base64(b"AB") == "QUI=" && testkit::vectors::base64_decode(&b64) == bytes);
    c.finish();
}

/// Standard base64 with padding (E7.5), independent of the library.
fn test_base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn canonical_encoding_is_stable_a3_6() {
    let wire = msg_doc(
        r#"{"role":"user","blocks":[{"type":"text","text":"<&>"},{"type":"audio","media_type":"m","data":"QR=="}]}"#,
    );
    let h = parse(&wire);
    let first = h.encode(u64::MAX).unwrap();
    for _ in 0..5 {
        assert_eq!(h.encode(u64::MAX).unwrap(), first);
    }
    // The canonical encoding is itself a valid input with the same encoding (idempotent).
    assert_eq!(canonical(&first).unwrap(), first);
    // A second handle of the same bytes gives the same bytes.
    assert_eq!(parse(&wire).encode(u64::MAX).unwrap(), first);
}

// ---------------------------------------------------------------------------------------------
// F7 fitting

/// The canonical writer walks the input once, in document order, and needs a message's role before
/// its blocks and a `tool_result` block's id before its content (E7.3, E7.4): inputs that give
/// them after (keys in any order, J5.5) must encode exactly as the same document in canonical key
/// order, at every nesting depth, when stubbed (F7.3) and for the pairing check (S14.3).
#[test]
fn late_roles_and_ids_encode_as_in_canonical_order() {
    let head = format!(
        r#"{{"version":1,"basis":{{"revision":1,"through_event_id":"{UUID}"}},"model":{{"provider":"p","model":"m"}},"request_fingerprint":"{FP}","transcript":["#
    );
    let tail = r#"],"max_summary_tokens":64}"#;
    // Every message and tool_result block has its role / id after its blocks / content, nested
    // three deep, mixed with messages in canonical order.
    let late = concat!(
        r#"{"blocks":[{"type":"text","text":"a"}],"role":"user"},"#,
        r#"{"usage":null,"blocks":[{"input":{},"name":"t","id":"c1","type":"tool_use"},{"id":"c2","type":"tool_use","name":"t","input":[]}],"role":"assistant"},"#,
        r#"{"is_error":false,"blocks":[{"content":[{"text":"x","type":"text"},"#,
        r#"{"is_error":true,"content":[{"content":[],"is_error":false,"type":"tool_result","tool_use_id":"deep"}],"tool_use_id":"mid","type":"tool_result"}],"#,
        r#""is_error":false,"tool_use_id":"c2","type":"tool_result"}],"tool_use_id":"c1","role":"tool"},"#,
        r#"{"role":"user","blocks":[{"type":"text","text":"b"}]}"#,
    );
    let canonical_messages = concat!(
        r#"{"role":"user","blocks":[{"type":"text","text":"a"}]},"#,
        r#"{"role":"assistant","blocks":[{"type":"tool_use","id":"c1","name":"t","input":{}},{"type":"tool_use","id":"c2","name":"t","input":[]}],"usage":null},"#,
        r#"{"role":"tool","blocks":[{"type":"tool_result","tool_use_id":"c2","content":[{"type":"text","text":"x"},"#,
        r#"{"type":"tool_result","tool_use_id":"mid","content":[{"type":"tool_result","tool_use_id":"deep","content":[],"is_error":false}],"is_error":true}],"#,
        r#""is_error":false}],"tool_use_id":"c1","is_error":false},"#,
        r#"{"role":"user","blocks":[{"type":"text","text":"b"}]}"#,
    );
    let wire = format!("{head}{late}{tail}");
    let want = format!("{head}{canonical_messages}{tail}");
    assert_eq!(String::from_utf8(canonical(wire.as_bytes()).unwrap()).unwrap(), want);
    assert_eq!(String::from_utf8(canonical(want.as_bytes()).unwrap()).unwrap(), want);

    // F7.3: one byte short of S stubs the tool message (its role came after its blocks).
    let stub = r#"{"role":"tool","blocks":[{"type":"text","text":"[old tool result omitted for compaction]"}],"tool_use_id":"c1","is_error":false}"#;
    let stubbed = format!(
        "{head}{}{stub},{}{tail}",
        &canonical_messages[..canonical_messages.find(r#"{"role":"tool""#).unwrap()],
        r#"{"role":"user","blocks":[{"type":"text","text":"b"}]}"#
    );
    let input = Input::parse(wire.as_bytes()).unwrap();
    assert_eq!(String::from_utf8(input.encode(want.len() as u64 - 1).unwrap()).unwrap(), stubbed);

    // S14.3: c1 is answered by the tool message's own id and c2 by its top-level block, whatever
    // the key order; an id read late pairs like one read first.
    let pairing = |input: &Input| {
        // SAFETY: a live handle; a NULL diagnostic is allowed.
        unsafe { loopcompact::ffi::lc_transcript_pairing_check(input.as_ptr(), core::ptr::null_mut()) }
    };
    assert_eq!(pairing(&input), 0);
    let orphan = wire.replace(r#""tool_use_id":"c2""#, r#""tool_use_id":"zz""#);
    // c2 is then unanswered (message 1), which comes before the orphan result (message 2).
    assert_eq!(pairing(&Input::parse(orphan.as_bytes()).unwrap()), 500, "LC_PAIRING_UNANSWERED_CALL");
}
