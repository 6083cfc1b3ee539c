//go:build loopcompact_pkgconfig && !loopcompact_static && !loopcompact_intree

package loopcompact

// -tags loopcompact_pkgconfig: the installed library, found by pkg-config (cargo-c installs
// loopcompact.pc). For a prefix pkg-config does not search, set PKG_CONFIG_PATH=$prefix/lib/pkgconfig;
// to run, the dynamic loader must find libloopcompact.so.0 (a system libdir, LD_LIBRARY_PATH, or
// CGO_LDFLAGS=-Wl,-rpath,$prefix/lib at build time).

/*
#cgo pkg-config: loopcompact
*/
import "C"

// LinkMode says how this build links the library: "prebuilt", "pkg-config", "static" or "intree".
const LinkMode = "pkg-config"
