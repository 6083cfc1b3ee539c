"""SummaryStream (SPEC §17.3): the reply validated in chunks, against validate_summary of the whole.

A feed that raises carries the diagnosis known when the reply died (T17.3: a rejected token at its
first byte); ``dead_offset`` is the byte that killed it, at or after that offset."""

from __future__ import annotations

import base64
import threading
from typing import Callable, Iterable, List, Optional, Tuple

import pytest

import loopcompact as lc
from helpers import VECTORS, Row, load_rows

ROWS = load_rows(VECTORS / "summary_xml.jsonl")

VALID = (
    "<conversation_summary><goal>ship &lt;safe&gt;</goal><constraints/><decisions/>"
    "<state>tests &amp; build pass</state><open_items/></conversation_summary>"
)


def xml_of(row: Row) -> bytes:
    if "xml" in row:
        return str(row["xml"]).encode("utf-8")
    return base64.b64decode(row["xml_base64"])


def verdict(call: Callable[..., object], *args: object) -> Optional[Tuple[int, Optional[int], Optional[str]]]:
    """``None`` when the call succeeds, else the (status, offset, rule) of its SummaryError."""
    try:
        call(*args)
    except lc.SummaryError as e:
        return e.status, e.offset, e.rule
    return None


def chunks(data: bytes, size: int) -> List[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def feed_all(stream: lc.SummaryStream, parts: Iterable[object]) -> Optional[lc.SummaryError]:
    """Feeds every part; the first SummaryError (later parts are still fed and must raise it again)."""
    first: Optional[lc.SummaryError] = None
    for part in parts:
        try:
            stream.feed(part)  # type: ignore[arg-type]
        except lc.SummaryError as e:
            if first is None:
                first = e
            else:
                assert (e.status, e.offset, e.rule) == (first.status, first.offset, first.rule)
    return first


@pytest.mark.parametrize("size", [1, 2, 7, 64, 1 << 20])
@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_every_vector_in_chunks_gives_validate_summarys_verdict(row: Row, size: int) -> None:
    data = xml_of(row)
    whole = verdict(lc.validate_summary, data)
    assert (whole is None) == (row["expect"] == "ok")
    with lc.SummaryStream() as stream:
        died = feed_all(stream, chunks(data, size))
        assert verdict(stream.finish) == whole
        if died is None:
            assert stream.dead_offset is None
        else:
            # Dead means no continuation validates: the reply fails. The reply died at a byte it
            # holds; the diagnosis is at or before it (a rejected token at its first byte).
            assert whole is not None
            dead = stream.dead_offset
            assert dead is not None and dead < len(data)
            assert died.offset is not None and died.offset <= dead
            assert died.status_class is lc.StatusClass.RETRY
    if whole is None:
        assert died is None


@pytest.mark.parametrize("row", [r for r in ROWS if "xml" in r], ids=[r["name"] for r in ROWS if "xml" in r])
def test_str_chunks_are_encoded_one_by_one(row: Row) -> None:
    text = str(row["xml"])
    with lc.SummaryStream() as stream:
        feed_all(stream, [text[i:i + 3] for i in range(0, len(text), 3)])
        assert verdict(stream.finish) == verdict(lc.validate_summary, text)


def test_a_dead_chunk_raises_with_the_offset_of_the_byte_that_killed_it() -> None:
    first = "<conversation_summary><goal>a</goal>"  # 22 + 6 + 1 + 7 = 36 bytes
    assert len(first) == 36
    stream = lc.SummaryStream()
    stream.feed(first)
    assert stream.dead_offset is None
    # " <notes>": the space is blank text between sections; the next start tag must be
    # <constraints>, so the reply dies at the "n" (offset 36 + 2); the diagnosis, as the
    # whole-document one, names the rejected start tag at its "<" (offset 37, column 38).
    with pytest.raises(lc.SummaryError) as caught:
        stream.feed(" <notes>")
    e = caught.value
    assert e.status == lc.Status.SUMMARY_XML_STRUCTURE
    assert (e.offset, e.line, e.column) == (37, 1, 38)
    assert stream.dead_offset == 38
    # Every later feed raises the same error, whatever it holds, and reads nothing.
    for later in ("<constraints/>", b"", "x" * 1000):
        with pytest.raises(lc.SummaryError) as again:
            stream.feed(later)
        assert (again.value.status, again.value.offset) == (e.status, 37)
    assert stream.dead_offset == 38
    stream.close()


def test_a_markdown_fence_dies_at_byte_0() -> None:
    with lc.SummaryStream() as stream:
        with pytest.raises(lc.SummaryError) as caught:
            stream.feed("```xml\n")
        # Character data before the root (X4.18): structure, at its first byte.
        assert caught.value.status == lc.Status.SUMMARY_XML_STRUCTURE
        assert caught.value.offset == 0 and stream.dead_offset == 0


def test_a_reference_and_a_utf8_sequence_cut_by_a_chunk_end_stay_viable() -> None:
    head = "<conversation_summary><goal>a &am".encode()
    with lc.SummaryStream() as stream:
        stream.feed(head)  # "&amp;" may follow
        stream.feed(b"p; caf\xc3")  # half of "é"
        assert stream.dead_offset is None
        stream.feed(b"\xa9</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>")
        stream.finish()
    with lc.SummaryStream() as stream:
        stream.feed(head)
        with pytest.raises(lc.SummaryError) as caught:
            stream.feed("x")  # "&amx" can be no reference: dies at the x
        # The diagnosis names the reference at its "&" (28 + len("a ")), X4.6.
        assert caught.value.status == lc.Status.SUMMARY_XML_SYNTAX
        assert (caught.value.offset, caught.value.rule) == (30, "X4.6")
        assert stream.dead_offset == len(head)


def test_a_lone_surrogate_in_a_str_chunk_is_sent_as_u_fffd() -> None:
    # U+FFFD is a Char (X4.8): the goal "\ufffd" is valid, as validate_summary finds it.
    parts = ["<conversation_summary><goal>", "\ud800", "</goal><constraints/><decisions/>",
             "<state>s</state><open_items/></conversation_summary>"]
    lc.validate_summary("".join(parts))
    with lc.SummaryStream() as stream:
        for part in parts:
            stream.feed(part)
        stream.finish()


def test_finish_does_not_end_the_stream() -> None:
    data = VALID.encode()
    with lc.SummaryStream() as stream:
        stream.feed(data[:40])
        with pytest.raises(lc.SummaryError) as caught:
            stream.finish()  # the prefix alone ends inside an element
        assert caught.value.status == lc.Status.SUMMARY_XML_SYNTAX
        assert stream.dead_offset is None
        stream.feed(data[40:])
        stream.finish()
        with pytest.raises(lc.SummaryError) as after:
            stream.feed("\n")  # after the root, even a newline is dead (T17.3)
        assert after.value.offset == len(data)


def test_every_buffer_type_and_none() -> None:
    data = VALID.encode()
    with lc.SummaryStream() as stream:
        stream.feed(None)
        stream.feed(bytearray(data[:10]))
        stream.feed(memoryview(data)[10:30])
        stream.feed(memoryview(bytearray(data[30:50])))
        stream.feed(data[50:])
        stream.finish()
        with pytest.raises(TypeError):
            stream.feed(12)  # type: ignore[arg-type]


def test_closed_stream() -> None:
    stream = lc.SummaryStream()
    assert "viable" in repr(stream)
    stream.close()
    stream.close()
    assert stream.closed and "closed" in repr(stream)
    calls: List[Callable[[], object]] = [lambda: stream.feed("x"), stream.finish, lambda: stream.dead_offset]
    for call in calls:
        with pytest.raises(ValueError):
            call()


def test_feeds_from_several_threads_are_serialised() -> None:
    # Each thread feeds whole copies of a blank run inside the goal; the total is what was fed.
    with lc.SummaryStream() as stream:
        stream.feed("<conversation_summary><goal>x")
        barrier = threading.Barrier(4)

        def run() -> None:
            barrier.wait()
            for _ in range(500):
                stream.feed(b"a &amp; b ")

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stream.feed("</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>")
        stream.finish()
        with pytest.raises(lc.SummaryError) as caught:
            stream.feed("!")
        head = len("<conversation_summary><goal>x")
        tail = len("</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>")
        assert caught.value.offset == head + 4 * 500 * 10 + tail
