//! Google Gemini `{"contents": [...], "system_instruction": ...}` (SPEC §16.5): roles `user` and
//! `model`, parts of both key spellings (proto3 JSON accepts `inlineData` and `inline_data`),
//! thoughts and thought signatures, function calls (ids synthesised when absent) and each function
//! response as a `tool` message of its own.

use super::input;
use super::media;
use super::out::{NOT_A_MESSAGE, Role, Str};
use super::tree::{NodeId, Value};
use super::{Conv, Cx, LossCode, object_members};
use crate::json::{JStr, Parser};

/// The member of `id` under either spelling (`inlineData` / `inline_data`); both at once is a
/// repeated field.
fn field<'a>(cx: &mut Cx<'a>, id: NodeId, camel: &'static str, snake: &'static str) -> Conv<Option<NodeId>> {
    match (cx.tree.get(id, camel), cx.tree.get(id, snake)) {
        (Some(_), Some(second)) => Err(cx.shape(second, c"one spelling of a field")),
        (a, b) => Ok(a.or(b)),
    }
}

fn str_of<'a>(cx: &mut Cx<'a>, id: NodeId, camel: &'static str, snake: &'static str) -> Conv<Option<JStr<'a>>> {
    match field(cx, id, camel, snake)?.map(|n| (n, cx.tree.value(n))) {
        None | Some((_, Value::Null)) => Ok(None),
        Some((_, Value::String(s))) => Ok(Some(s)),
        Some((n, _)) => {
            cx.path.name(camel);
            let e = cx.shape(n, c"a JSON string");
            cx.path.pop(1);
            Err(e)
        }
    }
}

pub(super) fn convert<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>) -> Conv<u64> {
    let mut count = 0u64;
    let mut system = None;
    // The calls without an id of the latest model turn, answered in order by name (G16.6).
    let mut open: Vec<(Vec<u8>, String)> = Vec::new();
    object_members(cx, p, c"an object with contents (and system_instruction)", |cx, p, name| match name {
        b"system_instruction" | b"systemInstruction" => {
            if system.is_some() {
                return Err(cx.shape_at(p.token_start(), c"one spelling of a field"));
            }
            system = Some(super::system_parameter(cx, p, "system_instruction", |cx| {
                cx.out.source(NOT_A_MESSAGE);
                cx.out.begin(Role::System);
                let r = match cx.tree.value(0) {
                    Value::String(s) => {
                        cx.out.text(Str::Json(s));
                        Ok(())
                    }
                    Value::Object => content_parts(cx, 0, Role::System, count, &mut Vec::new()),
                    _ => Err(cx.shape(0, c"a Content object or a string")),
                };
                cx.out.end();
                r
            })?);
            Ok(true)
        }
        b"contents" => {
            cx.path.name("contents");
            super::open_array(cx, p, c"an array of contents")?;
            while cx.next_element(p)? {
                cx.path.index(count as usize);
                cx.out.source(count);
                let r = content(cx, count, &mut open);
                cx.path.pop(1);
                r?;
                count += 1;
            }
            cx.path.pop(1);
            Ok(true)
        }
        _ => Ok(false),
    })?;
    if let Some(system) = system {
        cx.out.prepend(system);
    }
    Ok(count)
}

fn content<'a>(cx: &mut Cx<'a>, i: u64, open: &mut Vec<(Vec<u8>, String)>) -> Conv<()> {
    let c = 0;
    if cx.tree.value(c) != Value::Object {
        return Err(cx.shape(c, c"a Content object"));
    }
    cx.no_duplicates(c)?;
    let role = match cx.str_field(c, "role")?.map(|r| r.decode_bytes().unwrap_or_default().into_owned()).as_deref() {
        None | Some(b"user") => Role::User,
        Some(b"model") => Role::Assistant,
        Some(_) => return Err(cx.field_error(c, "role", c"user or model")),
    };
    if role == Role::Assistant {
        open.clear();
    }
    // G16.1: each function response first, as a `tool` message of its own.
    let parts: Vec<NodeId> = match cx.tree.get(c, "parts") {
        Some(list) if cx.tree.value(list) == Value::Array => cx.tree.children(list).collect(),
        None => Vec::new(),
        Some(_) => return Err(cx.field_error(c, "parts", c"an array of parts")),
    };
    cx.path.name("parts");
    let mut rest = Vec::new();
    for (k, part) in parts.iter().copied().enumerate() {
        let response = if cx.tree.value(part) == Value::Object {
            field(cx, part, "functionResponse", "function_response")?
        } else {
            None
        };
        match response {
            Some(r) if role == Role::User => {
                cx.path.index(k);
                let res = function_response(cx, r, open);
                cx.path.pop(1);
                res?;
            }
            _ => rest.push((k, part)),
        }
    }
    cx.path.pop(1);
    if rest.is_empty() && !parts.is_empty() {
        return Ok(());
    }
    cx.out.begin(role);
    cx.path.name("parts");
    let mut r = Ok(());
    for (k, part) in rest {
        cx.path.index(k);
        r = self::part(cx, part, role, i, k, open);
        cx.path.pop(1);
        if r.is_err() {
            break;
        }
    }
    cx.path.pop(1);
    r?;
    if role == Role::Assistant {
        cx.out.end_assistant()
    } else {
        cx.out.end()
    }
    Ok(())
}

