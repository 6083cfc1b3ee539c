"""Diagnostics (SPEC §13) and the exceptions that carry them.

A rejection raises the exception of its domain (:class:`SummaryError`, :class:`InputError`,
:class:`OutputError`, :class:`ReplacementError`, :class:`PolicyError`, :class:`ContextError`,
:class:`FingerprintError`), all
subclasses of :class:`LoopcompactError` (a ``ValueError``). The exception carries the
:class:`Diagnostic` of the failure, computed by the ``_diagnose`` C function of the call, and
exposes its fields as attributes. Nothing in it comes from the input (C13.1).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, List, Optional, Sequence, Type

from . import _native
from ._constants import LIMIT_UNKNOWN, LOCATION_CAP, OFFSET_UNKNOWN, Cleanup, Section, Status, StatusClass
from ._native import lc_diagnostic
from ._text import utf8

_lib = _native.lib


def _text(value: Optional[bytes]) -> str:
    return value.decode("utf-8") if value else ""


def status_name(status: int) -> str:
    """``"LC_SUMMARY_XML_ROOT"``; ``"LC_UNKNOWN_STATUS"`` for a value not in the table."""
    return _text(_lib.lc_status_name(_int32(status, "status")))


def status_reason(status: int) -> str:
    """The reference's reason string (``"xml_root"``); ``""`` for LC_OK and boundary errors."""
    return _text(_lib.lc_status_reason(_int32(status, "status")))


def status_message(status: int) -> str:
    """One human sentence describing the status."""
    return _text(_lib.lc_status_message(_int32(status, "status")))


def status_class(status: int) -> StatusClass:
    """What a host does next about ``status`` (SPEC C13.3, ``lc_status_class``)."""
    return _known_class(_lib.lc_status_class(_int32(status, "status")))


def _known_class(value: int) -> StatusClass:
    # A class that a newer library (LOOPCOMPACT_LIB) added is the host's business, as an unknown
    # status is (C13.3).
    try:
        return StatusClass(value)
    except ValueError:
        return StatusClass.HOST


