"""The compaction round (SPEC R15.12): the cut, the summariser's request, the reply's check, the
retries with escalation, and the replacement, over the caller's ``call_model``.

The round is one generator (:func:`_round`): it yields each :class:`SummaryRequest` and receives
what the model answered. :func:`compact` and :func:`acompact` only drive it, one calling
``call_model`` and the other awaiting it, so the two can never differ in anything else.
"""

from __future__ import annotations

import functools
import inspect
import json
from dataclasses import dataclass, field, replace
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Dict,
    Generator,
    Iterable,
    List,
    Literal,
    Mapping,
    NamedTuple,
    Optional,
    Tuple,
    Type,
    TypedDict,
    TypeVar,
    Union,
)

from . import _native
from ._constants import SMALLEST_SUMMARY_LEN, Cleanup, Section, Status, StatusClass
from ._errors import (
    Diagnostic,
    LoopcompactError,
    SummaryError,
    retry_message,
    status_class,
    status_message,
    status_name,
)
from ._text import utf8

if TYPE_CHECKING:  # the round only calls methods of Input, which the package's __init__ defines
    from . import Input, SummaryStream
    from ._sourcemap import SourceMap

_U64_MAX = (1 << 64) - 1

_D = TypeVar("_D")

#: The assistant turn that stands for a rejected reply unless ``reshow_rejected`` (R15.12 step 2):
#: a model shown its bad reply tends to copy it.
WITHHELD = "[previous summary withheld: it was rejected]"

OnError = Literal["raise", "keep_history"]

#: What follows the instructions and every retry message with ``structured=True`` (SPEC G17.10):
#: the reply is the JSON object of :func:`summary_json_schema`, its texts plain (the renderer
#: escapes them).
STRUCTURED_NOTE = (
    "Structured output: instead of the XML document, reply with one JSON object of the given schema: "
    "the keys goal, constraints, decisions, state and open_items, each a string holding that section's "
    "plain text, without XML tags and without XML escapes (write &, < and > as they are); goal and state "
    "must not be blank."
)

#: The schema's keys, in section order.
SECTION_KEYS = ("goal", "constraints", "decisions", "state", "open_items")


class ChatMessage(TypedDict):
    """One chat turn of a :class:`SummaryRequest`: ``{"role": "user" | "assistant", "content": str}``,
    the shape the OpenAI, Anthropic and LangChain clients take as they are."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class SummaryRequest:
    """What one attempt asks the summariser (SPEC R15.12 step 2).

    ``system``: the instructions (:func:`summary_instructions`), to send as the system prompt.
    ``messages``: the chat turns, first the ``user`` turn holding the head (the input's messages
    before the cut, fitted: :meth:`Input.encode_head_within`), then for each earlier rejected
    attempt an ``assistant`` turn (the rejected reply, or the fixed text
    ``[previous summary withheld: it was rejected]``) and a ``user`` turn with its retry message.
    ``max_tokens``: the output limit to give the provider. ``attempt``: 1, 2, ...
    ``json_schema``: with ``compact(..., structured=True)``, the JSON Schema of the reply
    (:func:`summary_json_schema`, SPEC G17.10) to hand the provider's structured output; ``None``
    otherwise.
    """

    system: str
    # Each a ChatMessage. Typed Any on purpose: the OpenAI and Anthropic SDKs type their message
    # parameters as TypedDicts whose content is invariant, and LangChain as dict[str, Any], so no
    # precise type would pass to all three under mypy --strict without a cast.
    messages: Tuple[Any, ...]
    max_tokens: int
    attempt: int
    json_schema: Optional[str] = None

    def __repr__(self) -> str:
        # The head can be megabytes: a log line shows sizes only.
        chars = sum(len(m["content"]) for m in self.messages)
        return (
            f"SummaryRequest(attempt={self.attempt}, max_tokens={self.max_tokens}, "
            f"messages={len(self.messages)} turns of {chars} characters"
            + (", structured" if self.json_schema is not None else "")
            + ")"
        )


def section_texts(sections: object) -> Tuple[str, str, str, str, str]:
    """The five texts of a reply's ``sections`` (SPEC G17.10 step 2), in section order: a mapping
    with exactly the keys ``goal``, ``constraints``, ``decisions``, ``state``, ``open_items``, or an
    object with those five attributes (a pydantic model, a dataclass), each a ``str``. Anything
    else raises ``TypeError``: the host's error, never a verdict on the model."""
    if isinstance(sections, Mapping):
        if set(sections) != set(SECTION_KEYS):
            raise TypeError("SummaryReply.sections must be a mapping with exactly the keys " + ", ".join(SECTION_KEYS))
        values = [sections[key] for key in SECTION_KEYS]
    else:
        missing = [key for key in SECTION_KEYS if not hasattr(sections, key)]
        if missing:
            raise TypeError(
                f"SummaryReply.sections must be a mapping or an object with the attributes {', '.join(SECTION_KEYS)}; "
                f"{type(sections).__name__} lacks {', '.join(missing)}"
            )
        values = [getattr(sections, key) for key in SECTION_KEYS]
    for key, value in zip(SECTION_KEYS, values):
        if not isinstance(value, str):
            raise TypeError(f"SummaryReply.sections: {key} must be a str, not {type(value).__name__}")
    g, c, d, s, o = values
    return g, c, d, s, o


