//! Shared by the fuzz targets: wrappers over the C entry points (`loopcompact::ffi`) that check the
//! boundary conventions of SPEC §1, A3.1 and A3.2 on every call (out-parameters written only on
//! success, the two-call pattern, nothing written on `LC_ERR_BUFFER_TOO_SMALL`), the status sets of
//! A3.9, and a reader for the framing of the fuzz inputs (described in `fuzz/README.md`).
//!
//! The body of every target is a function here (`target_*`), so that `tests/fuzz_regressions.rs`
//! (which includes this file as a module) replays the inputs under `fuzz/seeds/<target>/` with the
//! very same invariants in `cargo test`.
//!
//! A failed invariant panics; libFuzzer reports the panic as a crash and saves the input. A panic
//! inside the library is caught by its guard and returned as `LC_ERR_PANIC` (99), which no status
//! set below admits, so it is reported too.
#![allow(dead_code)]

use std::ffi::CStr;
use std::ops::RangeInclusive;
use std::ptr::{self, NonNull};

use loopcompact::ffi;
use loopcompact::ffi::{
    lc_context_limits, lc_context_limits_resolve, lc_occupancy_basis_points, lc_pressure_level, lc_replacement_check,
    lc_resolved_limits,
};
use loopcompact::fingerprint::RequestFingerprint;
use loopcompact::wire::CompactionInput;

/// LC_ERR_BUFFER_TOO_SMALL.
pub const BUFFER_TOO_SMALL: i32 = 2;
/// LC_INPUT_TOO_LARGE.
pub const INPUT_TOO_LARGE: i32 = 110;

/// A3.9: the content codes of each function (the boundary codes 1, 3 and 99 cannot occur with the
/// valid pointers the targets pass, and are failures here).
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
/// `lc_request_fingerprint` (408 is never returned for a JSON document, R10.2).
pub const FINGERPRINT_CODES: &[RangeInclusive<i32>] = &[400..=407];

/// The status name, for failure messages (static, never input bytes).
#[must_use]
pub fn name(code: i32) -> String {
    // SAFETY: lc_status_name returns a static NUL-terminated string for every value.
    unsafe { CStr::from_ptr(ffi::lc_status_name(code)) }.to_string_lossy().into_owned()
}

/// Asserts that `code` is `LC_OK` or in one of `allowed`.
pub fn check_status(function: &str, code: i32, allowed: &[RangeInclusive<i32>]) {
    assert!(
        code == 0 || allowed.iter().any(|r| r.contains(&code)),
        "{function} returned {code} ({}), not in its A3.9 set",
        name(code)
    );
}

/// `(NULL, 0)` for an empty buffer (SPEC §1: the empty buffer, as Go and ctypes pass it).
fn in_ptr(data: &[u8]) -> *const u8 {
    if data.is_empty() { ptr::null() } else { data.as_ptr() }
}

/// Whitespace that J5.1 allows around a JSON document: wrapping a document in it changes nothing.
#[must_use]
pub fn padded(json: &[u8]) -> Vec<u8> {
    [b" \n\t\r".as_slice(), json, b"\r\n \t".as_slice()].concat()
}

/// `lc_summary_xml_validate`.
#[must_use]
pub fn summary_xml(xml: &[u8]) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_summary_xml_validate(in_ptr(xml), xml.len()) }
}

/// `lc_compaction_input_validate`.
#[must_use]
pub fn input_validate(wire: &[u8]) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_compaction_input_validate(in_ptr(wire), wire.len()) }
}

/// `lc_compaction_policy_validate`.
#[must_use]
pub fn compaction_policy(json: &[u8], quality: i32) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_compaction_policy_validate(in_ptr(json), json.len(), quality) }
}

/// `lc_context_observation_validate`.
#[must_use]
pub fn context_observation(json: &[u8], quality: i32) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_context_observation_validate(in_ptr(json), json.len(), quality) }
}

/// `lc_context_config_validate`.
#[must_use]
pub fn context_config(json: &[u8]) -> i32 {
    // SAFETY: a live buffer (or NULL with length 0).
    unsafe { ffi::lc_context_config_validate(in_ptr(json), json.len()) }
}

