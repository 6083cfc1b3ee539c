#!/usr/bin/env python3
"""Turns the raw outputs of scripts/bench (criterion JSON, go test -bench, openssl speed -mr,
peak heap, callgrind) into BENCHMARKS.md on stdout. Every ratio comes from the one run."""
import json
import pathlib
import platform
import re
import subprocess
import sys
import datetime

run = pathlib.Path(sys.argv[1])
root = pathlib.Path(__file__).resolve().parent.parent


def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=root).stdout.strip()
    except OSError:
        return "?"


# criterion: target/criterion/**/new/{benchmark,estimates}.json
crit = {}
for bench in (root / "target" / "criterion").glob("**/new/benchmark.json"):
    meta = json.loads(bench.read_text())
    est = json.loads((bench.parent / "estimates.json").read_text())
    tp = (meta.get("throughput") or {}).get("Bytes")
    crit[meta["full_id"]] = {"ns": est["median"]["point_estimate"], "bytes": tp}


def c(name):
    if name not in crit:
        raise KeyError(f"criterion benchmark {name!r} missing; have {sorted(crit)}")
    return crit[name]


def gbps(entry):
    return entry["bytes"] / entry["ns"] if entry["bytes"] else None  # bytes/ns == GB/s


go = {}
for line in (run / "go.txt").read_text().splitlines():
    m = re.match(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) MB/s)?", line)
    if m:
        go[m.group(1)] = {"ns": float(m.group(2)), "mbs": float(m.group(3)) if m.group(3) else None}

openssl = {}
for line in (run / "openssl.txt").read_text().splitlines():
    # -mr output: +H:16:64:256:1024:8192:16384 then +F:n:sha256:r16:r64:... (bytes per second)
    if line.startswith("+H:"):
        sizes = [int(x) for x in line[3:].split(":") if x]
    if line.startswith("+F:") and ":sha256:" in line:
        rates = [float(x) for x in line.split(":")[3:] if x]
        openssl = dict(zip(sizes, rates))

heap = {}
for line in (run / "heap.txt").read_text().splitlines():
    parts = line.split()
    if parts:
        heap[parts[0]] = {k: int(v) for k, v in (p.split("=") for p in parts[1:])}

ir = {}
for line in (run / "callgrind.txt").read_text().splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[2].isdigit():
        ir.setdefault(parts[0], {})[int(parts[1])] = int(parts[2])

out = []
w = out.append
w("# Benchmarks\n")
w("Produced by `scripts/bench` (do not edit by hand): every figure below comes from one run on one")
w("machine, so the ratios are comparable even though absolute times on a shared 2-core virtual")
w("machine are noisy. Times are criterion medians (Rust) and `go test -bench` means (Go).\n")
w(f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, commit `{sh('git', 'rev-parse', '--short', 'HEAD')}`")
cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), platform.processor())
w(f"- machine: {cpu}, {sh('nproc')} cores; {sh('rustc', '--version')}")
w("")

rows = []  # (target, measured, verdict)


def target(label, value, goal, fmt, ok):
    rows.append((label, fmt.format(value), goal, "met" if ok else "**not met**"))


