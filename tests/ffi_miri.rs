//! The FFI contract (SPEC §1, A3.1–A3.6) with tiny inputs, small enough to run under Miri:
//! `cargo +nightly miri test --test ffi_miri` checks every `unsafe` block of `src/ffi/` on these
//! paths for undefined behaviour (out-of-bounds or misaligned access, use after free, double free,
//! leaks, data races between threads sharing a handle). The same tests run in the plain test suite.
//!
//! Covered: each export once with a small valid and a small invalid input, `(NULL, 0)` as the empty
//! buffer, `(NULL, n > 0)`, NULL out-pointers, lengths above `isize::MAX`, the two-call pattern (size
//! query, a buffer one byte short, the exact size) for both output buffers, out-parameters left alone
//! on failure, the handle lifecycle (parse, encode, output, free, `free(NULL)`), and a handle shared by
//! two threads.

use std::ffi::CStr;
use std::ptr;

use loopcompact::ffi::*;
// The test kit's checked wrappers run under Miri too (no file access, no foreign code): its handle
// is parsed, encoded with the whole two-call pattern (size query, a buffer one byte short, the
// exact size), shared by threads and freed here, so Miri checks those paths of `src/ffi/` as well.
use testkit::abi::Input;
use testkit::spec::{FINGERPRINT_EXAMPLE, FINGERPRINT_EXAMPLE_SHA256, OBSERVATION, POLICY, STUB};
use testkit::status::{
    LC_ERR_BUFFER_TOO_SMALL as BUFFER_TOO_SMALL, LC_ERR_LENGTH_OVERFLOW as LENGTH_OVERFLOW,
    LC_ERR_NULL_ARGUMENT as NULL_ARGUMENT,
};

/// A length above `isize::MAX`, with a non-NULL pointer that is never read (A3.1).
const TOO_LONG: usize = isize::MAX as usize + 1;

/// A canonical input (E7): its encoding without a limit is these bytes. The tool message is the one
/// candidate of F7.3.
const WIRE: &str = concat!(
    r#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"#,
    r#""model":{"provider":"provider","model":"model"},"#,
    r#""request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","#,
    r#""transcript":[{"role":"user","blocks":[{"type":"text","text":"hi"}]},"#,
    r#"{"role":"tool","blocks":[{"type":"text","text":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}],"#,
    r#""tool_use_id":"t1","is_error":false}],"max_summary_tokens":32}"#
);

const SUMMARY: &str = "<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>";

/// A reply to `WIRE` (same identity) holding `SUMMARY`.
const REPLY: &str = concat!(
    r#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"#,
    r#""model":{"provider":"provider","model":"model"},"#,
    r#""request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","#,
    r#""summary":"<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>"}"#
);

/// `WIRE` with the tool message stubbed (F7.3).
fn fitted() -> String {
    WIRE.replace(&"x".repeat(64), STUB)
}

const CONFIG_NONE: &str =
    r#"{"Compaction":null,"ContextObservation":null,"CounterCapability":null,"InferenceCapability":null}"#;

fn text(p: *const std::ffi::c_char) -> &'static str {
    assert!(!p.is_null());
    // SAFETY: the meta functions return static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}

#[test]
fn meta_functions() {
    assert_eq!(text(lc_version()), env!("CARGO_PKG_VERSION"));
    assert_eq!(lc_abi_version(), 0);
    assert_eq!(text(lc_status_name(0)), "LC_OK");
    assert_eq!(text(lc_status_reason(0)), "");
    assert_eq!(text(lc_status_name(208)), "LC_SUMMARY_XML_STRUCTURE");
    assert_eq!(text(lc_status_reason(208)), "xml_structure");
    assert!(!text(lc_status_message(208)).is_empty());
    for unknown in [-1, 98, i32::MIN, i32::MAX] {
        assert_eq!(text(lc_status_name(unknown)), "LC_UNKNOWN_STATUS");
        assert_eq!(text(lc_status_reason(unknown)), "");
        assert!(!text(lc_status_message(unknown)).is_empty());
    }
}

#[test]
fn summary_buffers() {
    let valid = SUMMARY.as_bytes();
    // SAFETY (all calls): live buffers, NULL only with length 0, or a length the function rejects
    // before reading (A3.1).
    unsafe {
        assert_eq!(lc_summary_xml_validate(valid.as_ptr(), valid.len()), 0);
        // (NULL, 0) and a non-NULL empty buffer are both the empty document: xml_root (X4.19).
        assert_eq!(lc_summary_xml_validate(ptr::null(), 0), 207);
        assert_eq!(lc_summary_xml_validate(valid.as_ptr(), 0), 207);
        assert_eq!(lc_summary_xml_validate(ptr::null(), 1), NULL_ARGUMENT);
        assert_eq!(lc_summary_xml_validate(valid.as_ptr(), TOO_LONG), LENGTH_OVERFLOW);
        assert_eq!(lc_summary_xml_validate(b"<a/>".as_ptr(), 4), 207);
        // Only the first `len` bytes are read: a prefix of a valid summary is unclosed.
        assert_eq!(lc_summary_xml_validate(valid.as_ptr(), valid.len() - 1), 206);
    }
}

