//! C13.2: the caller sets `struct_size`; the library writes only the fields that lie entirely
//! within `struct_size` bytes and never writes `struct_size` itself; `diag` may be NULL (C13.4).
//! Each case fills the caller's memory with 0xA5 first and checks every byte after the call.

use loopcompact::ffi::{self, lc_diagnostic};
use testkit::abi::{Input, in_ptr};
use testkit::diagnostic::field;
use testkit::spec::{FINGERPRINT_EXAMPLE, POLICY};

use super::support::*;
use super::wire::{INPUT, reply};

/// A `_diagnose` call on a fixed input, taking the caller's diagnostic.
type Call = Box<dyn Fn(*mut lc_diagnostic) -> i32>;

/// The seven `_diagnose` functions, each on an input that fails.
fn calls() -> Vec<(&'static str, Call)> {
    let xml = b"<conversation_summary><goal>x</goal><state>y</state></conversation_summary>".to_vec();
    let wire = INPUT.replace("\"revision\": 7", "\"revision\": \"7\"").into_bytes();
    let handle = Input::parse(INPUT.as_bytes()).unwrap();
    let bad_reply = reply("<summary/>").into_bytes();
    let policy = POLICY.replace("\"RearmBelow\":6000", "\"RearmBelow\":0").into_bytes();
    let observation = b"{\"ReservedOutput\":1,\"SafetyMargin\":0,\"CountTimeout\":0}".to_vec();
    let config = b"{\"Compaction\":null}".to_vec();
    let fingerprint = FINGERPRINT_EXAMPLE.replace("\"Name\":\"m\"", "\"Name\":\"\"").into_bytes();
    // SAFETY (each): live buffers (or NULL with length 0) and the caller's diagnostic.
    vec![
        (
            "lc_summary_xml_diagnose",
            Box::new(move |d| unsafe { ffi::lc_summary_xml_diagnose(in_ptr(&xml), xml.len(), d) }),
        ),
        (
            "lc_compaction_input_diagnose",
            Box::new(move |d| unsafe { ffi::lc_compaction_input_diagnose(wire.as_ptr(), wire.len(), d) }),
        ),
        (
            "lc_compaction_output_diagnose",
            Box::new(move |d| {
                let mut buf = vec![0u8; bad_reply.len()];
                let mut len = 0;
                unsafe {
                    ffi::lc_compaction_output_diagnose(
                        handle.as_ptr(),
                        bad_reply.as_ptr(),
                        bad_reply.len(),
                        100,
                        u64::MAX,
                        buf.as_mut_ptr(),
                        buf.len(),
                        &raw mut len,
                        d,
                    )
                }
            }),
        ),
        (
            "lc_compaction_policy_diagnose",
            Box::new(move |d| unsafe { ffi::lc_compaction_policy_diagnose(policy.as_ptr(), policy.len(), 2, d) }),
        ),
        (
            "lc_context_observation_diagnose",
            Box::new(move |d| unsafe {
                ffi::lc_context_observation_diagnose(observation.as_ptr(), observation.len(), 2, d)
            }),
        ),
        (
            "lc_context_config_diagnose",
            Box::new(move |d| unsafe { ffi::lc_context_config_diagnose(config.as_ptr(), config.len(), d) }),
        ),
        (
            "lc_request_fingerprint_diagnose",
            Box::new(move |d| {
                let mut out = [0u8; 32];
                unsafe {
                    ffi::lc_request_fingerprint_diagnose(fingerprint.as_ptr(), fingerprint.len(), out.as_mut_ptr(), d)
                }
            }),
        ),
    ]
}

/// Every field with its offset and size, in order.
const FIELDS: [(&str, usize, usize); 14] = [
    ("status", field::STATUS, 4),
    ("status_class", field::STATUS_CLASS, 4),
    ("section", field::SECTION, 4),
    ("offset", field::OFFSET, 8),
    ("line", field::LINE, 8),
    ("column", field::COLUMN, 8),
    ("limit", field::LIMIT, 8),
    ("actual", field::ACTUAL, 8),
    ("rule", field::RULE, 8),
    ("expected", field::EXPECTED, 8),
    ("location", field::LOCATION, LOCATION_CAP),
    ("removed", field::REMOVED, 4),
    ("removed_before", field::REMOVED_BEFORE, 8),
    ("removed_after", field::REMOVED_AFTER, 8),
];

