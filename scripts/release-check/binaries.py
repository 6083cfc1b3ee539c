"""Reads and checks the release's binaries without running them (scripts/release, its --check).

    binaries.py library TARGET FILE HEADER    checks a linked library (ELF, Mach-O or PE) for TARGET
    binaries.py static TARGET FILE            checks that every object of a static library is TARGET's
    binaries.py wheel TARGET WHEEL HEADER     the library inside a wheel, and the wheel's tag
    binaries.py def DLL                       a .def file of the DLL's exports (for llvm-dlltool)
    binaries.py go-ldflags FILE PLATFORM LIBS checks link_prebuilt.go's link line for PLATFORM
    binaries.py gozip TREE MODULE VERSION OUT a Go module zip of TREE, in the module proxy's format
    binaries.py sbom FILE                     the crates and licences a CycloneDX SBOM lists

What `library` checks, for every format: the exported functions are exactly the functions the
header declares (no Rust symbol leaks, none is missing), and the file is of TARGET's architecture.
Then per format, what a loader on the user's machine will ask:
  ELF      the SONAME (libloopcompact.so.<ABI>); NEEDED only libc and its companions (glibc: no
           symbol version above GLIBC_2.17, the manylinux2014 floor; musl: libc.so only);
  Mach-O   the install name @rpath/libloopcompact.<ABI>.dylib, a minimum macOS version, loads only
           /usr/lib (libSystem), and on arm64 an ad hoc code signature whose page hashes match the
           file (macOS kills a process that maps an arm64 library with a broken signature: this is
           delocate's and codesign's concern, checked here by recomputing the hashes);
  PE       imports only DLLs of Windows itself.
ELF is read with pyelftools (auditwheel's own reader); Mach-O and PE with the struct layouts of
their specifications (the fields read are named where they are read).
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
import sys
import zipfile
from pathlib import Path
from typing import Dict, List, Set, Tuple

ARCH = {
    "x86_64-unknown-linux-gnu": "x86_64",
    "aarch64-unknown-linux-gnu": "aarch64",
    "x86_64-unknown-linux-musl": "x86_64",
    "aarch64-unknown-linux-musl": "aarch64",
    "x86_64-apple-darwin": "x86_64",
    "aarch64-apple-darwin": "aarch64",
    "x86_64-pc-windows-gnu": "x86_64",
}

ELF_MACHINE = {"x86_64": "EM_X86_64", "aarch64": "EM_AARCH64"}
MACHO_CPU = {"x86_64": 0x01000007, "aarch64": 0x0100000C}
PE_MACHINE = {"x86_64": 0x8664}

# What a library may need at run time: the C library and its companions, nothing else.
GLIBC_NEEDED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
                "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libgcc_s.so.1"}
MUSL_NEEDED = {"libc.so"}
WINDOWS_DLLS = re.compile(r"(?i)^(kernel32|ntdll|msvcrt|userenv|ws2_32|advapi32|bcrypt|bcryptprimitives"
                          r"|api-ms-win-[a-z0-9-]+)\.dll$")


class Failure(Exception):
    pass


def header_functions(header: Path) -> Set[str]:
    """Every function the header declares: `<type> lc_name(` at the start of a line."""
    text = header.read_text("utf-8")
    names = set(re.findall(r"^(?:const )?[a-z_0-9]+(?: \*| )+(?:\*)?(lc_[a-z0-9_]+)\(", text, flags=re.M))
    if len(names) < 20:
        raise Failure(f"{header}: only {len(names)} functions found")
    return names


# ---- ELF ----------------------------------------------------------------------------------------

def elf_facts(data: bytes) -> Dict[str, object]:
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile
    from elftools.elf.gnuversions import GNUVerNeedSection

    elf = ELFFile(io.BytesIO(data))
    needed: List[str] = []
    soname = None
    for section in elf.iter_sections():
        if isinstance(section, DynamicSection):
            for tag in section.iter_tags():
                if tag.entry.d_tag == "DT_NEEDED":
                    needed.append(tag.needed)
                elif tag.entry.d_tag == "DT_SONAME":
                    soname = tag.soname
    exports = set()
    dynsym = elf.get_section_by_name(".dynsym")
    if dynsym is not None:
        for sym in dynsym.iter_symbols():
            if sym["st_shndx"] != "SHN_UNDEF" and sym["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK") \
                    and sym["st_info"]["type"] in ("STT_FUNC", "STT_OBJECT") and sym.name:
                exports.add(sym.name)
    versions: Set[str] = set()
    for section in elf.iter_sections():
        if isinstance(section, GNUVerNeedSection):
            for _, auxiliaries in section.iter_versions():
                versions.update(aux.name for aux in auxiliaries)
    return {"machine": elf["e_machine"], "needed": needed, "soname": soname, "exports": exports,
            "versions": versions}


def glibc_max(versions: Set[str]) -> Tuple[int, ...]:
    found = [tuple(int(x) for x in v[len("GLIBC_"):].split(".")) for v in versions
             if re.fullmatch(r"GLIBC_\d+(\.\d+)*", v)]
    return max(found) if found else (0,)


# ---- Mach-O -------------------------------------------------------------------------------------

LC_ID_DYLIB, LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB = 0xD, 0xC, 0x80000018, 0x8000001F
LC_CODE_SIGNATURE, LC_BUILD_VERSION, LC_VERSION_MIN_MACOSX = 0x1D, 0x32, 0x24
LC_DYLD_INFO_ONLY, LC_DYLD_EXPORTS_TRIE = 0x80000022, 0x80000033


def macho_facts(data: bytes) -> Dict[str, object]:
    magic, cputype, _, filetype, ncmds, _, _, _ = struct.unpack_from("<IiiIIIII", data, 0)
    if magic != 0xFEEDFACF:
        raise Failure("not a 64-bit little-endian Mach-O file")
    facts: Dict[str, object] = {"cputype": cputype, "filetype": filetype, "loads": [], "id": None,
                                "minos": None, "signature": None, "exports": set()}
    offset = 32
    trie = None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, offset)
        if cmd in (LC_ID_DYLIB, LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB):
            # dylib_command: name offset (from the command's start), timestamp, versions
            name_offset = struct.unpack_from("<I", data, offset + 8)[0]
            raw = data[offset + name_offset:offset + size]
            name = raw[:raw.index(b"\0")].decode()
            if cmd == LC_ID_DYLIB:
                current, compat = struct.unpack_from("<II", data, offset + 16)
                facts["id"] = name
                facts["versions"] = (current, compat)
            else:
                facts["loads"].append(name)  # type: ignore[union-attr]
        elif cmd == LC_BUILD_VERSION:  # platform, minos (xxxx.yy.zz nibbles), sdk
            minos = struct.unpack_from("<I", data, offset + 12)[0]
            facts["minos"] = (minos >> 16, (minos >> 8) & 0xFF)
        elif cmd == LC_VERSION_MIN_MACOSX:
            minos = struct.unpack_from("<I", data, offset + 8)[0]
            facts["minos"] = (minos >> 16, (minos >> 8) & 0xFF)
        elif cmd == LC_CODE_SIGNATURE:
            facts["signature"] = struct.unpack_from("<II", data, offset + 8)
        elif cmd == LC_DYLD_EXPORTS_TRIE:
            trie = struct.unpack_from("<II", data, offset + 8)
        elif cmd == LC_DYLD_INFO_ONLY:  # rebase, bind, weak bind, lazy bind, export (off, size)
            export_off, export_size = struct.unpack_from("<II", data, offset + 40)
            if export_size:
                trie = (export_off, export_size)
        offset += size
    if trie is not None:
        facts["exports"] = macho_trie_symbols(data[trie[0]:trie[0] + trie[1]])
    return facts


def _uleb(buf: bytes, pos: int) -> Tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def macho_trie_symbols(trie: bytes) -> Set[str]:
    """The names of the export trie (each node: terminal size, its info, then edges of a
    NUL-terminated label and the child's offset)."""
    names: Set[str] = set()
    stack = [(0, b"")]
    seen = set()
    while stack:
        node, prefix = stack.pop()
        if node in seen:
            raise Failure("export trie has a cycle")
        seen.add(node)
        terminal, pos = _uleb(trie, node)
        if terminal:
            names.add(prefix.decode())
        pos += terminal
        count = trie[pos]
        pos += 1
        for _ in range(count):
            end = trie.index(b"\0", pos)
            label = trie[pos:end]
            child, pos = _uleb(trie, end + 1)
            stack.append((child, prefix + label))
    return names


def macho_signature_ok(data: bytes, signature: Tuple[int, int]) -> Tuple[bool, str]:
    """Recomputes the page hashes of the code directory (SuperBlob 0xfade0cc0, CodeDirectory
    0xfade0c02; both big-endian) and compares them with the stored ones."""
    dataoff, datasize = signature
    blob = data[dataoff:dataoff + datasize]
    magic, _, count = struct.unpack_from(">III", blob, 0)
    if magic != 0xFADE0CC0:
        return False, "no embedded signature SuperBlob"
    for i in range(count):
        slot, blob_offset = struct.unpack_from(">II", blob, 12 + 8 * i)
        if slot != 0:
            continue
        cd = blob[blob_offset:]
        (cd_magic, _, _, flags, hash_offset, ident_offset, _, ncode, code_limit,
         hash_size, hash_type, _, page_shift) = struct.unpack_from(">IIIIIIIIIBBBB", cd, 0)
        if cd_magic != 0xFADE0C02:
            return False, "slot 0 is not a CodeDirectory"
        page = 1 << page_shift
        algorithm = {1: "sha1", 2: "sha256"}.get(hash_type)
        if algorithm is None:
            return False, f"hash type {hash_type}"
        bad = [n for n in range(ncode)
               if hashlib.new(algorithm, data[n * page:min((n + 1) * page, code_limit)]).digest()[:hash_size]
               != cd[hash_offset + n * hash_size:hash_offset + (n + 1) * hash_size]]
        if code_limit != dataoff:
            return False, f"the signature covers {code_limit} bytes, the code ends at {dataoff}"
        ident = cd[ident_offset:cd.index(b"\0", ident_offset)].decode()
        kind = "ad hoc" if flags & 0x2 else f"flags {flags:#x}"
        if bad:
            return False, f"{len(bad)} of {ncode} page hashes differ"
        return True, f"{kind}, {algorithm}, {ncode} pages of {page} bytes hash correctly, identifier {ident}"
    return False, "no CodeDirectory"


# ---- PE -----------------------------------------------------------------------------------------

def pe_facts(data: bytes) -> Dict[str, object]:
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe:pe + 4] != b"PE\0\0":
        raise Failure("not a PE file")
    machine, nsections, _, _, _, optsize, characteristics = struct.unpack_from("<HHIIIHH", data, pe + 4)
    opt = pe + 24
    if struct.unpack_from("<H", data, opt)[0] != 0x20B:
        raise Failure("not PE32+")
    ndirs = struct.unpack_from("<I", data, opt + 108)[0]
    dirs = [struct.unpack_from("<II", data, opt + 112 + 8 * i) for i in range(ndirs)]
    sections = []
    for i in range(nsections):
        s = pe + 24 + optsize + 40 * i
        vsize, vaddr, rawsize, rawptr = struct.unpack_from("<IIII", data, s + 8)
        sections.append((vaddr, max(vsize, rawsize), rawptr))

    def at(rva: int) -> int:
        for vaddr, size, rawptr in sections:
            if vaddr <= rva < vaddr + size:
                return rva - vaddr + rawptr
        raise Failure(f"RVA {rva:#x} is in no section")

    def cstr(rva: int) -> str:
        o = at(rva)
        return data[o:data.index(b"\0", o)].decode()

    exports: Set[str] = set()
    dll_name = None
    if ndirs > 0 and dirs[0][0]:
        e = at(dirs[0][0])  # IMAGE_EXPORT_DIRECTORY: Name at +12, NumberOfNames +24, AddressOfNames +32
        dll_name = cstr(struct.unpack_from("<I", data, e + 12)[0])
        count, names_rva = struct.unpack_from("<I", data, e + 24)[0], struct.unpack_from("<I", data, e + 32)[0]
        for i in range(count):
            exports.add(cstr(struct.unpack_from("<I", data, at(names_rva) + 4 * i)[0]))
    imports: List[str] = []
    if ndirs > 1 and dirs[1][0]:
        d = at(dirs[1][0])  # IMAGE_IMPORT_DESCRIPTOR (20 bytes), Name RVA at +12, zero-terminated
        while True:
            name_rva = struct.unpack_from("<I", data, d + 12)[0]
            if name_rva == 0:
                break
            imports.append(cstr(name_rva))
            d += 20
    return {"machine": machine, "dll": bool(characteristics & 0x2000), "exports": exports,
            "imports": imports, "name": dll_name}


