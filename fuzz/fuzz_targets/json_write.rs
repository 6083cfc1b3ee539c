//! The canonical string writer's one walk against its plain rules: the same bytes into every kind
//! of sink, for text and for every string token of a JSON document (`loopcompact::fuzzing`, which
//! exists only in this crate's build: cargo-fuzz sets `cfg(fuzzing)`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(difference) = loopcompact::fuzzing::json_write(data) {
        panic!("{difference}");
    }
});
