//! The compaction input and output wires (SPEC §5, §6, §7, §11) through the C ABI, for the rules the
//! vector rows do not reach: every block kind and role, the W5.2 and O6.2 check orders pair by pair,
//! depth limits, the divergences D1–D4, the canonical encoding E7 and fitting F7, handles and the
//! boundary rules of §1/A3.
//!
//! Every expected status and every expected byte string is written from the spec text (the rule is
//! cited beside each case), never taken from running the code. Inputs are built from one small valid
//! template (already in canonical form) by splicing in a transcript, a message or a block, so that a
//! case differs from a valid document only where it says.

mod common;

use std::ptr;

use loopcompact::ffi::*;

// SPEC §3 values (the C constants are not Rust items).
const OK: i32 = 0;
const NULL_ARGUMENT: i32 = 1;
const BUFFER_TOO_SMALL: i32 = 2;
const LENGTH_OVERFLOW: i32 = 3;
const WIRE: i32 = 100;
const BASIS: i32 = 101;
const MODEL: i32 = 102;
const FINGERPRINT: i32 = 103;
const TRANSCRIPT: i32 = 104;
const MAX_TOKENS: i32 = 105;
const TOO_LARGE: i32 = 110;
const S_WIRE: i32 = 200;
const IDENTITY: i32 = 201;
const BYTE_LIMIT: i32 = 203;
const TOKEN_USAGE: i32 = 204;
const TOKEN_LIMIT: i32 = 205;
const XML_SYNTAX: i32 = 206;
const XML_ROOT: i32 = 207;
const XML_STRUCTURE: i32 = 208;
const XML_CONTENT: i32 = 209;

const FP: &str = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
const FP_ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";
const UUID: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const UUID_ZERO: &str = "00000000-0000-0000-0000-000000000000";
const HELLO: &str = r#"{"role":"user","blocks":[{"type":"text","text":"hello"}]}"#;
/// A transcript that fails §5.3 (unknown role) and nothing else.
const BAD_TRANSCRIPT: &str = r#"[{"role":"bot","blocks":[]}]"#;
/// F7.3.
const STUB: &str = "[old tool result omitted for compaction]";
/// A summary that §4 accepts.
const SUMMARY: &str = "<conversation_summary><goal>ship &amp; verify</goal><constraints/><decisions></decisions><state>ready</state><open_items/></conversation_summary>";

// ---------------------------------------------------------------------------------------------
// Builders

/// `{"k":v,...}` from raw key bodies and raw JSON values.
fn obj(pairs: &[(&str, &str)]) -> String {
    let body: Vec<String> = pairs.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}

/// A JSON string from its body (escapes as written).
fn s(body: &str) -> String {
    format!("\"{body}\"")
}

fn basis(revision: &str, event_id: &str) -> String {
    obj(&[("revision", revision), ("through_event_id", event_id)])
}

fn model(provider: &str, model: &str) -> String {
    obj(&[("provider", provider), ("model", model)])
}

/// The canonical template (E7.2) around a raw transcript value, with raw provider and model values.
fn doc_with(provider: &str, model_name: &str, transcript: &str) -> Vec<u8> {
    obj(&[
        ("version", "1"),
        ("basis", &basis("3", &s(UUID))),
        ("model", &model(provider, model_name)),
        ("request_fingerprint", &s(FP)),
        ("transcript", transcript),
        ("max_summary_tokens", "32"),
    ])
    .into_bytes()
}

/// The template around a raw transcript value.
fn doc(transcript: &str) -> Vec<u8> {
    doc_with("\"provider\"", "\"model\"", transcript)
}

/// The template with one message.
fn msg_doc(message: &str) -> Vec<u8> {
    doc(&format!("[{message}]"))
}

