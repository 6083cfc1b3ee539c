"""The PEP 517 build backend of the ``loopcompact`` Python package (in-tree, no dependencies).

Why not maturin or setuptools-rust: the Python module is a ctypes binding, not an extension
module. The wheel carries the plain C ABI library (``libloopcompact.so``) next to the module and
works on every Python 3 (tag ``py3-none-<platform>``); maturin would want pyo3 or cffi bindings
and setuptools-rust tags wheels per interpreter (``cp311-cp311``), and either one is a build
dependency to download. This backend needs only the standard library and cargo, so
``pip install bindings/python`` works offline, and it runs the same ``cargo build --release`` as
every other consumer of the checkout (one build serves all).

What a wheel gets:

- the package sources of ``src/loopcompact`` (``py.typed`` included);
- ``_constants.py`` generated here from ``include/loopcompact.h``, so the constants always match
  the library bundled with them (the checked-in copy, for type checkers and IDEs, is compared with a
  fresh generation by ``tests/test_abi.py``; ``python build_backend/loopcompact_build.py
  constants`` rewrites it);
- the cdylib from ``cargo build --release --locked``, stripped (``strip --strip-unneeded``, or
  ``$STRIP``) and renamed to the plain library file name of the platform;
- the command-line tool of ``cli/`` from the same cargo command, stripped, as
  ``loopcompact/bin/loopcompact``: ``python -m loopcompact`` and the ``loopcompact`` console
  script (``entry_points.txt``) exec it, so the wheel has no second copy of the tool's logic;
- the crate's license files (``LICENSE-*``) under ``.dist-info/licenses/``.

The wheel is tagged for the platform it was built on (``linux_x86_64``); ``auditwheel repair``
(scripts/test-python) checks it against the manylinux policies and retags it. Linked on this
machine (glibc 2.36), Rust's std binds glibc 2.34 symbols, so the best tag is manylinux_2_34; with
``-C glibc=2.17`` (``pip wheel --config-settings glibc=2.17``) the library is linked by
``cargo zigbuild`` against glibc 2.17 instead (into ``target/<triple>/release``, beside the host
build) and the wheel becomes manylinux_2_17 (manylinux2014): installable on any glibc Linux of the
last decade. That build needs ziglang and cargo-zigbuild, which the backend asks for then. The version in
``pyproject.toml`` must equal the crate's (``Cargo.toml``): the build refuses otherwise.

Other platforms (``scripts/release``): ``-C target=<Rust target triple> -C library=<path>`` packages a
library that was cross-built for that target (``TARGETS`` lists them) as it is, without building or
stripping it (the release script links and strips each library once, for every artifact that
carries it). The wheel is tagged for the target: ``linux_<arch>`` for auditwheel to retag
(manylinux), ``musllinux_1_2_<arch>``, ``win_amd64``, or ``macosx_<minos>_<arch>`` with the minimum
macOS version read from the library's own Mach-O load commands, so the tag cannot promise more than
the binary.

Where the crate is: two directories up in a source checkout (``bindings/python``), or the
``rust/`` directory of an sdist, which ``build_sdist`` fills from ``git ls-files``.
"""

from __future__ import annotations

import base64
import email.message
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - pyproject.toml requires tomli there
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent
PACKAGE = "loopcompact"
# The package of the command-line tool (cli/): its binary, also named loopcompact, goes into the
# wheel as loopcompact/bin/loopcompact, which `python -m loopcompact` and the console script exec.
CLI_PACKAGE = "loopcompact-cli"
SOURCE = PROJECT / "src" / PACKAGE
# Paths of the crate that an sdist leaves out: other bindings, fuzzing, CI, the build output.
SDIST_EXCLUDE = ("bindings/", "fuzz/", ".ci/", "target/")

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "generate_constants",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]


# ---- the constants module ------------------------------------------------------------------------

