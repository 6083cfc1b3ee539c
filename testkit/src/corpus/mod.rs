//! Deterministic realistic inputs, the same on every run: for the benchmarks (`benches/`), the
//! measuring tools (`benches/tools/`) and the tests whose subject is size.

pub mod convert;
pub mod summary;
pub mod wire;

use std::path::Path;
use std::process::Command;

/// `benches/gen/<script> <size>`'s output (the realistic generators of the benchmarks, run with
/// python3), or why there is none: python3 may be missing.
pub fn generated(script: &str, size: usize) -> Result<Vec<u8>, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/gen").join(script);
    match Command::new("python3").arg(&path).arg(size.to_string()).output() {
        Ok(out) if out.status.success() => Ok(out.stdout),
        Ok(out) => Err(format!("python3 benches/gen/{script} {size}: {}", out.status)),
        Err(e) => Err(format!("python3 benches/gen/{script} {size}: {e}")),
    }
}

/// `count` copies of `item`, comma-separated: the body of a JSON array of millions of tiny things
/// (the shape zoo of tests/resource_bounds.rs and benches/tools/shapes.rs).
pub fn repeated(item: &str, count: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity((item.len() + 1) * count);
    for i in 0..count {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item.as_bytes());
    }
    out
}