/// `lc_request_fingerprint`: the digest, or the status. Checks that `out` is untouched on failure.
pub fn request_fingerprint(json: &[u8]) -> Result<[u8; 32], i32> {
    const SENTINEL: [u8; 32] = [0xA5; 32];
    let mut out = SENTINEL;
    // SAFETY: a live buffer (or NULL with length 0) and 32 writable bytes.
    let rc = unsafe { ffi::lc_request_fingerprint(in_ptr(json), json.len(), out.as_mut_ptr()) };
    if rc == 0 {
        Ok(out)
    } else {
        assert_eq!(out, SENTINEL, "lc_request_fingerprint wrote its output on {}", name(rc));
        Err(rc)
    }
}

/// An input handle from `lc_compaction_input_parse`, freed on drop.
pub struct Input(NonNull<ffi::lc_compaction_input>);

impl Input {
    /// `lc_compaction_input_parse`; checks that `*out` is untouched on failure.
    pub fn parse(wire: &[u8]) -> Result<Input, i32> {
        let sentinel = NonNull::<ffi::lc_compaction_input>::dangling().as_ptr();
        let mut out = sentinel;
        // SAFETY: a live buffer (or NULL with length 0) and a writable pointer.
        let rc = unsafe { ffi::lc_compaction_input_parse(in_ptr(wire), wire.len(), &raw mut out) };
        if rc == 0 {
            assert!(out != sentinel, "lc_compaction_input_parse returned LC_OK without a handle");
            Ok(Input(NonNull::new(out).expect("LC_OK with a NULL handle")))
        } else {
            assert!(out == sentinel, "lc_compaction_input_parse wrote *out on {}", name(rc));
            Err(rc)
        }
    }

    /// `lc_compaction_input_encode_within` with the two-call pattern, checking it (A3.2, A3.6):
    /// the size query, a buffer one byte short (nothing written), then the exact size.
    pub fn encode(&self, max_bytes: u64) -> Result<Vec<u8>, i32> {
        let mut len = usize::MAX;
        // SAFETY: a live handle; NULL with capacity 0 is the size query; `len` is writable.
        let rc = unsafe {
            ffi::lc_compaction_input_encode_within(self.0.as_ptr(), max_bytes, ptr::null_mut(), 0, &raw mut len)
        };
        match rc {
            BUFFER_TOO_SMALL => {}
            INPUT_TOO_LARGE => {
                assert_eq!(len, usize::MAX, "encode_within wrote *out_len on LC_INPUT_TOO_LARGE");
                return Err(rc);
            }
            // A successful result is never empty, so the size query never succeeds (A3.2).
            other => panic!("encode_within size query returned {other} ({})", name(other)),
        }
        assert!(len > 0 && len as u64 <= max_bytes, "encode_within: size {len} for limit {max_bytes}");
        let mut short = vec![0xA5u8; len - 1];
        let mut short_len = usize::MAX;
        // SAFETY: `short` is writable for its length.
        let rc = unsafe {
            ffi::lc_compaction_input_encode_within(
                self.0.as_ptr(),
                max_bytes,
                short.as_mut_ptr(),
                short.len(),
                &raw mut short_len,
            )
        };
        assert_eq!(rc, BUFFER_TOO_SMALL, "encode_within with a buffer one byte short: {}", name(rc));
        assert_eq!(short_len, len, "encode_within: the two-call pattern gave two lengths");
        assert!(short.iter().all(|&b| b == 0xA5), "encode_within wrote into a too-small buffer");
        let mut buf = vec![0u8; len];
        let mut written = usize::MAX;
        // SAFETY: `buf` is writable for its length.
        let rc = unsafe {
            ffi::lc_compaction_input_encode_within(
                self.0.as_ptr(),
                max_bytes,
                buf.as_mut_ptr(),
                buf.len(),
                &raw mut written,
            )
        };
        assert_eq!(rc, 0, "encode_within with the size it asked for: {}", name(rc));
        assert_eq!(written, len, "encode_within: the two-call pattern gave two lengths");
        Ok(buf)
    }

