//! Every public row of `input.jsonl`, `output.jsonl` and (where present) the peer JSONTestSuite rows,
//! through the C ABI (SPEC V12.3).

mod common;

use std::ptr;

use loopcompact::ffi::*;
use serde_json::Value;

fn parse(wire: &[u8], null: bool) -> (i32, *mut lc_compaction_input) {
    let mut handle: *mut lc_compaction_input = ptr::null_mut();
    let p = if null { ptr::null() } else { wire.as_ptr() };
    let rc = unsafe { lc_compaction_input_parse(p, wire.len(), &mut handle) };
    (rc, handle)
}

fn encode(handle: *const lc_compaction_input, max: u64) -> (i32, Vec<u8>) {
    let mut len = 0usize;
    let rc = unsafe { lc_compaction_input_encode_within(handle, max, ptr::null_mut(), 0, &mut len) };
    if rc != LC_ERR_BUFFER_TOO_SMALL {
        return (rc, Vec::new());
    }
    let mut buf = vec![0u8; len];
    let rc = unsafe { lc_compaction_input_encode_within(handle, max, buf.as_mut_ptr(), buf.len(), &mut len) };
    buf.truncate(len);
    (rc, buf)
}

const LC_ERR_BUFFER_TOO_SMALL: i32 = 2;

fn decode_row(row: &Value, failures: &mut Vec<String>) {
    let input = common::bytes_field(row, "input").unwrap();
    let null = common::null_ptr(row);
    let expect = row["expect"].as_str().unwrap();
    let rc = unsafe { lc_compaction_input_validate(common::ptr_of(row, &input), input.len()) };
    let (rc2, handle) = parse(&input, null);
    unsafe { lc_compaction_input_free(handle) };
    if common::verdict(rc) != expect || rc2 != rc {
        failures.push(format!(
            "{}: validate {} parse {} expected {expect}",
            common::name(row),
            common::verdict(rc),
            common::verdict(rc2)
        ));
    }
    if rc2 == 0 && handle.is_null() || rc2 != 0 && !handle.is_null() {
        failures.push(format!("{}: handle/status mismatch", common::name(row)));
    }
}

#[test]
fn input_rows() {
    let mut failures = Vec::new();
    let mut count = 0;
    for row in common::rows("input.jsonl") {
        count += 1;
        match row["kind"].as_str().unwrap() {
            "decode" => decode_row(&row, &mut failures),
            "fit" => {
                let input = common::bytes_field(&row, "input").unwrap();
                let (rc, handle) = parse(&input, false);
                if rc != 0 {
                    failures.push(format!("{}: parse gave {}", common::name(&row), common::verdict(rc)));
                    continue;
                }
                let max = row["max_bytes"].as_u64().unwrap();
                let (rc, bytes) = encode(handle, max);
                let expect = row["expect"].as_str().unwrap();
                if common::verdict(rc) != expect {
                    failures.push(format!(
                        "{}: fit gave {} expected {expect}",
                        common::name(&row),
                        common::verdict(rc)
                    ));
                } else if rc == 0 {
                    let fitted = row["fitted"].as_str().unwrap().as_bytes();
                    if bytes != fitted {
                        failures.push(format!(
                            "{}: fitted bytes differ\n got  {}\n want {}",
                            common::name(&row),
                            String::from_utf8_lossy(&bytes),
                            String::from_utf8_lossy(fitted)
                        ));
                    }
                } else if let Some(size) = row.get("too_large_size").and_then(Value::as_u64) {
                    let handle_ref = loopcompact::wire::CompactionInput::parse(&input).unwrap();
                    let err = handle_ref.encode_within(max).unwrap_err();
                    if err.size != size || err.max_bytes != max {
                        failures.push(format!("{}: too_large size {} want {size}", common::name(&row), err.size));
                    }
                }
                unsafe { lc_compaction_input_free(handle) };
            }
            other => failures.push(format!("{}: unknown kind {other}", common::name(&row))),
        }
    }
    assert!(failures.is_empty(), "{} of {count} input rows failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn output_rows() {
    let mut failures = Vec::new();
    let rows = common::rows("output.jsonl");
    for row in &rows {
        let wire = common::bytes_field(row, "input_wire").unwrap();
        let (rc, handle) = parse(&wire, false);
        if rc != 0 {
            failures.push(format!("{}: input parse gave {}", common::name(row), common::verdict(rc)));
            continue;
        }
        let output = common::bytes_field(row, "output").unwrap();
        let tokens = row["output_tokens"].as_u64().unwrap();
        let max = row["max_output_bytes"].as_u64().unwrap();
        let mut buf = vec![0u8; output.len()];
        let mut len = usize::MAX;
        let rc = unsafe {
            lc_compaction_output_validate(
                handle,
                common::ptr_of(row, &output),
                output.len(),
                tokens,
                max,
                if buf.is_empty() { ptr::null_mut() } else { buf.as_mut_ptr() },
                buf.len(),
                &mut len,
            )
        };
        let expect = row["expect"].as_str().unwrap();
        if common::verdict(rc) != expect {
            failures.push(format!("{}: gave {} expected {expect}", common::name(row), common::verdict(rc)));
        } else if rc == 0 {
            let want = row["summary"].as_str().unwrap().as_bytes();
            if buf.get(..len) != Some(want) {
                failures.push(format!("{}: summary bytes differ", common::name(row)));
            }
        }
        unsafe { lc_compaction_input_free(handle) };
    }
    assert!(failures.is_empty(), "{} of {} output rows failed:\n{}", failures.len(), rows.len(), failures.join("\n"));
}

/// nst/JSONTestSuite spliced into tool_use inputs; read from ../shared only (never committed).
#[test]
fn peer_jsontestsuite_rows() {
    let Some(dir) = common::shared_vectors_dir() else {
        eprintln!("../shared/vectors not present: peer rows skipped");
        return;
    };
    let path = dir.join("peer_jsontestsuite.jsonl");
    if !path.exists() {
        eprintln!("peer_jsontestsuite.jsonl not present: skipped");
        return;
    }
    let mut failures = Vec::new();
    let rows = common::rows_from(&path);
    for row in &rows {
        decode_row(row, &mut failures);
    }
    assert!(failures.is_empty(), "{} of {} peer rows failed:\n{}", failures.len(), rows.len(), failures.join("\n"));
}
