"""pytest tests of the ctypes binding loopcompact.py.

- The ctypes signatures and structs match the prototypes of include/loopcompact.h.
- Every public conformance vector (tests/vectors/*.jsonl, mapped to calls per SPEC V12.3) and,
  when ../shared is present, the JSONTestSuite peer rows run through the binding.
- The Pythonic API: exceptions, the Input handle's lifecycle, argument checks.

Run from the repository root: ``python3 -m pytest -q bindings/python`` (the library is
target/release/libloopcompact.so, or LOOPCOMPACT_LIB).
"""

import base64
import ctypes
import json
import re
import threading
from ctypes import POINTER, c_bool, c_char_p, c_int32, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64
from pathlib import Path

import pytest

import loopcompact as lc

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "loopcompact.h"
VECTORS = ROOT / "tests" / "vectors"
PEER = ROOT.parent / "shared" / "vectors" / "peer_jsontestsuite.jsonl"


# ---- the signatures against the header ---------------------------------------------------------

SCALARS = {
    "void": None,
    "int32_t": c_int32,
    "uint8_t": c_uint8,
    "uint16_t": c_uint16,
    "uint32_t": c_uint32,
    "uint64_t": c_uint64,
    "size_t": c_size_t,
    "bool": c_bool,
}


def header_text():
    # Comments out: doc comments quote code (`lc_status_reason`, `{...}`) that must not match.
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", HEADER.read_text(), flags=re.S)


def header_typedefs(text):
    return dict((alias, base) for base, alias in re.findall(r"typedef\s+(\w+)\s+(\w+)\s*;", text))


