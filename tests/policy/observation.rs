//! The observation policy (SPEC §8.2, P8.6): fields and order, D6 and the JSON rules.

use loopcompact::ffi::*;

use super::support::*;

#[test]
fn observation_fields_and_order() {
    let mut f = Failures::default();
    let u64_max = u64::MAX.to_string();
    let i64_max = i64::MAX.to_string();
    let i64_min = i64::MIN.to_string();
    let cases: &[(&[(&str, Option<&str>)], i32, i32)] = &[
        (&[], 2, OK),
        (&[], 3, OK),
        (&[("ReservedOutput", Some("0"))], 2, OBSERVATION_RESERVED_OUTPUT),
        (&[("ReservedOutput", Some("1"))], 2, OK),
        (&[("ReservedOutput", s(&u64_max))], 2, OK),
        (&[("CountTimeout", Some("0"))], 2, OBSERVATION_COUNT_TIMEOUT),
        (&[("CountTimeout", Some("-1"))], 2, OBSERVATION_COUNT_TIMEOUT),
        (&[("CountTimeout", s(&i64_min))], 2, OBSERVATION_COUNT_TIMEOUT),
        (&[("CountTimeout", Some("1"))], 2, OK),
        (&[("CountTimeout", s(&i64_max))], 2, OK),
        (&[("SafetyMargin", Some("0"))], 3, OBSERVATION_SAFETY_MARGIN),
        (&[("SafetyMargin", Some("1"))], 3, OK),
        (&[("SafetyMargin", s(&u64_max))], 3, OK),
        // Order: ReservedOutput, CountTimeout, SafetyMargin.
        (
            &[("ReservedOutput", Some("0")), ("CountTimeout", Some("0")), ("SafetyMargin", Some("0"))],
            3,
            OBSERVATION_RESERVED_OUTPUT,
        ),
        (&[("CountTimeout", Some("0")), ("SafetyMargin", Some("0"))], 3, OBSERVATION_COUNT_TIMEOUT),
    ];
    for (set, q, want) in cases {
        f.check(format_args!("{set:?} q {q}"), observation(&obs(set), *q), *want);
    }
    // A3.5: only exactly 3 is heuristic.
    for q in [i32::MIN, -1, 0, 1, 2, 4, 259, i32::MAX] {
        f.check(format_args!("no margin, q {q}"), observation(&obs(&[("SafetyMargin", Some("0"))]), q), OK);
    }
    f.finish();
}

#[test]
fn observation_d6_and_json() {
    let mut f = Failures::default();
    for (key, _) in OBSERVATION {
        f.check(format_args!("missing {key}"), observation(&obs(&[(key, None)]), 2), OBSERVATION_WIRE);
        f.check(format_args!("null {key}"), observation(&obs(&[(key, Some("null"))]), 2), OBSERVATION_WIRE);
    }
    let cases: &[(&str, String)] = &[
        ("whole document null", "null".to_owned()),
        ("empty object", "{}".to_owned()),
        ("empty", String::new()),
        ("compaction key", obs(&[("Automatic", Some("false"))])),
        ("KeepRecentSegments", obs(&[("KeepRecentSegments", Some("1"))])),
        ("duplicate", obs(&[]).replacen('}', ",\"SafetyMargin\":8}", 1)),
        ("negative reservation", obs(&[("ReservedOutput", Some("-1"))])),
        ("fractional timeout", obs(&[("CountTimeout", Some("1.5"))])),
        ("second value", format!("{}{}", obs(&[]), obs(&[]))),
    ];
    for (what, doc) in cases {
        f.check(what, observation(doc, 2), OBSERVATION_WIRE);
    }
    let mut doc = obs(&[]).into_bytes();
    doc.splice(3..3, [0xC3]);
    let rc = unsafe { lc_context_observation_validate(doc.as_ptr(), doc.len(), 2) };
    f.check("invalid UTF-8 in a key", rc, OBSERVATION_WIRE);
    f.finish();
}

// ---------------------------------------------------------------------------------------------
// P8.7–P8.11: context config.
