//! The bodies of the cargo-fuzz targets (`fuzz/fuzz_targets/<target>.rs` is one line calling
//! `target_<target>` here), with the invariants each checks beyond "no crash": one module per
//! target family, over the checked wrappers of [`crate::abi`] (which check the boundary conventions
//! of SPEC §1, A3.1 and A3.2 on every call) and the status sets of A3.9 ([`crate::status`]).
//!
//! The bodies live in the testkit, not in the fuzz crate, so that `tests/abi/fuzz_regressions.rs`
//! replays the inputs under `fuzz/seeds/<target>/` with the very same invariants in `cargo test`
//! without building libFuzzer.
//!
//! A failed invariant panics; libFuzzer reports the panic as a crash and saves the input. A panic
//! inside the library is caught by its guard and returned as `LC_ERR_PANIC` (99), which no status
//! set admits, so it is reported too.

mod fingerprint;
mod limits;
mod policy;
mod reader;
mod round;
mod safety;
mod summary;
mod wire;

pub use fingerprint::target_request_fingerprint;
pub use limits::target_limits;
pub use policy::{
    QUALITIES, config_around, target_compaction_policy, target_context_config, target_context_observation,
};
pub use reader::Reader;
pub use round::{envelope_for, target_compaction_reply, target_convert, target_replacement};
pub use safety::target_transcript_safety;
pub use summary::{target_summary_stream, target_summary_xml};
pub use wire::{target_input_parse, target_output_validate};

/// Whitespace that J5.1 allows around a JSON document: wrapping a document in it changes nothing.
#[must_use]
pub fn padded(json: &[u8]) -> Vec<u8> {
    [b" \n\t\r".as_slice(), json, b"\r\n \t".as_slice()].concat()
}
