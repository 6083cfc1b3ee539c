"""The Pythonic API: exceptions and their diagnoses, argument types, results, the Input handle,
sections, retry messages, the loop guard, and loading the library."""

from __future__ import annotations

import array
import pickle
import subprocess
import sys
import threading
from typing import List

import pytest

import loopcompact as lc
from helpers import EXAMPLES, first_row

VALID_SUMMARY = (
    b"<conversation_summary><goal>ship</goal><constraints/><decisions/>"
    b"<state>green</state><open_items/></conversation_summary>"
)
# A missing <constraints>: the structure fails at the <state> start tag (byte 39).
BAD_STRUCTURE = "<conversation_summary><goal>ship</goal><state/></conversation_summary>"


def test_meta() -> None:
    assert lc.version() == lc.__version__
    assert lc.abi_version() == lc.ABI_VERSION == 0
    assert lc.status_name(0) == "LC_OK" and lc.status_reason(0) == ""
    assert lc.status_name(208) == "LC_SUMMARY_XML_STRUCTURE"
    assert lc.status_reason(303) == "RearmBelow"
    # A3.3: unknown values.
    assert lc.status_name(12345) == "LC_UNKNOWN_STATUS"
    assert lc.status_reason(-1) == ""
    assert lc.status_message(12345)
    assert lc.status_class(206) is lc.StatusClass.RETRY
    assert lc.status_class(201) is lc.StatusClass.DISCARD
    assert lc.status_class(12345) is lc.StatusClass.HOST
    assert lc.status_class(99) is lc.StatusClass.BUG


def test_exception_hierarchy() -> None:
    for error in (lc.SummaryError, lc.InputError, lc.OutputError, lc.PolicyError, lc.ContextError, lc.FingerprintError):
        assert issubclass(error, lc.LoopcompactError) and issubclass(error, ValueError)
        assert error.__module__ == "loopcompact"


def test_summary_rejection_says_where() -> None:
    lc.validate_summary(VALID_SUMMARY)
    with pytest.raises(lc.SummaryError) as info:
        lc.validate_summary(BAD_STRUCTURE)
    e = info.value
    assert (e.status, e.name, e.reason) == (208, "LC_SUMMARY_XML_STRUCTURE", "xml_structure")
    assert (e.offset, e.line, e.column) == (39, 1, 40) and BAD_STRUCTURE[39:46] == "<state/"
    assert e.section is lc.Section.CONSTRAINTS and e.expected == "<constraints>" and e.rule.startswith("X4.")
    assert e.status_class is lc.StatusClass.RETRY and e.location == ""
    assert (e.limit, e.actual) == (None, None)
    assert e.message == lc.status_message(208)
    assert str(e) == (
        f"LC_SUMMARY_XML_STRUCTURE (208) at byte 39, line 1, column 40, section constraints, rule {e.rule}, "
        f"expected <constraints>: {e.message}"
    )
    retry = e.retry_message()
    assert "line 1, column 40" in retry and "constraints" in retry and "ship" not in retry
    assert retry == lc.retry_message(e.diagnostic) == e.diagnostic.retry_message()


def test_multiline_position() -> None:
    xml = "<conversation_summary>\n<goal>ship</goal>\n<constraints/>\n<decisions/>\n<state>  </state>\n<open_items/>\n</conversation_summary>"
    with pytest.raises(lc.SummaryError) as info:
        lc.validate_summary(xml)
    e = info.value
    assert (e.name, e.line, e.column, e.section) == ("LC_SUMMARY_XML_CONTENT", 5, 1, lc.Section.STATE)
    assert e.expected == "non-blank text" and xml[e.offset or 0 :].startswith("<state>")


