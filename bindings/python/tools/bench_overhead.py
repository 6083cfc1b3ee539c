"""The cost of calling the library from Python, against calling it from C, in one run.

For a 4 KB summary (``lc_summary_xml_validate``) and a 1 MB transcript
(``lc_compaction_input_validate``): nanoseconds per call from C (``bench_c``, no Python at all),
through the bare ctypes function, and through the package's API (``validate_summary``,
``validate_input``), each the best of ROUNDS rounds of the same number of calls. Prints the
Markdown section of BENCHMARKS.md; scripts/bench-python runs it.

    python tools/bench_overhead.py BENCH_C SUMMARY_4KB TRANSCRIPT_1MB [--peak PEAK_JSON] [--command CMD]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import loopcompact as lc
from loopcompact import _native

ROUNDS = 7


def per_call_ns(call: Callable[[], object], calls: int) -> float:
    # CPU time of the process, as bench_c measures C: on a shared machine a process that waits for
    # a core is not charged for the wait.
    start = time.process_time_ns()
    for _ in range(calls):
        call()
    return (time.process_time_ns() - start) / calls


def c_ns(bench_c: str, kind: str, path: Path, calls: int) -> float:
    out = subprocess.run([bench_c, kind, str(path), str(calls), "1"], capture_output=True, text=True, check=True)
    return float(out.stdout)


def measure(bench_c: str, summary: Path, transcript: Path) -> List[Dict[str, object]]:
    lib = _native.lib
    xml = summary.read_bytes()
    wire = transcript.read_bytes()
    lc.validate_summary(xml)
    lc.validate_input(wire)
    cases: List[Tuple[str, str, Path, bytes, int, Callable[[], object], Callable[[], object], str]] = [
        ("summary XML 4 KB", "summary", summary, xml, 50_000,
         lambda: lib.lc_summary_xml_validate(xml, len(xml)), lambda: lc.validate_summary(xml), "validate_summary"),
        ("transcript 1 MB", "input", transcript, wire, 100,
         lambda: lib.lc_compaction_input_validate(wire, len(wire)), lambda: lc.validate_input(wire), "validate_input"),
    ]
    rows: List[Dict[str, object]] = []
    for name, kind, path, data, calls, raw, api, api_name in cases:
        # The three sides in turn, round after round, so that a slow moment of the machine hits
        # all of them; each keeps its best round.
        c = ctypes_ = api_ = float("inf")
        for _ in range(ROUNDS):
            c = min(c, c_ns(bench_c, kind, path, calls))
            ctypes_ = min(ctypes_, per_call_ns(raw, calls))
            api_ = min(api_, per_call_ns(api, calls))
        rows.append({"case": name, "bytes": len(data), "calls": calls, "c_ns": c, "ctypes_ns": ctypes_,
                     "api_ns": api_, "api": api_name})
    return rows


def fmt_ns(ns: float) -> str:
    return f"{ns / 1000:.2f} µs" if ns < 1e6 else f"{ns / 1e6:.3f} ms"


def section(rows: List[Dict[str, object]], peak: Dict[str, object], command: str) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(
            line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    lines = [
        "<!-- python-bench:begin -->",
        "## Python (bindings/python): call overhead against C, and the peak of a 100 MB result",
        "",
        f"Produced by `{command}` (scripts/bench keeps this section): the installed wheel's library",
        "timed from C (`bindings/python/tools/bench_c.c`, no Python), through the bare ctypes function,",
        f"and through the package's API; the same calls, the three in turn for {ROUNDS} rounds, the best",
        "round of each, in one run, in CPU time of the process. Inputs:",
        "`../benches/gen/make_summary.py 4096` and `make_transcript.py 1048576`.",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; Python {platform.python_version()}, "
        f"loopcompact {lc.version()}; {cpu}",
        "",
        "| call | bytes | C | ctypes | loopcompact API | API − C | API / C |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        c, raw, api = float(str(r["c_ns"])), float(str(r["ctypes_ns"])), float(str(r["api_ns"]))
        lines.append(
            f"| `{r['api']}`, {r['case']} | {r['bytes']} | {fmt_ns(c)} | {fmt_ns(raw)} | {fmt_ns(api)} | "
            f"{fmt_ns(api - c)} | {api / c:.2f}x |"
        )
    lines += [
        "",
        "API − C is what the binding costs per call: ctypes' (releasing the GIL, passing the",
        "arguments) and the package's (a type test, a length test and a status test; the diagnosis is",
        "built only on failure). The ctypes column is the function as `_native` declares it, with",
        "`argtypes`, whose two converters run on every call; for `bytes` the API calls the same C",
        "function without them (`_native.bytes_function`), which is why it can beat that column. It is",
        "a fixed cost, no more for a larger document (bytes are passed without a copy): for the 1 MB",
        "transcript it is below the run-to-run noise of the call on this shared machine, and the",
        "difference there can come out negative.",
    ]
    if peak:
        lines += [
            "",
            f"Peak memory of `Input.encode_within` returning {peak['result_bytes']} bytes",
            f"(`bindings/python/tools/peak_memory.py`): Python allocators {peak['python_peak']} bytes",
            f"({peak['python_peak_ratio']}x the result: the C buffer and the returned bytes, one copy), process",
            f"RSS {peak['rss_peak']} bytes above its level before the call ({peak['rss_peak_ratio']}x).",
        ]
    lines.append("<!-- python-bench:end -->")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("bench_c")
    parser.add_argument("summary", type=Path)
    parser.add_argument("transcript", type=Path)
    parser.add_argument("--peak", type=Path)
    parser.add_argument("--command", default="scripts/bench-python")
    args = parser.parse_args()
    rows = measure(args.bench_c, args.summary, args.transcript)
    peak = json.loads(args.peak.read_text()) if args.peak else {}
    sys.stdout.write(section(rows, peak, args.command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
