//! The committed header `include/loopcompact.h` (STYLE rule 7): it is exactly what the pinned cbindgen
//! generates from `src/ffi` (`LOOPCOMPACT_UPDATE_HEADER=1 cargo test --test header` rewrites it),
//! it compiles as C99 and as C++17 under strict warnings, its version macros are Cargo's, its status
//! constants are the status table, and it declares every `lc_*` function that `src/ffi` exports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use loopcompact::Status;

/// `#define LC_...` constants that are not status codes, by prefix.
const NOT_STATUS_CONSTANTS: &[&str] = &[
    "LC_ABI_VERSION",
    "LC_FINGERPRINT_LEN",
    "LC_PRESSURE_",
    "LC_COUNTER_QUALITY_",
    "LC_CLASS_",
    "LC_SECTION_",
    "LC_OFFSET_UNKNOWN",
    "LC_LIMIT_UNKNOWN",
    "LC_LOCATION_CAP",
    "LC_STOP_",
    "LC_REPLY_TRIM",
    "LC_REPLY_UNFENCE",
    "LC_SMALLEST_SUMMARY_LEN",
    "LC_FORMAT_",
    "LC_CONVERT_STRICT",
    "LC_SOURCE_SYSTEM",
    "LC_LOSS_",
    "LC_CUT_PENDING_TAIL",
    "LC_NO_BLOCK",
    "LC_GRAMMAR_",
];

/// The macros cbindgen cannot see, written after the includes: the version macros (Cargo's) and the
/// status codes (the status table, `Status::ALL`).
fn prelude() -> String {
    let mut out = String::from("/* Version of the library these declarations come from. */\n");
    for (name, value) in [
        ("MAJOR", env!("CARGO_PKG_VERSION_MAJOR")),
        ("MINOR", env!("CARGO_PKG_VERSION_MINOR")),
        ("PATCH", env!("CARGO_PKG_VERSION_PATCH")),
    ] {
        out.push_str(&format!("#define LOOPCOMPACT_VERSION_{name} {value}\n"));
    }
    out.push_str(&format!("#define LOOPCOMPACT_VERSION_STRING \"{}\"\n", env!("CARGO_PKG_VERSION")));
    out.push_str("/** ABI version: what lc_abi_version() returns for this header. */\n");
    out.push_str(&format!("#define LC_ABI_VERSION {}\n\n", loopcompact::ABI_VERSION));
    out.push_str("/* Status codes (lc_status). Values are stable forever. */\n");
    for status in Status::ALL {
        out.push_str(&format!(
            "/** {} (reason \"{}\"): {} */\n#define {} {}\n",
            status.code(),
            status.reason(),
            status.message(),
            status.name(),
            status.code()
        ));
    }
    out
}

/// The header as the pinned cbindgen generates it from `src/ffi` and `cbindgen.toml`.
fn generated() -> String {
    let mut config = cbindgen::Config::from_file(manifest_dir().join("cbindgen.toml")).expect("read cbindgen.toml");
    config.after_includes = Some(prelude());
    let mut out = Vec::new();
    cbindgen::Builder::new()
        // Only the C ABI module: public Rust constants elsewhere in the crate are not C API.
        .with_src(manifest_dir().join("src").join("ffi").join("mod.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen failed to generate the header")
        .write(&mut out);
    String::from_utf8(out).expect("cbindgen wrote UTF-8")
}

/// Exports deliberately left out of the header (cbindgen.toml `[export] exclude`): debug-only hooks.
const NOT_IN_HEADER: &[&str] = &["lc_debug_panic"];

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn committed() -> String {
    let path = manifest_dir().join("include").join("loopcompact.h");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// `#define NAME VALUE` lines of the header, in order.
fn defines(header: &str) -> Vec<(&str, &str)> {
    header
        .lines()
        .filter_map(|line| {
            let mut words = line.strip_prefix("#define ")?.split_whitespace();
            let name = words.next()?;
            let value = words.next()?;
            Some((name, value))
        })
        .collect()
}

fn define<'a>(header: &'a str, name: &str) -> &'a str {
    defines(header)
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("the header does not #define {name}"))
}

