//! `loopcompact`: the command-line face of the library, a thin layer over the safe Rust API.
//!
//! Each subcommand reads one document (a file, or standard input for `-`), runs the same check as
//! the matching C function and prints the verdict: the status name, reason, message and, where the
//! library knows it, where the problem is (byte offset, line, column, section, rule, location:
//! docs/SPEC.md §13). `--json` prints one JSON object instead. Exit status: 0 valid, 1 rejected by
//! a check, 2 usage or I/O error (message on stderr, or a JSON object with `--json`); a closed or
//! unreadable standard input is an I/O error, not an empty document.
//!
//! Like the library, the tool never echoes input bytes in a verdict; only `output` and `reply` print
//! the summary on success, `replacement build` the replacement transcript and `section` a section's
//! text, which is the data asked for (A3.8).
//! File names and arguments it prints have their control characters escaped, and it reads at most
//! `--max-bytes` bytes of any input (default 256 MiB).

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
// A verdict carries a whole diagnosis (its location is a fixed buffer): one per process, by value.
#![allow(clippy::result_large_err)]

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;

use loopcompact::Status;
use loopcompact::diagnostic::{Diagnostic, Removed, SUMMARY_INSTRUCTIONS, retry_message};
use loopcompact::fingerprint::RequestFingerprint;
use loopcompact::limits;
use loopcompact::policy::{CompactionPolicy, ContextConfig, ContextObservationPolicy};
use loopcompact::round::{ReplyOptions, SMALLEST_SUMMARY, Stop};
use loopcompact::summary::{self, Section};
use loopcompact::wire::CompactionInput;

/// The read limit when `--max-bytes` is not given: 256 MiB.
const DEFAULT_READ_LIMIT: u64 = 256 << 20;

const USAGE: &str = "\
usage: loopcompact [--json] [--retry-message] [--max-bytes N] COMMAND ARGS...

commands (FILE may be - for standard input):
  summary FILE                        validate a summary XML document (SPEC 4)
  input FILE                          validate a compaction input wire document (SPEC 5)
  output --input IN RESULT --tokens N --max-bytes N
                                      validate the summariser's reply RESULT against the input IN
                                      (SPEC 6); N: the reported output tokens and the reply's byte
                                      limit; prints the decoded summary, exactly, on success
  fingerprint FILE                    compute a request fingerprint (SPEC 10); prints the hex digest
  policy FILE --quality Q [--observation]
                                      validate a compaction policy (or, with --observation, a
                                      context observation policy) for a token counter of quality Q:
                                      0 unknown, 1 exact provider, 2 exact local, 3 heuristic (SPEC 8)
  context FILE                        validate a context configuration (SPEC 8.3)
  pairing FILE                        check the tool-call pairing of an input's transcript (SPEC 14)
  cut FILE --keep K                   the largest safe cut keeping at least K messages (SPEC 14.4)
  progress --tokens N --limit L --rearm R
                                      did compaction help: N tokens after the replacement against
                                      the input limit L and the re-arm threshold R (SPEC 14.5)
  threshold POLICY --limit L --fixed F
                                      can the policy's re-arm threshold ever be met, with F fixed
                                      tokens per request against the input limit L (SPEC 14.6)
  sections FILE                       the byte span of each section of a valid summary (SPEC 13.7)
  section FILE NAME                   the text of one section (goal, constraints, decisions, state,
                                      open_items) as Go's encoding/xml reads it (SPEC 13.8)
  instructions                        print the instructions for the summariser (SPEC 13.6)
  reply INPUT REPLY --output-tokens N [--stop end|length|unknown] [--max-reply-bytes N]
        [--trim] [--unfence]
                                      check the summariser's reply REPLY as it arrived (the bare
                                      XML, no JSON envelope) against the input INPUT (SPEC 15.1):
                                      N the output tokens the provider reported (0: none), --stop
                                      how its call ended (default unknown), --max-reply-bytes the
                                      reply's byte limit (default 16 x the input's
                                      max_summary_tokens, at least 114), --trim and --unfence the
                                      cleanups (surrounding White_Space, one Markdown code fence).
                                      Prints the summary, exactly, on success; a rejection prints
                                      the verdict, then the retry message for the summariser
  replacement build INPUT CUT SUMMARY
                                      the transcript that replaces messages [0, CUT) of INPUT once
                                      the summary in the file SUMMARY was accepted (SPEC 15.2):
                                      prints its canonical JSON, exactly, on success; a summary
                                      that does not validate is LC_REPLACEMENT_SUMMARY, followed by
                                      the summary's own verdict
  replacement verify INPUT CUT REBUILT
                                      check a transcript you rebuilt yourself (a JSON array of
                                      wire messages) against that rule (SPEC 15.2); location
                                      transcript[i].blocks[j] names the first difference

