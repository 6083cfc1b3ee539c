"""Constants of the C ABI, generated from include/loopcompact.h: do not edit.

Rewrite with ``python bindings/python/build_backend/loopcompact_build.py constants``; wheels
generate it afresh from the header of the library they carry. Each group of ``#define``s is an
enum (``LC_SUMMARY_XML_ROOT`` is ``Status.SUMMARY_XML_ROOT``, ``LC_REPLY_TRIM`` is
``Cleanup.TRIM``); any other ``#define LC_NAME`` is ``NAME`` here.
"""

from enum import IntEnum, IntFlag
from typing import Final

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
#: Cut flag (SPEC G16.13): a pending tail (the unanswered calls of the last assistant message, the agent waiting for results) is kept instead of refusing the transcript.
CUT_PENDING_TAIL: Final = 1
#: `lc_violation::block` of a `tool` message's own `tool_use_id` (not a block).
NO_BLOCK: Final = 18446744073709551615
#: Length of the smallest summary SPEC §4 accepts: a reply byte limit below it can never be met (`LC_REPLY_BYTE_LIMIT_UNREACHABLE`).
SMALLEST_SUMMARY_LEN: Final = 114
#: Conversion flag: any loss refuses the conversion (`LC_CONVERT_LOSS`).
CONVERT_STRICT: Final = 1
#: `lc_conversion_source_index` of a wire message made from the system parameter (Anthropic `system`, Responses `instructions`, Gemini `system_instruction`), not a source message.
SOURCE_SYSTEM: Final = 18446744073709551615
#: `lc_summary_grammar` kind: one regular expression, matched against the whole reply (SPEC G17.4).
GRAMMAR_REGEX: Final = 1
#: `lc_summary_grammar` kind: a Lark grammar, start rule `start` (SPEC G17.5).
GRAMMAR_LARK: Final = 2
#: `lc_summary_grammar` kind: a GBNF grammar for llama.cpp, start rule `root` (SPEC G17.6).
GRAMMAR_GBNF: Final = 3


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
    #: 600 (reason "truncated"): The reply stopped at the provider's output limit before it was a complete, valid summary.
    REPLY_TRUNCATED = 600
    #: 601 (reason "byte_limit_unreachable"): The reply byte limit is below the smallest valid summary: no reply can meet it.
    REPLY_BYTE_LIMIT_UNREACHABLE = 601
    #: 610 (reason "empty_head"): The cut leaves nothing to summarise: only leading system messages come before it.
    REPLACEMENT_EMPTY_HEAD = 610
    #: 611 (reason "replacement_summary"): The summary message of the replacement is missing, malformed, or holds a summary that does not validate.
    REPLACEMENT_SUMMARY = 611
    #: 620 (reason "replacement_wire"): The rebuilt transcript is not a valid wire transcript.
    REPLACEMENT_WIRE = 620
    #: 621 (reason "prefix_changed"): The rebuilt transcript does not start with the original's leading system messages, unchanged.
    REPLACEMENT_PREFIX_CHANGED = 621
    #: 622 (reason "tail_changed"): A kept message or block of the rebuilt transcript differs from the original's (changed, dropped, added or reordered).
    REPLACEMENT_TAIL_CHANGED = 622
    #: 623 (reason "adjacent_user"): The summary message is followed by another user message; the summary must open that message instead.
    REPLACEMENT_ADJACENT_USER = 623
    #: 700 (reason "convert_wire"): The provider's message list is not well-formed JSON (grammar, nesting, UTF-8).
    CONVERT_WIRE = 700
    #: 701 (reason "convert_shape"): The provider's message list does not have its format's shape (a field missing or of the wrong type, an unknown role, a repeated key).
    CONVERT_SHAPE = 701
    #: 702 (reason "convert_loss"): The conversion would lose content the wire cannot carry, and the strict flag refuses any loss.
    CONVERT_LOSS = 702


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


