//! OpenAI Chat Completions `messages` (SPEC §16.2): roles, content parts, tool calls (arguments
//! are a JSON string), tool messages, the deprecated `function_call`, and the reasoning fields
//! gateways add.

use super::input;
use super::media::{self, DataUrl};
use super::out::{ANTHROPIC_REDACTED, GEMINI_PART, Role, StringToWrite, gemini_part_state, redacted_thinking_state};
use super::tree::{NodeId, Value};
use super::{Conv, Cx, LossCode, RawObject, open_array};
use crate::json::{Parser, StringToken};

/// The fields of a message the converter reads (G16.8: any other is `dropped_unknown_field`).
const MESSAGE_KEYS: &[&str] = &[
    "role",
    "content",
    "name",
    "tool_calls",
    "tool_call_id",
    "refusal",
    "function_call",
    "audio",
    "annotations",
    "reasoning_content",
    "reasoning",
    "reasoning_details",
    // LiteLLM: Anthropic's thinking blocks, signed, on a Chat message.
    "thinking_blocks",
    "cache_control",
    // The openai SDK's `.parse()` / `.stream()` helpers: the content again, parsed (metadata).
    "parsed",
    // Gemini's OpenAI-compatible endpoint: an assistant message's thought signature (read there).
    "extra_content",
];

pub(super) fn convert<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>) -> Conv<u64> {
    open_array(cx, p, c"a JSON array of Chat Completions messages")?;
    let mut i = 0u64;
    // The synthesised id of the latest legacy `function_call` not yet answered.
    let mut open_function: Option<String> = None;
    cx.path.name("messages");
    while cx.next_element(p)? {
        cx.path.index(i as usize);
        cx.out.source(i);
        message(cx, i, &mut open_function)?;
        cx.path.pop(1);
        i += 1;
    }
    cx.path.pop(1);
    Ok(i)
}

fn message<'a>(cx: &mut Cx<'a>, i: u64, open_function: &mut Option<String>) -> Conv<()> {
    let m = 0;
    if cx.tree.value(m) != Value::Object {
        return Err(cx.shape(m, c"a message object"));
    }
    cx.no_duplicates(m)?;
    let role = cx.required_str(m, "role")?;
    let role_text = role.decode_bytes().unwrap_or_default();
    // A participant name (a `function` message's `name` is the function's, not a participant's).
    if role_text.as_ref() != b"function" && cx.holds_any(m, &["name"]) {
        cx.loss(LossCode::DroppedName, m)?;
    }
    cx.cache_hints(m, &["cache_control"])?;
    // Only an assistant message's `extra_content` (its thought signature) and `thinking_blocks`
    // are read.
    let stray_extra = role_text.as_ref() != b"assistant" && cx.holds_any(m, &["extra_content", "thinking_blocks"]);
    if stray_extra || cx.holds_unknown(m, MESSAGE_KEYS) {
        cx.loss(LossCode::DroppedUnknownField, m)?;
    }
    match role_text.as_ref() {
        b"system" | b"developer" => {
            cx.out.begin(Role::System);
            content(cx, m, false)?;
            cx.out.end();
        }
        b"user" => {
            cx.out.begin(Role::User);
            content(cx, m, false)?;
            cx.out.end();
        }
        b"assistant" => assistant(cx, m, i, open_function)?,
        b"tool" => {
            let id = cx.required_str(m, "tool_call_id")?;
            cx.out.begin_tool();
            content(cx, m, false)?;
            cx.out.end_tool(StringToWrite::Json(id), false);
        }
        b"function" => {
            // The deprecated function result answers the latest legacy call (by position).
            let id = open_function.take().unwrap_or_else(|| "function_call:?".to_owned());
            cx.loss(LossCode::SynthesizedToolId, m)?;
            cx.out.begin_tool();
            content(cx, m, false)?;
            cx.out.end_tool(StringToWrite::Text(&id), false);
        }
        _ => return Err(cx.field_error(m, "role", c"system, developer, user, assistant, tool or function")),
    }
    Ok(())
}

