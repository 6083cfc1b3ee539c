//! LangChain messages as its serialisers write them (SPEC §16.6): `messages_to_dict`
//! (`{"type": "ai", "data": {...}}`), `dumpd` (`{"lc": 1, "type": "constructor", "id": [...,
//! "AIMessage"], "kwargs": {...}}`) or a bare `model_dump()`. Content blocks are LangChain's
//! standard (v1) blocks or the provider's own (Anthropic blocks, Responses items); `tool_calls`
//! and `invalid_tool_calls` are the calls; `usage_metadata` is the one usage a source carries.

use std::collections::HashSet;

use super::input;
use super::media::{self, DataUrl};
use super::out::{Role, StringToWrite, Usage};
use super::tree::{NodeId, Value};
use super::{Conv, Cx, LossCode, RawObject, open_array};
use crate::json::Parser;

pub(super) fn convert<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>) -> Conv<u64> {
    open_array(cx, p, c"a JSON array of serialised LangChain messages")?;
    let mut i = 0u64;
    while cx.next_element(p)? {
        cx.path.index(i as usize);
        cx.out.source(i);
        let r = message(cx);
        cx.path.pop(1);
        r?;
        i += 1;
    }
    Ok(i)
}

/// The message's kind and its fields object, from any of the three serialised forms.
fn unwrap<'a>(cx: &mut Cx<'a>, m: NodeId) -> Conv<(Vec<u8>, NodeId)> {
    if cx.tree.value(m) != Value::Object {
        return Err(cx.shape(m, c"a serialised message object"));
    }
    cx.no_duplicates(m)?;
    if let Some(kwargs) = cx.tree.get(m, "kwargs") {
        // dumpd: the class name is the last element of `id`.
        let class = cx.tree.get(m, "id").and_then(|ids| cx.tree.children(ids).last());
        let class = match class.map(|c| cx.tree.value(c)) {
            Some(Value::String(s)) => s.decode_bytes().unwrap_or_default().into_owned(),
            _ => return Err(cx.field_error(m, "id", c"the message class path")),
        };
        let kind: &[u8] = match class.as_slice() {
            b"HumanMessage" | b"HumanMessageChunk" => b"human",
            b"AIMessage" | b"AIMessageChunk" => b"ai",
            b"SystemMessage" | b"SystemMessageChunk" => b"system",
            b"ToolMessage" | b"ToolMessageChunk" => b"tool",
            b"FunctionMessage" | b"FunctionMessageChunk" => b"function",
            b"ChatMessage" | b"ChatMessageChunk" => b"chat",
            _ => return Err(cx.field_error(m, "id", c"a LangChain message class")),
        };
        return Ok((kind.to_vec(), kwargs));
    }
    let data = cx.tree.get(m, "data").unwrap_or(m);
    let kind = match cx.tree.get(m, "type").or_else(|| cx.tree.get(data, "type")).map(|t| cx.tree.value(t)) {
        Some(Value::String(s)) => s.decode_bytes().unwrap_or_default().into_owned(),
        _ => return Err(cx.field_error(m, "type", c"human, ai, system, tool, function or chat")),
    };
    Ok((kind, data))
}

fn message<'a>(cx: &mut Cx<'a>) -> Conv<()> {
    let (kind, d) = unwrap(cx, 0)?;
    if cx.tree.value(d) != Value::Object {
        return Err(cx.shape(d, c"the message's fields"));
    }
    cx.no_duplicates(d)?;
    let kind = match kind.as_slice() {
        b"chat" => match cx.str_field(d, "role")?.map(|r| r.decode_bytes().unwrap_or_default().into_owned()).as_deref()
        {
            Some(b"user") => b"human".to_vec(),
            Some(b"assistant") => b"ai".to_vec(),
            Some(b"system") => b"system".to_vec(),
            _ => return Err(cx.field_error(d, "role", c"user, assistant or system")),
        },
        _ => kind,
    };
    let provider = cx.tree.get(d, "response_metadata").and_then(|r| cx.tree.get(r, "model_provider"));
    let provider = match provider.map(|p| cx.tree.value(p)) {
        Some(Value::String(s)) => s.decode_bytes().unwrap_or_default().into_owned(),
        _ => Vec::new(),
    };
    match kind.as_slice() {
        b"human" => {
            cx.out.begin(Role::User);
            content(cx, d, Role::User, &provider, &mut HashSet::new())?;
            cx.out.end();
        }
        b"system" => {
            cx.out.begin(Role::System);
            content(cx, d, Role::System, &provider, &mut HashSet::new())?;
            cx.out.end();
        }
        b"ai" => {
            cx.out.begin(Role::Assistant);
            let mut called = HashSet::new();
            if let Some(refusal) = cx.tree.get(d, "additional_kwargs").and_then(|k| cx.tree.get(k, "refusal"))
                && let Value::String(s) = cx.tree.value(refusal)
            {
                cx.out.refusal(StringToWrite::Json(s));
            }
            content(cx, d, Role::Assistant, &provider, &mut called)?;
            calls(cx, d, &mut called)?;
            let usage = usage(cx, d);
            cx.out.end_assistant_usage(usage);
        }
        b"tool" => {
            let id = cx.required_str(d, "tool_call_id")?;
            let error = cx.str_field(d, "status")?.is_some_and(|s| s.raw() == b"error");
            cx.out.begin_tool();
            content(cx, d, Role::User, &provider, &mut HashSet::new())?;
            cx.out.end_tool(StringToWrite::Json(id), error);
        }
        b"function" => {
            let name =
                cx.str_field(d, "name")?.map(|n| n.decode().unwrap_or_default().into_owned()).unwrap_or_default();
            let id = format!("function_call:{name}");
            cx.loss(LossCode::SynthesizedToolId, d)?;
            cx.out.begin_tool();
            content(cx, d, Role::User, &provider, &mut HashSet::new())?;
            cx.out.end_tool(StringToWrite::Text(&id), false);
        }
        _ => return Err(cx.field_error(d, "type", c"human, ai, system, tool, function or chat")),
    }
    Ok(())
}

