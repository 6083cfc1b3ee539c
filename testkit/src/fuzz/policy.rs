//! The policy and context-config targets (SPEC §8).

use std::ops::RangeInclusive;

use super::{Reader, padded};
use crate::abi::{compaction_policy, context_config, context_observation};
use crate::diagnostic::{Diag, compaction_policy_diagnose, context_config_diagnose, context_observation_diagnose};
use crate::status::{CONTEXT_CODES, OBSERVATION_CODES, POLICY_CODES, check_status, name};

/// The `counter_quality` values the policy targets draw from (one byte selects one): the four
/// qualities and values that are unknown (A3.5: 259 is not 3, negative values are not 0).
pub const QUALITIES: [i32; 12] = [0, 1, 2, 3, -1, 4, 256, 257, 258, 259, i32::MIN, i32::MAX];

/// A provider-neutral exact counter with quality `q` and a local inference capability (P8.9–P8.11):
/// a config around them fails only in its nested policy.
#[must_use]
pub fn config_around(key: &str, policy: &[u8], quality: i32) -> Vec<u8> {
    let identity = ["0"; 32].join(",");
    let mut doc = format!("{{\"{key}\":").into_bytes();
    doc.extend_from_slice(policy);
    let other = if key == "Compaction" { "ContextObservation" } else { "Compaction" };
    doc.extend_from_slice(
        format!(
            ",\"{other}\":null,\"CounterCapability\":{{\"Provider\":\"\",\"Transport\":1,\"SecurityIdentity\":[{identity}],\
             \"Retention\":1,\"TokenizerRev\":\"fuzz\",\"Quality\":{quality}}},\"InferenceCapability\":{{\"Provider\":\"\",\
             \"Transport\":1,\"SecurityIdentity\":[{identity}],\"Retention\":1}}}}"
        )
        .as_bytes(),
    );
    doc
}

/// `lc_compaction_policy_validate` (SPEC §8.1).
///
/// Input: one byte selecting `counter_quality` from `QUALITIES`, then the policy document.
///
/// Invariants: the status is `LC_OK` or 300–308, and `lc_compaction_policy_diagnose` returns it too
/// and fills `diag.status` (C13.4); deterministic; a quality outside 0–3 behaves as 0
/// (A3.5); whitespace around the document changes nothing (J5.1); a well-formed policy (not 300)
/// nested in a context config with a counter of the same quality gives the same status there
/// (P8.8 step 9), for qualities 1–3 (a counter of quality 0 is invalid, P8.9).
pub fn target_compaction_policy(data: &[u8]) {
    quality_document(
        data,
        QualityDocument {
            function: "lc_compaction_policy_validate",
            call: compaction_policy,
            diagnose: compaction_policy_diagnose,
            codes: POLICY_CODES,
            grammar_error: 300,
            config_key: "Compaction",
        },
    );
}

/// `lc_context_observation_validate` (SPEC §8.2).
///
/// Input: one byte selecting `counter_quality` from `QUALITIES`, then the observation document.
///
/// Invariants: the status is `LC_OK` or 320–323, and `lc_context_observation_diagnose` returns it
/// too and fills `diag.status` (C13.4); deterministic; a quality outside 0–3 behaves as 0
/// (A3.5); whitespace around the document changes nothing (J5.1); a well-formed document (not 320)
/// nested in a context config with a counter of the same quality gives the same status there with
/// the config's codes 321–323 (P8.8 step 10), for qualities 1–3.
pub fn target_context_observation(data: &[u8]) {
    quality_document(
        data,
        QualityDocument {
            function: "lc_context_observation_validate",
            call: context_observation,
            diagnose: context_observation_diagnose,
            codes: OBSERVATION_CODES,
            grammar_error: 320,
            config_key: "ContextObservation",
        },
    );
}

/// A document validated with a counter quality, which a context config can also hold.
struct QualityDocument {
    function: &'static str,
    call: fn(&[u8], i32) -> i32,
    /// Its `_diagnose` sibling (checked wrapper).
    diagnose: fn(&[u8], i32) -> (i32, Diag),
    codes: &'static [RangeInclusive<i32>],
    /// The status of a document that is not well-formed JSON (no nesting check then).
    grammar_error: i32,
    /// The key under which a context config holds such a document.
    config_key: &'static str,
}

/// The body of the compaction-policy and context-observation targets (their invariants are the
/// same): one byte selects `counter_quality` from `QUALITIES`, the rest is the document.
fn quality_document(data: &[u8], doc: QualityDocument) {
    let mut reader = Reader::new(data);
    let quality = QUALITIES[usize::from(reader.u8()) % QUALITIES.len()];
    let json = reader.rest();
    let call = doc.call;

    let rc = call(json, quality);
    check_status(doc.function, rc, doc.codes);
    assert_eq!((doc.diagnose)(json, quality).0, rc, "{}: the _diagnose sibling differs", doc.function);
    assert_eq!(rc, call(json, quality), "not deterministic");
    if !(0..=3).contains(&quality) {
        let unknown = call(json, 0);
        assert_eq!(rc, unknown, "quality {quality} gave {} but quality 0 {}", name(rc), name(unknown));
    }
    let wrapped = call(&padded(json), quality);
    assert_eq!(wrapped, rc, "surrounding whitespace turned {} into {}", name(rc), name(wrapped));
    if rc != doc.grammar_error && (1..=3).contains(&quality) {
        let nested = context_config(&config_around(doc.config_key, json, quality));
        assert_eq!(nested, rc, "in a context config {} but alone {}", name(nested), name(rc));
    }
}

/// `lc_context_config_validate` (SPEC §8.3).
///
/// Invariants: the status is `LC_OK` or in 340–347, 301–308, 321–323 (A3.9), and
/// `lc_context_config_diagnose` returns it too and fills `diag.status` (C13.4); deterministic;
/// whitespace around the document changes nothing (J5.1).
pub fn target_context_config(data: &[u8]) {
    let rc = context_config(data);
    check_status("lc_context_config_validate", rc, CONTEXT_CODES);
    assert_eq!(context_config_diagnose(data).0, rc, "lc_context_config_diagnose differs from _validate");
    assert_eq!(rc, context_config(data), "not deterministic");
    let wrapped = context_config(&padded(data));
    assert_eq!(wrapped, rc, "surrounding whitespace turned {} into {}", name(rc), name(wrapped));
}