    /// `lc_compaction_output_validate` with a buffer of `reply.len()` bytes (O6.4: always enough),
    /// then the two-call pattern checked on success. On failure `*summary_len` must be untouched.
    pub fn output(&self, reply: &[u8], output_tokens: u64, max_output_bytes: u64) -> Result<Vec<u8>, i32> {
        let mut buf = vec![0u8; reply.len()];
        let mut len = usize::MAX;
        let buf_ptr = if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() };
        // SAFETY: a live handle and buffers.
        let rc = unsafe {
            ffi::lc_compaction_output_validate(
                self.0.as_ptr(),
                in_ptr(reply),
                reply.len(),
                output_tokens,
                max_output_bytes,
                buf_ptr,
                buf.len(),
                &raw mut len,
            )
        };
        if rc != 0 {
            assert_ne!(rc, BUFFER_TOO_SMALL, "output_validate: a buffer of output_len bytes was too small");
            assert_eq!(len, usize::MAX, "output_validate wrote *summary_len on {}", name(rc));
            return Err(rc);
        }
        assert!(len <= reply.len(), "output_validate: summary of {len} bytes from a reply of {}", reply.len());
        // An empty summary is xml_root (O6.3), so a valid one is never empty.
        assert!(len > 0, "output_validate: LC_OK with an empty summary");
        buf.truncate(len);
        let mut query_len = usize::MAX;
        // SAFETY: NULL with capacity 0 is the size query.
        let rc = unsafe {
            ffi::lc_compaction_output_validate(
                self.0.as_ptr(),
                in_ptr(reply),
                reply.len(),
                output_tokens,
                max_output_bytes,
                ptr::null_mut(),
                0,
                &raw mut query_len,
            )
        };
        assert_eq!(rc, BUFFER_TOO_SMALL, "output_validate size query: {}", name(rc));
        assert_eq!(query_len, len, "output_validate: the two-call pattern gave two lengths");
        Ok(buf)
    }

    /// The raw handle, for callers that need the C function directly.
    #[must_use]
    pub fn as_ptr(&self) -> *const ffi::lc_compaction_input {
        self.0.as_ptr()
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        // SAFETY: a live handle from lc_compaction_input_parse, freed once.
        unsafe { ffi::lc_compaction_input_free(self.0.as_ptr()) }
    }
}

/// Reads the framing of a fuzz input: little-endian integers and byte runs; missing bytes read as
/// zero, so every input is usable.
pub struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over the whole input.
    #[must_use]
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data }
    }

    /// The next `n` bytes (fewer at the end).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.data.split_at(n.min(self.data.len()));
        self.data = tail;
        head
    }

    /// The rest of the input.
    pub fn rest(&mut self) -> &'a [u8] {
        self.take(usize::MAX)
    }

    fn le<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let bytes = self.take(N);
        out[..bytes.len()].copy_from_slice(bytes);
        out
    }

    /// A byte.
    pub fn u8(&mut self) -> u8 {
        self.le::<1>()[0]
    }

    /// A little-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.le())
    }

    /// A little-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.le())
    }

    /// A little-endian u64.
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.le())
    }

    /// A little-endian i32.
    pub fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.le())
    }

    /// A u64 drawn near the boundaries: a tag byte, then 1, 2 or 8 bytes. Tag % 4: 0 a small value
    /// (one byte), 1 two bytes, 2 eight bytes, 3 `u64::MAX` minus one byte.
    pub fn u64_boundary(&mut self) -> u64 {
        match self.u8() % 4 {
            0 => u64::from(self.u8()),
            1 => u64::from(self.u16()),
            2 => self.u64(),
            _ => u64::MAX - u64::from(self.u8()),
        }
    }
}

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

// ---------------------------------------------------------------------------------------------
// The targets.

/// `lc_summary_xml_validate` (SPEC §4) on arbitrary bytes.
///
/// Invariants: the status is `LC_OK` or 206–209 (A3.9); the same bytes give the same status
/// (X4.22: no state between calls); the safe API agrees with the C entry point; any `<![CDATA[` is
/// `xml_structure` (X4.3).
pub fn target_summary_xml(data: &[u8]) {
    let rc = summary_xml(data);
    check_status("lc_summary_xml_validate", rc, SUMMARY_CODES);
    assert_eq!(rc, summary_xml(data), "lc_summary_xml_validate is not deterministic");
    let safe = loopcompact::summary::validate(data).err().map_or(0, |e| e.status().code());
    assert_eq!(rc, safe, "C ABI {} vs safe API {}", name(rc), name(safe));
    if data.windows(9).any(|w| w == b"<![CDATA[") {
        assert_eq!(rc, 208, "X4.3: a document holding <![CDATA[ gave {}", name(rc));
    }
}