/// Names of the functions the header declares: an `lc_` identifier directly followed by `(` on a
/// line that is not a comment or a preprocessor line (cbindgen writes each declaration on one line).
fn declared_functions(header: &str) -> BTreeSet<String> {
    header
        .lines()
        .map(str::trim_start)
        .filter(|line| !(line.starts_with('#') || line.starts_with('*') || line.starts_with('/')))
        .filter_map(|line| {
            let paren = line.find('(')?;
            let before = &line[..paren];
            let start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
            let name = &before[start..];
            name.starts_with("lc_").then(|| name.to_owned())
        })
        .collect()
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Names of the `pub ... extern "C" fn lc_*` functions defined in `src/ffi`.
fn exported_functions() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&manifest_dir().join("src").join("ffi"), &mut files);
    let mut names = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().map(str::trim_start) {
            if !line.starts_with("pub ") {
                continue;
            }
            let Some(at) = line.find("extern \"C\" fn ") else {
                continue;
            };
            let rest = &line[at + "extern \"C\" fn ".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name.starts_with("lc_") {
                names.insert(name);
            }
        }
    }
    names
}

#[test]
fn committed_header_is_the_generated_one() {
    let committed = committed();
    let generated = generated();
    if committed == generated {
        return;
    }
    if std::env::var("LOOPCOMPACT_UPDATE_HEADER").as_deref() == Ok("1") {
        std::fs::write(manifest_dir().join("include").join("loopcompact.h"), &generated).expect("write the header");
        eprintln!("include/loopcompact.h rewritten");
        return;
    }
    let first_difference = committed.lines().zip(generated.lines()).enumerate().find(|(_, (a, b))| a != b).map_or_else(
        || {
            format!(
                "one is a prefix of the other ({} vs {} lines)",
                committed.lines().count(),
                generated.lines().count()
            )
        },
        |(i, (a, b))| format!("line {}:\n  committed: {a}\n  generated: {b}", i + 1),
    );
    panic!(
        "include/loopcompact.h is out of date with the sources; run `LOOPCOMPACT_UPDATE_HEADER=1 cargo test --test header` \
         and commit the result. First difference at {first_difference}"
    );
}

/// A translation unit that includes the header and checks, at compile time, the version macros and a
/// few status values (written here from SPEC §3, not from the header), and the prototypes.
fn check_unit() -> String {
    format!(
        r#"#include "loopcompact.h"

#ifdef __cplusplus
#define LC_CHECK(name, cond) static_assert(cond, #name)
#else
#define LC_CHECK(name, cond) typedef char lc_check_##name[(cond) ? 1 : -1]
#endif

LC_CHECK(major, LOOPCOMPACT_VERSION_MAJOR == {major});
LC_CHECK(minor, LOOPCOMPACT_VERSION_MINOR == {minor});
LC_CHECK(patch, LOOPCOMPACT_VERSION_PATCH == {patch});
LC_CHECK(version_string, sizeof(LOOPCOMPACT_VERSION_STRING) == sizeof("{version}"));
LC_CHECK(abi, LC_ABI_VERSION == {abi}u);
LC_CHECK(ok, LC_OK == 0);
LC_CHECK(null_argument, LC_ERR_NULL_ARGUMENT == 1);
LC_CHECK(buffer_too_small, LC_ERR_BUFFER_TOO_SMALL == 2);
LC_CHECK(length_overflow, LC_ERR_LENGTH_OVERFLOW == 3);
LC_CHECK(panic, LC_ERR_PANIC == 99);
LC_CHECK(xml_syntax, LC_SUMMARY_XML_SYNTAX == 206);
LC_CHECK(xml_content, LC_SUMMARY_XML_CONTENT == 209);
LC_CHECK(context_policy, LC_CONTEXT_CONFLICTING_POLICY == 341);
LC_CHECK(encoding, LC_FINGERPRINT_ENCODING == 408);
LC_CHECK(status_width, sizeof(lc_status) == 4);

int lc_header_check(void);
int lc_header_check(void)
{{
    const char *(*version)(void) = lc_version;
    uint32_t (*abi_version)(void) = lc_abi_version;
    const char *(*name)(lc_status) = lc_status_name;
    const char *(*reason)(lc_status) = lc_status_reason;
    const char *(*message)(lc_status) = lc_status_message;
    lc_status (*validate)(const uint8_t *, size_t) = lc_summary_xml_validate;
    return version != NULL && abi_version != NULL && name != NULL && reason != NULL && message != NULL &&
           validate != NULL;
}}
"#,
        major = env!("CARGO_PKG_VERSION_MAJOR"),
        minor = env!("CARGO_PKG_VERSION_MINOR"),
        patch = env!("CARGO_PKG_VERSION_PATCH"),
        version = env!("CARGO_PKG_VERSION"),
        abi = loopcompact::ffi::lc_abi_version(),
    )
}

