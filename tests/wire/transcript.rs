//! The transcript (SPEC §5.3): every block kind of T5.5 with its required, optional and
//! unknown keys, the block `type` key, image sources and byte fields (T5.6), messages and roles
//! (T5.1, T5.2), the depth of tool results (T5.3) and of the whole document (J5.2).

use super::support::*;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Req {
    /// Required, not `null`.
    Required,
    /// Required, may be `null`.
    Nullable,
    /// Optional: absent or `null` is fine.
    Optional,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Str,
    Bytes,
    Source,
    Content,
    Bool,
    Raw,
}

struct Field {
    key: &'static str,
    value: &'static str,
    req: Req,
    ty: Ty,
}

struct Kind {
    name: &'static str,
    fields: &'static [Field],
}

const fn f(key: &'static str, value: &'static str, req: Req, ty: Ty) -> Field {
    Field { key, value, req, ty }
}

/// SPEC T5.5, one valid value per key.
const KINDS: &[Kind] = &[
    Kind { name: "text", fields: &[f("text", r#""hi""#, Req::Required, Ty::Str)] },
    Kind { name: "refusal", fields: &[f("text", r#""no""#, Req::Required, Ty::Str)] },
    Kind {
        name: "image",
        fields: &[
            f("media_type", r#""image/png""#, Req::Required, Ty::Str),
            f("source", r#"{"url":"https://example.com/a.png","data":"QUJD"}"#, Req::Required, Ty::Source),
        ],
    },
    Kind {
        name: "audio",
        fields: &[
            f("media_type", r#""audio/wav""#, Req::Required, Ty::Str),
            f("data", r#""QUJD""#, Req::Nullable, Ty::Bytes),
        ],
    },
    Kind {
        name: "document",
        fields: &[
            f("media_type", r#""application/pdf""#, Req::Required, Ty::Str),
            f("name", r#""a.pdf""#, Req::Required, Ty::Str),
            f("data", r#""QUJD""#, Req::Nullable, Ty::Bytes),
            f("text", r#""body""#, Req::Required, Ty::Str),
        ],
    },
    Kind {
        name: "thinking",
        fields: &[
            f("thinking", r#""hmm""#, Req::Required, Ty::Str),
            f("signature", r#""sig""#, Req::Required, Ty::Str),
            f("signature_format", r#""v1""#, Req::Optional, Ty::Str),
            f("provider_state", r#"{"k":[1,"x"]}"#, Req::Optional, Ty::Raw),
            f("provider_state_format", r#""fmt""#, Req::Optional, Ty::Str),
        ],
    },
    Kind {
        name: "tool_use",
        fields: &[
            f("id", r#""tu_1""#, Req::Required, Ty::Str),
            f("name", r#""read""#, Req::Required, Ty::Str),
            f("input", r#"{"path":"a"}"#, Req::Nullable, Ty::Raw),
            f("provider_state", r#"{"k":1}"#, Req::Optional, Ty::Raw),
            f("provider_state_format", r#""fmt""#, Req::Optional, Ty::Str),
        ],
    },
    Kind {
        name: "tool_result",
        fields: &[
            f("tool_use_id", r#""tu_1""#, Req::Required, Ty::Str),
            f("content", r#"[{"type":"text","text":"out"}]"#, Req::Required, Ty::Content),
            f("is_error", "false", Req::Required, Ty::Bool),
        ],
    },
];

/// A block of `kind` with these fields, `type` first.
fn block(kind: &str, fields: &[(&str, &str)]) -> String {
    let ty = s(kind);
    let mut pairs = vec![("type", ty.as_str())];
    pairs.extend_from_slice(fields);
    obj(&pairs)
}

fn fields_of(kind: &Kind, keep: impl Fn(&Field) -> bool) -> Vec<(&'static str, &'static str)> {
    kind.fields.iter().filter(|f| keep(f)).map(|f| (f.key, f.value)).collect()
}

/// Values of the wrong JSON type for a field type (J5.8, D4).
fn wrong_values(ty: Ty) -> &'static [&'static str] {
    match ty {
        Ty::Str => &["1", "true", "false", "[]", "{}", r#"["x"]"#, "1.5", r#"{"x":"y"}"#],
        Ty::Bytes => &["1", "true", "{}", "[]", "[1,2]", "[65,66,67]", r#"["QUJD"]"#, r#"{"data":"QUJD"}"#],
        Ty::Source => &[r#""https://example.com""#, "1", "true", "[]", r#"["u",null]"#],
        Ty::Content => {
            &["{}", r#""x""#, "1", "true", "[1]", "[null]", r#"["x"]"#, "[[]]", r#"{"type":"text","text":"x"}"#]
        }
        Ty::Bool => &[r#""false""#, "0", "1", "[]", "{}", r#""true""#],
        Ty::Raw => &[],
    }
}

#[test]
fn every_block_kind_required_optional_and_unknown_keys() {
    let mut c = Cases::default();
    let all_keys: Vec<&Field> = KINDS.iter().flat_map(|k| k.fields.iter()).collect();
    for kind in KINDS {
        let n = kind.name;
        c.input(format!("{n}: every key"), &block_doc(&block(n, &fields_of(kind, |_| true))), OK);
        let minimal = fields_of(kind, |f| f.req != Req::Optional);
        c.input(format!("{n}: required keys only"), &block_doc(&block(n, &minimal)), OK);
        // Key order is free (J5.5): `type` last, fields reversed.
        let mut reversed: Vec<(&str, &str)> = fields_of(kind, |_| true);
        reversed.reverse();
        let ty = s(n);
        reversed.push(("type", &ty));
        c.input(format!("{n}: type last"), &block_doc(&obj(&reversed)), OK);

        for field in kind.fields {
            let k = field.key;
            let others = fields_of(kind, |g| g.key != k);
            let with = |value: &str| {
                let mut pairs: Vec<(&str, &str)> = others.clone();
                pairs.push((k, value));
                block_doc(&block(n, &pairs))
            };
            // Missing.
            let expect_missing = if field.req == Req::Optional { OK } else { TRANSCRIPT };
            c.input(format!("{n}: {k} absent (T5.5)"), &block_doc(&block(n, &others)), expect_missing);
            // null.
            let expect_null = if field.req == Req::Required { TRANSCRIPT } else { OK };
            c.input(format!("{n}: {k} null (T5.5)"), &with("null"), expect_null);
            // Wrong types (J5.8, D4).
            for wrong in wrong_values(field.ty) {
                c.input(format!("{n}: {k} = {wrong} (J5.8)"), &with(wrong), TRANSCRIPT);
            }
            // Raw values take any JSON value (J5.9).
            if field.ty == Ty::Raw {
                for any in ["null", "1", "-0", "1.50", "1E2", r#""s""#, "[]", "{}", "true", r#"[1,{"a":[]},"x"]"#] {
                    c.input(format!("{n}: {k} = {any} (J5.9)"), &with(any), OK);
                }
            }
            // Repeated key (D2).
            let mut twice = fields_of(kind, |_| true);
            twice.push((k, field.value));
            c.input(format!("{n}: {k} twice (D2)"), &block_doc(&block(n, &twice)), TRANSCRIPT);
        }

        // Unknown keys, and keys of other kinds, fail (T5.5), whatever their value.
        for extra in [("extra", "1"), ("extra", "null"), ("Type", r#""text""#), ("", "1")] {
            let mut pairs = fields_of(kind, |_| true);
            pairs.push(extra);
            c.input(format!("{n}: extra key {extra:?}"), &block_doc(&block(n, &pairs)), TRANSCRIPT);
        }
        for foreign in &all_keys {
            if kind.fields.iter().any(|g| g.key == foreign.key) {
                continue;
            }
            let mut pairs = fields_of(kind, |_| true);
            pairs.push((foreign.key, foreign.value));
            c.input(format!("{n}: key {} of another kind", foreign.key), &block_doc(&block(n, &pairs)), TRANSCRIPT);
            let mut pairs = fields_of(kind, |_| true);
            pairs.push((foreign.key, "null"));
            c.input(
                format!("{n}: key {}:null of another kind", foreign.key),
                &block_doc(&block(n, &pairs)),
                TRANSCRIPT,
            );
        }
        // `type` twice, also through an escape (J5.5).
        let mut pairs: Vec<(&str, &str)> = fields_of(kind, |_| true);
        let ty = s(n);
        pairs.push(("type", &ty));
        c.input(format!("{n}: type twice"), &block_doc(&block(n, &pairs)), TRANSCRIPT);
        let mut pairs: Vec<(&str, &str)> = fields_of(kind, |_| true);
        pairs.push((r"\u0074ype", &ty));
        c.input(format!("{n}: type twice, once escaped"), &block_doc(&block(n, &pairs)), TRANSCRIPT);
    }
    c.finish();
}

#[test]
fn block_type_key() {
    let mut c = Cases::default();
    let text = r#""text":"hi""#;
    let with_type = |ty: &str| block_doc(&format!("{{\"type\":{ty},{text}}}"));
    c.input("type absent", &block_doc(&format!("{{{text}}}")), TRANSCRIPT);
    for bad in [
        "null",
        "1",
        "true",
        "[]",
        "{}",
        r#"["text"]"#,
        r#""Text""#,
        r#""TEXT""#,
        r#""text ""#,
        r#"" text""#,
        r#""""#,
        r#""unknown""#,
        r#""tool-use""#,
        r#""toolUse""#,
        r#""Tool_use""#,
        r#""ima\u0261e""#,
        r#""te\u212Ast""#,
    ] {
        c.input(format!("type {bad}"), &with_type(bad), TRANSCRIPT);
    }
    // Escapes are decoded before the comparison (J5.4, J5.5).
    c.input("type escaped", &with_type(r#""t\u0065xt""#), OK);
    c.input("type key escaped", &block_doc(&format!("{{\"\\u0074ype\":\"text\",{text}}}")), OK);
    // A block must be an object (T5.5).
    for not_object in ["null", "1", r#""text""#, "[]", r#"[{"type":"text","text":"x"}]"#] {
        c.input(format!("block {not_object}"), &block_doc(not_object), TRANSCRIPT);
    }
    c.finish();
}

#[test]
fn image_source() {
    let mut c = Cases::default();
    let image = |source: &str| block_doc(&block("image", &[("media_type", "\"image/png\""), ("source", source)]));
    for ok in [
        r#"{"url":"https://example.com/a.png","data":null}"#,
        r#"{"url":"","data":""}"#,
        r#"{"data":"QUJD","url":"u"}"#,
    ] {
        c.input(format!("source {ok}"), &image(ok), OK);
    }
    for bad in [
        r#"{"url":"u"}"#,
        r#"{"data":"QUJD"}"#,
        r#"{"data":null}"#,
        "{}",
        r#"{"url":null,"data":null}"#,
        r#"{"url":1,"data":null}"#,
        r#"{"url":"u","data":null,"x":1}"#,
        r#"{"url":"u","data":null,"media_type":"m"}"#,
        r#"{"url":"u","data":null,"url":"v"}"#,
        r#"{"url":"u","data":null,"data":null}"#,
        r#"{"url":"u","\u0075rl":"v","data":null}"#,
        r#"{"url":"u","data":[1,2]}"#,
        r#"{"url":"u","data":"QQ"}"#,
        r#"{"URL":"u","data":null}"#,
        r#"{"url":"u","Data":null}"#,
        "null",
    ] {
        c.input(format!("source {bad}"), &image(bad), TRANSCRIPT);
    }
    // `data` belongs inside `source`, not beside it.
    c.input(
        "image with data beside source",
        &block_doc(&block(
            "image",
            &[("media_type", "\"m\""), ("source", r#"{"url":"u","data":null}"#), ("data", "null")],
        )),
        TRANSCRIPT,
    );
    c.finish();
}

#[test]
fn base64_bytes_t5_6() {
    let mut c = Cases::default();
    let audio = |data: &str| block_doc(&block("audio", &[("media_type", "\"audio/wav\""), ("data", data)]));
    let ok = [
        "null",
        r#""""#,
        r#""QUJD""#,
        r#""QQ==""#,
        r#""QUI=""#,
        r#""QR==""#, // unused low bits are ignored
        r#""QUJ=""#, // likewise with one `=`
        r#""////""#,
        r#""+/+/""#,
        r#""\/\/\/\/""#, // escapes are decoded first (J5.4)
        r#""\u0051\u0051==""#,
        r#""QU\r\nJD""#,
        r#""QU\nJD""#,
        r#""QU\rJD""#,
        r#""\r\nQUJD""#,
        r#""QUJD\r\n""#,
        r#""QQ==\n""#,
        r#""Q\nQ\n=\n=""#,
        r#""\n""#,
        r#""\r\n\r\n""#,
        r#""QUJDQUJD\nQUJD""#,
    ];
    for data in ok {
        c.input(format!("data {data}"), &audio(data), OK);
    }
    let bad = [
        r#""QQ""#, // missing padding
        r#""QUI""#,
        r#""Q""#,
        r#""QQ=""#,
        r#""QUJD=""#,
        r#""Q===""#,
        r#""====""#,
        r#""=""#,
        r#""QQ==QQ==""#, // nothing may follow the padding
        r#""QQ==\nQQ==""#,
        r#""QQ==A""#,
        r#""Q=JD""#,
        r#""QU-_""#, // URL-safe alphabet
        r#""QUJ-""#,
        r#""QUJ_""#,
        r#""QU JD""#, // spaces
        r#""QUJD ""#,
        r#"" QUJD""#,
        r#""\tQUJD""#,
        r#""QUJD\u0000""#,
        r#""QUJD\u000b""#,
        r#""QUJD\f""#,
        r#""QUJ\u00e9""#,
        r#""QUJ.""#,
        "[1,2]", // D4
        "[]",
        "[65]",
        "0",
        "false",
        "{}",
    ];
    for data in bad {
        c.input(format!("data {data}"), &audio(data), TRANSCRIPT);
    }
    // The same strings after a long run of alphabet characters (a multiple of 4, so the verdict
    // cannot change): the parser takes whole 32-byte chunks of such a run from the base64 scan,
    // and these cross every chunk boundary.
    for run in [28, 32, 36, 60, 64, 68, 124, 128] {
        let long: String = "QUJD".repeat(run / 4);
        for (data, want) in ok.iter().map(|d| (d, OK)).chain(bad.iter().map(|d| (d, TRANSCRIPT))) {
            if let Some(body) = data.strip_prefix('"') {
                c.input(format!("data of {run} + {data}"), &audio(&format!("\"{long}{body}")), want);
            }
        }
        let raw = |bytes: &[u8]| splice(&audio(r#""QUJD""#), b"QUJD", &[long.as_bytes(), bytes].concat());
        c.input(format!("data of {run} + raw LF"), &raw(b"QU\nJD"), WIRE);
        c.input(format!("data of {run} + raw NUL"), &raw(b"\0QUJD"), WIRE);
        c.input(format!("data of {run} + raw DEL"), &raw(b"QUJ\x7f"), TRANSCRIPT);
        c.input(format!("data of {run} + invalid UTF-8"), &raw(b"QU\xff"), TRANSCRIPT);
        c.input(format!("data of {run} + bad escape"), &raw(b"QU\\x"), WIRE);
        // Unterminated: the document ends inside the string, right after the run.
        let mut cut = raw(b"");
        let end = cut.windows(long.len()).position(|w| w == long.as_bytes()).unwrap() + long.len();
        cut.truncate(end);
        c.input(format!("data of {run}, cut after the run"), &cut, WIRE);
    }
    // A raw CR or LF inside the JSON string is a J5.1 error of the whole document (`wire`), unlike the
    // escaped forms above.
    c.input("raw LF in data", &splice(&audio(r#""QUJD""#), b"QUJD", b"QU\nJD"), WIRE);
    c.input("raw CR in data", &splice(&audio(r#""QUJD""#), b"QUJD", b"QU\rJD"), WIRE);
    // The same rules for document data and image source data.
    let document = |data: &str| {
        block_doc(&block("document", &[("media_type", "\"m\""), ("name", "\"n\""), ("data", data), ("text", "\"t\"")]))
    };
    let image = |data: &str| {
        block_doc(&block("image", &[("media_type", "\"m\""), ("source", &obj(&[("url", "\"u\""), ("data", data)]))]))
    };
    for (data, expect) in [(r#""QR==""#, OK), (r#""QQ""#, TRANSCRIPT), ("[1,2]", TRANSCRIPT), (r#""QU-_""#, TRANSCRIPT)]
    {
        c.input(format!("document data {data}"), &document(data), expect);
        c.input(format!("image data {data}"), &image(data), expect);
    }
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// T5.1, T5.2 messages

#[test]
fn messages_and_roles() {
    let mut c = Cases::default();
    let b = r#"[{"type":"text","text":"x"}]"#;
    // user and system: role, blocks.
    for role in ["user", "system"] {
        let r = s(role);
        c.input(role, &msg_doc(&obj(&[("role", &r), ("blocks", b)])), OK);
        c.input(format!("{role} empty blocks"), &msg_doc(&obj(&[("role", &r), ("blocks", "[]")])), OK);
        c.input(format!("{role} blocks first"), &msg_doc(&obj(&[("blocks", b), ("role", &r)])), OK);
        for (k, v) in [
            ("usage", "null"),
            ("usage", "{}"),
            ("tool_use_id", r#""t""#),
            ("is_error", "false"),
            ("extra", "1"),
            ("content", "[]"),
            ("type", r#""text""#),
        ] {
            c.input(format!("{role} with {k}"), &msg_doc(&obj(&[("role", &r), ("blocks", b), (k, v)])), TRANSCRIPT);
        }
    }
    // assistant: role, blocks, usage (optional).
    let a = |extra: &[(&str, &str)]| {
        let mut pairs = vec![("role", "\"assistant\""), ("blocks", b)];
        pairs.extend_from_slice(extra);
        msg_doc(&obj(&pairs))
    };
    c.input("assistant no usage", &a(&[]), OK);
    c.input("assistant usage null", &a(&[("usage", "null")]), OK);
    c.input("assistant usage {}", &a(&[("usage", "{}")]), OK);
    c.input(
        "assistant usage all five",
        &a(&[("usage", r#"{"input_tokens":1,"output_tokens":2,"cache_read_tokens":3,"cache_creation_tokens":4,"reasoning_tokens":5}"#)]),
        OK,
    );
    c.input(
        "assistant usage all null",
        &a(&[("usage", r#"{"input_tokens":null,"output_tokens":null,"cache_read_tokens":null,"cache_creation_tokens":null,"reasoning_tokens":null}"#)]),
        OK,
    );
    // No relation between the counters is checked (§5 additions).
    c.input("assistant reasoning > output", &a(&[("usage", r#"{"output_tokens":1,"reasoning_tokens":99}"#)]), OK);
    c.input("assistant usage u64 max", &a(&[("usage", r#"{"input_tokens":18446744073709551615}"#)]), OK);
    for bad in [
        r#"{"input_tokens":18446744073709551616}"#,
        r#"{"input_tokens":-1}"#,
        r#"{"input_tokens":-0}"#,
        r#"{"input_tokens":1.0}"#,
        r#"{"input_tokens":1e2}"#,
        r#"{"input_tokens":"1"}"#,
        r#"{"input_tokens":true}"#,
        r#"{"total_tokens":1}"#,
        r#"{"Input_tokens":1}"#,
        r#"{"input_tokens":1,"input_tokens":1}"#,
        r#"{"input_tokens":1,"\u0069nput_tokens":1}"#,
        "[]",
        "1",
        r#""usage""#,
        "true",
    ] {
        c.input(format!("assistant usage {bad}"), &a(&[("usage", bad)]), TRANSCRIPT);
    }
    c.input("assistant usage twice", &a(&[("usage", "null"), ("usage", "null")]), TRANSCRIPT);
    for (k, v) in [("tool_use_id", r#""t""#), ("is_error", "true"), ("extra", "null")] {
        c.input(format!("assistant with {k}"), &a(&[(k, v)]), TRANSCRIPT);
    }
    // tool: role, blocks, tool_use_id, is_error (both required, not null).
    let t = |pairs: &[(&str, &str)]| {
        let mut all = vec![("role", "\"tool\""), ("blocks", b)];
        all.extend_from_slice(pairs);
        msg_doc(&obj(&all))
    };
    c.input("tool", &t(&[("tool_use_id", r#""t""#), ("is_error", "false")]), OK);
    c.input("tool empty id", &t(&[("tool_use_id", r#""""#), ("is_error", "true")]), OK);
    c.input("tool keys reversed", &t(&[("is_error", "true"), ("tool_use_id", r#""t""#)]), OK);
    c.input("tool without tool_use_id", &t(&[("is_error", "false")]), TRANSCRIPT);
    c.input("tool without is_error", &t(&[("tool_use_id", r#""t""#)]), TRANSCRIPT);
    c.input("tool without both", &t(&[]), TRANSCRIPT);
    c.input("tool tool_use_id null", &t(&[("tool_use_id", "null"), ("is_error", "false")]), TRANSCRIPT);
    c.input("tool is_error null", &t(&[("tool_use_id", r#""t""#), ("is_error", "null")]), TRANSCRIPT);
    c.input("tool tool_use_id number", &t(&[("tool_use_id", "1"), ("is_error", "false")]), TRANSCRIPT);
    c.input("tool is_error string", &t(&[("tool_use_id", r#""t""#), ("is_error", r#""false""#)]), TRANSCRIPT);
    c.input("tool is_error 0", &t(&[("tool_use_id", r#""t""#), ("is_error", "0")]), TRANSCRIPT);
    c.input("tool with usage", &t(&[("tool_use_id", r#""t""#), ("is_error", "false"), ("usage", "null")]), TRANSCRIPT);
    c.input(
        "tool is_error twice",
        &t(&[("tool_use_id", r#""t""#), ("is_error", "false"), ("is_error", "false")]),
        TRANSCRIPT,
    );
    // blocks: required, not null, an array.
    for role in ["user", "system", "assistant"] {
        let r = s(role);
        c.input(format!("{role} without blocks"), &msg_doc(&obj(&[("role", &r)])), TRANSCRIPT);
        for bad in ["null", "{}", r#""x""#, "1", r#"{"type":"text","text":"x"}"#] {
            c.input(format!("{role} blocks {bad}"), &msg_doc(&obj(&[("role", &r), ("blocks", bad)])), TRANSCRIPT);
        }
        c.input(
            format!("{role} blocks twice"),
            &msg_doc(&obj(&[("role", &r), ("blocks", b), ("blocks", b)])),
            TRANSCRIPT,
        );
    }
    c.input("tool without blocks", &msg_doc(r#"{"role":"tool","tool_use_id":"t","is_error":false}"#), TRANSCRIPT);
    c.input(
        "tool blocks null",
        &msg_doc(r#"{"role":"tool","blocks":null,"tool_use_id":"t","is_error":false}"#),
        TRANSCRIPT,
    );
    // role: exact, case-sensitive string.
    c.input("role absent", &msg_doc(&obj(&[("blocks", b)])), TRANSCRIPT);
    for bad in [
        "null",
        "1",
        "true",
        "[]",
        "{}",
        r#""User""#,
        r#""USER""#,
        r#""Assistant""#,
        r#""TOOL""#,
        r#""user ""#,
        r#""""#,
        r#""bot""#,
        r#""developer""#,
        r#""u\u017Fer""#,
    ] {
        c.input(format!("role {bad}"), &msg_doc(&obj(&[("role", bad), ("blocks", "[]")])), TRANSCRIPT);
    }
    c.input("role escaped", &msg_doc(&obj(&[("role", r#""\u0075ser""#), ("blocks", "[]")])), OK);
    c.input("role key escaped", &msg_doc(&obj(&[(r"r\u006fle", r#""user""#), ("blocks", "[]")])), OK);
    c.input(
        "role twice",
        &msg_doc(&obj(&[("role", r#""user""#), ("role", r#""user""#), ("blocks", "[]")])),
        TRANSCRIPT,
    );
    c.input("Role key", &msg_doc(&obj(&[("Role", r#""user""#), ("blocks", "[]")])), TRANSCRIPT);
    // A message must be an object; the transcript an array (T5.1).
    for bad in ["null", "1", r#""user""#, "[]", r#"[{"role":"user","blocks":[]}]"#] {
        c.input(format!("message {bad}"), &msg_doc(bad), TRANSCRIPT);
    }
    for bad in ["null", "{}", r#""x""#, "1", "true", HELLO] {
        c.input(format!("transcript {bad}"), &doc(bad), TRANSCRIPT);
    }
    c.input("transcript string with invalid UTF-8", &splice(&doc(r#""x""#), b"\"x\"", b"\"\xff\""), TRANSCRIPT);
    // Roles need not alternate; tool ids need not match (T5.7).
    let many = format!(
        "[{HELLO},{HELLO},{},{},{}]",
        r#"{"role":"tool","blocks":[],"tool_use_id":"nowhere","is_error":true}"#,
        r#"{"role":"system","blocks":[]}"#,
        r#"{"role":"assistant","blocks":[{"type":"tool_use","id":"a","name":"b","input":null}]}"#
    );
    c.input("free order", &doc(&many), OK);
    // The first failing message fails the transcript, wherever it is.
    c.input("bad last message", &doc(&format!(r#"[{HELLO},{HELLO},{{"role":"user"}}]"#)), TRANSCRIPT);
    // T5.7: texts may hold any characters.
    c.input("text with NUL, markup, U+FFFD", &block_doc(r#"{"type":"text","text":"\u0000<a>&amp;\ufffd\ud800"}"#), OK);
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// T5.3 depth of tool results, J5.2 depth of the document

/// `n` tool_result blocks nested through their `content`; the innermost content holds `inner`.
fn nested_tool_results(n: usize, inner: &str) -> String {
    let mut s = inner.to_owned();
    for _ in 0..n {
        s = format!(r#"{{"type":"tool_result","tool_use_id":"t","content":[{s}],"is_error":false}}"#);
    }
    s
}

#[test]
fn tool_result_depth_t5_3() {
    let mut c = Cases::default();
    let text = r#"{"type":"text","text":"x"}"#;
    for (n, expect) in [(1, OK), (127, OK), (128, OK), (129, TRANSCRIPT), (130, TRANSCRIPT), (200, TRANSCRIPT)] {
        c.input(format!("{n} nested, empty content"), &block_doc(&nested_tool_results(n, "")), expect);
        c.input(format!("{n} nested, text inside"), &block_doc(&nested_tool_results(n, text)), expect);
    }
    // The limit counts block lists, not messages: the same inside a tool message.
    c.input(
        "128 nested in a tool message",
        &msg_doc(&format!(
            r#"{{"role":"tool","blocks":[{}],"tool_use_id":"t","is_error":false}}"#,
            nested_tool_results(128, "")
        )),
        OK,
    );
    c.input(
        "129 nested in an assistant message",
        &msg_doc(&format!(r#"{{"role":"assistant","blocks":[{}]}}"#, nested_tool_results(129, ""))),
        TRANSCRIPT,
    );
    // "fails on entry, before its elements are looked at": an invalid block inside the 129th list
    // does not change the reason (still transcript), and the depth check wins over a later defect.
    c.input(
        "129 nested with a bad inner block",
        &block_doc(&nested_tool_results(129, r#"{"type":"bogus"}"#)),
        TRANSCRIPT,
    );
    // Siblings do not add depth.
    let wide = (0..300).map(|_| nested_tool_results(2, text)).collect::<Vec<_>>().join(",");
    c.input("300 siblings", &block_doc(&wide), OK);
    c.finish();
}

/// Depth of the raw `input` value of a tool_use block in `block_doc`: the top-level object (1), the
/// transcript array (2), the message (3), its blocks (4), the block (5), so `input` itself is at 6.
const INPUT_BASE: usize = 5;

fn deep_arrays(k: usize) -> String {
    format!("{}{}", "[".repeat(k), "]".repeat(k))
}

fn deep_objects(k: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(k), "}".repeat(k))
}

#[test]
fn document_depth_j5_2() {
    let mut c = Cases::default();
    let k = 10_000 - INPUT_BASE;
    c.input("raw arrays to depth 10000", &tool_use_with_input(&deep_arrays(k)), OK);
    c.input("raw arrays to depth 10001", &tool_use_with_input(&deep_arrays(k + 1)), WIRE);
    c.input("raw objects to depth 10000", &tool_use_with_input(&deep_objects(k)), OK);
    c.input("raw objects to depth 10001", &tool_use_with_input(&deep_objects(k + 1)), WIRE);
    let mixed = |k: usize| {
        let open: String = (0..k).map(|i| if i % 2 == 0 { "[" } else { r#"{"k":"# }).collect();
        let close: String = (0..k).rev().map(|i| if i % 2 == 0 { "]" } else { "}" }).collect();
        format!("{open}null{close}")
    };
    c.input("raw mixed to depth 10000", &tool_use_with_input(&mixed(k)), OK);
    c.input("raw mixed to depth 10001", &tool_use_with_input(&mixed(k + 1)), WIRE);
    // provider_state sits at the same depth as input.
    let thinking = |state: &str| {
        block_doc(&format!(
            r#"{{"type":"thinking","thinking":"t","signature":"s","provider_state":{state},"provider_state_format":"f"}}"#
        ))
    };
    c.input("provider_state to depth 10000", &thinking(&deep_arrays(k)), OK);
    c.input("provider_state to depth 10001", &thinking(&deep_arrays(k + 1)), WIRE);
    // Inside one tool_result the input is 3 levels deeper (content array, block object).
    let in_result = |input: &str| {
        block_doc(&format!(
            r#"{{"type":"tool_result","tool_use_id":"t","content":[{{"type":"tool_use","id":"i","name":"n","input":{input}}}],"is_error":false}}"#
        ))
    };
    c.input("in a tool_result, depth 10000", &in_result(&deep_arrays(k - 2)), OK);
    c.input("in a tool_result, depth 10001", &in_result(&deep_arrays(k - 1)), WIRE);
    // J5.2 is step 1 (wire) even where the value breaks the layout, and even after a transcript error.
    let in_text = |value: &str| block_doc(&format!(r#"{{"type":"text","text":{value}}}"#));
    c.input("text as 100 nested arrays (type error)", &in_text(&deep_arrays(100)), TRANSCRIPT);
    c.input("text as arrays to depth 10001", &in_text(&deep_arrays(k + 1)), WIRE);
    let bad_then_deep = doc(&format!(
        r#"[{{"role":"bot","blocks":[]}},{{"role":"user","blocks":[{{"type":"tool_use","id":"i","name":"n","input":{}}}]}}]"#,
        deep_arrays(k + 1)
    ));
    c.input("bad message then depth 10001", &bad_then_deep, WIRE);
    let bad_then_ok_depth = doc(&format!(
        r#"[{{"role":"bot","blocks":[]}},{{"role":"user","blocks":[{{"type":"tool_use","id":"i","name":"n","input":{}}}]}}]"#,
        deep_arrays(k)
    ));
    c.input("bad message then depth 10000", &bad_then_ok_depth, TRANSCRIPT);
    // Depth outside the transcript: an unknown key with a deep value is wire either way.
    c.input("deep unknown top-level value", &Top::input().set("x", &deep_arrays(9_999)).bytes(), WIRE);
    c.finish();
}

/// No depth may exhaust the stack (J5.2): 10^6 nesting, run on the test thread itself.
#[test]
fn million_nesting_is_wire_without_stack_overflow() {
    let mut c = Cases::default();
    let m = 1_000_000;
    c.input("10^6 arrays, closed", deep_arrays(m).as_bytes(), WIRE);
    c.input("10^6 arrays, unclosed", "[".repeat(m).as_bytes(), WIRE);
    c.input("10^6 objects, closed", deep_objects(m).as_bytes(), WIRE);
    c.input("10^6 objects, unclosed", r#"{"a":"#.repeat(m).as_bytes(), WIRE);
    c.input("10^6 arrays as tool input", &tool_use_with_input(&deep_arrays(m)), WIRE);
    c.input("10^6 objects as tool input", &tool_use_with_input(&deep_objects(m)), WIRE);
    c.input("10^6 arrays as transcript", &doc(&deep_arrays(m)), WIRE);
    c.input("10^6 objects as basis", &Top::input().set("basis", &deep_objects(m)).bytes(), WIRE);
    let h = parse(&doc(&format!("[{HELLO}]")));
    let reply = Top::output().set("summary", &deep_arrays(m)).bytes();
    c.output_with("10^6 arrays as summary", &h, &reply, 1, u64::MAX, S_WIRE);
    c.output_with("10^6 objects as reply", &h, deep_objects(m).as_bytes(), 1, u64::MAX, S_WIRE);
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// W5.2 document fields and decoding order
