//! The streaming summary validator (SPEC §17.3): the same verdict and diagnosis as the
//! whole-document one for every split, never dead before a prefix that a valid summary extends,
//! and the C ABI over it.

mod corpus;
mod differential;
mod ffi;
