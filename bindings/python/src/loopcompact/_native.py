"""The C ABI through ctypes: the structs, every function's signature, and loading the library.

The library is the one bundled next to this file in the wheel (``libloopcompact.so``,
``libloopcompact.dylib`` or ``loopcompact.dll``), or the file named by ``LOOPCOMPACT_LIB`` when
that is set (an installed ``/usr/local/lib/libloopcompact.so.0``, or ``target/release`` of a
checkout). Its C ABI version must be the header's (``ABI_VERSION``), checked at import.

Buffers: every ``const uint8_t *`` and ``uint8_t *`` parameter is declared ``c_char_p``, which
takes ``bytes`` (a pointer to the object's own storage: no copy), ``None`` (NULL) and ctypes
``c_char`` arrays (over a ``bytearray`` or a writable ``memoryview`` without a copy, or freshly
allocated for an output). ctypes releases the GIL for the duration of every call.
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import POINTER, Structure, c_bool, c_char, c_char_p, c_int32, c_size_t, c_uint16, c_uint32, c_uint64
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, cast

from ._constants import ABI_VERSION, LOCATION_CAP

lc_status = c_int32


# The structs keep their C names: tests/test_abi.py matches them with the header by name.


class lc_compaction_input(Structure):
    """``lc_compaction_input``: opaque, only ever used through a pointer."""


class lc_conversion(Structure):
    """``lc_conversion``: opaque, only ever used through a pointer."""


class lc_summary_stream(Structure):
    """``lc_summary_stream``: opaque, only ever used through a pointer (SPEC §17.3)."""


class lc_loss(Structure):
    """``lc_loss``: one loss of a conversion (SPEC §16)."""

    _fields_ = [
        ("source_index", c_uint64),
        ("code", c_int32),
    ]


class lc_violation(Structure):
    """``lc_violation``: one S14.3 violation (SPEC G16.14)."""

    _fields_ = [
        ("message", c_uint64),
        ("block", c_uint64),
        ("offset", c_uint64),
        ("status", c_int32),
    ]


class lc_context_limits(Structure):
    """``lc_context_limits``: a model's context limits in tokens (0: not known)."""

    _fields_ = [
        ("window_tokens", c_uint64),
        ("max_input_tokens", c_uint64),
        ("max_output_tokens", c_uint64),
    ]


class lc_resolved_limits(Structure):
    """``lc_resolved_limits``."""

    _fields_ = [
        ("reserved_output", c_uint64),
        ("raw_input_limit", c_uint64),
        ("input_limit", c_uint64),
    ]


