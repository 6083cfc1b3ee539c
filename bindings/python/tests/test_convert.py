"""The converters (SPEC §16) from the SDKs' own objects: conversations built with the real
``openai``, ``anthropic``, ``google-genai`` and ``langchain-core`` types (param TypedDicts, and
response objects that the real clients parsed from a stub server on 127.0.0.1), converted by
``from_*`` and checked against the library's conversion of the fixture JSON of
tests/convert/fixtures (the same conversations, as the SDKs posted them), against the bodies the
clients post of the same objects, and against literal expectations: signatures byte for byte, the
loss codes, the source map. Then what is not a message list: a clear error, never an echo.

Opaque tokens and canned responses are those of tests/convert/make_fixtures.py (its ``opaque``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import struct
import warnings
import zlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, cast

import anthropic
import openai
import pytest
from anthropic.types import (
    CacheControlEphemeralParam,
    MessageParam,
    TextBlockParam,
    ToolResultBlockParam,
)
from google import genai
from google.genai import types as gtypes
from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from openai.types.chat import (
    ChatCompletionContentPartImageParam,
    ChatCompletionContentPartTextParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
)
from openai.types.responses import EasyInputMessageParam, ResponseInputItemParam
from openai.types.responses.response_input_item_param import FunctionCallOutput

import loopcompact as lc
from helpers import REPO, Stub

FIXTURES = REPO / "tests" / "convert" / "fixtures"


def opaque(label: str, n: int = 48) -> str:
    """tests/convert/make_fixtures.py's opaque token: standard base64 holding '+' and '/'."""
    out = b"\xfb\xff\xbf"
    seed = label.encode()
    while len(out) < n:
        seed = hashlib.sha256(seed).digest()
        out += seed
    return base64.b64encode(out[:n] + b"\x01").decode()


SIG_A = opaque("anthropic-thinking-1")
SIG_B = opaque("anthropic-thinking-2")
SIG_EMPTY = opaque("anthropic-thinking-empty")
REDACTED = opaque("anthropic-redacted", 96)
ENC_REASONING = opaque("openai-reasoning-1", 120)
GEMINI_SIG_1 = opaque("gemini-thought-1", 40)
GEMINI_SIG_2 = opaque("gemini-thought-2", 40)


