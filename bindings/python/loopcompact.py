"""loopcompact for Python: a ctypes binding of every function of the C ABI (SPEC §2).

SPEC is the contract, ``docs/SPEC.md`` of the repository; "SPEC §N" is its section N.

The shared library is ``target/release/libloopcompact.so`` of this repository (``cargo build
--release``), or the file named by the environment variable ``LOOPCOMPACT_LIB`` (for example an
installed ``/usr/local/lib/libloopcompact.so.0``). Nothing else is needed: no compiler, no cffi.

Documents go in as ``bytes`` (any bytes-like object; ``None`` is the empty buffer, passed as
``(NULL, 0)``). Every rejection raises :class:`LoopcompactError`, which carries the status value,
its name, reason string and message. Results come back as ``bytes`` (encoded input, fingerprint)
or ``str`` (the summary, which is UTF-8 text)::

    import loopcompact as lc

    lc.validate_summary(xml_bytes)                      # raises LoopcompactError when invalid
    with lc.Input(wire_bytes) as compaction_input:      # lc_compaction_input_parse / _free
        request = compaction_input.encode_within(64_000)
        summary = compaction_input.validate_output(reply_bytes, output_tokens=812,
                                                   max_output_bytes=65_536)

Thread safety: every function may be called from any thread (the library has no global state and
ctypes releases the GIL during each call). An :class:`Input` may be shared between threads;
``close()`` waits for calls in flight on it before freeing the handle.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from ctypes import POINTER, Structure, c_bool, c_char_p, c_int32, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64
from pathlib import Path
from typing import NamedTuple, Union

__all__ = [
    "ABI_VERSION",
    "FINGERPRINT_LEN",
    "Input",
    "LoopcompactError",
    "ResolvedLimits",
    "abi_version",
    "occupancy_basis_points",
    "pressure_level",
    "replacement_check",
    "request_fingerprint",
    "resolve_context_limits",
    "status_message",
    "status_name",
    "status_reason",
    "validate_compaction_policy",
    "validate_context_config",
    "validate_context_observation",
    "validate_input",
    "validate_summary",
    "version",
]

#: The C ABI version this module was written for (``LC_ABI_VERSION``); checked at import.
ABI_VERSION = 0
#: Length of a request fingerprint in bytes (``LC_FINGERPRINT_LEN``).
FINGERPRINT_LEN = 32

LC_OK = 0
LC_ERR_BUFFER_TOO_SMALL = 2

Bytes = Union[bytes, bytearray, memoryview, None]


# ---- the C types -----------------------------------------------------------------------------

lc_status = c_int32


# The structs keep their C names: test_loopcompact.py matches them with the header by name.


class lc_compaction_input(Structure):
    """``lc_compaction_input``: opaque, only ever used through a pointer."""


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


class ResolvedLimits(NamedTuple):
    """The input limits resolved by :func:`resolve_context_limits` (SPEC L9.1)."""

    reserved_output: int
    raw_input_limit: int
    input_limit: int


_u8_p = POINTER(c_uint8)

#: Every function of the C ABI: name -> (restype, argtypes), exactly as declared in
#: include/loopcompact.h (test_loopcompact.py compares the two).
SIGNATURES = {
    "lc_version": (c_char_p, []),
    "lc_abi_version": (c_uint32, []),
    "lc_status_name": (c_char_p, [lc_status]),
    "lc_status_reason": (c_char_p, [lc_status]),
    "lc_status_message": (c_char_p, [lc_status]),
    "lc_summary_xml_validate": (lc_status, [_u8_p, c_size_t]),
    "lc_compaction_input_parse": (lc_status, [_u8_p, c_size_t, POINTER(POINTER(lc_compaction_input))]),
    "lc_compaction_input_free": (None, [POINTER(lc_compaction_input)]),
    "lc_compaction_input_validate": (lc_status, [_u8_p, c_size_t]),
    "lc_compaction_input_encode_within": (
        lc_status,
        [POINTER(lc_compaction_input), c_uint64, _u8_p, c_size_t, POINTER(c_size_t)],
    ),
    "lc_compaction_output_validate": (
        lc_status,
        [POINTER(lc_compaction_input), _u8_p, c_size_t, c_uint64, c_uint64, _u8_p, c_size_t, POINTER(c_size_t)],
    ),
    "lc_compaction_policy_validate": (lc_status, [_u8_p, c_size_t, c_int32]),
    "lc_context_observation_validate": (lc_status, [_u8_p, c_size_t, c_int32]),
    "lc_context_config_validate": (lc_status, [_u8_p, c_size_t]),
    "lc_context_limits_resolve": (lc_status, [lc_context_limits, c_uint64, c_uint64, POINTER(lc_resolved_limits)]),
    "lc_occupancy_basis_points": (lc_status, [c_uint64, c_uint64, POINTER(c_uint16)]),
    "lc_pressure_level": (c_int32, [c_int32, c_uint16, c_bool, c_uint16, c_uint16]),
    "lc_replacement_check": (lc_status, [c_uint64, c_uint64]),
    "lc_request_fingerprint": (lc_status, [_u8_p, c_size_t, _u8_p]),
}


# ---- loading ---------------------------------------------------------------------------------

def _default_library() -> Path:
    names = {"darwin": "libloopcompact.dylib", "win32": "loopcompact.dll"}
    name = names.get(sys.platform, "libloopcompact.so")
    return Path(__file__).resolve().parents[2] / "target" / "release" / name


def _load() -> ctypes.CDLL:
    path = os.environ.get("LOOPCOMPACT_LIB") or str(_default_library())
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            f"cannot load the loopcompact library {path!r} ({e}); build it with `cargo build --release` "
            "or set LOOPCOMPACT_LIB to the path of libloopcompact"
        ) from e
    for name, (restype, argtypes) in SIGNATURES.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    found = lib.lc_abi_version()
    if found != ABI_VERSION:
        raise ImportError(f"{path} has C ABI version {found}, this module needs {ABI_VERSION}")
    return lib


_lib = _load()


# ---- errors ----------------------------------------------------------------------------------

class LoopcompactError(Exception):
    """A call returned a status other than ``LC_OK``.

    Attributes: ``status`` (the ``lc_status`` value), ``name`` (``"LC_SUMMARY_XML_ROOT"``),
    ``reason`` (the reference's reason string, ``"xml_root"``; ``""`` for boundary errors) and
    ``message`` (one sentence). None of them contains bytes of the input. Several statuses share a
    reason (``"wire"``): compare ``status`` or ``name`` to tell them apart.
    """

    def __init__(self, status: int):
        self.status = status
        self.name = status_name(status)
        self.reason = status_reason(status)
        self.message = status_message(status)
        super().__init__(f"{self.name} ({status}): {self.message}")


def _check(status: int) -> None:
    if status != LC_OK:
        raise LoopcompactError(status)


# ---- argument conversion ---------------------------------------------------------------------

class _Buffer:
    """A borrowed (pointer, length) input: no copy for ``bytes``; ``None`` is ``(NULL, 0)``."""

    __slots__ = ("keep", "ptr", "len")

    def __init__(self, data: Bytes, what: str):
        if data is None:
            self.keep, self.ptr, self.len = None, None, 0
            return
        if isinstance(data, str):
            raise TypeError(f"{what} must be bytes, not str (encode it as UTF-8)")
        if not isinstance(data, bytes):
            data = bytes(memoryview(data))
        # c_char_p points into the bytes object itself; `keep` holds it alive for the call.
        self.keep = c_char_p(data)
        self.ptr = ctypes.cast(self.keep, _u8_p)
        self.len = len(data)


def _uint(value: int, bits: int, what: str) -> int:
    # ctypes would silently wrap -1 or 2**64 to another value: refuse instead.
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int")
    if not 0 <= value < (1 << bits):
        raise ValueError(f"{what} must be in 0..{(1 << bits) - 1}, got {value}")
    return value


def _int32(value: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int")
    if not -(1 << 31) <= value < (1 << 31):
        raise ValueError(f"{what} must be a 32-bit signed integer, got {value}")
    return value


# ---- meta ------------------------------------------------------------------------------------

def version() -> str:
    """The library version, e.g. ``"0.1.0"`` (``lc_version``)."""
    return _lib.lc_version().decode()


def abi_version() -> int:
    """The C ABI version of the loaded library (``lc_abi_version``)."""
    return _lib.lc_abi_version()


def status_name(status: int) -> str:
    """``"LC_SUMMARY_XML_ROOT"``; ``"LC_UNKNOWN_STATUS"`` for a value not in the table."""
    return _lib.lc_status_name(_int32(status, "status")).decode()


def status_reason(status: int) -> str:
    """The reference's reason string (``"xml_root"``); ``""`` for LC_OK and boundary errors."""
    return _lib.lc_status_reason(_int32(status, "status")).decode()


def status_message(status: int) -> str:
    """One human sentence describing the status."""
    return _lib.lc_status_message(_int32(status, "status")).decode()


# ---- documents -------------------------------------------------------------------------------

def validate_summary(xml: Bytes) -> None:
    """Validates a summary against the XML grammar of SPEC §4 (``lc_summary_xml_validate``)."""
    buf = _Buffer(xml, "xml")
    _check(_lib.lc_summary_xml_validate(buf.ptr, buf.len))


def validate_input(wire: Bytes) -> None:
    """Validates a compaction input wire document (SPEC §5) without keeping it."""
    buf = _Buffer(wire, "wire")
    _check(_lib.lc_compaction_input_validate(buf.ptr, buf.len))


def validate_compaction_policy(json: Bytes, counter_quality: int) -> None:
    """Validates a compaction policy (SPEC §8.1) for a counter of this quality: 0 unknown,
    1 exact provider, 2 exact local, 3 heuristic (other values: unknown)."""
    buf = _Buffer(json, "json")
    _check(_lib.lc_compaction_policy_validate(buf.ptr, buf.len, _int32(counter_quality, "counter_quality")))


def validate_context_observation(json: Bytes, counter_quality: int) -> None:
    """Validates a context observation policy (SPEC §8.2)."""
    buf = _Buffer(json, "json")
    _check(_lib.lc_context_observation_validate(buf.ptr, buf.len, _int32(counter_quality, "counter_quality")))


def validate_context_config(json: Bytes) -> None:
    """Validates a context configuration (SPEC §8.3)."""
    buf = _Buffer(json, "json")
    _check(_lib.lc_context_config_validate(buf.ptr, buf.len))


def request_fingerprint(json: Bytes) -> bytes:
    """The request fingerprint (SPEC §10): 32 bytes of SHA-256; ``.hex()`` gives the usual form."""
    buf = _Buffer(json, "json")
    out = (c_uint8 * FINGERPRINT_LEN)()
    _check(_lib.lc_request_fingerprint(buf.ptr, buf.len, out))
    return bytes(out)


# ---- limits ----------------------------------------------------------------------------------

def resolve_context_limits(
    window_tokens: int,
    max_input_tokens: int,
    max_output_tokens: int,
    reserved_output: int,
    safety_margin: int,
) -> ResolvedLimits:
    """Resolves a model's input limit (SPEC L9.1; ``lc_context_limits_resolve``)."""
    limits = lc_context_limits(
        _uint(window_tokens, 64, "window_tokens"),
        _uint(max_input_tokens, 64, "max_input_tokens"),
        _uint(max_output_tokens, 64, "max_output_tokens"),
    )
    out = lc_resolved_limits()
    _check(
        _lib.lc_context_limits_resolve(
            limits,
            _uint(reserved_output, 64, "reserved_output"),
            _uint(safety_margin, 64, "safety_margin"),
            ctypes.byref(out),
        )
    )
    return ResolvedLimits(out.reserved_output, out.raw_input_limit, out.input_limit)


def occupancy_basis_points(used: int, limit: int) -> int:
    """``used`` tokens against ``limit`` in basis points, 0..10000 (SPEC L9.2)."""
    out = c_uint16()
    _check(_lib.lc_occupancy_basis_points(_uint(used, 64, "used"), _uint(limit, 64, "limit"), ctypes.byref(out)))
    return out.value


def pressure_level(previous_level: int, occupancy: int, automatic: bool, compact_at: int, rearm_below: int) -> int:
    """The pressure level (SPEC L9.3): 1 normal, 2 compact, 3 hard limit (0: internal failure)."""
    return _lib.lc_pressure_level(
        _int32(previous_level, "previous_level"),
        _uint(occupancy, 16, "occupancy"),
        bool(automatic),
        _uint(compact_at, 16, "compact_at"),
        _uint(rearm_below, 16, "rearm_below"),
    )


def replacement_check(input_tokens: int, input_limit: int) -> None:
    """Raises ``LC_SUMMARY_TOO_LARGE`` when the rebuilt request reaches its limit (SPEC L9.4)."""
    _check(_lib.lc_replacement_check(_uint(input_tokens, 64, "input_tokens"), _uint(input_limit, 64, "input_limit")))


# ---- the compaction input handle ---------------------------------------------------------------

class Input:
    """A validated compaction input (``lc_compaction_input``), parsed from its wire document.

    Use it as a context manager or call :meth:`close`; the handle is also freed when the object is
    garbage-collected, as a safety net. Immutable and shareable between threads.
    """

    def __init__(self, wire: Bytes):
        buf = _Buffer(wire, "wire")
        handle = POINTER(lc_compaction_input)()
        _check(_lib.lc_compaction_input_parse(buf.ptr, buf.len, ctypes.byref(handle)))
        self._handle = handle
        self._users = 0
        self._idle = threading.Condition()

    @classmethod
    def parse(cls, wire: Bytes) -> "Input":
        """Same as ``Input(wire)``."""
        return cls(wire)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Frees the handle (idempotent). Waits for calls in flight on other threads."""
        with self._idle:
            handle, self._handle = self._handle, None
            self._idle.wait_for(lambda: self._users == 0)
        if handle is not None:
            _lib.lc_compaction_input_free(handle)

    def __enter__(self) -> "Input":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        # The safety net for an Input never closed: no other thread can be using it any more.
        handle = getattr(self, "_handle", None)
        if handle is not None:
            self._handle = None
            _lib.lc_compaction_input_free(handle)

    def _acquire(self):
        with self._idle:
            if self._handle is None:
                raise ValueError("operation on a closed loopcompact.Input")
            self._users += 1
            return self._handle

    def _release(self) -> None:
        with self._idle:
            self._users -= 1
            self._idle.notify_all()

    def encode_within(self, max_bytes: int) -> bytes:
        """The exact bytes to send to the summariser, fitted under ``max_bytes`` (SPEC §7).

        Raises ``LC_INPUT_TOO_LARGE`` when nothing fits (always for ``max_bytes == 0``).
        """
        max_bytes = _uint(max_bytes, 64, "max_bytes")
        handle = self._acquire()
        try:
            buf = (c_uint8 * 0)()
            needed = c_size_t(0)
            status = _lib.lc_compaction_input_encode_within(handle, max_bytes, None, 0, ctypes.byref(needed))
            while status == LC_ERR_BUFFER_TOO_SMALL:
                # Two-call pattern: the same limit always gives the same bytes (A3.6), so the loop
                # runs once; it is a loop only so that a misbehaving library cannot overflow.
                cap = needed.value
                buf = (c_uint8 * cap)()
                status = _lib.lc_compaction_input_encode_within(handle, max_bytes, buf, cap, ctypes.byref(needed))
            _check(status)
            return bytes(buf[: needed.value])
        finally:
            self._release()

    def validate_output(self, output: Bytes, output_tokens: int, max_output_bytes: int) -> str:
        """Validates the summariser's reply against this input (SPEC §6) and returns the summary
        XML text, the exact text of the replacement user message.

        ``output_tokens``: the output usage the provider reported (0: none reported);
        ``max_output_bytes``: the byte limit of the reply (0 rejects every reply).
        """
        out = _Buffer(output, "output")
        output_tokens = _uint(output_tokens, 64, "output_tokens")
        max_output_bytes = _uint(max_output_bytes, 64, "max_output_bytes")
        handle = self._acquire()
        try:
            # O6.4: the summary is never longer than the reply, so one call usually suffices.
            cap = out.len
            while True:
                buf = (c_uint8 * cap)()
                written = c_size_t(0)
                status = _lib.lc_compaction_output_validate(
                    handle, out.ptr, out.len, output_tokens, max_output_bytes, buf, cap, ctypes.byref(written)
                )
                if status != LC_ERR_BUFFER_TOO_SMALL or written.value <= cap:
                    break
                cap = written.value
            _check(status)
            return bytes(buf[: written.value]).decode("utf-8")
        finally:
            self._release()

    def __repr__(self) -> str:
        return f"<loopcompact.Input {'closed' if self.closed else 'open'}>"
