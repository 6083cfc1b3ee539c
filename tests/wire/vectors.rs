//! Every public row of `input.jsonl`, `output.jsonl` and (where present) the peer JSONTestSuite rows,
//! through the C ABI (SPEC V12.3).

use std::ptr;

use loopcompact::ffi::{lc_compaction_input_validate, lc_compaction_output_validate};
use serde_json::Value;
use testkit::abi::Input;
use testkit::status::{LC_OK, verdict};
use testkit::vectors::{self, ptr_of};

/// Parses a row's bytes at the row's pointer (V12.2 `null_ptr`); the wrapper checks that a handle
/// exists iff `LC_OK` and that `*out` is untouched on failure.
fn parse(row: &Value, wire: &[u8]) -> Result<Input, i32> {
    // SAFETY: `ptr_of` gives the live buffer or NULL, and NULL rows have no bytes or test the NULL
    // check (which comes before any read, A3.1).
    unsafe { Input::parse_raw(ptr_of(row, wire), wire.len()) }
}

fn decode_row(row: &Value, failures: &mut Vec<String>) {
    let input = vectors::bytes_field(row, "input").unwrap();
    let expect = row["expect"].as_str().unwrap();
    let rc = unsafe { lc_compaction_input_validate(ptr_of(row, &input), input.len()) };
    let rc2 = parse(row, &input).err().unwrap_or(LC_OK);
    if verdict(rc) != expect || rc2 != rc {
        failures.push(format!(
            "{}: validate {} parse {} expected {expect}",
            vectors::name(row),
            verdict(rc),
            verdict(rc2)
        ));
    }
}

#[test]
fn input_rows() {
    let mut failures = Vec::new();
    let mut count = 0;
    for row in vectors::rows("input.jsonl") {
        count += 1;
        match row["kind"].as_str().unwrap() {
            "decode" => decode_row(&row, &mut failures),
            "fit" => {
                let input = vectors::bytes_field(&row, "input").unwrap();
                let handle = match Input::parse(&input) {
                    Ok(handle) => handle,
                    Err(rc) => {
                        failures.push(format!("{}: parse gave {}", vectors::name(&row), verdict(rc)));
                        continue;
                    }
                };
                let max = row["max_bytes"].as_u64().unwrap();
                let (rc, bytes) = match handle.encode(max) {
                    Ok(bytes) => (LC_OK, bytes),
                    Err(rc) => (rc, Vec::new()),
                };
                let expect = row["expect"].as_str().unwrap();
                if verdict(rc) != expect {
                    failures.push(format!("{}: fit gave {} expected {expect}", vectors::name(&row), verdict(rc)));
                } else if rc == 0 {
                    let fitted = row["fitted"].as_str().unwrap().as_bytes();
                    if bytes != fitted {
                        failures.push(format!(
                            "{}: fitted bytes differ\n got  {}\n want {}",
                            vectors::name(&row),
                            String::from_utf8_lossy(&bytes),
                            String::from_utf8_lossy(fitted)
                        ));
                    }
                } else if let Some(size) = row.get("too_large_size").and_then(Value::as_u64) {
                    let handle_ref = loopcompact::wire::CompactionInput::parse(&input).unwrap();
                    let err = handle_ref.encode_within(max).unwrap_err();
                    if err.size != size || err.max_bytes != max {
                        failures.push(format!("{}: too_large size {} want {size}", vectors::name(&row), err.size));
                    }
                }
            }
            other => failures.push(format!("{}: unknown kind {other}", vectors::name(&row))),
        }
    }
    assert!(failures.is_empty(), "{} of {count} input rows failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn output_rows() {
    let mut failures = Vec::new();
    let rows = vectors::rows("output.jsonl");
    for row in &rows {
        let wire = vectors::bytes_field(row, "input_wire").unwrap();
        let handle = match Input::parse(&wire) {
            Ok(handle) => handle,
            Err(rc) => {
                failures.push(format!("{}: input parse gave {}", vectors::name(row), verdict(rc)));
                continue;
            }
        };
        let output = vectors::bytes_field(row, "output").unwrap();
        let tokens = row["output_tokens"].as_u64().unwrap();
        let max = row["max_output_bytes"].as_u64().unwrap();
        let mut buf = vec![0u8; output.len()];
        let mut len = usize::MAX;
        let rc = unsafe {
            lc_compaction_output_validate(
                handle.as_ptr(),
                ptr_of(row, &output),
                output.len(),
                tokens,
                max,
                if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() },
                buf.len(),
                &mut len,
            )
        };
        let expect = row["expect"].as_str().unwrap();
        if verdict(rc) != expect {
            failures.push(format!("{}: gave {} expected {expect}", vectors::name(row), verdict(rc)));
        } else if rc == 0 {
            let want = row["summary"].as_str().unwrap().as_bytes();
            if buf.get(..len) != Some(want) {
                failures.push(format!("{}: summary bytes differ", vectors::name(row)));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} output rows failed:\n{}", failures.len(), rows.len(), failures.join("\n"));
}

/// nst/JSONTestSuite spliced into tool_use inputs; read from ../shared only (never committed).
#[test]
fn peer_jsontestsuite_rows() {
    let Some(dir) = vectors::shared_vectors_dir() else {
        eprintln!("../shared/vectors not present: peer rows skipped");
        return;
    };
    let path = dir.join("peer_jsontestsuite.jsonl");
    if !path.exists() {
        eprintln!("peer_jsontestsuite.jsonl not present: skipped");
        return;
    }
    let mut failures = Vec::new();
    let rows = vectors::rows_from(&path);
    for row in &rows {
        decode_row(row, &mut failures);
    }
    assert!(failures.is_empty(), "{} of {} peer rows failed:\n{}", failures.len(), rows.len(), failures.join("\n"));
}