def test_diagnostic_is_a_value() -> None:
    with pytest.raises(lc.SummaryError) as info:
        lc.validate_summary(b"<summary/>")
    e = info.value
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is lc.SummaryError and again.diagnostic == e.diagnostic and str(again) == str(e)
    # A diagnosis built by hand reaches lc_retry_message as well; an unknown rule is left out.
    d = lc.Diagnostic(status=205, status_class=lc.StatusClass.RETRY, limit=100, actual=180, rule="not a rule")
    message = d.retry_message()
    assert "100" in message and "180" in message and "not a rule" not in message
    assert "nothing to retry" in lc.Diagnostic.of_status(0).retry_message()


def test_non_retry_status_says_so() -> None:
    row = first_row("output.jsonl", expect="identity")
    with lc.Input(row["input_wire"]) as handle:
        with pytest.raises(lc.OutputError) as info:
            handle.validate_output(row["output"], row["output_tokens"], row["max_output_bytes"])
    e = info.value
    assert e.status_class is lc.StatusClass.DISCARD and e.location
    assert e.retry_message()


def test_documents_of_every_type() -> None:
    # None is (NULL, 0), the empty buffer: the empty document.
    empties: List[lc.Document] = [None, b"", "", bytearray(), memoryview(b"")]
    for empty in empties:
        with pytest.raises(lc.SummaryError) as info:
            lc.validate_summary(empty)
        assert info.value.name == "LC_SUMMARY_XML_ROOT"
    text = VALID_SUMMARY.decode()
    for good in (
        text,
        VALID_SUMMARY,
        bytearray(VALID_SUMMARY),
        memoryview(VALID_SUMMARY),
        memoryview(bytearray(VALID_SUMMARY)),
        memoryview(b"xx" + VALID_SUMMARY)[2:],  # read-only slice: copied
        memoryview(bytearray(b"xx" + VALID_SUMMARY))[2:],  # writable slice: no copy
        memoryview(VALID_SUMMARY + b"\0")[:-1],
    ):
        lc.validate_summary(good)
    # Any C-contiguous buffer, whatever its item format; a strided one is copied.
    lc.validate_summary(memoryview(array.array("B", VALID_SUMMARY)).cast("B"))
    lc.validate_summary(memoryview(bytearray(VALID_SUMMARY)).cast("c"))
    doubled = bytearray(b"".join(bytes([b, b]) for b in VALID_SUMMARY))
    lc.validate_summary(memoryview(doubled)[::2])
    # Non-ASCII text is encoded as UTF-8; a NUL byte inside is data, not a terminator (X4.5).
    lc.validate_summary(text.replace("ship", "schiff \u00fcber \u2603"))
    with pytest.raises(lc.SummaryError) as info:
        lc.validate_summary(VALID_SUMMARY.replace(b"ship", b"sh\0p"))
    assert info.value.name == "LC_SUMMARY_XML_SYNTAX"
    with pytest.raises(TypeError):
        lc.validate_summary(42)  # type: ignore[arg-type]


def test_bytes_calls_agree_with_the_declared_functions() -> None:
    # validate_summary and validate_input call the C functions for `bytes` without ctypes'
    # argtypes (_native.bytes_function): the same statuses as the declared functions, for every
    # prefix of a summary (and a length shorter than the bytes: the length is what is passed).
    from loopcompact import _native

    lib = _native.lib
    fast = _native.bytes_function("lc_summary_xml_validate")
    broken = VALID_SUMMARY.replace(b"ship", b"sh\x01p")
    seen = set()
    for doc in (VALID_SUMMARY, broken):
        for n in range(len(doc) + 1):
            status = fast(doc, n)
            assert status == lib.lc_summary_xml_validate(doc[:n], n), n
            seen.add(status)
    assert len(seen) >= 3  # accepted, and more than one rejection
    wire = first_row("input.jsonl")["input"].encode()
    fast_input = _native.bytes_function("lc_compaction_input_validate")
    for n in (len(wire), len(wire) - 1, 0):
        assert fast_input(wire, n) == lib.lc_compaction_input_validate(wire[:n], n), n
    with pytest.raises(TypeError):
        _native.bytes_function("lc_compaction_input_encode_within")