# Header prefix -> (enum name, base class, docstring). A #define that is not a status (its doc
# comment says `N (reason "...")`) and has none of these prefixes becomes a plain integer (or
# string) constant. Statuses are recognised first: `LC_REPLY_TRUNCATED` is a status, not a flag.
ENUMS: Sequence[Tuple[str, str, str, str]] = (
    ("LC_COUNTER_QUALITY_", "CounterQuality", "IntEnum", "Quality of a token counter (SPEC P8.4), ``LC_COUNTER_QUALITY_*``."),
    ("LC_PRESSURE_", "Pressure", "IntEnum", "Context pressure level (SPEC L9.3), ``LC_PRESSURE_*``."),
    ("LC_CLASS_", "StatusClass", "IntEnum", "What a host does next about a status (SPEC C13.3), ``LC_CLASS_*``."),
    ("LC_SECTION_", "Section", "IntEnum", "A summary section (SPEC C13.4), ``LC_SECTION_*``."),
    ("LC_STOP_", "Stop", "IntEnum", "How the summariser's call ended (SPEC R15.1), ``LC_STOP_*``."),
    ("LC_REPLY_", "Cleanup", "IntFlag", "What cleanup of a reply may remove (SPEC R15.5), the ``LC_REPLY_*`` flags."),
    ("LC_FORMAT_", "Format", "IntEnum", "A source format of the converters (SPEC §16), ``LC_FORMAT_*``."),
    ("LC_LOSS_", "LossCode", "IntEnum", "What a conversion could not carry (SPEC §16), ``LC_LOSS_*``: ``loss_name`` gives the stable name."),
)
# C limit macros a #define may use as its value.
C_LIMITS = {"UINT32_MAX": str((1 << 32) - 1), "UINT64_MAX": str((1 << 64) - 1)}
STATUS_DOC = re.compile(r'^\d+ \(reason "')


def header_defines(text: str) -> List[Tuple[str, str, str]]:
    """Every ``#define NAME VALUE`` of the header (the include guard aside) with the first line of
    its doc comment: [(name, value, doc)]."""
    defines = []
    pattern = r"(?:/\*\*?(?P<doc>(?:(?!\*/).)*?)\*/\s*)?^#define[ \t]+(?P<name>\w+)[ \t]+(?P<value>[^\n]+?)[ \t]*$"
    for m in re.finditer(pattern, text, flags=re.M | re.S):
        doc = " ".join(line.strip().lstrip("*").strip() for line in (m.group("doc") or "").splitlines())
        defines.append((m.group("name"), m.group("value"), " ".join(doc.split())))
    return [d for d in defines if d[0] != "LOOPCOMPACT_H"]


def _python_value(value: str) -> str:
    if value.startswith('"'):
        return value
    if value in C_LIMITS:
        return C_LIMITS[value]
    number = re.fullmatch(r"(-?\d+)(?:u|ull|ul|l|ll)?", value, flags=re.I)
    if number is None:
        raise ValueError(f"cannot translate the #define value {value!r} to Python")
    return number.group(1)


def scalar_name(name: str) -> str:
    """The Python name of a plain constant: ``LC_ABI_VERSION`` -> ``ABI_VERSION``."""
    return re.sub(r"^(LC_|LOOPCOMPACT_)", "", name)


def generate_constants(header: str) -> str:
    """The text of ``_constants.py`` for the header text ``header``."""
    statuses: List[Tuple[str, str, str]] = []
    groups: Dict[str, List[Tuple[str, str, str]]] = {enum: [] for _, enum, _, _ in ENUMS}
    scalars: List[Tuple[str, str, str]] = []
    for name, value, doc in header_defines(header):
        py = _python_value(value)
        group = next((enum for prefix, enum, _, _ in ENUMS if name.startswith(prefix)), None)
        if STATUS_DOC.match(doc):
            statuses.append((name, py, doc))
        elif group is not None:
            groups[group].append((name, py, doc))
        else:
            scalars.append((name, py, doc))
    if not statuses or not all(groups.values()):
        raise ValueError("the header has no status codes or misses a group of constants")

    out = [
        '"""Constants of the C ABI, generated from include/loopcompact.h: do not edit.',
        "",
        "Rewrite with ``python bindings/python/build_backend/loopcompact_build.py constants``; wheels",
        "generate it afresh from the header of the library they carry. Each group of ``#define``s is an",
        "enum (``LC_SUMMARY_XML_ROOT`` is ``Status.SUMMARY_XML_ROOT``, ``LC_REPLY_TRIM`` is",
        "``Cleanup.TRIM``); any other ``#define LC_NAME`` is ``NAME`` here.",
        '"""',
        "",
        "from enum import IntEnum, IntFlag",
        "from typing import Final",
        "",
    ]
    for name, py, doc in scalars:
        out += [f"#: {doc}" if doc else f"#: ``{name}``.", f"{scalar_name(name)}: Final = {py}"]
    out.append("")

    def enum_block(enum: str, base: str, doc: str, members: List[Tuple[str, str, str]], prefix: str) -> None:
        out.extend(["", f"class {enum}({base}):", f'    """{doc}"""', ""])
        for name, py, mdoc in members:
            out.append(f"    #: {mdoc}" if mdoc else f"    #: ``{name}``.")
            out.append(f"    {name[len(prefix):]} = {py}")
        out.append("")

    enum_block("Status", "IntEnum", "A status code (``lc_status``): ``LC_OK`` and every code of the status table.", statuses, "LC_")
    for prefix, enum, base, doc in ENUMS:
        enum_block(enum, base, doc, groups[enum], prefix)
    while out[-1] == "":
        out.pop()
    out.append("")
    return "\n".join(out)


