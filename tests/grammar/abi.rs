//! G17.1, G17.7: the grammar and schema exports.

use super::support::*;

#[test]
fn every_kind_has_a_grammar_and_others_are_null() {
    assert_eq!(ffi::LC_GRAMMAR_REGEX, 1);
    assert_eq!(ffi::LC_GRAMMAR_LARK, 2);
    assert_eq!(ffi::LC_GRAMMAR_GBNF, 3);
    for kind in [ffi::LC_GRAMMAR_REGEX, ffi::LC_GRAMMAR_LARK, ffi::LC_GRAMMAR_GBNF] {
        let text = grammar(kind).expect("a grammar for every LC_GRAMMAR_*");
        assert!(text.contains("conversation_summary"));
    }
    for kind in [0, 4, -1, i32::MIN, i32::MAX, 256 + 1] {
        assert_eq!(grammar(kind), None, "kind {kind}");
    }
    // The start rules the consumers look for (G17.5, G17.6).
    assert!(grammar(ffi::LC_GRAMMAR_LARK).unwrap().lines().any(|l| l.starts_with("start:")));
    assert!(grammar(ffi::LC_GRAMMAR_GBNF).unwrap().lines().any(|l| l.starts_with("root ::=")));
    // The regex is one expression: no anchors, no line breaks (G17.4).
    let regex = grammar(ffi::LC_GRAMMAR_REGEX).unwrap();
    assert!(!regex.contains('\n') && !regex.starts_with('^') && !regex.ends_with('$'));
}

#[test]
fn the_schema_is_the_object_of_g17_7() {
    let schema: serde_json::Value = serde_json::from_str(json_schema()).expect("the schema is JSON");
    let names = ["goal", "constraints", "decisions", "state", "open_items"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], serde_json::json!(names));
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().map(String::as_str).collect::<std::collections::BTreeSet<_>>(),
        names.into_iter().collect()
    );
    for name in names {
        let property = properties[name].as_object().unwrap();
        assert_eq!(property["type"], "string");
        // Only keywords every provider's subset takes (G17.7).
        assert!(property.keys().all(|k| k == "type" || k == "description"), "{name}: {property:?}");
    }
    let top: Vec<_> = schema.as_object().unwrap().keys().cloned().collect();
    assert_eq!(top.len(), 4, "{top:?}");
}
