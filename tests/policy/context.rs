//! The context config (SPEC §8.3, P8.7–P8.11): the presence and value steps in order, nested
//! policies, capability validity and compatibility (transport, provider and identity, retention),
//! D6 and the JSON rules, and the safe API against the C ABI.

use loopcompact::Status;
use loopcompact::ffi::*;

use super::support::*;

#[test]
fn context_presence_steps() {
    let comp = manual(&[]);
    let ob = obs(&[]);
    let counter = Counter::neutral().json();
    let inference = Inference::tls().json();
    let (c, o, k, i) = (Some(comp.as_str()), Some(ob.as_str()), Some(counter.as_str()), Some(inference.as_str()));
    let mut f = Failures::default();
    let cases = [
        // Step 1, before everything else.
        ("both policies, everything else present", config(c, o, k, i), CONTEXT_CONFLICTING_POLICY),
        ("both policies alone", config(c, o, None, None), CONTEXT_CONFLICTING_POLICY),
        // Step 2.
        ("inference only", config(None, None, None, i), CONTEXT_MISSING_COUNTER),
        ("observation only", config(None, o, None, None), CONTEXT_MISSING_COUNTER),
        ("compaction only", config(c, None, None, None), CONTEXT_MISSING_COUNTER),
        ("compaction and inference", config(c, None, None, i), CONTEXT_MISSING_COUNTER),
        // Step 3.
        ("counter only", config(None, None, k, None), CONTEXT_MISSING_INFERENCE_CAPABILITY),
        ("counter and compaction", config(c, None, k, None), CONTEXT_MISSING_INFERENCE_CAPABILITY),
        ("counter and observation", config(None, o, k, None), CONTEXT_MISSING_INFERENCE_CAPABILITY),
        // Step 4.
        ("nothing", config(None, None, None, None), OK),
        // Step 5.
        ("capabilities without a policy", config(None, None, k, i), CONTEXT_MISSING_POLICY),
        // Valid.
        ("compaction", config(c, None, k, i), OK),
        ("observation", config(None, o, k, i), OK),
    ];
    for (what, doc, want) in cases {
        f.check(what, context(&doc), want);
    }
    f.finish();
}

#[test]
fn context_value_steps_in_order() {
    // Each step wins over every later one.
    let bad_counter = Counter { transport: 0, ..Counter::neutral() }.json();
    let bad_inference = Inference { id: 0, ..Inference::tls() }.json();
    // Valid, but incompatible: a local counter of another provider.
    let other = Counter { provider: "q", ..Counter::neutral() }.json();
    let good_counter = Counter::neutral().json();
    let good_inference = Inference::tls().json();
    let bad_policy = manual(&[("ReservedOutput", Some("0"))]);
    let bad_obs = obs(&[("ReservedOutput", Some("0"))]);
    let mut f = Failures::default();
    let cases = [
        // Step 5 before step 6.
        ("no policy, invalid counter", config(None, None, s(&bad_counter), s(&bad_inference)), CONTEXT_MISSING_POLICY),
        // Step 6 before 7, 8, 9.
        ("invalid counter", config(s(&bad_policy), None, s(&bad_counter), s(&bad_inference)), CONTEXT_INVALID_COUNTER),
        // Step 7 before 8, 9.
        (
            "invalid inference",
            config(s(&bad_policy), None, s(&other), s(&bad_inference)),
            CONTEXT_INVALID_INFERENCE_CAPABILITY,
        ),
        // Step 8 before 9 and 10.
        (
            "incompatible, bad compaction",
            config(s(&bad_policy), None, s(&other), s(&good_inference)),
            CONTEXT_INCOMPATIBLE_COUNTER,
        ),
        (
            "incompatible, bad observation",
            config(None, s(&bad_obs), s(&other), s(&good_inference)),
            CONTEXT_INCOMPATIBLE_COUNTER,
        ),
        // Step 9 and 10.
        ("bad compaction", config(s(&bad_policy), None, s(&good_counter), s(&good_inference)), POLICY_RESERVED_OUTPUT),
        (
            "bad observation",
            config(None, s(&bad_obs), s(&good_counter), s(&good_inference)),
            OBSERVATION_RESERVED_OUTPUT,
        ),
    ];
    for (what, doc, want) in cases {
        f.check(what, context(&doc), want);
    }
    f.finish();
}

