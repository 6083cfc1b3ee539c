//! Deterministic realistic inputs, the same on every run: for the benchmarks (`benches/`), the
//! measuring tools (`benches/tools/`) and the tests whose subject is size.

pub mod summary;
pub mod wire;
