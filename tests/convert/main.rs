//! The converters of docs/SPEC.md §16 through the C ABI, on fixtures the providers' own SDKs built
//! (tests/convert/make_fixtures.py, tests/convert/ai-sdk/): every fixture converts, its wire
//! parses, its losses are the ones the rules give, its signatures arrive byte-exact, it pairs
//! exactly when the source pairs by the source format's own rule, and every allowed safe cut maps
//! to a safe source cut. Then refusals with their locations, the minted identity and properties.

mod chat_gaps;
mod errors;
mod fixtures;
mod gemini_gaps;
mod identity;
mod langchain_gaps;
mod oracle;
mod pinned;
mod props;
mod rules;
mod silent_drops;
mod unknown_fields;