# ---- the crate -----------------------------------------------------------------------------------

def crate_root() -> Path:
    """The directory of the crate's Cargo.toml: the checkout's root, or ``rust/`` of an sdist."""
    for candidate in (PROJECT / "rust", PROJECT.parent.parent):
        manifest = candidate / "Cargo.toml"
        if manifest.is_file() and re.search(r'(?m)^name\s*=\s*"loopcompact"', manifest.read_text("utf-8")):
            return candidate
    raise RuntimeError(f"no loopcompact crate found beside {PROJECT} (neither ../.. nor rust/)")


def _pyproject() -> Dict[str, Any]:
    with open(PROJECT / "pyproject.toml", "rb") as f:
        project: Dict[str, Any] = tomllib.load(f)["project"]
    return project


def _crate_version(root: Path) -> str:
    with open(root / "Cargo.toml", "rb") as f:
        version: str = tomllib.load(f)["package"]["version"]
    return version


def _checked_version(root: Path) -> str:
    version: str = _pyproject()["version"]
    crate = _crate_version(root)
    if version != crate:
        raise RuntimeError(f"pyproject.toml has version {version} but the crate (Cargo.toml) has {crate}")
    return version


def _cargo() -> str:
    cargo = os.environ.get("CARGO") or shutil.which("cargo")
    if cargo is None:
        home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo")) / "bin" / "cargo"
        if not home.is_file():
            raise RuntimeError("cargo not found: building loopcompact from source needs a Rust toolchain")
        cargo = str(home)
    return cargo


#: The pins of the ``glibc`` build (pip wheel -C glibc=2.17): cargo-zigbuild links the library with
#: zig against that glibc's symbols, so that auditwheel can tag the wheel manylinux_2_17. Kept equal
#: to requirements-dev.txt by tests/test_abi.py.
ZIG_REQUIREMENTS = ["ziglang==0.17.0", "cargo-zigbuild==0.24.0"]


def glibc_setting(config_settings: Optional[Mapping[str, Any]]) -> Optional[str]:
    """The glibc version to link against (``-C glibc=2.17`` or ``$LOOPCOMPACT_GLIBC``), or None
    for a plain build against the machine's own glibc."""
    value = (config_settings or {}).get("glibc") or os.environ.get("LOOPCOMPACT_GLIBC")
    if value is None:
        return None
    if not re.fullmatch(r"2\.\d+", str(value)) or not sys.platform.startswith("linux"):
        raise RuntimeError(f"glibc={value}: expected a glibc version such as 2.17, on Linux")
    return str(value)


def _host_triple() -> str:
    rustc = os.environ.get("RUSTC") or shutil.which("rustc") or str(Path(_cargo()).with_name("rustc"))
    out = subprocess.run([rustc, "-vV"], stdout=subprocess.PIPE, check=True).stdout.decode("utf-8")
    m = re.search(r"^host: (\S+)$", out, flags=re.M)
    if m is None:
        raise RuntimeError("rustc -vV names no host triple")
    return m.group(1)


