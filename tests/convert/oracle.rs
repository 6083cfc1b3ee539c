//! Each source format's own pairing rule, written from the providers' documentation (the table in
//! docs/SPEC.md §16), independently of the converters: the call/result pairs of a source as
//! `(call message, result message)` source indices, or `None` when the source breaks its rule.

use std::collections::HashMap;

use serde_json::Value;

pub type Pairs = Option<Vec<(usize, usize)>>;

fn arr(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// OpenAI Chat: the tool messages right after an assistant message answer each of its calls once;
/// a tool message answers a call of that assistant message.
pub fn chat(messages: &Value) -> Pairs {
    let mut pairs = Vec::new();
    let mut open: HashMap<String, usize> = HashMap::new();
    let mut legacy: Option<usize> = None;
    for (i, m) in arr(messages).iter().enumerate() {
        match s(&m["role"]) {
            "tool" => {
                let call = open.remove(s(&m["tool_call_id"]))?;
                pairs.push((call, i));
            }
            "function" => {
                pairs.push((legacy.take()?, i));
            }
            role => {
                if !open.is_empty() || legacy.is_some() {
                    return None;
                }
                if role == "assistant" {
                    for c in arr(&m["tool_calls"]) {
                        if open.insert(s(&c["id"]).to_owned(), i).is_some() {
                            return None;
                        }
                    }
                    if m["function_call"].is_object() {
                        legacy = Some(i);
                    }
                }
            }
        }
    }
    (open.is_empty() && legacy.is_none()).then_some(pairs)
}

/// Anthropic: each `tool_use` of an assistant message is answered by a `tool_result` in the next
/// message, a user message; a `tool_result` answers a call of the message right before.
pub fn anthropic(messages: &Value) -> Pairs {
    let mut pairs = Vec::new();
    let mut open: HashMap<String, usize> = HashMap::new();
    for (i, m) in arr(messages).iter().enumerate() {
        let blocks = arr(&m["content"]);
        let results: Vec<&str> =
            blocks.iter().filter(|b| b["type"] == "tool_result").map(|b| s(&b["tool_use_id"])).collect();
        for id in &results {
            let call = open.remove(*id)?;
            pairs.push((call, i));
        }
        if !open.is_empty() {
            return None;
        }
        if m["role"] == "assistant" {
            for b in blocks.iter().filter(|b| b["type"] == "tool_use") {
                open.insert(s(&b["id"]).to_owned(), i);
            }
        }
    }
    open.is_empty().then_some(pairs)
}

const RESPONSES_CALLS: &[&str] =
    &["function_call", "custom_tool_call", "local_shell_call", "shell_call", "apply_patch_call", "computer_call"];

/// OpenAI Responses: every call (by `call_id`) answered by exactly one output later in `input`.
pub fn responses(source: &Value) -> Pairs {
    let mut pairs = Vec::new();
    let mut open: HashMap<String, usize> = HashMap::new();
    for (i, it) in arr(&source["input"]).iter().enumerate() {
        let kind = s(&it["type"]);
        if RESPONSES_CALLS.contains(&kind) {
            open.insert(s(&it["call_id"]).to_owned(), i);
        } else if kind.ends_with("_call_output") {
            let id = if it["call_id"].is_string() { s(&it["call_id"]) } else { s(&it["id"]) };
            pairs.push((open.remove(id)?, i));
        }
    }
    open.is_empty().then_some(pairs)
}

/// Gemini: the function responses of the next user content answer the calls of a model turn (by
/// id, else by name in order).
pub fn gemini(source: &Value) -> Pairs {
    let mut pairs = Vec::new();
    let mut open: Vec<(String, String, usize)> = Vec::new();
    for (i, c) in arr(&source["contents"]).iter().enumerate() {
        let parts = arr(&c["parts"]);
        for p in parts {
            let r = if p["functionResponse"].is_object() { &p["functionResponse"] } else { &p["function_response"] };
            if !r.is_object() {
                continue;
            }
            let at = open.iter().position(|(id, name, _)| {
                if r["id"].is_string() { id == s(&r["id"]) } else { id.is_empty() && name == s(&r["name"]) }
            })?;
            pairs.push((open.remove(at).2, i));
        }
        if !open.is_empty() {
            return None;
        }
        if c["role"] == "model" {
            for p in parts {
                let f = if p["functionCall"].is_object() { &p["functionCall"] } else { &p["function_call"] };
                if f.is_object() {
                    open.push((s(&f["id"]).to_owned(), s(&f["name"]).to_owned(), i));
                }
            }
        }
    }
    open.is_empty().then_some(pairs)
}

/// The AI SDK: every tool call that is not provider-executed is answered by a tool result in a
/// `tool` message before the next user or system message (or the end).
pub fn ai_sdk(messages: &Value) -> Pairs {
    let mut pairs = Vec::new();
    let mut open: HashMap<String, usize> = HashMap::new();
    for (i, m) in arr(messages).iter().enumerate() {
        match s(&m["role"]) {
            "tool" => {
                for p in arr(&m["content"]).iter().filter(|p| p["type"] == "tool-result") {
                    pairs.push((open.remove(s(&p["toolCallId"]))?, i));
                }
            }
            "assistant" => {
                if !open.is_empty() {
                    // S14.3 wants the results before the next assistant message; the AI SDK does
                    // not (SPEC §16 D3): no such source among the fixtures.
                    return None;
                }
                for p in arr(&m["content"]).iter().filter(|p| p["type"] == "tool-call" && p["providerExecuted"] != true)
                {
                    open.insert(s(&p["toolCallId"]).to_owned(), i);
                }
            }
            _ => {
                if !open.is_empty() {
                    return None;
                }
            }
        }
    }
    open.is_empty().then_some(pairs)
}

/// LangChain: the tool messages after an AI message answer its `tool_calls` and
/// `invalid_tool_calls` (by `tool_call_id`) before the next message of another kind.
pub fn langchain(messages: &Value) -> Pairs {
    let kind_data = |m: &Value| -> (String, Value) {
        if m["lc"] == 1 {
            let class = arr(&m["id"]).last().map(|c| s(c).to_owned()).unwrap_or_default();
            let kind = match class.as_str() {
                "AIMessage" => "ai",
                "ToolMessage" => "tool",
                "HumanMessage" => "human",
                _ => "system",
            };
            (kind.to_owned(), m["kwargs"].clone())
        } else {
            (s(&m["type"]).to_owned(), m["data"].clone())
        }
    };
    let mut pairs = Vec::new();
    let mut open: HashMap<String, usize> = HashMap::new();
    for (i, m) in arr(messages).iter().enumerate() {
        let (kind, d) = kind_data(m);
        if kind == "tool" {
            pairs.push((open.remove(s(&d["tool_call_id"]))?, i));
            continue;
        }
        if !open.is_empty() {
            return None;
        }
        if kind == "ai" {
            for c in arr(&d["tool_calls"]).iter().chain(arr(&d["invalid_tool_calls"])) {
                open.insert(s(&c["id"]).to_owned(), i);
            }
        }
    }
    open.is_empty().then_some(pairs)
}

/// The length of the source's message (or item) list, read from the fixture's own shape.
pub fn source_len(format: &str, source: &Value) -> usize {
    match format {
        "anthropic" => arr(&source["messages"]).len(),
        "openai_responses" => arr(&source["input"]).len(),
        "gemini" => arr(&source["contents"]).len(),
        _ => arr(source).len(),
    }
}

/// The oracle of a format name of the fixtures.
pub fn pairs(format: &str, source: &Value) -> Pairs {
    match format {
        "openai_chat" => chat(source),
        "anthropic" => anthropic(&source["messages"]),
        "openai_responses" => responses(source),
        "gemini" => gemini(source),
        "ai_sdk" => ai_sdk(source),
        "langchain" => langchain(source),
        other => panic!("no oracle for {other}"),
    }
}