def _png_1x1() -> bytes:
    """make_fixtures.py's one green pixel."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00\xff\x00\x00", 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


PNG_B64 = base64.b64encode(_png_1x1()).decode()


def raw_source(name: str) -> bytes:
    """The ``source`` of a fixture exactly as its file holds it (the bytes the Rust tests convert)."""
    text = (FIXTURES / f"{name}.json").read_text("utf-8")
    start = text.index('"source": ') + len('"source": ')
    _, end = json.JSONDecoder().raw_decode(text, start)
    return text[start:end].encode()


def fixture(name: str) -> Any:
    return json.loads(raw_source(name))


def wire(conversion: lc.Conversion) -> List[Dict[str, Any]]:
    messages: List[Dict[str, Any]] = json.loads(conversion.transcript)
    return messages


def same_conversion(a: lc.Conversion, b: lc.Conversion) -> None:
    assert a.transcript == b.transcript
    assert a.source_index == b.source_index
    assert a.cut_allowed == b.cut_allowed
    assert a.losses == b.losses


def losses(conversion: lc.Conversion) -> List[Tuple[Optional[int], str]]:
    return [(loss.source_index, loss.name) for loss in conversion.losses]


@pytest.fixture
def stub() -> Iterator[Stub]:
    with Stub([]) as server:
        yield server


# ---- OpenAI Chat Completions -----------------------------------------------------------------------

def chat_completion(message: Dict[str, Any], finish: str = "stop") -> Dict[str, Any]:
    """make_fixtures.py's canned body: refusal null and empty annotations, as the API returns."""
    msg: Dict[str, Any] = {"role": "assistant", "content": None, "refusal": None, "annotations": []}
    msg.update(message)
    return {
        "id": "chatcmpl-fixture",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-5.1",
        "choices": [{"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
    }


def tool_call(call_id: str, name: str, arguments: str) -> Dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def chat_turn(stub: Stub, messages: Sequence[Any], reply: Dict[str, Any], finish: str = "stop") -> Any:
    """The assistant's ChatCompletionMessage as the real client parsed it, to append."""
    client = openai.OpenAI(api_key="sk-test", base_url=stub.url + "/v1", max_retries=0)
    stub.answers.append(chat_completion(reply, finish))
    return client.chat.completions.create(model="gpt-5.1", messages=messages).choices[0].message


def test_chat_parallel_tools_as_the_fixture(stub: Stub) -> None:
    m: List[Any] = [ChatCompletionUserMessageParam(role="user", content="Weather in Paris and Oslo?")]
    calls = [tool_call("call_paris", "get_weather", '{"city": "Paris"}'), tool_call("call_oslo", "get_weather", '{"city": "Oslo", "unit": "c"}')]
    assistant = chat_turn(stub, m, {"tool_calls": calls}, "tool_calls")
    assert isinstance(assistant, openai.types.chat.ChatCompletionMessage)
    m.append(assistant)  # users append the response object as it is
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_paris", content="18C, cloudy"))
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_oslo",
                                            content=[ChatCompletionContentPartTextParam(type="text", text="4C, snow")]))
    m.append(chat_turn(stub, m, {"content": "Paris 18C, Oslo 4C."}))
    conversion = lc.from_openai_chat(m)
    same_conversion(conversion, lc.from_json(lc.Format.OPENAI_CHAT, raw_source("openai_chat__parallel_tools")))
    messages = wire(conversion)
    assert [x["role"] for x in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [b["input"] for b in messages[1]["blocks"]] == [{"city": "Paris"}, {"city": "Oslo", "unit": "c"}]
    assert [x.get("tool_use_id") for x in messages[2:4]] == ["call_paris", "call_oslo"]
    assert conversion.source_index == (0, 1, 2, 3, 4) and conversion.cut_allowed == (True,) * 6
    assert conversion.losses == () and conversion.source_len == 5 and conversion.format == lc.Format.OPENAI_CHAT
    # The SDK posts the same objects as this body: converting it gives the same conversion.
    client = openai.OpenAI(api_key="sk-test", base_url=stub.url + "/v1", max_retries=0)
    stub.answers.append(chat_completion({"content": "next"}))
    client.chat.completions.create(model="gpt-5.1", messages=m)
    same_conversion(conversion, lc.from_json(lc.Format.OPENAI_CHAT, json.dumps(json.loads(stub.raw[-1])["messages"])))


def test_chat_pending_tail_converts(stub: Stub) -> None:
    m: List[Any] = [ChatCompletionUserMessageParam(role="user", content="List /tmp and /var.")]
    m.append(chat_turn(stub, m, {"content": "Listing."}))
    m.append(ChatCompletionUserMessageParam(role="user", content="Go on."))
    m.append(chat_turn(stub, m, {"tool_calls": [tool_call("call_ls_tmp", "ls", '{"path": "/tmp"}'),
                                                 tool_call("call_ls_var", "ls", '{"path": "/var"}')]}, "tool_calls"))
    conversion = lc.from_openai_chat(m)
    same_conversion(conversion, lc.from_json(lc.Format.OPENAI_CHAT, raw_source("openai_chat__pending_tail")))
    # The calls without results stay: it is §3's cut, not the converter, that handles them.
    assert [b["type"] for b in wire(conversion)[3]["blocks"]] == ["tool_use", "tool_use"]
    assert conversion.losses == ()


def test_chat_duplicate_argument_keys_resolved_as_json_loads_does(stub: Stub) -> None:
    m: List[Any] = [ChatCompletionUserMessageParam(role="user", content="Set a.")]
    m.append(chat_turn(stub, m, {"tool_calls": [tool_call("call_dup", "set_values", '{"a": 1, "b": 3, "a": 2}')]}, "tool_calls"))
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_dup", content="ok"))
    conversion = lc.from_openai_chat(m)
    same_conversion(conversion, lc.from_json(lc.Format.OPENAI_CHAT, raw_source("openai_chat__duplicate_argument_keys")))
    block = wire(conversion)[1]["blocks"][0]
    assert block["input"] == json.loads('{"a": 1, "b": 3, "a": 2}') == {"a": 2, "b": 3}
    assert list(block["input"]) == ["a", "b"]
    assert losses(conversion) == [(1, "duplicate_argument_key")]
    assert conversion.losses[0].code is lc.LossCode.DUPLICATE_ARGUMENT_KEY


def test_chat_provider_extras_are_losses_and_strict_refuses(stub: Stub) -> None:
    # A gateway's cache_control (not in the SDK's TypedDicts; the client sends it unchanged).
    part: Dict[str, Any] = {**ChatCompletionContentPartTextParam(type="text", text="Long shared context.")}
    part["cache_control"] = {"type": "ephemeral"}
    m: List[Any] = [
        {**ChatCompletionSystemMessageParam(role="system", content=[cast(Any, part)])},
        {**ChatCompletionUserMessageParam(role="user", content="Summarise it."), "cache_control": {"type": "ephemeral"}},
    ]
    m.append(chat_turn(stub, m, {"content": "It is long."}))
    conversion = lc.from_openai_chat(m)
    same_conversion(conversion, lc.from_json(lc.Format.OPENAI_CHAT, raw_source("openai_chat__cache_control")))
    assert losses(conversion) == [(0, "dropped_cache_control"), (1, "dropped_cache_control")]
    with pytest.raises(lc.ConversionError) as refused:
        lc.from_openai_chat(m, strict=True)
    e = refused.value
    assert e.status == lc.Status.CONVERT_LOSS and e.name == "LC_CONVERT_LOSS" and e.expected == "dropped_cache_control"
    assert e.location.startswith("messages[0]") and e.offset is None
    assert "Long shared context" not in str(e)


def test_chat_gemini_thought_signatures_in_extra_content(stub: Stub) -> None:
    # Gemini's OpenAI-compatible endpoint signs the reply and its first call in `extra_content`;
    # the SDK's message model keeps the field, and the conversion keeps each signature (§16.2).
    m: List[Any] = [ChatCompletionUserMessageParam(role="user", content="Weather in Paris and Oslo?")]
    signed = {**tool_call("call_paris", "get_weather", '{"city": "Paris"}'),
              "extra_content": {"google": {"thought_signature": GEMINI_SIG_1}}}
    assistant = chat_turn(stub, m, {"content": "Checking both.", "extra_content": {"google": {"thought_signature": GEMINI_SIG_2}},
                                    "tool_calls": [signed, tool_call("call_oslo", "get_weather", '{"city": "Oslo"}')]}, "tool_calls")
    m.append(assistant)
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_paris", content="18C, cloudy"))
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_oslo", content="4C, snow"))
    conversion = lc.from_openai_chat(m)
    same_conversion(conversion, lc.from_json(lc.Format.OPENAI_CHAT, raw_source("openai_chat__gemini_thought_signatures")))
    blocks = wire(conversion)[1]["blocks"]
    assert blocks[0] == {"type": "thinking", "thinking": "", "signature": GEMINI_SIG_2, "signature_format": "gemini.thought_signature"}
    assert blocks[2]["provider_state"] == {"thoughtSignature": GEMINI_SIG_1} and blocks[2]["provider_state_format"] == "gemini.part"
    assert "provider_state" not in blocks[3] and conversion.losses == ()


def test_langchain_gemini_signatures_and_openai_item_ids_lose_nothing() -> None:
    # langchain-google-genai's map of call ids to thought signatures goes to the calls;
    # langchain-openai's map of call ids to Responses item ids is metadata (§16.6).
    ai = AIMessage(content="", additional_kwargs={"__gemini_function_call_thought_signatures__": {"call_a": GEMINI_SIG_1},
                                                  "__openai_function_call_ids__": {"call_a": "fc_1"}},
                   tool_calls=[{"name": "ls", "args": {"path": "/tmp"}, "id": "call_a", "type": "tool_call"}])
    conversion = lc.from_langchain([HumanMessage("List /tmp."), ai, ToolMessage("a.txt", tool_call_id="call_a")])
    assert conversion.losses == ()
    assert wire(conversion)[1]["blocks"] == [{"type": "tool_use", "id": "call_a", "name": "ls", "input": {"path": "/tmp"},
                                              "provider_state": {"thoughtSignature": GEMINI_SIG_1},
                                              "provider_state_format": "gemini.part"}]
    ai.additional_kwargs["__gemini_function_call_thought_signatures__"]["call_gone"] = GEMINI_SIG_2
    assert losses(lc.from_langchain([ai])) == [(0, "dropped_unknown_field")]


def test_chat_media_and_name(stub: Stub) -> None:
    m: List[Any] = [ChatCompletionUserMessageParam(role="user", name="alice", content=[
        ChatCompletionContentPartTextParam(type="text", text="What is this?"),
        ChatCompletionContentPartImageParam(type="image_url", image_url={"url": "data:image/png;base64," + PNG_B64, "detail": "low"}),
    ])]
    conversion = lc.from_openai_chat(m)
    assert losses(conversion) == [(0, "dropped_name"), (0, "dropped_media_options")]
    image = wire(conversion)[0]["blocks"][1]
    assert image["type"] == "image" and image["media_type"] == "image/png"
    assert image["source"]["data"] == PNG_B64


# ---- OpenAI Responses ------------------------------------------------------------------------------

def response_body(output: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {
        "id": "resp_fixture", "object": "response", "created_at": 1767225600, "status": "completed",
        "model": "gpt-5.1", "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": 20, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                  "output_tokens_details": {"reasoning_tokens": 4}, "total_tokens": 30},
    }


def out_message(msg_id: str, text: str) -> Dict[str, Any]:
    return {"type": "message", "id": msg_id, "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]}


def fn_call(item_id: str, call_id: str, name: str, arguments: str) -> Dict[str, Any]:
    return {"type": "function_call", "id": item_id, "call_id": call_id, "name": name, "arguments": arguments, "status": "completed"}


def responses_turn(stub: Stub, items: Sequence[Any], output: List[Dict[str, Any]]) -> List[Any]:
    """``response.output``: the items the real client parsed, to append to the input."""
    client = openai.OpenAI(api_key="sk-test", base_url=stub.url + "/v1", max_retries=0)
    stub.answers.append(response_body(output))
    return list(client.responses.create(model="gpt-5.1", input=cast(Any, items), store=False).output)


def test_responses_reasoning_and_parallel_calls_as_the_fixture(stub: Stub) -> None:
    items: List[ResponseInputItemParam] = [EasyInputMessageParam(role="user", content="Weather in Paris and Oslo?")]
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Need both cities."}],
                 "encrypted_content": ENC_REASONING}
    items += responses_turn(stub, items, [reasoning, fn_call("fc_1", "call_paris", "get_weather", '{"city": "Paris"}'),
                                          fn_call("fc_2", "call_oslo", "get_weather", '{"city": "Oslo"}')])
    items.append(FunctionCallOutput(type="function_call_output", call_id="call_paris", output="18C"))
    items.append(FunctionCallOutput(type="function_call_output", call_id="call_oslo",
                                    output=[{"type": "input_text", "text": "4C, snow"}]))
    items += responses_turn(stub, items, [out_message("msg_2", "Paris 18C, Oslo 4C.")])
    conversion = lc.from_openai_responses(items)
    same_conversion(conversion, lc.from_json(lc.Format.OPENAI_RESPONSES, raw_source("openai_responses__parallel_tools")))
    messages = wire(conversion)
    # One assistant message for the run reasoning + two calls (G16.5); the signature byte-exact.
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    thinking = messages[1]["blocks"][0]
    assert thinking["signature"] == ENC_REASONING and thinking["signature_format"] == "openai.encrypted_content"
    assert thinking["provider_state"]["id"] == "rs_1" and "encrypted_content" not in thinking["provider_state"]
    assert conversion.source_index == (0, 1, 4, 5, 6) and conversion.source_len == 7
    assert conversion.cut_allowed == (True,) * 6
    # A cut at wire message 2 keeps source items 4 on: the run 1-3 was summarised whole.
    assert conversion.source_cut(2) == 4 and conversion.source_cut(5) == 7


def test_responses_instructions_hosted_tool_and_pending_tail(stub: Stub) -> None:
    items: List[Any] = [EasyInputMessageParam(role="user", content="Research, then list /tmp.")]
    items += responses_turn(stub, items, [
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "x"}},
        fn_call("fc_ls", "call_ls", "ls", '{"path": "/tmp"}'),
    ])
    conversion = lc.from_openai_responses(items, "You are terse.")
    # The run of items 1 (dropped) and 2 is one assistant message, indexed by its first kept item.
    assert conversion.source_index == (None, 0, 2)
    assert losses(conversion) == [(1, "server_tool_unrepresentable")]
    assert [b["type"] for b in wire(conversion)[2]["blocks"]] == ["tool_use"]  # the pending call stays
    assert conversion.cut_allowed[:2] == (True, True)
    only_text = lc.from_openai_responses("Hello.")
    assert only_text.source_index == (0,) and only_text.source_len == 1
    tail: List[Any] = [EasyInputMessageParam(role="user", content="List /tmp.")]
    tail += responses_turn(stub, tail, [fn_call("fc_ls", "call_ls", "ls", '{"path": "/tmp"}')])
    same_conversion(lc.from_openai_responses(tail),
                    lc.from_json(lc.Format.OPENAI_RESPONSES, raw_source("openai_responses__pending_tail")))