/// The template with one user message holding one block.
fn block_doc(block: &str) -> Vec<u8> {
    msg_doc(&format!(r#"{{"role":"user","blocks":[{block}]}}"#))
}

/// A top-level object built field by field (raw key bodies, raw values), for the W5.2 and O6.2 order.
#[derive(Clone)]
struct Top(Vec<(String, String)>);

impl Top {
    fn input() -> Top {
        Top(vec![
            ("version".into(), "1".into()),
            ("basis".into(), basis("3", &s(UUID))),
            ("model".into(), model("\"provider\"", "\"model\"")),
            ("request_fingerprint".into(), s(FP)),
            ("transcript".into(), format!("[{HELLO}]")),
            ("max_summary_tokens".into(), "32".into()),
        ])
    }

    fn output() -> Top {
        Top(vec![
            ("version".into(), "1".into()),
            ("basis".into(), basis("3", &s(UUID))),
            ("model".into(), model("\"provider\"", "\"model\"")),
            ("request_fingerprint".into(), s(FP)),
            ("summary".into(), s(SUMMARY)),
        ])
    }

    /// Replaces the value of `key` (appends it when absent).
    fn set(mut self, key: &str, value: &str) -> Top {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value.to_owned(),
            None => self.0.push((key.to_owned(), value.to_owned())),
        }
        self
    }

    fn without(mut self, key: &str) -> Top {
        self.0.retain(|(k, _)| k != key);
        self
    }

    /// Appends a key even if it is already there (duplicates).
    fn push(mut self, key: &str, value: &str) -> Top {
        self.0.push((key.to_owned(), value.to_owned()));
        self
    }

    fn bytes(&self) -> Vec<u8> {
        let pairs: Vec<(&str, &str)> = self.0.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        obj(&pairs).into_bytes()
    }
}

/// `bytes` with the first occurrence of `from` replaced by `to` (for invalid UTF-8 and syntax errors).
fn splice(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = bytes.windows(from.len()).position(|w| w == from).expect("splice: pattern not found");
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(to);
    out.extend_from_slice(&bytes[at + from.len()..]);
    out
}

/// Bytes for messages: lossy, elided in the middle when long.
fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() <= 400 {
        return text.into_owned();
    }
    let head: String = text.chars().take(200).collect();
    let tail: String = text.chars().rev().take(150).collect::<Vec<_>>().into_iter().rev().collect();
    format!("{head} …({} bytes)… {tail}", bytes.len())
}

// ---------------------------------------------------------------------------------------------
// C ABI helpers

/// An owned handle, freed on drop.
struct Handle(*mut lc_compaction_input);

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { lc_compaction_input_free(self.0) };
    }
}

/// `_validate` and `_parse` of the same bytes; they must agree, and a handle exists iff `LC_OK`.
fn input_status(wire: &[u8]) -> Result<i32, String> {
    let v = unsafe { lc_compaction_input_validate(wire.as_ptr(), wire.len()) };
    let mut raw = ptr::null_mut();
    let p = unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), &mut raw) };
    let _handle = Handle(raw);
    if v != p {
        return Err(format!("validate {} but parse {}", common::status_name(v), common::status_name(p)));
    }
    if (p == OK) == raw.is_null() {
        return Err(format!("parse {} with handle {raw:?}", common::status_name(p)));
    }
    Ok(v)
}

#[track_caller]
fn parse(wire: &[u8]) -> Handle {
    let mut raw = ptr::null_mut();
    let rc = unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), &mut raw) };
    assert_eq!(rc, OK, "parse gave {} for {}", common::status_name(rc), show(wire));
    Handle(raw)
}

/// `lc_compaction_input_encode_within` with the two-call pattern (A3.2): `Err(status)` if it fails.
fn encode(h: &Handle, max_bytes: u64) -> Result<Vec<u8>, i32> {
    let mut len = usize::MAX;
    let rc = unsafe { lc_compaction_input_encode_within(h.0, max_bytes, ptr::null_mut(), 0, &mut len) };
    if rc != BUFFER_TOO_SMALL {
        assert_ne!(rc, OK, "a size query with capacity 0 cannot succeed (a result is never empty)");
        assert_eq!(len, usize::MAX, "*out_len written on status {rc}");
        return Err(rc);
    }
    let mut buf = vec![0u8; len];
    let mut len2 = 0usize;
    let rc = unsafe { lc_compaction_input_encode_within(h.0, max_bytes, buf.as_mut_ptr(), buf.len(), &mut len2) };
    assert_eq!(rc, OK, "second call of the two-call pattern");
    assert_eq!(len2, len, "A3.6: same length on the second call");
    Ok(buf)
}

/// `lc_compaction_output_validate` with a buffer of `output_len` bytes (O6.4).
fn output(h: &Handle, reply: &[u8], tokens: u64, max_bytes: u64) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; reply.len()];
    let mut len = usize::MAX;
    let buf_ptr = if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() };
    let rc = unsafe {
        lc_compaction_output_validate(h.0, reply.as_ptr(), reply.len(), tokens, max_bytes, buf_ptr, buf.len(), &mut len)
    };
    if rc != OK {
        return Err(rc);
    }
    buf.truncate(len);
    Ok(buf)
}