/// `usage_metadata` (G16.9: the one source whose messages carry usage).
fn usage(cx: &Cx<'_>, d: NodeId) -> Option<Usage> {
    let u = cx.tree.get(d, "usage_metadata")?;
    if cx.tree.value(u) != Value::Object {
        return None;
    }
    let n = |id: Option<NodeId>| match id.map(|i| cx.tree.value(i)) {
        Some(Value::Number(t)) => core::str::from_utf8(t).ok().and_then(|t| t.parse::<u64>().ok()).unwrap_or(0),
        _ => 0,
    };
    let input = cx.tree.get(u, "input_token_details");
    let output = cx.tree.get(u, "output_token_details");
    Some(Usage {
        input_tokens: n(cx.tree.get(u, "input_tokens")),
        output_tokens: n(cx.tree.get(u, "output_tokens")),
        cache_read_tokens: n(input.and_then(|i| cx.tree.get(i, "cache_read"))),
        cache_creation_tokens: n(input.and_then(|i| cx.tree.get(i, "cache_creation"))),
        reasoning_tokens: n(output.and_then(|o| cx.tree.get(o, "reasoning"))),
    })
}

/// The calls of an AI message that its content did not already hold (`tool_calls` with their
/// arguments as an object, `invalid_tool_calls` with their arguments as text).
fn calls<'a>(cx: &mut Cx<'a>, d: NodeId, called: &mut HashSet<Vec<u8>>) -> Conv<()> {
    for (field, text) in [("tool_calls", false), ("invalid_tool_calls", true)] {
        let Some(list) = cx.tree.get(d, field) else { continue };
        cx.path.name(field);
        let items: Vec<NodeId> = cx.tree.children(list).collect();
        for (k, call) in items.into_iter().enumerate() {
            cx.path.index(k);
            let r = (|| -> Conv<()> {
                let id = cx.required_str(call, "id")?;
                if !called.insert(id.decode_bytes().unwrap_or_default().into_owned()) {
                    return Ok(());
                }
                let name = cx.required_str(call, "name")?;
                let args = cx.tree.get(call, "args");
                let input = match args.map(|a| (a, cx.tree.value(a))) {
                    Some((a, Value::String(s))) if text => input::from_text(cx, s, a)?.into_owned(),
                    Some((a, Value::Object)) => input::from_value(cx, a)?.into_owned(),
                    _ => b"{}".to_vec(),
                };
                cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, None);
                Ok(())
            })();
            cx.path.pop(1);
            r?;
        }
        cx.path.pop(1);
    }
    Ok(())
}

fn content<'a>(cx: &mut Cx<'a>, d: NodeId, role: Role, provider: &[u8], called: &mut HashSet<Vec<u8>>) -> Conv<()> {
    let Some(c) = cx.tree.get(d, "content") else { return Ok(()) };
    cx.path.name("content");
    let r = match cx.tree.value(c) {
        Value::String(s) => {
            // An AI message with only calls has content "": no empty text block for it.
            if !(s.is_empty() && role == Role::Assistant) {
                cx.out.text(StringToWrite::Json(s));
            }
            Ok(())
        }
        Value::Array => {
            let blocks: Vec<NodeId> = cx.tree.children(c).collect();
            let mut r = Ok(());
            for (k, b) in blocks.into_iter().enumerate() {
                cx.path.index(k);
                r = block(cx, b, role, provider, called);
                cx.path.pop(1);
                if r.is_err() {
                    break;
                }
            }
            r
        }
        _ => Err(cx.shape(c, c"a string or an array of content blocks")),
    };
    cx.path.pop(1);
    r
}

