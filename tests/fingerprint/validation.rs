//! R10.2: each validation step, and the order between neighbours.

use super::support::*;

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