/// The parts of the system instruction (a Content).
fn content_parts<'a>(cx: &mut Cx<'a>, c: NodeId, role: Role, i: u64, open: &mut Vec<(Vec<u8>, String)>) -> Conv<()> {
    let Some(list) = cx.tree.get(c, "parts") else { return Ok(()) };
    let parts: Vec<NodeId> = cx.tree.children(list).collect();
    for (k, p) in parts.into_iter().enumerate() {
        part(cx, p, role, i, k, open)?;
    }
    Ok(())
}

fn part<'a>(
    cx: &mut Cx<'a>,
    part: NodeId,
    role: Role,
    i: u64,
    k: usize,
    open: &mut Vec<(Vec<u8>, String)>,
) -> Conv<()> {
    if cx.tree.value(part) != Value::Object {
        return Err(cx.shape(part, c"a Part object"));
    }
    cx.no_duplicates(part)?;
    let signature = str_of(cx, part, "thoughtSignature", "thought_signature")?;
    let thought = cx.bool_field(part, "thought")?;
    if field(cx, part, "videoMetadata", "video_metadata")?.is_some()
        || field(cx, part, "mediaResolution", "media_resolution")?.is_some()
    {
        cx.loss(LossCode::DroppedMediaOptions, part)?;
    }
    if field(cx, part, "partMetadata", "part_metadata")?.is_some() {
        cx.loss(LossCode::DroppedUnknownField, part)?;
    }
    if let Some(text) = cx.str_field(part, "text")? {
        if thought {
            cx.out.thinking(
                Str::Json(text),
                signature.map_or(Str::Text(""), Str::Json),
                "gemini.thought_signature",
                None,
            );
        } else {
            signed(cx, signature);
            cx.out.text(Str::Json(text));
        }
        return Ok(());
    }
    if let Some(call) = field(cx, part, "functionCall", "function_call")? {
        if role != Role::Assistant {
            return Err(cx.shape(call, c"a function call in a model turn"));
        }
        cx.path.name("functionCall");
        let r = (|| {
            let name = cx.required_str(call, "name")?;
            let args = cx.tree.get(call, "args");
            let input = match args {
                Some(a) if cx.tree.value(a) != Value::Null => {
                    cx.path.name("args");
                    let input = input::from_value(cx, a);
                    cx.path.pop(1);
                    input?.into_owned()
                }
                _ => b"{}".to_vec(),
            };
            // The signature stays on the part that carried it (G16.3): provider state.
            let state = signature.map(|s| {
                let mut state = Vec::from(&b"{\"thoughtSignature\":"[..]);
                crate::json::write::put_json_str(&mut state, s.raw(), s.has_escapes());
                state.push(b'}');
                state
            });
            let state = state.as_deref().map(|s| (s, "gemini.part"));
            match cx.str_field(call, "id")? {
                Some(id) => cx.out.tool_use(Str::Json(id), Str::Json(name), &input, state),
                None => {
                    let id = format!("gemini:{i}:{k}");
                    cx.loss(LossCode::SynthesizedToolId, call)?;
                    cx.out.tool_use(Str::Text(&id), Str::Json(name), &input, state);
                    open.push((name.decode_bytes().unwrap_or_default().into_owned(), id));
                }
            }
            Ok(())
        })();
        cx.path.pop(1);
        return r;
    }
    if let Some(data) = field(cx, part, "inlineData", "inline_data")? {
        signed(cx, signature);
        cx.path.name("inlineData");
        let r = (|| {
            let media_type = str_of(cx, data, "mimeType", "mime_type")?.map_or(Str::Text(""), Str::Json);
            let text = cx.required_str(data, "data")?;
            let bytes = media::canonical_base64(&text.decode_bytes().unwrap_or_default())
                .ok_or_else(|| cx.field_error(data, "data", c"base64"))?;
            let name = str_of(cx, data, "displayName", "display_name")?.map_or(Str::Text(""), Str::Json);
            media::put_bytes(cx, media_type, &bytes, name);
            Ok(())
        })();
        cx.path.pop(1);
        return r;
    }
    if let Some(file) = field(cx, part, "fileData", "file_data")? {
        signed(cx, signature);
        cx.path.name("fileData");
        let r = (|| {
            let media_type = str_of(cx, file, "mimeType", "mime_type")?;
            let uri = str_of(cx, file, "fileUri", "file_uri")?
                .ok_or_else(|| cx.field_error(file, "fileUri", c"a JSON string"))?;
            let image = media_type.is_some_and(|m| m.raw().starts_with(b"image/"));
            media::put_reference(cx, media_type.map_or(Str::Text(""), Str::Json), Str::Json(uri), image, file)
        })();
        cx.path.pop(1);
        return r;
    }
    for (camel, snake) in [
        ("executableCode", "executable_code"),
        ("codeExecutionResult", "code_execution_result"),
        ("toolCall", "tool_call"),
        ("toolResponse", "tool_response"),
    ] {
        if field(cx, part, camel, snake)?.is_some() {
            return cx.loss(LossCode::ServerToolUnrepresentable, part);
        }
    }
    cx.loss(LossCode::UnknownContentDropped, part)
}

