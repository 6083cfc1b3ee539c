"""What a compaction round costs beyond the library calls it makes (issue 26: at most 10 % more
with an instant model), in one run: ``compact()`` with a model that returns at once, against the
same calls made by hand (``safe_cut``, ``encode_head_within``, ``validate_reply`` with cleanup,
``build_replacement``), on the Go benchmark's round input (bindings/go/round_bench_test.go) with a
4 KB summary in a Markdown fence. Each figure is the best of ROUNDS rounds, the two alternating.

    python tools/bench_round.py SUMMARY_4KB
    python tools/bench_round.py SUMMARY_4KB TRANSCRIPT_WIRE [KEEP_LAST]

With a transcript (a wire input such as ``benches/gen/make_transcript.py``'s realistic 1 MiB, the
size at which a host compacts), the round runs on it instead, keeping the last KEEP_LAST (default
4) messages; its ``max_summary_tokens`` sets the reply's byte limit as in ``compact()``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Callable

import loopcompact as lc

ROUNDS = 7
CALLS = 5_000
# Wall time per figure stays about the same whatever the transcript: CALLS for the small input,
# fewer for a large one.
BYTES_PER_FIGURE = 40_000_000

IDENTITY = (
    '{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},'
    '"model":{"provider":"provider","model":"model"},'
    '"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",'
    '"transcript":['
)
MESSAGES = [
    '{"role":"system","blocks":[{"type":"text","text":"be brief"}]}',
    '{"role":"user","blocks":[{"type":"text","text":"list the files"}]}',
    '{"role":"assistant","blocks":[{"type":"tool_use","id":"c1","name":"ls","input":{}}],"usage":null}',
    '{"role":"tool","blocks":[{"type":"text","text":"' + "a.go b.go " * 40 + '"}],"tool_use_id":"c1","is_error":false}',
    '{"role":"assistant","blocks":[{"type":"text","text":"two files"}],"usage":null}',
    '{"role":"user","blocks":[{"type":"text","text":"now ship it"}]}',
]
END = '],"max_summary_tokens":2048}'


def per_call_ns(call: Callable[[], object], calls: int) -> float:
    start = time.process_time_ns()
    for _ in range(calls):
        call()
    return (time.process_time_ns() - start) / calls


def main() -> None:
    summary = Path(sys.argv[1]).read_text()
    reply_text = "```xml\n" + summary + "\n```\n"
    if len(sys.argv) > 2:
        wire = Path(sys.argv[2]).read_bytes()
        keep_last = int(sys.argv[3]) if len(sys.argv) > 3 else 4
        max_summary_tokens = json.loads(wire)["max_summary_tokens"]
    else:
        wire = (IDENTITY + ",".join(MESSAGES) + END).encode()
        keep_last, max_summary_tokens = 1, 2048
    inp = lc.Input.parse(wire)
    reply = lc.SummaryReply(text=reply_text, output_tokens=900, stop="end")
    max_reply_bytes = 16 * max_summary_tokens
    calls_per_figure = max(20, min(CALLS, BYTES_PER_FIGURE // len(wire)))

    def round_() -> object:
        result = lc.compact(inp, lambda request: reply, keep_last=keep_last)
        assert isinstance(result, lc.Compacted)
        return result

    def calls() -> object:
        cut = inp.safe_cut(keep_last)
        inp.encode_head_within(cut, 1 << 62)
        text = inp.validate_reply(reply_text, output_tokens=900, stop="end", max_reply_bytes=max_reply_bytes,
                                  trim=True, unfence=True)
        return inp.build_replacement(cut, text)

    def own_calls() -> object:
        # The round's own library calls: the reply through its diagnose form, which says what
        # cleanup removed on success too (each Attempt records it).
        cut = inp.safe_cut(keep_last)
        inp.encode_head_within(cut, 1 << 62)
        _, text, _ = inp._check_reply(reply_text, 900, "end", max_reply_bytes, True, True)
        assert text is not None
        return inp.build_replacement(cut, text)

    assert round_().replacement == calls() == own_calls()  # type: ignore[attr-defined]
    best = {"round": float("inf"), "calls": float("inf"), "own": float("inf")}
    for _ in range(ROUNDS):
        for name, f in (("round", round_), ("calls", calls), ("own", own_calls)):
            best[name] = min(best[name], per_call_ns(f, calls_per_figure))
    print(f"transcript {len(wire)} bytes, keep_last {keep_last}; compact(): {best['round'] / 1e3:.2f} µs; the calls by hand (validate_reply): {best['calls'] / 1e3:.2f} µs, "
          f"round / calls {best['round'] / best['calls']:.3f}; the round's own calls (the reply's diagnose form): "
          f"{best['own'] / 1e3:.2f} µs, round / own calls {best['round'] / best['own']:.3f}")


if __name__ == "__main__":
    main()
