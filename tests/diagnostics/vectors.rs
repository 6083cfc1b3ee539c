//! C13.4 over every conformance vector (V12.3's mapping of rows to calls): each `_diagnose`
//! sibling returns the plain function's status for every row, `diag.status` equals it and
//! `diag.status_class` is its C13.3 class. The checked wrappers of the test kit also check the
//! general promises of C13.2/C13.4 on each call (see `testkit::diagnostic`); on top of them every
//! failing row's diagnosis must be well-formed: a known rule id of the spec, line and column that
//! fit the offset (an independent C13.2 count), an offset within the checked buffer, and for a
//! summary syntax error the plain function's own offset.

use std::ptr;

use loopcompact::ffi;
use serde_json::Value;
use testkit::abi::Input;
use testkit::diagnostic::Diag;
use testkit::vectors::{self, bytes_field, ptr_of};

use super::support::*;

/// The rule ids C13.4 lists for the summary grammar.
const SUMMARY_RULES: &[&str] = &[
    "X4.3", "X4.6", "X4.7", "X4.8", "X4.9", "X4.10", "X4.11", "X4.12", "X4.13", "X4.14", "X4.15", "X4.16", "X4.18",
    "X4.20",
];

fn spec_text() -> String {
    std::fs::read_to_string(vectors::repo_dir().join("docs").join("SPEC.md")).unwrap()
}

/// A rule id the spec defines: `**ID ` or `**ID**` (a rule's heading) or `| ID |` (a table row).
fn is_spec_rule(spec: &str, rule: &str) -> bool {
    [format!("**{rule} "), format!("**{rule}**"), format!("| {rule} |")].iter().any(|form| spec.contains(form.as_str()))
}

/// The checks every failing row's diagnosis must pass; `text` is the buffer its offsets count.
fn well_formed(spec: &str, rc: i32, diag: &Diag, text: &[u8]) -> Result<(), String> {
    if rc == 0 {
        return Ok(());
    }
    if !diag.rule.is_empty() && !is_spec_rule(spec, &diag.rule) {
        return Err(format!("rule {:?} is not a rule of docs/SPEC.md", diag.rule));
    }
    if let Some(offset) = diag.offset() {
        if offset as usize > text.len() {
            return Err(format!("offset {offset} beyond the {} bytes checked", text.len()));
        }
        let want = line_column(text, offset as usize);
        if (diag.line, diag.column) != want {
            return Err(format!("line/column {}/{} for offset {offset}, C13.2 gives {want:?}", diag.line, diag.column));
        }
    }
    if diag.location.len() >= LOCATION_CAP {
        return Err(format!("location of {} bytes", diag.location.len()));
    }
    Ok(())
}

/// The summary grammar's diagnosis (C13.4): an offset always, a rule of its list, no location, and
/// a syntax error where the plain function found it.
fn summary_checks(rc: i32, diag: &Diag, xml: &[u8]) -> Result<(), String> {
    if rc == 0 {
        return Ok(());
    }
    let offset = diag.offset().ok_or("a summary failure without an offset")?;
    if !SUMMARY_RULES.contains(&diag.rule.as_str()) {
        return Err(format!("rule {:?} is not one C13.4 lists for the summary grammar", diag.rule));
    }
    if rc == status::LC_SUMMARY_XML_SYNTAX {
        let plain = loopcompact::summary::validate(xml).unwrap_err().offset().map(|o| o as u64);
        if plain != Some(offset) {
            return Err(format!("syntax error at {offset}, the plain function's offset is {plain:?}"));
        }
    }
    Ok(())
}

