//! The status values of SPEC §3, copied from the spec text (the C constants are `#define`s, not
//! Rust items, and the tests must not take the library's own table as their oracle), their names
//! and reasons through the C ABI, and the sets of content codes each function may return (A3.9).

use std::ffi::{CStr, c_char};
use std::ops::RangeInclusive;

use loopcompact::ffi;

pub const LC_OK: i32 = 0;
pub const LC_ERR_NULL_ARGUMENT: i32 = 1;
pub const LC_ERR_BUFFER_TOO_SMALL: i32 = 2;
pub const LC_ERR_LENGTH_OVERFLOW: i32 = 3;
/// docs/SPEC.md C13.9 (this project's).
pub const LC_ERR_INVALID_ARGUMENT: i32 = 4;
pub const LC_ERR_PANIC: i32 = 99;
pub const LC_INPUT_WIRE: i32 = 100;
pub const LC_INPUT_BASIS: i32 = 101;
pub const LC_INPUT_MODEL: i32 = 102;
pub const LC_INPUT_REQUEST_FINGERPRINT: i32 = 103;
pub const LC_INPUT_TRANSCRIPT: i32 = 104;
pub const LC_INPUT_MAX_SUMMARY_TOKENS: i32 = 105;
pub const LC_INPUT_TOO_LARGE: i32 = 110;
pub const LC_SUMMARY_WIRE: i32 = 200;
pub const LC_SUMMARY_IDENTITY: i32 = 201;
pub const LC_SUMMARY_OUTPUT_SHAPE: i32 = 202;
pub const LC_SUMMARY_BYTE_LIMIT: i32 = 203;
pub const LC_SUMMARY_TOKEN_USAGE: i32 = 204;
pub const LC_SUMMARY_TOKEN_LIMIT: i32 = 205;
pub const LC_SUMMARY_XML_SYNTAX: i32 = 206;
pub const LC_SUMMARY_XML_ROOT: i32 = 207;
pub const LC_SUMMARY_XML_STRUCTURE: i32 = 208;
pub const LC_SUMMARY_XML_CONTENT: i32 = 209;
pub const LC_SUMMARY_TOO_LARGE: i32 = 250;
pub const LC_POLICY_WIRE: i32 = 300;
pub const LC_POLICY_COUNTER_POLICY: i32 = 301;
pub const LC_POLICY_COMPACT_AT: i32 = 302;
pub const LC_POLICY_REARM_BELOW: i32 = 303;
pub const LC_POLICY_RESERVED_OUTPUT: i32 = 304;
pub const LC_POLICY_SAFETY_MARGIN: i32 = 305;
pub const LC_POLICY_MAX_SUMMARY_TOKENS: i32 = 306;
pub const LC_POLICY_COUNT_TIMEOUT: i32 = 307;
pub const LC_POLICY_HUSTLE: i32 = 308;
pub const LC_OBSERVATION_WIRE: i32 = 320;
pub const LC_OBSERVATION_RESERVED_OUTPUT: i32 = 321;
pub const LC_OBSERVATION_SAFETY_MARGIN: i32 = 322;
pub const LC_OBSERVATION_COUNT_TIMEOUT: i32 = 323;
pub const LC_CONTEXT_WIRE: i32 = 340;
pub const LC_CONTEXT_CONFLICTING_POLICY: i32 = 341;
pub const LC_CONTEXT_MISSING_COUNTER: i32 = 342;
pub const LC_CONTEXT_MISSING_INFERENCE_CAPABILITY: i32 = 343;
pub const LC_CONTEXT_MISSING_POLICY: i32 = 344;
pub const LC_CONTEXT_INVALID_COUNTER: i32 = 345;
pub const LC_CONTEXT_INVALID_INFERENCE_CAPABILITY: i32 = 346;
pub const LC_CONTEXT_INCOMPATIBLE_COUNTER: i32 = 347;
pub const LC_LIMITS_UNKNOWN: i32 = 360;
pub const LC_OCCUPANCY_ZERO_LIMIT: i32 = 361;
pub const LC_FINGERPRINT_WIRE: i32 = 400;
pub const LC_FINGERPRINT_SYSTEM_REVISION: i32 = 401;
pub const LC_FINGERPRINT_TOOL_POLICY_REVISION: i32 = 402;
pub const LC_FINGERPRINT_RUNTIME_CONTEXT_REVISION: i32 = 403;
pub const LC_FINGERPRINT_MODEL: i32 = 404;
pub const LC_FINGERPRINT_BASIS: i32 = 405;
pub const LC_FINGERPRINT_COUNTER_CAPABILITY: i32 = 406;
pub const LC_FINGERPRINT_INFERENCE_CAPABILITY: i32 = 407;
pub const LC_FINGERPRINT_ENCODING: i32 = 408;
/// docs/SPEC.md §14 (this project's).
pub const LC_PAIRING_UNANSWERED_CALL: i32 = 500;
pub const LC_PAIRING_ORPHAN_RESULT: i32 = 501;
pub const LC_CUT_UNSAFE: i32 = 510;
/// docs/SPEC.md §15 (this project's).
pub const LC_REPLY_TRUNCATED: i32 = 600;
pub const LC_REPLY_BYTE_LIMIT_UNREACHABLE: i32 = 601;
pub const LC_REPLACEMENT_EMPTY_HEAD: i32 = 610;
pub const LC_REPLACEMENT_SUMMARY: i32 = 611;
pub const LC_REPLACEMENT_WIRE: i32 = 620;
pub const LC_REPLACEMENT_PREFIX_CHANGED: i32 = 621;
pub const LC_REPLACEMENT_TAIL_CHANGED: i32 = 622;
pub const LC_REPLACEMENT_ADJACENT_USER: i32 = 623;
/// docs/SPEC.md §16 (this project's).
pub const LC_CONVERT_WIRE: i32 = 700;
pub const LC_CONVERT_SHAPE: i32 = 701;
pub const LC_CONVERT_LOSS: i32 = 702;

