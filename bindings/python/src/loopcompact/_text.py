"""Text going into the library: a ``str`` as the UTF-8 bytes the C ABI reads."""

from __future__ import annotations

import re

#: One code point of the surrogate range, which UTF-8 cannot encode.
_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, a lone surrogate (U+D800-U+DFFF) as U+FFFD.

    A Python ``str`` holds code points, so a surrogate in it is always lone: SPEC J5.4 decodes a
    lone surrogate escape (``\\ud800``) to U+FFFD, and the JS package's TextEncoder does the same
    with a lone surrogate of a JS string, so every host gives the same text the same verdict. The
    encoder's exception would carry the whole text (an echo of the input): it never leaves here.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    # Outside the handler: the exception (which holds the text) is not chained to anything.
    return _SURROGATE.sub("\ufffd", text).encode("utf-8")
