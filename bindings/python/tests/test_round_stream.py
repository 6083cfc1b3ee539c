"""The round with a streaming summariser (SPEC T17.6): call_model returns a SummaryReplyStream, the
round validates its chunks as they arrive and stops reading at the first one after which the reply
cannot pass."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Dict, Iterator, List, Optional, Sequence, Union

import pytest

import loopcompact as lc
from helpers import EXAMPLES

VALID = (
    "<conversation_summary><goal>Fix the nightly build.</goal><constraints>Keep the public API.</constraints>"
    "<decisions>Default timeout to 30s.</decisions><state>The cause was found.</state>"
    "<open_items>Rerun the tests.</open_items></conversation_summary>"
)
# Without <constraints>: the reply dies at the "d" of "<decisions" (the next section must be
# <constraints>), and the diagnosis names that start tag at its "<".
MISSING_CONSTRAINTS = VALID.replace("<constraints>Keep the public API.</constraints>", "")
DECISIONS_AT = MISSING_CONSTRAINTS.index("<decisions>")
FENCE_OPEN, FENCE_CLOSE = "```xml\n", "\n```\n"


def realistic_summary(size: int = 4096) -> str:
    """benches/gen/make_summary.py's realistic summary of about ``size`` bytes."""
    para = ("  The agent refactored the parser &amp; fixed the off-by-one in &lt;scan&gt;; tests pass.\n"
            "  Decision: keep the tokenizer, add a compatibility layer (&#x2014; see notes).\n")
    out = ["<conversation_summary>\n<goal>"]
    n = len(out[0])
    while n < size // 2:
        out.append(para)
        n += len(para)
    out.append("</goal>\n<constraints/>\n<decisions>")
    n += len(out[-1])
    while n < size - 200:
        out.append(para)
        n += len(para)
    out.append("</decisions>\n<state>green</state>\n<open_items></open_items>\n</conversation_summary>")
    return "".join(out)


def wire() -> str:
    return (EXAMPLES / "input_valid.json").read_text("utf-8")


Chunk = Union[str, bytes]


class Streamed:
    """A scripted streamed reply: yields its chunks one by one, counting those read, and records
    whether the generator was closed before its end and whether usage() was asked."""

    def __init__(self, chunks: Sequence[Chunk], tokens: int = 100, stop: Optional[str] = "end") -> None:
        self.chunks = list(chunks)
        self.read = 0
        self.closed = False
        self.exhausted = False
        self.usage_calls = 0
        self.tokens, self.stop = tokens, stop

    def generate(self) -> Iterator[Chunk]:
        try:
            for chunk in self.chunks:
                self.read += 1
                yield chunk
            self.exhausted = True
        finally:
            if not self.exhausted:
                self.closed = True

    async def agenerate(self) -> AsyncIterator[Chunk]:
        try:
            for chunk in self.chunks:
                await asyncio.sleep(0)
                self.read += 1
                yield chunk
            self.exhausted = True
        finally:
            if not self.exhausted:
                self.closed = True

    def usage(self) -> lc.SummaryUsage:
        self.usage_calls += 1
        return lc.SummaryUsage(self.tokens, self.stop)

    def reply(self) -> lc.SummaryReplyStream:
        return lc.SummaryReplyStream(self.generate(), self.usage)

    def areply(self) -> lc.SummaryReplyStream:
        return lc.SummaryReplyStream(self.agenerate(), self.usage)

    @property
    def bytes_read(self) -> int:
        return sum(len(c.encode() if isinstance(c, str) else c) for c in self.chunks[: self.read])


def split(text: Union[str, bytes], size: int) -> List[Chunk]:
    return [text[i:i + size] for i in range(0, len(text), size)]


class Model:
    """call_model answering each request with the next streamed reply."""

    def __init__(self, *replies: Streamed) -> None:
        self.replies = list(replies)
        self.requests: List[lc.SummaryRequest] = []

    def __call__(self, request: lc.SummaryRequest) -> lc.SummaryReplyStream:
        self.requests.append(request)
        return self.replies[len(self.requests) - 1].reply()

    async def acall(self, request: lc.SummaryRequest) -> lc.SummaryReplyStream:
        self.requests.append(request)
        return self.replies[len(self.requests) - 1].areply()


