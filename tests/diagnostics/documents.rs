//! C13.4 for the host's documents: the compaction policy (§8.1), the observation policy (§8.2),
//! the context configuration (§8.3) and the request fingerprint (§10), through their `_diagnose`
//! siblings.
//!
//! How the rows were derived. Each row edits one value of a valid document of the test kit (the
//! spec's own encoding, one line of ASCII, so a column is the offset plus one). A value check after
//! decoding (P8.3, P8.6, P8.8–P8.11, R10.2–R10.4) has no offset: C13.4 gives the field's path as
//! `location` (`RearmBelow`, `Compaction.RearmBelow`, `Model.BaseURL`) and its expectation as
//! `expected`; its rule is the rule of the status (P8.3 or P8.5 for the policy's fields, P8.6,
//! P8.8–P8.11, R10.2–R10.4). A JSON error gives the document's `wire` code (P8.1, R10.1) with the
//! J5 rule and the path at the plain function's offset; the offset of a key or string may be its
//! quote or the first byte inside it (the spec defers to the Rust error), so those rows accept both.

use testkit::fuzz::config_around;
use testkit::spec::{FINGERPRINT_EXAMPLE, OBSERVATION, POLICY};

use super::support::*;

/// Exactly at `marker` in a one-line ASCII document.
fn at1(x: &str, marker: &str) -> Off {
    let at = find(x, marker);
    Off::At(at, 1, at as u64 + 1)
}

/// The token starting at `marker`: its first byte or the one after (a quote's content).
fn token(x: &str, marker: &str) -> Off {
    let at = find(x, marker);
    Off::Within(at, at + 2)
}