def test_lone_surrogates_become_u_fffd() -> None:
    # A str with a surrogate code point (U+D800-U+DFFF) cannot be UTF-8; it is sent with U+FFFD in
    # its place, as SPEC J5.4 decodes a lone surrogate escape and the JS package's TextEncoder
    # does. Never a UnicodeEncodeError: that exception carries the whole document (an echo).
    fffd = "\ufffd".encode("utf-8")
    summary = VALID_SUMMARY.decode().replace("ship", "sh\ud800p")
    lc.validate_summary(summary)
    assert lc.summary_section_text(summary, lc.Section.GOAL) == "sh\ufffdp"
    assert lc.summary_sections(summary) == lc.summary_sections(VALID_SUMMARY.replace(b"ship", b"sh" + fffd + b"p"))
    # A low surrogate, two in a row (a Python str holds code points, so a "pair" is two lone
    # ones), and one at each end.
    for text, want in (("\udc00", fffd), ("\ud83d\ude00", fffd * 2), ("\udfff\u00e9\ud800", fffd + "é".encode() + fffd)):
        got = lc.summary_section_text(VALID_SUMMARY.decode().replace("ship", text), lc.Section.GOAL)
        assert got.encode("utf-8") == want
    # A rejected document: the library's error, at the byte offset of the U+FFFD text (three
    # bytes for the one surrogate before <state/>, at 39 without it), with nothing of the document.
    bad = BAD_STRUCTURE.replace("ship", "ship\ud800")
    with pytest.raises(lc.SummaryError) as info:
        lc.validate_summary(bad)
    e = info.value
    assert e.name == "LC_SUMMARY_XML_STRUCTURE" and (e.offset, e.column) == (42, 41)
    assert e.__cause__ is None and e.__context__ is None
    assert "ship" not in str(e) and all("ship" not in str(a) for a in e.args)
    # The input and reply wires, through the handle too.
    row = first_row("output.jsonl", name="valid")
    marked = row["input_wire"].replace('"type":"text","text":"', '"type":"text","text":"\udbff', 1)
    assert marked != row["input_wire"]
    lc.validate_input(marked)
    with lc.Input(marked) as handle:
        assert fffd in handle.encode_within(1 << 20)
        reply = row["output"].replace("<goal>", "<goal>\ud800", 1)
        assert reply != row["output"]
        assert "\ufffd" in handle.validate_output(reply, row["output_tokens"], row["max_output_bytes"] + 3)
    # A diagnosis built by hand goes into lc_retry_message the same way.
    d = lc.Diagnostic(status=208, status_class=lc.StatusClass.RETRY, expected="\ud800", location="\udc00")
    assert d.retry_message().startswith("Your summary was rejected")


def test_integer_arguments_are_range_checked() -> None:
    # ctypes would wrap these silently; the package refuses them.
    with pytest.raises(ValueError):
        lc.occupancy_basis_points(-1, 10)
    with pytest.raises(ValueError):
        lc.replacement_check(1, 1 << 64)
    with pytest.raises(ValueError):
        lc.pressure_level(1, 70000, True, 8000, 6000)
    with pytest.raises(ValueError):
        lc.validate_compaction_policy(b"{}", 1 << 32 | 3)
    with pytest.raises(TypeError):
        lc.occupancy_basis_points(1.5, 10)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        lc.occupancy_basis_points(True, 10)
    assert lc.occupancy_basis_points((1 << 64) - 1, (1 << 64) - 1) == 10000


