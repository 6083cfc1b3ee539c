//! Property tests: canonical bytes are idempotent, every field is in the digest, any bytes are safe,
//! and the digest path reads strings in place like the decoded input.

use super::support::*;
use proptest::prelude::*;

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