# ---- checks -------------------------------------------------------------------------------------

def check_library(target: str, data: bytes, header: Path, name: str) -> List[str]:
    """Checks a linked library; returns the lines that describe what was found."""
    wanted = header_functions(header)
    arch = ARCH[target]
    lines = []

    def exports_equal(found: Set[str], prefix: str = "") -> None:
        found = {s[len(prefix):] for s in found if s.startswith(prefix)} | {s for s in found if not s.startswith(prefix)}
        extra, missing = sorted(found - wanted), sorted(wanted - found)
        if extra or missing:
            raise Failure(f"{name}: exports differ from the header: {len(extra)} extra {extra[:5]}, missing {missing[:5]}")
        lines.append(f"exports: the header's {len(wanted)} functions, nothing else")

    if data[:4] == b"\x7fELF":
        facts = elf_facts(data)
        if facts["machine"] != ELF_MACHINE[arch]:
            raise Failure(f"{name}: ELF machine {facts['machine']}, expected {ELF_MACHINE[arch]}")
        lines.append(f"ELF {facts['machine']}, SONAME {facts['soname']}")
        exports_equal(facts["exports"])  # type: ignore[arg-type]
        needed = list(facts["needed"])  # type: ignore[call-overload]
        if target.endswith("-musl"):
            allowed = MUSL_NEEDED
        else:
            allowed = GLIBC_NEEDED
            top = glibc_max(facts["versions"])  # type: ignore[arg-type]
            if top > (2, 17):
                raise Failure(f"{name}: needs GLIBC_{'.'.join(map(str, top))}, above 2.17")
            lines.append(f"highest glibc symbol version: GLIBC_{'.'.join(map(str, top))}")
        if not set(needed) <= allowed:
            raise Failure(f"{name}: NEEDED {sorted(set(needed) - allowed)} beyond the C library")
        lines.append(f"NEEDED: {', '.join(needed)}")
    elif data[:4] == b"\xcf\xfa\xed\xfe":
        facts = macho_facts(data)
        if facts["cputype"] != MACHO_CPU[arch]:
            raise Failure(f"{name}: Mach-O cputype {facts['cputype']:#x}, expected {MACHO_CPU[arch]:#x}")
        if facts["filetype"] != 6:
            raise Failure(f"{name}: Mach-O filetype {facts['filetype']}, not MH_DYLIB")
        cpu = "arm64" if arch == "aarch64" else "x86_64"
        minos = facts["minos"]
        if minos is None:
            raise Failure(f"{name}: no minimum macOS version")
        lines.append(f"Mach-O MH_DYLIB {cpu}, minimum macOS {minos[0]}.{minos[1]}")  # type: ignore[index]
        install_name = facts["id"]
        if not re.fullmatch(r"@rpath/libloopcompact\.\d+\.dylib", str(install_name)):
            raise Failure(f"{name}: install name {install_name}")
        lines.append(f"install name {install_name}")
        exports_equal(facts["exports"], "_")  # type: ignore[arg-type]
        loads = list(facts["loads"])  # type: ignore[call-overload]
        if not loads or not all(path.startswith("/usr/lib/") for path in loads):
            raise Failure(f"{name}: loads {loads}, not only /usr/lib (libSystem)")
        lines.append(f"loads: {', '.join(loads)}")
        if arch == "aarch64":
            if facts["signature"] is None:
                raise Failure(f"{name}: an arm64 library without a code signature does not load on macOS")
            ok, why = macho_signature_ok(data, facts["signature"])  # type: ignore[arg-type]
            if not ok:
                raise Failure(f"{name}: code signature: {why}")
            lines.append(f"code signature: {why}")
    elif data[:2] == b"MZ":
        facts = pe_facts(data)
        if facts["machine"] != PE_MACHINE[arch] or not facts["dll"]:
            raise Failure(f"{name}: PE machine {facts['machine']:#x}, DLL {facts['dll']}")
        lines.append(f"PE32+ DLL x86-64, export name {facts['name']}")
        exports_equal(facts["exports"])  # type: ignore[arg-type]
        imports = list(facts["imports"])  # type: ignore[call-overload]
        foreign = [dll for dll in imports if not WINDOWS_DLLS.match(dll)]
        if foreign:
            raise Failure(f"{name}: imports {foreign}, not part of Windows")
        lines.append(f"imports: {', '.join(imports)}")
    else:
        raise Failure(f"{name}: not ELF, Mach-O or PE")
    return lines


