"""``python -m loopcompact``: the command-line tool of the crate (``cli/src/main.rs``) over the
library this package carries.

The same commands, options, output (text and ``--json``) and exit statuses (0 valid, 1 rejected,
2 usage or I/O error, a closed or unreadable standard input included), so scripts can use either; tests/test_cli.py runs both on the same files
and compares every byte. Like the library, it never echoes input bytes in a verdict; only
``output`` prints the decoded summary and ``section`` a section's text, the data asked for.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import BinaryIO, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import (
    Diagnostic,
    Input,
    InputError,
    LoopcompactError,
    Section,
    SectionSpan,
    abi_version,
    compaction_progress_check,
    compaction_threshold_check,
    request_fingerprint_hex,
    summary_instructions,
    summary_section_text,
    summary_sections,
    validate_compaction_policy,
    validate_context_config,
    validate_context_observation,
    validate_input,
    validate_summary,
    version,
)
from ._errors import _section_name
from ._constants import Status, StatusClass

#: The read limit when --max-bytes is not given: 256 MiB.
DEFAULT_READ_LIMIT = 256 << 20

USAGE = """\
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

options:
  --json           print the verdict as one JSON object:
                   {"ok","document","status","name","reason","message","class","offset",
                   "line","column","section","rule","expected","location","limit","actual"},
                   plus "fingerprint", "summary", "cut" or "sections" on success of those
                   commands, and "retry_message" with --retry-message
  --retry-message  also print the message for the summariser model (SPEC 13.5)
  --max-bytes N    read at most N bytes of any input file (default 268435456, 256 MiB); after the
                   `output` command, --max-bytes is the reply's byte limit instead
  -h, --help       print this help (SPEC N: section N of docs/SPEC.md, the contract)
  --version        print the library and C ABI versions

A rejection prints NAME (CODE), the reason, where (byte offset, line, column, section, rule,
location) where known, and the message. Offsets count bytes of the file, except for a summary
inside an output reply: there they count bytes of the decoded summary text.

