# shellcheck shell=bash
# Sourced by scripts/test, scripts/test-go-module and .ci/run before any go command: selects Go
# (Debian's golang-1.23-go when installed, else `go` on PATH), keeps go off the network (standard
# library only, no toolchain download), puts its build and fuzz caches under target/go, and builds
# the package in its in-tree mode (-tags=loopcompact_intree: this checkout's include/ and
# target/release, see link_intree.go). scripts/test-go-module sets GOFLAGS again for the installed
# library.
_lc_go_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -x /usr/lib/go-1.23/bin/go ]; then
  export PATH="/usr/lib/go-1.23/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "error: Go >= 1.23 with cgo is needed for the Go binding (bindings/go)." >&2
  echo "       On Debian bookworm: apt-get install -t bookworm-backports golang-1.23-go (.ci/run does it)." >&2
  return 1
fi
export GOTOOLCHAIN=local GOPROXY=off GOSUMDB=off GOFLAGS="-mod=mod -tags=loopcompact_intree" CGO_ENABLED=1
export GOCACHE="$_lc_go_root/target/go/cache" GOPATH="$_lc_go_root/target/go/path"
unset _lc_go_root