def test_limits() -> None:
    resolved = lc.resolve_context_limits(200_000, 0, 32_000, 8_000, 1_000)
    assert resolved == lc.ResolvedLimits(8_000, 192_000, 191_000)
    assert lc.occupancy_basis_points(96_000, 192_000) == 5000
    assert lc.pressure_level(2, 6000, True, 8000, 6000) is lc.Pressure.COMPACT
    assert lc.pressure_level(1, 6000, True, 8000, 6000) is lc.Pressure.NORMAL
    assert lc.pressure_level(1, 10000, False, 8000, 6000) is lc.Pressure.HARD_LIMIT
    with pytest.raises(lc.ContextError) as info:
        lc.resolve_context_limits(0, 0, 0, 1, 1)
    assert info.value.name == "LC_LIMITS_UNKNOWN" and info.value.status_class is lc.StatusClass.HOST
    with pytest.raises(lc.ContextError) as info:
        lc.occupancy_basis_points(1, 0)
    assert info.value.reason == "occupancy_zero_limit"
    with pytest.raises(lc.ContextError) as info:
        lc.replacement_check(100, 100)
    assert info.value.name == "LC_SUMMARY_TOO_LARGE" and info.value.status_class is lc.StatusClass.DISCARD


def test_loop_guard() -> None:
    lc.compaction_progress_check(5_000, 100_000, 6_000)
    with pytest.raises(lc.ContextError) as info:
        lc.compaction_progress_check(60_000, 100_000, 6_000)
    assert info.value.status == lc.Status.COMPACTION_NO_PROGRESS
    with pytest.raises(lc.ContextError) as info:
        lc.compaction_progress_check(1, 0, 6_000)
    assert info.value.status == lc.Status.OCCUPANCY_ZERO_LIMIT
    policy = (EXAMPLES / "policy_valid.json").read_bytes()
    lc.compaction_threshold_check(policy, 200_000, 1_000)
    with pytest.raises(lc.PolicyError) as policy_info:
        lc.compaction_threshold_check(policy, 10_000, 9_000)
    assert policy_info.value.status == lc.Status.COMPACTION_THRESHOLD_UNREACHABLE
    with pytest.raises(lc.PolicyError) as policy_info:
        lc.compaction_threshold_check(b"{", 10_000, 0)
    assert policy_info.value.status == lc.Status.POLICY_WIRE


def test_input_lifecycle() -> None:
    row = first_row("output.jsonl", name="valid")
    wire = row["input_wire"]
    with lc.Input(wire) as handle:
        assert not handle.closed and "open" in repr(handle)
        encoded = handle.encode_within(1 << 20)
        assert encoded.startswith(b'{"version":1,') and isinstance(encoded, bytes)
        assert handle.encode_within(len(encoded)) == encoded  # the two-call pattern, exact fit
        summary = handle.validate_output(row["output"], row["output_tokens"], row["max_output_bytes"])
        assert summary == row["summary"] and isinstance(summary, str)
        with pytest.raises(lc.InputError) as info:
            handle.encode_within(0)
        assert info.value.name == "LC_INPUT_TOO_LARGE"
        with pytest.raises(lc.OutputError) as info2:
            handle.validate_output(row["output"], 0, row["max_output_bytes"])
        assert info2.value.name == "LC_SUMMARY_TOKEN_USAGE"
        with pytest.raises(lc.OutputError) as info2:
            handle.validate_output(row["output"], row["output_tokens"], 10)
        e = info2.value
        assert e.name == "LC_SUMMARY_BYTE_LIMIT" and e.limit == 10 and e.actual == len(row["output"].encode())
        assert f"limit 10, actual {e.actual}" in str(e)
    assert handle.closed
    handle.close()  # idempotent
    with pytest.raises(ValueError):
        handle.encode_within(100)
    with pytest.raises(ValueError):
        handle.validate_output(b"{}", 1, 10)
    assert lc.Input.parse(wire).encode_within(1 << 20) == encoded  # freed by the garbage collector

    with pytest.raises(lc.InputError) as info:
        lc.Input(b'{"version":2}')
    assert info.value.name == "LC_INPUT_WIRE"
    with pytest.raises(lc.InputError) as info:
        lc.Input(None)
    assert info.value.name == "LC_INPUT_WIRE"


def test_input_rejection_says_where() -> None:
    row = first_row("output.jsonl", name="valid")
    wire = row["input_wire"].replace('"type":"text"', '"type":7')
    with pytest.raises(lc.InputError) as info:
        lc.validate_input(wire)
    e = info.value
    assert e.location == "transcript[0].blocks[0].type" and e.offset == wire.index('7,"text"')
    assert e.rule and e.expected and e.line == 1 and e.column == (e.offset or 0) + 1
    with pytest.raises(lc.InputError) as info:
        lc.Input(wire)
    assert info.value.diagnostic == e.diagnostic


