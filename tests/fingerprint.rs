//! The request fingerprint (SPEC §10) through the C ABI and the safe Rust API: the conformance
//! vectors, the R10.7 worked example, each R10.2 step, each R10.3 condition, the R10.4 URL rules,
//! D6/D7, the boundary rules of §1/A3.1, and property tests (idempotent canonical bytes, every field
//! in the digest). Expected values come from the spec text.

use std::ptr;

use loopcompact::Status;
use loopcompact::ffi::{LC_FINGERPRINT_LEN, lc_request_fingerprint};
use loopcompact::fingerprint::{Basis, Caps, FingerprintInput, Limits, Model, RequestFingerprint, Sampling};
use loopcompact::policy::capability::{CounterCapability, InferenceCapability};
use proptest::prelude::*;
use serde_json::Value;
use testkit::spec::{FINGERPRINT_EXAMPLE as WORKED_EXAMPLE, FINGERPRINT_EXAMPLE_SHA256 as WORKED_EXAMPLE_SHA256};
use testkit::status;
use testkit::vectors;

/// `lc_request_fingerprint` on `json` (a pointer to its bytes, also when empty): status and digest.
fn call(json: &[u8]) -> (i32, [u8; 32]) {
    let mut out = [0xAAu8; LC_FINGERPRINT_LEN];
    let rc = unsafe { lc_request_fingerprint(json.as_ptr(), json.len(), out.as_mut_ptr()) };
    (rc, out)
}

fn status_of(json: &[u8]) -> Status {
    Status::from_code(call(json).0).unwrap()
}

/// The R10.7 worked example as a typed value, built from the spec's prose (not from the bytes).
fn worked_example() -> FingerprintInput {
    FingerprintInput {
        system_revision: "system-v1".into(),
        tool_policy_revision: "tools-v1".into(),
        runtime_context_revision: "runtime-v1".into(),
        model: Model {
            provider: "lmstudio".into(),
            api_format: "openai".into(),
            base_url: "http://localhost:1234".into(),
            name: "m".into(),
            origin: 0,
            caps: Caps::default(),
            limits: Limits::default(),
            sampling: Sampling { temperature: Some(0.5), ..Sampling::default() },
        },
        basis: Basis { revision: 1, through_event_id: "01000000-0000-0000-0000-000000000000".into() },
        counter: CounterCapability {
            provider: String::new(),
            transport: 1,
            security_identity: [0; 32],
            retention: 1,
            tokenizer_rev: "exact-v1".into(),
            quality: 2,
        },
        inference: InferenceCapability {
            provider: String::new(),
            transport: 1,
            security_identity: [0; 32],
            retention: 1,
        },
    }
}

/// The worked example's document as a JSON value, for editing.
fn example_value() -> Value {
    serde_json::from_str(WORKED_EXAMPLE).unwrap()
}

/// `value` with the field at `path` (keys separated by `.`) replaced by `new`.
fn with(path: &str, new: Value) -> String {
    let mut v = example_value();
    let mut at = &mut v;
    for key in path.split('.') {
        at = at.get_mut(key).unwrap_or_else(|| panic!("no {path}"));
    }
    *at = new;
    v.to_string()
}

/// `value` without the key at `path`.
fn without(path: &str) -> String {
    let mut v = example_value();
    let (parent, key) = path.rsplit_once('.').map_or(("", path), |(p, k)| (p, k));
    let mut at = &mut v;
    for k in parent.split('.').filter(|k| !k.is_empty()) {
        at = at.get_mut(k).unwrap();
    }
    assert!(at.as_object_mut().unwrap().remove(key).is_some(), "no {path}");
    v.to_string()
}

