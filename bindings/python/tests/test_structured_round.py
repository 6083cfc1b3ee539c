"""The round with structured output (SPEC G17.10): ``compact(..., structured=True)`` sends the
summary's JSON Schema, a reply may carry the five sections (a mapping, a pydantic model) or the JSON
object as text, and whatever the model filled is rendered and then checked as a text reply is.
Scripted models, and the real ``openai`` client against the stub server: ``response_format`` with
the schema (the object comes back as ``message.content``) and ``chat.completions.parse`` with a
pydantic model (the object comes back parsed).

Expected summaries are written out by hand from G17.8's layout, or built by ``render_summary``
where the test is that the round commits exactly what the renderer makes; the structured note is
copied from the SPEC, not from the package.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional

import openai
import pydantic
import pytest

import loopcompact as lc
from helpers import EXAMPLES, PROJECT, Stub

WIRE = (EXAMPLES / "input_valid.json").read_bytes()  # max_summary_tokens 2048
WITHHELD = "[previous summary withheld: it was rejected]"
# SPEC G17.10 step 1, verbatim.
NOTE = (
    "Structured output: instead of the XML document, reply with one JSON object of the given schema: the keys "
    "goal, constraints, decisions, state and open_items, each a string holding that section's plain text, without "
    "XML tags and without XML escapes (write &, < and > as they are); goal and state must not be blank."
)
SECTIONS = {
    "goal": "Fix the nightly build & keep it green.",
    "constraints": "",
    "decisions": "Use <timeout> of 30s.",
    "state": "The cause was found.",
    "open_items": "",
}
# G17.8 by hand: one LF between elements, &, < and > escaped, empty optional sections self-closed.
RENDERED = (
    "<conversation_summary>\n<goal>Fix the nightly build &amp; keep it green.</goal>\n<constraints/>\n"
    "<decisions>Use &lt;timeout&gt; of 30s.</decisions>\n<state>The cause was found.</state>\n<open_items/>\n"
    "</conversation_summary>"
)


class Scripted:
    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests: List[lc.SummaryRequest] = []

    def __call__(self, request: lc.SummaryRequest) -> Any:
        self.requests.append(request)
        return self.answers.pop(0)


def sections_reply(sections: Any, tokens: int = 80, stop: Optional[str] = "end") -> lc.SummaryReply:
    return lc.SummaryReply(text=None, output_tokens=tokens, stop=stop, sections=sections)


def text_reply(text: str, tokens: int = 80, stop: Optional[str] = "end") -> lc.SummaryReply:
    return lc.SummaryReply(text=text, output_tokens=tokens, stop=stop)


def with_(**changes: str) -> Dict[str, str]:
    return {**SECTIONS, **changes}


def test_the_renderer_makes_the_hand_written_summary() -> None:
    assert lc.render_summary(**SECTIONS) == RENDERED


def test_structured_requests_carry_the_schema_and_the_note() -> None:
    model = Scripted(sections_reply(SECTIONS))
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, model, structured=True)
    assert isinstance(result, lc.Compacted) and result.summary == RENDERED
    request = model.requests[0]
    assert request.json_schema == lc.summary_json_schema()
    assert json.loads(request.json_schema)["required"] == ["goal", "constraints", "decisions", "state", "open_items"]
    assert request.system == lc.summary_instructions() + "\n\n" + NOTE
    assert lc.STRUCTURED_NOTE == NOTE
    assert "structured" in repr(request)
    # Without the option: no schema, the instructions alone.
    plain = Scripted(text_reply(RENDERED))
    with lc.Input(WIRE) as handle:
        assert isinstance(lc.compact(handle, plain), lc.Compacted)
    assert plain.requests[0].json_schema is None and plain.requests[0].system == lc.summary_instructions()


def test_a_sections_reply_is_rendered_then_checked() -> None:
    for structured in (False, True):
        model = Scripted(sections_reply(SECTIONS, tokens=61))
        with lc.Input(WIRE) as handle:
            result = lc.compact(handle, model, keep_last=1, structured=structured)
            assert isinstance(result, lc.Compacted)
            assert result.summary == RENDERED
            assert result.replacement == handle.build_replacement(result.cut, RENDERED)
            assert lc.summary_section_text(result.summary, lc.Section.DECISIONS) == SECTIONS["decisions"]
        attempt = result.attempts[0]
        assert attempt.status == lc.Status.OK and attempt.reply_bytes == len(RENDERED.encode())
        assert attempt.removed == lc.Removed(lc.Cleanup(0), 0, 0)


def test_a_json_text_reply_is_parsed_rendered_and_checked() -> None:
    body = "\n " + json.dumps(SECTIONS) + "\n"  # JSON allows white space around the object
    model = Scripted(text_reply(body))
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, model, structured=True)
    assert isinstance(result, lc.Compacted) and result.summary == RENDERED
    assert result.attempts[0].reply_bytes == len(body.encode())
    # Bytes, keys in another order, non-ASCII and escapes: the same five strings.
    shuffled = {"open_items": "Ship it \u2014 soon.", "state": "Done.", "decisions": "", "constraints": "\t", "goal": "G\u00e9"}
    model = Scripted(lc.SummaryReply(text=json.dumps(shuffled).encode(), output_tokens=9, stop=None))
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, model, structured=True)
    assert isinstance(result, lc.Compacted)
    assert result.summary == lc.render_summary(**shuffled)
    assert lc.summary_section_text(result.summary, lc.Section.OPEN_ITEMS) == "Ship it \u2014 soon."


def test_a_blank_goal_is_retried_with_its_section_then_accepted() -> None:
    model = Scripted(sections_reply(with_(goal=" \n\u3000")), text_reply(json.dumps(SECTIONS)))
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, model, structured=True)
    assert isinstance(result, lc.Compacted) and result.summary == RENDERED
    first = result.attempts[0]
    assert first.status == lc.Status.SUMMARY_XML_CONTENT and first.status_class == lc.StatusClass.RETRY
    assert first.diagnosis.section == lc.Section.GOAL and first.diagnosis.rule == "G17.9"
    assert first.diagnosis.expected == "non-blank text" and first.reply_bytes == 0
    retry = model.requests[1].messages
    assert [m["role"] for m in retry] == ["user", "assistant", "user"]
    assert retry[1]["content"] == WITHHELD  # a sections reply has no text to show
    assert "goal" in retry[2]["content"] and retry[2]["content"].endswith("\n\n" + NOTE)
    assert model.requests[1].json_schema == model.requests[0].json_schema


def test_a_blank_state_and_a_character_xml_cannot_carry_name_their_sections() -> None:
    cases = [
        (with_(state=""), lc.Status.SUMMARY_XML_CONTENT, lc.Section.STATE),
        (with_(decisions="a\x00b"), lc.Status.SUMMARY_XML_SYNTAX, lc.Section.DECISIONS),
        (with_(open_items="\ufffe"), lc.Status.SUMMARY_XML_SYNTAX, lc.Section.OPEN_ITEMS),
        (with_(constraints="\ud800"), lc.Status.SUMMARY_XML_SYNTAX, lc.Section.CONSTRAINTS),
    ]
    for sections, status, section in cases:
        with lc.Input(WIRE) as handle:
            result = lc.compact(handle, Scripted(sections_reply(sections)), attempts=1)
        assert isinstance(result, lc.KeepHistory) and result.status == status
        assert result.attempts[0].diagnosis.section == section
    # A lone surrogate escape in a JSON text is the same refusal.
    text = json.dumps(with_(constraints="x")).replace('"x"', '"\\ud800"')
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, Scripted(text_reply(text)), attempts=1, structured=True)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.SUMMARY_XML_SYNTAX
    assert result.attempts[0].diagnosis.section == lc.Section.CONSTRAINTS


def test_a_reply_that_is_not_the_object_is_discarded() -> None:
    shapes = {
        "<conversation_summary/>": lc.Status.SUMMARY_WIRE,  # the XML document: not JSON
        "```json\n" + json.dumps(SECTIONS) + "\n```": lc.Status.SUMMARY_WIRE,  # a fence is not JSON
        '{"goal": "g",': lc.Status.SUMMARY_WIRE,
        "[" * 100_000: lc.Status.SUMMARY_WIRE,  # deeper than the reader goes
        "\ufeff" + json.dumps(SECTIONS): lc.Status.SUMMARY_WIRE,
        # RFC 8259 has no NaN or Infinity (Python's json.loads reads them; Go and JS do not).
        "NaN": lc.Status.SUMMARY_WIRE,
        "-Infinity": lc.Status.SUMMARY_WIRE,
        json.dumps({**SECTIONS, "state": 7}).replace("7", "Infinity"): lc.Status.SUMMARY_WIRE,
        json.dumps([SECTIONS]): lc.Status.SUMMARY_OUTPUT_SHAPE,
        json.dumps({k: v for k, v in SECTIONS.items() if k != "open_items"}): lc.Status.SUMMARY_OUTPUT_SHAPE,
        json.dumps({**SECTIONS, "notes": ""}): lc.Status.SUMMARY_OUTPUT_SHAPE,
        json.dumps({**SECTIONS, "state": 7}): lc.Status.SUMMARY_OUTPUT_SHAPE,
        # Valid JSON whatever its length: a number of 5000 digits (more than Python's int() takes).
        json.dumps({**SECTIONS, "state": 7}).replace("7", "9" * 5000): lc.Status.SUMMARY_OUTPUT_SHAPE,
        json.dumps({**SECTIONS, "notes": 1.5}).replace("1.5", "1e400"): lc.Status.SUMMARY_OUTPUT_SHAPE,
        json.dumps({**SECTIONS, "constraints": None}): lc.Status.SUMMARY_OUTPUT_SHAPE,
    }
    for text, status in shapes.items():
        model = Scripted(text_reply(text), text_reply(RENDERED))
        with lc.Input(WIRE) as handle:
            result = lc.compact(handle, model, structured=True)
        assert isinstance(result, lc.KeepHistory) and result.status == status, text[:40]
        diagnosis = result.attempts[0].diagnosis
        assert diagnosis.status_class == lc.StatusClass.DISCARD and diagnosis.rule == "G17.10"
        assert diagnosis.location == "summary" and len(model.requests) == 1
    # Bytes that are not UTF-8 are not a JSON text either.
    bad = lc.SummaryReply(text=json.dumps(SECTIONS).encode() + b"\xff", output_tokens=5, stop="end")
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, Scripted(bad), structured=True)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.SUMMARY_WIRE
    # A key given twice counts once, with its last value.
    twice = json.dumps(SECTIONS)[:-1] + ', "goal": "Second goal."}'
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, Scripted(text_reply(twice)), structured=True)
    assert isinstance(result, lc.Compacted) and "<goal>Second goal.</goal>" in result.summary


def test_a_json_text_cut_at_the_limit_is_truncated_and_retried() -> None:
    whole = json.dumps(SECTIONS)
    model = Scripted(text_reply(whole[:50], tokens=2048, stop="length"), text_reply(whole, tokens=70))
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, model, structured=True, max_tokens=1000)
    assert isinstance(result, lc.Compacted) and result.summary == RENDERED
    first = result.attempts[0].diagnosis
    assert first.status == lc.Status.REPLY_TRUNCATED and first.rule == "R15.4"
    assert (first.limit, first.actual) == (2048, 2048)
    assert [r.max_tokens for r in model.requests] == [1000, 2000]  # escalation as for a text reply
    assert "cut off" in model.requests[1].messages[2]["content"]


def test_the_text_verdicts_apply_to_the_rendered_summary() -> None:
    size = len(RENDERED.encode())
    with lc.Input(WIRE) as handle:
        # No usage reported: DISCARD, at once.
        kept = lc.compact(handle, Scripted(sections_reply(SECTIONS, tokens=0)), structured=True)
        assert isinstance(kept, lc.KeepHistory) and kept.status == lc.Status.SUMMARY_TOKEN_USAGE
        # Over the token budget: RETRY.
        kept = lc.compact(handle, Scripted(sections_reply(SECTIONS, tokens=2049)), attempts=1)
        assert isinstance(kept, lc.KeepHistory) and kept.status == lc.Status.SUMMARY_TOKEN_LIMIT
        # The byte limit counts the rendered summary: one byte short, then exactly enough.
        model = Scripted(sections_reply(SECTIONS), sections_reply(SECTIONS))
        kept = lc.compact(handle, model, max_reply_bytes=size - 1, attempts=2)
        assert isinstance(kept, lc.KeepHistory) and kept.status == lc.Status.SUMMARY_BYTE_LIMIT
        assert (kept.attempts[0].diagnosis.limit, kept.attempts[0].diagnosis.actual) == (size - 1, size)
        done = lc.compact(handle, Scripted(sections_reply(SECTIONS)), max_reply_bytes=size)
        assert isinstance(done, lc.Compacted)


def test_never_an_unvalidated_summary() -> None:
    blank = sections_reply(with_(goal="   "))
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, Scripted(blank, blank, blank), structured=True)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.SUMMARY_XML_CONTENT
    assert len(result.attempts) == 3 and not hasattr(result, "summary")


class Summary(pydantic.BaseModel):
    goal: str
    constraints: str
    decisions: str
    state: str
    open_items: str


def test_a_pydantic_model_and_a_mapping_reply() -> None:
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, Scripted(sections_reply(Summary(**SECTIONS))))
        assert isinstance(result, lc.Compacted) and result.summary == RENDERED
        result = lc.compact(handle, Scripted({"sections": SECTIONS, "output_tokens": 3}), structured=True)
        assert isinstance(result, lc.Compacted) and result.summary == RENDERED
        # reshow_rejected shows a rejected reply's text; with sections only, the placeholder.
        model = Scripted(lc.SummaryReply(text="{}", output_tokens=3, sections=with_(goal="")), sections_reply(SECTIONS))
        result = lc.compact(handle, model, reshow_rejected=True)
        assert isinstance(result, lc.Compacted) and model.requests[1].messages[1]["content"] == "{}"
        model = Scripted(lc.SummaryReply(text="", output_tokens=3, sections=with_(goal="")), sections_reply(SECTIONS))
        lc.compact(handle, model, reshow_rejected=True)
        assert model.requests[1].messages[1]["content"] == WITHHELD


def test_sections_of_the_wrong_shape_are_the_hosts_error() -> None:
    wrong: List[Any] = [
        {k: v for k, v in SECTIONS.items() if k != "state"},
        {**SECTIONS, "extra": ""},
        {**SECTIONS, "goal": b"bytes"},
        ["goal", "constraints", "decisions", "state", "open_items"],
        object(),
    ]
    for sections in wrong:
        with pytest.raises(TypeError):
            lc.SummaryReply(text=None, output_tokens=1, sections=sections)
    with pytest.raises(TypeError):
        lc.SummaryReply(text=None, output_tokens=1)
    with lc.Input(WIRE) as handle, pytest.raises(TypeError):
        lc.compact(handle, Scripted({"output_tokens": 3}))


# ---- the openai client against the stub server -------------------------------------------------------

def completion(content: str, completion_tokens: int, finish_reason: str = "stop") -> Dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason,
                     "logprobs": None}],
        "usage": {"prompt_tokens": 900, "completion_tokens": completion_tokens, "total_tokens": 900 + completion_tokens},
    }


STOPS = {"stop": "end", "length": "length"}


def test_openai_response_format_json_schema() -> None:
    # The adapter the docs show: the schema as a strict json_schema response format; the object
    # arrives as message.content, which the round reads as JSON.
    def call_model(request: lc.SummaryRequest) -> lc.SummaryReply:
        assert request.json_schema is not None
        response = client.chat.completions.create(
            model="stub-model",
            messages=[{"role": "system", "content": request.system}, *request.messages],
            max_completion_tokens=request.max_tokens,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "conversation_summary", "strict": True, "schema": json.loads(request.json_schema)},
            },
        )
        choice = response.choices[0]
        return lc.SummaryReply(
            text=choice.message.content or "",
            output_tokens=response.usage.completion_tokens if response.usage else 0,
            stop=STOPS.get(choice.finish_reason),
        )

    answers = [completion(json.dumps(with_(state=" ")), 40), completion(json.dumps(SECTIONS), 60)]
    with Stub(answers) as stub, lc.Input(WIRE) as handle:
        client = openai.OpenAI(base_url=stub.url + "/v1", api_key="test-key", max_retries=0)
        result = lc.compact(handle, call_model, structured=True)
    assert isinstance(result, lc.Compacted) and result.summary == RENDERED
    assert [a.status for a in result.attempts] == [lc.Status.SUMMARY_XML_CONTENT, lc.Status.OK]
    bodies = [body for _, body in stub.received]
    schema = json.loads(lc.summary_json_schema())
    assert all(b["response_format"]["json_schema"]["schema"] == schema for b in bodies)
    assert bodies[0]["messages"][0] == {"role": "system", "content": lc.summary_instructions() + "\n\n" + NOTE}
    assert "state" in bodies[1]["messages"][3]["content"]


def test_openai_parse_with_a_pydantic_model() -> None:
    # chat.completions.parse builds the strict schema from the pydantic model and hands back the
    # parsed instance: the reply carries it as sections.
    def call_model(request: lc.SummaryRequest) -> lc.SummaryReply:
        response = client.chat.completions.parse(
            model="stub-model",
            messages=[{"role": "system", "content": request.system}, *request.messages],
            max_completion_tokens=request.max_tokens,
            response_format=Summary,
        )
        choice = response.choices[0]
        return lc.SummaryReply(
            text=choice.message.content,
            sections=choice.message.parsed,
            output_tokens=response.usage.completion_tokens if response.usage else 0,
            stop=STOPS.get(choice.finish_reason),
        )

    answers = [completion(json.dumps(SECTIONS), 58)]
    with Stub(answers) as stub, lc.Input(WIRE) as handle:
        client = openai.OpenAI(base_url=stub.url + "/v1", api_key="test-key", max_retries=0)
        result = lc.compact(handle, call_model, structured=True)
    assert isinstance(result, lc.Compacted) and result.summary == RENDERED
    sent = stub.received[0][1]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
    assert sorted(sent["json_schema"]["schema"]["properties"]) == sorted(SECTIONS)


def test_the_readme_adapter_runs_as_written() -> None:
    """bindings/python/README.md's structured-output adapter, executed verbatim against the stub."""
    blocks = re.findall(r"```python\n(.*?)```", (PROJECT / "README.md").read_text("utf-8"), flags=re.S)
    (block,) = [b for b in blocks if "json_schema" in b and "def call_model" in b]
    answers = [completion(json.dumps(with_(goal="")), 30), completion(json.dumps(SECTIONS), 60)]
    # The example input with 4 more turns, so that keep_last=4 leaves a head to summarise.
    document = json.loads(WIRE)
    document["transcript"] += [
        {"role": role, "blocks": [{"type": "text", "text": text}], **({"usage": None} if role == "assistant" else {})}
        for role, text in (("user", "Apply it."), ("assistant", "Applied."), ("user", "Test it."), ("assistant", "Green."))
    ]
    with Stub(answers) as stub, lc.Input(json.dumps(document)) as handle:
        scope: Dict[str, Any] = {
            "lc": lc,
            "history": handle,
            "client": openai.OpenAI(base_url=stub.url + "/v1", api_key="test-key", max_retries=0),
        }
        exec(block, scope)
    result = scope["result"]
    assert isinstance(result, lc.Compacted) and result.summary == RENDERED and result.cut == 5
    assert [a.status for a in result.attempts] == [lc.Status.SUMMARY_XML_CONTENT, lc.Status.OK]
    schema = json.loads(lc.summary_json_schema())
    assert all(body["response_format"]["json_schema"]["schema"] == schema for _, body in stub.received)


def test_a_streamed_json_reply_is_read_to_its_end() -> None:
    # SPEC T17.6 last item: the XML stream would find `{` dead at once; a structured round gathers
    # the chunks and reads the whole object (G17.10), so it commits the rendered summary.
    body = json.dumps(SECTIONS).encode()
    read: List[bytes] = []

    def chunks() -> Any:
        for at in range(0, len(body), 7):
            read.append(body[at:at + 7])
            yield body[at:at + 7]

    model = Scripted(lc.SummaryReplyStream(chunks(), lambda: lc.SummaryUsage(80, "end")))
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, model, structured=True)
    assert isinstance(result, lc.Compacted) and result.summary == RENDERED
    assert b"".join(read) == body and not result.attempts[0].aborted
    # The same chunks without `structured` are an XML reply that dies at its first byte.
    model = Scripted(lc.SummaryReplyStream(iter([body[:7], body[7:]]), lambda: lc.SummaryUsage(80, "end")), *[text_reply(RENDERED)])
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, model)
    assert isinstance(result, lc.Compacted) and result.attempts[0].aborted and result.attempts[0].reply_bytes == 7
