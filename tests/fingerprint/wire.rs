//! D6, D7 and the other wire errors (R10.1, J5): missing keys, null, types, numbers, keys, syntax.

use super::support::*;

#[test]
fn every_missing_key_is_wire() {
    let mut paths = Vec::new();
    key_paths(&example_value(), "", &mut paths);
    assert_eq!(paths.len(), 7 + 8 + 7 + 3 + 5 + 2 + 6 + 4);
    for path in &paths {
        assert_eq!(status_of(without(path).as_bytes()), Status::FingerprintWire, "{path}");
    }
}

#[test]
fn null_only_where_allowed() {
    let nullable =
        ["Model.Sampling.Temperature", "Model.Sampling.TopP", "Model.Sampling.MaxTokens", "Model.Sampling.Stop"];
    let mut paths = Vec::new();
    key_paths(&example_value(), "", &mut paths);
    for path in &paths {
        let want = if nullable.contains(&path.as_str()) { Status::Ok } else { Status::FingerprintWire };
        assert_eq!(status_of(with(path, Value::Null).as_bytes()), want, "{path}");
    }
    assert_eq!(status_of(b"null"), Status::FingerprintWire);
    assert_eq!(status_of(b" null "), Status::FingerprintWire);
    assert_eq!(
        status_of(with("Model.Sampling.Stop", serde_json::json!(["a", null])).as_bytes()),
        Status::FingerprintWire
    );
}

#[test]
fn security_identity_is_exactly_32_bytes() {
    for path in ["CounterCapability.SecurityIdentity", "InferenceCapability.SecurityIdentity"] {
        for (value, want) in [
            (Value::from(vec![0u8; 31]), Status::FingerprintWire),
            (Value::from(vec![0u8; 33]), Status::FingerprintWire),
            (Value::from(Vec::<u8>::new()), Status::FingerprintWire),
            (Value::from(vec![0u8; 32]), Status::Ok),
            (
                serde_json::json!([
                    256, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
                ]),
                Status::FingerprintWire,
            ),
            (
                serde_json::json!([
                    -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
                ]),
                Status::FingerprintWire,
            ),
            (
                serde_json::json!([
                    1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
                ]),
                Status::FingerprintWire,
            ),
            (Value::from("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="), Status::FingerprintWire),
        ] {
            assert_eq!(status_of(with(path, value.clone()).as_bytes()), want, "{path} = {value}");
        }
    }
    // 32 elements of 255: valid layout; the values then go to P8.9/P8.10 (Local with an identity).
    let doc = with("CounterCapability.SecurityIdentity", Value::from(vec![255u8; 32]));
    assert_eq!(status_of(doc.as_bytes()), Status::FingerprintCounterCapability);
}

#[test]
fn not_a_number_cannot_be_sent() {
    for field in ["Model.Sampling.Temperature", "Model.Sampling.TopP"] {
        for bad in
            ["\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "1e400", "-1e400", "1.8e308", "\"0.5\"", "true", "[]", "{}"]
        {
            let doc = with(field, Value::from("@@")).replace("\"@@\"", bad);
            assert_eq!(status_of(doc.as_bytes()), Status::FingerprintWire, "{field} = {bad}");
        }
        for bad in ["NaN", "Infinity", "-Infinity", "inf", "+1", ".5", "1.", "01"] {
            let doc = with(field, Value::from("@@")).replace("\"@@\"", bad);
            assert_eq!(status_of(doc.as_bytes()), Status::FingerprintWire, "{field} = {bad}");
        }
        // The largest finite double and values that underflow are fine (J5.7).
        for ok in ["1.7976931348623157e308", "1e-400", "-1e-400", "0", "-0", "123456789012345678901234567890"] {
            let doc = with(field, Value::from("@@")).replace("\"@@\"", ok);
            assert_eq!(status_of(doc.as_bytes()), Status::Ok, "{field} = {ok}");
        }
    }
    // 408 only through the Rust API.
    for (t, p) in [
        (Some(f64::NAN), None),
        (None, Some(f64::INFINITY)),
        (Some(f64::NEG_INFINITY), Some(0.5)),
        (Some(0.5), Some(-f64::NAN)),
    ] {
        let mut input = worked_example();
        input.model.sampling.temperature = t;
        input.model.sampling.top_p = p;
        assert_eq!(input.validate(), Ok(()));
        assert_eq!(input.canonical_bytes().unwrap_err().status(), Status::FingerprintEncoding);
        assert_eq!(RequestFingerprint::of(&input).unwrap_err().status(), Status::FingerprintEncoding);
        // Validation comes first (R10.2 before the encoding).
        input.system_revision.clear();
        assert_eq!(RequestFingerprint::of(&input).unwrap_err().status(), Status::FingerprintSystemRevision);
    }
}

