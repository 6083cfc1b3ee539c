"""``python -m loopcompact``: the loopcompact command-line tool over the bundled library."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
