#!/usr/bin/env python3
"""Builds the transcript-converter fixtures (issue 27) with the providers' own Python SDKs.

Each case builds a conversation from the SDK's own typed objects (param TypedDicts, response
models parsed from canned JSON and appended to the history the way users feed a turn back), lets
the real client post it to a loopback stub (tests/convert/stub.py: 127.0.0.1, never the
network), and writes what the client sent as the converter's input:

    {"format": ..., "source": ..., "note": ...}

    openai_chat        source = the `messages` array
    openai_responses   source = {"input": [...], "instructions": ...}
    anthropic          source = {"system": ..., "messages": [...]}
    gemini             source = {"contents": [...], "system_instruction": ...}
    langchain          source = the serialised message list (`messages_to_dict`, or `dumpd`)

Usage (from the repository root, in a venv with tests/convert/requirements.txt):

    python tests/convert/make_fixtures.py            # write tests/convert/fixtures/*.json
    python tests/convert/make_fixtures.py --check    # regenerate in memory, diff with the files
    python tests/convert/make_fixtures.py --big      # also write the 1 MiB benchmark chats to
                                                     # target/convert-fixtures/ (not committed)

Everything is deterministic: fixed ids, fixed bytes, a seeded generator for the big chats.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import random
import struct
import sys
import wave
import zlib
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# The clients must talk to the loopback stub only: drop proxy settings before any client exists.
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)
os.environ["NO_PROXY"] = "127.0.0.1,localhost"

import anthropic  # noqa: E402
import langchain_core  # noqa: E402
import openai  # noqa: E402
from anthropic.types import (  # noqa: E402
    Base64ImageSourceParam,
    Base64PDFSourceParam,
    CacheControlEphemeralParam,
    ContainerUploadBlockParam,
    ContentBlockSourceParam,
    DocumentBlockParam,
    FileDocumentSourceParam,
    FileImageSourceParam,
    ImageBlockParam,
    MessageParam,
    PlainTextSourceParam,
    RedactedThinkingBlockParam,
    SearchResultBlockParam,
    TextBlockParam,
    ThinkingBlockParam,
    ToolResultBlockParam,
    ToolUseBlockParam,
    URLImageSourceParam,
    URLPDFSourceParam,
)
from google import genai  # noqa: E402
from google.genai import types as gtypes  # noqa: E402
from langchain_anthropic import ChatAnthropic  # noqa: E402
from langchain_core.load import dumpd  # noqa: E402
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_to_dict,
)
from langchain_openai import ChatOpenAI  # noqa: E402
from openai.types.chat import (  # noqa: E402
    ChatCompletionAssistantMessageParam,
    ChatCompletionContentPartImageParam,
    ChatCompletionContentPartInputAudioParam,
    ChatCompletionContentPartRefusalParam,
    ChatCompletionContentPartTextParam,
    ChatCompletionDeveloperMessageParam,
    ChatCompletionFunctionMessageParam,
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
)
from openai.types.chat.chat_completion_content_part_param import File, FileFile  # noqa: E402
from openai.types.responses import (  # noqa: E402
    EasyInputMessageParam,
    ResponseInputFileParam,
    ResponseInputImageParam,
    ResponseInputItemParam,
    ResponseInputTextParam,
)
from openai.types.responses.response_input_item_param import (  # noqa: E402
    FunctionCallOutput,
    ItemReference,
    Message as ResponsesInputMessage,
)
from openai.types.responses.response_custom_tool_call_output_param import (  # noqa: E402
    ResponseCustomToolCallOutputParam,
)
from openai.types.responses.response_compaction_item_param_param import (  # noqa: E402
    ResponseCompactionItemParamParam,
)

from stub import Stub, loads_strict  # noqa: E402

FIXTURES = HERE / "fixtures"
BIG_DIR = HERE.parents[1] / "target" / "convert-fixtures"

SDK_VERSIONS = {
    "openai": openai.__version__,
    "anthropic": anthropic.__version__,
    "google-genai": genai.__version__,
    "langchain-core": langchain_core.__version__,
}

# --------------------------------------------------------------------------------------------
# Deterministic bytes


def _png_1x1() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00", 9))
        + chunk(b"IEND", b"")
    )


def _wav_silence() -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(b"\x80" * 16)
    return buf.getvalue()


PNG = _png_1x1()
PNG_B64 = base64.b64encode(PNG).decode()
PNG_DATA_URL = "data:image/png;base64," + PNG_B64
WAV_B64 = base64.b64encode(_wav_silence()).decode()
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
PDF_B64 = base64.b64encode(PDF).decode()
IMAGE_URL = "https://example.com/cat.png"
PDF_URL = "https://example.com/paper.pdf"


def opaque(label: str, n: int = 48) -> str:
    """A deterministic opaque token (signature, encrypted content) in standard base64.

    The bytes are chosen so that the standard encoding contains '+' and '/': a converter or an
    SDK that re-encodes with the URL-safe alphabet, or strips padding, shows in the fixture.
    """
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
ENC_COMPACTION = opaque("openai-compaction", 160)
GEMINI_SIG_1 = opaque("gemini-thought-1", 40)
GEMINI_SIG_2 = opaque("gemini-thought-2", 40)


# --------------------------------------------------------------------------------------------
# Output


class Sink:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def add(self, name: str, fmt: str, source: Any, note: str, big: bool = False) -> None:
        doc = {"format": fmt, "source": source, "note": note}
        if big:
            text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        else:
            text = json.dumps(doc, ensure_ascii=False, indent=1)
        data = (text + "\n").encode()
        # The fixture must read back as written and carry no duplicate key (the converter's
        # input rule); the duplicate keys of the duplicate-key cases live inside strings.
        loads_strict(data)
        key = ("big/" if big else "") + f"{fmt}__{name}.json"
        if key in self.files:
            raise ValueError(f"fixture {key} written twice")
        self.files[key] = data


def sdk_note(pkg: str, how: str) -> str:
    return f"{how} ({pkg}=={SDK_VERSIONS[pkg]})"


# --------------------------------------------------------------------------------------------
# OpenAI Chat Completions

CHAT_MODEL = "gpt-5.1"


def chat_completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    """A canned `chat.completion` body as the API returns it (null refusal, empty annotations)."""
    msg = {"role": "assistant", "content": None, "refusal": None, "annotations": []}
    msg.update(message)
    return {
        "id": "chatcmpl-fixture",
        "object": "chat.completion",
        "created": 1767225600,
        "model": CHAT_MODEL,
        "choices": [{"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
    }


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


class Chat:
    def __init__(self, stub: Stub) -> None:
        self.stub = stub
        self.client = openai.OpenAI(api_key="sk-fixture", base_url=stub.url + "/v1", max_retries=0)

    def turn(self, messages: list[Any], reply: dict[str, Any], finish: str = "stop") -> Any:
        """Post the history, get the canned reply back as the SDK's ChatCompletionMessage."""
        self.stub.reply(chat_completion(reply, finish))
        completion = self.client.chat.completions.create(model=CHAT_MODEL, messages=messages)
        self.stub.take()
        return completion.choices[0].message

    def sent(self, messages: list[Any]) -> list[Any]:
        """Post the history once more and return the `messages` array the client sent."""
        self.stub.reply(chat_completion({"content": "(next turn)"}))
        self.client.chat.completions.create(model=CHAT_MODEL, messages=messages)
        path, body = self.stub.take()
        assert path == "/v1/chat/completions", path
        return body["messages"]