/// A thought signature on a part that is not a thought: an empty thinking block carrying it, right
/// before the part's own block (G16.3: a signature never moves to another part).
fn signed(cx: &mut Cx<'_>, signature: Option<JStr<'_>>) {
    if let Some(s) = signature {
        cx.out.thinking(Str::Text(""), Str::Json(s), "gemini.thought_signature", None);
    }
}

/// A `functionResponse` part of a user turn: a `tool` message answering its call (by id, else the
/// first open call of the same name), with the response's JSON as text; an error when the response
/// has an `error` key and no `output` key (Google's convention).
fn function_response<'a>(cx: &mut Cx<'a>, r: NodeId, open: &mut Vec<(Vec<u8>, String)>) -> Conv<()> {
    cx.path.name("functionResponse");
    let res = (|| {
        if cx.tree.value(r) != Value::Object {
            return Err(cx.shape(r, c"a FunctionResponse object"));
        }
        cx.no_duplicates(r)?;
        let name = cx.required_str(r, "name")?;
        if cx.tree.get(r, "scheduling").is_some() || field(cx, r, "willContinue", "will_continue")?.is_some() {
            cx.loss(LossCode::DroppedUnknownField, r)?;
        }
        let response = cx.tree.get(r, "response");
        let is_error =
            response.is_some_and(|o| cx.tree.get(o, "error").is_some() && cx.tree.get(o, "output").is_none());
        cx.out.begin_tool();
        if let Some(o) = response {
            // The response's JSON, as written, is the result's text.
            let text = cx.json_text(o);
            cx.out.text(Str::Text(&text));
        }
        if let Some(parts) = cx.tree.get(r, "parts") {
            for part in cx.tree.children(parts).collect::<Vec<_>>() {
                if let Some(data) = field(cx, part, "inlineData", "inline_data")? {
                    let media_type = str_of(cx, data, "mimeType", "mime_type")?.map_or(Str::Text(""), Str::Json);
                    let text = cx.required_str(data, "data")?;
                    let bytes = media::canonical_base64(&text.decode_bytes().unwrap_or_default())
                        .ok_or_else(|| cx.field_error(data, "data", c"base64"))?;
                    media::put_bytes(cx, media_type, &bytes, Str::Text(""));
                }
            }
        }
        match cx.str_field(r, "id")? {
            Some(id) => cx.out.end_tool(Str::Json(id), is_error),
            None => {
                let key = name.decode_bytes().unwrap_or_default();
                let id = match open.iter().position(|(n, _)| n.as_slice() == key.as_ref()) {
                    Some(at) => open.remove(at).1,
                    None => format!("gemini:?:{}", String::from_utf8_lossy(&key)),
                };
                cx.out.end_tool(Str::Text(&id), is_error);
            }
        }
        Ok(())
    })();
    cx.path.pop(1);
    res
}
