"""Constants of the C ABI, generated from include/loopcompact.h: do not edit.

Rewrite with ``python bindings/python/build_backend/loopcompact_build.py constants``; wheels
generate it afresh from the header of the library they carry. Each ``#define LC_NAME`` is
``NAME`` here; the small enums of the header are also ``IntEnum`` classes.
"""

from enum import IntEnum
from typing import Final, List

#: Version of the library these declarations come from.
VERSION_MAJOR: Final = 0
#: ``LOOPCOMPACT_VERSION_MINOR``.
VERSION_MINOR: Final = 1
#: ``LOOPCOMPACT_VERSION_PATCH``.
VERSION_PATCH: Final = 0
#: ``LOOPCOMPACT_VERSION_STRING``.
VERSION_STRING: Final = "0.1.0"
#: ABI version: what lc_abi_version() returns for this header.
ABI_VERSION: Final = 0
#: Length in bytes of a request fingerprint (a SHA-256 digest): the size of the `out` buffer of `lc_request_fingerprint`.
FINGERPRINT_LEN: Final = 32
#: `lc_diagnostic.offset` when no offset is known.
OFFSET_UNKNOWN: Final = 18446744073709551615
#: `lc_diagnostic.limit` and `.actual` when the failure is not a byte or token limit.
LIMIT_UNKNOWN: Final = 18446744073709551615
#: Size of `lc_diagnostic.location`, its terminating NUL included.
LOCATION_CAP: Final = 128


