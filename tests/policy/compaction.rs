//! The compaction policy (SPEC §8.1, P8.2–P8.5): field boundaries, the check order, the counter
//! table, Hustle names, D6 and the JSON rules, and the boundary of its buffer.

use std::ptr;

use loopcompact::ffi::*;

use super::support::*;

#[test]
fn compaction_base_documents_are_valid() {
    for q in 1..=3 {
        assert_eq!(compaction(&policy(&[]), q), OK, "automatic, q {q}");
        assert_eq!(compaction(&manual(&[]), q), OK, "manual, q {q}");
    }
}

#[test]
fn compaction_field_boundaries() {
    let mut f = Failures::default();
    let u64_max = u64::MAX.to_string();
    let i64_max = i64::MAX.to_string();
    let i64_min = i64::MIN.to_string();
    let cases: &[(&str, &str, i32)] = &[
        ("ReservedOutput", "0", POLICY_RESERVED_OUTPUT),
        ("ReservedOutput", "1", OK),
        ("ReservedOutput", &u64_max, OK),
        ("ReservedOutput", "18446744073709551616", POLICY_WIRE),
        ("MaxSummaryTokens", "0", POLICY_MAX_SUMMARY_TOKENS),
        ("MaxSummaryTokens", "1", OK),
        ("MaxSummaryTokens", &u64_max, OK),
        ("MaxSummaryTokens", "18446744073709551616", POLICY_WIRE),
        ("CountTimeout", "0", POLICY_COUNT_TIMEOUT),
        ("CountTimeout", "-0", POLICY_COUNT_TIMEOUT),
        ("CountTimeout", "-1", POLICY_COUNT_TIMEOUT),
        ("CountTimeout", &i64_min, POLICY_COUNT_TIMEOUT),
        ("CountTimeout", "-9223372036854775809", POLICY_WIRE),
        ("CountTimeout", "1", OK),
        ("CountTimeout", &i64_max, OK),
        ("CountTimeout", "9223372036854775808", POLICY_WIRE),
        ("CountTimeout", "1e9", POLICY_WIRE),
        ("SafetyMargin", "0", OK),
        ("SafetyMargin", "1", OK),
        ("SafetyMargin", &u64_max, OK),
        ("SafetyMargin", "-1", POLICY_WIRE),
        // CompactAt and RearmBelow (P8.3 steps 7 and 8).
        ("CompactAt", "0", POLICY_REARM_BELOW),
        ("CompactAt", "6000", POLICY_REARM_BELOW),
        ("CompactAt", "6001", OK),
        ("CompactAt", "9999", OK),
        ("CompactAt", "10000", POLICY_COMPACT_AT),
        ("CompactAt", "65535", POLICY_COMPACT_AT),
        ("CompactAt", "65536", POLICY_WIRE),
        ("RearmBelow", "0", POLICY_REARM_BELOW),
        ("RearmBelow", "1", OK),
        ("RearmBelow", "7999", OK),
        ("RearmBelow", "8000", POLICY_REARM_BELOW),
        ("RearmBelow", "8001", POLICY_REARM_BELOW),
        ("RearmBelow", "65535", POLICY_REARM_BELOW),
        ("RearmBelow", "65536", POLICY_WIRE),
        // CounterPolicy: u8 (J5.6), 0 and values above 2 accept nothing (P8.4).
        ("CounterPolicy", "0", POLICY_COUNTER_POLICY),
        ("CounterPolicy", "1", OK),
        ("CounterPolicy", "2", OK),
        ("CounterPolicy", "3", POLICY_COUNTER_POLICY),
        ("CounterPolicy", "255", POLICY_COUNTER_POLICY),
        ("CounterPolicy", "256", POLICY_WIRE),
    ];
    for (key, value, want) in cases {
        // Quality 2 (exact local): accepted by both valid counter policies, needs no margin.
        f.check(format_args!("{key}={value}"), compaction(&policy(&[(key, Some(value))]), 2), *want);
    }
    // Extremes together, automatic, with every threshold at its valid limit.
    let doc = policy(&[
        ("CompactAt", Some("9999")),
        ("RearmBelow", Some("9998")),
        ("ReservedOutput", s(&u64_max)),
        ("SafetyMargin", s(&u64_max)),
        ("MaxSummaryTokens", s(&u64_max)),
        ("CountTimeout", s(&i64_max)),
    ]);
    f.check("all maxima", compaction(&doc, 3), OK);
    let doc = policy(&[
        ("CompactAt", Some("2")),
        ("RearmBelow", Some("1")),
        ("ReservedOutput", Some("1")),
        ("SafetyMargin", Some("1")),
        ("MaxSummaryTokens", Some("1")),
        ("CountTimeout", Some("1")),
    ]);
    f.check("all minima", compaction(&doc, 3), OK);
    f.finish();
}

