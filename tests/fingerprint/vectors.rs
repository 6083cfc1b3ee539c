//! V12.3: the conformance vectors of §10 (`tests/vectors/fingerprint.jsonl`).

use super::support::*;

#[test]
fn vectors() {
    let rows = vectors::rows("fingerprint.jsonl");
    assert!(!rows.is_empty());
    let mut failures = Vec::new();
    let mut passed = 0;
    for row in &rows {
        let name = vectors::name(row);
        let input = vectors::bytes_field(row, "input").unwrap_or_else(|| panic!("{name}: no input"));
        let expect = row.get("expect").and_then(Value::as_str).unwrap();
        let mut out = [0u8; LC_FINGERPRINT_LEN];
        let rc = unsafe { lc_request_fingerprint(vectors::ptr_of(row, &input), input.len(), out.as_mut_ptr()) };
        let got = status::verdict(rc);
        let mut ok = true;
        if got != expect || !(rc == 0 || (400..=407).contains(&rc)) {
            failures.push(format!("{name}: expected {expect}, got {got} ({rc})"));
            ok = false;
        } else if rc == 0 {
            let sha = row.get("sha256").and_then(Value::as_str).unwrap();
            if vectors::hex(&out) != sha {
                failures.push(format!("{name}: sha256 {} != {sha}", vectors::hex(&out)));
                ok = false;
            }
            let canonical = vectors::bytes_field(row, "canonical_json").unwrap();
            match RequestFingerprint::compute(&input) {
                Ok(fp) if fp.canonical_bytes() == canonical.as_slice() => {}
                Ok(fp) => {
                    failures.push(format!(
                        "{name}: canonical bytes differ:\n  got  {}\n  want {}",
                        String::from_utf8_lossy(fp.canonical_bytes()),
                        String::from_utf8_lossy(&canonical)
                    ));
                    ok = false;
                }
                Err(e) => {
                    failures.push(format!("{name}: Rust API fails with {e}"));
                    ok = false;
                }
            }
        }
        passed += usize::from(ok);
    }
    assert!(failures.is_empty(), "{} of {} rows fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
    eprintln!("fingerprint vectors: {passed}/{} pass", rows.len());
}