# ---- Anthropic Messages ----------------------------------------------------------------------------

def claude_message(content: List[Dict[str, Any]], stop: str = "end_turn") -> Dict[str, Any]:
    return {"id": "msg_fixture", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 20, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}


def claude_turn(stub: Stub, messages: Sequence[Any], content: List[Dict[str, Any]], system: Any = None) -> MessageParam:
    """``{"role": "assistant", "content": message.content}``: the blocks the real client parsed."""
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=stub.url, max_retries=0)
    stub.answers.append(claude_message(content))
    kwargs: Dict[str, Any] = {"system": system} if system is not None else {}
    message = client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=messages, **kwargs)
    return {"role": "assistant", "content": message.content}


def test_anthropic_signed_thinking_parallel_tools_as_the_fixture(stub: Stub) -> None:
    m: List[MessageParam] = [{"role": "user", "content": "Weather in Paris and Oslo?"}]
    m.append(claude_turn(stub, m, [
        {"type": "thinking", "thinking": "Need both cities.", "signature": SIG_A},
        {"type": "text", "text": "Checking both."},
        {"type": "tool_use", "id": "toolu_paris", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "toolu_oslo", "name": "get_weather", "input": {"city": "Oslo", "unit": "c"}},
    ]))
    assert isinstance(list(m[1]["content"])[0], anthropic.types.ThinkingBlock)
    m.append({"role": "user", "content": [
        ToolResultBlockParam(type="tool_result", tool_use_id="toolu_paris", content="18C, cloudy"),
        ToolResultBlockParam(type="tool_result", tool_use_id="toolu_oslo", content=[
            TextBlockParam(type="text", text="4C, snow"),
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        ]),
        TextBlockParam(type="text", text="Also: which is warmer?"),
    ]})
    m.append(claude_turn(stub, m, [{"type": "text", "text": "Paris."}]))
    conversion = lc.from_anthropic(m)
    same_conversion(conversion, lc.from_json(lc.Format.ANTHROPIC, raw_source("anthropic__parallel_tools")))
    messages = wire(conversion)
    assert [x["role"] for x in messages] == ["user", "assistant", "tool", "tool", "user", "assistant"]
    assert messages[1]["blocks"][0] == {"type": "thinking", "thinking": "Need both cities.", "signature": SIG_A,
                                         "signature_format": "anthropic"}
    # The user message of two results and a text is split (G16.1): no cut inside it.
    assert conversion.source_index == (0, 1, 2, 2, 2, 3)
    assert conversion.cut_allowed == (True, True, True, False, False, True, True)
    assert conversion.source_cut(2) == 2 and conversion.source_cut(5) == 3
    with pytest.raises(lc.ConversionError) as unsafe:
        conversion.source_cut(3)
    assert unsafe.value.status == lc.Status.CUT_UNSAFE
    with pytest.raises(lc.ConversionError) as past:
        conversion.source_cut(7)
    assert past.value.status == lc.Status.ERR_INVALID_ARGUMENT


