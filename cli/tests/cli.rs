//! Runs the `loopcompact` command-line tool (cli/src/main.rs) as a user would: every
//! subcommand on valid and invalid documents, `--json`, standard input, usage and I/O errors, and
//! every public conformance vector through `--json` (the verdict must be the row's expectation).
//!
//! Documents come from the bundled vectors (tests/vectors) and examples/data, so the expected
//! verdicts are the spec's, not the tool's.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use testkit::vectors::{bytes_field, rows};

const BIN: &str = env!("CARGO_BIN_EXE_loopcompact");

/// The repository root (the tool's package is `cli/`): the tool runs there, with the bundled
/// examples and vectors at their usual paths.
fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli/ sits in the repository")
}

/// Runs the tool from the manifest directory with `stdin` on standard input.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(manifest_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    let mut pipe = child.stdin.take().unwrap();
    // The tool may exit (usage error) before reading: a broken pipe is fine.
    let _ = pipe.write_all(stdin);
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn describe(args: &[&str], output: &Output) -> String {
    format!(
        "loopcompact {args:?}: exit {:?}, stdout {:?}, stderr {:?}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs the tool and checks the exit status; returns the output.
fn expect_exit(args: &[&str], stdin: &[u8], code: i32) -> Output {
    let output = run(args, stdin);
    assert_eq!(output.status.code(), Some(code), "{}", describe(args, &output));
    output
}

/// Runs the tool with `--json` and returns the one JSON object it printed.
fn json(args: &[&str], stdin: &[u8], code: i32) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = expect_exit(&all, stdin, code);
    let text = stdout(&output);
    assert_eq!(text.lines().count(), 1, "{}", describe(&all, &output));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {}", describe(&all, &output)))
}

/// A file holding `bytes` in this test binary's temporary directory.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn row(file: &str, name: &str) -> Value {
    rows(file).into_iter().find(|r| r["name"] == name).unwrap_or_else(|| panic!("{file} has no row {name:?}"))
}