#[test]
fn context_nested_policy_reports_its_field_with_the_counter_quality() {
    let inference = Inference::tls().json();
    let counter = |quality: u8| Counter { quality, ..Counter::neutral() }.json();
    let with_policy = |p: &str, quality: u8| config(Some(p), None, s(&counter(quality)), s(&inference));
    let with_obs = |p: &str, quality: u8| config(None, Some(p), s(&counter(quality)), s(&inference));
    let mut f = Failures::default();
    let cases = [
        ("ReservedOutput", with_policy(&policy(&[("ReservedOutput", Some("0"))]), 2), POLICY_RESERVED_OUTPUT),
        ("MaxSummaryTokens", with_policy(&policy(&[("MaxSummaryTokens", Some("0"))]), 2), POLICY_MAX_SUMMARY_TOKENS),
        ("CountTimeout", with_policy(&policy(&[("CountTimeout", Some("-5"))]), 2), POLICY_COUNT_TIMEOUT),
        ("Hustle", with_policy(&policy(&[("Hustle", Some("\" \""))]), 2), POLICY_HUSTLE),
        // The counter's Quality 3 is the heuristic quality of P8.3 step 5 ...
        ("SafetyMargin q3", with_policy(&policy(&[("SafetyMargin", Some("0"))]), 3), POLICY_SAFETY_MARGIN),
        ("SafetyMargin manual q3", with_policy(&manual(&[("SafetyMargin", Some("0"))]), 3), POLICY_SAFETY_MARGIN),
        ("SafetyMargin q1", with_policy(&policy(&[("SafetyMargin", Some("0"))]), 1), OK),
        ("RearmBelow", with_policy(&policy(&[("RearmBelow", Some("8000"))]), 2), POLICY_REARM_BELOW),
        (
            "CompactAt",
            with_policy(&policy(&[("CompactAt", Some("10000")), ("RearmBelow", Some("1"))]), 2),
            POLICY_COMPACT_AT,
        ),
        // ... and of P8.4 step 9.
        ("RequireExact q3", with_policy(&policy(&[("CounterPolicy", Some("1"))]), 3), POLICY_COUNTER_POLICY),
        ("RequireExact q2", with_policy(&policy(&[("CounterPolicy", Some("1"))]), 2), OK),
        ("AllowConservative q3", with_policy(&policy(&[("CounterPolicy", Some("2"))]), 3), OK),
        (
            "observation ReservedOutput",
            with_obs(&obs(&[("ReservedOutput", Some("0"))]), 2),
            OBSERVATION_RESERVED_OUTPUT,
        ),
        ("observation CountTimeout", with_obs(&obs(&[("CountTimeout", Some("0"))]), 2), OBSERVATION_COUNT_TIMEOUT),
        ("observation SafetyMargin q3", with_obs(&obs(&[("SafetyMargin", Some("0"))]), 3), OBSERVATION_SAFETY_MARGIN),
        ("observation SafetyMargin q2", with_obs(&obs(&[("SafetyMargin", Some("0"))]), 2), OK),
    ];
    for (what, doc, want) in cases {
        f.check(what, context(&doc), want);
    }
    f.finish();
}

