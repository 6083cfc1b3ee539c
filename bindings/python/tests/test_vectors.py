"""Every conformance vector (tests/vectors/*.jsonl, mapped to calls per SPEC V12.3) through the
package and, when ../shared is present, the JSONTestSuite peer rows. A rejection must raise the
exception of the call's domain, with the diagnosis of the ``_diagnose`` C function."""

from __future__ import annotations

import base64
from typing import Any, Callable, List, Optional, Tuple, Type

import pytest

import loopcompact as lc
from helpers import PEER, VECTORS, Row, load_rows

# A3.9: the codes each function may return besides LC_OK and the boundary codes 1, 3, 99.
CODES = {
    "summary": set(range(206, 210)),
    "input": set(range(100, 106)),
    "fit": {110, 2},
    "output": {200, 201, 203, 204, 205, 206, 207, 208, 209, 2},
    "compaction_policy": set(range(300, 309)),
    "observation_policy": set(range(320, 324)),
    "context_config": set(range(340, 348)) | set(range(301, 309)) | set(range(321, 324)),
    "resolve_limits": {360},
    "occupancy": {361},
    "replacement": {250},
    "fingerprint": set(range(400, 408)),
}


def vector_rows() -> List[Any]:
    rows = []
    for path in sorted(VECTORS.glob("*.jsonl")):
        for row in load_rows(path):
            rows.append(pytest.param(path.stem, row, id=f"{path.stem}:{row['name']}"))
    return rows


ROWS = vector_rows()


def data(row: Row, field: str) -> Optional[bytes]:
    """A byte field: ``x``, ``x_base64`` when not UTF-8 (V12.2); on ``null_ptr`` rows the empty
    document is passed as None, (NULL, 0)."""
    if row.get("null_ptr") and row.get(field) == "":
        return None
    if field in row:
        return str(row[field]).encode("utf-8")
    return base64.b64decode(row[field + "_base64"])


def status_of(error: Type[lc.LoopcompactError], call: Callable[..., Any], *args: Any) -> Tuple[int, Any]:
    """The status a call fails with (0 when it succeeds) and its result; a failure must raise
    ``error`` and carry a consistent diagnosis."""
    try:
        return 0, call(*args)
    except lc.LoopcompactError as e:
        assert type(e) is error, f"{type(e).__name__} raised, {error.__name__} expected"
        assert e.diagnostic.status == e.status
        if e.status == lc.Status.SUMMARY_BYTE_LIMIT and e.limit is not None and e.limit < lc.SMALLEST_SUMMARY_LEN:
            # R15.2: a byte limit no reply can meet is the host's to fix (class HOST, not RETRY).
            # The vectors' other byte limits are above the shortest reply that could pass.
            assert e.status_class is lc.StatusClass.HOST
        else:
            assert e.status_class == lc.status_class(e.status)
        assert e.name == lc.status_name(e.status) and "\n" not in str(e) and str(e).startswith(e.name)
        if e.line is not None:
            assert e.offset is not None and e.column is not None and e.column >= 1
        return e.status, None


def check_status(kind: str, row: Row, status: int) -> None:
    expect = row["expect"]
    if expect == "ok":
        assert status == 0, f"{lc.status_name(status)}, expected ok"
    else:
        assert status in CODES[kind], f"{lc.status_name(status)} is not a code of {kind}"
        assert lc.status_reason(status) == expect


def run_decode(row: Row) -> None:
    wire = data(row, "input")
    status, _ = status_of(lc.InputError, lc.validate_input, wire)
    check_status("input", row, status)
    # _parse + _free gives the same status (V12.3).
    parsed, handle = status_of(lc.InputError, lc.Input, wire)
    assert parsed == status
    if handle is not None:
        handle.close()