class Stop(IntEnum):
    """How the summariser's call ended (SPEC R15.1), ``LC_STOP_*``."""

    #: How the summariser's call ended (`stop` of `lc_compaction_reply_validate`): not reported.
    UNKNOWN = 0
    #: The model ended its reply itself (OpenAI `stop`, Anthropic `end_turn`, Gemini `STOP`).
    END = 1
    #: The provider cut the reply at its output limit (OpenAI `length`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`): a reply that is not a valid summary is then `LC_REPLY_TRUNCATED`.
    LENGTH = 2


class Cleanup(IntFlag):
    """What cleanup of a reply may remove (SPEC R15.5), the ``LC_REPLY_*`` flags."""

    #: Cleanup flag of `lc_compaction_reply_validate`: remove White_Space (SPEC X4.21) around the reply.
    TRIM = 1
    #: Cleanup flag: remove one Markdown code fence around the whole reply (with or without a language tag). Nothing else is ever removed.
    UNFENCE = 2


class Format(IntEnum):
    """A source format of the converters (SPEC §16), ``LC_FORMAT_*``."""

    #: Source format: OpenAI Chat Completions, the `messages` array.
    OPENAI_CHAT = 1
    #: Source format: OpenAI Responses, `{"input": [...] or "text", "instructions": ...}`.
    OPENAI_RESPONSES = 2
    #: Source format: Anthropic Messages, `{"system": ..., "messages": [...]}`.
    ANTHROPIC = 3
    #: Source format: Google Gemini, `{"contents": [...], "system_instruction": ...}`.
    GEMINI = 4
    #: Source format: the Vercel AI SDK's `ModelMessage[]` as JSON.
    AI_SDK = 5
    #: Source format: LangChain messages as `messages_to_dict`, `dumpd` or `model_dump` give them.
    LANGCHAIN = 6


class LossCode(IntEnum):
    """What a conversion could not carry (SPEC §16), ``LC_LOSS_*``: ``loss_name`` gives the stable name."""

    #: Loss code: a cache breakpoint was dropped.
    DROPPED_CACHE_CONTROL = 1
    #: Loss code: citations or annotations were dropped.
    DROPPED_CITATIONS = 2
    #: Loss code: log probabilities were dropped.
    DROPPED_LOGPROBS = 3
    #: Loss code: a participant name was dropped.
    DROPPED_NAME = 4
    #: Loss code: a media option was dropped.
    DROPPED_MEDIA_OPTIONS = 5
    #: Loss code: provider options were dropped.
    DROPPED_PROVIDER_OPTIONS = 6
    #: Loss code: a field the converter does not map was dropped.
    DROPPED_UNKNOWN_FIELD = 7
    #: Loss code: a document given by URL or file id (its name only).
    DOCUMENT_NOT_INLINE = 8
    #: Loss code: an assistant audio reference (an id only) was dropped.
    AUDIO_REFERENCE_UNRESOLVABLE = 9
    #: Loss code: tool arguments that are not JSON were kept as a JSON string.
    ARGUMENTS_UNPARSEABLE = 10
    #: Loss code: tool arguments had a repeated key (the last value kept at the first place).
    DUPLICATE_ARGUMENT_KEY = 11
    #: Loss code: a tool call had no id; one was made.
    SYNTHESIZED_TOOL_ID = 12
    #: Loss code: a hosted or server-side tool call or result was dropped.
    SERVER_TOOL_UNREPRESENTABLE = 13
    #: Loss code: a provider's compaction item was dropped (no cut after it is allowed).
    COMPACTION_ITEM_UNREPRESENTABLE = 14
    #: Loss code: a reference to an item stored by the provider was dropped.
    ITEM_REFERENCE_UNRESOLVABLE = 15
    #: Loss code: a tool approval request or response was dropped.
    TOOL_APPROVAL_DROPPED = 16
    #: Loss code: a block, part or item of an unknown type was dropped.
    UNKNOWN_CONTENT_DROPPED = 17
