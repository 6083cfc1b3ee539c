//! The C ABI's own contract, apart from what each function validates: the boundary rules, the meta
//! functions and the status table (SPEC §1–§3), and the fuzz seeds replayed through the fuzz targets'
//! invariants (A3.9).

// SPEC §1–§3: buffers, statuses, meta functions, the panic guard.
mod contract;
// fuzz/seeds/<target>/ through testkit::fuzz.
mod fuzz_regressions;
