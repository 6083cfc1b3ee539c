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