/// SPEC §3, copied from the spec text: (value, name, reason string).
pub const SPEC_STATUS_TABLE: &[(i32, &str, &str)] = &[
    (0, "LC_OK", ""),
    (1, "LC_ERR_NULL_ARGUMENT", ""),
    (2, "LC_ERR_BUFFER_TOO_SMALL", ""),
    (3, "LC_ERR_LENGTH_OVERFLOW", ""),
    (99, "LC_ERR_PANIC", ""),
    (100, "LC_INPUT_WIRE", "wire"),
    (101, "LC_INPUT_BASIS", "basis"),
    (102, "LC_INPUT_MODEL", "model"),
    (103, "LC_INPUT_REQUEST_FINGERPRINT", "request_fingerprint"),
    (104, "LC_INPUT_TRANSCRIPT", "transcript"),
    (105, "LC_INPUT_MAX_SUMMARY_TOKENS", "max_summary_tokens"),
    (110, "LC_INPUT_TOO_LARGE", "too_large"),
    (200, "LC_SUMMARY_WIRE", "wire"),
    (201, "LC_SUMMARY_IDENTITY", "identity"),
    (202, "LC_SUMMARY_OUTPUT_SHAPE", "output_shape"),
    (203, "LC_SUMMARY_BYTE_LIMIT", "byte_limit"),
    (204, "LC_SUMMARY_TOKEN_USAGE", "token_usage"),
    (205, "LC_SUMMARY_TOKEN_LIMIT", "token_limit"),
    (206, "LC_SUMMARY_XML_SYNTAX", "xml_syntax"),
    (207, "LC_SUMMARY_XML_ROOT", "xml_root"),
    (208, "LC_SUMMARY_XML_STRUCTURE", "xml_structure"),
    (209, "LC_SUMMARY_XML_CONTENT", "xml_content"),
    (250, "LC_SUMMARY_TOO_LARGE", "summary_too_large"),
    (300, "LC_POLICY_WIRE", "wire"),
    (301, "LC_POLICY_COUNTER_POLICY", "CounterPolicy"),
    (302, "LC_POLICY_COMPACT_AT", "CompactAt"),
    (303, "LC_POLICY_REARM_BELOW", "RearmBelow"),
    (304, "LC_POLICY_RESERVED_OUTPUT", "ReservedOutput"),
    (305, "LC_POLICY_SAFETY_MARGIN", "SafetyMargin"),
    (306, "LC_POLICY_MAX_SUMMARY_TOKENS", "MaxSummaryTokens"),
    (307, "LC_POLICY_COUNT_TIMEOUT", "CountTimeout"),
    (308, "LC_POLICY_HUSTLE", "Hustle"),
    (320, "LC_OBSERVATION_WIRE", "wire"),
    (321, "LC_OBSERVATION_RESERVED_OUTPUT", "ReservedOutput"),
    (322, "LC_OBSERVATION_SAFETY_MARGIN", "SafetyMargin"),
    (323, "LC_OBSERVATION_COUNT_TIMEOUT", "CountTimeout"),
    (340, "LC_CONTEXT_WIRE", "wire"),
    (341, "LC_CONTEXT_CONFLICTING_POLICY", "conflicting_context_policy"),
    (342, "LC_CONTEXT_MISSING_COUNTER", "missing_context_counter"),
    (343, "LC_CONTEXT_MISSING_INFERENCE_CAPABILITY", "missing_inference_capability"),
    (344, "LC_CONTEXT_MISSING_POLICY", "missing_context_policy"),
    (345, "LC_CONTEXT_INVALID_COUNTER", "invalid_context_counter"),
    (346, "LC_CONTEXT_INVALID_INFERENCE_CAPABILITY", "invalid_inference_capability"),
    (347, "LC_CONTEXT_INCOMPATIBLE_COUNTER", "incompatible_context_counter"),
    (360, "LC_LIMITS_UNKNOWN", "context_limit_unknown"),
    (361, "LC_OCCUPANCY_ZERO_LIMIT", "occupancy_zero_limit"),
    (400, "LC_FINGERPRINT_WIRE", "wire"),
    (401, "LC_FINGERPRINT_SYSTEM_REVISION", "SystemRevision"),
    (402, "LC_FINGERPRINT_TOOL_POLICY_REVISION", "ToolPolicyRevision"),
    (403, "LC_FINGERPRINT_RUNTIME_CONTEXT_REVISION", "RuntimeContextRevision"),
    (404, "LC_FINGERPRINT_MODEL", "Model"),
    (405, "LC_FINGERPRINT_BASIS", "Basis"),
    (406, "LC_FINGERPRINT_COUNTER_CAPABILITY", "CounterCapability"),
    (407, "LC_FINGERPRINT_INFERENCE_CAPABILITY", "InferenceCapability"),
    (408, "LC_FINGERPRINT_ENCODING", "Encoding"),
];