/// The `content` of message `m`: a string (one text block), an array of parts, or absent/null.
/// `assistant`: refusal parts are allowed.
fn content<'a>(cx: &mut Cx<'a>, m: NodeId, assistant: bool) -> Conv<()> {
    let Some(c) = cx.tree.get(m, "content") else { return Ok(()) };
    cx.path.name("content");
    let result = match cx.tree.value(c) {
        Value::Null => Ok(()),
        Value::String(s) => {
            cx.out.text(StringToWrite::Json(s));
            Ok(())
        }
        Value::Array => {
            let parts: Vec<NodeId> = cx.tree.children(c).collect();
            for (k, part) in parts.into_iter().enumerate() {
                cx.path.index(k);
                let r = self::part(cx, part, assistant);
                cx.path.pop(1);
                r?;
            }
            Ok(())
        }
        _ => Err(cx.shape(c, c"a string, an array of content parts or null")),
    };
    cx.path.pop(1);
    result
}

/// The fields of a content part of each type (cache hints have their own loss): any other is
/// `dropped_unknown_field` (§16.2).
fn part_keys(kind: &[u8]) -> &'static [&'static str] {
    match kind {
        b"text" => &["type", "text", "prompt_cache_breakpoint", "cache_control"],
        b"refusal" => &["type", "refusal", "prompt_cache_breakpoint", "cache_control"],
        b"image_url" => &["type", "image_url", "prompt_cache_breakpoint", "cache_control"],
        b"input_audio" => &["type", "input_audio", "prompt_cache_breakpoint", "cache_control"],
        b"file" => &["type", "file", "prompt_cache_breakpoint", "cache_control"],
        _ => &[],
    }
}

pub(super) fn part<'a>(cx: &mut Cx<'a>, part: NodeId, assistant: bool) -> Conv<()> {
    if cx.tree.value(part) != Value::Object {
        return Err(cx.shape(part, c"a content part object"));
    }
    cx.no_duplicates(part)?;
    let kind = cx.required_str(part, "type")?;
    cx.cache_hints(part, &["prompt_cache_breakpoint", "cache_control"])?;
    let kind = kind.decode_bytes().unwrap_or_default();
    let keys = part_keys(&kind);
    if !keys.is_empty() && (kind.as_ref() != b"refusal" || assistant) {
        cx.unknown_fields(part, keys)?;
    }
    match kind.as_ref() {
        b"text" => {
            let text = cx.required_str(part, "text")?;
            cx.out.text(StringToWrite::Json(text));
        }
        b"refusal" if assistant => {
            let text = cx.required_str(part, "refusal")?;
            cx.out.refusal(StringToWrite::Json(text));
        }
        b"image_url" => image_url(cx, part)?,
        b"input_audio" => {
            let audio =
                cx.tree.get(part, "input_audio").ok_or_else(|| cx.field_error(part, "input_audio", c"an object"))?;
            cx.path.name("input_audio");
            let r = cx.unknown_fields(audio, &["data", "format"]);
            if r.is_err() {
                cx.path.pop(1);
                return r;
            }
            let data = cx.required_str(audio, "data")?;
            let format = cx.str_field(audio, "format")?;
            let bytes = media::canonical_base64(&data.decode_bytes().unwrap_or_default());
            let Some(bytes) = bytes else {
                let e = cx.field_error(audio, "data", c"base64");
                cx.path.pop(1);
                return Err(e);
            };
            cx.path.pop(1);
            let media_type = match format.map(|f| f.decode_bytes().unwrap_or_default().into_owned()) {
                Some(f) if f == b"wav" => "audio/wav".to_owned(),
                Some(f) if f == b"mp3" => "audio/mpeg".to_owned(),
                Some(f) => format!("audio/{}", String::from_utf8_lossy(&f)),
                None => String::new(),
            };
            cx.out.audio(StringToWrite::Text(&media_type), Some(&bytes));
        }
        b"file" => file(cx, part)?,
        _ => cx.loss(LossCode::UnknownContentDropped, part)?,
    }
    Ok(())
}