/// Compiles the check unit (syntax only) with `compiler`, failing with the compiler's output.
fn compile_check(compiler: &str, std: &str, file_name: &str) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("header");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join(file_name);
    std::fs::write(&source, check_unit()).unwrap();
    let output = Command::new(compiler)
        .args([std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-I"])
        .arg(manifest_dir().join("include"))
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{compiler}` (a C toolchain is required): {e}"));
    assert!(
        output.status.success(),
        "include/loopcompact.h does not compile with `{compiler} {std}`:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn header_compiles_as_c99() {
    compile_check("cc", "-std=c99", "check.c");
}

#[test]
fn header_compiles_as_cxx17() {
    compile_check("c++", "-std=c++17", "check.cpp");
}

/// The C++17 wrapper `include/loopcompact.hpp` on its own (nothing included before it), under the
/// warnings a strict C++ host adds: every `bytes_view` conversion and every wrapper's signature
/// instantiated. `examples/cpp/roundtrip.cpp` runs it (tests/c_examples.rs).
const HPP_CHECK_UNIT: &str = r#"#include "loopcompact.hpp"

#include <type_traits>

namespace lc = loopcompact;

static_assert(!std::is_copy_constructible_v<lc::Input> && std::is_nothrow_move_constructible_v<lc::Input>,
              "Input is move-only");
static_assert(std::is_base_of_v<std::runtime_error, lc::Error>, "Error is a std::runtime_error");
static_assert(std::is_same_v<decltype(lc::request_fingerprint("")), lc::Fingerprint>, "digest");
static_assert(std::is_same_v<decltype(lc::summary_sections("")), std::array<lc_span, 5>>, "sections");
static_assert(std::is_same_v<lc::CompactResult, std::variant<lc::Compacted, lc::KeepHistory>>, "round result");

// A function object as call_model (the round also takes lambdas and std::function).
struct ScriptedModel {
    lc::SummaryReply operator()(const lc::SummaryRequest &request) const
    {
        return lc::SummaryReply{request.system, request.max_tokens, LC_STOP_END};
    }
};

int lc_hpp_check(const lc::Input &input);
int lc_hpp_check(const lc::Input &input)
{
    const std::vector<std::uint8_t> bytes;
    const std::vector<char> chars;
    const std::array<std::uint8_t, 2> array{};
    const std::string text;
    const lc::bytes_view views[] = {bytes, chars, array, text, std::string_view(text), "literal",
                                    lc::bytes_view(bytes.data(), bytes.size())};
    std::size_t total = 0;
    for (const lc::bytes_view view : views) {
        total += view.size();
    }
    const std::string summary = input.validate_output(text, 1, 2);
    const std::uint64_t cut = input.safe_cut(2) + input.message_count() + input.leading_systems() + input.max_summary_tokens();
    input.check_cut(cut);
    input.check_pairing();
    const lc_resolved_limits limits = lc::resolve_limits(lc_context_limits{1, 2, 3}, 4, 5);
    const std::int32_t level = lc::pressure_level(LC_PRESSURE_NORMAL, lc::occupancy_basis_points(1, 2), true, 8000, 6000);

    // The round (SPEC §15).
    lc::ReplyOptions reply_options;
    reply_options.output_tokens = 1;
    reply_options.stop = LC_STOP_LENGTH;
    reply_options.max_reply_bytes = LC_SMALLEST_SUMMARY_LEN;
    reply_options.trim = true;
    const std::string accepted = input.validate_reply(text, reply_options);
    const lc::ReplyVerdict verdict = input.diagnose_reply(bytes, reply_options);
    const std::vector<std::uint8_t> head = input.encode_head_within(cut, 100);
    const std::vector<std::uint8_t> replacement = input.build_replacement(cut, accepted);
    input.verify_replacement(cut, replacement);
    lc::CompactOptions options;
    options.keep_last = 2;
    options.max_reply_bytes = 4096;
    options.on_error = lc::OnError::keep_history;
    options.on_attempt = [&total](const lc::Attempt &attempt) { total += attempt.reply_bytes + attempt.diagnosis.removed_before; };
    const lc::CompactResult result = lc::compact(input, ScriptedModel{}, options);
    const std::function<lc::SummaryReply(const lc::SummaryRequest &)> model = ScriptedModel{};
    const lc::CompactResult again = lc::compact(input, model);
    const lc::CompactResult third = lc::compact(input, [](const lc::SummaryRequest &) { return lc::SummaryReply{}; });
    // A streaming summariser (SPEC T17.6): the round over a SummaryReplyStream.
    const lc::CompactResult streamed = lc::compact(
        input,
        [](const lc::SummaryRequest &) {
            return lc::SummaryReplyStream{[]() -> std::optional<std::string> { return std::nullopt; },
                                          []() { return lc::SummaryUsage{1, LC_STOP_END}; }};
        },
        options);
    const std::function<lc::SummaryReplyStream(const lc::SummaryRequest &)> stream_model = [](const lc::SummaryRequest &) {
        return lc::SummaryReplyStream{};
    };
    const lc::CompactResult fourth = lc::compact(input, stream_model);
    for (const lc::Attempt &attempt : std::get<lc::KeepHistory>(streamed).attempts) {
        total += attempt.aborted ? 1u : 0u;
    }
    total += fourth.index();
    if (const lc::Compacted *compacted = std::get_if<lc::Compacted>(&result)) {
        total += compacted->replacement.size() + compacted->attempts.size();
    }
    total += std::get_if<lc::KeepHistory>(&again) != nullptr ? 1u : 0u;
    total += third.index() + head.size() + verdict.diagnostic.removed_after;
    return static_cast<int>(total + summary.size() + limits.input_limit) + level;
}
"#;

#[test]
fn cxx_wrapper_compiles_alone_under_strict_warnings() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("header");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("check_hpp.cpp");
    std::fs::write(&source, HPP_CHECK_UNIT).unwrap();
    let output = Command::new("c++")
        .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion", "-Wsign-conversion"])
        .args(["-Wshadow", "-Wold-style-cast", "-Wnon-virtual-dtor", "-fsyntax-only", "-I"])
        .arg(manifest_dir().join("include"))
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `c++` (a C++ toolchain is required): {e}"));
    assert!(
        output.status.success(),
        "include/loopcompact.hpp does not compile on its own:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// R15.12: what call_model returns is a reply by its type. A callable returning anything else does
/// not compile, and the compiler says why.
#[test]
fn cxx_compact_refuses_a_model_that_returns_no_reply() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("header");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("check_hpp_no_reply.cpp");
    std::fs::write(
        &source,
        "#include \"loopcompact.hpp\"\n\
         int f(const loopcompact::Input &input);\n\
         int f(const loopcompact::Input &input)\n\
         {\n\
         \x20   return static_cast<int>(loopcompact::compact(input, [](const loopcompact::SummaryRequest &) { \
         return std::string(\"<conversation_summary/>\"); }).index());\n\
         }\n",
    )
    .unwrap();
    let output = Command::new("c++")
        .args(["-std=c++17", "-fsyntax-only", "-I"])
        .arg(manifest_dir().join("include"))
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `c++` (a C++ toolchain is required): {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a call_model returning std::string compiled");
    assert!(stderr.contains("call_model must be callable"), "not the round's static_assert:\n{stderr}");
}

#[test]
fn version_macros_are_cargos() {
    let header = committed();
    assert_eq!(define(&header, "LOOPCOMPACT_VERSION_MAJOR"), env!("CARGO_PKG_VERSION_MAJOR"));
    assert_eq!(define(&header, "LOOPCOMPACT_VERSION_MINOR"), env!("CARGO_PKG_VERSION_MINOR"));
    assert_eq!(define(&header, "LOOPCOMPACT_VERSION_PATCH"), env!("CARGO_PKG_VERSION_PATCH"));
    assert_eq!(define(&header, "LOOPCOMPACT_VERSION_STRING"), format!("\"{}\"", env!("CARGO_PKG_VERSION")));
    assert_eq!(define(&header, "LC_ABI_VERSION"), loopcompact::ffi::lc_abi_version().to_string());
}

#[test]
fn status_constants_are_the_status_table() {
    let header = committed();
    let in_header: BTreeMap<&str, i32> = defines(&header)
        .into_iter()
        .filter(|(name, _)| name.starts_with("LC_") && !NOT_STATUS_CONSTANTS.iter().any(|p| name.starts_with(p)))
        .map(|(name, value)| (name, value.parse().unwrap_or_else(|_| panic!("{name} is not an integer: {value}"))))
        .collect();
    let in_table: BTreeMap<&str, i32> = Status::ALL.iter().map(|s| (s.name(), s.code())).collect();
    for (name, value) in &in_header {
        assert_eq!(in_table.get(name), Some(value), "header constant {name} = {value} is not in Status::ALL");
    }
    for (name, value) in &in_table {
        assert_eq!(in_header.get(name), Some(value), "Status::ALL has {name} = {value}, the header does not");
    }
}

#[test]
fn every_export_is_declared() {
    let header = committed();
    let declared = declared_functions(&header);
    let exported = exported_functions();
    assert!(exported.contains("lc_summary_xml_validate"), "the src/ffi scan found nothing: {exported:?}");
    for name in &exported {
        if NOT_IN_HEADER.contains(&name.as_str()) {
            assert!(!declared.contains(name), "{name} is debug-only and must not be in the header");
        } else {
            assert!(declared.contains(name), "src/ffi exports {name}, the header does not declare it");
        }
    }
    for name in &declared {
        assert!(exported.contains(name), "the header declares {name}, src/ffi does not export it");
    }
}

/// The `lc_` names of the function index in the header's opening comment (cbindgen.toml `header`):
/// the lines from "Functions, in the order a host calls them" to the next empty comment line.
fn indexed_functions(header: &str) -> Vec<String> {
    let mut lines = header.lines().skip_while(|line| !line.contains("Functions, in the order a host calls them"));
    assert!(lines.next().is_some(), "the header's opening comment has no function index");
    let mut names = Vec::new();
    for line in lines.take_while(|line| line.trim_end() != " *") {
        let line = line
            .strip_prefix(" *")
            .unwrap_or_else(|| panic!("the function index ends without an empty comment line: {line}"));
        for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.starts_with("lc_") {
                names.push(word.to_owned());
            }
        }
    }
    names
}

/// "Every C function has its wrapper" (include/loopcompact.hpp): each declared function is used by
/// the wrapper, or its `_diagnose` sibling is (the plain validators are reached through it). The
/// three input counts were missing until this test.
#[test]
fn the_cxx_wrapper_calls_every_declared_function() {
    let hpp = std::fs::read_to_string(manifest_dir().join("include").join("loopcompact.hpp")).expect("loopcompact.hpp");
    // Called, or passed as a function pointer to a helper that calls it.
    let called = |name: &str| ["(", ")", ","].iter().any(|next| hpp.contains(&format!("{name}{next}")));
    let missing: Vec<String> = declared_functions(&committed())
        .into_iter()
        .filter(|f| !called(f) && !called(&format!("{f}_diagnose")) && !called(&f.replace("_validate", "_diagnose")))
        .collect();
    assert!(missing.is_empty(), "functions without a C++ wrapper: {missing:?}");
}

#[test]
fn the_function_index_lists_every_declared_function_once() {
    let header = committed();
    let declared = declared_functions(&header);
    let indexed = indexed_functions(&header);
    let unique: BTreeSet<String> = indexed.iter().cloned().collect();
    assert_eq!(unique.len(), indexed.len(), "a function appears twice in the header's function index: {indexed:?}");
    let missing: Vec<_> = declared.difference(&unique).collect();
    assert!(missing.is_empty(), "the header's function index (cbindgen.toml `header`) does not list {missing:?}");
    let unknown: Vec<_> = unique.difference(&declared).collect();
    assert!(unknown.is_empty(), "the header's function index lists {unknown:?}, which the header does not declare");
}
#[test]
fn small_enums_are_header_constants_with_the_cores_values() {
    use loopcompact::limits::PressureLevel;
    use loopcompact::policy::capability::quality;
    let header = committed();
    let value = |name: &str| define(&header, name).parse::<i32>().unwrap_or_else(|_| panic!("{name}"));
    for (name, level) in [
        ("LC_PRESSURE_UNKNOWN", PressureLevel::Unknown),
        ("LC_PRESSURE_NORMAL", PressureLevel::Normal),
        ("LC_PRESSURE_COMPACT", PressureLevel::Compact),
        ("LC_PRESSURE_HARD_LIMIT", PressureLevel::HardLimit),
    ] {
        assert_eq!(value(name), level.code(), "{name}");
    }
    for (name, q) in [
        ("LC_COUNTER_QUALITY_UNKNOWN", quality::UNKNOWN),
        ("LC_COUNTER_QUALITY_EXACT_PROVIDER", quality::EXACT_PROVIDER),
        ("LC_COUNTER_QUALITY_EXACT_LOCAL", quality::EXACT_LOCAL),
        ("LC_COUNTER_QUALITY_HEURISTIC", quality::HEURISTIC),
    ] {
        assert_eq!(value(name), i32::from(q), "{name}");
    }
    use loopcompact::round::{REPLY_TRIM, REPLY_UNFENCE, SMALLEST_SUMMARY, Stop};
    for (name, stop) in
        [("LC_STOP_UNKNOWN", Stop::Unknown), ("LC_STOP_END", Stop::End), ("LC_STOP_LENGTH", Stop::Length)]
    {
        assert_eq!(value(name), stop.code(), "{name}");
    }
    assert_eq!(value("LC_REPLY_TRIM") as u32, REPLY_TRIM);
    assert_eq!(value("LC_REPLY_UNFENCE") as u32, REPLY_UNFENCE);
    assert_eq!(value("LC_SMALLEST_SUMMARY_LEN") as usize, SMALLEST_SUMMARY.len());
    // And what SPEC P8.4, L9.3 and R15.1 number them, written here from the spec.
    assert_eq!(value("LC_COUNTER_QUALITY_HEURISTIC"), 3);
    assert_eq!(value("LC_PRESSURE_HARD_LIMIT"), 3);
    assert_eq!((value("LC_STOP_UNKNOWN"), value("LC_STOP_END"), value("LC_STOP_LENGTH")), (0, 1, 2));
    assert_eq!((value("LC_REPLY_TRIM"), value("LC_REPLY_UNFENCE")), (1, 2));
    assert_eq!(value("LC_SMALLEST_SUMMARY_LEN"), 114);
}