class Status(IntEnum):
    """A status code (``lc_status``): ``LC_OK`` and every code of the status table."""

    #: 0 (reason ""): Success.
    OK = 0
    #: 1 (reason ""): A required pointer argument was NULL, or a NULL buffer was given with a non-zero length.
    ERR_NULL_ARGUMENT = 1
    #: 2 (reason ""): The output buffer is too small; *out_len holds the size needed.
    ERR_BUFFER_TOO_SMALL = 2
    #: 3 (reason ""): An input length is larger than isize::MAX.
    ERR_LENGTH_OVERFLOW = 3
    #: 4 (reason ""): An integer argument is outside the values its function documents.
    ERR_INVALID_ARGUMENT = 4
    #: 99 (reason ""): Internal error: the library caught a panic; please report it.
    ERR_PANIC = 99
    #: 100 (reason "wire"): The compaction input is not a well-formed version 1 wire document.
    INPUT_WIRE = 100
    #: 101 (reason "basis"): The compaction input's basis is invalid (zero revision, or a non-canonical or all-zero event id).
    INPUT_BASIS = 101
    #: 102 (reason "model"): The compaction input's model has an empty provider or name.
    INPUT_MODEL = 102
    #: 103 (reason "request_fingerprint"): The compaction input's request fingerprint is not 64 lower-case hex characters, or is all zero.
    INPUT_REQUEST_FINGERPRINT = 103
    #: 104 (reason "transcript"): The compaction input's transcript is invalid or empty.
    INPUT_TRANSCRIPT = 104
    #: 105 (reason "max_summary_tokens"): The compaction input's max_summary_tokens is zero.
    INPUT_MAX_SUMMARY_TOKENS = 105
    #: 110 (reason "too_large"): The compaction input does not fit under the byte limit, even with old tool results omitted.
    INPUT_TOO_LARGE = 110
    #: 200 (reason "wire"): The summariser's reply is not a well-formed version 1 output wire document.
    SUMMARY_WIRE = 200
    #: 201 (reason "identity"): The summariser's reply belongs to a different request (basis, model or fingerprint differ).
    SUMMARY_IDENTITY = 201
    #: 202 (reason "output_shape"): The summariser's reply does not have the expected shape (reserved for the host's runtime).
    SUMMARY_OUTPUT_SHAPE = 202
    #: 203 (reason "byte_limit"): The summariser's reply is longer than the byte limit.
    SUMMARY_BYTE_LIMIT = 203
    #: 204 (reason "token_usage"): The provider reported no output token usage for the summariser's reply.
    SUMMARY_TOKEN_USAGE = 204
    #: 205 (reason "token_limit"): The summariser's reply used more output tokens than max_summary_tokens.
    SUMMARY_TOKEN_LIMIT = 205
    #: 206 (reason "xml_syntax"): The summary is not well-formed XML.
    SUMMARY_XML_SYNTAX = 206
    #: 207 (reason "xml_root"): The summary's root element is missing or is not conversation_summary.
    SUMMARY_XML_ROOT = 207
    #: 208 (reason "xml_structure"): The summary does not have the required structure of five sections in order.
    SUMMARY_XML_STRUCTURE = 208
    #: 209 (reason "xml_content"): The summary's goal or state section is blank.
    SUMMARY_XML_CONTENT = 209
    #: 250 (reason "summary_too_large"): The compacted request still reaches its input token limit.
    SUMMARY_TOO_LARGE = 250
    #: 300 (reason "wire"): The compaction policy document is malformed.
    POLICY_WIRE = 300
    #: 301 (reason "CounterPolicy"): The compaction policy's CounterPolicy does not accept the token counter's quality.
    POLICY_COUNTER_POLICY = 301
    #: 302 (reason "CompactAt"): The compaction policy's CompactAt must be below 10000 basis points.
    POLICY_COMPACT_AT = 302
    #: 303 (reason "RearmBelow"): The compaction policy's RearmBelow must be non-zero and below CompactAt.
    POLICY_REARM_BELOW = 303
    #: 304 (reason "ReservedOutput"): The compaction policy's ReservedOutput must be non-zero.
    POLICY_RESERVED_OUTPUT = 304
    #: 305 (reason "SafetyMargin"): The compaction policy needs a non-zero SafetyMargin with a heuristic token counter.
    POLICY_SAFETY_MARGIN = 305
    #: 306 (reason "MaxSummaryTokens"): The compaction policy's MaxSummaryTokens must be non-zero.
    POLICY_MAX_SUMMARY_TOKENS = 306
    #: 307 (reason "CountTimeout"): The compaction policy's CountTimeout must be positive.
    POLICY_COUNT_TIMEOUT = 307
    #: 308 (reason "Hustle"): The compaction policy's Hustle name is blank or reserved.
    POLICY_HUSTLE = 308
    #: 320 (reason "wire"): The context observation policy document is malformed.
    OBSERVATION_WIRE = 320
    #: 321 (reason "ReservedOutput"): The context observation policy's ReservedOutput must be non-zero.
    OBSERVATION_RESERVED_OUTPUT = 321
    #: 322 (reason "SafetyMargin"): The context observation policy needs a non-zero SafetyMargin with a heuristic token counter.
    OBSERVATION_SAFETY_MARGIN = 322
    #: 323 (reason "CountTimeout"): The context observation policy's CountTimeout must be positive.
    OBSERVATION_COUNT_TIMEOUT = 323
    #: 340 (reason "wire"): The context configuration document is malformed.
    CONTEXT_WIRE = 340
    #: 341 (reason "conflicting_context_policy"): The context configuration sets both Compaction and ContextObservation.
    CONTEXT_CONFLICTING_POLICY = 341
    #: 342 (reason "missing_context_counter"): The context configuration needs a CounterCapability.
    CONTEXT_MISSING_COUNTER = 342
    #: 343 (reason "missing_inference_capability"): The context configuration has a counter but no InferenceCapability.
    CONTEXT_MISSING_INFERENCE_CAPABILITY = 343
    #: 344 (reason "missing_context_policy"): The context configuration has capabilities but neither Compaction nor ContextObservation.
    CONTEXT_MISSING_POLICY = 344
    #: 345 (reason "invalid_context_counter"): The context configuration's CounterCapability is invalid.
    CONTEXT_INVALID_COUNTER = 345
    #: 346 (reason "invalid_inference_capability"): The context configuration's InferenceCapability is invalid.
    CONTEXT_INVALID_INFERENCE_CAPABILITY = 346
    #: 347 (reason "incompatible_context_counter"): The token counter is not compatible with the inference capability.
    CONTEXT_INCOMPATIBLE_COUNTER = 347
    #: 360 (reason "context_limit_unknown"): The context limits do not give a usable input limit.
    LIMITS_UNKNOWN = 360
    #: 361 (reason "occupancy_zero_limit"): Occupancy cannot be computed against a zero limit.
    OCCUPANCY_ZERO_LIMIT = 361
    #: 400 (reason "wire"): The request fingerprint document is malformed.
    FINGERPRINT_WIRE = 400
    #: 401 (reason "SystemRevision"): The request's SystemRevision is empty.
    FINGERPRINT_SYSTEM_REVISION = 401
    #: 402 (reason "ToolPolicyRevision"): The request's ToolPolicyRevision is empty.
    FINGERPRINT_TOOL_POLICY_REVISION = 402
    #: 403 (reason "RuntimeContextRevision"): The request's RuntimeContextRevision is empty.
    FINGERPRINT_RUNTIME_CONTEXT_REVISION = 403
    #: 404 (reason "Model"): The request's model is invalid.
    FINGERPRINT_MODEL = 404
    #: 405 (reason "Basis"): The request's basis has a zero revision or an all-zero event id.
    FINGERPRINT_BASIS = 405
    #: 406 (reason "CounterCapability"): The request's counter capability is invalid.
    FINGERPRINT_COUNTER_CAPABILITY = 406
    #: 407 (reason "InferenceCapability"): The request's inference capability is invalid.
    FINGERPRINT_INFERENCE_CAPABILITY = 407
    #: 408 (reason "Encoding"): The request cannot be encoded (a sampling value is NaN or infinite).
    FINGERPRINT_ENCODING = 408
    #: 500 (reason "unanswered_tool_call"): A tool call of an assistant message has no tool result before the next assistant message.
    PAIRING_UNANSWERED_CALL = 500
    #: 501 (reason "orphan_tool_result"): A tool result answers no tool call of the latest assistant message before it.
    PAIRING_ORPHAN_RESULT = 501
    #: 502 (reason "duplicate_tool_use_id"): A tool call id appears twice in the transcript.
    PAIRING_DUPLICATE_ID = 502
    #: 503 (reason "duplicate_tool_result"): A tool call has more than one tool result.
    PAIRING_DUPLICATE_RESULT = 503
    #: 510 (reason "unsafe_cut"): The cut separates a tool call from its result.
    CUT_UNSAFE = 510
    #: 520 (reason "no_progress"): After the replacement the occupancy is still at or above the re-arm threshold: the next turn compacts again.
    COMPACTION_NO_PROGRESS = 520
    #: 521 (reason "threshold_unreachable"): Even an empty history (the fixed part plus the summary budget) reaches the re-arm threshold: compaction would trigger forever.
    COMPACTION_THRESHOLD_UNREACHABLE = 521


