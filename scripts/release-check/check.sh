# shellcheck shell=bash
# scripts/release --check (and --ci): uses each artifact of dist/ as its users do, where this
# machine can run it, and reads the rest (sourced by scripts/release, which sets $root, $dist,
# $stage, $tools, $pytools, $checks, $version, $abi, $targets, $mode and the helpers).
#
# Every check works in a temporary directory outside the checkout, from the artifact alone (the
# wheel, the tarball, the archive, the module zip), with no Rust toolchain on PATH where a user
# would have none. The summary at the end says what ran, on what, and what was only built.

data=$root/examples/data
header=$root/include/loopcompact.h
arm64_root=$tools/arm64-root
work=$(mktemp -d "${TMPDIR:-/tmp}/loopcompact-release-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
case "$work/" in "$root"/*) fail "the check directory $work is inside the checkout" ;; esac
# What ran, or was only built, one line each (a file: some checks run in subshells).
results=$work/results.txt
: >"$results"
record() { echo "- $1" >>"$results"; }
has_target() { [[ " $targets " == *" $1 "* ]]; }
py() { "$pytools/bin/python" "$@"; }
# The fingerprint of examples/data/fingerprint_valid.json as each consumer printed it: all equal.
fingerprints=$work/fingerprints.txt
: >"$fingerprints"
note_fingerprint() { # WHO OUTPUT
  local hex
  hex=$(printf '%s\n' "$2" | sed -n 's/^fingerprint_valid.json: \([0-9a-f]\{64\}\)$/\1/p')
  [ -n "$hex" ] || fail "$1 printed no fingerprint"
  echo "$1 $hex" >>"$fingerprints"
}
# A PATH with no Rust toolchain and no cargo: what a user of a prebuilt artifact has.
plain_path=/usr/local/bin:/usr/bin:/bin
if PATH=$plain_path command -v cargo >/dev/null || PATH=$plain_path command -v rustc >/dev/null; then
  fail "cargo or rustc is on $plain_path: the no-Rust checks would not be"
fi

wheel_file() { # TARGET: the wheel of dist/ for TARGET
  local pattern
  case $1 in
    *-linux-gnu) pattern="*$(wheel_policy "$1")*.whl" ;;
    x86_64-unknown-linux-musl) pattern="musllinux_1_2_x86_64.whl" ;;
    aarch64-unknown-linux-musl) pattern="musllinux_1_2_aarch64.whl" ;;
    x86_64-apple-darwin) pattern="macosx_*_x86_64.whl" ;;
    aarch64-apple-darwin) pattern="macosx_*_arm64.whl" ;;
    x86_64-pc-windows-gnu) pattern="win_amd64.whl" ;;
  esac
  # shellcheck disable=SC2086
  set -- "$dist"/loopcompact-"$version"-py3-none-$pattern
  [ -f "$1" ] || fail "no wheel $pattern in dist/"
  echo "$1"
}
archive_dir() { # TARGET: the C archive of TARGET, unpacked (once) under $work/c
  local name=loopcompact-$version-$1
  if [ ! -d "$work/c/$name" ]; then
    mkdir -p "$work/c"
    if [ -f "$dist/$name.zip" ]; then
      unzip -q "$dist/$name.zip" -d "$work/c"
    else
      tar -xzf "$dist/$name.tar.gz" -C "$work/c"
    fi
  fi
  echo "$work/c/$name"
}
expect_validate() { # WHO OUTPUT_OF_VALID OUTPUT_OF_INVALID: the C example's verdict lines
  [[ $2 == "LC_OK - "* ]] || fail "$1: summary_valid.xml gave: $2"
  [[ $3 == "LC_SUMMARY_XML_STRUCTURE xml_structure "* ]] || fail "$1: summary_bad_structure.xml gave: $3"
  echo "$1: summary_valid.xml: $2"
  echo "$1: summary_bad_structure.xml: ${3:0:60}..."
}
# run_example WHO RUNNER...: runs the C example (built as ./validate_summary*) on a valid and an
# invalid summary; the runner prefix is e.g. `wine` or `qemu-aarch64-static -L <root>`.
run_example() {
  local who=$1 valid invalid rc=0
  shift
  valid=$("$@" "$data/summary_valid.xml") || fail "$who: exited $? on summary_valid.xml"
  invalid=$("$@" "$data/summary_bad_structure.xml") || rc=$?
  [ "$rc" -eq 1 ] || fail "$who: exit status $rc on summary_bad_structure.xml, expected 1"
  expect_validate "$who" "$valid" "$invalid"
}

[ -f "$dist/SHA256SUMS" ] || fail "no $dist/SHA256SUMS: run scripts/release first"
step "SHA256SUMS"
(cd "$dist" && sha256sum --check --strict --quiet SHA256SUMS) || fail "dist/ does not match SHA256SUMS"
echo "every file of dist/ matches SHA256SUMS ($(($(wc -l <"$dist/SHA256SUMS"))) files)"

# ---- every binary, read -------------------------------------------------------------------------
for t in $targets; do
  step "inspect: $t (wheel, C archive)"
  w=$(wheel_file "$t")
  echo "$(basename "$w")"
  py "$checks/binaries.py" wheel "$t" "$w" "$header"
  d=$(archive_dir "$t")
  echo "$(basename "$d") (C archive)"
  case $t in
    *-linux-*) py "$checks/binaries.py" library "$t" "$d/lib/libloopcompact.so.$version" "$header" ;;
    *-apple-darwin) py "$checks/binaries.py" library "$t" "$d/lib/libloopcompact.$version.dylib" "$header" ;;
    *-windows-gnu)
      py "$checks/binaries.py" library "$t" "$d/bin/loopcompact.dll" "$header"
      for f in lib/libloopcompact.dll.a lib/loopcompact.dll.lib lib/loopcompact.def; do
        [ -s "$d/$f" ] || fail "$t archive: no $f"
      done
      # The MSVC import library names the DLL and every export (llvm-nm lists its __imp_ symbols).
      n=$(llvm-nm "$d/lib/loopcompact.dll.lib" 2>/dev/null | grep -c ' T __imp_lc_' || true)
      [ "$n" -eq "$(grep -c '^    lc_' "$d/lib/loopcompact.def")" ] || fail "loopcompact.dll.lib has $n imports"
      echo "  import libraries: libloopcompact.dll.a (mingw), loopcompact.dll.lib (MSVC, $n functions)"
      ;;
  esac
  py "$checks/binaries.py" static "$t" "$d/lib/libloopcompact.a"
  case $t in
    *-apple-darwin) record "macOS $t: wheel, C archive and Go library built and inspected (Mach-O, exports, install name, signature); built, not run" ;;
  esac
done

# ---- Python -------------------------------------------------------------------------------------
if has_target x86_64-unknown-linux-gnu; then
  step "Python: the x86_64 manylinux wheel in a fresh venv"
  w=$(wheel_file x86_64-unknown-linux-gnu)
  python3 -m venv "$work/venv"
  clean=(env -i HOME="$work" LANG=C.UTF-8 PATH="$work/venv/bin:$plain_path" TMPDIR="$work")
  "${clean[@]}" "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps "$w"
  out=$(cd "$work" && "${clean[@]}" "$work/venv/bin/python" "$checks/smoke.py" "$data") || fail "smoke.py in the venv"
  echo "$out"
  note_fingerprint "python-x86_64" "$out"
  record "Python wheel manylinux_2_17_x86_64: installed with pip into a fresh venv, used ($(python3 --version), Debian bookworm x86_64)"
fi

if has_target aarch64-unknown-linux-gnu; then
  step "Python: the aarch64 manylinux wheel in an aarch64 Python under qemu-user"
  [ -x "$arm64_root/usr/bin/python3.11" ] || fail "no arm64 Python at $arm64_root (scripts/release --install-tools)"
  need qemu-aarch64-static "apt-get install qemu-user-static"
  w=$(wheel_file aarch64-unknown-linux-gnu)
  qemu=(qemu-aarch64-static -L "$arm64_root")
  "${qemu[@]}" "$arm64_root/usr/bin/python3.11" -m venv --without-pip "$work/venv-arm64"
  pip_wheel=$(echo "$arm64_root"/usr/share/python-wheels/pip-*.whl)
  # pip from Debian's pip wheel, run by the venv's (emulated) Python: it installs in-process.
  "${qemu[@]}" "$work/venv-arm64/bin/python" "$pip_wheel/pip" install --quiet --disable-pip-version-check \
    --no-index --no-deps "$w"
  out=$(cd "$work" && SMOKE_NO_CHILD=1 "${qemu[@]}" "$work/venv-arm64/bin/python" "$checks/smoke.py" "$data") || fail "smoke.py under qemu"
  echo "$out"
  tool=$(echo "$work"/venv-arm64/lib/python3*/site-packages/loopcompact/bin/loopcompact)
  "${qemu[@]}" "$tool" summary "$data/summary_valid.xml" || fail "the wheel's tool under qemu"
  note_fingerprint "python-aarch64" "$out"
  record "Python wheel manylinux_2_17_aarch64: installed with pip into a venv of Debian's arm64 Python $("${qemu[@]}" "$arm64_root/usr/bin/python3.11" -c 'import platform; print(platform.python_version())') under qemu-aarch64-static, used"