#[test]
fn counter_capability_validity() {
    // P8.9, through step 6 of the context config.
    let inference = Inference::tls();
    let n = Counter::neutral();
    let remote = |transport| Counter { provider: "p", transport, id: 7, retention: R_LOGGED, ..Counter::neutral() };
    let mut f = Failures::default();
    let invalid = [
        ("transport 0", Counter { transport: 0, ..n.clone() }),
        ("transport 4", Counter { transport: 4, ..n.clone() }),
        ("transport 255", Counter { transport: 255, ..n.clone() }),
        ("retention 0", Counter { retention: 0, ..n.clone() }),
        ("retention 4", Counter { retention: 4, ..n.clone() }),
        ("retention 255", Counter { retention: 255, ..n.clone() }),
        ("empty TokenizerRev", Counter { tokenizer_rev: "", ..n.clone() }),
        ("quality 0", Counter { quality: 0, ..n.clone() }),
        ("quality 4", Counter { quality: 4, ..n.clone() }),
        ("quality 255", Counter { quality: 255, ..n.clone() }),
        ("Local with an identity", Counter { id: 1, ..n.clone() }),
        ("Local with provider and identity", Counter { provider: "p", id: 255, ..n.clone() }),
        ("SameEndpoint without provider", Counter { provider: "", ..remote(C_SAME) }),
        ("SameEndpoint without identity", Counter { id: 0, ..remote(C_SAME) }),
        ("SeparateEndpoint without provider", Counter { provider: "", ..remote(C_SEPARATE) }),
        ("SeparateEndpoint without identity", Counter { id: 0, ..remote(C_SEPARATE) }),
    ];
    for (what, counter) in invalid {
        f.check(what, context(&pair(&counter, &inference)), CONTEXT_INVALID_COUNTER);
    }
    let valid = [
        ("neutral", n.clone()),
        ("quality 1", Counter { quality: 1, ..n.clone() }),
        ("quality 3 (manual policy, SafetyMargin 2)", Counter { quality: 3, ..n.clone() }),
        ("Local retention Ephemeral", Counter { provider: "p", retention: R_EPHEMERAL, ..n.clone() }),
        ("Local retention Logged", Counter { provider: "p", retention: R_LOGGED, ..n.clone() }),
        ("SameEndpoint", remote(C_SAME)),
        ("SeparateEndpoint", remote(C_SEPARATE)),
    ];
    for (what, counter) in valid {
        f.check(what, context(&pair(&counter, &inference)), OK);
    }
    f.finish();
}

#[test]
fn inference_capability_validity() {
    // P8.10, through step 7; the neutral counter is compatible with every valid capability.
    let n = Counter::neutral();
    let t = Inference::tls();
    let mut f = Failures::default();
    let invalid = [
        ("transport 0", Inference { transport: 0, ..t.clone() }),
        ("transport 5", Inference { transport: 5, ..t.clone() }),
        ("transport 255", Inference { transport: 255, ..t.clone() }),
        ("retention 4", Inference { retention: 4, ..t.clone() }),
        ("retention 255", Inference { retention: 255, ..t.clone() }),
        ("Local with an identity", Inference { transport: I_LOCAL, provider: "", id: 1, ..t.clone() }),
        ("TLS without provider", Inference { provider: "", ..t.clone() }),
        ("TLS without identity", Inference { id: 0, ..t.clone() }),
        ("AttestedTLS without provider", Inference { transport: I_ATTESTED, provider: "", ..t.clone() }),
        ("AttestedTLS without identity", Inference { transport: I_ATTESTED, id: 0, ..t.clone() }),
        ("EndToEnd without provider", Inference { transport: I_E2E, provider: "", ..t.clone() }),
        ("EndToEnd without identity", Inference { transport: I_E2E, id: 0, ..t.clone() }),
    ];
    for (what, inference) in invalid {
        f.check(what, context(&pair(&n, &inference)), CONTEXT_INVALID_INFERENCE_CAPABILITY);
    }
    // Valid: every transport with every retention 0–3 (0 is valid here), and Local without a provider.
    for transport in [I_LOCAL, I_TLS, I_ATTESTED, I_E2E] {
        for retention in [R_UNKNOWN, R_NONE, R_EPHEMERAL, R_LOGGED] {
            let id = if transport == I_LOCAL { 0 } else { 9 };
            for provider in ["", "p"] {
                if transport != I_LOCAL && provider.is_empty() {
                    continue;
                }
                let inference = Inference { provider, transport, id, retention };
                f.check(
                    format_args!(
                        "neutral counter, transport {transport}, retention {retention}, provider {provider:?}"
                    ),
                    context(&pair(&n, &inference)),
                    OK,
                );
            }
        }
    }
    f.finish();
}