/// A byte field of a vector row: `x`, or `x_base64` when it is not UTF-8 (V12.2).
fn bytes(row: &Value, field: &str) -> Vec<u8> {
    bytes_field(row, field).unwrap_or_else(|| panic!("row without {field}: {row}"))
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

// ---- summary -------------------------------------------------------------------------------

#[test]
fn summary_valid_and_rejected() {
    let output = expect_exit(&["summary", "examples/data/summary_valid.xml"], b"", 0);
    assert_eq!(stdout(&output), "summary: valid (LC_OK)\n");

    let output = expect_exit(&["summary", "examples/data/summary_bad_root.xml"], b"", 1);
    let text = stdout(&output);
    assert!(text.starts_with("summary: rejected: LC_SUMMARY_XML_ROOT (207) reason xml_root at byte "), "{text}");
    assert!(text.ends_with("The summary's root element is missing or is not conversation_summary.\n"), "{text}");
    assert!(output.stderr.is_empty());
}

#[test]
fn summary_json_from_stdin() {
    // X4.6: &nbsp; is not a predefined entity; the offset points into the document.
    let xml = std::fs::read(manifest_dir().join("examples/data/summary_bad_syntax.xml")).unwrap();
    let v = json(&["summary", "-"], &xml, 1);
    assert_eq!(v["ok"], false);
    assert_eq!(v["document"], "summary");
    assert_eq!(v["status"], 206);
    assert_eq!(v["name"], "LC_SUMMARY_XML_SYNTAX");
    assert_eq!(v["reason"], "xml_syntax");
    assert_eq!(v["message"], "The summary is not well-formed XML.");
    let offset = v["offset"].as_u64().expect("a syntax error has an offset") as usize;
    assert!(offset < xml.len());
    assert_eq!(xml.get(offset), Some(&b'&'), "the offset of &nbsp;");

    let v = json(&["summary", "-"], b"<conversation_summary><goal>g</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>", 0);
    assert_eq!(
        v,
        serde_json::json!({"ok": true, "document": "summary", "status": 0, "name": "LC_OK", "reason": "", "message": "Success.",
            "class": "ok", "offset": null, "line": null, "column": null, "section": null, "rule": null, "expected": null,
            "location": null, "limit": null, "actual": null})
    );

    // An empty standard input is the empty document: xml_root (X4.19).
    let v = json(&["summary", "-"], b"", 1);
    assert_eq!(v["name"], "LC_SUMMARY_XML_ROOT");
}

// ---- input ---------------------------------------------------------------------------------

#[test]
fn input_valid_and_rejected() {
    let valid = temp_file("input_valid.json", &bytes(&row("input.jsonl", "canonical v1 round trip"), "input"));
    let output = expect_exit(&["input", path_str(&valid)], b"", 0);
    assert_eq!(stdout(&output), "input: valid (LC_OK)\n");

    let wrong = bytes(&row("input.jsonl", "wrong version"), "input");
    let output = expect_exit(&["input", "-"], &wrong, 1);
    assert!(stdout(&output).starts_with("input: rejected: LC_INPUT_WIRE (100) reason wire"), "{}", stdout(&output));

    let v = json(&["input", "-"], &wrong, 1);
    assert_eq!((v["status"].as_i64(), v["reason"].as_str()), (Some(100), Some("wire")));
}

// ---- output --------------------------------------------------------------------------------

fn output_files(name: &str) -> (Value, PathBuf, PathBuf) {
    let r = row("output.jsonl", name);
    let slug: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let input = temp_file(&format!("output_{slug}_in.json"), &bytes(&r, "input_wire"));
    let result = temp_file(&format!("output_{slug}_result.json"), &bytes(&r, "output"));
    (r, input, result)
}

fn numbers(r: &Value) -> (String, String) {
    (r["output_tokens"].as_u64().unwrap().to_string(), r["max_output_bytes"].as_u64().unwrap().to_string())
}

#[test]
fn output_prints_the_exact_summary() {
    let (r, input, result) = output_files("valid");
    let (tokens, max) = numbers(&r);
    let args = ["output", "--input", path_str(&input), path_str(&result), "--tokens", &tokens, "--max-bytes", &max];
    let output = expect_exit(&args, b"", 0);
    // O6.4: the decoded summary, byte for byte, no newline added.
    assert_eq!(stdout(&output), r["summary"].as_str().unwrap());

    // Options in any order, RESULT from standard input.
    let reply = std::fs::read(&result).unwrap();
    let args = ["output", "--max-bytes", &max, "-", "--tokens", &tokens, "--input", path_str(&input)];
    let v = json(&args, &reply, 0);
    assert_eq!(v["ok"], true);
    assert_eq!(v["document"], "output");
    assert_eq!(v["summary"], r["summary"]);
}

#[test]
fn output_rejections() {
    let (r, input, result) = output_files("invalid xml wrong root");
    let (tokens, max) = numbers(&r);
    let args = ["output", "--input", path_str(&input), path_str(&result), "--tokens", &tokens, "--max-bytes", &max];
    let output = expect_exit(&args, b"", 1);
    assert!(stdout(&output).starts_with("output: rejected: LC_SUMMARY_XML_ROOT (207) reason xml_root"));

    // O6.2 step 1: a zero byte limit rejects everything; step 2: no reported usage.
    let (_, input, result) = output_files("valid");
    let base = ["output", "--input", path_str(&input), path_str(&result)];
    let v = json(&[&base[..], &["--tokens", "1", "--max-bytes", "0"]].concat(), b"", 1);
    assert_eq!((v["name"].as_str(), v["offset"].is_null()), (Some("LC_SUMMARY_BYTE_LIMIT"), true));
    // R15.2: a limit below the shortest reply that can pass is the host's, one just short of the
    // reply the model's (the class is the diagnosis's).
    assert_eq!(v["class"], "host");
    let short = (std::fs::read(&result).unwrap().len() - 1).to_string();
    let v = json(&[&base[..], &["--tokens", "1", "--max-bytes", &short]].concat(), b"", 1);
    assert_eq!((v["name"].as_str(), v["class"].as_str()), (Some("LC_SUMMARY_BYTE_LIMIT"), Some("retry")));
    let v = json(&[&base[..], &["--tokens", "0", "--max-bytes", "100000"]].concat(), b"", 1);
    assert_eq!(v["name"], "LC_SUMMARY_TOKEN_USAGE");

    // An input that does not parse is reported as the input's verdict.
    let bad_input = temp_file("output_bad_input.json", b"{}");
    let args = ["output", "--input", path_str(&bad_input), path_str(&result), "--tokens", "1", "--max-bytes", "9999"];
    let v = json(&args, b"", 1);
    assert_eq!((v["document"].as_str(), v["name"].as_str()), (Some("input"), Some("LC_INPUT_WIRE")));
}

// ---- fingerprint ---------------------------------------------------------------------------

#[test]
fn fingerprint_prints_the_digest() {
    let rows = rows("fingerprint.jsonl");
    let r = rows.iter().find(|r| r["expect"] == "ok" && r.get("null_ptr").is_none()).unwrap();
    let file = temp_file("fingerprint_ok.json", &bytes(r, "input"));
    let output = expect_exit(&["fingerprint", path_str(&file)], b"", 0);
    assert_eq!(stdout(&output), format!("{}\n", r["sha256"].as_str().unwrap()));

    let v = json(&["fingerprint", "-"], &bytes(r, "input"), 0);
    assert_eq!(v["fingerprint"], r["sha256"]);
    assert_eq!(v["name"], "LC_OK");

    let output = expect_exit(&["fingerprint", "examples/data/fingerprint_bad_url.json"], b"", 1);
    assert!(stdout(&output).starts_with("fingerprint: rejected: LC_FINGERPRINT_MODEL (404) reason Model"));
    let v = json(&["fingerprint", "-"], b"[]", 1);
    assert_eq!(v["name"], "LC_FINGERPRINT_WIRE");
    assert!(v.get("fingerprint").is_none());
}

// ---- policy, context -----------------------------------------------------------------------

#[test]
fn policy_compaction_and_observation() {
    let output = expect_exit(&["policy", "examples/data/policy_valid.json", "--quality", "1"], b"", 0);
    assert_eq!(stdout(&output), "policy: valid (LC_OK)\n");
    // A3.5: 259 is an unknown quality, accepted by no CounterPolicy (not 3).
    let v = json(&["policy", "--quality", "259", "examples/data/policy_valid.json"], b"", 1);
    assert_eq!(v["name"], "LC_POLICY_COUNTER_POLICY");
    let output = expect_exit(&["policy", "examples/data/policy_bad_rearm.json", "--quality", "2"], b"", 1);
    assert!(stdout(&output).starts_with("policy: rejected: LC_POLICY_REARM_BELOW (303) reason RearmBelow"));

    let observation = br#"{"ReservedOutput":32,"SafetyMargin":0,"CountTimeout":37000001}"#;
    let v = json(&["policy", "-", "--quality", "2", "--observation"], observation, 0);
    assert_eq!(v["document"], "observation");
    let v = json(&["policy", "-", "--quality", "3", "--observation"], observation, 1);
    assert_eq!(v["name"], "LC_OBSERVATION_SAFETY_MARGIN");
    // The same document is not a compaction policy.
    let v = json(&["policy", "-", "--quality", "2"], observation, 1);
    assert_eq!(v["name"], "LC_POLICY_WIRE");
    assert!(v["offset"].is_u64());
}

#[test]
fn context_config() {
    let ok = row("policy.jsonl", "context: observation owns admission");
    let output = expect_exit(&["context", "-"], &bytes(&ok, "config"), 0);
    assert_eq!(stdout(&output), "context: valid (LC_OK)\n");
    let bad = row("policy.jsonl", "context: counter requires policy");
    let v = json(&["context", "-"], &bytes(&bad, "config"), 1);
    assert_eq!(v["name"], "LC_CONTEXT_MISSING_POLICY");
    assert_eq!(v["reason"], "missing_context_policy");
}

// ---- usage and I/O errors: exit 2, nothing on stdout ---------------------------------------

#[test]
fn usage_and_io_errors() {
    let cases: &[&[&str]] = &[
        &[],
        &["--json"],
        &["frobnicate", "x"],
        &["summary"],
        &["summary", "a", "b"],
        &["summary", "--bogus"],
        &["summary", "examples/data/no_such_file.xml"],
        &["input", "examples/data"],
        &["policy", "examples/data/policy_valid.json"],
        &["policy", "examples/data/policy_valid.json", "--quality"],
        &["policy", "examples/data/policy_valid.json", "--quality", "three"],
        &["policy", "examples/data/policy_valid.json", "--quality", "2", "--strict"],
        &["output", "--input", "-", "-", "--tokens", "1", "--max-bytes", "10"],
        &["output", "--input", "x.json", "y.json", "--tokens", "-1", "--max-bytes", "10"],
        &["output", "--input", "x.json", "y.json", "--tokens", "1"],
        &["output", "y.json", "--tokens", "1", "--max-bytes", "10"],
        &["output", "--input", "x.json", "--tokens", "1", "--max-bytes", "10"],
        &["output", "--input", "x.json", "y.json", "--tokens", "1", "--max-bytes", "18446744073709551616"],
    ];
    for args in cases {
        let output = expect_exit(args, b"", 2);
        if args.contains(&"--json") {
            // Under --json a usage or I/O error is a JSON object too (and the message on stderr).
            let v: Value =
                serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(args, &output)));
            assert_eq!(v["ok"], false);
            assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
        } else {
            assert!(output.stdout.is_empty(), "{}", describe(args, &output));
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("loopcompact: "), "{}", describe(args, &output));
    }
}