#[test]
fn compaction_compact_at_equals_rearm_below() {
    // P8.3 step 7: RearmBelow >= CompactAt, checked before CompactAt.
    for v in ["1", "6000", "9999", "10000", "65535"] {
        let doc = policy(&[("CompactAt", Some(v)), ("RearmBelow", Some(v))]);
        assert_eq!(compaction(&doc, 2), POLICY_REARM_BELOW, "CompactAt = RearmBelow = {v}");
    }
    // Manual mode ignores it.
    let doc = manual(&[("CompactAt", Some("8000")), ("RearmBelow", Some("8000"))]);
    assert_eq!(compaction(&doc, 2), OK);
}

#[test]
fn compaction_check_order() {
    // A policy failing every step, automatic, heuristic counter; repairing one field at a time
    // walks P8.3 in order.
    let steps: &[(&str, &str, i32)] = &[
        ("ReservedOutput", "1", POLICY_RESERVED_OUTPUT),
        ("MaxSummaryTokens", "1", POLICY_MAX_SUMMARY_TOKENS),
        ("CountTimeout", "1", POLICY_COUNT_TIMEOUT),
        ("Hustle", "\"h\"", POLICY_HUSTLE),
        ("SafetyMargin", "1", POLICY_SAFETY_MARGIN),
        ("RearmBelow", "1", POLICY_REARM_BELOW),
        ("CompactAt", "9999", POLICY_COMPACT_AT),
        ("CounterPolicy", "2", POLICY_COUNTER_POLICY),
    ];
    let mut fields: Vec<(&str, Option<&str>)> = vec![
        ("Automatic", Some("true")),
        ("CounterPolicy", Some("0")),
        ("CompactAt", Some("10000")),
        ("RearmBelow", Some("0")),
        ("ReservedOutput", Some("0")),
        ("SafetyMargin", Some("0")),
        ("MaxSummaryTokens", Some("0")),
        ("CountTimeout", Some("0")),
        ("Hustle", Some("\"_looprig.x\"")),
    ];
    for (key, fix, want) in steps {
        assert_eq!(compaction(&policy(&fields), 3), *want, "before fixing {key}");
        let slot = fields.iter_mut().find(|(k, _)| *k == *key).expect("key");
        slot.1 = Some(*fix);
    }
    assert_eq!(compaction(&policy(&fields), 3), OK);

    // Step 6: the same broken thresholds and counter policy pass in manual mode.
    let doc = manual(&[("CounterPolicy", Some("0")), ("CompactAt", Some("10000")), ("RearmBelow", Some("0"))]);
    assert_eq!(compaction(&doc, 0), OK);
    // Step 7 before step 8 even when CompactAt is out of range.
    let doc = policy(&[("CompactAt", Some("20000")), ("RearmBelow", Some("30000"))]);
    assert_eq!(compaction(&doc, 2), POLICY_REARM_BELOW);
}

#[test]
fn compaction_heuristic_margin_in_both_modes() {
    // P8.3 step 5: also when not automatic.
    for mode in ["true", "false"] {
        let without = policy(&[("Automatic", Some(mode)), ("SafetyMargin", Some("0"))]);
        let with = policy(&[("Automatic", Some(mode)), ("SafetyMargin", Some("1"))]);
        assert_eq!(compaction(&without, 3), POLICY_SAFETY_MARGIN, "Automatic {mode}, no margin");
        assert_eq!(compaction(&with, 3), OK, "Automatic {mode}, margin 1");
        // Exact counters need no margin.
        for q in [1, 2] {
            assert_eq!(compaction(&without, q), OK, "Automatic {mode}, q {q}");
        }
    }
}

#[test]
fn compaction_counter_table() {
    // P8.4, with A3.5: any quality outside 0–3 is unknown and accepted by no policy.
    let qualities = [i32::MIN, -1, 0, 1, 2, 3, 4, 99, 259, 256 + 2, i32::MAX];
    let accepted = |policy: u8, q: i32| match policy {
        1 => [1, 2].contains(&q),
        2 => [1, 2, 3].contains(&q),
        _ => false,
    };
    let mut f = Failures::default();
    for policy_value in [0u8, 1, 2, 3, 4, 255] {
        for q in qualities {
            let doc = policy(&[("CounterPolicy", s(&policy_value.to_string()))]);
            let want = if accepted(policy_value, q) { OK } else { POLICY_COUNTER_POLICY };
            f.check(format_args!("CounterPolicy {policy_value}, q {q}"), compaction(&doc, q), want);
        }
    }
    f.finish();
}