def run_row(file: str, row: Row) -> None:
    kind = row.get("kind")
    if file == "summary_xml":
        xml = data(row, "xml")
        status, _ = status_of(lc.SummaryError, lc.validate_summary, xml)
        check_status("summary", row, status)
        # Sections: the same verdict, and spans that lie inside the document.
        sections_status, spans = status_of(lc.SummaryError, lc.summary_sections, xml)
        assert sections_status == status
        if spans is not None:
            assert [s.section for s in spans] == list(lc.Section)[1:6]
            assert all(0 <= s.offset <= s.end <= len(xml or b"") for s in spans)
    elif file == "input" and kind == "decode":
        run_decode(row)
    elif file == "input" and kind == "fit":
        with lc.Input(data(row, "input")) as handle:
            status, fitted = status_of(lc.InputError, handle.encode_within, row["max_bytes"])
        check_status("fit", row, status)
        if status == 0:
            assert fitted == row["fitted"].encode("utf-8")
    elif file == "output":
        with lc.Input(data(row, "input_wire")) as handle:
            status, summary = status_of(
                lc.OutputError, handle.validate_output, data(row, "output"), row["output_tokens"], row["max_output_bytes"]
            )
        check_status("output", row, status)
        if status == 0:
            assert summary == row["summary"]
    elif file == "fingerprint":
        status, digest = status_of(lc.FingerprintError, lc.request_fingerprint, data(row, "input"))
        check_status("fingerprint", row, status)
        if status == 0:
            assert digest.hex() == row["sha256"] == lc.request_fingerprint_hex(data(row, "input"))
    elif kind == "compaction_policy":
        status, _ = status_of(lc.PolicyError, lc.validate_compaction_policy, data(row, "policy"), row["counter_quality"])
        check_status(kind, row, status)
    elif kind == "observation_policy":
        status, _ = status_of(lc.PolicyError, lc.validate_context_observation, data(row, "policy"), row["counter_quality"])
        check_status(kind, row, status)
    elif kind == "context_config":
        status, _ = status_of(lc.ContextError, lc.validate_context_config, data(row, "config"))
        assert lc.status_name(status) == row["expect_status"]
        check_status(kind, row, status)
    elif kind == "resolve_limits":
        limits = row["limits"]
        status, resolved = status_of(
            lc.ContextError,
            lc.resolve_context_limits,
            limits["window_tokens"],
            limits["max_input_tokens"],
            limits["max_output_tokens"],
            row["reserved_output"],
            row["safety_margin"],
        )
        check_status(kind, row, status)
        if status == 0:
            assert resolved._asdict() == row["out"]
    elif kind == "occupancy":
        status, value = status_of(lc.ContextError, lc.occupancy_basis_points, row["used"], row["limit"])
        check_status(kind, row, status)
        if status == 0:
            assert value == row["out"]
    elif kind == "pressure":
        level = lc.pressure_level(
            row["previous_level"], row["occupancy"], row["automatic"], row["compact_at"], row["rearm_below"]
        )
        assert level == row["expect"] and isinstance(level, lc.Pressure)
    elif kind == "replacement":
        status, _ = status_of(lc.ContextError, lc.replacement_check, row["input_tokens"], row["input_limit"])
        check_status(kind, row, status)
    else:
        pytest.fail(f"no mapping for {file} kind {kind!r}")


@pytest.mark.parametrize("file,row", ROWS)
def test_vector(file: str, row: Row) -> None:
    run_row(file, row)


def test_every_vector_row_ran() -> None:
    # Counted independently of the parametrisation: every non-blank line of every file.
    lines = sum(
        1 for path in VECTORS.glob("*.jsonl") for line in path.read_text("utf-8").splitlines() if line.strip()
    )
    assert len(ROWS) == lines > 500
    assert {p.stem for p in VECTORS.glob("*.jsonl")} >= {"summary_xml", "input", "output", "policy", "fingerprint"}


def peer_rows() -> List[Any]:
    if not PEER.is_file():
        return [pytest.param(None, id="peer_jsontestsuite", marks=pytest.mark.skip(reason=f"{PEER} not present"))]
    return [pytest.param(row, id=f"peer:{row['name']}") for row in load_rows(PEER)]


@pytest.mark.parametrize("row", peer_rows())
def test_peer_jsontestsuite(row: Row) -> None:
    # Run like `input` decode rows (tests/vectors/README.md).
    run_decode(row)