/// Every key path of a JSON value (objects only; arrays are leaves).
fn key_paths(v: &Value, prefix: &str, out: &mut Vec<String>) {
    if let Value::Object(map) = v {
        for (k, child) in map {
            let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            out.push(path.clone());
            key_paths(child, &path, out);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Conformance vectors.

#[test]
fn vectors() {
    let rows = vectors::rows("fingerprint.jsonl");
    assert!(!rows.is_empty());
    let mut failures = Vec::new();
    let mut passed = 0;
    for row in &rows {
        let name = vectors::name(row);
        let input = vectors::bytes_field(row, "input").unwrap_or_else(|| panic!("{name}: no input"));
        let expect = row.get("expect").and_then(Value::as_str).unwrap();
        let mut out = [0u8; LC_FINGERPRINT_LEN];
        let rc = unsafe { lc_request_fingerprint(vectors::ptr_of(row, &input), input.len(), out.as_mut_ptr()) };
        let got = status::verdict(rc);
        let mut ok = true;
        if got != expect || !(rc == 0 || (400..=407).contains(&rc)) {
            failures.push(format!("{name}: expected {expect}, got {got} ({rc})"));
            ok = false;
        } else if rc == 0 {
            let sha = row.get("sha256").and_then(Value::as_str).unwrap();
            if vectors::hex(&out) != sha {
                failures.push(format!("{name}: sha256 {} != {sha}", vectors::hex(&out)));
                ok = false;
            }
            let canonical = vectors::bytes_field(row, "canonical_json").unwrap();
            match RequestFingerprint::compute(&input) {
                Ok(fp) if fp.canonical_bytes() == canonical.as_slice() => {}
                Ok(fp) => {
                    failures.push(format!(
                        "{name}: canonical bytes differ:\n  got  {}\n  want {}",
                        String::from_utf8_lossy(fp.canonical_bytes()),
                        String::from_utf8_lossy(&canonical)
                    ));
                    ok = false;
                }
                Err(e) => {
                    failures.push(format!("{name}: Rust API fails with {e}"));
                    ok = false;
                }
            }
        }
        passed += usize::from(ok);
    }
    assert!(failures.is_empty(), "{} of {} rows fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
    eprintln!("fingerprint vectors: {passed}/{} pass", rows.len());
}

// ---------------------------------------------------------------------------------------------
// R10.7 worked example.

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

// ---------------------------------------------------------------------------------------------
// R10.2: each step, and the order between neighbours.

#[test]
fn validation_steps_in_order() {
    let valid = worked_example();
    assert_eq!(valid.validate(), Ok(()));

    type Edit = fn(&mut FingerprintInput);
    let steps: [(Edit, Status); 7] = [
        (|i| i.system_revision.clear(), Status::FingerprintSystemRevision),
        (|i| i.tool_policy_revision.clear(), Status::FingerprintToolPolicyRevision),
        (|i| i.runtime_context_revision.clear(), Status::FingerprintRuntimeContextRevision),
        (|i| i.model.name.clear(), Status::FingerprintModel),
        (|i| i.basis.revision = 0, Status::FingerprintBasis),
        (|i| i.counter.tokenizer_rev.clear(), Status::FingerprintCounterCapability),
        (|i| i.inference.transport = 0, Status::FingerprintInferenceCapability),
    ];
    for (k, (edit, status)) in steps.iter().enumerate() {
        // Step k alone.
        let mut input = valid.clone();
        edit(&mut input);
        assert_eq!(input.validate().unwrap_err().status(), *status, "step {}", k + 1);
        assert_eq!(RequestFingerprint::of(&input).unwrap_err().status(), *status);
        let doc = input.canonical_bytes().unwrap();
        assert_eq!(status_of(&doc), *status, "step {} via C", k + 1);
        // Step k with every later step failing too: k wins.
        let mut input = valid.clone();
        for (later, _) in &steps[k..] {
            later(&mut input);
        }
        assert_eq!(input.validate().unwrap_err().status(), *status, "step {} first", k + 1);
        assert_eq!(status_of(&input.canonical_bytes().unwrap()), *status);
    }
}

#[test]
fn revisions_are_not_trimmed() {
    let mut input = worked_example();
    input.system_revision = " ".into();
    input.tool_policy_revision = "\t".into();
    input.runtime_context_revision = " ".into();
    assert_eq!(input.validate(), Ok(()));
}

#[test]
fn basis_rules() {
    let mut input = worked_example();
    input.basis.through_event_id = "00000000-0000-0000-0000-000000000000".into();
    assert_eq!(input.validate().unwrap_err().status(), Status::FingerprintBasis);
    input.basis.revision = 0;
    assert_eq!(input.validate().unwrap_err().status(), Status::FingerprintBasis);
    input.basis.through_event_id = "00000000-0000-0000-0000-000000000001".into();
    assert_eq!(input.validate().unwrap_err().status(), Status::FingerprintBasis);
    input.basis.revision = u64::MAX;
    assert_eq!(input.validate(), Ok(()));
    // Through a document: the all-zero UUID is a valid UUID (decode passes), then Basis.
    let doc = with("Basis.through_event_id", Value::from("00000000-0000-0000-0000-000000000000"));
    assert_eq!(status_of(doc.as_bytes()), Status::FingerprintBasis);
    let doc = with("Basis.revision", Value::from(0));
    assert_eq!(status_of(doc.as_bytes()), Status::FingerprintBasis);
}

#[test]
fn uuid_shape_is_a_decode_rule() {
    for bad in [
        "",
        "01000000000000000000000000000000",
        "01000000-0000-0000-0000-00000000000",
        "01000000-0000-0000-0000-0000000000000",
        "{01000000-0000-0000-0000-000000000000}",
        "01000000-0000-0000-0000_000000000000",
        "0100000-00000-0000-0000-000000000000",
        "01000000-0000-0000-0000-00000000000g",
        "01000000-0000-0000-0000-00000000000\u{e9}",
        " 1000000-0000-0000-0000-000000000000",
        "urn:uuid:01000000-0000-0000-0000-000000000000",
    ] {
        let doc = with("Basis.through_event_id", Value::from(bad));
        assert_eq!(status_of(doc.as_bytes()), Status::FingerprintWire, "{bad:?}");
        // Built in Rust, the same value is `wire` from validate, before every other step.
        let mut input = worked_example();
        input.basis.through_event_id = bad.into();
        input.system_revision.clear();
        assert_eq!(input.validate().unwrap_err().status(), Status::FingerprintWire, "{bad:?}");
    }
    // Escapes are decoded before the UUID check.
    let doc = WORKED_EXAMPLE.replace("\"01000000-", "\"\\u00301000000-");
    assert_eq!(call(doc.as_bytes()), (0, call(WORKED_EXAMPLE.as_bytes()).1), "{doc}");
}

// ---------------------------------------------------------------------------------------------
// R10.3: every condition.

fn model_status(edit: impl FnOnce(&mut Model)) -> Result<(), Status> {
    let mut input = worked_example();
    edit(&mut input.model);
    let rust = input.validate().map_err(|e| e.status());
    let c = Status::from_code(call(&input.canonical_bytes().unwrap()).0).unwrap();
    assert_eq!(rust, if c == Status::Ok { Ok(()) } else { Err(c) }, "Rust API and C ABI agree");
    rust
}

#[test]
fn model_conditions() {
    let invalid = Err(Status::FingerprintModel);
    assert_eq!(model_status(|m| m.name.clear()), invalid);
    assert_eq!(model_status(|m| m.provider.clear()), invalid);
    // StructuredOutputWithTools needs both Tools and StructuredOutput.
    assert_eq!(model_status(|m| m.caps.structured_output_with_tools = true), invalid);
    assert_eq!(
        model_status(|m| {
            m.caps.structured_output_with_tools = true;
            m.caps.tools = true;
        }),
        invalid
    );
    assert_eq!(
        model_status(|m| {
            m.caps.structured_output_with_tools = true;
            m.caps.structured_output = true;
        }),
        invalid
    );
    assert_eq!(
        model_status(|m| {
            m.caps.structured_output_with_tools = true;
            m.caps.structured_output = true;
            m.caps.tools = true;
        }),
        Ok(())
    );
    // ThinkingDialect: "", adaptive, budget; non-empty needs Thinking.
    for dialect in ["adaptive", "budget"] {
        assert_eq!(model_status(|m| m.caps.thinking_dialect = dialect.into()), invalid);
        assert_eq!(
            model_status(|m| {
                m.caps.thinking_dialect = dialect.into();
                m.caps.thinking = true;
            }),
            Ok(())
        );
    }
    for dialect in ["Adaptive", "BUDGET", " budget", "none", "x"] {
        assert_eq!(
            model_status(|m| {
                m.caps.thinking_dialect = dialect.into();
                m.caps.thinking = true;
            }),
            invalid,
            "{dialect}"
        );
    }
    assert_eq!(model_status(|m| m.caps.thinking = true), Ok(()));
    // Limits: checked only with a window; equal is fine.
    let limits = |w, i, o| {
        move |m: &mut Model| m.limits = Limits { window_tokens: w, max_input_tokens: i, max_output_tokens: o }
    };
    assert_eq!(model_status(limits(100, 101, 0)), invalid);
    assert_eq!(model_status(limits(100, 0, 101)), invalid);
    assert_eq!(model_status(limits(100, 100, 100)), Ok(()));
    assert_eq!(model_status(limits(0, u64::MAX, u64::MAX)), Ok(()));
    assert_eq!(model_status(limits(u64::MAX, u64::MAX, u64::MAX)), Ok(()));
    assert_eq!(model_status(limits(1, 2, 2)), invalid);
    // BaseURL: empty is valid; otherwise R10.4.
    assert_eq!(model_status(|m| m.base_url.clear()), Ok(()));
    assert_eq!(model_status(|m| m.base_url = "ftp://localhost".into()), invalid);
    // Not checked: APIFormat, Origin, Effort, sampling values.
    assert_eq!(model_status(|m| m.api_format.clear()), Ok(()));
    assert_eq!(model_status(|m| m.api_format = "\u{0}?".into()), Ok(()));
    assert_eq!(model_status(|m| m.origin = 255), Ok(()));
    assert_eq!(model_status(|m| m.sampling.effort = "maximal".into()), Ok(()));
    assert_eq!(
        model_status(|m| {
            m.sampling.temperature = Some(-1e300);
            m.sampling.top_p = Some(7.0);
            m.sampling.max_tokens = Some(i64::MIN);
            m.sampling.stop = Some(vec![String::new()]);
        }),
        Ok(())
    );
}

// ---------------------------------------------------------------------------------------------
// R10.4: the ten BaseURL rules, each with valid and invalid examples (spec text and own).

fn url_ok(url: &str) -> bool {
    let mut model = worked_example().model;
    model.base_url = url.into();
    model.is_valid()
}

fn check_urls(rule: &str, valid: &[&str], invalid: &[&str]) {
    let mut wrong = Vec::new();
    for url in valid {
        if !url_ok(url) {
            wrong.push(format!("rule {rule}: {url:?} should be valid"));
        }
    }
    for url in invalid {
        if url_ok(url) {
            wrong.push(format!("rule {rule}: {url:?} should be invalid"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn url_rule_1_fragment_escapes() {
    check_urls(
        "1",
        &[
            "https://example.com/#frag",
            "https://example.com#%41%2f",
            "https://example.com/#a%20b",
            "https://example.com/#a\tb",
            "https://example.com/#",
            "https://example.com/#a#b",
        ],
        &[
            "https://example.com/#%zz",
            "https://example.com/#%4",
            "https://example.com#100%",
            "https://example.com/#%%41",
        ],
    );
}

#[test]
fn url_rule_2_no_control_bytes() {
    check_urls(
        "2",
        &["https://example.com/a\u{80}b", "https://example.com/\u{e9}"],
        &[
            "https://exa\tmple.com",
            "https://example.com/pa\u{7f}th",
            "https://example.com/?q=\n",
            "https://example.com\u{0}",
            "\u{1f}https://example.com",
            "https://example.com/\r",
        ],
    );
}

#[test]
fn url_rule_3_scheme() {
    check_urls(
        "3",
        &["https://example.com", "HTTPS://example.com", "HtTpS://example.com", "http://localhost"],
        &[
            "ftp://example.com",
            "ws://localhost",
            "example.com",
            "//example.com",
            "://example.com",
            "1http://localhost",
            "https//example.com",
            "h ttps://example.com",
            "https+x://example.com",
            "httpss://example.com",
            "/path",
        ],
    );
}

#[test]
fn url_rule_4_authority_form() {
    check_urls(
        "4",
        &[
            "https://example.com",
            "https://example.com/",
            "https://example.com?x",
            "https://example.com?q=%zz",
            "https://example.com?a@b/c",
            "https://example.com/v1?q=1",
        ],
        &["https:example.com", "https:/example.com", "https:", "http:localhost", "https:?//example.com"],
    );
}

#[test]
fn url_rule_5_no_userinfo() {
    check_urls(
        "5",
        &["https://example.com/@path", "https://example.com?user@x", "https://example.com#u@x"],
        &["https://user@example.com", "https://@example.com", "https://user:pass@example.com", "http://a@localhost"],
    );
}

#[test]
fn url_rule_6_host_and_port() {
    check_urls(
        "6",
        &[
            "https://example.com:443",
            "https://example.com:",
            "https://example.com:0008443",
            "https://[::1]",
            "https://[::1]:8443",
            "https://[::1]:",
            "https://[fe80::1%25en0]",
            "https://[fe80::1%25en0]:80",
            "https://[fe80::1%25%65n0]",
            "https://[fe80::1%25%20]",
            "https://[fe80::1%25%25]",
            "https://[fe80::1%25\u{e9}]",
        ],
        &[
            "https://example.com:443:443",
            "http://::1:80",
            "https://::1",
            "https://example.com:abc",
            "https://example.com:44 3",
            "https://example.com:-1",
            "https://[::1",
            "https://[::1]x",
            "https://[::1]:x",
            "https://[::1]::80",
            "https://a[::1]",
            "https://example[.com",
            "https://[::1][",
            "https://[::1]]",
            "https://[]",
            "https://[127.0.0.1]",
            "https://[localhost]",
            "https://[fe80::1%25]",
            "https://[fe80::1%en0]",
            "https://[fe80::1%25%00]",
            "https://[fe80::1%25%7b]",
            "https://[fe80::1%25%80]",
            "https://[fe80::1%25%zz]",
            "https://[fe80::1%25a b]",
            "https://[fe80::1%25a|b]",
            "https://[%31::1]",
        ],
    );
}

#[test]
fn url_rule_6a_ipv6_text() {
    let valid = [
        "::",
        "::1",
        "1::",
        "1::2",
        "1:2:3:4:5:6:7:8",
        "FFFF:ffff:0:0:0:0:0:1",
        "1:2:3:4:5:6::",
        "::2:3:4:5:6:7:8",
        "1:2:3:4:5:6:1.2.3.4",
        "::1.2.3.4",
        "::ffff:127.0.0.1",
        "1::2:255.255.255.255",
        "1:2:3:4:5::0.0.0.0",
        "0001:02:003:4:5:6:7:8",
    ];
    let invalid = [
        "1:2:3:4:5:6:7",
        "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7:8::",
        "1:2:3:4::5:6:7:8",
        "1::2::3",
        ":::",
        ":1::",
        "1:",
        ":1",
        "12345::",
        "g::1",
        "1.2.3.4",
        "1.2.3.4::",
        "::1.2.3",
        "::1.2.3.4.5",
        "::1.2.3.04",
        "::256.1.1.1",
        "::1.2.3.4:1",
        "1:2:3:4:5:1.2.3.4",
        "1:2:3:4:5:6:7:1.2.3.4",
        "1:2:3:4:5:6::1.2.3.4",
        "::ffff:1a.2.3.4",
        " ::1",
    ];
    let v: Vec<String> = valid.iter().map(|a| format!("https://[{a}]:1")).collect();
    let i: Vec<String> = invalid.iter().map(|a| format!("https://[{a}]:1")).collect();
    check_urls(
        "6a",
        &v.iter().map(String::as_str).collect::<Vec<_>>(),
        &i.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

#[test]
fn url_rule_7_host_characters_and_escapes() {
    check_urls(
        "7",
        &[
            "https://%C3%A9.example",
            "https://a%25b",
            "https://m\u{fc}nchen.de",
            "https://a!$&'()*+,;=b.example",
            "https://a<b>\"c",
            "https://a_b~c-d.e",
            "https://a]b",
            "https://%ff",
        ],
        &[
            "https://exa mple.com",
            "https://ex{ample.com",
            "https://ex}ample.com",
            "https://a|b",
            "https://a\\b",
            "https://a^b",
            "https://a`b",
            "https://%41.example",
            "https://%7f",
            "https://a%2",
            "https://a%zz",
            "https://a%",
        ],
    );
}

#[test]
fn url_rule_8_authority_not_empty() {
    check_urls(
        "8",
        &["https://:443", "https://:", "https://a"],
        &["https://", "https:///path", "https://?q", "https://#f", "https:///"],
    );
}

#[test]
fn url_rule_9_path_escapes() {
    check_urls(
        "9",
        &[
            "https://example.com/%41%2f",
            "https://example.com/a b",
            "https://example.com/v1/",
            "https://example.com/[x]",
        ],
        &["https://example.com/%zz", "https://example.com/a%2", "https://example.com/%", "https://example.com/a/%g0/b"],
    );
}

#[test]
fn url_rule_10_plain_http_only_to_loopback() {
    check_urls(
        "10",
        &[
            "http://localhost",
            "http://localhost:1234",
            "http://LOCALHOST:1",
            "HTTP://LOCALHOST:1",
            "http://LocalHost/v1",
            "http://127.0.0.1",
            "http://127.0.0.1:8080/v1",
            "http://[::1]",
            "http://[::1]:1234",
            "http://localhost:",
            "https://10.0.0.1",
            "https://example.com",
        ],
        &[
            "http://127.0.0.2",
            "http://localhost./",
            "http://example.com",
            "http://[::2]",
            "http://[0:0:0:0:0:0:0:1]",
            "http://127.1",
            "http://localhost.localdomain",
            "http://[::1%25lo]",
            "http://[::ffff:127.0.0.1]",
            "http://0.0.0.0",
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// D6, D7 and other wire errors.

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

// ---------------------------------------------------------------------------------------------
// Boundaries (§1, A3.1).

#[test]
fn boundaries() {
    let doc = WORKED_EXAMPLE.as_bytes();
    let mut out = [0xAAu8; LC_FINGERPRINT_LEN];
    unsafe {
        // (NULL, 0) is the empty document.
        assert_eq!(lc_request_fingerprint(ptr::null(), 0, out.as_mut_ptr()), Status::FingerprintWire.code());
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), 0, out.as_mut_ptr()), Status::FingerprintWire.code());
        // (NULL, n > 0) and a NULL out.
        assert_eq!(lc_request_fingerprint(ptr::null(), 5, out.as_mut_ptr()), Status::NullArgument.code());
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), doc.len(), ptr::null_mut()), Status::NullArgument.code());
        assert_eq!(lc_request_fingerprint(ptr::null(), 0, ptr::null_mut()), Status::NullArgument.code());
        // Pointers before lengths, lengths before content.
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), usize::MAX, ptr::null_mut()), Status::NullArgument.code());
        assert_eq!(
            lc_request_fingerprint(doc.as_ptr(), isize::MAX as usize + 1, out.as_mut_ptr()),
            Status::LengthOverflow.code()
        );
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), usize::MAX, out.as_mut_ptr()), Status::LengthOverflow.code());
    }
    // Nothing was written by any failing call.
    assert_eq!(out, [0xAA; LC_FINGERPRINT_LEN]);
    let (rc, _) = call(WORKED_EXAMPLE.replace("system-v1", "").as_bytes());
    assert_eq!(rc, Status::FingerprintSystemRevision.code());
    let (_, untouched) = call(b"{");
    assert_eq!(untouched, [0xAA; LC_FINGERPRINT_LEN]);
    // A shorter length than the buffer is honoured (no NUL terminator is assumed).
    let padded = format!("{WORKED_EXAMPLE}garbage");
    let mut out = [0u8; LC_FINGERPRINT_LEN];
    let rc = unsafe { lc_request_fingerprint(padded.as_ptr(), WORKED_EXAMPLE.len(), out.as_mut_ptr()) };
    assert_eq!(rc, 0);
    assert_eq!(vectors::hex(&out), WORKED_EXAMPLE_SHA256);
}

#[test]
fn fingerprint_len_constant() {
    assert_eq!(LC_FINGERPRINT_LEN, 32);
    assert_eq!(RequestFingerprint::of(&worked_example()).unwrap().as_bytes().len(), LC_FINGERPRINT_LEN);
}

// ---------------------------------------------------------------------------------------------
// Property tests.

/// Characters worth mixing into strings: every escape class of E7.6 and some non-ASCII.
fn text_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range('a', 'z'),
        2 => any::<char>(),
        3 => proptest::sample::select(vec![
            '\0', '\u{1}', '\u{8}', '\t', '\n', '\u{b}', '\u{c}', '\r', '\u{1f}', ' ', '"', '\\', '/', '<', '>', '&',
            '\u{7f}', '\u{80}', '\u{e9}', '\u{2027}', '\u{2028}', '\u{2029}', '\u{fffd}', '\u{1f600}',
        ]),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(text_char(), 0..max).prop_map(String::from_iter)
}

fn non_empty_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(text_char(), 1..12).prop_map(String::from_iter)
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        proptest::sample::select(vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            1e-6,
            1e-7,
            1e20,
            1e21,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.1 + 0.2
        ]),
        (-1000i32..1000).prop_map(|n| f64::from(n) / 8.0),
    ]
}

