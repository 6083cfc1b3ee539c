//! The boundary contract of the C ABI (SPEC §1, §2 meta functions, §3, A3.1–A3.3), called through the
//! `extern "C"` functions of the rlib. The status table is checked against a literal copy of SPEC §3
//! written by hand (`testkit::status::SPEC_STATUS_TABLE`): the spec, not the implementation, is the
//! oracle.

use std::collections::BTreeSet;
use std::ffi::CStr;
use std::ptr;

use loopcompact::Status;
use loopcompact::ffi::{lc_abi_version, lc_summary_xml_validate, lc_version};
use testkit::status::{
    LC_ERR_LENGTH_OVERFLOW, LC_ERR_NULL_ARGUMENT, LC_OK, LC_SUMMARY_XML_ROOT, LC_SUMMARY_XML_SYNTAX,
    PROJECT_STATUS_TABLE, SPEC_STATUS_TABLE, SUMMARY_CODES, in_set, message, name, reason, spec_class,
};

/// The codes whose reason is `""` (SPEC §2: LC_OK and the boundary errors).
const EMPTY_REASON: &[i32] = &[0, 1, 2, 3, 4, 99];

/// Values next to, between and far from the table's values, none of them in SPEC §3 (101 and 209
/// are in the table, their neighbours 98, 106, 210 are not).
const UNKNOWN_CODES: &[i32] =
    &[-1, -99, 5, 6, 98, 106, 109, 111, 199, 210, 249, 251, 309, 324, 348, 362, 409, 999, 1000, i32::MIN, i32::MAX];

/// `lc_summary_xml_validate` on a slice: a pointer to the bytes, also when there are none (a
/// non-NULL pointer to zero bytes, the empty buffer's other shape besides `(NULL, 0)`).
fn validate(bytes: &[u8]) -> i32 {
    // SAFETY: a live slice.
    unsafe { lc_summary_xml_validate(bytes.as_ptr(), bytes.len()) }
}

#[test]
fn version_is_the_crate_version() {
    let p = lc_version();
    assert!(!p.is_null());
    assert_eq!(p, lc_version(), "lc_version must return a static string");
    // SAFETY: static NUL-terminated string.
    let version = unsafe { CStr::from_ptr(p) }.to_str().unwrap();
    assert_eq!(version, "0.1.0");
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    assert_eq!(version, loopcompact::VERSION);
}

#[test]
fn abi_version_is_zero() {
    // SPEC: "C ABI version 0".
    assert_eq!(lc_abi_version(), 0);
    assert_eq!(lc_abi_version(), loopcompact::ABI_VERSION);
}

#[test]
fn status_table_is_spec_section_3() {
    let ours: Vec<(i32, &str, &str)> = Status::ALL.iter().map(|s| (s.code(), s.name(), s.reason())).collect();
    let mut spec: Vec<(i32, &str, &str)> = SPEC_STATUS_TABLE.iter().chain(PROJECT_STATUS_TABLE).copied().collect();
    spec.sort_by_key(|row| row.0);
    assert_eq!(ours, spec, "Status::ALL differs from SPEC §3 and §13 (values, names, reasons, order)");
    for &(value, spec_name, spec_reason) in SPEC_STATUS_TABLE {
        assert_eq!(name(value), spec_name, "lc_status_name({value})");
        assert_eq!(reason(value), spec_reason, "lc_status_reason({value})");
        assert_eq!(Status::from_code(value).map(Status::name), Some(spec_name));
    }
}

#[test]
fn every_status_has_static_strings_from_the_table() {
    let mut names = BTreeSet::new();
    for &status in Status::ALL {
        let code = status.code();
        assert_eq!(name(code), status.name(), "name of {code}");
        assert_eq!(reason(code), status.reason(), "reason of {code}");
        assert_eq!(message(code), status.message(), "message of {code}");
        assert!(names.insert(name(code)), "duplicate name {}", name(code));
        assert_eq!(reason(code).is_empty(), EMPTY_REASON.contains(&code), "code {code}: reason {:?}", reason(code));
        assert!(!message(code).is_empty(), "code {code} has an empty message");
    }
    assert_eq!(Status::ALL.len(), SPEC_STATUS_TABLE.len() + PROJECT_STATUS_TABLE.len());
}

#[test]
fn unknown_codes_get_the_unknown_strings() {
    let unknown_message = message(i32::MAX);
    assert!(!unknown_message.is_empty());
    assert_eq!(unknown_message, loopcompact::status::UNKNOWN_STATUS_MESSAGE);
    let known: BTreeSet<i32> = SPEC_STATUS_TABLE.iter().chain(PROJECT_STATUS_TABLE).map(|row| row.0).collect();
    let sweep = (-10..=1000).filter(|code| !known.contains(code));
    for code in UNKNOWN_CODES.iter().copied().chain(sweep) {
        assert!(!known.contains(&code), "{code} is in SPEC §3; fix UNKNOWN_CODES");
        assert_eq!(name(code), "LC_UNKNOWN_STATUS", "name of unknown code {code}");
        assert_eq!(reason(code), "", "reason of unknown code {code}");
        assert_eq!(message(code), unknown_message, "message of unknown code {code}");
        assert!(Status::from_code(code).is_none());
    }
    // Known codes next to the unknown ones really are known.
    assert_eq!(name(101), "LC_INPUT_BASIS");
    assert_eq!(name(209), "LC_SUMMARY_XML_CONTENT");
}

