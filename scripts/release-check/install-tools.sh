# shellcheck shell=bash
# scripts/release --install-tools [--ci]: what scripts/release and its --check need, at pinned
# versions (sourced by scripts/release: $root, $tools, $pytools, $checks, $ALL_TARGETS set). With
# --ci, only what CI's part needs (the x86_64 glibc wheel, the npm tarball, Node and workerd).
# Debian bookworm, as root.

ci_only=no
[ "${1:-}" = --ci ] && ci_only=yes
export DEBIAN_FRONTEND=noninteractive

echo "== apt: build and check tools"
packages=(llvm zip unzip cmake pkg-config gcc)
if [ $ci_only = no ]; then
  # mingw-w64: the Windows target's linker and the C compiler of the Windows checks; wine runs
  # them. qemu-user-static runs the aarch64 Python and programs (no binfmt_misc needed: they are
  # started through qemu-aarch64-static -L <root>). musl-tools: musl-gcc and musl's loader.
  packages+=(mingw-w64 wine qemu-user-static musl-tools gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

echo "== rustup: the release targets"
if [ $ci_only = yes ]; then
  rustup target add --toolchain "$LOOPCOMPACT_STABLE" x86_64-unknown-linux-gnu wasm32-unknown-unknown
else
  # shellcheck disable=SC2086
  rustup target add --toolchain "$LOOPCOMPACT_STABLE" $ALL_TARGETS wasm32-unknown-unknown
fi

echo "== Python tools (ziglang, cargo-zigbuild, auditwheel): scripts/test-python --install-tools"
if ! "$pytools/bin/python" -m pip check --disable-pip-version-check >/dev/null 2>&1 \
  || [ ! -x "$pytools/bin/cargo-zigbuild" ]; then
  scripts/test-python --install-tools >/dev/null
fi
"$pytools/bin/cargo-zigbuild" --version

if [ $ci_only = no ]; then
  echo "== cargo-cyclonedx $CARGO_CYCLONEDX_VERSION"
  if [ "$(cargo cyclonedx --version 2>/dev/null)" != "cargo-cyclonedx-cyclonedx $CARGO_CYCLONEDX_VERSION" ]; then
    cargo install cargo-cyclonedx --version "$CARGO_CYCLONEDX_VERSION" --locked
  fi

  # An aarch64 Debian Python to install the aarch64 wheel into, run by qemu-aarch64-static: the
  # arm64 packages of python3.11 and what it loads, unpacked (dpkg -x) into one root. (Debian's
  # multiarch cannot install python3:arm64 beside python3:amd64: python3.11-minimal conflicts
  # across architectures.) musl:arm64 adds the aarch64 musl loader for the musllinux check.
  echo "== target/release-tools/arm64-root: Debian's arm64 python3.11 and musl, unpacked"
  dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64 && apt-get update -qq; }
  rm -rf "$tools/arm64-debs" "$tools/arm64-root"
  mkdir -p "$tools/arm64-debs" "$tools/arm64-root"
  (
    cd "$tools/arm64-debs"
    apt-get download -qq python3.11-minimal:arm64 libpython3.11-minimal:arm64 libpython3.11-stdlib:arm64 \
      libc6:arm64 libgcc-s1:arm64 libffi8:arm64 zlib1g:arm64 libexpat1:arm64 libssl3:arm64 \
      libbz2-1.0:arm64 liblzma5:arm64 libuuid1:arm64 libcrypt1:arm64 libsqlite3-0:arm64 \
      libncursesw6:arm64 libtinfo6:arm64 libreadline8:arm64 libnsl2:arm64 libtirpc3:arm64 \
      musl:arm64 python3-pip-whl python3-setuptools-whl
  )
  for deb in "$tools"/arm64-debs/*.deb; do dpkg-deb -x "$deb" "$tools/arm64-root"; done
  qemu-aarch64-static -L "$tools/arm64-root" "$tools/arm64-root/usr/bin/python3.11" -c \
    'import ctypes, platform, ssl, zlib; print("arm64 root: Python", platform.python_version(), platform.machine())'
fi

echo "== npm: the runtimes of the npm checks (scripts/release-check/js, pinned by its package-lock.json)"
(cd "$checks/js" && npm ci --no-audit --no-fund >/dev/null)
echo "workerd $("$checks/js/node_modules/.bin/workerd" --version), esbuild $("$checks/js/node_modules/.bin/esbuild" --version)"
if [ $ci_only = no ]; then
  (cd "$checks/js/runtimes" && npm ci --no-audit --no-fund >/dev/null)
  echo "$("$checks/js/runtimes/node_modules/.bin/deno" --version | head -n 1), bun $("$checks/js/runtimes/node_modules/.bin/bun" --version)"
fi