/// Calls with `struct_size` = `size` and checks, against a call with the full struct: the fields
/// entirely within `size` hold the full call's bytes, every other byte is still 0xA5, and
/// `struct_size` is unchanged.
fn check_size(name: &str, call: &dyn Fn(*mut lc_diagnostic) -> i32, size: usize) {
    let mut full = DiagBuf::new(DIAG_SIZE);
    let want_rc = call(full.as_mut_ptr());
    let mut part = DiagBuf::new(size);
    let rc = call(part.as_mut_ptr());
    assert_eq!(rc, want_rc, "{name}: struct_size {size} changed the status");
    assert_ne!(rc, 0, "{name}: the input must fail");
    assert_eq!(part.struct_size(), size, "{name}: struct_size was written");
    let mut written = vec![false; part.0.len()];
    written[..std::mem::size_of::<usize>()].iter_mut().for_each(|w| *w = true);
    for (field, at, len) in FIELDS {
        if at + len <= size {
            assert_eq!(part.field(at, len), full.field(at, len), "{name}: struct_size {size}: {field} differs");
            written[at..at + len].iter_mut().for_each(|w| *w = true);
        }
    }
    for (i, (&byte, &w)) in part.0.iter().zip(&written).enumerate() {
        if !w {
            assert_eq!(byte, UNTOUCHED, "{name}: struct_size {size}: byte {i} (outside every field within it) written");
        }
    }
}

#[test]
fn only_fields_within_struct_size_are_written() {
    let sizes = [
        0,
        4,
        std::mem::size_of::<usize>(),
        field::STATUS + 4,
        field::STATUS + 3,
        field::SECTION + 4,
        // Only up to `offset`: line, column and the rest stay as they were.
        field::OFFSET + 8,
        // `offset` only partly within: not written.
        field::OFFSET + 4,
        field::RULE + 8,
        field::LOCATION + 10,
        DIAG_SIZE - 1,
        DIAG_SIZE,
        // A newer caller's larger struct: the library's fields, nothing after them.
        DIAG_SIZE + 64,
    ];
    for (name, call) in calls() {
        for size in sizes {
            check_size(name, &*call, size);
        }
    }
}

#[test]
fn struct_size_zero_writes_nothing() {
    for (name, call) in calls() {
        let mut buf = DiagBuf::new(0);
        let rc = call(buf.as_mut_ptr());
        assert_ne!(rc, 0);
        assert!(buf.0[..8].iter().all(|&b| b == 0), "{name}: struct_size written");
        assert!(buf.0[8..].iter().all(|&b| b == UNTOUCHED), "{name}: struct_size 0 wrote into the struct");
    }
}

#[test]
fn diag_null_is_fine() {
    for (name, call) in calls() {
        let rc = call(std::ptr::null_mut());
        let mut buf = DiagBuf::new(DIAG_SIZE);
        assert_eq!(rc, call(buf.as_mut_ptr()), "{name}: diag NULL changed the status");
        assert_ne!(rc, 0, "{name}");
    }
}

/// A diagnostic only up to `offset` still gives a retry message, without a line or column
/// (C13.5 reads the fields within `struct_size` only).
#[test]
fn retry_message_reads_within_struct_size() {
    let xml = b"<conversation_summary>\n<goal>x</goal>\n<state>y</state></conversation_summary>";
    let (rc, diag) = kit::summary_xml_diagnose(xml);
    assert_eq!((rc, diag.line), (status::LC_SUMMARY_XML_STRUCTURE, 3));
    let full = diag.retry_message();
    assert!(full.contains("line 3"), "{full}");
    let mut raw = diag.raw();
    raw.struct_size = field::OFFSET + 8;
    let short = kit::retry_message(&raw);
    assert!(!short.contains("line"), "line read beyond struct_size: {short}");
    assert!(!short.contains("X4.18"), "rule read beyond struct_size: {short}");
}

/// The constants of C13.2–C13.4 and C13.9 in the library equal the spec's values.
#[test]
fn constants_are_the_spec_values() {
    assert_eq!(
        (ffi::LC_OFFSET_UNKNOWN, ffi::LC_LIMIT_UNKNOWN, ffi::LC_LOCATION_CAP),
        (OFFSET_UNKNOWN, LIMIT_UNKNOWN, LOCATION_CAP)
    );
    assert_eq!(
        [ffi::LC_CLASS_OK, ffi::LC_CLASS_RETRY, ffi::LC_CLASS_DISCARD, ffi::LC_CLASS_HOST, ffi::LC_CLASS_BUG],
        [CLASS_OK, CLASS_RETRY, CLASS_DISCARD, CLASS_HOST, 4]
    );
    assert_eq!(
        [
            ffi::LC_SECTION_NONE,
            ffi::LC_SECTION_GOAL,
            ffi::LC_SECTION_CONSTRAINTS,
            ffi::LC_SECTION_DECISIONS,
            ffi::LC_SECTION_STATE,
            ffi::LC_SECTION_OPEN_ITEMS,
            ffi::LC_SECTION_ROOT
        ],
        [NONE, GOAL, CONSTRAINTS, DECISIONS, STATE, OPEN_ITEMS, ROOT]
    );
    assert_eq!(loopcompact::Status::InvalidArgument.code(), INVALID_ARGUMENT);
    // The first field is `struct_size`, a size_t (C13.2).
    assert_eq!(testkit::diagnostic::field::STATUS, std::mem::size_of::<usize>());
}