OK: Final = Status.OK
ERR_NULL_ARGUMENT: Final = Status.ERR_NULL_ARGUMENT
ERR_BUFFER_TOO_SMALL: Final = Status.ERR_BUFFER_TOO_SMALL
ERR_LENGTH_OVERFLOW: Final = Status.ERR_LENGTH_OVERFLOW
ERR_INVALID_ARGUMENT: Final = Status.ERR_INVALID_ARGUMENT
ERR_PANIC: Final = Status.ERR_PANIC
INPUT_WIRE: Final = Status.INPUT_WIRE
INPUT_BASIS: Final = Status.INPUT_BASIS
INPUT_MODEL: Final = Status.INPUT_MODEL
INPUT_REQUEST_FINGERPRINT: Final = Status.INPUT_REQUEST_FINGERPRINT
INPUT_TRANSCRIPT: Final = Status.INPUT_TRANSCRIPT
INPUT_MAX_SUMMARY_TOKENS: Final = Status.INPUT_MAX_SUMMARY_TOKENS
INPUT_TOO_LARGE: Final = Status.INPUT_TOO_LARGE
SUMMARY_WIRE: Final = Status.SUMMARY_WIRE
SUMMARY_IDENTITY: Final = Status.SUMMARY_IDENTITY
SUMMARY_OUTPUT_SHAPE: Final = Status.SUMMARY_OUTPUT_SHAPE
SUMMARY_BYTE_LIMIT: Final = Status.SUMMARY_BYTE_LIMIT
SUMMARY_TOKEN_USAGE: Final = Status.SUMMARY_TOKEN_USAGE
SUMMARY_TOKEN_LIMIT: Final = Status.SUMMARY_TOKEN_LIMIT
SUMMARY_XML_SYNTAX: Final = Status.SUMMARY_XML_SYNTAX
SUMMARY_XML_ROOT: Final = Status.SUMMARY_XML_ROOT
SUMMARY_XML_STRUCTURE: Final = Status.SUMMARY_XML_STRUCTURE
SUMMARY_XML_CONTENT: Final = Status.SUMMARY_XML_CONTENT
SUMMARY_TOO_LARGE: Final = Status.SUMMARY_TOO_LARGE
POLICY_WIRE: Final = Status.POLICY_WIRE
POLICY_COUNTER_POLICY: Final = Status.POLICY_COUNTER_POLICY
POLICY_COMPACT_AT: Final = Status.POLICY_COMPACT_AT
POLICY_REARM_BELOW: Final = Status.POLICY_REARM_BELOW
POLICY_RESERVED_OUTPUT: Final = Status.POLICY_RESERVED_OUTPUT
POLICY_SAFETY_MARGIN: Final = Status.POLICY_SAFETY_MARGIN
POLICY_MAX_SUMMARY_TOKENS: Final = Status.POLICY_MAX_SUMMARY_TOKENS
POLICY_COUNT_TIMEOUT: Final = Status.POLICY_COUNT_TIMEOUT
POLICY_HUSTLE: Final = Status.POLICY_HUSTLE
OBSERVATION_WIRE: Final = Status.OBSERVATION_WIRE
OBSERVATION_RESERVED_OUTPUT: Final = Status.OBSERVATION_RESERVED_OUTPUT
OBSERVATION_SAFETY_MARGIN: Final = Status.OBSERVATION_SAFETY_MARGIN
OBSERVATION_COUNT_TIMEOUT: Final = Status.OBSERVATION_COUNT_TIMEOUT
CONTEXT_WIRE: Final = Status.CONTEXT_WIRE
CONTEXT_CONFLICTING_POLICY: Final = Status.CONTEXT_CONFLICTING_POLICY
CONTEXT_MISSING_COUNTER: Final = Status.CONTEXT_MISSING_COUNTER
CONTEXT_MISSING_INFERENCE_CAPABILITY: Final = Status.CONTEXT_MISSING_INFERENCE_CAPABILITY
CONTEXT_MISSING_POLICY: Final = Status.CONTEXT_MISSING_POLICY
CONTEXT_INVALID_COUNTER: Final = Status.CONTEXT_INVALID_COUNTER
CONTEXT_INVALID_INFERENCE_CAPABILITY: Final = Status.CONTEXT_INVALID_INFERENCE_CAPABILITY
CONTEXT_INCOMPATIBLE_COUNTER: Final = Status.CONTEXT_INCOMPATIBLE_COUNTER
LIMITS_UNKNOWN: Final = Status.LIMITS_UNKNOWN
OCCUPANCY_ZERO_LIMIT: Final = Status.OCCUPANCY_ZERO_LIMIT
FINGERPRINT_WIRE: Final = Status.FINGERPRINT_WIRE
FINGERPRINT_SYSTEM_REVISION: Final = Status.FINGERPRINT_SYSTEM_REVISION
FINGERPRINT_TOOL_POLICY_REVISION: Final = Status.FINGERPRINT_TOOL_POLICY_REVISION
FINGERPRINT_RUNTIME_CONTEXT_REVISION: Final = Status.FINGERPRINT_RUNTIME_CONTEXT_REVISION
FINGERPRINT_MODEL: Final = Status.FINGERPRINT_MODEL
FINGERPRINT_BASIS: Final = Status.FINGERPRINT_BASIS
FINGERPRINT_COUNTER_CAPABILITY: Final = Status.FINGERPRINT_COUNTER_CAPABILITY
FINGERPRINT_INFERENCE_CAPABILITY: Final = Status.FINGERPRINT_INFERENCE_CAPABILITY
FINGERPRINT_ENCODING: Final = Status.FINGERPRINT_ENCODING
PAIRING_UNANSWERED_CALL: Final = Status.PAIRING_UNANSWERED_CALL
PAIRING_ORPHAN_RESULT: Final = Status.PAIRING_ORPHAN_RESULT
PAIRING_DUPLICATE_ID: Final = Status.PAIRING_DUPLICATE_ID
PAIRING_DUPLICATE_RESULT: Final = Status.PAIRING_DUPLICATE_RESULT
CUT_UNSAFE: Final = Status.CUT_UNSAFE
COMPACTION_NO_PROGRESS: Final = Status.COMPACTION_NO_PROGRESS
COMPACTION_THRESHOLD_UNREACHABLE: Final = Status.COMPACTION_THRESHOLD_UNREACHABLE