fi

if has_target x86_64-unknown-linux-musl; then
  step "musllinux x86_64: the wheel's library loaded by a musl-linked C program"
  need musl-gcc "apt-get install musl-tools"
  w=$(wheel_file x86_64-unknown-linux-musl)
  m=$work/musl-x86_64
  mkdir -p "$m"
  unzip -q -j "$w" loopcompact/libloopcompact.so -d "$m"
  (
    cd "$m"
    # c/load_library.c: dlopen by path, as the package's ctypes loads the library it carries.
    musl-gcc -std=c99 -Wall -Wextra -Werror -pedantic -I "$root/include" -I "$root/examples" \
      "$checks/c/load_library.c" -o load_library
    echo "load_library: interpreter $(readelf -l load_library | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')"
    run_example "musl x86_64" ./load_library "$m/libloopcompact.so"
  )
  record "musllinux_1_2_x86_64 wheel: its library loaded (dlopen, as ctypes does) by a C program linked with musl-gcc (musl $(dpkg-query -W -f '${Version}' musl 2>/dev/null)), run"
fi

if has_target aarch64-unknown-linux-musl; then
  step "musllinux aarch64: the wheel's library loaded by a musl-linked C program under qemu-user"
  [ -e "$arm64_root/lib/ld-musl-aarch64.so.1" ] || fail "no aarch64 musl loader in $arm64_root (scripts/release --install-tools)"
  w=$(wheel_file aarch64-unknown-linux-musl)
  m=$work/musl-aarch64
  mkdir -p "$m"
  unzip -q -j "$w" loopcompact/libloopcompact.so -d "$m"
  (
    cd "$m"
    # zig's C compiler, which carries musl for aarch64 (Debian has no aarch64 musl cross compiler);
    # the program runs with Debian's arm64 musl loader (-O2: no UB-sanitizer runtime, which would
    # need symbols of a newer musl than Debian's 1.2.3).
    py -m ziglang cc -target aarch64-linux-musl -dynamic -O2 -std=c99 -Wall -Wextra -Werror -pedantic -I "$root/include" \
      -I "$root/examples" "$checks/c/load_library.c" -o load_library
    echo "load_library: interpreter $(readelf -l load_library | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')"
    run_example "musl aarch64" qemu-aarch64-static -L "$arm64_root" ./load_library "$m/libloopcompact.so"
  )
  record "musllinux_1_2_aarch64 wheel: its library loaded (dlopen) by a C program linked against musl (zig cc), run under qemu-aarch64-static with Debian's arm64 musl loader"