#[test]
fn compaction_unknown_qualities_are_not_heuristic() {
    // A3.5: no truncation; 259 = 0x103 and 258 = 0x102 are unknown, not 3 or 2.
    for q in [-1, 4, 259, 258, i32::MIN, i32::MAX, -253] {
        assert_eq!(compaction(&manual(&[("SafetyMargin", Some("0"))]), q), OK, "manual, q {q}");
        assert_eq!(compaction(&policy(&[("SafetyMargin", Some("0"))]), q), POLICY_COUNTER_POLICY, "automatic, q {q}");
    }
}

#[test]
fn compaction_hustle_names() {
    // P8.5: White_Space of X4.21 trimmed from both ends; `_looprig.` reserved, case-sensitive.
    let blank = [
        "",
        " ",
        "\\t",
        "\\n",
        "\\r",
        "\\u000b",
        "\\f",
        "\\u0085",
        "\\u00a0",
        "\\u1680",
        "\\u2000",
        "\\u200a",
        "\\u2028",
        "\\u2029",
        "\\u202f",
        "\\u205f",
        "\\u3000",
        " \\t\\n\\u3000 ",
    ];
    let valid = [
        "\\u200b",
        "\\ufeff",
        "\\u180e",
        "\\u001c",
        "\\u001f",
        "\\u0000",
        "\\ud800",
        "x",
        " context.compact ",
        "_looprig",
        "_LoopRig.x",
        "_LOOPRIG.x",
        "x_looprig.y",
        "looprig.x",
        "_looprig\\u2024x",
    ];
    let reserved = ["_looprig.", "_looprig.compact", " _looprig.x", "\\u3000_looprig.x\\t", "\\u005flooprig.x"];
    let mut f = Failures::default();
    for name in blank.iter().chain(&reserved) {
        let doc = manual(&[("Hustle", s(&format!("\"{name}\"")))]);
        f.check(format_args!("Hustle {name:?}"), compaction(&doc, 2), POLICY_HUSTLE);
    }
    for name in valid {
        let doc = manual(&[("Hustle", s(&format!("\"{name}\"")))]);
        f.check(format_args!("Hustle {name:?}"), compaction(&doc, 2), OK);
    }
    // Raw (unescaped) non-ASCII White_Space and a raw ZWSP.
    for (name, want) in
        [("\u{a0}", POLICY_HUSTLE), ("\u{3000}x\u{2029}", OK), ("\u{200b}", OK), ("\u{2028}", POLICY_HUSTLE)]
    {
        let doc = manual(&[("Hustle", s(&format!("\"{name}\"")))]);
        f.check(format_args!("raw Hustle {name:?}"), compaction(&doc, 2), want);
    }
    f.finish();
}

#[test]
fn compaction_d6_and_json() {
    let mut f = Failures::default();
    for (key, _) in POLICY {
        f.check(format_args!("missing {key}"), compaction(&policy(&[(key, None)]), 2), POLICY_WIRE);
        f.check(format_args!("null {key}"), compaction(&policy(&[(key, Some("null"))]), 2), POLICY_WIRE);
        // Also in manual mode, where the value would be ignored.
        f.check(format_args!("manual, missing {key}"), compaction(&manual(&[(key, None)]), 2), POLICY_WIRE);
    }
    let cases: &[(&str, String)] = &[
        ("whole document null", "null".to_owned()),
        ("whole document null with spaces", " null ".to_owned()),
        ("empty object", "{}".to_owned()),
        ("array", "[]".to_owned()),
        ("string", "\"x\"".to_owned()),
        ("empty", String::new()),
        ("whitespace only", " \n".to_owned()),
        ("KeepRecentSegments", policy(&[("KeepRecentSegments", Some("2"))])),
        ("KeepRecentTokens", policy(&[("KeepRecentTokens", Some("100"))])),
        ("lower-case key", policy(&[("Automatic", None), ("automatic", Some("true"))])),
        ("long-s key", policy(&[("Hustle", None), ("Hu\\u017Ftle", Some("\"x\""))])),
        ("duplicate key", policy(&[]).replacen('}', ",\"CompactAt\":8000}", 1)),
        ("duplicate key via escape", policy(&[]).replacen('}', ",\"\\u0043ompactAt\":8000}", 1)),
        ("second value", format!("{} {{}}", policy(&[]))),
        ("second null", format!("{}null", policy(&[]))),
        ("BOM", format!("\u{feff}{}", policy(&[]))),
        ("Automatic as string", policy(&[("Automatic", Some("\"true\""))])),
        ("Automatic as 1", policy(&[("Automatic", Some("1"))])),
        ("CompactAt as float", policy(&[("CompactAt", Some("8000.0"))])),
        ("CompactAt exponent", policy(&[("CompactAt", Some("8e3"))])),
        ("CompactAt as string", policy(&[("CompactAt", Some("\"8000\""))])),
        ("Hustle as number", policy(&[("Hustle", Some("5"))])),
        ("Hustle as array", policy(&[("Hustle", Some("[\"x\"]"))])),
        ("Hustle bad escape", policy(&[("Hustle", Some("\"\\x\""))])),
        ("leading zero", policy(&[("ReservedOutput", Some("010"))])),
        ("plus sign", policy(&[("ReservedOutput", Some("+10"))])),
        ("trailing comma", policy(&[]).replacen('}', ",}", 1)),
        ("unclosed", policy(&[]).trim_end_matches('}').to_owned()),
    ];
    for (what, doc) in cases {
        f.check(what, compaction(doc, 2), POLICY_WIRE);
    }
    // Escaped key names decode to the layout's names (J5.5).
    let escaped = policy(&[("Automatic", None), ("\\u0041utomatic", Some("true"))]);
    f.check("escaped key", compaction(&escaped, 2), OK);
    // Whitespace around and inside the document (J5.1).
    let spaced = format!(" \t\r\n{} \n", policy(&[]).replace(',', " ,\n ").replace(':', " : "));
    f.check("whitespace", compaction(&spaced, 2), OK);
    // Key order is free.
    let reversed =
        format!("{{{}}}", POLICY.iter().rev().map(|(k, v)| format!("\"{k}\":{v}")).collect::<Vec<_>>().join(","));
    f.check("reversed keys", compaction(&reversed, 2), OK);
    // A wire error wins over every value error.
    let doc = policy(&[("ReservedOutput", Some("0")), ("Extra", Some("1"))]);
    f.check("wire before value", compaction(&doc, 2), POLICY_WIRE);
    f.finish();
}

