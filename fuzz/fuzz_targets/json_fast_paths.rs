//! The JSON reader's fast entries against its plain state machine: same verdict, same error
//! offset, same events, same state after every step (`loopcompact::fuzzing`, which exists only in
//! this crate's build: cargo-fuzz sets `cfg(fuzzing)`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(difference) = loopcompact::fuzzing::json_fast_paths(data) {
        panic!("{difference}");
    }
});
