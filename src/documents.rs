//! Every JSON document's layout (W5.1, O6.1, P8.2, P8.6, P8.7, R10.1), for the tests that hold
//! the expectations the layouts declare against each other and against the diagnoses.

use crate::json::{DocumentLayout, Expect, Kind, Rule, names_of, rule_at};

static DOCUMENTS: [(&str, &DocumentLayout); 6] = [
    ("input wire", &crate::wire::INPUT_LAYOUT),
    ("reply", &crate::wire::OUTPUT_LAYOUT),
    ("compaction policy", &crate::policy::COMPACTION_LAYOUT),
    ("observation policy", &crate::policy::OBSERVATION_LAYOUT),
    ("context configuration", &crate::policy::CONTEXT_LAYOUT),
    ("request fingerprint", &crate::fingerprint::LAYOUT),
];

/// Every key of a document with its path of names, each layout walked once per path (a tool
/// result's `content` holds blocks again: one level of it).
fn paths(root: &'static [Rule]) -> Vec<(Vec<&'static str>, Rule)> {
    fn walk(layout: &'static [Rule], path: &[&'static str], out: &mut Vec<(Vec<&'static str>, Rule)>) {
        for rule in layout {
            let mut here = path.to_vec();
            here.push(rule.name);
            let again = path.iter().filter(|n| **n == rule.name).count() > 1;
            out.push((here.clone(), *rule));
            if !again {
                walk((rule.inner)(), &here, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &[], &mut out);
    out
}

/// Each key is found by its path as declared, wherever its name is declared too: a name with
/// several expectations is told apart by where it is, never by which layout comes first.
#[test]
fn every_key_is_found_by_its_path() {
    let mut expectations: Vec<(&str, Vec<Expect>)> = Vec::new();
    for (document, layout) in &DOCUMENTS {
        let root = layout.root();
        let paths = paths(root);
        assert!(paths.len() >= root.len(), "{document}");
        for (path, rule) in &paths {
            let found = rule_at(root, path.iter().copied()).map(|r| r.expect);
            assert_eq!(found, Some(rule.expect), "{document}: {}", path.join("."));
            match expectations.iter_mut().find(|(n, _)| *n == rule.name) {
                Some((_, seen)) if !seen.contains(&rule.expect) => seen.push(rule.expect),
                Some(_) => {}
                None => expectations.push((rule.name, vec![rule.expect])),
            }
            // A name twice in one object would leave the second unreachable.
            let layout = (rule.inner)();
            for (i, r) in layout.iter().enumerate() {
                assert!(!layout.get(i + 1..).unwrap_or_default().iter().any(|o| o.name == r.name), "{}", r.name);
            }
        }
        // The names a location may show are the declared ones, deepest too.
        let names = layout.names();
        assert!(paths.iter().all(|(_, r)| names.contains(&r.name)), "{document}");
        assert_eq!(names, names_of(root));
    }
    // W5.1 and W5.2 step 8: `model` is the object at the top of the wires and a non-empty
    // string inside it; both wires resolve both.
    let model = expectations.iter().find(|(n, _)| *n == "model").map(|(_, e)| e.clone());
    assert_eq!(model, Some(vec![Expect::Object, Expect::NonEmptyString]));
    for root in [crate::wire::INPUT_LAYOUT.root(), crate::wire::OUTPUT_LAYOUT.root()] {
        assert_eq!(rule_at(root, ["model"]).map(|r| r.expect), Some(Expect::Object));
        assert_eq!(rule_at(root, ["model", "model"]).map(|r| r.expect), Some(Expect::NonEmptyString));
        assert_eq!(rule_at(root, ["model", "provider"]).map(|r| r.expect), Some(Expect::NonEmptyString));
    }
}

/// Every key says what its value must be, except the two whose value may be any JSON (T5.5: a
/// tool call's `input`, a block's `provider_state`).
#[test]
fn every_key_but_the_free_values_says_what_it_expects() {
    let mut free = Vec::new();
    for (document, layout) in &DOCUMENTS {
        for (path, rule) in paths(layout.root()) {
            assert_eq!(rule.expect.text().is_empty(), rule.expect == Expect::Any, "{document}: {}", path.join("."));
            if rule.expect == Expect::Any && !free.contains(&rule.name) {
                free.push(rule.name);
            }
        }
    }
    free.sort_unstable();
    assert_eq!(free, ["input", "provider_state"]);
}

/// The identity keys are one declaration: the input wire and the reply start with the same keys,
/// expectations and inner layouts.
#[test]
fn the_wires_share_their_identity() {
    let (input, reply) = (crate::wire::INPUT_LAYOUT.root(), crate::wire::OUTPUT_LAYOUT.root());
    let key = |r: &Rule| (r.name, r.expect, (r.inner)().as_ptr());
    let shared: Vec<_> = input.iter().zip(reply).take_while(|(a, b)| key(a) == key(b)).map(|(a, _)| a.name).collect();
    assert_eq!(shared, ["version", "basis", "model", "request_fingerprint"]);
}

/// J5.6 or J5.8 for a number where a key's value should be, as the key's kind says: a number in
/// place of each integer key breaks J5.6, in place of any other key J5.8, with the key's
/// expectation either way.
#[test]
fn a_number_breaks_j5_6_exactly_where_an_integer_is_expected() {
    use crate::status::Status;
    let mut integers = 0;
    for (document, layout) in &DOCUMENTS {
        for (path, rule) in paths(layout.root()) {
            // `{"a":{"b":1.5}}`: the number at the end of the path (its objects made up, as a
            // diagnosis sees them).
            let mut doc = String::new();
            for name in &path {
                doc.push_str(&format!("{{\"{name}\":"));
            }
            let at = doc.len();
            doc.push_str("1.5");
            doc.push_str(&"}".repeat(path.len()));
            let d =
                crate::diagnostic::json_diagnostic(Status::InputWire, Some(at), doc.as_bytes(), layout, c"W5.2", false);
            let want = if rule.expect.kind() == Kind::Integer { "J5.6" } else { "J5.8" };
            assert_eq!((d.rule(), d.expected_c()), (want, rule.expect.text()), "{document}: {}", path.join("."));
            assert_eq!(d.location(), path.join("."));
            integers += usize::from(rule.expect.kind() == Kind::Integer);
        }
    }
    assert!(integers > 20, "{integers}");
    // Rows by hand (J5.6: integer fields; J5.8: the rest), each a key whose kind a slip in a
    // declaration would flip.
    let kind = |root: &'static [Rule], path: &[&str]| rule_at(root, path.iter().copied()).map(|r| r.expect.kind());
    let (input, fingerprint) = (crate::wire::INPUT_LAYOUT.root(), crate::fingerprint::LAYOUT.root());
    assert_eq!(kind(input, &["max_summary_tokens"]), Some(Kind::Integer));
    assert_eq!(kind(input, &["basis", "revision"]), Some(Kind::Integer));
    assert_eq!(kind(input, &["transcript", "usage", "input_tokens"]), Some(Kind::Integer));
    assert_eq!(kind(input, &["request_fingerprint"]), Some(Kind::Other));
    assert_eq!(kind(fingerprint, &["Model", "Sampling", "MaxTokens"]), Some(Kind::Integer));
    assert_eq!(kind(fingerprint, &["Model", "Sampling", "Temperature"]), Some(Kind::Other));
    assert_eq!(kind(crate::policy::COMPACTION_LAYOUT.root(), &["CompactAt"]), Some(Kind::Integer));
    assert_eq!(kind(crate::policy::COMPACTION_LAYOUT.root(), &["Automatic"]), Some(Kind::Other));
}