options:
  --json           print the verdict as one JSON object:
                   {\"ok\",\"document\",\"status\",\"name\",\"reason\",\"message\",\"class\",\"offset\",
                   \"line\",\"column\",\"section\",\"rule\",\"expected\",\"location\",\"limit\",\"actual\"},
                   plus \"fingerprint\", \"summary\", \"cut\", \"sections\" or \"text\" on success
                   of those commands, and \"retry_message\" with --retry-message. reply adds
                   \"removed\": {\"trim\",\"unfence\",\"before\",\"after\"} (what cleanup removed, bytes
                   before and after the summary; also on a rejection) and always \"retry_message\"
                   on a rejection; replacement build adds \"replacement\" (the JSON text, as a
                   string) on success and \"cause\" (the summary's own verdict object) for
                   LC_REPLACEMENT_SUMMARY. \"class\" is the diagnosis's: ok, retry, discard, host
                   or bug (a byte limit that no reply can meet is host, SPEC R15.2)
  --retry-message  also print the message for the summariser model (SPEC 13.5)
  --max-bytes N    read at most N bytes of any input file (default 268435456, 256 MiB); after the
                   `output` command, --max-bytes is the reply's byte limit instead
  -h, --help       print this help (SPEC N: section N of docs/SPEC.md, the contract)
  --version        print the library and C ABI versions

