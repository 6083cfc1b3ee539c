"""The package against the C header and the crate: signatures, structs, constants, version, and
(under scripts/test-python) that the installed wheel is what is being tested."""

from __future__ import annotations

import ctypes
import enum
import importlib.metadata
import os
import re
import struct
import sys
from ctypes import POINTER, c_bool, c_char, c_char_p, c_int32, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

import loopcompact as lc
from loopcompact import _constants, _native
from helpers import (
    HEADER,
    INSTALLED,
    PROJECT,
    REPO,
    backend,
    header_defines,
    header_prototypes,
    header_structs,
    header_text,
    header_typedefs,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SCALARS: Dict[str, Any] = {
    "void": None,
    "int32_t": c_int32,
    "uint8_t": c_uint8,
    "uint16_t": c_uint16,
    "uint32_t": c_uint32,
    "uint64_t": c_uint64,
    "size_t": c_size_t,
    "bool": c_bool,
}


def ctypes_type(ctype: str, typedefs: Dict[str, str]) -> Any:
    """The ctypes type a C type of the header must be declared as. Byte buffers (``uint8_t *``,
    ``const uint8_t *``) and strings (``const char *``) are ``c_char_p``: see _native.py."""
    array = re.fullmatch(r"(.*)\[(\w+)\]", ctype)
    if array:
        length = getattr(_constants, re.sub(r"^LC_", "", array.group(2)))
        return ctypes_type(array.group(1), typedefs) * length
    words = ctype.split()
    stars = words.count("*")
    words = [w for w in words if w not in ("*", "const", "struct")]
    assert len(words) == 1, ctype
    (base,) = words
    if base in ("char", "uint8_t") and stars == 1:
        return c_char_p
    if base == "char" and stars == 0:
        return c_char
    base = typedefs.get(base, base)
    t: Any
    if base in SCALARS:
        t = SCALARS[base]
    else:
        t = getattr(_native, base, None)
        assert t is not None and issubclass(t, ctypes.Structure), f"_native.py lacks struct {base}"
    for _ in range(stars):
        t = POINTER(t)
    return t


def test_header_parses() -> None:
    prototypes = header_prototypes(header_text())
    # SPEC §2 has 19 functions, §13 adds 12, §14 5, §15 5 and §16 9: the parse must find them all,
    # or the comparisons below mean little.
    assert len(prototypes) >= 50, sorted(prototypes)
    assert prototypes["lc_compaction_output_validate"][1][0] == "const struct lc_compaction_input *"
    assert prototypes["lc_version"] == ("const char *", [])


def test_signatures_match_header() -> None:
    text = header_text()
    typedefs = header_typedefs(text)
    assert typedefs.get("lc_status") == "int32_t"
    prototypes = header_prototypes(text)
    assert sorted(prototypes) == sorted(_native.SIGNATURES), "functions of the header vs _native.SIGNATURES"
    for name, (ret, params) in prototypes.items():
        function = getattr(_native.lib, name)
        assert function.restype is ctypes_type(ret, typedefs), f"{name}: restype vs {ret}"
        expected = [ctypes_type(p, typedefs) for p in params]
        assert list(function.argtypes) == expected, f"{name}: argtypes {function.argtypes} vs {params}"


def test_typed_view_names_every_function() -> None:
    annotated = set(_native.Library.__annotations__) - {"path"}
    assert annotated == set(_native.SIGNATURES)


#: Functions of the header that no public function of the package calls, each with the reason.
#: Empty: every C function is reachable from the Python API.
UNREACHABLE: Dict[str, str] = {}


def test_every_function_is_reachable_from_the_api() -> None:
    """The name table: every ``lc_*`` function of the header is declared in ``_native.SIGNATURES``
    (above) and called by the package's own code outside ``_native.py`` (``_lib.lc_x(...)``, or
    ``_lib.lc_x`` kept in a name that the hot paths call), so that a group of functions the header
    gains cannot go missing from the Python API unnoticed."""
    declared = set(header_prototypes(header_text()))
    package = Path(lc.__file__).resolve().parent
    called = set()
    for source in package.glob("*.py"):
        if source.name != "_native.py":
            called |= set(re.findall(r"\b_?lib\.(lc_\w+)\b", source.read_text("utf-8")))
    assert not called - declared, f"calls of functions the header lacks: {sorted(called - declared)}"
    assert set(UNREACHABLE) <= declared
    missing = declared - called - set(UNREACHABLE)
    assert not missing, f"header functions no public API reaches: {sorted(missing)}"


def test_structs_match_header() -> None:
    text = header_text()
    typedefs = header_typedefs(text)
    structs = header_structs(text)
    assert set(structs) == {"lc_context_limits", "lc_resolved_limits", "lc_diagnostic", "lc_span", "lc_loss", "lc_violation"}
    for name, fields in structs.items():
        declared = getattr(_native, name)._fields_
        assert [f for f, _ in declared] == [f for f, _ in fields], name
        assert [t for _, t in declared] == [ctypes_type(t, typedefs) for _, t in fields], name


def test_constants_are_generated_from_the_header() -> None:
    generated = backend().generate_constants(HEADER.read_text("utf-8"))
    # The module imported (the wheel's, or the source tree's) and the checked-in copy.
    assert Path(_constants.__file__).read_text("utf-8") == generated
    checked_in = PROJECT / "src" / "loopcompact" / "_constants.py"
    assert checked_in.read_text("utf-8") == generated, (
        "bindings/python/src/loopcompact/_constants.py is stale: run "
        "python bindings/python/build_backend/loopcompact_build.py constants"
    )


#: The header's plain constants the package exports by name; the rest are internal to the
#: binding (the version macros are ``lc.__version__`` and ``lc.version()``; the unknown markers and
#: the location size are how ``Diagnostic`` reads the C struct).
EXPORTED_SCALARS = {"ABI_VERSION", "FINGERPRINT_LEN", "SMALLEST_SUMMARY_LEN"}


def test_every_define_is_a_constant() -> None:
    """Each ``#define`` is an enum member (``LC_SUMMARY_XML_ROOT`` is ``lc.Status.SUMMARY_XML_ROOT``)
    or a plain constant of ``_constants``, with the header's value."""
    defines = header_defines()
    defines.pop("LOOPCOMPACT_H", None)
    assert len(defines) > 90
    enums = {"LC_COUNTER_QUALITY_": lc.CounterQuality, "LC_PRESSURE_": lc.Pressure, "LC_CLASS_": lc.StatusClass,
             "LC_SECTION_": lc.Section, "LC_STOP_": lc.Stop, "LC_REPLY_": lc.Cleanup, "LC_FORMAT_": lc.Format,
             "LC_LOSS_": lc.LossCode}
    # The C limit macros a value may be (LC_SOURCE_SYSTEM is UINT64_MAX).
    limits = {"UINT32_MAX": (1 << 32) - 1, "UINT64_MAX": (1 << 64) - 1}
    # A status is what the library's own table names so (lc_status_name), not a prefix.
    statuses = {
        name for name, value in defines.items()
        if re.fullmatch(r"-?\d+", value) and lc.status_name(int(value)) == name
    }
    assert {"LC_OK", "LC_REPLY_TRUNCATED", "LC_REPLACEMENT_ADJACENT_USER"} <= statuses
    seen = set()
    for name, value in defines.items():
        expected: object
        if value.startswith('"'):
            expected = value.strip('"')
        else:
            expected = limits[value] if value in limits else int(re.sub(r"[uUlL]+$", "", value))
        if name in statuses:
            got: object = lc.Status[name[len("LC_"):]]
        else:
            prefix = next((p for p in enums if name.startswith(p)), None)
            if prefix is not None:
                got = enums[prefix][name[len(prefix):]]
            else:
                got = getattr(_constants, re.sub(r"^(LC_|LOOPCOMPACT_)", "", name))
        assert got == expected, name
        seen.add(name)
    assert seen == set(defines)
    # Exactly the statuses of the header, and the enums nothing beyond their group.
    assert {f"LC_{s.name}" for s in lc.Status} == statuses
    for prefix, enum in enums.items():
        assert {f"{prefix}{m.name}" for m in enum} == {n for n in defines if n.startswith(prefix) and n not in statuses}


def test_the_package_exports_enums_not_flat_constants() -> None:
    exported = set(lc.__all__)
    for name in ("Status", "StatusClass", "Section", "Stop", "Pressure", "CounterQuality", "Cleanup", "Format", "LossCode"):
        assert name in exported and hasattr(lc, name)
    assert EXPORTED_SCALARS <= exported
    for flat in ("SUMMARY_XML_ROOT", "CLASS_RETRY", "SECTION_GOAL", "PRESSURE_COMPACT", "OK", "LOCATION_CAP",
                 "SOURCE_SYSTEM", "CONVERT_STRICT", "FORMAT_GEMINI", "LOSS_DROPPED_NAME"):
        assert flat not in exported and not hasattr(lc, flat), flat
    assert all(hasattr(lc, name) for name in lc.__all__)
    assert issubclass(lc.Cleanup, enum.IntFlag) and lc.Cleanup.TRIM | lc.Cleanup.UNFENCE == 3
    for group in (lc.Status, lc.StatusClass, lc.Section, lc.Stop, lc.Pressure, lc.CounterQuality, lc.Format, lc.LossCode):
        assert issubclass(group, enum.IntEnum), group


def test_enums() -> None:
    assert [s.name for s in lc.Section] == ["NONE", "GOAL", "CONSTRAINTS", "DECISIONS", "STATE", "OPEN_ITEMS", "ROOT"]
    assert int(lc.Section.GOAL) == 1 and int(lc.StatusClass.RETRY) == 1 and int(lc.Pressure.COMPACT) == 2
    assert int(lc.CounterQuality.HEURISTIC) == 3 and int(lc.Status.SUMMARY_XML_ROOT) == 207
    assert [s.name for s in lc.Stop] == ["UNKNOWN", "END", "LENGTH"] and int(lc.Stop.LENGTH) == 2
    assert (int(lc.Cleanup.TRIM), int(lc.Cleanup.UNFENCE)) == (1, 2)
    assert int(lc.Status.REPLY_TRUNCATED) == 600 and lc.SMALLEST_SUMMARY_LEN == 114
    # Every status of the enum is a status of the library, with the same name.
    for status in lc.Status:
        assert lc.status_name(status) == f"LC_{status.name}"


def _toml(path: Path) -> Dict[str, Any]:
    with open(path, "rb") as f:
        data: Dict[str, Any] = tomllib.load(f)
    return data


def test_versions_agree() -> None:
    crate = _toml(REPO / "Cargo.toml")["package"]["version"]
    project = _toml(PROJECT / "pyproject.toml")["project"]["version"]
    assert crate == project == lc.__version__ == _constants.VERSION_STRING == lc.version()
    assert lc.abi_version() == lc.ABI_VERSION
    if INSTALLED:
        assert importlib.metadata.version("loopcompact") == crate


def test_zig_pins_are_the_tool_pins() -> None:
    pins = {line.strip() for line in (PROJECT / "requirements-dev.txt").read_text("utf-8").splitlines()}
    assert set(backend().ZIG_REQUIREMENTS) <= pins


def _elf_sections(path: Path) -> Optional[set[str]]:
    """The section names of a 64-bit little-endian ELF file, or None for another format."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff = int.from_bytes(data[0x28:0x30], "little")
    shentsize, shnum, shstrndx = (int.from_bytes(data[o : o + 2], "little") for o in (0x3A, 0x3C, 0x3E))

    def header(i: int) -> bytes:
        return data[shoff + i * shentsize : shoff + (i + 1) * shentsize]

    strtab = header(shstrndx)
    str_off = int.from_bytes(strtab[0x18:0x20], "little")
    names = set()
    for i in range(shnum):
        name_off = int.from_bytes(header(i)[0:4], "little")
        end = data.index(b"\0", str_off + name_off)
        names.add(data[str_off + name_off : end].decode())
    return names


@pytest.mark.skipif(not INSTALLED, reason="runs against the installed wheel (scripts/test-python)")
def test_the_installed_wheel_is_under_test() -> None:
    module = Path(lc.__file__).resolve()
    assert REPO.resolve() not in module.parents, f"{module} is inside the source tree"
    assert "LOOPCOMPACT_LIB" not in os.environ
    library = _native.bundled_library()
    assert lc.library_path() == str(library) and library.parent == module.parent
    assert (module.parent / "py.typed").is_file()
    sections = _elf_sections(library)
    if sections is not None:
        assert ".symtab" not in sections and not any(s.startswith(".debug") for s in sections), sorted(sections)
        assert ".dynsym" in sections


def _macho(*commands: bytes) -> bytes:
    """A 64-bit little-endian Mach-O dylib header (mach_header_64) with these load commands."""
    body = b"".join(commands)
    header = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x0100000C, 0, 6, len(commands), len(body), 0, 0)
    return header + body


def test_macos_minimum_reads_either_load_command() -> None:
    # LC_BUILD_VERSION (0x32): platform 1 (macOS), minos 11.0 as xxxx.yy.zz nibbles, sdk, ntools.
    build_version = struct.pack("<IIIIII", 0x32, 24, 1, 0x000B0000, 0x000E0000, 0)
    # LC_VERSION_MIN_MACOSX (0x24): version 10.12, sdk.
    version_min = struct.pack("<IIII", 0x24, 16, 0x000A0C00, 0x000A0C00)
    assert backend().macos_minimum(_macho(build_version)) == (11, 0)
    assert backend().macos_minimum(_macho(version_min)) == (10, 12)
    with pytest.raises(RuntimeError, match="no minimum macOS"):
        backend().macos_minimum(_macho())
    with pytest.raises(RuntimeError, match="not a 64-bit"):
        backend().macos_minimum(b"\x7fELF" + bytes(60))


def test_cross_target_wheels_take_the_target_tag(tmp_path: Path) -> None:
    b = backend()
    library = tmp_path / "libloopcompact.dylib"
    library.write_bytes(_macho(struct.pack("<IIII", 0x24, 16, 0x000A0C00, 0x000A0C00)))
    prebuilt = b.prebuilt_setting({"target": "x86_64-apple-darwin", "library": str(library)})
    assert b.wheel_platform(prebuilt) == ("macosx_10_12_x86_64", "libloopcompact.dylib")
    dll = tmp_path / "loopcompact.dll"
    dll.write_bytes(b"MZ")
    assert b.wheel_platform(b.prebuilt_setting({"target": "x86_64-pc-windows-gnu", "library": str(dll)})) == (
        "win_amd64",
        "loopcompact.dll",
    )
    assert b.wheel_platform(b.prebuilt_setting({"target": "aarch64-unknown-linux-musl", "library": str(dll)}))[0] == (
        "musllinux_1_2_aarch64"
    )
    assert b.prebuilt_setting({}) is None
    missing_library = {"target": "x86_64-apple-darwin"}
    missing_target = {"library": str(dll)}
    unknown_target = {"target": "riscv64gc-unknown-linux-gnu", "library": str(dll)}
    for bad in (missing_library, missing_target, unknown_target):
        with pytest.raises(RuntimeError):
            b.prebuilt_setting(bad)
    with pytest.raises(RuntimeError, match="no such file"):
        b.prebuilt_setting({"target": "x86_64-pc-windows-gnu", "library": str(tmp_path / "missing.dll")})