/// Collects every failing case of a test, so that one run reports all of them.
#[derive(Default)]
struct Cases {
    failures: Vec<String>,
    count: usize,
}

impl Cases {
    fn input(&mut self, name: impl AsRef<str>, wire: &[u8], expect: i32) {
        self.count += 1;
        match input_status(wire) {
            Ok(got) if got == expect => {}
            Ok(got) => self.failures.push(format!(
                "{}: got {} expected {}\n    input: {}",
                name.as_ref(),
                common::status_name(got),
                common::status_name(expect),
                show(wire)
            )),
            Err(e) => self.failures.push(format!("{}: {e}\n    input: {}", name.as_ref(), show(wire))),
        }
    }

    /// Output validation of `reply` against the template input (max_summary_tokens 32).
    fn output(&mut self, name: impl AsRef<str>, reply: &[u8], tokens: u64, max_bytes: u64, expect: i32) {
        let h = parse(&doc(&format!("[{HELLO}]")));
        self.output_with(name, &h, reply, tokens, max_bytes, expect);
    }

    fn output_with(&mut self, name: impl AsRef<str>, h: &Handle, reply: &[u8], tokens: u64, max: u64, expect: i32) {
        self.count += 1;
        let got = match output(h, reply, tokens, max) {
            Ok(_) => OK,
            Err(rc) => rc,
        };
        if got != expect {
            self.failures.push(format!(
                "{}: got {} expected {}\n    reply: {} (tokens {tokens}, max_output_bytes {max})",
                name.as_ref(),
                common::status_name(got),
                common::status_name(expect),
                show(reply)
            ));
        }
    }

    fn bytes(&mut self, name: impl AsRef<str>, got: Result<Vec<u8>, i32>, want: &[u8]) {
        self.count += 1;
        match got {
            Ok(bytes) if bytes == want => {}
            Ok(bytes) => self.failures.push(format!(
                "{}: bytes differ\n    got  {}\n    want {}",
                name.as_ref(),
                show(&bytes),
                show(want)
            )),
            Err(rc) => self.failures.push(format!(
                "{}: got {} expected bytes {}",
                name.as_ref(),
                common::status_name(rc),
                show(want)
            )),
        }
    }

    fn status(&mut self, name: impl AsRef<str>, got: i32, expect: i32) {
        self.count += 1;
        if got != expect {
            self.failures.push(format!(
                "{}: got {} expected {}",
                name.as_ref(),
                common::status_name(got),
                common::status_name(expect)
            ));
        }
    }

    fn truth(&mut self, name: impl AsRef<str>, ok: bool) {
        self.count += 1;
        if !ok {
            self.failures.push(format!("{}: does not hold", name.as_ref()));
        }
    }

    #[track_caller]
    fn finish(self) {
        eprintln!("{} cases", self.count);
        assert!(
            self.failures.is_empty(),
            "{} of {} cases failed:\n{}",
            self.failures.len(),
            self.count,
            self.failures.join("\n")
        );
    }
}

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
        c.truth(format!("name of {code}"), common::status_name(code) == name);
    }
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// T5.5 blocks

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

fn tool_use_with_input(input: &str) -> Vec<u8> {
    block_doc(&format!(r#"{{"type":"tool_use","id":"i","name":"n","input":{input}}}"#))
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

/// Encodes `wire` with no limit (F7.2: the result is S).
fn canonical(wire: &[u8]) -> Result<Vec<u8>, i32> {
    let mut raw = ptr::null_mut();
    let rc = unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), &mut raw) };
    if rc != OK {
        return Err(rc);
    }
    let h = Handle(raw);
    encode(&h, u64::MAX)
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
    c.truth("test encoder", test_base64(b"AB") == "QUI=" && common::base64_decode(&b64) == bytes);
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
    let first = encode(&h, u64::MAX).unwrap();
    for _ in 0..5 {
        assert_eq!(encode(&h, u64::MAX).unwrap(), first);
    }
    // The canonical encoding is itself a valid input with the same encoding (idempotent).
    assert_eq!(canonical(&first).unwrap(), first);
    // A second handle of the same bytes gives the same bytes.
    assert_eq!(encode(&parse(&wire), u64::MAX).unwrap(), first);
}