A rejection prints one line, DOCUMENT: rejected: NAME (CODE) reason REASON at WHERE: MESSAGE,
WHERE listing what is known of byte offset, line and column, section, rule, location, expected,
limit and actual, what cleanup removed (reply: \"removed trim|unfence: B bytes before, A after\"),
and the class; then the cause's line (replacement build), then the retry message (reply, or
--retry-message). Offsets count bytes of the file (a reply's as it arrived), except for a summary
inside an output reply: there they count bytes of the decoded summary text. These formats are
stable: other tools read them.

exit status: 0 valid, 1 rejected, 2 usage or I/O error (a closed or unreadable standard input
read as - is an I/O error; an empty one is the empty document)
";

/// A usage or I/O problem: reported on stderr (or as JSON with `--json`), exit status 2.
struct Fatal(String);

/// The options every command shares.
struct Options {
    json: bool,
    retry: bool,
    read_limit: u64,
}

/// What a successful check prints besides `LC_OK`.
enum Success {
    Valid,
    Fingerprint(String),
    Summary(String),
    /// An accepted bare reply: the summary and what cleanup removed around it.
    Reply(String, Removed),
    /// The replacement transcript's canonical JSON.
    Replacement(Vec<u8>),
    Cut {
        cut: usize,
        messages: usize,
    },
    Sections(summary::SectionSpans),
    Text(String),
}

/// The outcome of one check: which document it is about, and the diagnosis of a rejection.
struct Verdict {
    document: &'static str,
    result: Result<Success, Diagnostic>,
    /// What caused a rejection, as another document's verdict (the summary of a refused build).
    cause: Option<(&'static str, Diagnostic)>,
    /// Print what cleanup removed (the `reply` command), and the retry message of a rejection.
    reply: bool,
}

impl Verdict {
    const fn new(document: &'static str, result: Result<Success, Diagnostic>) -> Verdict {
        Verdict { document, result, cause: None, reply: false }
    }
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
    class: &'static str,
    offset: Option<usize>,
    line: Option<u64>,
    column: Option<u64>,
    section: Option<&'static str>,
    rule: Option<&'a str>,
    expected: Option<&'a str>,
    location: Option<&'a str>,
    limit: Option<u64>,
    actual: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fingerprint: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cut: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    messages: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sections: Option<Vec<JsonSection>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<JsonRemoved>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replacement: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<Box<JsonVerdict<'a>>>,
}

/// What cleanup removed around a bare reply (SPEC R15.7).
#[derive(serde::Serialize)]
struct JsonRemoved {
    trim: bool,
    unfence: bool,
    before: usize,
    after: usize,
}

impl From<Removed> for JsonRemoved {
    fn from(r: Removed) -> JsonRemoved {
        JsonRemoved { trim: r.trimmed, unfence: r.unfenced, before: r.before, after: r.after }
    }
}

#[derive(serde::Serialize)]
struct JsonSection {
    name: &'static str,
    offset: usize,
    len: usize,
}

/// The `--json` form of a usage or I/O error.
#[derive(serde::Serialize)]
struct JsonFatal<'a> {
    ok: bool,
    error: &'a str,
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    match run(args) {
        Ok(code) => code,
        Err(Fatal(message)) => {
            if json {
                let line = serde_json::to_string(&JsonFatal { ok: false, error: &message }).unwrap_or_default();
                println!("{line}");
            }
            eprintln!("loopcompact: {message}");
            ExitCode::from(2)
        }
    }
}

/// An argument or file name as the tool prints it: control characters (terminal escapes) and
/// quotes escaped, so that nothing the user passed reaches the terminal raw.
fn shown(text: &str) -> String {
    format!("\"{}\"", text.escape_debug())
}

fn run(args: Vec<OsString>) -> Result<ExitCode, Fatal> {
    let mut strings = Vec::with_capacity(args.len());
    for (i, arg) in args.into_iter().enumerate() {
        let arg = arg.into_string().map_err(|_| usage(&format!("argument {} is not valid UTF-8", i + 1)))?;
        strings.push(arg);
    }
    let mut options = Options { json: false, retry: false, read_limit: DEFAULT_READ_LIMIT };
    let mut rest: Vec<&str> = Vec::new();
    let mut iter = strings.iter().map(String::as_str);
    let mut command: Option<&str> = None;
    while let Some(arg) = iter.next() {
        match arg {
            "--json" => options.json = true,
            "--retry-message" => options.retry = true,
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            "--version" => {
                println!("loopcompact {} (C ABI version {})", loopcompact::VERSION, loopcompact::ABI_VERSION);
                return Ok(ExitCode::SUCCESS);
            }
            // After `output`, --max-bytes is the reply's byte limit (its own option).
            "--max-bytes" if command != Some("output") => {
                options.read_limit = number::<u64>("--max-bytes", iter.next())?;
            }
            _ => {
                if command.is_none() && !is_option(arg) {
                    command = Some(arg);
                } else {
                    rest.push(arg);
                }
            }
        }
    }
    let Some(command) = command else {
        return Err(usage("no command given"));
    };
    let mut reader = Inputs { stdin_used: false, limit: options.read_limit };
    let verdict = match command {
        "summary" => {
            let xml = reader.read(single_file(&rest)?)?;
            Verdict::new("summary", checked(summary::diagnose(&xml), Success::Valid))
        }
        "input" => {
            let wire = reader.read(single_file(&rest)?)?;
            Verdict::new("input", checked(CompactionInput::diagnose(&wire), Success::Valid))
        }
        "fingerprint" => {
            let doc = reader.read(single_file(&rest)?)?;
            let result = match RequestFingerprint::compute(&doc) {
                Ok(f) => Ok(Success::Fingerprint(f.to_hex())),
                Err(_) => Err(RequestFingerprint::diagnose(&doc)),
            };
            Verdict::new("fingerprint", result)
        }
        "context" => {
            let doc = reader.read(single_file(&rest)?)?;
            Verdict::new("context", checked(ContextConfig::diagnose(&doc), Success::Valid))
        }
        "policy" => policy(&rest, &mut reader)?,
        "output" => output(&rest, &mut reader)?,
        "pairing" | "cut" => transcript(command, &rest, &mut reader)?,
        "reply" => reply(&rest, &mut reader)?,
        "replacement" => replacement(&rest, &mut reader)?,
        "progress" => {
            let [tokens, limit, rearm] = flags(&rest, ["--tokens", "--limit", "--rearm"])?;
            let rearm = u16::try_from(rearm).map_err(|_| usage("--rearm: at most 65535 basis points"))?;
            let result = limits::progress_check(tokens, limit, rearm);
            Verdict::new("progress", result.map(|()| Success::Valid).map_err(plain))
        }
        "threshold" => {
            let (file, others) = rest.split_first().ok_or_else(|| usage("threshold needs a POLICY file"))?;
            let [limit, fixed] = flags(others, ["--limit", "--fixed"])?;
            let doc = reader.read(file)?;
            let result = CompactionPolicy::from_json(&doc).and_then(|p| p.threshold_check(limit, fixed));
            Verdict::new("threshold", result.map(|()| Success::Valid).map_err(plain))
        }
        "sections" => {
            let xml = reader.read(single_file(&rest)?)?;
            let result = summary::sections(&xml).map(Success::Sections).map_err(|_| summary::diagnose(&xml));
            Verdict::new("summary", result)
        }
        "section" => {
            let [file, name] = rest.as_slice() else {
                return Err(usage("section takes FILE and a section NAME"));
            };
            let section = Section::ALL
                .into_iter()
                .find(|s| s.name() == *name)
                .ok_or_else(|| usage(&format!("unknown section {}", shown(name))))?;
            let xml = reader.read(file)?;
            let result = summary::section_text(&xml, section).map(Success::Text).map_err(|_| summary::diagnose(&xml));
            Verdict::new("summary", result)
        }
        "instructions" => {
            if !rest.is_empty() {
                return Err(usage("instructions takes no argument"));
            }
            println!("{SUMMARY_INSTRUCTIONS}");
            return Ok(ExitCode::SUCCESS);
        }
        other => return Err(usage(&format!("unknown command {}", shown(other)))),
    };
    report(&options, &verdict)
}

/// A check's diagnosis as a verdict: `LC_OK` is `success`.
fn checked(d: Diagnostic, success: Success) -> Result<Success, Diagnostic> {
    if d.status().is_ok() { Ok(success) } else { Err(d) }
}

/// A diagnosis with only what an error of the Rust API carries (status and offset).
fn plain(e: loopcompact::Error) -> Diagnostic {
    Diagnostic::new(e.status())
}

fn policy(args: &[&str], reader: &mut Inputs) -> Result<Verdict, Fatal> {
    let mut file = None;
    let mut quality = None;
    let mut observation = false;
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        match arg {
            "--quality" => quality = Some(number::<i32>("--quality", args.next().copied())?),
            "--observation" => observation = true,
            _ if is_option(arg) => return Err(usage(&format!("unknown option {}", shown(arg)))),
            _ if file.is_none() => file = Some(arg),
            _ => return Err(usage("policy takes one FILE")),
        }
    }
    let file = file.ok_or_else(|| usage("policy needs a FILE"))?;
    let quality = quality.ok_or_else(|| usage("policy needs --quality Q"))?;
    let doc = reader.read(file)?;
    Ok(if observation {
        Verdict::new("observation", checked(ContextObservationPolicy::diagnose(&doc, quality), Success::Valid))
    } else {
        Verdict::new("policy", checked(CompactionPolicy::diagnose(&doc, quality), Success::Valid))
    })
}

