//! The body of the cargo-fuzz target `json_fast_paths`, and the proptest that runs the same body
//! in `cargo test`: the JSON reader's fast entries against its plain state machine
//! (`json::differential`), with the proofs the library hands them (the R10.5 `Stop` scan, the
//! base64 alphabet run) and with general ones. Not an API: the module exists only in the fuzz
//! crate's build (`cfg(fuzzing)`, which cargo-fuzz sets) and in this crate's tests.

use crate::json::differential::{self, AlphanumericPrefix, PulledArray, Start};

/// One fuzz input: byte 0 chooses the parser both sides start with, byte 1 is the length `k` of
/// the script, the next `k` bytes are the script (one byte per step: the entry, then its argument;
/// `next` to the end after it), and the rest is the document. Missing bytes read as zero.
/// `Err` says what differed between the fast entries and `next`.
pub fn json_fast_paths(data: &[u8]) -> Result<(), String> {
    let (&start, rest) = data.split_first().unwrap_or((&0, &[]));
    let (&len, rest) = rest.split_first().unwrap_or((&0, &[]));
    let (script, doc) = rest.split_at_checked(usize::from(len)).unwrap_or((rest, &[]));
    let start = Start::of(start);
    differential::check::<_, AlphanumericPrefix>(doc, start, script, PulledArray::scan)?;
    differential::check::<_, crate::wire::AlphabetPrefix>(doc, start, script, crate::fingerprint::stop_array_end)
}

/// The body of the cargo-fuzz target `json_locate`: a diagnosis's location walk with its skips of
/// accepted containers (`json::path::locate`) against the token walk alone, at every offset of
/// the input where a reader can stop. Keys are named from a few layout names, so paths have names
/// too. `Err` says what differed.
pub fn json_locate(data: &[u8]) -> Result<(), String> {
    const NAMES: &[&str] = &["transcript", "blocks", "type", "text", "Stop", "Model", "a", "k"];
    // Every offset is a walk of its own (the harness is quadratic, a diagnosis is not): inputs are
    // cut at 1 KiB, which keeps a deep-nesting seed under a second with the sanitizer.
    let data = data.get(..1024).unwrap_or(data);
    crate::json::path::skips_against_walk(data, NAMES).map(|_| ())
}