/// An `image_url` part: a data URL becomes bytes, any other URL stays a URL.
fn image_url<'a>(cx: &mut Cx<'a>, part: NodeId) -> Conv<()> {
    let image = cx.tree.get(part, "image_url").ok_or_else(|| cx.field_error(part, "image_url", c"an object"))?;
    cx.path.name("image_url");
    let result = (|| {
        if cx.tree.value(image) != Value::Object {
            return Err(cx.shape(image, c"an object with a url"));
        }
        let url = cx.required_str(image, "url")?;
        cx.unknown_fields(image, &["url", "detail"])?;
        if super::media::detail_set(cx, image) {
            cx.loss(LossCode::DroppedMediaOptions, image)?;
        }
        let raw = url.decode_bytes().unwrap_or_default();
        match media::data_url(&raw) {
            Some(Ok(DataUrl::Bytes { media_type, bytes })) => {
                cx.out.image(StringToWrite::Text(&media_type), StringToWrite::Text(""), Some(&bytes));
            }
            Some(Ok(DataUrl::Text { media_type, text })) => {
                cx.out.document(
                    StringToWrite::Text(&media_type),
                    StringToWrite::Text(""),
                    None,
                    StringToWrite::Text(&text),
                );
            }
            Some(Err(())) => return Err(cx.field_error(image, "url", c"a URL or a base64 data URL")),
            None => cx.out.image(StringToWrite::Text(""), StringToWrite::Json(url), None),
        }
        Ok(())
    })();
    cx.path.pop(1);
    result
}

/// A `file` part: inline data (a data URL, or bare base64) or a file id. The data is the document:
/// a `file_id` beside it (a stored copy) is not read, and is `dropped_unknown_field` (§16.2).
fn file<'a>(cx: &mut Cx<'a>, part: NodeId) -> Conv<()> {
    let file = cx.tree.get(part, "file").ok_or_else(|| cx.field_error(part, "file", c"an object"))?;
    cx.path.name("file");
    let result = (|| {
        if cx.tree.value(file) != Value::Object {
            return Err(cx.shape(file, c"an object with file_data or file_id"));
        }
        let by = cx.first_present(file, &["file_data", "file_id"]).unwrap_or("file_data");
        cx.unknown_fields(file, &[by, "filename"])?;
        let data = cx.str_field(file, "file_data")?;
        let name = cx.str_field(file, "filename")?.map_or(StringToWrite::Text(""), StringToWrite::Json);
        if let Some(data) = data {
            media::put_file_data(cx, file, "file_data", &data, name)?;
        } else if let Some(id) = cx.str_field(file, "file_id")? {
            let url = media::file_id("openai", &id);
            media::put_reference(cx, StringToWrite::Text(""), StringToWrite::Text(&url), false, file)?;
        } else {
            return Err(cx.shape(file, c"an object with file_data or file_id"));
        }
        Ok(())
    })();
    cx.path.pop(1);
    result
}

fn assistant<'a>(cx: &mut Cx<'a>, m: NodeId, i: u64, open_function: &mut Option<String>) -> Conv<()> {
    cx.out.begin(Role::Assistant);
    // A signature of the message (Gemini signs the first part of a reply): first, as the empty
    // thinking block a Gemini text part's signature gives (G16.3).
    if let Some(signature) = google_signature(cx, m)? {
        cx.out.gemini_signed(signature);
    }
    reasoning(cx, m)?;
    if let Some(refusal) = cx.str_field(m, "refusal")? {
        cx.out.refusal(StringToWrite::Json(refusal));
    }
    content(cx, m, true)?;
    match cx.tree.get(m, "annotations").map(|a| (a, cx.tree.value(a))) {
        None | Some((_, Value::Null)) => {}
        Some((a, Value::Array)) if cx.tree.len(a) > 0 => cx.loss(LossCode::DroppedCitations, a)?,
        Some((_, Value::Array)) => {}
        Some(_) => return Err(cx.field_error(m, "annotations", c"an array of annotations")),
    }
    audio(cx, m)?;
    if let Some(calls) = cx.tree.get(m, "tool_calls") {
        match cx.tree.value(calls) {
            Value::Null => {}
            Value::Array => {
                cx.path.name("tool_calls");
                let list: Vec<NodeId> = cx.tree.children(calls).collect();
                for (k, call) in list.into_iter().enumerate() {
                    cx.path.index(k);
                    let r = tool_call(cx, call);
                    cx.path.pop(1);
                    r?;
                }
                cx.path.pop(1);
            }
            _ => return Err(cx.field_error(m, "tool_calls", c"an array of tool calls or null")),
        }
    }
    if let Some(f) = cx.tree.get(m, "function_call")
        && cx.tree.value(f) != Value::Null
    {
        cx.path.name("function_call");
        let r = (|| {
            if cx.tree.value(f) != Value::Object {
                return Err(cx.shape(f, c"an object with name and arguments"));
            }
            cx.unknown_fields(f, &["name", "arguments", "parsed_arguments"])?;
            let name = cx.required_str(f, "name")?;
            let arguments = cx.required_str(f, "arguments")?;
            let at = cx.tree.get(f, "arguments").unwrap_or(f);
            let input = input::from_text(cx, arguments, at)?;
            let id = format!("function_call:{i}");
            cx.loss(LossCode::SynthesizedToolId, f)?;
            cx.out.tool_use(StringToWrite::Text(&id), StringToWrite::Json(name), &input, None);
            *open_function = Some(id);
            Ok(())
        })();
        cx.path.pop(1);
        r?;
    }
    cx.out.end_assistant();
    Ok(())
}