#[test]
fn help_and_version() {
    let output = expect_exit(&["--help"], b"", 0);
    let text = stdout(&output);
    assert!(text.starts_with("usage: loopcompact"), "{text}");
    for command in ["summary", "input", "output", "fingerprint", "policy", "context", "reply", "replacement"] {
        assert!(text.contains(&format!("\n  {command} ")), "help lacks {command}");
    }
    let output = expect_exit(&["--version"], b"", 0);
    assert_eq!(
        stdout(&output),
        format!("loopcompact {} (C ABI version {})\n", loopcompact::VERSION, loopcompact::ABI_VERSION)
    );
}

// ---- every public vector through --json ----------------------------------------------------

/// Runs `args` with `--json` and `stdin`; returns the verdict's `reason` or `name`, the exit code
/// and the whole verdict.
fn verdict(args: &[&str], stdin: &[u8]) -> (Value, Option<i32>) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = run(&all, stdin);
    let v: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&all, &output)));
    (v, output.status.code())
}

/// `expect` of a row against a verdict: `"ok"` or the reason string (V12.2).
fn matches(expect: &Value, v: &Value, code: Option<i32>) -> bool {
    let ok = expect == "ok";
    v["ok"] == ok && code == Some(if ok { 0 } else { 1 }) && (ok || v["reason"] == *expect)
}

#[test]
fn every_vector_row() {
    let mut failures = Vec::new();
    let mut count = 0;
    for r in rows("summary_xml.jsonl") {
        let (v, code) = verdict(&["summary", "-"], &bytes(&r, "xml"));
        count += 1;
        if !matches(&r["expect"], &v, code) {
            failures.push(format!("summary_xml {}: {v}", r["name"]));
        }
    }
    for r in rows("input.jsonl").into_iter().filter(|r| r["kind"] == "decode") {
        let (v, code) = verdict(&["input", "-"], &bytes(&r, "input"));
        count += 1;
        if !matches(&r["expect"], &v, code) {
            failures.push(format!("input {}: {v}", r["name"]));
        }
    }
    for r in rows("fingerprint.jsonl") {
        let (v, code) = verdict(&["fingerprint", "-"], &bytes(&r, "input"));
        count += 1;
        if !matches(&r["expect"], &v, code) || (r["expect"] == "ok" && v["fingerprint"] != r["sha256"]) {
            failures.push(format!("fingerprint {}: {v}", r["name"]));
        }
    }
    for (i, r) in rows("output.jsonl").into_iter().enumerate() {
        let input = temp_file(&format!("vector_output_{i}.json"), &bytes(&r, "input_wire"));
        let (tokens, max) = numbers(&r);
        let args = ["output", "--input", path_str(&input), "-", "--tokens", &tokens, "--max-bytes", &max];
        let (v, code) = verdict(&args, &bytes(&r, "output"));
        count += 1;
        if !matches(&r["expect"], &v, code) || (r["expect"] == "ok" && v["summary"] != r["summary"]) {
            failures.push(format!("output {}: {v}", r["name"]));
        }
    }
    for r in rows("policy.jsonl") {
        let (v, code) = match r["kind"].as_str().unwrap() {
            kind @ ("compaction_policy" | "observation_policy") => {
                let quality = r["counter_quality"].as_i64().unwrap().to_string();
                let mut args = vec!["policy", "-", "--quality", &quality];
                if kind == "observation_policy" {
                    args.push("--observation");
                }
                verdict(&args, &bytes(&r, "policy"))
            }
            "context_config" => {
                let (v, code) = verdict(&["context", "-"], &bytes(&r, "config"));
                count += 1;
                let ok = code == Some(if r["expect"] == "ok" { 0 } else { 1 });
                if !ok || v["name"] != r["expect_status"] {
                    failures.push(format!("context {}: {v}", r["name"]));
                }
                continue;
            }
            // Limits, occupancy, pressure and replacement have no subcommand.
            _ => continue,
        };
        count += 1;
        if !matches(&r["expect"], &v, code) {
            failures.push(format!("policy {}: {v}", r["name"]));
        }
    }
    assert!(count > 400, "only {count} rows ran");
    assert!(failures.is_empty(), "{} of {count} rows failed:\n{}", failures.len(), failures.join("\n"));
}