class CounterQuality(IntEnum):
    """Quality of a token counter (SPEC P8.4), ``LC_COUNTER_QUALITY_*``."""

    #: Counter quality (SPEC P8.4), the `counter_quality` argument: unknown. Any value other than the four `LC_COUNTER_QUALITY_*` constants is treated as unknown (A3.5).
    UNKNOWN = 0
    #: Counter quality: exact, from the provider.
    EXACT_PROVIDER = 1
    #: Counter quality: exact, from a local tokenizer.
    EXACT_LOCAL = 2
    #: Counter quality: a heuristic estimate.
    HEURISTIC = 3


COUNTER_QUALITY_UNKNOWN: Final = CounterQuality.UNKNOWN
COUNTER_QUALITY_EXACT_PROVIDER: Final = CounterQuality.EXACT_PROVIDER
COUNTER_QUALITY_EXACT_LOCAL: Final = CounterQuality.EXACT_LOCAL
COUNTER_QUALITY_HEURISTIC: Final = CounterQuality.HEURISTIC

class Pressure(IntEnum):
    """Context pressure level (SPEC L9.3), ``LC_PRESSURE_*``."""

    #: Pressure level (SPEC L9.3) returned by `lc_pressure_level`: unknown, only if the library failed internally (A3.4).
    UNKNOWN = 0
    #: Pressure level: below the compaction threshold (or not automatic).
    NORMAL = 1
    #: Pressure level: compaction is due (or still due, inside the re-arm band).
    COMPACT = 2
    #: Pressure level: the context is full.
    HARD_LIMIT = 3


