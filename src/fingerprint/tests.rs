//! Unit tests of the canonical encoder of R10.5: floats (R10.6) and strings (E7.6). Every expected
//! string is derived from the rules' text, not from running the encoder.

use super::float::put_f64;
use super::{FingerprintInput, RequestFingerprint};
use crate::json::write::put_str;

fn f(x: f64) -> String {
    let mut out = Vec::new();
    put_f64(&mut out, x);
    String::from_utf8(out).unwrap()
}

fn s(text: &str) -> String {
    let mut out = Vec::new();
    put_str(&mut out, text);
    String::from_utf8(out).unwrap()
}

#[test]
fn zero_and_negative_zero() {
    assert_eq!(f(0.0), "0");
    assert_eq!(f(-0.0), "-0");
}

#[test]
fn integral_values_have_no_fraction() {
    for (x, want) in [
        (1.0, "1"),
        (-1.0, "-1"),
        (2.0, "2"),
        (10.0, "10"),
        (100.0, "100"),
        (1234567.0, "1234567"),
        (9007199254740992.0, "9007199254740992"),
        (1e20, "100000000000000000000"),
        (-1e20, "-100000000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        // The largest double below 1e21 (999999999999999868928): shortest digits 9999999999999999.
        (999999999999999868928.0, "999999999999999900000"),
    ] {
        assert_eq!(f(x), want, "{x:?}");
    }
}

#[test]
fn plain_fractions() {
    for (x, want) in [
        (0.5, "0.5"),
        (-0.5, "-0.5"),
        (1.5, "1.5"),
        (100.5, "100.5"),
        (0.1, "0.1"),
        (0.1 + 0.2, "0.30000000000000004"),
        (12345.678, "12345.678"),
        (0.001, "0.001"),
        (1e-6, "0.000001"),
        (-1e-6, "-0.000001"),
        (0.0000015, "0.0000015"),
        (0.000001234, "0.000001234"),
        (1.0 / 3.0, "0.3333333333333333"),
        (2.0 / 3.0, "0.6666666666666666"),
    ] {
        assert_eq!(f(x), want, "{x:?}");
    }
}

#[test]
fn exponent_notation_outside_the_plain_range() {
    for (x, want) in [
        (1e-7, "1e-7"),
        (-1e-7, "-1e-7"),
        (9.99999999999999e-7, "9.99999999999999e-7"),
        (f64::from_bits(1e-6f64.to_bits() - 1), "9.999999999999997e-7"),
        (2.5e-10, "2.5e-10"),
        (1e-10, "1e-10"),
        (1.23e-18, "1.23e-18"),
        (1e-100, "1e-100"),
        (1e21, "1e+21"),
        (-1e21, "-1e+21"),
        (1.5e21, "1.5e+21"),
        (1e22, "1e+22"),
        (1e100, "1e+100"),
        (1.5e300, "1.5e+300"),
        (f64::MAX, "1.7976931348623157e+308"),
        (f64::MIN, "-1.7976931348623157e+308"),
        (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
    ] {
        assert_eq!(f(x), want, "{x:?}");
    }
}

#[test]
fn subnormals() {
    assert_eq!(f(5e-324), "5e-324");
    assert_eq!(f(-5e-324), "-5e-324");
    assert_eq!(f(f64::from_bits(1)), "5e-324");
    assert_eq!(f(f64::from_bits(2)), "1e-323");
    // The largest subnormal.
    assert_eq!(f(f64::from_bits(0x000F_FFFF_FFFF_FFFF)), "2.225073858507201e-308");
}

#[test]
fn shortest_digits_round_trip() {
    // A sweep over magnitudes and bit patterns: the text reads back to the same double, and has no
    // more significant digits than `{:e}` gives (its shortest mode).
    let mut bits: u64 = 0x3FF0_0000_0000_0001;
    for _ in 0..20_000 {
        bits = bits.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let x = f64::from_bits(bits);
        if !x.is_finite() {
            continue;
        }
        let text = f(x);
        let back: f64 = text.parse().unwrap();
        assert_eq!(back.to_bits(), x.to_bits(), "{text}");
        assert!(!text.contains(".e") && !text.ends_with('.'), "{text}");
        let abs = x.abs();
        let exponent_form = text.contains('e');
        assert_eq!(exponent_form, x != 0.0 && !(1e-6..1e21).contains(&abs), "{text}");
    }
}

#[test]
fn every_control_character() {
    for c in 0u32..0x20 {
        let ch = char::from_u32(c).unwrap();
        let want = match c {
            0x08 => "\"\\b\"".to_owned(),
            0x09 => "\"\\t\"".to_owned(),
            0x0A => "\"\\n\"".to_owned(),
            0x0C => "\"\\f\"".to_owned(),
            0x0D => "\"\\r\"".to_owned(),
            _ => format!("\"\\u00{c:02x}\""),
        };
        assert_eq!(s(&ch.to_string()), want, "U+{c:04X}");
    }
    assert_eq!(s("\u{0}"), "\"\\u0000\"");
    assert_eq!(s("\u{1f}"), "\"\\u001f\"");
    assert_eq!(s("\u{b}"), "\"\\u000b\"");
    assert_eq!(s("\u{1b}"), "\"\\u001b\"");
}

#[test]
fn every_escape() {
    assert_eq!(s("\""), "\"\\\"\"");
    assert_eq!(s("\\"), "\"\\\\\"");
    assert_eq!(s("/"), "\"/\"");
    assert_eq!(s("<"), "\"\\u003c\"");
    assert_eq!(s(">"), "\"\\u003e\"");
    assert_eq!(s("&"), "\"\\u0026\"");
    assert_eq!(s("<a href=\"x\">&amp;</a>"), "\"\\u003ca href=\\\"x\\\"\\u003e\\u0026amp;\\u003c/a\\u003e\"");
    assert_eq!(s("\u{2028}"), "\"\\u2028\"");
    assert_eq!(s("\u{2029}"), "\"\\u2029\"");
    assert_eq!(s("a\u{2028}b\u{2029}c"), "\"a\\u2028b\\u2029c\"");
}

#[test]
fn raw_characters() {
    assert_eq!(s(""), "\"\"");
    assert_eq!(s("plain text 123"), "\"plain text 123\"");
    assert_eq!(s("\u{7f}"), "\"\u{7f}\"");
    assert_eq!(s("\u{fffd}"), "\"\u{fffd}\"");
    assert_eq!(s("é ü ß ſ K"), "\"é ü ß ſ K\"");
    assert_eq!(s("日本語"), "\"日本語\"");
    assert_eq!(s("😀"), "\"😀\"");
    assert_eq!(s("\u{80}\u{9f}\u{a0}"), "\"\u{80}\u{9f}\u{a0}\"");
    // Neighbours of U+2028/U+2029 sharing their first byte 0xE2 stay raw.
    assert_eq!(s("\u{2027}\u{202a}\u{2000}\u{20ac}"), "\"\u{2027}\u{202a}\u{2000}\u{20ac}\"");
    // A long run with an escape at the end (the chunked scan).
    let long = format!("{}<", "x".repeat(40));
    assert_eq!(s(&long), format!("\"{}\\u003c\"", "x".repeat(40)));
}

/// The R10.7 worked example document with `SystemRevision` replaced by the JSON string `value`.
fn document_with_system_revision(value: &str) -> String {
    format!(
        "{{\"SystemRevision\":{value},\"ToolPolicyRevision\":\"tools-v1\",\"Model\":{{\"Provider\":\"lmstudio\",\"APIFormat\":\"openai\",\"BaseURL\":\"http://localhost:1234\",\"Name\":\"m\",\"Origin\":0,\"Caps\":{{\"AcceptsImages\":false,\"Tools\":false,\"Thinking\":false,\"StructuredOutput\":false,\"StructuredOutputWithTools\":false,\"ThinkingDialect\":\"\",\"PromptCaching\":false}},\"Limits\":{{\"WindowTokens\":0,\"MaxInputTokens\":0,\"MaxOutputTokens\":0}},\"Sampling\":{{\"Temperature\":0.5,\"TopP\":null,\"MaxTokens\":null,\"Stop\":null,\"Effort\":\"\"}}}},\"Basis\":{{\"revision\":1,\"through_event_id\":\"01000000-0000-0000-0000-000000000000\"}},\"RuntimeContextRevision\":\"runtime-v1\",\"CounterCapability\":{{\"Provider\":\"\",\"Transport\":1,\"SecurityIdentity\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"Retention\":1,\"TokenizerRev\":\"exact-v1\",\"Quality\":2}},\"InferenceCapability\":{{\"Provider\":\"\",\"Transport\":1,\"SecurityIdentity\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"Retention\":1}}}}"
    )
}

/// The canonical text of `SystemRevision` for a document spelling it as `value`.
fn canonical_system_revision(value: &str) -> String {
    let input = FingerprintInput::from_json(document_with_system_revision(value).as_bytes()).unwrap();
    let bytes = input.canonical_bytes().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let rest = text.strip_prefix("{\"SystemRevision\":").unwrap();
    let end = rest.find(",\"ToolPolicyRevision\":").unwrap();
    rest[..end].to_owned()
}

#[test]
fn input_escapes_are_decoded_and_rewritten_canonically() {
    for (json, want) in [
        (r#""\u0041\u00e9""#, "\"Aé\""),
        (r#""\/""#, "\"/\""),
        (r#""\u003C\u003e\u0026""#, r#""\u003c\u003e\u0026""#),
        (r#""<>&""#, r#""\u003c\u003e\u0026""#),
        (r#""\b\f\n\r\t""#, r#""\b\f\n\r\t""#),
        (r#""\u0008\u000C\u000a""#, r#""\b\f\n""#),
        (r#""\u0000\u001F\u007f""#, "\"\\u0000\\u001f\u{7f}\""),
        (r#""\u2028\u2029""#, r#""\u2028\u2029""#),
        ("\"\u{2028}\u{2029}\"", r#""\u2028\u2029""#),
        // J5.4: a lone surrogate escape is U+FFFD, written raw; a pair is one character.
        (r#""\ud800""#, "\"\u{fffd}\""),
        (r#""\udc00x""#, "\"\u{fffd}x\""),
        (r#""\ud800\u0041""#, "\"\u{fffd}A\""),
        (r#""\ud83d\ude00""#, "\"😀\""),
        (r#""\"\\""#, r#""\"\\""#),
    ] {
        assert_eq!(canonical_system_revision(json), want, "{json}");
    }
}

#[test]
fn worked_example_digest() {
    let doc = document_with_system_revision("\"system-v1\"");
    let fp = RequestFingerprint::compute(doc.as_bytes()).unwrap();
    assert_eq!(fp.canonical_bytes(), doc.as_bytes());
    assert_eq!(fp.canonical_bytes().len(), 943);
    assert_eq!(fp.to_hex(), "f0c4cabef8241dc5e6550b771cc4bed570508cfbc820a697efc8439438bde5e0");
}

#[test]
fn security_identity_is_an_array_of_decimal_integers() {
    let mut input = FingerprintInput::from_json(document_with_system_revision("\"s\"").as_bytes()).unwrap();
    let mut id = [0u8; 32];
    id[..10].copy_from_slice(&[0, 1, 9, 10, 42, 99, 100, 101, 200, 255]);
    id[31] = 7;
    input.counter.security_identity = id;
    let text = String::from_utf8(input.canonical_bytes().unwrap()).unwrap();
    let want = "\"SecurityIdentity\":[0,1,9,10,42,99,100,101,200,255,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,7],";
    assert!(text.contains(want), "{text}");
    assert!(
        text.contains(
            "\"SecurityIdentity\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"Retention\":1}}"
        ),
        "{text}"
    );
}

/// R10.6 ties: the exact value is the midpoint of two shortest digit strings, and the even one is
/// written (Go's `strconv`). Each value is a short binary fraction, so its exact decimal expansion
/// (worked by hand: k/2^m) ends in 5 one place past the shortest length.
#[test]
fn exact_ties_take_the_even_last_digit() {
    for (x, want) in [
        // 1 + 2^-17 = 1.00000762939453125 exactly; ...312 and ...313 are both shortest.
        (1.0 + 2f64.powi(-17), "1.0000076293945312"),
        (1.0 - 2f64.powi(-17), "0.9999923706054688"),
        // 175949043212599.625 = 175949043212599 + 5/8 (exact): ...599.62 and ...599.63 tie.
        (175_949_043_212_599.0 + 0.625, "175949043212599.62"),
        (-(175_949_043_212_599.0 + 0.625), "-175949043212599.62"),
        // 2 + 2^-18 = 2.000003814697265625 exactly.
        (2.0 + 2f64.powi(-18), "2.0000038146972656"),
    ] {
        assert_eq!(f(x), want, "{x:e}");
        // Both neighbours read back to x; the written one must too.
        assert_eq!(want.parse::<f64>().unwrap(), x);
    }
}

/// Near ties that are not exact stay with the closest digits.
#[test]
fn inexact_near_ties_keep_the_closest_digits() {
    // 0.3 is not a dyadic rational: never a tie.
    assert_eq!(f(0.3), "0.3");
    assert_eq!(f(1.0 + 2f64.powi(-52)), "1.0000000000000002");
    assert_eq!(f(5e-324), "5e-324");
    assert_eq!(f(1.7976931348623157e308), "1.7976931348623157e+308");
}

/// The worked example of R10.7, written out from the spec text.
const R10_7: &str = r#"{"SystemRevision":"system-v1","ToolPolicyRevision":"tools-v1","Model":{"Provider":"lmstudio","APIFormat":"openai","BaseURL":"http://localhost:1234","Name":"m","Origin":0,"Caps":{"AcceptsImages":false,"Tools":false,"Thinking":false,"StructuredOutput":false,"StructuredOutputWithTools":false,"ThinkingDialect":"","PromptCaching":false},"Limits":{"WindowTokens":0,"MaxInputTokens":0,"MaxOutputTokens":0},"Sampling":{"Temperature":0.5,"TopP":null,"MaxTokens":null,"Stop":null,"Effort":""}},"Basis":{"revision":1,"through_event_id":"01000000-0000-0000-0000-000000000000"},"RuntimeContextRevision":"runtime-v1","CounterCapability":{"Provider":"","Transport":1,"SecurityIdentity":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"Retention":1,"TokenizerRev":"exact-v1","Quality":2},"InferenceCapability":{"Provider":"","Transport":1,"SecurityIdentity":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"Retention":1}}"#;

/// The template path of `digest_of` (a document that is its own canonical bytes, read by
/// `canonical::read`) against the decoder: on R10.7 and on thousands of variants of it (one or two
/// fields replaced by canonical, non-canonical, invalid and out-of-range values, whitespace, other
/// key orders), the same digest or the same error; and on every variant the template accepts, the
/// decoder's canonical bytes are the document itself.
#[test]
fn canonical_path_agrees_with_the_decoder() {
    // (the text in R10.7, replacements): each replacement is substituted for the first occurrence.
    let fields: &[(&str, &[&str])] = &[
        (
            "\"system-v1\"",
            &[
                "\"\"",
                "\"a<b\"",
                "\"a\\u003cb\"",
                "\"\u{e9}t\u{e9}\"",
                "\"\\u00e9\"",
                "\"\u{2014}\"",
                "\"\u{2028}\"",
                "\"\\n\"",
                "\"x\\\"y\"",
                "\"a\\u003Cb\"",
                "\"\\u2028\"",
                "\"\\u2029x\"",
                "\"\\u000a\"",
                "\"\\\\\"",
                "\"\\u0001\\u001f\\u007f\"",
                "\"\\u0008\"",
                "\"\\b\\f\\t\\r\"",
                "\"\\u0041\"",
                "\"\\ud800\"",
                "\"\\u00zz\"",
                "\"\\u0026amp\"",
                "\"&\"",
                "\"\u{e2}\u{80}\"",
                "\"\\/\"",
            ],
        ),
        (
            "\"Temperature\":0.5",
            &[
                "\"Temperature\":1",
                "\"Temperature\":0.1",
                "\"Temperature\":1e-7",
                "\"Temperature\":1E-7",
                "\"Temperature\":5e-1",
                "\"Temperature\":0.50",
                "\"Temperature\":-0",
                "\"Temperature\":0",
                "\"Temperature\":1e21",
                "\"Temperature\":1e+21",
                "\"Temperature\":100000000000000000000",
                "\"Temperature\":123456789012345680000",
                "\"Temperature\":1.0000076293945312",
                "\"Temperature\":1.0000076293945313",
                "\"Temperature\":null",
                "\"Temperature\":1e400",
                "\"Temperature\":-1.5e+300",
                "\"Temperature\":0.000001",
                "\"Temperature\":.5",
                "\"Temperature\":1.",
                "\"Temperature\":-",
                "\"Temperature\":\"0.5\"",
                "\"Temperature\":5e-324",
                "\"Temperature\":-0.0",
            ],
        ),
        ("\"TopP\":null", &["\"TopP\":0.9", "\"TopP\":nul", "\"TopP\":true"]),
        (
            "\"MaxTokens\":null",
            &[
                "\"MaxTokens\":-5",
                "\"MaxTokens\":-0",
                "\"MaxTokens\":0",
                "\"MaxTokens\":9223372036854775807",
                "\"MaxTokens\":-9223372036854775808",
                "\"MaxTokens\":9223372036854775808",
                "\"MaxTokens\":-9223372036854775809",
                "\"MaxTokens\":01",
                "\"MaxTokens\":1.5",
                "\"MaxTokens\":1e3",
            ],
        ),
        (
            "\"Stop\":null",
            &[
                "\"Stop\":[]",
                "\"Stop\":[\"a\"]",
                "\"Stop\":[\"a\",\"b\"]",
                "\"Stop\":[\"a\",null]",
                "\"Stop\":[ ]",
                "\"Stop\":[\"<\"]",
                "\"Stop\":[\"a\",]",
                "\"Stop\":[\"\\u0041\"]",
                "\"Stop\":\"a\"",
                "\"Stop\":[\"\\u003c/answer\\u003e\",\"\\n\\nHuman:\"]",
            ],
        ),
        (
            "\"01000000-0000-0000-0000-000000000000\"",
            &[
                "\"01000000-0000-0000-0000-0000000000AB\"",
                "\"01000000-0000-0000-0000-0000000000ab\"",
                "\"00000000-0000-0000-0000-000000000000\"",
                "\"01000000-0000-0000-0000-00000000000\"",
                "\"01000000x0000-0000-0000-000000000000\"",
                "\"\\u00301000000-0000-0000-0000-000000000000\"",
            ],
        ),
        (
            "\"SecurityIdentity\":[0,0,0",
            &[
                "\"SecurityIdentity\":[255,0,0",
                "\"SecurityIdentity\":[256,0,0",
                "\"SecurityIdentity\":[00,0,0",
                "\"SecurityIdentity\":[1,10,100",
                "\"SecurityIdentity\":[1000,0,0",
                "\"SecurityIdentity\":[0,0",
                "\"SecurityIdentity\":[0,0,0,0",
                "\"SecurityIdentity\":[ 0,0,0",
                "\"SecurityIdentity\":[-1,0,0",
                "\"SecurityIdentity\":[7,99,199",
            ],
        ),
        ("\"Origin\":0", &["\"Origin\":255", "\"Origin\":256", "\"Origin\":-1", "\"Origin\":00"]),
        (
            "\"WindowTokens\":0",
            &["\"WindowTokens\":18446744073709551615", "\"WindowTokens\":18446744073709551616", "\"WindowTokens\":10"],
        ),
        ("\"revision\":1", &["\"revision\":0", "\"revision\":12345678901234567890"]),
        (
            "\"http://localhost:1234\"",
            &[
                "\"\"",
                "\"https://example.com\"",
                "\"http://example.com\"",
                "\"http://[::1]:80\"",
                "\"http://a b\"",
                "\"HTTP://LOCALHOST:1\"",
                "\"http:\\/\\/localhost\"",
            ],
        ),
        ("\"ThinkingDialect\":\"\"", &["\"ThinkingDialect\":\"adaptive\"", "\"ThinkingDialect\":\"other\""]),
        ("\"Thinking\":false", &["\"Thinking\":true", "\"Thinking\":fals"]),
        ("\"Retention\":1,\"TokenizerRev\"", &["\"Retention\":0,\"TokenizerRev\"", "\"Retention\":4,\"TokenizerRev\""]),
        ("{\"SystemRevision\"", &["{ \"SystemRevision\"", "{\"ToolPolicyRevision\":\"t\",\"SystemRevision\""]),
        ("\"Retention\":1}}", &["\"Retention\":1}}\n", "\"Retention\":1} }", "\"Retention\":1}", "\"Retention\":1}}}"]),
    ];
    let mut docs = vec![R10_7.to_owned()];
    for (i, (from, tos)) in fields.iter().enumerate() {
        assert!(R10_7.contains(from), "{from}");
        for to in *tos {
            let one = R10_7.replacen(from, to, 1);
            // And each pair of fields: two replacements at once.
            for (later_from, later_tos) in fields.iter().skip(i + 1) {
                for later_to in later_tos.iter().take(3) {
                    docs.push(one.replacen(later_from, later_to, 1));
                }
            }
            docs.push(one);
        }
    }
    let mut accepted = 0;
    for doc in &docs {
        let bytes = doc.as_bytes();
        let decoded = RequestFingerprint::digest_decoded(bytes);
        assert_eq!(RequestFingerprint::digest_of(bytes), decoded, "{doc}");
        // And the typed path, which decodes every field and writes from the values.
        let typed = RequestFingerprint::compute(bytes).map(|f| *f.as_bytes());
        assert_eq!(typed, decoded, "{doc}");
        if let Some((input, _)) = super::canonical::read(bytes) {
            accepted += 1;
            // The decoder's canonical bytes (of the fully decoded input) are the document.
            if decoded.is_ok() {
                let full = FingerprintInput::from_json(bytes).unwrap();
                assert_eq!(String::from_utf8(full.canonical_bytes().unwrap()).unwrap(), *doc);
            }
            // The template's values are the decoder's (its strings stay in the document).
            let decoded_input = FingerprintInput::from_json(bytes).unwrap();
            assert_eq!(input.model.caps.thinking, decoded_input.model.caps.thinking, "{doc}");
            assert_eq!(input.model.limits, decoded_input.model.limits, "{doc}");
            assert_eq!(input.model.sampling.temperature, decoded_input.model.sampling.temperature, "{doc}");
            assert_eq!(input.model.sampling.max_tokens, decoded_input.model.sampling.max_tokens, "{doc}");
            assert_eq!(input.basis, decoded_input.basis, "{doc}");
            assert_eq!(input.counter.security_identity, decoded_input.counter.security_identity, "{doc}");
        }
    }
    assert!(super::canonical::read(R10_7.as_bytes()).is_some(), "R10.7 is canonical");
    // Both paths are exercised: most variants are canonical, and many are not.
    assert!(accepted > docs.len() / 4 && accepted < docs.len() * 3 / 4, "{accepted} of {}", docs.len());
}

/// `stop::stop_array_end` (block masks read in order) accepts exactly the arrays that are
/// their own canonical bytes: on 20,000 random arrays of canonical and other strings, separators
/// with and without white space, escapes reaching across block ends, and arrays cut short, against
/// serde_json's reading re-written by the E7.6 writer.
#[test]
fn stop_array_end_accepts_exactly_the_canonical_arrays() {
    let strings = [
        "a",
        "",
        "a string of forty bytes, give or take..",
        "\\u003c",
        "\\n",
        "\\u0041",
        "<",
        "\u{e9}",
        "\u{2028}",
        "\\u2028",
        "\u{2014}",
        "x\\\"y",
        "\\/",
        "\\\\",
        "\\u0001",
        "\\u00e9",
        "\\b\\f",
    ];
    let separators = [",", ",", ",", ", ", " ,"];
    let mut random = crate::testing::xorshift(0x0123_4567_89AB_CDEFu64);
    let mut next = move |n: usize| (random() % n as u64) as usize;
    for round in 0..20_000 {
        let count = next(12);
        let mut array = String::from("[");
        for k in 0..count {
            if k > 0 {
                array.push_str(separators[next(separators.len())]);
            }
            array.push('"');
            for _ in 0..next(4) {
                array.push_str(strings[next(strings.len())]);
            }
            array.push('"');
        }
        array.push(']');
        let mut cut = if round % 10 == 0 { next(array.len()) } else { array.len() };
        while !array.is_char_boundary(cut) {
            cut -= 1;
        }
        let doc = format!("{}}}", &array[..cut]);
        let expected = serde_json::from_str::<Vec<String>>(&array[..cut]).ok().and_then(|values| {
            let mut canonical = b"[".to_vec();
            for (k, v) in values.iter().enumerate() {
                if k > 0 {
                    canonical.push(b',');
                }
                put_str(&mut canonical, v);
            }
            canonical.push(b']');
            (canonical.as_slice() == &array.as_bytes()[..cut]).then_some(cut)
        });
        let found = super::stop::stop_array_end(doc.as_bytes(), 0);
        assert_eq!(found.map(crate::json::CheckedArray::end), expected, "{doc}");
    }
}
