//! `loopcompact`: the command-line face of the library, a thin layer over the safe Rust API.
//!
//! Each subcommand reads one document (a file, or standard input for `-`), runs the same check as
//! the matching C function and prints the verdict: the status name, reason, message and, where the
//! library knows it, the byte offset of the problem (SPEC A3.7). `--json` prints one JSON object
//! instead. Exit status: 0 valid, 1 rejected by a check, 2 usage or I/O error (message on stderr).
//!
//! Like the library, the tool never echoes input bytes in a verdict; only `output` prints the
//! decoded summary on success, which is the data asked for (A3.8).

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::io::{Read, Write};
use std::process::ExitCode;

use loopcompact::fingerprint::RequestFingerprint;
use loopcompact::policy::{CompactionPolicy, ContextConfig, ContextObservationPolicy};
use loopcompact::wire::CompactionInput;
use loopcompact::{Error, Status};

const USAGE: &str = "\
usage: loopcompact [--json] COMMAND ARGS...

commands (FILE may be - for standard input):
  summary FILE                        validate a summary XML document (SPEC 4)
  input FILE                          validate a compaction input wire document (SPEC 5)
  output --input IN RESULT --tokens N --max-bytes N
                                      validate the summariser's reply RESULT against the input IN
                                      (SPEC 6); N: the reported output tokens and the byte limit;
                                      prints the decoded summary, exactly, on success
  fingerprint FILE                    compute a request fingerprint (SPEC 10); prints the hex digest
  policy FILE --quality Q [--observation]
                                      validate a compaction policy (or, with --observation, a
                                      context observation policy) for a token counter of quality Q:
                                      0 unknown, 1 exact provider, 2 exact local, 3 heuristic (SPEC 8)
  context FILE                        validate a context configuration (SPEC 8.3)

options:
  --json       print the verdict as one JSON object:
               {\"ok\",\"document\",\"status\",\"name\",\"reason\",\"message\",\"offset\"}, plus
               \"fingerprint\" or \"summary\" on success of those commands
  -h, --help   print this help (SPEC N: section N of docs/SPEC.md, the contract)
  --version    print the library and C ABI versions

A rejection prints NAME (CODE), the reason, the byte offset where known and the message. Offsets
count bytes of the file, except for a summary inside an output reply: there they count bytes of
the decoded summary text.

exit status: 0 valid, 1 rejected, 2 usage or I/O error
";

/// A usage or I/O problem: reported on stderr, exit status 2.
struct Fatal(String);

/// The outcome of one check.
struct Verdict<'a> {
    /// Which document the verdict is about (`output` can also reject its input file).
    document: &'static str,
    result: Result<Success<'a>, Error>,
}

/// What a successful check prints besides `LC_OK`.
enum Success<'a> {
    Valid,
    Fingerprint(String),
    Summary(loopcompact::wire::Summary<'a>),
}

/// The `--json` form of a verdict.
#[derive(serde::Serialize)]
struct JsonVerdict<'a> {
    ok: bool,
    document: &'static str,
    status: i32,
    name: &'static str,
    reason: &'static str,
    message: &'static str,
    offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fingerprint: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(Fatal(message)) => {
            eprintln!("loopcompact: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, Fatal> {
    let mut json = false;
    let mut rest = Vec::new();
    for arg in args {
        match arg.as_str() {
            "--json" => json = true,
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            "--version" => {
                println!("loopcompact {} (C ABI version {})", loopcompact::VERSION, loopcompact::ABI_VERSION);
                return Ok(ExitCode::SUCCESS);
            }
            _ => rest.push(arg.as_str()),
        }
    }
    let Some((&command, rest)) = rest.split_first() else {
        return Err(usage("no command given"));
    };
    let mut reader = Inputs::default();
    match command {
        "summary" => {
            let xml = reader.read(single_file(rest)?)?;
            report(json, &Verdict { document: "summary", result: valid(loopcompact::summary::validate(&xml)) })
        }
        "input" => {
            let wire = reader.read(single_file(rest)?)?;
            report(json, &Verdict { document: "input", result: valid(CompactionInput::validate(&wire)) })
        }
        "fingerprint" => {
            let doc = reader.read(single_file(rest)?)?;
            let result = RequestFingerprint::compute(&doc).map(|f| Success::Fingerprint(f.to_hex()));
            report(json, &Verdict { document: "fingerprint", result })
        }
        "context" => {
            let doc = reader.read(single_file(rest)?)?;
            let result = ContextConfig::from_json(&doc).and_then(|c| c.validate());
            report(json, &Verdict { document: "context", result: valid(result) })
        }
        "policy" => policy(json, rest, &mut reader),
        "output" => output(json, rest, &mut reader),
        other => Err(usage(&format!("unknown command {other:?}"))),
    }
}

fn policy(json: bool, args: &[&str], reader: &mut Inputs) -> Result<ExitCode, Fatal> {
    let mut file = None;
    let mut quality = None;
    let mut observation = false;
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        match arg {
            "--quality" => quality = Some(number::<i32>("--quality", args.next())?),
            "--observation" => observation = true,
            _ if is_option(arg) => return Err(usage(&format!("unknown option {arg:?}"))),
            _ if file.is_none() => file = Some(arg),
            _ => return Err(usage("policy takes one FILE")),
        }
    }
    let file = file.ok_or_else(|| usage("policy needs a FILE"))?;
    let quality = quality.ok_or_else(|| usage("policy needs --quality Q"))?;
    let doc = reader.read(file)?;
    let verdict = if observation {
        let result = ContextObservationPolicy::from_json(&doc).and_then(|p| p.validate(quality));
        Verdict { document: "observation", result: valid(result) }
    } else {
        let result = CompactionPolicy::from_json(&doc).and_then(|p| p.validate(quality));
        Verdict { document: "policy", result: valid(result) }
    };
    report(json, &verdict)
}

