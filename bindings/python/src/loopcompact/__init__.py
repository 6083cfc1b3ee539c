"""loopcompact for Python: the validation boundary of agent-loop context compaction.

Every function of the C ABI (``include/loopcompact.h``) behind a typed Python API, over the
library the wheel carries next to this module (``LOOPCOMPACT_LIB`` names another one). SPEC is
the contract, ``docs/SPEC.md`` of the source repository; "SPEC §N" is its section N.

Documents are ``str`` (encoded as UTF-8), ``bytes``, ``bytearray`` or ``memoryview`` (any
C-contiguous buffer; ``bytes``, ``bytearray`` and writable views are passed without a copy);
``None`` is the empty buffer, passed as ``(NULL, 0)``. A lone surrogate in a string document
(U+D800-U+DFFF, which UTF-8 cannot hold) is sent as U+FFFD, exactly as SPEC J5.4 decodes a lone
surrogate escape (``\ud800``): every host gives the same text the same verdict, and no error
carries the text. (A Python ``str`` holds code points, so each surrogate in it is lone.) A rejection raises the
:class:`LoopcompactError` subclass of its domain, carrying where the problem is::

    import loopcompact as lc

    try:
        lc.validate_summary("<conversation_summary><goal>ship</goal><state/></conversation_summary>")
    except lc.SummaryError as e:
        print(e)            # LC_SUMMARY_XML_STRUCTURE (208) at byte 39, line 1, column 40, ...
        print(e.line, e.column, e.section, e.rule, e.status_class)
        retry_prompt = e.retry_message()

    with lc.Input(wire) as compaction_input:     # lc_compaction_input_parse; close() frees it
        request = compaction_input.encode_within(64_000)                       # bytes
        summary = compaction_input.validate_output(reply, output_tokens=812, max_output_bytes=65_536)

Threads: every function may be called from any thread (the library keeps no global state and
ctypes releases the GIL during each call). An :class:`Input` may be shared between threads;
``close()`` waits for the calls in flight on it before freeing the handle.
"""

from __future__ import annotations

import ctypes
import json
import threading
from ctypes import POINTER, c_char, c_size_t, c_uint16, c_uint64
from typing import TYPE_CHECKING, Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union, cast

from . import _native
from ._constants import (
    ABI_VERSION,
    CUT_PENDING_TAIL,
    NO_BLOCK,
    OFFSET_UNKNOWN,
    FINGERPRINT_LEN,
    GRAMMAR_GBNF,
    GRAMMAR_LARK,
    GRAMMAR_REGEX,
    SMALLEST_SUMMARY_LEN,
    Cleanup,
    CounterQuality,
    Format,
    LossCode,
    Pressure,
    Section,
    Status,
    StatusClass,
    Stop,
)
from ._errors import (
    ContextError,
    ConversionError,
    _int32,
    Diagnostic,
    FingerprintError,
    InputError,
    LoopcompactError,
    OutputError,
    PolicyError,
    ReplacementError,
    SummaryError,
    check,
    diagnosis,
    retry_message,
    status_class,
    status_message,
    status_name,
    status_reason,
)
from ._handle import Owned
from ._native import lc_compaction_input, lc_context_limits, lc_resolved_limits, lc_span
from ._sourcemap import SourceMap
from ._text import utf8

__version__ = "0.1.0"

__all__ = [
    "ABI_VERSION",
    "FINGERPRINT_LEN",
    "SMALLEST_SUMMARY_LEN",
    "Attempt",
    "ChatMessage",
    "Cleanup",
    "Compacted",
    "ContextError",
    "Conversion",
    "ConversionError",
    "CounterQuality",
    "Diagnostic",
    "Document",
    "FingerprintError",
    "Format",
    "Input",
    "InputError",
    "KeepHistory",
    "LoopcompactError",
    "Loss",
    "LossCode",
    "OutputError",
    "PolicyError",
    "Pressure",
    "Removed",
    "ReplacementError",
    "ResolvedLimits",
    "Section",
    "SectionSpan",
    "Status",
    "StatusClass",
    "Stop",
    "SummaryError",
    "SummaryStream",
    "Violation",
    "STRUCTURED_NOTE",
    "SummaryReply",
    "SummaryReplyStream",
    "SummaryRequest",
    "SummaryUsage",
    "__version__",
    "abi_version",
    "acompact",
    "compact",
    "compaction_progress_check",
    "compaction_threshold_check",
    "from_anthropic",
    "from_gemini",
    "from_json",
    "from_langchain",
    "from_openai_chat",
    "from_openai_responses",
    "library_path",
    "loss_name",
    "occupancy_basis_points",
    "pressure_level",
    "replacement_check",
    "request_fingerprint",
    "request_fingerprint_hex",
    "resolve_context_limits",
    "retry_message",
    "status_class",
    "status_message",
    "status_name",
    "status_reason",
    "render_summary",
    "summary_grammar",
    "summary_instructions",
    "summary_json_schema",
    "summary_section_text",
    "summary_sections",
    "validate_compaction_policy",
    "validate_context_config",
    "validate_context_observation",
    "validate_input",
    "validate_summary",
    "version",
]

_lib = _native.lib

#: What a document argument may be: text (UTF-8), a bytes-like object, or None for (NULL, 0).
if TYPE_CHECKING:
    Document = Union[str, bytes, bytearray, "memoryview[Any]", None]
else:  # memoryview is subscriptable only from Python 3.12 on
    Document = Union[str, bytes, bytearray, memoryview, None]


# ---- arguments -----------------------------------------------------------------------------------

def _buffer(data: Document, what: str) -> Tuple[Any, int]:
    """A borrowed (pointer, length) for ``data``: bytes as they are, a bytearray or writable view
    through a c_char array over its memory (no copy), read-only views and str as a copy."""
    if isinstance(data, bytes):
        return data, len(data)
    if isinstance(data, str):
        encoded = utf8(data)
        return encoded, len(encoded)
    if data is None:
        return None, 0
    if isinstance(data, bytearray):
        n = len(data)
        return ((c_char * n).from_buffer(data) if n else b""), n
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(f"{what} must be str, bytes, bytearray or memoryview, not {type(data).__name__}") from None
    n = view.nbytes
    if n == 0:
        return b"", 0
    if not view.c_contiguous:
        return view.tobytes(), n
    if view.readonly:
        whole = view.obj
        # A view of a whole bytes object: that object itself. Other read-only views are copied
        # (ctypes can point into writable buffers only).
        return (whole, n) if isinstance(whole, bytes) and len(whole) == n else (view.tobytes(), n)
    return (c_char * n).from_buffer(view.cast("B") if view.format != "B" or view.ndim != 1 else view), n


