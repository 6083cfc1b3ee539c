"""The converters (SPEC §16): the message list a host holds in, the wire transcript out, with the
source index of each wire message, the cuts that fall on source boundaries and a loss report.

One implementation, the library's ``lc_transcript_convert``: this module only serialises the
host's objects into the JSON the format's SDK would send, calls it, and reads the result.

Serialisation, per format, as each SDK writes its own request body:

- OpenAI (Chat, Responses): dicts (the SDK's TypedDicts) as they are; pydantic models (the
  response objects users append, ``ChatCompletionMessage``, ``response.output`` items) as
  openai-python's request transform dumps them: ``model_dump(mode="json", exclude_unset=True)``
  without the fields of ``__api_exclude__``.
- Anthropic: the same, ``by_alias=True`` (anthropic-python's ``openapi_model_dump``).
- Gemini: google-genai's ``types.Content`` / ``types.Part`` as
  ``model_dump(mode="json", exclude_none=True)`` (snake_case field names, which the Gemini API
  and the converter accept beside camelCase; bytes as URL-safe base64, as the SDK posts them),
  ``bytes`` anywhere as URL-safe base64 too.
- LangChain: each ``BaseMessage`` as ``langchain_core.messages.message_to_dict`` writes it (the
  ``messages_to_dict`` form); dicts already in a serialised form (``messages_to_dict``, ``dumpd``,
  ``model_dump``) as they are. langchain-core is imported only when a LangChain object is given.

Anything else that is not JSON data (``dict``, ``list``, ``tuple``, ``str``, ``int``, ``float``,
``bool``, ``None``) is a ``TypeError`` naming where it is; a structure that contains itself, or
a float that is NaN or infinite, is a :class:`ConversionError` (``LC_CONVERT_SHAPE``).
"""

from __future__ import annotations

import base64
import ctypes
import json
import re
import sys
from ctypes import POINTER, c_size_t, c_uint64
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union, cast

from . import _native
from ._constants import CONVERT_STRICT, LOCATION_CAP, SOURCE_SYSTEM, Format, LossCode, Status
from ._errors import ConversionError, Diagnostic, InputError, _int32, check, status_class
from ._handle import Owned
from ._native import lc_compaction_input, lc_conversion, lc_diagnostic, lc_loss
from ._sourcemap import SourceMap, rebuild
from ._text import utf8

if TYPE_CHECKING:
    from . import Document, Input

_lib = _native.lib

#: How a format turns an object that is not JSON data into JSON data (TypeError: not its object).
Dump = Callable[[Any], Any]


# ---- the wire's roles ------------------------------------------------------------------------------

#: What the walk of a deep transcript stops at: a bracket, or a string's opening quote.
_STRUCTURE = re.compile(rb'[\[\]{}"]')
#: The rest of a string after its opening quote (escapes skipped), through its closing quote.
_STRING_REST = re.compile(rb'(?:[^"\\]|\\.)*"', re.DOTALL)
#: A wire message as the library writes it: its role first.
_ROLE_FIRST = re.compile(rb'\{"role":"([a-z]+)"')


def _wire_roles(transcript: bytes) -> Tuple[str, ...]:
    """The role of each message of a converted transcript. ``json.loads`` reads nearly every
    transcript; one that nests deeper than Python's recursion limit (a tool input of ~1000 levels,
    which the wire allows up to J5.2's limit) is walked instead: the library writes each message
    with its role first, and brackets are counted outside strings to find the messages."""
    if not transcript:
        return ()
    try:
        return tuple(str(m["role"]) for m in json.loads(transcript))
    except RecursionError:
        pass
    roles: List[str] = []
    depth = 0
    at = 0
    while (m := _STRUCTURE.search(transcript, at)) is not None:
        c = transcript[m.start()]
        if c == 0x22:  # a string: past its closing quote
            rest = _STRING_REST.match(transcript, m.end())
            at = rest.end() if rest is not None else len(transcript)
            continue
        if c in (0x5B, 0x7B):  # [ or {
            depth += 1
            role = _ROLE_FIRST.match(transcript, m.start()) if depth == 2 else None
            if role is not None:
                roles.append(role.group(1).decode("ascii"))
        else:
            depth -= 1
        at = m.end()
    return tuple(roles)


