//! loopcompact: the validation boundary of agent-loop context compaction, as a Rust library with a
//! C ABI.
//!
//! An agent loop compacts its transcript by asking a summariser model for an XML summary that
//! replaces the old history. Before that replacement is committed, loopcompact checks the
//! summariser's input, its output, the compaction policy and the request fingerprint, giving the same
//! verdicts as the reference system for every input. The contract is `docs/SPEC.md` in the repository
//! and the source package (rules cited as `X4.3`, `W5.2`, ... in the code; "SPEC §N" is its section N).
//!
//! # Example
//!
//! ```
//! use loopcompact::{Status, summary, wire::CompactionInput};
//!
//! let xml = b"<conversation_summary><goal>ship</goal><constraints/><decisions/>\
//!             <state>tests pass</state><open_items/></conversation_summary>";
//! assert!(summary::validate(xml).is_ok());
//! assert_eq!(summary::validate(b"<summary/>").unwrap_err().status(), Status::SummaryXmlRoot);
//!
//! let wire = br#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},
//!   "model":{"provider":"p","model":"m"},
//!   "request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
//!   "transcript":[{"role":"user","blocks":[{"type":"text","text":"hello"}]}],"max_summary_tokens":32}"#;
//! let input = CompactionInput::parse(wire)?;
//! let request = input.encode_within(64_000).expect("fits"); // the bytes to send to the summariser
//! assert!(request.starts_with(br#"{"version":1,"basis":{"revision":3,"#));
//!
//! let reply = br#"{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},
//!   "model":{"provider":"p","model":"m"},
//!   "request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
//!   "summary":"<conversation_summary><goal>greet</goal><constraints/><decisions/><state>said hello</state><open_items/></conversation_summary>"}"#;
//! let summary = input.validate_output(reply, 20, 4096)?; // output tokens, byte limit
//! assert!(summary.as_str().contains("<goal>greet</goal>"));
//! # Ok::<(), loopcompact::Error>(())
//! ```
//!
//! Module map:
//! - [`status`]: the status table (SPEC §3, classes §13), the single source of every code.
//! - [`summary`]: the strict summary XML grammar (SPEC §4), its diagnosis and sections (§13).
//! - [`wire`]: the compaction input and output wires, transcript, fitting (SPEC §5–§7), tool-call
//!   pairing and safe cuts (§14).
//! - [`policy`]: compaction policy, observation policy, context config (SPEC §8).
//! - [`limits`]: context limits, occupancy, pressure, replacement check (SPEC §9), the loop guard
//!   (§14).
//! - [`fingerprint`]: the request fingerprint (SPEC §10).
//! - [`convert`]: converters from the message lists of OpenAI, Anthropic, Gemini, the AI SDK and
//!   LangChain to the wire transcript, with a cut map and a loss report (SPEC §16).
//! - [`round`]: a compaction round from the model's own reply: the bare reply, the summariser's
//!   input for a cut, the replacement transcript and its check (SPEC §15).
//! - [`diagnostic`]: where and what of a failure, the retry message, the summariser's instructions
//!   (SPEC §13).
//! - `json` (private): strict JSON reading, object layouts declared once, canonical writing.
//! - `testing` (unit tests only): the helpers of the unit tests inside the crate.
//! - [`ffi`]: the C ABI (SPEC §1, §2), the only module with `unsafe` code: it converts and calls one
//!   core function per export.
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod convert;
pub mod diagnostic;
mod digits;
pub mod error;
pub mod ffi;
pub mod fingerprint;
// The fuzz target `json_fast_paths` calls into the JSON reader through this module: public only
// in the fuzz crate's build (cargo-fuzz sets `cfg(fuzzing)`), absent from every other.
#[cfg(fuzzing)]
#[doc(hidden)]
#[allow(missing_docs)]
pub mod fuzzing;
#[cfg(all(test, not(fuzzing)))]
mod fuzzing;
pub(crate) mod json;
mod lanes;
pub mod limits;
pub mod policy;
pub mod round;
mod section;
pub mod status;
pub mod summary;
pub mod wire;

// The unit tests' helpers (`testing::xorshift`). The alias serves the unit tests of
// json/parser.rs, lanes.rs and wire/base64.rs, which still name `crate::xorshift`; it goes when
// they name `crate::testing::xorshift` too.
#[cfg(test)]
mod testing;
// The layouts of every JSON document, held against each other.
#[cfg(test)]
mod documents;
#[cfg(test)]
pub(crate) use testing::xorshift;

pub use diagnostic::Diagnostic;
pub use error::{Error, Result};
pub use status::{Status, StatusClass};

/// The crate version, `"0.1.0"`, the same string as `lc_version()`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The C ABI version (`LC_ABI_VERSION`, `lc_abi_version()`), written once in `src/abi_version.rs`.
pub const ABI_VERSION: u32 = include!("abi_version.rs");