def _int32(value: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not -(1 << 31) <= value < (1 << 31):
        raise ValueError(f"{what} must be a 32-bit signed integer, got {value}")
    return value


#: Every cleanup flag this package knows.
_KNOWN_CLEANUP = sum(int(flag) for flag in Cleanup)


_new = object.__new__

#: Enum members by value, for :meth:`Diagnostic.from_c`.
_SECTIONS = {int(member): member for member in Section}
_CLASSES = {int(member): member for member in StatusClass}
_CLEANUPS = {bits: Cleanup(bits) for bits in range(_KNOWN_CLEANUP + 1) if bits & ~_KNOWN_CLEANUP == 0}


def _section_name(section: int) -> str:
    # The element name, as the CLI prints it: `root` for the root element.
    return "root" if section == Section.ROOT else Section(section).name.lower()


@dataclass(frozen=True)
class Diagnostic:
    """Where and what of a failure (``lc_diagnostic``, SPEC C13.2), or of a success (status 0).

    ``offset`` counts bytes of the checked document (for a summary inside a reply: of the decoded
    summary text); ``line`` and ``column`` are 1-based (the column counts characters); each is
    ``None`` when unknown, as are ``limit`` and ``actual`` outside byte and token limits.
    ``section`` is ``Section.NONE`` when no section is concerned; ``rule`` (``"X4.17"``),
    ``expected`` (``"<constraints>"``) and ``location`` (``"transcript[3].blocks[0].type"``) are
    ``""`` when there is none. For a bare reply (:meth:`Input.validate_reply`, SPEC R15.7),
    ``removed`` is the :class:`Cleanup` that removed something around it and ``removed_before`` /
    ``removed_after`` the bytes it removed on each side (all 0 elsewhere, and when nothing was).
    """

    status: int
    status_class: StatusClass
    section: Section = Section.NONE
    offset: Optional[int] = None
    line: Optional[int] = None
    column: Optional[int] = None
    limit: Optional[int] = None
    actual: Optional[int] = None
    rule: str = ""
    expected: str = ""
    location: str = ""
    removed: Cleanup = Cleanup(0)
    removed_before: int = 0
    removed_after: int = 0

    @classmethod
    def of_status(cls, status: int) -> "Diagnostic":
        """What is known of a status without a diagnosis: its class."""
        return cls(status=status, status_class=status_class(status))

    @classmethod
    def from_c(cls, d: lc_diagnostic) -> "Diagnostic":
        # The round reads a diagnosis per attempt, successes included: enum members come from
        # tables built once (an Enum call costs a microsecond or more), and the ctypes fields are
        # read once each. Values a newer library adds (a section, a class, a cleanup bit) map as
        # Section.NONE, StatusClass.HOST and dropped bits.
        # The instance is made with one dict update, not the frozen dataclass's generated
        # __init__ (an object.__setattr__ per field: 2.6 us for these 14 fields, against 0.8 us);
        # tests/test_round.py checks it equals the constructor's, field for field.
        offset, limit, actual = d.offset, d.limit, d.actual
        rule, expected = d.rule, d.expected
        made = _new(cls)
        made.__dict__.update(
            status=d.status,
            status_class=_CLASSES.get(d.status_class, StatusClass.HOST),
            section=_SECTIONS.get(d.section, Section.NONE),
            offset=None if offset == OFFSET_UNKNOWN else offset,
            line=d.line or None,
            column=d.column or None,
            limit=None if limit == LIMIT_UNKNOWN else limit,
            actual=None if actual == LIMIT_UNKNOWN else actual,
            rule=rule.decode("utf-8") if rule else "",
            expected=expected.decode("utf-8") if expected else "",
            # A `char[]` field reads as the bytes before its first NUL.
            location=d.location.decode("utf-8", "replace"),
            removed=_CLEANUPS[d.removed & _KNOWN_CLEANUP],
            removed_before=d.removed_before,
            removed_after=d.removed_after,
        )
        return made

    def to_c(self) -> lc_diagnostic:
        d = lc_diagnostic()
        d.struct_size = ctypes.sizeof(lc_diagnostic)
        d.status = self.status
        d.status_class = int(self.status_class)
        d.section = int(self.section)
        d.offset = OFFSET_UNKNOWN if self.offset is None else self.offset
        d.line = self.line or 0
        d.column = self.column or 0
        d.limit = LIMIT_UNKNOWN if self.limit is None else self.limit
        d.actual = LIMIT_UNKNOWN if self.actual is None else self.actual
        d.rule = utf8(self.rule)
        d.expected = utf8(self.expected)
        d.location = utf8(self.location)[: LOCATION_CAP - 1]
        d.removed = int(self.removed)
        d.removed_before = self.removed_before
        d.removed_after = self.removed_after
        return d

    @property
    def ok(self) -> bool:
        return self.status == Status.OK

    @property
    def name(self) -> str:
        return status_name(self.status)

    @property
    def reason(self) -> str:
        return status_reason(self.status)

    @property
    def message(self) -> str:
        return status_message(self.status)

    def where(self) -> List[str]:
        """The known parts of the position, in the order the CLI prints them."""
        return self._position() + self._facts()

    def _position(self) -> List[str]:
        parts = []
        if self.offset is not None:
            parts.append(f"byte {self.offset}")
        if self.line:
            parts.append(f"line {self.line}, column {self.column}")
        return parts

    def _facts(self) -> List[str]:
        parts = []
        if self.section != Section.NONE:
            parts.append(f"section {_section_name(self.section)}")
        if self.rule:
            parts.append(f"rule {self.rule}")
        if self.location:
            parts.append(f"location {self.location}")
        if self.expected:
            parts.append(f"expected {self.expected}")
        if self.limit is not None and self.actual is not None:
            parts.append(f"limit {self.limit}, actual {self.actual}")
        return parts

    def describe(self, more: Sequence[str] = ()) -> str:
        """The known facts as the CLI and ``str()`` print them after the status: ``" at byte 39,
        line 1, column 40, section constraints, rule X4.18"``, or without a position
        ``", rule O6.2"`` (``at`` only introduces a position); ``more`` comes last."""
        position = self._position()
        facts = [*self._facts(), *more]
        return (f" at {', '.join(position)}" if position else "") + "".join(f", {fact}" for fact in facts)

    def cleanup(self) -> str:
        """What cleanup removed, as ``str()`` ends with it: ``"cleanup trim+unfence removed 7
        bytes before, 5 after"``, or ``""`` when it removed nothing."""
        if not self.removed:
            return ""
        flags = "+".join(name for name, flag in (("trim", Cleanup.TRIM), ("unfence", Cleanup.UNFENCE)) if flag in self.removed)
        return f"cleanup {flags} removed {self.removed_before} bytes before, {self.removed_after} after"

    def retry_message(self) -> str:
        """The message for the summariser about this failure (SPEC C13.5, ``lc_retry_message``):
        what was wrong and where; for a status not of class RETRY, that no retry is useful."""
        return retry_message(self)

    def __str__(self) -> str:
        cleanup = self.cleanup()
        return f"{self.name} ({self.status}){self.describe()}: {self.message}" + (f" [{cleanup}]" if cleanup else "")


def retry_message(diagnostic: Diagnostic) -> str:
    """``lc_retry_message`` for ``diagnostic`` (SPEC C13.5): UTF-8 text for the summariser."""
    d = diagnostic.to_c()
    needed = ctypes.c_size_t(0)
    status = _lib.lc_retry_message(ctypes.byref(d), None, 0, ctypes.byref(needed))
    while status == Status.ERR_BUFFER_TOO_SMALL:
        buf = ctypes.create_string_buffer(needed.value)
        status = _lib.lc_retry_message(ctypes.byref(d), buf, needed.value, ctypes.byref(needed))
        if status == Status.OK:
            return ctypes.string_at(buf, needed.value).decode("utf-8")
    if status != Status.OK:
        raise LoopcompactError(Diagnostic.of_status(status))
    return ""


class LoopcompactError(ValueError):
    """A call of the library rejected its input (any status other than ``LC_OK``).

    Attributes (from the :class:`Diagnostic`, ``.diagnostic``): ``status`` (the ``lc_status``
    value), ``name`` (``"LC_SUMMARY_XML_ROOT"``), ``reason`` (``"xml_root"``; ``""`` for boundary
    errors), ``message`` (one sentence), ``status_class`` (``StatusClass``), ``section``,
    ``offset``, ``line``, ``column``, ``rule``, ``expected``, ``location``, ``limit``, ``actual``,
    and for a bare reply ``removed``, ``removed_before``, ``removed_after``.
    Several statuses share a reason (``"wire"``): compare ``status`` to tell them apart.
    """

    #: The document the domain checks, as the CLI names it.
    document: ClassVar[str] = "document"

    diagnostic: Diagnostic
    status: int
    name: str
    reason: str
    message: str
    status_class: StatusClass
    section: Section
    offset: Optional[int]
    line: Optional[int]
    column: Optional[int]
    limit: Optional[int]
    actual: Optional[int]
    rule: str
    expected: str
    location: str
    removed: Cleanup
    removed_before: int
    removed_after: int

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic)
        self.diagnostic = diagnostic
        self.status = diagnostic.status
        self.name = diagnostic.name
        self.reason = diagnostic.reason
        self.message = diagnostic.message
        self.status_class = diagnostic.status_class
        self.section = diagnostic.section
        self.offset = diagnostic.offset
        self.line = diagnostic.line
        self.column = diagnostic.column
        self.limit = diagnostic.limit
        self.actual = diagnostic.actual
        self.rule = diagnostic.rule
        self.expected = diagnostic.expected
        self.location = diagnostic.location
        self.removed = diagnostic.removed
        self.removed_before = diagnostic.removed_before
        self.removed_after = diagnostic.removed_after

    def retry_message(self) -> str:
        """The message for the summariser (SPEC C13.5); see :meth:`Diagnostic.retry_message`."""
        return self.diagnostic.retry_message()

    def __str__(self) -> str:
        return str(self.diagnostic)