fn output(args: &[&str], reader: &mut Inputs) -> Result<Verdict, Fatal> {
    let mut input = None;
    let mut result = None;
    let mut tokens = None;
    let mut max_bytes = None;
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        match arg {
            "--input" => input = Some(*args.next().ok_or_else(|| usage("--input needs a FILE"))?),
            "--tokens" => tokens = Some(number::<u64>("--tokens", args.next().copied())?),
            "--max-bytes" => max_bytes = Some(number::<u64>("--max-bytes", args.next().copied())?),
            _ if is_option(arg) => return Err(usage(&format!("unknown option {}", shown(arg)))),
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
        Err(_) => return Ok(Verdict::new("input", Err(CompactionInput::diagnose(&wire)))),
    };
    let result = match input.validate_output(&reply, tokens, max_bytes) {
        Ok(summary) => Ok(Success::Summary(summary.into_string())),
        Err(_) => Err(input.diagnose_output(&reply, tokens, max_bytes)),
    };
    Ok(Verdict::new("output", result))
}

/// `pairing FILE` and `cut FILE --keep K` over a parsed input.
fn transcript(command: &str, args: &[&str], reader: &mut Inputs) -> Result<Verdict, Fatal> {
    let (file, keep) = match (command, args) {
        ("pairing", [file]) if !is_option(file) => (*file, None),
        ("cut", [file, "--keep", k]) | ("cut", ["--keep", k, file]) => (*file, Some(number::<u64>("--keep", Some(k))?)),
        ("cut", _) => return Err(usage("cut takes FILE --keep K")),
        _ => return Err(usage("pairing takes one FILE")),
    };
    let wire = reader.read(file)?;
    let input = match CompactionInput::parse(&wire) {
        Ok(input) => input,
        Err(_) => return Ok(Verdict::new("input", Err(CompactionInput::diagnose(&wire)))),
    };
    let result = match keep {
        None => checked(input.pairing_diagnose(), Success::Valid),
        Some(keep) => match input.safe_cut(keep) {
            Ok(cut) => Ok(Success::Cut { cut, messages: input.message_count() }),
            Err(_) => Err(input.pairing_diagnose()),
        },
    };
    Ok(Verdict::new("transcript", result))
}