def test_summary_failure_inside_a_reply() -> None:
    row = first_row("output.jsonl", expect="xml_structure")
    with lc.Input(row["input_wire"]) as handle:
        with pytest.raises(lc.OutputError) as info:
            handle.validate_output(row["output"], row["output_tokens"], row["max_output_bytes"])
    e = info.value
    assert e.location == "summary" and e.offset is not None and e.section is not lc.Section.NONE


def test_transcript_pairing_and_cuts() -> None:
    call = '{"role":"assistant","blocks":[{"type":"tool_use","id":"t1","name":"shell","input":{}}]}'
    result = '{"role":"tool","blocks":[{"type":"text","text":"ok"}],"tool_use_id":"t1","is_error":false}'
    user = '{"role":"user","blocks":[{"type":"text","text":"go"}]}'
    base = first_row("output.jsonl", name="valid")["input_wire"]
    start = base.index('"transcript":[') + len('"transcript":[')
    end = base.index("]", base.index('"max_summary_tokens"') - 3)
    wire = base[:start] + ",".join([user, call, result, user]) + base[end:]
    with lc.Input(wire) as handle:
        handle.pairing_check()
        assert handle.safe_cut(0) == 4
        assert handle.safe_cut(1) == 3
        assert handle.safe_cut(2) == 1  # keeping the result needs its call: cut before the call
        handle.cut_check(1)
        with pytest.raises(lc.InputError) as info:
            handle.cut_check(2)
        assert info.value.status == lc.Status.CUT_UNSAFE
        with pytest.raises(lc.InputError) as info:
            handle.cut_check(5)
        assert info.value.status == lc.Status.ERR_INVALID_ARGUMENT
    orphan = base[:start] + ",".join([user, result]) + base[end:]
    with lc.Input(orphan) as handle:
        with pytest.raises(lc.InputError) as info:
            handle.pairing_check()
        e = info.value
        assert e.status == lc.Status.PAIRING_ORPHAN_RESULT and e.location == "transcript[1].tool_use_id"
        assert e.offset == orphan.index('"t1"', orphan.index(result)) + 1
        with pytest.raises(lc.InputError) as info:
            handle.safe_cut(0)
        assert info.value.diagnostic == e.diagnostic


def test_input_shared_between_threads() -> None:
    row = first_row("output.jsonl", name="valid")
    handle = lc.Input(row["input_wire"])
    expected = handle.encode_within(1 << 20)
    results: List[bool] = []
    errors: List[BaseException] = []

    def work() -> None:
        try:
            for _ in range(200):
                results.append(handle.encode_within(1 << 20) == expected)
                results.append(handle.validate_output(row["output"], row["output_tokens"], 1 << 20) == row["summary"])
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    handle.close()  # waits for the calls in flight; later calls raise ValueError
    for t in threads:
        t.join()
    assert all(results) and all(isinstance(e, ValueError) for e in errors)
    assert len(results) + 2 * len(errors) >= 2  # some calls ran (or were refused) around close()


