"""The round (SPEC §15) from the installed package: the bare reply, the head, the replacement and
its check, and ``compact`` / ``acompact`` against scripted models covering every verdict class,
truncation with escalation, exceptions, wrong return values and running out of attempts.

Expected values come from the documents the tests build (JSON parsed here, literal summaries,
fence lengths counted by hand), not from the code under test.
"""

from __future__ import annotations

import asyncio
import copy
import enum
import importlib.util
import json
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import pytest

import loopcompact as lc
from helpers import EXAMPLES

WITHHELD = "[previous summary withheld: it was rejected]"
VALID = (
    "<conversation_summary><goal>Fix the nightly build.</goal><constraints>Keep the public API.</constraints>"
    "<decisions>Default timeout to 30s.</decisions><state>The cause was found.</state>"
    "<open_items>Rerun the tests.</open_items></conversation_summary>"
)
# The same summary without <constraints>: rejected at the <decisions> start tag (RETRY).
MISSING_CONSTRAINTS = VALID.replace("<constraints>Keep the public API.</constraints>", "")
FENCE_OPEN, FENCE_CLOSE = "```xml\n", "\n```\n"
U64_MAX = (1 << 64) - 1


def example() -> Dict[str, Any]:
    """examples/data/input_valid.json: system, user, assistant (thinking, tool_use), tool,
    assistant; max_summary_tokens 2048."""
    document: Dict[str, Any] = json.loads((EXAMPLES / "input_valid.json").read_text("utf-8"))
    return document


def wire(document: Dict[str, Any]) -> str:
    return json.dumps(document)


def with_transcript(messages: List[Dict[str, Any]], max_summary_tokens: int = 2048) -> str:
    document = example()
    document["transcript"] = messages
    document["max_summary_tokens"] = max_summary_tokens
    return wire(document)


def text_message(role: str, text: str) -> Dict[str, Any]:
    message: Dict[str, Any] = {"role": role, "blocks": [{"type": "text", "text": text}]}
    if role == "assistant":
        message["usage"] = None
    return message


def tool_exchange(call_id: str, output: str) -> List[Dict[str, Any]]:
    call = {"role": "assistant", "blocks": [{"type": "tool_use", "id": call_id, "name": "run", "input": {}}], "usage": None}
    result = {
        "role": "tool",
        "blocks": [{"type": "tool_result", "tool_use_id": call_id, "content": [{"type": "text", "text": output}], "is_error": False}],
        "tool_use_id": call_id,
        "is_error": False,
    }
    return [call, result]


def big_tool_output_input() -> str:
    """A head dominated by one 6000-character tool result, so that a smaller byte budget stubs it."""
    return with_transcript(
        [text_message("system", "You are an agent."), text_message("user", "Run it."), *tool_exchange("t1", "x" * 6000),
         text_message("assistant", "Done."), text_message("user", "Next.")]
    )


Reply = Union[lc.SummaryReply, Dict[str, Any], object]


class Scripted:
    """A model that answers each request with the next scripted value (a reply, a mapping, an
    exception to raise, or anything else) and keeps every request it was sent."""

    def __init__(self, *answers: Reply) -> None:
        self.answers = list(answers)
        self.requests: List[lc.SummaryRequest] = []
        self.log: List[str] = []

    def __call__(self, request: lc.SummaryRequest) -> Any:
        self.requests.append(request)
        self.log.append(f"call {request.attempt}")
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    async def acall(self, request: lc.SummaryRequest) -> Any:
        await asyncio.sleep(0)
        return self(request)

    def on_attempt(self, attempt: lc.Attempt) -> None:
        self.log.append(f"attempt {attempt.number} {attempt.status}")


def reply(text: Union[str, bytes], tokens: int = 100, stop: Optional[str] = "end") -> lc.SummaryReply:
    return lc.SummaryReply(text=text, output_tokens=tokens, stop=stop)


def all_distinct(requests: Sequence[lc.SummaryRequest]) -> bool:
    return all(a != b for i, a in enumerate(requests) for b in requests[i + 1 :])


# ---- the bare reply, the head, the replacement --------------------------------------------------

