//! T17.4 and T17.3 on the safe API: every split gives the whole-document verdict and diagnosis,
//! and the stream never dies on a prefix that a valid summary extends.

use loopcompact::summary::{SummaryStream, diagnose, validate};
use proptest::prelude::*;

use super::corpus::{random_document, rng, valid_documents, vector_documents};

/// Feeds `doc` cut at `cuts` (sorted offsets) and checks the stream against the whole document:
/// the final verdict and diagnosis, the feed verdicts (viable until the death, then the same
/// error on every later chunk), and the death's offset against `viable_through` (the stream may
/// not die before it). Returns where it died.
fn check_split(doc: &[u8], cuts: &[usize], viable_through: usize) -> Option<usize> {
    let whole = validate(doc);
    let whole_diagnosis = diagnose(doc);
    let mut stream = SummaryStream::new();
    let mut start = 0;
    let mut first_error = None;
    for &cut in cuts.iter().chain([doc.len()].iter()) {
        let got = stream.feed(&doc[start..cut]);
        match (&first_error, got) {
            (None, Ok(())) => assert_eq!(stream.dead_at(), None),
            (None, Err(e)) => {
                let at = stream.dead_at().expect("dead");
                assert!(at >= start && at < cut, "died at {at} outside the chunk {start}..{cut}");
                first_error = Some(e);
            }
            (Some(first), got) => assert_eq!(got, Err(*first), "a dead stream stays dead with the same status"),
        }
        start = cut;
    }
    let at = stream.dead_at();
    let context = || format!("{:?} cuts {cuts:?}", String::from_utf8_lossy(doc));
    assert_eq!(stream.finish(), whole, "verdict of {}", context());
    assert_eq!(stream.finish_diagnose(), whole_diagnosis, "diagnosis of {}", context());
    assert_eq!(stream.len(), doc.len());
    if let Some(at) = at {
        assert!(whole.is_err(), "dead at {at} but valid: {}", context());
        assert!(at >= viable_through, "dead at {at} before {viable_through}: {}", context());
        let d = stream.diagnosis();
        assert_eq!(stream.feed(b""), Err(loopcompact::Error::at(d.status(), d.offset().unwrap())));
    } else {
        assert_eq!(stream.diagnosis(), loopcompact::Diagnostic::ok());
    }
    at
}

/// Every chunk size from 1 to 64.
fn check_all_sizes(doc: &[u8], viable_through: usize) {
    let reference = check_split(doc, &[], viable_through);
    for size in 1..=64 {
        let cuts: Vec<usize> = (1..).map(|k| k * size).take_while(|&c| c < doc.len()).collect();
        let at = check_split(doc, &cuts, viable_through);
        assert_eq!(at, reference, "the death does not depend on the split");
    }
}

/// How long a prefix of `doc` some valid document shares.
fn shared_with_valid(doc: &[u8], valid: &[Vec<u8>]) -> usize {
    valid.iter().map(|v| v.iter().zip(doc).take_while(|(a, b)| a == b).count()).max().unwrap_or(0)
}

#[test]
fn vectors_in_every_chunk_size() {
    let valid: Vec<Vec<u8>> = vector_documents()
        .into_iter()
        .map(|(_, xml)| xml)
        .filter(|xml| validate(xml).is_ok())
        .chain(valid_documents())
        .collect();
    for (name, doc) in vector_documents() {
        // A valid document is never dead; an invalid one not before what it shares with one.
        let through = if validate(&doc).is_ok() { doc.len() } else { shared_with_valid(&doc, &valid) };
        std::panic::catch_unwind(|| check_all_sizes(&doc, through)).unwrap_or_else(|_| panic!("vector {name}"));
    }
}

#[test]
fn valid_documents_are_never_dead() {
    for doc in valid_documents() {
        check_all_sizes(&doc, doc.len());
        // Every prefix of a valid document too: viable, never dead (though incomplete).
        for k in 0..=doc.len() {
            let mut stream = SummaryStream::new();
            assert!(stream.feed(&doc[..k]).is_ok(), "prefix {k} of {:?}", String::from_utf8_lossy(&doc));
            assert_eq!(stream.finish(), validate(&doc[..k]));
            assert_eq!(stream.finish_diagnose(), diagnose(&doc[..k]));
        }
    }
}

#[test]
fn random_documents_in_every_chunk_size() {
    let valid = valid_documents();
    let mut next = rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..1500 {
        let doc = random_document(&mut next, &valid);
        check_all_sizes(&doc, shared_with_valid(&doc, &valid));
    }
}

