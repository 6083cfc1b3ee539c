//! Deterministic realistic provider message lists for the converters' benchmark (SPEC §16): an
//! OpenAI Chat session and an Anthropic session of about `target` bytes, the shapes agent loops
//! hold (user prose, assistant text with parallel tool calls, tool results with long logs, a few
//! images as data URLs or base64, signed thinking on the Anthropic side).

use super::wire::{Rng, base64_blob, prose};

/// An OpenAI Chat `messages` array of about `target` bytes.
#[must_use]
pub fn chat_session(target: usize) -> Vec<u8> {
    let mut rng = Rng(0x51_7C_C1_B7_27_22_0A_95);
    let mut out = String::from(r#"[{"role":"system","content":"You are a coding agent working in /work."}"#);
    let mut turn = 0usize;
    while out.len() < target {
        out.push(',');
        match turn % 4 {
            0 if turn.is_multiple_of(40) => out.push_str(&format!(
                r#"{{"role":"user","content":[{{"type":"text","text":"{}"}},{{"type":"image_url","image_url":{{"url":"data:image/png;base64,{}"}}}}]}}"#,
                prose(&mut rng, 300),
                base64_blob(&mut rng, 24_000)
            )),
            0 => out.push_str(&format!(r#"{{"role":"user","content":"{}"}}"#, prose(&mut rng, 400))),
            1 => out.push_str(&format!(
                r#"{{"role":"assistant","content":"{}","tool_calls":[{{"id":"call_{turn}a","type":"function","function":{{"name":"run","arguments":"{{\"cmd\": \"cargo test --release\", \"cwd\": \"/work\", \"env\": {{\"RUST_LOG\": \"debug\"}}}}"}}}},{{"id":"call_{turn}b","type":"function","function":{{"name":"read","arguments":"{{\"path\": \"src/lib.rs\", \"lines\": [1, 200]}}"}}}}]}}"#,
                prose(&mut rng, 600)
            )),
            2 => out.push_str(&format!(
                r#"{{"role":"tool","tool_call_id":"call_{}a","content":"{}"}},{{"role":"tool","tool_call_id":"call_{}b","content":"{}"}}"#,
                turn - 1,
                prose(&mut rng, 2500),
                turn - 1,
                prose(&mut rng, 1500)
            )),
            _ => out.push_str(&format!(r#"{{"role":"assistant","content":"{}"}}"#, prose(&mut rng, 500))),
        }
        turn += 1;
    }
    out.push(']');
    out.into_bytes()
}

/// An Anthropic `{"system": ..., "messages": [...]}` document of about `target` bytes.
#[must_use]
pub fn anthropic_session(target: usize) -> Vec<u8> {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut out =
        String::from(r#"{"model":"claude","max_tokens":4096,"system":"You are a coding agent.","messages":["#);
    let mut turn = 0usize;
    while out.len() < target {
        if turn > 0 {
            out.push(',');
        }
        match turn % 3 {
            0 => out.push_str(&format!(r#"{{"role":"user","content":"{}"}}"#, prose(&mut rng, 400))),
            1 => out.push_str(&format!(
                r#"{{"role":"assistant","content":[{{"type":"thinking","thinking":"{}","signature":"{}"}},{{"type":"text","text":"{}"}},{{"type":"tool_use","id":"toolu_{turn}","name":"run","input":{{"cmd":"cargo test","cwd":"/work"}}}}]}}"#,
                prose(&mut rng, 800),
                base64_blob(&mut rng, 200),
                prose(&mut rng, 300)
            )),
            _ => out.push_str(&format!(
                r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_{}","content":"{}"}},{{"type":"text","text":"{}"}}]}}"#,
                turn - 1,
                prose(&mut rng, 3000),
                prose(&mut rng, 100)
            )),
        }
        turn += 1;
    }
    out.push_str("]}");
    out.into_bytes()
}
