//! Deterministic valid summaries for the summary grammar's tests and benchmark (SPEC §4): prose
//! paragraphs with newlines, a few `&amp;`/`&lt;` references and some non-ASCII (é, —, “ ”) in the
//! five sections, about one rare character per 150 bytes.

const PLAIN: &[&str] = &[
    "the",
    "build",
    "passes",
    "tests",
    "agent",
    "context",
    "window",
    "summary",
    "compaction",
    "loop",
    "state",
    "decision",
    "constraint",
    "item",
    "and",
    "of",
    "to",
    "with",
    "for",
    "model",
    "request",
    "tokens",
    "limit",
    "policy",
    "was",
    "is",
    "a",
    "that",
    "we",
    "keep",
];
const RARE: &[&str] = &["café", "—", "&amp;", "&lt;tool&gt;", "résumé", "naïve", "“quoted”"];
const SECTIONS: [&str; 5] = ["goal", "constraints", "decisions", "state", "open_items"];

/// A valid summary of about `size` bytes (never less than a few hundred).
pub fn summary(size: usize) -> Vec<u8> {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let per_section = size.saturating_sub(170) / SECTIONS.len();
    let mut out = b"<conversation_summary>\n".to_vec();
    for section in SECTIONS {
        out.extend_from_slice(format!("<{section}>").as_bytes());
        let start = out.len();
        let mut line = 0;
        while out.len() - start < per_section.max(1) {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let r = (seed >> 33) as usize;
            let word = match r % 25 {
                0 => RARE[(r / 25) % RARE.len()],
                _ => PLAIN[r % PLAIN.len()],
            };
            out.extend_from_slice(word.as_bytes());
            line += word.len() + 1;
            if line > 80 {
                out.extend_from_slice(b".\n");
                line = 0;
            } else {
                out.push(b' ');
            }
        }
        out.extend_from_slice(format!("</{section}>\n").as_bytes());
    }
    out.extend_from_slice(b"</conversation_summary>");
    out
}