/// docs/SPEC.md §13 and later, copied from the spec text: the codes this project adds beyond the
/// reference's §3.
pub const PROJECT_STATUS_TABLE: &[(i32, &str, &str)] = &[
    (4, "LC_ERR_INVALID_ARGUMENT", ""),
    (500, "LC_PAIRING_UNANSWERED_CALL", "unanswered_tool_call"),
    (501, "LC_PAIRING_ORPHAN_RESULT", "orphan_tool_result"),
    (502, "LC_PAIRING_DUPLICATE_ID", "duplicate_tool_use_id"),
    (503, "LC_PAIRING_DUPLICATE_RESULT", "duplicate_tool_result"),
    (510, "LC_CUT_UNSAFE", "unsafe_cut"),
    (520, "LC_COMPACTION_NO_PROGRESS", "no_progress"),
    (521, "LC_COMPACTION_THRESHOLD_UNREACHABLE", "threshold_unreachable"),
    (600, "LC_REPLY_TRUNCATED", "truncated"),
    (601, "LC_REPLY_BYTE_LIMIT_UNREACHABLE", "byte_limit_unreachable"),
    (610, "LC_REPLACEMENT_EMPTY_HEAD", "empty_head"),
    (611, "LC_REPLACEMENT_SUMMARY", "replacement_summary"),
    (620, "LC_REPLACEMENT_WIRE", "replacement_wire"),
    (621, "LC_REPLACEMENT_PREFIX_CHANGED", "prefix_changed"),
    (622, "LC_REPLACEMENT_TAIL_CHANGED", "tail_changed"),
    (623, "LC_REPLACEMENT_ADJACENT_USER", "adjacent_user"),
    (700, "LC_CONVERT_WIRE", "convert_wire"),
    (701, "LC_CONVERT_SHAPE", "convert_shape"),
    (702, "LC_CONVERT_LOSS", "convert_loss"),
];

/// docs/SPEC.md C13.3, copied from the spec text: the class of every code (0 ok, 1 retry,
/// 2 discard, 3 host, 4 bug).
pub fn spec_class(code: i32) -> i32 {
    match code {
        0 => 0,
        99 => 4,
        203 | 205..=209 | 600 => 1,
        200..=202 | 204 | 250 => 2,
        _ => 3,
    }
}

/// The boundary codes any function may return besides its content codes (A3.9).
pub const BOUNDARY_CODES: &[i32] = &[LC_OK, LC_ERR_NULL_ARGUMENT, LC_ERR_LENGTH_OVERFLOW, LC_ERR_PANIC];