fn output(json: bool, args: &[&str], reader: &mut Inputs) -> Result<ExitCode, Fatal> {
    let mut input = None;
    let mut result = None;
    let mut tokens = None;
    let mut max_bytes = None;
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        match arg {
            "--input" => input = Some(*args.next().ok_or_else(|| usage("--input needs a FILE"))?),
            "--tokens" => tokens = Some(number::<u64>("--tokens", args.next())?),
            "--max-bytes" => max_bytes = Some(number::<u64>("--max-bytes", args.next())?),
            _ if is_option(arg) => return Err(usage(&format!("unknown option {arg:?}"))),
            _ if result.is_none() => result = Some(arg),
            _ => return Err(usage("output takes one RESULT file")),
        }
    }
    let input = input.ok_or_else(|| usage("output needs --input IN"))?;
    let result = result.ok_or_else(|| usage("output needs a RESULT file"))?;
    let tokens = tokens.ok_or_else(|| usage("output needs --tokens N"))?;
    let max_bytes = max_bytes.ok_or_else(|| usage("output needs --max-bytes N"))?;
    let wire = reader.read(input)?;
    let reply = reader.read(result)?;
    let input = match CompactionInput::parse(&wire) {
        Ok(input) => input,
        Err(e) => return report(json, &Verdict { document: "input", result: Err(e) }),
    };
    let result = input.validate_output(&reply, tokens, max_bytes).map(Success::Summary);
    report(json, &Verdict { document: "output", result })
}

fn valid(result: loopcompact::Result<()>) -> Result<Success<'static>, Error> {
    result.map(|()| Success::Valid)
}

/// `-` alone is a file name (standard input), not an option.
fn is_option(arg: &str) -> bool {
    arg.starts_with('-') && arg != "-"
}

fn single_file<'a>(args: &[&'a str]) -> Result<&'a str, Fatal> {
    match args {
        [file] if !is_option(file) => Ok(file),
        [arg] => Err(usage(&format!("unknown option {arg:?}"))),
        [] => Err(usage("missing FILE")),
        _ => Err(usage("too many arguments")),
    }
}

fn number<T: std::str::FromStr>(option: &str, value: Option<&&str>) -> Result<T, Fatal> {
    let value = value.ok_or_else(|| usage(&format!("{option} needs a value")))?;
    value.parse().map_err(|_| usage(&format!("{option}: {value:?} is not a valid number")))
}

fn usage(problem: &str) -> Fatal {
    Fatal(format!("{problem}\n(run `loopcompact --help` for usage)"))
}

/// Reads the files named on the command line; standard input can be read only once.
#[derive(Default)]
struct Inputs {
    stdin_used: bool,
}

impl Inputs {
    fn read(&mut self, name: &str) -> Result<Vec<u8>, Fatal> {
        if name == "-" {
            if std::mem::replace(&mut self.stdin_used, true) {
                return Err(usage("standard input (-) can be used for one file only"));
            }
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Fatal(format!("cannot read standard input: {e}")))?;
            return Ok(bytes);
        }
        std::fs::read(name).map_err(|e| Fatal(format!("cannot read {name}: {e}")))
    }
}

/// Prints the verdict and returns the exit status: 0 valid, 1 rejected.
fn report(json: bool, verdict: &Verdict<'_>) -> Result<ExitCode, Fatal> {
    let (status, offset) = match &verdict.result {
        Ok(_) => (Status::Ok, None),
        Err(e) => (e.status(), e.offset()),
    };
    let mut out = std::io::stdout().lock();
    let written = if json {
        let (fingerprint, summary) = match &verdict.result {
            Ok(Success::Fingerprint(hex)) => (Some(hex.as_str()), None),
            Ok(Success::Summary(text)) => (None, Some(text.as_str())),
            _ => (None, None),
        };
        let line = JsonVerdict {
            ok: status.is_ok(),
            document: verdict.document,
            status: status.code(),
            name: status.name(),
            reason: status.reason(),
            message: status.message(),
            offset,
            fingerprint,
            summary,
        };
        serde_json::to_writer(&mut out, &line).map_err(std::io::Error::from).and_then(|()| writeln!(out))
    } else {
        match &verdict.result {
            Ok(Success::Valid) => writeln!(out, "{}: valid ({})", verdict.document, status.name()),
            Ok(Success::Fingerprint(hex)) => writeln!(out, "{hex}"),
            // The exact text of the replacement message: no newline is added.
            Ok(Success::Summary(text)) => out.write_all(text.as_bytes()),
            Err(_) => {
                let reason = if status.reason().is_empty() { "-" } else { status.reason() };
                let at = offset.map(|o| format!(" at byte {o}")).unwrap_or_default();
                writeln!(
                    out,
                    "{}: rejected: {} ({}) reason {reason}{at}: {}",
                    verdict.document,
                    status.name(),
                    status.code(),
                    status.message()
                )
            }
        }
    };
    written.and_then(|()| out.flush()).map_err(|e| Fatal(format!("cannot write the verdict: {e}")))?;
    Ok(if status.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