try:
    s4 = c("summary_xml_validate/safe_api/4KB")
    s1m = c("summary_xml_validate/safe_api/1MB")
    target("summary XML, 4 KB (Rust API)", gbps(s4), ">= 2 GB/s", "{:.2f} GB/s", gbps(s4) >= 2)
    target("summary XML, 1 MB (Rust API)", gbps(s1m), ">= 4 GB/s", "{:.2f} GB/s", gbps(s1m) >= 4)
    if "BenchmarkSummaryOracle4KB" in go:
        r = go["BenchmarkSummaryOracle4KB"]["ns"] / s4["ns"]
        target("summary XML 4 KB: Rust vs Go oracle", r, ">= 25x", "{:.1f}x", r >= 25)
        r = go["BenchmarkSummaryOracle4KB"]["ns"] / go["BenchmarkSummaryLibrary4KB"]["ns"]
        target("summary XML 4 KB: library via cgo vs Go oracle", r, ">= 10x", "{:.1f}x", r >= 10)
        r = go["BenchmarkSummaryOracle1MB"]["ns"] / go["BenchmarkSummaryLibrary1MB"]["ns"]
        target("summary XML 1 MB: library via cgo vs Go oracle", r, "(info)", "{:.1f}x", True)
        r = go["BenchmarkSummaryLibrary4KB"]["ns"] / s4["ns"]
        target("summary XML 4 KB: cgo call / pure Rust time", r, "(info)", "{:.2f}x", True)
    out4 = c("output/CompactionInput::validate_output/4KB")
    target("output validation, 4 KB reply (Rust API)", gbps(out4), ">= 1 GB/s", "{:.2f} GB/s", gbps(out4) >= 1)
    if "BenchmarkOutputGo4KB" in go:
        r = go["BenchmarkOutputGo4KB"]["ns"] / go["BenchmarkOutputLibrary4KB"]["ns"]
        target("output validation 4 KB: library via cgo vs Go path", r, ">= 10x", "{:.1f}x", r >= 10)
        r = go["BenchmarkOutputGo4KB"]["ns"] / out4["ns"]
        target("output validation 4 KB: Rust vs Go path", r, "(info)", "{:.1f}x", True)
    t1 = c("input/CompactionInput::validate/1MB")
    target("transcript 1 MB parse+validate (Rust API)", gbps(t1), ">= 1.5 GB/s", "{:.2f} GB/s", gbps(t1) >= 1.5)
    for name in ("summary_4KB", "summary_1MB", "transcript_1MB"):
        one, two = c(f"threads/{name}/1"), c(f"threads/{name}/2")
        r = gbps(two) / gbps(one)
        target(f"2 threads vs 1 thread, {name.replace('_', ' ')}", r, ">= 1.8x", "{:.2f}x", r >= 1.8)
    for size, ossl in ((1024, 1024), (8192, 8192), (1048576, 16384)):
        ours = c(f"sha256/{size}")
        if ossl in openssl:
            r = gbps(ours) * 1e9 / openssl[ossl]
            target(f"SHA-256 {size} B vs openssl speed {ossl} B blocks", r, ">= 95%", "{:.0%}", r >= 0.95)
except KeyError as e:
    w(f"> incomplete run: {e}\n")

for name, h in heap.items():
    if name.startswith("summary"):
        target(f"heap allocations, {name}", h["allocations"], "0", "{}", h["allocations"] == 0)
    elif name.startswith("input"):
        r = h["peak"] / h["input"]
        target(f"peak heap / input size, {name}", r, "<= 2x", "{:.2f}x", r <= 2)

w("## Targets\n")
w("| what | measured | target | |")
w("|---|---|---|---|")
for r in rows:
    w("| " + " | ".join(r) + " |")
w("")

w("## Every criterion benchmark\n")
w("| benchmark | median | throughput |")
w("|---|---|---|")
for name in sorted(crit):
    e = crit[name]
    ns = e["ns"]
    t = f"{ns / 1e6:.3f} ms" if ns >= 1e6 else f"{ns / 1e3:.2f} µs" if ns >= 1e3 else f"{ns:.1f} ns"
    g = gbps(e)
    w(f"| `{name}` | {t} | {f'{g:.2f} GB/s' if g else ''} |")
w("")

if go:
    w("## Go benchmarks (bindings/go, `go test -bench`)\n")
    w("| benchmark | ns/op | MB/s |")
    w("|---|---|---|")
    for name, e in go.items():
        w(f"| `{name}` | {e['ns']:.0f} | {e['mbs'] or ''} |")
    w("")

if openssl:
    w("## openssl speed -evp sha256 (same run)\n")
    w("| block | MB/s |")
    w("|---|---|")
    for size, rate in openssl.items():
        w(f"| {size} B | {rate / 1e6:.0f} |")
    w("")

if heap:
    w("## Peak heap (counting allocator, benches/tools/peak_heap.rs)\n")
    w("| call | input bytes | peak heap bytes | allocations |")
    w("|---|---|---|---|")
    for name, h in heap.items():
        w(f"| `{name}` | {h['input']} | {h['peak']} | {h['allocations']} |")
    w("")

if ir:
    w("## Instruction counts (valgrind --tool=callgrind, CPU-independent)\n")
    w("Per call: (instructions with N calls − instructions with 0 calls) / N, from")
    w("`benches/tools/instructions.rs`. Compare these across machines and commits: a regression shows here")
    w("even when timings are noisy.\n")
    w("| case | instructions per call |")
    w("|---|---|")
    for case, counts in ir.items():
        n = max(counts)
        if n == 0 or 0 not in counts:
            continue
        per = (counts[n] - counts[0]) / n
        w(f"| `{case}` | {per:,.0f} |")
    w("")

print("\n".join(out))