def chat_cases(stub: Stub, sink: Sink) -> None:
    chat = Chat(stub)
    how = "messages posted by openai.OpenAI().chat.completions.create"

    def add(name: str, messages: list[Any], note: str) -> None:
        sink.add(name, "openai_chat", chat.sent(messages), note + ". " + sdk_note("openai", how))

    # Plain text turns; the assistant turn is the SDK's ChatCompletionMessage appended as is,
    # so it carries the `refusal: null` and `annotations: []` the API returns.
    m: list[ChatCompletionMessageParam] = [
        ChatCompletionSystemMessageParam(role="system", content="You are terse."),
        ChatCompletionUserMessageParam(role="user", content="Name a prime."),
    ]
    m.append(chat.turn(m, {"content": "7"}))
    m.append(ChatCompletionUserMessageParam(role="user", content="Another."))
    add("plain_text", m, "System, user, assistant (response model appended), user")

    # Parallel tool calls, results as `tool` messages, then the answer.
    m = [ChatCompletionUserMessageParam(role="user", content="Weather in Paris and Oslo?")]
    m.append(
        chat.turn(
            m,
            {
                "tool_calls": [
                    tool_call("call_paris", "get_weather", '{"city": "Paris"}'),
                    tool_call("call_oslo", "get_weather", '{"city": "Oslo", "unit": "c"}'),
                ]
            },
            "tool_calls",
        )
    )
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_paris", content="18C, cloudy"))
    m.append(
        ChatCompletionToolMessageParam(
            role="tool",
            tool_call_id="call_oslo",
            content=[ChatCompletionContentPartTextParam(type="text", text="4C, snow")],
        )
    )
    m.append(chat.turn(m, {"content": "Paris 18C, Oslo 4C."}))
    add(
        "parallel_tools",
        m,
        "Two tool_calls in one assistant message, answered by two tool messages (string and text-part"
        " content); Chat has no error flag, so every result converts with is_error false",
    )

    # Pending tail: the last assistant turn has calls and no results yet.
    m = [ChatCompletionUserMessageParam(role="user", content="List /tmp and /var.")]
    m.append(chat.turn(m, {"content": "Listing."}))
    m.append(ChatCompletionUserMessageParam(role="user", content="Go on."))
    m.append(
        chat.turn(
            m,
            {
                "tool_calls": [
                    tool_call("call_ls_tmp", "ls", '{"path": "/tmp"}'),
                    tool_call("call_ls_var", "ls", '{"path": "/var"}'),
                ]
            },
            "tool_calls",
        )
    )
    add("pending_tail", m, "The last assistant message has two tool_calls without results yet")

    # Gemini through its OpenAI-compatible endpoint: the reply's thought signatures in
    # `extra_content`, on the message and on its first call. The SDK keeps the field it does not
    # declare on the parsed message and posts it back with the history.
    m = [ChatCompletionUserMessageParam(role="user", content="Weather in Paris and Oslo?")]
    signed_call = tool_call("call_paris", "get_weather", '{"city": "Paris"}')
    signed_call["extra_content"] = {"google": {"thought_signature": GEMINI_SIG_1}}
    m.append(
        chat.turn(
            m,
            {
                "content": "Checking both.",
                "extra_content": {"google": {"thought_signature": GEMINI_SIG_2}},
                "tool_calls": [signed_call, tool_call("call_oslo", "get_weather", '{"city": "Oslo"}')],
            },
            "tool_calls",
        )
    )
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_paris", content="18C, cloudy"))
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_oslo", content="4C, snow"))
    add(
        "gemini_thought_signatures",
        m,
        "Gemini's OpenAI-compatible reply: extra_content.google.thought_signature on the message and"
        " on its first call, kept by the SDK's message model and posted back",
    )

    # A LiteLLM proxy in front of Anthropic: the reply's thinking blocks (signed, and redacted) in
    # `thinking_blocks`, their text again in `reasoning_content`; the SDK keeps both and posts them.
    m = [ChatCompletionUserMessageParam(role="user", content="List /tmp.")]
    m.append(
        chat.turn(
            m,
            {
                "reasoning_content": "Use ls.",
                "thinking_blocks": [
                    {"type": "thinking", "thinking": "Use ls.", "signature": SIG_A},
                    {"type": "redacted_thinking", "data": REDACTED},
                ],
                "tool_calls": [tool_call("call_ls", "ls", '{"path": "/tmp"}')],
            },
            "tool_calls",
        )
    )
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_ls", content="a.txt"))
    add(
        "litellm_thinking_blocks",
        m,
        "A LiteLLM proxy's reply from Anthropic: thinking_blocks (a signed thinking block and a"
        " redacted one) and reasoning_content, kept by the SDK's message model and posted back",
    )

    # Images (data URL and URL with detail), audio, files (file_data and file_id), user name.
    m = [
        ChatCompletionUserMessageParam(
            role="user",
            name="alice",
            content=[
                ChatCompletionContentPartTextParam(type="text", text="What is in these?"),
                ChatCompletionContentPartImageParam(
                    type="image_url", image_url={"url": PNG_DATA_URL, "detail": "low"}
                ),
                ChatCompletionContentPartImageParam(type="image_url", image_url={"url": IMAGE_URL}),
                ChatCompletionContentPartInputAudioParam(
                    type="input_audio", input_audio={"data": WAV_B64, "format": "wav"}
                ),
                File(
                    type="file",
                    file=FileFile(filename="paper.pdf", file_data="data:application/pdf;base64," + PDF_B64),
                ),
                File(type="file", file=FileFile(file_id="file-abc123")),
            ],
        )
    ]
    m.append(chat.turn(m, {"content": "A green pixel, a cat, silence and a PDF."}))
    add(
        "media",
        m,
        "User parts: text, image_url (data URL, detail low), image_url (https URL), input_audio (wav"
        " base64), file with file_data (a data URL) and filename, file with file_id; user `name`",
    )

    # Refusal: the API's `refusal` field with null content, and a refusal part in content.
    m = [ChatCompletionUserMessageParam(role="user", content="Help me pick a lock.")]
    m.append(chat.turn(m, {"refusal": "I can't help with that."}))
    m.append(ChatCompletionUserMessageParam(role="user", content="It is my own lock."))
    m.append(
        ChatCompletionAssistantMessageParam(
            role="assistant",
            content=[
                ChatCompletionContentPartRefusalParam(type="refusal", refusal="Still no."),
                ChatCompletionContentPartTextParam(type="text", text="Call a locksmith."),
            ],
        )
    )
    add(
        "refusal",
        m,
        "Assistant `refusal` field with content null (response model), then an assistant param"
        " with a refusal content part before a text part",
    )

    # Developer role and a named system message; OpenAI's own cache breakpoint on a part.
    m = [
        ChatCompletionDeveloperMessageParam(
            role="developer",
            content=[
                ChatCompletionContentPartTextParam(
                    type="text",
                    text="Answer in French.",
                    prompt_cache_breakpoint={"mode": "explicit", "ttl": "30m"},
                )
            ],
        ),
        ChatCompletionSystemMessageParam(role="system", name="policy", content="Be kind."),
        ChatCompletionUserMessageParam(role="user", content="Hello"),
    ]
    m.append(chat.turn(m, {"content": "Bonjour"}))
    add(
        "developer_role",
        m,
        "developer message (text parts, one with OpenAI's prompt_cache_breakpoint), system message"
        " with `name`",
    )

    # Provider extras a gateway accepts on Chat messages: Anthropic-style cache_control
    # (OpenRouter, LiteLLM) on a part and on a message.
    m = [
        {
            **ChatCompletionSystemMessageParam(
                role="system",
                content=[
                    {
                        **ChatCompletionContentPartTextParam(type="text", text="Long shared context."),
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            )
        },
        {**ChatCompletionUserMessageParam(role="user", content="Summarise it."), "cache_control": {"type": "ephemeral"}},
    ]
    m.append(chat.turn(m, {"content": "It is long."}))
    add(
        "cache_control",
        m,
        "Gateway extra cache_control (not in the SDK's TypedDicts; the client sends it unchanged) on a"
        " system text part and on a whole user message",
    )

    # Duplicate keys inside an arguments string: Python json and JSON.parse keep the first
    # position and the last value ({"a": 2, "b": 3}).
    m = [ChatCompletionUserMessageParam(role="user", content="Set a.")]
    m.append(
        chat.turn(
            m,
            {"tool_calls": [tool_call("call_dup", "set_values", '{"a": 1, "b": 3, "a": 2}')]},
            "tool_calls",
        )
    )
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_dup", content="ok"))
    add(
        "duplicate_argument_keys",
        m,
        'arguments string {"a": 1, "b": 3, "a": 2}: last value wins at the first position, so the'
        ' parsed input is {"a":2,"b":3}',
    )

    # Unparseable arguments (truncated by max_tokens), and an empty arguments string.
    m = [ChatCompletionUserMessageParam(role="user", content="Write the file.")]
    m.append(
        chat.turn(
            m,
            {
                "tool_calls": [
                    tool_call("call_trunc", "write_file", '{"path": "a.txt", "text": "unfinished'),
                    tool_call("call_empty", "now", ""),
                ]
            },
            "length",
        )
    )
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_trunc", content="error: bad JSON"))
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_empty", content="12:00"))
    add(
        "unparseable_arguments",
        m,
        "One arguments string cut off mid-value (finish_reason length), one empty arguments string",
    )

    # Legacy function calling: function_call on the assistant, a `function` message back.
    m = [ChatCompletionUserMessageParam(role="user", content="Time in Tokyo?")]
    m.append(
        ChatCompletionAssistantMessageParam(
            role="assistant",
            content=None,
            function_call={"name": "get_time", "arguments": '{"tz": "Asia/Tokyo"}'},
        )
    )
    m.append(ChatCompletionFunctionMessageParam(role="function", name="get_time", content="09:00"))
    m.append(chat.turn(m, {"content": "09:00 in Tokyo."}))
    add(
        "legacy_function_call",
        m,
        "Deprecated function_call and role function (no ids: paired by position, the result"
        " follows its call)",
    )

    # Custom tool call (free-form input string) and its tool result.
    m = [ChatCompletionUserMessageParam(role="user", content="Run the grammar tool.")]
    m.append(
        chat.turn(
            m,
            {"tool_calls": [{"id": "call_custom", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1;"}}]},
            "tool_calls",
        )
    )
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_custom", content="1"))
    add("custom_tool_call", m, "A custom tool call (type custom, free-form `input` string), answered by a tool message")

    # Audio output: the assistant turn carries `audio` with an id the API resolves later.
    m = [ChatCompletionUserMessageParam(role="user", content="Say hi.")]
    m.append(
        chat.turn(
            m,
            {
                "content": None,
                "audio": {
                    "id": "audio_fixture",
                    "data": WAV_B64,
                    "expires_at": 1767229200,
                    "transcript": "Hi!",
                },
            },
        )
    )
    add(
        "assistant_audio",
        m,
        "Assistant response model with `audio` (id, data, expires_at, transcript) appended as is;"
        " the param type keeps only audio.id",
    )

    # Reasoning fields gateways add to assistant messages (not in the SDK types): DeepSeek/vLLM
    # `reasoning_content`, OpenRouter `reasoning` + `reasoning_details` with a signature.
    m = [ChatCompletionUserMessageParam(role="user", content="2+2?")]
    m.append(
        {
            **ChatCompletionAssistantMessageParam(role="assistant", content="4"),
            "reasoning_content": "Add two and two.",
        }
    )
    m.append(ChatCompletionUserMessageParam(role="user", content="3+3?"))
    m.append(
        {
            **ChatCompletionAssistantMessageParam(role="assistant", content="6"),
            "reasoning": "Add three and three.",
            "reasoning_details": [
                {
                    "type": "reasoning.text",
                    "text": "Add three and three.",
                    "signature": SIG_A,
                    "format": "anthropic-claude-v1",
                    "index": 0,
                },
                {"type": "reasoning.encrypted", "data": REDACTED, "format": "anthropic-claude-v1", "index": 1},
            ],
        }
    )
    add(
        "gateway_reasoning",
        m,
        "Gateway reasoning on assistant messages: reasoning_content (DeepSeek, vLLM), reasoning +"
        " reasoning_details with a signature and an encrypted entry (OpenRouter)",
    )


# --------------------------------------------------------------------------------------------
# OpenAI Responses

RESP_MODEL = "gpt-5.1"


def response_body(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_fixture",
        "object": "response",
        "created_at": 1767225600,
        "status": "completed",
        "model": RESP_MODEL,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 20,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 4},
            "total_tokens": 30,
        },
    }


def out_message(msg_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": msg_id,
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }


def fn_call(item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def reasoning(item_id: str, summary: str, encrypted: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": summary}] if summary else [],
    }
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


class Responses:
    def __init__(self, stub: Stub) -> None:
        self.stub = stub
        self.client = openai.OpenAI(api_key="sk-fixture", base_url=stub.url + "/v1", max_retries=0)

    def turn(self, items: list[Any], output: list[dict[str, Any]], instructions: str | None = None) -> list[Any]:
        """Post the input, return `response.output` (SDK models) to append to the input."""
        self.stub.reply(response_body(output))
        kwargs: dict[str, Any] = {"model": RESP_MODEL, "input": items, "store": False}
        if instructions is not None:
            kwargs["instructions"] = instructions
        response = self.client.responses.create(**kwargs)
        self.stub.take()
        return list(response.output)

    def sent(self, items: list[Any], instructions: str | None = None) -> dict[str, Any]:
        self.stub.reply(response_body([out_message("msg_next", "(next turn)")]))
        kwargs: dict[str, Any] = {
            "model": RESP_MODEL,
            "input": items,
            "store": False,
            "include": ["reasoning.encrypted_content"],
        }
        if instructions is not None:
            kwargs["instructions"] = instructions
        self.client.responses.create(**kwargs)
        path, body = self.stub.take()
        assert path == "/v1/responses", path
        source = {"input": body["input"]}
        if "instructions" in body:
            source["instructions"] = body["instructions"]
        return source


def responses_cases(stub: Stub, sink: Sink) -> None:
    r = Responses(stub)
    how = "input and instructions posted by openai.OpenAI().responses.create, response.output items appended"

    def add(name: str, items: list[Any], note: str, instructions: str | None = None) -> None:
        sink.add(name, "openai_responses", r.sent(items, instructions), note + ". " + sdk_note("openai", how))

    inst = "You are terse."
    items: list[ResponseInputItemParam] = [EasyInputMessageParam(role="user", content="Name a prime.")]
    items += r.turn(items, [out_message("msg_1", "7")], inst)
    items.append(EasyInputMessageParam(role="user", content="Another."))
    add("plain_text", items, "instructions, user (string content), output message appended, user", inst)

    # Reasoning (encrypted, with summary) plus two parallel calls, then two outputs.
    items = [EasyInputMessageParam(role="user", content="Weather in Paris and Oslo?")]
    items += r.turn(
        items,
        [
            reasoning("rs_1", "Need both cities.", ENC_REASONING),
            fn_call("fc_1", "call_paris", "get_weather", '{"city": "Paris"}'),
            fn_call("fc_2", "call_oslo", "get_weather", '{"city": "Oslo"}'),
        ],
    )
    items.append(FunctionCallOutput(type="function_call_output", call_id="call_paris", output="18C"))
    items.append(
        FunctionCallOutput(
            type="function_call_output",
            call_id="call_oslo",
            output=[{"type": "input_text", "text": "4C, snow"}],
        )
    )
    items += r.turn(items, [out_message("msg_2", "Paris 18C, Oslo 4C.")])
    add(
        "parallel_tools",
        items,
        "A reasoning item (summary + encrypted_content) and two function_call items from one"
        " response, two function_call_output items (string and input_text list), then the answer",
    )

    # Reasoning without summary and with raw reasoning_text content (open-weight models).
    items = [EasyInputMessageParam(role="user", content="Think, then answer: 2+2?")]
    items += r.turn(
        items,
        [
            {
                "type": "reasoning",
                "id": "rs_open",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "2 plus 2 is 4."}],
            },
            reasoning("rs_enc_only", "", ENC_REASONING),
            out_message("msg_3", "4"),
        ],
    )
    add(
        "reasoning",
        items,
        "A reasoning item with reasoning_text content and empty summary, and one with only"
        " encrypted_content (empty summary)",
    )

    # Pending tail.
    items = [EasyInputMessageParam(role="user", content="List /tmp.")]
    items += r.turn(items, [fn_call("fc_ls", "call_ls", "ls", '{"path": "/tmp"}')])
    add("pending_tail", items, "The last output is a function_call with no function_call_output yet")

    # Media in input messages.
    items = [
        ResponsesInputMessage(
            type="message",
            role="user",
            content=[
                ResponseInputTextParam(type="input_text", text="What is in these?"),
                ResponseInputImageParam(type="input_image", detail="low", image_url=PNG_DATA_URL),
                ResponseInputImageParam(type="input_image", detail="auto", image_url=IMAGE_URL),
                ResponseInputImageParam(type="input_image", detail="high", file_id="file-img123"),
                ResponseInputFileParam(type="input_file", filename="paper.pdf", file_data="data:application/pdf;base64," + PDF_B64),
                ResponseInputFileParam(type="input_file", file_id="file-abc123"),
                ResponseInputFileParam(type="input_file", file_url=PDF_URL),
            ],
        )
    ]
    items += r.turn(items, [out_message("msg_4", "A pixel and two PDFs.")])
    add(
        "media",
        items,
        "input_image by data URL, https URL and file_id; input_file by file_data (data URL),"
        " file_id and file_url",
    )

    # Refusal content in an output message; developer and system message items; OpenAI's own
    # prompt_cache_breakpoint on an input_text part.
    items = [
        EasyInputMessageParam(role="developer", content="Answer in French."),
        ResponsesInputMessage(
            type="message",
            role="system",
            content=[
                ResponseInputTextParam(
                    type="input_text", text="Be kind.", prompt_cache_breakpoint={"mode": "explicit"}
                )
            ],
        ),
        EasyInputMessageParam(role="user", content="Help me pick a lock."),
    ]
    items += r.turn(
        items,
        [
            {
                "type": "message",
                "id": "msg_ref",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "refusal", "refusal": "Je ne peux pas."}],
            }
        ],
    )
    add(
        "refusal_developer",
        items,
        "developer (easy message) and system (typed message, prompt_cache_breakpoint on input_text)"
        " items; an output message whose content is a refusal part",
    )

    # Hosted tools: every kind in the output, as returned and appended.
    items = [EasyInputMessageParam(role="user", content="Research, compute and draw.")]
    items += r.turn(
        items,
        [
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "loopcompact"},
            },
            {
                "type": "file_search_call",
                "id": "fs_1",
                "status": "completed",
                "queries": ["compaction"],
                "results": None,
            },
            {
                "type": "code_interpreter_call",
                "id": "ci_1",
                "status": "completed",
                "code": "print(6*7)",
                "container_id": "cntr_1",
                "outputs": [{"type": "logs", "logs": "42\n"}],
            },
            {
                "type": "image_generation_call",
                "id": "ig_1",
                "status": "completed",
                "result": PNG_B64,
            },
            {
                "type": "mcp_call",
                "id": "mcp_1",
                "server_label": "docs",
                "name": "lookup",
                "arguments": '{"q": "x"}',
                "output": "found",
                "error": None,
                "status": "completed",
            },
            {
                "type": "local_shell_call",
                "id": "lsh_1",
                "call_id": "call_shell",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls"], "env": {}},
            },
            out_message("msg_5", "Done."),
        ],
    )
    # The output names its call by `id`, which the SDK documents as the call's call_id.
    items.append({"type": "local_shell_call_output", "id": "call_shell", "output": "a.txt\n", "status": "completed"})
    add(
        "hosted_tools",
        items,
        "web_search_call, file_search_call, code_interpreter_call, image_generation_call, mcp_call,"
        " local_shell_call and its local_shell_call_output (whose `id` is the call's call_id)",
    )

    # Computer use: computer_call and computer_call_output (a screenshot).
    items = [EasyInputMessageParam(role="user", content="Click OK.")]
    items += r.turn(
        items,
        [
            {
                "type": "computer_call",
                "id": "cu_1",
                "call_id": "call_cu",
                "status": "completed",
                "action": {"type": "click", "button": "left", "x": 10, "y": 20},
                "pending_safety_checks": [],
            }
        ],
    )
    items.append(
        {
            "type": "computer_call_output",
            "call_id": "call_cu",
            "output": {"type": "computer_screenshot", "image_url": PNG_DATA_URL},
        }
    )
    add("computer_call", items, "computer_call answered by computer_call_output with a screenshot data URL")

    # Custom tool call and its output.
    items = [EasyInputMessageParam(role="user", content="Query.")]
    items += r.turn(
        items,
        [{"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_sql", "name": "sql", "input": "SELECT 1;"}],
    )
    items.append(ResponseCustomToolCallOutputParam(type="custom_tool_call_output", call_id="call_sql", output="1"))
    add("custom_tool_call", items, "custom_tool_call (free-form input) and custom_tool_call_output")

    # Item reference and a compaction item (what server-side compaction hands back).
    items = [
        ResponseCompactionItemParamParam(type="compaction", id="cmp_1", encrypted_content=ENC_COMPACTION),
        ItemReference(type="item_reference", id="msg_stored_1"),
        EasyInputMessageParam(role="user", content="Continue."),
    ]
    add(
        "compaction_and_reference",
        items,
        "A compaction item (encrypted_content) and an item_reference to a stored item, then a user message",
    )

    # Duplicate keys and unparseable arguments in function_call items.
    items = [EasyInputMessageParam(role="user", content="Set and write.")]
    items += r.turn(
        items,
        [
            fn_call("fc_dup", "call_dup", "set_values", '{"a": 1, "b": 3, "a": 2}'),
            fn_call("fc_bad", "call_bad", "write_file", '{"path": "a.txt", "text": "unfinished'),
        ],
    )
    items.append(FunctionCallOutput(type="function_call_output", call_id="call_dup", output="ok"))
    items.append(FunctionCallOutput(type="function_call_output", call_id="call_bad", output="error: bad JSON"))
    add(
        "arguments_edge_cases",
        items,
        'function_call arguments {"a": 1, "b": 3, "a": 2} (duplicate key) and a truncated arguments string',
    )