/// `tool_calls[k]`: a function call (arguments parsed, G16.4) or a custom tool call.
fn tool_call<'a>(cx: &mut Cx<'a>, call: NodeId) -> Conv<()> {
    if cx.tree.value(call) != Value::Object {
        return Err(cx.shape(call, c"a tool call object"));
    }
    cx.no_duplicates(call)?;
    let id = cx.required_str(call, "id")?;
    let kind = cx.str_field(call, "type")?.map(|k| k.decode_bytes().unwrap_or_default().into_owned());
    match kind.as_deref() {
        None | Some(b"function") => {
            let f = cx.tree.get(call, "function").ok_or_else(|| cx.field_error(call, "function", c"an object"))?;
            // `index`: the call's place in a streamed reply (metadata).
            cx.unknown_fields(call, &["id", "type", "function", "index", "extra_content"])?;
            let state = google_signature(cx, call)?.map(gemini_part_state);
            let state = state.as_deref().map(|s| (s, GEMINI_PART));
            cx.path.name("function");
            let r = (|| {
                if cx.tree.value(f) != Value::Object {
                    return Err(cx.shape(f, c"an object with name and arguments"));
                }
                cx.unknown_fields(f, &["name", "arguments", "parsed_arguments"])?;
                let name = cx.required_str(f, "name")?;
                cx.path.name("arguments");
                let at = cx.tree.get(f, "arguments").unwrap_or(f);
                let input = match cx.tree.value(at) {
                    Value::String(arguments) => input::from_text(cx, arguments, at),
                    _ => Err(cx.shape(at, c"a JSON string")),
                };
                cx.path.pop(1);
                let input = input?;
                cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, state);
                Ok(())
            })();
            cx.path.pop(1);
            r
        }
        Some(b"custom") => {
            let c = cx.tree.get(call, "custom").ok_or_else(|| cx.field_error(call, "custom", c"an object"))?;
            cx.unknown_fields(call, &["id", "type", "custom", "index"])?;
            cx.path.name("custom");
            let r = (|| {
                cx.unknown_fields(c, &["name", "input"])?;
                let name = cx.required_str(c, "name")?;
                let text = cx.required_str(c, "input")?;
                let mut input = Vec::new();
                crate::json::write::put_json_str(&mut input, text.raw(), text.has_escapes());
                cx.out.tool_use(
                    StringToWrite::Json(id),
                    StringToWrite::Json(name),
                    &input,
                    Some((b"{}", "openai.custom_tool_call")),
                );
                Ok(())
            })();
            cx.path.pop(1);
            r
        }
        Some(_) => {
            cx.loss(LossCode::UnknownContentDropped, call)?;
            Ok(())
        }
    }
}

