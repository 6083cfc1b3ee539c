//! The conversions of every fixture, pinned in tests/convert/pinned.jsonl: the hosts (Go, and any
//! other that reads it) compare what they get through their own wrappers with this file, not with
//! a second call of the same C function. One line per fixture, keys in this order: `name`,
//! `format`, `transcript_len`, `transcript_sha256`, `source_index` (`null` for the system
//! parameter), `cut_allowed`, `source_cuts` (the source cut of each allowed wire cut, `null` where
//! a cut is not allowed), `source_len`, `losses` (`[source index or null, name]`),
//! `request_fingerprint` (minted for provider `provider` and model `model`) and
//! `through_event_id`.
//!
//! `LOOPCOMPACT_UPDATE_PINNED=1 cargo test --test convert pinned` rewrites the file after a
//! deliberate change of a converter rule; otherwise the file must equal what the library gives, so
//! a change that moves any of these figures is seen here first, in review, as a diff of the file.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};
use testkit::convert::loss_name;

use super::fixtures::{converted, fixtures};

const SYSTEM: u64 = u64::MAX;

fn index(i: u64) -> String {
    if i == SYSTEM { "null".to_owned() } else { i.to_string() }
}

fn list<T>(items: &[T], each: impl Fn(&T) -> String) -> String {
    let parts: Vec<String> = items.iter().map(each).collect();
    format!("[{}]", parts.join(","))
}

/// The file's text, from the library.
fn pinned() -> String {
    let mut out = String::new();
    for f in fixtures() {
        let c = converted(&f);
        let digest: String = Sha256::digest(&c.transcript).iter().map(|b| format!("{b:02x}")).collect();
        let cuts: Vec<Option<u64>> = c
            .cut_allowed
            .iter()
            .enumerate()
            .map(|(cut, &ok)| {
                let s = c.source_cut(cut);
                assert_eq!(ok, s.is_ok(), "{}: cut {cut} allowed {ok}, source cut {s:?}", f.name);
                s.ok()
            })
            .collect();
        let input = c.input("provider", "model", 1000, 1, None).unwrap();
        let doc: Value = serde_json::from_slice(&input.encode(u64::MAX).unwrap()).unwrap();
        let text = |v: &Value| v.as_str().unwrap().to_owned();
        writeln!(
            out,
            "{{\"name\":\"{}\",\"format\":\"{}\",\"transcript_len\":{},\"transcript_sha256\":\"{digest}\",\
             \"source_index\":{},\"cut_allowed\":{},\"source_cuts\":{},\"source_len\":{},\"losses\":{},\
             \"request_fingerprint\":\"{}\",\"through_event_id\":\"{}\"}}",
            f.name,
            f.format,
            c.transcript.len(),
            list(&c.source_index, |&i| index(i)),
            list(&c.cut_allowed, |a| a.to_string()),
            list(&cuts, |s| s.map_or_else(|| "null".to_owned(), |s| s.to_string())),
            c.source_len(),
            list(&c.losses, |&(i, code)| format!("[{},\"{}\"]", index(i), loss_name(code))),
            text(&doc["request_fingerprint"]),
            text(&doc["basis"]["through_event_id"]),
        )
        .unwrap();
    }
    out
}

#[test]
fn pinned_conversions_are_the_library_s() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/convert/pinned.jsonl");
    let now = pinned();
    // Every line is JSON, one per fixture (the hosts parse it).
    for line in now.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["cut_allowed"].as_array().unwrap().len(), v["source_index"].as_array().unwrap().len() + 1);
    }
    if std::env::var("LOOPCOMPACT_UPDATE_PINNED").as_deref() == Ok("1") {
        std::fs::write(&path, &now).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != now {
        let differ = committed.lines().zip(now.lines()).position(|(a, b)| a != b);
        panic!(
            "tests/convert/pinned.jsonl is not what the converters give (first differing line: {differ:?}, \
             {} lines committed, {} now); after a deliberate rule change run \
             `LOOPCOMPACT_UPDATE_PINNED=1 cargo test --test convert pinned` and review the diff",
            committed.lines().count(),
            now.lines().count()
        );
    }
}