// ---------------------------------------------------------------------------------------------
// F7 fitting

fn tool_msg(id: &str, text: &str) -> String {
    format!(r#"{{"role":"tool","blocks":[{{"type":"text","text":"{text}"}}],"tool_use_id":"{id}","is_error":false}}"#)
}

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
        assert_eq!(&encode(&h, max).unwrap(), want, "C ABI");
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
    c.status("max_bytes 0 (F7.2)", encode(&h, 0).err().unwrap_or(OK), TOO_LARGE);
    c.bytes("u64::MAX", encode(&h, u64::MAX), &s_doc);
    c.bytes("len(S)", encode(&h, ls), &s_doc);
    c.bytes("len(S) - 1: first stub", encode(&h, ls - 1), &c1);
    c.bytes("len(C1)", encode(&h, l1), &c1);
    c.bytes("len(C1) - 1: both stubs", encode(&h, l1 - 1), &c2);
    c.bytes("len(C2)", encode(&h, l2), &c2);
    c.status("len(C2) - 1", encode(&h, l2 - 1).err().unwrap_or(OK), TOO_LARGE);
    c.truth("too_large size is len(C2) (F7.4)", too_large_size(&s_doc, l2 - 1) == Some(l2));
    c.truth("max_bytes 0: size is len(S)", too_large_size(&s_doc, 0) == Some(ls));
    c.status("max_bytes 1", encode(&h, 1).err().unwrap_or(OK), TOO_LARGE);
    // The handle never changes (F7.3 works on a copy): S again after fitting.
    c.bytes("S after fitting", encode(&h, u64::MAX), &s_doc);
    // A3.6: the same limit gives the same bytes.
    c.bytes("len(C1) - 1 again", encode(&h, l1 - 1), &c2);

    // A candidate whose stub does not shrink the encoding is skipped, not kept.
    let small = tool_msg("s", "x");
    let big = tool_msg("b", &"C".repeat(300));
    let d = doc(&format!("[{m0},{small},{big}]"));
    let want = doc(&format!("[{m0},{small},{}]", stub_msg("b", false)));
    c.bytes("non-shrinking candidate skipped", encode(&parse(&d), d.len() as u64 - 1), &want);
    // Equal length: len(C) ≥ len(current) is undone too.
    let equal = tool_msg("e", &"x".repeat(STUB.len()));
    c.truth("equal stub length", equal.len() == stub_msg("e", false).len());
    let d = doc(&format!("[{m0},{equal}]"));
    c.status("equal-length candidate undone", encode(&parse(&d), d.len() as u64 - 1).err().unwrap_or(OK), TOO_LARGE);
    c.truth("equal-length: size is len(S)", too_large_size(&d, d.len() as u64 - 1) == Some(d.len() as u64));
    let longer = tool_msg("e", &"x".repeat(STUB.len() + 1));
    let d = doc(&format!("[{m0},{longer}]"));
    c.bytes(
        "one byte shorter stub kept",
        encode(&parse(&d), d.len() as u64 - 1),
        &doc(&format!("[{m0},{}]", stub_msg("e", false))),
    );
    // A tool message with no block is no candidate.
    let empty = r#"{"role":"tool","blocks":[],"tool_use_id":"z","is_error":false}"#;
    let d = doc(&format!("[{empty},{big}]"));
    c.bytes(
        "empty tool message untouched",
        encode(&parse(&d), d.len() as u64 - 1),
        &doc(&format!("[{empty},{}]", stub_msg("b", false))),
    );
    // All blocks of a candidate are replaced by one stub block.
    let multi = r#"{"role":"tool","blocks":[{"type":"text","text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_result","tool_use_id":"x","content":[],"is_error":false}],"tool_use_id":"m","is_error":true}"#;
    let d = doc(&format!("[{multi}]"));
    c.bytes("all blocks replaced", encode(&parse(&d), d.len() as u64 - 1), &doc(&format!("[{}]", stub_msg("m", true))));
    // Oldest first: with room for one stub, only the oldest candidate is stubbed.
    let d = doc(&format!("[{big},{big}]"));
    let one = doc(&format!("[{},{big}]", stub_msg("b", false)));
    c.bytes("oldest first", encode(&parse(&d), one.len() as u64), &one);

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
        c.status(
            format!("{name} never stubbed"),
            encode(&parse(&d), d.len() as u64 - 1).err().unwrap_or(OK),
            TOO_LARGE,
        );
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
    c.bytes("markup at len(S)", encode(&h, canon.len() as u64), &canon);
    c.status("markup at len(S) - 1", encode(&h, canon.len() as u64 - 1).err().unwrap_or(OK), TOO_LARGE);
    c.status("markup at the input's own length", encode(&h, given.len() as u64).err().unwrap_or(OK), TOO_LARGE);
    // An input sent with whitespace that only fits once canonical: no stub needed.
    let compact = doc(&format!("[{m0},{m1}]"));
    let spaced = String::from_utf8(compact.clone()).unwrap().replace(',', " ,\n  ").replace(':', " :  ");
    c.truth("spaced is longer", spaced.len() > compact.len() + 50);
    c.bytes("whitespace input fits canonically", encode(&parse(spaced.as_bytes()), compact.len() as u64), &compact);
    // Escapes written in the input cost their canonical length, not their written one.
    let escaped = block_doc(r#"{"type":"text","text":"\u0041\u0042\u0043\/"}"#);
    let plain = block_doc(r#"{"type":"text","text":"ABC/"}"#);
    c.bytes("escaped input fits canonically", encode(&parse(&escaped), plain.len() as u64), &plain);
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// §6 output validation

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
        let rc = unsafe { lc_compaction_output_validate(h.0, ptr::null(), 0, 1, 100, ptr::null_mut(), 0, &mut len) };
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
    c.bytes("summary written", output(&h, &o().bytes(), 1, u64::MAX), SUMMARY.as_bytes());
    // Escapes are resolved: \u003c is `<`, \/ is `/`, and entities stay as written (X4.22).
    let escaped = SUMMARY.replace('<', r"\u003c").replace('>', r"\u003E").replace('/', r"\/");
    c.bytes(
        "escaped summary decoded",
        output(&h, &o().set("summary", &s(&escaped)).bytes(), 1, u64::MAX),
        SUMMARY.as_bytes(),
    );
    // A lone surrogate escape is U+FFFD, which §4 allows in text.
    let lone = SUMMARY.replace("ready", r"re\ud800dy");
    c.bytes(
        "lone surrogate in state",
        output(&h, &o().set("summary", &s(&lone)).bytes(), 1, u64::MAX),
        SUMMARY.replace("ready", "re\u{fffd}dy").as_bytes(),
    );
    // Surrounding whitespace of the reply is not part of the summary.
    let spaced = [b" \n".to_vec(), o().bytes(), b"\r\n".to_vec()].concat();
    c.bytes("reply with whitespace", output(&h, &spaced, 1, u64::MAX), SUMMARY.as_bytes());
    let nl = SUMMARY.replace("ship", r"ship\nnow\ttoo");
    c.bytes(
        "escaped newline in goal",
        output(&h, &o().set("summary", &s(&nl)).bytes(), 1, u64::MAX),
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
        lc_compaction_output_validate(h.0, reply.as_ptr(), reply.len(), 1, u64::MAX, buf, cap, len)
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
        lc_compaction_output_validate(h.0, reply.as_ptr(), reply.len(), 0, u64::MAX, ptr::null_mut(), 0, &mut len)
    };
    c.status("token_usage with cap 0", rc, TOKEN_USAGE);
    let rc =
        unsafe { lc_compaction_output_validate(h.0, reply.as_ptr(), reply.len(), 1, 1, ptr::null_mut(), 0, &mut len) };
    c.status("byte_limit with cap 0", rc, BYTE_LIMIT);
    c.truth("*summary_len untouched on content errors", len == 12345);
    c.finish();
}

// ---------------------------------------------------------------------------------------------
// Handles and the boundary (§1, A3.1, A3.2)

#[test]
fn handles_and_boundary() {
    let mut c = Cases::default();
    let wire = doc(&format!("[{HELLO}]"));
    let bad = doc("[]");
    // parse: out is required (pointer check first, A3.1).
    c.status(
        "parse NULL out",
        unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), ptr::null_mut()) },
        NULL_ARGUMENT,
    );
    c.status(
        "parse NULL out, invalid input",
        unsafe { lc_compaction_input_parse(bad.as_ptr(), bad.len(), ptr::null_mut()) },
        NULL_ARGUMENT,
    );
    c.status(
        "parse NULL out, (NULL, 5)",
        unsafe { lc_compaction_input_parse(ptr::null(), 5, ptr::null_mut()) },
        NULL_ARGUMENT,
    );
    // out untouched on failure.
    let sentinel = std::ptr::NonNull::<lc_compaction_input>::dangling().as_ptr();
    let mut out = sentinel;
    c.status("parse invalid", unsafe { lc_compaction_input_parse(bad.as_ptr(), bad.len(), &mut out) }, TRANSCRIPT);
    c.truth("out untouched on failure", out == sentinel);
    c.status("parse (NULL, 5)", unsafe { lc_compaction_input_parse(ptr::null(), 5, &mut out) }, NULL_ARGUMENT);
    c.truth("out untouched on NULL argument", out == sentinel);
    let huge = isize::MAX as usize + 1;
    c.status(
        "parse length overflow",
        unsafe { lc_compaction_input_parse(wire.as_ptr(), huge, &mut out) },
        LENGTH_OVERFLOW,
    );
    c.truth("out untouched on length overflow", out == sentinel);
    c.status(
        "parse usize::MAX",
        unsafe { lc_compaction_input_parse(wire.as_ptr(), usize::MAX, &mut out) },
        LENGTH_OVERFLOW,
    );
    c.status("parse NULL, huge", unsafe { lc_compaction_input_parse(ptr::null(), huge, &mut out) }, NULL_ARGUMENT);
    // validate.
    c.status("validate (NULL, 0)", unsafe { lc_compaction_input_validate(ptr::null(), 0) }, WIRE);
    c.status("validate (NULL, 5)", unsafe { lc_compaction_input_validate(ptr::null(), 5) }, NULL_ARGUMENT);
    c.status("validate length overflow", unsafe { lc_compaction_input_validate(wire.as_ptr(), huge) }, LENGTH_OVERFLOW);
    c.status("validate (NULL, huge)", unsafe { lc_compaction_input_validate(ptr::null(), huge) }, NULL_ARGUMENT);
    let mut out2 = ptr::null_mut();
    c.status("parse (NULL, 0)", unsafe { lc_compaction_input_parse(ptr::null(), 0, &mut out2) }, WIRE);
    c.truth("no handle for (NULL, 0)", out2.is_null());
    // free(NULL) is a no-op.
    unsafe { lc_compaction_input_free(ptr::null_mut()) };
    // encode_within boundary.
    let h = parse(&wire);
    let mut len = 7usize;
    c.status(
        "encode NULL handle",
        unsafe { lc_compaction_input_encode_within(ptr::null(), u64::MAX, ptr::null_mut(), 0, &mut len) },
        NULL_ARGUMENT,
    );
    c.status(
        "encode NULL out_len",
        unsafe { lc_compaction_input_encode_within(h.0, u64::MAX, ptr::null_mut(), 0, ptr::null_mut()) },
        NULL_ARGUMENT,
    );
    c.status(
        "encode NULL buf, cap 5",
        unsafe { lc_compaction_input_encode_within(h.0, u64::MAX, ptr::null_mut(), 5, &mut len) },
        NULL_ARGUMENT,
    );
    c.truth("out_len untouched on NULL argument", len == 7);
    c.status(
        "encode max 0, cap 0",
        unsafe { lc_compaction_input_encode_within(h.0, 0, ptr::null_mut(), 0, &mut len) },
        TOO_LARGE,
    );
    c.truth("out_len untouched on too_large", len == 7);
    c.status(
        "encode size query",
        unsafe { lc_compaction_input_encode_within(h.0, u64::MAX, ptr::null_mut(), 0, &mut len) },
        BUFFER_TOO_SMALL,
    );
    c.truth("size query sets out_len", len == wire.len());
    let mut buf = vec![0xAAu8; wire.len() - 1];
    let mut len = 0usize;
    c.status(
        "encode cap len - 1",
        unsafe { lc_compaction_input_encode_within(h.0, u64::MAX, buf.as_mut_ptr(), buf.len(), &mut len) },
        BUFFER_TOO_SMALL,
    );
    c.truth("cap len - 1: nothing written, out_len set", len == wire.len() && buf.iter().all(|&b| b == 0xAA));
    let mut buf = vec![0u8; wire.len()];
    c.status(
        "encode exact cap",
        unsafe { lc_compaction_input_encode_within(h.0, u64::MAX, buf.as_mut_ptr(), buf.len(), &mut len) },
        OK,
    );
    c.truth("exact cap bytes", buf == wire && len == wire.len());
    // A3.2: a capacity is never used to build a slice, so any value is accepted.
    let mut buf = vec![0u8; wire.len()];
    c.status(
        "encode huge cap",
        unsafe { lc_compaction_input_encode_within(h.0, u64::MAX, buf.as_mut_ptr(), usize::MAX, &mut len) },
        OK,
    );
    c.truth("huge cap bytes", buf == wire);
    // output_validate boundary.
    let reply = Top::output().bytes();
    let mut sbuf = vec![0u8; reply.len()];
    let mut slen = 9usize;
    let ov = |h: *const lc_compaction_input, p: *const u8, n: usize, b: *mut u8, cap: usize, l: *mut usize| unsafe {
        lc_compaction_output_validate(h, p, n, 1, u64::MAX, b, cap, l)
    };
    c.status(
        "output NULL handle",
        ov(ptr::null(), reply.as_ptr(), reply.len(), sbuf.as_mut_ptr(), sbuf.len(), &mut slen),
        NULL_ARGUMENT,
    );
    c.status("output (NULL, 5)", ov(h.0, ptr::null(), 5, sbuf.as_mut_ptr(), sbuf.len(), &mut slen), NULL_ARGUMENT);
    c.status(
        "output NULL summary_len",
        ov(h.0, reply.as_ptr(), reply.len(), sbuf.as_mut_ptr(), sbuf.len(), ptr::null_mut()),
        NULL_ARGUMENT,
    );
    c.status(
        "output NULL buf, cap 5",
        ov(h.0, reply.as_ptr(), reply.len(), ptr::null_mut(), 5, &mut slen),
        NULL_ARGUMENT,
    );
    c.status(
        "output length overflow",
        ov(h.0, reply.as_ptr(), huge, sbuf.as_mut_ptr(), sbuf.len(), &mut slen),
        LENGTH_OVERFLOW,
    );
    c.status(
        "output NULL handle + length overflow",
        ov(ptr::null(), reply.as_ptr(), huge, sbuf.as_mut_ptr(), sbuf.len(), &mut slen),
        NULL_ARGUMENT,
    );
    c.status(
        "output NULL summary_len + length overflow",
        ov(h.0, reply.as_ptr(), huge, sbuf.as_mut_ptr(), sbuf.len(), ptr::null_mut()),
        NULL_ARGUMENT,
    );
    c.truth("summary_len untouched on boundary errors", slen == 9);
    c.status("output huge cap", ov(h.0, reply.as_ptr(), reply.len(), sbuf.as_mut_ptr(), usize::MAX, &mut slen), OK);
    c.truth("output huge cap bytes", slen == SUMMARY.len() && &sbuf[..slen] == SUMMARY.as_bytes());
    c.finish();
}