def test_anthropic_thinking_variants_byte_exact(stub: Stub) -> None:
    m: List[Any] = [{"role": "user", "content": "Solve it."}]
    m.append(claude_turn(stub, m, [
        {"type": "redacted_thinking", "data": REDACTED},
        {"type": "thinking", "thinking": "", "signature": SIG_EMPTY},
        {"type": "thinking", "thinking": "Second thought.", "signature": SIG_B},
        {"type": "text", "text": "42"},
    ]))
    m.append({"role": "user", "content": "Why?"})
    conversion = lc.from_anthropic(m)
    same_conversion(conversion, lc.from_json(lc.Format.ANTHROPIC, raw_source("anthropic__thinking_variants")))
    redacted, empty, signed, _ = wire(conversion)[1]["blocks"]
    assert redacted == {"type": "thinking", "thinking": "", "signature": "", "provider_state": {"data": REDACTED},
                        "provider_state_format": "anthropic.redacted_thinking"}
    assert (empty["thinking"], empty["signature"]) == ("", SIG_EMPTY)
    assert (signed["thinking"], signed["signature"]) == ("Second thought.", SIG_B)
    # Byte for byte in the canonical transcript, not only equal after decoding.
    for token in (REDACTED, SIG_EMPTY, SIG_B):
        assert conversion.transcript.count(f'"{token}"'.encode()) == 1


def test_anthropic_cache_control_server_tools_error_result(stub: Stub) -> None:
    system = [TextBlockParam(type="text", text="Long shared context.",
                             cache_control=CacheControlEphemeralParam(type="ephemeral", ttl="1h"))]
    m: List[Any] = [{"role": "user", "content": [
        TextBlockParam(type="text", text="Summarise.", cache_control=CacheControlEphemeralParam(type="ephemeral"))]}]
    m.append(claude_turn(stub, m, [{"type": "text", "text": "Done."}], system))
    conversion = lc.from_anthropic(m, system)
    same_conversion(conversion, lc.from_json(lc.Format.ANTHROPIC, raw_source("anthropic__cache_control")))
    assert losses(conversion) == [(None, "dropped_cache_control"), (0, "dropped_cache_control")]
    assert conversion.source_index == (None, 0, 1)
    # A hosted (server) tool: its call and result pair on Anthropic's side and are dropped.
    m = [{"role": "user", "content": "Search, then read /etc/shadow."}]
    m.append(claude_turn(stub, m, [
        {"type": "server_tool_use", "id": "srvtoolu_ws", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_ws", "content": []},
        {"type": "tool_use", "id": "toolu_read", "name": "read_file", "input": {"path": "/etc/shadow"}},
    ]))
    m.append({"role": "user", "content": [ToolResultBlockParam(type="tool_result", tool_use_id="toolu_read",
                                                               content="permission denied", is_error=True)]})
    conversion = lc.from_anthropic(m)
    assert losses(conversion) == [(1, "server_tool_unrepresentable"), (1, "server_tool_unrepresentable")]
    result = wire(conversion)[2]
    assert (result["role"], result["tool_use_id"], result["is_error"]) == ("tool", "toolu_read", True)


# ---- Google Gemini ---------------------------------------------------------------------------------

def gemini_client(stub: Stub) -> genai.Client:
    return genai.Client(api_key="test", http_options=gtypes.HttpOptions(base_url=stub.url + "/", api_version="v1beta"))


def gemini_turn(stub: Stub, contents: List[Any], parts: List[Dict[str, Any]]) -> gtypes.Content:
    """``response.candidates[0].content``: a types.Content the real client parsed."""
    stub.answers.append({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}]})
    client = gemini_client(stub)  # kept until the call returns: a collected client closes its connection
    response = client.models.generate_content(model="gemini-3-pro-preview", contents=contents)
    assert response.candidates and response.candidates[0].content is not None
    return response.candidates[0].content