fn base_url() -> impl Strategy<Value = String> {
    proptest::sample::select(vec![
        "",
        "http://localhost:1234",
        "HTTP://LOCALHOST:1",
        "http://[::1]",
        "https://api.example.com/v1",
        "https://[fe80::1%25en0]:443/x?q=<&>#frag",
        "https://m\u{fc}nchen.de/a%20b",
    ])
    .prop_map(str::to_owned)
}

fn model() -> impl Strategy<Value = Model> {
    let caps =
        (any::<[bool; 6]>(), proptest::sample::select(vec!["", "adaptive", "budget"])).prop_map(|(b, dialect)| Caps {
            accepts_images: b[0],
            tools: b[1],
            thinking: b[2],
            structured_output: b[3],
            structured_output_with_tools: b[4] && b[1] && b[3],
            thinking_dialect: if b[2] { dialect.to_owned() } else { String::new() },
            prompt_caching: b[5],
        });
    let limits = (prop_oneof![Just(0u64), any::<u64>()], any::<u64>(), any::<u64>()).prop_map(|(w, i, o)| {
        if w == 0 {
            Limits { window_tokens: 0, max_input_tokens: i, max_output_tokens: o }
        } else {
            Limits { window_tokens: w, max_input_tokens: i % w + 1, max_output_tokens: o % w }
        }
    });
    let sampling = (
        proptest::option::of(float()),
        proptest::option::of(float()),
        proptest::option::of(any::<i64>()),
        proptest::option::of(proptest::collection::vec(text(6), 0..4)),
        text(6),
    )
        .prop_map(|(temperature, top_p, max_tokens, stop, effort)| Sampling {
            temperature,
            top_p,
            max_tokens,
            stop,
            effort,
        });
    (non_empty_text(), text(8), base_url(), non_empty_text(), any::<u8>(), caps, limits, sampling).prop_map(
        |(provider, api_format, base_url, name, origin, caps, limits, sampling)| Model {
            provider,
            api_format,
            base_url,
            name,
            origin,
            caps,
            limits,
            sampling,
        },
    )
}