/// The Gemini thought signature of a Chat message or function call from Gemini's OpenAI-compatible
/// endpoint, which writes `extra_content: {"google": {"thought_signature": S}}` beside them
/// (§16.2, G16.3). Anything else `extra_content` holds (another member, a signature that is not a
/// string) is `dropped_unknown_field`, once, at `extra_content`.
fn google_signature<'a>(cx: &mut Cx<'a>, id: NodeId) -> Conv<Option<StringToken<'a>>> {
    let Some(extra) = cx.tree.get(id, "extra_content") else { return Ok(None) };
    if cx.holds_nothing(extra) {
        return Ok(None);
    }
    cx.path.name("extra_content");
    let r = (|| {
        let object = cx.tree.value(extra) == Value::Object;
        if object {
            cx.no_duplicates(extra)?;
        }
        let google_node = if object { cx.tree.get(extra, "google") } else { None };
        let google = google_node.filter(|&g| cx.tree.value(g) == Value::Object);
        if let Some(g) = google {
            cx.path.name("google");
            let r = cx.no_duplicates(g);
            cx.path.pop(1);
            r?;
        }
        let signature_node = google.and_then(|g| cx.tree.get(g, "thought_signature"));
        let signature = match signature_node.map(|s| cx.tree.value(s)) {
            Some(Value::String(s)) if !s.is_empty() => Some(s),
            _ => None,
        };
        // Read whole: nothing is held beside the signature, and the signature is text (or holds
        // nothing).
        let signature_read =
            signature_node.is_none_or(|s| cx.holds_nothing(s) || matches!(cx.tree.value(s), Value::String(_)));
        let google_read = match (google_node, google) {
            (None, _) => true,
            (Some(g), None) => cx.holds_nothing(g),
            (Some(_), Some(g)) => signature_read && !cx.holds_unknown(g, &["thought_signature"]),
        };
        let read_whole = object && !cx.holds_unknown(extra, &["google"]) && google_read;
        if !read_whole {
            cx.loss(LossCode::DroppedUnknownField, extra)?;
        }
        Ok(signature)
    })();
    cx.path.pop(1);
    r
}

/// Reasoning fields gateways add to assistant messages (`reasoning_details` first: when present,
/// `reasoning` and `reasoning_content` hold the same text again, OpenRouter's form).
fn reasoning<'a>(cx: &mut Cx<'a>, m: NodeId) -> Conv<()> {
    let blocks = cx.tree.get(m, "thinking_blocks").filter(|&b| !cx.holds_nothing(b));
    if let Some(details) = cx.tree.get(m, "reasoning_details")
        && cx.tree.value(details) != Value::Null
    {
        if let Some(b) = blocks {
            // Two gateways' forms of the same reasoning: the entries below are read.
            cx.loss(LossCode::DroppedUnknownField, b)?;
        }
        if cx.tree.value(details) != Value::Array {
            return Err(cx.field_error(m, "reasoning_details", c"an array of reasoning entries"));
        }
        cx.path.name("reasoning_details");
        let list: Vec<NodeId> = cx.tree.children(details).collect();
        for (k, d) in list.into_iter().enumerate() {
            cx.path.index(k);
            let r = reasoning_detail(cx, d);
            cx.path.pop(1);
            r?;
        }
        cx.path.pop(1);
        return Ok(());
    }
    if let Some(list) = blocks {
        // LiteLLM's Anthropic thinking blocks, signed; `reasoning_content` then repeats their
        // text, as LiteLLM writes it, and is not read (§16.2).
        if cx.tree.value(list) != Value::Array {
            return Err(cx.field_error(m, "thinking_blocks", c"an array of thinking blocks"));
        }
        return cx.each_in("thinking_blocks", list, |cx, _, b| thinking_block(cx, b));
    }
    // Both strings, `reasoning_content` first; the same text under both (vLLM wrote both while
    // it renamed the field) is one block: nothing is dropped either way (§16.2).
    let content = cx.str_field(m, "reasoning_content")?;
    let reasoning = cx.str_field(m, "reasoning")?;
    if let Some(text) = content {
        cx.out.thinking(StringToWrite::Json(text), StringToWrite::Text(""), "", None);
    }
    if let Some(text) = reasoning
        && content.is_none_or(|c| c.decode_bytes().unwrap_or_default() != text.decode_bytes().unwrap_or_default())
    {
        cx.out.thinking(StringToWrite::Json(text), StringToWrite::Text(""), "", None);
    }
    Ok(())
}