def build_native(root: Path, glibc: Optional[str] = None) -> Tuple[Path, Path]:
    """Runs ``cargo build --release --locked`` for the library and the command-line tool (with
    ``glibc``: ``cargo zigbuild`` for the host triple at that glibc version) and returns the paths
    of the cdylib and of the tool's executable."""
    if glibc is None:
        command = [_cargo(), "build"]
    else:
        zigbuild = shutil.which("cargo-zigbuild")
        if zigbuild is None:
            raise RuntimeError(f"glibc={glibc} needs cargo-zigbuild and ziglang ({', '.join(ZIG_REQUIREMENTS)})")
        command = [zigbuild, "build", "--target", f"{_host_triple()}.{glibc}"]
    command += [
        "--release",
        "--locked",
        "-p",
        PACKAGE,
        "--lib",
        "-p",
        CLI_PACKAGE,
        "--bin",
        PACKAGE,
        "--message-format=json-render-diagnostics",
    ]
    print("loopcompact_build:", " ".join(command), file=sys.stderr)
    done = subprocess.run(command, cwd=root, stdout=subprocess.PIPE, check=True)
    library: Optional[Path] = None
    tool: Optional[Path] = None
    for line in done.stdout.decode("utf-8").splitlines():
        message = json.loads(line) if line.startswith("{") else {}
        target = message.get("target", {})
        if message.get("reason") != "compiler-artifact" or target.get("name") != PACKAGE:
            continue
        if "bin" in target.get("kind", []) and message.get("executable"):
            tool = Path(message["executable"])
        elif "cdylib" in target.get("crate_types", []):
            for filename in message.get("filenames", []):
                if filename.endswith((".so", ".dylib", ".dll")):
                    library = Path(filename)
    if library is None or tool is None:
        raise RuntimeError("cargo built no cdylib of loopcompact or no loopcompact executable")
    return library, tool


def library_file_name(platform: str = sys.platform) -> str:
    """The file name the package loads its library from (``_native.py`` knows the same names)."""
    if platform == "win32":
        return "loopcompact.dll"
    if platform == "darwin":
        return "libloopcompact.dylib"
    return "libloopcompact.so"


def tool_file_name(platform: str = sys.platform) -> str:
    """The file name of the command-line tool (``__main__.py`` knows the same names)."""
    return "loopcompact.exe" if platform == "win32" else "loopcompact"


#: The targets of ``-C target=``: Rust target triple -> (``sys.platform`` of its Pythons, the wheel's
#: platform tag; for macOS the architecture only, the version comes from the library).
TARGETS: Mapping[str, Tuple[str, str]] = {
    "x86_64-unknown-linux-gnu": ("linux", "linux_x86_64"),
    "aarch64-unknown-linux-gnu": ("linux", "linux_aarch64"),
    # Tagged here, not by auditwheel: it recognises a musl library by a dependency on
    # libc.musl-<arch>.so.1 or ld-musl-<arch>.so.1 (Alpine's names), but a library linked against
    # upstream musl (zig's, 1.2) needs libc.so, which every musl loader resolves to itself;
    # on a glibc machine auditwheel then reads the host's libc.so. scripts/release checks that the
    # library needs nothing else.
    "x86_64-unknown-linux-musl": ("linux", "musllinux_1_2_x86_64"),
    "aarch64-unknown-linux-musl": ("linux", "musllinux_1_2_aarch64"),
    "x86_64-apple-darwin": ("darwin", "x86_64"),
    "aarch64-apple-darwin": ("darwin", "arm64"),
    "x86_64-pc-windows-gnu": ("win32", "win_amd64"),
}


def macos_minimum(library: bytes) -> Tuple[int, int]:
    """The minimum macOS version (major, minor) of a 64-bit Mach-O file: LC_BUILD_VERSION's minos or
    LC_VERSION_MIN_MACOSX's version."""
    magic, _, _, _, ncmds, _, _, _ = struct.unpack_from("<IiiIIIII", library, 0)
    if magic != 0xFEEDFACF:
        raise RuntimeError("the library is not a 64-bit little-endian Mach-O file")
    offset = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", library, offset)
        if cmd == 0x32:  # LC_BUILD_VERSION: platform, minos, sdk
            version = struct.unpack_from("<I", library, offset + 12)[0]
            return (version >> 16, (version >> 8) & 0xFF)
        if cmd == 0x24:  # LC_VERSION_MIN_MACOSX: version, sdk
            version = struct.unpack_from("<I", library, offset + 8)[0]
            return (version >> 16, (version >> 8) & 0xFF)
        offset += size
    raise RuntimeError("the Mach-O library names no minimum macOS version")