/// The identity a fitted input keeps (F7.3: only tool messages' blocks change).
fn identity(wire: &[u8]) -> (u64, String, String, String, String, u64, usize) {
    let input = CompactionInput::parse(wire).expect("parsed through the C ABI, not through the safe API");
    (
        input.revision(),
        input.through_event_id().to_owned(),
        input.provider().into_owned(),
        input.model().into_owned(),
        input.request_fingerprint().to_owned(),
        input.max_summary_tokens(),
        input.message_count(),
    )
}

/// `lc_compaction_input_parse`, `_validate`, `_encode_within` and `_free` (SPEC §5, §7).
///
/// Input: a little-endian u32 limit selector, then the wire document. Selector with the high bit
/// set: the limit is the low 31 bits; otherwise the limit is `len(S) * (selector & 0xFFFF) / 65536`
/// for the canonical encoding S, so most limits force some fitting.
///
/// Invariants: the status is `LC_OK` or 100–105; `_validate` equals `_parse`; whitespace around the
/// document changes nothing (J5.1); on `LC_OK`: the canonical bytes S (limit `u64::MAX`) parse back
/// to an input with the same identity and re-encode to S (E7 is a fixed point); the limit len(S)
/// gives S (F7.2) and the limit 0 `LC_INPUT_TOO_LARGE`; with the limit from the data the fitted
/// bytes are no longer than the limit, parse back to the same identity and message count, and are
/// canonical, or the status is `LC_INPUT_TOO_LARGE` with S longer than the limit; since the kept
/// candidates of F7.3 shrink strictly, the limit len(fitted) gives the same bytes and one byte less
/// gives shorter bytes or `LC_INPUT_TOO_LARGE`; the handle never changes (A3.6). Every encode call
/// checks the two-call pattern (see `Input::encode`).
pub fn target_input_parse(data: &[u8]) {
    let mut reader = Reader::new(data);
    let selector = reader.u32();
    let wire = reader.rest();

    let parsed = Input::parse(wire);
    let rc = parsed.as_ref().err().copied().unwrap_or(0);
    check_status("lc_compaction_input_parse", rc, INPUT_CODES);
    let validated = input_validate(wire);
    assert_eq!(validated, rc, "_validate {} but _parse {}", name(validated), name(rc));
    let wrapped = input_validate(&padded(wire));
    assert_eq!(wrapped, rc, "surrounding whitespace turned {} into {}", name(rc), name(wrapped));
    let Ok(input) = parsed else { return };
    let id = identity(wire);

    let full = input.encode(u64::MAX).expect("no limit: LC_INPUT_TOO_LARGE");
    let reparsed = Input::parse(&full).unwrap_or_else(|rc| panic!("canonical bytes rejected: {}", name(rc)));
    assert_eq!(reparsed.encode(u64::MAX).ok(), Some(full.clone()), "E7 is not a fixed point");
    assert_eq!(identity(&full), id, "the canonical bytes changed the identity");
    assert_eq!(input.encode(full.len() as u64).ok(), Some(full.clone()), "F7.2: len(S) must give S");
    assert_eq!(input.encode(0), Err(INPUT_TOO_LARGE), "F7.2: limit 0");

    let limit = if selector & 0x8000_0000 != 0 {
        u64::from(selector & 0x7FFF_FFFF)
    } else {
        (full.len() as u64 * u64::from(selector & 0xFFFF)) >> 16
    };
    match input.encode(limit) {
        Ok(fitted) => {
            assert!(fitted.len() as u64 <= limit, "fitted {} bytes over the limit {limit}", fitted.len());
            let again = Input::parse(&fitted).unwrap_or_else(|rc| panic!("fitted bytes rejected: {}", name(rc)));
            assert_eq!(again.encode(u64::MAX).ok(), Some(fitted.clone()), "fitted bytes are not canonical");
            assert_eq!(identity(&fitted), id, "fitting changed the identity or the message count");
            let n = fitted.len() as u64;
            assert_eq!(input.encode(n).ok(), Some(fitted.clone()), "limit len(fitted) gave other bytes");
            match input.encode(n - 1) {
                Ok(shorter) => assert!(shorter.len() < fitted.len(), "limit - 1 did not shrink"),
                Err(rc) => assert_eq!(rc, INPUT_TOO_LARGE, "limit - 1: {}", name(rc)),
            }
        }
        Err(rc) => {
            assert_eq!(rc, INPUT_TOO_LARGE, "encode_within: {}", name(rc));
            assert!(limit < full.len() as u64, "LC_INPUT_TOO_LARGE although S ({}) fits {limit}", full.len());
        }
    }
    assert_eq!(input.encode(u64::MAX).ok(), Some(full), "the handle changed (A3.6)");
}

