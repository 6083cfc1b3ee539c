//! The committed header `include/loopcompact.h` is the artefact of the C ABI: downstream builds never
//! run cbindgen (`tests/header.rs` regenerates it with a pinned cbindgen and diffs). This script only
//! checks that the committed header belongs to this version of the crate and warns otherwise: its
//! version string and `LC_ABI_VERSION` must be Cargo's version and the literal of
//! `src/abi_version.rs` (a warning, not an error, so that the test that rewrites it still builds).

use std::path::Path;

fn define<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.lines().find_map(|line| {
        let mut words = line.strip_prefix("#define ")?.split_whitespace();
        (words.next()? == name).then_some(())?;
        words.next()
    })
}

fn main() {
    println!("cargo:rerun-if-changed=include/loopcompact.h");
    println!("cargo:rerun-if-changed=src/abi_version.rs");
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let header = std::fs::read_to_string(Path::new(&dir).join("include").join("loopcompact.h")).unwrap_or_default();
    let abi = std::fs::read_to_string(Path::new(&dir).join("src").join("abi_version.rs")).unwrap_or_default();
    let abi = abi.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("//")).unwrap_or("");
    let version = format!("\"{}\"", std::env::var("CARGO_PKG_VERSION").unwrap_or_default());
    let stale = [("LOOPCOMPACT_VERSION_STRING", version.as_str()), ("LC_ABI_VERSION", abi)]
        .into_iter()
        .filter(|(name, want)| define(&header, name) != Some(want))
        .map(|(name, want)| format!("{name} should be {want}"))
        .collect::<Vec<_>>();
    if !stale.is_empty() {
        // Not a hard error: the header test reports the whole difference and how to regenerate.
        println!(
            "cargo:warning=include/loopcompact.h is stale ({}); run `LOOPCOMPACT_UPDATE_HEADER=1 cargo test --test header`",
            stale.join(", ")
        );
    }
}