def test_validate_reply() -> None:
    with lc.Input(wire(example())) as handle:
        assert handle.validate_reply(VALID, output_tokens=10, max_reply_bytes=4096) == VALID
        fenced = FENCE_OPEN + VALID + FENCE_CLOSE
        # Cleanup is opt-in: without it the fence is the text, and the grammar rejects it.
        with pytest.raises(lc.OutputError) as info:
            handle.validate_reply(fenced, output_tokens=10, max_reply_bytes=4096)
        assert info.value.location == "summary" and info.value.removed == lc.Cleanup(0)
        assert handle.validate_reply(fenced, output_tokens=10, max_reply_bytes=4096, trim=True, unfence=True) == VALID
        # The diagnosis of a rejected fenced reply says what cleanup removed (7 bytes of "```xml\n"
        # before, "\n```\n" after: the trailing LF is the fence's own line end), at offsets of the
        # reply as it arrived.
        bad = FENCE_OPEN + MISSING_CONSTRAINTS + FENCE_CLOSE
        with pytest.raises(lc.OutputError) as info:
            handle.validate_reply(bad, output_tokens=10, max_reply_bytes=4096, unfence=True)
        e = info.value
        assert e.name == "LC_SUMMARY_XML_STRUCTURE" and e.section is lc.Section.CONSTRAINTS
        assert e.offset == len(FENCE_OPEN) + MISSING_CONSTRAINTS.index("<decisions>")
        assert (e.removed, e.removed_before, e.removed_after) == (lc.Cleanup.UNFENCE, 7, 5)
        assert "[cleanup unfence removed 7 bytes before, 5 after]" in str(e)
        # Stop by length: a reply that is not a valid summary is truncated (RETRY, rule R15.4,
        # limit the input's max_summary_tokens, actual the usage).
        with pytest.raises(lc.OutputError) as info:
            handle.validate_reply(VALID[:150], output_tokens=2000, stop="length", max_reply_bytes=4096)
        assert (info.value.name, info.value.rule, info.value.limit, info.value.actual) == ("LC_REPLY_TRUNCATED", "R15.4", 2048, 2000)
        assert info.value.status_class is lc.StatusClass.RETRY
        # A valid reply stopped by length is accepted.
        assert handle.validate_reply(VALID, output_tokens=2048, stop="length", max_reply_bytes=4096) == VALID
        # A byte limit no reply can meet is the host's.
        with pytest.raises(lc.OutputError) as info:
            handle.validate_reply(VALID, output_tokens=10, max_reply_bytes=113)
        assert (info.value.name, info.value.status_class) == ("LC_REPLY_BYTE_LIMIT_UNREACHABLE", lc.StatusClass.HOST)
        assert (info.value.limit, info.value.actual) == (113, lc.SMALLEST_SUMMARY_LEN)
        # Bytes that are not UTF-8: the wire status, at the first bad byte, with nothing of the reply.
        broken = VALID.encode().replace(b"nightly", b"night\xffy")
        with pytest.raises(lc.OutputError) as info:
            handle.validate_reply(broken, output_tokens=10, max_reply_bytes=4096)
        assert info.value.name == "LC_SUMMARY_WIRE" and info.value.offset == broken.index(b"\xff")
        assert "night" not in str(info.value)
        with pytest.raises(ValueError, match="stop must be"):
            handle.validate_reply(VALID, output_tokens=1, stop="stop", max_reply_bytes=4096)
        with pytest.raises(ValueError, match="stop must be"):
            handle.validate_reply(VALID, output_tokens=1, stop=["end"], max_reply_bytes=4096)  # type: ignore[arg-type]
        # A str subclass (an SDK's string enum) is its text; the cleanup flags take any truth value.
        class Reason(str, enum.Enum):
            LENGTH = "length"

        with pytest.raises(lc.OutputError) as info:
            handle.validate_reply(VALID[:40], output_tokens=7, stop=Reason.LENGTH, max_reply_bytes=4096)
        assert info.value.name == "LC_REPLY_TRUNCATED"
        fenced = f"\n```xml\n{VALID}\n```\n"
        assert handle.validate_reply(fenced, output_tokens=1, max_reply_bytes=4096, trim=1, unfence=[0]) == VALID  # type: ignore[arg-type]
        with pytest.raises(lc.OutputError):
            handle.validate_reply(fenced, output_tokens=1, max_reply_bytes=4096, trim=1, unfence=0)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            handle.validate_reply(VALID, output_tokens=-1, max_reply_bytes=4096)