// ---- diagnostics (docs/SPEC.md §13) --------------------------------------------------------

#[test]
fn rejections_say_where_and_what() {
    // Line 1 `<conversation_summary>`, line 2 `<goal>g</goal>`, line 3 `<decisions/>`: the
    // constraints section is missing, found at line 3, column 1 (X4.18, §13 C13.4).
    let xml =
        b"<conversation_summary>\n<goal>g</goal>\n<decisions/><state>s</state><open_items/></conversation_summary>";
    let offset = xml.windows(11).position(|w| w == b"<decisions/").unwrap();
    let output = expect_exit(&["summary", "-"], xml, 1);
    let text = stdout(&output);
    assert!(
        text.contains(&format!(
            "at byte {offset}, line 3, column 1, section constraints, rule X4.18, expected <constraints>"
        )),
        "{text}"
    );
    let v = json(&["summary", "-"], xml, 1);
    assert_eq!(v["offset"], offset);
    assert_eq!((v["line"].as_u64(), v["column"].as_u64()), (Some(3), Some(1)));
    assert_eq!(v["section"], "constraints");
    assert_eq!(v["rule"], "X4.18");
    assert_eq!(v["expected"], "<constraints>");
    assert_eq!(v["class"], "retry");
    assert_eq!(v["location"], Value::Null);
    // --retry-message: the message for the model, naming the place and the rule.
    let v = json(&["--retry-message", "summary", "-"], xml, 1);
    let message = v["retry_message"].as_str().unwrap();
    assert!(message.contains("line 3, column 1") && message.contains("constraints"), "{message}");
    let output = expect_exit(&["--retry-message", "summary", "-"], xml, 1);
    assert_eq!(stdout(&output).lines().count(), 2, "the verdict, then the retry message");
}

#[test]
fn wire_rejections_carry_the_location() {
    let mut doc: Value =
        serde_json::from_slice(&bytes(&row("input.jsonl", "canonical v1 round trip"), "input")).unwrap();
    doc["transcript"][0]["blocks"][0]["type"] = Value::from("bogus");
    let v = json(&["input", "-"], doc.to_string().as_bytes(), 1);
    assert_eq!(v["name"], "LC_INPUT_TRANSCRIPT");
    assert_eq!(v["class"], "host");
    assert!(v["location"].as_str().unwrap().starts_with("transcript[0].blocks[0]"), "{v}");
}

// ---- bounded and quiet (issue: bounded cost) ------------------------------------------------

#[test]
fn reads_at_most_the_limit() {
    let big = temp_file("eleven_bytes.xml", b"<goal>x</g>");
    let output = expect_exit(&["--max-bytes", "10", "summary", path_str(&big)], b"", 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("longer than the read limit of 10 bytes"), "{stderr}");
    // Exactly the limit is fine.
    expect_exit(&["--max-bytes", "11", "summary", path_str(&big)], b"", 1);
    // An endless input stops at the limit instead of filling memory.
    let output = expect_exit(&["--max-bytes", "1000", "summary", "/dev/zero"], b"", 2);
    assert!(String::from_utf8_lossy(&output.stderr).contains("read limit"));
    // Standard input too.
    expect_exit(&["--max-bytes", "3", "summary", "-"], b"1234", 2);
}

#[test]
fn names_are_printed_escaped_and_non_utf8_is_an_error() {
    use std::os::unix::ffi::OsStrExt;
    // A file name carrying a terminal escape: the message shows it escaped, never raw.
    let output = expect_exit(&["summary", "no\x1b[31mfile"], b"", 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains('\x1b'), "{stderr:?}");
    assert!(stderr.contains("\\u{1b}"), "{stderr:?}");
    // A non-UTF-8 argument: exit 2 with a message, no panic.
    let output = Command::new(BIN)
        .arg("summary")
        .arg(std::ffi::OsStr::from_bytes(b"\xff\xfe.xml"))
        .current_dir(manifest_dir())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not valid UTF-8"));
    // An I/O error under --json is a JSON object.
    let v = json(&["summary", "examples/data/no_such_file.xml"], b"", 2);
    assert_eq!(v["ok"], false);
    assert!(v["error"].as_str().unwrap().contains("cannot read"));
}

// ---- sections, instructions, transcript safety ---------------------------------------------

#[test]
fn sections_section_and_instructions() {
    let xml = b"<conversation_summary><goal>a &amp; b</goal><constraints/><decisions>d</decisions><state>s</state><open_items/></conversation_summary>";
    let v = json(&["sections", "-"], xml, 0);
    let goal = &v["sections"][0];
    assert_eq!(goal["name"], "goal");
    assert_eq!(goal["offset"], 28, "after `<conversation_summary><goal>`");
    assert_eq!(goal["len"], 9, "`a &amp; b`");
    let output = expect_exit(&["section", "-", "goal"], xml, 0);
    assert_eq!(stdout(&output), "a & b");
    let output = expect_exit(&["instructions"], b"", 0);
    assert!(stdout(&output).contains("<conversation_summary>"));
    expect_exit(&["section", "-", "nope"], xml, 2);
}

