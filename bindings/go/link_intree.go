//go:build loopcompact_intree

package loopcompact

// -tags loopcompact_intree: the repository's own tests (goenv.sh sets it for scripts/test and
// .ci/run). The header of this checkout and the shared library of `cargo build --release`, with
// an rpath to target/release so the tests run without LD_LIBRARY_PATH. Not for use outside the
// repository: ${SRCDIR} is the module's directory, wherever the module cache puts it.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -lloopcompact -Wl,-rpath,${SRCDIR}/../../target/release
*/
import "C"

// LinkMode says how this build links the library: "prebuilt", "pkg-config", "static" or "intree".
const LinkMode = "intree"