exit status: 0 valid, 1 rejected, 2 usage or I/O error (a closed or unreadable standard input
read as - is an I/O error; an empty one is the empty document)
"""

_SECTIONS = (Section.GOAL, Section.CONSTRAINTS, Section.DECISIONS, Section.STATE, Section.OPEN_ITEMS)


class Fatal(Exception):
    """A usage or I/O problem: reported on stderr (and as JSON with --json), exit status 2."""


# What a successful check prints besides LC_OK.
class Valid:
    pass


class Fingerprint(str):
    pass


class Summary(str):
    pass


class Text(str):
    pass


class Cut(Tuple[int, int]):
    pass


class Sections(Tuple[SectionSpan, ...]):
    pass


Success = Union[Valid, Fingerprint, Summary, Text, Cut, Sections]
#: The document a verdict is about, and its success or the diagnosis of its rejection.
Verdict = Tuple[str, Union[Success, Diagnostic]]


def shown(text: str) -> str:
    """An argument or file name as the tool prints it: quoted, with control characters and quotes
    escaped (Rust's ``escape_debug``), so nothing the user passed reaches the terminal raw."""
    short = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", "'": "\\'", '"': '\\"', "\0": "\\0"}
    out = []
    for c in text:
        if c in short:
            out.append(short[c])
        elif not c.isprintable():
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def usage(problem: str) -> Fatal:
    return Fatal(f"{problem}\n(run `loopcompact --help` for usage)")


def is_option(arg: str) -> bool:
    """``-`` alone is a file name (standard input), not an option."""
    return arg.startswith("-") and arg != "-"


def number(option: str, value: Optional[str], signed: bool = False, bits: int = 64) -> int:
    """Rust's ``str::parse`` of an unsigned (or signed) integer: an optional sign, then digits."""
    if value is None:
        raise usage(f"{option} needs a value")
    pattern = r"[+-]?[0-9]+" if signed else r"\+?[0-9]+"
    if re.fullmatch(pattern, value, flags=re.ASCII):
        n = int(value)
        low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
        if low <= n < high:
            return n
    raise usage(f"{option}: {shown(value)} is not a valid number")


def single_file(args: Sequence[str]) -> str:
    if len(args) == 1 and not is_option(args[0]):
        return args[0]
    if len(args) == 1:
        raise usage(f"unknown option {shown(args[0])}")
    if not args:
        raise usage("missing FILE")
    raise usage("too many arguments")


def flags(args: Sequence[str], names: Sequence[str]) -> List[int]:
    """Exactly the options ``names``, each with a u64 value, in any order."""
    values: Dict[str, int] = {}
    it = iter(args)
    for arg in it:
        if arg not in names:
            raise usage(f"unknown argument {shown(arg)}")
        values[arg] = number(arg, next(it, None))
    for name in names:
        if name not in values:
            raise usage(f"missing {name} N")
    return [values[name] for name in names]


class Inputs:
    """Reads the files named on the command line, at most ``limit`` bytes each; standard input
    can be read only once."""

    def __init__(self, limit: int, stdin: Optional[BinaryIO]) -> None:
        self.limit = limit
        #: None when standard input was closed at start-up (Python's ``sys.stdin`` is then None).
        self.stdin = stdin
        self.stdin_used = False

    def read(self, name: str) -> bytes:
        what = "standard input" if name == "-" else shown(name)
        # One byte more than the limit tells a document that is too long from one that fits.
        want = min(self.limit + 1, (1 << 64) - 1)
        try:
            if name == "-":
                if self.stdin_used:
                    raise usage("standard input (-) can be used for one file only")
                self.stdin_used = True
                if self.stdin is None:
                    raise Fatal("cannot read standard input: it is closed")
                data = _read_at_most(self.stdin, want)
            else:
                with open(name, "rb") as f:
                    data = _read_at_most(f, want)
        except OSError as e:
            detail = f"{os.strerror(e.errno)} (os error {e.errno})" if e.errno else str(e)
            raise Fatal(f"cannot read {what}: {detail}") from None
        if len(data) > self.limit:
            raise Fatal(f"{what} is longer than the read limit of {self.limit} bytes (--max-bytes N to change it)")
        return data


def _read_at_most(f: BinaryIO, n: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = f.read(min(n, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def diagnosed(check: Callable[[], object], success: Success) -> Union[Success, Diagnostic]:
    """Runs ``check``: ``success``, or the diagnosis its exception carries."""
    try:
        check()
    except LoopcompactError as e:
        return e.diagnostic
    return success


class Options:
    def __init__(self) -> None:
        self.json = False
        self.retry = False
        self.read_limit = DEFAULT_READ_LIMIT


def run(args: Sequence[str], stdin: Optional[BinaryIO], stdout: BinaryIO) -> int:
    for i, arg in enumerate(args):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise usage(f"argument {i + 1} is not valid UTF-8") from None
    options = Options()
    rest: List[str] = []
    command: Optional[str] = None
    it = iter(args)
    for arg in it:
        if arg == "--json":
            options.json = True
        elif arg == "--retry-message":
            options.retry = True
        elif arg in ("-h", "--help"):
            stdout.write(USAGE.encode("utf-8"))
            return 0
        elif arg == "--version":
            stdout.write(f"loopcompact {version()} (C ABI version {abi_version()})\n".encode("utf-8"))
            return 0
        elif arg == "--max-bytes" and command != "output":
            # After `output`, --max-bytes is the reply's byte limit (its own option).
            options.read_limit = number("--max-bytes", next(it, None))
        elif command is None and not is_option(arg):
            command = arg
        else:
            rest.append(arg)
    if command is None:
        raise usage("no command given")
    reader = Inputs(options.read_limit, stdin)
    verdict = dispatch(command, rest, reader, stdout)
    if verdict is None:
        return 0
    return report(options, verdict, stdout)


def dispatch(command: str, rest: Sequence[str], reader: Inputs, stdout: BinaryIO) -> Optional[Verdict]:
    if command == "summary":
        xml = reader.read(single_file(rest))
        return "summary", diagnosed(lambda: validate_summary(xml), Valid())
    if command == "input":
        wire = reader.read(single_file(rest))
        return "input", diagnosed(lambda: validate_input(wire), Valid())
    if command == "fingerprint":
        doc = reader.read(single_file(rest))
        try:
            return "fingerprint", Fingerprint(request_fingerprint_hex(doc))
        except LoopcompactError as e:
            return "fingerprint", e.diagnostic
    if command == "context":
        doc = reader.read(single_file(rest))
        return "context", diagnosed(lambda: validate_context_config(doc), Valid())
    if command == "policy":
        return policy(rest, reader)
    if command == "output":
        return output(rest, reader)
    if command in ("pairing", "cut"):
        return transcript(command, rest, reader)
    if command == "progress":
        tokens, limit, rearm = flags(rest, ["--tokens", "--limit", "--rearm"])
        if rearm > 0xFFFF:
            raise usage("--rearm: at most 65535 basis points")
        return "progress", diagnosed(lambda: compaction_progress_check(tokens, limit, rearm), Valid())
    if command == "threshold":
        if not rest:
            raise usage("threshold needs a POLICY file")
        limit, fixed = flags(rest[1:], ["--limit", "--fixed"])
        doc = reader.read(rest[0])
        return "threshold", diagnosed(lambda: compaction_threshold_check(doc, limit, fixed), Valid())
    if command == "sections":
        xml = reader.read(single_file(rest))
        try:
            return "summary", Sections(summary_sections(xml))
        except LoopcompactError as e:
            return "summary", e.diagnostic
    if command == "section":
        if len(rest) != 2:
            raise usage("section takes FILE and a section NAME")
        file, name = rest
        section = next((s for s in _SECTIONS if _section_name(s) == name), None)
        if section is None:
            raise usage(f"unknown section {shown(name)}")
        xml = reader.read(file)
        try:
            return "summary", Text(summary_section_text(xml, section))
        except LoopcompactError as e:
            return "summary", e.diagnostic
    if command == "instructions":
        if rest:
            raise usage("instructions takes no argument")
        stdout.write((summary_instructions() + "\n").encode("utf-8"))
        return None
    raise usage(f"unknown command {shown(command)}")


def policy(args: Sequence[str], reader: Inputs) -> Verdict:
    file: Optional[str] = None
    quality: Optional[int] = None
    observation = False
    it = iter(args)
    for arg in it:
        if arg == "--quality":
            quality = number("--quality", next(it, None), signed=True, bits=32)
        elif arg == "--observation":
            observation = True
        elif is_option(arg):
            raise usage(f"unknown option {shown(arg)}")
        elif file is None:
            file = arg
        else:
            raise usage("policy takes one FILE")
    if file is None:
        raise usage("policy needs a FILE")
    if quality is None:
        raise usage("policy needs --quality Q")
    q = quality
    doc = reader.read(file)
    if observation:
        return "observation", diagnosed(lambda: validate_context_observation(doc, q), Valid())
    return "policy", diagnosed(lambda: validate_compaction_policy(doc, q), Valid())


def output(args: Sequence[str], reader: Inputs) -> Verdict:
    input_file: Optional[str] = None
    result: Optional[str] = None
    tokens: Optional[int] = None
    max_bytes: Optional[int] = None
    it = iter(args)
    for arg in it:
        if arg == "--input":
            input_file = next(it, None)
            if input_file is None:
                raise usage("--input needs a FILE")
        elif arg == "--tokens":
            tokens = number("--tokens", next(it, None))
        elif arg == "--max-bytes":
            max_bytes = number("--max-bytes", next(it, None))
        elif is_option(arg):
            raise usage(f"unknown option {shown(arg)}")
        elif result is None:
            result = arg
        else:
            raise usage("output takes one RESULT file")
    if input_file is None:
        raise usage("output needs --input IN")
    if result is None:
        raise usage("output needs a RESULT file")
    if tokens is None:
        raise usage("output needs --tokens N")
    if max_bytes is None:
        raise usage("output needs --max-bytes N")
    wire = reader.read(input_file)
    reply = reader.read(result)
    try:
        handle = Input(wire)
    except InputError as e:
        return "input", e.diagnostic
    with handle:
        try:
            return "output", Summary(handle.validate_output(reply, tokens, max_bytes))
        except LoopcompactError as e:
            return "output", e.diagnostic


def transcript(command: str, args: Sequence[str], reader: Inputs) -> Verdict:
    """``pairing FILE`` and ``cut FILE --keep K`` over a parsed input."""
    keep: Optional[int] = None
    if command == "pairing":
        if len(args) != 1 or is_option(args[0]):
            raise usage("pairing takes one FILE")
        file = args[0]
    elif len(args) == 3 and args[1] == "--keep":
        file, keep = args[0], number("--keep", args[2])
    elif len(args) == 3 and args[0] == "--keep":
        file, keep = args[2], number("--keep", args[1])
    else:
        raise usage("cut takes FILE --keep K")
    wire = reader.read(file)
    try:
        handle = Input(wire)
    except InputError as e:
        return "input", e.diagnostic
    with handle:
        if keep is None:
            return "transcript", diagnosed(handle.pairing_check, Valid())
        try:
            cut = handle.safe_cut(keep)
        except LoopcompactError as e:
            return "transcript", e.diagnostic
        # The message count n: on a well-paired transcript the largest safe cut keeping nothing is
        # n itself (no pair can straddle the end), and the C ABI has no other way to say n.
        return "transcript", Cut((cut, handle.safe_cut(0)))


def _json(value: object) -> str:
    # serde_json's compact form: no spaces, non-ASCII as it is, the same escapes.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def report(options: Options, verdict: Verdict, stdout: BinaryIO) -> int:
    """Prints the verdict and returns the exit status: 0 valid, 1 rejected."""
    document, result = verdict
    d = result if isinstance(result, Diagnostic) else Diagnostic(status=Status.OK, status_class=StatusClass.OK)
    retry = d.retry_message() if options.retry and not d.ok else None
    text = json_verdict(document, result, d, retry) if options.json else human_verdict(document, result, d, retry)
    stdout.write(text.encode("utf-8"))
    stdout.flush()
    return 0 if d.ok else 1


def json_verdict(document: str, result: Union[Success, Diagnostic], d: Diagnostic, retry: Optional[str]) -> str:
    line: Dict[str, object] = {
        "ok": d.ok,
        "document": document,
        "status": d.status,
        "name": d.name,
        "reason": d.reason,
        "message": d.message,
        "class": d.status_class.name.lower(),
        "offset": d.offset,
        "line": d.line,
        "column": d.column,
        "section": _section_name(d.section) if d.section != Section.NONE else None,
        "rule": d.rule or None,
        "expected": d.expected or None,
        "location": d.location or None,
        "limit": d.limit,
        "actual": d.actual,
    }
    if isinstance(result, Fingerprint):
        line["fingerprint"] = str(result)
    elif isinstance(result, Summary):
        line["summary"] = str(result)
    elif isinstance(result, Cut):
        line["cut"], line["messages"] = result
    elif isinstance(result, Sections):
        line["sections"] = [{"name": _section_name(s.section), "offset": s.offset, "len": s.length} for s in result]
    elif isinstance(result, Text):
        line["text"] = str(result)
    if retry is not None:
        line["retry_message"] = retry
    return _json(line) + "\n"


def human_verdict(document: str, result: Union[Success, Diagnostic], d: Diagnostic, retry: Optional[str]) -> str:
    if isinstance(result, Valid):
        return f"{document}: valid ({d.name})\n"
    if isinstance(result, Fingerprint):
        return f"{result}\n"
    if isinstance(result, (Summary, Text)):
        # The exact text of the replacement message (or of the section): no newline is added.
        return str(result)
    if isinstance(result, Cut):
        cut, messages = result
        return f"cut {cut}: summarise messages 0..{cut}, keep {cut}..{messages} ({messages} messages)\n"
    if isinstance(result, Sections):
        return "".join(f"{_section_name(s.section)} offset {s.offset} length {s.length}\n" for s in result)
    reason = d.reason or "-"
    facts = d.describe([f"class {d.status_class.name.lower()}"])
    text = f"{document}: rejected: {d.name} ({d.status}) reason {reason}{facts}: {d.message}\n"
    return text + (f"{retry}\n" if retry is not None else "")


def main(
    argv: Optional[Sequence[str]] = None,
    stdin: Optional[BinaryIO] = None,
    stdout: Optional[BinaryIO] = None,
    stderr: Optional[BinaryIO] = None,
) -> int:
    """Runs the tool on ``argv`` (default ``sys.argv[1:]``) and returns its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = stdout or sys.stdout.buffer
    if stdin is None and sys.stdin is not None:
        stdin = sys.stdin.buffer
    try:
        # stdin is None here when standard input was closed at start-up: an error only if read.
        return run(args, stdin, out)
    except Fatal as e:
        message = str(e)
        if "--json" in args:
            out.write((_json({"ok": False, "error": message}) + "\n").encode("utf-8"))
            out.flush()
        (stderr or sys.stderr.buffer).write(f"loopcompact: {message}\n".encode("utf-8"))
        return 2
