//! Property tests of the compaction input and output wires through the C ABI (SPEC §5–§7, A3.9).
//!
//! Valid documents are generated from the layout of W5.1/T5.5 (every block kind, every role, raw
//! values, byte fields, escapes, shuffled keys, optional whitespace):
//! - they parse, and their canonical encoding (E7) parses back to an input with the same encoding;
//! - for any limit, the fitted bytes are at most the limit and parse, or the status is too_large
//!   (F7.2–F7.4).
//!
//! Mutated documents (bytes inserted, deleted, replaced; JSON and UTF-8 fragments spliced in) never
//! panic and always give one of the codes of A3.9 (0, 100–105), with `_validate` equal to `_parse`.
//! The output validator gets the same treatment (0, 200, 201, 203–209, never 202, O6.6).

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;
use testkit::abi::Input;
use testkit::spec::REQUEST_FINGERPRINT as FP;
use testkit::status::{LC_INPUT_TOO_LARGE as TOO_LARGE, LC_OK as OK};

/// Keeps the tree clean: no `proptest-regressions/` files next to the tests.
fn config(cases: u32) -> Config {
    Config { cases, failure_persistence: None, ..Config::default() }
}

// ---------------------------------------------------------------------------------------------
// C ABI helpers

/// `(status, handle)`; the wrapper checks that `_validate` and `_parse` agree and that a handle
/// exists iff OK.
fn parse(wire: &[u8]) -> (i32, Option<Input>) {
    match Input::parse_and_validate(wire) {
        Ok(h) => (OK, Some(h)),
        Err(rc) => (rc, None),
    }
}

// ---------------------------------------------------------------------------------------------
// Generators of valid documents (W5.1, T5.2, T5.5)

/// Pieces of a JSON string body: plain text, characters E7.6 escapes, and J5.4 escapes (lone
/// surrogates included).
fn piece() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        "a",
        "hello",
        " ",
        "<",
        ">",
        "&",
        "é",
        "\u{2028}",
        "\u{2029}",
        "😀",
        "\u{fffd}",
        "\u{7f}",
        "\u{85}",
        "\u{feff}",
        r"\n",
        r#"\""#,
        r"\\",
        r"\/",
        r"\u0000",
        r"\ud800",
        r"\udc00",
        r"\ud83d\ude00",
        r"\u00e9",
        r"\b",
        r"\f",
        r"\t",
        r"\r",
        r"\u001f",
        r"\u003C",
        r"\u2028",
        r"\uDBFF\uDFFF",
        r"\ud800\u0041",
    ])
    .prop_map(str::to_owned);
    let free = any::<char>().prop_filter("no quote, backslash or control", |c| *c >= ' ' && *c != '"' && *c != '\\');
    prop_oneof![3 => fixed, 1 => free.prop_map(String::from)]
}

fn body() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..6).prop_map(|v| v.concat())
}

fn nonempty_body() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 1..6).prop_map(|v| v.concat())
}

fn string() -> impl Strategy<Value = String> {
    body().prop_map(|b| format!("\"{b}\""))
}

/// Whitespace between tokens (J5.1: SP, TAB, LF, CR only).
fn ws() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "", " ", "\n\t ", "\r\n"])
}

/// Any JSON value (J5.9), with unique keys per object.
fn raw_value() -> impl Strategy<Value = String> {
    let number =
        prop::sample::select(vec!["0", "-0", "1.50", "1E2", "-12e-3", "18446744073709551616", "3.25", "1e400"]);
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        number.prop_map(str::to_owned),
        string(),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec((inner.clone(), ws()), 0..4).prop_map(|items| format!(
                "[{}]",
                items.iter().map(|(v, w)| format!("{w}{v}{w}")).collect::<Vec<_>>().join(",")
            )),
            prop::collection::vec((body(), inner, ws()), 0..4).prop_map(|items| {
                // `i:` before the body keeps the decoded keys distinct (J5.5).
                let pairs: Vec<String> =
                    items.iter().enumerate().map(|(i, (k, v, w))| format!("{w}\"{i}:{k}\"{w}:{w}{v}")).collect();
                format!("{{{}}}", pairs.join(","))
            }),
        ]
    })
}

fn test_base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { A[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// A byte field (T5.6): null, or base64, canonical or with escaped line breaks.
fn data() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_owned()),
        (prop::collection::vec(any::<u8>(), 0..24), any::<bool>()).prop_map(|(bytes, wrap)| {
            let b64 = test_base64(&bytes);
            if wrap {
                let lines: Vec<&str> = b64.as_bytes().chunks(8).map(|c| std::str::from_utf8(c).unwrap_or("")).collect();
                format!("\"{}\\r\\n\"", lines.join("\\n"))
            } else {
                format!("\"{b64}\"")
            }
        }),
    ]
}