def gemini_posted(stub: Stub, contents: List[Any], system: Any = None) -> bytes:
    """The source as the SDK posts it: {"contents": ..., "system_instruction": ...} of its body."""
    stub.answers.append({"candidates": [{"content": {"role": "model", "parts": [{"text": "next"}]}}]})
    config = gtypes.GenerateContentConfig(system_instruction=system) if system is not None else None
    client = gemini_client(stub)
    client.models.generate_content(model="gemini-3-pro-preview", contents=contents, config=config)
    body = json.loads(stub.raw[-1])
    source = {"contents": body["contents"]}
    if "systemInstruction" in body:
        source["system_instruction"] = body["systemInstruction"]
    return json.dumps(source).encode()


def user(*parts: gtypes.Part) -> gtypes.Content:
    return gtypes.Content(role="user", parts=list(parts))


def test_gemini_thought_signatures_and_function_calls(stub: Stub) -> None:
    c: List[Any] = [user(gtypes.Part(text="Weather in Paris and Oslo?"))]
    c.append(gemini_turn(stub, c, [
        {"text": "Need both cities.", "thought": True},
        {"functionCall": {"id": "fc_paris", "name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": GEMINI_SIG_1},
        {"functionCall": {"id": "fc_oslo", "name": "get_weather", "args": {"city": "Oslo"}}},
    ]))
    c.append(user(
        gtypes.Part(function_response=gtypes.FunctionResponse(id="fc_paris", name="get_weather", response={"output": "18C"})),
        gtypes.Part(function_response=gtypes.FunctionResponse(id="fc_oslo", name="get_weather", response={"error": "station offline"})),
    ))
    c.append(gemini_turn(stub, c, [{"text": "Paris is 18C; Oslo is unknown.", "thoughtSignature": GEMINI_SIG_2}]))
    conversion = lc.from_gemini(c)
    # The SDK's own body of the same objects, and the fixture as the SDK posted it.
    same_conversion(conversion, lc.from_json(lc.Format.GEMINI, gemini_posted(stub, c)))
    same_conversion(conversion, lc.from_json(lc.Format.GEMINI, json.dumps(fixture("gemini__parallel_tools"))))
    messages = wire(conversion)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    # The SDK holds a signature as bytes and posts them URL-safe: that string arrives unchanged.
    posted_1 = base64.urlsafe_b64encode(base64.b64decode(GEMINI_SIG_1)).decode()
    posted_2 = base64.urlsafe_b64encode(base64.b64decode(GEMINI_SIG_2)).decode()
    call = messages[1]["blocks"][1]
    assert call["provider_state"] == {"thoughtSignature": posted_1} and call["provider_state_format"] == "gemini.part"
    assert messages[4]["blocks"][0] == {"type": "thinking", "thinking": "", "signature": posted_2,
                                        "signature_format": "gemini.thought_signature"}
    assert messages[3]["is_error"] is True and messages[2]["is_error"] is False
    assert conversion.source_index == (0, 1, 2, 2, 3) and conversion.cut_allowed == (True, True, True, False, True, True)


def test_gemini_candidate_instead_of_its_content_is_refused(stub: Stub) -> None:
    # §16.5: appending response.candidates[0] instead of .content would make the model's reply an
    # empty user turn; the conversion refuses it at that element.
    c: List[Any] = [user(gtypes.Part(text="Weather in Paris?"))]
    stub.answers.append({"candidates": [{"content": {"role": "model", "parts": [{"text": "18C."}]}, "finishReason": "STOP", "index": 0}]})
    client = gemini_client(stub)
    response = client.models.generate_content(model="gemini-3-pro", contents=c)
    assert response.candidates
    candidate = response.candidates[0]
    assert isinstance(candidate, gtypes.Candidate) and candidate.content is not None
    with pytest.raises(lc.ConversionError) as refused:
        lc.from_gemini([*c, candidate])
    assert refused.value.status == lc.Status.CONVERT_SHAPE and refused.value.location == "contents[1]"
    assert "Candidate" in str(refused.value) and "18C" not in str(refused.value)
    assert wire(lc.from_gemini([*c, candidate.content]))[1]["blocks"] == [{"type": "text", "text": "18C."}]


def test_gemini_inline_data_system_instruction_pending_tail(stub: Stub) -> None:
    png = base64.b64decode(PNG_B64)
    c: List[Any] = [user(gtypes.Part(text="What is this?"), gtypes.Part(inline_data=gtypes.Blob(mime_type="image/png", data=png)))]
    c.append(gemini_turn(stub, c, [{"functionCall": {"id": "fc_ls", "name": "ls", "args": {"path": "/tmp"}},
                                    "thoughtSignature": GEMINI_SIG_1}]))
    conversion = lc.from_gemini(c, "You are terse.")
    same_conversion(conversion, lc.from_json(lc.Format.GEMINI, gemini_posted(stub, c, "You are terse.")))
    messages = wire(conversion)
    assert conversion.source_index == (None, 0, 1) and messages[0]["role"] == "system"
    image = messages[1]["blocks"][1]
    assert image["source"]["data"] == PNG_B64 and image["media_type"] == "image/png"  # standard base64 (T5.6)
    assert [b["type"] for b in messages[2]["blocks"]] == ["tool_use"]
    # The system instruction as a Content, a Part or a list: the same system message.
    for system in (gtypes.Content(parts=[gtypes.Part(text="You are terse.")]), gtypes.Part(text="You are terse."),
                   ["You are terse."], {"parts": [{"text": "You are terse."}]}):
        assert lc.from_gemini(c, system).transcript == conversion.transcript
    tail: List[Any] = [user(gtypes.Part(text="List /tmp."))]
    tail.append(gemini_turn(stub, tail, [{"functionCall": {"id": "fc_ls", "name": "ls", "args": {"path": "/tmp"}},
                                          "thoughtSignature": GEMINI_SIG_1}]))
    same_conversion(lc.from_gemini(tail), lc.from_json(lc.Format.GEMINI, json.dumps(fixture("gemini__pending_tail"))))


def test_gemini_calls_without_ids_and_code_execution(stub: Stub) -> None:
    c: List[Any] = [user(gtypes.Part(text="Time in Tokyo and Lima?"))]
    c.append(gemini_turn(stub, c, [
        {"functionCall": {"name": "get_time", "args": {"tz": "Asia/Tokyo"}}, "thoughtSignature": GEMINI_SIG_1},
        {"functionCall": {"name": "get_time", "args": {"tz": "America/Lima"}}},
    ]))
    c.append(user(gtypes.Part(function_response=gtypes.FunctionResponse(name="get_time", response={"output": "09:00"})),
                  gtypes.Part(function_response=gtypes.FunctionResponse(name="get_time", response={"output": "19:00"}))))
    conversion = lc.from_gemini(c)
    same_conversion(conversion, lc.from_json(lc.Format.GEMINI, json.dumps(fixture("gemini__calls_without_ids"))))
    assert losses(conversion) == [(1, "synthesized_tool_id"), (1, "synthesized_tool_id")]
    calls = [b["id"] for b in wire(conversion)[1]["blocks"] if b["type"] == "tool_use"]
    assert [m.get("tool_use_id") for m in wire(conversion)[2:]] == calls and len(set(calls)) == 2
    code = [user(gtypes.Part(text="6*7?")), gemini_turn(stub, [user(gtypes.Part(text="6*7?"))], [
        {"executableCode": {"language": "PYTHON", "code": "print(6*7)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n"}},
        {"text": "42"},
    ])]
    assert losses(lc.from_gemini(code)) == [(1, "server_tool_unrepresentable"), (1, "server_tool_unrepresentable")]


# ---- LangChain -------------------------------------------------------------------------------------

LANGCHAIN_FIXTURES = ["langchain__plain_text", "langchain__tools", "langchain__tools_dumpd", "langchain__pending_tail",
                      "langchain__anthropic_thinking", "langchain__anthropic_thinking_v1",
                      "langchain__openai_responses_reasoning", "langchain__media", "langchain__openai_responses_v0",
                      "langchain__gemini_signatures"]


@pytest.mark.parametrize("name", LANGCHAIN_FIXTURES)
def test_langchain_objects_convert_as_their_serialised_form(name: str) -> None:
    """Each LangChain fixture read back into BaseMessage objects by langchain-core itself
    (``messages_from_dict``, or ``load`` for the dumpd form) converts as the fixture does."""
    source = fixture(name)
    if name.endswith("_dumpd"):
        from langchain_core._api import LangChainBetaWarning
        from langchain_core.load import load

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LangChainBetaWarning)
            objects = load(source, allowed_objects="messages")
    else:
        objects = messages_from_dict(source)
    assert all(isinstance(m, BaseMessage) for m in objects)
    same_conversion(lc.from_langchain(objects), lc.from_json(lc.Format.LANGCHAIN, raw_source(name)))
    same_conversion(lc.from_langchain(source), lc.from_json(lc.Format.LANGCHAIN, raw_source(name)))