fn report(file: &str, failures: &[String], count: usize) {
    assert!(count > 0, "{file}: no rows");
    assert!(failures.is_empty(), "{file}: {} of {count} rows fail:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn summary_xml_rows() {
    let spec = spec_text();
    let rows = vectors::rows("summary_xml.jsonl");
    let mut failures = Vec::new();
    for row in &rows {
        let xml = bytes_field(row, "xml").unwrap();
        // SAFETY: the row's pointer (NULL only with no bytes) and length.
        let plain = unsafe { ffi::lc_summary_xml_validate(ptr_of(row, &xml), xml.len()) };
        // SAFETY: as above; diag NULL is allowed.
        let raw = unsafe { ffi::lc_summary_xml_diagnose(ptr_of(row, &xml), xml.len(), ptr::null_mut()) };
        let (rc, diag) = kit::summary_xml_diagnose(&xml);
        let checks = [
            (raw == plain && rc == plain).then_some(()).ok_or(format!("diagnose {raw}/{rc}, validate {plain}")),
            (diag.status_class == spec_class(rc)).then_some(()).ok_or(format!("class {}", diag.status_class)),
            well_formed(&spec, rc, &diag, &xml),
            summary_checks(rc, &diag, &xml),
            diag.location.is_empty().then_some(()).ok_or(format!("location {:?}", diag.location)),
        ];
        for check in checks {
            if let Err(why) = check {
                failures.push(format!("{}: {why}", vectors::name(row)));
            }
        }
    }
    report("summary_xml.jsonl", &failures, rows.len());
}

#[test]
fn input_rows() {
    let spec = spec_text();
    let rows = vectors::rows("input.jsonl");
    let mut failures = Vec::new();
    for row in &rows {
        let wire = bytes_field(row, "input").unwrap();
        // SAFETY: the row's pointer and length.
        let plain = unsafe { ffi::lc_compaction_input_validate(ptr_of(row, &wire), wire.len()) };
        // SAFETY: as above; diag NULL is allowed.
        let raw = unsafe { ffi::lc_compaction_input_diagnose(ptr_of(row, &wire), wire.len(), ptr::null_mut()) };
        let (rc, diag) = kit::input_diagnose(&wire);
        let mut checks = vec![
            (raw == plain && rc == plain).then_some(()).ok_or(format!("diagnose {raw}/{rc}, validate {plain}")),
            (diag.status_class == spec_class(rc)).then_some(()).ok_or(format!("class {}", diag.status_class)),
            well_formed(&spec, rc, &diag, &wire),
        ];
        // C13.4: the offset is the plain function's Rust error's.
        if rc != 0 {
            let plain_offset = loopcompact::wire::CompactionInput::validate(&wire).unwrap_err().offset();
            if let Some(at) = plain_offset {
                checks.push(
                    (diag.offset() == Some(at as u64))
                        .then_some(())
                        .ok_or(format!("offset {:?}, the plain error's is {at}", diag.offset())),
                );
            }
        }
        if row["kind"] == "fit" {
            checks.push((rc == 0).then_some(()).ok_or(format!("a fit row's input gave {rc}")));
        }
        for check in checks {
            if let Err(why) = check {
                failures.push(format!("{}: {why}", vectors::name(row)));
            }
        }
    }
    report("input.jsonl", &failures, rows.len());
}

#[test]
fn output_rows() {
    let spec = spec_text();
    let rows = vectors::rows("output.jsonl");
    let mut failures = Vec::new();
    for row in &rows {
        let wire = bytes_field(row, "input_wire").unwrap();
        let input = Input::parse(&wire).unwrap_or_else(|rc| panic!("{}: input gave {rc}", vectors::name(row)));
        let output = bytes_field(row, "output").unwrap();
        let tokens = row["output_tokens"].as_u64().unwrap();
        let max = row["max_output_bytes"].as_u64().unwrap();
        let budget = serde_json::from_slice::<Value>(&wire).unwrap()["max_summary_tokens"].as_u64().unwrap();
        let mut len = usize::MAX;
        let mut buf = vec![0u8; output.len()];
        let buf_ptr = if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() };
        // SAFETY: a live handle, the row's pointer and length, `buf` writable for its length.
        let raw = unsafe {
            ffi::lc_compaction_output_diagnose(
                input.as_ptr(),
                ptr_of(row, &output),
                output.len(),
                tokens,
                max,
                buf_ptr,
                buf.len(),
                &raw mut len,
                ptr::null_mut(),
            )
        };
        let (result, diag) = input.output_diagnose(&output, tokens, max);
        let rc = result.as_ref().err().copied().unwrap_or(0);
        let verdict = status::verdict(rc);
        // R15.2: a byte limit below the shortest reply that can pass is the host's.
        let shortest = testkit::spec::shortest_reply_len(&wire).expect("the row's input has an identity");
        let class = if rc == status::LC_SUMMARY_BYTE_LIMIT && max < shortest { CLASS_HOST } else { spec_class(rc) };
        let mut checks = vec![
            (raw == rc).then_some(()).ok_or(format!("raw call {raw}, wrapper {rc}")),
            (verdict == row["expect"].as_str().unwrap()).then_some(()).ok_or(format!("verdict {verdict}")),
            (diag.status_class == class).then_some(()).ok_or(format!("class {}", diag.status_class)),
        ];
        // C13.2: the limits of byte_limit and token_limit; C13.4: where an identity differs and
        // where a summary's own failure is.
        let want_limits = match rc {
            status::LC_SUMMARY_BYTE_LIMIT => Some((max, output.len() as u64)),
            status::LC_SUMMARY_TOKEN_LIMIT => Some((budget, tokens)),
            _ => None,
        };
        checks.push(
            (diag.limits() == want_limits)
                .then_some(())
                .ok_or(format!("limits {:?}, want {want_limits:?}", diag.limits())),
        );
        if rc == status::LC_SUMMARY_IDENTITY {
            let paths =
                ["basis.revision", "basis.through_event_id", "model.provider", "model.model", "request_fingerprint"];
            checks.push(
                paths.contains(&diag.location.as_str()).then_some(()).ok_or(format!("identity at {:?}", diag.location)),
            );
        }
        if (206..=209).contains(&rc) {
            checks.push((diag.location == "summary").then_some(()).ok_or(format!("location {:?}", diag.location)));
            let reply: Value = serde_json::from_slice(&output).unwrap();
            let decoded = reply["summary"].as_str().map(|s| s.as_bytes().to_vec());
            if let Some(decoded) = decoded {
                checks.push(well_formed(&spec, rc, &diag, &decoded));
                checks.push(summary_checks(rc, &diag, &decoded));
            }
        } else {
            checks.push(well_formed(&spec, rc, &diag, &output));
        }
        for check in checks {
            if let Err(why) = check {
                failures.push(format!("{}: {why}", vectors::name(row)));
            }
        }
    }
    report("output.jsonl", &failures, rows.len());
}

