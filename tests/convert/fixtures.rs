//! Every fixture of tests/convert/fixtures/ through `lc_transcript_convert`.

use std::collections::BTreeMap;
use std::path::Path;

use loopcompact::ffi;
use serde_json::Value;
use serde_json::value::RawValue;
use testkit::convert::{Converted, convert, loss_name};
use testkit::status::{LC_ERR_NULL_ARGUMENT, LC_OK};

use super::oracle;

const SYSTEM: u64 = u64::MAX;

pub fn format_code(name: &str) -> i32 {
    match name {
        "openai_chat" => ffi::LC_FORMAT_OPENAI_CHAT,
        "openai_responses" => ffi::LC_FORMAT_OPENAI_RESPONSES,
        "anthropic" => ffi::LC_FORMAT_ANTHROPIC,
        "gemini" => ffi::LC_FORMAT_GEMINI,
        "ai_sdk" => ffi::LC_FORMAT_AI_SDK,
        "langchain" => ffi::LC_FORMAT_LANGCHAIN,
        other => panic!("unknown fixture format {other}"),
    }
}

/// A fixture: its name, format, the source's exact bytes (as the SDK sent them) and parsed.
pub struct Fixture {
    pub name: String,
    pub format: String,
    pub src: Vec<u8>,
    pub source: Value,
}

pub fn fixtures() -> Vec<Fixture> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/convert/fixtures");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        // The source's exact bytes, as the SDK sent them (key order, spelling, whitespace).
        let raw: BTreeMap<String, Box<RawValue>> = serde_json::from_str(&text).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = raw["source"].get();
        out.push(Fixture {
            name,
            format: serde_json::from_str(raw["format"].get()).unwrap(),
            src: source.as_bytes().to_vec(),
            source: serde_json::from_str(source).unwrap(),
        });
    }
    assert!(out.len() >= 50, "the fixtures are missing");
    out
}

/// The losses each fixture must report, derived from SPEC §16's tables (not from the code): source
/// index (u64::MAX for the system parameter) and code name, one per dropped construct.
fn expected_losses(name: &str) -> Vec<(u64, &'static str)> {
    let l = |i: u64, code: &'static str| (i, code);
    match name {
        "openai_chat__media" => vec![l(0, "dropped_name"), l(0, "dropped_media_options"), l(0, "document_not_inline")],
        "openai_chat__developer_role" => vec![l(0, "dropped_cache_control"), l(1, "dropped_name")],
        "openai_chat__cache_control" => vec![l(0, "dropped_cache_control"), l(1, "dropped_cache_control")],
        "openai_chat__duplicate_argument_keys" => vec![l(1, "duplicate_argument_key")],
        "openai_chat__unparseable_arguments" => vec![l(1, "arguments_unparseable"), l(1, "arguments_unparseable")],
        "openai_chat__legacy_function_call" => vec![l(1, "synthesized_tool_id"), l(2, "synthesized_tool_id")],
        // Two images with a detail other than `auto` (low, high), a file id and a file URL.
        "openai_responses__media" => vec![
            l(0, "dropped_media_options"),
            l(0, "dropped_media_options"),
            l(0, "document_not_inline"),
            l(0, "document_not_inline"),
        ],
        "openai_responses__refusal_developer" => vec![l(1, "dropped_cache_control")],
        "openai_responses__hosted_tools" => (1..=5).map(|i| l(i, "server_tool_unrepresentable")).collect(),
        "openai_responses__compaction_and_reference" => {
            vec![l(0, "compaction_item_unrepresentable"), l(1, "item_reference_unresolvable")]
        }
        "openai_responses__arguments_edge_cases" => vec![l(1, "duplicate_argument_key"), l(2, "arguments_unparseable")],
        "anthropic__media" => vec![
            l(0, "dropped_media_options"),
            l(0, "dropped_citations"),
            l(0, "document_not_inline"),
            l(0, "document_not_inline"),
        ],
        "anthropic__cache_control" => vec![l(SYSTEM, "dropped_cache_control"), l(0, "dropped_cache_control")],
        "anthropic__server_tools" => vec![
            l(0, "server_tool_unrepresentable"),
            l(0, "dropped_citations"),
            l(1, "server_tool_unrepresentable"),
            l(1, "server_tool_unrepresentable"),
            l(1, "server_tool_unrepresentable"),
            l(1, "server_tool_unrepresentable"),
            l(1, "dropped_citations"),
        ],
        "gemini__calls_without_ids" => vec![l(1, "synthesized_tool_id"), l(1, "synthesized_tool_id")],
        "gemini__media" => {
            vec![l(0, "document_not_inline"), l(0, "document_not_inline"), l(0, "dropped_media_options")]
        }
        "gemini__code_execution" => vec![l(1, "server_tool_unrepresentable"), l(1, "server_tool_unrepresentable")],
        "langchain__tools" | "langchain__tools_dumpd" => vec![l(1, "arguments_unparseable")],
        // Message 3's text part carries OpenAI `itemId` and `phase`.
        "ai_sdk__reasoning_provider_options" => vec![l(3, "dropped_provider_options")],
        "ai_sdk__media" => vec![l(0, "document_not_inline")],
        "ai_sdk__provider_executed" => vec![l(1, "server_tool_unrepresentable"), l(1, "server_tool_unrepresentable")],
        "ai_sdk__cache_control" => {
            vec![l(0, "dropped_cache_control"), l(1, "dropped_cache_control"), l(1, "dropped_cache_control")]
        }
        "ai_sdk__tool_approval" => vec![l(1, "tool_approval_dropped"), l(2, "tool_approval_dropped")],
        "ai_sdk__content_output_and_custom" => vec![l(3, "compaction_item_unrepresentable")],
        _ => vec![],
    }
}