type Pairs = Vec<(String, String)>;

fn render(pairs: &[(String, String)], w: &str) -> String {
    let items: Vec<String> = pairs.iter().map(|(k, v)| format!("{w}\"{k}\"{w}:{w}{v}{w}")).collect();
    format!("{{{}}}", items.join(","))
}

fn p(k: &str, v: String) -> (String, String) {
    (k.to_owned(), v)
}

/// `Some` value or the key left out (optional keys).
fn optional(k: &'static str, v: impl Strategy<Value = String>) -> impl Strategy<Value = Option<(String, String)>> {
    prop::option::of(prop_oneof![v, Just("null".to_owned())].prop_map(move |v| (k.to_owned(), v)))
}

fn leaf_block() -> impl Strategy<Value = Pairs> {
    let ty = |t: &str| p("type", format!("\"{t}\""));
    prop_oneof![
        string().prop_map(move |t| vec![ty("text"), p("text", t)]),
        string().prop_map(move |t| vec![ty("refusal"), p("text", t)]),
        (string(), string(), data()).prop_map(move |(m, u, d)| {
            vec![ty("image"), p("media_type", m), p("source", format!("{{\"url\":{u},\"data\":{d}}}"))]
        }),
        (string(), data()).prop_map(move |(m, d)| vec![ty("audio"), p("media_type", m), p("data", d)]),
        (string(), string(), data(), string()).prop_map(move |(m, n, d, t)| vec![
            ty("document"),
            p("media_type", m),
            p("name", n),
            p("data", d),
            p("text", t)
        ]),
        (
            string(),
            string(),
            optional("signature_format", string()),
            prop::option::of(raw_value().prop_map(|v| p("provider_state", v))),
            optional("provider_state_format", string()),
        )
            .prop_map(move |(t, s, sf, ps, psf)| {
                let mut v = vec![ty("thinking"), p("thinking", t), p("signature", s)];
                v.extend(sf);
                v.extend(ps);
                v.extend(psf);
                v
            }),
        (
            string(),
            string(),
            raw_value(),
            prop::option::of(raw_value().prop_map(|v| p("provider_state", v))),
            optional("provider_state_format", string()),
        )
            .prop_map(move |(id, n, input, ps, psf)| {
                let mut v = vec![ty("tool_use"), p("id", id), p("name", n), p("input", input)];
                v.extend(ps);
                v.extend(psf);
                v
            }),
    ]
}

/// A block as JSON text, keys shuffled; tool_result blocks nest (T5.3, well below 128).
fn block() -> impl Strategy<Value = String> {
    let leaf = (leaf_block().prop_shuffle(), ws()).prop_map(|(pairs, w)| render(&pairs, w));
    leaf.prop_recursive(3, 16, 3, |inner| {
        (string(), prop::collection::vec(inner, 0..3), any::<bool>())
            .prop_map(|(id, content, err)| {
                vec![
                    p("type", "\"tool_result\"".to_owned()),
                    p("tool_use_id", id),
                    p("content", format!("[{}]", content.join(","))),
                    p("is_error", err.to_string()),
                ]
            })
            .prop_shuffle()
            .prop_map(|pairs| render(&pairs, ""))
            .boxed()
    })
}

fn blocks() -> impl Strategy<Value = String> {
    prop::collection::vec(block(), 0..4).prop_map(|b| format!("[{}]", b.join(",")))
}

fn counter() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_owned()),
        any::<u64>().prop_map(|n| n.to_string()),
        (0u64..100).prop_map(|n| n.to_string())
    ]
}

fn usage() -> impl Strategy<Value = Option<String>> {
    let keys = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "reasoning_tokens"];
    let object = prop::collection::vec(prop::option::of(counter()), 5).prop_map(move |counters| {
        let pairs: Vec<(String, String)> = keys.iter().zip(counters).filter_map(|(k, c)| c.map(|c| p(k, c))).collect();
        render(&pairs, "")
    });
    prop::option::of(prop_oneof![Just("null".to_owned()), object])
}