@pytest.mark.parametrize("size", [1, 5, 64, 10_000])
def test_a_streamed_reply_gives_the_round_of_the_whole_reply(size: int) -> None:
    text = FENCE_OPEN + VALID + FENCE_CLOSE
    streamed = Streamed(split(text, size))
    with lc.Input(wire()) as handle:
        result = lc.compact(handle, Model(streamed), keep_last=1)
        whole = lc.compact(handle, lambda r: lc.SummaryReply(text, 100, "end"), keep_last=1)
    assert isinstance(result, lc.Compacted) and isinstance(whole, lc.Compacted)
    assert (result.summary, result.cut, result.replacement) == (whole.summary, whole.cut, whole.replacement)
    (attempt,) = result.attempts
    assert not attempt.aborted and attempt.reply_bytes == len(text) and attempt.stop == "end"
    assert attempt.diagnosis == whole.attempts[0].diagnosis
    # Read to the end, usage asked once, after the last chunk.
    assert streamed.exhausted and not streamed.closed and streamed.usage_calls == 1


def test_a_reply_that_dies_at_chunk_k_is_not_read_further() -> None:
    text = FENCE_OPEN + MISSING_CONSTRAINTS + FENCE_CLOSE
    dies_at = len(FENCE_OPEN) + DECISIONS_AT + 1  # the "d" of "<decisions"
    doomed = Streamed(split(text, 8))
    good = Streamed(split(FENCE_OPEN + VALID + FENCE_CLOSE, 8))
    model = Model(doomed, good)
    with lc.Input(wire()) as handle:
        result = lc.compact(handle, model, keep_last=1)
    assert isinstance(result, lc.Compacted) and result.summary == VALID
    # Chunk k = the one holding the dead byte: read, then the generator closed, usage never asked.
    k = dies_at // 8 + 1
    assert (doomed.read, doomed.closed, doomed.exhausted, doomed.usage_calls) == (k, True, False, 0)
    first, second = result.attempts
    assert first.aborted and first.reply_bytes == 8 * k == doomed.bytes_read and first.stop is None
    d = first.diagnosis
    # The diagnosis in the reply as read: the <decisions> start tag on line 2 (after the fence),
    # in the section expected there (as the whole reply's diagnosis, tests/test_round.py).
    assert (d.status, d.status_class, d.section) == (lc.Status.SUMMARY_XML_STRUCTURE, lc.StatusClass.RETRY, lc.Section.CONSTRAINTS)
    assert (d.offset, d.line, d.column) == (len(FENCE_OPEN) + DECISIONS_AT, 2, DECISIONS_AT + 1)
    assert (d.location, d.rule, d.expected) == ("summary", "X4.18", "<constraints>")
    assert first.removed == lc.Removed(lc.Cleanup.UNFENCE, len(FENCE_OPEN), 0)
    assert "aborted" in str(first)
    # The next request carries the retry message of that diagnosis (class RETRY).
    retry = model.requests[1].messages[2]["content"]
    assert retry == lc.retry_message(d) and "constraints" in retry
    assert not second.aborted and second.ok


def test_a_fence_without_unfence_dies_in_the_first_chunk() -> None:
    streamed = Streamed(split(FENCE_OPEN + VALID + FENCE_CLOSE, 16))
    with lc.Input(wire()) as handle:
        result = lc.compact(handle, Model(streamed), keep_last=1, attempts=1, unfence=False)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.SUMMARY_XML_STRUCTURE
    (attempt,) = result.attempts
    assert attempt.aborted and streamed.read == 1 and streamed.closed
    assert (attempt.diagnosis.offset, attempt.diagnosis.line, attempt.diagnosis.column) == (0, 1, 1)
    assert attempt.removed == lc.Removed(lc.Cleanup(0), 0, 0)


