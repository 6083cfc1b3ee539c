"""From a round's wire cut back to the host's own messages (SPEC §16, G16.2, the hosts' part):
``Compacted.messages(source)``.

A :class:`SourceMap` is what :meth:`Conversion.input` keeps of its conversion for the round: the
format, the number of source messages, for each wire message its source index and role, and the
source cut of every allowed wire cut. It holds no handle and no message, so a round's result can
rebuild the list after the conversion was closed.

The new list is the source's leading system messages (the same objects), the summary as one user
message of the format, then the kept source messages ``source[source_cut:]`` (the same objects).
When the wire merged the summary into the user message at the cut (R15.9: two user messages never
meet), the new list merges it the same way: a new message of the format whose content is the
summary text part followed by that message's content parts; the original is not changed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._constants import Format

#: The ``id`` of LangChain's ``dumpd`` form of a HumanMessage.
_LANGCHAIN_HUMAN_ID = ["langchain", "schema", "messages", "HumanMessage"]


@dataclass(frozen=True)
class SourceMap:
    """What a round needs of its conversion to rebuild the source's message list."""

    format: Format
    #: The number of source messages (or items), as the library counted them.
    source_len: int
    #: For each wire message, the index of its source message; ``None`` for the system parameter.
    source_index: Tuple[Optional[int], ...]
    #: For each wire message, its role (``system``, ``user``, ``assistant``, ``tool``).
    roles: Tuple[str, ...]
    #: For each wire cut ``0..n``, the source cut it maps to; ``None`` where it is not allowed.
    source_cuts: Tuple[Optional[int], ...]

    def source_cut(self, cut: int) -> int:
        found = self.source_cuts[cut] if 0 <= cut < len(self.source_cuts) else None
        if found is None:  # the round cuts only where the input allows (G16.2): a library bug
            raise RuntimeError(f"the round's cut {cut} is not a source boundary of its conversion")
        return found


def _is_model(value: object) -> bool:
    """A pydantic model (the SDKs' typed objects), without importing pydantic."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(value, pydantic.BaseModel)


def _model_of(value: object, module: str) -> bool:
    return _is_model(value) and type(value).__module__.startswith(module)


def _parts(content: Any, text_type: str, summary: str) -> List[Any]:
    """The summary text part, then ``content``'s parts (a string is one text part)."""
    head: Dict[str, Any] = {"type": text_type, "text": summary}
    if content is None:
        return [head]
    if isinstance(content, str):
        return [head, {"type": text_type, "text": content}]
    return [head, *content]


def _as_dict(message: Any, dump: Any) -> Dict[str, Any]:
    """A dict message as it is; a typed one as the SDK sends it (``dump``)."""
    if isinstance(message, dict):
        return dict(message)
    dumped = dump(message)
    if not isinstance(dumped, dict):
        raise TypeError(f"cannot merge the summary into a {type(message).__name__}")
    return dumped


def _summary_message(fmt: Format, summary: str, source: Sequence[Any], merge: Optional[Any], dump: Any) -> Any:
    """The summary as one user message of ``fmt``; merged into ``merge`` when that is given."""
    if fmt in (Format.OPENAI_CHAT, Format.ANTHROPIC, Format.AI_SDK):
        if merge is None:
            return {"role": "user", "content": summary}
        message = _as_dict(merge, dump)
        message["content"] = _parts(message.get("content"), "text", summary)
        return message
    if fmt == Format.OPENAI_RESPONSES:
        if merge is None:
            # An input message item; typed as the list's message items are.
            typed = any(isinstance(m, dict) and "role" in m and m.get("type") == "message" for m in source)
            return {"type": "message", "role": "user", "content": summary} if typed else {"role": "user", "content": summary}
        message = _as_dict(merge, dump)
        message["content"] = _parts(message.get("content"), "input_text", summary)
        return message
    if fmt == Format.GEMINI:
        return _gemini_summary(summary, source, merge)
    return _langchain_summary(summary, source, merge)


def _gemini_summary(summary: str, source: Sequence[Any], merge: Optional[Any]) -> Any:
    if _model_of(merge, "google.genai") or (merge is None and any(_model_of(c, "google.genai") for c in source)):
        types = sys.modules["google.genai.types"]  # loaded: the source holds its objects
        part = types.Part(text=summary)
        if merge is None:
            return types.Content(role="user", parts=[part])
        return merge.model_copy(update={"parts": [part, *(merge.parts or [])]})
    if merge is None:
        return {"role": "user", "parts": [{"text": summary}]}
    message = dict(merge)
    parts = message.get("parts")
    message["parts"] = [{"text": summary}, *(parts or [])]
    return message


def _langchain_summary(summary: str, source: Sequence[Any], merge: Optional[Any]) -> Any:
    def is_message(m: object) -> bool:
        messages = sys.modules.get("langchain_core.messages")
        return messages is not None and isinstance(m, messages.BaseMessage)

    if is_message(merge) or (merge is None and any(is_message(m) for m in source)):
        from langchain_core.messages import HumanMessage  # loaded: the source holds its objects

        if merge is None:
            return HumanMessage(content=summary)
        return merge.model_copy(update={"content": _parts(merge.content, "text", summary)})
    # The serialised forms, as the list holds them: dumpd, messages_to_dict or model_dump.
    if merge is not None:
        if "lc" in merge:
            kwargs = dict(merge.get("kwargs") or {})
            kwargs["content"] = _parts(kwargs.get("content"), "text", summary)
            return {**merge, "kwargs": kwargs}
        if "data" in merge:
            data = dict(merge["data"])
            data["content"] = _parts(data.get("content"), "text", summary)
            return {**merge, "data": data}
        return {**merge, "content": _parts(merge.get("content"), "text", summary)}
    first = next((m for m in source if isinstance(m, dict)), {})
    if "lc" in first:
        return {"lc": 1, "type": "constructor", "id": list(_LANGCHAIN_HUMAN_ID), "kwargs": {"content": summary, "type": "human"}}
    data = {"content": summary, "additional_kwargs": {}, "response_metadata": {}, "type": "human", "name": None, "id": None}
    return {"type": "human", "data": data} if "data" in first else data


def rebuild(source_map: SourceMap, cut: int, summary: str, source: Any, dump: Any) -> List[Any]:
    """The new message list for a round that summarised wire messages ``[0, cut)`` into
    ``summary`` (see the module's doc)."""
    if isinstance(source, (str, bytes, bytearray, dict)) and not (
        source_map.format == Format.OPENAI_RESPONSES and isinstance(source, str)
    ):
        raise TypeError(f"source must be the list the conversion was made from, not a {type(source).__name__}")
    # A Responses input may be one string: one user message.
    items: Sequence[Any] = [source] if isinstance(source, str) else source
    try:
        count = len(items)
    except TypeError:
        raise TypeError(f"source must be the list the conversion was made from, not a {type(source).__name__}") from None
    s = source_map.source_cut(cut)
    if count != source_map.source_len:
        raise ValueError(
            f"source has {count} messages, the conversion was made from {source_map.source_len}: "
            "give messages() the list the conversion was made from"
        )
    roles = source_map.roles
    lead = 0
    while lead < len(roles) and roles[lead] == "system":
        lead += 1
    leading = sorted({i for i in source_map.source_index[:lead] if i is not None})
    merge = cut < len(roles) and roles[cut] == "user" and source_map.source_index[cut] == s
    first = _summary_message(source_map.format, summary, items, items[s] if merge else None, dump)
    return [*(items[i] for i in leading), first, *items[s + 1 if merge else s :]]
