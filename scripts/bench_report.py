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
        raise KeyError(f"criterion benchmark {name!r} missing")
    return crit[name]


def gbps(entry):
    return entry["bytes"] / entry["ns"] if entry["bytes"] else None  # bytes/ns == GB/s


def lines(name):
    """The lines of one raw output of the run; none when the file is missing (a partial run)."""
    path = run / name
    return path.read_text().splitlines() if path.is_file() else []


go = {}
for line in lines("go.txt"):
    m = re.match(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) MB/s)?", line)
    if m:
        go[m.group(1)] = {"ns": float(m.group(2)), "mbs": float(m.group(3)) if m.group(3) else None}

# Why the benchmarks on benches/gen's generated inputs did not run, as the benchmarks print it
# ("...: omitted: <why>", python3 missing); None when they should have run (then a missing one
# makes the run incomplete, like any other).
omitted = None
for f in sorted(run.glob("criterion-*.txt")) + [run / "go.txt"]:
    for line in lines(f.name):
        m = re.search(r"omitted: (.+)$", line)
        if m and omitted is None:
            omitted = m.group(1).strip()

openssl = {}
sizes = []
for line in lines("openssl.txt"):
    # -mr output: +H:16:64:256:1024:8192:16384 then +F:n:sha256:r16:r64:... (bytes per second)
    if line.startswith("+H:"):
        sizes = [int(x) for x in line[3:].split(":") if x]
    if line.startswith("+F:") and ":sha256:" in line:
        rates = [float(x) for x in line.split(":")[3:] if x]
        openssl = dict(zip(sizes, rates))

heap = {}
for line in lines("heap.txt"):
    parts = line.split()
    if parts:
        heap[parts[0]] = {k: int(v) for k, v in (p.split("=") for p in parts[1:])}

ir = {}
for line in lines("callgrind.txt"):
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

rows = []  # (what, measured, target, verdict)
missing = []  # benchmarks a target needs that the run does not have


def target(label, value, goal, fmt, ok):
    rows.append((label, fmt.format(value), goal, "met" if ok else "**not met**"))


def row(label, goal, fmt, value, ok=lambda v: True, realistic=False):
    """One row of the Targets table: value() computes the measured value from this run, ok(v) says
    whether it meets goal ("(info)" rows are always met). A row on the generators' inputs whose
    benchmarks did not run says it was omitted; any other missing benchmark is listed."""
    try:
        v = value()
    except KeyError as e:
        if realistic and omitted:
            rows.append((label, f"omitted: {omitted}", goal, "omitted"))
        elif e.args[0] not in missing:
            missing.append(e.args[0])
        return
    target(label, v, goal, fmt, ok(v))


def g(name):
    if name not in go:
        raise KeyError(f"go benchmark {name!r} missing")
    return go[name]


def ratio(slow, fast):
    return slow["ns"] / fast["ns"]


at_least = lambda x: lambda v: v >= x  # noqa: E731
at_most = lambda x: lambda v: v <= x  # noqa: E731

# Summary XML (SPEC §4): the project's corpus, then make_summary.py's realistic summaries.
row("summary XML, 4 KB (Rust API)", ">= 2 GB/s", "{:.2f} GB/s",
    lambda: gbps(c("summary_xml_validate/safe_api/4KB")), at_least(2))
row("summary XML, 1 MB (Rust API)", ">= 4 GB/s", "{:.2f} GB/s",
    lambda: gbps(c("summary_xml_validate/safe_api/1MB")), at_least(4))
row("summary XML, realistic 1 MiB (C ABI)", ">= 5 GB/s", "{:.2f} GB/s",
    lambda: gbps(c("summary_xml_validate/realistic/c_abi/1MB")), at_least(5), realistic=True)
row("summary XML, realistic 4 KB (C ABI)", "(info)", "{:.2f} GB/s",
    lambda: gbps(c("summary_xml_validate/realistic/c_abi/4KB")), realistic=True)
if go:
    row("summary XML 4 KB: Rust vs Go oracle", ">= 25x", "{:.1f}x",
        lambda: ratio(g("BenchmarkSummaryOracle4KB"), c("summary_xml_validate/safe_api/4KB")), at_least(25))
    row("summary XML 4 KB: library via cgo vs Go oracle", ">= 10x", "{:.1f}x",
        lambda: ratio(g("BenchmarkSummaryOracle4KB"), g("BenchmarkSummaryLibrary4KB")), at_least(10))
    row("summary XML realistic 4 KB: library via cgo vs Go oracle", ">= 50x", "{:.1f}x",
        lambda: ratio(g("BenchmarkSummaryOracleRealistic4KB"), g("BenchmarkSummaryLibraryRealistic4KB")),
        at_least(50), realistic=True)
    row("summary XML 1 MB: library via cgo vs Go oracle", "(info)", "{:.1f}x",
        lambda: ratio(g("BenchmarkSummaryOracle1MB"), g("BenchmarkSummaryLibrary1MB")))
    row("summary XML 4 KB: cgo call / pure Rust time", "(info)", "{:.2f}x",
        lambda: ratio(g("BenchmarkSummaryLibrary4KB"), c("summary_xml_validate/safe_api/4KB")))

# Output validation (SPEC §6).
row("output validation, 4 KB reply (Rust API)", ">= 1 GB/s", "{:.2f} GB/s",
    lambda: gbps(c("output/CompactionInput::validate_output/4KB")), at_least(1))
