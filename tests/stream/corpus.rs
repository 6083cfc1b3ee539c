//! Documents to split: every summary vector, valid summaries, and random documents made of the
//! pieces every rule of §4 looks at.

use testkit::vectors;

/// Every summary of the conformance vectors (the project's and, when present, the shared ones).
pub fn vector_documents() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut files = vec![vectors::vectors_dir().join("summary_xml.jsonl")];
    if let Some(shared) = vectors::shared_vectors_dir() {
        files.push(shared.join("summary_xml.jsonl"));
    }
    for file in files {
        for row in vectors::rows_from(&file) {
            if let Some(xml) = vectors::bytes_field(&row, "xml") {
                out.push((vectors::name(&row).to_owned(), xml));
            }
        }
    }
    assert!(out.len() > 100, "the summary vectors are there");
    out
}

/// Valid summaries of every shape the grammar allows: escapes, references, multi-byte text,
/// white space between sections, self-closed and empty optional sections, an end tag with white
/// space, CR LF.
pub fn valid_documents() -> Vec<Vec<u8>> {
    let texts = [
        "x",
        "ship &lt;safe&gt; &amp; sound &quot;q&quot; &apos;a&apos;",
        "caf\u{e9} \u{4e2d}\u{6587} \u{1f600} &#x1F600; &#233; &#0000065;",
        " \n\t\r\n line two\r\n ]] ] > done",
        "&#32;a&#x20;",
    ];
    let mut out = Vec::new();
    for (k, text) in texts.iter().enumerate() {
        let sep = ["", "\n", " \t\r\n "][k % 3];
        let optional = |name: &str, i: usize| match (i + k) % 3 {
            0 => format!("<{name}/>"),
            1 => format!("<{name}></{name}>"),
            _ => format!("<{name}>{text}</{name} >"),
        };
        out.push(
            format!(
                "<conversation_summary>{sep}<goal>{text}</goal>{sep}{}{sep}{}{sep}<state>{text}</state>{sep}{}{sep}</conversation_summary>",
                optional("constraints", 0),
                optional("decisions", 1),
                optional("open_items", 2)
            )
            .into_bytes(),
        );
    }
    out.push(loopcompact::summary::SMALLEST.as_bytes().to_vec());
    for doc in &out {
        assert!(loopcompact::summary::validate(doc).is_ok(), "{}", String::from_utf8_lossy(doc));
    }
    out
}

/// Pieces for random documents: markup of every kind (good and bad), text with references and
/// UTF-8 (good, bad and cut), the constructs of X4.3, X4.13–X4.15.
pub const PIECES: &[&[u8]] = &[
    b"<conversation_summary>",
    b"</conversation_summary>",
    b"<goal>",
    b"</goal>",
    b"<constraints/>",
    b"<constraints>",
    b"</constraints>",
    b"<decisions/>",
    b"<state>",
    b"</state>",
    b"<open_items/>",
    b"<open_items>",
    b"</open_items>",
    b"text ",
    b" ",
    b"\n",
    b"\r\n",
    b"&amp;",
    b"&am",
    b"&#x20;",
    b"&#12288;",
    b"&#xD800;",
    b"&#x110000;",
    b"&bogus;",
    b"&",
    b"]]>",
    b"]]",
    b"]",
    b">",
    b"<",
    b"</",
    b"/>",
    b"\xC3\xA9",
    b"\xE3\x80\x80",
    b"\xF0\x9F\x98\x80",
    b"\xC3",
    b"\xE0\x80",
    b"\xEF\xBF\xBE",
    b"\xFF",
    b"\xED\xA0\x80",
    b"\xF4\x90\x80\x80",
    b"&#x0;",
    b"\x01",
    b"<![CDATA[",
    b"<![CDATA",
    b"<!-- c -->",
    b"<!-- c --x>",
    b"<!--",
    b"<!-x",
    b"<!DOCTYPE a [<!ELEMENT b 'x>'> <!-- > --> ]>",
    b"<!X",
    b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
    b"<?xml version=\"2.0\"?>",
    b"<?xml encoding='latin1' ?>",
    b"<?xml version=version=\"3\"?>",
    b"<?pi data??>",
    b"<?1bad?>",
    b"<?",
    b"<goal a=\"1\">",
    b"<goal a='&amp;\xC3\xA9'/>",
    b"<goal a=\"<\">",
    b"<goal a=\"&x;\">",
    b"<goal a=b>",
    b"<goal a>",
    b"<goal \"x\">",
    b"<a:goal>",
    b"<a:b:c>",
    b"<:x>",
    b"<x:conversation_summary>",
    b"<conversation_summary/>",
    b"<goal/>",
    b"<1goal>",
    b"<g\xC3\xA9>",
    b"<g\xCC\x80>",
    b"<\xCC\x80>",
    b"<g\xC3>",
    b"</goal x>",
    b"</ goal>",
    b"</>",
    b"<summary>",
];

/// A xorshift generator (deterministic tests).
pub fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// A random document: mostly a valid summary with pieces spliced in, sometimes pieces alone.
pub fn random_document(next: &mut impl FnMut() -> u64, valid: &[Vec<u8>]) -> Vec<u8> {
    let pick = |n: u64, len: usize| (n % len as u64) as usize;
    let mut doc = Vec::new();
    if next().is_multiple_of(4) {
        for _ in 0..next() % 12 {
            doc.extend_from_slice(PIECES[pick(next(), PIECES.len())]);
        }
        return doc;
    }
    let base = &valid[pick(next(), valid.len())];
    let cut = pick(next(), base.len() + 1);
    doc.extend_from_slice(&base[..cut]);
    for _ in 0..next() % 3 {
        doc.extend_from_slice(PIECES[pick(next(), PIECES.len())]);
    }
    if next().is_multiple_of(2) {
        doc.extend_from_slice(&base[cut..]);
    }
    doc
}