fi

# ---- C archives ---------------------------------------------------------------------------------
# wine, with the program's output lines without their CR and its exit status.
wine_run() {
  wine "$@" | tr -d '\r'
  return "${PIPESTATUS[0]}"
}
c_builds() { # WHO PREFIX CC RUNNER...: pkg-config (shared, static) and CMake builds of the example
  local who=$1 prefix=$2 cc=$3 b rpath=()
  shift 3
  [[ $cc == *mingw32* ]] || rpath=(-Wl,-rpath,"$prefix/lib")
  b=$work/cbuild-$who
  mkdir -p "$b"
  (
    cd "$b"
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig
    echo "pkg-config: $(pkg-config --modversion loopcompact), $(pkg-config --cflags --libs loopcompact)"
    # shellcheck disable=SC2046
    $cc -std=c99 -Wall -Wextra -Werror -pedantic -I "$root/examples" "$root/examples/validate_summary.c" \
      $(pkg-config --cflags --libs loopcompact) "${rpath[@]}" -o validate_summary
    run_example "$who pkg-config, shared" "$@" "./validate_summary${exe:-}"
    # Static: the archive by path (beside the shared library, -lloopcompact would pick the latter),
    # then Libs.private.
    # shellcheck disable=SC2046
    $cc -std=c99 -Wall -Wextra -Werror -pedantic -I "$root/examples" "$root/examples/validate_summary.c" \
      $(pkg-config --cflags loopcompact) "$prefix/lib/libloopcompact.a" \
      $(pkg-config --static --libs-only-l loopcompact | sed 's/-lloopcompact//') -o validate_summary_static
    run_example "$who pkg-config, static" "$@" "./validate_summary_static${exe:-}"
  )
}