fn transcript_file(name: &str, messages: &str) -> PathBuf {
    let mut doc: Value =
        serde_json::from_slice(&bytes(&row("input.jsonl", "canonical v1 round trip"), "input")).unwrap();
    doc["transcript"] = serde_json::from_str(messages).unwrap();
    temp_file(name, doc.to_string().as_bytes())
}

#[test]
fn pairing_and_cut() {
    let paired = transcript_file(
        "paired.json",
        r#"[{"role":"user","blocks":[]},
            {"role":"assistant","blocks":[{"type":"tool_use","id":"a","name":"t","input":{}}]},
            {"role":"tool","blocks":[],"tool_use_id":"a","is_error":false},
            {"role":"user","blocks":[]}]"#,
    );
    let output = expect_exit(&["pairing", path_str(&paired)], b"", 0);
    assert_eq!(stdout(&output), "transcript: valid (LC_OK)\n");
    // Keeping 1 message: cut 3 (messages 0..3 summarised); keeping 2: cut 2 would split the pair
    // (call in 1, result in 2), so 1.
    let v = json(&["cut", path_str(&paired), "--keep", "1"], b"", 0);
    assert_eq!((v["cut"].as_u64(), v["messages"].as_u64()), (Some(3), Some(4)));
    let v = json(&["cut", path_str(&paired), "--keep", "2"], b"", 0);
    assert_eq!(v["cut"], 1);
    let orphan = transcript_file(
        "orphan.json",
        r#"[{"role":"user","blocks":[]},{"role":"tool","blocks":[],"tool_use_id":"x","is_error":false}]"#,
    );
    let v = json(&["pairing", path_str(&orphan)], b"", 1);
    assert_eq!(v["name"], "LC_PAIRING_ORPHAN_RESULT");
    assert_eq!(v["location"], "transcript[1].tool_use_id");
    let v = json(&["cut", path_str(&orphan), "--keep", "0"], b"", 1);
    assert_eq!(v["name"], "LC_PAIRING_ORPHAN_RESULT");
}

#[test]
fn loop_guard() {
    expect_exit(&["progress", "--tokens", "5999", "--limit", "10000", "--rearm", "6000"], b"", 0);
    let v = json(&["progress", "--tokens", "6000", "--limit", "10000", "--rearm", "6000"], b"", 1);
    assert_eq!(v["name"], "LC_COMPACTION_NO_PROGRESS");
    // examples/data/policy_valid.json: its RearmBelow and MaxSummaryTokens decide; a fixed part as
    // large as the limit can never get below any threshold.
    let v = json(&["threshold", "examples/data/policy_valid.json", "--limit", "100000", "--fixed", "100000"], b"", 1);
    assert_eq!(v["name"], "LC_COMPACTION_THRESHOLD_UNREACHABLE");
    expect_exit(&["threshold", "examples/data/policy_valid.json", "--limit", "100000", "--fixed", "0"], b"", 0);
}

// ---- how a text verdict reads, and standard input that cannot be read ---------------------------

#[test]
fn text_verdicts_say_at_only_before_a_position() {
    // O6.2 step 2 (no usage reported) has no offset: the facts follow the reason after a comma.
    let (_, input, result) = output_files("valid");
    let args = ["output", "--input", path_str(&input), path_str(&result), "--tokens", "0", "--max-bytes", "100000"];
    let output = expect_exit(&args, b"", 1);
    let message = loopcompact::Status::SummaryTokenUsage.message();
    assert_eq!(
        stdout(&output),
        format!(
            "output: rejected: LC_SUMMARY_TOKEN_USAGE (204) reason token_usage, rule O6.2, class discard: {message}\n"
        )
    );
    // O6.2 step 1: limit and actual, no offset either.
    let args = ["output", "--input", path_str(&input), path_str(&result), "--tokens", "1", "--max-bytes", "10"];
    let text = stdout(&expect_exit(&args, b"", 1));
    assert!(
        text.starts_with(
            "output: rejected: LC_SUMMARY_BYTE_LIMIT (203) reason byte_limit, rule O6.2, limit 10, actual "
        ),
        "{text}"
    );
    // With an offset, `at` introduces the position.
    let text = stdout(&expect_exit(&["summary", "-"], b"<a/>", 1));
    assert!(
        text.starts_with("summary: rejected: LC_SUMMARY_XML_ROOT (207) reason xml_root at byte 0, line 1, column 1, "),
        "{text}"
    );
}

/// Runs the tool through `/bin/sh` with its standard input set up by `redirect` (`<&-` closes it).
fn run_redirected(args: &[&str], redirect: &str) -> Output {
    Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("exec \"$0\" \"$@\" {redirect}"))
        .arg(BIN)
        .args(args)
        .current_dir(manifest_dir())
        .output()
        .unwrap_or_else(|e| panic!("cannot run sh: {e}"))
}