# --------------------------------------------------------------------------------------------
# Anthropic Messages

CLAUDE = "claude-sonnet-4-5"


def claude_message(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_fixture",
        "type": "message",
        "role": "assistant",
        "model": CLAUDE,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 20,
            "output_tokens": 10,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


class Claude:
    def __init__(self, stub: Stub) -> None:
        self.stub = stub
        self.client = anthropic.Anthropic(api_key="sk-ant-fixture", base_url=stub.url, max_retries=0)

    def _create(self, system: Any, messages: list[Any]) -> Any:
        kwargs: dict[str, Any] = {"model": CLAUDE, "max_tokens": 1024, "messages": messages}
        if system is not None:
            kwargs["system"] = system
        return self.client.messages.create(**kwargs)

    def turn(self, system: Any, messages: list[Any], content: list[dict[str, Any]], stop: str = "end_turn") -> MessageParam:
        """Post, and return the assistant turn as users append it: role + response.content."""
        self.stub.reply(claude_message(content, stop))
        message = self._create(system, messages)
        self.stub.take()
        return {"role": "assistant", "content": message.content}

    def sent(self, system: Any, messages: list[Any]) -> dict[str, Any]:
        self.stub.reply(claude_message([{"type": "text", "text": "(next turn)"}]))
        self._create(system, messages)
        path, body = self.stub.take()
        assert path == "/v1/messages", path
        source = {"messages": body["messages"]}
        if "system" in body:
            source = {"system": body["system"], **source}
        return source


def anthropic_cases(stub: Stub, sink: Sink) -> None:
    c = Claude(stub)
    how = "system and messages posted by anthropic.Anthropic().messages.create, response.content appended"

    def add(name: str, system: Any, messages: list[Any], note: str) -> None:
        sink.add(name, "anthropic", c.sent(system, messages), note + ". " + sdk_note("anthropic", how))

    system = "You are terse."
    m: list[MessageParam] = [{"role": "user", "content": "Name a prime."}]
    m.append(c.turn(system, m, [{"type": "text", "text": "7"}]))
    m.append({"role": "user", "content": "Another."})
    add("plain_text", system, m, "system string, user string content, assistant blocks appended, user")

    # Signed thinking, text and two parallel tool_use blocks; results as tool_result blocks in
    # one user message (one string content, one block content), followed by user text.
    m = [{"role": "user", "content": "Weather in Paris and Oslo?"}]
    m.append(
        c.turn(
            None,
            m,
            [
                {"type": "thinking", "thinking": "Need both cities.", "signature": SIG_A},
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "toolu_paris", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_oslo", "name": "get_weather", "input": {"city": "Oslo", "unit": "c"}},
            ],
            "tool_use",
        )
    )
    m.append(
        {
            "role": "user",
            "content": [
                ToolResultBlockParam(type="tool_result", tool_use_id="toolu_paris", content="18C, cloudy"),
                ToolResultBlockParam(
                    type="tool_result",
                    tool_use_id="toolu_oslo",
                    content=[
                        TextBlockParam(type="text", text="4C, snow"),
                        ImageBlockParam(
                            type="image",
                            source=Base64ImageSourceParam(type="base64", media_type="image/png", data=PNG_B64),
                        ),
                    ],
                ),
                TextBlockParam(type="text", text="Also: which is warmer?"),
            ],
        }
    )
    m.append(c.turn(None, m, [{"type": "text", "text": "Paris."}]))
    add(
        "parallel_tools",
        None,
        m,
        "thinking (signed) + text + two tool_use in one assistant turn; one user message with two"
        " tool_result blocks (string content; text + image content) and a trailing text block",
    )

    # Error result.
    m = [{"role": "user", "content": "Read /etc/shadow."}]
    m.append(
        c.turn(
            None,
            m,
            [{"type": "tool_use", "id": "toolu_read", "name": "read_file", "input": {"path": "/etc/shadow"}}],
            "tool_use",
        )
    )
    m.append(
        {
            "role": "user",
            "content": [
                ToolResultBlockParam(
                    type="tool_result", tool_use_id="toolu_read", content="permission denied", is_error=True
                )
            ],
        }
    )
    m.append(c.turn(None, m, [{"type": "text", "text": "I can't read it."}]))
    add("error_tool_result", None, m, "tool_result with is_error true")

    # Redacted thinking and empty thinking text with a signature (thinking display omitted).
    m = [{"role": "user", "content": "Solve it."}]
    m.append(
        c.turn(
            None,
            m,
            [
                {"type": "redacted_thinking", "data": REDACTED},
                {"type": "thinking", "thinking": "", "signature": SIG_EMPTY},
                {"type": "thinking", "thinking": "Second thought.", "signature": SIG_B},
                {"type": "text", "text": "42"},
            ],
        )
    )
    m.append({"role": "user", "content": "Why?"})
    add(
        "thinking_variants",
        None,
        m,
        "redacted_thinking (data), thinking with empty text and a signature, signed thinking, text",
    )

    # Pending tail.
    m = [{"role": "user", "content": "List /tmp."}]
    m.append(
        c.turn(
            None,
            m,
            [
                {"type": "thinking", "thinking": "Use ls.", "signature": SIG_A},
                {"type": "tool_use", "id": "toolu_ls", "name": "ls", "input": {"path": "/tmp"}},
            ],
            "tool_use",
        )
    )
    add("pending_tail", None, m, "The last assistant turn ends in a tool_use without a tool_result yet")

    # Media: images (base64, url, file) and documents (base64 PDF, text, url, file, content).
    m = [
        {
            "role": "user",
            "content": [
                ImageBlockParam(type="image", source=Base64ImageSourceParam(type="base64", media_type="image/png", data=PNG_B64)),
                ImageBlockParam(type="image", source=URLImageSourceParam(type="url", url=IMAGE_URL)),
                ImageBlockParam(type="image", source=FileImageSourceParam(type="file", file_id="file_img123")),
                DocumentBlockParam(
                    type="document",
                    source=Base64PDFSourceParam(type="base64", media_type="application/pdf", data=PDF_B64),
                    title="paper.pdf",
                    context="A paper.",
                    citations={"enabled": True},
                ),
                DocumentBlockParam(
                    type="document",
                    source=PlainTextSourceParam(type="text", media_type="text/plain", data="Plain notes."),
                    title="notes.txt",
                ),
                DocumentBlockParam(type="document", source=URLPDFSourceParam(type="url", url=PDF_URL)),
                DocumentBlockParam(type="document", source=FileDocumentSourceParam(type="file", file_id="file_doc123")),
                DocumentBlockParam(
                    type="document",
                    source=ContentBlockSourceParam(type="content", content=[TextBlockParam(type="text", text="Chunk one.")]),
                    title="chunks",
                ),
                TextBlockParam(type="text", text="Describe all of these."),
            ],
        }
    ]
    m.append(c.turn(None, m, [{"type": "text", "text": "A pixel, a cat and documents."}]))
    add(
        "media",
        None,
        m,
        "image sources base64/url/file; document sources base64 PDF (title, context, citations"
        " config), text, url, file, content",
    )

    # Provider extra: cache_control on system blocks, on a message block and on a tool_result.
    system_blocks = [
        TextBlockParam(type="text", text="Long shared context.", cache_control=CacheControlEphemeralParam(type="ephemeral", ttl="1h")),
    ]
    m = [
        {
            "role": "user",
            "content": [
                TextBlockParam(type="text", text="Summarise.", cache_control=CacheControlEphemeralParam(type="ephemeral")),
            ],
        }
    ]
    m.append(c.turn(system_blocks, m, [{"type": "text", "text": "Done."}]))
    add("cache_control", system_blocks, m, "system as text blocks with cache_control (ttl 1h); cache_control on a user text block")

    # Server tools: web search with citations in the answer, code execution; container_upload,
    # search_result blocks.
    m = [
        {
            "role": "user",
            "content": [
                ContainerUploadBlockParam(type="container_upload", file_id="file_data_csv"),
                SearchResultBlockParam(
                    type="search_result",
                    source="https://example.com/kb/1",
                    title="KB 1",
                    content=[TextBlockParam(type="text", text="Compaction keeps the tail.")],
                    citations={"enabled": True},
                ),
                TextBlockParam(type="text", text="Search the web, then sum the CSV."),
            ],
        }
    ]
    m.append(
        c.turn(
            None,
            m,
            [
                {"type": "server_tool_use", "id": "srvtoolu_ws", "name": "web_search", "input": {"query": "loopcompact"}},
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_ws",
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": "https://example.com/a",
                            "title": "A",
                            "encrypted_content": opaque("ws-result", 32),
                            "page_age": None,
                        }
                    ],
                },
                {
                    "type": "text",
                    "text": "It validates compaction.",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": "https://example.com/a",
                            "title": "A",
                            "encrypted_index": opaque("ws-index", 16),
                            "cited_text": "validates compaction",
                        }
                    ],
                },
                {"type": "server_tool_use", "id": "srvtoolu_code", "name": "code_execution", "input": {"code": "print(1+1)"}},
                {
                    "type": "code_execution_tool_result",
                    "tool_use_id": "srvtoolu_code",
                    "content": {
                        "type": "code_execution_result",
                        "stdout": "2\n",
                        "stderr": "",
                        "return_code": 0,
                        "content": [],
                    },
                },
                {"type": "text", "text": "The sum is 2.", "citations": None},
            ],
        )
    )
    add(
        "server_tools",
        None,
        m,
        "user container_upload and search_result blocks; assistant server_tool_use web_search +"
        " web_search_tool_result, text with a web_search_result_location citation, code_execution"
        " server tool and result, text with citations null",
    )

    # A system-role message inside `messages` (accepted by this SDK's MessageParam).
    m = [
        {"role": "user", "content": "Hi."},
        {"role": "system", "content": "The user is on mobile."},
        {"role": "user", "content": "Plan my day."},
    ]
    add("system_message", "Be brief.", m, "system parameter plus a role system message in the middle of messages")