@pytest.mark.skipif(
    importlib.util.find_spec("loopcompact._text") is None,
    reason="the lone-surrogate rule (a surrogate of a str sent as U+FFFD) lands with branch redteam-misc",
)
def test_a_lone_surrogate_in_a_reply_is_u_fffd() -> None:
    with lc.Input(wire(example())) as handle:
        text = VALID.replace("nightly", "night\ud800y")
        assert handle.validate_reply(text, output_tokens=10, max_reply_bytes=4096) == VALID.replace("nightly", "night\ufffdy")
        model = Scripted(reply(text))
        result = lc.compact(handle, model)
        assert isinstance(result, lc.Compacted) and "\ufffd" in result.summary


def test_encode_head_within() -> None:
    document = example()
    with lc.Input(wire(document)) as handle:
        head = json.loads(handle.encode_head_within(4, U64_MAX))
        assert head["transcript"] == document["transcript"][:4]
        assert {k: v for k, v in head.items() if k != "transcript"} == {k: v for k, v in document.items() if k != "transcript"}
        for cut, status in ((0, lc.Status.REPLACEMENT_EMPTY_HEAD), (1, lc.Status.REPLACEMENT_EMPTY_HEAD),
                            (6, lc.Status.ERR_INVALID_ARGUMENT)):
            with pytest.raises(lc.InputError) as info:
                handle.encode_head_within(cut, U64_MAX)
            assert info.value.status == status, cut
        with pytest.raises(lc.InputError) as info:
            handle.encode_head_within(4, 100)
        assert info.value.status == lc.Status.INPUT_TOO_LARGE


def test_outputs_longer_than_their_document() -> None:
    # 20,000 raw "<" in a kept tool result and in the head: each is six bytes in canonical
    # encoding (E7.6 "\\u003c"), so every output is far longer than the wire document and
    # the package's first buffer (sized from the document) is too small: the exact size follows.
    lts = "<" * 20_000
    messages = [
        text_message("user", lts),
        text_message("assistant", "ok"),
        *tool_exchange("c1", lts),
        text_message("assistant", "done"),
    ]
    document = wire(json.loads(with_transcript(messages)))
    with lc.Input(document) as handle:
        whole = handle.encode_within(U64_MAX)
        assert whole.count(b"\\u003c") == 40_000 and len(whole) > len(document) + 90_000
        assert json.loads(whole)["transcript"] == messages
        head = handle.encode_head_within(2, U64_MAX)
        assert head.count(b"\\u003c") == 20_000
        assert json.loads(head)["transcript"] == messages[:2]
        replacement = handle.build_replacement(2, VALID)
        assert replacement.count(b"\\u003c") == 20_000 + VALID.count("<")
        assert json.loads(replacement) == [{"role": "user", "blocks": [{"type": "text", "text": VALID}]}, *messages[2:]]


def test_build_and_verify_replacement() -> None:
    document = example()
    messages = document["transcript"]
    with lc.Input(wire(document)) as handle:
        # Cut 2: summarise the user message; keep the assistant's signed thinking and tool call,
        # the tool result and the last assistant message.
        replacement = handle.build_replacement(2, VALID)
        rebuilt = json.loads(replacement)
        summary_message = {"role": "user", "blocks": [{"type": "text", "text": VALID}]}
        assert rebuilt == [messages[0], summary_message, *messages[2:]]
        handle.verify_replacement(2, replacement)
        # Another spelling of the same JSON is no change.
        handle.verify_replacement(2, json.dumps(rebuilt, indent=2))
        # One byte of the kept signature changed: the tail changed, at that message and block.
        signed = next(i for i, m in enumerate(rebuilt) if any("signature" in b for b in m["blocks"]))
        block = next(j for j, b in enumerate(rebuilt[signed]["blocks"]) if "signature" in b)
        tampered = copy.deepcopy(rebuilt)
        signature = tampered[signed]["blocks"][block]["signature"]
        tampered[signed]["blocks"][block]["signature"] = ("A" if signature[0] != "A" else "B") + signature[1:]
        with pytest.raises(lc.ReplacementError) as info:
            handle.verify_replacement(2, json.dumps(tampered))
        e = info.value
        assert e.name == "LC_REPLACEMENT_TAIL_CHANGED" and e.location == f"transcript[{signed}].blocks[{block}]"
        assert e.rule == "R15.11" and signature not in str(e)
        # A dropped kept block, and a summary message followed by the user message it should open.
        dropped = copy.deepcopy(rebuilt)
        del dropped[signed]["blocks"][block]
        with pytest.raises(lc.ReplacementError) as info:
            handle.verify_replacement(2, json.dumps(dropped))
        assert info.value.name == "LC_REPLACEMENT_TAIL_CHANGED" and info.value.location.startswith(f"transcript[{signed}]")
        # The cut and the summary are checked first.
        with pytest.raises(lc.ReplacementError) as info:
            handle.build_replacement(3, VALID)
        assert info.value.status == lc.Status.CUT_UNSAFE
        with pytest.raises(lc.ReplacementError) as info:
            handle.build_replacement(2, MISSING_CONSTRAINTS)
        assert info.value.status == lc.Status.REPLACEMENT_SUMMARY
        with pytest.raises(lc.ReplacementError) as info:
            handle.verify_replacement(2, b"[")
        assert info.value.status == lc.Status.REPLACEMENT_WIRE