#[test]
fn underflow_and_negative_zero_floats() {
    let doc = with("Model.Sampling.Temperature", Value::from("@@")).replace("\"@@\"", "-1e-400");
    let fp = RequestFingerprint::compute(doc.as_bytes()).unwrap();
    assert!(String::from_utf8_lossy(fp.canonical_bytes()).contains("\"Temperature\":-0,"));
    let doc = with("Model.Sampling.Temperature", Value::from("@@")).replace("\"@@\"", "1e-400");
    let fp = RequestFingerprint::compute(doc.as_bytes()).unwrap();
    assert!(String::from_utf8_lossy(fp.canonical_bytes()).contains("\"Temperature\":0,"));
}

#[test]
fn integer_and_type_rules() {
    let cases: &[(&str, &str, Status)] = &[
        ("Model.Origin", "256", Status::FingerprintWire),
        ("Model.Origin", "-1", Status::FingerprintWire),
        ("Model.Origin", "1.0", Status::FingerprintWire),
        ("Model.Origin", "1e0", Status::FingerprintWire),
        ("Model.Origin", "\"1\"", Status::FingerprintWire),
        ("Model.Origin", "255", Status::Ok),
        ("Model.Sampling.MaxTokens", "1.5", Status::FingerprintWire),
        ("Model.Sampling.MaxTokens", "-9223372036854775808", Status::Ok),
        ("Model.Sampling.MaxTokens", "-9223372036854775809", Status::FingerprintWire),
        ("Model.Sampling.MaxTokens", "9223372036854775807", Status::Ok),
        ("Model.Sampling.MaxTokens", "9223372036854775808", Status::FingerprintWire),
        ("Model.Sampling.MaxTokens", "-0", Status::Ok),
        ("Model.Limits.WindowTokens", "18446744073709551615", Status::Ok),
        ("Model.Limits.WindowTokens", "18446744073709551616", Status::FingerprintWire),
        ("Model.Limits.WindowTokens", "-0", Status::FingerprintWire),
        ("Basis.revision", "18446744073709551615", Status::Ok),
        ("Basis.revision", "true", Status::FingerprintWire),
        ("Model.Caps.Tools", "0", Status::FingerprintWire),
        ("Model.Caps.Tools", "\"false\"", Status::FingerprintWire),
        ("Model.Name", "1", Status::FingerprintWire),
        ("Model.Sampling.Stop", "\"a\"", Status::FingerprintWire),
        ("Model.Sampling.Stop", "[1]", Status::FingerprintWire),
        ("Model.Sampling.Stop", "[[]]", Status::FingerprintWire),
        ("Model.Sampling.Stop", "[]", Status::Ok),
        ("Model.Sampling.Stop", "[\"\",\"a\"]", Status::Ok),
        ("Model.Caps", "[]", Status::FingerprintWire),
        ("Basis", "\"x\"", Status::FingerprintWire),
        ("CounterCapability.Transport", "4", Status::FingerprintCounterCapability),
        ("CounterCapability.Transport", "256", Status::FingerprintWire),
    ];
    for (path, text, want) in cases {
        let doc = with(path, Value::from("@@")).replace("\"@@\"", text);
        assert_eq!(status_of(doc.as_bytes()), *want, "{path} = {text}");
    }
}

