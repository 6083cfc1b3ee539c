//! R15.8: what the summariser is given for a cut is the input of the first `cut` messages, fitted
//! as §7 fits any input.

use testkit::abi::Input;
use testkit::spec::wire_of;
use testkit::status::*;

use super::support::*;

fn transcript() -> Vec<String> {
    vec![
        system("rules"),
        system("more rules"),
        user("hello <there>"),
        calls("c1", "sig-1"),
        tool("c1"),
        calls("c2", "sig-2"),
        tool("c2"),
        assistant("done"),
        user("next"),
    ]
}

#[test]
fn the_head_is_the_input_of_its_messages() {
    let messages = transcript();
    let full = input(&messages);
    for cut in 3..=messages.len() {
        let head = Input::parse(&wire_of(&messages[..cut], 1000)).unwrap();
        // Fitted alike under every limit, stubs included (F7.3 on the head alone).
        let whole = head.encode(u64::MAX).unwrap().len() as u64;
        for limit in [u64::MAX, whole, whole - 1, whole - 60, whole / 2, 300, 1] {
            assert_eq!(full.head(cut as u64, limit), head.encode(limit), "cut {cut}, limit {limit}");
        }
    }
}

#[test]
fn cuts_with_nothing_to_summarise_are_refused() {
    let full = input(&transcript());
    assert_eq!(full.head(0, u64::MAX), Err(LC_REPLACEMENT_EMPTY_HEAD));
    assert_eq!(full.head(10, u64::MAX), Err(LC_ERR_INVALID_ARGUMENT));
    assert_eq!(full.head(u64::MAX, u64::MAX), Err(LC_ERR_INVALID_ARGUMENT));
    // Two leading system messages: a head of one or two has nothing to summarise.
    assert_eq!(full.head(1, u64::MAX), Err(LC_REPLACEMENT_EMPTY_HEAD));
    assert_eq!(full.head(2, u64::MAX), Err(LC_REPLACEMENT_EMPTY_HEAD));
    assert!(full.head(3, u64::MAX).is_ok());
    // A limit nothing fits under.
    assert_eq!(full.head(3, 0), Err(LC_INPUT_TOO_LARGE));
    // A transcript of system messages only has no head at all.
    let systems = input(&[system("a"), system("b")]);
    assert_eq!(systems.head(2, u64::MAX), Err(LC_REPLACEMENT_EMPTY_HEAD));
}

/// What a host reads back from a handle (the round's budget, the cut's range, the kept prefix).
#[test]
fn the_handle_s_counts() {
    use loopcompact::ffi::{
        lc_compaction_input_leading_systems, lc_compaction_input_max_summary_tokens, lc_compaction_input_message_count,
    };
    let input = input(&[system("s1"), system("s2"), user("q"), system("s3"), assistant("a")]);
    let read = |f: unsafe extern "C" fn(*const loopcompact::ffi::lc_compaction_input, *mut u64) -> i32| {
        let mut out = u64::MAX;
        // SAFETY: a live handle and an out-pointer.
        let status = unsafe { f(input.as_ptr(), &mut out) };
        assert_eq!(status, 0);
        out
    };
    assert_eq!(read(lc_compaction_input_message_count), 5);
    // Only the two at the start: s3 comes after a user message (R15.8).
    assert_eq!(read(lc_compaction_input_leading_systems), 2);
    // support::input writes max_summary_tokens 1000 (wire_of's second argument).
    assert_eq!(read(lc_compaction_input_max_summary_tokens), 1000);
    // SAFETY: NULL pointers are the cases under test.
    unsafe {
        assert_eq!(lc_compaction_input_message_count(input.as_ptr(), std::ptr::null_mut()), 1);
        assert_eq!(lc_compaction_input_max_summary_tokens(std::ptr::null(), &mut 0), 1);
    }
}