#[test]
fn input_parse_and_validate_boundaries() {
    let wire = WIRE.as_bytes();
    let sentinel = ptr::NonNull::<lc_compaction_input>::dangling().as_ptr();
    let mut out = sentinel;
    // SAFETY (all calls): live buffers and out-pointers, or arguments rejected before use.
    unsafe {
        assert_eq!(lc_compaction_input_validate(wire.as_ptr(), wire.len()), 0);
        assert_eq!(lc_compaction_input_validate(ptr::null(), 0), 100);
        assert_eq!(lc_compaction_input_validate(ptr::null(), 3), NULL_ARGUMENT);
        assert_eq!(lc_compaction_input_validate(wire.as_ptr(), TOO_LONG), LENGTH_OVERFLOW);
        assert_eq!(lc_compaction_input_parse(wire.as_ptr(), wire.len(), ptr::null_mut()), NULL_ARGUMENT);
        assert_eq!(lc_compaction_input_parse(ptr::null(), 0, &mut out), 100);
        assert_eq!(lc_compaction_input_parse(ptr::null(), 3, &mut out), NULL_ARGUMENT);
        assert_eq!(lc_compaction_input_parse(wire.as_ptr(), TOO_LONG, &mut out), LENGTH_OVERFLOW);
        // A truncated document: the wire is cut inside the transcript (J5.1 → wire).
        assert_eq!(lc_compaction_input_parse(wire.as_ptr(), wire.len() / 2, &mut out), 100);
        assert!(out == sentinel, "*out written on failure");
        lc_compaction_input_free(ptr::null_mut());
    }
}

#[test]
fn handle_lifecycle_encode() {
    let handle = Input::parse(WIRE.as_bytes()).unwrap();
    let full = handle.encode(u64::MAX).unwrap();
    assert_eq!(full, WIRE.as_bytes(), "a canonical input encodes to itself");
    let fitted = fitted();
    assert_eq!(handle.encode(full.len() as u64).unwrap(), full, "F7.2");
    assert_eq!(handle.encode(fitted.len() as u64).unwrap(), fitted.as_bytes(), "F7.3");
    assert_eq!(handle.encode(fitted.len() as u64 - 1), Err(110), "F7.4");
    assert_eq!(handle.encode(0), Err(110), "F7.2: limit 0");
    assert_eq!(handle.encode(u64::MAX).unwrap(), full, "the handle never changes (A3.6)");

    let mut len = usize::MAX;
    let mut buf = [0u8; 4];
    // SAFETY (all calls): NULL arguments rejected before use, or live buffers.
    unsafe {
        assert_eq!(
            lc_compaction_input_encode_within(ptr::null(), u64::MAX, buf.as_mut_ptr(), 4, &mut len),
            NULL_ARGUMENT
        );
        assert_eq!(
            lc_compaction_input_encode_within(handle.as_ptr(), u64::MAX, buf.as_mut_ptr(), 4, ptr::null_mut()),
            NULL_ARGUMENT
        );
        // A3.2: NULL with a capacity above 0.
        assert_eq!(
            lc_compaction_input_encode_within(handle.as_ptr(), u64::MAX, ptr::null_mut(), 4, &mut len),
            NULL_ARGUMENT
        );
        assert_eq!(len, usize::MAX);
        // A3.2: any capacity is accepted, it is only compared with the length needed.
        let mut big = vec![0u8; full.len()];
        assert_eq!(
            lc_compaction_input_encode_within(handle.as_ptr(), u64::MAX, big.as_mut_ptr(), usize::MAX, &mut len),
            0
        );
        assert_eq!((len, &big[..]), (full.len(), &full[..]));
    }
}