def test_a_kept_user_message_opens_with_the_summary() -> None:
    messages = [text_message("system", "S"), text_message("user", "a"), text_message("assistant", "b"), text_message("user", "c")]
    with lc.Input(with_transcript(messages)) as handle:
        rebuilt = json.loads(handle.build_replacement(3, VALID))
        assert rebuilt == [messages[0], {"role": "user", "blocks": [{"type": "text", "text": VALID}, *messages[3]["blocks"]]}]
        apart = [messages[0], {"role": "user", "blocks": [{"type": "text", "text": VALID}]}, messages[3]]
        with pytest.raises(lc.ReplacementError) as info:
            handle.verify_replacement(3, json.dumps(apart))
        assert info.value.name == "LC_REPLACEMENT_ADJACENT_USER"


# ---- the round ------------------------------------------------------------------------------------

def test_retry_then_a_fenced_reply_is_accepted() -> None:
    document = example()
    model = Scripted(reply(FENCE_OPEN + MISSING_CONSTRAINTS + FENCE_CLOSE), reply(FENCE_OPEN + VALID + FENCE_CLOSE, stop=None))
    with lc.Input(wire(document)) as handle:
        result = lc.compact(handle, model, keep_last=1, on_attempt=model.on_attempt)
    assert isinstance(result, lc.Compacted)
    # on_attempt sees each attempt before the round goes on.
    assert model.log == ["call 1", "attempt 1 208", "call 2", "attempt 2 0"]
    # Cut 4 keeps the last message; the head is messages [0, 4) of the input, nothing else changed.
    assert result.cut == 4 and result.summary == VALID
    first, second = model.requests
    assert first.system == second.system == lc.summary_instructions()
    head = json.loads(first.messages[0]["content"])
    assert head["transcript"] == document["transcript"][:4] and head["max_summary_tokens"] == 2048
    assert first.messages == (first.messages[0],) and first.messages[0]["role"] == "user"
    assert (first.attempt, second.attempt, first.max_tokens, second.max_tokens) == (1, 2, 2048, 2048)
    # The retry turns: the rejected reply withheld, then the retry message for its diagnosis.
    assert [m["role"] for m in second.messages] == ["user", "assistant", "user"]
    assert second.messages[0] == first.messages[0] and second.messages[1]["content"] == WITHHELD
    retry = second.messages[2]["content"]
    assert retry.startswith("Your summary was rejected") and "constraints" in retry and "```" not in retry
    # Each attempt: size, stop, verdict, cleanup.
    one, two = result.attempts
    assert (one.number, one.reply_bytes, one.stop, one.status, one.status_class) == (
        1, len(FENCE_OPEN + MISSING_CONSTRAINTS + FENCE_CLOSE), "end", lc.Status.SUMMARY_XML_STRUCTURE, lc.StatusClass.RETRY)
    both = lc.Cleanup.TRIM | lc.Cleanup.UNFENCE  # the round trims and unfences by default
    assert one.removed == lc.Removed(both, 7, 5) and one.request is first
    assert (two.status, two.stop, two.removed) == (0, None, lc.Removed(both, 7, 5)) and two.ok
    assert result.diagnoses == (one.diagnosis, two.diagnosis) and one.diagnosis.section is lc.Section.CONSTRAINTS
    # The replacement: the leading system message, the summary, the kept message.
    summary_message = {"role": "user", "blocks": [{"type": "text", "text": VALID}]}
    assert json.loads(result.replacement) == [document["transcript"][0], summary_message, document["transcript"][4]]
    with lc.Input(wire(document)) as handle:
        handle.verify_replacement(result.cut, result.replacement)
    assert all_distinct(model.requests)


