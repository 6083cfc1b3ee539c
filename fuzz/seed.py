#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets in fuzz/corpus/<target>/ (gitignored).

Sources: the conformance vectors (tests/vectors/*.jsonl, plus ../shared/vectors/peer_jsontestsuite.jsonl
when the shared directory sits beside the checkout), the sample files in examples/data/, and the few
hand-picked seeds committed under fuzz/seeds/<target>/. Each seed is framed as its target reads it
(fuzz/README.md); file names are the SHA-1 of the content, so running this again adds nothing twice
and never removes what the fuzzer found.

Usage: fuzz/seed.py [TARGET...]   (default: every target)
"""

import base64
import hashlib
import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "fuzz"
VECTORS = ROOT / "tests" / "vectors"
SHARED = ROOT.parent / "shared" / "vectors"
DATA = ROOT / "examples" / "data"

# Must match QUALITIES in testkit/src/fuzz/policy.rs: one byte selects one.
QUALITIES = [0, 1, 2, 3, -1, 4, 256, 257, 258, 259, -(2**31), 2**31 - 1]


def rows(name):
    path = VECTORS / name
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def field(row, key):
    """A byte field per V12.2: `key` as UTF-8, or `key_base64` decoded; None if absent."""
    if isinstance(row.get(key), str):
        return row[key].encode("utf-8")
    if isinstance(row.get(key + "_base64"), str):
        return base64.b64decode(row[key + "_base64"])
    return None


def quality_byte(q):
    return bytes([QUALITIES.index(q) if q in QUALITIES else 0])


def u64b(value):
    """Reader::u64_boundary with tag 2: eight bytes, the value exactly."""
    return b"\x02" + struct.pack("<Q", value)


def limits_record(window=0, max_in=0, max_out=0, reserved=0, margin=0, used=0, limit=1, previous=1,
                  occupancy=0, automatic=False, compact_at=0, rearm_below=0, input_tokens=0, input_limit=1):
    return (u64b(window) + u64b(max_in) + u64b(max_out) + u64b(reserved) + u64b(margin) + u64b(used)
            + u64b(limit) + struct.pack("<iHBHH", previous, occupancy, int(automatic), compact_at, rearm_below)
            + u64b(input_tokens) + u64b(input_limit))


def files(pattern):
    return [p.read_bytes() for p in sorted(DATA.glob(pattern))]


def seeds():
    out = {t: [] for t in TARGETS}

    out["summary_xml"] += [x for r in rows("summary_xml.jsonl") if (x := field(r, "xml")) is not None]
    out["summary_xml"] += [r["summary"].encode("utf-8") for r in rows("output.jsonl") if r.get("summary")]
    out["summary_xml"] += files("summary_*.xml")
    # The stream's target: four bytes of chunk sizes (1, 8, 64, 2), then the reply.
    out["summary_stream"] += [b"\x00\x07\x3f\x01" + x for x in out["summary_xml"]]

    inputs = rows("input.jsonl")
    if (SHARED / "peer_jsontestsuite.jsonl").is_file():
        with (SHARED / "peer_jsontestsuite.jsonl").open(encoding="utf-8") as f:
            inputs += [json.loads(line) for line in f if line.strip()]
    for r in inputs:
        wire = field(r, "input")
        if wire is None:
            continue
        if r.get("kind") == "fit" and r.get("max_bytes", 0) < 2**31:
            out["input_parse"].append(struct.pack("<I", 0x8000_0000 | r["max_bytes"]) + wire)
        else:
            # Three quarters of the canonical length: fitting has work to do.
            out["input_parse"].append(struct.pack("<I", 0xC000) + wire)

    for r in rows("output.jsonl"):
        wire = field(r, "input_wire")
        reply = field(r, "output")
        if wire is None or reply is None:
            continue
        out["input_parse"].append(struct.pack("<I", 0xC000) + wire)
        out["transcript_safety"].append(b"\x01" + wire)
        budget = json.loads(wire)["max_summary_tokens"]
        tokens = r.get("output_tokens", 0)
        selector = tokens if tokens <= budget else tokens | (1 << 63)
        header = struct.pack("<QQI", selector, r.get("max_output_bytes", 0), len(wire))
        out["output_validate"].append(header + wire + reply)

    # The bare reply (docs/SPEC.md §15): each summary of an output row as the model's own text, with
    # every stop, without and with cleanup (fenced and padded too).
    for r in rows("output.jsonl"):
        wire = field(r, "input_wire")
        summary = r.get("summary")
        if wire is None or not summary:
            continue
        text = summary.encode("utf-8")
        for stop, flags, reply in ((1, 0, text), (2, 0, text[: len(text) // 2]), (0, 3, b"\n```xml\n" + text + b"\n```\n")):
            header = struct.pack("<QQBBI", 1, 1 << 20, stop, flags, len(wire))
            out["compaction_reply"].append(header + wire + reply)
        # The replacement: each cut of the input with that summary.
        n = len(json.loads(wire)["transcript"])
        for cut in range(n + 1):
            out["replacement"].append(struct.pack("<QI", cut, len(wire)) + wire + struct.pack("<I", len(text)) + text)

    for r in rows("policy.jsonl"):
        kind = r.get("kind")
        if kind in ("compaction_policy", "observation_policy"):
            doc = field(r, "policy")
            if doc is not None:
                target = "compaction_policy" if kind == "compaction_policy" else "context_observation"
                out[target].append(quality_byte(r.get("counter_quality", 0)) + doc)
        elif kind == "context_config":
            doc = field(r, "config")
            if doc is not None:
                out["context_config"].append(doc)
        elif kind == "resolve_limits":
            lim = r["limits"]
            out["limits"].append(limits_record(lim["window_tokens"], lim["max_input_tokens"], lim["max_output_tokens"],
                                               r["reserved_output"], r["safety_margin"]))
        elif kind == "occupancy":
            out["limits"].append(limits_record(used=r["used"], limit=r["limit"]))
        elif kind == "pressure":
            out["limits"].append(limits_record(previous=r["previous_level"], occupancy=r["occupancy"],
                                               automatic=r["automatic"], compact_at=r["compact_at"],
                                               rearm_below=r["rearm_below"]))
        elif kind == "replacement":
            out["limits"].append(limits_record(input_tokens=r["input_tokens"], input_limit=r["input_limit"]))
    out["compaction_policy"] += [quality_byte(q) + doc for doc in files("policy_*.json") for q in (1, 2, 3)]

    for r in rows("fingerprint.jsonl"):
        doc = field(r, "input")
        if doc is not None:
            out["request_fingerprint"].append(doc)
        if r.get("canonical_json"):
            out["request_fingerprint"].append(r["canonical_json"].encode("utf-8"))
    out["request_fingerprint"] += files("fingerprint_*.json")

    # The converters: every SDK-built fixture, plain and strict.
    for path in sorted((ROOT / "tests" / "convert" / "fixtures").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        target = FORMATS.get(doc["format"])
        if target:
            source = json.dumps(doc["source"]).encode("utf-8")
            out[target] += [b"\x00" + source, b"\x01" + source]

    # The JSON reader's fast entries: every JSON document above, read with `next` alone, with
    # every entry in turn, and with the entries a reader of objects and lists uses most.
    documents = [wire[4:] for wire in out["input_parse"]]
    documents += [doc[1:] for doc in out["compaction_policy"] + out["context_observation"]]
    documents += out["context_config"] + out["request_fingerprint"]
    for doc in documents:
        for start, script in ((0, b""), (1, bytes(range(1, 12)) * 8), (2, bytes([3, 2, 14, 26, 4, 5, 7, 8]) * 10)):
            out["json_fast_paths"].append(bytes([start, len(script)]) + script + doc)
    # The location walk: the same documents (json_locate reads their first 1 KiB).
    out["json_locate"] += documents
    # The string writer: the same documents, their string tokens (mode 1) and their bytes as text
    # (mode 0), and the converters' sources, whose prose holds markup, escapes and U+2028.
    sources = [seed[1:] for target in FORMATS.values() for seed in out[target]]
    for doc in documents + sources:
        out["json_write"] += [b"\x01" + doc, b"\x00" + doc]

    for target in TARGETS:
        committed = FUZZ / "seeds" / target
        if committed.is_dir():
            out[target] += [p.read_bytes() for p in sorted(committed.iterdir()) if p.is_file()]
    return out


FORMATS = {"openai_chat": "convert_openai_chat", "openai_responses": "convert_openai_responses",
           "anthropic": "convert_anthropic", "gemini": "convert_gemini", "ai_sdk": "convert_ai_sdk",
           "langchain": "convert_langchain"}
TARGETS = ["summary_xml", "summary_stream", "input_parse", "output_validate", "compaction_policy", "context_observation",
           "context_config", "request_fingerprint", "limits", "compaction_reply", "replacement", "transcript_safety",
           "json_fast_paths", "json_locate", "json_write"] + list(FORMATS.values())


def main():
    wanted = sys.argv[1:] or TARGETS
    unknown = [t for t in wanted if t not in TARGETS]
    if unknown:
        sys.exit(f"unknown target(s): {' '.join(unknown)}; targets: {' '.join(TARGETS)}")
    all_seeds = seeds()
    for target in wanted:
        corpus = FUZZ / "corpus" / target
        corpus.mkdir(parents=True, exist_ok=True)
        added = 0
        for seed in all_seeds[target]:
            path = corpus / hashlib.sha1(seed).hexdigest()
            if not path.exists():
                path.write_bytes(seed)
                added += 1
        print(f"{target}: {len(all_seeds[target])} seeds, {added} new, {sum(1 for _ in corpus.iterdir())} in corpus")


if __name__ == "__main__":
    main()
