//! Deterministic realistic compaction inputs and replies for the wire benchmarks: user turns,
//! assistant turns with thinking, text, tool use and usage, tool results with long outputs (text with
//! an escape every few dozen bytes), and a few base64 images.
#![allow(dead_code)]

const FINGERPRINT: &str = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
const EVENT_ID: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

/// A deterministic pseudo-random generator (xorshift) so the inputs are the same on every run.
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const WORDS: &[&str] = &[
    "the",
    "build",
    "passes",
    "after",
    "fixing",
    "parser",
    "in",
    "src/lib.rs",
    "test",
    "failed:",
    "expected",
    "\\\"ok\\\"",
    "but",
    "got",
    "error",
    "café",
    "→",
    "refactor",
    "function",
    "returns",
    "Result<(),",
    "Error>",
    "and",
    "we",
    "should",
    "retry",
    "with",
    "timeout",
    "of",
    "30s",
    "—",
    "see",
    "issue",
    "#42",
];

pub fn prose(rng: &mut Rng, bytes: usize) -> String {
    let mut s = String::new();
    while s.len() < bytes {
        let w = WORDS[(rng.next_u64() % WORDS.len() as u64) as usize];
        s.push_str(w);
        s.push_str(if rng.next_u64().is_multiple_of(12) { "\\n" } else { " " });
    }
    s
}

pub fn base64_blob(rng: &mut Rng, bytes: usize) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..bytes / 4 * 4).map(|_| A[(rng.next_u64() % 64) as usize] as char).collect()
}

/// A realistic transcript of about `target` bytes: user turns, assistant turns with thinking,
/// text, tool use and usage, tool results with long outputs, and a few base64 images.
pub fn transcript_wire(target: usize) -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut messages = Vec::new();
    let mut size = 0;
    let mut turn = 0;
    while size < target {
        let m = match turn % 4 {
            0 => format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"{}"}}]}}"#, prose(&mut rng, 400)),
            1 => format!(
                r#"{{"role":"assistant","blocks":[{{"type":"thinking","thinking":"{}","signature":"sig{turn}"}},{{"type":"text","text":"{}"}},{{"type":"tool_use","id":"call_{turn}","name":"run","input":{{"cmd":"cargo test --release","cwd":"/work","env":{{"RUST_LOG":"debug"}},"args":[1,2.5,true,null]}}}}],"usage":{{"input_tokens":{},"output_tokens":{}}}}}"#,
                prose(&mut rng, 900),
                prose(&mut rng, 300),
                rng.next_u64() % 100_000,
                rng.next_u64() % 4_000
            ),
            2 => format!(
                r#"{{"role":"tool","blocks":[{{"type":"tool_result","tool_use_id":"call_{}","content":[{{"type":"text","text":"{}"}}],"is_error":false}}],"tool_use_id":"call_{}","is_error":false}}"#,
                turn - 1,
                prose(&mut rng, 3000),
                turn - 1
            ),
            _ if turn % 40 == 3 => format!(
                r#"{{"role":"user","blocks":[{{"type":"image","media_type":"image/png","source":{{"url":"","data":"{}"}}}}]}}"#,
                base64_blob(&mut rng, 24_000)
            ),
            _ => format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"{}"}}]}}"#, prose(&mut rng, 200)),
        };
        size += m.len() + 1;
        messages.push(m);
        turn += 1;
    }
    format!(
        r#"{{"version":1,"basis":{{"revision":3,"through_event_id":"{EVENT_ID}"}},"model":{{"provider":"anthropic","model":"claude"}},"request_fingerprint":"{FINGERPRINT}","transcript":[{}],"max_summary_tokens":4096}}"#,
        messages.join(",")
    )
    .into_bytes()
}

/// A summariser reply of about 4 KB whose identity matches [`transcript_wire`].
pub fn reply_4k() -> Vec<u8> {
    let mut rng = Rng(7);
    let section = |rng: &mut Rng, n| prose(rng, n).replace("\\\"", "&quot;").replace('<', "&lt;");
    let xml = format!(
        "<conversation_summary>\\n<goal>{}</goal>\\n<constraints>{}</constraints>\\n<decisions>{}</decisions>\\n<state>{}</state>\\n<open_items>{}</open_items>\\n</conversation_summary>",
        section(&mut rng, 500),
        section(&mut rng, 700),
        section(&mut rng, 1000),
        section(&mut rng, 1000),
        section(&mut rng, 600)
    );
    format!(
        r#"{{"version":1,"basis":{{"revision":3,"through_event_id":"{EVENT_ID}"}},"model":{{"provider":"anthropic","model":"claude"}},"request_fingerprint":"{FINGERPRINT}","summary":"{xml}"}}"#
    )
    .into_bytes()
}
