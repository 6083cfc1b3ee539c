//! The conformance vectors (`tests/vectors/`, SPEC §12): their rows and the fields of V12.2.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The repository root (the testkit lives in `testkit/`).
#[must_use]
pub fn repo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("testkit/ has a parent").to_path_buf()
}

/// The project's copy of the contract vectors (`tests/vectors/`).
#[must_use]
pub fn vectors_dir() -> PathBuf {
    repo_dir().join("tests").join("vectors")
}

/// `../shared/vectors` when this checkout sits beside the shared directory (developers and CI).
#[must_use]
pub fn shared_vectors_dir() -> Option<PathBuf> {
    let dir = repo_dir().join("..").join("shared").join("vectors");
    dir.is_dir().then_some(dir)
}

/// Every row of a vector file, parsed with exact 64-bit integers.
#[must_use]
pub fn rows_from(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{} line {}: {e}", path.display(), i + 1)))
        .collect()
}

/// Every row of `tests/vectors/<file>`.
#[must_use]
pub fn rows(file: &str) -> Vec<Value> {
    rows_from(&vectors_dir().join(file))
}

/// A byte field of a row: `field` as UTF-8, or `field_base64` decoded (V12.2). `None` if absent.
#[must_use]
pub fn bytes_field(row: &Value, field: &str) -> Option<Vec<u8>> {
    if let Some(s) = row.get(field).and_then(Value::as_str) {
        return Some(s.as_bytes().to_vec());
    }
    row.get(format!("{field}_base64")).and_then(Value::as_str).map(base64_decode)
}

/// The row's name, for messages.
#[must_use]
pub fn name(row: &Value) -> &str {
    row.get("name").and_then(Value::as_str).unwrap_or("<unnamed>")
}

/// Whether the row asks for `(NULL, 0)` instead of a pointer to zero bytes.
#[must_use]
pub fn null_ptr(row: &Value) -> bool {
    row.get("null_ptr").and_then(Value::as_bool).unwrap_or(false)
}

/// Pointer for a byte field per V12.2: NULL when the row says `null_ptr`.
#[must_use]
pub fn ptr_of(row: &Value, bytes: &[u8]) -> *const u8 {
    if null_ptr(row) { std::ptr::null() } else { bytes.as_ptr() }
}

/// Standard base64 decoding for test data (independent of the library's own decoder).
#[must_use]
pub fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in text.as_bytes() {
        if c == b'=' {
            break;
        }
        let v = ALPHABET.iter().position(|&a| a == c).unwrap_or_else(|| panic!("bad base64 in test data")) as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Lower-case hex of bytes.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