#[test]
fn closed_or_unreadable_standard_input_is_an_error() {
    let write_only = temp_file("write_only_stdin", b"");
    let unreadable = format!("0>{}", path_str(&write_only));
    for (redirect, why) in [("<&-", "it is closed"), (unreadable.as_str(), "Bad file descriptor (os error 9)")] {
        let output = run_redirected(&["summary", "-"], redirect);
        let args = ["summary", "-", redirect];
        assert_eq!(output.status.code(), Some(2), "{}", describe(&args, &output));
        assert!(output.stdout.is_empty(), "{}", describe(&args, &output));
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("loopcompact: cannot read standard input: {why}\n")
        );
        let output = run_redirected(&["--json", "summary", "-"], redirect);
        let v: Value =
            serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&args, &output)));
        assert_eq!((output.status.code(), &v["ok"]), (Some(2), &Value::Bool(false)));
        assert_eq!(v["error"], format!("cannot read standard input: {why}"));
    }
    // Only reading it is an error: a closed standard input does not stop a check of a file.
    let output = run_redirected(&["summary", "examples/data/summary_valid.xml"], "<&-");
    assert_eq!(stdout(&output), "summary: valid (LC_OK)\n", "{}", describe(&["<&-"], &output));
    // An empty one (a shell's </dev/null) is the empty document: a verdict, not an error.
    let output = run_redirected(&["summary", "-"], "</dev/null");
    assert_eq!(output.status.code(), Some(1), "{}", describe(&["</dev/null"], &output));
    assert!(stdout(&output).starts_with("summary: rejected: LC_SUMMARY_XML_ROOT (207)"));
}

// ---- the round (docs/SPEC.md §15) ----------------------------------------------------------

/// examples/data/input_valid.json: 5 messages (a leading system message; toolu_01 called in 2,
/// answered in 3), max_summary_tokens 2048.
const INPUT_VALID: &str = "examples/data/input_valid.json";

/// The summary inside examples/data/reply_fenced.txt: between the opening line "```xml\n" (7 bytes)
/// and the closing "\n```\n" (5 bytes), R15.5.
fn fenced_summary() -> String {
    let reply = std::fs::read_to_string(manifest_dir().join("examples/data/reply_fenced.txt")).unwrap();
    let inner = reply.strip_prefix("```xml\n").and_then(|r| r.strip_suffix("\n```\n")).expect("the sample's fence");
    inner.to_owned()
}

/// C13.2: a known count of UINT64_MAX is written as UINT64_MAX - 1 (UINT64_MAX means unknown); the
/// tool says what the C ABI says, in the diagnosis and in the retry message.
#[test]
fn reply_a_token_count_of_u64_max_is_written_as_the_c_abi_writes_it() {
    let v = json(
        &["reply", INPUT_VALID, "examples/data/summary_valid.xml", "--output-tokens", "18446744073709551615"],
        b"",
        1,
    );
    assert_eq!(v["actual"].as_u64(), Some(u64::MAX - 1), "{v}");
    let retry = v["retry_message"].as_str().unwrap_or_default();
    assert!(retry.contains("18446744073709551614") && !retry.contains("18446744073709551615"), "{retry}");
}

#[test]
fn reply_prints_the_summary_and_what_cleanup_removed() {
    let fenced = "examples/data/reply_fenced.txt";
    let output = expect_exit(&["reply", INPUT_VALID, fenced, "--output-tokens", "700", "--trim", "--unfence"], b"", 0);
    assert_eq!(stdout(&output), fenced_summary(), "the summary, exactly, no newline added");
    let v = json(
        &["reply", INPUT_VALID, "-", "--unfence", "--output-tokens", "700", "--trim", "--stop", "end"],
        &std::fs::read(manifest_dir().join(fenced)).unwrap(),
        0,
    );
    assert_eq!((v["ok"].as_bool(), v["document"].as_str()), (Some(true), Some("reply")));
    assert_eq!(v["summary"].as_str(), Some(fenced_summary().as_str()));
    assert_eq!(v["removed"], serde_json::json!({"trim": true, "unfence": true, "before": 7, "after": 5}));
    assert!(v.get("retry_message").is_none());

    // Without cleanup the fence is text: the root is not where it must be (X4.18), and nothing was
    // removed. The retry message follows the verdict line.
    let output = expect_exit(&["reply", INPUT_VALID, fenced, "--output-tokens", "700"], b"", 1);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with(
            "reply: rejected: LC_SUMMARY_XML_STRUCTURE (208) reason xml_structure at byte 0, line 1, column 1"
        ),
        "{text}"
    );
    assert!(lines[1].starts_with("Your summary was rejected at line 1, column 1"), "{text}");
    let v = json(&["reply", INPUT_VALID, fenced, "--output-tokens", "700"], b"", 1);
    assert_eq!(v["removed"], serde_json::json!({"trim": false, "unfence": false, "before": 0, "after": 0}));
    assert!(v["retry_message"].as_str().unwrap().starts_with("Your summary was rejected"));

    // R15.7: a failure inside a fence is placed in the reply as it arrived, the removal reported:
    // "```\n" (4 bytes) before, the final "\n```\n" (5 bytes) after; <goal> ends line 3.
    let reply = temp_file(
        "reply_fenced_bad.txt",
        b"```\n<conversation_summary>\n<goal>x</goal>\n</conversation_summary>\n```\n",
    );
    let v = json(&["reply", INPUT_VALID, path_str(&reply), "--output-tokens", "10", "--trim", "--unfence"], b"", 1);
    assert_eq!(
        (v["name"].as_str(), v["offset"].as_u64(), v["line"].as_u64(), v["column"].as_u64()),
        (Some("LC_SUMMARY_XML_STRUCTURE"), Some(42), Some(4), Some(1))
    );
    assert_eq!(v["removed"], serde_json::json!({"trim": true, "unfence": true, "before": 4, "after": 5}));
    let text = stdout(&expect_exit(
        &["reply", INPUT_VALID, path_str(&reply), "--output-tokens", "10", "--trim", "--unfence"],
        b"",
        1,
    ));
    assert!(text.contains(", removed trim|unfence: 4 bytes before, 5 after, class retry: "), "{text}");
}