@dataclass(frozen=True)
class SummaryReply:
    """What ``call_model`` returns: the reply ``text`` as it arrived (``str``, or ``bytes`` of a
    raw body), the ``output_tokens`` the provider reported (0: none) and ``stop``, how the call
    ended: ``"end"`` (the model finished: OpenAI ``stop``, Anthropic ``end_turn``), ``"length"``
    (cut at the output limit: ``length``, ``max_tokens``) or ``None`` (anything else, or not
    reported). A mapping with the keys ``text``, ``output_tokens`` and optionally ``stop`` and
    ``sections`` is taken as well.

    ``sections`` (SPEC G17.10): the summary as the five sections' texts, for a provider whose
    structured output the client already parsed: a mapping with exactly the keys ``goal``,
    ``constraints``, ``decisions``, ``state``, ``open_items``, or an object with those attributes
    (a pydantic model instance), each a ``str``. The round renders them (:func:`render_summary`) and
    checks the rendered summary as it checks a text; ``text`` is then not read (give ``None``)."""

    text: Union[str, bytes, None]
    output_tokens: int
    # A plain str, so that an adapter's mapping of the provider's reasons (a dict lookup) needs no
    # cast; any other value than the three is refused here.
    stop: Optional[str] = None
    sections: Any = None

    def __post_init__(self) -> None:
        if self.sections is not None:
            section_texts(self.sections)
            if self.text is not None and not isinstance(self.text, (str, bytes)):
                raise TypeError(f"SummaryReply.text must be str, bytes or None, not {type(self.text).__name__}")
        elif not isinstance(self.text, (str, bytes)):
            raise TypeError(f"SummaryReply.text must be str or bytes (or None with sections), not {type(self.text).__name__}")
        if not isinstance(self.output_tokens, int) or isinstance(self.output_tokens, bool):
            raise TypeError(f"SummaryReply.output_tokens must be an int, not {type(self.output_tokens).__name__}")
        if not 0 <= self.output_tokens <= _U64_MAX:
            raise ValueError(f"SummaryReply.output_tokens must be in 0..2**64-1, got {self.output_tokens}")
        if self.stop not in (None, "end", "length"):
            raise ValueError(f'SummaryReply.stop must be "end", "length" or None, not {self.stop!r}')


class SummaryUsage(NamedTuple):
    """What a streamed reply reports once its last chunk was read: the ``output_tokens`` the
    provider reported (0: none) and ``stop`` (``"end"``, ``"length"`` or ``None``), as in
    :class:`SummaryReply`."""

    output_tokens: int
    stop: Optional[str] = None


Chunk = Union[str, bytes]


@dataclass(frozen=True)
class SummaryReplyStream:
    """What a streaming ``call_model`` returns instead of a :class:`SummaryReply` (SPEC T17.6):
    the reply as ``chunks`` (an iterable of ``str`` or ``bytes``; for :func:`acompact` an async
    iterable too) and ``usage``, a function called once after the last chunk was read that returns
    the :class:`SummaryUsage` (or a mapping with ``output_tokens`` and optionally ``stop``; for
    :func:`acompact` it may be a coroutine function). The round validates the chunks as they
    arrive (:class:`SummaryStream`) and, at the first chunk after which the reply cannot become a
    valid summary, stops reading: it closes the iterator (``close()``, or ``aclose()`` for an
    async one, then the same on ``chunks`` when that is another object), so that a generator's
    ``with`` around the provider's stream closes the HTTP response, and never calls ``usage``.

    A typical ``call_model`` over OpenAI's streaming Chat Completions::

        def call_model(request):
            usage = {}
            def chunks():
                with client.chat.completions.create(..., stream=True,
                                                    stream_options={"include_usage": True}) as s:
                    for event in s:
                        if event.usage:
                            usage["output_tokens"] = event.usage.completion_tokens
                        for choice in event.choices:
                            if choice.finish_reason:
                                usage["stop"] = {"stop": "end", "length": "length"}.get(choice.finish_reason)
                            if choice.delta.content:
                                yield choice.delta.content
            return lc.SummaryReplyStream(chunks(), lambda: usage)
    """

    chunks: Union[Iterable[Chunk], AsyncIterable[Chunk]]
    usage: Callable[[], Any]

    def __post_init__(self) -> None:
        if not (isinstance(self.chunks, (Iterable, AsyncIterable)) and not isinstance(self.chunks, (str, bytes))):
            raise TypeError(f"SummaryReplyStream.chunks must be an iterable of chunks, not {type(self.chunks).__name__}")
        if not callable(self.usage):
            raise TypeError("SummaryReplyStream.usage must be callable")


def _usage(value: object) -> SummaryUsage:
    if isinstance(value, SummaryUsage):
        usage = value
    elif isinstance(value, Mapping):
        keys = set(value)
        if not {"output_tokens"} <= keys <= {"output_tokens", "stop"}:
            raise TypeError("usage() returned a mapping without exactly the key output_tokens and optionally stop")
        usage = SummaryUsage(value["output_tokens"], value.get("stop"))
    else:
        raise TypeError(f"usage() must return a SummaryUsage (or a mapping of its fields), not {type(value).__name__}")
    # SummaryReply checks the two fields.
    SummaryReply(text=b"", output_tokens=usage.output_tokens, stop=usage.stop)
    return usage


class Removed(NamedTuple):
    """What cleanup removed around a reply (SPEC R15.7): the :class:`Cleanup` flags that removed
    something, and the bytes removed before and after the summary."""

    flags: Cleanup
    before: int
    after: int


@dataclass(frozen=True)
class Attempt:
    """One attempt of a round, as :func:`compact` hands it to ``on_attempt`` and records it:
    its ``number`` (1 on), the ``request`` sent, the reply's size in bytes and its ``stop``, the
    verdict (``status``, ``status_class``, the whole ``diagnosis``) and what cleanup ``removed``.
    ``reply_bytes`` counts the text as it arrived, or for a reply with ``sections`` the rendered
    summary (0 when the render refused them; SPEC G17.10). ``aborted``: a streamed reply the round
    stopped reading (SPEC T17.6): ``reply_bytes`` then counts the bytes read, and the verdict is the
    one known when the reply died."""

    number: int
    request: SummaryRequest
    reply_bytes: int
    stop: Optional[str]
    status: int
    status_class: StatusClass
    diagnosis: Diagnostic
    removed: Removed
    aborted: bool = False

    @property
    def ok(self) -> bool:
        return self.status == Status.OK

    def __str__(self) -> str:
        """One log line: ``attempt 1: 86 bytes, stop end, max_tokens 2048: LC_... (208) at ...``."""
        how = "aborted" if self.aborted else f"stop {self.stop or 'unknown'}"
        return (
            f"attempt {self.number}: {self.reply_bytes} bytes, {how}, "
            f"max_tokens {self.request.max_tokens}: {self.diagnosis}"
        )