/// One entry of LiteLLM's `thinking_blocks`: an Anthropic `thinking` block (its signature, when it
/// has one, as `anthropic`) or `redacted_thinking` block, as §16.4 converts them; another type is
/// `unknown_content_dropped`.
fn thinking_block<'a>(cx: &mut Cx<'a>, b: NodeId) -> Conv<()> {
    if cx.tree.value(b) != Value::Object {
        return Err(cx.shape(b, c"a thinking block object"));
    }
    cx.no_duplicates(b)?;
    let kind = cx.required_str(b, "type")?.decode_bytes().unwrap_or_default().into_owned();
    match kind.as_slice() {
        b"thinking" => {
            cx.cache_hints(b, &["cache_control"])?;
            cx.unknown_fields(b, &["type", "thinking", "signature", "cache_control"])?;
            let thinking = cx.required_str(b, "thinking")?;
            let signature = cx.str_field(b, "signature")?;
            cx.out.anthropic_thinking(thinking, signature);
        }
        b"redacted_thinking" => {
            cx.cache_hints(b, &["cache_control"])?;
            cx.unknown_fields(b, &["type", "data", "cache_control"])?;
            let state = redacted_thinking_state(cx.required_str(b, "data")?);
            cx.out.thinking(StringToWrite::Text(""), StringToWrite::Text(""), "", Some((&state, ANTHROPIC_REDACTED)));
        }
        _ => cx.loss(LossCode::UnknownContentDropped, b)?,
    }
    Ok(())
}

/// One entry of a gateway's `reasoning_details` (OpenRouter): its text and signature on the block,
/// the rest as provider state.
fn reasoning_detail<'a>(cx: &mut Cx<'a>, d: NodeId) -> Conv<()> {
    if cx.tree.value(d) != Value::Object {
        return Err(cx.shape(d, c"a reasoning detail object"));
    }
    cx.no_duplicates(d)?;
    // The text, else the summary: the other, when both are there, stays in the provider state.
    let (text, read) = match cx.str_field(d, "text")? {
        Some(t) => (Some(t), "text"),
        None => (cx.str_field(d, "summary")?, "summary"),
    };
    let signature = cx.str_field(d, "signature")?;
    let format = cx.str_field(d, "format")?.map(|f| f.decode_bytes().unwrap_or_default().into_owned());
    let signature_format = match format.as_deref() {
        Some(f) if f.starts_with(b"anthropic") => "anthropic".to_owned(),
        Some(f) => String::from_utf8_lossy(f).into_owned(),
        None => String::new(),
    };
    // The entry without the fields that went into the block.
    let mut state = RawObject::new();
    cx.raw_members(&mut state, d, &[read, "signature"])?;
    let state = state.finish();
    cx.out.thinking(
        text.map_or(StringToWrite::Text(""), StringToWrite::Json),
        signature.map_or(StringToWrite::Text(""), StringToWrite::Json),
        &signature_format,
        Some((&state, "openrouter.reasoning_details")),
    );
    Ok(())
}

/// An assistant message's `audio` (a response appended whole): the transcript as text, the data as
/// an audio block; an id alone is lost.
fn audio<'a>(cx: &mut Cx<'a>, m: NodeId) -> Conv<()> {
    let Some(a) = cx.tree.get(m, "audio") else { return Ok(()) };
    if cx.tree.value(a) == Value::Null {
        return Ok(());
    }
    cx.path.name("audio");
    let r = (|| {
        if cx.tree.value(a) != Value::Object {
            return Err(cx.shape(a, c"an object"));
        }
        // `id` and `expires_at` say where the audio is kept and until when (metadata).
        cx.unknown_fields(a, &["id", "data", "transcript", "expires_at"])?;
        let transcript = cx.str_field(a, "transcript")?;
        let data = cx.str_field(a, "data")?;
        if let Some(t) = transcript {
            cx.out.text(StringToWrite::Json(t));
        }
        match data {
            Some(d) => match media::canonical_base64(&d.decode_bytes().unwrap_or_default()) {
                Some(bytes) => cx.out.audio(StringToWrite::Text(""), Some(&bytes)),
                None => return Err(cx.field_error(a, "data", c"base64")),
            },
            None if transcript.is_none() => cx.loss(LossCode::AudioReferenceUnresolvable, a)?,
            None => {}
        }
        Ok(())
    })();
    cx.path.pop(1);
    r
}