#[test]
fn reply_rejections() {
    let truncated = "examples/data/reply_truncated.txt";
    // R15.4: the first 293 bytes of a summary, stopped by length: truncated, with the budget
    // (max_summary_tokens 2048) and the reported tokens; the retry message asks for less.
    let v = json(&["reply", INPUT_VALID, truncated, "--output-tokens", "2000", "--stop", "length"], b"", 1);
    assert_eq!(
        (v["status"].as_i64(), v["reason"].as_str(), v["class"].as_str()),
        (Some(600), Some("truncated"), Some("retry"))
    );
    assert_eq!(
        (v["limit"].as_u64(), v["actual"].as_u64(), v["rule"].as_str()),
        (Some(2048), Some(2000), Some("R15.4"))
    );
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64(), v["location"].as_str()),
        (Some(1), Some(294), Some("summary"))
    );
    assert!(v["retry_message"].as_str().unwrap().starts_with("Your summary was cut off"), "{v}");
    // The model's own stop: the grammar's verdict (X4.16).
    let v = json(&["reply", INPUT_VALID, truncated, "--output-tokens", "2000", "--stop", "end"], b"", 1);
    assert_eq!((v["name"].as_str(), v["rule"].as_str()), (Some("LC_SUMMARY_XML_SYNTAX"), Some("X4.16")));

    let fenced = "examples/data/reply_fenced.txt";
    let cases: &[(&[&str], &str, &str)] = &[
        // R15.2: no reply can meet a limit below 114 bytes: the host's.
        (&["--output-tokens", "700", "--max-reply-bytes", "113"], "LC_REPLY_BYTE_LIMIT_UNREACHABLE", "host"),
        // R15.3 step 2: the reply (526 bytes) as it arrived, before cleanup.
        (
            &["--output-tokens", "700", "--max-reply-bytes", "525", "--trim", "--unfence"],
            "LC_SUMMARY_BYTE_LIMIT",
            "retry",
        ),
        (&["--output-tokens", "0", "--trim", "--unfence"], "LC_SUMMARY_TOKEN_USAGE", "discard"),
        (&["--output-tokens", "2049", "--trim", "--unfence"], "LC_SUMMARY_TOKEN_LIMIT", "retry"),
    ];
    for (options, name, class) in cases {
        let v = json(&[&["reply", INPUT_VALID, fenced][..], options].concat(), b"", 1);
        assert_eq!((v["name"].as_str(), v["class"].as_str()), (Some(*name), Some(*class)), "{options:?}: {v}");
    }
    json(
        &["reply", INPUT_VALID, fenced, "--output-tokens", "700", "--max-reply-bytes", "526", "--trim", "--unfence"],
        b"",
        0,
    );
    let text = stdout(&expect_exit(
        &["reply", INPUT_VALID, fenced, "--output-tokens", "700", "--max-reply-bytes", "100"],
        b"",
        1,
    ));
    assert!(text.contains("\nNo retry is useful"), "{text}");

    // The default limit is the round's: 16 x 2048 = 32768 bytes.
    let summary = fenced_summary();
    let padded = |len: usize| summary.replacen("<goal>", &format!("<goal>{}", " ".repeat(len - summary.len())), 1);
    let at_limit = temp_file("reply_32768.txt", padded(32768).as_bytes());
    json(&["reply", INPUT_VALID, path_str(&at_limit), "--output-tokens", "700"], b"", 0);
    let over = temp_file("reply_32769.txt", padded(32769).as_bytes());
    let v = json(&["reply", INPUT_VALID, path_str(&over), "--output-tokens", "700"], b"", 1);
    assert_eq!(
        (v["name"].as_str(), v["limit"].as_u64(), v["actual"].as_u64()),
        (Some("LC_SUMMARY_BYTE_LIMIT"), Some(32768), Some(32769))
    );

    // Bytes that are not UTF-8 (J5.3): at the first one, as it arrived; never echoed.
    let mut bad = b"\xff".to_vec();
    bad.extend_from_slice(summary.as_bytes());
    let v = json(&["reply", INPUT_VALID, "-", "--output-tokens", "700", "--trim"], &bad, 1);
    assert_eq!(
        (v["name"].as_str(), v["offset"].as_u64(), v["class"].as_str()),
        (Some("LC_SUMMARY_WIRE"), Some(0), Some("discard"))
    );
    assert!(!v.to_string().contains("nightly"), "{v}");

    // An input that does not parse is the input's verdict; usage errors are exit 2.
    let v = json(&["reply", "examples/data/result_valid.json", fenced, "--output-tokens", "1"], b"", 1);
    assert_eq!((v["document"].as_str(), v["name"].as_str()), (Some("input"), Some("LC_INPUT_WIRE")));
    for args in [
        &["reply", INPUT_VALID, fenced][..],
        &["reply", INPUT_VALID, "--output-tokens", "1"],
        &["reply", INPUT_VALID, fenced, "--output-tokens", "1", "--stop", "sometime"],
        &["reply", INPUT_VALID, fenced, "--output-tokens", "-1"],
        &["reply", INPUT_VALID, fenced, "--output-tokens", "1", "--strip"],
    ] {
        let output = expect_exit(args, b"", 2);
        assert!(output.stdout.is_empty() && !output.stderr.is_empty(), "{}", describe(args, &output));
    }
}

