"""The command-line tool in the package: ``python -m loopcompact``, the ``loopcompact`` console
script and the program they exec (``loopcompact/bin/loopcompact``, the Rust tool of ``cli/`` the
wheel carries). The package has no second copy of the tool's logic, so these tests check that it
ships the tool built from these sources and starts it faithfully: the bundled program against the
Rust tool of the checkout (``$LOOPCOMPACT_CLI``) on every example file, every conformance vector
row and the usage errors (stdout, stderr and exit status as bytes), and ``python -m loopcompact``
and the console script against it on the arguments, standard input and exit statuses that an exec
could get wrong. Without the Rust tool the comparison is skipped, except under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

import loopcompact as lc
from loopcompact import __main__ as entry
from helpers import CI, EXAMPLES, INSTALLED, REPO, VECTORS, load_rows

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
TOOL = entry.executable()
needs_tool = pytest.mark.skipif(
    not TOOL.is_file() and not INSTALLED, reason=f"no bundled tool at {TOOL} (a source tree without an editable install)"
)


def run(command: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> Run:
    done = subprocess.run(command, input=stdin, capture_output=True, cwd=cwd, check=False)
    return done.returncode, done.stdout, done.stderr


def module(args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> Run:
    return run([sys.executable, "-m", "loopcompact", *args], stdin, cwd)


def bundled(args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> Run:
    return run([str(TOOL), *args], stdin, cwd)


def rust(args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> Run:
    assert RUST is not None, "CI=true needs the Rust CLI: set LOOPCOMPACT_CLI"
    return run([RUST, *args], stdin, cwd)


def same(args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> Run:
    ours = bundled(args, stdin, cwd)
    theirs = rust(args, stdin, cwd)
    assert ours == theirs, f"loopcompact {' '.join(args)}"
    return ours


# ---- the entry points ------------------------------------------------------------------------------

@needs_tool
def test_python_dash_m() -> None:
    valid = module(["summary", str(EXAMPLES / "summary_valid.xml")])
    assert valid == (0, b"summary: valid (LC_OK)\n", b"")
    code, out, _ = module(["--json", "summary", "-"], stdin=(EXAMPLES / "summary_bad_root.xml").read_bytes())
    verdict = json.loads(out)
    assert code == 1 and verdict["name"] == "LC_SUMMARY_XML_ROOT" and verdict["class"] == "retry"
    code, _, err = module(["frobnicate"])
    assert code == 2 and b"unknown command" in err
    _, out, _ = module(["--version"])
    assert out.decode() == f"loopcompact {lc.version()} (C ABI version {lc.ABI_VERSION})\n"
    code, out, _ = module(["instructions"])
    assert code == 0 and out.decode() == lc.summary_instructions() + "\n"


# Arguments an exec wrapper could mangle (quotes, tabs, non-ASCII, an empty one, options the
# interpreter itself knows), standard input, and each exit status.
ENTRY_RUNS: List[Tuple[List[str], bytes]] = [
    ([], b""),
    (["--help"], b""),
    (["-h", "summary"], b""),
    (["-c", "print(1)"], b""),
    (["summary", "\u00e9\t\"'\\"], b""),
    (["summary", ""], b""),
    (["summary", "examples/data/summary_valid.xml"], b""),
    (["--json", "--retry-message", "summary", "examples/data/summary_bad_structure.xml"], b""),
    (["--retry-message", "summary", "-"], b"<conversation_summary><goal>x</goal></conversation_summary>"),
    (["summary", "-"], b""),
    (["--max-bytes", "3", "summary", "-"], b"<conversation_summary/>"),
    (["output", "--input", "examples/data/input_valid.json", "-", "--tokens", "812", "--max-bytes", "4096"],
     (EXAMPLES / "result_valid.json").read_bytes()),
    (["section", "examples/data/summary_valid_entities.xml", "goal"], b""),
    (["--json", "frobnicate"], b""),
]


@needs_rust
@needs_tool
@pytest.mark.parametrize("args,stdin", ENTRY_RUNS, ids=lambda a: repr(a)[:40])
def test_python_dash_m_is_the_rust_tool(args: List[str], stdin: bytes) -> None:
    assert module(args, stdin, REPO) == rust(args, stdin, REPO)


def console_script() -> Optional[str]:
    beside = Path(sys.executable).parent / "loopcompact"
    return str(beside) if beside.is_file() else shutil.which("loopcompact")


@needs_rust
@pytest.mark.skipif(console_script() is None and not INSTALLED, reason="the package is not installed (no console script)")
def test_console_script_is_the_rust_tool() -> None:
    script = console_script()
    assert script is not None, "the installed wheel has no loopcompact console script"
    for args, stdin in ENTRY_RUNS:
        assert run([script, *args], stdin, REPO) == rust(args, stdin, REPO), args


def test_a_missing_tool_is_an_error_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "bin" / "loopcompact"
    monkeypatch.setattr(entry, "executable", lambda: missing)
    monkeypatch.setattr(sys, "argv", ["loopcompact", "summary", "x"])
    assert entry.main() == 2
    assert "command-line tool is missing" in capsys.readouterr().err


@pytest.mark.skipif(not INSTALLED, reason="checks the installed wheel (scripts/test-python)")
def test_the_wheel_carries_the_tool() -> None:
    assert TOOL.is_file() and os.access(TOOL, os.X_OK), TOOL
    assert TOOL.parent.parent == Path(lc.__file__).resolve().parent
    assert not (Path(lc.__file__).resolve().parent / "_cli.py").exists(), "a second copy of the CLI's logic"


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
@needs_tool
def test_same_as_the_rust_cli() -> None:
    runs = example_invocations()
    assert len(runs) > 900
    for args in runs:
        same(args, cwd=REPO)


@needs_rust
@needs_tool
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
@needs_tool
def test_same_on_every_vector(tmp_path: Path) -> None:
    runs = vector_invocations(tmp_path)
    assert len(runs) > 900
    for args in runs:
        same(["--json", "--retry-message", *args])
        same(args)


# ---- how a text verdict reads, and standard input that cannot be read -----------------------------

@needs_tool
def test_text_verdicts_say_at_only_before_a_position() -> None:
    # O6.2 step 2 (no usage reported) has no offset: the facts follow the reason after a comma.
    args = ["output", "--input", str(EXAMPLES / "input_valid.json"), str(EXAMPLES / "result_valid.json"),
            "--tokens", "0", "--max-bytes", "100000"]
    code, out, _ = module(args)
    assert code == 1 and out.decode() == (
        f"output: rejected: LC_SUMMARY_TOKEN_USAGE (204) reason token_usage, rule O6.2, class discard: {lc.status_message(204)}\n"
    )
    # With an offset, "at" introduces the position.
    code, out, _ = module(["summary", "-"], stdin=b"<a/>")
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