def header_structs(text):
    """``typedef struct NAME { TYPE FIELD; ... } NAME;`` -> {NAME: [(FIELD, TYPE), ...]}."""
    structs = {}
    for name, body in re.findall(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*\1\s*;", text, flags=re.S):
        structs[name] = [(field, ctype) for ctype, field in re.findall(r"(\w+)\s+(\w+)\s*;", body)]
    return structs


def header_prototypes(text):
    """Every ``RET lc_NAME(PARAMS);`` -> {name: (ret, [param types])}, types as written."""
    prototypes = {}
    pattern = r"^\s*((?:const\s+)?(?:struct\s+)?\w+[\s*]*?)\s*\b(lc_\w+)\s*\(([^)]*)\)\s*;"
    for ret, name, params in re.findall(pattern, text, flags=re.M):
        types = []
        if params.strip() != "void":
            for param in params.split(","):
                # Drop the parameter name; keep the type, normalised to single spaces.
                ctype = re.match(r"^(.*?)\s*\b\w+\s*$", param.strip()).group(1)
                types.append(" ".join(ctype.replace("*", " * ").split()))
        prototypes[name] = (" ".join(ret.replace("*", " * ").split()), types)
    return prototypes


def ctypes_type(ctype, typedefs):
    """The ctypes type a C type from the header must be declared as."""
    words = ctype.split()
    stars = words.count("*")
    words = [w for w in words if w not in ("*", "const", "struct")]
    assert len(words) == 1, ctype
    (base,) = words
    if base == "char" and stars == 1:
        return c_char_p
    base = typedefs.get(base, base)
    if base in SCALARS:
        t = SCALARS[base]
    else:
        # A struct: the module declares it under its C name.
        t = getattr(lc, base, None)
        assert t is not None and issubclass(t, ctypes.Structure), f"loopcompact.py lacks struct {base}"
    for _ in range(stars):
        t = POINTER(t)
    return t


def test_header_parses():
    prototypes = header_prototypes(header_text())
    # SPEC §2 has 19 functions; the parse must find them all, or the comparison below means little.
    assert len(prototypes) >= 19, sorted(prototypes)
    assert prototypes["lc_compaction_output_validate"][1][0] == "const struct lc_compaction_input *"
    assert prototypes["lc_version"] == ("const char *", [])


def test_signatures_match_header():
    text = header_text()
    typedefs = header_typedefs(text)
    assert typedefs.get("lc_status") == "int32_t"
    prototypes = header_prototypes(text)
    assert sorted(prototypes) == sorted(lc.SIGNATURES), "functions of the header vs loopcompact.SIGNATURES"
    for name, (ret, params) in prototypes.items():
        function = getattr(lc._lib, name)
        assert function.restype is ctypes_type(ret, typedefs), f"{name}: restype vs {ret}"
        expected = [ctypes_type(p, typedefs) for p in params]
        assert list(function.argtypes) == expected, f"{name}: argtypes {function.argtypes} vs {params}"


def test_structs_match_header():
    text = header_text()
    typedefs = header_typedefs(text)
    structs = header_structs(text)
    assert set(structs) == {"lc_context_limits", "lc_resolved_limits"}
    for name, fields in structs.items():
        declared = getattr(lc, name)._fields_
        assert [f for f, _ in declared] == [f for f, _ in fields], name
        assert [t for _, t in declared] == [ctypes_type(t, typedefs) for _, t in fields], name


def test_header_constants():
    text = HEADER.read_text()
    assert re.search(rf"#define LC_ABI_VERSION {lc.ABI_VERSION}\b", text)
    assert re.search(rf"#define LC_FINGERPRINT_LEN {lc.FINGERPRINT_LEN}\b", text)
    assert re.search(r"#define LC_OK 0\b", text) and re.search(r"#define LC_ERR_BUFFER_TOO_SMALL 2\b", text)


# ---- the conformance vectors (SPEC V12.3) ----------------------------------------------------

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


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def vector_rows():
    for path in sorted(VECTORS.glob("*.jsonl")):
        for row in load(path):
            yield pytest.param(path.stem, row, id=f"{path.stem}:{row['name']}")


def data(row, field):
    """A byte field: ``x``, ``x_base64`` when not UTF-8 (V12.2); on ``null_ptr`` rows the empty
    document is passed as None, (NULL, 0)."""
    if row.get("null_ptr") and row.get(field) == "":
        return None
    if field in row:
        return row[field].encode("utf-8")
    return base64.b64decode(row[field + "_base64"])


def status_of(call, *args):
    """The status a call fails with (0 when it succeeds) and its result."""
    try:
        return 0, call(*args)
    except lc.LoopcompactError as e:
        return e.status, None


def check_status(kind, row, status):
    expect = row["expect"]
    if expect == "ok":
        assert status == 0, f"{lc.status_name(status)}, expected ok"
    else:
        assert status in CODES[kind], f"{lc.status_name(status)} is not a code of {kind}"
        assert lc.status_reason(status) == expect


def run_decode(row):
    wire = data(row, "input")
    status, _ = status_of(lc.validate_input, wire)
    check_status("input", row, status)
    # _parse + _free gives the same status (V12.3).
    parsed, handle = status_of(lc.Input, wire)
    assert parsed == status
    if handle is not None:
        handle.close()


def run_row(file, row):
    kind = row.get("kind")
    if file == "summary_xml":
        status, _ = status_of(lc.validate_summary, data(row, "xml"))
        check_status("summary", row, status)
    elif file == "input" and kind == "decode":
        run_decode(row)
    elif file == "input" and kind == "fit":
        with lc.Input(data(row, "input")) as handle:
            status, fitted = status_of(handle.encode_within, row["max_bytes"])
        check_status("fit", row, status)
        if status == 0:
            assert fitted == row["fitted"].encode("utf-8")
    elif file == "output":
        with lc.Input(data(row, "input_wire")) as handle:
            status, summary = status_of(
                handle.validate_output, data(row, "output"), row["output_tokens"], row["max_output_bytes"]
            )
        check_status("output", row, status)
        if status == 0:
            assert summary == row["summary"]
    elif file == "fingerprint":
        status, digest = status_of(lc.request_fingerprint, data(row, "input"))
        check_status("fingerprint", row, status)
        if status == 0:
            assert digest.hex() == row["sha256"]
    elif kind == "compaction_policy":
        status, _ = status_of(lc.validate_compaction_policy, data(row, "policy"), row["counter_quality"])
        check_status(kind, row, status)
    elif kind == "observation_policy":
        status, _ = status_of(lc.validate_context_observation, data(row, "policy"), row["counter_quality"])
        check_status(kind, row, status)
    elif kind == "context_config":
        status, _ = status_of(lc.validate_context_config, data(row, "config"))
        assert lc.status_name(status) == row["expect_status"]
        check_status(kind, row, status)
    elif kind == "resolve_limits":
        limits = row["limits"]
        status, resolved = status_of(
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
        status, value = status_of(lc.occupancy_basis_points, row["used"], row["limit"])
        check_status(kind, row, status)
        if status == 0:
            assert value == row["out"]
    elif kind == "pressure":
        level = lc.pressure_level(
            row["previous_level"], row["occupancy"], row["automatic"], row["compact_at"], row["rearm_below"]
        )
        assert level == row["expect"]
    elif kind == "replacement":
        status, _ = status_of(lc.replacement_check, row["input_tokens"], row["input_limit"])
        check_status(kind, row, status)
    else:
        pytest.fail(f"no mapping for {file} kind {kind!r}")


@pytest.mark.parametrize("file,row", list(vector_rows()))
def test_vector(file, row):
    run_row(file, row)


def test_every_vector_file_ran():
    files = {p.stem for p in VECTORS.glob("*.jsonl")}
    assert {"summary_xml", "input", "output", "policy", "fingerprint"} <= files


def peer_rows():
    if not PEER.is_file():
        return [pytest.param(None, id="peer_jsontestsuite", marks=pytest.mark.skip(reason=f"{PEER} not present"))]
    return [pytest.param(row, id=f"peer:{row['name']}") for row in load(PEER)]


@pytest.mark.parametrize("row", peer_rows())
def test_peer_jsontestsuite(row):
    # Run like `input` decode rows (tests/vectors/README.md).
    run_decode(row)


# ---- the Pythonic API ------------------------------------------------------------------------

VALID_SUMMARY = (
    b"<conversation_summary><goal>ship</goal><constraints/><decisions/>"
    b"<state>green</state><open_items/></conversation_summary>"
)


def first_row(file, **match):
    return next(r for r in load(VECTORS / file) if all(r.get(k) == v for k, v in match.items()))


def test_meta():
    assert lc.version() == "0.1.0"
    assert lc.abi_version() == lc.ABI_VERSION == 0
    assert lc.status_name(0) == "LC_OK" and lc.status_reason(0) == ""
    assert lc.status_name(208) == "LC_SUMMARY_XML_STRUCTURE"
    assert lc.status_reason(303) == "RearmBelow"
    # A3.3: unknown values.
    assert lc.status_name(12345) == "LC_UNKNOWN_STATUS"
    assert lc.status_reason(-1) == ""
    assert lc.status_message(12345)


def test_error_carries_the_status():
    lc.validate_summary(VALID_SUMMARY)
    with pytest.raises(lc.LoopcompactError) as info:
        lc.validate_summary(b"<summary/>")
    e = info.value
    assert (e.status, e.name, e.reason) == (207, "LC_SUMMARY_XML_ROOT", "xml_root")
    assert e.message == lc.status_message(207)
    assert str(e).startswith("LC_SUMMARY_XML_ROOT (207): ")


def test_buffers():
    # None is (NULL, 0), the empty buffer: the empty document.
    for empty in (None, b"", bytearray(), memoryview(b"")):
        with pytest.raises(lc.LoopcompactError) as info:
            lc.validate_summary(empty)
        assert info.value.name == "LC_SUMMARY_XML_ROOT"
    # Any bytes-like object; a NUL byte inside is data, not a terminator (X4.5: not a Char).
    lc.validate_summary(bytearray(VALID_SUMMARY))
    lc.validate_summary(memoryview(VALID_SUMMARY))
    with pytest.raises(lc.LoopcompactError) as info:
        lc.validate_summary(VALID_SUMMARY.replace(b"ship", b"sh\0p"))
    assert info.value.name == "LC_SUMMARY_XML_SYNTAX"
    with pytest.raises(TypeError):
        lc.validate_summary(VALID_SUMMARY.decode())


def test_integer_arguments_are_range_checked():
    # ctypes would wrap these silently; the module refuses them.
    with pytest.raises(ValueError):
        lc.occupancy_basis_points(-1, 10)
    with pytest.raises(ValueError):
        lc.replacement_check(1, 1 << 64)
    with pytest.raises(ValueError):
        lc.pressure_level(1, 70000, True, 8000, 6000)
    with pytest.raises(ValueError):
        lc.validate_compaction_policy(b"{}", 1 << 32 | 3)
    with pytest.raises(TypeError):
        lc.occupancy_basis_points(1.5, 10)
    assert lc.occupancy_basis_points((1 << 64) - 1, (1 << 64) - 1) == 10000


def test_limits():
    resolved = lc.resolve_context_limits(200_000, 0, 32_000, 8_000, 1_000)
    assert resolved == lc.ResolvedLimits(8_000, 192_000, 191_000)
    assert lc.occupancy_basis_points(96_000, 192_000) == 5000
    assert lc.pressure_level(2, 6000, True, 8000, 6000) == 2
    assert lc.pressure_level(1, 6000, True, 8000, 6000) == 1
    with pytest.raises(lc.LoopcompactError) as info:
        lc.resolve_context_limits(0, 0, 0, 1, 1)
    assert info.value.name == "LC_LIMITS_UNKNOWN"
    with pytest.raises(lc.LoopcompactError) as info:
        lc.occupancy_basis_points(1, 0)
    assert info.value.reason == "occupancy_zero_limit"
    with pytest.raises(lc.LoopcompactError) as info:
        lc.replacement_check(100, 100)
    assert info.value.name == "LC_SUMMARY_TOO_LARGE"


def test_input_lifecycle():
    row = first_row("output.jsonl", name="valid")
    wire = row["input_wire"].encode()
    with lc.Input(wire) as handle:
        assert not handle.closed
        encoded = handle.encode_within(1 << 20)
        assert encoded.startswith(b'{"version":1,')
        assert handle.encode_within(len(encoded)) == encoded  # the two-call pattern, exact fit
        summary = handle.validate_output(row["output"].encode(), row["output_tokens"], row["max_output_bytes"])
        assert summary == row["summary"] and isinstance(summary, str)
        with pytest.raises(lc.LoopcompactError) as info:
            handle.encode_within(0)
        assert info.value.name == "LC_INPUT_TOO_LARGE"
        with pytest.raises(lc.LoopcompactError) as info:
            handle.validate_output(row["output"].encode(), 0, row["max_output_bytes"])
        assert info.value.name == "LC_SUMMARY_TOKEN_USAGE"
    assert handle.closed
    handle.close()  # idempotent
    with pytest.raises(ValueError):
        handle.encode_within(100)
    with pytest.raises(ValueError):
        handle.validate_output(b"{}", 1, 10)
    assert lc.Input.parse(wire).encode_within(1 << 20) == encoded  # freed by the garbage collector

    with pytest.raises(lc.LoopcompactError) as info:
        lc.Input(b'{"version":2}')
    assert info.value.name == "LC_INPUT_WIRE"
    with pytest.raises(lc.LoopcompactError) as info:
        lc.Input(None)
    assert info.value.name == "LC_INPUT_WIRE"


def test_input_shared_between_threads():
    row = first_row("output.jsonl", name="valid")
    handle = lc.Input(row["input_wire"].encode())
    expected = handle.encode_within(1 << 20)
    results, errors = [], []

    def work():
        try:
            for _ in range(200):
                results.append(handle.encode_within(1 << 20) == expected)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    handle.close()
    assert not errors and len(results) == 800 and all(results)


def test_fingerprint():
    row = first_row("fingerprint.jsonl", expect="ok")
    digest = lc.request_fingerprint(row["input"].encode())
    assert len(digest) == lc.FINGERPRINT_LEN and digest.hex() == row["sha256"]
    with pytest.raises(lc.LoopcompactError) as info:
        lc.request_fingerprint(b"{}")
    assert info.value.name == "LC_FINGERPRINT_WIRE"


def test_policies():
    policy = (ROOT / "examples" / "data" / "policy_valid.json").read_bytes()
    lc.validate_compaction_policy(policy, 2)
    with pytest.raises(lc.LoopcompactError) as info:
        lc.validate_compaction_policy(policy, 259)  # A3.5: unknown, not 3
    assert info.value.name == "LC_POLICY_COUNTER_POLICY"
    lc.validate_context_observation(b'{"ReservedOutput":1,"SafetyMargin":1,"CountTimeout":1}', 3)
    with pytest.raises(lc.LoopcompactError) as info:
        lc.validate_context_observation(b'{"ReservedOutput":1,"SafetyMargin":0,"CountTimeout":1}', 3)
    assert info.value.name == "LC_OBSERVATION_SAFETY_MARGIN"
    lc.validate_context_config(
        b'{"Compaction":null,"ContextObservation":null,"CounterCapability":null,"InferenceCapability":null}'
    )
    with pytest.raises(lc.LoopcompactError) as info:
        lc.validate_context_config(b"null")
    assert info.value.name == "LC_CONTEXT_WIRE"
