//go:build loopcompact_static && !loopcompact_intree

package loopcompact

// -tags loopcompact_static: the installed libloopcompact.a, linked into the Go binary, so that it
// needs no libloopcompact.so at run time. pkg-config --static adds the system libraries the Rust
// standard library needs (Libs.private, recorded by cargo-c from --print native-static-libs).
//
// pkg-config's Libs say -lloopcompact, which the linker resolves to the .so when both are
// installed. So the archive is named first, between -Bstatic and -Bdynamic (the -L of pkg-config
// applies to every -l, wherever it stands), and --as-needed keeps the later -lloopcompact, which
// then resolves no symbol, from adding a DT_NEEDED entry. GNU ld, gold and lld understand these.

/*
#cgo pkg-config: --static loopcompact
#cgo LDFLAGS: -Wl,-Bstatic -lloopcompact -Wl,-Bdynamic -Wl,--as-needed
*/
import "C"

// LinkMode says how this build links the library: "prebuilt", "pkg-config", "static" or "intree".
const LinkMode = "static"
