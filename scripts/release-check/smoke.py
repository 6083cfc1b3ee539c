"""What a user of the installed wheel does first (scripts/release --check runs it in a fresh venv on
x86_64, and under qemu in an aarch64 Python): import the package, check the loaded library, validate
a good and a bad summary, compute a request fingerprint, and run the CLI's entry point.

    python smoke.py EXAMPLES_DATA_DIR

The library must be the wheel's own (not $LOOPCOMPACT_LIB, not a checkout's). Prints one line per
step; exits non-zero on the first failure.
"""

import os
import platform
import sys
from pathlib import Path


def main() -> int:
    data = Path(sys.argv[1])
    if os.environ.get("LOOPCOMPACT_LIB"):
        print("smoke.py: LOOPCOMPACT_LIB is set; the wheel's own library is what is tested", file=sys.stderr)
        return 1
    import loopcompact
    from loopcompact import _native

    package_dir = Path(loopcompact.__file__).resolve().parent
    library = Path(_native.library_path()).resolve()
    if library.parent != package_dir:
        print(f"smoke.py: the library {library} is not the installed package's", file=sys.stderr)
        return 1
    print(f"python {platform.python_version()} on {platform.machine()}: loopcompact {loopcompact.__version__},"
          f" library {library.name} from {package_dir}")
    print(f"library version {loopcompact.version()}, ABI {loopcompact.abi_version()}")

    loopcompact.validate_summary((data / "summary_valid.xml").read_bytes())
    print("summary_valid.xml: accepted")
    try:
        loopcompact.validate_summary((data / "summary_bad_structure.xml").read_bytes())
    except loopcompact.LoopcompactError as e:
        print(f"summary_bad_structure.xml: rejected, {e.reason} at line {e.line}, column {e.column} ({e.rule})")
    else:
        print("smoke.py: summary_bad_structure.xml was accepted", file=sys.stderr)
        return 1
    digest = loopcompact.request_fingerprint((data / "fingerprint_valid.json").read_bytes())
    print(f"fingerprint_valid.json: {digest.hex()}")

    # The command-line tool the wheel carries (`python -m loopcompact` execs it). Under qemu-user
    # without binfmt_misc a child of the emulated Python cannot start it: there the tool is only
    # checked to be there and to be an ELF file of this machine, and check.sh runs it under qemu.
    from loopcompact import __main__ as entry

    tool = entry.executable()
    if not tool.is_file():
        print(f"smoke.py: the wheel carries no tool at {tool}", file=sys.stderr)
        return 1
    if os.environ.get("SMOKE_NO_CHILD"):
        print(f"tool {tool.name}: {tool.stat().st_size} bytes (run by check.sh)")
        return 0
    import subprocess

    done = subprocess.run([sys.executable, "-m", "loopcompact", "summary", str(data / "summary_valid.xml")],
                          capture_output=True, check=False)
    if done.returncode != 0:
        print(f"smoke.py: python -m loopcompact summary exited {done.returncode}: {done.stderr!r}", file=sys.stderr)
        return 1
    print(f"python -m loopcompact summary summary_valid.xml: {done.stdout.decode().strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