cmake_builds() { # WHO PREFIX TOOLCHAIN RUNNER...
  local who=$1 prefix=$2 toolchain=$3 b
  shift 3
  b=$work/cmake-$who
  cmake -S "$checks/c" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLE_DIR="$root/examples" \
    -DCMAKE_BUILD_TYPE=Release ${toolchain:+-DCMAKE_TOOLCHAIN_FILE=$toolchain} >"$b.log" 2>&1 \
    || { cat "$b.log"; fail "$who: cmake configure"; }
  grep -- '-- loopcompact ' "$b.log" || true
  cmake --build "$b" >>"$b.log" 2>&1 || { cat "$b.log"; fail "$who: cmake build"; }
  (
    cd "$b"
    run_example "$who CMake, loopcompact::loopcompact" "$@" "./validate_summary${exe:-}"
    run_example "$who CMake, loopcompact::loopcompact_static" "$@" "./validate_summary_static${exe:-}"
  )
}

if has_target x86_64-unknown-linux-gnu; then
  step "C archive, Linux x86_64: pkg-config and CMake builds of the C example"
  d=$(archive_dir x86_64-unknown-linux-gnu)
  c_builds linux-x86_64 "$d" cc env
  needed=$(readelf -d "$work/cbuild-linux-x86_64/validate_summary" | grep NEEDED)
  [[ $needed == *"[libloopcompact.so.$abi]"* ]] || fail "the shared build does not need libloopcompact.so.$abi"
  if readelf -d "$work/cbuild-linux-x86_64/validate_summary_static" | grep -q libloopcompact; then
    fail "the static build needs libloopcompact"
  fi
  echo "shared build: NEEDED libloopcompact.so.$abi; static build: no libloopcompact"
  if command -v cmake >/dev/null; then
    cmake_builds linux-x86_64 "$d" "" env
    record "C archive x86_64-unknown-linux-gnu: the C example built with pkg-config and with CMake (find_package), shared and static, run (gcc $(gcc -dumpversion), $(cmake --version | head -n 1))"
  else
    record "C archive x86_64-unknown-linux-gnu: pkg-config builds run; CMake skipped (no cmake)"
  fi
fi