#[test]
fn compaction_invalid_utf8() {
    let valid = manual(&[("Hustle", Some("\"context.compact\""))]);
    let at = valid.find("context.compact").expect("hustle") + 3;
    for bad in [&[0xFFu8][..], &[0xC0, 0xAF], &[0xED, 0xA0, 0x80], &[0xE2, 0x82], &[0x80], &[0xF4, 0x90, 0x80, 0x80]] {
        let mut doc = valid.as_bytes().to_vec();
        doc.splice(at..at, bad.iter().copied());
        assert_eq!(compaction_bytes(&doc, 2), POLICY_WIRE, "{bad:02x?} in Hustle");
    }
    // In a key.
    let mut doc = valid.as_bytes().to_vec();
    doc.splice(2..2, [0xFF]);
    assert_eq!(compaction_bytes(&doc, 2), POLICY_WIRE, "invalid UTF-8 in a key");
}

#[test]
fn policy_buffers() {
    // (NULL, 0) is the empty buffer: not JSON → wire. (NULL, n > 0) → NULL_ARGUMENT.
    unsafe {
        assert_eq!(lc_compaction_policy_validate(ptr::null(), 0, 2), POLICY_WIRE);
        assert_eq!(lc_compaction_policy_validate(ptr::null(), 1, 2), NULL_ARGUMENT);
        assert_eq!(lc_compaction_policy_validate(ptr::null(), usize::MAX, 2), NULL_ARGUMENT);
        assert_eq!(lc_context_observation_validate(ptr::null(), 0, 2), OBSERVATION_WIRE);
        assert_eq!(lc_context_observation_validate(ptr::null(), 5, 2), NULL_ARGUMENT);
        assert_eq!(lc_context_config_validate(ptr::null(), 0), CONTEXT_WIRE);
        assert_eq!(lc_context_config_validate(ptr::null(), 5), NULL_ARGUMENT);
        // A length above isize::MAX is rejected before any byte is read (A3.1).
        let byte = [b'{'];
        let over = isize::MAX as usize + 1;
        assert_eq!(lc_compaction_policy_validate(byte.as_ptr(), over, 2), LENGTH_OVERFLOW);
        assert_eq!(lc_context_observation_validate(byte.as_ptr(), over, 2), LENGTH_OVERFLOW);
        assert_eq!(lc_context_config_validate(byte.as_ptr(), usize::MAX), LENGTH_OVERFLOW);
        // A pointer to zero bytes is the same empty buffer.
        assert_eq!(lc_compaction_policy_validate(byte.as_ptr(), 0, 2), POLICY_WIRE);
        assert_eq!(lc_context_config_validate(byte.as_ptr(), 0), CONTEXT_WIRE);
    }
}

// ---------------------------------------------------------------------------------------------
// P8.6: observation policy.
