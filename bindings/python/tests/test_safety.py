"""Transcript safety that never blocks (SPEC §16.9) through the package: the pending tail (G16.13),
every violation (G16.14), the repair plan (G16.15), allowed cuts (G16.16), the handle's counts,
and the round over a transcript whose last turn waits for a tool. Expected values are worked out
from the rules, message by message."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

import loopcompact as lc

BASIS = {"revision": 1, "through_event_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7"}
FINGERPRINT = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"
SUMMARY = (
    "<conversation_summary><goal>List the files.</goal><constraints/><decisions/>"
    "<state>Listed.</state><open_items/></conversation_summary>"
)
TEXT = "[no result was recorded for this tool call]"


def user(text: str) -> Dict[str, Any]:
    return {"role": "user", "blocks": [{"type": "text", "text": text}]}


def call(*ids: str) -> Dict[str, Any]:
    blocks = [{"type": "tool_use", "id": i, "name": "ls", "input": {}} for i in ids]
    return {"role": "assistant", "blocks": blocks, "usage": None}


def tool(i: str) -> Dict[str, Any]:
    return {"role": "tool", "blocks": [{"type": "text", "text": "out"}], "tool_use_id": i, "is_error": False}


def wire(messages: List[Dict[str, Any]]) -> bytes:
    doc = {"version": 1, "basis": BASIS, "model": {"provider": "p", "model": "m"},
           "request_fingerprint": FINGERPRINT, "transcript": messages, "max_summary_tokens": 64}
    return json.dumps(doc, separators=(",", ":")).encode()


# Issue 27's case: 0 user, 1 call(a), 2 tool a, 3 user, 4 call(b, c), 5 tool b; c is pending.
PENDING = [user("q"), call("a"), tool("a"), user("q2"), call("b", "c"), tool("b")]


def test_a_pending_tail_is_cut_before_by_default() -> None:
    with lc.Input(wire(PENDING)) as handle:
        assert (handle.message_count, handle.leading_systems, handle.max_summary_tokens) == (6, 0, 64)
        assert handle.safe_cut(0) == 4
        assert handle.safe_cut(3) == 3
        assert handle.safe_cut(4) == 1  # 2 would split the pair (1, 2)
        handle.cut_check(4)
        for cut, status in ((2, lc.Status.CUT_UNSAFE), (5, lc.Status.CUT_UNSAFE), (7, lc.Status.ERR_INVALID_ARGUMENT)):
            with pytest.raises(lc.InputError) as info:
                handle.cut_check(cut)
            assert info.value.status == status
        # §14's verdict when asked for, with its diagnosis at the pending call.
        with pytest.raises(lc.InputError) as info:
            handle.safe_cut(0, pending_tail=False)
        assert info.value.status == lc.Status.PAIRING_UNANSWERED_CALL
        assert info.value.location == "transcript[4].blocks[1]"
        # G16.16: only the allowed cuts; a list of the wrong length is the caller's error.
        assert handle.safe_cut(0, allowed=[True, True, True, True, False, False, False]) == 3
        with pytest.raises(lc.InputError) as info:
            handle.safe_cut(0, allowed=[True] * 6)
        assert info.value.status == lc.Status.ERR_INVALID_ARGUMENT
        with pytest.raises(TypeError):
            handle.safe_cut(0, pending_tail=1)  # type: ignore[arg-type]


def test_the_round_keeps_the_pending_turn() -> None:
    with lc.Input(wire(PENDING)) as handle:
        result = lc.compact(handle, lambda request: lc.SummaryReply(text=SUMMARY, output_tokens=20, stop="end"))
        assert isinstance(result, lc.Compacted) and result.cut == 4
        replacement = json.loads(result.replacement)
        assert replacement[1:] == [PENDING[4], PENDING[5]]
        never = lambda request: pytest.fail("the model was called")  # noqa: E731
        kept = lc.compact(handle, never, pending_tail=False)
        assert isinstance(kept, lc.KeepHistory) and kept.status == lc.Status.PAIRING_UNANSWERED_CALL


def test_every_violation_and_the_repair() -> None:
    # 0 user, 1 call(a, b), 2 tool a, 3 tool x (orphan), 4 tool a (a second result), 5 user.
    messages = [user("q"), call("a", "b"), tool("a"), tool("x"), tool("a"), user("q2")]
    with lc.Input(wire(messages)) as handle:
        violations = handle.pairing_violations()
        assert [(v.status, v.message, v.block) for v in violations] == [
            (lc.Status.PAIRING_UNANSWERED_CALL, 1, 1),
            (lc.Status.PAIRING_ORPHAN_RESULT, 3, None),
            (lc.Status.PAIRING_DUPLICATE_RESULT, 4, None),
        ]
        with pytest.raises(lc.InputError) as info:
            handle.pairing_check()
        assert info.value.status == violations[0].status
        # Message 1 is the last assistant message: by default b is a pending call, not a lost one.
        assert handle.repair_plan() == [
            {"action": "drop_result", "message": 3, "block": None},
            {"action": "drop_result", "message": 4, "block": None},
        ]
        # b's result goes after the call's message and the tool messages that follow it.
        assert handle.repair_plan(pending_tail=False) == [
            {"action": "drop_result", "message": 3, "block": None},
            {"action": "drop_result", "message": 4, "block": None},
            {"action": "add_result", "before": 5, "call_message": 1, "call_block": 1, "tool_use_id": "b", "text": TEXT},
        ]
        repaired = json.loads(handle.repaired_transcript(pending_tail=False))
        synthetic = {"role": "tool", "blocks": [{"type": "text", "text": TEXT}], "tool_use_id": "b", "is_error": True}
        assert repaired == [messages[0], messages[1], messages[2], synthetic, messages[5]]
    with lc.Input(wire(repaired)) as fixed:
        fixed.pairing_check()
        assert fixed.pairing_violations() == []
    # A repeated id has no plan: the assistant message would have to change.
    with lc.Input(wire([user("q"), call("a"), tool("a"), call("a"), tool("a")])) as handle:
        with pytest.raises(lc.InputError) as info:
            handle.repair_plan()
        assert info.value.status == lc.Status.PAIRING_DUPLICATE_ID
    # With the pending tail (the default), the last turn's calls get no result; without, they do.
    with lc.Input(wire(PENDING)) as handle:
        assert handle.repair_plan() == []
        assert handle.repair_plan(pending_tail=False) == [
            {"action": "add_result", "before": 6, "call_message": 4, "call_block": 1, "tool_use_id": "c", "text": TEXT}
        ]


def test_a_repeated_id_behind_another_violation_is_still_502() -> None:
    # G16.15: a repeated id has no plan, even when S14.3's first violation is another (here the
    # unanswered b of message 0, 500): the status raised is the repair's.
    with lc.Input(wire([call("a", "b"), tool("b"), call("a")])) as handle:
        for repair in (handle.repair_plan, handle.repaired_transcript):
            for pending_tail in (True, False):
                with pytest.raises(lc.InputError) as info:
                    repair(pending_tail=pending_tail)
                assert info.value.status == lc.Status.PAIRING_DUPLICATE_ID


def test_a_result_in_a_dropped_message_gets_a_synthetic_one_with_the_pending_tail() -> None:
    # G16.15: the tool message for x is an orphan, dropped whole; its block answered a, the last
    # assistant message's call, which therefore had a result and is not pending.
    holder = {"role": "tool", "blocks": [{"type": "tool_result", "tool_use_id": "a", "content": [], "is_error": False}],
              "tool_use_id": "x", "is_error": False}
    with lc.Input(wire([user("go"), call("a"), holder])) as handle:
        want = [
            {"action": "drop_result", "message": 2, "block": None},
            {"action": "add_result", "before": 3, "call_message": 1, "call_block": 0, "tool_use_id": "a", "text": TEXT},
        ]
        assert handle.repair_plan() == want
        assert handle.repair_plan(pending_tail=False) == want
        synthetic = {"role": "tool", "blocks": [{"type": "text", "text": TEXT}], "tool_use_id": "a", "is_error": True}
        assert json.loads(handle.repaired_transcript()) == [user("go"), call("a"), synthetic]


def test_an_empty_allowed_list_is_not_the_absence_of_one() -> None:
    # G16.16: n + 1 entries or none; [] is a list of length 0.
    with lc.Input(wire([user("q"), user("r")])) as handle:
        for run in (lambda: handle.safe_cut(0, allowed=[]), lambda: handle.cut_check(1, allowed=[])):
            with pytest.raises(lc.InputError) as info:
                run()
            assert info.value.status == lc.Status.ERR_INVALID_ARGUMENT


def test_a_conversion_s_input_cuts_at_its_boundaries_and_maps_the_plan() -> None:
    # OpenAI Chat: an assistant message with two calls, one answered; then a user message.
    chat = [
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.go"},
        {"role": "user", "content": "and?"},
        {"role": "assistant", "content": "Only a.go."},
    ]
    conversion = lc.from_openai_chat(chat)
    with conversion.input(provider="openai", model="gpt", max_summary_tokens=64, revision=1) as handle:
        plan = handle.repair_plan()
        assert plan == [{"action": "add_result", "before": 3, "call_message": 1, "call_block": 1,
                         "tool_use_id": "c2", "text": TEXT, "source_index": 1}]