#[test]
fn a_handle_is_shared_by_threads() {
    let m1 = tool_msg("t1", &"A".repeat(300));
    let m2 = tool_msg("t2", &"B".repeat(300));
    let wire = doc(&format!("[{HELLO},{m1},{m2}]"));
    let h = parse(&wire);
    let limit = wire.len() as u64 - 1;
    let reply = Top::output().bytes();
    let wrong = Top::output().set("basis", &basis("4", &s(UUID))).bytes();
    let expected = (
        encode(&h, u64::MAX),
        encode(&h, limit),
        encode(&h, 10),
        output(&h, &reply, 1, u64::MAX),
        output(&h, &wrong, 1, u64::MAX),
    );
    assert!(expected.0.is_ok() && expected.1.is_ok() && expected.3.is_ok());
    assert_eq!(expected.2, Err(TOO_LARGE));
    assert_eq!(expected.4, Err(IDENTITY));
    let shared = h.0 as usize;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                let (reply, wrong) = (&reply, &wrong);
                scope.spawn(move || {
                    // Borrowed, not owned: the main thread frees it.
                    let h = std::mem::ManuallyDrop::new(Handle(shared as *mut lc_compaction_input));
                    let mut results = Vec::new();
                    for _ in 0..50 {
                        results.push((
                            encode(&h, u64::MAX),
                            encode(&h, limit),
                            encode(&h, 10),
                            output(&h, reply, 1, u64::MAX),
                            output(&h, wrong, 1, u64::MAX),
                        ));
                    }
                    results
                })
            })
            .collect();
        for w in workers {
            for r in w.join().expect("worker panicked") {
                assert_eq!(r, expected);
            }
        }
    });
}