fn signature_format(provider: &[u8]) -> String {
    match provider {
        b"anthropic" => "anthropic".to_owned(),
        b"google_genai" | b"google_vertexai" => "gemini.thought_signature".to_owned(),
        b"openai" => "openai.encrypted_content".to_owned(),
        other => String::from_utf8_lossy(other).into_owned(),
    }
}

fn block<'a>(cx: &mut Cx<'a>, b: NodeId, role: Role, provider: &[u8], called: &mut HashSet<Vec<u8>>) -> Conv<()> {
    if let Value::String(s) = cx.tree.value(b) {
        cx.out.text(StringToWrite::Json(s));
        return Ok(());
    }
    if cx.tree.value(b) != Value::Object {
        return Err(cx.shape(b, c"a content block object"));
    }
    cx.no_duplicates(b)?;
    let kind = cx.required_str(b, "type")?.decode_bytes().unwrap_or_default().into_owned();
    let assistant = role == Role::Assistant;
    match kind.as_slice() {
        b"text" => {
            let text = cx.required_str(b, "text")?;
            if cx.tree.get(b, "annotations").is_some_and(|a| cx.tree.len(a) > 0)
                || cx.tree.get(b, "citations").is_some_and(|a| cx.tree.len(a) > 0)
            {
                cx.loss(LossCode::DroppedCitations, b)?;
            }
            cx.out.text(StringToWrite::Json(text));
        }
        // A Responses reasoning item as LangChain keeps it.
        b"reasoning"
            if assistant && (cx.tree.get(b, "summary").is_some() || cx.tree.get(b, "encrypted_content").is_some()) =>
        {
            responses_reasoning(cx, b)?;
        }
        b"reasoning" if assistant => {
            let text = cx.str_field(b, "reasoning")?;
            let extras = cx.tree.get(b, "extras");
            let signature = match extras.and_then(|e| cx.tree.get(e, "signature")).map(|s| cx.tree.value(s)) {
                Some(Value::String(s)) => Some(s),
                _ => None,
            };
            let mut state = RawObject::new();
            cx.raw_members(&mut state, b, &["type", "reasoning", "extras"])?;
            if let Some(e) = extras {
                cx.raw_members(&mut state, e, &["signature"])?;
            }
            let state = (!state.is_empty()).then(|| state.finish());
            cx.out.thinking(
                text.map_or(StringToWrite::Text(""), StringToWrite::Json),
                signature.map_or(StringToWrite::Text(""), StringToWrite::Json),
                &signature_format(provider),
                state.as_deref().map(|s| (s, "langchain.block")),
            );
        }
        b"thinking" if assistant => {
            let thinking = cx.required_str(b, "thinking")?;
            let signature = cx.str_field(b, "signature")?;
            cx.out.thinking(
                StringToWrite::Json(thinking),
                signature.map_or(StringToWrite::Text(""), StringToWrite::Json),
                "anthropic",
                None,
            );
        }
        b"redacted_thinking" if assistant => {
            let data = cx.required_str(b, "data")?;
            let mut state = Vec::from(&b"{\"data\":"[..]);
            crate::json::write::put_json_str(&mut state, data.raw(), data.has_escapes());
            state.push(b'}');
            cx.out.thinking(
                StringToWrite::Text(""),
                StringToWrite::Text(""),
                "",
                Some((&state, "anthropic.redacted_thinking")),
            );
        }
        b"tool_use" if assistant => {
            let id = cx.required_str(b, "id")?;
            let name = cx.required_str(b, "name")?;
            called.insert(id.decode_bytes().unwrap_or_default().into_owned());
            let at = cx.tree.get(b, "input").ok_or_else(|| cx.field_error(b, "input", c"a JSON value"))?;
            let input = input::from_value(cx, at)?;
            cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, None);
        }
        b"function_call" if assistant => {
            let id = cx.required_str(b, "call_id")?;
            let name = cx.required_str(b, "name")?;
            called.insert(id.decode_bytes().unwrap_or_default().into_owned());
            let arguments = cx.required_str(b, "arguments")?;
            let at = cx.tree.get(b, "arguments").unwrap_or(b);
            let input = input::from_text(cx, arguments, at)?;
            cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, None);
        }
        // `tool_calls` is the authoritative list of calls (added after the content).
        b"tool_call" | b"tool_call_chunk" | b"invalid_tool_call" => {}
        b"image" | b"audio" | b"file" | b"video" | b"text-plain" => standard_media(cx, b, kind.as_slice())?,
        b"image_url" => {
            let image = cx.tree.get(b, "image_url").ok_or_else(|| cx.field_error(b, "image_url", c"an object"))?;
            let url = match cx.tree.value(image) {
                Value::String(s) => s,
                _ => cx.required_str(image, "url")?,
            };
            let raw = url.decode_bytes().unwrap_or_default();
            match media::data_url(&raw) {
                Some(Ok(DataUrl::Bytes { media_type, bytes })) => {
                    cx.out.image(StringToWrite::Text(&media_type), StringToWrite::Text(""), Some(&bytes))
                }
                Some(_) => return Err(cx.field_error(b, "image_url", c"a URL or a base64 data URL")),
                None => cx.out.image(StringToWrite::Text(""), StringToWrite::Json(url), None),
            }
        }
        b"server_tool_call"
        | b"server_tool_result"
        | b"server_tool_use"
        | b"web_search_tool_result"
        | b"web_search_call"
        | b"code_interpreter_call" => cx.loss(LossCode::ServerToolUnrepresentable, b)?,
        _ => cx.loss(LossCode::UnknownContentDropped, b)?,
    }
    Ok(())
}

