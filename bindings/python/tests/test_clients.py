"""The round through the clients users actually have: the ``openai`` and ``anthropic`` SDKs pointed
(``base_url``) at a stub HTTP server on 127.0.0.1 that answers with canned Chat Completions and
Messages responses, and a LangChain fake chat model. The ``call_model`` adapters are the ones
bindings/python/README.md shows. The tests assert what the stub received (system prompt,
messages, output limit) and what the round made of the answers. Never the network: the clients
reach only the stub, and the fake model nothing at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import anthropic
import openai
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult

import loopcompact as lc
from helpers import EXAMPLES, PROJECT, REPO, Stub

VALID = (
    "<conversation_summary><goal>Fix the nightly build.</goal><constraints>Keep the public API.</constraints>"
    "<decisions>Default timeout to 30s.</decisions><state>The cause was found.</state>"
    "<open_items>Rerun the tests.</open_items></conversation_summary>"
)
MISSING_CONSTRAINTS = VALID.replace("<constraints>Keep the public API.</constraints>", "")
FENCED = "```xml\n" + VALID + "\n```"
WITHHELD = "[previous summary withheld: it was rejected]"
WIRE = (EXAMPLES / "input_valid.json").read_bytes()
MAX_SUMMARY_TOKENS = 2048  # examples/data/input_valid.json
CallModel = Callable[[lc.SummaryRequest], lc.SummaryReply]


# ---- the adapters, as bindings/python/README.md shows them -----------------------------------------

def openai_call_model(client: openai.OpenAI, model: str) -> CallModel:
    # The finish reasons that say how the reply ended; others ("content_filter", ...) say nothing.
    stops = {"stop": "end", "length": "length"}

    def call_model(request: lc.SummaryRequest) -> lc.SummaryReply:
        response = client.chat.completions.create(
            model=model,
            messages=[{"role": "system", "content": request.system}, *request.messages],
            max_completion_tokens=request.max_tokens,
        )
        choice = response.choices[0]
        return lc.SummaryReply(
            text=choice.message.content or "",
            output_tokens=response.usage.completion_tokens if response.usage else 0,
            stop=stops.get(choice.finish_reason),
        )

    return call_model


def anthropic_call_model(client: anthropic.Anthropic, model: str) -> CallModel:
    stops = {"end_turn": "end", "max_tokens": "length"}

    def call_model(request: lc.SummaryRequest) -> lc.SummaryReply:
        message = client.messages.create(
            model=model,
            system=request.system,
            messages=request.messages,
            max_tokens=request.max_tokens,
        )
        text = "".join(block.text for block in message.content if block.type == "text")
        return lc.SummaryReply(
            text=text,
            output_tokens=message.usage.output_tokens,
            stop=stops.get(message.stop_reason or ""),
        )

    return call_model


def langchain_call_model(chat: BaseChatModel) -> CallModel:
    # LangChain reports how the call ended in the provider's own words.
    stops = {"stop": "end", "end_turn": "end", "length": "length", "max_tokens": "length"}

    def call_model(request: lc.SummaryRequest) -> lc.SummaryReply:
        message = chat.invoke([{"role": "system", "content": request.system}, *request.messages], max_tokens=request.max_tokens)
        metadata = message.response_metadata
        usage = message.usage_metadata
        return lc.SummaryReply(
            text=message.text,
            output_tokens=usage["output_tokens"] if usage else 0,
            stop=stops.get(metadata.get("finish_reason") or metadata.get("stop_reason") or ""),
        )

    return call_model


def chat_completion(text: str, finish_reason: str, completion_tokens: int) -> Dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": 900, "completion_tokens": completion_tokens, "total_tokens": 900 + completion_tokens},
    }


def messages_response(text: str, stop_reason: str, output_tokens: int) -> Dict[str, Any]:
    return {
        "id": "msg_stub",
        "type": "message",
        "role": "assistant",
        "model": "stub-model",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 900, "output_tokens": output_tokens},
    }


def head_of(handle: lc.Input, cut: int) -> str:
    return handle.encode_head_within(cut, (1 << 64) - 1).decode()


# ---- OpenAI Chat Completions -----------------------------------------------------------------------

def test_openai_fenced_truncated_then_retried() -> None:
    answers = [
        chat_completion(VALID[:140], "length", 500),  # cut at the output limit
        chat_completion(MISSING_CONSTRAINTS, "stop", 90),  # complete, but a section is missing
        chat_completion(FENCED, "stop", 95),  # valid inside a Markdown fence
    ]
    logged: List[str] = []
    with Stub(answers) as stub, lc.Input(WIRE) as handle:
        client = openai.OpenAI(base_url=stub.url + "/v1", api_key="test-key", max_retries=0)
        result = lc.compact(handle, openai_call_model(client, "stub-model"), keep_last=1, max_tokens=500,
                            on_attempt=lambda a: logged.append(str(a)))
        head = head_of(handle, 4)
    assert isinstance(result, lc.Compacted) and result.summary == VALID and result.cut == 4
    assert [a.stop for a in result.attempts] == ["length", "end", "end"]
    assert [a.status for a in result.attempts] == [lc.Status.REPLY_TRUNCATED, lc.Status.SUMMARY_XML_STRUCTURE, lc.Status.OK]
    assert result.attempts[2].removed == lc.Removed(lc.Cleanup.UNFENCE, 7, 4)
    assert len(logged) == 3 and logged[2].endswith("[cleanup unfence removed 7 bytes before, 4 after]")
    # What the provider received: the system prompt first, the head, then per rejected attempt
    # the withheld reply and the retry message; max_completion_tokens doubled after the cut-off.
    paths = [path for path, _ in stub.received]
    assert paths == ["/v1/chat/completions"] * 3
    bodies = [body for _, body in stub.received]
    assert [b["max_completion_tokens"] for b in bodies] == [500, 1000, 1000]
    assert all(b["model"] == "stub-model" for b in bodies)
    system = {"role": "system", "content": lc.summary_instructions()}
    assert bodies[0]["messages"] == [system, {"role": "user", "content": head}]
    assert [m["role"] for m in bodies[2]["messages"]] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert bodies[2]["messages"][:2] == bodies[0]["messages"]
    assert bodies[2]["messages"][2]["content"] == bodies[2]["messages"][4]["content"] == WITHHELD
    assert "cut off" in bodies[2]["messages"][3]["content"]
    assert "constraints" in bodies[2]["messages"][5]["content"]
    assert VALID[:140] not in json.dumps(bodies)


def test_openai_without_usage_keeps_the_history() -> None:
    answer = chat_completion(VALID, "stop", 0)
    del answer["usage"]
    with Stub([answer]) as stub, lc.Input(WIRE) as handle:
        client = openai.OpenAI(base_url=stub.url + "/v1", api_key="test-key", max_retries=0)
        result = lc.compact(handle, openai_call_model(client, "stub-model"))
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.SUMMARY_TOKEN_USAGE
    assert "usage reporting" in result.reason and len(stub.received) == 1


def test_openai_server_error_propagates_or_keeps_the_history() -> None:
    # No canned answer: the stub answers HTTP 500 and the SDK raises (retrying transient errors
    # is the SDK's job: max_retries=0 here); the round lets it through, or keeps the history.
    with Stub([]) as stub, lc.Input(WIRE) as handle:
        client = openai.OpenAI(base_url=stub.url + "/v1", api_key="test-key", max_retries=0)
        with pytest.raises(openai.InternalServerError):
            lc.compact(handle, openai_call_model(client, "stub-model"))
        kept = lc.compact(handle, openai_call_model(client, "stub-model"), on_error="keep_history")
    assert isinstance(kept, lc.KeepHistory) and kept.status is None
    assert kept.reason == "call_model raised InternalServerError at attempt 1; the history is kept."
    assert "overloaded" not in repr(kept) and len(stub.received) == 2


# ---- Anthropic Messages ----------------------------------------------------------------------------

def test_anthropic_fenced_truncated_then_retried() -> None:
    answers = [
        messages_response(FENCED[:100], "max_tokens", 2048),  # cut at the output limit
        messages_response("Sure! " + VALID, "end_turn", 99),  # prose before the XML
        messages_response(FENCED + "\n", "end_turn", 97),
    ]
    with Stub(answers) as stub, lc.Input(WIRE) as handle:
        client = anthropic.Anthropic(base_url=stub.url, api_key="test-key", max_retries=0)
        result = lc.compact(handle, anthropic_call_model(client, "stub-model"), keep_last=1, reshow_rejected=True)
        head = head_of(handle, 4)
    assert isinstance(result, lc.Compacted) and result.summary == VALID
    assert [a.status_class for a in result.attempts] == [lc.StatusClass.RETRY, lc.StatusClass.RETRY, lc.StatusClass.OK]
    assert result.attempts[0].status == lc.Status.REPLY_TRUNCATED and result.attempts[1].diagnosis.name.startswith("LC_SUMMARY_XML_")
    assert result.attempts[2].removed == lc.Removed(lc.Cleanup.TRIM | lc.Cleanup.UNFENCE, 7, 5)
    bodies = [body for _, body in stub.received]
    assert [path for path, _ in stub.received] == ["/v1/messages"] * 3
    assert all(b["system"] == lc.summary_instructions() for b in bodies)
    assert bodies[0]["messages"] == [{"role": "user", "content": head}]
    # max_tokens was already max_summary_tokens: the head shrinks instead (to 3/4 of its bytes,
    # or stays when nothing smaller fits), and max_tokens stays.
    assert [b["max_tokens"] for b in bodies] == [MAX_SUMMARY_TOKENS] * 3
    assert len(bodies[1]["messages"][0]["content"].encode()) <= len(head.encode())
    # reshow_rejected: the rejected replies go back as the assistant turns.
    assert bodies[2]["messages"][1] == {"role": "assistant", "content": FENCED[:100]}
    assert bodies[2]["messages"][3] == {"role": "assistant", "content": "Sure! " + VALID}
    assert [m["role"] for m in bodies[2]["messages"]] == ["user", "assistant", "user", "assistant", "user"]


# ---- LangChain -------------------------------------------------------------------------------------

class RecordingFakeChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, keeping what each call was given."""

    calls: List[Tuple[List[BaseMessage], Dict[str, Any]]] = []

    def _generate(self, messages: List[BaseMessage], stop: Optional[List[str]] = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls.append((messages, kwargs))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def ai_message(text: str, finish_reason: str, output_tokens: int) -> AIMessage:
    return AIMessage(
        content=text,
        response_metadata={"finish_reason": finish_reason},
        usage_metadata={"input_tokens": 900, "output_tokens": output_tokens, "total_tokens": 900 + output_tokens},
    )


def test_langchain_fake_chat_model() -> None:
    replies: Iterator[AIMessage] = iter([ai_message(MISSING_CONSTRAINTS, "stop", 80), ai_message(FENCED, "stop", 85)])
    chat = RecordingFakeChatModel(messages=replies, calls=[])
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, langchain_call_model(chat), keep_last=1)
        head = head_of(handle, 4)
    assert isinstance(result, lc.Compacted) and result.summary == VALID
    assert [a.status for a in result.attempts] == [lc.Status.SUMMARY_XML_STRUCTURE, lc.Status.OK]
    assert [a.stop for a in result.attempts] == ["end", "end"]
    (first, first_kwargs), (second, _) = chat.calls
    assert [(m.type, m.content) for m in first] == [("system", lc.summary_instructions()), ("human", head)]
    assert first_kwargs.get("max_tokens") == MAX_SUMMARY_TOKENS
    assert [m.type for m in second] == ["system", "human", "ai", "human"] and second[2].content == WITHHELD