/// JSON string contents in the canonical spelling of E7.6 for the characters the samples hold.
fn canonical_text(s: &str) -> String {
    s.replace('"', "\\\"").replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

#[test]
fn replacement_build_and_verify() {
    let summary = temp_file("replacement_summary.xml", fenced_summary().as_bytes());
    // Cut 2 (R15.9): the system message, the summary message, then messages 2, 3 and 4 unchanged.
    let output = expect_exit(&["replacement", "build", INPUT_VALID, "2", path_str(&summary)], b"", 0);
    let built = stdout(&output);
    let system = r#"{"role":"system","blocks":[{"type":"text","text":"You are a coding agent working in the repository /srv/app."}]}"#;
    let summary_message =
        format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"{}"}}]}}"#, canonical_text(&fenced_summary()));
    let last = r#"{"role":"assistant","blocks":[{"type":"text","text":"The parser treats an empty [server] section as missing keys when timeout \u003c 1 \u0026 no default is set. I will default timeout to 30s."}],"usage":null}"#;
    assert!(built.starts_with(&format!("[{system},{summary_message},{{\"role\":\"assistant\"")), "{built}");
    assert!(built.ends_with(&format!(",{last}]")), "{built}");
    let v = json(&["replacement", "build", INPUT_VALID, "2", path_str(&summary)], b"", 0);
    assert_eq!(v["replacement"].as_str(), Some(built.as_str()));

    let rebuilt = temp_file("replacement_built.json", built.as_bytes());
    let output = expect_exit(&["replacement", "verify", INPUT_VALID, "2", path_str(&rebuilt)], b"", 0);
    assert_eq!(stdout(&output), "replacement: valid (LC_OK)\n");
    // One byte of the kept thinking block's signature changed (R15.11 step 5): found at its block.
    let signature = "EqQBCkYIBRgCKkBvZ2FsOiBmaW5kIHRoZSBjYXVzZQ==";
    assert_eq!(built.matches(signature).count(), 1);
    let tampered = built.replace(signature, "EqQBCkYIBRgCKkBvZ2FsOiBmaW5kIHRoZSBjYXVzZq==");
    let v = json(&["replacement", "verify", INPUT_VALID, "2", "-"], tampered.as_bytes(), 1);
    assert_eq!(
        (v["name"].as_str(), v["location"].as_str()),
        (Some("LC_REPLACEMENT_TAIL_CHANGED"), Some("transcript[2].blocks[0]"))
    );
    assert!(!v.to_string().contains("EqQB"), "{v}");
    // The same transcript for another cut does not hold (the prefix is right, the summary message
    // is not where cut 4 puts it).
    let v = json(&["replacement", "verify", INPUT_VALID, "4", path_str(&rebuilt)], b"", 1);
    assert_eq!(v["document"], "replacement");

    // A cut above the message count (5) is the caller's argument: the status alone (C13.4), as
    // lc_replacement_verify's diagnosis says it.
    let v = json(&["replacement", "verify", INPUT_VALID, "6", "-"], b"[]", 1);
    assert_eq!((v["name"].as_str(), &v["rule"]), (Some("LC_ERR_INVALID_ARGUMENT"), &Value::Null), "{v}");

    // R15.10, in order: a summary that does not validate names the summary's own failure as the cause.
    let bad = "examples/data/summary_bad_structure.xml";
    let text = stdout(&expect_exit(&["replacement", "build", INPUT_VALID, "2", bad], b"", 1));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("replacement: rejected: LC_REPLACEMENT_SUMMARY (611) reason replacement_summary"),
        "{text}"
    );
    assert!(lines[1].starts_with("summary: rejected: LC_SUMMARY_XML_STRUCTURE (208)"), "{text}");
    let v = json(&["replacement", "build", INPUT_VALID, "2", bad], b"", 1);
    assert_eq!(
        (v["status"].as_i64(), v["cause"]["document"].as_str(), v["cause"]["rule"].as_str()),
        (Some(611), Some("summary"), Some("X4.18"))
    );
    for (cut, name) in [("3", "LC_CUT_UNSAFE"), ("1", "LC_REPLACEMENT_EMPTY_HEAD"), ("6", "LC_ERR_INVALID_ARGUMENT")] {
        let v = json(&["replacement", "build", INPUT_VALID, cut, path_str(&summary)], b"", 1);
        assert_eq!(v["name"].as_str(), Some(name), "cut {cut}: {v}");
    }
    // The call of message 1 is unanswered and a later assistant message follows: not a pending tail
    // (G16.13), so the build refuses with the pairing status.
    let unpaired = transcript_file(
        "replacement_unpaired.json",
        r#"[{"role":"user","blocks":[]},{"role":"assistant","blocks":[{"type":"tool_use","id":"a","name":"t","input":{}}]},{"role":"user","blocks":[]},{"role":"assistant","blocks":[]}]"#,
    );
    let v = json(&["replacement", "build", path_str(&unpaired), "1", path_str(&summary)], b"", 1);
    assert_eq!(
        (v["name"].as_str(), v["location"].as_str()),
        (Some("LC_PAIRING_UNANSWERED_CALL"), Some("transcript[1].blocks[0]"))
    );
    // Without the last message, message 1 is the last assistant message: its call waits for a result
    // (a pending tail), and cut 1 keeps that turn unchanged (R15.10).
    let pending = transcript_file(
        "replacement_pending.json",
        r#"[{"role":"user","blocks":[]},{"role":"assistant","blocks":[{"type":"tool_use","id":"a","name":"t","input":{}}]},{"role":"user","blocks":[]}]"#,
    );
    let v = json(&["replacement", "build", path_str(&pending), "1", path_str(&summary)], b"", 0);
    assert_eq!(v["name"].as_str(), Some("LC_OK"), "{v}");

    for args in [
        &["replacement", "build", INPUT_VALID, "2"][..],
        &["replacement", "check", INPUT_VALID, "2", path_str(&summary)],
        &["replacement", "build", INPUT_VALID, "two", path_str(&summary)],
    ] {
        let output = expect_exit(args, b"", 2);
        assert!(output.stdout.is_empty(), "{}", describe(args, &output));
    }
}