/// `lc_compaction_output_validate` (SPEC §6) against an input parsed from the same fuzz input.
///
/// Input: u64 LE `output_tokens` selector, u64 LE `max_output_bytes`, u32 LE length of the input
/// wire, the input wire, then the reply. Tokens selector with the high bit set: used as is (above
/// any budget); otherwise taken modulo `max_summary_tokens + 1`, so most calls pass steps 2–3.
///
/// Invariants: the status is `LC_OK` or in A3.9's set; steps 1–3 of O6.2 are checked against an
/// oracle (byte limit, token usage, token limit, in that order); on `LC_OK` the written summary is
/// at most `output_len` bytes, non-empty, passes `lc_summary_xml_validate`, and the two-call pattern
/// gives the same length (see `Input::output`); the same call gives the same result; surrounding
/// whitespace in the reply changes nothing but the byte count (J5.1).
pub fn target_output_validate(data: &[u8]) {
    let mut reader = Reader::new(data);
    let tokens_selector = reader.u64();
    let max_output_bytes = reader.u64();
    let wire_len = reader.u32() as usize;
    let wire = reader.take(wire_len);
    let reply = reader.rest();

    let Ok(input) = Input::parse(wire) else { return };
    let budget = CompactionInput::parse(wire).expect("parsed through the C ABI").max_summary_tokens();
    let output_tokens =
        if tokens_selector >> 63 != 0 { tokens_selector } else { tokens_selector % budget.saturating_add(1) };

    let result = input.output(reply, output_tokens, max_output_bytes);
    let rc = result.as_ref().err().copied().unwrap_or(0);
    check_status("lc_compaction_output_validate", rc, OUTPUT_CODES);
    let expected_early = if max_output_bytes == 0 || reply.len() as u64 > max_output_bytes {
        Some(203)
    } else if output_tokens == 0 {
        Some(204)
    } else if output_tokens > budget {
        Some(205)
    } else {
        None
    };
    match expected_early {
        Some(code) => assert_eq!(rc, code, "O6.2 steps 1-3: expected {} got {}", name(code), name(rc)),
        None => assert!(!(203..=205).contains(&rc), "O6.2 steps 1-3 passed but got {}", name(rc)),
    }
    if let Ok(summary) = &result {
        let xml = summary_xml(summary);
        assert_eq!(xml, 0, "LC_OK with a summary that lc_summary_xml_validate calls {}", name(xml));
    }
    assert_eq!(input.output(reply, output_tokens, max_output_bytes), result, "not deterministic");

    if expected_early.is_none() {
        let wrapped = padded(reply);
        let again = input.output(&wrapped, output_tokens, u64::MAX);
        assert_eq!(again, result, "surrounding whitespace changed the result");
    }
}

