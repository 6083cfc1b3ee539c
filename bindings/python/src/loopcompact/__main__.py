"""``python -m loopcompact`` and the ``loopcompact`` console script: the command-line tool of the
crate (``cli/`` in the source repository), the Rust program the wheel carries beside the library.

There is one implementation of the tool, and this is not a second one: the process becomes that
program (``exec``) with the same arguments, so its standard streams and exit status are the
tool's own, byte for byte.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def executable() -> Path:
    """Where the wheel puts the tool: ``bin/loopcompact`` next to this module."""
    name = "loopcompact.exe" if sys.platform == "win32" else "loopcompact"
    return Path(__file__).resolve().parent / "bin" / name


def main() -> int:
    """Runs the tool with this process's arguments; returns only if it cannot be started."""
    tool = executable()
    argv = [str(tool), *sys.argv[1:]]
    if not tool.is_file():
        print(f"loopcompact: the command-line tool is missing from this installation ({tool}): reinstall the wheel", file=sys.stderr)
        return 2
    if sys.platform == "win32":  # no exec there: run the tool and pass its status on
        import subprocess

        return subprocess.call(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(tool, argv)
    return 2  # not reached: execv returns only by raising


if __name__ == "__main__":
    sys.exit(main())