#[test]
fn compatibility_by_transport() {
    // P8.11: counter transport × inference transport, with matching provider and identity and
    // retention None on both sides, so that only the transport rule decides.
    let inference_transports = [I_LOCAL, I_TLS, I_ATTESTED, I_E2E];
    let table: &[(u8, [bool; 4])] = &[
        // Local, TLS, AttestedTLS, EndToEndEncrypted
        (C_LOCAL, [true, true, true, true]),
        (C_SAME, [false, true, true, true]),
        (C_SEPARATE, [false, true, false, false]),
    ];
    let mut f = Failures::default();
    for (counter_transport, row) in table {
        for (inference_transport, compatible) in inference_transports.iter().zip(row) {
            let counter_id = if *counter_transport == C_LOCAL { 0 } else { 5 };
            let inference_id = if *inference_transport == I_LOCAL { 0 } else { 5 };
            let counter =
                Counter { provider: "p", transport: *counter_transport, id: counter_id, ..Counter::neutral() };
            let inference =
                Inference { provider: "p", transport: *inference_transport, id: inference_id, retention: R_NONE };
            let want = if *compatible { OK } else { CONTEXT_INCOMPATIBLE_COUNTER };
            f.check(
                format_args!("counter {counter_transport} / inference {inference_transport}"),
                context(&pair(&counter, &inference)),
                want,
            );
        }
    }
    f.finish();
}