/// A Responses `reasoning` item kept as a content block (LangChain's OpenAI Responses output).
fn responses_reasoning<'a>(cx: &mut Cx<'a>, b: NodeId) -> Conv<()> {
    let mut text = String::new();
    let source = cx.tree.get(b, "content").filter(|c| cx.tree.len(*c) > 0).or_else(|| cx.tree.get(b, "summary"));
    for (k, part) in source.map(|s| cx.tree.children(s).collect::<Vec<_>>()).unwrap_or_default().into_iter().enumerate()
    {
        if let Some(Value::String(s)) = cx.tree.get(part, "text").map(|t| cx.tree.value(t)) {
            if k > 0 {
                text.push_str("\n\n");
            }
            text.push_str(&s.decode().unwrap_or_default());
        }
    }
    let signature = cx.str_field(b, "encrypted_content")?;
    let mut state = RawObject::new();
    cx.raw_members(&mut state, b, &["type", "encrypted_content", "status", "index"])?;
    let state = state.finish();
    cx.out.thinking(
        StringToWrite::Text(&text),
        signature.map_or(StringToWrite::Text(""), StringToWrite::Json),
        "openai.encrypted_content",
        Some((&state, "openai.reasoning")),
    );
    Ok(())
}

/// A standard (v1) media block: `base64` with `mime_type`, a `url`, a `file_id`, or text.
fn standard_media<'a>(cx: &mut Cx<'a>, b: NodeId, kind: &[u8]) -> Conv<()> {
    let media_type = cx.str_field(b, "mime_type")?;
    let mt = media_type
        .map_or(StringToWrite::Text(if kind == b"text-plain" { "text/plain" } else { "" }), StringToWrite::Json);
    let name = match cx.tree.get(b, "extras").and_then(|e| cx.tree.get(e, "filename")).map(|f| cx.tree.value(f)) {
        Some(Value::String(s)) => StringToWrite::Json(s),
        _ => cx.str_field(b, "filename")?.map_or(StringToWrite::Text(""), StringToWrite::Json),
    };
    let image = kind == b"image";
    if kind == b"text-plain"
        && let Some(text) = cx.str_field(b, "text")?
    {
        cx.out.document(mt, name, None, StringToWrite::Json(text));
        return Ok(());
    }
    // The older form: `source_type` with `data`.
    let data =
        cx.str_field(b, "base64")?.or(if cx.str_field(b, "source_type")?.is_some_and(|s| s.raw() == b"base64") {
            cx.str_field(b, "data")?
        } else {
            None
        });
    if let Some(data) = data {
        let bytes = media::canonical_base64(&data.decode_bytes().unwrap_or_default())
            .ok_or_else(|| cx.field_error(b, "base64", c"base64"))?;
        if image && media_type.is_none() {
            cx.out.image(StringToWrite::Text(""), StringToWrite::Text(""), Some(&bytes));
        } else {
            media::put_bytes(cx, mt, &bytes, name);
        }
        return Ok(());
    }
    if let Some(url) = cx.str_field(b, "url")? {
        let raw = url.decode_bytes().unwrap_or_default();
        if let Some(Ok(DataUrl::Bytes { media_type, bytes })) = media::data_url(&raw) {
            media::put_bytes(cx, StringToWrite::Text(&media_type), &bytes, name);
            return Ok(());
        }
        return media::put_reference(cx, mt, StringToWrite::Json(url), image, b);
    }
    if let Some(id) = cx.str_field(b, "file_id")? {
        let url = media::file_id("langchain", &id);
        return media::put_reference(cx, mt, StringToWrite::Text(&url), image, b);
    }
    Err(cx.shape(b, c"a media block with base64, url or file_id"))
}