fn identity() -> impl Strategy<Value = [u8; 32]> {
    any::<[u8; 32]>().prop_map(|mut id| {
        id[7] |= 1;
        id
    })
}

fn uuid() -> impl Strategy<Value = String> {
    (any::<[u8; 16]>(), any::<[bool; 32]>()).prop_map(|(mut bytes, upper)| {
        bytes[15] |= 1;
        let hex: Vec<char> = vectors::hex(&bytes).chars().collect();
        let mut s = String::new();
        for (i, c) in hex.iter().enumerate() {
            if [8, 12, 16, 20].contains(&i) {
                s.push('-');
            }
            s.push(if upper[i] { c.to_ascii_uppercase() } else { *c });
        }
        s
    })
}

fn counter() -> impl Strategy<Value = CounterCapability> {
    prop_oneof![
        (text(6), 1u8..=3, non_empty_text(), 1u8..=3).prop_map(|(provider, retention, tokenizer_rev, quality)| {
            CounterCapability { provider, transport: 1, security_identity: [0; 32], retention, tokenizer_rev, quality }
        }),
        (non_empty_text(), 2u8..=3, identity(), 1u8..=3, non_empty_text(), 1u8..=3).prop_map(
            |(provider, transport, security_identity, retention, tokenizer_rev, quality)| {
                CounterCapability { provider, transport, security_identity, retention, tokenizer_rev, quality }
            }
        ),
    ]
}