#[test]
fn policy_rows() {
    let spec = spec_text();
    let rows = vectors::rows("policy.jsonl");
    let mut failures = Vec::new();
    let mut count = 0;
    for row in &rows {
        let kind = row["kind"].as_str().unwrap();
        let (doc, plain, (rc, diag)) = match kind {
            "compaction_policy" | "observation_policy" => {
                let doc = bytes_field(row, "policy").unwrap();
                let q = i32::try_from(row["counter_quality"].as_i64().unwrap()).unwrap();
                // SAFETY (each): the row's pointer and length; diag NULL is allowed.
                let (plain, raw) = unsafe {
                    if kind == "compaction_policy" {
                        (
                            ffi::lc_compaction_policy_validate(ptr_of(row, &doc), doc.len(), q),
                            ffi::lc_compaction_policy_diagnose(ptr_of(row, &doc), doc.len(), q, ptr::null_mut()),
                        )
                    } else {
                        (
                            ffi::lc_context_observation_validate(ptr_of(row, &doc), doc.len(), q),
                            ffi::lc_context_observation_diagnose(ptr_of(row, &doc), doc.len(), q, ptr::null_mut()),
                        )
                    }
                };
                let checked = if kind == "compaction_policy" {
                    kit::compaction_policy_diagnose(&doc, q)
                } else {
                    kit::context_observation_diagnose(&doc, q)
                };
                assert_eq!(raw, plain, "{}", vectors::name(row));
                (doc, plain, checked)
            }
            "context_config" => {
                let doc = bytes_field(row, "config").unwrap();
                // SAFETY: the row's pointer and length; diag NULL is allowed.
                let (plain, raw) = unsafe {
                    (
                        ffi::lc_context_config_validate(ptr_of(row, &doc), doc.len()),
                        ffi::lc_context_config_diagnose(ptr_of(row, &doc), doc.len(), ptr::null_mut()),
                    )
                };
                assert_eq!(raw, plain, "{}", vectors::name(row));
                let checked = kit::context_config_diagnose(&doc);
                (doc, plain, checked)
            }
            // The other kinds have no `_diagnose` sibling (C13.4 lists seven).
            _ => continue,
        };
        count += 1;
        let checks = [
            (rc == plain).then_some(()).ok_or(format!("diagnose {rc}, validate {plain}")),
            (diag.status_class == spec_class(rc)).then_some(()).ok_or(format!("class {}", diag.status_class)),
            well_formed(&spec, rc, &diag, &doc),
        ];
        for check in checks {
            if let Err(why) = check {
                failures.push(format!("[{kind}] {}: {why}", vectors::name(row)));
            }
        }
    }
    report("policy.jsonl", &failures, count);
}

#[test]
fn fingerprint_rows() {
    let spec = spec_text();
    let rows = vectors::rows("fingerprint.jsonl");
    let mut failures = Vec::new();
    for row in &rows {
        let doc = bytes_field(row, "input").unwrap();
        let mut out = [0u8; 32];
        // SAFETY: the row's pointer and length, 32 writable bytes; diag NULL is allowed.
        let raw = unsafe {
            ffi::lc_request_fingerprint_diagnose(ptr_of(row, &doc), doc.len(), out.as_mut_ptr(), ptr::null_mut())
        };
        let (result, diag) = kit::request_fingerprint_diagnose(&doc);
        let rc = result.err().unwrap_or(0);
        let verdict = status::verdict(rc);
        let mut checks = vec![
            (raw == rc).then_some(()).ok_or(format!("raw call {raw}, wrapper {rc}")),
            (verdict == row["expect"].as_str().unwrap()).then_some(()).ok_or(format!("verdict {verdict}")),
            (diag.status_class == spec_class(rc)).then_some(()).ok_or(format!("class {}", diag.status_class)),
            well_formed(&spec, rc, &diag, &doc),
        ];
        if let (Ok(digest), Some(sha)) = (result, row.get("sha256").and_then(Value::as_str)) {
            checks.push((vectors::hex(&digest) == sha).then_some(()).ok_or("digest differs".to_owned()));
        }
        for check in checks {
            if let Err(why) = check {
                failures.push(format!("{}: {why}", vectors::name(row)));
            }
        }
    }
    report("fingerprint.jsonl", &failures, rows.len());
}