def test_langchain_messages_built_by_hand() -> None:
    messages: List[BaseMessage] = [
        SystemMessage("You are terse."),
        HumanMessage(content=[{"type": "text", "text": "What is this?"},
                              {"type": "image", "base64": PNG_B64, "mime_type": "image/png"}]),
        AIMessage(
            content=[
                {"type": "thinking", "thinking": "Use both tools.", "signature": SIG_A},
                {"type": "redacted_thinking", "data": REDACTED},
                {"type": "text", "text": "Checking."},
            ],
            tool_calls=[{"id": "call_a", "name": "look", "args": {"q": "png"}},
                        {"id": "call_b", "name": "size", "args": {}}],
            usage_metadata={"input_tokens": 30, "output_tokens": 12, "total_tokens": 42},
        ),
        ToolMessage("a pixel", tool_call_id="call_a"),
        ToolMessage("unreadable", tool_call_id="call_b", status="error"),
        AIMessage("A green pixel.", tool_calls=[{"id": "call_c", "name": "save", "args": {"path": "a.png"}}]),
    ]
    conversion = lc.from_langchain(messages)
    same_conversion(conversion, lc.from_json(lc.Format.LANGCHAIN, json.dumps(messages_to_dict(messages))))
    same_conversion(conversion, lc.from_json(lc.Format.LANGCHAIN, json.dumps(dumpd(messages))))
    m = wire(conversion)
    assert [x["role"] for x in m] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    thinking, redacted, text, call_a, call_b = m[2]["blocks"]
    assert (thinking["signature"], thinking["signature_format"]) == (SIG_A, "anthropic")
    assert redacted["provider_state"] == {"data": REDACTED}
    assert [call_a["id"], call_b["id"]] == ["call_a", "call_b"] and call_a["input"] == {"q": "png"}
    assert m[2]["usage"]["input_tokens"] == 30 and m[2]["usage"]["output_tokens"] == 12
    assert (m[3]["is_error"], m[4]["is_error"]) == (False, True)
    assert conversion.losses == ()


def test_langchain_fields_holding_any_python_object_convert() -> None:
    # §16.6: an artifact, response_metadata and additional_kwargs are only asked whether they hold
    # something; LangChain lets them hold any object (content_and_artifact tools return bytes).
    import datetime

    messages: List[BaseMessage] = [
        HumanMessage("fetch it"),
        AIMessage("", tool_calls=[{"id": "c1", "name": "fetch", "args": {}}],
                  response_metadata={"created": datetime.datetime(2026, 12, 3), "score": math.inf}),
        ToolMessage("fetched", tool_call_id="c1", artifact={"raw": b"\x00\x01", "rows": (1, 2)}),
    ]
    conversion = lc.from_langchain(messages)
    assert [x["role"] for x in wire(conversion)] == ["user", "assistant", "tool"]
    # The artifact is dropped with its loss; the metadata is ignored.
    assert conversion.losses == ((2, lc.LossCode.DROPPED_UNKNOWN_FIELD),)


