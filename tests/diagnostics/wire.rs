//! C13.4, the compaction input wire (§5) through `lc_compaction_input_diagnose`, and the reply (§6)
//! through `lc_compaction_output_diagnose`, the summary inside it included.
//!
//! How the rows were derived. The input rows edit the eleven-line document [`INPUT`] in one place;
//! their offsets are found with `find` of the edited bytes, and lines and columns were counted by
//! hand on the edited line (line 7 holds `é`, so columns after it are one less than bytes from the
//! line start). Per C13.4 a JSON document's `location` is the path of layout names and indices to
//! the value (or key) at the offset: a key's path is its object's (`""` at the top level), a
//! value's path ends in its key. A failure with no offset (a missing key, a zero field) has the
//! field's path as `location` and its expectation as `expected`. `rule` is the J5 rule of a JSON
//! error, the T5 rule of a layout error inside the transcript, or the rule of the status (W5.2,
//! W5.3, O6.2); where the spec names two rules for one case (an unknown key in a message is J5.5
//! and T5.2), both are accepted.
//!
//! The reply rows are single-line ASCII, so a column is the offset plus one. A summary's own
//! failure counts bytes of the decoded summary text: each row writes that text, finds the offset in
//! it, and sends it JSON-escaped as Go does (`<` as `\u003c`), so the reply offset differs.

use testkit::abi::Input;
use testkit::diagnostic::Diag;
use testkit::spec::{EVENT_ID, REQUEST_FINGERPRINT};

use super::support::*;

const WIRE: i32 = status::LC_INPUT_WIRE;
const BASIS: i32 = status::LC_INPUT_BASIS;
const MODEL: i32 = status::LC_INPUT_MODEL;
const FINGERPRINT: i32 = status::LC_INPUT_REQUEST_FINGERPRINT;
const TRANSCRIPT: i32 = status::LC_INPUT_TRANSCRIPT;
const MAX_TOKENS: i32 = status::LC_INPUT_MAX_SUMMARY_TOKENS;

/// A valid input wire, one key per line (`"max_summary_tokens": 500`).
pub const INPUT: &str = r#"{
  "version": 1,
  "basis": {"revision": 7, "through_event_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7"},
  "model": {"provider": "acme", "model": "m1"},
  "request_fingerprint": "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
  "transcript": [
    {"role": "user", "blocks": [{"type": "text", "text": "héllo"}]},
    {"role": "assistant", "blocks": [{"type": "text", "text": "ok"}]}
  ],
  "max_summary_tokens": 500
}"#;

/// A valid summary (§4).
pub const SUMMARY: &str = "<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/>\
    </conversation_summary>";

/// A reply to [`INPUT`] (O6.2) with the given raw JSON values.
pub fn reply_with(revision: &str, event: &str, provider: &str, model: &str, fp: &str, summary: &str) -> String {
    format!(
        r#"{{"version":1,"basis":{{"revision":{revision},"through_event_id":"{event}"}},"model":{{"provider":"{provider}","model":"{model}"}},"request_fingerprint":"{fp}","summary":{summary}}}"#
    )
}

/// A reply to [`INPUT`] holding `summary` (JSON-escaped).
pub fn reply(summary: &str) -> String {
    reply_with("7", EVENT_ID, "acme", "m1", REQUEST_FINGERPRINT, &json_string(summary))
}

/// The token starting at `marker`: the spec defers a JSON error's offset to the plain function's
/// Rust error, which may point at the opening quote or at the first byte inside it.
fn token(x: &str, marker: &str) -> Off {
    let at = find(x, marker);
    Off::Within(at, at + 2)
}