def prebuilt_setting(config_settings: Optional[Mapping[str, Any]]) -> Optional[Tuple[str, Path, Optional[Path]]]:
    """``(target, library, tool)`` of ``-C target=... -C library=... [-C tool=...]`` (the library and
    the command-line tool built for another platform), or None for a build here. Without ``tool=``
    the wheel carries no tool (``python -m loopcompact`` then says so)."""
    settings = config_settings or {}
    target, library, tool = settings.get("target"), settings.get("library"), settings.get("tool")
    if target is None and library is None and tool is None:
        return None
    if target not in TARGETS or library is None:
        raise RuntimeError(
            f"target={target} library={library}: give both, the target one of {', '.join(TARGETS)}"
        )
    if glibc_setting(config_settings) is not None:
        raise RuntimeError("glibc= builds the library here; with library= it is already built")
    path = Path(str(library)).resolve()
    if not path.is_file():
        raise RuntimeError(f"library={library}: no such file")
    tool_path = None if tool is None else Path(str(tool)).resolve()
    if tool_path is not None and not tool_path.is_file():
        raise RuntimeError(f"tool={tool}: no such file")
    return str(target), path, tool_path


def wheel_platform(prebuilt: Optional[Tuple[str, Path, Optional[Path]]]) -> Tuple[str, str]:
    """``(platform tag, library file name)`` of the wheel: this machine's, or the target's."""
    if prebuilt is None:
        return platform_tag(), library_file_name()
    target, library, _ = prebuilt
    platform, tag = TARGETS[target]
    if platform == "darwin":
        major, minor = macos_minimum(library.read_bytes())
        tag = f"macosx_{major}_{minor}_{tag}"
    return tag, library_file_name(platform)


def stripped_copy(binary: Path, out: Path) -> Path:
    """A copy of the library or executable at ``out`` without symbols or debug information beyond
    what linking needs."""
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(binary, out)
    if sys.platform == "win32":
        return out  # debug information lives in the .pdb, which is not shipped
    strip = os.environ.get("STRIP") or shutil.which("strip")
    if strip is None:
        raise RuntimeError("strip not found (binutils): set STRIP to a strip program")
    flags = ["-x"] if sys.platform == "darwin" else ["--strip-unneeded"]
    subprocess.run([strip, *flags, str(out)], check=True)
    return out


# ---- wheel and sdist files -----------------------------------------------------------------------

def license_files(root: Path) -> List[Path]:
    """The crate's license texts (LICENSE-MIT, LICENSE-APACHE): the wheel's ``licenses/``."""
    return sorted(p for p in root.glob("LICENSE*") if p.is_file())


def platform_tag() -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())


def _distinfo(version: str) -> str:
    return f"{PACKAGE}-{version}.dist-info"


def metadata_text() -> str:
    """Core metadata 2.4 from the [project] table (only the keys this project uses)."""
    project = _pyproject()
    meta = email.message.Message()
    meta["Metadata-Version"] = "2.4"
    meta["Name"] = project["name"]
    meta["Version"] = project["version"]
    meta["Summary"] = project["description"]
    meta["License-Expression"] = project["license"]
    meta["Requires-Python"] = project["requires-python"]
    for license_file in license_files(crate_root()):
        meta["License-File"] = license_file.name
    for classifier in project.get("classifiers", []):
        meta["Classifier"] = classifier
    for label, url in project.get("urls", {}).items():
        meta["Project-URL"] = f"{label}, {url}"
    readme = project.get("readme")
    body = ""
    if readme:
        meta["Description-Content-Type"] = "text/markdown"
        body = (PROJECT / readme).read_text("utf-8")
    text = meta.as_string(maxheaderlen=0)
    return text + body if body else text