#[test]
fn handle_lifecycle_output() {
    let handle = Input::parse(WIRE.as_bytes()).unwrap();
    let reply = REPLY.as_bytes();
    let n = reply.len() as u64;
    assert_eq!(handle.output(reply, 32, n).unwrap(), SUMMARY.as_bytes());
    assert_eq!(handle.output(reply, 32, n - 1), Err(203), "O6.2 step 1");
    assert_eq!(handle.output(reply, 0, n), Err(204), "O6.2 step 2");
    assert_eq!(handle.output(reply, 33, n), Err(205), "O6.2 step 3");
    assert_eq!(handle.output(&reply[..reply.len() - 1], 32, n), Err(200), "O6.2 step 4");
    let other = REPLY.replace(r#""revision":3"#, r#""revision":4"#);
    assert_eq!(handle.output(other.as_bytes(), 32, n), Err(201), "O6.2 step 8");

    let mut buf = vec![0u8; reply.len()];
    let mut len = usize::MAX;
    // SAFETY (all calls): NULL arguments rejected before use, or live buffers.
    unsafe {
        // (NULL, 0) is the empty reply: not JSON (O6.2 step 4).
        assert_eq!(
            lc_compaction_output_validate(handle.as_ptr(), ptr::null(), 0, 32, n, buf.as_mut_ptr(), 8, &mut len),
            200
        );
        assert_eq!(
            lc_compaction_output_validate(
                ptr::null(),
                reply.as_ptr(),
                reply.len(),
                32,
                n,
                buf.as_mut_ptr(),
                8,
                &mut len
            ),
            NULL_ARGUMENT
        );
        assert_eq!(
            lc_compaction_output_validate(handle.as_ptr(), ptr::null(), 5, 32, n, buf.as_mut_ptr(), 8, &mut len),
            NULL_ARGUMENT
        );
        assert_eq!(
            lc_compaction_output_validate(
                handle.as_ptr(),
                reply.as_ptr(),
                reply.len(),
                32,
                n,
                ptr::null_mut(),
                8,
                &mut len
            ),
            NULL_ARGUMENT
        );
        assert_eq!(
            lc_compaction_output_validate(
                handle.as_ptr(),
                reply.as_ptr(),
                reply.len(),
                32,
                n,
                buf.as_mut_ptr(),
                8,
                ptr::null_mut()
            ),
            NULL_ARGUMENT
        );
        assert_eq!(
            lc_compaction_output_validate(
                handle.as_ptr(),
                reply.as_ptr(),
                TOO_LONG,
                32,
                n,
                buf.as_mut_ptr(),
                8,
                &mut len
            ),
            LENGTH_OVERFLOW
        );
        assert_eq!(len, usize::MAX, "*summary_len written on a boundary error");
        // A3.1: the content is checked before the buffer: a too-small buffer with an invalid reply
        // gives the content's status.
        assert_eq!(
            lc_compaction_output_validate(
                handle.as_ptr(),
                reply.as_ptr(),
                reply.len(),
                0,
                n,
                ptr::null_mut(),
                0,
                &mut len
            ),
            204
        );
        assert_eq!(
            lc_compaction_output_validate(
                handle.as_ptr(),
                reply.as_ptr(),
                reply.len(),
                32,
                n,
                ptr::null_mut(),
                0,
                &mut len
            ),
            BUFFER_TOO_SMALL
        );
        assert_eq!(len, SUMMARY.len());
    }
}

#[test]
fn handle_shared_by_two_threads() {
    let handle = Input::parse(WIRE.as_bytes()).unwrap();
    let fitted = fitted();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|i| {
                let (handle, fitted) = (&handle, &fitted);
                scope.spawn(move || {
                    let limit = if i == 0 { u64::MAX } else { fitted.len() as u64 };
                    let bytes = handle.encode(limit).unwrap();
                    let summary = handle.output(REPLY.as_bytes(), 32, u64::MAX).unwrap();
                    (bytes, summary)
                })
            })
            .collect();
        let results: Vec<_> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        assert_eq!(results[0].0, WIRE.as_bytes());
        assert_eq!(results[1].0, fitted.as_bytes());
        assert!(results.iter().all(|r| r.1 == SUMMARY.as_bytes()));
    });
}

#[test]
fn policies_and_config() {
    let (policy, observation, config) = (POLICY.as_bytes(), OBSERVATION.as_bytes(), CONFIG_NONE.as_bytes());
    // SAFETY (all calls): live buffers, or NULL with the lengths the functions reject or accept.
    unsafe {
        assert_eq!(lc_compaction_policy_validate(policy.as_ptr(), policy.len(), 2), 0);
        // P8.4: AllowConservative accepts no unknown quality; 259 is not 3 (A3.5).
        assert_eq!(lc_compaction_policy_validate(policy.as_ptr(), policy.len(), 259), 301);
        assert_eq!(lc_compaction_policy_validate(ptr::null(), 0, 2), 300);
        assert_eq!(lc_compaction_policy_validate(ptr::null(), 1, 2), NULL_ARGUMENT);
        assert_eq!(lc_compaction_policy_validate(policy.as_ptr(), TOO_LONG, 2), LENGTH_OVERFLOW);

        assert_eq!(lc_context_observation_validate(observation.as_ptr(), observation.len(), 1), 0);
        assert_eq!(lc_context_observation_validate(observation.as_ptr(), observation.len() - 1, 1), 320);
        assert_eq!(lc_context_observation_validate(ptr::null(), 0, 1), 320);
        assert_eq!(lc_context_observation_validate(ptr::null(), 1, 1), NULL_ARGUMENT);
        assert_eq!(lc_context_observation_validate(observation.as_ptr(), TOO_LONG, 1), LENGTH_OVERFLOW);

        assert_eq!(lc_context_config_validate(config.as_ptr(), config.len()), 0);
        assert_eq!(lc_context_config_validate(policy.as_ptr(), policy.len()), 340);
        assert_eq!(lc_context_config_validate(ptr::null(), 0), 340);
        assert_eq!(lc_context_config_validate(ptr::null(), 1), NULL_ARGUMENT);
        assert_eq!(lc_context_config_validate(config.as_ptr(), TOO_LONG), LENGTH_OVERFLOW);
    }
}