#[test]
fn compatibility_by_provider_and_identity() {
    let mut f = Failures::default();
    let tls = |provider, id| Inference { provider, transport: I_TLS, id, retention: R_NONE };
    let counter = |provider, transport, id| Counter { provider, transport, id, ..Counter::neutral() };
    let cases = [
        // Local: non-empty and equal provider (identity not compared).
        ("Local same provider", counter("p", C_LOCAL, 0), tls("p", 3), OK),
        ("Local other provider", counter("q", C_LOCAL, 0), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
        ("Local provider case", counter("P", C_LOCAL, 0), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
        // Local, empty provider, retention other than None: not neutral, so the provider rule applies.
        (
            "Local empty provider, Ephemeral",
            Counter { retention: R_EPHEMERAL, ..counter("", C_LOCAL, 0) },
            Inference { retention: R_LOGGED, ..tls("p", 3) },
            CONTEXT_INCOMPATIBLE_COUNTER,
        ),
        (
            "Local empty provider vs local inference without provider",
            Counter { retention: R_EPHEMERAL, ..counter("", C_LOCAL, 0) },
            Inference { provider: "", transport: I_LOCAL, id: 0, retention: R_LOGGED },
            CONTEXT_INCOMPATIBLE_COUNTER,
        ),
        // SameEndpoint: equal provider and equal identity.
        ("SameEndpoint equal", counter("p", C_SAME, 3), tls("p", 3), OK),
        ("SameEndpoint other identity", counter("p", C_SAME, 4), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
        ("SameEndpoint other provider", counter("q", C_SAME, 3), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
        // SeparateEndpoint: equal provider, identities may differ.
        ("SeparateEndpoint other identity", counter("p", C_SEPARATE, 4), tls("p", 3), OK),
        ("SeparateEndpoint other provider", counter("q", C_SEPARATE, 3), tls("p", 3), CONTEXT_INCOMPATIBLE_COUNTER),
    ];
    for (what, counter, inference, want) in cases {
        f.check(what, context(&pair(&counter, &inference)), want);
    }
    f.finish();
}

#[test]
fn compatibility_by_retention() {
    // P8.11 retention rule, for each counter transport (with a transport pair that is compatible),
    // counter retention None/Ephemeral/Logged × inference retention Unknown/None/Ephemeral/Logged.
    let table: &[(u8, [bool; 4])] = &[
        // inference: Unknown, None, Ephemeral, Logged
        (R_NONE, [false, true, true, true]),
        (R_EPHEMERAL, [false, false, true, true]),
        (R_LOGGED, [false, false, false, true]),
    ];
    let inference_retentions = [R_UNKNOWN, R_NONE, R_EPHEMERAL, R_LOGGED];
    let mut f = Failures::default();
    for (counter_transport, inference_transport) in
        [(C_LOCAL, I_LOCAL), (C_LOCAL, I_E2E), (C_SAME, I_ATTESTED), (C_SEPARATE, I_TLS)]
    {
        for (counter_retention, row) in table {
            for (inference_retention, compatible) in inference_retentions.iter().zip(row) {
                let counter = Counter {
                    provider: "p",
                    transport: counter_transport,
                    id: if counter_transport == C_LOCAL { 0 } else { 6 },
                    retention: *counter_retention,
                    ..Counter::neutral()
                };
                let inference = Inference {
                    provider: "p",
                    transport: inference_transport,
                    id: if inference_transport == I_LOCAL { 0 } else { 6 },
                    retention: *inference_retention,
                };
                let want = if *compatible { OK } else { CONTEXT_INCOMPATIBLE_COUNTER };
                f.check(
                    format_args!(
                        "counter {counter_transport}/{counter_retention}, inference {inference_transport}/{inference_retention}"
                    ),
                    context(&pair(&counter, &inference)),
                    want,
                );
            }
        }
    }
    f.finish();
}

#[test]
fn context_d6_and_json() {
    let comp = manual(&[]);
    let counter = Counter::neutral();
    let inference = Inference::tls();
    let valid = pair(&counter, &inference);
    assert_eq!(context(&valid), OK);
    let with_counter = |json: &str| config(s(&comp), None, Some(json), s(&inference.json()));
    let with_inference = |json: &str| config(s(&comp), None, s(&counter.json()), Some(json));
    let zeros = identity(0, 32);
    let mut f = Failures::default();
    let mut cases: Vec<(String, String)> = vec![
        ("whole document null".into(), "null".into()),
        ("empty object".into(), "{}".into()),
        ("empty".into(), String::new()),
        ("array".into(), "[]".into()),
        ("second value".into(), format!("{valid} null")),
        ("SecurityIdentity 31".into(), with_counter(&counter.json().replace(&zeros, &identity(0, 31)))),
        ("SecurityIdentity 33".into(), with_counter(&counter.json().replace(&zeros, &identity(0, 33)))),
        ("SecurityIdentity 0".into(), with_counter(&counter.json().replace(&zeros, "[]"))),
        ("SecurityIdentity null".into(), with_counter(&counter.json().replace(&zeros, "null"))),
        ("SecurityIdentity string".into(), with_counter(&counter.json().replace(&zeros, "\"AAAA\""))),
        (
            "SecurityIdentity element 256".into(),
            with_counter(&counter.json().replace(&zeros, &zeros.replacen('0', "256", 1))),
        ),
        (
            "SecurityIdentity element -1".into(),
            with_counter(&counter.json().replace(&zeros, &zeros.replacen('0', "-1", 1))),
        ),
        (
            "SecurityIdentity element 1.0".into(),
            with_counter(&counter.json().replace(&zeros, &zeros.replacen('0', "1.0", 1))),
        ),
        (
            "SecurityIdentity nested array".into(),
            with_counter(&counter.json().replace(&zeros, &zeros.replacen('0', "[0]", 1))),
        ),
        (
            "inference SecurityIdentity 33".into(),
            with_inference(&inference.json().replace(&identity(7, 32), &identity(7, 33))),
        ),
        (
            "nested KeepRecentSegments".into(),
            config(s(&manual(&[("KeepRecentSegments", Some("2"))])), None, s(&counter.json()), s(&inference.json())),
        ),
        (
            "nested observation extra key".into(),
            config(None, s(&obs(&[("Hustle", Some("\"x\""))])), s(&counter.json()), s(&inference.json())),
        ),
        (
            "nested policy missing key".into(),
            config(s(&manual(&[("Hustle", None)])), None, s(&counter.json()), s(&inference.json())),
        ),
        (
            "nested policy null field".into(),
            config(s(&manual(&[("CountTimeout", Some("null"))])), None, s(&counter.json()), s(&inference.json())),
        ),
        ("nested policy empty object".into(), config(Some("{}"), None, s(&counter.json()), s(&inference.json()))),
        (
            "counter Provider null".into(),
            with_counter(&counter.json().replace("\"Provider\":\"\"", "\"Provider\":null")),
        ),
        ("counter missing Quality".into(), with_counter(&counter.json().replace(",\"Quality\":2", ""))),
        ("counter Quality 256".into(), with_counter(&counter.json().replace("\"Quality\":2", "\"Quality\":256"))),
        ("counter extra key".into(), with_counter(&counter.json().replacen('{', "{\"Extra\":1,", 1))),
        ("counter as array".into(), with_counter("[]")),
        ("inference missing Retention".into(), with_inference(&inference.json().replace(",\"Retention\":3", ""))),
        ("inference Quality key".into(), with_inference(&inference.json().replacen('{', "{\"Quality\":2,", 1))),
        (
            "inference Transport -1".into(),
            with_inference(&inference.json().replace("\"Transport\":2", "\"Transport\":-1")),
        ),
        ("inference as string".into(), with_inference("\"tls\"")),
        ("duplicate top-level key".into(), format!("{},\"Compaction\":null}}", &valid[..valid.len() - 1])),
        ("lower-case top-level key".into(), valid.replace("\"Compaction\"", "\"compaction\"")),
        ("Kelvin sign key".into(), valid.replace("\"TokenizerRev\"", "\"To\\u212AenizerRev\"")),
    ];
    // Each top-level key missing.
    for key in ["Compaction", "ContextObservation", "CounterCapability", "InferenceCapability"] {
        let all = config(None, None, None, None);
        let without =
            all.replace(&format!("\"{key}\":null"), "").replace("{,", "{").replace(",,", ",").replace(",}", "}");
        cases.push((format!("missing {key}"), without));
    }
    // A config whose values would also fail: wire wins (the document is read first).
    cases.push((
        "wire beats conflicting policies".into(),
        config(s(&comp), s(&obs(&[])), s(&counter.json().replace(",\"Quality\":2", "")), None),
    ));
    for (what, doc) in &cases {
        f.check(what, context(doc), CONTEXT_WIRE);
    }
    // Invalid UTF-8 inside a nested string.
    let mut bytes = valid.clone().into_bytes();
    let at = valid.find("exact-v1").expect("tokenizer rev") + 2;
    bytes.splice(at..at, [0xFE]);
    let rc = unsafe { lc_context_config_validate(bytes.as_ptr(), bytes.len()) };
    f.check("invalid UTF-8 in TokenizerRev", rc, CONTEXT_WIRE);
    // Escaped strings are decoded before the checks: "\u0070" is "p".
    let escaped = pair(&Counter { provider: "\\u0070", transport: C_LOCAL, ..Counter::neutral() }, &inference);
    f.check("escaped provider equals", context(&escaped), OK);
    f.finish();
}

#[test]
fn safe_api_matches_the_c_abi() {
    use loopcompact::policy::capability::{CounterCapability, InferenceCapability};
    use loopcompact::policy::{CompactionPolicy, ContextConfig, ContextObservationPolicy};

    let p = CompactionPolicy::from_json(policy(&[]).as_bytes()).expect("decodes");
    assert_eq!(
        p,
        CompactionPolicy {
            automatic: true,
            counter_policy: 2,
            compact_at: 8000,
            rearm_below: 6000,
            reserved_output: 10,
            safety_margin: 2,
            max_summary_tokens: 5,
            count_timeout_ns: 17_000_000,
            hustle: "context.compact".into(),
        }
    );
    assert_eq!(p.validate(3), Ok(()));
    assert_eq!(
        CompactionPolicy { rearm_below: 8000, ..p.clone() }.validate(2).map_err(|e| e.status()),
        Err(Status::PolicyRearmBelow)
    );
    // The name is kept as given (P8.5).
    let spaced = CompactionPolicy::from_json(policy(&[("Hustle", Some("\" h \""))]).as_bytes()).expect("decodes");
    assert_eq!(spaced.hustle, " h ");

    let err = CompactionPolicy::from_json(b"{\"Automatic\":true}").expect_err("missing keys");
    assert_eq!(err.status(), Status::PolicyWire);
    assert!(err.offset().is_some());
    assert_eq!(CompactionPolicy::from_json(b"null").map_err(|e| e.status()), Err(Status::PolicyWire));

    let o = ContextObservationPolicy::from_json(obs(&[]).as_bytes()).expect("decodes");
    assert_eq!(o, ContextObservationPolicy { reserved_output: 32, safety_margin: 8, count_timeout_ns: 37_000_001 });
    assert_eq!(
        ContextObservationPolicy { safety_margin: 0, ..o.clone() }.validate(3).map_err(|e| e.status()),
        Err(Status::ObservationSafetyMargin)
    );
    assert_eq!(ContextObservationPolicy::from_json(b"").map_err(|e| e.status()), Err(Status::ObservationWire));

    let c = ContextConfig::from_json(pair(&Counter::neutral(), &Inference::tls()).as_bytes()).expect("decodes");
    assert_eq!(
        c.counter,
        Some(CounterCapability {
            provider: String::new(),
            transport: 1,
            security_identity: [0; 32],
            retention: 1,
            tokenizer_rev: "exact-v1".into(),
            quality: 2,
        })
    );
    assert_eq!(
        c.inference,
        Some(InferenceCapability { provider: "p".into(), transport: 2, security_identity: [7; 32], retention: 3 })
    );
    assert_eq!(c.context_observation, None);
    assert_eq!(c.validate(), Ok(()));
    assert_eq!(ContextConfig::default().validate(), Ok(()));
    let conflicting = ContextConfig { context_observation: Some(o), ..c.clone() };
    assert_eq!(conflicting.validate().map_err(|e| e.status()), Err(Status::ContextConflictingPolicy));
    let heuristic = ContextConfig {
        counter: c.counter.clone().map(|k| CounterCapability { quality: 3, ..k }),
        compaction: c.compaction.clone().map(|p| CompactionPolicy { safety_margin: 0, ..p }),
        ..c.clone()
    };
    assert_eq!(heuristic.validate().map_err(|e| e.status()), Err(Status::PolicySafetyMargin));
    assert_eq!(ContextConfig::from_json(b"null").map_err(|e| e.status()), Err(Status::ContextWire));
}

// ---------------------------------------------------------------------------------------------
// L9.1: limits.

/// The C path reads the providers, `TokenizerRev` and `Hustle` where they are in the document
/// (`ContextConfig::validate_json`); the typed API decodes them. The same verdict both ways, and an
/// escaped spelling of a string gives the verdict of its plain one (J5.4: strings compare decoded).
#[test]
fn strings_read_in_place_give_the_typed_verdict() {
    let remote = Counter { provider: "p", transport: C_SAME, id: 7, retention: R_LOGGED, ..Counter::neutral() };
    let base = config(s(&policy(&[])), None, s(&remote.json()), s(&Inference::tls().json()));
    let reserved =
        config(s(&policy(&[("Hustle", Some("\"_looprig.x\""))])), None, s(&remote.json()), s(&Inference::tls().json()));
    let no_rev = config(
        s(&policy(&[])),
        None,
        s(&Counter { tokenizer_rev: "", ..remote.clone() }.json()),
        s(&Inference::tls().json()),
    );
    let other = config(
        s(&policy(&[])),
        None,
        s(&Counter { provider: "q", ..remote.clone() }.json()),
        s(&Inference::tls().json()),
    );
    let variants: Vec<(String, String)> = vec![
        // (plain, the same with one string escaped)
        (base.clone(), base.replacen(r#""Provider":"p""#, r#""Provider":"\u0070""#, 1)),
        (base.clone(), base.replace(r#""Provider":"p""#, r#""Provider":"\u0070""#)),
        (base.clone(), base.replacen("exact-v1", r"\u0065xact-v1", 1)),
        (base.clone(), base.replacen("context.compact", r"\u0063ontext.compact", 1)),
        (reserved.clone(), reserved.replacen("_looprig.x", r"\u005flooprig.x", 1)),
        (no_rev.clone(), no_rev.clone()),
        (other.clone(), other.replacen(r#""Provider":"q""#, r#""Provider":"\u0071""#, 1)),
    ];
    let typed =
        |doc: &str| match loopcompact::policy::ContextConfig::from_json(doc.as_bytes()).and_then(|c| c.validate()) {
            Ok(()) => 0,
            Err(e) => e.status() as i32,
        };
    let mut seen = std::collections::BTreeSet::new();
    for (plain, escaped) in &variants {
        if plain != escaped {
            assert_eq!(context(escaped), context(plain), "{escaped}");
        }
        for doc in [plain, escaped] {
            assert_eq!(context(doc), typed(doc), "{doc}");
        }
        seen.insert(context(plain));
    }
    // Valid, a reserved Hustle, an empty TokenizerRev, incompatible providers: four verdicts.
    assert_eq!(seen.len(), 4, "{seen:?}");
}
