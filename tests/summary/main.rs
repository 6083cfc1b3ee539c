//! The summary XML grammar (SPEC §4): the conformance vectors through the C ABI, then the rules the
//! vectors leave open (one test per X4.x), the safe API's offsets, huge inputs and property tests,
//! a cross-check against an independent XML reader, and validation without allocation.
//!
//! Every expected verdict below was read off SPEC §4, not taken from a run of the code.

mod support;

// V12.3: the conformance vectors of §4.
mod vectors;
// SPEC §4.1: the tokenizer.
mod tokenizer;
// SPEC §4.2: the classifier.
mod classifier;
// The safe API's statuses and offsets.
mod safe_api;
// Huge inputs.
mod huge;
// Generated and edited summaries.
mod props;
// Every accepted summary is well-formed XML to quick-xml.
mod quickxml;
// No heap allocation while validating (a counting global allocator).
mod no_alloc;