class SummaryError(LoopcompactError):
    """A summary XML document was rejected (SPEC §4, §13.7, §13.8)."""

    document = "summary"


class InputError(LoopcompactError):
    """A compaction input, its fitting, or its transcript's pairing was rejected (SPEC §5, §7, §14)."""

    document = "input"


class OutputError(LoopcompactError):
    """A summariser's reply was rejected (SPEC §6, or R15.3 for the bare reply); summary failures
    have ``location`` ``summary``."""

    document = "output"


class PolicyError(LoopcompactError):
    """A compaction or context observation policy was rejected (SPEC §8.1, §8.2, §14.6)."""

    document = "policy"


class ContextError(LoopcompactError):
    """A context configuration, context limits or the loop guard rejected the call (SPEC §8.3, §9,
    §14.5)."""

    document = "context"


class ReplacementError(LoopcompactError):
    """A replacement transcript could not be built for a cut, or a rebuilt one differs from the
    rule (SPEC R15.9-R15.11); ``location`` names the first differing message and block."""

    document = "replacement"


class FingerprintError(LoopcompactError):
    """A request fingerprint document was rejected (SPEC §10)."""

    document = "fingerprint"


class ConversionError(LoopcompactError):
    """A provider's message list could not be converted (SPEC §16): ``LC_CONVERT_WIRE`` (not
    JSON), ``LC_CONVERT_SHAPE`` (not the format's shape; ``location`` such as
    ``messages[3].tool_calls[0].function.arguments``), ``LC_CONVERT_LOSS`` (``strict``: the first
    loss, its name in ``expected``), or a cut that is not a source boundary (``LC_CUT_UNSAFE``)."""

    document = "source"


ErrorType = Type[LoopcompactError]

# Below 100 are the boundary statuses (NULL, buffer, length, argument, panic): no diagnosis.
_FIRST_CONTENT_STATUS = 100


def check(status: int, error: ErrorType, diagnose: Optional[Callable[[], Diagnostic]] = None) -> None:
    """Raises ``error`` unless ``status`` is ``LC_OK``; the diagnosis (``diagnose()``, which re-runs
    the check through its ``_diagnose`` C function) is computed only then, and only for a failure
    of the content: the boundary statuses carry nothing more than their class."""
    if status == Status.OK:
        return
    if diagnose is not None and status >= _FIRST_CONTENT_STATUS:
        found = diagnose()
        # A diagnosis through another check (the pairing check for a repair's 502) may find
        # another failure first: the status raised is always the call's.
        if found.status == status:
            raise error(found)
    raise error(Diagnostic.of_status(status))


def diagnosis(call: Callable[[Any], int]) -> Diagnostic:
    """Runs ``call(byref(diag))`` on a fresh ``lc_diagnostic`` and returns what it filled."""
    d = lc_diagnostic()
    d.struct_size = ctypes.sizeof(lc_diagnostic)
    call(ctypes.byref(d))
    return Diagnostic.from_c(d)
