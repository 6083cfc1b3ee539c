//! The contract shipped with the code: `docs/SPEC.md` §0–§12 and the bundled vectors
//! (`tests/vectors/`) must equal `../shared/SPEC.md` and `../shared/vectors` wherever `../shared`
//! exists, so that a clone without it still builds and tests against the current contract. From
//! §13 on, `docs/SPEC.md` is the project's own (what it adds beyond the reference). The generators
//! of the realistic benchmark inputs (`benches/gen/`) must equal `../shared/bench`'s too, byte for
//! byte, so that their output (and the "realistic" rows of BENCHMARKS.md) is the same for every
//! size.
//!
//! A plain `main` (harness = false): each check prints one line, and a check skipped because
//! `../shared` is absent says so on its own line instead of passing silently.

use std::path::{Path, PathBuf};

const VECTOR_FILES: [&str; 5] =
    ["summary_xml.jsonl", "input.jsonl", "output.jsonl", "policy.jsonl", "fingerprint.jsonl"];

const BENCH_GENERATORS: [&str; 2] = ["make_transcript.py", "make_summary.py"];

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn shared() -> Option<PathBuf> {
    let dir = manifest().join("..").join("shared");
    dir.is_dir().then_some(dir)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("read {}: {e}", path.display()))
}

/// The text of a SPEC document before its `## 13.` heading (all of it when there is none).
fn reference_sections(spec: &str) -> &str {
    spec.find("\n## 13.").map_or(spec, |at| &spec[..at]).trim_end()
}

fn spec_equals_shared(shared: &Path) -> Result<String, String> {
    let ours = read(&manifest().join("docs/SPEC.md"))?;
    let theirs = read(&shared.join("SPEC.md"))?;
    let (ours, theirs) = (reference_sections(&ours), reference_sections(&theirs));
    if ours != theirs {
        let common = ours.lines().count().min(theirs.lines().count());
        let line = ours.lines().zip(theirs.lines()).position(|(a, b)| a != b).unwrap_or(common) + 1;
        return Err(format!(
            "docs/SPEC.md §0-§12 differ from ../shared/SPEC.md (first at line {line}): copy them again"
        ));
    }
    Ok(format!("docs/SPEC.md §0-§12 equal ../shared/SPEC.md ({} lines)", ours.lines().count()))
}

fn vectors_equal_shared(shared: &Path) -> Result<String, String> {
    for file in VECTOR_FILES {
        let ours = read(&manifest().join("tests/vectors").join(file))?;
        let theirs = read(&shared.join("vectors").join(file))?;
        if ours != theirs {
            return Err(format!("tests/vectors/{file} differs from ../shared/vectors/{file}: copy it again"));
        }
    }
    Ok(format!("tests/vectors equal ../shared/vectors ({} files)", VECTOR_FILES.len()))
}

/// The generators the benchmarks run (`benches/gen/`, which BENCHMARKS.md cites) against the
/// reference's (`../shared/bench`): the same script gives the same bytes for every size.
fn bench_generators_equal_shared(shared: &Path) -> Result<String, String> {
    for file in BENCH_GENERATORS {
        let ours = read(&manifest().join("benches/gen").join(file))?;
        let theirs = read(&shared.join("bench").join(file))?;
        if ours != theirs {
            return Err(format!("benches/gen/{file} differs from ../shared/bench/{file}: copy it again"));
        }
    }
    Ok(format!("benches/gen equals ../shared/bench ({} generators)", BENCH_GENERATORS.len()))
}

fn vectors_well_formed() -> Result<String, String> {
    let mut rows = 0;
    for file in VECTOR_FILES {
        let text = read(&manifest().join("tests/vectors").join(file))?;
        let mut names = std::collections::HashSet::new();
        for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            let row: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("{file} line {}: {e}", i + 1))?;
            let name = row.get("name").and_then(|n| n.as_str()).ok_or(format!("{file} line {}: no name", i + 1))?;
            if !names.insert(name.to_owned()) {
                return Err(format!("{file}: duplicate row name {name}"));
            }
            if row.get("expect").is_none() {
                return Err(format!("{file}: row {name} lacks expect"));
            }
            rows += 1;
        }
        if names.is_empty() {
            return Err(format!("{file} has no rows"));
        }
    }
    Ok(format!("tests/vectors are well-formed ({rows} rows, names unique)"))
}

fn main() {
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let shared = shared();
    let checks: [(&str, Option<Result<String, String>>); 4] = [
        ("spec", shared.as_deref().map(spec_equals_shared)),
        ("vectors", shared.as_deref().map(vectors_equal_shared)),
        ("bench generators", shared.as_deref().map(bench_generators_equal_shared)),
        ("well-formed", Some(vectors_well_formed())),
    ];
    for (name, outcome) in checks {
        match outcome {
            None => {
                skipped += 1;
                println!("contract_sync {name}: SKIPPED: ../shared is absent, the bundled copy is not compared");
            }
            Some(Ok(what)) => {
                passed += 1;
                println!("contract_sync {name}: ok: {what}");
            }
            Some(Err(why)) => {
                failed += 1;
                println!("contract_sync {name}: FAILED: {why}");
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}