def _bool(value: bool, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be a bool, not {type(value).__name__}")
    return value


class Violation(NamedTuple):
    """One S14.3 violation (SPEC G16.14): the status (500–503), the message, the top-level block
    (``None`` for a tool message's own ``tool_use_id``) and the offset of the id in the document."""

    status: Status
    message: int
    block: Optional[int]
    offset: int


def _uint(value: int, bits: int, what: str) -> int:
    # ctypes would silently wrap -1 or 2**64 to another value: refuse instead.
    if type(value) is int and 0 <= value < (1 << bits):  # the common case, one test
        return value
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < (1 << bits):
        raise ValueError(f"{what} must be in 0..{(1 << bits) - 1}, got {value}")
    return value


#: ``stop`` of a reply -> ``LC_STOP_*``, as a plain int.
_STOPS = {None: int(Stop.UNKNOWN), "end": int(Stop.END), "length": int(Stop.LENGTH)}
#: ``(trim, unfence)`` -> the ``flags`` argument, worked out once: building it from
#: :class:`Cleanup` members on each call (``Flag`` operators, ``int()``) cost 2 us per reply.
_REPLY_FLAGS = {
    (trim, unfence): int((Cleanup.TRIM if trim else Cleanup(0)) | (Cleanup.UNFENCE if unfence else Cleanup(0)))
    for trim in (False, True)
    for unfence in (False, True)
}


def _reply_args(
    output_tokens: int, stop: Optional[str], max_reply_bytes: int, trim: bool, unfence: bool
) -> Tuple[int, int, int, int]:
    """The (output_tokens, stop, max_reply_bytes, flags) arguments of the bare-reply functions."""
    code = _STOPS.get(stop) if stop is None or isinstance(stop, str) else None
    if code is None:
        raise ValueError(f'stop must be "end", "length" or None, not {stop!r}')
    return (
        _uint(output_tokens, 64, "output_tokens"),
        code,
        _uint(max_reply_bytes, 64, "max_reply_bytes"),
        _REPLY_FLAGS[bool(trim), bool(unfence)],
    )


def _filled(call: Callable[[Any, int, Any], int], guess: int = 0) -> Tuple[int, Any, int]:
    """The two-call pattern (SPEC A3.2) of ``call(buf, cap, byref(out_len))``. With a ``guess`` of
    the size, the first call gets a buffer of that size, which saves the size query when the
    bytes fit (for an encoding, the query costs about half the call); then a buffer of the size
    asked for. Returns the status and, on ``LC_OK``, the buffer (``None`` for no bytes) and the
    length written in it."""
    needed = c_size_t(0)
    buf = ctypes.create_string_buffer(guess) if guess > 0 else None
    status = call(buf, guess if buf is not None else 0, ctypes.byref(needed))
    if status == Status.OK and buf is not None:
        return status, buf, needed.value
    # A call that does not fit writes nothing (A3.2): the guess is freed before the exact buffer.
    buf = None
    while status == Status.ERR_BUFFER_TOO_SMALL:
        # The same arguments always give the same bytes (A3.6): this runs once.
        cap = needed.value
        buf = ctypes.create_string_buffer(cap)
        status = call(buf, cap, ctypes.byref(needed))
        if status == Status.OK:
            return status, buf, needed.value
    return status, None, 0


def _written(call: Callable[[Any, int, Any], int], guess: int = 0) -> Tuple[int, bytes]:
    """:func:`_filled`, the bytes written copied out (``b""`` unless ``LC_OK``)."""
    status, buf, n = _filled(call, guess)
    return status, ctypes.string_at(buf, n) if buf is not None else b""


def _output_guess(size: int) -> int:
    """A first buffer for the canonical encoding of a document of about ``size`` bytes. The
    encoding is rarely longer (E7.6 escapes ``<``, ``>`` and ``&`` in six bytes, but drops
    whitespace and writes ``\\u`` escapes of other characters as UTF-8): a little room, and a
    document that grows more gets the size query's exact buffer, as with no guess. The room stays
    small so that the buffer and the ``bytes`` copied from it stay near twice the result."""
    return size + size // 128 + 4096


# ---- meta ----------------------------------------------------------------------------------------

def version() -> str:
    """The version of the loaded library, e.g. ``"0.1.0"`` (``lc_version``)."""
    return _lib.lc_version().decode("utf-8")


def abi_version() -> int:
    """The C ABI version of the loaded library (``lc_abi_version``)."""
    return int(_lib.lc_abi_version())


def library_path() -> str:
    """The path of the loaded library: the bundled one, or ``$LOOPCOMPACT_LIB``."""
    return _lib.path


# ---- summary -------------------------------------------------------------------------------------

def _diagnose_summary(ptr: Any, n: int) -> Diagnostic:
    return diagnosis(lambda d: _lib.lc_summary_xml_diagnose(ptr, n, d))


# The validators' C functions, looked up once. A call's cost beside the library's own time is
# ctypes'; for `bytes` (below 2 GiB) the package calls the functions without ctypes' argument
# converters (`_native.bytes_function`), after one type test and one length test, and tests the
# status. A rejected document is checked a second time, through the declared function, to build the
# diagnosis (scripts/bench-python measures the success path against C).
_summary_xml_validate = _lib.lc_summary_xml_validate
_compaction_input_validate = _lib.lc_compaction_input_validate
_summary_xml_validate_bytes = _native.bytes_function("lc_summary_xml_validate")
_compaction_input_validate_bytes = _native.bytes_function("lc_compaction_input_validate")
_BYTES_CALL_MAX = _native.BYTES_CALL_MAX


def validate_summary(xml: Document) -> None:
    """Validates a summary against the XML grammar of SPEC §4; raises :class:`SummaryError`."""
    if type(xml) is bytes and len(xml) <= _BYTES_CALL_MAX and not _summary_xml_validate_bytes(xml, len(xml)):
        return
    ptr, n = _buffer(xml, "xml")
    check(_summary_xml_validate(ptr, n), SummaryError, lambda: _diagnose_summary(ptr, n))


class SectionSpan(NamedTuple):
    """The byte span of one section's raw (escaped) content in a summary (SPEC C13.7)."""

    section: Section
    offset: int
    length: int

    @property
    def end(self) -> int:
        return self.offset + self.length


#: The five sections, in document order.
_SECTIONS = (Section.GOAL, Section.CONSTRAINTS, Section.DECISIONS, Section.STATE, Section.OPEN_ITEMS)


def summary_sections(xml: Document) -> Tuple[SectionSpan, ...]:
    """The span of each of the five sections of a valid summary, goal first (SPEC C13.7);
    ``xml[span.offset:span.end]`` is the section's raw content. Raises :class:`SummaryError`."""
    ptr, n = _buffer(xml, "xml")
    out = (lc_span * len(_SECTIONS))()
    check(_lib.lc_summary_sections(ptr, n, out), SummaryError, lambda: _diagnose_summary(ptr, n))
    return tuple(SectionSpan(s, int(span.offset), int(span.len)) for s, span in zip(_SECTIONS, out))


def summary_section_text(xml: Document, section: int) -> str:
    """The text of one section (``Section.GOAL`` … ``Section.OPEN_ITEMS``) of a valid summary as
    Go's ``encoding/xml`` reads it: references resolved, CR LF as LF (SPEC C13.8).

    Raises :class:`SummaryError` for an invalid summary, ``ValueError`` for another section value.
    """
    section = _int32(section, "section")
    if section not in _SECTIONS:
        raise ValueError(f"section must be one of Section.GOAL … Section.OPEN_ITEMS, got {section}")
    ptr, n = _buffer(xml, "xml")
    needed = c_size_t(0)
    status = _lib.lc_summary_section_text(ptr, n, section, None, 0, ctypes.byref(needed))
    while status == Status.ERR_BUFFER_TOO_SMALL:
        cap = needed.value
        buf = ctypes.create_string_buffer(cap)
        status = _lib.lc_summary_section_text(ptr, n, section, buf, cap, ctypes.byref(needed))
        if status == Status.OK:
            return str(memoryview(buf)[: needed.value], "utf-8")
    check(status, SummaryError, lambda: _diagnose_summary(ptr, n))
    return ""


def summary_instructions() -> str:
    """The instructions for the summariser (SPEC C13.6): the system prompt to send with the input,
    ending in one complete example summary."""
    return _lib.lc_summary_instructions().decode("utf-8")


# ---- grammars and structured output (SPEC §17.1, §17.2) -------------------------------------------

_GRAMMAR_KINDS = {"regex": GRAMMAR_REGEX, "lark": GRAMMAR_LARK, "gbnf": GRAMMAR_GBNF}


def summary_grammar(kind: str) -> str:
    """The summary language as a grammar for constrained decoding (SPEC G17.1): ``"regex"`` (one
    expression, matched against the whole reply), ``"lark"`` (start rule ``start``; OpenAI custom
    tools, llguidance) or ``"gbnf"`` (llama.cpp). Every string it matches passes
    :func:`validate_summary`. ``ValueError`` for another kind."""
    code = _GRAMMAR_KINDS.get(kind) if isinstance(kind, str) else None
    if code is None:
        raise ValueError(f"kind must be 'regex', 'lark' or 'gbnf', got {kind!r}")
    text = _lib.lc_summary_grammar(code)
    if text is None:  # pragma: no cover - the library knows every kind above
        raise ValueError(f"the library has no grammar of kind {kind!r}")
    return text.decode("utf-8")


def summary_json_schema() -> str:
    """The JSON Schema of the summary's structured-output form (SPEC G17.7): an object of five
    required strings ``goal``, ``constraints``, ``decisions``, ``state``, ``open_items``, no other
    property. Render a filled object with :func:`render_summary`."""
    return _lib.lc_summary_json_schema().decode("utf-8")


def render_summary(*, goal: str, constraints: str, decisions: str, state: str, open_items: str) -> str:
    """The summary XML built from the five sections' texts (SPEC G17.8): ``&``, ``<``, ``>`` and CR
    escaped, empty optional sections self-closed. The result passes :func:`validate_summary`, and
    :func:`summary_section_text` gives each text back.

    Raises :class:`SummaryError` (G17.9) for a blank ``goal`` or ``state``
    (``SUMMARY_XML_CONTENT``) or a character XML cannot carry, such as U+0000 or a lone surrogate
    (``SUMMARY_XML_SYNTAX``); nothing is replaced. ``TypeError`` for an argument that is not a str.
    """
    texts = []
    for name, value in (("goal", goal), ("constraints", constraints), ("decisions", decisions),
                        ("state", state), ("open_items", open_items)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
        # A lone surrogate becomes bytes that are not UTF-8, which the library refuses.
        texts.append(value.encode("utf-8", "surrogatepass"))
    g, c, d, s, o = texts
    needed = c_size_t(0)

    def render(buf: Any, cap: int) -> int:
        return _lib.lc_summary_render(g or None, len(g), c or None, len(c), d or None, len(d), s or None, len(s),
                                      o or None, len(o), buf, cap, ctypes.byref(needed))

    status = render(None, 0)
    while status == Status.ERR_BUFFER_TOO_SMALL:
        cap = needed.value
        buf = ctypes.create_string_buffer(cap)
        status = render(buf, cap)
        if status == Status.OK:
            return str(memoryview(buf)[: needed.value], "utf-8")
    check(status, SummaryError)
    raise SummaryError(Diagnostic.of_status(status))  # pragma: no cover - check raised above


# ---- streaming validation (SPEC §17.3) -----------------------------------------------------------

class SummaryStream(Owned):
    """The summariser's reply validated as it streams (``lc_summary_stream``, SPEC §17.3).

    :meth:`feed` each chunk as it arrives (any size, cut anywhere: inside a UTF-8 sequence, a
    reference, a tag); it raises :class:`SummaryError` at the first chunk after which no
    continuation can make the reply a valid summary (T17.3), so the caller can stop the model's
    call at once instead of paying for the rest of it. :meth:`finish` gives exactly the verdict of
    :func:`validate_summary` for everything fed (T17.4)::

        with lc.SummaryStream() as stream:
            for chunk in reply_chunks:       # str or bytes
                stream.feed(chunk)           # SummaryError once the reply is doomed
            stream.finish()                  # SummaryError as validate_summary raises it

    A ``str`` chunk is encoded to UTF-8 on its own, a lone surrogate as U+FFFD (as every document
    of the package). Offsets, lines and columns of the errors count from the start of the reply.
    Its memory is fixed, whatever the reply's length: it keeps no text.

    Use it as a context manager or call :meth:`close`; the handle is also freed when the object is
    garbage-collected. Calls on one stream are serialised (a lock), so it may be fed from any
    thread, one call at a time.
    """

    def __init__(self) -> None:
        handle = POINTER(_native.lc_summary_stream)()
        check(_lib.lc_summary_stream_new(ctypes.byref(handle)), SummaryError)
        super().__init__(handle)
        self._lock = threading.Lock()

    @staticmethod
    def _free(handle: Any) -> None:
        _lib.lc_summary_stream_free(handle)

    def __repr__(self) -> str:
        if self.closed:
            return "<loopcompact.SummaryStream closed>"
        dead = self.dead_offset
        return "<loopcompact.SummaryStream viable>" if dead is None else f"<loopcompact.SummaryStream dead at byte {dead}>"

    def feed(self, chunk: Document) -> None:
        """Reads the next chunk of the reply (T17.2). Raises :class:`SummaryError` with the
        diagnosis known when the reply died (T17.3: the first rule the prefix breaks, offsets
        from the start of the reply) once no continuation can validate, and the same error for
        every later chunk (which is not read). ``ValueError`` on a closed stream."""
        ptr, n = _buffer(chunk, "chunk")
        with self._lock:
            handle = self._acquire()
            try:
                status = _stream_feed(handle, ptr, n)
                if status != Status.OK:
                    # A dead stream reads nothing more: an empty feed gives its diagnosis.
                    check(status, SummaryError, lambda: diagnosis(lambda d: _stream_feed_diagnose(handle, None, 0, d)))
            finally:
                self._release()

    def finish(self) -> None:
        """The whole-document verdict of everything fed so far (T17.4): raises :class:`SummaryError`
        exactly as :func:`validate_summary` of the concatenated chunks would. The stream is not
        ended: more chunks may be fed after it."""
        with self._lock:
            handle = self._acquire()
            try:
                check(_lib.lc_summary_stream_finish(handle), SummaryError,
                      lambda: diagnosis(lambda d: _lib.lc_summary_stream_finish_diagnose(handle, d)))
            finally:
                self._release()

    @property
    def dead_offset(self) -> Optional[int]:
        """The offset from the start of the reply of the byte at which the reply died (T17.3), or
        ``None`` while it is viable."""
        with self._lock:
            handle = self._acquire()
            try:
                offset = int(_lib.lc_summary_stream_dead_offset(handle))
            finally:
                self._release()
        return None if offset == OFFSET_UNKNOWN else offset


_stream_feed = _lib.lc_summary_stream_feed
_stream_feed_diagnose = _lib.lc_summary_stream_feed_diagnose


# ---- the compaction input ------------------------------------------------------------------------

def _diagnose_input(ptr: Any, n: int) -> Diagnostic:
    return diagnosis(lambda d: _lib.lc_compaction_input_diagnose(ptr, n, d))


def validate_input(wire: Document) -> None:
    """Validates a compaction input wire document (SPEC §5) without keeping it; raises
    :class:`InputError`."""
    if type(wire) is bytes and len(wire) <= _BYTES_CALL_MAX and not _compaction_input_validate_bytes(wire, len(wire)):
        return
    ptr, n = _buffer(wire, "wire")
    check(_compaction_input_validate(ptr, n), InputError, lambda: _diagnose_input(ptr, n))


_PAIRING_STATUSES = range(500, 510)


class Input(Owned):
    """A validated compaction input (``lc_compaction_input``), parsed from its wire document, or
    made around a converted transcript by :meth:`Conversion.input`.

    Use it as a context manager or call :meth:`close`; the handle is also freed when the object is
    garbage-collected, as a safety net. Immutable and shareable between threads: calls on it run
    concurrently, and ``close()`` waits for those in flight.
    """

    def __init__(self, wire: Document) -> None:
        ptr, n = _buffer(wire, "wire")
        handle = POINTER(lc_compaction_input)()
        check(_lib.lc_compaction_input_parse(ptr, n, ctypes.byref(handle)), InputError, lambda: _diagnose_input(ptr, n))
        super().__init__(handle)
        #: What the round needs to map its cut back to the source messages: set only on an input
        #: made by Conversion.input().
        self._source: Optional[SourceMap] = None
        #: About the size of the input's encoding, for the first buffer of an output (_written).
        self._size = n

    @classmethod
    def _adopt(cls, handle: Any, source: "SourceMap", size: int) -> "Input":
        """An input around a handle that lc_conversion_input made; ``size``: its transcript's."""
        self = cls.__new__(cls)
        Owned.__init__(self, handle)
        self._source = source
        self._size = size
        return self

    @staticmethod
    def _free(handle: Any) -> None:
        _lib.lc_compaction_input_free(handle)

    @classmethod
    def parse(cls, wire: Document) -> "Input":
        """Same as ``Input(wire)``."""
        return cls(wire)

    @property
    def from_conversion(self) -> bool:
        """Whether :meth:`Conversion.input` made this input: then it cuts only at the source's
        message boundaries, and a :class:`Compacted` of its round has ``messages(source)``."""
        return self._source is not None

    def __repr__(self) -> str:
        return f"<loopcompact.Input {'closed' if self.closed else 'open'}>"

    def encode_within(self, max_bytes: int) -> bytes:
        """The exact bytes to send to the summariser: the canonical encoding, with old tool results
        stubbed oldest first when needed to fit ``max_bytes`` (SPEC §7).

        Raises :class:`InputError` ``LC_INPUT_TOO_LARGE`` when nothing fits (always for 0).
        """
        max_bytes = _uint(max_bytes, 64, "max_bytes")
        handle = self._acquire()
        try:
            status, encoded = _written(
                lambda buf, cap, out: _lib.lc_compaction_input_encode_within(handle, max_bytes, buf, cap, out),
                min(max_bytes, _output_guess(self._size)),
            )
            check(status, InputError)
            return encoded
        finally:
            self._release()

    def validate_output(self, output: Document, output_tokens: int, max_output_bytes: int) -> str:
        """Validates the summariser's reply against this input (SPEC §6) and returns the summary
        XML text, the exact text of the replacement user message.

        ``output_tokens``: the output usage the provider reported (0: none reported);
        ``max_output_bytes``: the byte limit of the reply (0 rejects every reply). Raises
        :class:`OutputError`; a failure of the summary itself has ``location`` ``"summary"`` and
        positions in the decoded summary text.
        """
        ptr, n = _buffer(output, "output")
        output_tokens = _uint(output_tokens, 64, "output_tokens")
        max_output_bytes = _uint(max_output_bytes, 64, "max_output_bytes")
        handle = self._acquire()
        try:
            # O6.4: the summary is never longer than the reply, so one call suffices.
            buf = ctypes.create_string_buffer(n) if n else None
            written = c_size_t(0)
            status = _lib.lc_compaction_output_validate(
                handle, ptr, n, output_tokens, max_output_bytes, buf, n, ctypes.byref(written)
            )

            def diagnose() -> Diagnostic:
                unused = c_size_t(0)
                return diagnosis(
                    lambda d: _lib.lc_compaction_output_diagnose(
                        handle, ptr, n, output_tokens, max_output_bytes, None, 0, ctypes.byref(unused), d
                    )
                )

            check(status, OutputError, diagnose)
            return str(memoryview(buf)[: written.value], "utf-8") if buf is not None else ""
        finally:
            self._release()

    def _pairing_diagnosis(self, handle: Any) -> Diagnostic:
        return diagnosis(lambda d: _lib.lc_transcript_pairing_check(handle, d))

    def pairing_check(self) -> None:
        """Checks the tool-call pairing of the transcript (SPEC S14.3): every call answered once,
        after it and before the next assistant message; no orphan result; no id twice. Raises
        :class:`InputError` at the first violation (``location`` ``transcript[i].blocks[j]``)."""
        handle = self._acquire()
        try:
            status = _lib.lc_transcript_pairing_check(handle, None)
            check(status, InputError, lambda: self._pairing_diagnosis(handle))
        finally:
            self._release()

    def _cut_args(self, pending_tail: bool, allowed: Optional[Sequence[bool]]) -> Tuple[int, Optional[bytes], int]:
        flags = CUT_PENDING_TAIL if pending_tail else 0
        if allowed is None:
            return flags, None, 0
        cuts = bytes(1 if _bool(a, "allowed[]") else 0 for a in allowed)
        return flags, cuts, len(cuts)

    def safe_cut(self, keep_last: int = 0, *, pending_tail: bool = True, allowed: Optional[Sequence[bool]] = None) -> int:
        """The largest message index ``c <= n - keep_last`` such that messages ``[0, c)`` can be
        summarised and ``[c, n)`` kept without splitting a tool call from its result (SPEC S14.4);
        0 when there is none.

        ``pending_tail`` (default): a transcript whose last assistant turn waits for tool results
        is cut before that turn instead of refused (SPEC G16.13); ``pending_tail=False`` gives
        §14's verdict. ``allowed``: n + 1 booleans, the cuts that may be taken (a conversion's
        ``cut_allowed``; an input from :meth:`Conversion.input` cuts only at its source's
        boundaries without it). Raises :class:`InputError` when the pairing check fails otherwise,
        ``LC_ERR_INVALID_ARGUMENT`` for an ``allowed`` of another length."""
        keep_last = _uint(keep_last, 64, "keep_last")
        flags, cuts, n = self._cut_args(_bool(pending_tail, "pending_tail"), allowed)
        handle = self._acquire()
        try:
            return self._safe_cut_held(handle, keep_last, flags, cuts, n)
        finally:
            self._release()

    def _safe_cut_held(self, handle: Any, keep_last: int, flags: int, cuts: Optional[bytes], n: int) -> int:
        """:meth:`safe_cut` on a held handle with checked arguments (the round holds the handle
        for its first steps)."""
        cut = c_uint64(0)
        if flags == 0 and cuts is None:  # S14.4 itself: §14's function
            status = _lib.lc_transcript_safe_cut(handle, keep_last, ctypes.byref(cut))
        else:
            status = _lib.lc_transcript_safe_cut_with(handle, keep_last, flags, cuts, n, ctypes.byref(cut))
        diagnose = (lambda: self._pairing_diagnosis(handle)) if status in _PAIRING_STATUSES else None
        check(status, InputError, diagnose)
        return int(cut.value)

    def cut_check(self, cut: int, *, pending_tail: bool = True, allowed: Optional[Sequence[bool]] = None) -> None:
        """Checks that summarising messages ``[0, cut)`` and keeping ``[cut, n)`` splits no tool
        call/result pair (SPEC S14.4; with ``pending_tail``, a pending tail's cut is at or before
        the last assistant message, G16.13; ``allowed`` as :meth:`safe_cut`). Raises
        :class:`InputError` (``LC_CUT_UNSAFE``, a pairing status, or ``LC_ERR_INVALID_ARGUMENT``
        for a cut past the last message)."""
        cut = _uint(cut, 64, "cut")
        flags, cuts, n = self._cut_args(_bool(pending_tail, "pending_tail"), allowed)
        handle = self._acquire()
        try:
            if flags == 0 and cuts is None:  # S14.4 itself: §14's function
                status = _lib.lc_transcript_cut_check(handle, cut)
            else:
                status = _lib.lc_transcript_cut_check_with(handle, cut, flags, cuts, n)
            diagnose = (lambda: self._pairing_diagnosis(handle)) if status in _PAIRING_STATUSES else None
            check(status, InputError, diagnose)
        finally:
            self._release()

    def pairing_violations(self) -> List[Violation]:
        """Every S14.3 violation in transcript order (SPEC G16.14): ``Violation(status, message,
        block, offset)`` with ``block`` ``None`` for a tool message's own ``tool_use_id`` and
        ``offset`` the id's in the document (never the id); ``[]`` for a well-paired transcript.
        The first is the one :meth:`pairing_check` raises."""
        handle = self._acquire()
        try:
            count = c_size_t(0)
            status = _lib.lc_transcript_pairing_violations(handle, None, 0, ctypes.byref(count))
            if status == Status.OK:
                return []
            items = (_native.lc_violation * count.value)()
            if status == Status.ERR_BUFFER_TOO_SMALL:
                status = _lib.lc_transcript_pairing_violations(handle, items, count.value, ctypes.byref(count))
            check(status, InputError)
            return [
                Violation(Status(v.status), int(v.message), None if v.block == NO_BLOCK else int(v.block), int(v.offset))
                for v in items[: count.value]
            ]
        finally:
            self._release()

    def _repair_bytes(self, pending_tail: bool, plan: bool) -> bytes:
        flags = CUT_PENDING_TAIL if _bool(pending_tail, "pending_tail") else 0
        call = _lib.lc_transcript_repair_plan if plan else _lib.lc_transcript_repair
        handle = self._acquire()
        try:
            needed = c_size_t(0)
            status = call(handle, flags, None, 0, ctypes.byref(needed))
            while status == Status.ERR_BUFFER_TOO_SMALL:
                buf = ctypes.create_string_buffer(needed.value)
                status = call(handle, flags, buf, needed.value, ctypes.byref(needed))
                if status == Status.OK:
                    return ctypes.string_at(buf, needed.value)
            diagnose = (lambda: self._pairing_diagnosis(handle)) if status in _PAIRING_STATUSES else None
            check(status, InputError, diagnose)
            return b""
        finally:
            self._release()

    def repair_plan(self, *, pending_tail: bool = True) -> List[Dict[str, Any]]:
        """The edits that make the transcript pass S14.3 (SPEC G16.15), in transcript order, as
        dicts: ``{"action": "drop_result", "message": M, "block": B or None}`` and ``{"action":
        "add_result", "before": I, "call_message": M, "call_block": B, "tool_use_id": ID, "text":
        T}`` (a synthetic ``is_error`` result for a call whose result was lost). Nothing is applied:
        apply them to your own messages and check again, or take :meth:`repaired_transcript`. With
        ``pending_tail`` (default) a pending tail's calls get no result: the agent still waits for
        them. Raises :class:`InputError` ``LC_PAIRING_DUPLICATE_ID`` when a call id repeats."""
        plan = json.loads(self._repair_bytes(pending_tail, True))
        if self._source is not None:
            # The source message of each edit, for hosts that edit their own list.
            for edit in plan:
                at = edit["message"] if edit["action"] == "drop_result" else edit["call_message"]
                edit["source_index"] = self._source.source_index[at]
        return cast(List[Dict[str, Any]], plan)

    def repaired_transcript(self, *, pending_tail: bool = True) -> bytes:
        """The transcript with :meth:`repair_plan` applied (SPEC G16.15): a JSON array of wire
        messages in canonical bytes that passes S14.3 (but for a pending tail, by default)."""
        return self._repair_bytes(pending_tail, False)

    def _count(self, f: Callable[[Any, Any], int]) -> int:
        handle = self._acquire()
        try:
            value = c_uint64(0)
            check(f(handle, ctypes.byref(value)), InputError)
            return int(value.value)
        finally:
            self._release()

    @property
    def message_count(self) -> int:
        """The number of transcript messages ``n`` (cuts run from 0 to ``n``)."""
        return self._count(_lib.lc_compaction_input_message_count)

    @property
    def max_summary_tokens(self) -> int:
        """The input's ``max_summary_tokens``: the summariser's output budget."""
        return self._count(_lib.lc_compaction_input_max_summary_tokens)

    @property
    def leading_systems(self) -> int:
        """The number of ``system`` messages at the start of the transcript (SPEC R15.8: kept by
        the replacement; a cut at or below it has nothing to summarise)."""
        return self._count(_lib.lc_compaction_input_leading_systems)

    # ---- the round (SPEC §15) ----------------------------------------------------------------

    def validate_reply(
        self,
        text: Document,
        *,
        output_tokens: int,
        stop: Optional[str] = None,
        max_reply_bytes: int,
        trim: bool = False,
        unfence: bool = False,
    ) -> str:
        """Validates the summariser's reply as it arrived, the XML text the instructions ask for
        with no JSON envelope (SPEC R15.1-R15.7), and returns the summary: the reply without what
        cleanup removed, the exact text of the replacement user message.

        ``output_tokens``: the output usage the provider reported (0: none); ``stop``: how the
        call ended, ``"end"`` (the model finished), ``"length"`` (the provider cut it at its output
        limit: a reply that is then not a valid summary is ``LC_REPLY_TRUNCATED``) or ``None`` (not
        reported); ``max_reply_bytes``: the byte limit of the reply as it arrived (below
        ``SMALLEST_SUMMARY_LEN`` no reply can meet it); ``trim``: remove White_Space around the
        reply; ``unfence``: remove one Markdown code fence around the whole reply. Raises
        :class:`OutputError`, whose diagnosis also says what cleanup removed (``removed``,
        ``removed_before``, ``removed_after``).
        """
        ptr, n = _buffer(text, "text")
        args = _reply_args(output_tokens, stop, max_reply_bytes, trim, unfence)
        handle = self._acquire()
        try:
            # R15.6: the summary is never longer than the reply, so one call suffices.
            buf = ctypes.create_string_buffer(n) if n else None
            written = c_size_t(0)
            status = _lib.lc_compaction_reply_validate(handle, ptr, n, *args, buf, n, ctypes.byref(written))
            check(status, OutputError, lambda: self._reply_diagnosis(handle, ptr, n, args)[0])
            return str(memoryview(buf)[: written.value], "utf-8") if buf is not None else ""
        finally:
            self._release()

    def _reply_diagnosis(self, handle: Any, ptr: Any, n: int, args: Tuple[int, int, int, int]) -> Tuple[Diagnostic, Optional[bytes]]:
        buf = ctypes.create_string_buffer(n) if n else None
        written = c_size_t(0)
        found = diagnosis(
            lambda d: _lib.lc_compaction_reply_diagnose(handle, ptr, n, *args, buf, n, ctypes.byref(written), d)
        )
        summary = ctypes.string_at(buf, written.value) if found.ok and buf is not None else None
        return found, summary

    def _check_reply(
        self, text: Document, output_tokens: int, stop: Optional[str], max_reply_bytes: int, trim: bool, unfence: bool
    ) -> Tuple[Diagnostic, Optional[bytes], int]:
        """For the round: one ``lc_compaction_reply_diagnose`` call, which reports what cleanup
        removed on success too. Returns the diagnosis, the summary's bytes (``None`` unless it is
        valid) and the reply's length in bytes."""
        found, summary, n, _ = self._check_reply_and_build(text, output_tokens, stop, max_reply_bytes, trim, unfence, None)
        return found, summary, n

    def _check_reply_and_build(
        self,
        text: Document,
        output_tokens: int,
        stop: Optional[str],
        max_reply_bytes: int,
        trim: bool,
        unfence: bool,
        cut: Optional[int],
    ) -> Tuple[Diagnostic, Optional[bytes], int, Union[bytes, LoopcompactError, None]]:
        """:meth:`_check_reply`, then, when the summary is valid and ``cut`` is given, the
        replacement for that cut (or the error that refused it), with the handle held once."""
        ptr, n = _buffer(text, "text")
        args = _reply_args(output_tokens, stop, max_reply_bytes, trim, unfence)
        handle = self._acquire()
        try:
            found, summary = self._reply_diagnosis(handle, ptr, n, args)
            if summary is None or cut is None:
                return found, summary, n, None
            try:
                built: Union[bytes, LoopcompactError] = self._build_held(handle, cut, summary, len(summary))
            except LoopcompactError as error:
                built = error
            return found, summary, n, built
        finally:
            self._release()

    def _round_start(self, keep_last: int, pending_tail: bool, max_input_bytes: int) -> Tuple[int, str, int, int]:
        """For the round's first step (SPEC R15.12 step 1), with the handle held once: the safe cut
        (``allowed`` as the input's own), the head fitted under ``max_input_bytes`` as text with
        its length in bytes (:meth:`_head_text_held`) and ``max_summary_tokens``. Raises
        :class:`InputError` as :meth:`safe_cut` and :meth:`encode_head_within` do."""
        handle = self._acquire()
        try:
            cut = self._safe_cut_held(handle, keep_last, CUT_PENDING_TAIL if pending_tail else 0, None, 0)
            head, head_bytes = self._head_text_held(handle, cut, max_input_bytes)
            value = c_uint64(0)
            check(_lib.lc_compaction_input_max_summary_tokens(handle, ctypes.byref(value)), InputError)
            return cut, head, head_bytes, int(value.value)
        finally:
            self._release()

    def _head_text(self, cut: int, max_bytes: int) -> Tuple[str, int]:
        """:meth:`encode_head_within` as the round sends it: :meth:`_head_text_held`."""
        handle = self._acquire()
        try:
            return self._head_text_held(handle, cut, max_bytes)
        finally:
            self._release()

    def _head_text_held(self, handle: Any, cut: int, max_bytes: int) -> Tuple[str, int]:
        """The head as the text of the request's first turn and its length in bytes, decoded
        straight from the library's buffer: the round never needs the bytes, so a 1 MiB head
        is not copied once more as ``bytes`` first."""
        status, buf, n = _filled(
            lambda buf, cap, out: _lib.lc_compaction_input_encode_head_within(handle, cut, max_bytes, buf, cap, out),
            min(max_bytes, _output_guess(self._size)),
        )
        check(status, InputError)
        return (str(memoryview(buf)[:n], "utf-8") if buf is not None else ""), n

    def encode_head_within(self, cut: int, max_bytes: int) -> bytes:
        """What the summariser is sent for a cut (SPEC R15.8): this input with only messages
        ``[0, cut)`` as its transcript, in canonical bytes, fitted under ``max_bytes`` as
        :meth:`encode_within` fits a whole input (old tool results stubbed, oldest first).

        Raises :class:`InputError`: ``LC_REPLACEMENT_EMPTY_HEAD`` when only leading system
        messages (or nothing) come before the cut, ``LC_INPUT_TOO_LARGE`` when nothing fits,
        ``LC_ERR_INVALID_ARGUMENT`` for a cut past the last message.
        """
        cut = _uint(cut, 64, "cut")
        max_bytes = _uint(max_bytes, 64, "max_bytes")
        handle = self._acquire()
        try:
            return self._head_held(handle, cut, max_bytes, self._size)
        finally:
            self._release()

    @staticmethod
    def _head_held(handle: Any, cut: int, max_bytes: int, size: int) -> bytes:
        """:meth:`encode_head_within` on a held handle with checked arguments; ``size``: the
        input's (the head is at most about that long, and at most ``max_bytes``)."""
        status, head = _written(
            lambda buf, cap, out: _lib.lc_compaction_input_encode_head_within(handle, cut, max_bytes, buf, cap, out),
            min(max_bytes, _output_guess(size)),
        )
        check(status, InputError)
        return head

    def build_replacement(self, cut: int, summary: Document) -> bytes:
        """The transcript that replaces the history once ``summary`` was accepted (SPEC R15.9), as
        a JSON array of wire messages in canonical bytes: the leading system messages, one user
        message whose first block is a text block holding the summary (followed by the blocks of
        message ``cut`` when that is a user message, so two user messages never meet), then
        messages ``[cut, n)`` unchanged.

        Raises :class:`ReplacementError` (SPEC R15.10): ``LC_ERR_INVALID_ARGUMENT`` (a cut past the
        last message), ``LC_REPLACEMENT_EMPTY_HEAD``, the pairing status or ``LC_CUT_UNSAFE``,
        ``LC_REPLACEMENT_SUMMARY`` (a summary that does not validate: see :func:`validate_summary`).
        """
        cut = _uint(cut, 64, "cut")
        ptr, n = _buffer(summary, "summary")
        handle = self._acquire()
        try:
            return self._build_held(handle, cut, ptr, n)
        finally:
            self._release()

    def _build_held(self, handle: Any, cut: int, ptr: Any, n: int) -> bytes:
        """:meth:`build_replacement` on a held handle with checked arguments."""
        # The replacement is at most the kept messages and the summary, escaped (up to six bytes
        # per character of the summary's markup, E7.6).
        status, replacement = _written(
            lambda buf, cap, out: _lib.lc_replacement_build(handle, cut, ptr, n, buf, cap, out),
            _output_guess(self._size + 6 * n),
        )
        diagnose = (lambda: self._pairing_diagnosis(handle)) if status in _PAIRING_STATUSES else None
        check(status, ReplacementError, diagnose)
        return replacement

    def verify_replacement(self, cut: int, rebuilt: Document) -> None:
        """Checks a transcript the host rebuilt itself (a JSON array of wire messages, any key
        order, whitespace and spelling) against :meth:`build_replacement`'s rule for this cut
        (SPEC R15.11): leading system messages and kept tail unchanged in canonical encoding
        (thinking, signatures and provider state included), one summary message that validates,
        no user message after it.

        Raises :class:`ReplacementError` at the first difference: ``location``
        ``transcript[i].blocks[j]`` (or ``transcript[i]``, ``transcript[i].role``,
        ``transcript[i].blocks[0].text``) of ``rebuilt``, never its bytes.
        """
        cut = _uint(cut, 64, "cut")
        ptr, n = _buffer(rebuilt, "rebuilt")
        handle = self._acquire()
        try:
            status = _lib.lc_replacement_verify(handle, cut, ptr, n, None)
            check(
                status,
                ReplacementError,
                lambda: diagnosis(lambda d: _lib.lc_replacement_verify(handle, cut, ptr, n, d)),
            )
        finally:
            self._release()


# ---- policies ------------------------------------------------------------------------------------

def validate_compaction_policy(json: Document, counter_quality: int) -> None:
    """Validates a compaction policy (SPEC §8.1) for a token counter of quality
    ``counter_quality`` (``CounterQuality``; other values count as unknown). Raises
    :class:`PolicyError` with ``location`` the failing field (``RearmBelow``)."""
    ptr, n = _buffer(json, "json")
    q = _int32(counter_quality, "counter_quality")
    check(
        _lib.lc_compaction_policy_validate(ptr, n, q),
        PolicyError,
        lambda: diagnosis(lambda d: _lib.lc_compaction_policy_diagnose(ptr, n, q, d)),
    )


def validate_context_observation(json: Document, counter_quality: int) -> None:
    """Validates a context observation policy (SPEC §8.2); raises :class:`PolicyError`."""
    ptr, n = _buffer(json, "json")
    q = _int32(counter_quality, "counter_quality")
    check(
        _lib.lc_context_observation_validate(ptr, n, q),
        PolicyError,
        lambda: diagnosis(lambda d: _lib.lc_context_observation_diagnose(ptr, n, q, d)),
    )


def validate_context_config(json: Document) -> None:
    """Validates a context configuration (SPEC §8.3); raises :class:`ContextError` with
    ``location`` the option, capability or nested field (``Compaction.RearmBelow``)."""
    ptr, n = _buffer(json, "json")
    check(
        _lib.lc_context_config_validate(ptr, n),
        ContextError,
        lambda: diagnosis(lambda d: _lib.lc_context_config_diagnose(ptr, n, d)),
    )


# ---- limits and the loop guard -------------------------------------------------------------------

class ResolvedLimits(NamedTuple):
    """The input limits resolved by :func:`resolve_context_limits` (SPEC L9.1)."""

    reserved_output: int
    raw_input_limit: int
    input_limit: int


def resolve_context_limits(
    window_tokens: int,
    max_input_tokens: int,
    max_output_tokens: int,
    reserved_output: int,
    safety_margin: int,
) -> ResolvedLimits:
    """Resolves a model's input limit (SPEC L9.1); 0 means "not known" for the three limits.
    Raises :class:`ContextError` ``LC_LIMITS_UNKNOWN``."""
    limits = lc_context_limits(
        _uint(window_tokens, 64, "window_tokens"),
        _uint(max_input_tokens, 64, "max_input_tokens"),
        _uint(max_output_tokens, 64, "max_output_tokens"),
    )
    out = lc_resolved_limits()
    status = _lib.lc_context_limits_resolve(
        limits, _uint(reserved_output, 64, "reserved_output"), _uint(safety_margin, 64, "safety_margin"), ctypes.byref(out)
    )
    check(status, ContextError)
    return ResolvedLimits(int(out.reserved_output), int(out.raw_input_limit), int(out.input_limit))


def occupancy_basis_points(used: int, limit: int) -> int:
    """``used`` tokens against ``limit`` in basis points, 0..10000 (SPEC L9.2)."""
    out = c_uint16()
    check(_lib.lc_occupancy_basis_points(_uint(used, 64, "used"), _uint(limit, 64, "limit"), ctypes.byref(out)), ContextError)
    return int(out.value)


def pressure_level(previous_level: int, occupancy: int, automatic: bool, compact_at: int, rearm_below: int) -> Pressure:
    """The pressure level (SPEC L9.3): ``Pressure.NORMAL``, ``COMPACT`` or ``HARD_LIMIT``."""
    level = _lib.lc_pressure_level(
        _int32(previous_level, "previous_level"),
        _uint(occupancy, 16, "occupancy"),
        bool(automatic),
        _uint(compact_at, 16, "compact_at"),
        _uint(rearm_below, 16, "rearm_below"),
    )
    return Pressure(level)


def replacement_check(input_tokens: int, input_limit: int) -> None:
    """Raises :class:`ContextError` ``LC_SUMMARY_TOO_LARGE`` when the rebuilt request reaches its
    input limit (SPEC L9.4)."""
    status = _lib.lc_replacement_check(_uint(input_tokens, 64, "input_tokens"), _uint(input_limit, 64, "input_limit"))
    check(status, ContextError)


def compaction_progress_check(post_input_tokens: int, input_limit: int, rearm_below: int) -> None:
    """The loop guard's first half (SPEC S14.5): the occupancy after the replacement must be below
    ``rearm_below``. Raises :class:`ContextError` ``LC_COMPACTION_NO_PROGRESS``."""
    status = _lib.lc_compaction_progress_check(
        _uint(post_input_tokens, 64, "post_input_tokens"),
        _uint(input_limit, 64, "input_limit"),
        _uint(rearm_below, 16, "rearm_below"),
    )
    check(status, ContextError)


def compaction_threshold_check(policy_json: Document, input_limit: int, fixed_tokens: int) -> None:
    """The loop guard's second half (SPEC S14.6): ``fixed_tokens`` plus the policy's
    ``MaxSummaryTokens`` must stay below its ``RearmBelow`` of ``input_limit``. Raises
    :class:`PolicyError` (``LC_COMPACTION_THRESHOLD_UNREACHABLE``, ``LC_POLICY_WIRE``)."""
    ptr, n = _buffer(policy_json, "policy_json")
    status = _lib.lc_compaction_threshold_check(
        ptr, n, _uint(input_limit, 64, "input_limit"), _uint(fixed_tokens, 64, "fixed_tokens")
    )
    check(status, PolicyError)


# ---- fingerprint ---------------------------------------------------------------------------------

def request_fingerprint(json: Document) -> bytes:
    """The request fingerprint (SPEC §10): the 32 bytes of SHA-256 of the canonical request.
    Raises :class:`FingerprintError` with ``location`` the failing field (``Model.BaseURL``)."""
    ptr, n = _buffer(json, "json")
    out = ctypes.create_string_buffer(FINGERPRINT_LEN)

    def diagnose() -> Diagnostic:
        scratch = ctypes.create_string_buffer(FINGERPRINT_LEN)
        return diagnosis(lambda d: _lib.lc_request_fingerprint_diagnose(ptr, n, scratch, d))

    check(_lib.lc_request_fingerprint(ptr, n, out), FingerprintError, diagnose)
    return out.raw


def request_fingerprint_hex(json: Document) -> str:
    """:func:`request_fingerprint` as 64 lower-case hex digits, as compaction inputs carry it."""
    return request_fingerprint(json).hex()


from ._round import (  # noqa: E402 - the round is written over Input, defined above
    Attempt,
    ChatMessage,
    Compacted,
    KeepHistory,
    STRUCTURED_NOTE,
    Removed,
    SummaryReply,
    SummaryReplyStream,
    SummaryRequest,
    SummaryUsage,
    acompact,
    compact,
)

from ._convert import (  # noqa: E402 - the converters make Inputs
    Conversion,
    Loss,
    from_anthropic,
    from_gemini,
    from_json,
    from_langchain,
    from_openai_chat,
    from_openai_responses,
    loss_name,
)

# Tracebacks and reprs name the public module, not the private one each class lives in.
for _public in (
    Attempt,
    Compacted,
    ContextError,
    Conversion,
    ConversionError,
    Diagnostic,
    FingerprintError,
    InputError,
    KeepHistory,
    LoopcompactError,
    Loss,
    OutputError,
    PolicyError,
    Removed,
    ReplacementError,
    SummaryError,
    SummaryReply,
    SummaryReplyStream,
    SummaryRequest,
    SummaryStream,
    SummaryUsage,
):
    _public.__module__ = __name__