/// `reply INPUT REPLY --output-tokens N [--stop S] [--max-reply-bytes N] [--trim] [--unfence]`.
fn reply(args: &[&str], reader: &mut Inputs) -> Result<Verdict, Fatal> {
    let mut files = Vec::new();
    let mut tokens = None;
    let mut stop = Stop::Unknown;
    let mut max_bytes = None;
    let (mut trim, mut unfence) = (false, false);
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        match arg {
            "--output-tokens" => tokens = Some(number::<u64>("--output-tokens", args.next().copied())?),
            "--max-reply-bytes" => max_bytes = Some(number::<u64>("--max-reply-bytes", args.next().copied())?),
            "--stop" => {
                stop = match args.next().copied() {
                    Some("end") => Stop::End,
                    Some("length") => Stop::Length,
                    Some("unknown") => Stop::Unknown,
                    Some(other) => {
                        return Err(usage(&format!("--stop: {} is not end, length or unknown", shown(other))));
                    }
                    None => return Err(usage("--stop needs a value")),
                }
            }
            "--trim" => trim = true,
            "--unfence" => unfence = true,
            _ if is_option(arg) => return Err(usage(&format!("unknown option {}", shown(arg)))),
            _ => files.push(arg),
        }
    }
    let [input, reply] = files.as_slice() else {
        return Err(usage("reply takes INPUT and REPLY"));
    };
    let tokens = tokens.ok_or_else(|| usage("reply needs --output-tokens N"))?;
    let wire = reader.read(input)?;
    let text = reader.read(reply)?;
    let input = match CompactionInput::parse(&wire) {
        Ok(input) => input,
        Err(_) => return Ok(Verdict::new("input", Err(CompactionInput::diagnose(&wire)))),
    };
    // The round's default (SPEC R15.12): 16 bytes per summary token, at least the smallest summary.
    let max_reply_bytes =
        max_bytes.unwrap_or_else(|| input.max_summary_tokens().saturating_mul(16).max(SMALLEST_SUMMARY.len() as u64));
    let options = ReplyOptions { output_tokens: tokens, stop, max_reply_bytes, trim, unfence };
    let result = match input.validate_reply(&text, &options) {
        Ok(valid) => Ok(Success::Reply(valid.summary().to_owned(), valid.removed())),
        Err(_) => Err(input.diagnose_reply(&text, &options)),
    };
    Ok(Verdict { reply: true, ..Verdict::new("reply", result) })
}

