"""A variant of make_summary.py's summary with no references and no line feeds: plain prose, as
most summaries are (the stream's fast path in every section, BENCHMARKS.md). Ours, not a copy of
the reference's generators.

    python3 benches/gen/plain_summary.py [BYTES] [--keep-line-feeds]

Runs make_summary.py beside it for BYTES (default 1 MiB) and replaces `&amp;`, `&lt;`, `&gt;`,
`&#x2014;` by `and`, `(`, `)`, `--`, then every line feed by a space unless --keep-line-feeds.
"""

import pathlib
import subprocess
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
size = args[0] if args else str(1 << 20)
here = pathlib.Path(__file__).resolve().parent
doc = subprocess.run([sys.executable, str(here / "make_summary.py"), size], check=True, capture_output=True).stdout
for reference, text in ((b"&amp;", b"and"), (b"&lt;", b"("), (b"&gt;", b")"), (b"&#x2014;", b"--")):
    doc = doc.replace(reference, text)
if "--keep-line-feeds" not in sys.argv[1:]:
    doc = doc.replace(b"\n", b" ")
sys.stdout.buffer.write(doc)