def test_the_summary_is_the_reply_without_what_cleanup_removed() -> None:
    # ASCII text is sliced, other text decoded (bindings/python _round._summary_text): both give
    # the reply between the removed bytes, whether the reply is str or bytes, fenced or not.
    accented = VALID.replace("nightly", "nächtliche")
    cases: List[Tuple[Union[str, bytes], str]] = [
        (FENCE_OPEN + VALID + FENCE_CLOSE, VALID),
        ("\t " + VALID + "\n", VALID),
        (VALID, VALID),
        ("```\n" + accented + "\n```", accented),
        ("\u3000" + accented + "\u2003", accented),  # White_Space outside ASCII, removed by trim
        ((FENCE_OPEN + accented + FENCE_CLOSE).encode("utf-8"), accented),
        ((FENCE_OPEN + VALID + FENCE_CLOSE).encode("utf-8"), VALID),
    ]
    with lc.Input(wire(example())) as handle:
        for text, summary in cases:
            result = lc.compact(handle, Scripted(reply(text)))
            assert isinstance(result, lc.Compacted) and result.summary == summary, repr(text)


def test_the_round_objects_are_those_their_constructors_make() -> None:
    # The round builds its frozen dataclasses without their generated __init__ (_round._made), and
    # so does Diagnostic.from_c (a failing diagnosis with its facts, and a success's): each must
    # have exactly its class's fields, equal the constructor's object and print as it does, and
    # stay frozen.
    import dataclasses

    model = Scripted(reply(MISSING_CONSTRAINTS), reply(FENCE_OPEN + VALID + FENCE_CLOSE))
    with lc.Input(wire(example())) as handle:
        result = lc.compact(handle, model, keep_last=1)
    assert isinstance(result, lc.Compacted)
    made: List[Any] = [result, *result.attempts, *(a.request for a in result.attempts), *result.diagnoses]
    assert [type(m).__name__ for m in made] == ["Compacted", "Attempt", "Attempt", "SummaryRequest", "SummaryRequest"] + [
        "Diagnostic"
    ] * 2
    assert result.diagnoses[0].status == lc.Status.SUMMARY_XML_STRUCTURE and result.diagnoses[0].offset is not None
    for obj in made:
        names = [f.name for f in dataclasses.fields(obj)]
        assert list(vars(obj)) == names
        again = type(obj)(**vars(obj))
        assert again == obj and repr(again) == repr(obj)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, names[0], None)
    assert result.attempts[0].removed == lc.Removed(lc.Cleanup(0), 0, 0) and type(result.attempts[0].removed) is lc.Removed


def test_reshow_rejected_sends_the_reply_back() -> None:
    rejected = "Here is the summary: " + VALID
    model = Scripted(reply(rejected), reply(VALID))
    with lc.Input(wire(example())) as handle:
        result = lc.compact(handle, model, reshow_rejected=True)
    assert isinstance(result, lc.Compacted) and result.cut == 5
    assert model.requests[1].messages[1] == {"role": "assistant", "content": rejected}


def test_discard_ends_the_round() -> None:
    # Bytes that are not UTF-8, and a reply without usage: DISCARD, one call, no retry.
    broken = VALID.encode().replace(b"build", b"bu\xc3ld")
    for answer, status in ((reply(broken), lc.Status.SUMMARY_WIRE), (reply(VALID, tokens=0), lc.Status.SUMMARY_TOKEN_USAGE)):
        model = Scripted(answer, reply(VALID))
        with lc.Input(wire(example())) as handle:
            result = lc.compact(handle, model)
        assert isinstance(result, lc.KeepHistory) and result.status == status
        assert len(model.requests) == 1 and len(result.attempts) == 1
        assert result.attempts[0].status_class is lc.StatusClass.DISCARD
        assert result.diagnoses == (result.attempts[0].diagnosis,)
        if status == lc.Status.SUMMARY_TOKEN_USAGE:
            assert "turn usage reporting on" in result.reason


