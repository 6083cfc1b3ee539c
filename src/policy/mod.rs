//! Compaction policy, observation policy and context config (SPEC §8).

pub mod capability;
