//! One home for what loopcompact's tests, benchmarks and fuzz targets share, so that no
//! test copies a wrapper or a constant from another:
//!
//! - [`status`]: the status values and names of SPEC §3, written out from the spec text, and the
//!   sets of codes each function may return (A3.9).
//! - [`spec`]: sample documents of the spec that several tests use (the R10.7 worked example, a
//!   valid policy, the F7.3 stub...).
//! - [`abi`]: checked wrappers over the `extern "C"` functions: every call checks the boundary
//!   conventions of SPEC §1 and A3.1–A3.6 (out-parameters written only on success, the two-call
//!   pattern, nothing written into a too-small buffer), and [`abi::Input`] owns a handle.
//! - [`convert`]: checked wrappers over the converters of docs/SPEC.md §16.
//! - [`diagnostic`]: checked wrappers over the diagnostics of docs/SPEC.md §13 (the `_diagnose`
//!   siblings, status classes, the retry message, the instructions, the summary's sections).
//! - [`round`]: checked wrappers over the round of docs/SPEC.md §15 (bare reply, head,
//!   replacement build and check).
//! - [`vectors`]: readers for the conformance vectors of `tests/vectors/` (V12.2).
//! - [`corpus`]: deterministic realistic inputs for the benchmarks and the size-dependent tests.
//! - [`fuzz`]: the bodies of the cargo-fuzz targets, with their invariants, so that
//!   `tests/abi/fuzz_regressions.rs` replays the committed seeds through the very same code.
//!
//! Everything here runs inside tests, where a failed check must panic with a message: `unwrap`,
//! `expect`, `panic!` and indexing are fine here (the library's `src/lib.rs` denies them for itself
//! only). Nothing here reads a file unless asked (`vectors`), so the crate also runs under Miri
//! (`tests/ffi_miri.rs`).
pub mod abi;
pub mod convert;
pub mod corpus;
pub mod diagnostic;
pub mod fuzz;
pub mod round;
pub mod spec;
pub mod status;
pub mod vectors;