PRESSURE_UNKNOWN: Final = Pressure.UNKNOWN
PRESSURE_NORMAL: Final = Pressure.NORMAL
PRESSURE_COMPACT: Final = Pressure.COMPACT
PRESSURE_HARD_LIMIT: Final = Pressure.HARD_LIMIT

class StatusClass(IntEnum):
    """What a host does next about a status (SPEC C13.3), ``LC_CLASS_*``."""

    #: Status class (SPEC C13.3, `lc_status_class`): `LC_OK`.
    OK = 0
    #: Status class: a new attempt by the summariser can fix it (grammar, content, byte and token limits); send `lc_retry_message` with the next try.
    RETRY = 1
    #: Status class: this result can never be used, and retrying the same request will not help.
    DISCARD = 2
    #: Status class: the host's own document, policy or call is wrong.
    HOST = 3
    #: Status class: a bug in the library (`LC_ERR_PANIC`).
    BUG = 4


CLASS_OK: Final = StatusClass.OK
CLASS_RETRY: Final = StatusClass.RETRY
CLASS_DISCARD: Final = StatusClass.DISCARD
CLASS_HOST: Final = StatusClass.HOST
CLASS_BUG: Final = StatusClass.BUG

class Section(IntEnum):
    """A summary section (SPEC C13.4), ``LC_SECTION_*``."""

    #: Summary section (`lc_diagnostic.section`, `lc_summary_section_text`): none.
    NONE = 0
    #: Summary section: `goal`.
    GOAL = 1
    #: Summary section: `constraints`.
    CONSTRAINTS = 2
    #: Summary section: `decisions`.
    DECISIONS = 3
    #: Summary section: `state`.
    STATE = 4
    #: Summary section: `open_items`.
    OPEN_ITEMS = 5
    #: Summary section: the root element `conversation_summary`, outside any section.
    ROOT = 6


SECTION_NONE: Final = Section.NONE
SECTION_GOAL: Final = Section.GOAL
SECTION_CONSTRAINTS: Final = Section.CONSTRAINTS
SECTION_DECISIONS: Final = Section.DECISIONS
SECTION_STATE: Final = Section.STATE
SECTION_OPEN_ITEMS: Final = Section.OPEN_ITEMS
SECTION_ROOT: Final = Section.ROOT


