"""Peak memory of one large ``Input.encode_within`` result (default 100 MiB), as JSON on stdout.

Builds a valid compaction input whose first text block is SIZE bytes, parses it, drops the wire,
then measures the call alone:

- ``python_peak``: the peak of Python's allocators during the call (tracemalloc): the C buffer
  the library writes into plus the ``bytes`` returned, so 2x the result when it is copied once;
- ``rss_peak``: the process's peak resident memory during the call above its resident memory
  before it (Linux: VmHWM reset through /proc/self/clear_refs), which also counts the library's
  own allocations; ``null`` where that cannot be measured.

    python tools/peak_memory.py [SIZE]
"""

from __future__ import annotations

import gc
import json
import re
import sys
import tracemalloc
from pathlib import Path
from typing import Dict, Optional

import loopcompact as lc

SMALL_INPUT = (
    '{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},'
    '"model":{"provider":"provider","model":"model"},'
    '"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",'
    '"transcript":[{"role":"user","blocks":[{"type":"text","text":"TEXT"}]}],"max_summary_tokens":32}'
)


def status_kib(field: str) -> Optional[int]:
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    m = re.search(rf"^{field}:\s+(\d+) kB", text, flags=re.M)
    return int(m.group(1)) if m else None


def reset_peak_rss() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def measure(size: int) -> Dict[str, object]:
    wire = SMALL_INPUT.replace("TEXT", "x" * size).encode()
    handle = lc.Input(wire)
    del wire
    gc.collect()
    can_rss = reset_peak_rss()
    rss_before = status_kib("VmRSS")
    tracemalloc.start()
    tracemalloc.reset_peak()
    result = handle.encode_within(1 << 62)
    _, python_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_peak = status_kib("VmHWM")
    handle.close()
    rss = (rss_peak - rss_before) * 1024 if can_rss and rss_peak is not None and rss_before is not None else None
    return {
        "result_bytes": len(result),
        "python_peak": python_peak,
        "python_peak_ratio": round(python_peak / len(result), 3),
        "rss_peak": rss,
        "rss_peak_ratio": round(rss / len(result), 3) if rss is not None else None,
    }


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 100 << 20
    print(json.dumps(measure(size)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