fn input_cases() -> Vec<Case> {
    assert!(INPUT.contains(EVENT_ID) && INPUT.contains(REQUEST_FINGERPRINT));
    assert_eq!(kit::input_diagnose(INPUT.as_bytes()).0, 0, "the template must be valid");
    let mut cases = Vec::new();
    let mut add = |case: Case| cases.push(case);

    // J5.1 inside the transcript value is still step 1 (`wire`); after `,` a key is expected in
    // the first message: the path is that object's.
    let x = edit(INPUT, r#""héllo"}]},"#, r#""héllo"}],},"#);
    add(Case::new("J5.1 trailing comma in a message", x.clone(), WIRE, Off::At(find(&x, "],}") + 2, 7, 68))
        .rule("J5.1")
        .expected(Text::Any)
        // Ambiguous in C13.4: the `}` is where a key of transcript[0] was expected (a key's path is
        // its object's); the implementation names the last key read before it (`blocks`).
        .location(Text::OneOf(&["transcript[0]", "transcript[0].blocks"])));
    let x = edit(INPUT, "\"version\": 1,\n", "\"version\": 1,\n  \"extra\": 1,\n");
    add(Case::new("J5.5 unknown top-level key", x.clone(), WIRE, token(&x, "\"extra\""))
        .rule("J5.5")
        .expected(Text::Any)
        .at(""));
    let x = edit(INPUT, r#"{"role": "user", "#, r#"{"role": "user", "note": 1, "#);
    add(Case::new("J5.5/T5.2 unknown key in a message", x.clone(), TRANSCRIPT, token(&x, "\"note\""))
        .rules(&["J5.5", "T5.2"])
        .expected(Text::Any)
        .at("transcript[0]"));
    let x = edit(INPUT, "\"version\": 1,\n", "\"version\": 1,\n  \"version\": 1,\n");
    add(Case::new(
        "J5.5 duplicate top-level key",
        x.clone(),
        WIRE,
        Off::Within(rfind(&x, "\"version\""), rfind(&x, "\"version\"") + 2),
    )
    .rule("J5.5")
    .expected(Text::Any)
    .at(""));
    let x = edit(INPUT, r#""revision": 7,"#, r#""revision": 7, "revision": 7,"#);
    add(Case::new(
        "J5.5 duplicate key in basis",
        x.clone(),
        WIRE,
        Off::Within(rfind(&x, "\"revision\""), rfind(&x, "\"revision\"") + 2),
    )
    .rule("J5.5")
    .expected(Text::Any)
    .at("basis"));
    let x = edit(INPUT, r#""provider": "acme""#, r#""provider": 5"#);
    add(Case::new("J5.8 provider not a string", x.clone(), WIRE, Off::At(find(&x, "5,"), 4, 25))
        .rule("J5.8")
        .expects("a non-empty JSON string")
        .at("model.provider"));
    let x = edit(INPUT, r#""revision": 7"#, r#""revision": -1"#);
    add(Case::new("J5.6 negative revision", x.clone(), WIRE, Off::At(find(&x, "-1"), 3, 25))
        .rule("J5.6")
        .expected(Text::Any)
        .at("basis.revision"));
    // W5.2 step 1: `version` is a u8, so a fraction breaks J5.6 (C13.4: J5.6 an integer).
    let x = edit(INPUT, r#""version": 1"#, r#""version": 1.5"#);
    add(Case::new("J5.6 fractional version", x.clone(), WIRE, Off::At(find(&x, "1.5"), 2, 14))
        .rule("J5.6")
        .expects("1")
        .at("version"));
    let x = edit(INPUT, r#""max_summary_tokens": 500"#, r#""max_summary_tokens": 1.5"#);
    add(Case::new("J5.6 fractional max_summary_tokens", x.clone(), WIRE, Off::At(find(&x, "1.5"), 10, 25))
        .rule("J5.6")
        .expected(Text::Any)
        .at("max_summary_tokens"));
    // T5.5: the example path of C13.2.
    let x = edit(INPUT, r#""type": "text", "text": "héllo""#, r#""type": "texxt", "text": "héllo""#);
    add(Case::new("T5.5 unknown block type", x.clone(), TRANSCRIPT, token(&x, "\"texxt\""))
        .rule("T5.5")
        .expected(Text::Any)
        .at("transcript[0].blocks[0].type"));
    let x = edit(INPUT, r#""type": "text", "text": "ok""#, r#""type": "txt", "text": "ok""#);
    add(Case::new("T5.5 unknown block type, second message", x.clone(), TRANSCRIPT, token(&x, "\"txt\""))
        .rule("T5.5")
        .expected(Text::Any)
        .at("transcript[1].blocks[0].type"));
    // The same field with a value of the wrong JSON type: at the value, C13.2's example path.
    let x = edit(INPUT, r#""type": "text", "text": "héllo""#, r#""type": 5, "text": "héllo""#);
    add(Case::new("T5.5 block type not a string", x.clone(), TRANSCRIPT, Off::At(find(&x, "5, "), 7, 42))
        .rule("T5.5")
        .expected(Text::Any)
        .at("transcript[0].blocks[0].type"));
    let x = edit(INPUT, r#""type": "text", "text": "ok""#, r#""type": "text", "text": 5"#);
    add(Case::new("T5.5 text not a string", x.clone(), TRANSCRIPT, Off::At(find(&x, "5}"), 8, 63))
        .rules(&["T5.5", "J5.8"])
        .expects("a JSON string")
        .at("transcript[1].blocks[0].text"));
    let x = edit(
        INPUT,
        r#"{"type": "text", "text": "ok"}"#,
        r#"{"type": "audio", "media_type": "audio/wav", "data": "QR="}"#,
    );
    add(Case::new("T5.6 bad base64", x.clone(), TRANSCRIPT, token(&x, "\"QR=\""))
        .rule("T5.6")
        .expected(Text::Any)
        .at("transcript[1].blocks[0].data"));
    // J5.3 inside the reply's summary string is step 4 (`wire`), counted in reply bytes.
    // (A reply row: see `output_cases`.)
    // J5.3 inside the transcript counts at step 5 (`transcript`).
    let x = INPUT.replace("héllo", "h\u{0}llo").into_bytes();
    let x: Vec<u8> = x.into_iter().map(|b| if b == 0 { 0xFF } else { b }).collect();
    add(Case::new("J5.3 invalid UTF-8 in a text", x.clone(), TRANSCRIPT, Off::At(find(&x, b"\xff"), 7, 60))
        .rule("J5.3")
        .expected(Text::Any)
        .at("transcript[0].blocks[0].text"));
    // J5.2: 10001 levels in all; the tool input starts at level 6 (object, transcript, message,
    // blocks, block), so its 9996th `[` is level 10001. The path does not fit: it ends in `...`.
    let deep = format!("{}{}", "[".repeat(9996), "]".repeat(9996));
    let x = edit(
        INPUT,
        r#"{"type": "text", "text": "ok"}"#,
        &format!(r#"{{"type": "tool_use", "id": "t", "name": "n", "input": {deep}}}"#),
    );
    let at = find(&x, "[[[") + 9995;
    add(Case::new("J5.2 nesting 10001 deep", x.clone(), WIRE, Off::At(at, 8, line_column(x.as_bytes(), at).1))
        .rule("J5.2")
        .expected(Text::Any)
        .location(Text::Truncated("transcript[1].blocks[0].input[0][0]")));

    // Failures with no offset: a missing key, a zero field (C13.4).
    let x = edit(INPUT, "  ],\n  \"max_summary_tokens\": 500\n", "  ]\n");
    add(Case::new("W5.2 max_summary_tokens missing", x, WIRE, Off::Unknown)
        .rules(&["W5.2", "J5.8"])
        .expected(Text::NonEmpty)
        .at("max_summary_tokens"));
    let x = edit(INPUT, r#""max_summary_tokens": 500"#, r#""max_summary_tokens": 0"#);
    add(Case::new("W5.2 max_summary_tokens zero", x, MAX_TOKENS, Off::Unknown)
        .rule("W5.2")
        .expected(Text::NonEmpty)
        .at("max_summary_tokens"));
    // The rest are value checks after decoding; the spec does not say whether they keep an offset.
    let x = INPUT.replace(INPUT.get(INPUT.find("[\n").unwrap()..INPUT.find("],").unwrap() + 1).unwrap(), "[]");
    add(Case::new("W5.2 empty transcript", x, TRANSCRIPT, Off::Any).rule("W5.2").expected(Text::Any).at("transcript"));
    let x = edit(INPUT, EVENT_ID, &EVENT_ID.to_uppercase());
    let at = find(&x, "\"7C9E");
    add(Case::new("W5.3 upper-case UUID", x, BASIS, Off::Within(at, at + 2))
        .rule("W5.3")
        .expected(Text::Any)
        .at("basis.through_event_id"));
    let x = edit(INPUT, REQUEST_FINGERPRINT, &REQUEST_FINGERPRINT.replace('a', "A"));
    let at = find(&x, "\"0102");
    add(Case::new("W5.2 upper-case fingerprint", x, FINGERPRINT, Off::Within(at, at + 2))
        .rule("W5.2")
        .expected(Text::Any)
        .at("request_fingerprint"));
    let x = edit(INPUT, r#""revision": 7"#, r#""revision": 0"#);
    let at = find(&x, "0,");
    add(Case::new("W5.2 zero revision", x, BASIS, Off::Within(at, at + 1))
        .rule("W5.2")
        .expected(Text::Any)
        .at("basis.revision"));
    let x = edit(INPUT, EVENT_ID, "00000000-0000-0000-0000-000000000000");
    let at = find(&x, "\"0000");
    add(Case::new("W5.2 all-zero event id", x, BASIS, Off::Within(at, at + 2))
        .rules(&["W5.2", "W5.3"])
        .expected(Text::Any)
        .at("basis.through_event_id"));
    let x = edit(INPUT, r#""provider": "acme""#, r#""provider": """#);
    let at = find(&x, "\"\",");
    // W5.2 step 8: provider and model are non-empty (a JSON string alone would be no news).
    add(Case::new("W5.2 empty provider", x, MODEL, Off::Within(at, at + 2))
        .rule("W5.2")
        .expects("a non-empty JSON string")
        .at("model.provider"));
    let x = edit(INPUT, r#""model": "m1""#, r#""model": """#);
    let at = find(&x, "\"\"}");
    add(Case::new("W5.2 empty model", x, MODEL, Off::Within(at, at + 2))
        .rule("W5.2")
        .expects("a non-empty JSON string")
        .at("model.model"));
    let x = edit(INPUT, r#""model": "m1""#, r#""model": null"#);
    add(Case::new("W5.2 null model", x, WIRE, Off::Any)
        .rule("W5.2")
        .expects("a non-empty JSON string")
        .at("model.model"));
    let x = edit(INPUT, r#""version": 1"#, r#""version": 2"#);
    let at = find(&x, "2,");
    add(Case::new("W5.2 version 2", x, WIRE, Off::Within(at, at + 1)).rule("W5.2").expected(Text::Any).at("version"));
    // T5.2: a usage counter is a u64 or null (J5.6 for the integer).
    let x = edit(INPUT, r#"{"role": "assistant", "#, r#"{"role": "assistant", "usage": {"input_tokens": -1}, "#);
    add(Case::new("T5.2 negative usage counter", x.clone(), TRANSCRIPT, Off::At(find(&x, "-1"), 8, 53))
        .rules(&["T5.2", "J5.6"])
        .expected(Text::Any)
        .at("transcript[1].usage.input_tokens"));
    // T5.2: `tool_use_id` is required in a tool message; a missing key has no offset (C13.4).
    let x = edit(
        INPUT,
        r#"{"role": "assistant", "blocks": [{"type": "text", "text": "ok"}]}"#,
        r#"{"role": "tool", "blocks": [], "is_error": false}"#,
    );
    // C13.4: the keys do not fit the role: at the message's `{`, with the message's path.
    let at = find(&x, r#"{"role": "tool""#);
    add(Case::new("T5.2 tool_use_id missing", x, TRANSCRIPT, Off::Within(at, at + 1))
        .rules(&["T5.2", "J5.8"])
        .expected(Text::NonEmpty)
        .at("transcript[1]"));
    // J5.1: a second value after the first.
    let x = format!("{INPUT} {{}}");
    add(Case::new("J5.1 a second value", x.clone(), WIRE, Off::At(x.len() - 2, 11, 3))
        .rule("J5.1")
        .expected(Text::Any)
        .at(""));
    // C13.2: the path holds 127 bytes; one of 29 + 3 * 31 = 122 and one of 29 + 3 * 32 = 125
    // bytes fit whole, one of 128 does not.
    for (k, name) in [(31, "J5.1 a 122-byte path"), (32, "J5.1 a 125-byte path"), (33, "J5.1 a 128-byte path")] {
        let deep = format!("{}1,{}", "[".repeat(k), "]".repeat(k));
        let x = edit(
            INPUT,
            r#"{"type": "text", "text": "ok"}"#,
            &format!(r#"{{"type": "tool_use", "id": "t", "name": "n", "input": {deep}}}"#),
        );
        let at = find(&x, "1,]") + 2;
        let path: &'static str = format!("transcript[1].blocks[0].input{}", "[0]".repeat(k)).leak();
        let location =
            if path.len() < LOCATION_CAP { Text::Is(path) } else { Text::Truncated("transcript[1].blocks[0].input") };
        let case = Case::new(name, x.clone(), WIRE, Off::At(at, 8, line_column(x.as_bytes(), at).1))
            .rule("J5.1")
            .expected(Text::Any)
            .location(location);
        add(case);
    }
    cases
}

/// A reply row: the case (whose text is the reply, or the decoded summary for step 9), the reply
/// sent, `output_tokens` and `max_output_bytes`.
struct Row {
    case: Case,
    reply: Vec<u8>,
    tokens: u64,
    max: u64,
}

fn output_cases() -> Vec<Row> {
    let mut cases = Vec::new();
    let mut add = |case: Case, tokens: u64, max: u64| {
        // Step 9 rows hold the decoded summary; every other row holds the reply itself.
        let reply = if matches!(case.location, Text::Is("summary")) && case.rule_is_grammar() {
            reply(std::str::from_utf8(&case.text).unwrap()).into_bytes()
        } else {
            case.text.clone()
        };
        cases.push(Row { case, reply, tokens, max });
    };
    let ok = reply(SUMMARY);
    let n = ok.len() as u64;
    let at1 = |x: &str, marker: &str| {
        let at = find(x, marker);
        Off::At(at, 1, at as u64 + 1)
    };

    // O6.2 steps 1-3: limit and actual (C13.2), no offset.
    add(
        Case::new("O6.2 byte limit", ok.clone(), status::LC_SUMMARY_BYTE_LIMIT, Off::Unknown)
            .rule("O6.2")
            .limits(n - 1, n),
        100,
        n - 1,
    );
    add(
        // R15.2: no reply fits in 0 bytes: the host's limit, not the summariser's.
        Case::new("O6.2 byte limit 0", ok.clone(), status::LC_SUMMARY_BYTE_LIMIT, Off::Unknown)
            .rule("O6.2")
            .limits(0, n)
            .class(CLASS_HOST),
        100,
        0,
    );
    add(Case::new("O6.2 token usage", ok.clone(), status::LC_SUMMARY_TOKEN_USAGE, Off::Unknown).rule("O6.2"), 0, n);
    add(
        Case::new("O6.2 token limit", ok.clone(), status::LC_SUMMARY_TOKEN_LIMIT, Off::Unknown)
            .rule("O6.2")
            .limits(500, 501),
        501,
        n,
    );
    // The byte limit is step 1: it wins over the token checks, with the byte numbers.
    add(
        Case::new("O6.2 byte limit before token limit", ok.clone(), status::LC_SUMMARY_BYTE_LIMIT, Off::Unknown)
            .rule("O6.2")
            .limits(10, n)
            .class(CLASS_HOST),
        501,
        10,
    );

    // O6.2 step 8: the first field that differs, in C13.4's order, at the first byte of its value
    // in the reply (inside the quotes of a string, C13.4).
    let s = json_string(SUMMARY);
    let identity = status::LC_SUMMARY_IDENTITY;
    let other_event = "7c9e6679-7425-40de-944b-e07fc1f90ae8";
    let other_fp = REQUEST_FINGERPRINT.replace("1f20", "1f21");
    // The value after `marker` (a key with its colon, or a string's opening quote).
    let after = |x: &str, marker: &str| {
        let at = find(x, marker) + marker.len();
        Off::At(at, 1, at as u64 + 1)
    };
    let rows = [
        (
            "O6.2 identity: revision",
            reply_with("8", EVENT_ID, "acme", "m1", REQUEST_FINGERPRINT, &s),
            "basis.revision",
            "\"revision\":",
        ),
        (
            "O6.2 identity: zero revision (O6.3)",
            reply_with("0", EVENT_ID, "acme", "m1", REQUEST_FINGERPRINT, &s),
            "basis.revision",
            "\"revision\":",
        ),
        (
            "O6.2 identity: event id",
            reply_with("7", other_event, "acme", "m1", REQUEST_FINGERPRINT, &s),
            "basis.through_event_id",
            "\"through_event_id\":\"",
        ),
        (
            "O6.2 identity: provider case",
            reply_with("7", EVENT_ID, "Acme", "m1", REQUEST_FINGERPRINT, &s),
            "model.provider",
            "\"provider\":\"",
        ),
        (
            "O6.2 identity: model",
            reply_with("7", EVENT_ID, "acme", "m2", REQUEST_FINGERPRINT, &s),
            "model.model",
            "\"model\":\"",
        ),
        (
            "O6.2 identity: fingerprint",
            reply_with("7", EVENT_ID, "acme", "m1", &other_fp, &s),
            "request_fingerprint",
            "\"request_fingerprint\":\"",
        ),
        (
            "O6.2 identity: revision and model",
            reply_with("8", EVENT_ID, "acme", "m2", REQUEST_FINGERPRINT, &s),
            "basis.revision",
            "\"revision\":",
        ),
        (
            "O6.2 identity: model and fingerprint",
            reply_with("7", EVENT_ID, "acme", "m2", &other_fp, &s),
            "model.model",
            "\"model\":\"",
        ),
        // An escaped value that decodes to another id: still at the first byte inside its quotes.
        (
            "O6.2 identity: escaped provider",
            reply_with("7", EVENT_ID, "\\u0061cmf", "m1", REQUEST_FINGERPRINT, &s),
            "model.provider",
            "\"provider\":\"",
        ),
    ];
    for (name, x, location, marker) in rows {
        let at = after(&x, marker);
        add(Case::new(name, x, identity, at).rule("O6.2").at(location), 100, u64::MAX);
    }

    // O6.2 steps 4-7: the reply's own wire errors.
    let sw = status::LC_SUMMARY_WIRE;
    let x = ok.replacen("\"version\":1,", "\"version\":1,,", 1);
    add(
        Case::new("J5.1 reply: double comma", x.clone(), sw, Off::At(find(&x, ",,") + 1, 1, find(&x, ",,") as u64 + 2))
            .rule("J5.1")
            .expected(Text::Any)
            // Ambiguous, as the input's trailing comma: the last key read is `version`.
            .location(Text::OneOf(&["", "version"])),
        100,
        u64::MAX,
    );
    let x = ok.replacen("\"summary\":", "\"note\":1,\"summary\":", 1);
    add(
        Case::new("J5.5 reply: unknown key", x.clone(), sw, token(&x, "\"note\""))
            .rule("J5.5")
            .expected(Text::Any)
            .at(""),
        100,
        u64::MAX,
    );
    let x = reply_with("7", EVENT_ID, "acme", "m1", REQUEST_FINGERPRINT, "5");
    add(
        Case::new("J5.8 reply: summary not a string", x.clone(), sw, at1(&x, "5}"))
            .rule("J5.8")
            .expects("a JSON string")
            .at("summary"),
        100,
        u64::MAX,
    );
    let x = reply_with("7", EVENT_ID, "acme", "m1", REQUEST_FINGERPRINT, "null").replacen(",\"summary\":null", "", 1);
    add(
        Case::new("O6.2 reply: summary missing", x, sw, Off::Unknown)
            .rules(&["O6.2", "J5.8"])
            .expected(Text::NonEmpty)
            .at("summary"),
        100,
        u64::MAX,
    );
    let x = reply_with("7", &EVENT_ID.to_uppercase(), "acme", "m1", REQUEST_FINGERPRINT, &s);
    let at = find(&x, "\"7C9E");
    add(
        Case::new("O6.2 reply: upper-case UUID", x, sw, Off::Within(at, at + 2))
            .rules(&["O6.2", "W5.3"])
            .expected(Text::Any)
            .at("basis.through_event_id"),
        100,
        u64::MAX,
    );

    // O6.2 step 9: the decoded summary. Offsets, lines and columns count its bytes.
    let decoded = "<conversation_summary>\n<goal>ok</goal>\n<state>s</state><open_items/></conversation_summary>";
    let at = find(decoded, "<state>");
    assert_ne!(at, find(reply(decoded), "\\u003cstate"), "the row must tell decoded from reply offsets");
    add(
        Case::new(
            "X4.18 in a reply: missing constraints",
            decoded,
            status::LC_SUMMARY_XML_STRUCTURE,
            Off::At(at, 3, 1),
        )
        .section(CONSTRAINTS)
        .rule("X4.18")
        .expects("<constraints>")
        .at("summary"),
        100,
        u64::MAX,
    );
    // `café — ` is 9 bytes and 7 scalars: byte 37, column 36.
    let decoded = "<conversation_summary><goal>café — &bogus;</goal><constraints/><decisions/><state>s</state><open_items/>\
        </conversation_summary>";
    add(
        Case::new(
            "X4.6 in a reply, after \\u00e9",
            decoded,
            status::LC_SUMMARY_XML_SYNTAX,
            Off::At(find(decoded, "&bogus;"), 1, 36),
        )
        .section(GOAL)
        .rule("X4.6")
        .at("summary"),
        100,
        u64::MAX,
    );
    let decoded = "<conversation_summary><goal>a\u{0}b</goal><constraints/><decisions/><state>s</state><open_items/>\
        </conversation_summary>";
    add(
        Case::new("X4.8 in a reply: \\u0000", decoded, status::LC_SUMMARY_XML_SYNTAX, Off::At(29, 1, 30))
            .section(GOAL)
            .rule("X4.8")
            .at("summary"),
        100,
        u64::MAX,
    );
    let decoded = "<conversation_summary><goal> </goal><constraints/><decisions/><state>s</state><open_items/>\
        </conversation_summary>";
    add(
        Case::new("X4.20 in a reply: blank goal", decoded, status::LC_SUMMARY_XML_CONTENT, Off::At(22, 1, 23))
            .section(GOAL)
            .rule("X4.20")
            .expects("non-blank text")
            .at("summary"),
        100,
        u64::MAX,
    );
    // J5.4: a lone surrogate escape decodes to U+FFFD (3 bytes, 1 column) in the decoded text.
    let x = reply_with(
        "7",
        EVENT_ID,
        "acme",
        "m1",
        REQUEST_FINGERPRINT,
        r#""\u003cconversation_summary\u003e\u003cgoal\u003e\ud800 &bogus;""#,
    );
    let decoded = "<conversation_summary><goal>\u{FFFD} &bogus;";
    let at = find(decoded, "&bogus;");
    let case = Case::new(
        "X4.6 in a reply, after a lone surrogate",
        decoded,
        status::LC_SUMMARY_XML_SYNTAX,
        Off::At(at, 1, 31),
    )
    .section(GOAL)
    .rule("X4.6")
    .at("summary");
    // Its reply is not the decoded text JSON-escaped (the escape is a surrogate): added as is.
    let surrogate = Row { case, reply: x.into_bytes(), tokens: 100, max: u64::MAX };
    // J5.3 inside the summary string is step 4 (`wire`): offsets count reply bytes.
    let mut x = reply("<conversation_summary><goal>\u{e9}</goal></conversation_summary>").into_bytes();
    let at = find(&x, "\\u00e9");
    x.splice(at..at + 6, [0xFF]);
    add(
        Case::new("J5.3 reply: invalid UTF-8 in the summary", x.clone(), sw, Off::At(at, 1, at as u64 + 1))
            .rule("J5.3")
            .expected(Text::Any)
            .at("summary"),
        100,
        u64::MAX,
    );
    add(
        Case::new("X4.20 in a reply: empty summary (O6.3)", "", status::LC_SUMMARY_XML_ROOT, Off::At(0, 1, 1))
            .section(ROOT)
            .rule("X4.20")
            .expects("<conversation_summary>")
            .at("summary"),
        100,
        u64::MAX,
    );
    cases.push(surrogate);
    cases
}

#[test]
fn input_table() {
    run(&input_cases(), |case| kit::input_diagnose(&case.text));
}

#[test]
fn output_table() {
    output_rows();
}

fn output_rows() {
    let input = Input::parse(INPUT.as_bytes()).unwrap();
    assert_eq!(input.output(reply(SUMMARY).as_bytes(), 100, u64::MAX).unwrap(), SUMMARY.as_bytes());
    let rows = output_cases();
    let cases: Vec<Case> = rows.iter().map(|row| row.case.clone()).collect();
    run(&cases, |case| {
        let row = rows.iter().find(|row| row.case.name == case.name).unwrap();
        let (result, diag): (Result<Vec<u8>, i32>, Diag) = input.output_diagnose(&row.reply, row.tokens, row.max);
        (result.err().unwrap_or(0), diag)
    });
}

/// C13.4 for `LC_OK`: only status and class (checked by the wrapper); the summary is written as by
/// the plain function.
#[test]
fn ok_says_nothing_more() {
    let (rc, diag) = kit::input_diagnose(INPUT.as_bytes());
    assert_eq!((rc, diag.status_class, diag.offset()), (0, CLASS_OK, None));
    let input = Input::parse(INPUT.as_bytes()).unwrap();
    let (result, diag) = input.output_diagnose(reply(SUMMARY).as_bytes(), 100, u64::MAX);
    assert_eq!(result.unwrap(), SUMMARY.as_bytes());
    assert_eq!((diag.status, diag.status_class, diag.location.as_str()), (0, CLASS_OK, ""));
}

/// Boundary codes (C13.4): the sibling returns the plain function's boundary status, and the
/// diagnosis says only that (the wrapper checks the empty fields).
#[test]
fn boundary_statuses() {
    use loopcompact::ffi;
    let mut buf = DiagBuf::new(DIAG_SIZE);
    // SAFETY: (NULL, 1) is a boundary error checked before any read (A3.1); `buf` is a diagnostic.
    let rc = unsafe { ffi::lc_compaction_input_diagnose(std::ptr::null(), 1, buf.as_mut_ptr()) };
    assert_eq!(rc, status::LC_ERR_NULL_ARGUMENT);
    let diag = testkit::diagnostic::read_back(rc, &buf);
    assert_eq!(diag.status_class, CLASS_HOST);

    let input = Input::parse(INPUT.as_bytes()).unwrap();
    let reply = reply(SUMMARY);
    let mut buf = DiagBuf::new(DIAG_SIZE);
    let mut len = usize::MAX;
    // SAFETY: a live handle and reply; NULL with capacity 0 is the size query; `buf` a diagnostic.
    let rc = unsafe {
        ffi::lc_compaction_output_diagnose(
            input.as_ptr(),
            reply.as_ptr(),
            reply.len(),
            100,
            u64::MAX,
            std::ptr::null_mut(),
            0,
            &raw mut len,
            buf.as_mut_ptr(),
        )
    };
    assert_eq!((rc, len), (status::LC_ERR_BUFFER_TOO_SMALL, SUMMARY.len()), "the size query, as the plain function");
    let diag = testkit::diagnostic::read_back(rc, &buf);
    assert_eq!(diag.status_class, CLASS_HOST);
    // SAFETY: a NULL handle is a boundary error.
    let rc = unsafe {
        ffi::lc_compaction_output_diagnose(
            std::ptr::null(),
            reply.as_ptr(),
            reply.len(),
            100,
            u64::MAX,
            std::ptr::null_mut(),
            0,
            &raw mut len,
            buf.as_mut_ptr(),
        )
    };
    assert_eq!(rc, status::LC_ERR_NULL_ARGUMENT);
    testkit::diagnostic::read_back(rc, &buf);
}

/// The one-pass siblings (they check the buffer as their plain function does, then read the
/// document once): each boundary status is the plain function's, in its order of checks, with a
/// diagnosis of that status alone.
#[test]
fn one_pass_siblings_keep_the_plain_boundary_statuses() {
    use loopcompact::ffi;
    let doc = b"{}";
    let huge = isize::MAX as usize + 1;
    type Sibling = unsafe fn(*const u8, usize, *mut ffi::lc_diagnostic) -> i32;
    type Plain = unsafe fn(*const u8, usize) -> i32;
    // SAFETY (each): the calls below give the plain function's arguments and a diagnostic.
    let pairs: [(&str, Plain, Sibling); 6] = [
        (
            "summary",
            |p, n| unsafe { ffi::lc_summary_xml_validate(p, n) },
            |p, n, d| unsafe { ffi::lc_summary_xml_diagnose(p, n, d) },
        ),
        (
            "input",
            |p, n| unsafe { ffi::lc_compaction_input_validate(p, n) },
            |p, n, d| unsafe { ffi::lc_compaction_input_diagnose(p, n, d) },
        ),
        (
            "policy",
            |p, n| unsafe { ffi::lc_compaction_policy_validate(p, n, 2) },
            |p, n, d| unsafe { ffi::lc_compaction_policy_diagnose(p, n, 2, d) },
        ),
        (
            "observation",
            |p, n| unsafe { ffi::lc_context_observation_validate(p, n, 2) },
            |p, n, d| unsafe { ffi::lc_context_observation_diagnose(p, n, 2, d) },
        ),
        (
            "config",
            |p, n| unsafe { ffi::lc_context_config_validate(p, n) },
            |p, n, d| unsafe { ffi::lc_context_config_diagnose(p, n, d) },
        ),
        (
            "fingerprint",
            |p, n| unsafe { ffi::lc_request_fingerprint(p, n, [0u8; 32].as_mut_ptr()) },
            |p, n, d| unsafe { ffi::lc_request_fingerprint_diagnose(p, n, [0u8; 32].as_mut_ptr(), d) },
        ),
    ];
    // (NULL, 1): NULL argument; a length above isize::MAX: overflow, checked before any read (A3.1);
    // (NULL, 0): the empty document, a content failure with its diagnosis.
    let cases =
        [(std::ptr::null(), 1, status::LC_ERR_NULL_ARGUMENT), (doc.as_ptr(), huge, status::LC_ERR_LENGTH_OVERFLOW)];
    for (name, plain, sibling) in pairs {
        for (ptr, len, expected) in cases {
            // SAFETY: boundary errors, found before the buffer is read.
            let rc = unsafe { plain(ptr, len) };
            assert_eq!(rc, expected, "{name}: the plain function");
            let mut buf = DiagBuf::new(DIAG_SIZE);
            // SAFETY: as above; `buf` is a diagnostic.
            let rc = unsafe { sibling(ptr, len, buf.as_mut_ptr()) };
            assert_eq!(rc, expected, "{name}: the sibling, as the plain function");
            let diag = testkit::diagnostic::read_back(rc, &buf);
            assert_eq!((diag.status, diag.status_class, diag.offset()), (expected, CLASS_HOST, None), "{name}");
        }
        // SAFETY: the empty document; `buf` a diagnostic.
        let (rc, sibling_rc) =
            unsafe { (plain(std::ptr::null(), 0), sibling(std::ptr::null(), 0, DiagBuf::new(DIAG_SIZE).as_mut_ptr())) };
        assert!(rc != 0 && sibling_rc == rc, "{name}: the empty document fails alike ({rc}, {sibling_rc})");
    }
    // The fingerprint's `out` is checked after `json`'s pointer and before its length, as
    // `lc_request_fingerprint` checks it.
    let mut buf = DiagBuf::new(DIAG_SIZE);
    // SAFETY: a NULL `out` is a boundary error, found before anything is read or written.
    let (plain, rc) = unsafe {
        (
            ffi::lc_request_fingerprint(doc.as_ptr(), huge, std::ptr::null_mut()),
            ffi::lc_request_fingerprint_diagnose(doc.as_ptr(), huge, std::ptr::null_mut(), buf.as_mut_ptr()),
        )
    };
    assert_eq!((plain, rc), (status::LC_ERR_NULL_ARGUMENT, status::LC_ERR_NULL_ARGUMENT));
    let diag = testkit::diagnostic::read_back(rc, &buf);
    assert_eq!(diag.status, status::LC_ERR_NULL_ARGUMENT);
}

/// C13.4: a JSON document's offset counts bytes of the document "as the plain function's Rust
/// error": on every row of the input table, the diagnosis's offset is the safe API's.
#[test]
fn input_offsets_are_the_plain_errors() {
    for case in input_cases() {
        let plain = loopcompact::wire::CompactionInput::validate(&case.text).unwrap_err();
        let (rc, diag) = kit::input_diagnose(&case.text);
        assert_eq!(rc, plain.status().code(), "{}", case.name);
        assert_eq!(diag.offset(), plain.offset().map(|o| o as u64), "{}: offset vs the plain error's", case.name);
    }
}

/// C13.2: `limit` and `actual` are known or unknown together, even when the reply claims 2^64 − 1
/// output tokens (found by the output_validate fuzz target): the known value is written as
/// 2^64 − 2, never as `LC_LIMIT_UNKNOWN`.
#[test]
fn a_known_value_never_reads_as_unknown() {
    let input = Input::parse(INPUT.as_bytes()).unwrap();
    let (result, diag) = input.output_diagnose(reply(SUMMARY).as_bytes(), u64::MAX, u64::MAX);
    assert_eq!(result, Err(205));
    assert_eq!((diag.limit, diag.actual), (500, u64::MAX - 1));
}
