//! R10.7: the worked example, its bytes and digest, and documents equivalent to it.

use super::support::*;

#[test]
fn worked_example_bytes_and_digest() {
    assert_eq!(WORKED_EXAMPLE.len(), 943);
    let fp = RequestFingerprint::of(&worked_example()).unwrap();
    assert_eq!(fp.canonical_bytes(), WORKED_EXAMPLE.as_bytes());
    assert_eq!(fp.to_hex(), WORKED_EXAMPLE_SHA256);
    assert_eq!(vectors::hex(fp.as_bytes()), WORKED_EXAMPLE_SHA256);
    assert_eq!(worked_example().canonical_bytes().unwrap(), WORKED_EXAMPLE.as_bytes());

    // Passing the bytes as the document gives the digest, through the C ABI too.
    let (rc, out) = call(WORKED_EXAMPLE.as_bytes());
    assert_eq!(rc, 0);
    assert_eq!(vectors::hex(&out), WORKED_EXAMPLE_SHA256);
    assert_eq!(FingerprintInput::from_json(WORKED_EXAMPLE.as_bytes()).unwrap(), worked_example());
}

#[test]
fn worked_example_equivalent_documents() {
    let reordered = r#"
    {
      "InferenceCapability": {"Retention": 1, "SecurityIdentity": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0], "Transport": 1, "Provider": ""},
      "CounterCapability": {"Quality": 2, "TokenizerRev": "exact-v1", "Retention": 1,
                            "SecurityIdentity": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],
                            "Transport": 1, "Provider": ""},
      "RuntimeContextRevision": "runtime-v1",
      "Basis": {"through_event_id": "01000000-0000-0000-0000-000000000000", "revision": 1},
      "Model": {
        "Sampling": {"Effort": "", "Stop": null, "MaxTokens": null, "TopP": null, "Temperature": 5E-1},
        "Limits": {"MaxOutputTokens": 0, "MaxInputTokens": 0, "WindowTokens": 0},
        "Caps": {"PromptCaching": false, "ThinkingDialect": "", "StructuredOutputWithTools": false,
                 "StructuredOutput": false, "Thinking": false, "Tools": false, "AcceptsImages": false},
        "Origin": 0, "Name": "m", "BaseURL": "http:\/\/localhost:1234", "APIFormat": "openai", "Provider": "lmstudio"
      },
      "ToolPolicyRevision": "tools-v1",
      "SystemRevision": "system-v1"
    }
    "#;
    let upper_uuid = WORKED_EXAMPLE.replace(
        "01000000-0000-0000-0000-000000000000",
        "01000000-0000-0000-0000-000000000000".to_uppercase().as_str(),
    );
    let spellings = [
        reordered.to_owned(),
        WORKED_EXAMPLE.replace("0.5", "5E-1"),
        WORKED_EXAMPLE.replace("0.5", "0.50000"),
        WORKED_EXAMPLE.replace("0.5", "50e-2"),
        WORKED_EXAMPLE.replace("\"Name\":\"m\"", "\"\\u004eame\":\"\\u006d\""),
        upper_uuid,
        format!(" \t\r\n{WORKED_EXAMPLE}\n "),
    ];
    for doc in &spellings {
        let (rc, out) = call(doc.as_bytes());
        assert_eq!(rc, 0, "{doc}");
        assert_eq!(vectors::hex(&out), WORKED_EXAMPLE_SHA256, "{doc}");
        assert_eq!(RequestFingerprint::compute(doc.as_bytes()).unwrap().canonical_bytes(), WORKED_EXAMPLE.as_bytes());
    }
    // An upper-case UUID is kept as given in the typed value; the canonical bytes use lower case.
    let input = FingerprintInput::from_json(spellings[5].as_bytes()).unwrap();
    assert_eq!(input.basis.through_event_id, "01000000-0000-0000-0000-000000000000".to_uppercase());
    let mixed = WORKED_EXAMPLE.replace("01000000-0000-0000-0000-000000000000", "0abcdef0-ABCD-EFab-cdef-0123456789AB");
    let fp = RequestFingerprint::compute(mixed.as_bytes()).unwrap();
    let text = String::from_utf8(fp.canonical_bytes().to_vec()).unwrap();
    assert!(text.contains("\"through_event_id\":\"0abcdef0-abcd-efab-cdef-0123456789ab\""), "{text}");
}