def test_the_openai_parse_helpers_fields_lose_nothing() -> None:
    # openai's .parse() / .stream() give ParsedChatCompletionMessage: `parsed` and a call's
    # `parsed_arguments` repeat the content and the arguments (SPEC §16.2: metadata).
    from openai.types.chat import ParsedChatCompletionMessage

    message: ParsedChatCompletionMessage[Any] = ParsedChatCompletionMessage.model_validate({
        "role": "assistant", "content": '{"city": "Oslo"}', "refusal": None, "parsed": {"city": "Oslo"},
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Oslo"}',
                                     "parsed_arguments": {"city": "Oslo"}}}],
    })
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no pydantic serializer warning reaches the user
        conversion = lc.from_openai_chat([{"role": "user", "content": "weather?"}, message,
                                          {"role": "tool", "tool_call_id": "call_1", "content": "-3C"}])
    assert conversion.losses == ()
    assert wire(conversion)[1]["blocks"][1]["input"] == {"city": "Oslo"}


# ---- the encoder: fast and plain ---------------------------------------------------------------------

def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(9 if depth < 6 else 5)
    if kind == 0:
        return rng.choice(["", "a", "é", "\u2028", '"q"', "\\", "\x00", "ü" * 3, "\ud800", "😀"])
    if kind == 1:
        return rng.randrange(-(1 << 70), 1 << 70)
    if kind == 2:
        return rng.choice([0.0, -0.0, 1.5, 1e300, 5e-324, -2.5e-7, math.nan] if rng.random() < 0.05 else [0.0, 1.5, -2.5e-7])
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return rng.choice([lc.LossCode.DROPPED_NAME, b"\xfb\xff", 7])
    if kind in (5, 6):
        return {rng.choice(["a", "b", "role", "é", 1, 2.5, True, None, "x y"]): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    if kind == 7:
        return tuple(random_value(rng, depth + 1) for _ in range(rng.randrange(4)))
    return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))] + [gtypes.Part(text="t", thought=True)]


@pytest.mark.parametrize("fmt", [lc.Format.OPENAI_CHAT, lc.Format.GEMINI])
def test_the_plain_encoder_writes_what_json_dumps_writes(fmt: lc.Format) -> None:
    from loopcompact import _convert

    rng = random.Random(27)
    dump = _convert._DUMPS[fmt]
    separators = _convert._SEPARATORS.get(fmt, _convert._COMPACT)
    def default(obj: Any) -> Any:
        try:
            return dump(obj)
        except _convert._NotData:
            raise TypeError from None

    for _ in range(400):
        value = [random_value(rng, 0)]
        try:
            fast: Optional[str] = json.dumps(value, ensure_ascii=False, separators=separators, allow_nan=False, default=default)
        except (TypeError, ValueError):
            fast = None
        try:
            plain: Optional[str] = _convert._encode_plain(value, dump, "messages", fmt, separators)
        except (TypeError, lc.ConversionError):
            plain = None
        assert fast == plain
        # Both agree on failures too; on success the text parses back to what json.loads gives.
        if fast is not None:
            json.loads(fast)


def test_depth_beyond_pythons_recursion_limit() -> None:
    deep: Any = {"leaf": 1}
    for _ in range(2000):  # 4000 deep: json.dumps stops at Python's recursion limit (1000)
        deep = {"k": [deep]}
    call: Dict[str, Any] = {"type": "tool_use", "id": "t1", "name": "f", "input": deep}
    messages = [{"role": "user", "content": "Go."}, {"role": "assistant", "content": [call]}]
    conversion = lc.from_anthropic(messages)  # json.dumps gives up (RecursionError): the plain encoder writes it
    assert conversion.transcript.count(b'{"k":[') == 2000
    for _ in range(3000):  # 10000 deep and more: the library's limit (J5.2)
        deep = {"k": [deep]}
    call["input"] = deep
    with pytest.raises(lc.ConversionError) as too_deep:
        lc.from_anthropic(messages)
    assert too_deep.value.status == lc.Status.CONVERT_WIRE


# ---- what is not a message list --------------------------------------------------------------------

SECRET = "sk-live-SECRET-do-not-echo"


class Unknown:
    def __repr__(self) -> str:
        return SECRET


def test_not_a_list_is_a_type_error() -> None:
    converters: List[Callable[[Any], lc.Conversion]] = [
        lc.from_openai_chat, lc.from_anthropic, lc.from_gemini, lc.from_langchain, lc.from_openai_responses]
    values: List[Any] = [{"role": "user", "content": SECRET}, None, 3, iter([])]
    for call in converters:
        for value in values:
            with pytest.raises(TypeError) as e:
                call(value)
            assert SECRET not in str(e.value) and "list" in str(e.value)


def test_a_list_of_non_messages_is_a_shape_error_with_a_location() -> None:
    with pytest.raises(lc.ConversionError) as e:
        lc.from_openai_chat([{"role": "user", "content": "hi"}, SECRET])
    assert e.value.status == lc.Status.CONVERT_SHAPE and e.value.location == "messages[1]"
    assert SECRET not in str(e.value) and e.value.offset is None and e.value.line is None
    with pytest.raises(lc.ConversionError) as e:
        lc.from_anthropic([{"role": "user", "content": [{"type": "text", "text": 5}]}])
    assert e.value.location == "messages[0].content[0].text" and e.value.status_class == lc.StatusClass.HOST
    with pytest.raises(lc.ConversionError) as e:
        lc.from_openai_chat([{"role": SECRET * 100_000, "content": "hi"}])  # a huge string: not echoed
    assert e.value.location.startswith("messages[0]") and SECRET not in str(e.value) and len(str(e.value)) < 400


