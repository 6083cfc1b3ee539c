//! A diagnosis's location walk, which passes over the containers a reader accepted, against the
//! token walk alone, at every offset where a reader can stop (`loopcompact::fuzzing`, which
//! exists only in this crate's build: cargo-fuzz sets `cfg(fuzzing)`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(difference) = loopcompact::fuzzing::json_locate(data) {
        panic!("{difference}");
    }
});