def check_static(target: str, data: bytes, name: str) -> List[str]:
    """Every member object of an ar archive is of TARGET's format and architecture."""
    if data[:8] != b"!<arch>\n":
        raise Failure(f"{name}: not an ar archive")
    arch = ARCH[target]
    pos, objects, kinds = 8, 0, set()
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        ident = header[:16].decode().strip()
        size = int(header[48:58].decode().strip())
        body = data[pos + 60:pos + 60 + size]
        if ident.startswith("#1/"):  # BSD long name: the name precedes the body
            n = int(ident[3:])
            body = body[n:]
        pos += 60 + size + (size & 1)
        if body[:4] == b"\x7fELF":
            machine = struct.unpack_from("<H", body, 18)[0]
            kinds.add({62: "x86_64", 183: "aarch64"}.get(machine, f"ELF machine {machine}"))
        elif body[:4] == b"\xcf\xfa\xed\xfe":
            cpu = struct.unpack_from("<i", body, 4)[0]
            kinds.add({0x01000007: "x86_64", 0x0100000C: "aarch64"}.get(cpu, f"Mach-O cpu {cpu:#x}"))
        elif body[:2] == b"\x64\x86":
            kinds.add("x86_64")
        else:
            continue  # symbol tables, import stubs of other formats, Rust metadata
        objects += 1
    if kinds != {arch}:
        raise Failure(f"{name}: objects of {sorted(kinds)}, expected only {arch}")
    return [f"static library: {objects} objects, all {arch}"]