if go:
    row("output validation 4 KB: library via cgo vs Go path", ">= 10x", "{:.1f}x",
        lambda: ratio(g("BenchmarkOutputGo4KB"), g("BenchmarkOutputLibrary4KB")), at_least(10))
    row("output validation 4 KB: Rust vs Go path", ">= 30x", "{:.1f}x",
        lambda: ratio(g("BenchmarkOutputGo4KB"), c("output/CompactionInput::validate_output/4KB")), at_least(30))

# Compaction input (SPEC §5): make_transcript.py's realistic transcript beside the corpus.
row("transcript 1 MiB parse+validate, realistic (C ABI)", ">= 2 GB/s", "{:.2f} GB/s",
    lambda: gbps(c("input/realistic/lc_compaction_input_validate/1MB")), at_least(2), realistic=True)
row("transcript 1 MB parse+validate, testkit corpus (Rust API)", ">= 1.5 GB/s", "{:.2f} GB/s",
    lambda: gbps(c("input/CompactionInput::validate/1MB")), at_least(1.5))
row("transcript 1 MiB parse+free, realistic (C ABI)", "(info)", "{:.2f} GB/s",
    lambda: gbps(c("input/realistic/lc_compaction_input_parse+free/1MB")), realistic=True)
# Transcript safety (SPEC §14, benches/safety.rs: make_transcript.py's transcript, or the corpus).
for call in ("lc_transcript_pairing_check", "lc_transcript_safe_cut"):
    row(f"transcript safety: {call} / parse+free, 1 MiB", "<= 10%", "{:.1%}",
        lambda call=call: ratio(c(f"safety/{call}/1MiB"), c("safety/lc_compaction_input_parse+free/1MiB")),
        at_most(0.10))

# The round from the model's own reply (SPEC §15, benches/round.rs) and the converters (§16,
# benches/convert.rs): issue 26's and 27's targets.
if go:
    row("bare reply 4 KB (C ABI) vs the Go output path", ">= 60x", "{:.1f}x",
        lambda: ratio(g("BenchmarkOutputGo4KB"), c("round/lc_compaction_reply_validate/4KB")), at_least(60))
    row("round with an instant model / its library calls (Go), 1.1 KB input", "<= 1.10x", "{:.2f}x",
        lambda: ratio(g("BenchmarkRoundCompact"), g("BenchmarkRoundCalls")), at_most(1.10))
    row("the same, realistic 1 MiB transcript", "<= 1.10x", "{:.2f}x",
        lambda: ratio(g("BenchmarkRoundCompactRealistic"), g("BenchmarkRoundCallsRealistic")), at_most(1.10),
        realistic=True)
for call in ("lc_replacement_build", "lc_replacement_verify"):
    row(f"{call} / canonical encoding, 1 MB", "<= 1.0x", "{:.2f}x",
        lambda call=call: ratio(c(f"round/{call}/1MB"), c("round/CompactionInput::encode/1MB")), at_most(1.0))
for name in ("openai_chat", "anthropic"):
    row(f"convert {name} 1 MiB / parse+free of its wire", "<= 1.0x", "{:.2f}x",
        lambda name=name: ratio(c(f"convert/lc_transcript_convert/{name}/1MiB"),
                                c(f"convert/lc_compaction_input_parse+free/{name}-wire/1MiB")), at_most(1.0))

# Request fingerprint (SPEC §10) of the R10.7 example: the C ABI call, and the library through cgo
# against the Go path (internal/oracle: encoding/json, json.Marshal, sha256) in the same Go run.
row("request fingerprint, R10.7 example, per call (C ABI)", "<= 2 µs", "{:.2f} µs",
    lambda: c("fingerprint/R10.7/lc_request_fingerprint")["ns"] / 1e3, at_most(2))
if go:
    row("request fingerprint R10.7: library via cgo vs Go path", ">= 10x", "{:.1f}x",
        lambda: ratio(g("BenchmarkFingerprintGo"), g("BenchmarkFingerprintLibrary")), at_least(10))
    row("request fingerprint R10.7: Rust vs Go path", "(info)", "{:.1f}x",
        lambda: ratio(g("BenchmarkFingerprintGo"), c("fingerprint/R10.7/lc_request_fingerprint")))

# Scaling and hashing.
for name in ("summary_4KB", "summary_1MB", "transcript_1MB"):
    row(f"2 threads vs 1 thread, {name.replace('_', ' ')}", ">= 1.8x", "{:.2f}x",
        lambda name=name: gbps(c(f"threads/{name}/2")) / gbps(c(f"threads/{name}/1")), at_least(1.8))
for size, ossl in ((1024, 1024), (8192, 8192), (1048576, 16384)):
    if ossl in openssl:
        row(f"SHA-256 {size} B vs openssl speed {ossl} B blocks", ">= 95%", "{:.0%}",
            lambda size=size, ossl=ossl: gbps(c(f"sha256/{size}")) * 1e9 / openssl[ossl], at_least(0.95))

for name, h in heap.items():
    if name.startswith("summary"):
        target(f"heap allocations, {name}", h["allocations"], "0", "{}", h["allocations"] == 0)
    elif name.startswith("input"):
        r = h["peak"] / h["input"]
        target(f"peak heap / input size, {name}", r, "<= 2x", "{:.2f}x", r <= 2)

if missing:
    w(f"> incomplete run: {len(missing)} target(s) without their benchmarks: {'; '.join(missing)}\n")

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