@pytest.mark.parametrize("limit", [0, 1, 113])
def test_a_reply_byte_limit_no_summary_meets_sends_no_request(limit: int) -> None:
    # R15.12 step 1 with R15.2: below the 114-byte smallest summary no reply can pass, so the round
    # keeps the history with that status before calling the model; 114 calls it.
    model = Scripted(reply(VALID))
    with lc.Input(wire(example())) as handle:
        result = lc.compact(handle, model, max_reply_bytes=limit)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.REPLY_BYTE_LIMIT_UNREACHABLE
    assert model.requests == [] and result.attempts == () and result.diagnoses == ()
    assert "LC_REPLY_BYTE_LIMIT_UNREACHABLE" in result.reason and f"({limit})" in result.reason
    model = Scripted(reply(VALID))
    with lc.Input(wire(example())) as handle:
        result = lc.compact(handle, model, max_reply_bytes=lc.SMALLEST_SUMMARY_LEN, attempts=1)
    assert len(model.requests) == 1 and result.attempts[0].status == lc.Status.SUMMARY_BYTE_LIMIT


def test_a_token_limit_is_retried() -> None:
    # Usage above max_summary_tokens is RETRY: the next request asks again, same max_tokens.
    model = Scripted(reply(VALID, tokens=2049), reply(VALID, tokens=2048))
    with lc.Input(wire(example())) as handle:
        result = lc.compact(handle, model)
    assert isinstance(result, lc.Compacted)
    assert [a.status for a in result.attempts] == [lc.Status.SUMMARY_TOKEN_LIMIT, 0]


def test_truncation_raises_max_tokens_then_shrinks_the_head() -> None:
    cut_off = VALID[:120]
    model = Scripted(*(reply(cut_off, tokens=500, stop="length") for _ in range(5)), reply(VALID))
    with lc.Input(big_tool_output_input()) as handle:
        result = lc.compact(handle, model, keep_last=1, attempts=6, max_tokens=500)
    assert isinstance(result, lc.Compacted) and result.cut == 5
    assert [a.status for a in result.attempts] == [lc.Status.REPLY_TRUNCATED] * 5 + [0]
    # Doubling up to max_summary_tokens (2048), then the head's budget shrinks.
    assert [r.max_tokens for r in model.requests] == [500, 1000, 2000, 2048, 2048, 2048]
    heads = [r.messages[0]["content"] for r in model.requests]
    assert heads[0] == heads[1] == heads[2] == heads[3] and "x" * 6000 in heads[0]
    assert len(heads[4].encode()) <= len(heads[0].encode()) * 3 // 4
    stubbed = json.loads(heads[4])["transcript"]
    assert len(stubbed) == 5 and "x" * 6000 not in heads[4]
    # Nothing smaller than the stubbed head fits: the next attempt keeps it.
    assert heads[5] == heads[4]
    # The retry message of a truncated reply asks for a shorter summary, with the usage reported.
    retry = model.requests[1].messages[2]["content"]
    assert "cut off" in retry and "after 500 output tokens" in retry
    assert all_distinct(model.requests)


def test_out_of_attempts() -> None:
    model = Scripted(*(reply(MISSING_CONSTRAINTS) for _ in range(3)))
    with lc.Input(wire(example())) as handle:
        result = lc.compact(handle, model)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.SUMMARY_XML_STRUCTURE
    assert len(result.attempts) == 3 and "3 attempts" in result.reason
    assert [len(r.messages) for r in model.requests] == [1, 3, 5]
    assert all_distinct(model.requests)
    model = Scripted(reply(MISSING_CONSTRAINTS))
    with lc.Input(wire(example())) as handle:
        one = lc.compact(handle, model, attempts=1)
    assert isinstance(one, lc.KeepHistory) and len(one.attempts) == 1


def test_nothing_to_summarise_calls_no_model() -> None:
    model = Scripted()
    only_system = with_transcript([text_message("system", "S"), text_message("user", "hello")])
    with lc.Input(only_system) as handle:
        result = lc.compact(handle, model, keep_last=1)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.REPLACEMENT_EMPTY_HEAD
    assert result.attempts == () and result.diagnoses == () and model.requests == []
    # A transcript whose tool calls are not paired: the pairing status, no call.
    unpaired = with_transcript([text_message("user", "go"), tool_exchange("t1", "out")[0], text_message("assistant", "x")])
    with lc.Input(unpaired) as handle:
        result = lc.compact(handle, model)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.PAIRING_UNANSWERED_CALL and model.requests == []
    # A head that fits under no budget.
    with lc.Input(wire(example())) as handle:
        result = lc.compact(handle, model, max_input_bytes=10)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.INPUT_TOO_LARGE and model.requests == []


class Outage(Exception):
    pass