# ---- the README's code, as it is written ----------------------------------------------------------

def python_blocks(readme: Path = PROJECT / "README.md") -> List[str]:
    return re.findall(r"```python\n(.*?)```", readme.read_text("utf-8"), flags=re.S)


def readme_blocks() -> List[str]:
    # The structured-output adapter runs in test_structured_round.py.
    return [block for block in python_blocks() if "def call_model" in block and "json_schema" not in block]


def test_readme_adapters_run_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's opening round (from an OpenAI Chat list), the round from a wire document, its
    OpenAI, Anthropic and LangChain adapters, executed verbatim: the clients find the stub through
    their base-URL environment variables."""
    blocks = readme_blocks()
    assert [("chat.completions" in b, "client.messages" in b, "chat.invoke" in b) for b in blocks] == [
        (True, False, False), (True, False, False), (False, True, False), (False, False, True)
    ]
    opening, spelled_out, with_anthropic, with_langchain = blocks
    (from_wire,) = [b for b in python_blocks() if "lc.Input(wire) as history:" in b and "compact(" in b]
    answers = [chat_completion(MISSING_CONSTRAINTS, "stop", 80), chat_completion(FENCED, "stop", 85),
               chat_completion(FENCED, "stop", 85), chat_completion(FENCED, "length", 2048)]
    with Stub(answers) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        # The opening converts an OpenAI Chat list and keeps its last 4 messages.
        turns = [("user", "Fix the nightly build."), ("assistant", "The timeout is too short."), ("user", "Apply it."),
                 ("assistant", "Applied."), ("user", "Test it."), ("assistant", "Green."), ("user", "Ship it.")]
        messages: List[Any] = [{"role": "system", "content": "You are a build agent."}]
        messages += [{"role": role, "content": text} for role, text in turns]
        scope: Dict[str, Any] = {"messages": messages}
        exec(opening, scope)
        assert isinstance(scope["result"], lc.Compacted) and scope["result"].cut == 4
        new = scope["messages"]
        assert new == [messages[0], {"role": "user", "content": VALID}, *messages[4:]]
        assert new[0] is messages[0] and all(a is b for a, b in zip(new[2:], messages[4:]))
        assert [b["model"] for _, b in stub.received] == ["gpt-4.1-mini"] * 2
        # The wire-document path: the example input with 4 more turns; message 5 is a user
        # message, so its blocks follow the summary in the summary message.
        document = json.loads(WIRE)
        document["transcript"] += [{"role": role, "blocks": [{"type": "text", "text": text}], **({"usage": None} if role == "assistant" else {})}
                                   for role, text in (("user", "Apply it."), ("assistant", "Applied."), ("user", "Test it."), ("assistant", "Green."))]
        scope["wire"] = json.dumps(document)
        exec(from_wire, scope)
        assert isinstance(scope["result"], lc.Compacted) and scope["result"].cut == 5
        new_history = json.loads(scope["new_history"])
        assert new_history[1]["blocks"] == [{"type": "text", "text": VALID}, *document["transcript"][5]["blocks"]]
        assert new_history[2:] == document["transcript"][6:]
        exec(spelled_out, scope)  # uses the opening's client
        assert scope["call_model"](lc.SummaryRequest("s", ({"role": "user", "content": "u"},), 7, 1)) == lc.SummaryReply(FENCED, 2048, "length")
        assert stub.received[-1][1]["max_completion_tokens"] == 7
    with Stub([messages_response(FENCED, "end_turn", 90)]) as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        scope = {"lc": lc}  # the later blocks continue the opening's imports
        exec(with_anthropic, scope)
        with lc.Input(WIRE) as handle:
            assert isinstance(lc.compact(handle, scope["call_model"]), lc.Compacted)
        assert stub.received[0][1]["system"] == lc.summary_instructions()
    chat = RecordingFakeChatModel(messages=iter([ai_message(VALID, "end_turn", 70)]), calls=[])
    scope = {"lc": lc, "chat": chat}
    exec(with_langchain, scope)
    with lc.Input(WIRE) as handle:
        result = lc.compact(handle, scope["call_model"])
    assert isinstance(result, lc.Compacted) and result.attempts[0].stop == "end"


def test_top_level_readme_quick_start_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repository README's Python quick start, executed verbatim on an OpenAI Chat list."""
    (quick_start,) = [b for b in python_blocks(REPO / "README.md") if "from_openai_chat(messages)" in b]
    assert len([line for line in quick_start.splitlines() if line.strip()]) < 15  # the promise
    turns = [("user", "Fix the nightly build."), ("assistant", "The timeout is too short."), ("user", "Apply it."),
             ("assistant", "Applied."), ("user", "Test it."), ("assistant", "Green."), ("user", "Ship it.")]
    messages: List[Any] = [{"role": "system", "content": "You are a build agent."}]
    messages += [{"role": role, "content": text} for role, text in turns]
    with Stub([chat_completion(FENCED, "stop", 85)]) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        scope: Dict[str, Any] = {"messages": messages}
        exec(quick_start, scope)
    assert isinstance(scope["result"], lc.Compacted) and scope["result"].summary == VALID
    assert scope["messages"] == [messages[0], {"role": "user", "content": VALID}, *messages[4:]]
    assert stub.received[0][1]["messages"][0] == {"role": "system", "content": lc.summary_instructions()}
