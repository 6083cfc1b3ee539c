//! G16.10: the input made from a conversion: the minted identity (recomputed here from the rule's
//! text) and the cuts it allows.

use loopcompact::ffi;
use serde_json::Value;
use sha2::{Digest, Sha256};
use testkit::convert::convert;
use testkit::status::*;

use super::fixtures::{converted, fixtures};

/// E7.6 for plain text of letters and spaces: the text in quotes.
fn quoted(s: &str) -> String {
    assert!(s.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-'));
    format!("\"{s}\"")
}

#[test]
fn the_minted_identity_is_the_rules() {
    let f = fixtures().into_iter().find(|f| f.name == "anthropic__parallel_tools").unwrap();
    let c = converted(&f);
    let input = c.input("anthropic", "claude-x", 2048, 3, None).unwrap();
    let doc: Value = serde_json::from_slice(&input.encode(u64::MAX).unwrap()).unwrap();
    // The event id: SHA-256 of the domain line and the transcript, version 8 and variant bits set.
    let digest = Sha256::new().chain_update(b"loopcompact.event-id.v1\n").chain_update(&c.transcript).finalize();
    let mut b = digest[..16].to_vec();
    b[6] = (b[6] & 0x0F) | 0x80;
    b[8] = (b[8] & 0x3F) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    let uuid = format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]);
    assert_eq!(doc["basis"]["through_event_id"], uuid.as_str());
    assert_eq!(doc["basis"]["revision"], 3);
    assert_eq!(
        (doc["model"]["provider"].as_str(), doc["model"]["model"].as_str()),
        (Some("anthropic"), Some("claude-x"))
    );
    assert_eq!(doc["max_summary_tokens"], 2048);
    // The fingerprint: SHA-256 of the canonical {"provider","model","transcript"} document.
    let mut minted =
        format!("{{\"provider\":{},\"model\":{},\"transcript\":", quoted("anthropic"), quoted("claude-x")).into_bytes();
    minted.extend_from_slice(&c.transcript);
    minted.push(b'}');
    let fp: String = Sha256::digest(&minted).iter().map(|x| format!("{x:02x}")).collect();
    assert_eq!(doc["request_fingerprint"], fp.as_str());
    // A fingerprint of the host's own is used as given.
    let own = [7u8; 32];
    let doc: Value =
        serde_json::from_slice(&c.input("a", "b", 10, 1, Some(own)).unwrap().encode(u64::MAX).unwrap()).unwrap();
    assert_eq!(doc["request_fingerprint"], "07".repeat(32).as_str());
}

#[test]
fn what_the_host_gives_is_checked_as_any_input() {
    let c = convert(ffi::LC_FORMAT_OPENAI_CHAT, br#"[{"role":"user","content":"a"}]"#, 0).unwrap();
    assert_eq!(c.input("p", "m", 10, 0, None).err(), Some(LC_INPUT_BASIS));
    assert_eq!(c.input("", "m", 10, 1, None).err(), Some(LC_INPUT_MODEL));
    assert_eq!(c.input("p", "", 10, 1, None).err(), Some(LC_INPUT_MODEL));
    assert_eq!(c.input("p", "m", 0, 1, None).err(), Some(LC_INPUT_MAX_SUMMARY_TOKENS));
    assert_eq!(c.input("p", "m", 10, 1, Some([0; 32])).err(), Some(LC_INPUT_REQUEST_FINGERPRINT));
}

#[test]
fn an_input_from_a_conversion_cuts_only_at_source_boundaries() {
    // One user message with two tool results and a text: three wire messages, no cut inside.
    let f = fixtures().into_iter().find(|f| f.name == "anthropic__parallel_tools").unwrap();
    let c = converted(&f);
    assert_eq!(c.source_index, [0, 1, 2, 2, 2, 3]);
    assert_eq!(c.cut_allowed, [true, true, true, false, false, true, true]);
    let converted_input = c.input("p", "m", 1000, 1, None).unwrap();
    // The same transcript parsed as a wire document allows the cut inside the split message.
    let plain = testkit::abi::Input::parse(&converted_input.encode(u64::MAX).unwrap()).unwrap();
    let safe_cut = |input: &testkit::abi::Input, keep: u64| {
        let mut cut = 0;
        // SAFETY: a live handle, `cut` writable.
        assert_eq!(unsafe { ffi::lc_transcript_safe_cut(input.as_ptr(), keep, &raw mut cut) }, LC_OK);
        cut
    };
    assert_eq!(safe_cut(&plain, 2), 4);
    assert_eq!(safe_cut(&converted_input, 2), 1);
    // SAFETY: live handles.
    unsafe {
        assert_eq!(ffi::lc_transcript_cut_check(plain.as_ptr(), 4), LC_OK);
        assert_eq!(ffi::lc_transcript_cut_check(converted_input.as_ptr(), 4), LC_CUT_UNSAFE);
    }
    // The source cut of an allowed cut; a cut inside a split message has none.
    assert_eq!(c.source_cut(5), Ok(3));
    assert_eq!(c.source_cut(4), Err(LC_CUT_UNSAFE));
    assert_eq!(c.source_cut(7), Err(LC_ERR_INVALID_ARGUMENT));
}
