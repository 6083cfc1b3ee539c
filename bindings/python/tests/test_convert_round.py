"""The round end to end from each SDK's own message list: a conversation built with the real
``openai``, ``anthropic``, ``google-genai`` and ``langchain-core`` objects is converted,
``compact(conversion.input(...), call_model)`` runs with that SDK's client as the summariser
(pointed at a stub server on 127.0.0.1), and ``Compacted.messages(source)`` gives the new list:
the system messages and the kept messages are the same objects, the summary message has the
format's shape (merged into the user message at the cut when there is one), the list converts
back to exactly the round's wire replacement, and the SDK sends it (the stub parses the body,
and the library converts what the SDK posted to the same replacement again).
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
from typing import Any, Dict, Iterator, List, Optional

import anthropic
import openai
import pytest
from google import genai
from google.genai import types as gtypes
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_openai import ChatOpenAI
from openai.types.chat import ChatCompletionSystemMessageParam, ChatCompletionToolMessageParam, ChatCompletionUserMessageParam
from openai.types.responses import EasyInputMessageParam
from openai.types.responses.response_input_item_param import FunctionCallOutput

import loopcompact as lc
from helpers import EXAMPLES, Stub
from test_clients import VALID, anthropic_call_model, langchain_call_model, openai_call_model
from test_convert import (
    SIG_A,
    chat_completion,
    claude_message,
    claude_turn,
    fn_call,
    out_message,
    response_body,
    responses_turn,
    tool_call,
)

MODEL = dict(provider="stub", model="stub-model", max_summary_tokens=2048, revision=1)


@pytest.fixture
def stub() -> Iterator[Stub]:
    with Stub([]) as server:
        yield server


def summary_reply() -> Dict[str, Any]:
    return chat_completion({"content": VALID})


def openai_client(stub: Stub) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test", base_url=stub.url + "/v1", max_retries=0)


def round_of(conversion: lc.Conversion, call_model: Any, keep_last: int) -> lc.Compacted:
    with conversion.input(**MODEL) as history:  # type: ignore[arg-type]
        assert history.from_conversion
        result = lc.compact(history, call_model, keep_last=keep_last)
    assert isinstance(result, lc.Compacted), result
    return result


# ---- OpenAI Chat Completions -----------------------------------------------------------------------

def chat_history(stub: Stub) -> List[Any]:
    client = openai_client(stub)
    m: List[Any] = [
        ChatCompletionSystemMessageParam(role="system", content="You are a build agent."),
        ChatCompletionUserMessageParam(role="user", content="Fix the nightly build."),
    ]
    stub.answers.append(chat_completion({"tool_calls": [tool_call("call_1", "run_tests", '{"suite": "all"}')]}, "tool_calls"))
    m.append(client.chat.completions.create(model="gpt-5.1", messages=m).choices[0].message)
    m.append(ChatCompletionToolMessageParam(role="tool", tool_call_id="call_1", content="2 failures: timeout"))
    stub.answers.append(chat_completion({"content": "The timeout is too short; I raised it to 30s."}))
    m.append(client.chat.completions.create(model="gpt-5.1", messages=m).choices[0].message)
    m.append(ChatCompletionUserMessageParam(role="user", content="Now rerun the tests."))
    return m


def test_openai_chat_round(stub: Stub) -> None:
    history = chat_history(stub)
    before = copy.deepcopy(history[5])
    conversion = lc.from_openai_chat(history)
    call_model = openai_call_model(openai_client(stub), "stub-model")

    # keep_last=2: the cut is at the assistant's answer; the summary is a message of its own.
    stub.answers.append(summary_reply())
    result = round_of(conversion, call_model, keep_last=2)
    assert (result.cut, result.source_cut) == (4, 4)
    new = result.messages(history)
    assert new[0] is history[0] and new[2] is history[4] and new[3] is history[5] and len(new) == 4
    assert new[1] == {"role": "user", "content": VALID}
    assert lc.from_openai_chat(new).transcript == result.replacement

    # keep_last=1: the kept part starts with a user message: the summary opens it (R15.9).
    stub.answers.append(summary_reply())
    merged = round_of(conversion, call_model, keep_last=1)
    new = merged.messages(history)
    assert new[0] is history[0] and len(new) == 2
    assert new[1] == {"role": "user", "content": [{"type": "text", "text": VALID}, {"type": "text", "text": "Now rerun the tests."}]}
    assert new[1] is not history[5] and history[5] == before  # a new message; the original unchanged
    assert lc.from_openai_chat(new).transcript == merged.replacement

    # The SDK sends the new list as it is.
    stub.answers.append(chat_completion({"content": "Rerunning."}))
    openai_client(stub).chat.completions.create(model="gpt-5.1", messages=new)
    posted = json.loads(stub.raw[-1])["messages"]
    assert posted == [history[0], new[1]]
    assert lc.from_json(lc.Format.OPENAI_CHAT, json.dumps(posted)).transcript == merged.replacement


def test_messages_needs_the_conversions_input_and_list(stub: Stub) -> None:
    history = chat_history(stub)
    conversion = lc.from_openai_chat(history)
    stub.answers.append(summary_reply())
    result = round_of(conversion, openai_call_model(openai_client(stub), "stub-model"), keep_last=2)
    with pytest.raises(ValueError, match="the conversion was made from 6"):
        result.messages(history[1:])
    with pytest.raises(TypeError):
        result.messages({"messages": history})
    # An input parsed from a wire document has no source list.
    stub.answers.append(summary_reply())
    with lc.Input((EXAMPLES / "input_valid.json").read_bytes()) as plain:
        wire_only = lc.compact(plain, openai_call_model(openai_client(stub), "stub-model"))
    assert isinstance(wire_only, lc.Compacted) and wire_only.source_cut is None and not plain.from_conversion
    with pytest.raises(ValueError, match="Conversion.input"):
        wire_only.messages(history)
    # The conversion may be closed before the round ends: the input kept what messages() needs.
    with lc.from_openai_chat(history) as closing:
        handle = closing.input(**MODEL)  # type: ignore[arg-type]
    stub.answers.append(summary_reply())
    late = lc.compact(handle, openai_call_model(openai_client(stub), "stub-model"), keep_last=2)
    handle.close()
    assert isinstance(late, lc.Compacted) and late.messages(history)[2] is history[4]


def test_acompact_and_identity_inputs(stub: Stub) -> None:
    history = chat_history(stub)
    conversion = lc.from_openai_chat(history)
    client = openai.AsyncOpenAI(api_key="sk-test", base_url=stub.url + "/v1", max_retries=0)

    async def call_model(request: lc.SummaryRequest) -> lc.SummaryReply:
        response = await client.chat.completions.create(
            model="stub-model", messages=[{"role": "system", "content": request.system}, *request.messages],
            max_completion_tokens=request.max_tokens)
        return lc.SummaryReply(response.choices[0].message.content or "", response.usage.completion_tokens if response.usage else 0, "end")

    async def run() -> lc.Compacted:
        with conversion.input(**MODEL) as history_input:  # type: ignore[arg-type]
            result = await lc.acompact(history_input, call_model, keep_last=2)
        assert isinstance(result, lc.Compacted)
        return result

    stub.answers.append(summary_reply())
    result = asyncio.run(run())
    assert result.messages(history)[1] == {"role": "user", "content": VALID}
    # The request the summariser got holds the converted head, minted identity included.
    with conversion.input(**MODEL) as again:  # type: ignore[arg-type]
        head = json.loads(again.encode_head_within(4, 1 << 40))
    assert head["model"] == {"provider": "stub", "model": "stub-model"} and head["basis"]["revision"] == 1
    assert len(head["request_fingerprint"]) == 64 and [m["role"] for m in head["transcript"]] == ["system", "user", "assistant", "tool"]
    fingerprint = bytes(range(32))
    with conversion.input(**MODEL, fingerprint=fingerprint) as given:  # type: ignore[arg-type]
        assert json.loads(given.encode_within(1 << 40))["request_fingerprint"] == fingerprint.hex()
    with conversion.input(**MODEL, fingerprint=fingerprint.hex()) as given_hex:  # type: ignore[arg-type]
        assert json.loads(given_hex.encode_within(1 << 40))["request_fingerprint"] == fingerprint.hex()
    with pytest.raises(lc.InputError) as bad:
        conversion.input(provider="", model="m", max_summary_tokens=1, revision=1)
    assert bad.value.status == lc.Status.INPUT_MODEL
    with pytest.raises(lc.InputError) as zero:
        conversion.input(provider="p", model="m", max_summary_tokens=1, revision=0)
    assert zero.value.status == lc.Status.INPUT_BASIS
    with pytest.raises(ValueError):
        conversion.input(provider="p", model="m", max_summary_tokens=1, revision=1, fingerprint=b"short")


# ---- OpenAI Responses ------------------------------------------------------------------------------

def test_openai_responses_round(stub: Stub) -> None:
    items: List[Any] = [EasyInputMessageParam(role="user", content="Fix the nightly build.")]
    items += responses_turn(stub, items, [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Run the tests."}], "encrypted_content": SIG_A},
        fn_call("fc_1", "call_1", "run_tests", '{"suite": "all"}'),
    ])
    items.append(FunctionCallOutput(type="function_call_output", call_id="call_1", output="2 failures: timeout"))
    items += responses_turn(stub, items, [out_message("msg_1", "I raised the timeout to 30s.")])
    items.append(EasyInputMessageParam(role="user", content="Now rerun the tests."))
    conversion = lc.from_openai_responses(items, "You are a build agent.")
    assert conversion.source_index == (None, 0, 1, 3, 4, 5)
    call_model = openai_call_model(openai_client(stub), "stub-model")

    stub.answers.append(summary_reply())
    result = round_of(conversion, call_model, keep_last=2)
    new = result.messages(items)
    # The instructions stay a parameter: the list starts with the summary.
    assert new[0] == {"role": "user", "content": VALID} and new[1] is items[4] and new[2] is items[5] and len(new) == 3
    assert lc.from_openai_responses(new, "You are a build agent.").transcript == result.replacement

    stub.answers.append(summary_reply())
    merged = round_of(conversion, call_model, keep_last=1)
    new = merged.messages(items)
    assert new == [{"role": "user", "content": [{"type": "input_text", "text": VALID},
                                                {"type": "input_text", "text": "Now rerun the tests."}]}]
    assert items[5] == {"role": "user", "content": "Now rerun the tests."}
    assert lc.from_openai_responses(new, "You are a build agent.").transcript == merged.replacement

    # Typed message items: the summary is typed too. The SDK sends the list.
    typed = [{"type": "message", **item} if isinstance(item, dict) and "role" in item else item for item in items]
    stub.answers.append(summary_reply())
    kept = round_of(lc.from_openai_responses(typed, "You are a build agent."), call_model, keep_last=2).messages(typed)
    assert kept[0] == {"type": "message", "role": "user", "content": VALID}
    stub.answers.append(response_body([out_message("msg_2", "Rerunning.")]))
    openai_client(stub).responses.create(model="gpt-5.1", input=kept, instructions="You are a build agent.", store=False)
    posted = json.loads(stub.raw[-1])
    assert lc.from_json(lc.Format.OPENAI_RESPONSES, json.dumps({"input": posted["input"], "instructions": posted["instructions"]})).transcript == result.replacement


# ---- Anthropic Messages ----------------------------------------------------------------------------

def test_anthropic_round(stub: Stub) -> None:
    system = "You are a build agent."
    m: List[Any] = [{"role": "user", "content": "Fix the nightly build."}]
    m.append(claude_turn(stub, m, [
        {"type": "thinking", "thinking": "Run the tests first.", "signature": SIG_A},
        {"type": "tool_use", "id": "toolu_1", "name": "run_tests", "input": {"suite": "all"}},
    ], system))
    m.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "2 failures: timeout"},
        {"type": "text", "text": "Keep it short."},
    ]})
    m.append(claude_turn(stub, m, [{"type": "text", "text": "I raised the timeout to 30s."}], system))
    m.append({"role": "user", "content": "Now rerun the tests."})
    conversion = lc.from_anthropic(m, system)
    assert conversion.source_index == (None, 0, 1, 2, 2, 3, 4)
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=stub.url, max_retries=0)
    call_model = anthropic_call_model(client, "stub-model")

    # keep_last=3 would cut inside message 2 (between its result and its text): the cut moves
    # before the call, and the signed thinking turn is kept as the same object.
    stub.answers.append(claude_message([{"type": "text", "text": VALID}]))
    result = round_of(conversion, call_model, keep_last=3)
    assert (result.cut, result.source_cut) == (2, 1)
    new = result.messages(m)
    assert new[0] == {"role": "user", "content": VALID} and all(a is b for a, b in zip(new[1:], m[1:])) and len(new) == 5
    assert lc.from_anthropic(new, system).transcript == result.replacement
    assert result.replacement.count(f'"signature":"{SIG_A}"'.encode()) == 1

    stub.answers.append(claude_message([{"type": "text", "text": VALID}]))
    merged = round_of(conversion, call_model, keep_last=1)
    new = merged.messages(m)
    assert new == [{"role": "user", "content": [{"type": "text", "text": VALID}, {"type": "text", "text": "Now rerun the tests."}]}]
    assert lc.from_anthropic(new, system).transcript == merged.replacement

    stub.answers.append(claude_message([{"type": "text", "text": "Rerunning."}]))
    result_list = result.messages(m)
    client.messages.create(model="claude-sonnet-4-5", max_tokens=100, system=system, messages=result_list)
    posted = json.loads(stub.raw[-1])
    assert posted["messages"][1]["content"][0] == {"type": "thinking", "thinking": "Run the tests first.", "signature": SIG_A}
    assert lc.from_json(lc.Format.ANTHROPIC, json.dumps({"system": posted["system"], "messages": posted["messages"]})).transcript == result.replacement


# ---- Google Gemini ---------------------------------------------------------------------------------

def gemini_call_model(client: genai.Client, model: str) -> Any:
    stops = {"STOP": "end", "MAX_TOKENS": "length"}

    def call_model(request: lc.SummaryRequest) -> lc.SummaryReply:
        contents = [{"role": "user" if t["role"] == "user" else "model", "parts": [{"text": t["content"]}]} for t in request.messages]
        response = client.models.generate_content(
            model=model, contents=contents,
            config=gtypes.GenerateContentConfig(system_instruction=request.system, max_output_tokens=request.max_tokens))
        usage = response.usage_metadata
        reason = response.candidates[0].finish_reason if response.candidates else None
        return lc.SummaryReply(response.text or "", (usage.candidates_token_count or 0) if usage else 0,
                               stops.get(reason.value if reason is not None else ""))

    return call_model


def gemini_answer(parts: List[Dict[str, Any]], tokens: int = 80) -> Dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": tokens, "totalTokenCount": 100 + tokens}}


def test_gemini_round(stub: Stub) -> None:
    client = genai.Client(api_key="test", http_options=gtypes.HttpOptions(base_url=stub.url + "/", api_version="v1beta"))
    system = "You are a build agent."
    config = gtypes.GenerateContentConfig(system_instruction=system)
    signature = b"\xfb\xff\xbf" + bytes(range(40))
    c: List[Any] = [gtypes.Content(role="user", parts=[gtypes.Part(text="Fix the nightly build.")])]
    stub.answers.append(gemini_answer([{"functionCall": {"id": "fc_1", "name": "run_tests", "args": {"suite": "all"}},
                                        "thoughtSignature": base64.b64encode(signature).decode()}]))
    c.append(client.models.generate_content(model="gemini-3-pro-preview", contents=c, config=config).candidates[0].content)  # type: ignore[index]
    assert c[1].parts[0].thought_signature == signature
    c.append(gtypes.Content(role="user", parts=[gtypes.Part(function_response=gtypes.FunctionResponse(
        id="fc_1", name="run_tests", response={"output": "2 failures: timeout"}))]))
    stub.answers.append(gemini_answer([{"text": "I raised the timeout to 30s."}]))
    c.append(client.models.generate_content(model="gemini-3-pro-preview", contents=c, config=config).candidates[0].content)  # type: ignore[index]
    c.append(gtypes.Content(role="user", parts=[gtypes.Part(text="Now rerun the tests.")]))
    conversion = lc.from_gemini(c, system)
    call_model = gemini_call_model(client, "gemini-3-pro-preview")

    stub.answers.append(gemini_answer([{"text": VALID}]))
    result = round_of(conversion, call_model, keep_last=2)
    new = result.messages(c)
    assert isinstance(new[0], gtypes.Content) and new[0] == gtypes.Content(role="user", parts=[gtypes.Part(text=VALID)])
    assert new[1] is c[3] and new[2] is c[4] and len(new) == 3
    assert lc.from_gemini(new, system).transcript == result.replacement

    before = c[4].model_copy(deep=True)
    stub.answers.append(gemini_answer([{"text": VALID}]))
    merged = round_of(conversion, call_model, keep_last=1)
    new = merged.messages(c)
    assert len(new) == 1 and isinstance(new[0], gtypes.Content) and new[0] is not c[4] and c[4] == before
    assert [p.text for p in new[0].parts or []] == [VALID, "Now rerun the tests."] and new[0].role == "user"
    assert lc.from_gemini(new, system).transcript == merged.replacement

    # The kept model turn carries its signature; the SDK posts the new list with it.
    stub.answers.append(gemini_answer([{"text": VALID}]))
    early = round_of(conversion, call_model, keep_last=4)
    assert early.source_cut == 1
    listed = early.messages(c)
    assert listed[1] is c[1]
    stub.answers.append(gemini_answer([{"text": "Rerunning."}]))
    client.models.generate_content(model="gemini-3-pro-preview", contents=listed, config=config)
    posted = json.loads(stub.raw[-1])
    assert posted["contents"][0] == {"parts": [{"text": VALID}], "role": "user"}
    source = json.dumps({"contents": posted["contents"], "system_instruction": posted["systemInstruction"]})
    assert lc.from_json(lc.Format.GEMINI, source).transcript == early.replacement


# ---- LangChain -------------------------------------------------------------------------------------

def test_langchain_round(stub: Stub) -> None:
    history: List[BaseMessage] = [
        SystemMessage("You are a build agent."),
        HumanMessage("Fix the nightly build."),
        AIMessage(content=[{"type": "thinking", "thinking": "Run the tests.", "signature": SIG_A}],
                  tool_calls=[{"id": "call_1", "name": "run_tests", "args": {"suite": "all"}}]),
        ToolMessage("2 failures: timeout", tool_call_id="call_1"),
        AIMessage("I raised the timeout to 30s."),
        HumanMessage("Now rerun the tests."),
    ]
    conversion = lc.from_langchain(history)
    chat = ChatOpenAI(model="stub-model", api_key="sk-test", base_url=stub.url + "/v1", max_retries=0)  # type: ignore[arg-type]
    call_model = langchain_call_model(chat)

    stub.answers.append(summary_reply())
    result = round_of(conversion, call_model, keep_last=2)
    new = result.messages(history)
    assert new[0] is history[0] and new[2] is history[4] and new[3] is history[5] and len(new) == 4
    assert isinstance(new[1], HumanMessage) and new[1].content == VALID
    assert lc.from_langchain(new).transcript == result.replacement

    stub.answers.append(summary_reply())
    merged = round_of(conversion, call_model, keep_last=1)
    new = merged.messages(history)
    assert isinstance(new[1], HumanMessage) and new[1] is not history[5] and history[5].content == "Now rerun the tests."
    assert new[1].content == [{"type": "text", "text": VALID}, {"type": "text", "text": "Now rerun the tests."}]
    assert lc.from_langchain(new).transcript == merged.replacement

    # ChatOpenAI sends the new list; the serialised forms rebuild in their own form.
    stub.answers.append(chat_completion({"content": "Rerunning."}))
    chat.invoke(new)
    posted = json.loads(stub.raw[-1])["messages"]
    assert [p["role"] for p in posted] == ["system", "user"] and posted[1]["content"][0] == {"type": "text", "text": VALID}
    from langchain_core.messages import messages_to_dict

    as_dicts = messages_to_dict(history)
    stub.answers.append(summary_reply())
    from_dicts = round_of(lc.from_langchain(as_dicts), call_model, keep_last=2).messages(as_dicts)
    assert from_dicts[1] == {"type": "human", "data": {"content": VALID, "additional_kwargs": {}, "response_metadata": {},
                                                      "type": "human", "name": None, "id": None}}
    assert from_dicts[2] is as_dicts[4]
    assert lc.from_langchain(from_dicts).transcript == result.replacement


def test_a_tool_input_nested_past_pythons_recursion_limit_rounds() -> None:
    # The wire allows a tool input nested up to J5.2's limit; json.loads stops near 1000 levels.
    # The round and the rebuilt list need only the wire's roles, which are read without it.
    deep = "[" * 3000 + "]" * 3000
    history: List[Dict[str, Any]] = [
        {"role": "system", "content": "You are a build agent."},
        {"role": "user", "content": "Fix the nightly build."},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": deep}}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
        {"role": "user", "content": "Now rerun the tests."},
    ]
    conversion = lc.from_openai_chat(history)
    with pytest.raises(RecursionError):
        json.loads(conversion.transcript)
    result = round_of(conversion, lambda r: lc.SummaryReply(VALID, 100, "end"), keep_last=1)
    # keep_last=1: the kept user message opens with the summary (R15.9); the system message stays.
    new = result.messages(history)
    assert new[0] is history[0] and len(new) == 2
    assert new[1] == {"role": "user", "content": [{"type": "text", "text": VALID}, {"type": "text", "text": "Now rerun the tests."}]}