#[test]
fn null_zero_is_the_empty_buffer() {
    // SAFETY: (NULL, 0) is the documented empty buffer.
    let null_empty = unsafe { lc_summary_xml_validate(ptr::null(), 0) };
    let empty: [u8; 0] = [];
    assert_eq!(null_empty, validate(&empty));
    // X4.19 / X4.20: the empty document is xml_root.
    assert_eq!(null_empty, LC_SUMMARY_XML_ROOT, "empty document: got {}", name(null_empty));
}

#[test]
fn null_with_a_length_is_null_argument() {
    for len in [1, 5, isize::MAX as usize, isize::MAX as usize + 1, usize::MAX] {
        // SAFETY: the pointer is NULL, which the function checks before anything else (A3.1).
        let rc = unsafe { lc_summary_xml_validate(ptr::null(), len) };
        assert_eq!(rc, LC_ERR_NULL_ARGUMENT, "(NULL, {len})");
    }
}

#[test]
fn length_above_isize_max_is_length_overflow() {
    let byte = [b'<'];
    for len in [isize::MAX as usize + 1, usize::MAX - 1, usize::MAX] {
        // SAFETY: the pointer is valid for one byte only; a length above isize::MAX is rejected before
        // the pointer is read (A3.1, STYLE rule 3), which is what this test checks.
        let rc = unsafe { lc_summary_xml_validate(byte.as_ptr(), len) };
        assert_eq!(rc, LC_ERR_LENGTH_OVERFLOW, "len {len}");
    }
}

#[test]
fn invalid_utf8_gets_a_status() {
    // X4.8: a stray byte in a section's text is xml_syntax.
    let stray = b"<conversation_summary><goal>a\xffb</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";
    assert_eq!(validate(stray), LC_SUMMARY_XML_SYNTAX, "got {}", name(validate(stray)));
    // Arbitrary byte soup is rejected with one of the summary codes, never accepted, never a panic.
    let all_bytes: Vec<u8> = (0..=255).collect();
    let inputs: [&[u8]; 7] = [
        &all_bytes,
        b"\xff",
        b"\xc0\xaf",
        b"\xed\xa0\x80",
        b"<\xff>",
        b"<conversation_summary\xff/>",
        b"\xef\xbb\xbf<conversation_summary/>",
    ];
    for input in inputs {
        let rc = validate(input);
        assert!(in_set(rc, SUMMARY_CODES), "{input:?}: got {rc} {}", name(rc));
    }
}

#[test]
fn no_status_string_echoes_input() {
    const MARKER: &str = "ECHO-MARKER-Qz7";
    let inputs = [
        format!("<{MARKER}/>"),
        format!("<conversation_summary><goal>{MARKER}</goal></conversation_summary>"),
        format!("<conversation_summary><goal>&{MARKER};</goal>"),
        format!(
            "<conversation_summary><goal>{MARKER}</goal><constraints/><decisions/><state>{MARKER}</state><open_items/></conversation_summary>"
        ),
        MARKER.to_owned(),
    ];
    let mut codes: Vec<i32> = Status::ALL.iter().map(|s| s.code()).collect();
    codes.extend_from_slice(UNKNOWN_CODES);
    for input in &inputs {
        let rc = validate(input.as_bytes());
        for code in codes.iter().copied().chain([rc]) {
            for text in [name(code), reason(code), message(code)] {
                assert!(!text.contains(MARKER), "code {code} echoes the input: {text:?}");
            }
        }
    }
}

#[test]
fn calls_from_many_threads_agree() {
    let valid = b"<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";
    let expected: Vec<(i32, &str, &str, &str)> =
        SPEC_STATUS_TABLE.iter().map(|&(v, _, _)| (v, name(v), reason(v), message(v))).collect();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..50 {
                    assert_eq!(validate(valid), LC_OK);
                    for &(v, n, r, m) in &expected {
                        assert_eq!((name(v), reason(v), message(v)), (n, r, m));
                    }
                }
            });
        }
    });
}

/// The panic guard (SPEC §1): a panic inside an export becomes LC_ERR_PANIC, or the neutral value 0
/// for exports that return no status. The hook exists only in debug builds.
#[cfg(debug_assertions)]
#[test]
fn panic_guard_turns_panics_into_statuses() {
    assert_eq!(loopcompact::ffi::lc_debug_panic(0), 99);
    assert_eq!(name(99), "LC_ERR_PANIC");
    assert_eq!(loopcompact::ffi::lc_debug_panic(1), 0);
}

/// README.md's status table: every `| value | NAME | "reason" |` row matches Status::ALL, and every
/// status has a row.
#[test]
fn readme_status_table_matches() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut rows = Vec::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        let [value, cname, reason_cell] = cells.as_slice() else {
            continue;
        };
        let Ok(value) = value.parse::<i32>() else {
            continue;
        };
        if !cname.starts_with("LC_") {
            continue;
        }
        let reason = reason_cell
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .unwrap_or_else(|| panic!("README row {value}: reason {reason_cell} is not in double quotes"));
        rows.push((value, cname.to_string(), reason.to_owned()));
    }
    let table: Vec<(i32, String, String)> =
        Status::ALL.iter().map(|s| (s.code(), s.name().to_owned(), s.reason().to_owned())).collect();
    assert_eq!(rows, table, "README.md's status table differs from Status::ALL");
}

/// docs/SPEC.md C13.3: every code's class, through `lc_status_class`, and unknown values are HOST.
#[test]
fn status_classes_are_spec_section_13() {
    for &status in Status::ALL {
        let code = status.code();
        assert_eq!(loopcompact::ffi::lc_status_class(code), spec_class(code), "class of {}", status.name());
        assert_eq!(status.class().code(), spec_class(code));
    }
    for code in UNKNOWN_CODES {
        assert_eq!(loopcompact::ffi::lc_status_class(*code), 3, "class of unknown {code}");
    }
}
