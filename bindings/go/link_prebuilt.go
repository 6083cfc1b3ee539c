//go:build !loopcompact_pkgconfig && !loopcompact_static && !loopcompact_intree

package loopcompact

// The default: the prebuilt static library of the release, which the module carries at its
// release tags (bindings/go/vX.Y.Z) under prebuilt/<GOOS>_<GOARCH>/, with the header under
// prebuilt/include/ (scripts/release puts them there; between releases the directory is absent
// and a build of this mode fails: use -tags loopcompact_intree in the repository, or
// loopcompact_pkgconfig with an installed library). The library is linked into the Go binary: the
// program needs no libloopcompact at run time, and the build needs no Rust toolchain, only cgo's C
// compiler.
//
// Each platform's system libraries are those rustc prints for the static library
// (--print native-static-libs); scripts/release checks these lines against them at every
// release. -tags loopcompact_musl selects the musl builds on Linux (Alpine: CC=musl-gcc or the
// distribution's gcc).

/*
#cgo CFLAGS: -I${SRCDIR}/prebuilt/include
#cgo linux,amd64,!loopcompact_musl LDFLAGS: -L${SRCDIR}/prebuilt/linux_amd64 -lloopcompact -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
#cgo linux,arm64,!loopcompact_musl LDFLAGS: -L${SRCDIR}/prebuilt/linux_arm64 -lloopcompact -lc -lm -lrt -lpthread -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
#cgo linux,amd64,loopcompact_musl LDFLAGS: -L${SRCDIR}/prebuilt/linux_amd64_musl -lloopcompact -lgcc_s -lc
#cgo linux,arm64,loopcompact_musl LDFLAGS: -L${SRCDIR}/prebuilt/linux_arm64_musl -lloopcompact -lgcc_s -lc
#cgo darwin,amd64 LDFLAGS: -L${SRCDIR}/prebuilt/darwin_amd64 -lloopcompact -lSystem -lc -lm
#cgo darwin,arm64 LDFLAGS: -L${SRCDIR}/prebuilt/darwin_arm64 -lloopcompact -lc -lm -liconv -lSystem -lc -lm
#cgo windows,amd64 LDFLAGS: -L${SRCDIR}/prebuilt/windows_amd64 -lloopcompact -lkernel32 -lntdll -luserenv -lws2_32 -ldbghelp
*/
import "C"

// LinkMode says how this build links the library: "prebuilt", "pkg-config", "static" or "intree".
const LinkMode = "prebuilt"