/// The body of the cargo-fuzz target `json_write`: the canonical string writer's one walk
/// (`json::write::put_body`) against the plain rules. Byte 0 even: the rest as text, when it is
/// UTF-8. Odd: the rest as a JSON document, every string token the parser reads in it (keys and
/// values, up to the first error) as the body the converters and encoders hand the writer. `Err`
/// says what differed.
pub fn json_write(data: &[u8]) -> Result<(), String> {
    use crate::json::write::one_pass_agrees;
    use crate::json::{Event, Parser};

    let (&mode, rest) = data.split_first().unwrap_or((&0, &[]));
    if mode % 2 == 0 {
        return match core::str::from_utf8(rest) {
            Ok(text) => one_pass_agrees(text.as_bytes(), false),
            Err(_) => Ok(()),
        };
    }
    let mut p = Parser::new(rest);
    while let Ok(event) = p.next() {
        if let Event::Key(s) | Event::String(s) = event
            && s.check_utf8().is_ok()
        {
            one_pass_agrees(s.raw(), s.has_escapes())?;
        }
        if p.depth() == 0 {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::sample::{Index, select};

    use super::json_fast_paths;
    use crate::json::MAX_DEPTH;

    /// The frame of [`json_fast_paths`].
    fn frame(start: u8, script: &[u8], doc: &[u8]) -> Vec<u8> {
        let script = &script[..script.len().min(255)];
        [&[start, script.len() as u8][..], script, doc].concat()
    }

    fn bytes(texts: &'static [&'static str]) -> BoxedStrategy<Vec<u8>> {
        select(texts).prop_map(|t| t.as_bytes().to_vec()).boxed()
    }

    fn ws() -> BoxedStrategy<Vec<u8>> {
        prop_oneof![6 => Just(vec![]), 2 => Just(b" ".to_vec()), 1 => bytes(&["\n  ", "\t\r\n "])].boxed()
    }

    /// Names of the differential tables, as written: the keys and values the fast entries take.
    const NAMES: &[&str] = &[
        "role",
        "content",
        "type",
        "id",
        "tool_use_id",
        "StructuredOutput",
        "StructuredOutputWithTools",
        "a",
        "user",
        "assistant",
        "k",
        "key",
        "a_key_of_more_than_sixteen_bytes",
    ];

    /// Bytes J5.1 refuses in a string (raw controls, broken escapes, a lone `\\` or `"`) and bytes
    /// J5.3 refuses (invalid UTF-8).
    const REFUSED: &[&[u8]] = &[
        b"\xff",
        b"\xc3",
        b"\x80",
        b"\xed\xa0\x80",
        b"\x01",
        b"\x1f",
        b"\t",
        br"\x",
        br"\u12",
        br"\u12g4",
        b"\\",
        b"\"",
    ];

    /// A piece of a string body: long plain runs (base64 text crosses the scan's words and
    /// blocks), every escape, non-ASCII text, names, and bytes J5.1 or J5.3 refuses.
    fn body_piece() -> BoxedStrategy<Vec<u8>> {
        prop_oneof![
            4 => "[A-Za-z0-9+/]{1,90}".prop_map(String::into_bytes),
            2 => "[a-z ]{1,12}".prop_map(String::into_bytes),
            3 => bytes(&[
                r"\n", r"\t", r#"\""#, r"\\", r"\/", r"\b\f\r", r"\u00e9", r"\ud83d\ude00", r"\u0041", r"\u003c",
                r"\u2028", r"\ud800",
            ]),
            1 => bytes(&["é", "€", "😀", "\u{2028}"]),
            1 => bytes(NAMES),
            1 => select(REFUSED).prop_map(<[u8]>::to_vec),
        ]
        .boxed()
    }

    fn quoted(body: &[u8]) -> Vec<u8> {
        [b"\"", body, b"\""].concat()
    }

    fn string_token() -> BoxedStrategy<Vec<u8>> {
        prop::collection::vec(body_piece(), 0..6).prop_map(|pieces| quoted(&pieces.concat())).boxed()
    }

    /// Keys: mostly names as written, some escaped (the same key to `next`, not to `NameTable::find`),
    /// some anything.
    fn key_token() -> BoxedStrategy<Vec<u8>> {
        prop_oneof![
            4 => bytes(NAMES).prop_map(|name| quoted(&name)),
            1 => bytes(&[r#""\u0072ole""#, r#""typ\u0065""#, r#""\"""#]),
            2 => string_token(),
        ]
        .boxed()
    }

    /// Numbers of every form J5.1 accepts, and some it does not.
    fn number_token() -> BoxedStrategy<Vec<u8>> {
        prop_oneof![
            2 => bytes(&["0", "-0", "7", "255", "256", "65535", "999999999999999999", "1000000000000000000"]),
            3 => "[1-9][0-9]{0,20}".prop_map(String::into_bytes),
            2 => "-?(0|[1-9][0-9]{0,4})\\.[0-9]{1,20}".prop_map(String::into_bytes),
            2 => "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?[eE][+-]?[0-9]{1,3}".prop_map(String::into_bytes),
            1 => bytes(&["01", "1.", "-", ".5", "1e", "1e+", "--1", "1.e5", "-a", "+1", "00"]),
        ]
        .boxed()
    }

    /// Strings as E7.6 writes them: what the R10.5 `Stop` scan accepts.
    fn canonical_string() -> BoxedStrategy<Vec<u8>> {
        prop::collection::vec(
            prop_oneof![
                3 => "[a-zA-Z0-9 .]{1,40}".prop_map(String::into_bytes),
                1 => bytes(&[r"\n", r"\u003c", r#"\""#, r"\\", "é"]),
            ],
            0..4,
        )
        .prop_map(|pieces| quoted(&pieces.concat()))
        .boxed()
    }

    /// The `:` after a key, mostly; sometimes what J5.1 refuses there.
    fn colon() -> BoxedStrategy<Vec<u8>> {
        prop_oneof![12 => Just(b":".to_vec()), 1 => bytes(&["", ",", ";", "::", "\"", "}"])].boxed()
    }

    fn join(items: Vec<Vec<u8>>, open: &[u8], close: &[u8]) -> Vec<u8> {
        [open, &items.join(&b","[..]), close].concat()
    }

    fn value() -> BoxedStrategy<Vec<u8>> {
        let scalar = prop_oneof![
            3 => string_token(),
            2 => bytes(NAMES).prop_map(|name| quoted(&name)),
            3 => number_token(),
            1 => bytes(&["true", "false", "null", "nul", "tru", "fals"]),
        ];
        scalar
            .prop_recursive(6, 200, 8, |inner| {
                prop_oneof![
                    4 => prop::collection::vec((ws(), inner.clone(), ws()), 0..8)
                        .prop_map(|items| join(items.into_iter().map(|(a, v, b)| [a, v, b].concat()).collect(), b"[", b"]")),
                    4 => prop::collection::vec((ws(), key_token(), ws(), colon(), ws(), inner.clone(), ws()), 0..8)
                        .prop_map(|members| {
                            let members = members.into_iter().map(|(a, k, b, colon, c, v, d)| [a, k, b, colon, c, v, d].concat());
                            join(members.collect(), b"{", b"}")
                        }),
                    // A member's array closed once too often, or by the wrong bracket.
                    1 => (inner.clone(), bytes(&["]", "]]", "}", "}]", "]}"]))
                        .prop_map(|(v, extra)| [&b"{\"content\":[["[..], &v, b"]]", &extra, b"}"].concat()),
                    // Runs of numbers (a raw value's tool input), canonical `Stop` arrays, and runs of
                    // brackets, as deep as J5.2 allows and one deeper.
                    2 => prop::collection::vec(number_token(), 1..12).prop_map(|n| join(n, b"[", b"]")),
                    2 => prop::collection::vec(canonical_string(), 0..8).prop_map(|s| join(s, b"[", b"]")),
                    1 => (prop_oneof![8 => 1..70usize, 1 => select(&[MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1][..])], inner)
                        .prop_map(|(n, v)| [b"[".repeat(n), v, b"]".repeat(n)].concat()),
                ]
            })
            .boxed()
    }

    /// A document: a value, often broken afterwards (cut short; a byte replaced, added or
    /// removed anywhere; a bracket, brace or separator where it does not belong).
    fn document() -> BoxedStrategy<Vec<u8>> {
        (ws(), value(), ws(), 0..10u8, any::<Index>(), any::<u8>(), select(&b"[]{},:\" "[..]))
            .prop_map(|(a, v, b, change, at, byte, structural)| {
                let mut doc = [a, v, b].concat();
                let i = at.index(doc.len() + 1);
                match change {
                    0 => doc.truncate(i),
                    1 if i < doc.len() => doc[i] = byte,
                    2 => doc.insert(i, byte),
                    3 if i < doc.len() => {
                        doc.remove(i);
                    }
                    4 => doc.insert(i, structural),
                    5 if i < doc.len() => doc[i] = structural,
                    _ => {}
                }
                doc
            })
            .boxed()
    }

    /// Scripts: random entries, or one entry (with one argument) all the way, or two in turn.
    fn script() -> BoxedStrategy<Vec<u8>> {
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..64),
            any::<u8>().prop_map(|b| vec![b; 255]),
            (any::<u8>(), any::<u8>()).prop_map(|(a, b)| [a, b].repeat(120)),
        ]
        .boxed()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Every fast entry reads what `next` reads: same verdict, error offset, events and state.
        #[test]
        fn fast_entries_read_what_next_reads(start in any::<u8>(), script in script(), doc in document()) {
            prop_assert_eq!(json_fast_paths(&frame(start, &script, &doc)), Ok(()));
        }

        /// The string writer's one walk writes what the plain rules write, for every string token
        /// of a generated document (mode 1) and for the document's bytes as text (mode 0).
        #[test]
        fn string_writer_writes_what_the_plain_rules_write(mode in 0u8..2, doc in document()) {
            prop_assert_eq!(super::json_write(&[&[mode][..], &doc].concat()), Ok(()));
        }
    }

    /// The committed seeds of the fuzz targets (`fuzz/seeds/json_fast_paths/`,
    /// `fuzz/seeds/json_locate/`), replayed.
    #[test]
    fn fuzz_seeds_replay() {
        type Target = fn(&[u8]) -> Result<(), String>;
        let targets: [(&str, Target); 2] = [("json_fast_paths", json_fast_paths), ("json_locate", super::json_locate)];
        for (name, target) in targets {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(name);
            let mut seen = 0;
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                assert_eq!(target(&std::fs::read(&path).unwrap()), Ok(()), "{}", path.display());
                seen += 1;
            }
            assert!(seen > 0, "{} holds no seeds", dir.display());
        }
    }
}