/// `replacement build INPUT CUT SUMMARY` and `replacement verify INPUT CUT REBUILT`.
fn replacement(args: &[&str], reader: &mut Inputs) -> Result<Verdict, Fatal> {
    let (verb, input, cut, other) = match args {
        [verb @ ("build" | "verify"), input, cut, other] if ![input, cut, other].iter().any(|a| is_option(a)) => {
            (*verb, *input, number::<u64>("CUT", Some(cut))?, *other)
        }
        _ => return Err(usage("replacement takes build INPUT CUT SUMMARY or verify INPUT CUT REBUILT")),
    };
    let wire = reader.read(input)?;
    let other = reader.read(other)?;
    let input = match CompactionInput::parse(&wire) {
        Ok(input) => input,
        Err(_) => return Ok(Verdict::new("input", Err(CompactionInput::diagnose(&wire)))),
    };
    if verb == "verify" {
        return Ok(Verdict::new("replacement", checked(input.diagnose_replacement(cut, &other), Success::Valid)));
    }
    let status = match input.build_replacement(cut, &other) {
        Ok(built) => return Ok(Verdict::new("replacement", Ok(Success::Replacement(built)))),
        Err(e) => e.status(),
    };
    let mut verdict = Verdict::new("replacement", Err(Diagnostic::new(status)));
    match status {
        // Where the pairing fails (S14.3), and where the summary does (SPEC 4).
        Status::PairingUnansweredCall
        | Status::PairingOrphanResult
        | Status::PairingDuplicateId
        | Status::PairingDuplicateResult => verdict.result = Err(input.pairing_diagnose()),
        Status::ReplacementSummary => verdict.cause = Some(("summary", summary::diagnose(&other))),
        _ => {}
    }
    Ok(verdict)
}

/// Exactly the options `names`, each with a u64 value, in any order.
fn flags<const N: usize>(args: &[&str], names: [&str; N]) -> Result<[u64; N], Fatal> {
    let mut values = [None; N];
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        let slot = names
            .iter()
            .position(|n| *n == arg)
            .and_then(|i| values.get_mut(i))
            .ok_or_else(|| usage(&format!("unknown argument {}", shown(arg))))?;
        *slot = Some(number::<u64>(arg, args.next().copied())?);
    }
    let mut out = [0u64; N];
    for ((slot, name), value) in out.iter_mut().zip(names).zip(values) {
        *slot = value.ok_or_else(|| usage(&format!("missing {name} N")))?;
    }
    Ok(out)
}

/// `-` alone is a file name (standard input), not an option.
fn is_option(arg: &str) -> bool {
    arg.starts_with('-') && arg != "-"
}

fn single_file<'a>(args: &[&'a str]) -> Result<&'a str, Fatal> {
    match args {
        [file] if !is_option(file) => Ok(file),
        [arg] => Err(usage(&format!("unknown option {}", shown(arg)))),
        [] => Err(usage("missing FILE")),
        _ => Err(usage("too many arguments")),
    }
}

fn number<T: std::str::FromStr>(option: &str, value: Option<&str>) -> Result<T, Fatal> {
    let value = value.ok_or_else(|| usage(&format!("{option} needs a value")))?;
    value.parse().map_err(|_| usage(&format!("{option}: {} is not a valid number", shown(value))))
}

fn usage(problem: &str) -> Fatal {
    Fatal(format!("{problem}\n(run `loopcompact --help` for usage)"))
}

/// Reads the files named on the command line, at most `limit` bytes each; standard input can be
/// read only once.
struct Inputs {
    stdin_used: bool,
    limit: u64,
}

impl Inputs {
    fn read(&mut self, name: &str) -> Result<Vec<u8>, Fatal> {
        let what = if name == "-" { "standard input".to_owned() } else { shown(name) };
        let mut bytes = Vec::new();
        // One byte more than the limit tells a document that is too long from one that fits.
        let read = if name == "-" {
            if std::mem::replace(&mut self.stdin_used, true) {
                return Err(usage("standard input (-) can be used for one file only"));
            }
            standard_input().and_then(|stdin| stdin.take(self.limit.saturating_add(1)).read_to_end(&mut bytes))
        } else {
            std::fs::File::open(name).and_then(|f| f.take(self.limit.saturating_add(1)).read_to_end(&mut bytes))
        };
        read.map_err(|e| Fatal(format!("cannot read {what}: {e}")))?;
        if bytes.len() as u64 > self.limit {
            return Err(Fatal(format!(
                "{what} is longer than the read limit of {} bytes (--max-bytes N to change it)",
                self.limit
            )));
        }
        Ok(bytes)
    }
}

/// Standard input as a file of its own, so that reading it reports every error: std's `Stdin`
/// reads a descriptor that is not open for reading (`0>file`, EBADF) as an empty input, which
/// would be checked as the empty document. A standard input closed when the tool started is an
/// error too (`closed_at_start`).
#[cfg(unix)]
fn standard_input() -> std::io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    if closed_at_start() {
        return Err(std::io::Error::other("it is closed"));
    }
    Ok(std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?))
}