@dataclass(frozen=True)
class Compacted:
    """A round that produced a valid summary: replace the history with ``replacement``.

    ``summary``: the validated summary text; ``cut``: messages ``[0, cut)`` were summarised;
    ``replacement``: the transcript that replaces the history (:meth:`Input.build_replacement`, a
    JSON array of wire messages in canonical bytes); ``attempts`` and their ``diagnoses``. When the
    input came from :meth:`Conversion.input`, :meth:`messages` gives the new history in the
    source's own format, and ``source_cut`` is where the kept source messages start."""

    summary: str
    cut: int
    replacement: bytes
    attempts: Tuple[Attempt, ...]
    diagnoses: Tuple[Diagnostic, ...]
    #: The conversion's map from wire cuts to source messages (None: the input was a wire document).
    _source: Optional["SourceMap"] = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return (
            f"Compacted(cut={self.cut}, summary={len(self.summary)} characters, "
            f"replacement={len(self.replacement)} bytes, attempts={len(self.attempts)})"
        )

    @property
    def source_cut(self) -> Optional[int]:
        """The source cut of ``cut`` (SPEC G16.2): ``source[:source_cut]`` was summarised (the
        leading system messages aside); ``None`` when the input did not come from a conversion."""
        return None if self._source is None else self._source.source_cut(self.cut)

    def messages(self, source: Any) -> List[Any]:
        """The new message list in the source's own format, for an input made by
        :meth:`Conversion.input`; ``source`` is the list the conversion was made from (its
        length is checked).

        The list is: the source's leading system messages (the same objects; formats whose system
        prompt is a parameter have none here: keep your parameter as it is), the summary as one
        user message of the format, then ``source[source_cut:]`` (the same objects). The summary
        message is ``{"role": "user", "content": summary}`` (Chat, Anthropic, AI SDK; Responses,
        with ``"type": "message"`` when the list's message items carry it), a ``types.Content`` or
        ``{"role": "user", "parts": [{"text": summary}]}`` (Gemini), a ``HumanMessage`` or its
        serialised form (LangChain). When the first kept message is the user message the wire
        merged the summary into (R15.9: two user messages never meet), that message is replaced
        by a new one whose content is the summary text part followed by its own content parts;
        the original object is not changed.

        Raises ``ValueError`` when the input did not come from a conversion or ``source`` has
        another length, ``TypeError`` when ``source`` is not a list.
        """
        if self._source is None:
            raise ValueError(
                "messages() needs a round whose input came from Conversion.input() (from_openai_chat, "
                "from_anthropic, ...): this input was a wire document; use replacement instead"
            )
        from ._convert import _DUMPS, _no_dump
        from ._sourcemap import rebuild

        return rebuild(self._source, self.cut, self.summary, source, _DUMPS.get(self._source.format, _no_dump))


@dataclass(frozen=True)
class KeepHistory:
    """A round that ended without a summary: keep the history as it is.

    ``reason``: one sentence on why (it never quotes the reply or an exception's text);
    ``status``: the status that ended the round (``None`` when ``call_model`` raised and
    ``on_error="keep_history"``); ``attempts`` and their ``diagnoses`` (empty when the model was
    not called)."""

    reason: str
    status: Optional[int]
    attempts: Tuple[Attempt, ...] = field(default=())
    diagnoses: Tuple[Diagnostic, ...] = field(default=())


Result = Union[Compacted, KeepHistory]
ReplyLike = Union[SummaryReply, "SummaryReplyStream", Mapping[str, Any]]


class _Options(NamedTuple):
    keep_last: int
    pending_tail: bool
    attempts: int
    max_input_bytes: int
    max_reply_bytes: Optional[int]
    max_tokens: Optional[int]
    trim: bool
    unfence: bool
    reshow_rejected: bool
    on_attempt: Optional[Callable[[Attempt], object]]
    keep_on_error: bool
    structured: bool


_new = object.__new__
_new_tuple = tuple.__new__


def _made(cls: Type[_D], fields: Dict[str, Any]) -> _D:
    """An instance of the frozen dataclass ``cls`` with ``fields`` (every field, by name), made
    with one dict update instead of the generated ``__init__``'s ``object.__setattr__`` per field:
    the round makes three or four such objects per attempt, and this halves what they cost (issue
    26: the round's own cost beside its library calls). Only for classes without
    ``__post_init__``; ``tests/test_round.py`` checks that each object equals the one the
    constructor makes and has exactly the class's fields."""
    made = _new(cls)
    made.__dict__.update(fields)
    return made


def _summary_text(summary: bytes, reply: Union[str, bytes, None], found: Diagnostic) -> str:
    """The valid summary as ``str``: for an ASCII ``str`` reply (``isascii`` is a flag CPython
    keeps, so the test costs nothing) the reply without what cleanup removed, sliced, for a byte
    of ASCII is one character; otherwise the summary's bytes decoded. (A non-ASCII ``str`` may hold
    lone surrogates, which the library saw as U+FFFD: decoding gives what was validated.)"""
    if isinstance(reply, str) and reply.isascii():
        return reply[found.removed_before : len(reply) - found.removed_after]
    return summary.decode("utf-8")


def _count(value: object, what: str, least: int) -> int:
    if type(value) is int and least <= value <= _U64_MAX:  # the common case, one test
        return value
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not least <= value <= _U64_MAX:
        raise ValueError(f"{what} must be in {least}..2**64-1, got {value}")
    return value