def test_an_exception_propagates_or_keeps_the_history() -> None:
    secret = "sk-secret reply text"
    error = Outage(secret)
    model = Scripted(error)
    with lc.Input(wire(example())) as handle:
        with pytest.raises(Outage) as info:
            lc.compact(handle, model)
        assert info.value is error
        model = Scripted(reply(MISSING_CONSTRAINTS), Outage(secret))
        result = lc.compact(handle, model, on_error="keep_history")
    assert isinstance(result, lc.KeepHistory) and result.status is None
    assert "Outage" in result.reason and secret not in result.reason and secret not in repr(result)
    assert len(result.attempts) == 1 and len(model.requests) == 2


def test_a_value_that_is_not_a_reply_is_a_type_error() -> None:
    with lc.Input(wire(example())) as handle:
        for wrong in ("<conversation_summary/>", None, {"text": VALID}, {"text": VALID, "output_tokens": 1, "extra": 1}):
            with pytest.raises(TypeError):
                lc.compact(handle, Scripted(wrong))
        # Even with on_error="keep_history": the host's error is not the model's.
        with pytest.raises(TypeError):
            lc.compact(handle, Scripted(42), on_error="keep_history")
        # A mapping with the reply's fields is taken.
        result = lc.compact(handle, Scripted({"text": VALID, "output_tokens": 9, "stop": "end"}))
        assert isinstance(result, lc.Compacted) and result.attempts[0].stop == "end"
    with pytest.raises(ValueError):
        lc.SummaryReply(text=VALID, output_tokens=1, stop="stop")
    with pytest.raises(TypeError):
        lc.SummaryReply(text=VALID, output_tokens=True)


def test_bad_options() -> None:
    with lc.Input(wire(example())) as handle:
        model = Scripted()
        for options in ({"attempts": 0}, {"keep_last": -1}, {"max_tokens": 0}, {"on_error": "ignore"}, {"max_tokens": 2049}):
            with pytest.raises(ValueError):
                lc.compact(handle, model, **options)
        with pytest.raises(TypeError):
            lc.compact(handle, model, attempts="3")  # type: ignore[arg-type]
    assert model.requests == []


def test_acompact_is_the_same_round() -> None:
    def script() -> Scripted:
        return Scripted(reply(FENCE_OPEN + MISSING_CONSTRAINTS + FENCE_CLOSE), reply(VALID[:100], stop="length"), reply(VALID))

    sync_model, async_model = script(), script()
    with lc.Input(wire(example())) as handle:
        expected = lc.compact(handle, sync_model, max_tokens=1000, on_attempt=sync_model.on_attempt)
        got = asyncio.run(lc.acompact(handle, async_model.acall, max_tokens=1000, on_attempt=async_model.on_attempt))
        assert isinstance(got, lc.Compacted) and got == expected
        assert async_model.requests == sync_model.requests and async_model.log == sync_model.log
        assert [r.max_tokens for r in async_model.requests] == [1000, 1000, 2000]

        async def failing(request: lc.SummaryRequest) -> lc.SummaryReply:
            raise Outage("no")

        with pytest.raises(Outage):
            asyncio.run(lc.acompact(handle, failing))
        kept = asyncio.run(lc.acompact(handle, failing, on_error="keep_history"))
        assert isinstance(kept, lc.KeepHistory) and "Outage" in kept.reason


def test_attempt_log_line() -> None:
    lines: List[str] = []
    model = Scripted(reply(FENCE_OPEN + MISSING_CONSTRAINTS + FENCE_CLOSE), reply(FENCE_OPEN + VALID + FENCE_CLOSE))
    log: Callable[[lc.Attempt], None] = lambda attempt: lines.append(str(attempt))
    with lc.Input(wire(example())) as handle:
        lc.compact(handle, model, keep_last=1, on_attempt=log)
    size = len(FENCE_OPEN + MISSING_CONSTRAINTS + FENCE_CLOSE)
    assert lines[0].startswith(f"attempt 1: {size} bytes, stop end, max_tokens 2048: LC_SUMMARY_XML_STRUCTURE (208) at byte ")
    # The round trims too: the fence's last LF goes to the trim, the rest to the unfence.
    assert lines[0].endswith("[cleanup trim+unfence removed 7 bytes before, 5 after]")
    assert lines[1] == (
        f"attempt 2: {len(FENCE_OPEN + VALID + FENCE_CLOSE)} bytes, stop end, max_tokens 2048: LC_OK (0): Success. "
        "[cleanup trim+unfence removed 7 bytes before, 5 after]"
    )