#[test]
fn limits_and_levels() {
    let limits = lc_context_limits { window_tokens: 1000, max_input_tokens: 0, max_output_tokens: 100 };
    let sentinel = lc_resolved_limits { reserved_output: 1, raw_input_limit: 2, input_limit: 3 };
    let mut out = sentinel;
    let mut occupancy = 0xA5A5u16;
    // SAFETY (all calls): writable out-pointers, or NULL ones the functions reject.
    unsafe {
        assert_eq!(lc_context_limits_resolve(limits, 200, 50, &mut out), 0);
        assert_eq!(out, lc_resolved_limits { reserved_output: 100, raw_input_limit: 900, input_limit: 850 });
        out = sentinel;
        assert_eq!(lc_context_limits_resolve(limits, 200, 900, &mut out), 360);
        assert_eq!(out, sentinel);
        assert_eq!(lc_context_limits_resolve(limits, 200, 50, ptr::null_mut()), NULL_ARGUMENT);

        assert_eq!(lc_occupancy_basis_points(1, 3, &mut occupancy), 0);
        assert_eq!(occupancy, 3333);
        assert_eq!(lc_occupancy_basis_points(u64::MAX - 1, u64::MAX, &mut occupancy), 0);
        assert_eq!(occupancy, 9999);
        occupancy = 0xA5A5;
        assert_eq!(lc_occupancy_basis_points(1, 0, &mut occupancy), 361);
        assert_eq!(occupancy, 0xA5A5);
        assert_eq!(lc_occupancy_basis_points(1, 3, ptr::null_mut()), NULL_ARGUMENT);
    }
    assert_eq!(lc_pressure_level(1, 7999, true, 8000, 6000), 1);
    assert_eq!(lc_pressure_level(2, 6000, true, 8000, 6000), 2);
    assert_eq!(lc_pressure_level(2, 5999, true, 8000, 6000), 1);
    assert_eq!(lc_pressure_level(-7, 10000, false, 8000, 6000), 3);
    assert_eq!(lc_replacement_check(99, 100), 0);
    assert_eq!(lc_replacement_check(100, 100), 250);
    assert_eq!(lc_replacement_check(0, 0), 250);
}

#[test]
fn fingerprint_buffers() {
    let doc = FINGERPRINT_EXAMPLE.as_bytes();
    let mut out = [0xA5u8; LC_FINGERPRINT_LEN];
    // SAFETY (all calls): live buffers and 32 writable bytes, or arguments rejected before use.
    unsafe {
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), doc.len(), out.as_mut_ptr()), 0);
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, FINGERPRINT_EXAMPLE_SHA256);
        let mut untouched = [0xA5u8; LC_FINGERPRINT_LEN];
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), doc.len() - 1, untouched.as_mut_ptr()), 400);
        assert_eq!(lc_request_fingerprint(ptr::null(), 0, untouched.as_mut_ptr()), 400);
        assert_eq!(lc_request_fingerprint(ptr::null(), 1, untouched.as_mut_ptr()), NULL_ARGUMENT);
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), TOO_LONG, untouched.as_mut_ptr()), LENGTH_OVERFLOW);
        assert_eq!(lc_request_fingerprint(doc.as_ptr(), doc.len(), ptr::null_mut()), NULL_ARGUMENT);
        assert_eq!(untouched, [0xA5u8; LC_FINGERPRINT_LEN], "out written on failure");
    }
}

/// The panic guard (SPEC §1, A3.4): the unwinding path through `catch_unwind`, checked by Miri too.
/// The hook exists only in debug builds.
#[cfg(debug_assertions)]
#[test]
fn panic_guard() {
    assert_eq!(lc_debug_panic(0), 99);
    assert_eq!(lc_debug_panic(1), 0);
}