def _options(
    keep_last: int,
    pending_tail: bool,
    attempts: int,
    max_input_bytes: Optional[int],
    max_reply_bytes: Optional[int],
    max_tokens: Optional[int],
    trim: bool,
    unfence: bool,
    reshow_rejected: bool,
    on_attempt: Optional[Callable[[Attempt], object]],
    on_error: OnError,
    structured: bool,
) -> _Options:
    if on_error not in ("raise", "keep_history"):
        raise ValueError(f'on_error must be "raise" or "keep_history", not {on_error!r}')
    if on_attempt is not None and not callable(on_attempt):
        raise TypeError("on_attempt must be callable or None")
    # Positional, through tuple.__new__: the round's fixed cost (a NamedTuple's keyword
    # constructor costs as much as the checks).
    return _new_tuple(
        _Options,
        (
            _count(keep_last, "keep_last", 0),
            bool(pending_tail),
            _count(attempts, "attempts", 1),
            _U64_MAX if max_input_bytes is None else _count(max_input_bytes, "max_input_bytes", 0),
            None if max_reply_bytes is None else _count(max_reply_bytes, "max_reply_bytes", 0),
            None if max_tokens is None else _count(max_tokens, "max_tokens", 1),
            bool(trim),
            bool(unfence),
            bool(reshow_rejected),
            on_attempt,
            on_error == "keep_history",
            bool(structured),
        ),
    )


def _reply(value: object) -> SummaryReply:
    """The model's answer as a :class:`SummaryReply`; anything else is the host's error."""
    if isinstance(value, SummaryReply):
        return value
    if isinstance(value, Mapping):
        keys = set(value)
        if not ({"output_tokens"} <= keys <= {"text", "output_tokens", "stop", "sections"} and keys & {"text", "sections"}):
            raise TypeError(
                "call_model returned a mapping without the keys output_tokens and text or sections (and optionally stop)"
            )
        return SummaryReply(
            text=value.get("text"), output_tokens=value["output_tokens"], stop=value.get("stop"), sections=value.get("sections")
        )
    raise TypeError(f"call_model must return a SummaryReply (or a mapping of its fields), not {type(value).__name__}")


def _why(status: int, status_class: StatusClass, attempt: int) -> str:
    name, message = status_name(status), status_message(status)
    if status == Status.SUMMARY_TOKEN_USAGE:
        return (
            f"Attempt {attempt}: the provider reported no output token usage ({name}): turn usage "
            "reporting on in the client, so that the reply can be checked against max_summary_tokens."
        )
    if status_class == StatusClass.DISCARD:
        return f"Attempt {attempt} cannot be used and a retry would not help ({name}): {message}"
    if status_class == StatusClass.BUG:
        return f"The library failed at attempt {attempt} ({name}): {message}"
    return f"Attempt {attempt} was refused for the host's settings or input ({name}): {message}"