fn message() -> impl Strategy<Value = String> {
    prop_oneof![
        (prop::sample::select(vec!["user", "system"]), blocks())
            .prop_map(|(r, b)| vec![p("role", format!("\"{r}\"")), p("blocks", b)]),
        (blocks(), usage()).prop_map(|(b, u)| {
            let mut v = vec![p("role", "\"assistant\"".to_owned()), p("blocks", b)];
            v.extend(u.map(|u| p("usage", u)));
            v
        }),
        (blocks(), string(), any::<bool>()).prop_map(|(b, id, e)| {
            vec![p("role", "\"tool\"".to_owned()), p("blocks", b), p("tool_use_id", id), p("is_error", e.to_string())]
        }),
    ]
    .prop_shuffle()
    .prop_map(|pairs| render(&pairs, ""))
}

fn hex(len: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(b"0123456789abcdef".to_vec()), len)
        .prop_map(|v| String::from_utf8(v).unwrap_or_default())
        .prop_filter("not all zero", |h| h.bytes().any(|b| b != b'0'))
}

/// A valid input wire document (W5.1): every step of W5.2 passes.
fn document() -> impl Strategy<Value = Vec<u8>> {
    (
        1u64..=u64::MAX,
        hex(32),
        nonempty_body(),
        nonempty_body(),
        hex(64),
        prop::collection::vec(message(), 1..5),
        1u64..=u64::MAX,
        ws(),
    )
        .prop_flat_map(|(rev, uuid, provider, model, fp, messages, max, w)| {
            let uuid = format!("{}-{}-{}-{}-{}", &uuid[..8], &uuid[8..12], &uuid[12..16], &uuid[16..20], &uuid[20..]);
            let pairs = vec![
                p("version", "1".to_owned()),
                p("basis", format!("{{{w}\"through_event_id\":\"{uuid}\",\"revision\":{w}{rev}}}")),
                p("model", format!("{{\"provider\":\"{provider}\",{w}\"model\":\"{model}\"}}")),
                p("request_fingerprint", format!("\"{fp}\"")),
                p("transcript", format!("[{w}{}{w}]", messages.join(&format!(",{w}")))),
                p("max_summary_tokens", max.to_string()),
            ];
            (Just(pairs).prop_shuffle(), Just(w))
        })
        .prop_map(|(pairs, w)| format!("{w}{}{w}", render(&pairs, w)).into_bytes())
}

// ---------------------------------------------------------------------------------------------
// Mutations

const FRAGMENTS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"\\u",
    b"\\ud800",
    b"\\udc00",
    b"\\",
    b",",
    b":",
    b"null",
    b"0",
    b"-",
    b"1e999",
    b"\xff",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xe2\x80",
    b"\xf0\x9f\x98",
    b"\x00",
    b"\t",
    b" ",
    b"\"type\":\"text\"",
    b"{\"a\":1,\"a\":2}",
    b"[[[[[[",
    b"}}}}",
    b"\"role\":\"tool\"",
    b"true",
    b"\"\"",
    b"=",
    b"QR==",
    b"\xef\xbb\xbf",
    b"\"version\":1,",
    b"\"Version\"",
    b"\\u0000",
    b"01",
    b"\x7f",
    b"\"is_error\":null",
];

#[derive(Debug, Clone)]
enum Mutation {
    Insert(Index, u8),
    Delete(Index, usize),
    Replace(Index, u8),
    Splice(Index, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<Index>(), 1usize..8).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Replace(i, b)),
        (any::<Index>(), 0..FRAGMENTS.len()).prop_map(|(i, f)| Mutation::Splice(i, f)),
        (any::<Index>(), 0..FRAGMENTS.len()).prop_map(|(i, f)| Mutation::Splice(i, f)),
    ]
}

