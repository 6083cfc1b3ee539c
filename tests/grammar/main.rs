//! SPEC §17.1–§17.2: the grammars for constrained decoding, the JSON Schema and the renderer.
//!
//! The grammars are proved against the validator, not against themselves: strings sampled from
//! the GBNF grammar (a sampler that reads the grammar text) all validate and all match the regex
//! (compiled by the `regex` crate); the valid vectors inside the subset match and near-misses that
//! the validator rejects never do. Every expected verdict is read off SPEC §4 and §17.

mod support;

// The C ABI of the grammar functions: static strings, NULL for an unknown kind.
mod abi;
// The regex against the vectors, their mutations and hand-written cases.
mod regex;
// A sampler over the GBNF text: thousands of summaries, each validated and matched by the regex.
mod sampler;
// The renderer: properties, refusals and the two-call pattern.
mod render;