# --------------------------------------------------------------------------------------------
# Google Gemini


class Gemini:
    model = "gemini-3-pro-preview"

    def __init__(self, stub: Stub) -> None:
        self.stub = stub
        self.client = genai.Client(
            api_key="fixture",
            http_options=gtypes.HttpOptions(base_url=stub.url + "/", api_version="v1beta"),
        )

    def _call(self, contents: list[Any], system: Any) -> Any:
        config = gtypes.GenerateContentConfig(system_instruction=system) if system is not None else None
        return self.client.models.generate_content(model=self.model, contents=contents, config=config)

    def turn(self, contents: list[Any], parts: list[dict[str, Any]], system: Any = None) -> Any:
        """Post, return `response.candidates[0].content` (a types.Content) to append."""
        self.stub.reply(
            {
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 10, "thoughtsTokenCount": 4, "totalTokenCount": 34},
                "modelVersion": self.model,
                "responseId": "resp-fixture",
            }
        )
        response = self._call(contents, system)
        self.stub.take()
        return response.candidates[0].content

    def sent(self, contents: list[Any], system: Any = None) -> dict[str, Any]:
        self.stub.reply({"candidates": [{"content": {"role": "model", "parts": [{"text": "(next turn)"}]}}]})
        self._call(contents, system)
        path, body = self.stub.take()
        assert path.endswith(":generateContent"), path
        # The REST body spells it systemInstruction; the converter's source names it
        # system_instruction (the Gemini converter reads both spellings, like the API).
        source = {"contents": body["contents"]}
        if "systemInstruction" in body:
            source["system_instruction"] = body["systemInstruction"]
        return source