/// A value check: no offset, the field's path, a non-empty expectation.
fn field(name: &'static str, x: String, status: i32, rules: &'static [&'static str], location: &'static str) -> Case {
    Case::new(name, x, status, Off::Unknown).rules(rules).expected(Text::NonEmpty).at(location)
}

pub fn policy_cases() -> Vec<(Case, i32)> {
    let mut cases = Vec::new();
    let mut add = |case: Case, q: i32| cases.push((case, q));
    let p = |from: &str, to: &str| edit(POLICY, from, to);
    assert_eq!(kit::compaction_policy_diagnose(POLICY.as_bytes(), 2).0, 0);

    let rule = &["P8.3"];
    add(field("P8.3 RearmBelow 0", p("\"RearmBelow\":6000", "\"RearmBelow\":0"), 303, rule, "RearmBelow"), 2);
    add(
        field("P8.3 RearmBelow = CompactAt", p("\"RearmBelow\":6000", "\"RearmBelow\":8000"), 303, rule, "RearmBelow"),
        2,
    );
    add(field("P8.3 CompactAt 10000", p("\"CompactAt\":8000", "\"CompactAt\":10000"), 302, rule, "CompactAt"), 2);
    add(
        field(
            "P8.3 ReservedOutput 0",
            p("\"ReservedOutput\":4096", "\"ReservedOutput\":0"),
            304,
            rule,
            "ReservedOutput",
        ),
        2,
    );
    add(
        field(
            "P8.3 MaxSummaryTokens 0",
            p("\"MaxSummaryTokens\":2048", "\"MaxSummaryTokens\":0"),
            306,
            rule,
            "MaxSummaryTokens",
        ),
        2,
    );
    add(field("P8.3 CountTimeout -1", p("2000000000", "-1"), 307, rule, "CountTimeout"), 2);
    add(
        field(
            "P8.3 SafetyMargin 0, heuristic",
            p("\"SafetyMargin\":512", "\"SafetyMargin\":0"),
            305,
            rule,
            "SafetyMargin",
        ),
        3,
    );
    add(
        field(
            "P8.3/P8.4 CounterPolicy 1, heuristic",
            p("\"CounterPolicy\":2", "\"CounterPolicy\":1"),
            301,
            &["P8.3", "P8.4"],
            "CounterPolicy",
        ),
        3,
    );
    let hustle = &["P8.5", "P8.3"];
    add(field("P8.5 reserved Hustle", p("context.compact", "_looprig.compact"), 308, hustle, "Hustle"), 2);
    add(field("P8.5 blank Hustle", p("context.compact", " \\t "), 308, hustle, "Hustle"), 2);

    let x = p("{\"Automatic\"", "{\"KeepRecentTokens\":1,\"Automatic\"");
    add(
        Case::new("J5.5 unknown policy key", x.clone(), 300, token(&x, "\"KeepRecentTokens\""))
            .rule("J5.5")
            .expected(Text::Any)
            .at(""),
        2,
    );
    let x = p("\"CompactAt\":8000", "\"CompactAt\":\"8000\"");
    add(
        Case::new("J5.8 CompactAt a string", x.clone(), 300, token(&x, "\"8000\""))
            .rules(&["J5.8", "J5.6"])
            .expected(Text::Any)
            .at("CompactAt"),
        2,
    );
    let x = p("\"CompactAt\":8000", "\"CompactAt\":70000");
    add(
        Case::new("J5.6 CompactAt above u16", x.clone(), 300, at1(&x, "70000"))
            .rule("J5.6")
            .expected(Text::Any)
            .at("CompactAt"),
        2,
    );
    let x = p("\"CompactAt\":8000", "\"CompactAt\":null");
    add(
        Case::new("J5.8 CompactAt null (D6)", x.clone(), 300, at1(&x, "null"))
            .rule("J5.8")
            .expected(Text::Any)
            .at("CompactAt"),
        2,
    );
    let x = p(",\"Hustle\":\"context.compact\"}", "}");
    add(
        // C13.4: a key missing inside an object is reported at that object's `}` with the
        // object's path (here the document itself) and "every key of the layout".
        Case::new("J5.8 Hustle missing (D6)", x.clone(), 300, Off::Within(x.len() - 1, x.len()))
            .rules(&["J5.8", "P8.1"])
            .expects("every key of the layout")
            .at(""),
        2,
    );
    let x = p("\"context.compact\"}", "\"context.compact\",}");
    add(
        Case::new("J5.1 trailing comma", x.clone(), 300, at1(&x, ",}").shifted(1))
            .rule("J5.1")
            .expected(Text::Any)
            .location(Text::OneOf(&["", "Hustle"])),
        2,
    );
    let x = format!("{POLICY} x");
    add(
        Case::new("J5.1 a second value", x.clone(), 300, at1(&x, " x").shifted(1))
            .rule("J5.1")
            .expected(Text::Any)
            .at(""),
        2,
    );
    cases
}

pub fn observation_cases() -> Vec<(Case, i32)> {
    let o = |from: &str, to: &str| edit(OBSERVATION, from, to);
    let rule = &["P8.6"];
    let x = o("{\"ReservedOutput\"", "{\"Automatic\":true,\"ReservedOutput\"");
    vec![
        (field("P8.6 CountTimeout 0", o("2000000000", "0"), 323, rule, "CountTimeout"), 2),
        (
            field(
                "P8.6 SafetyMargin 0, heuristic",
                o("\"SafetyMargin\":512", "\"SafetyMargin\":0"),
                322,
                rule,
                "SafetyMargin",
            ),
            3,
        ),
        (
            field(
                "P8.6 ReservedOutput 0",
                o("\"ReservedOutput\":4096", "\"ReservedOutput\":0"),
                321,
                rule,
                "ReservedOutput",
            ),
            1,
        ),
        (
            Case::new("J5.5 key of another layout", x.clone(), 320, token(&x, "\"Automatic\""))
                .rule("J5.5")
                .expected(Text::Any)
                .at(""),
            2,
        ),
    ]
}

pub fn config_cases() -> Vec<Case> {
    let compaction = String::from_utf8(config_around("Compaction", POLICY.as_bytes(), 2)).unwrap();
    let observation = String::from_utf8(config_around("ContextObservation", OBSERVATION.as_bytes(), 2)).unwrap();
    assert_eq!(kit::context_config_diagnose(compaction.as_bytes()).0, 0);
    assert_eq!(kit::context_config_diagnose(observation.as_bytes()).0, 0);
    let c = |from: &str, to: &str| edit(&compaction, from, to);
    let mut cases = Vec::new();
    let mut add = |case: Case| cases.push(case);

    // P8.8 step 9/10: the nested policy's field under its key (C13.4's example).
    add(field(
        "P8.3 Compaction.RearmBelow",
        c("\"RearmBelow\":6000", "\"RearmBelow\":0"),
        303,
        &["P8.3"],
        "Compaction.RearmBelow",
    ));
    add(field(
        "P8.5 Compaction.Hustle",
        c("context.compact", "_looprig.x"),
        308,
        &["P8.5", "P8.3"],
        "Compaction.Hustle",
    ));
    let x = edit(&observation, "2000000000", "0");
    add(field("P8.6 ContextObservation.CountTimeout", x, 323, &["P8.6"], "ContextObservation.CountTimeout"));
    // P8.1: a JSON error inside the nested policy is the config's `wire` (340).
    let x = c("{\"Automatic\"", "{\"KeepRecentTokens\":1,\"Automatic\"");
    add(Case::new("J5.5 unknown key in Compaction", x.clone(), 340, token(&x, "\"KeepRecentTokens\""))
        .rule("J5.5")
        .expected(Text::Any)
        .at("Compaction"));
    // P8.8 steps 1-8.
    let (counter_start, inference_start) =
        (find(&compaction, "\"CounterCapability\":{"), find(&compaction, ",\"InferenceCapability\""));
    let counter = &compaction[counter_start + "\"CounterCapability\":".len()..inference_start];
    let x = c(counter, "null");
    add(field("P8.8 counter missing", x, 342, &["P8.8"], "CounterCapability"));
    let inference = &compaction[inference_start + ",\"InferenceCapability\":".len()..compaction.len() - 1];
    let x = c(inference, "null");
    add(field("P8.8 inference capability missing", x, 343, &["P8.8"], "InferenceCapability"));
    let x = c("\"ContextObservation\":null", &format!("\"ContextObservation\":{OBSERVATION}"));
    add(Case::new("P8.8 both policies", x, 341, Off::Unknown).rule("P8.8").expected(Text::Any).location(Text::Any));
    let x = c(POLICY, "null");
    add(Case::new("P8.8 no policy", x, 344, Off::Unknown).rule("P8.8").expected(Text::Any).location(Text::Any));
    let x = c("\"TokenizerRev\":\"fuzz\"", "\"TokenizerRev\":\"\"");
    add(Case::new("P8.9 empty TokenizerRev", x, 345, Off::Unknown)
        .rule("P8.9")
        .expected(Text::Any)
        .location(Text::OneOf(&["CounterCapability", "CounterCapability.TokenizerRev"])));
    // The inference capability is the one whose identity is followed by its `Retention` and `}`.
    let identity = format!("\"SecurityIdentity\":[{}],\"Retention\":1}}", ["0"; 32].join(","));
    let x = c(&format!("\"Transport\":1,{identity}"), &format!("\"Transport\":9,{identity}"));
    add(Case::new("P8.10 inference Transport 9", x, 346, Off::Unknown)
        .rule("P8.10")
        .expected(Text::Any)
        .location(Text::OneOf(&["InferenceCapability", "InferenceCapability.Transport"])));
    // A Local counter with a provider is no longer provider-neutral: it needs the inference
    // capability's provider, which is empty (P8.11).
    let x = c("\"CounterCapability\":{\"Provider\":\"\"", "\"CounterCapability\":{\"Provider\":\"p\"");
    add(Case::new("P8.11 incompatible", x, 347, Off::Unknown).rule("P8.11").expected(Text::Any).location(Text::Any));
    let x = c("\"Quality\":2}", "\"Quality\":2,\"Quality\":2}");
    add(Case::new(
        "J5.5 duplicate Quality",
        x.clone(),
        340,
        Off::Within(rfind(&x, "\"Quality\""), rfind(&x, "\"Quality\"") + 2),
    )
    .rule("J5.5")
    .expected(Text::Any)
    .at("CounterCapability"));
    cases
}

pub fn fingerprint_cases() -> Vec<Case> {
    let f = |from: &str, to: &str| edit(FINGERPRINT_EXAMPLE, from, to);
    let mut cases = Vec::new();
    let mut add = |case: Case| cases.push(case);
    assert!(kit::request_fingerprint_diagnose(FINGERPRINT_EXAMPLE.as_bytes()).0.is_ok());

    let url = &["R10.4", "R10.3"];
    add(field("R10.4 BaseURL scheme", f("http://localhost:1234", "ftp://localhost:1234"), 404, url, "Model.BaseURL"));
    add(field(
        "R10.4 BaseURL http not loopback",
        f("http://localhost:1234", "http://example.com"),
        404,
        url,
        "Model.BaseURL",
    ));
    add(field(
        "R10.4 BaseURL userinfo",
        f("http://localhost:1234", "https://u@example.com"),
        404,
        url,
        "Model.BaseURL",
    ));
    add(field("R10.3 empty Name", f("\"Name\":\"m\"", "\"Name\":\"\""), 404, &["R10.3"], "Model.Name"));
    add(field(
        "R10.3 empty Provider",
        f("\"Provider\":\"lmstudio\"", "\"Provider\":\"\""),
        404,
        &["R10.3"],
        "Model.Provider",
    ));
    add(field(
        "R10.3 ThinkingDialect",
        f("\"ThinkingDialect\":\"\"", "\"ThinkingDialect\":\"deep\""),
        404,
        &["R10.3"],
        "Model.Caps.ThinkingDialect",
    ));
    add(field("R10.2 empty SystemRevision", f("\"system-v1\"", "\"\""), 401, &["R10.2"], "SystemRevision"));
    add(field("R10.2 empty ToolPolicyRevision", f("\"tools-v1\"", "\"\""), 402, &["R10.2"], "ToolPolicyRevision"));
    add(field(
        "R10.2 empty RuntimeContextRevision",
        f("\"runtime-v1\"", "\"\""),
        403,
        &["R10.2"],
        "RuntimeContextRevision",
    ));
    add(field("R10.2 Basis revision 0", f("\"revision\":1", "\"revision\":0"), 405, &["R10.2"], "Basis.revision"));
    add(field(
        "R10.2 Basis all-zero event id",
        f("01000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"),
        405,
        &["R10.2"],
        "Basis.through_event_id",
    ));
    let x = f("\"TokenizerRev\":\"exact-v1\"", "\"TokenizerRev\":\"\"");
    add(Case::new("P8.9 counter capability", x, 406, Off::Unknown)
        .rules(&["P8.9", "R10.2"])
        .expected(Text::Any)
        .location(Text::OneOf(&["CounterCapability", "CounterCapability.TokenizerRev"])));

    let x = f("\"PromptCaching\":false", "\"PromptCaching\":false,\"Vision\":true");
    add(Case::new("J5.5 unknown key in Caps", x.clone(), 400, token(&x, "\"Vision\""))
        .rule("J5.5")
        .expected(Text::Any)
        .at("Model.Caps"));
    let x = f("\"Origin\":0", "\"Origin\":\"0\"");
    add(Case::new("J5.8 Origin a string", x.clone(), 400, token(&x, "\"0\""))
        .rules(&["J5.8", "J5.6"])
        .expected(Text::Any)
        .at("Model.Origin"));
    let x = f("\"Stop\":null", "\"Stop\":[\"a\",null]");
    add(Case::new("J5.8 null in Stop", x.clone(), 400, at1(&x, "null]"))
        .rule("J5.8")
        .expected(Text::Any)
        .at("Model.Sampling.Stop[1]"));
    let x = f("\"Temperature\":0.5", "\"Temperature\":\"NaN\"");
    add(Case::new("J5.8 Temperature \"NaN\" (D7)", x.clone(), 400, token(&x, "\"NaN\""))
        .rule("J5.8")
        .expected(Text::Any)
        .at("Model.Sampling.Temperature"));
    let x = f("\"Temperature\":0.5", "\"Temperature\":1e400");
    add(Case::new("J5.7 Temperature 1e400 (D7)", x.clone(), 400, at1(&x, "1e400"))
        .rules(&["J5.7", "J5.8"])
        .expected(Text::Any)
        .at("Model.Sampling.Temperature"));
    let x = f(",\"Effort\":\"\"", "");
    // C13.4: at the `}` of `Sampling`, with its path.
    let at = find(&x, "\"Stop\":null}") + "\"Stop\":null".len();
    add(Case::new("J5.8 Effort missing (D6)", x, 400, Off::Within(at, at + 1))
        .rules(&["J5.8", "R10.1"])
        .expects("every key of the layout")
        .at("Model.Sampling"));
    let x = f("01000000-0000-0000-0000-000000000000", "0100000000000000000000000000000000");
    // R10.1 defines the UUID's shape; J5.8 ("a type") is a possible reading too.
    add(Case::new("R10.1 UUID without hyphens", x, 400, Off::Any)
        .rules(&["R10.1", "J5.8"])
        .expected(Text::Any)
        .at("Basis.through_event_id"));
    cases
}

#[test]
fn compaction_policy_table() {
    let rows = policy_cases();
    let cases: Vec<Case> = rows.iter().map(|(c, _)| c.clone()).collect();
    run(&cases, |case| {
        let q = rows.iter().find(|(c, _)| c.name == case.name).unwrap().1;
        kit::compaction_policy_diagnose(&case.text, q)
    });
}

#[test]
fn observation_policy_table() {
    let rows = observation_cases();
    let cases: Vec<Case> = rows.iter().map(|(c, _)| c.clone()).collect();
    run(&cases, |case| {
        let q = rows.iter().find(|(c, _)| c.name == case.name).unwrap().1;
        kit::context_observation_diagnose(&case.text, q)
    });
}

#[test]
fn context_config_table() {
    run(&config_cases(), |case| kit::context_config_diagnose(&case.text));
}

#[test]
fn request_fingerprint_table() {
    run(&fingerprint_cases(), |case| {
        let (result, diag) = kit::request_fingerprint_diagnose(&case.text);
        (result.err().unwrap_or(0), diag)
    });
}

/// C13.4: "offset counts bytes of the document (as the plain function's Rust error)", on every
/// row of the tables above.
#[test]
fn offsets_are_the_plain_errors() {
    use loopcompact::fingerprint::RequestFingerprint;
    use loopcompact::policy::{CompactionPolicy, ContextConfig, ContextObservationPolicy};
    let mut failures = Vec::new();
    let mut compare = |name: &str, diag: Option<u64>, plain: Option<usize>| {
        if diag != plain.map(|o| o as u64) {
            failures.push(format!("{name}: offset {diag:?}, the plain error's {plain:?}"));
        }
    };
    for (case, q) in policy_cases() {
        let plain = CompactionPolicy::from_json(&case.text).and_then(|p| p.validate(q)).unwrap_err();
        compare(case.name, kit::compaction_policy_diagnose(&case.text, q).1.offset(), plain.offset());
    }
    for (case, q) in observation_cases() {
        let plain = ContextObservationPolicy::from_json(&case.text).and_then(|p| p.validate(q)).unwrap_err();
        compare(case.name, kit::context_observation_diagnose(&case.text, q).1.offset(), plain.offset());
    }
    for case in config_cases() {
        let plain = ContextConfig::from_json(&case.text).and_then(|c| c.validate()).unwrap_err();
        compare(case.name, kit::context_config_diagnose(&case.text).1.offset(), plain.offset());
    }
    for case in fingerprint_cases() {
        let plain = RequestFingerprint::compute(&case.text).unwrap_err();
        compare(case.name, kit::request_fingerprint_diagnose(&case.text).1.offset(), plain.offset());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