/// The stream's death is early: on these prefixes nothing can follow, and the stream knows it at
/// the byte given (the precise offsets of T17.3's examples).
#[test]
fn dies_at_the_first_hopeless_byte() {
    let cases: &[(&[u8], Option<usize>)] = &[
        (b"\n<conversation_summary>", Some(0)),
        (b"```xml\n<conversation_summary>", Some(0)),
        (b"<conversation_summary><goal>a &am", None),
        (b"<conversation_summary><goal>a &amx", Some(33)),
        (b"<conversation_summary><goal>a \xE2\x82", None),
        (b"<conversation_summary><goal>a ]]", None),
        (b"<conversation_summary><goal>a ]]>", Some(32)),
        (b"<conversation_summa", None),
        (b"<conversation_summary><goal>x</goal> ", None),
        (b"<conversation_summary><goal>x</goal> n", Some(37)),
        (b"<conversation_summary><goal>x</goal><notes>", Some(37)),
        (b"<conversation_summary><goal> <", Some(29)),
        (b"<conversation_summary><goal/", Some(27)),
        (b"<conversation_summary><goal>x</goal><constraints/", None),
        (b"<conversation_summary><goal>x</goa", None),
        (b"<conversation_summary><goal>x</gob", Some(33)),
        (b"<conversation_summary><goal>x<!--", Some(30)),
        (b"<conversation_summary/", Some(21)),
        (b"<conversation_summary x", Some(22)),
        (loopcompact::summary::SMALLEST.as_bytes(), None),
    ];
    let mut trailing = loopcompact::summary::SMALLEST.as_bytes().to_vec();
    trailing.push(b'\n');
    for (doc, expected) in cases.iter().copied().chain([(&trailing[..], Some(trailing.len() - 1))]) {
        let mut stream = SummaryStream::new();
        let _ = stream.feed(doc);
        assert_eq!(stream.dead_at(), expected, "{:?}", String::from_utf8_lossy(doc));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Random splits of random documents, and of arbitrary bytes.
    #[test]
    fn random_splits(seed in any::<u64>(), cuts in proptest::collection::vec(any::<usize>(), 0..12)) {
        let valid = valid_documents();
        let mut next = rng(seed);
        let doc = random_document(&mut next, &valid);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (doc.len() + 1)).collect();
        cuts.sort_unstable();
        check_split(&doc, &cuts, shared_with_valid(&doc, &valid));
    }

    #[test]
    fn arbitrary_bytes(doc in proptest::collection::vec(any::<u8>(), 0..200), cuts in proptest::collection::vec(any::<usize>(), 0..8)) {
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (doc.len() + 1)).collect();
        cuts.sort_unstable();
        check_split(&doc, &cuts, 0);
    }
}

/// Long summaries (the benchmark corpus and the realistic one when python3 is there), whole and
/// with one byte changed at random places, in chunk sizes around and across the fast path's
/// window: the same verdict and diagnosis (line and column included) as the whole document.
#[test]
fn long_summaries_with_mutations() {
    let mut docs = vec![testkit::corpus::summary::summary(48 * 1024)];
    if let Ok(xml) = testkit::corpus::generated("make_summary.py", 48 * 1024) {
        docs.push(xml);
    }
    let mut next = rng(0x5DEE_CE66_D1CE_4E5B);
    let mutations: &[&[u8]] = &[b"<", b"&", b"]]>", b"\xC3", b"\x01", b"&#xD800;", b"\n", b"<![CDATA[", b"</goal>"];
    for base in &docs {
        assert!(validate(base).is_ok());
        let mut variants = vec![base.clone()];
        for _ in 0..40 {
            let mut doc = base.clone();
            let at = (next() % doc.len() as u64) as usize;
            let piece = mutations[(next() % mutations.len() as u64) as usize];
            doc.splice(at..at + usize::from(next().is_multiple_of(2)), piece.iter().copied());
            variants.push(doc);
        }
        for doc in &variants {
            let through = base.iter().zip(doc).take_while(|(a, b)| a == b).count();
            for size in [1, 3, 31, 63, 64, 65, 100, 4096, doc.len()] {
                let cuts: Vec<usize> = (1..).map(|k| k * size).take_while(|&c| c < doc.len()).collect();
                check_split(doc, &cuts, through);
            }
        }
    }
}

/// References cut by a chunk's end at every byte, in each case of the text fast path's window (a
/// chunk shorter than a window, a rest of a window or more, a shorter rest read from the chunk's
/// last window) and across a window's end inside a longer chunk: every named and numeric form,
/// leading zeros longer than a window, and the bad ones, which must fail where the whole document
/// does. The split never changes the verdict, the diagnosis or where the stream dies.
#[test]
fn references_cut_at_every_byte() {
    let long_zeros = format!("&#x{}41;", "0".repeat(70));
    let references = [
        "&lt;",
        "&gt;",
        "&amp;",
        "&apos;",
        "&quot;",
        "&#65;",
        "&#x41;",
        "&#X41;",
        "&#x1F600;",
        "&#32;",
        "&#0000000065;",
        &long_zeros,
        "&bogus;",
        "&#xD800;",
        "&am ",
        "&#;",
        "&#x110000;",
        "& ",
        "&amx;",
        "&#12a;",
        "&lt",
    ];
    // Padded with text, and with white space: a blank goal so far, whose text the value of a
    // reference decides (X4.20).
    for (reference, padding) in references.iter().flat_map(|r| [(r, "w"), (r, " ")]) {
        for pad in 0..72 {
            let line = format!("{}{reference}\ttail ]] \u{e9}\r\n", padding.repeat(pad));
            let doc =
                format!("<conversation_summary><goal>{}</goal><state>s</state></conversation_summary>", line.repeat(3))
                    .into_bytes();
            let whole = check_split(&doc, &[], 0);
            if whole.is_none() {
                assert!(validate(&doc).is_ok(), "{reference} pad {padding:?} x {pad}");
            }
            for size in [1, 5, 8, 63, 64, 65, 100, 127, 128, 129] {
                let cuts: Vec<usize> = (1..).map(|k| k * size).take_while(|&c| c < doc.len()).collect();
                assert_eq!(check_split(&doc, &cuts, 0), whole, "{reference} pad {padding:?} x {pad} size {size}");
            }
        }
    }
}

/// T17.1: the stream keeps no text: its size is fixed and small, whatever it was fed.
#[test]
fn memory_is_fixed() {
    let size = size_of::<SummaryStream>();
    assert!(size <= 1024, "SummaryStream is {size} bytes");
}