#[test]
fn keys_are_exact() {
    let renamed = [
        ("\"SystemRevision\"", "\"systemRevision\""),
        ("\"through_event_id\"", "\"Through_Event_ID\""),
        ("\"Provider\":\"lmstudio\"", "\"Provider \":\"lmstudio\""),
        ("\"APIFormat\"", "\"ApiFormat\""),
        ("\"Tools\"", "\"Tool\\u0073\\u0000\""),
        ("\"Retention\":1}}", "\"Retention\":1,\"Extra\":1}}"),
        ("\"Quality\":2", "\"Quality\":2,\"KeepRecentSegments\":0"),
        ("{\"SystemRevision\"", "{\"\":0,\"SystemRevision\""),
        // A repeated key, also when spelled with an escape.
        ("\"Name\":\"m\"", "\"Name\":\"m\",\"Name\":\"m\""),
        ("\"Name\":\"m\"", "\"Name\":\"m\",\"N\\u0061me\":\"m\""),
        ("\"Temperature\":0.5", "\"Temperature\":null,\"Temperature\":0.5"),
    ];
    for (from, to) in renamed {
        let doc = WORKED_EXAMPLE.replacen(from, to, 1);
        assert_ne!(doc, WORKED_EXAMPLE);
        assert_eq!(status_of(doc.as_bytes()), Status::FingerprintWire, "{to}");
    }
}

#[test]
fn syntax_and_document_shape() {
    let bad: &[&[u8]] = &[b"", b" ", b"[]", b"{}", b"\"x\"", b"0", b"\xEF\xBB\xBF{}"];
    for doc in bad {
        assert_eq!(status_of(doc), Status::FingerprintWire, "{}", String::from_utf8_lossy(doc));
    }
    let e = WORKED_EXAMPLE.as_bytes();
    for doc in [
        [e, b"{}"].concat(),
        [e, b" null"].concat(),
        [b"\xEF\xBB\xBF", e].concat(),
        [b"[", e, b"]"].concat(),
        e[..e.len() - 1].to_vec(),
        WORKED_EXAMPLE.replace("\"m\"", "\"m\u{1}\"").into_bytes(),
        WORKED_EXAMPLE.replace("\"m\"", "\"\\x\"").into_bytes(),
        WORKED_EXAMPLE.replace(",\"Origin\"", ",,\"Origin\"").into_bytes(),
    ] {
        assert_eq!(status_of(&doc), Status::FingerprintWire, "{}", String::from_utf8_lossy(&doc));
    }
    // D3: invalid UTF-8 anywhere, including in a value the checks never look at.
    for (from, to) in [
        (&b"system-v1"[..], &b"system-\xff1"[..]),
        (b"openai", b"open\xc0\xafi"),
        (b"exact-v1", b"exact-\xed\xa0\x80"),
        (b"tools-v1", b"tools-v\xe2\x82"),
    ] {
        let at = e.windows(from.len()).position(|w| w == from).unwrap();
        let doc = [&e[..at], to, &e[at + from.len()..]].concat();
        assert_eq!(status_of(&doc), Status::FingerprintWire, "{}", String::from_utf8_lossy(&doc));
    }
    // Deep nesting in an unknown place is wire, not a crash.
    let deep = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
    assert_eq!(status_of(deep.as_bytes()), Status::FingerprintWire);
    let deep_value = with("Model.Name", Value::from("@@"))
        .replace("\"@@\"", &format!("{}{}", "[".repeat(10_001), "]".repeat(10_001)));
    assert_eq!(status_of(deep_value.as_bytes()), Status::FingerprintWire);
}

#[test]
fn error_offsets_point_into_the_document() {
    let doc = WORKED_EXAMPLE.replace("\"Origin\":0", "\"Origin\":256");
    let err = FingerprintInput::from_json(doc.as_bytes()).unwrap_err();
    assert_eq!(err.status(), Status::FingerprintWire);
    assert_eq!(err.offset(), doc.find("256"));
}