#[cfg(not(unix))]
fn standard_input() -> std::io::Result<std::io::Stdin> {
    Ok(std::io::stdin())
}

/// Whether standard input was closed when the tool started. Rust's runtime opens /dev/null
/// read-write on a closed descriptor 0 before `main` (so that no file the tool opens becomes its
/// standard input); a shell's `</dev/null` opens it read-only. So /dev/null open read-write on
/// descriptor 0 is taken for a closed standard input (an explicit `<>/dev/null` too). Linux only:
/// elsewhere a closed standard input still reads as empty.
#[cfg(unix)]
fn closed_at_start() -> bool {
    if !cfg!(target_os = "linux") {
        return false;
    }
    let null = std::fs::read_link("/proc/self/fd/0").is_ok_and(|target| target == std::path::Path::new("/dev/null"));
    let flags = std::fs::read_to_string("/proc/self/fdinfo/0").ok().and_then(|info| {
        info.lines().find_map(|line| line.strip_prefix("flags:")).and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
    });
    // O_ACCMODE and O_RDWR.
    null && flags.is_some_and(|flags| flags & 0o3 == 0o2)
}

/// Prints the verdict and returns the exit status: 0 valid, 1 rejected.
fn report(options: &Options, verdict: &Verdict) -> Result<ExitCode, Fatal> {
    let ok_diagnostic = Diagnostic::ok();
    let d = match &verdict.result {
        Ok(_) => &ok_diagnostic,
        Err(d) => d,
    };
    let status = d.status();
    // `reply` always says what to tell the summariser; the other checks with --retry-message.
    let retry = ((options.retry || verdict.reply) && !status.is_ok()).then(|| retry_message(d));
    let mut out = std::io::stdout().lock();
    let written = if options.json {
        json_verdict(&mut out, verdict, d, retry)
    } else {
        human_verdict(&mut out, verdict, d, retry)
    };
    written.and_then(|()| out.flush()).map_err(|e| Fatal(format!("cannot write the verdict: {e}")))?;
    Ok(if status.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The `--json` object of a diagnosis, without the fields of a command's success.
fn json_line<'a>(document: &'static str, d: &'a Diagnostic, retry: Option<String>) -> JsonVerdict<'a> {
    let status = d.status();
    let non_empty = |s: &'static str| (!s.is_empty()).then_some(s);
    JsonVerdict {
        ok: status.is_ok(),
        document,
        status: status.code(),
        name: status.name(),
        reason: status.reason(),
        message: status.message(),
        // The diagnosis's class: a byte limit no reply can meet is the host's (SPEC R15.2).
        class: d.class().name(),
        offset: d.offset(),
        line: (d.line() > 0).then_some(d.line()),
        column: (d.column() > 0).then_some(d.column()),
        section: d.section().map(section_name),
        rule: non_empty(d.rule()),
        expected: non_empty(d.expected()),
        location: (!d.location().is_empty()).then_some(d.location()),
        limit: d.limit(),
        actual: d.actual(),
        fingerprint: None,
        summary: None,
        cut: None,
        messages: None,
        sections: None,
        text: None,
        retry_message: retry,
        removed: None,
        replacement: None,
        cause: None,
    }
}

fn json_verdict(out: &mut impl Write, verdict: &Verdict, d: &Diagnostic, retry: Option<String>) -> std::io::Result<()> {
    let mut line = json_line(verdict.document, d, retry);
    if verdict.reply {
        line.removed = Some(d.removed().into());
    }
    if let Some((document, cause)) = &verdict.cause {
        line.cause = Some(Box::new(json_line(document, cause, None)));
    }
    match &verdict.result {
        Ok(Success::Fingerprint(hex)) => line.fingerprint = Some(hex),
        Ok(Success::Summary(text)) => line.summary = Some(text),
        Ok(Success::Reply(text, removed)) => {
            (line.summary, line.removed) = (Some(text.as_str()), Some((*removed).into()))
        }
        // Canonical JSON is UTF-8 (E7); a lossy view would only ever be a library bug.
        Ok(Success::Replacement(json)) => line.replacement = std::str::from_utf8(json).ok(),
        Ok(Success::Cut { cut, messages }) => (line.cut, line.messages) = (Some(*cut), Some(*messages)),
        Ok(Success::Sections(spans)) => {
            line.sections = Some(
                Section::ALL
                    .iter()
                    .zip(spans)
                    .map(|(s, span)| JsonSection { name: s.name(), offset: span.offset, len: span.len })
                    .collect(),
            );
        }
        Ok(Success::Text(text)) => line.text = Some(text),
        Ok(Success::Valid) | Err(_) => {}
    }
    serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
    writeln!(out)
}

/// The section's name for a verdict: the element name, `root` for the root element.
fn section_name(section: Section) -> &'static str {
    if section == Section::Root { "root" } else { section.name() }
}

/// "trim|unfence: 7 bytes before, 5 after": what cleanup removed; `None` when nothing.
fn removed_text(removed: Removed) -> Option<String> {
    let names: Vec<&str> = [(removed.trimmed, "trim"), (removed.unfenced, "unfence")]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
    (!names.is_empty())
        .then(|| format!("{}: {} bytes before, {} after", names.join("|"), removed.before, removed.after))
}

/// The one line of a rejection: `DOCUMENT: rejected: NAME (CODE) reason REASON at WHERE: MESSAGE`.
fn rejection_line(out: &mut impl Write, document: &str, d: &Diagnostic, reply: bool) -> std::io::Result<()> {
    let status = d.status();
    let reason = if status.reason().is_empty() { "-" } else { status.reason() };
    // `at` introduces the position when there is one; the other facts follow after commas.
    let mut position = Vec::new();
    if let Some(offset) = d.offset() {
        position.push(format!("byte {offset}"));
    }
    if d.line() > 0 {
        position.push(format!("line {}, column {}", d.line(), d.column()));
    }
    let at = if position.is_empty() { String::new() } else { format!(" at {}", position.join(", ")) };
    let mut facts = Vec::new();
    if let Some(section) = d.section() {
        facts.push(format!("section {}", section_name(section)));
    }
    if !d.rule().is_empty() {
        facts.push(format!("rule {}", d.rule()));
    }
    if !d.location().is_empty() {
        facts.push(format!("location {}", d.location()));
    }
    if !d.expected().is_empty() {
        facts.push(format!("expected {}", d.expected()));
    }
    if let (Some(limit), Some(actual)) = (d.limit(), d.actual()) {
        facts.push(format!("limit {limit}, actual {actual}"));
    }
    if let Some(removed) = removed_text(d.removed()).filter(|_| reply) {
        facts.push(format!("removed {removed}"));
    }
    facts.push(format!("class {}", d.class().name()));
    writeln!(
        out,
        "{document}: rejected: {} ({}) reason {reason}{at}, {}: {}",
        status.name(),
        status.code(),
        facts.join(", "),
        status.message(),
    )
}

fn human_verdict(
    out: &mut impl Write,
    verdict: &Verdict,
    d: &Diagnostic,
    retry: Option<String>,
) -> std::io::Result<()> {
    let status = d.status();
    match &verdict.result {
        Ok(Success::Valid) => writeln!(out, "{}: valid ({})", verdict.document, status.name()),
        Ok(Success::Fingerprint(hex)) => writeln!(out, "{hex}"),
        // The exact text of the replacement message (or of the section), or the exact replacement
        // transcript: no newline is added.
        Ok(Success::Summary(text) | Success::Text(text) | Success::Reply(text, _)) => out.write_all(text.as_bytes()),
        Ok(Success::Replacement(json)) => out.write_all(json),
        Ok(Success::Cut { cut, messages }) => {
            writeln!(out, "cut {cut}: summarise messages 0..{cut}, keep {cut}..{messages} ({messages} messages)")
        }
        Ok(Success::Sections(spans)) => {
            for (section, span) in Section::ALL.iter().zip(spans) {
                writeln!(out, "{} offset {} length {}", section.name(), span.offset, span.len)?;
            }
            Ok(())
        }
        Err(_) => {
            rejection_line(out, verdict.document, d, verdict.reply)?;
            if let Some((document, cause)) = &verdict.cause {
                rejection_line(out, document, cause, false)?;
            }
            if let Some(retry) = retry {
                writeln!(out, "{retry}")?;
            }
            Ok(())
        }
    }
}