def user(*parts: gtypes.Part) -> gtypes.Content:
    return gtypes.Content(role="user", parts=list(parts))


def gemini_cases(stub: Stub, sink: Sink) -> None:
    g = Gemini(stub)
    how = "contents and systemInstruction posted by genai.Client().models.generate_content, candidates[0].content appended"

    def add(name: str, contents: list[Any], note: str, system: Any = None) -> None:
        sink.add(name, "gemini", g.sent(contents, system), note + ". " + sdk_note("google-genai", how))

    system = "You are terse."
    c: list[Any] = [user(gtypes.Part(text="Name a prime."))]
    c.append(g.turn(c, [{"text": "7"}], system))
    c.append(user(gtypes.Part(text="Another.")))
    add("plain_text", c, "system_instruction, user/model text turns", system)

    # Thought summary with a signature, parallel calls with ids (the first signed), responses in
    # one user turn; one response reports an error through the `error` key.
    c = [user(gtypes.Part(text="Weather in Paris and Oslo?"))]
    c.append(
        g.turn(
            c,
            [
                {"text": "Need both cities.", "thought": True},
                {"functionCall": {"id": "fc_paris", "name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": GEMINI_SIG_1},
                {"functionCall": {"id": "fc_oslo", "name": "get_weather", "args": {"city": "Oslo"}}},
            ],
        )
    )
    c.append(
        user(
            gtypes.Part(function_response=gtypes.FunctionResponse(id="fc_paris", name="get_weather", response={"output": "18C"})),
            gtypes.Part(function_response=gtypes.FunctionResponse(id="fc_oslo", name="get_weather", response={"error": "station offline"})),
        )
    )
    c.append(g.turn(c, [{"text": "Paris is 18C; Oslo is unknown.", "thoughtSignature": GEMINI_SIG_2}]))
    add(
        "parallel_tools",
        c,
        "thought part, two functionCall parts with ids (thoughtSignature on the first), two"
        " functionResponse parts in one user turn (output; error), final text with a thoughtSignature."
        " The SDK decodes signatures to bytes and posts them URL-safe base64: compare with "
        + GEMINI_SIG_1
        + " as the API sent it",
    )

    # Calls without ids (the Gemini API leaves `id` unset): paired by order and name.
    c = [user(gtypes.Part(text="Time in Tokyo and Lima?"))]
    c.append(
        g.turn(
            c,
            [
                {"functionCall": {"name": "get_time", "args": {"tz": "Asia/Tokyo"}}, "thoughtSignature": GEMINI_SIG_1},
                {"functionCall": {"name": "get_time", "args": {"tz": "America/Lima"}}},
            ],
        )
    )
    c.append(
        user(
            gtypes.Part(function_response=gtypes.FunctionResponse(name="get_time", response={"output": "09:00"})),
            gtypes.Part(function_response=gtypes.FunctionResponse(name="get_time", response={"output": "19:00"})),
        )
    )
    add("calls_without_ids", c, "Two functionCall parts with the same name and no ids, answered by two functionResponse parts in order")

    # Pending tail.
    c = [user(gtypes.Part(text="List /tmp."))]
    c.append(g.turn(c, [{"functionCall": {"id": "fc_ls", "name": "ls", "args": {"path": "/tmp"}}, "thoughtSignature": GEMINI_SIG_1}]))
    add("pending_tail", c, "The last model turn is a functionCall without a functionResponse yet")

    # Media: inline bytes and file URIs; a video offset (provider extra).
    c = [
        user(
            gtypes.Part(text="What is in these?"),
            gtypes.Part(inline_data=gtypes.Blob(mime_type="image/png", data=PNG)),
            gtypes.Part(file_data=gtypes.FileData(mime_type="application/pdf", file_uri="https://generativelanguage.googleapis.com/v1beta/files/abc123")),
            gtypes.Part(inline_data=gtypes.Blob(mime_type="audio/wav", data=base64.b64decode(WAV_B64))),
            gtypes.Part(
                file_data=gtypes.FileData(mime_type="video/mp4", file_uri="gs://bucket/clip.mp4"),
                video_metadata=gtypes.VideoMetadata(start_offset="1s", end_offset="2s"),
            ),
        )
    ]
    c.append(g.turn(c, [{"text": "A pixel, a PDF, silence and a clip."}]))
    add(
        "media",
        c,
        "inlineData image and audio (bytes: the SDK posts URL-safe base64), fileData PDF and video,"
        " videoMetadata on the video part",
    )

    # Code execution (a hosted tool) with a signature on the text.
    c = [user(gtypes.Part(text="Compute 6*7 with code."))]
    c.append(
        g.turn(
            c,
            [
                {"executableCode": {"language": "PYTHON", "code": "print(6*7)"}},
                {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n"}},
                {"text": "42", "thoughtSignature": GEMINI_SIG_2},
            ],
        )
    )
    add("code_execution", c, "executableCode and codeExecutionResult parts (server-executed), text with a thoughtSignature")


# --------------------------------------------------------------------------------------------
# LangChain (messages built by the integrations from canned responses, then serialised)


def langchain_cases(stub: Stub, sink: Sink) -> None:
    how = "langchain_core.messages.messages_to_dict"

    def add(name: str, messages: list[BaseMessage], note: str, form: str = "messages_to_dict") -> None:
        if form == "messages_to_dict":
            source = messages_to_dict(messages)
        else:
            source = dumpd(messages)
        source = loads_strict(json.dumps(source))  # plain JSON, as a host would store it
        sink.add(name, "langchain", source, note + ". " + sdk_note("langchain-core", form))

    chat = ChatOpenAI(model=CHAT_MODEL, api_key="sk-fixture", base_url=stub.url + "/v1", max_retries=0)
    runs = iter(range(1, 1000))

    def fixed_id(message: AIMessage) -> AIMessage:
        # LangChain stamps each AIMessage with a time-based run id (lc_run--<uuid7>); replace it
        # so that the fixtures are reproducible. Nothing else of the message is touched.
        message.id = f"lc_run--fixture-{next(runs)}"
        return message

    def chat_ai(messages: list[BaseMessage], reply: dict[str, Any], finish: str = "stop") -> AIMessage:
        stub.reply(chat_completion(reply, finish))
        out = chat.invoke(messages)
        stub.take()
        return fixed_id(out)

    m: list[BaseMessage] = [SystemMessage("You are terse."), HumanMessage("Name a prime.")]
    m.append(chat_ai(m, {"content": "7"}))
    m.append(HumanMessage("Another."))
    add("plain_text", m, "SystemMessage, HumanMessage, AIMessage from ChatOpenAI (usage_metadata, response_metadata), HumanMessage")

    # Tool calls, one invalid (unparseable arguments), ToolMessages (one status error).
    m = [HumanMessage("Weather in Paris and Oslo, then write a file.")]
    m.append(
        chat_ai(
            m,
            {
                "tool_calls": [
                    tool_call("call_paris", "get_weather", '{"city": "Paris"}'),
                    tool_call("call_oslo", "get_weather", '{"city": "Oslo", "city": "Bergen"}'),
                    tool_call("call_bad", "write_file", '{"path": "a.txt", "text": "unfin'),
                ]
            },
            "tool_calls",
        )
    )
    m.append(ToolMessage("18C", tool_call_id="call_paris", name="get_weather"))
    m.append(ToolMessage("station offline", tool_call_id="call_oslo", name="get_weather", status="error"))
    m.append(ToolMessage("error: bad JSON", tool_call_id="call_bad", status="error"))
    m.append(chat_ai(m, {"content": "Paris 18C."}))
    add(
        "tools",
        m,
        "AIMessage from ChatOpenAI with two tool_calls (one whose arguments had a duplicate key,"
        " parsed by json.loads: last wins) and one invalid_tool_calls entry (truncated arguments);"
        " ToolMessages, two with status error",
    )
    add("tools_dumpd", m, "The same conversation in the dumpd (lc constructor) form", form="dumpd")

    # Pending tail.
    m = [HumanMessage("List /tmp.")]
    m.append(chat_ai(m, {"tool_calls": [tool_call("call_ls", "ls", '{"path": "/tmp"}')]}, "tool_calls"))
    add("pending_tail", m, "The last AIMessage has a tool call without a ToolMessage")

    # Anthropic through ChatAnthropic: thinking (signed, empty, redacted) and tool_use blocks
    # stay in AIMessage.content; tool_calls repeat the tool_use blocks.
    claude = ChatAnthropic(model=CLAUDE, api_key="sk-ant-fixture", base_url=stub.url, max_retries=0)

    def claude_ai(messages: list[BaseMessage], content: list[dict[str, Any]], stop: str = "end_turn", model: Any = None) -> AIMessage:
        stub.reply(claude_message(content, stop))
        out = (model or claude).invoke(messages)
        stub.take()
        return fixed_id(out)

    m = [HumanMessage("Read a.txt.")]
    m.append(
        claude_ai(
            m,
            [
                {"type": "redacted_thinking", "data": REDACTED},
                {"type": "thinking", "thinking": "", "signature": SIG_EMPTY},
                {"type": "thinking", "thinking": "Use read_file.", "signature": SIG_A},
                {"type": "tool_use", "id": "toolu_read", "name": "read_file", "input": {"path": "a.txt"}},
            ],
            "tool_use",
        )
    )
    m.append(ToolMessage("hello", tool_call_id="toolu_read"))
    m.append(claude_ai(m, [{"type": "text", "text": "It says hello."}]))
    add(
        "anthropic_thinking",
        m,
        "AIMessage from ChatAnthropic: content keeps redacted_thinking, empty signed thinking,"
        " signed thinking and tool_use blocks (and tool_calls repeats the call); ToolMessage answer",
    )

    # The same through output_version v1: standard reasoning blocks with the signature in extras.
    claude_v1 = ChatAnthropic(model=CLAUDE, api_key="sk-ant-fixture", base_url=stub.url, max_retries=0, output_version="v1")
    m = [HumanMessage("Read a.txt.")]
    m.append(
        claude_ai(
            m,
            [
                {"type": "thinking", "thinking": "Use read_file.", "signature": SIG_A},
                {"type": "tool_use", "id": "toolu_read", "name": "read_file", "input": {"path": "a.txt"}},
            ],
            "tool_use",
            claude_v1,
        )
    )
    m.append(ToolMessage("hello", tool_call_id="toolu_read"))
    add("anthropic_thinking_v1", m, "AIMessage from ChatAnthropic(output_version='v1'): standard reasoning and tool_call content blocks")

    def list_tmp(output_version: str, output: list[dict[str, Any]]) -> list[BaseMessage]:
        """"List /tmp." answered by ChatOpenAI(use_responses_api=True) with `output`, then the
        call's ToolMessage."""
        client = ChatOpenAI(
            model=RESP_MODEL,
            api_key="sk-fixture",
            base_url=stub.url + "/v1",
            max_retries=0,
            use_responses_api=True,
            output_version=output_version,
        )
        m: list[BaseMessage] = [HumanMessage("List /tmp.")]
        stub.reply(response_body(output))
        m.append(fixed_id(client.invoke(m)))
        stub.take()
        m.append(ToolMessage("a.txt", tool_call_id="call_ls"))
        return m

    ls_call = fn_call("fc_ls", "call_ls", "ls", '{"path": "/tmp"}')
    # OpenAI Responses through ChatOpenAI(use_responses_api=True): reasoning item with
    # encrypted_content in content, function call in tool_calls.
    add(
        "openai_responses_reasoning",
        list_tmp("responses/v1", [reasoning("rs_1", "Use ls.", ENC_REASONING), ls_call]),
        "AIMessage from ChatOpenAI(use_responses_api=True, output_version='responses/v1'): a"
        " reasoning block with encrypted_content and a function_call",
    )
    # The same through the v0 output format, which keeps the calls' Responses item ids in
    # additional_kwargs.__openai_function_call_ids__.
    add(
        "openai_responses_v0",
        list_tmp("v0", [ls_call]),
        "AIMessage from ChatOpenAI(use_responses_api=True, output_version='v0'): the call in tool_calls,"
        " its item id in additional_kwargs.__openai_function_call_ids__",
    )

    # langchain-google-genai's AIMessage (not a test dependency: built with langchain-core as
    # it builds it): the calls' Gemini thought signatures in additional_kwargs, by call id.
    m = [
        HumanMessage("Weather in Paris and Oslo?"),
        AIMessage(
            content=[{"type": "text", "text": "Checking both.", "extras": {"signature": GEMINI_SIG_2}}],
            additional_kwargs={"__gemini_function_call_thought_signatures__": {"call_paris": GEMINI_SIG_1}},
            tool_calls=[
                {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_paris", "type": "tool_call"},
                {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_oslo", "type": "tool_call"},
            ],
            response_metadata={"model_provider": "google_genai", "finish_reason": "STOP"},
            id="lc_run--fixture-gemini",
        ),
        ToolMessage("18C", tool_call_id="call_paris"),
        ToolMessage("4C", tool_call_id="call_oslo"),
    ]
    add(
        "gemini_signatures",
        m,
        "AIMessage as langchain-google-genai builds it: a text block's thought signature in its"
        " extras, its calls' in additional_kwargs.__gemini_function_call_thought_signatures__",
    )

    # Images in a HumanMessage: standard blocks (base64 + mime_type, url) and OpenAI image_url.
    m = [
        HumanMessage(
            content=[
                {"type": "text", "text": "What is in these?"},
                {"type": "image", "base64": PNG_B64, "mime_type": "image/png"},
                {"type": "image", "url": IMAGE_URL},
                {"type": "image_url", "image_url": {"url": PNG_DATA_URL}},
                {"type": "file", "base64": PDF_B64, "mime_type": "application/pdf", "filename": "paper.pdf"},
            ]
        )
    ]
    add("media", m, "HumanMessage with standard image blocks (base64, url), an OpenAI image_url block and a standard file block")


# --------------------------------------------------------------------------------------------
# The 1 MiB benchmark chats: one deterministic agent session rendered in each format.

WORDS = (
    "the a compaction summary tool result file line test build error cargo function value"
    " buffer parse transcript message assistant user token limit context window cut safe"
    " pairing id json string array object key input output read write path module crate"
).split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _code(rng: random.Random, lines: int) -> str:
    out = []
    for i in range(lines):
        indent = "    " * rng.randint(0, 3)
        out.append(f"{indent}let v{i} = {rng.choice(WORDS)}_{rng.randint(0, 99)}(&{rng.choice(WORDS)});")
    return "\n".join(out)


def session(target: int) -> list[dict[str, Any]]:
    """Abstract turns: user text, assistant (text, calls), tool results; about `target` bytes."""
    rng = random.Random(27)
    turns: list[dict[str, Any]] = []
    size = 0
    k = 0
    while size < target:
        k += 1
        ask = _sentence(rng, rng.randint(8, 40))
        turns.append({"kind": "user", "text": ask})
        size += len(ask)
        for _ in range(rng.randint(1, 4)):
            calls = []
            for j in range(rng.randint(1, 3)):
                path = f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}_{rng.randint(0, 999)}.rs"
                if rng.random() < 0.5:
                    args = {"path": path}
                    name = "read_file"
                else:
                    args = {"path": path, "old": _code(rng, rng.randint(1, 4)), "new": _code(rng, rng.randint(1, 6))}
                    name = "edit_file"
                calls.append({"id": f"call_{k}_{len(turns)}_{j}", "name": name, "args": args})
            text = _sentence(rng, rng.randint(4, 30))
            turns.append({"kind": "assistant", "text": text, "calls": calls})
            for call in calls:
                result = _code(rng, rng.randint(5, 60)) if call["name"] == "read_file" else "ok"
                turns.append({"kind": "tool", "id": call["id"], "name": call["name"], "text": result})
                size += len(result) + len(json.dumps(call["args"]))
            size += len(text)
        final = _sentence(rng, rng.randint(10, 80))
        turns.append({"kind": "assistant", "text": final, "calls": []})
        size += len(final)
    return turns


def big_cases(stub: Stub, sink: Sink) -> None:
    # The content budget is below 1 MiB because JSON framing adds about a quarter: each
    # rendering comes out a little above 1 MiB (1,048,576 bytes).
    turns = session(840_000)
    note = "Deterministic 1 MiB agent session (seed 27) for the conversion benchmark; "

    chat = Chat(stub)
    m: list[Any] = [ChatCompletionSystemMessageParam(role="system", content="You are a coding agent.")]
    for t in turns:
        if t["kind"] == "user":
            m.append(ChatCompletionUserMessageParam(role="user", content=t["text"]))
        elif t["kind"] == "assistant":
            msg = ChatCompletionAssistantMessageParam(role="assistant", content=t["text"])
            if t["calls"]:
                msg["tool_calls"] = [
                    tool_call(cl["id"], cl["name"], json.dumps(cl["args"])) for cl in t["calls"]
                ]
            m.append(msg)
        else:
            m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id=t["id"], content=t["text"]))
    sink.add("realistic_1mib", "openai_chat", chat.sent(m), note + sdk_note("openai", "messages posted"), big=True)

    r = Responses(stub)
    items: list[Any] = []
    for t in turns:
        if t["kind"] == "user":
            items.append(EasyInputMessageParam(role="user", content=t["text"]))
        elif t["kind"] == "assistant":
            items.append(EasyInputMessageParam(role="assistant", content=t["text"]))
            for cl in t["calls"]:
                items.append({"type": "function_call", "call_id": cl["id"], "name": cl["name"], "arguments": json.dumps(cl["args"])})
        else:
            items.append(FunctionCallOutput(type="function_call_output", call_id=t["id"], output=t["text"]))
    sink.add(
        "realistic_1mib",
        "openai_responses",
        r.sent(items, "You are a coding agent."),
        note + sdk_note("openai", "input posted"),
        big=True,
    )

    c = Claude(stub)
    msgs: list[Any] = []
    for t in turns:
        if t["kind"] == "user":
            if msgs and msgs[-1]["role"] == "user":
                msgs[-1]["content"].append(TextBlockParam(type="text", text=t["text"]))
            else:
                msgs.append({"role": "user", "content": [TextBlockParam(type="text", text=t["text"])]})
        elif t["kind"] == "assistant":
            blocks: list[Any] = [TextBlockParam(type="text", text=t["text"])]
            blocks += [ToolUseBlockParam(type="tool_use", id=cl["id"], name=cl["name"], input=cl["args"]) for cl in t["calls"]]
            msgs.append({"role": "assistant", "content": blocks})
        else:
            block = ToolResultBlockParam(type="tool_result", tool_use_id=t["id"], content=t["text"])
            if msgs[-1]["role"] == "user":
                msgs[-1]["content"].append(block)
            else:
                msgs.append({"role": "user", "content": [block]})
    sink.add(
        "realistic_1mib",
        "anthropic",
        c.sent("You are a coding agent.", msgs),
        note + sdk_note("anthropic", "system and messages posted"),
        big=True,
    )

    g = Gemini(stub)
    contents: list[Any] = []
    for t in turns:
        if t["kind"] == "user":
            part = gtypes.Part(text=t["text"])
            role = "user"
        elif t["kind"] == "assistant":
            parts = [gtypes.Part(text=t["text"])]
            parts += [gtypes.Part(function_call=gtypes.FunctionCall(id=cl["id"], name=cl["name"], args=cl["args"])) for cl in t["calls"]]
            contents.append(gtypes.Content(role="model", parts=parts))
            continue
        else:
            part = gtypes.Part(function_response=gtypes.FunctionResponse(id=t["id"], name=t["name"], response={"output": t["text"]}))
            role = "user"
        if contents and contents[-1].role == role == "user":
            contents[-1].parts.append(part)
        else:
            contents.append(gtypes.Content(role=role, parts=[part]))
    sink.add(
        "realistic_1mib",
        "gemini",
        g.sent(contents, "You are a coding agent."),
        note + sdk_note("google-genai", "contents posted"),
        big=True,
    )


# --------------------------------------------------------------------------------------------

BUILDERS: list[Callable[[Stub, Sink], None]] = [
    chat_cases,
    responses_cases,
    anthropic_cases,
    gemini_cases,
    langchain_cases,
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="regenerate in memory and compare with the committed files")
    parser.add_argument("--big", action="store_true", help="also write the 1 MiB chats to target/convert-fixtures/")
    args = parser.parse_args()

    sink = Sink()
    with Stub() as stub:
        for build in BUILDERS:
            build(stub, sink)
        if args.big:
            big_cases(stub, sink)

    small = {k: v for k, v in sink.files.items() if not k.startswith("big/")}
    if args.check:
        on_disk = {p.name: p.read_bytes() for p in FIXTURES.glob("*.json") if "__" in p.name and not p.name.startswith("ai_sdk__")}
        stale = sorted(k for k in set(small) | set(on_disk) if small.get(k) != on_disk.get(k))
        if stale:
            print("fixtures differ from the generator:", *stale, sep="\n  ")
            return 1
        print(f"{len(small)} fixtures match the generator")
        return 0

    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(small.items()):
        (FIXTURES / name).write_bytes(data)
    for name, data in sorted(sink.files.items()):
        if name.startswith("big/"):
            BIG_DIR.mkdir(parents=True, exist_ok=True)
            (BIG_DIR / name[4:]).write_bytes(data)
            print(f"{BIG_DIR / name[4:]}: {len(data)} bytes")
    print(f"{len(small)} fixtures in {FIXTURES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