def test_what_cleanup_removes_is_not_fed() -> None:
    # Leading White_Space (U+00A0 cut between two chunks, U+3000, LF) and a trailing newline and
    # spaces: trimmed, so the reply is read to its end and accepted.
    body = VALID.encode()
    chunks: List[Chunk] = [b"\xc2", b"\xa0\xe3\x80", b"\x80\n", body[:30], body[30:], b"\n  ", "\n"]
    streamed = Streamed(chunks)
    with lc.Input(wire()) as handle:
        result = lc.compact(handle, Model(streamed), keep_last=1)
    assert isinstance(result, lc.Compacted) and result.summary == VALID and streamed.exhausted
    assert result.attempts[0].removed == lc.Removed(lc.Cleanup.TRIM, 6, 4)
    # Without trim, the first byte is text before the root: dead in the first chunk.
    streamed = Streamed(chunks)
    with lc.Input(wire()) as handle:
        result = lc.compact(handle, Model(streamed), keep_last=1, attempts=1, trim=False, unfence=False)
    assert isinstance(result, lc.KeepHistory) and result.attempts[0].aborted and streamed.read == 1


def test_prose_after_the_summary_is_judged_by_the_whole_reply() -> None:
    # After a complete summary the round stops feeding (cleanup may remove what follows); trailing
    # prose then fails the whole reply's check, as without streaming.
    text = VALID + "\nHope this helps!"
    streamed = Streamed(split(text, 10))
    with lc.Input(wire()) as handle:
        result = lc.compact(handle, Model(streamed), keep_last=1, attempts=1)
        whole = handle.validate_reply  # the same verdict from the bare-reply check
        with pytest.raises(lc.OutputError) as caught:
            # The round's default byte limit: 16 bytes per max_summary_tokens (2048).
            whole(text, output_tokens=100, stop="end", max_reply_bytes=16 * 2048, trim=True, unfence=True)
    assert isinstance(result, lc.KeepHistory) and streamed.exhausted
    (attempt,) = result.attempts
    assert not attempt.aborted and attempt.diagnosis == caught.value.diagnostic


def test_a_leading_prose_line_dies_at_byte_0() -> None:
    text = "Here is the summary:\n" + VALID
    streamed = Streamed(split(text, 4))
    with lc.Input(wire()) as handle:
        result = lc.compact(handle, Model(streamed), keep_last=1, attempts=1)
    assert isinstance(result, lc.KeepHistory)
    assert result.attempts[0].aborted and streamed.read == 1 and result.attempts[0].diagnosis.offset == 0


def test_a_reply_over_max_reply_bytes_is_aborted_with_the_byte_limit() -> None:
    text = VALID.replace("Fix the nightly build.", "Fix the nightly build. " * 20)
    streamed = Streamed(split(text, 50))
    with lc.Input(wire()) as handle:
        result = lc.compact(handle, Model(streamed), keep_last=1, attempts=1, max_reply_bytes=300)
    assert isinstance(result, lc.KeepHistory) and result.status == lc.Status.SUMMARY_BYTE_LIMIT
    (attempt,) = result.attempts
    # Aborted at the first chunk that passes 300 bytes: the seventh (350 bytes read).
    assert attempt.aborted and streamed.read == 7 and streamed.closed and attempt.reply_bytes == 350
    assert (attempt.diagnosis.limit, attempt.diagnosis.actual) == (300, 350)