if has_target aarch64-unknown-linux-gnu; then
  step "C archive, Linux aarch64: pkg-config builds with the cross gcc, run under qemu-user"
  need aarch64-linux-gnu-gcc "apt-get install gcc-aarch64-linux-gnu"
  d=$(archive_dir aarch64-unknown-linux-gnu)
  c_builds linux-aarch64 "$d" aarch64-linux-gnu-gcc qemu-aarch64-static -L /usr/aarch64-linux-gnu
  record "C archive aarch64-unknown-linux-gnu: the C example built with pkg-config (aarch64-linux-gnu-gcc), shared and static, run under qemu-aarch64-static"
fi

if has_target x86_64-pc-windows-gnu; then
  step "C archive, Windows x86_64: mingw-w64 builds of the C example, the DLL driven under wine"
  need x86_64-w64-mingw32-gcc "apt-get install mingw-w64"
  need wine "apt-get install wine"
  export WINEPREFIX=$tools/wine WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  [ -d "$WINEPREFIX" ] || wineboot --init >/dev/null 2>&1 || true
  d=$(archive_dir x86_64-pc-windows-gnu)
  # Wine 8.0 has no bcryptprimitives.dll (Windows 10 has): a stand-in with its one function the DLL
  # imports (c/bcryptprimitives.c), beside each program, as is loopcompact.dll (Windows looks for a
  # DLL in the program's directory first).
  mkdir -p "$work/cbuild-windows" "$work/cmake-windows" "$work/wine-dlls"
  x86_64-w64-mingw32-gcc -shared -O2 -Wall -Wextra -Werror -o "$work/wine-dlls/bcryptprimitives.dll" \
    "$checks/c/bcryptprimitives.c" -ladvapi32
  for dir in "$work/cbuild-windows" "$work/cmake-windows"; do
    cp "$d/bin/loopcompact.dll" "$work/wine-dlls/bcryptprimitives.dll" "$dir/"
  done
  exe=.exe c_builds windows "$d" x86_64-w64-mingw32-gcc wine_run
  exe=.exe cmake_builds windows "$d" "$checks/c/mingw-w64.cmake" wine_run
  unzip -q -o -j "$(wheel_file x86_64-pc-windows-gnu)" loopcompact/loopcompact.dll -d "$work/wheel-dll"
  cmp "$work/wheel-dll/loopcompact.dll" "$d/bin/loopcompact.dll" || fail "the win_amd64 wheel's DLL is not the archive's"
  record "Python wheel win_amd64: its loopcompact.dll is the Windows archive's, byte for byte (run under wine, next line); the wheel itself: built, not run (no Windows Python here)"
  record "C archive x86_64-pc-windows-gnu: loopcompact.dll driven by the C example (built with mingw-w64 gcc through pkg-config and CMake, against the import library; static too), run under $(wine --version) (with a stand-in bcryptprimitives.dll, which Wine 8 lacks)"
fi