fn multiset(losses: &[(u64, &str)]) -> BTreeMap<(u64, String), usize> {
    let mut m = BTreeMap::new();
    for (i, c) in losses {
        *m.entry((*i, (*c).to_owned())).or_insert(0) += 1;
    }
    m
}

/// Constructs the wire cannot carry, dropped with a loss (SPEC §16): their strings do not arrive.
const DROPPED: &[&str] = &[
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "compaction",
    "item_reference",
    "custom",
];

/// The opaque provider strings of a source (signatures, encrypted content, redacted data, thought
/// signatures), found by the formats' field names wherever they are, except inside what is dropped.
fn provider_strings(v: &Value, out: &mut Vec<String>) {
    if v.get("type").and_then(Value::as_str).is_some_and(|t| DROPPED.contains(&t)) {
        return;
    }
    const KEYS: &[&str] = &[
        "signature",
        "encrypted_content",
        "thoughtSignature",
        "thought_signature",
        "redactedData",
        "reasoningEncryptedContent",
    ];
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                if KEYS.contains(&k.as_str())
                    && let Some(s) = x.as_str()
                    && !s.is_empty()
                {
                    out.push(s.to_owned());
                }
                // langchain-google-genai keeps its calls' thought signatures in a map by call id.
                if k == "__gemini_function_call_thought_signatures__"
                    && let Some(map) = x.as_object()
                {
                    out.extend(map.values().filter_map(Value::as_str).map(str::to_owned));
                }
                // Anthropic redacted thinking keeps its bytes in `data`.
                if k == "data" && o.get("type").and_then(Value::as_str) == Some("redacted_thinking") {
                    out.push(x.as_str().unwrap_or_default().to_owned());
                }
                provider_strings(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| provider_strings(x, out)),
        _ => {}
    }
}

/// Every string anywhere in a JSON value (the wire's signatures and provider state included).
fn all_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Object(o) => o.values().for_each(|x| all_strings(x, out)),
        Value::Array(a) => a.iter().for_each(|x| all_strings(x, out)),
        _ => {}
    }
}

pub fn converted(f: &Fixture) -> Converted {
    convert(format_code(&f.format), &f.src, 0).unwrap_or_else(|(rc, d)| panic!("{}: {rc} at {}", f.name, d.location))
}