/// `lc_compaction_policy_validate` (SPEC §8.1).
///
/// Input: one byte selecting `counter_quality` from `QUALITIES`, then the policy document.
///
/// Invariants: the status is `LC_OK` or 300–308; deterministic; a quality outside 0–3 behaves as 0
/// (A3.5); whitespace around the document changes nothing (J5.1); a well-formed policy (not 300)
/// nested in a context config with a counter of the same quality gives the same status there
/// (P8.8 step 9), for qualities 1–3 (a counter of quality 0 is invalid, P8.9).
pub fn target_compaction_policy(data: &[u8]) {
    quality_document(
        data,
        QualityDocument {
            function: "lc_compaction_policy_validate",
            call: compaction_policy,
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
/// Invariants: the status is `LC_OK` or 320–323; deterministic; a quality outside 0–3 behaves as 0
/// (A3.5); whitespace around the document changes nothing (J5.1); a well-formed document (not 320)
/// nested in a context config with a counter of the same quality gives the same status there with
/// the config's codes 321–323 (P8.8 step 10), for qualities 1–3.
pub fn target_context_observation(data: &[u8]) {
    quality_document(
        data,
        QualityDocument {
            function: "lc_context_observation_validate",
            call: context_observation,
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
/// Invariants: the status is `LC_OK` or in 340–347, 301–308, 321–323 (A3.9); deterministic;
/// whitespace around the document changes nothing (J5.1).
pub fn target_context_config(data: &[u8]) {
    let rc = context_config(data);
    check_status("lc_context_config_validate", rc, CONTEXT_CODES);
    assert_eq!(rc, context_config(data), "not deterministic");
    let wrapped = context_config(&padded(data));
    assert_eq!(wrapped, rc, "surrounding whitespace turned {} into {}", name(rc), name(wrapped));
}

/// `lc_request_fingerprint` (SPEC §10).
///
/// Invariants: the status is `LC_OK` or 400–407 (A3.9), `out` untouched on failure; two calls give
/// the same digest; whitespace around the document changes nothing (J5.1); the safe API agrees;
/// on `LC_OK` the canonical bytes (R10.5), passed back as the document, give the same digest and
/// the same canonical bytes (R10.7: idempotent).
pub fn target_request_fingerprint(data: &[u8]) {
    let result = request_fingerprint(data);
    let rc = result.err().unwrap_or(0);
    check_status("lc_request_fingerprint", rc, FINGERPRINT_CODES);
    assert_eq!(request_fingerprint(data), result, "lc_request_fingerprint is not deterministic");
    let wrapped = request_fingerprint(&padded(data));
    assert_eq!(wrapped, result, "surrounding whitespace changed the result");

    let safe = RequestFingerprint::compute(data);
    match (&safe, result) {
        (Ok(fingerprint), Ok(digest)) => {
            assert_eq!(fingerprint.as_bytes(), &digest, "safe API and C ABI digests differ");
            let canonical = fingerprint.canonical_bytes();
            let again = request_fingerprint(canonical);
            assert_eq!(again, Ok(digest), "the canonical bytes as a document give another result");
            let twice = RequestFingerprint::compute(canonical).expect("canonical bytes rejected");
            assert_eq!(twice.canonical_bytes(), canonical, "canonical bytes are not a fixed point");
        }
        (Err(e), Err(rc)) => assert_eq!(e.status().code(), rc, "safe API {} vs C ABI {}", e.status(), name(rc)),
        _ => panic!("safe API and C ABI disagree: {:?} vs {}", safe.as_ref().err(), name(rc)),
    }
}

/// L9.1, step by step.
fn resolve_oracle(window: u64, max_in: u64, max_out: u64, reserved: u64, margin: u64) -> Option<(u64, u64, u64)> {
    if window != 0 && (max_in > window || max_out > window) {
        return None;
    }
    let reserved = if max_out != 0 && max_out < reserved { max_out } else { reserved };
    let mut raw = 0;
    if window != 0 {
        if reserved >= window {
            return None;
        }
        raw = window - reserved;
    }
    if max_in != 0 && (raw == 0 || max_in < raw) {
        raw = max_in;
    }
    if raw == 0 || margin >= raw {
        return None;
    }
    Some((reserved, raw, raw - margin))
}

/// L9.2 by long division on u128.
fn occupancy_oracle(used: u64, limit: u64) -> Option<u16> {
    if limit == 0 {
        return None;
    }
    if used >= limit {
        return Some(10_000);
    }
    let q = u128::from(used) * 10_000 / u128::from(limit);
    Some(q.min(10_000) as u16)
}

/// L9.3, one branch per step (steps 3 and 4 both give 2).
#[allow(clippy::if_same_then_else)]
fn pressure_oracle(previous: i32, occupancy: u16, automatic: bool, compact_at: u16, rearm_below: u16) -> i32 {
    if occupancy >= 10_000 {
        3
    } else if !automatic {
        1
    } else if (previous == 2 || previous == 3) && occupancy >= rearm_below {
        2
    } else if occupancy >= compact_at {
        2
    } else {
        1
    }
}

/// `lc_context_limits_resolve`, `lc_occupancy_basis_points`, `lc_pressure_level` and
/// `lc_replacement_check` (SPEC §9) with integers from the fuzz input, each compared with an oracle
/// written here from the text of L9.1–L9.4.
///
/// Input: a sequence of integers read by `Reader` (u64 values near the boundaries, see
/// `Reader::u64_boundary`); missing bytes read as zero.
///
/// Invariants: statuses in A3.9's sets; out-parameters written only on `LC_OK`; the resolved
/// limits equal the oracle's and satisfy `input_limit + safety_margin == raw_input_limit`,
/// `reserved_output <= requested`; occupancy ≤ 10000 and exact; pressure in 1..=3 and equal to the
/// oracle's; the replacement check fails exactly when `input_tokens >= input_limit`.
pub fn target_limits(data: &[u8]) {
    let mut r = Reader::new(data);

    let limits = lc_context_limits {
        window_tokens: r.u64_boundary(),
        max_input_tokens: r.u64_boundary(),
        max_output_tokens: r.u64_boundary(),
    };
    let (reserved, margin) = (r.u64_boundary(), r.u64_boundary());
    let sentinel = lc_resolved_limits { reserved_output: 7, raw_input_limit: 7, input_limit: 7 };
    let mut out = sentinel;
    // SAFETY: `out` is writable.
    let rc = unsafe { lc_context_limits_resolve(limits, reserved, margin, &raw mut out) };
    let expected =
        resolve_oracle(limits.window_tokens, limits.max_input_tokens, limits.max_output_tokens, reserved, margin);
    match expected {
        Some((reserved_output, raw_input_limit, input_limit)) => {
            assert_eq!(rc, 0, "resolve: {} for {limits:?} {reserved} {margin}", name(rc));
            assert_eq!(out, lc_resolved_limits { reserved_output, raw_input_limit, input_limit });
            assert!(out.reserved_output <= reserved && out.input_limit + margin == out.raw_input_limit);
            assert!(out.input_limit > 0);
        }
        None => {
            assert_eq!(rc, 360, "resolve: {} for {limits:?} {reserved} {margin}", name(rc));
            assert_eq!(out, sentinel, "resolve wrote *out on failure");
        }
    }

    let (used, limit) = (r.u64_boundary(), r.u64_boundary());
    let mut occupancy = 0xA5A5u16;
    // SAFETY: `occupancy` is writable.
    let rc = unsafe { lc_occupancy_basis_points(used, limit, &raw mut occupancy) };
    match occupancy_oracle(used, limit) {
        Some(value) => {
            assert_eq!(rc, 0, "occupancy({used}, {limit}): {}", name(rc));
            assert_eq!(occupancy, value, "occupancy({used}, {limit})");
            assert!(occupancy <= 10_000);
        }
        None => {
            assert_eq!(rc, 361, "occupancy({used}, 0): {}", name(rc));
            assert_eq!(occupancy, 0xA5A5, "occupancy wrote *out on failure");
        }
    }

    let previous = r.i32();
    let level_occupancy = r.u16();
    let automatic = r.u8() & 1 == 1;
    let (compact_at, rearm_below) = (r.u16(), r.u16());
    let level = lc_pressure_level(previous, level_occupancy, automatic, compact_at, rearm_below);
    assert!((1..=3).contains(&level), "pressure level {level}");
    assert_eq!(level, pressure_oracle(previous, level_occupancy, automatic, compact_at, rearm_below));

    let (input_tokens, input_limit) = (r.u64_boundary(), r.u64_boundary());
    let rc = lc_replacement_check(input_tokens, input_limit);
    assert_eq!(rc, if input_tokens >= input_limit { 250 } else { 0 }, "replacement({input_tokens}, {input_limit})");
}