# ---- Go -----------------------------------------------------------------------------------------
go_zip=$dist/loopcompact-go-$version.zip
go_bin=/usr/lib/go-1.23/bin
if [ -f "$go_zip" ] && [ "$mode" != ci ]; then
  step "Go: a fresh module with no Rust on PATH, the module from a proxy, the prebuilt static library"
  [ -x "$go_bin/go" ] || fail "Go 1.23 not found (apt-get install -t bookworm-backports golang-1.23-go)"
  module=github.com/loopcompact/loopcompact/bindings/go
  proxy=$work/goproxy/$module/@v
  mkdir -p "$proxy"
  cp "$go_zip" "$proxy/v$version.zip"
  unzip -p "$go_zip" "$module@v$version/go.mod" >"$proxy/v$version.mod"
  echo "v$version" >"$proxy/list"
  echo "{\"Version\":\"v$version\",\"Time\":\"$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)\"}" >"$proxy/v$version.info"
  host=$work/gohost
  mkdir -p "$host"
  cp "$root/bindings/go/testdata/host/main.go" "$host/"
  goenv=(env -i HOME="$work" PATH="$go_bin:$plain_path" TMPDIR="$work" GOPROXY="file://$work/goproxy"
    GOSUMDB=off GONOSUMCHECK=1 GOTOOLCHAIN=local GOFLAGS=-mod=mod GOCACHE="$work/gocache" GOPATH="$work/gopath"
    CGO_ENABLED=1)
  (
    cd "$host"
    "${goenv[@]}" sh -c 'command -v cargo || command -v rustc' && fail "Rust is on the Go build's PATH"
    "${goenv[@]}" go mod init example.com/host >/dev/null 2>&1
    "${goenv[@]}" go get "$module@v$version"
    "${goenv[@]}" go vet .
    "${goenv[@]}" go build -o host .
    expect=$(printf '%s\n' "loopcompact $version, ABI $abi, linked prebuilt" \
      "rejected: xml_structure at line 3, column 1, section constraints, expected <constraints> (X4.18)" \
      'accepted: 152 bytes, state "ls found a.go & b.go.", safe cut 3')
    out=$(./host) || fail "the Go host program exited $?"
    echo "$out"
    [ "$out" = "$expect" ] || fail "the Go host printed something else"
    needed=$(readelf -d host | grep NEEDED)
    [[ $needed != *loopcompact* ]] || fail "the Go program needs a shared libloopcompact"
    echo "linux/amd64: one binary, NEEDED $(echo "$needed" | sed -n 's/.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
    record "Go module (zip from a file:// proxy, go get) linux/amd64: built with no Rust on PATH against prebuilt/linux_amd64, run ($("$go_bin/go" version | cut -d' ' -f3), gcc)"

    if has_target aarch64-unknown-linux-gnu; then
      "${goenv[@]}" GOARCH=arm64 CC=aarch64-linux-gnu-gcc go build -o host-arm64 .
      out=$(qemu-aarch64-static -L /usr/aarch64-linux-gnu ./host-arm64) || fail "host-arm64 exited $?"
      [ "$out" = "$expect" ] || fail "host-arm64 printed: $out"
      echo "linux/arm64 (aarch64-linux-gnu-gcc, qemu-aarch64-static): same output"
      record "Go module linux/arm64: cross-built with aarch64-linux-gnu-gcc against prebuilt/linux_arm64, run under qemu-aarch64-static"
    fi
    # musl: zig's C compiler as cgo's (Debian's musl-gcc has no musl libgcc_s, which Alpine's gcc
    # has); it links the Go program statically.
    for t in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
      has_target "$t" || continue
      case $t in x86_64-*) goarch=amd64 run=() ;; *) goarch=arm64 run=(qemu-aarch64-static) ;; esac
      "${goenv[@]}" GOARCH=$goarch CC="$pytools/bin/python -m ziglang cc -target ${t%%-*}-linux-musl" \
        go build -tags loopcompact_musl -o "host-musl-$goarch" .
      out=$("${run[@]}" "./host-musl-$goarch") || fail "host-musl-$goarch exited $?"
      [ "$out" = "$expect" ] || fail "host-musl-$goarch printed: $out"
      echo "linux/$goarch musl (-tags loopcompact_musl, zig cc${run:+, ${run[*]}}): same output"
      record "Go module linux/$goarch musl (-tags loopcompact_musl): built with zig cc (musl) against prebuilt/linux_${goarch}_musl, run${run:+ under ${run[*]}}"
    done
    if has_target x86_64-pc-windows-gnu; then
      "${goenv[@]}" GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc go build -o host.exe .
      cp "$work/wine-dlls/bcryptprimitives.dll" .
      out=$(WINEPREFIX=$tools/wine WINEDEBUG=-all wine ./host.exe | tr -d '\r') || fail "host.exe exited $?"
      [ "$out" = "$expect" ] || fail "host.exe printed: $out"
      echo "windows/amd64 (x86_64-w64-mingw32-gcc, wine): same output"
      record "Go module windows/amd64: cross-built with mingw-w64 gcc against prebuilt/windows_amd64, one .exe, run under wine"
    fi
    # The libraries of every platform, read: each object of the target's architecture. A Go
    # program for darwin cannot be linked here: Go's runtime links the CoreFoundation and Security
    # frameworks and libresolv, which only the macOS SDK has.
    for t in $targets; do
      lib=$work/gopath/pkg/mod/$module@v$version/prebuilt/$(go_platform "$t")/libloopcompact.a
      echo "prebuilt/$(go_platform "$t"):$(py "$checks/binaries.py" static "$t" "$lib")"
      case $t in
        *-apple-darwin) record "Go module darwin/$(go_platform "$t" | cut -d_ -f2): prebuilt/$(go_platform "$t") built and inspected; no Go program linked against it here (Go's darwin runtime needs the macOS SDK's frameworks): built, not run" ;;
      esac
    done
  )