#[test]
fn every_fixture_converts_and_parses() {
    for f in fixtures() {
        let c = converted(&f);
        let input = c.input("p", "m", 1000, 1, None).unwrap_or_else(|rc| panic!("{}: the wire gives {rc}", f.name));
        // The wire is canonical: encoding the input gives its transcript back.
        let encoded = input.encode(u64::MAX).unwrap();
        let transcript: Value = serde_json::from_slice(&c.transcript).unwrap();
        let doc: Value = serde_json::from_slice(&encoded).unwrap();
        assert_eq!(doc["transcript"], transcript, "{}", f.name);
        assert!(
            encoded.windows(c.transcript.len()).any(|w| w == c.transcript.as_slice()),
            "{}: the transcript is not canonical",
            f.name
        );
    }
}

#[test]
fn losses_are_the_rules() {
    for f in fixtures() {
        let c = converted(&f);
        let got: Vec<(u64, &str)> = c.losses.iter().map(|&(i, code)| (i, loss_name(code))).collect();
        assert_eq!(multiset(&got), multiset(&expected_losses(&f.name)), "{}", f.name);
    }
}

#[test]
fn signatures_arrive_byte_exact() {
    let mut checked = 0;
    for f in fixtures() {
        let c = converted(&f);
        let mut source = Vec::new();
        provider_strings(&f.source, &mut source);
        let mut wire = Vec::new();
        all_strings(&serde_json::from_slice(&c.transcript).unwrap(), &mut wire);
        for s in source {
            assert!(wire.contains(&s), "{}: a provider string did not arrive as it was", f.name);
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} signatures in the fixtures");
}

#[test]
fn the_wire_pairs_exactly_when_the_source_pairs_and_allowed_cuts_are_source_cuts() {
    for f in fixtures() {
        let c = converted(&f);
        let input = c.input("p", "m", 1000, 1, None).unwrap();
        // SAFETY: a live handle; diag NULL is allowed.
        let wire_ok = unsafe { ffi::lc_transcript_pairing_check(input.as_ptr(), std::ptr::null_mut()) } == LC_OK;
        let pairs = oracle::pairs(&f.format, &f.source);
        assert_eq!(wire_ok, pairs.is_some(), "{}: the wire pairs {wire_ok}, the source {}", f.name, pairs.is_some());
        let Some(pairs) = pairs else { continue };
        let n = c.source_index.len();
        for cut in 0..=n {
            // SAFETY: a live handle.
            let safe = unsafe { ffi::lc_transcript_cut_check(input.as_ptr(), cut as u64) } == LC_OK;
            assert!(!safe || c.cut_allowed[cut], "{}: cut {cut} is safe on an input that forbids it", f.name);
            if !safe {
                continue;
            }
            let s = c.source_cut(cut).unwrap_or_else(|rc| panic!("{}: an allowed cut has no source cut: {rc}", f.name))
                as usize;
            assert!(
                pairs.iter().all(|&(a, b)| !(a < s && s <= b)),
                "{}: wire cut {cut} maps to source cut {s}, which splits a pair",
                f.name
            );
        }
    }
}

#[test]
fn the_source_length_is_the_length_of_the_source_list() {
    for f in fixtures() {
        let c = converted(&f);
        assert_eq!(c.source_len(), oracle::source_len(&f.format, &f.source) as u64, "{}", f.name);
    }
    // NULL handle or out pointer: a status, nothing written.
    let mut out = 7u64;
    // SAFETY: NULL handle is part of the contract.
    assert_eq!(unsafe { ffi::lc_conversion_source_len(std::ptr::null(), &raw mut out) }, LC_ERR_NULL_ARGUMENT);
    assert_eq!(out, 7);
}

#[test]
fn every_loss_code_is_produced_by_a_fixture_or_a_hand_written_case() {
    let mut seen: Vec<&str> = fixtures()
        .iter()
        .flat_map(|f| converted(f).losses.iter().map(|&(_, c)| loss_name(c)).collect::<Vec<_>>())
        .collect();
    seen.extend(super::errors::hand_written_losses());
    for code in 1..=17 {
        let name = loss_name(code);
        assert!(!name.is_empty(), "LC_LOSS value {code} has no name");
        assert!(seen.contains(&name), "no fixture or case produces {name}");
    }
    assert_eq!(loss_name(0), "");
    assert_eq!(loss_name(18), "");
}
