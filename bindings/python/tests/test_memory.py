"""A 100 MiB ``encode_within`` result is copied once: the peak during the call is the C buffer
plus the returned bytes, 2x the result, and nothing of its size goes through a list of ints."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import PROJECT

SIZE = 100 << 20


def test_peak_memory_of_a_100_mb_result() -> None:
    done = subprocess.run(
        [sys.executable, str(PROJECT / "tools" / "peak_memory.py"), str(SIZE)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    print(report)
    result = report["result_bytes"]
    assert result > SIZE
    # The C buffer and the bytes object, plus at most 1 MiB of anything else.
    assert report["python_peak"] <= 2 * result + (1 << 20), report
    if report["rss_peak"] is not None:
        # The library counts once per handle and writes in place: little beyond the two copies.
        assert report["rss_peak"] <= 2 * result + (16 << 20), report