def entry_points_text() -> str:
    """``entry_points.txt`` from ``[project.scripts]``: the ``loopcompact`` console script, which
    runs the tool as ``python -m loopcompact`` does."""
    scripts = _pyproject().get("scripts", {})
    return "[console_scripts]\n" + "".join(f"{name} = {target}\n" for name, target in sorted(scripts.items()))


def wheel_text(tag: str) -> str:
    return f"Wheel-Version: 1.0\nGenerator: loopcompact_build\nRoot-Is-Purelib: false\nTag: {tag}\n"


def _epoch() -> Tuple[int, int, int, int, int, int]:
    # Reproducible archives: SOURCE_DATE_EPOCH when set, else the earliest date a zip can hold.
    seconds = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    t = time.gmtime(max(seconds, 315532800))
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec)


def write_wheel(path: Path, files: Mapping[str, Tuple[bytes, int]], distinfo: str) -> None:
    """A wheel at ``path`` holding ``files`` ({archive name: (bytes, mode)}) plus its RECORD."""
    record = []
    when = _epoch()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name in sorted(files):
            data, mode = files[name]
            info = zipfile.ZipInfo(name, date_time=when)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        record.append(f"{distinfo}/RECORD,,")
        info = zipfile.ZipInfo(f"{distinfo}/RECORD", date_time=when)
        info.external_attr = (0o100644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        wheel.writestr(info, "\n".join(record) + "\n")


def package_sources(header: str) -> Dict[str, Tuple[bytes, int]]:
    """The package's files under ``loopcompact/`` with ``_constants.py`` generated from ``header``."""
    files: Dict[str, Tuple[bytes, int]] = {}
    for path in sorted(SOURCE.iterdir()):
        if path.is_file() and (path.suffix == ".py" or path.name == "py.typed") and path.name != "_constants.py":
            files[f"{PACKAGE}/{path.name}"] = (path.read_bytes(), 0o644)
    files[f"{PACKAGE}/_constants.py"] = (generate_constants(header).encode("utf-8"), 0o644)
    return files


def _write_metadata_directory(directory: str, version: str, tag: str) -> str:
    distinfo = Path(directory) / _distinfo(version)
    distinfo.mkdir(parents=True, exist_ok=True)
    (distinfo / "METADATA").write_text(metadata_text(), "utf-8")
    (distinfo / "WHEEL").write_text(wheel_text(tag), "utf-8")
    (distinfo / "entry_points.txt").write_text(entry_points_text(), "utf-8")
    return distinfo.name


# ---- PEP 517 and PEP 660 hooks -------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings: Optional[Mapping[str, Any]] = None) -> List[str]:
    return list(ZIG_REQUIREMENTS) if glibc_setting(config_settings) else []


def get_requires_for_build_sdist(config_settings: Optional[Mapping[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Mapping[str, Any]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None
) -> str:
    tag, _ = wheel_platform(prebuilt_setting(config_settings))
    return _write_metadata_directory(metadata_directory, _checked_version(crate_root()), f"py3-none-{tag}")


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None
) -> str:
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    root = crate_root()
    version = _checked_version(root)
    prebuilt = prebuilt_setting(config_settings)
    platform, library_name = wheel_platform(prebuilt)
    tag = f"py3-none-{platform}"
    distinfo = _distinfo(version)
    files = package_sources((root / "include" / "loopcompact.h").read_text("utf-8"))
    if prebuilt is not None:
        target, library, tool = prebuilt
        files[f"{PACKAGE}/{library_name}"] = (library.read_bytes(), 0o755)
        if tool is not None:
            files[f"{PACKAGE}/bin/{tool_file_name(TARGETS[target][0])}"] = (tool.read_bytes(), 0o755)
    else:
        library, tool = build_native(root, glibc_setting(config_settings))
        with tempfile.TemporaryDirectory() as tmp:
            for binary, name in ((library, library_file_name()), (tool, f"bin/{tool_file_name()}")):
                stripped = stripped_copy(binary, Path(tmp) / name)
                files[f"{PACKAGE}/{name}"] = (stripped.read_bytes(), 0o755)
    files[f"{distinfo}/METADATA"] = (metadata_text().encode("utf-8"), 0o644)
    files[f"{distinfo}/WHEEL"] = (wheel_text(tag).encode("utf-8"), 0o644)
    files[f"{distinfo}/entry_points.txt"] = (entry_points_text().encode("utf-8"), 0o644)
    for license_file in license_files(root):
        files[f"{distinfo}/licenses/{license_file.name}"] = (license_file.read_bytes(), 0o644)
    name = f"{PACKAGE}-{version}-{tag}.whl"
    write_wheel(Path(wheel_directory) / name, files, distinfo)
    return name


def build_editable(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """An editable install: a ``.pth`` file puts ``src/`` on sys.path, and the stripped library and
    tool are copied into ``src/loopcompact/`` (ignored by git). Rebuild after changing the Rust
    code."""
    root = crate_root()
    version = _checked_version(root)
    tag = f"py3-none-{platform_tag()}"
    distinfo = _distinfo(version)
    library, tool = build_native(root)
    stripped_copy(library, SOURCE / library_file_name())
    stripped_copy(tool, SOURCE / "bin" / tool_file_name())
    files = {
        f"_{PACKAGE}_editable.pth": ((str(SOURCE.parent) + "\n").encode("utf-8"), 0o644),
        f"{distinfo}/METADATA": (metadata_text().encode("utf-8"), 0o644),
        f"{distinfo}/WHEEL": (wheel_text(tag).encode("utf-8"), 0o644),
        f"{distinfo}/entry_points.txt": (entry_points_text().encode("utf-8"), 0o644),
    }
    name = f"{PACKAGE}-{version}-{tag}.whl"
    write_wheel(Path(wheel_directory) / name, files, distinfo)
    return name


def _crate_files(root: Path) -> Iterable[str]:
    if (PROJECT / "rust").is_dir():
        # Building an sdist from an sdist: it already holds exactly the crate's files.
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, stdout=subprocess.PIPE, check=True).stdout
    names = [n for n in listed.decode("utf-8").split("\0") if n]
    return [n for n in names if not n.startswith(SDIST_EXCLUDE) and (root / n).is_file()]


def build_sdist(sdist_directory: str, config_settings: Optional[Mapping[str, Any]] = None) -> str:
    """An sdist: this directory's package, tests and backend, and the crate under ``rust/``."""
    root = crate_root()
    version = _checked_version(root)
    base = f"{PACKAGE}-{version}"
    name = f"{base}.tar.gz"
    entries: List[Tuple[str, Path]] = []
    for sub in ("pyproject.toml", "README.md", "build_backend", "src", "tests", "tools"):
        path = PROJECT / sub
        if path.is_file():
            entries.append((sub, path))
        elif path.is_dir():
            for p in sorted(path.rglob("*")):
                built = p.suffix in (".so", ".dylib", ".dll") or p.parent == SOURCE / "bin"  # an editable install's
                if p.is_file() and "__pycache__" not in p.parts and not built:
                    entries.append((str(p.relative_to(PROJECT)), p))
    for rel in _crate_files(root):
        entries.append((f"rust/{rel}", root / rel))
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=mtime) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:

            def add(arcname: str, data: bytes, mode: int = 0o644) -> None:
                info = tarfile.TarInfo(f"{base}/{arcname}")
                info.size, info.mtime, info.mode = len(data), mtime, mode
                tar.addfile(info, io.BytesIO(data))

            add("PKG-INFO", metadata_text().encode("utf-8"))
            for arcname, path in entries:
                add(arcname, path.read_bytes(), 0o755 if os.access(path, os.X_OK) else 0o644)
    (Path(sdist_directory) / name).write_bytes(raw.getvalue())
    return name


def main(argv: Sequence[str]) -> int:
    """``loopcompact_build.py constants [--check]``: rewrite (or check) the checked-in constants."""
    if list(argv[:1]) != ["constants"]:
        print("usage: loopcompact_build.py constants [--check]", file=sys.stderr)
        return 2
    text = generate_constants((crate_root() / "include" / "loopcompact.h").read_text("utf-8"))
    target = SOURCE / "_constants.py"
    if "--check" in argv:
        if target.read_text("utf-8") != text:
            print(f"{target} is stale: run loopcompact_build.py constants", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