# ---- serialisation ---------------------------------------------------------------------------------

class _NotData(Exception):
    """A value the format does not take (raised by a dump; becomes the TypeError)."""


def _pydantic_model(value: object) -> bool:
    # The SDKs' typed objects are pydantic models; pydantic is loaded when one exists.
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(value, pydantic.BaseModel)


def _dump_openai(value: Any) -> Any:
    if _pydantic_model(value):
        # warnings=False: a parse helper's `parsed` field (any pydantic value) warns when dumped.
        return value.model_dump(
            mode="json", exclude_unset=True, exclude=getattr(value, "__api_exclude__", None), warnings=False
        )
    raise _NotData


def _dump_anthropic(value: Any) -> Any:
    if _pydantic_model(value):
        return value.model_dump(
            mode="json", exclude_unset=True, by_alias=True, exclude=getattr(value, "__api_exclude__", None)
        )
    raise _NotData


def _dump_gemini(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.urlsafe_b64encode(value).decode("ascii")
    if _pydantic_model(value):
        return value.model_dump(mode="json", exclude_none=True)
    raise _NotData


#: Members of a LangChain message the converter only asks whether they hold something (§16.6):
#: an artifact, the provider's metadata, the extra keyword arguments. They hold any Python object
#: (bytes, datetimes, arrays): a value JSON cannot write stands in as its type's name.
_LANGCHAIN_UNREAD = ("artifact", "response_metadata", "additional_kwargs")


def _as_json(value: Any) -> Any:
    """``value`` with every part JSON cannot write replaced by ``"<type name>"`` (never its bytes)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else "<float>"
    if isinstance(value, dict):
        return {k if isinstance(k, str) else f"<{type(k).__name__}>": _as_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_json(v) for v in value]
    return f"<{type(value).__name__}>"


def _dump_langchain(value: Any) -> Any:
    if "langchain_core" in sys.modules:
        from langchain_core.messages import BaseMessage, message_to_dict

        if isinstance(value, BaseMessage):
            dumped = message_to_dict(value)
            data = dumped.get("data")
            if isinstance(data, dict):
                for key in _LANGCHAIN_UNREAD:
                    if data.get(key) is not None:
                        try:
                            data[key] = _as_json(data[key])
                        except RecursionError:
                            data[key] = "<nested deeper than Python's recursion limit>"
            return dumped
    raise _NotData


_DUMPS: Dict[Format, Dump] = {
    Format.OPENAI_CHAT: _dump_openai,
    Format.OPENAI_RESPONSES: _dump_openai,
    Format.ANTHROPIC: _dump_anthropic,
    Format.GEMINI: _dump_gemini,
    Format.LANGCHAIN: _dump_langchain,
}

#: The separators of each format's SDK (json.dumps's ``separators``): openai and anthropic write
#: compact JSON, google-genai json.dumps's default. The text of a JSON value that the wire keeps as
#: a text block (a Gemini function response) is the source's, spaces included, so a conversion
#: of the objects gives the transcript of the body the SDK posts.
_SEPARATORS: Dict[Format, Tuple[str, str]] = {Format.GEMINI: (", ", ": ")}
_COMPACT = (",", ":")

#: What each format takes besides JSON data, for the TypeError.
_TAKES: Dict[Format, str] = {
    Format.OPENAI_CHAT: "the openai SDK's objects",
    Format.OPENAI_RESPONSES: "the openai SDK's objects",
    Format.ANTHROPIC: "the anthropic SDK's objects",
    Format.GEMINI: "google-genai's types and bytes",
    Format.LANGCHAIN: "LangChain messages",
}

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}\Z")


def _step(path: str, key: object, index: int) -> str:
    """``path`` one level down: ``[3]`` for a list item; ``.name`` for a key that is a short ASCII
    identifier, else ``{key N}`` (its place): a location never carries other bytes of the input."""
    name = key if isinstance(key, str) and _IDENTIFIER.match(key) else f"{{key {index}}}"
    return f"{path}.{name}" if path else name


def _location(path: str) -> str:
    # As lc_diagnostic.location holds it: at most LOCATION_CAP - 1 bytes (ASCII here).
    return path if len(path) < LOCATION_CAP else path[: LOCATION_CAP - 4] + "..."


def _shape_error(path: str, expected: str) -> ConversionError:
    status = int(Status.CONVERT_SHAPE)
    return ConversionError(
        Diagnostic(status=status, status_class=status_class(status), rule="G16.8", expected=expected, location=_location(path))
    )


def _scalar(value: object) -> Optional[str]:
    """The JSON text of a scalar exactly as json.dumps writes it, or None for a container."""
    if isinstance(value, (str, int, float)) or value is None:  # bool is an int
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    return None


def _key_text(key: object) -> Optional[str]:
    """A dict key as json.dumps writes it (str, and int, float, bool, None as their JSON text)."""
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return json.dumps(key)
    if isinstance(key, (int, float)):
        text = json.dumps(key, allow_nan=False)
        return text
    return None


def _not_data(path: str, value: object, fmt: Format) -> TypeError:
    kind = type(value)
    return TypeError(
        f"{_location(path) or 'the source'} is a {kind.__module__}.{kind.__qualname__}: {fmt.name.lower()} takes "
        f"JSON data (dict, list, tuple, str, int, float, bool, None) and {_TAKES[fmt]}"
    )


def _encode_plain(value: Any, dump: Dump, root: str, fmt: Format, separators: Tuple[str, str]) -> str:
    """The plain encoder: the text json.dumps writes in :func:`_encode`, written without recursion
    (any depth: the library limits it, J5.2) and saying where a value is not JSON data."""
    out: List[str] = []
    # The containers being written: id (for cycles), their (path, key, value) members, closer.
    stack: List[Tuple[int, Iterator[Tuple[str, Optional[str], Any]], str]] = []
    active = set()
    pending: List[Tuple[str, Optional[str], Any]] = [(root, None, value)]
    while pending or stack:
        if not pending:
            ident, members, closer = stack[-1]
            member = next(members, None)
            if member is None:
                stack.pop()
                active.discard(ident)
                out.append(closer)
                continue
            if out[-1] not in ("[", "{"):
                out.append(separators[0])
            pending.append(member)
        path, key, item = pending.pop()
        if key is not None:
            out.append(json.dumps(key, ensure_ascii=False) + separators[1])
        while True:
            try:
                text = _scalar(item)
            except ValueError:
                raise _shape_error(path, "a finite number") from None
            if text is not None:
                out.append(text)
                break
            if isinstance(item, (dict, list, tuple)):
                if id(item) in active:
                    raise _shape_error(path, "JSON data that does not contain itself")
                active.add(id(item))
                if isinstance(item, dict):
                    out.append("{")
                    stack.append((id(item), _members(path, item), "}"))
                else:
                    out.append("[")
                    stack.append((id(item), _items(path, item), "]"))
                break
            try:
                item = dump(item)
            except _NotData:
                raise _not_data(path, item, fmt) from None
    return "".join(out)


def _items(path: str, array: Sequence[Any]) -> Iterator[Tuple[str, Optional[str], Any]]:
    for i, v in enumerate(array):
        yield f"{path}[{i}]", None, v


def _members(path: str, obj: Dict[Any, Any]) -> Iterator[Tuple[str, Optional[str], Any]]:
    for i, (k, v) in enumerate(obj.items()):
        where = _step(path, k, i)
        try:
            text = _key_text(k)
        except ValueError:
            raise _shape_error(where, "a finite number") from None
        if text is None:
            raise TypeError(f"{_location(where)}: a key must be a str, not a {type(k).__qualname__}")
        yield where, text, v


def _encode(value: Any, dump: Dump, root: str, fmt: Format) -> bytes:
    """``value`` as UTF-8 JSON, typed objects written by ``dump``: json.dumps (its C encoder) when
    it can, else the plain encoder, which writes any depth and says where a value is not data."""

    def default(obj: Any) -> Any:
        try:
            return dump(obj)
        except _NotData:
            raise TypeError from None

    separators = _SEPARATORS.get(fmt, _COMPACT)
    try:
        text = json.dumps(value, ensure_ascii=False, separators=separators, allow_nan=False, default=default)
    except (TypeError, ValueError, RecursionError):
        # The exception may carry input text (json's own messages quote values): it is dropped.
        text = None
    if text is None:
        text = _encode_plain(value, dump, root, fmt, separators)
    return utf8(text)


def _sequence(value: object, what: str, fmt: Format) -> Sequence[Any]:
    if isinstance(value, (list, tuple)):
        return value
    raise TypeError(f"{what} must be a list of messages (dicts or {_TAKES[fmt]}), not a {type(value).__name__}")


# ---- the conversion --------------------------------------------------------------------------------

class Loss(NamedTuple):
    """One loss of a conversion: the index of the source message (or item) it was in, ``None``
    for the system parameter, and its :class:`LossCode` (an ``int`` for a code a newer library
    added); ``name`` is its stable name (``"dropped_cache_control"``)."""

    source_index: Optional[int]
    code: LossCode

    @property
    def name(self) -> str:
        return loss_name(self.code)


def loss_name(code: int) -> str:
    """The stable name of a loss code, e.g. ``"dropped_cache_control"``; ``""`` for a value that is
    not one (``lc_loss_name``)."""
    name: Optional[bytes] = _lib.lc_loss_name(_int32(code, "code"))
    return name.decode("utf-8") if name else ""


def _index(value: int) -> Optional[int]:
    return None if value == SOURCE_SYSTEM else int(value)


def _loss_code(value: int) -> LossCode:
    try:
        return LossCode(value)
    except ValueError:  # a code a newer library (LOOPCOMPACT_LIB) added
        return cast(LossCode, int(value))


class Conversion(Owned):
    """A converted transcript (``lc_conversion``): made by :func:`from_openai_chat`,
    :func:`from_openai_responses`, :func:`from_anthropic`, :func:`from_gemini`,
    :func:`from_langchain` or :func:`from_json`.

    ``transcript``: the wire transcript (a JSON array of messages, canonical bytes);
    ``source_index``: for each wire message the index of its source message (``None`` for the
    system parameter: Anthropic ``system``, Responses ``instructions``, Gemini
    ``system_instruction``); ``cut_allowed``: for each cut ``0..n``, whether it falls on a source
    boundary; ``losses``: what the wire could not carry; :meth:`source_cut`; :meth:`input`.

    Use it as a context manager or call :meth:`close`; the handle is also freed when the object is
    garbage-collected. Immutable and shareable between threads. What was read from it stays
    readable after ``close()``; an :class:`Input` made by :meth:`input` does not need it.
    """

    def __init__(self, handle: Any, format: Format, source_len: int) -> None:
        super().__init__(handle)
        #: The source format.
        self.format = format
        #: The number of source messages (or items) converted (``lc_conversion_source_len``).
        self.source_len = source_len
        self._transcript: Optional[bytes] = None
        self._source_index: Optional[Tuple[Optional[int], ...]] = None
        self._cut_allowed: Optional[Tuple[bool, ...]] = None
        self._losses: Optional[Tuple[Loss, ...]] = None
        self._map: Optional[SourceMap] = None

    @staticmethod
    def _free(handle: Any) -> None:
        _lib.lc_conversion_free(handle)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<loopcompact.Conversion {self.format.name.lower()} {state}>"

    def _read(self, call: Callable[[Any, Any, int, Any], int], element: Any) -> Tuple[int, Any]:
        """The two-call pattern over an array of ``element``: (count, ctypes array)."""
        handle = self._acquire()
        try:
            needed = c_size_t(0)
            status = call(handle, None, 0, ctypes.byref(needed))
            while status == Status.ERR_BUFFER_TOO_SMALL:
                cap = needed.value
                out = (element * cap)()
                status = call(handle, out, cap, ctypes.byref(needed))
                if status == Status.OK:
                    return needed.value, out
            check(status, ConversionError)
            return 0, (element * 0)()
        finally:
            self._release()

    def _transcript_len(self) -> int:
        """The transcript's length in bytes (its size query only)."""
        if self._transcript is not None:
            return len(self._transcript)
        handle = self._acquire()
        try:
            needed = c_size_t(0)
            status = _lib.lc_conversion_transcript(handle, None, 0, ctypes.byref(needed))
        finally:
            self._release()
        return needed.value if status in (Status.OK, Status.ERR_BUFFER_TOO_SMALL) else 0

    @property
    def transcript(self) -> bytes:
        """The wire transcript: a JSON array of wire messages, canonical bytes (SPEC E7)."""
        if self._transcript is None:
            n, buf = self._read(lambda h, b, c, o: _lib.lc_conversion_transcript(h, b, c, o), ctypes.c_char)
            self._transcript = ctypes.string_at(buf, n) if n else b""
        return self._transcript

    @property
    def source_index(self) -> Tuple[Optional[int], ...]:
        """For each wire message, the index of the source message (or item) it came from; ``None``
        for a message made from the system parameter (SPEC G16.2)."""
        if self._source_index is None:
            n, out = self._read(lambda h, b, c, o: _lib.lc_conversion_source_index(h, b, c, o), c_uint64)
            self._source_index = tuple(_index(out[i]) for i in range(n))
        return self._source_index

    @property
    def cut_allowed(self) -> Tuple[bool, ...]:
        """For each cut ``c`` in ``0..n`` (n wire messages): summarising wire messages ``[0, c)``
        splits no source message (and passes no compaction item the wire cannot carry)."""
        if self._cut_allowed is None:
            n, out = self._read(lambda h, b, c, o: _lib.lc_conversion_cut_allowed(h, b, c, o), ctypes.c_char)
            self._cut_allowed = tuple(b != 0 for b in bytes(out)[:n])
        return self._cut_allowed

    @property
    def losses(self) -> Tuple[Loss, ...]:
        """What the wire could not carry, in source order (SPEC §16's loss table)."""
        if self._losses is None:
            n, out = self._read(lambda h, b, c, o: _lib.lc_conversion_losses(h, b, c, o), lc_loss)
            self._losses = tuple(Loss(_index(out[i].source_index), _loss_code(out[i].code)) for i in range(n))
        return self._losses

    def source_cut(self, wire_cut: int) -> int:
        """The source cut of an allowed wire cut (SPEC G16.2): summarising wire messages
        ``[0, wire_cut)`` summarises source messages ``source[:result]``. Raises
        :class:`ConversionError` ``LC_CUT_UNSAFE`` for a cut that splits a source message (or
        passes a compaction item), ``LC_ERR_INVALID_ARGUMENT`` for one past the last message."""
        wire_cut = _u64(wire_cut, "wire_cut")
        handle = self._acquire()
        try:
            out = c_uint64(0)
            check(_lib.lc_conversion_source_cut(handle, wire_cut, ctypes.byref(out)), ConversionError)
            return int(out.value)
        finally:
            self._release()

    def _source_map(self) -> SourceMap:
        if self._map is None:
            allowed = self.cut_allowed
            # One lc_conversion_source_cut per allowed cut, under one hold of the handle.
            cuts: List[Optional[int]] = []
            handle = self._acquire()
            try:
                out = c_uint64(0)
                ref = ctypes.byref(out)
                source_cut = _lib.lc_conversion_source_cut
                for c, ok in enumerate(allowed):
                    cuts.append(int(out.value) if ok and source_cut(handle, c, ref) == Status.OK else None)
            finally:
                self._release()
            roles = _wire_roles(self.transcript)
            self._map = SourceMap(self.format, self.source_len, self.source_index, roles, tuple(cuts))
        return self._map

    def input(
        self,
        *,
        provider: str,
        model: str,
        max_summary_tokens: int,
        revision: int,
        fingerprint: Union[bytes, str, None] = None,
    ) -> "Input":
        """A compaction input around this transcript (SPEC G16.10, ``lc_conversion_input``), for
        :func:`compact`: ``provider`` and ``model`` name the summariser's request;
        ``max_summary_tokens`` its output budget; ``revision`` the basis revision (your compaction
        count plus one); the basis event id is minted from the transcript. ``fingerprint``: the
        request fingerprint (32 bytes, or 64 hex digits), or ``None`` to mint it from the
        provider, model and transcript.

        The input cuts only at the source's boundaries (``cut_allowed``), and remembers this
        conversion: a :class:`Compacted` of its round has :meth:`Compacted.messages`. Raises
        :class:`InputError` (``LC_INPUT_MODEL`` for an empty provider or model,
        ``LC_INPUT_BASIS`` for revision 0, ``LC_INPUT_MAX_SUMMARY_TOKENS``,
        ``LC_INPUT_REQUEST_FINGERPRINT``, ``LC_INPUT_TRANSCRIPT`` for no message)."""
        from . import Input

        if not isinstance(provider, str) or not isinstance(model, str):
            raise TypeError("provider and model must be str")
        provider_bytes, model_bytes = utf8(provider), utf8(model)
        digest = _fingerprint(fingerprint)
        tokens = _u64(max_summary_tokens, "max_summary_tokens")
        rev = _u64(revision, "revision")
        source_map = self._source_map()
        handle = self._acquire()
        try:
            out = POINTER(lc_compaction_input)()
            status = _lib.lc_conversion_input(
                handle, provider_bytes, len(provider_bytes), model_bytes, len(model_bytes), tokens, rev, digest,
                ctypes.byref(out),
            )
            check(status, InputError)
        finally:
            self._release()
        return Input._adopt(out, source_map, self._transcript_len())

    def messages(self, cut: int, summary: str, source: Any) -> List[Any]:
        """The new message list for a summary of wire messages ``[0, cut)`` (an allowed cut), as
        :meth:`Compacted.messages` builds it; for hosts that run the round's steps themselves."""
        if not isinstance(summary, str):
            raise TypeError(f"summary must be a str, not {type(summary).__name__}")
        return rebuild(self._source_map(), _u64(cut, "cut"), summary, source, _DUMPS.get(self.format, _no_dump))


def _no_dump(value: Any) -> Any:
    raise TypeError(f"a {type(value).__name__} is not a message of this format")


def _u64(value: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < (1 << 64):
        raise ValueError(f"{what} must be in 0..2**64-1, got {value}")
    return value


def _fingerprint(value: Union[bytes, str, None]) -> Optional[bytes]:
    if value is None:
        return None
    if isinstance(value, str):
        if not re.fullmatch(r"[0-9a-fA-F]{64}", value):
            raise ValueError("fingerprint must be 64 hex digits (or 32 bytes)")
        return bytes.fromhex(value)
    if isinstance(value, (bytes, bytearray)):
        if len(value) != 32:
            raise ValueError(f"fingerprint must be 32 bytes, got {len(value)}")
        return bytes(value)
    raise TypeError(f"fingerprint must be bytes, a hex str or None, not {type(value).__name__}")


def _convert(fmt: Format, ptr: Any, n: int, strict: bool, offsets: bool) -> Conversion:
    handle = POINTER(lc_conversion)()
    d = lc_diagnostic()
    d.struct_size = ctypes.sizeof(lc_diagnostic)
    status = _lib.lc_transcript_convert(int(fmt), ptr, n, CONVERT_STRICT if strict else 0, ctypes.byref(handle), ctypes.byref(d))

    def diagnose() -> Diagnostic:
        found = Diagnostic.from_c(d)
        # Without offsets for objects: they would count bytes of the JSON the package wrote.
        return found if offsets else replace(found, offset=None, line=None, column=None)

    check(status, ConversionError, diagnose)
    # The source's length as the library counted it (objects or JSON alike).
    counted = ctypes.c_uint64(0)
    status = _lib.lc_conversion_source_len(handle, ctypes.byref(counted))
    if status != Status.OK:
        _lib.lc_conversion_free(handle)
        check(status, ConversionError)
    return Conversion(handle, fmt, int(counted.value))


def _objects(fmt: Format, document: Any, root: str, strict: bool) -> Conversion:
    data = _encode(document, _DUMPS[fmt], root, fmt)
    return _convert(fmt, data, len(data), bool(strict), offsets=False)


# ---- the public converters -------------------------------------------------------------------------

def from_openai_chat(messages: Sequence[Any], *, strict: bool = False) -> Conversion:
    """Converts an OpenAI Chat Completions ``messages`` list (SPEC §16.2): the SDK's param dicts
    and the ``ChatCompletionMessage`` objects of its responses, as the client sends them.

    ``strict``: any loss refuses the conversion (``LC_CONVERT_LOSS``). Raises
    :class:`ConversionError` (``LC_CONVERT_SHAPE`` with ``location`` such as
    ``messages[3].tool_calls[0].function.arguments``), ``TypeError`` for what is not a message
    list."""
    items = _sequence(messages, "messages", Format.OPENAI_CHAT)
    return _objects(Format.OPENAI_CHAT, items, "messages", strict)


def from_openai_responses(
    items: Union[Sequence[Any], str], instructions: Optional[str] = None, *, strict: bool = False
) -> Conversion:
    """Converts an OpenAI Responses ``input`` (a list of items, or one string: a user message)
    and its ``instructions`` (SPEC §16.3): param dicts and ``response.output`` items alike.
    ``instructions`` is wire message 0, with source index ``None``."""
    if isinstance(items, str):
        document: Dict[str, Any] = {"input": items}
    else:
        document = {"input": _sequence(items, "items", Format.OPENAI_RESPONSES)}
    if instructions is not None:
        if not isinstance(instructions, str):
            raise TypeError(f"instructions must be a str or None, not {type(instructions).__name__}")
        document["instructions"] = instructions
    return _objects(Format.OPENAI_RESPONSES, document, "", strict)


def from_anthropic(messages: Sequence[Any], system: Any = None, *, strict: bool = False) -> Conversion:
    """Converts Anthropic Messages ``messages`` and the ``system`` parameter (a string or a list of
    text blocks; SPEC §16.4): ``MessageParam`` dicts, with response ``content`` blocks appended as
    the SDK's objects. ``system`` is wire message 0, with source index ``None``."""
    document: Dict[str, Any] = {}
    if system is not None:
        document["system"] = system
    items = _sequence(messages, "messages", Format.ANTHROPIC)
    document["messages"] = items
    return _objects(Format.ANTHROPIC, document, "", strict)


def from_gemini(contents: Sequence[Any], system_instruction: Any = None, *, strict: bool = False) -> Conversion:
    """Converts Google Gemini ``contents`` (``types.Content`` objects or dicts) and the
    ``system_instruction`` (a string, a ``Content``, a ``Part`` or a list of strings and parts;
    SPEC §16.5). The system instruction is wire message 0, with source index ``None``."""
    document: Dict[str, Any] = {}
    if system_instruction is not None:
        document["system_instruction"] = _gemini_system(system_instruction)
    items = _sequence(contents, "contents", Format.GEMINI)
    document["contents"] = items
    return _objects(Format.GEMINI, document, "", strict)


def _gemini_system(value: Any) -> Any:
    # What google-genai's t_content accepts: a Content (or dict), a Part, a string, or a list of
    # strings and parts (one Content of those parts).
    if isinstance(value, str) or isinstance(value, dict):
        return value
    if isinstance(value, (list, tuple)):
        return {"parts": [{"text": v} if isinstance(v, str) else v for v in value]}
    if _pydantic_model(value) and type(value).__name__ == "Part":
        return {"parts": [value]}
    return value


def from_langchain(messages: Sequence[Any], *, strict: bool = False) -> Conversion:
    """Converts a LangChain message list (SPEC §16.6): ``BaseMessage`` objects (serialised with
    ``message_to_dict``; langchain-core is imported only then) or their serialised dicts
    (``messages_to_dict``, ``dumpd`` or ``model_dump`` form)."""
    items = _sequence(messages, "messages", Format.LANGCHAIN)
    return _objects(Format.LANGCHAIN, items, "messages", strict)


def from_json(format: int, data: "Document", *, strict: bool = False) -> Conversion:
    """Converts a source you hold as JSON text (``Format.OPENAI_CHAT`` … ``Format.LANGCHAIN``,
    ``Format.AI_SDK`` for the Vercel AI SDK's ``ModelMessage[]``), as the library reads it:
    the ``messages`` array (Chat, LangChain, AI SDK), ``{"input": ..., "instructions": ...}``,
    ``{"system": ..., "messages": [...]}``, ``{"contents": [...], "system_instruction": ...}``.
    Diagnoses count bytes of ``data``. Raises :class:`ConversionError` (``LC_CONVERT_WIRE``,
    ``LC_CONVERT_SHAPE``, ``LC_CONVERT_LOSS``), ``ValueError`` for a format that is not one."""
    from . import _buffer

    code = _int32(format, "format")
    try:
        fmt = Format(code)
    except ValueError:
        raise ValueError(f"format must be a Format, got {code}") from None
    ptr, n = _buffer(data, "data")
    return _convert(fmt, ptr, n, bool(strict), offsets=True)