__all__: List[str] = [
    "ABI_VERSION",
    "CLASS_BUG",
    "CLASS_DISCARD",
    "CLASS_HOST",
    "CLASS_OK",
    "CLASS_RETRY",
    "COMPACTION_NO_PROGRESS",
    "COMPACTION_THRESHOLD_UNREACHABLE",
    "CONTEXT_CONFLICTING_POLICY",
    "CONTEXT_INCOMPATIBLE_COUNTER",
    "CONTEXT_INVALID_COUNTER",
    "CONTEXT_INVALID_INFERENCE_CAPABILITY",
    "CONTEXT_MISSING_COUNTER",
    "CONTEXT_MISSING_INFERENCE_CAPABILITY",
    "CONTEXT_MISSING_POLICY",
    "CONTEXT_WIRE",
    "COUNTER_QUALITY_EXACT_LOCAL",
    "COUNTER_QUALITY_EXACT_PROVIDER",
    "COUNTER_QUALITY_HEURISTIC",
    "COUNTER_QUALITY_UNKNOWN",
    "CUT_UNSAFE",
    "CounterQuality",
    "ERR_BUFFER_TOO_SMALL",
    "ERR_INVALID_ARGUMENT",
    "ERR_LENGTH_OVERFLOW",
    "ERR_NULL_ARGUMENT",
    "ERR_PANIC",
    "FINGERPRINT_BASIS",
    "FINGERPRINT_COUNTER_CAPABILITY",
    "FINGERPRINT_ENCODING",
    "FINGERPRINT_INFERENCE_CAPABILITY",
    "FINGERPRINT_LEN",
    "FINGERPRINT_MODEL",
    "FINGERPRINT_RUNTIME_CONTEXT_REVISION",
    "FINGERPRINT_SYSTEM_REVISION",
    "FINGERPRINT_TOOL_POLICY_REVISION",
    "FINGERPRINT_WIRE",
    "INPUT_BASIS",
    "INPUT_MAX_SUMMARY_TOKENS",
    "INPUT_MODEL",
    "INPUT_REQUEST_FINGERPRINT",
    "INPUT_TOO_LARGE",
    "INPUT_TRANSCRIPT",
    "INPUT_WIRE",
    "LIMITS_UNKNOWN",
    "LIMIT_UNKNOWN",
    "LOCATION_CAP",
    "OBSERVATION_COUNT_TIMEOUT",
    "OBSERVATION_RESERVED_OUTPUT",
    "OBSERVATION_SAFETY_MARGIN",
    "OBSERVATION_WIRE",
    "OCCUPANCY_ZERO_LIMIT",
    "OFFSET_UNKNOWN",
    "OK",
    "PAIRING_DUPLICATE_ID",
    "PAIRING_DUPLICATE_RESULT",
    "PAIRING_ORPHAN_RESULT",
    "PAIRING_UNANSWERED_CALL",
    "POLICY_COMPACT_AT",
    "POLICY_COUNTER_POLICY",
    "POLICY_COUNT_TIMEOUT",
    "POLICY_HUSTLE",
    "POLICY_MAX_SUMMARY_TOKENS",
    "POLICY_REARM_BELOW",
    "POLICY_RESERVED_OUTPUT",
    "POLICY_SAFETY_MARGIN",
    "POLICY_WIRE",
    "PRESSURE_COMPACT",
    "PRESSURE_HARD_LIMIT",
    "PRESSURE_NORMAL",
    "PRESSURE_UNKNOWN",
    "Pressure",
    "SECTION_CONSTRAINTS",
    "SECTION_DECISIONS",
    "SECTION_GOAL",
    "SECTION_NONE",
    "SECTION_OPEN_ITEMS",
    "SECTION_ROOT",
    "SECTION_STATE",
    "SUMMARY_BYTE_LIMIT",
    "SUMMARY_IDENTITY",
    "SUMMARY_OUTPUT_SHAPE",
    "SUMMARY_TOKEN_LIMIT",
    "SUMMARY_TOKEN_USAGE",
    "SUMMARY_TOO_LARGE",
    "SUMMARY_WIRE",
    "SUMMARY_XML_CONTENT",
    "SUMMARY_XML_ROOT",
    "SUMMARY_XML_STRUCTURE",
    "SUMMARY_XML_SYNTAX",
    "Section",
    "Status",
    "StatusClass",
    "VERSION_MAJOR",
    "VERSION_MINOR",
    "VERSION_PATCH",
    "VERSION_STRING",
]