// A3.9: the content codes of each function. With the valid pointers the wrappers of `crate::abi`
// pass, the boundary codes 1, 3 and 99 cannot occur and are failures.

/// `lc_summary_xml_validate`.
pub const SUMMARY_CODES: &[RangeInclusive<i32>] = &[206..=209];
/// `lc_compaction_input_parse` and `_validate`.
pub const INPUT_CODES: &[RangeInclusive<i32>] = &[100..=105];
/// `lc_compaction_output_validate` (202 is never returned, O6.6; 2 is handled by the wrapper).
pub const OUTPUT_CODES: &[RangeInclusive<i32>] = &[200..=201, 203..=209];
/// `lc_compaction_policy_validate`.
pub const POLICY_CODES: &[RangeInclusive<i32>] = &[300..=308];
/// `lc_context_observation_validate`.
pub const OBSERVATION_CODES: &[RangeInclusive<i32>] = &[320..=323];
/// `lc_context_config_validate`.
pub const CONTEXT_CODES: &[RangeInclusive<i32>] = &[340..=347, 301..=308, 321..=323];
/// `lc_context_limits_resolve`.
pub const RESOLVE_CODES: &[RangeInclusive<i32>] = &[360..=360];
/// `lc_occupancy_basis_points`.
pub const OCCUPANCY_CODES: &[RangeInclusive<i32>] = &[361..=361];
/// `lc_replacement_check`.
pub const REPLACEMENT_CODES: &[RangeInclusive<i32>] = &[250..=250];
/// `lc_request_fingerprint` (408 is never returned for a JSON document, R10.2).
pub const FINGERPRINT_CODES: &[RangeInclusive<i32>] = &[400..=407];

/// `lc_compaction_reply_validate` (SPEC §15; 4 for a `stop` or flag that is not one).
pub const REPLY_CODES: &[RangeInclusive<i32>] = &[4..=4, 200..=200, 203..=209, 600..=601];
/// `lc_compaction_input_encode_head_within` (2 is handled by the wrapper).
pub const HEAD_CODES: &[RangeInclusive<i32>] = &[4..=4, 110..=110, 610..=610];
/// `lc_replacement_build` (2 is handled by the wrapper).
pub const BUILD_CODES: &[RangeInclusive<i32>] = &[4..=4, 500..=503, 510..=510, 610..=611];
/// `lc_replacement_verify`.
pub const VERIFY_CODES: &[RangeInclusive<i32>] = &[4..=4, 500..=503, 510..=510, 610..=611, 620..=623];

/// Whether `code` is in one of the ranges of `set`.
#[must_use]
pub fn in_set(code: i32, set: &[RangeInclusive<i32>]) -> bool {
    set.iter().any(|r| r.contains(&code))
}

/// Asserts that `code` is `LC_OK` or in one of `allowed`.
#[track_caller]
pub fn check_status(function: &str, code: i32, allowed: &[RangeInclusive<i32>]) {
    assert!(code == LC_OK || in_set(code, allowed), "{function} returned {code} ({}), not in its A3.9 set", name(code));
}

/// A string of the meta functions (SPEC §2), checked: non-NULL, static (a second call returns the
/// same pointer), UTF-8.
#[track_caller]
pub fn c_string(get: extern "C" fn(i32) -> *const c_char, code: i32) -> &'static str {
    let p = get(code);
    assert!(!p.is_null(), "NULL string for code {code}");
    assert_eq!(p, get(code), "code {code}: a second call returned a different pointer (not static)");
    // SAFETY: the C ABI returns static NUL-terminated strings (checked non-NULL above).
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or_else(|e| panic!("code {code}: not UTF-8: {e}"))
}

/// `lc_status_name`: for failure messages (static, never input bytes).
#[must_use]
pub fn name(code: i32) -> &'static str {
    c_string(ffi::lc_status_name, code)
}

/// `lc_status_reason`.
#[must_use]
pub fn reason(code: i32) -> &'static str {
    c_string(ffi::lc_status_reason, code)
}

/// `lc_status_message`.
#[must_use]
pub fn message(code: i32) -> &'static str {
    c_string(ffi::lc_status_message, code)
}

/// `"ok"` for 0, else the reason string: the form of the vectors' `expect` field.
#[must_use]
pub fn verdict(code: i32) -> String {
    if code == LC_OK { "ok".to_owned() } else { reason(code).to_owned() }
}