fn apply(doc: &mut Vec<u8>, m: &Mutation) {
    let at = |i: &Index, len: usize| if len == 0 { 0 } else { i.index(len + 1) };
    match m {
        Mutation::Insert(i, b) => {
            let k = at(i, doc.len());
            doc.insert(k, *b);
        }
        Mutation::Delete(i, n) => {
            if !doc.is_empty() {
                let k = i.index(doc.len());
                let end = (k + n).min(doc.len());
                doc.drain(k..end);
            }
        }
        Mutation::Replace(i, b) => {
            if !doc.is_empty() {
                let k = i.index(doc.len());
                doc[k] = *b;
            }
        }
        Mutation::Splice(i, f) => {
            let k = at(i, doc.len());
            let fragment = FRAGMENTS[*f];
            doc.splice(k..k, fragment.iter().copied());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Output replies

const INPUT: &str = r#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"model":{"provider":"provider","model":"model"},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":[{"role":"user","blocks":[{"type":"text","text":"hello"}]}],"max_summary_tokens":32}"#;

fn reply() -> String {
    format!(
        r#"{{"version":1,"basis":{{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}},"model":{{"provider":"provider","model":"model"}},"request_fingerprint":"{FP}","summary":"<conversation_summary><goal>ship &amp; verify</goal><constraints/><decisions>d</decisions><state>ready</state><open_items/></conversation_summary>"}}"#
    )
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn valid_documents_encode_idempotently(doc in document(), limit_frac in 0.0f64..1.2, tail in 0u64..4) {
        let (rc, handle) = parse(&doc);
        prop_assert_eq!(rc, OK, "generated document rejected: {}", String::from_utf8_lossy(&doc));
        let h = handle.unwrap();
        // F7.2: with no limit the result is S, the canonical encoding.
        let s = h.encode(u64::MAX).unwrap();
        prop_assert_eq!(&h.encode(u64::MAX).unwrap(), &s, "A3.6");
        // S parses back to an input whose encoding is S.
        let (rc, again) = parse(&s);
        prop_assert_eq!(rc, OK, "canonical encoding rejected: {}", String::from_utf8_lossy(&s));
        prop_assert_eq!(&again.unwrap().encode(u64::MAX).unwrap(), &s);
        // F7.2–F7.4: any limit gives bytes under the limit that parse, or too_large.
        let limit = ((s.len() as f64 * limit_frac) as u64).saturating_add(tail).saturating_sub(2);
        match h.encode(limit) {
            Ok(fitted) => {
                prop_assert!(fitted.len() as u64 <= limit, "fitted {} > limit {limit}", fitted.len());
                prop_assert!(limit > 0, "F7.2: max_bytes 0 is too_large");
                if s.len() as u64 <= limit {
                    prop_assert_eq!(&fitted, &s, "F7.2: S fits, so the result is S");
                } else {
                    prop_assert!(fitted.len() < s.len());
                }
                let (rc, fitted_handle) = parse(&fitted);
                prop_assert_eq!(rc, OK, "fitted bytes rejected: {}", String::from_utf8_lossy(&fitted));
                // The fitted document is canonical too.
                prop_assert_eq!(&fitted_handle.unwrap().encode(u64::MAX).unwrap(), &fitted);
            }
            Err(rc) => {
                prop_assert_eq!(rc, TOO_LARGE);
                prop_assert!(limit == 0 || (s.len() as u64) > limit, "too_large although S fits");
            }
        }
    }
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn mutated_documents_give_an_input_status(doc in document(), mutations in prop::collection::vec(mutation(), 1..4)) {
        let mut doc = doc;
        for m in &mutations {
            apply(&mut doc, m);
        }
        let (rc, handle) = parse(&doc);
        prop_assert!(rc == OK || (100..=105).contains(&rc), "status {rc} outside A3.9");
        if let Some(h) = handle {
            let s = h.encode(u64::MAX).unwrap();
            let (rc, _) = parse(&s);
            prop_assert_eq!(rc, OK, "canonical encoding of a mutated document rejected");
            let fitted = h.encode(s.len() as u64 / 2);
            prop_assert!(matches!(fitted, Ok(ref b) if b.len() <= s.len() / 2) || fitted == Err(TOO_LARGE));
        }
    }

    #[test]
    fn mutated_replies_give_an_output_status(
        mutations in prop::collection::vec(mutation(), 0..4),
        tokens in prop_oneof![Just(1u64), Just(32), 0u64..40],
        slack in 0u64..4,
    ) {
        let (rc, h) = parse(INPUT.as_bytes());
        prop_assert_eq!(rc, OK);
        let h = h.unwrap();
        let mut reply = reply().into_bytes();
        for m in &mutations {
            apply(&mut reply, m);
        }
        let max = (reply.len() as u64 + slack).saturating_sub(1);
        // The wrapper also checks that `*summary_len` is untouched on failure and the two-call pattern.
        let result = h.output(&reply, tokens, max);
        let rc = result.as_ref().err().copied().unwrap_or(OK);
        prop_assert!(rc == OK || rc == 200 || rc == 201 || (203..=209).contains(&rc), "status {rc} outside A3.9");
        if let Ok(summary) = &result {
            prop_assert!(summary.len() <= reply.len(), "O6.4: the summary is never longer than the reply");
            prop_assert!(std::str::from_utf8(summary).is_ok());
        }
        if mutations.is_empty() {
            let expect = if max < reply.len() as u64 { 203 } else if tokens == 0 { 204 } else if tokens > 32 { 205 } else { OK };
            prop_assert_eq!(rc, expect);
        }
    }
}
