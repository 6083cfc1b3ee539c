//! Deterministic realistic inputs, the same on every run: for the benchmarks (`benches/`), the
//! measuring tools (`benches/tools/`) and the tests whose subject is size.

pub mod convert;
pub mod summary;
pub mod wire;

use std::path::Path;
use std::process::Command;

/// `../shared/bench/<script> <size>`'s output (the realistic generators that sit beside the
/// checkout), or why there is none: `../shared` may be absent, and so may python3.
pub fn generated(script: &str, size: usize) -> Result<Vec<u8>, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench").join(script);
    if !path.is_file() {
        return Err("../shared/bench absent".into());
    }
    match Command::new("python3").arg(&path).arg(size.to_string()).output() {
        Ok(out) if out.status.success() => Ok(out.stdout),
        Ok(out) => Err(format!("python3 {script} {size}: {}", out.status)),
        Err(e) => Err(format!("python3 {script} {size}: {e}")),
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