fn inference() -> impl Strategy<Value = InferenceCapability> {
    prop_oneof![
        (text(6), 0u8..=3).prop_map(|(provider, retention)| InferenceCapability {
            provider,
            transport: 1,
            security_identity: [0; 32],
            retention,
        }),
        (non_empty_text(), 2u8..=4, identity(), 0u8..=3).prop_map(
            |(provider, transport, security_identity, retention)| {
                InferenceCapability { provider, transport, security_identity, retention }
            }
        ),
    ]
}

fn valid_input() -> impl Strategy<Value = FingerprintInput> {
    (non_empty_text(), non_empty_text(), non_empty_text(), model(), (1u64.., uuid()), counter(), inference()).prop_map(
        |(
            system_revision,
            tool_policy_revision,
            runtime_context_revision,
            model,
            (revision, id),
            counter,
            inference,
        )| {
            FingerprintInput {
                system_revision,
                tool_policy_revision,
                runtime_context_revision,
                model,
                basis: Basis { revision, through_event_id: id },
                counter,
                inference,
            }
        },
    )
}

/// Number of single-field mutations of [`mutate`]: every field of the layout.
const FIELDS: usize = 35;

fn push(s: &mut String) {
    s.push('x');
}

fn cycle(v: &mut u8, lo: u8, hi: u8) {
    *v = if *v >= hi { lo } else { *v + 1 };
}

