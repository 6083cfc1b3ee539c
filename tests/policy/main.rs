//! Policies (SPEC §8) and context limits, occupancy, pressure, replacement (SPEC §9) through the C
//! ABI: every row of `tests/vectors/policy.jsonl` (V12.3), then the field boundaries, every check
//! order step, the capability tables (P8.9–P8.11) and the D6 divergences. Every expected value is
//! taken from the spec text, not from running the implementation.
// The case tables are tuples on purpose: one line per case, read against the spec.
#![allow(clippy::type_complexity)]

mod support;

// V12.3: the conformance vectors of §8 and §9.
mod vectors;
// SPEC §8.1: the compaction policy.
mod compaction;
// SPEC §8.2: the observation policy.
mod observation;
// SPEC §8.3: the context config.
mod context;
// SPEC §9: context limits, occupancy, pressure, replacement.
mod limits;
