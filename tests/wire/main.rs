//! The compaction input and output wires (SPEC §5, §6, §7, §11) through the C ABI: the conformance
//! vectors (V12.3), then the rules the vector rows do not reach — every block kind and role, the
//! W5.2 and O6.2 check orders pair by pair, depth limits, the divergences D1–D4, the canonical
//! encoding E7 and fitting F7, handles and the boundary rules of §1/A3 — and property tests.
//!
//! Every expected status and every expected byte string is written from the spec text (the rule is
//! cited beside each case), never taken from running the code. Inputs are built from one small valid
//! template (already in canonical form) by splicing in a transcript, a message or a block
//! (`support`), so that a case differs from a valid document only where it says.
//!
//! One test binary for the whole of §5–§7: linking is most of a test run's time.

mod support;

// SPEC §5: the document, its JSON rules and the divergences of §11 that concern it.
mod document;
// SPEC §5.3: the transcript.
mod transcript;
// SPEC §6: output validation.
mod output;
// SPEC §7.1: the canonical encoding.
mod encoding;
// SPEC §7: fitting under a byte limit.
mod fitting;
// SPEC §1, A3: handles and the boundary.
mod boundary;
// V12.3: the conformance vectors of §5–§7.
mod vectors;
// Generated valid and mutated documents and replies (A3.9).
mod props;