#: Characters with the Unicode White_Space property (SPEC X4.21), which LC_REPLY_TRIM removes.
_WHITE_SPACE = frozenset(
    [*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
)


def _char_at(data: bytearray, pos: int) -> Tuple[Optional[int], int]:
    """The code point of the UTF-8 sequence at ``pos`` and its length; ``(None, 0)`` when the bytes
    so far end inside a sequence that may still complete, ``(None, -1)`` when no valid sequence
    starts there."""
    lead = data[pos]
    if lead < 0x80:
        return lead, 1
    need = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0
    if need == 0:
        return None, -1
    part = bytes(data[pos:pos + need])
    try:
        return ord(part.decode("utf-8")), need
    except UnicodeDecodeError as error:
        # Cut by the end of what arrived (and valid so far): wait; anything else is not UTF-8.
        return (None, 0) if error.end == len(part) and len(part) < need else (None, -1)


class _Aborted(NamedTuple):
    """A streamed reply the round stopped reading: the diagnosis known when it died, the bytes read."""

    diagnosis: Diagnostic
    received: bytes


class _StreamCheck:
    """Reads one streamed reply (SPEC T17.6): keeps its bytes, skips what cleanup (R15.5) would
    remove before the summary (leading White_Space with trim; with unfence an opening fence line,
    then White_Space again), feeds the rest to a :class:`SummaryStream`, and says at the first
    chunk after which the reply cannot pass. After a complete summary it stops feeding: what
    follows can only be removed by cleanup or fail, which the whole reply's check decides.
    With ``structured`` the reply is the JSON object of G17.10, not XML: its bytes are only
    gathered, and the whole reply is checked at its end (the byte limit counts the rendered
    summary)."""

    def __init__(
        self,
        input: "Input",
        max_reply_bytes: int,
        trim: bool,
        unfence: bool,
        reply: SummaryReplyStream,
        structured: bool = False,
    ) -> None:
        from . import SummaryStream

        self.reply = reply
        self._input = input
        self._max_reply_bytes = max_reply_bytes
        self._trim, self._unfence = trim, unfence
        self.received = bytearray()
        self._stream: "SummaryStream" = SummaryStream()
        #: Where feeding starts (None: still in the part cleanup may remove), where it has reached.
        self._start: Optional[int] = None
        self._fed = 0
        self._removed = Cleanup(0)
        self._phase = "trim" if trim else "fence" if unfence else "body"
        self._tail = False
        self._structured = structured

    def close(self) -> None:
        self._stream.close()

    def add(self, chunk: object) -> Optional[_Aborted]:
        """Reads one chunk; an :class:`_Aborted` once the reply cannot pass."""
        if isinstance(chunk, str):
            data = utf8(chunk)
        elif isinstance(chunk, (bytes, bytearray, memoryview)):
            data = bytes(chunk)
        else:
            raise TypeError(f"a reply chunk must be str or bytes, not {type(chunk).__name__}")
        self.received += data
        if self._structured:
            return None  # the limit counts the rendered summary (G17.10): checked at the end
        if len(self.received) > self._max_reply_bytes:
            # R15.3 step 2 comes first whatever follows: the library's own verdict of it.
            found, _, _ = self._input._check_reply(bytes(self.received), 0, None, self._max_reply_bytes, False, False)
            return _Aborted(found, bytes(self.received))
        if self._start is None:
            self._lead()
            if self._start is None:
                return None
        if self._tail:
            return None
        try:
            self._stream.feed(memoryview(self.received)[self._fed:])
            self._fed = len(self.received)
            return None
        except SummaryError as error:
            return self._died(error.diagnostic)

    def _lead(self) -> None:
        """Moves past what cleanup would remove before the summary, as far as the bytes go."""
        data = self.received
        pos = self._fed
        while True:
            if pos >= len(data):
                self._fed = pos
                return
            if self._phase in ("trim", "trim again"):
                code, size = _char_at(data, pos)
                if size == 0:
                    self._fed = pos
                    return
                if code is not None and code in _WHITE_SPACE:
                    pos += size
                    self._removed |= Cleanup.TRIM
                    continue
                self._phase = "fence" if self._phase == "trim" and self._unfence else "body"
            elif self._phase == "fence":
                fence = self._fence_line(pos)
                if fence is None:  # not known yet
                    self._fed = pos
                    return
                if fence:
                    pos = data.index(b"\n", pos) + 1
                    self._removed |= Cleanup.UNFENCE
                    self._phase = "trim again" if self._trim else "body"
                else:
                    self._phase = "body"
            else:
                self._start = self._fed = pos
                return

    def _fence_line(self, pos: int) -> Optional[bool]:
        """Whether an opening fence line (R15.5) starts at ``pos``: None until its LF arrived (or
        a byte shows it cannot be one)."""
        data = self.received
        mark = data[pos]
        if mark not in b"`~":
            return False
        run = pos
        while run < len(data) and data[run] == mark:
            run += 1
        if run - pos < 3 and run < len(data):
            return False
        end = data.find(b"\n", run)
        info = data[run:] if end < 0 else data[run:end]
        if mark == ord("`") and b"`" in info:
            return False
        return None if end < 0 else run - pos >= 3

    def _died(self, found: Diagnostic) -> Optional[_Aborted]:
        start = self._start or 0
        dead = self._stream.dead_offset or 0
        if self._trim or self._unfence:
            # Dead at the first byte after a complete summary: cleanup may remove what follows.
            if not _native.lib.lc_summary_xml_validate(bytes(self.received[start:start + dead]), dead):
                self._tail = True
                return None
        # Offsets, lines and columns of the reply as it arrived (R15.7, C13.2: lines end at LF,
        # columns count characters).
        offset = start + (found.offset or 0)
        before = self.received[:offset]
        line_start = before.rfind(b"\n") + 1
        column = sum(1 for b in before[line_start:] if b & 0xC0 != 0x80) + 1
        diagnosis = replace(
            found,
            offset=offset,
            line=before.count(b"\n") + 1,
            column=column,
            location="summary",
            removed=self._removed,
            removed_before=start,
        )
        return _Aborted(diagnosis, bytes(self.received))


class _Raised(NamedTuple):
    """``call_model`` raised (with ``on_error="keep_history"``): only the exception's type is kept."""

    kind: str


Step = Union[SummaryRequest, "_StreamCheck", Result]


@functools.lru_cache(maxsize=1)
def _instructions() -> str:
    # A static string of the library (lc_summary_instructions): decoded once.
    return str(_native.lib.lc_summary_instructions().decode("utf-8"))


def _reading_failed(status: int, reply: SummaryReply, max_summary_tokens: int) -> Diagnostic:
    """The diagnosis of a structured text reply that is not the schema's object (G17.10 step 3)."""
    if reply.stop == "length":
        return Diagnostic(
            status=Status.REPLY_TRUNCATED, status_class=StatusClass.RETRY, rule="R15.4", location="summary",
            limit=max_summary_tokens, actual=reply.output_tokens,
        )
    return Diagnostic(status=status, status_class=status_class(status), rule="G17.10", location="summary")


def _not_json(constant: str) -> Any:
    """``json.loads``' hook for ``NaN``, ``Infinity`` and ``-Infinity``: not JSON (RFC 8259)."""
    raise ValueError(f"{constant} is not JSON")


def _read_json(text: Union[str, bytes]) -> Union[Tuple[str, str, str, str, str], int]:
    """The five texts of a JSON text reply (G17.10 step 3), or the status of its failure."""
    try:
        # Strict UTF-8 both ways: bytes that are not UTF-8, or a str with a lone surrogate (which
        # no provider's body can hold), are not a JSON text.
        source = text.decode("utf-8") if isinstance(text, bytes) else text
        source.encode("utf-8")
        # NaN, Infinity and -Infinity are Python's extensions, not RFC 8259 JSON (Go's json.Valid
        # and JSON.parse refuse them too). A number is never a section: its digits are not
        # converted (int() refuses more than 4300 digits, which is valid JSON all the same).
        value = json.loads(source, parse_constant=_not_json, parse_int=_number, parse_float=_number)
    except (ValueError, RecursionError):  # UnicodeError and JSONDecodeError are ValueErrors
        return Status.SUMMARY_WIRE
    if not isinstance(value, dict) or set(value) != set(SECTION_KEYS):
        return Status.SUMMARY_OUTPUT_SHAPE
    texts = [value[key] for key in SECTION_KEYS]
    if not all(isinstance(t, str) for t in texts):
        return Status.SUMMARY_OUTPUT_SHAPE
    g, c, d, s, o = texts
    return g, c, d, s, o


def _number(text: str) -> float:
    """A JSON number in a structured reply: only its kind counts (no section is a number)."""
    return 0.0


_FILLER = (".", "", "", ".", "")


def _render(texts: Tuple[str, str, str, str, str]) -> Union[str, Diagnostic]:
    """The summary rendered from the five texts, or the diagnosis of the renderer's refusal
    (G17.10 step 4): its status, and the first section whose text alone it refuses so."""
    from . import render_summary  # the package's __init__ imports this module

    def render(values: Tuple[str, ...]) -> str:
        g, c, d, s, o = values
        return render_summary(goal=g, constraints=c, decisions=d, state=s, open_items=o)

    try:
        return render(texts)
    except SummaryError as error:
        status = error.status
    section = Section.NONE
    for index, text in enumerate(texts):
        alone = _FILLER[:index] + (text,) + _FILLER[index + 1 :]
        try:
            render(alone)
        except SummaryError as error:
            if error.status == status:
                section = Section(index + 1)
                break
    return Diagnostic(
        status=status,
        status_class=status_class(status),
        section=section,
        rule="G17.9",
        expected="non-blank text" if status == Status.SUMMARY_XML_CONTENT else "",
        location="summary",
    )


def _check_structured(
    input: "Input", reply: SummaryReply, options: _Options, max_reply_bytes: int, max_summary_tokens: int, cut: int
) -> Tuple[Diagnostic, Optional[bytes], int, Union[bytes, LoopcompactError, None]]:
    """G17.10 steps 2-5: the sections (or the JSON text) rendered, then checked by R15.3 and, when
    valid, the replacement for ``cut`` built (as :meth:`Input._check_reply_and_build`)."""
    if reply.sections is not None:
        texts = section_texts(reply.sections)
        size: Optional[int] = None
    else:
        assert reply.text is not None  # SummaryReply guarantees text or sections
        size = len(reply.text.encode("utf-8", "surrogatepass") if isinstance(reply.text, str) else reply.text)
        read = _read_json(reply.text)
        if isinstance(read, int):
            return _reading_failed(read, reply, max_summary_tokens), None, size, None
        texts = read
    rendered = _render(texts)
    if isinstance(rendered, Diagnostic):
        return rendered, None, 0 if size is None else size, None
    found, summary, rendered_size, built = input._check_reply_and_build(
        rendered, reply.output_tokens, reply.stop, max_reply_bytes, options.trim, options.unfence, cut
    )
    return found, summary, rendered_size if size is None else size, built


def _round(input: "Input", options: _Options) -> Generator[Union[SummaryRequest, "_StreamCheck"], object, Result]:
    """The round of R15.12, one attempt per request it yields; returns its result."""
    try:
        cut, head, head_bytes, max_summary_tokens = input._round_start(options.keep_last, options.pending_tail, options.max_input_bytes)
    except LoopcompactError as error:
        # Step 1: nothing to summarise, a transcript that fails the pairing check, or a head that
        # fits under no budget: the model is never called.
        reason = f"No summariser request can be made ({error.name}): {error.message}"
        return KeepHistory(reason=reason, status=error.status)
    max_tokens = max_summary_tokens if options.max_tokens is None else options.max_tokens
    if max_tokens > max_summary_tokens:
        raise ValueError(f"max_tokens ({max_tokens}) is above the input's max_summary_tokens ({max_summary_tokens})")
    max_reply_bytes = options.max_reply_bytes
    if max_reply_bytes is None:
        max_reply_bytes = min(max(16 * max_summary_tokens, SMALLEST_SUMMARY_LEN), _U64_MAX)
    if max_reply_bytes < SMALLEST_SUMMARY_LEN:
        # Step 1 (R15.2): no reply can meet the limit, so no request is sent.
        status = Status.REPLY_BYTE_LIMIT_UNREACHABLE
        reason = (
            f"No summariser request can be made ({status_name(status)}): max_reply_bytes ({max_reply_bytes}) is "
            f"below the smallest valid summary ({SMALLEST_SUMMARY_LEN} bytes), so no reply can meet it"
        )
        return KeepHistory(reason=reason, status=status)
    system = _instructions()
    schema: Optional[str] = None
    if options.structured:
        from . import summary_json_schema

        system = f"{system}\n\n{STRUCTURED_NOTE}"
        schema = summary_json_schema()
    retries: List[ChatMessage] = []
    attempts: List[Attempt] = []
    found_so_far: List[Diagnostic] = []

    def record() -> Tuple[Tuple[Attempt, ...], Tuple[Diagnostic, ...]]:
        return tuple(attempts), tuple(found_so_far)

    for number in range(1, options.attempts + 1):
        first: ChatMessage = {"role": "user", "content": head}
        messages: Tuple[ChatMessage, ...] = (first, *retries)
        request = _made(
            SummaryRequest,
            {"system": system, "messages": messages, "max_tokens": max_tokens, "attempt": number, "json_schema": schema},
        )
        answer = yield request
        if isinstance(answer, SummaryReplyStream):
            # The driver reads the chunks into the check (T17.6) and sends back what came of it.
            check = _StreamCheck(input, max_reply_bytes, options.trim, options.unfence, answer, options.structured)
            try:
                answer = yield check
            finally:
                check.close()
        if isinstance(answer, _Raised):
            done, diagnoses = record()
            reason = f"call_model raised {answer.kind} at attempt {number}; the history is kept."
            return KeepHistory(reason=reason, status=None, attempts=done, diagnoses=diagnoses)
        text: Union[str, bytes, None]
        built: Union[bytes, LoopcompactError, None] = None
        checked: Union[str, bytes, None] = None  # the text the summary was cut from, when it was the reply's
        if isinstance(answer, _Aborted):
            found, summary, size, stop, text = answer.diagnosis, None, len(answer.received), None, answer.received
            sections_only = False
        else:
            reply = _reply(answer)
            if reply.sections is not None or options.structured:
                found, summary, size, built = _check_structured(
                    input, reply, options, max_reply_bytes, max_summary_tokens, cut
                )
            else:
                assert reply.text is not None  # SummaryReply guarantees text or sections
                # The replacement is built with the check, while the handle is held (R15.12 step 5
                # follows only a valid summary).
                checked = reply.text
                found, summary, size, built = input._check_reply_and_build(
                    reply.text, reply.output_tokens, reply.stop, max_reply_bytes, options.trim, options.unfence, cut
                )
            stop, text = reply.stop, reply.text
            # A sections reply without text has nothing to show (G17.10 step 6).
            sections_only = reply.sections is not None and not reply.text
        attempt = _made(
            Attempt,
            {
                "number": number,
                "request": request,
                "reply_bytes": size,
                "stop": stop,
                "status": found.status,
                "status_class": found.status_class,
                "diagnosis": found,
                "removed": _new_tuple(Removed, (found.removed, found.removed_before, found.removed_after)),
                "aborted": isinstance(answer, _Aborted),
            },
        )
        attempts.append(attempt)
        found_so_far.append(found)
        if options.on_attempt is not None:
            options.on_attempt(attempt)
        if summary is not None:
            done, diagnoses = record()
            # A valid summary comes from the check that also built its replacement.
            assert built is not None
            if isinstance(built, LoopcompactError):  # the cut was safe and the summary valid: a library bug
                reason = f"The replacement could not be built ({built.name}): {built.message}"
                return KeepHistory(reason=reason, status=built.status, attempts=done, diagnoses=diagnoses)
            return _made(
                Compacted,
                {
                    "summary": _summary_text(summary, checked, found),
                    "cut": cut,
                    "replacement": built,
                    "attempts": done,
                    "diagnoses": diagnoses,
                    "_source": input._source,
                },
            )
        if found.status_class != StatusClass.RETRY:
            done, diagnoses = record()
            return KeepHistory(
                reason=_why(found.status, found.status_class, number), status=found.status, attempts=done, diagnoses=diagnoses
            )
        if number == options.attempts:
            break
        if found.status == Status.REPLY_TRUNCATED:
            # Step 4: a reply cut at the output limit: first more tokens, then a smaller head.
            if max_tokens < max_summary_tokens:
                max_tokens = min(2 * max_tokens, max_summary_tokens)
            else:
                try:
                    head, head_bytes = input._head_text(cut, head_bytes * 3 // 4)
                except LoopcompactError as error:
                    if error.status != Status.INPUT_TOO_LARGE:
                        raise
        if not options.reshow_rejected or text is None or sections_only:
            shown = WITHHELD
        elif isinstance(text, str):
            shown = text
        else:
            shown = text.decode("utf-8", "replace")
        retry = retry_message(found)
        if options.structured:
            retry = f"{retry}\n\n{STRUCTURED_NOTE}"
        retries.append({"role": "assistant", "content": shown})
        retries.append({"role": "user", "content": retry})
    done, diagnoses = record()
    last = attempts[-1]
    reason = (
        f"No valid summary in {len(attempts)} attempts; the last was {status_name(last.status)}: "
        f"{status_message(last.status)}"
    )
    return KeepHistory(reason=reason, status=last.status, attempts=done, diagnoses=diagnoses)


def _resume(steps: Generator[Union[SummaryRequest, "_StreamCheck"], object, Result], answer: object) -> Step:
    try:
        return steps.send(answer)
    except StopIteration as done:
        result: Result = done.value
        return result


def _caller_failed(error: Exception, options: _Options) -> _Raised:
    """An exception of the caller's code (``call_model``, the chunks' iterator, ``usage``)."""
    if not options.keep_on_error:
        raise error
    return _Raised(type(error).__name__)


def _close(iterator: object, chunks: object) -> None:
    for obj in (iterator,) if chunks is iterator else (iterator, chunks):
        close = getattr(obj, "close", None)
        if callable(close):
            close()


def _read(check: _StreamCheck, options: _Options) -> object:
    """Reads a streamed reply into ``check`` (T17.6): the reply with its usage, or the
    :class:`_Aborted` of the first chunk after which it cannot pass (the iterator then closed)."""
    chunks = check.reply.chunks
    if not isinstance(chunks, Iterable):
        raise TypeError("compact() reads chunks from a plain iterable; use acompact() for an async iterable")
    try:
        iterator = iter(chunks)
    except Exception as error:
        return _caller_failed(error, options)
    finished = False
    try:
        while True:
            try:
                chunk = next(iterator)
            except StopIteration:
                finished = True
                break
            except Exception as error:
                finished = True  # the iterator ended with its exception
                return _caller_failed(error, options)
            aborted = check.add(chunk)
            if aborted is not None:
                return aborted
    finally:
        if not finished:
            _close(iterator, chunks)
    try:
        usage = check.reply.usage()
    except Exception as error:
        return _caller_failed(error, options)
    return _complete(check, _usage(usage))


def _complete(check: _StreamCheck, usage: SummaryUsage) -> SummaryReply:
    return SummaryReply(text=bytes(check.received), output_tokens=usage.output_tokens, stop=usage.stop)


async def _aclose(iterator: object, chunks: object) -> None:
    for obj in (iterator,) if chunks is iterator else (iterator, chunks):
        close = getattr(obj, "aclose", None) or getattr(obj, "close", None)
        if callable(close):
            result = close()
            if inspect.isawaitable(result):
                await result


async def _async_chunks(chunks: Iterable[Chunk]) -> AsyncIterator[Chunk]:
    """A plain iterable of chunks as an async one; closing it closes the plain iterator."""
    iterator = iter(chunks)
    try:
        for chunk in iterator:
            yield chunk
    finally:
        close = getattr(iterator, "close", None)
        if callable(close):
            close()


async def _aread(check: _StreamCheck, options: _Options) -> object:
    """:func:`_read` for :func:`acompact`: an async iterable (or a plain one), ``usage`` maybe a
    coroutine function."""
    chunks = check.reply.chunks
    source = chunks if isinstance(chunks, AsyncIterable) else _async_chunks(chunks)
    try:
        iterator = source.__aiter__()
    except Exception as error:
        return _caller_failed(error, options)
    finished = False
    try:
        while True:
            try:
                chunk = await iterator.__anext__()
            except StopAsyncIteration:
                finished = True
                break
            except Exception as error:
                finished = True
                return _caller_failed(error, options)
            aborted = check.add(chunk)
            if aborted is not None:
                return aborted
    finally:
        if not finished:
            await _aclose(iterator, chunks)
    try:
        usage = check.reply.usage()
        if inspect.isawaitable(usage):
            usage = await usage
    except Exception as error:
        return _caller_failed(error, options)
    return _complete(check, _usage(usage))


def compact(
    input: "Input",
    call_model: Callable[[SummaryRequest], ReplyLike],
    *,
    keep_last: int = 0,
    pending_tail: bool = True,
    attempts: int = 3,
    max_input_bytes: Optional[int] = None,
    max_reply_bytes: Optional[int] = None,
    max_tokens: Optional[int] = None,
    trim: bool = True,
    unfence: bool = True,
    reshow_rejected: bool = False,
    on_attempt: Optional[Callable[[Attempt], object]] = None,
    on_error: OnError = "raise",
    structured: bool = False,
) -> Result:
    """Runs one compaction round (SPEC R15.12) with ``call_model`` as the summariser.

    The cut is ``input.safe_cut(keep_last, pending_tail=pending_tail)``: a last assistant turn
    that waits for tool results stays on the kept side (SPEC G16.13; ``pending_tail=False``
    refuses such a transcript with §14's verdict), and an input from :meth:`Conversion.input` is
    cut only at its source's boundaries. Messages before the cut are summarised. Each attempt
    sends ``call_model`` a :class:`SummaryRequest` and checks the :class:`SummaryReply` it
    returns with :meth:`Input.validate_reply` (``trim`` and ``unfence`` on by default). A valid
    summary gives :class:`Compacted` with the replacement transcript; a verdict of class RETRY
    another attempt (up to ``attempts``, with the retry message as the next turn; a truncated
    reply first doubles ``max_tokens`` up to the input's ``max_summary_tokens``, then shrinks the
    head to three quarters); anything else :class:`KeepHistory`, never an unvalidated summary.

    ``max_input_bytes``: the head's byte budget (no limit by default); ``max_reply_bytes``: the
    reply's (default 16 bytes per ``max_summary_tokens``, at least ``SMALLEST_SUMMARY_LEN``;
    below it no reply can pass, and the round keeps the history without calling the model);
    ``max_tokens``: the first request's output limit (default ``max_summary_tokens``, never
    above it); ``reshow_rejected``: show the model its rejected reply instead of
    ``[previous summary withheld: it was rejected]``; ``on_attempt``: called with each
    :class:`Attempt` before the round decides what follows it. An exception of ``call_model``
    propagates, unless ``on_error="keep_history"``: then the round returns :class:`KeepHistory`
    naming the exception's type. A value that is neither a :class:`SummaryReply` nor a mapping of
    its fields raises ``TypeError``.

    A streaming ``call_model`` returns a :class:`SummaryReplyStream` (SPEC T17.6): the round
    validates its chunks as they arrive (past what ``trim`` and ``unfence`` would remove before
    the summary) and stops reading at the first chunk after which the reply cannot pass, or once
    it is longer than ``max_reply_bytes``, closing the iterator so the provider's stream is
    closed. That attempt counts as any other, with the diagnosis known when the reply died
    (offsets in the reply as read; ``Attempt.aborted``) and, for its RETRY class, the retry
    message as the next turn. An exception of the iterator or of ``usage`` is one of
    ``call_model``.

    ``structured=True`` (SPEC G17.10): each request carries the summary's JSON Schema
    (``request.json_schema``, for the provider's structured output) and the instructions end with
    :data:`STRUCTURED_NOTE`; a text reply is then read as that JSON object (not JSON:
    ``SUMMARY_WIRE``; another shape: ``SUMMARY_OUTPUT_SHAPE``; either, stopped by length:
    ``REPLY_TRUNCATED``). A reply with ``sections`` (with or without ``structured``) gives the
    texts directly. Either way the texts are rendered (:func:`render_summary`: a blank goal or
    state is ``SUMMARY_XML_CONTENT``, a character XML cannot carry ``SUMMARY_XML_SYNTAX``, both
    retried) and the rendered summary is checked as a text reply is.
    """
    options = _options(
        keep_last, pending_tail, attempts, max_input_bytes, max_reply_bytes, max_tokens, trim, unfence, reshow_rejected,
        on_attempt, on_error, structured,
    )
    steps = _round(input, options)
    step = _resume(steps, None)
    while not isinstance(step, (Compacted, KeepHistory)):
        answer: object
        if isinstance(step, _StreamCheck):
            answer = _read(step, options)
        else:
            try:
                answer = call_model(step)
            except Exception as error:
                answer = _caller_failed(error, options)
        step = _resume(steps, answer)
    return step


async def acompact(
    input: "Input",
    call_model: Callable[[SummaryRequest], Awaitable[ReplyLike]],
    *,
    keep_last: int = 0,
    pending_tail: bool = True,
    attempts: int = 3,
    max_input_bytes: Optional[int] = None,
    max_reply_bytes: Optional[int] = None,
    max_tokens: Optional[int] = None,
    trim: bool = True,
    unfence: bool = True,
    reshow_rejected: bool = False,
    on_attempt: Optional[Callable[[Attempt], object]] = None,
    on_error: OnError = "raise",
    structured: bool = False,
) -> Result:
    """:func:`compact` with an async ``call_model`` (awaited once per attempt); the round is the
    same code. ``on_attempt`` stays a plain function. Cancellation propagates as always. A
    :class:`SummaryReplyStream` may carry an async iterable (closed with ``aclose()`` when the
    round stops reading) or a plain one, and ``usage`` may be a coroutine function."""
    options = _options(
        keep_last, pending_tail, attempts, max_input_bytes, max_reply_bytes, max_tokens, trim, unfence, reshow_rejected,
        on_attempt, on_error, structured,
    )
    steps = _round(input, options)
    step = _resume(steps, None)
    while not isinstance(step, (Compacted, KeepHistory)):
        answer: object
        if isinstance(step, _StreamCheck):
            answer = await _aread(step, options)
        else:
            try:
                answer = await call_model(step)
            except Exception as error:
                answer = _caller_failed(error, options)
        step = _resume(steps, answer)
    return step