def test_acompact_reads_an_async_iterator_and_acloses_it() -> None:
    doomed = Streamed(split(MISSING_CONSTRAINTS, 8))
    good = Streamed(split(VALID, 8))
    model = Model(doomed, good)
    with lc.Input(wire()) as handle:
        result = asyncio.run(lc.acompact(handle, model.acall, keep_last=1))
        sync = lc.compact(handle, Model(Streamed(split(MISSING_CONSTRAINTS, 8)), Streamed(split(VALID, 8))), keep_last=1)
    assert isinstance(result, lc.Compacted) and isinstance(sync, lc.Compacted)
    assert doomed.closed and doomed.read == (DECISIONS_AT + 1) // 8 + 1 and doomed.usage_calls == 0
    assert [a.diagnosis for a in result.attempts] == [a.diagnosis for a in sync.attempts]
    # A plain iterator and a coroutine usage() under acompact.
    plain = Streamed(split(VALID, 7))

    async def usage() -> Dict[str, Any]:
        return {"output_tokens": 100, "stop": "end"}

    async def call(request: lc.SummaryRequest) -> lc.SummaryReplyStream:
        return lc.SummaryReplyStream(plain.generate(), usage)

    with lc.Input(wire()) as handle:
        result = asyncio.run(lc.acompact(handle, call, keep_last=1))
    assert isinstance(result, lc.Compacted) and plain.exhausted


class Outage(Exception):
    pass


def test_an_exception_of_the_stream_is_one_of_call_model() -> None:
    def failing() -> Iterator[str]:
        yield VALID[:20]
        raise Outage()

    def call(request: lc.SummaryRequest) -> lc.SummaryReplyStream:
        return lc.SummaryReplyStream(failing(), lambda: lc.SummaryUsage(1))

    with lc.Input(wire()) as handle:
        with pytest.raises(Outage):
            lc.compact(handle, call, keep_last=1)
        kept = lc.compact(handle, call, keep_last=1, on_error="keep_history")
    assert isinstance(kept, lc.KeepHistory) and kept.status is None and "Outage" in kept.reason


def test_bad_streams_are_type_errors() -> None:
    with pytest.raises(TypeError):
        lc.SummaryReplyStream("text", lambda: lc.SummaryUsage(1))  # a str is no stream of chunks
    with pytest.raises(TypeError):
        lc.SummaryReplyStream([VALID], None)  # type: ignore[arg-type]
    with lc.Input(wire()) as handle:
        with pytest.raises(TypeError):
            lc.compact(handle, lambda r: lc.SummaryReplyStream([VALID, 3], lambda: lc.SummaryUsage(1)))  # type: ignore
        with pytest.raises(TypeError):
            lc.compact(handle, lambda r: lc.SummaryReplyStream([VALID], lambda: 100))
        with pytest.raises(ValueError):
            lc.compact(handle, lambda r: lc.SummaryReplyStream([VALID], lambda: lc.SummaryUsage(1, "stopped")))


def test_the_figure_a_fenced_realistic_summary_without_unfence() -> None:
    """The issue note's figure: a realistic 4 KB summary, streamed in 16-byte chunks (a few tokens
    each), behind a Markdown fence the round is not told to remove; and the same behind a leading
    prose line with the default cleanup. Both are aborted in their first chunk."""
    summary = realistic_summary()
    for label, text, unfence in (
        ("fence, unfence=False", FENCE_OPEN + summary + FENCE_CLOSE, False),
        ("leading prose line", "Here is the summary of the conversation:\n" + summary, True),
    ):
        total = len(text.encode())
        streamed = Streamed(split(text, 16))
        with lc.Input(wire()) as handle:
            result = lc.compact(handle, Model(streamed), keep_last=1, attempts=1, unfence=unfence)
        assert isinstance(result, lc.KeepHistory) and result.attempts[0].aborted
        assert streamed.read == 1 and streamed.closed
        print(f"{label}: reply {total} bytes, read {streamed.bytes_read}, never read {total - streamed.bytes_read}")
        assert total - streamed.bytes_read == total - 16 and total > 4000


def test_attempt_field_defaults_keep_old_constructions() -> None:
    d = lc.Diagnostic.of_status(0)
    request = lc.SummaryRequest(system="s", messages=(), max_tokens=1, attempt=1)
    attempt = lc.Attempt(1, request, 10, "end", 0, lc.StatusClass.RETRY, d, lc.Removed(lc.Cleanup(0), 0, 0))
    assert not attempt.aborted and "stop end" in str(attempt)
