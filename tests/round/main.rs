//! A compaction round from the model's own reply (docs/SPEC.md §15) through the C ABI: the bare
//! reply and its equality with the envelope's verdict (R15.1–R15.7), the summariser's input for a
//! cut (R15.8), the replacement transcript (R15.9, R15.10) and its check (R15.11).
//!
//! Expected values come from the rules' text: hand-written replacements, the envelope built by
//! the test itself, line and column counted here.

mod head;
mod replacement;
mod replacement_props;
mod reply;
mod support;