def main(argv: List[str]) -> int:
    command, args = argv[0], argv[1:]
    if command == "library":
        target, path, header = args
        for line in check_library(target, Path(path).read_bytes(), Path(header), Path(path).name):
            print(f"  {line}")
    elif command == "static":
        target, path = args
        for line in check_static(target, Path(path).read_bytes(), Path(path).name):
            print(f"  {line}")
    elif command == "wheel":
        target, path, header = args
        with zipfile.ZipFile(path) as wheel:
            names = wheel.namelist()
            libraries = [n for n in names if re.fullmatch(r"loopcompact/(lib)?loopcompact\.(so|dylib|dll)", n)]
            if len(libraries) != 1:
                raise Failure(f"{path}: libraries {libraries}")
            extra = [n for n in names if not n.startswith(("loopcompact/", "loopcompact-"))]
            if extra:
                raise Failure(f"{path}: files outside the package: {extra}")
            tag = re.search(r"-py3-none-(.+)\.whl$", path)
            wheel_file = wheel.read(next(n for n in names if n.endswith(".dist-info/WHEEL"))).decode()
            if tag is None or f"Tag: py3-none-{tag.group(1).split('.')[0]}" not in wheel_file:
                raise Failure(f"{path}: the WHEEL file's tags do not match the file name")
            data = wheel.read(libraries[0])
        print(f"  {libraries[0]}, tag py3-none-{tag.group(1)}")
        for line in check_library(target, data, Path(header), libraries[0]):
            print(f"  {line}")
        if target.endswith("-apple-darwin"):
            minos = macho_facts(data)["minos"]
            want = f"macosx_{minos[0]}_{minos[1]}_"  # type: ignore[index]
            if not tag.group(1).startswith(want):
                raise Failure(f"{path}: tag {tag.group(1)}, but the library needs macOS {minos}")
            print(f"  the tag's macOS version is the library's minimum ({want[7:-1].replace('_', '.')})")
    elif command == "def":
        (path,) = args
        facts = pe_facts(Path(path).read_bytes())
        print(f"LIBRARY {facts['name']}")
        print("EXPORTS")
        for name in sorted(facts["exports"]):  # type: ignore[call-overload]
            print(f"    {name}")
    elif command == "go-ldflags":
        path, platform, libs = args
        prefix = "-L${SRCDIR}/prebuilt/" + platform
        lines = [line for line in Path(path).read_text("utf-8").splitlines()
                 if line.startswith("#cgo ") and "LDFLAGS:" in line
                 and line.split("LDFLAGS:", 1)[1].split()[:1] == [prefix]]
        if len(lines) != 1:
            raise Failure(f"{path}: {len(lines)} #cgo LDFLAGS lines link prebuilt/{platform}")
        flags = lines[0].split("LDFLAGS:", 1)[1].split()
        expected = ["-L${SRCDIR}/prebuilt/" + platform, "-lloopcompact"] + libs.split()
        if flags != expected:
            raise Failure(f"{path}: {platform} links {' '.join(flags)}; rustc says {' '.join(expected)}")
        print(f"  {platform}: {' '.join(flags[2:])}")
    elif command == "gozip":
        tree, module, version, out = args
        root = Path(tree)
        files = sorted(p for p in root.rglob("*") if p.is_file())
        total = 0
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
            for p in files:
                rel = p.relative_to(root).as_posix()
                if rel == "go.mod" or not rel.endswith("/go.mod"):
                    info = zipfile.ZipInfo(f"{module}@{version}/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
                    info.compress_type = zipfile.ZIP_DEFLATED
                    info.external_attr = 0o644 << 16
                    data = p.read_bytes()
                    total += len(data)
                    z.writestr(info, data)
        # The module proxy's limits (golang.org/x/mod/zip): 500 MiB unzipped, go.mod under 16 MiB.
        if total > 500 << 20:
            raise Failure(f"{out}: {total} bytes unzipped, above the module zip limit")
        print(f"  {out}: {len(files)} files, {total} bytes unzipped")
    elif command == "sbom":
        (path,) = args
        import json

        bom = json.loads(Path(path).read_text("utf-8"))
        crates = []
        for c in bom.get("components", []):
            licences = " ".join(entry.get("expression") or entry.get("license", {}).get("id", "?")
                                for entry in c.get("licenses", []))
            if not licences:
                raise Failure(f"{path}: {c['name']} {c['version']} has no licence")
            crates.append(f"{c['name']} {c['version']} ({licences})")
        print(f"  {bom['metadata']['component']['name']}: {len(crates)} crates: {', '.join(sorted(crates))}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Failure as e:
        print(f"binaries.py: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