class lc_diagnostic(Structure):
    """``lc_diagnostic`` (SPEC C13.2)."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("status", lc_status),
        ("status_class", c_int32),
        ("section", c_int32),
        ("offset", c_uint64),
        ("line", c_uint64),
        ("column", c_uint64),
        ("limit", c_uint64),
        ("actual", c_uint64),
        ("rule", c_char_p),
        ("expected", c_char_p),
        ("location", c_char * LOCATION_CAP),
        # Appended for the bare reply (SPEC R15.7); older fields keep their offsets (C13.2).
        ("removed", c_uint32),
        ("removed_before", c_uint64),
        ("removed_after", c_uint64),
    ]


class lc_span(Structure):
    """``lc_span`` (SPEC C13.7)."""

    _fields_ = [
        ("offset", c_size_t),
        ("len", c_size_t),
    ]


_input_p = POINTER(lc_compaction_input)
_conversion_p = POINTER(lc_conversion)
_diag_p = POINTER(lc_diagnostic)
_stream_p = POINTER(lc_summary_stream)
_size_p = POINTER(c_size_t)
_buf = c_char_p

#: Every function of the C ABI: name -> (restype, argtypes), as declared in include/loopcompact.h
#: (tests/test_abi.py compares the two; a function the header adds fails that test until it is
#: bound here).
SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "lc_version": (c_char_p, []),
    "lc_abi_version": (c_uint32, []),
    "lc_status_name": (c_char_p, [lc_status]),
    "lc_status_reason": (c_char_p, [lc_status]),
    "lc_status_message": (c_char_p, [lc_status]),
    "lc_summary_xml_validate": (lc_status, [_buf, c_size_t]),
    "lc_compaction_input_parse": (lc_status, [_buf, c_size_t, POINTER(_input_p)]),
    "lc_compaction_input_free": (None, [_input_p]),
    "lc_compaction_input_validate": (lc_status, [_buf, c_size_t]),
    "lc_compaction_input_encode_within": (lc_status, [_input_p, c_uint64, _buf, c_size_t, _size_p]),
    "lc_compaction_output_validate": (
        lc_status,
        [_input_p, _buf, c_size_t, c_uint64, c_uint64, _buf, c_size_t, _size_p],
    ),
    "lc_compaction_policy_validate": (lc_status, [_buf, c_size_t, c_int32]),
    "lc_context_observation_validate": (lc_status, [_buf, c_size_t, c_int32]),
    "lc_context_config_validate": (lc_status, [_buf, c_size_t]),
    "lc_context_limits_resolve": (lc_status, [lc_context_limits, c_uint64, c_uint64, POINTER(lc_resolved_limits)]),
    "lc_occupancy_basis_points": (lc_status, [c_uint64, c_uint64, POINTER(c_uint16)]),
    "lc_pressure_level": (c_int32, [c_int32, c_uint16, c_bool, c_uint16, c_uint16]),
    "lc_replacement_check": (lc_status, [c_uint64, c_uint64]),
    "lc_request_fingerprint": (lc_status, [_buf, c_size_t, _buf]),
    "lc_summary_xml_diagnose": (lc_status, [_buf, c_size_t, _diag_p]),
    "lc_compaction_input_diagnose": (lc_status, [_buf, c_size_t, _diag_p]),
    "lc_compaction_output_diagnose": (
        lc_status,
        [_input_p, _buf, c_size_t, c_uint64, c_uint64, _buf, c_size_t, _size_p, _diag_p],
    ),
    "lc_compaction_policy_diagnose": (lc_status, [_buf, c_size_t, c_int32, _diag_p]),
    "lc_context_observation_diagnose": (lc_status, [_buf, c_size_t, c_int32, _diag_p]),
    "lc_context_config_diagnose": (lc_status, [_buf, c_size_t, _diag_p]),
    "lc_request_fingerprint_diagnose": (lc_status, [_buf, c_size_t, _buf, _diag_p]),
    "lc_status_class": (c_int32, [lc_status]),
    "lc_retry_message": (lc_status, [_diag_p, _buf, c_size_t, _size_p]),
    "lc_summary_instructions": (c_char_p, []),
    "lc_summary_sections": (lc_status, [_buf, c_size_t, POINTER(lc_span)]),
    "lc_summary_section_text": (lc_status, [_buf, c_size_t, c_int32, _buf, c_size_t, _size_p]),
    "lc_summary_grammar": (c_char_p, [c_int32]),
    "lc_summary_json_schema": (c_char_p, []),
    "lc_summary_render": (
        lc_status,
        [_buf, c_size_t, _buf, c_size_t, _buf, c_size_t, _buf, c_size_t, _buf, c_size_t, _buf, c_size_t, _size_p],
    ),
    "lc_summary_stream_new": (lc_status, [POINTER(_stream_p)]),
    "lc_summary_stream_feed": (lc_status, [_stream_p, _buf, c_size_t]),
    "lc_summary_stream_feed_diagnose": (lc_status, [_stream_p, _buf, c_size_t, _diag_p]),
    "lc_summary_stream_finish": (lc_status, [_stream_p]),
    "lc_summary_stream_finish_diagnose": (lc_status, [_stream_p, _diag_p]),
    "lc_summary_stream_dead_offset": (c_uint64, [_stream_p]),
    "lc_summary_stream_free": (None, [_stream_p]),
    "lc_transcript_pairing_check": (lc_status, [_input_p, _diag_p]),
    "lc_transcript_safe_cut": (lc_status, [_input_p, c_uint64, POINTER(c_uint64)]),
    "lc_transcript_cut_check": (lc_status, [_input_p, c_uint64]),
    "lc_compaction_progress_check": (lc_status, [c_uint64, c_uint64, c_uint16]),
    "lc_compaction_threshold_check": (lc_status, [_buf, c_size_t, c_uint64, c_uint64]),
    "lc_compaction_reply_validate": (
        lc_status,
        [_input_p, _buf, c_size_t, c_uint64, c_int32, c_uint64, c_uint32, _buf, c_size_t, _size_p],
    ),
    "lc_compaction_reply_diagnose": (
        lc_status,
        [_input_p, _buf, c_size_t, c_uint64, c_int32, c_uint64, c_uint32, _buf, c_size_t, _size_p, _diag_p],
    ),
    "lc_compaction_input_encode_head_within": (lc_status, [_input_p, c_uint64, c_uint64, _buf, c_size_t, _size_p]),
    "lc_replacement_build": (lc_status, [_input_p, c_uint64, _buf, c_size_t, _buf, c_size_t, _size_p]),
    "lc_replacement_verify": (lc_status, [_input_p, c_uint64, _buf, c_size_t, _diag_p]),
    "lc_transcript_convert": (lc_status, [c_int32, _buf, c_size_t, c_uint32, POINTER(_conversion_p), _diag_p]),
    "lc_conversion_free": (None, [_conversion_p]),
    "lc_conversion_transcript": (lc_status, [_conversion_p, _buf, c_size_t, _size_p]),
    "lc_conversion_source_index": (lc_status, [_conversion_p, POINTER(c_uint64), c_size_t, _size_p]),
    "lc_conversion_cut_allowed": (lc_status, [_conversion_p, _buf, c_size_t, _size_p]),
    "lc_conversion_losses": (lc_status, [_conversion_p, POINTER(lc_loss), c_size_t, _size_p]),
    "lc_conversion_source_cut": (lc_status, [_conversion_p, c_uint64, POINTER(c_uint64)]),
    "lc_conversion_source_len": (lc_status, [_conversion_p, POINTER(c_uint64)]),
    "lc_loss_name": (c_char_p, [c_int32]),
    "lc_compaction_input_message_count": (lc_status, [_input_p, POINTER(c_uint64)]),
    "lc_compaction_input_max_summary_tokens": (lc_status, [_input_p, POINTER(c_uint64)]),
    "lc_compaction_input_leading_systems": (lc_status, [_input_p, POINTER(c_uint64)]),
    "lc_transcript_safe_cut_with": (lc_status, [_input_p, c_uint64, c_uint32, _buf, c_size_t, POINTER(c_uint64)]),
    "lc_transcript_cut_check_with": (lc_status, [_input_p, c_uint64, c_uint32, _buf, c_size_t]),
    "lc_transcript_pairing_violations": (lc_status, [_input_p, POINTER(lc_violation), c_size_t, _size_p]),
    "lc_transcript_repair_plan": (lc_status, [_input_p, c_uint32, _buf, c_size_t, _size_p]),
    "lc_transcript_repair": (lc_status, [_input_p, c_uint32, _buf, c_size_t, _size_p]),
    "lc_conversion_input": (
        lc_status,
        [_conversion_p, _buf, c_size_t, _buf, c_size_t, c_uint64, c_uint64, _buf, POINTER(_input_p)],
    ),
}

# Arguments of the typed view below: a buffer is bytes, None or a c_char array; a pointer is a
# ctypes pointer or byref(); ints are range-checked by the callers.
_B = Any
_P = Any
_St = int


class Library:
    """The loaded library as mypy sees it: one typed callable per C function (same names)."""

    path: str
    lc_version: Callable[[], bytes]
    lc_abi_version: Callable[[], int]
    lc_status_name: Callable[[int], bytes]
    lc_status_reason: Callable[[int], bytes]
    lc_status_message: Callable[[int], bytes]
    lc_summary_xml_validate: Callable[[_B, int], _St]
    lc_compaction_input_parse: Callable[[_B, int, _P], _St]
    lc_compaction_input_free: Callable[[_P], None]
    lc_compaction_input_validate: Callable[[_B, int], _St]
    lc_compaction_input_encode_within: Callable[[_P, int, _B, int, _P], _St]
    lc_compaction_output_validate: Callable[[_P, _B, int, int, int, _B, int, _P], _St]
    lc_compaction_policy_validate: Callable[[_B, int, int], _St]
    lc_context_observation_validate: Callable[[_B, int, int], _St]
    lc_context_config_validate: Callable[[_B, int], _St]
    lc_context_limits_resolve: Callable[[lc_context_limits, int, int, _P], _St]
    lc_occupancy_basis_points: Callable[[int, int, _P], _St]
    lc_pressure_level: Callable[[int, int, bool, int, int], int]
    lc_replacement_check: Callable[[int, int], _St]
    lc_request_fingerprint: Callable[[_B, int, _B], _St]
    lc_summary_xml_diagnose: Callable[[_B, int, _P], _St]
    lc_compaction_input_diagnose: Callable[[_B, int, _P], _St]
    lc_compaction_output_diagnose: Callable[[_P, _B, int, int, int, _B, int, _P, _P], _St]
    lc_compaction_policy_diagnose: Callable[[_B, int, int, _P], _St]
    lc_context_observation_diagnose: Callable[[_B, int, int, _P], _St]
    lc_context_config_diagnose: Callable[[_B, int, _P], _St]
    lc_request_fingerprint_diagnose: Callable[[_B, int, _B, _P], _St]
    lc_status_class: Callable[[int], int]
    lc_retry_message: Callable[[_P, _B, int, _P], _St]
    lc_summary_instructions: Callable[[], bytes]
    lc_summary_sections: Callable[[_B, int, _P], _St]
    lc_summary_section_text: Callable[[_B, int, int, _B, int, _P], _St]
    lc_summary_grammar: Callable[[int], Optional[bytes]]
    lc_summary_json_schema: Callable[[], bytes]
    lc_summary_render: Callable[[_B, int, _B, int, _B, int, _B, int, _B, int, _B, int, _P], _St]
    lc_summary_stream_new: Callable[[_P], _St]
    lc_summary_stream_feed: Callable[[_P, _B, int], _St]
    lc_summary_stream_feed_diagnose: Callable[[_P, _B, int, _P], _St]
    lc_summary_stream_finish: Callable[[_P], _St]
    lc_summary_stream_finish_diagnose: Callable[[_P, _P], _St]
    lc_summary_stream_dead_offset: Callable[[_P], int]
    lc_summary_stream_free: Callable[[_P], None]
    lc_transcript_pairing_check: Callable[[_P, _P], _St]
    lc_transcript_safe_cut: Callable[[_P, int, _P], _St]
    lc_transcript_cut_check: Callable[[_P, int], _St]
    lc_compaction_progress_check: Callable[[int, int, int], _St]
    lc_compaction_threshold_check: Callable[[_B, int, int, int], _St]
    lc_compaction_reply_validate: Callable[[_P, _B, int, int, int, int, int, _B, int, _P], _St]
    lc_compaction_reply_diagnose: Callable[[_P, _B, int, int, int, int, int, _B, int, _P, _P], _St]
    lc_compaction_input_encode_head_within: Callable[[_P, int, int, _B, int, _P], _St]
    lc_replacement_build: Callable[[_P, int, _B, int, _B, int, _P], _St]
    lc_replacement_verify: Callable[[_P, int, _B, int, _P], _St]
    lc_transcript_convert: Callable[[int, _B, int, int, _P, _P], _St]
    lc_conversion_free: Callable[[_P], None]
    lc_conversion_transcript: Callable[[_P, _B, int, _P], _St]
    lc_conversion_source_index: Callable[[_P, _P, int, _P], _St]
    lc_conversion_cut_allowed: Callable[[_P, _B, int, _P], _St]
    lc_conversion_losses: Callable[[_P, _P, int, _P], _St]
    lc_conversion_source_cut: Callable[[_P, int, _P], _St]
    lc_conversion_source_len: Callable[[_P, _P], _St]
    lc_loss_name: Callable[[int], bytes]
    lc_compaction_input_message_count: Callable[[_P, _P], _St]
    lc_compaction_input_max_summary_tokens: Callable[[_P, _P], _St]
    lc_compaction_input_leading_systems: Callable[[_P, _P], _St]
    lc_transcript_safe_cut_with: Callable[[_P, int, int, _B, int, _P], _St]
    lc_transcript_cut_check_with: Callable[[_P, int, int, _B, int], _St]
    lc_transcript_pairing_violations: Callable[[_P, _P, int, _P], _St]
    lc_transcript_repair_plan: Callable[[_P, int, _B, int, _P], _St]
    lc_transcript_repair: Callable[[_P, int, _B, int, _P], _St]
    lc_conversion_input: Callable[[_P, _B, int, _B, int, int, int, _B, _P], _St]


def library_file_name(platform: str = sys.platform) -> str:
    """The file name of the library the wheel bundles on ``platform``."""
    if platform == "win32":
        return "loopcompact.dll"
    if platform == "darwin":
        return "libloopcompact.dylib"
    return "libloopcompact.so"


def bundled_library() -> Path:
    """Where the wheel puts the library: next to this module."""
    return Path(__file__).resolve().parent / library_file_name()


def library_path() -> str:
    """The library this process loads: ``$LOOPCOMPACT_LIB`` when set, else the bundled one."""
    return os.environ.get("LOOPCOMPACT_LIB") or str(bundled_library())


def load(path: Optional[str] = None) -> Library:
    """Loads the library at ``path`` (default :func:`library_path`) and declares every function."""
    path = path or library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            f"cannot load the loopcompact library {path!r} ({e}): reinstall the wheel "
            "(pip install loopcompact), or set LOOPCOMPACT_LIB to the path of libloopcompact"
        ) from e
    for name, (restype, argtypes) in SIGNATURES.items():
        try:
            function = getattr(lib, name)
        except AttributeError as e:
            raise ImportError(f"{path} lacks the C function {name}: it is older than this package") from e
        function.restype = restype
        function.argtypes = argtypes
    found = lib.lc_abi_version()
    if found != ABI_VERSION:
        raise ImportError(f"{path} has C ABI version {found}, this package needs {ABI_VERSION}")
    setattr(lib, "path", path)
    return cast(Library, lib)


lib = load()

#: The largest length :func:`bytes_function` passes: below 2**31, a C ``int`` and a ``size_t``
#: hold the same non-negative value, whatever the ABI does with the upper bits of the register.
BYTES_CALL_MAX = 0x7FFF_FFFF


def bytes_function(name: str) -> Callable[[bytes, int], int]:
    """A second ctypes function object for the C function ``name`` of signature
    ``lc_status (const uint8_t *, size_t)``, for calls with ``bytes`` and a length of at most
    :data:`BYTES_CALL_MAX`: no ``argtypes``, so ctypes converts the two arguments itself (``bytes``
    as a pointer to its storage, no copy; the ``int`` as a C ``int``, which libffi widens to the
    register) instead of calling two ``from_param`` converters, about 0.1 µs of a call of 1 µs
    (BENCHMARKS.md, the Python section). ``lib.<name>`` keeps its declared signature."""
    restype, argtypes = SIGNATURES[name]
    if argtypes != [_buf, c_size_t]:
        raise TypeError(f"{name} does not take (bytes, length)")
    function = cast(ctypes.CDLL, lib)[name]  # a new function object, not the declared attribute
    function.restype = restype
    return cast(Callable[[bytes, int], int], function)
