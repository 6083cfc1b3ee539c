//! Generates `include/loopcompact.h` with cbindgen into OUT_DIR and compares it with the committed
//! header. The committed header is rewritten only when `LOOPCOMPACT_UPDATE_HEADER=1`; otherwise a
//! difference is a warning here and a failure in `tests/header.rs`.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

/// Builds the `#define` block of the status codes from the same table as `src/status.rs`.
macro_rules! status_table {
    ($(($value:literal, $variant:ident, $cname:ident, $reason:literal, $message:literal)),* $(,)?) => {
        fn status_defines() -> String {
            let mut out = String::from("/* Status codes (lc_status). Values are stable forever. */\n");
            $(
                let _ = writeln!(
                    out,
                    "/** {} (reason \"{}\"): {} */\n#define {} {}",
                    $value, $reason, $message, stringify!($cname), $value
                );
            )*
            out
        }
    };
}
include!("src/status_table.rs");

fn abi_version(manifest: &str) -> u32 {
    let mut in_section = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_section = line == "[package.metadata.loopcompact]";
        } else if in_section && let Some(rest) = line.strip_prefix("abi-version") {
            let value = rest.trim_start().trim_start_matches('=').trim();
            return value.parse().expect("abi-version must be an unsigned integer");
        }
    }
    panic!("Cargo.toml lacks [package.metadata.loopcompact] abi-version");
}

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-env-changed=LOOPCOMPACT_UPDATE_HEADER");

    let manifest = fs::read_to_string(dir.join("Cargo.toml")).expect("read Cargo.toml");
    let abi = abi_version(&manifest);
    println!("cargo:rustc-env=LOOPCOMPACT_ABI_VERSION={abi}");

    let version = env::var("CARGO_PKG_VERSION").expect("CARGO_PKG_VERSION");
    let mut prelude = String::new();
    let _ = writeln!(prelude, "/* Version of the library these declarations come from. */");
    for (name, var) in [
        ("MAJOR", "CARGO_PKG_VERSION_MAJOR"),
        ("MINOR", "CARGO_PKG_VERSION_MINOR"),
        ("PATCH", "CARGO_PKG_VERSION_PATCH"),
    ] {
        let _ = writeln!(prelude, "#define LOOPCOMPACT_VERSION_{name} {}", env::var(var).expect(var));
    }
    let _ = writeln!(prelude, "#define LOOPCOMPACT_VERSION_STRING \"{version}\"");
    let _ = writeln!(prelude, "/** ABI version: what lc_abi_version() returns for this header. */");
    let _ = writeln!(prelude, "#define LC_ABI_VERSION {abi}\n");
    prelude.push_str(&status_defines());

    let mut config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    config.after_includes = Some(prelude);
    let generated = out_dir.join("loopcompact.h");
    cbindgen::Builder::new()
        // Only the C ABI module: public Rust constants elsewhere in the crate are not C API.
        .with_src(dir.join("src").join("ffi").join("mod.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen failed to generate the header")
        .write_to_file(&generated);

    let committed = dir.join("include").join("loopcompact.h");
    let new = fs::read(&generated).expect("read generated header");
    let old = fs::read(&committed).unwrap_or_default();
    if new != old {
        if env::var("LOOPCOMPACT_UPDATE_HEADER").as_deref() == Ok("1") {
            fs::create_dir_all(committed.parent().expect("include dir")).expect("create include/");
            fs::write(&committed, &new).expect("write include/loopcompact.h");
        } else {
            println!(
                "cargo:warning=include/loopcompact.h is out of date; run `LOOPCOMPACT_UPDATE_HEADER=1 cargo build`"
            );
        }
    }
}