def test_sections() -> None:
    xml = (EXAMPLES / "summary_valid_entities.xml").read_bytes()
    spans = lc.summary_sections(xml)
    assert [s.section for s in spans] == [
        lc.Section.GOAL,
        lc.Section.CONSTRAINTS,
        lc.Section.DECISIONS,
        lc.Section.STATE,
        lc.Section.OPEN_ITEMS,
    ]
    goal = spans[0]
    assert xml[goal.offset - len(b"<goal>") : goal.offset] == b"<goal>"
    assert xml[goal.end : goal.end + len(b"</goal>")] == b"</goal>"
    assert lc.summary_section_text(xml, lc.Section.GOAL) == (
        "Fix the caf\u00e9 menu: prices < 5 & > 2, labelled \"cheap\" \u2014 don't round."
    )
    assert lc.summary_section_text(VALID_SUMMARY, lc.Section.CONSTRAINTS) == ""
    assert lc.summary_section_text("<conversation_summary><goal>a\r\nb &#13;</goal><constraints/><decisions/>"
                                   "<state>s</state><open_items/></conversation_summary>", lc.Section.GOAL) == "a\nb \r"
    with pytest.raises(ValueError):
        lc.summary_section_text(VALID_SUMMARY, lc.Section.ROOT)
    with pytest.raises(lc.SummaryError) as info:
        lc.summary_sections(BAD_STRUCTURE)
    assert info.value.offset == 39
    with pytest.raises(lc.SummaryError) as info:
        lc.summary_section_text(BAD_STRUCTURE, lc.Section.GOAL)
    assert info.value.offset == 39


def test_instructions() -> None:
    text = lc.summary_instructions()
    assert "<conversation_summary>" in text
    example = text.strip().splitlines()[-1]
    lc.validate_summary(example)


def test_fingerprint() -> None:
    row = first_row("fingerprint.jsonl", expect="ok")
    digest = lc.request_fingerprint(row["input"])
    assert len(digest) == lc.FINGERPRINT_LEN and digest.hex() == row["sha256"]
    assert lc.request_fingerprint_hex(bytearray(row["input"].encode())) == row["sha256"]
    with pytest.raises(lc.FingerprintError) as info:
        lc.request_fingerprint(b"{}")
    assert info.value.name == "LC_FINGERPRINT_WIRE"
    with pytest.raises(lc.FingerprintError) as info:
        lc.request_fingerprint((EXAMPLES / "fingerprint_bad_url.json").read_bytes())
    assert info.value.location.startswith("Model.")


def test_policies() -> None:
    policy = (EXAMPLES / "policy_valid.json").read_bytes()
    lc.validate_compaction_policy(policy, lc.CounterQuality.EXACT_LOCAL)
    with pytest.raises(lc.PolicyError) as info:
        lc.validate_compaction_policy(policy, 259)  # A3.5: unknown, not 3
    assert info.value.name == "LC_POLICY_COUNTER_POLICY"
    with pytest.raises(lc.PolicyError) as info:
        lc.validate_compaction_policy((EXAMPLES / "policy_bad_rearm.json").read_bytes(), 2)
    assert info.value.location == "RearmBelow" and "RearmBelow" in str(info.value)
    lc.validate_context_observation(b'{"ReservedOutput":1,"SafetyMargin":1,"CountTimeout":1}', 3)
    with pytest.raises(lc.PolicyError) as info:
        lc.validate_context_observation(b'{"ReservedOutput":1,"SafetyMargin":0,"CountTimeout":1}', 3)
    assert info.value.name == "LC_OBSERVATION_SAFETY_MARGIN"
    lc.validate_context_config(
        b'{"Compaction":null,"ContextObservation":null,"CounterCapability":null,"InferenceCapability":null}'
    )
    with pytest.raises(lc.ContextError) as context_info:
        lc.validate_context_config(b"null")
    assert context_info.value.name == "LC_CONTEXT_WIRE"


def _python(code: str, **env: str) -> "subprocess.CompletedProcess[str]":
    import os

    full = {k: v for k, v in os.environ.items() if k != "LOOPCOMPACT_LIB"}
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, check=False)


def test_loopcompact_lib_overrides_the_bundled_library(tmp_path: object) -> None:
    missing = _python("import loopcompact", LOOPCOMPACT_LIB="/nonexistent/libloopcompact.so")
    assert missing.returncode != 0 and "ImportError" in missing.stderr and "/nonexistent/" in missing.stderr
    here = lc.library_path()
    chosen = _python("import loopcompact as lc; print(lc.library_path())", LOOPCOMPACT_LIB=here)
    assert chosen.returncode == 0 and chosen.stdout.strip() == here
