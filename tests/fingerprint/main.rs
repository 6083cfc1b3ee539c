//! The request fingerprint (SPEC §10) through the C ABI and the safe Rust API: the conformance
//! vectors, the R10.7 worked example, each R10.2 step, each R10.3 condition, the R10.4 URL rules,
//! D6/D7, the boundary rules of §1/A3.1, and property tests (idempotent canonical bytes, every field
//! in the digest). Expected values come from the spec text.
//!
//! One test binary for the whole of §10, one module per rule group.

mod support;

// V12.3: the conformance vectors of §10 (`tests/vectors/fingerprint.jsonl`).
mod vectors;
// R10.7: the worked example, its bytes and digest, and documents equivalent to it.
mod worked_example;
// R10.2: each validation step, and the order between neighbours.
mod validation;
// R10.3: every condition on the model.
mod model;
// R10.4: the ten `BaseURL` rules, each with valid and invalid examples (spec text and own).
mod url;
// D6, D7 and the other wire errors (R10.1, J5): missing keys, null, types, numbers, keys, syntax.
mod wire;
// The boundary rules of §1 and A3.1: NULL, empty and overlong buffers, `out` untouched on failure.
mod boundary;
// Property tests: idempotent canonical bytes, every field in the digest, any bytes safe.
mod props;