/// Changes field number `field` of `input` to a different value (kept valid where one field
/// allows it).
fn mutate(input: &mut FingerprintInput, field: usize) {
    let m = &mut input.model;
    match field {
        0 => push(&mut input.system_revision),
        1 => push(&mut input.tool_policy_revision),
        2 => push(&mut input.runtime_context_revision),
        3 => push(&mut m.provider),
        4 => push(&mut m.api_format),
        5 => m.base_url = if m.base_url.is_empty() { "https://example.com".into() } else { String::new() },
        6 => push(&mut m.name),
        7 => m.origin = m.origin.wrapping_add(1),
        8 => m.caps.accepts_images ^= true,
        9 => m.caps.tools ^= true,
        10 => m.caps.thinking ^= true,
        11 => m.caps.structured_output ^= true,
        12 => m.caps.structured_output_with_tools ^= true,
        13 => {
            m.caps.thinking_dialect = match m.caps.thinking_dialect.as_str() {
                "" => "adaptive",
                "adaptive" => "budget",
                _ => "",
            }
            .into()
        }
        14 => m.caps.prompt_caching ^= true,
        15 => m.limits.window_tokens = if m.limits.window_tokens == 0 { u64::MAX } else { 0 },
        16 => m.limits.max_input_tokens = m.limits.max_input_tokens.checked_sub(1).unwrap_or(1),
        17 => m.limits.max_output_tokens = m.limits.max_output_tokens.checked_sub(1).unwrap_or(1),
        18 => m.sampling.temperature = if m.sampling.temperature.is_some() { None } else { Some(0.5) },
        19 => m.sampling.top_p = if m.sampling.top_p.is_some() { None } else { Some(-0.0) },
        20 => m.sampling.max_tokens = if m.sampling.max_tokens.is_some() { None } else { Some(0) },
        21 => m.sampling.stop = if m.sampling.stop.is_some() { None } else { Some(Vec::new()) },
        22 => push(&mut m.sampling.effort),
        23 => input.basis.revision = input.basis.revision.checked_add(1).unwrap_or(1),
        24 => {
            let id = &mut input.basis.through_event_id;
            let last = if id.ends_with('1') { '3' } else { '1' };
            id.pop();
            id.push(last);
        }
        25 => push(&mut input.counter.provider),
        26 => cycle(&mut input.counter.transport, 1, 3),
        27 => input.counter.security_identity[0] ^= 1,
        28 => cycle(&mut input.counter.retention, 1, 3),
        29 => push(&mut input.counter.tokenizer_rev),
        30 => cycle(&mut input.counter.quality, 1, 3),
        31 => push(&mut input.inference.provider),
        32 => cycle(&mut input.inference.transport, 1, 4),
        33 => input.inference.security_identity[0] ^= 1,
        _ => cycle(&mut input.inference.retention, 0, 3),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Canonical bytes are themselves a document whose canonical bytes are the same (idempotent),
    /// and decode back to the same value.
    #[test]
    fn canonical_bytes_are_idempotent(input in valid_input()) {
        prop_assert_eq!(input.validate(), Ok(()));
        let bytes = input.canonical_bytes().unwrap();
        let decoded = FingerprintInput::from_json(&bytes).unwrap();
        prop_assert_eq!(decoded.canonical_bytes().unwrap(), bytes.clone());
        let mut lower = input.clone();
        lower.basis.through_event_id = lower.basis.through_event_id.to_ascii_lowercase();
        prop_assert_eq!(&decoded, &lower);
        let fp = RequestFingerprint::of(&input).unwrap();
        prop_assert_eq!(fp.canonical_bytes(), bytes.as_slice());
        let (rc, out) = call(&bytes);
        prop_assert_eq!(rc, 0);
        prop_assert_eq!(&out, fp.as_bytes());
    }

    /// Changing any single field changes the canonical bytes, and the fingerprint whenever the
    /// changed input is still valid.
    #[test]
    fn every_field_is_in_the_fingerprint(input in valid_input(), field in 0..FIELDS) {
        let before = RequestFingerprint::of(&input).unwrap();
        let mut changed = input.clone();
        mutate(&mut changed, field);
        prop_assert_ne!(&changed, &input);
        let bytes = changed.canonical_bytes().unwrap();
        prop_assert_ne!(bytes.as_slice(), before.canonical_bytes());
        if changed.validate().is_ok() {
            let after = RequestFingerprint::of(&changed).unwrap();
            prop_assert_ne!(after.as_bytes(), before.as_bytes());
        }
    }

    /// Any bytes: no panic, a status of the function, and `out` untouched on failure.
    #[test]
    fn arbitrary_bytes(doc in proptest::collection::vec(any::<u8>(), 0..64)) {
        let (rc, out) = call(&doc);
        prop_assert!(rc == 0 || (400..=407).contains(&rc));
        if rc != 0 {
            prop_assert_eq!(out, [0xAA; LC_FINGERPRINT_LEN]);
        }
    }
}

/// Every field is reached by the mutations: each changes the worked example's canonical bytes at a
/// different place.
#[test]
fn mutations_cover_every_field() {
    let base = worked_example().canonical_bytes().unwrap();
    for field in 0..FIELDS {
        let mut input = worked_example();
        mutate(&mut input, field);
        assert_ne!(input.canonical_bytes().unwrap(), base, "field {field}");
    }
    let mut paths = Vec::new();
    key_paths(&example_value(), "", &mut paths);
    let leaves = paths
        .iter()
        .filter(|p| {
            ![
                "Model",
                "Model.Caps",
                "Model.Limits",
                "Model.Sampling",
                "Basis",
                "CounterCapability",
                "InferenceCapability",
            ]
            .contains(&p.as_str())
        })
        .count();
    assert_eq!(leaves, FIELDS);
}

/// The C path writes every string field and `Stop` from the document's token bodies (escapes
/// decoded and re-escaped as it hashes); the Rust API decodes them into owned strings and writes
/// those. Every escape form in every string field, empty and non-empty, gives one digest both
/// ways, and the statuses agree where a field's emptiness or value decides validity.
#[test]
fn digest_path_reads_strings_in_place_like_the_decoded_input() {
    let torture = r#"q\"b\\s\/n\nr\rt\tb\bf\f\u0000\u001F\u007f\u2028\u2029\u00e9\u003C<>&\ud800x\ud83d\ude00\uDBFF\uDFFF\udc00 é 😀"#;
    let fields = [
        ("SystemRevision", r#""system-v1""#),
        ("ToolPolicyRevision", r#""tools-v1""#),
        ("RuntimeContextRevision", r#""runtime-v1""#),
        ("Provider", r#""lmstudio""#),
        ("APIFormat", r#""openai""#),
        ("BaseURL", r#""http://localhost:1234""#),
        ("Name", r#""m""#),
        ("ThinkingDialect", r#""""#),
        ("Effort", r#""""#),
        ("TokenizerRev", r#""exact-v1""#),
        ("Stop", "null"),
    ];
    let mut checked = 0;
    for (key, old) in fields {
        for new in [
            format!("\"{torture}\""),
            "\"\"".to_owned(),
            format!("[\"{torture}\",\"\",\"a\"]"),
            r#""\u0061daptive""#.to_owned(),
        ] {
            let needle = format!("\"{key}\":{old}");
            assert!(WORKED_EXAMPLE.contains(&needle), "{needle}");
            let doc = WORKED_EXAMPLE.replacen(&needle, &format!("\"{key}\":{new}"), 1);
            let (rc, digest) = call(doc.as_bytes());
            match RequestFingerprint::compute(doc.as_bytes()) {
                Ok(fp) => {
                    assert_eq!(rc, 0, "{key} = {new}");
                    assert_eq!(&digest, fp.as_bytes(), "{key} = {new}");
                    checked += 1;
                }
                Err(e) => assert_eq!(rc, e.status() as i32, "{key} = {new}"),
            }
        }
    }
    assert!(checked >= 15, "only {checked} accepted variants");
}