def test_unknown_objects_cycles_and_nan() -> None:
    with pytest.raises(TypeError) as e:
        lc.from_openai_chat([{"role": "user", "content": [{"type": "text", "text": Unknown()}]}])
    assert "messages[0].content[0].text" in str(e.value) and "Unknown" in str(e.value) and SECRET not in str(e.value)
    with pytest.raises(TypeError) as e:
        lc.from_langchain([HumanMessage("hi"), gtypes.Part(text=SECRET)])  # another SDK's object
    assert "messages[1]" in str(e.value) and SECRET not in str(e.value)
    with pytest.raises(TypeError) as e:
        lc.from_openai_chat([{"role": "user", "content": "hi", (SECRET,): 1}])
    assert "messages[0].{key 2}" in str(e.value) and SECRET not in str(e.value)
    cyclic: Dict[str, Any] = {"role": "user"}
    cyclic["content"] = [{"type": "text", "text": "x", "self": cyclic}]
    with pytest.raises(lc.ConversionError) as cycle:
        lc.from_openai_chat([cyclic])
    assert cycle.value.status == lc.Status.CONVERT_SHAPE and cycle.value.location == "messages[0].content[0].self"
    for bad in (math.nan, math.inf):
        with pytest.raises(lc.ConversionError) as nan:
            lc.from_anthropic([{"role": "user", "content": "x"}, {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t", "name": "f", "input": {"x": bad}}]}])
        assert nan.value.location == "messages[1].content[0].input.x" and nan.value.expected == "a finite number"
    # A key that is not an identifier is named by its place, never by its bytes.
    with pytest.raises(lc.ConversionError) as keyed:
        lc.from_openai_chat([{"role": "user", "content": "x", SECRET + " key": [math.nan]}])
    assert keyed.value.location == "messages[0].{key 2}[0]" and SECRET not in str(keyed.value)


def test_huge_strings_and_lone_surrogates_convert() -> None:
    huge = "x" * (8 << 20)
    conversion = lc.from_openai_chat([{"role": "user", "content": huge},
                                      {"role": "assistant", "tool_calls": [tool_call("c1", "f", huge)]}])
    assert losses(conversion) == [(1, "arguments_unparseable")]
    assert len(conversion.transcript) > 16 << 20
    assert wire(lc.from_openai_chat([{"role": "user", "content": "a\ud800b"}]))[0]["blocks"][0]["text"] == "a\ufffdb"


def test_from_json_counts_bytes_of_the_callers_json() -> None:
    with pytest.raises(lc.ConversionError) as e:
        lc.from_json(lc.Format.OPENAI_CHAT, b'[{"role": "user", "content": "hi"}, {"role": 7}]')
    assert e.value.status == lc.Status.CONVERT_SHAPE and e.value.location == "messages[1].role" and e.value.offset is not None
    with pytest.raises(lc.ConversionError) as e:
        lc.from_json(lc.Format.ANTHROPIC, b'{"messages": [')
    assert e.value.status == lc.Status.CONVERT_WIRE
    with pytest.raises(ValueError):
        lc.from_json(99, b"[]")
    ai_sdk = lc.from_json(lc.Format.AI_SDK, raw_source("ai_sdk__parallel_tools"))
    assert ai_sdk.source_len == len(json.loads(raw_source("ai_sdk__parallel_tools")))
    assert ai_sdk.format == lc.Format.AI_SDK and ai_sdk.cut_allowed[0]


def test_conversion_lifetime_and_names() -> None:
    conversion = lc.from_openai_chat([{"role": "user", "content": "hi", "name": "bob"}])
    with conversion:
        assert not conversion.closed and "open" in repr(conversion)
        assert conversion.losses[0].name == "dropped_name" == lc.loss_name(lc.LossCode.DROPPED_NAME)
    assert conversion.closed
    assert conversion.losses[0].code == lc.LossCode.DROPPED_NAME  # read before close: still readable
    with pytest.raises(ValueError):
        conversion.source_cut(0)
    assert [lc.loss_name(c) for c in (0, 18, -1)] == ["", "", ""]
    assert [c.name.lower() for c in lc.LossCode] == [lc.loss_name(c) for c in lc.LossCode]


# ---- tests/convert/pinned.jsonl: the figures the Rust test pins, not a second call of the library --

_FORMATS = {
    "openai_chat": lc.Format.OPENAI_CHAT,
    "openai_responses": lc.Format.OPENAI_RESPONSES,
    "anthropic": lc.Format.ANTHROPIC,
    "gemini": lc.Format.GEMINI,
    "ai_sdk": lc.Format.AI_SDK,
    "langchain": lc.Format.LANGCHAIN,
}


def test_every_fixture_converts_as_pinned() -> None:
    lines = (REPO / "tests" / "convert" / "pinned.jsonl").read_text("utf-8").splitlines()
    pinned = [json.loads(line) for line in lines]
    assert len(pinned) == len(list(FIXTURES.glob("*.json"))) >= 50
    for want in pinned:
        name = want["name"]
        with lc.from_json(_FORMATS[want["format"]], raw_source(name)) as c:
            assert len(c.transcript) == want["transcript_len"], name
            assert hashlib.sha256(c.transcript).hexdigest() == want["transcript_sha256"], name
            assert list(c.source_index) == want["source_index"], name
            assert list(c.cut_allowed) == want["cut_allowed"], name
            assert c.source_len == want["source_len"], name
            assert [[loss.source_index, loss.name] for loss in c.losses] == want["losses"], name
            for cut, s in enumerate(want["source_cuts"]):
                if s is None:
                    with pytest.raises(lc.ConversionError):
                        c.source_cut(cut)
                else:
                    assert c.source_cut(cut) == s, (name, cut)
            with c.input(provider="provider", model="model", max_summary_tokens=1000, revision=1) as history:
                doc = json.loads(history.encode_within(1 << 62))
            assert doc["request_fingerprint"] == want["request_fingerprint"], name
            assert doc["basis"]["through_event_id"] == want["through_event_id"], name
