"""``python -m loopcompact``: the commands of the crate's CLI over the bundled library.

The Rust tool (``cli/``, ``target/release/loopcompact``, named by ``$LOOPCOMPACT_CLI``) and this
one run on the same files and arguments; stdout, stderr and the exit status must be the same
bytes: every example file, every conformance vector row, and the usage errors. Without the Rust
tool the comparison is skipped, except under ``CI=true``, where that is a failure.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

import loopcompact as lc
from loopcompact import _cli
from helpers import CI, EXAMPLES, REPO, VECTORS, load_rows

Run = Tuple[int, bytes, bytes]


def rust_cli() -> Optional[str]:
    path = os.environ.get("LOOPCOMPACT_CLI")
    if path:
        return path
    default = REPO / "target" / "release" / "loopcompact"
    return str(default) if default.is_file() else None


RUST = rust_cli()
needs_rust = pytest.mark.skipif(
    RUST is None and not CI, reason="no Rust CLI (set LOOPCOMPACT_CLI or cargo build --release -p loopcompact-cli)"
)


def python_cli(args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> Run:
    out, err = io.BytesIO(), io.BytesIO()
    here = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        code = _cli.main(args, io.BytesIO(stdin), out, err)
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def rust(args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> Run:
    assert RUST is not None, "CI=true needs the Rust CLI: set LOOPCOMPACT_CLI"
    done = subprocess.run([RUST, *args], input=stdin, capture_output=True, cwd=cwd, check=False)
    return done.returncode, done.stdout, done.stderr


def same(args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> Run:
    ours = python_cli(args, stdin, cwd)
    theirs = rust(args, stdin, cwd)
    assert ours == theirs, f"loopcompact {' '.join(args)}"
    return ours


# ---- the module entry point --------------------------------------------------------------------

def module(*args: str, stdin: bytes = b"") -> "subprocess.CompletedProcess[bytes]":
    return subprocess.run([sys.executable, "-m", "loopcompact", *args], input=stdin, capture_output=True, check=False)


def test_python_dash_m() -> None:
    valid = module("summary", str(EXAMPLES / "summary_valid.xml"))
    assert (valid.returncode, valid.stdout) == (0, b"summary: valid (LC_OK)\n")
    bad = module("--json", "summary", "-", stdin=(EXAMPLES / "summary_bad_root.xml").read_bytes())
    verdict = json.loads(bad.stdout)
    assert bad.returncode == 1 and verdict["name"] == "LC_SUMMARY_XML_ROOT" and verdict["class"] == "retry"
    usage = module("frobnicate")
    assert usage.returncode == 2 and b"unknown command" in usage.stderr
    version = module("--version")
    assert version.stdout.decode() == f"loopcompact {lc.version()} (C ABI version {lc.ABI_VERSION})\n"


def test_verdicts() -> None:
    code, out, _ = python_cli(["fingerprint", str(EXAMPLES / "fingerprint_valid.json")])
    assert code == 0 and len(out.strip()) == 64
    code, out, _ = python_cli(
        ["output", "--input", str(EXAMPLES / "input_valid.json"), str(EXAMPLES / "result_valid.json"),
         "--tokens", "812", "--max-bytes", "4096"]
    )
    assert code == 0 and out.startswith(b"<conversation_summary>") and not out.endswith(b"\n")
    code, out, _ = python_cli(["--retry-message", "summary", str(EXAMPLES / "summary_bad_structure.xml")])
    first, retry = out.decode().splitlines()
    assert code == 1 and first.startswith("summary: rejected: LC_SUMMARY_XML_STRUCTURE (208) reason xml_structure at byte ")
    assert first.endswith(lc.status_message(208)) and "class retry" in first and retry.startswith("Your summary")
    code, out, _ = python_cli(["sections", str(EXAMPLES / "summary_valid.xml")])
    assert code == 0 and [line.split()[0] for line in out.decode().splitlines()] == [
        "goal", "constraints", "decisions", "state", "open_items"
    ]
    code, out, _ = python_cli(["instructions"])
    assert code == 0 and out.decode() == lc.summary_instructions() + "\n"


def test_usage_errors() -> None:
    code, out, err = python_cli(["--json", "summary"])
    assert code == 2 and json.loads(out) == {"ok": False, "error": "missing FILE\n(run `loopcompact --help` for usage)"}
    assert err == b"loopcompact: missing FILE\n(run `loopcompact --help` for usage)\n"
    code, _, err = python_cli(["--max-bytes", "10", "summary", str(EXAMPLES / "summary_valid.xml")])
    assert code == 2 and b"longer than the read limit of 10 bytes" in err
    code, _, err = python_cli(["output", "--input", "-", "-", "--tokens", "1", "--max-bytes", "1"])
    assert code == 2 and b"standard input (-) can be used for one file only" in err
    code, _, err = python_cli(["summary", "/nonexistent/\x1b[31m"])
    assert code == 2 and err == b'loopcompact: cannot read "/nonexistent/\\u{1b}[31m": No such file or directory (os error 2)\n'


# ---- the same bytes as the Rust tool ---------------------------------------------------------------

def example_invocations() -> List[List[str]]:
    files = sorted(str(p.relative_to(REPO)) for p in EXAMPLES.iterdir() if p.is_file())
    runs: List[List[str]] = [[], ["--help"], ["-h", "summary"], ["--version"], ["instructions"], ["instructions", "x"],
                             ["frobnicate"], ["summary"], ["summary", "a", "b"], ["summary", "--bogus"],
                             ["policy", files[0]], ["policy", "--quality", "x", files[0]], ["policy", "--quality", "-5", files[0]],
                             ["policy", "--quality", "99999999999", files[0]], ["policy", "a", "b", "--quality", "1"],
                             ["output"], ["output", "--input"], ["output", "--input", "a", "b"],
                             ["output", "--input", "a", "b", "--tokens", "+1"], ["output", "--input", "a", "b", "c"],
                             ["cut", "x"], ["cut", "--keep", "k", "x"], ["pairing"], ["pairing", "--x"],
                             ["progress"], ["progress", "--tokens", "1", "--limit", "2"], ["progress", "--what", "1"],
                             ["progress", "--tokens", "1", "--limit", "2", "--rearm", "70000"],
                             ["threshold"], ["threshold", "p", "--limit", "1"], ["section", "x"], ["section", "x", "nope"],
                             ["--max-bytes", "x", "summary", "a"], ["summary", "missing.xml"], ["summary", "\u00e9\t\"'\\"],
                             ["--json", "summary", "missing.xml"], ["--json", "frobnicate"]]
    for tokens, limit, rearm in [("5000", "100000", "6000"), ("60000", "100000", "6000"), ("1", "0", "1")]:
        runs.append(["progress", "--tokens", tokens, "--limit", limit, "--rearm", rearm])
    for f in files:
        for command in (["summary", f], ["input", f], ["fingerprint", f], ["context", f], ["sections", f],
                        ["section", f, "goal"], ["section", f, "open_items"], ["pairing", f], ["cut", f, "--keep", "1"],
                        ["cut", "--keep", "0", f], ["policy", f, "--quality", "2"], ["policy", f, "--observation", "--quality", "3"],
                        ["threshold", f, "--limit", "200000", "--fixed", "1000"], ["threshold", f, "--fixed", "9000", "--limit", "10000"]):
            runs += [command, ["--json", *command], ["--retry-message", *command], ["--json", "--retry-message", *command]]
    for result in ("result_valid.json", "result_bad_xml.json", "result_wrong_identity.json"):
        for tokens, max_bytes in (("812", "4096"), ("0", "4096"), ("812", "10"), ("100000", "4096")):
            command = ["output", "--input", "examples/data/input_valid.json", f"examples/data/{result}",
                       "--tokens", tokens, "--max-bytes", max_bytes]
            runs += [command, ["--json", "--retry-message", *command]]
    return runs


@needs_rust
@pytest.mark.parametrize("args", example_invocations(), ids=lambda a: " ".join(a) or "(none)")
def test_same_as_the_rust_cli(args: List[str]) -> None:
    same(args, cwd=REPO)


@needs_rust
def test_same_on_standard_input() -> None:
    xml = (EXAMPLES / "summary_bad_syntax.xml").read_bytes()
    same(["summary", "-"], stdin=xml)
    same(["--json", "--retry-message", "summary", "-"], stdin=xml)
    same(["output", "--input", "examples/data/input_valid.json", "-", "--tokens", "812", "--max-bytes", "4096"],
         stdin=(EXAMPLES / "result_valid.json").read_bytes(), cwd=REPO)
    same(["--max-bytes", "3", "summary", "-"], stdin=xml)


def vector_invocations(tmp: Path) -> List[List[str]]:
    """Each conformance row as files and the CLI command that checks it."""
    runs: List[List[str]] = []

    def put(name: str, text: str) -> str:
        path = tmp / name
        path.write_bytes(text.encode("utf-8"))
        return str(path)

    for i, row in enumerate(load_rows(VECTORS / "summary_xml.jsonl")):
        if "xml" in row:
            f = put(f"s{i}.xml", row["xml"])
            runs += [["summary", f], ["sections", f], ["section", f, "state"]]
    for i, row in enumerate(load_rows(VECTORS / "input.jsonl")):
        if "input" in row:
            f = put(f"i{i}.json", row["input"])
            runs += [["input", f], ["pairing", f], ["cut", f, "--keep", "1"]]
    for i, row in enumerate(load_rows(VECTORS / "output.jsonl")):
        if "input_wire" in row and "output" in row:
            wire, out = put(f"o{i}-in.json", row["input_wire"]), put(f"o{i}-out.json", row["output"])
            runs.append(["output", "--input", wire, out, "--tokens", str(row["output_tokens"]),
                         "--max-bytes", str(row["max_output_bytes"])])
    for i, row in enumerate(load_rows(VECTORS / "fingerprint.jsonl")):
        if "input" in row:
            runs.append(["fingerprint", put(f"f{i}.json", row["input"])])
    for i, row in enumerate(load_rows(VECTORS / "policy.jsonl")):
        kind = row.get("kind")
        if kind == "compaction_policy" and "policy" in row:
            f = put(f"p{i}.json", row["policy"])
            runs += [["policy", f, "--quality", str(row["counter_quality"])], ["threshold", f, "--limit", "100000", "--fixed", "0"]]
        elif kind == "observation_policy" and "policy" in row:
            runs.append(["policy", put(f"p{i}.json", row["policy"]), "--observation", "--quality", str(row["counter_quality"])])
        elif kind == "context_config" and "config" in row:
            runs.append(["context", put(f"c{i}.json", row["config"])])
    return runs


@needs_rust
def test_same_on_every_vector(tmp_path: Path) -> None:
    runs = vector_invocations(tmp_path)
    assert len(runs) > 900
    for args in runs:
        same(["--json", "--retry-message", *args])
        same(args)


# ---- how a text verdict reads, and standard input that cannot be read -----------------------------

def test_text_verdicts_say_at_only_before_a_position() -> None:
    # O6.2 step 2 (no usage reported) has no offset: the facts follow the reason after a comma.
    args = ["output", "--input", str(EXAMPLES / "input_valid.json"), str(EXAMPLES / "result_valid.json"),
            "--tokens", "0", "--max-bytes", "100000"]
    code, out, _ = python_cli(args)
    assert code == 1 and out.decode() == (
        f"output: rejected: LC_SUMMARY_TOKEN_USAGE (204) reason token_usage, rule O6.2, class discard: {lc.status_message(204)}\n"
    )
    # With an offset, "at" introduces the position.
    code, out, _ = python_cli(["summary", "-"], stdin=b"<a/>")
    assert out.decode().startswith("summary: rejected: LC_SUMMARY_XML_ROOT (207) reason xml_root at byte 0, line 1, column 1, ")
    # The exceptions read the same way.
    with lc.Input((EXAMPLES / "input_valid.json").read_bytes()) as handle:
        with pytest.raises(lc.OutputError) as info:
            handle.validate_output((EXAMPLES / "result_valid.json").read_bytes(), 0, 100000)
    assert str(info.value) == f"LC_SUMMARY_TOKEN_USAGE (204), rule O6.2: {lc.status_message(204)}"
    with pytest.raises(lc.SummaryError) as info2:
        lc.validate_summary("<a/>")
    assert str(info2.value).startswith("LC_SUMMARY_XML_ROOT (207) at byte 0, line 1, column 1, section root, ")


def redirected(argv: List[str], redirect: str) -> Run:
    """Runs ``argv`` through /bin/sh (the test venv's PATH has no sh) with its standard input set
    up by ``redirect`` (``<&-`` closes it)."""
    done = subprocess.run(["/bin/sh", "-c", f'exec "$0" "$@" {redirect}', *argv], capture_output=True, cwd=REPO, check=False)
    return done.returncode, done.stdout, done.stderr


def test_closed_or_unreadable_standard_input_is_an_error(tmp_path: Path) -> None:
    tools = [[sys.executable, "-m", "loopcompact"]] + ([[RUST]] if RUST is not None else [])
    write_only = tmp_path / "write_only_stdin"
    write_only.write_bytes(b"")
    for tool in tools:
        for redirect, why in (("<&-", "it is closed"), (f"0>{write_only}", "Bad file descriptor (os error 9)")):
            error = f"cannot read standard input: {why}"
            assert redirected([*tool, "summary", "-"], redirect) == (2, b"", f"loopcompact: {error}\n".encode())
            code, out, _ = redirected([*tool, "--json", "summary", "-"], redirect)
            assert code == 2 and json.loads(out) == {"ok": False, "error": error}
        # Only reading it is an error: a closed standard input does not stop a check of a file.
        assert redirected([*tool, "summary", "examples/data/summary_valid.xml"], "<&-")[:2] == (0, b"summary: valid (LC_OK)\n")
        # An empty one (a shell's </dev/null) is the empty document: a verdict, not an error.
        code, out, _ = redirected([*tool, "summary", "-"], "</dev/null")
        assert code == 1 and out.startswith(b"summary: rejected: LC_SUMMARY_XML_ROOT (207)")