fi

# ---- npm ----------------------------------------------------------------------------------------
tarball=$dist/loopcompact-$version.tgz
step "npm: the tarball in a fresh project"
[ -d "$checks/js/node_modules/workerd" ] || fail "no runtimes in scripts/release-check/js (scripts/release --install-tools)"
project=$work/npm
mkdir -p "$project"
cp "$checks/js/main.mjs" "$checks/js/main.cjs" "$checks/js/worker.mjs" "$project/"
(
  cd "$project"
  printf '{ "name": "release-check-project", "private": true, "type": "module" }\n' >package.json
  npm install --offline --no-audit --no-fund "$tarball" >/dev/null
  test ! -L node_modules/loopcompact
)
bin=$checks/js/node_modules/.bin
runtimes=$checks/js/runtimes/node_modules/.bin
fp=$data/fingerprint_valid.json
(
  cd "$project"
  out=$(node main.mjs "$fp") || fail "node main.mjs"
  echo "$out"
  note_fingerprint "node" "$out"
  node main.cjs || fail "node main.cjs"
  record "npm tarball, Node $(node --version): import (the node condition, no init) and require() from CommonJS (the require condition, dist/node.cjs)"

  if [ "$mode" != ci ]; then
    out=$(DENO_DIR=$work/deno DENO_NO_UPDATE_CHECK=1 "$runtimes/deno" run --allow-read main.mjs "$fp") || fail "deno run main.mjs"
    echo "$out"
    note_fingerprint "deno" "$out"
    record "npm tarball, Deno $("$runtimes/deno" --version | head -n 1 | cut -d' ' -f2) (npm deno): import from node_modules (the deno condition), no init"
    out=$("$runtimes/bun" main.mjs "$fp") || fail "bun main.mjs"
    echo "$out"
    note_fingerprint "bun" "$out"
    record "npm tarball, Bun $("$runtimes/bun" --version) (npm bun): import (the bun condition), no init"
  fi

  # workerd: bundled as wrangler does, served on a free loopback port, one request per verdict.
  mkdir -p workerd
  "$bin/esbuild" worker.mjs --bundle --format=esm --platform=neutral --conditions=workerd,worker,browser \
    --main-fields=module,main --external:*.wasm --log-level=warning --outfile=workerd/worker.js
  grep -q 'from "./loopcompact.wasm"' workerd/worker.js || fail "the worker bundle does not import the .wasm module"
  cp node_modules/loopcompact/dist/loopcompact.wasm workerd/
  port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  sed "s/@PORT@/$port/" "$checks/js/workerd.capnp.in" >workerd/config.capnp
  "$bin/workerd" serve workerd/config.capnp >workerd/log 2>&1 &
  workerd_pid=$!
  node - "$port" "$data/summary_valid.xml" "$data/summary_bad_structure.xml" <<'EOF' || { kill "$workerd_pid"; cat workerd/log; fail "workerd"; }
const [port, valid, invalid] = process.argv.slice(2);
const { readFileSync } = require("node:fs");
const url = `http://127.0.0.1:${port}/`;
(async () => {
  for (let i = 0; ; i++) {
    try { await fetch(url, { method: "POST", body: "" }); break; } catch (e) {
      if (i === 100) throw new Error("workerd did not answer within 10 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const a = await fetch(url, { method: "POST", body: readFileSync(valid) });
  const b = await fetch(url, { method: "POST", body: readFileSync(invalid) });
  const ja = await a.json(), jb = await b.json();
  console.log(`workerd: summary_valid.xml -> ${a.status} ${JSON.stringify(ja)}`);
  console.log(`workerd: summary_bad_structure.xml -> ${b.status} ${JSON.stringify(jb)}`);
  if (a.status !== 200 || ja.valid !== true || b.status !== 422 || jb.reason !== "xml_structure") process.exit(1);
})().catch((e) => { console.error(e); process.exit(1); });
EOF
  kill "$workerd_pid"
  wait "$workerd_pid" 2>/dev/null || true
  record "npm tarball, workerd $("$bin/workerd" --version | cut -d' ' -f2) (npm workerd): a worker bundled as wrangler does (conditions workerd, worker, browser), the .wasm a compiled module, validating the summary of each request"

  if [ "$mode" != ci ]; then
    # edge-light: the bundle a Vercel build makes resolves dist/edge-light.js, whose .wasm?module
    # import the platform compiles; no Vercel runtime here.
    "$bin/esbuild" worker.mjs --bundle --format=esm --platform=neutral --conditions=edge-light,worker,browser \
      --main-fields=module,main --external:*.wasm?module --log-level=warning --outfile=edge/worker.js
    grep -q 'from "./loopcompact.wasm?module"' edge/worker.js || fail "the edge-light bundle does not import loopcompact.wasm?module"
    record "npm tarball, edge-light (Vercel Edge): the export condition resolves to dist/edge-light.js (bundled with esbuild); built, not run"

    # Chromium: the package's own browser test (a page and two workers), against the installed copy.
    if [ -x /usr/bin/chromium ]; then
      mkdir -p test
      cp "$root/bindings/js/test/browser.test.mjs" "$root/bindings/js/test/vectors.mjs" test/
      LOOPCOMPACT_VECTORS=$root/tests/vectors CHROMIUM=/usr/bin/chromium node --test test/browser.test.mjs 2>&1 | tail -n 9
      record "npm tarball, headless $(/usr/bin/chromium --version 2>/dev/null): a page (await init()) and two module workers, the summary and fingerprint vectors"
    else
      record "npm tarball, Chromium: skipped (no /usr/bin/chromium)"
    fi
  fi
)

# ---- the sdist ----------------------------------------------------------------------------------
if [ "$mode" != ci ] && [ -f "$dist/loopcompact-$version.tar.gz" ]; then
  step "Python sdist: a wheel built from it alone, installed and used"
  mkdir -p "$work/sdist"
  tar -xzf "$dist/loopcompact-$version.tar.gz" -C "$work/sdist"
  CARGO_TARGET_DIR=$root/target/python-sdist py -m pip wheel --quiet --disable-pip-version-check --no-deps \
    --no-build-isolation --wheel-dir "$work/sdist-wheel" "$work/sdist/loopcompact-$version"
  python3 -m venv "$work/venv-sdist"
  "$work/venv-sdist/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps "$work"/sdist-wheel/*.whl
  out=$(cd "$work" && "$work/venv-sdist/bin/python" "$checks/smoke.py" "$data") || fail "smoke.py, sdist wheel"
  echo "$out" | head -n 1
  note_fingerprint "python-sdist" "$out"
  record "Python sdist: a wheel built from the sdist alone (cargo), installed in a fresh venv, used"
fi

step "the same fingerprint everywhere"
cat "$fingerprints"
[ "$(cut -d' ' -f2 "$fingerprints" | sort -u | wc -l)" -eq 1 ] || fail "the consumers computed different fingerprints"

step "summary"
cat "$results"
echo "$me --check: OK ($(echo "$targets" | wc -w) target(s), at $((SECONDS - step_start)) s)"
