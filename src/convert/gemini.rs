//! Google Gemini `{"contents": [...], "system_instruction": ...}` (SPEC §16.5): roles `user` and
//! `model`, parts of both key spellings (proto3 JSON accepts `inlineData` and `inline_data`),
//! thoughts and thought signatures, function calls (ids synthesised when absent) and each function
//! response as a `tool` message of its own.

use std::collections::{HashMap, VecDeque};

use super::input;
use super::media;
use super::out::{GEMINI_PART, NOT_A_MESSAGE, Role, StringToWrite, gemini_part_state};
use super::tree::{NodeId, Value};
use super::{Conv, Cx, LossCode, object_members};
use crate::json::{Parser, StringToken};

/// The calls of the latest model turn that no response has answered yet (G16.6, §16.5): a
/// response with an id takes the open call with that id, else (no call of the turn has that id)
/// the first open call without id of its name; a response without id takes the first open call
/// of its name, with or without id. A
/// call sits in a queue per name, another per name for calls without id and one per id; a taken
/// call is marked and skipped when a queue reaches it, so each match is amortised constant-time
/// and a turn of N calls and N responses costs O(N), not O(N²).
#[derive(Default)]
struct Open {
    /// Each call's wire id (copied, or made by G16.6) and whether a response took it.
    calls: Vec<(String, bool)>,
    by_name: HashMap<Vec<u8>, VecDeque<usize>>,
    id_less_by_name: HashMap<Vec<u8>, VecDeque<usize>>,
    by_id: HashMap<Vec<u8>, VecDeque<usize>>,
}

impl Open {
    fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// A call named `name`, with its source `id` (if any) and its wire id.
    fn push(&mut self, name: Vec<u8>, id: Option<Vec<u8>>, wire_id: String) {
        let k = self.calls.len();
        self.calls.push((wire_id, false));
        match id {
            Some(id) => self.by_id.entry(id).or_default().push_back(k),
            None => self.id_less_by_name.entry(name.clone()).or_default().push_back(k),
        }
        self.by_name.entry(name).or_default().push_back(k);
    }

    /// Takes the first call of `queue` that no response took: its wire id.
    fn take(calls: &mut [(String, bool)], queue: Option<&mut VecDeque<usize>>) -> Option<String> {
        let queue = queue?;
        while let Some(k) = queue.pop_front() {
            if let Some((id, taken)) = calls.get_mut(k)
                && !*taken
            {
                *taken = true;
                return Some(id.clone());
            }
        }
        None
    }

    /// The wire id of the call a response answers (`None`: no open call matches).
    fn answer(&mut self, name: &[u8], id: Option<&[u8]>) -> Option<String> {
        match id {
            // An id a call of the turn had, already answered, is a second result: not moved to
            // another call (pairing reports it).
            Some(id) => match self.by_id.get_mut(id) {
                Some(queue) => Open::take(&mut self.calls, Some(queue)),
                None => Open::take(&mut self.calls, self.id_less_by_name.get_mut(name)),
            },
            None => Open::take(&mut self.calls, self.by_name.get_mut(name)),
        }
    }
}

/// The members of the `data` oneof of Google's `Part`: a part carries exactly one of them (the API
/// refuses a second one), and which one it is decides the part's block.
const DATA: [(&str, &str); 9] = [
    ("text", "text"),
    ("inlineData", "inline_data"),
    ("fileData", "file_data"),
    ("functionCall", "function_call"),
    ("functionResponse", "function_response"),
    ("executableCode", "executable_code"),
    ("codeExecutionResult", "code_execution_result"),
    ("toolCall", "tool_call"),
    ("toolResponse", "tool_response"),
];

/// The fields of a `Part` the converter reads (its data member and `thought`, `thoughtSignature`)
/// or reports with their own loss (`videoMetadata`, `mediaResolution`), in both spellings.
const PART_KEYS: [&str; 24] = [
    "text",
    "inlineData",
    "inline_data",
    "fileData",
    "file_data",
    "functionCall",
    "function_call",
    "functionResponse",
    "function_response",
    "executableCode",
    "executable_code",
    "codeExecutionResult",
    "code_execution_result",
    "toolCall",
    "tool_call",
    "toolResponse",
    "tool_response",
    "thought",
    "thoughtSignature",
    "thought_signature",
    "videoMetadata",
    "video_metadata",
    "mediaResolution",
    "media_resolution",
];

/// The members of a `FunctionResponsePart`'s `data` oneof: media only.
const RESPONSE_DATA: [(&str, &str); 2] = [("inlineData", "inline_data"), ("fileData", "file_data")];

/// The members of a `Part` that say something about its data rather than being data: a part with
/// these only holds no content of its own.
const METADATA: [&str; 9] = [
    "thought",
    "thoughtSignature",
    "thought_signature",
    "videoMetadata",
    "video_metadata",
    "mediaResolution",
    "media_resolution",
    "partMetadata",
    "part_metadata",
];

/// The member of `id` under either spelling (`inlineData` / `inline_data`); both at once is a
/// repeated field.
fn field<'a>(cx: &mut Cx<'a>, id: NodeId, camel: &'static str, snake: &'static str) -> Conv<Option<NodeId>> {
    if camel == snake {
        return Ok(cx.tree.get(id, camel));
    }
    match (cx.tree.get(id, camel), cx.tree.get(id, snake)) {
        (Some(_), Some(second)) => Err(cx.shape(second, c"one spelling of a field")),
        (a, b) => Ok(a.or(b)),
    }
}

/// A data member of a part under either spelling; `null` is absent, as proto3 JSON reads it (an
/// SDK's dump without `exclude_none` writes every other member of the oneof as `null`).
fn data<'a>(cx: &mut Cx<'a>, id: NodeId, camel: &'static str, snake: &'static str) -> Conv<Option<NodeId>> {
    Ok(field(cx, id, camel, snake)?.filter(|&n| cx.tree.value(n) != Value::Null))
}

fn str_of<'a>(cx: &mut Cx<'a>, id: NodeId, camel: &'static str, snake: &'static str) -> Conv<Option<StringToken<'a>>> {
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

/// Refuses a part (of `part`, under the path so far) holding two members of the oneof `names`: the
/// source is not a Gemini part, and converting either member alone would drop the other silently
/// (G16.8). A `null` member is an absent one, as proto3 JSON reads it. The refusal points at the
/// later member in the source.
fn one_data_field<'a>(cx: &mut Cx<'a>, part: NodeId, names: &[(&'static str, &'static str)]) -> Conv<()> {
    let mut first: Option<(NodeId, &'static str)> = None;
    for &(camel, snake) in names {
        let Some(f) = data(cx, part, camel, snake)? else { continue };
        let Some(seen) = first else {
            first = Some((f, camel));
            continue;
        };
        let (later, name) = if cx.tree.span(f).start > cx.tree.span(seen.0).start { (f, camel) } else { seen };
        cx.path.name(name);
        let e = cx.shape(later, c"one data field of a Part");
        cx.path.pop(1);
        return Err(e);
    }
    Ok(())
}

pub(super) fn convert<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>) -> Conv<u64> {
    let mut count = 0u64;
    let mut system = None;
    let mut open = Open::default();
    let mut contents = false;
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
                        cx.out.text(StringToWrite::Json(s));
                        Ok(())
                    }
                    Value::Object => content_parts(cx, 0, Role::System, count, &mut Open::default()),
                    _ => Err(cx.shape(0, c"a Content object or a string")),
                };
                cx.out.end();
                r
            })?);
            Ok(true)
        }
        b"contents" => {
            contents = true;
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
    if !contents {
        // A request always has its contents: without them this is not one, and an empty
        // conversion would hide that.
        return Err(cx.shape_at(0, c"an object with contents (and system_instruction)"));
    }
    if let Some(system) = system {
        cx.out.prepend(system);
    }
    Ok(count)
}

fn content<'a>(cx: &mut Cx<'a>, i: u64, open: &mut Open) -> Conv<()> {
    let c = 0;
    if cx.tree.value(c) != Value::Object {
        return Err(cx.shape(c, c"a Content object"));
    }
    cx.no_duplicates(c)?;
    // A response's Candidate holds its turn in `content`: read as a Content it would be an empty
    // user turn in place of the model's reply (§16.5).
    if cx.tree.get(c, "parts").is_none() && cx.tree.get(c, "content").is_some_and(|x| cx.tree.value(x) == Value::Object)
    {
        return Err(cx.shape(c, c"a Content object (a Candidate's content, not the Candidate)"));
    }
    cx.unknown_fields(c, &["role", "parts"])?;
    let role = match cx.str_field(c, "role")?.map(|r| r.decode_bytes().unwrap_or_default().into_owned()).as_deref() {
        None | Some(b"user") => Role::User,
        Some(b"model") => Role::Assistant,
        Some(_) => return Err(cx.field_error(c, "role", c"user or model")),
    };
    // A model turn closes the previous turn's calls. Replaced, not cleared, and only when it holds
    // something: `clear` costs the table's capacity, and a run of empty model turns after one
    // large turn would otherwise pay it once per turn.
    if role == Role::Assistant && !open.is_empty() {
        *open = Open::default();
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
            data(cx, part, "functionResponse", "function_response")?
        } else {
            None
        };
        match response {
            Some(r) if role == Role::User => {
                cx.path.index(k);
                let res = one_data_field(cx, part, &DATA)
                    // A response part holds its response only (a thought signature or a media
                    // option has no place there).
                    .and_then(|()| cx.unknown_fields(part, &["functionResponse", "function_response"]))
                    .and_then(|()| function_response(cx, r, open));
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

/// The parts of the system instruction (a Content): `parts` is an array, as in `contents`.
fn content_parts<'a>(cx: &mut Cx<'a>, c: NodeId, role: Role, i: u64, open: &mut Open) -> Conv<()> {
    cx.no_duplicates(c)?;
    cx.unknown_fields(c, &["role", "parts"])?;
    match cx.tree.get(c, "parts") {
        Some(list) if cx.tree.value(list) == Value::Array => {
            cx.each_in("parts", list, |cx, k, p| part(cx, p, role, i, k, open))
        }
        None => Ok(()),
        Some(_) => Err(cx.field_error(c, "parts", c"an array of parts")),
    }
}

fn part<'a>(cx: &mut Cx<'a>, part: NodeId, role: Role, i: u64, k: usize, open: &mut Open) -> Conv<()> {
    if cx.tree.value(part) != Value::Object {
        return Err(cx.shape(part, c"a Part object"));
    }
    cx.no_duplicates(part)?;
    one_data_field(cx, part, &DATA)?;
    let signature = str_of(cx, part, "thoughtSignature", "thought_signature")?;
    let thought = cx.bool_field(part, "thought")?;
    // A media option that holds nothing (`null`: an SDK's dump of an unset field) drops nothing.
    let video = field(cx, part, "videoMetadata", "video_metadata")?;
    let resolution = field(cx, part, "mediaResolution", "media_resolution")?;
    if video.into_iter().chain(resolution).any(|o| !cx.holds_nothing(o)) {
        cx.loss(LossCode::DroppedMediaOptions, part)?;
    }
    // `partMetadata` and any other field: `dropped_unknown_field`.
    cx.unknown_fields(part, &PART_KEYS)?;
    if let Some(text) = cx.str_field(part, "text")? {
        if thought {
            cx.out.thinking(
                StringToWrite::Json(text),
                signature.map_or(StringToWrite::Text(""), StringToWrite::Json),
                "gemini.thought_signature",
                None,
            );
        } else {
            signed(cx, signature);
            cx.out.text(StringToWrite::Json(text));
        }
        return Ok(());
    }
    if let Some(call) = data(cx, part, "functionCall", "function_call")? {
        if role != Role::Assistant {
            return Err(cx.shape(call, c"a function call in a model turn"));
        }
        cx.path.name("functionCall");
        let r = (|| {
            let name = cx.required_str(call, "name")?;
            cx.unknown_fields(call, &["id", "name", "args"])?;
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
            let state = signature.map(gemini_part_state);
            let state = state.as_deref().map(|s| (s, GEMINI_PART));
            let key = name.decode_bytes().unwrap_or_default().into_owned();
            match cx.str_field(call, "id")? {
                Some(id) => {
                    cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, state);
                    let id = id.decode_bytes().unwrap_or_default().into_owned();
                    let wire_id = String::from_utf8_lossy(&id).into_owned();
                    open.push(key, Some(id), wire_id);
                }
                None => {
                    let id = format!("gemini:{i}:{k}");
                    cx.loss(LossCode::SynthesizedToolId, call)?;
                    cx.out.tool_use(StringToWrite::Text(&id), StringToWrite::Json(name), &input, state);
                    open.push(key, None, id);
                }
            }
            Ok(())
        })();
        cx.path.pop(1);
        return r;
    }
    if let Some(blob) = data(cx, part, "inlineData", "inline_data")? {
        signed(cx, signature);
        return inline_data(cx, blob);
    }
    if let Some(file) = data(cx, part, "fileData", "file_data")? {
        signed(cx, signature);
        return file_data(cx, file);
    }
    for (camel, snake) in [
        ("executableCode", "executable_code"),
        ("codeExecutionResult", "code_execution_result"),
        ("toolCall", "tool_call"),
        ("toolResponse", "tool_response"),
    ] {
        if data(cx, part, camel, snake)?.is_some() {
            return cx.loss(LossCode::ServerToolUnrepresentable, part);
        }
    }
    // No data field. A part holding only a thought signature (Gemini sends one after a thought's
    // text, or alone at the end of a streamed turn) keeps it, byte-exact, as the empty thinking
    // block G16.3 puts before any signed part's own block; this part has no block of its own.
    if let Some(s) = signature {
        signed(cx, Some(s));
        if only_metadata(cx, part) {
            return Ok(());
        }
    }
    cx.loss(LossCode::UnknownContentDropped, part)
}

/// Whether every member of `part` is metadata or `null`: nothing else is in it to be dropped.
fn only_metadata(cx: &Cx<'_>, part: NodeId) -> bool {
    cx.tree.children(part).all(|c| {
        cx.tree.value(c) == Value::Null
            || cx
                .tree
                .key(c)
                .and_then(|k| k.decode_bytes().ok())
                .is_some_and(|k| METADATA.iter().any(|m| m.as_bytes() == &*k))
    })
}

/// An `inlineData` Blob (of a part or of a function response's part): the block its media type
/// calls for, named by `displayName`.
fn inline_data<'a>(cx: &mut Cx<'a>, data: NodeId) -> Conv<()> {
    cx.path.name("inlineData");
    let r = (|| {
        if cx.tree.value(data) != Value::Object {
            return Err(cx.shape(data, c"a Blob object"));
        }
        let media_type =
            str_of(cx, data, "mimeType", "mime_type")?.map_or(StringToWrite::Text(""), StringToWrite::Json);
        let text = cx.required_str(data, "data")?;
        cx.unknown_fields(data, &["mimeType", "mime_type", "data", "displayName", "display_name"])?;
        let bytes = media::canonical_base64(&text.decode_bytes().unwrap_or_default())
            .ok_or_else(|| cx.field_error(data, "data", c"base64"))?;
        let name =
            str_of(cx, data, "displayName", "display_name")?.map_or(StringToWrite::Text(""), StringToWrite::Json);
        media::put_bytes(cx, media_type, &bytes, name);
        Ok(())
    })();
    cx.path.pop(1);
    r
}

/// A `fileData` reference (of a part or of a function response's part): an image by URI, else a
/// document named by its URI with the loss `document_not_inline` (G16.7).
fn file_data<'a>(cx: &mut Cx<'a>, file: NodeId) -> Conv<()> {
    cx.path.name("fileData");
    let r = (|| {
        if cx.tree.value(file) != Value::Object {
            return Err(cx.shape(file, c"a FileData object"));
        }
        let media_type = str_of(cx, file, "mimeType", "mime_type")?;
        let uri = str_of(cx, file, "fileUri", "file_uri")?
            .ok_or_else(|| cx.field_error(file, "fileUri", c"a JSON string"))?;
        // `displayName` labels the reference, whose URI the block keeps.
        cx.unknown_fields(file, &["mimeType", "mime_type", "fileUri", "file_uri", "displayName", "display_name"])?;
        let image = media_type.is_some_and(|m| m.raw().starts_with(b"image/"));
        media::put_reference(
            cx,
            media_type.map_or(StringToWrite::Text(""), StringToWrite::Json),
            StringToWrite::Json(uri),
            image,
            file,
        )
    })();
    cx.path.pop(1);
    r
}

/// One element of a function response's `parts`: a `FunctionResponsePart` holds inline bytes or a
/// file reference, converted as a part's; one that holds neither is content this converter does
/// not know, dropped with a loss.
fn response_part<'a>(cx: &mut Cx<'a>, part: NodeId) -> Conv<()> {
    if cx.tree.value(part) != Value::Object {
        return Err(cx.shape(part, c"a FunctionResponsePart object"));
    }
    cx.no_duplicates(part)?;
    one_data_field(cx, part, &RESPONSE_DATA)?;
    cx.unknown_fields(part, &["inlineData", "inline_data", "fileData", "file_data"])?;
    match (data(cx, part, "inlineData", "inline_data")?, data(cx, part, "fileData", "file_data")?) {
        (Some(blob), _) => inline_data(cx, blob),
        (_, Some(file)) => file_data(cx, file),
        _ => cx.loss(LossCode::UnknownContentDropped, part),
    }
}

/// A thought signature on a part that is not a thought: an empty thinking block carrying it, right
/// before the part's own block (G16.3: a signature never moves to another part).
fn signed(cx: &mut Cx<'_>, signature: Option<StringToken<'_>>) {
    if let Some(s) = signature {
        cx.out.gemini_signed(s);
    }
}

/// A `functionResponse` part of a user turn: a `tool` message answering its call (by id, else the
/// first open call of the same name), with the response's JSON as text; an error when the response
/// has an `error` key and no `output` key (Google's convention).
fn function_response<'a>(cx: &mut Cx<'a>, r: NodeId, open: &mut Open) -> Conv<()> {
    cx.path.name("functionResponse");
    let res = (|| {
        if cx.tree.value(r) != Value::Object {
            return Err(cx.shape(r, c"a FunctionResponse object"));
        }
        cx.no_duplicates(r)?;
        let name = cx.required_str(r, "name")?;
        // `scheduling`, `willContinue` and any other field: `dropped_unknown_field`.
        cx.unknown_fields(r, &["id", "name", "response", "parts"])?;
        let response = cx.tree.get(r, "response");
        let is_error =
            response.is_some_and(|o| cx.tree.get(o, "error").is_some() && cx.tree.get(o, "output").is_none());
        cx.out.begin_tool();
        if let Some(o) = response {
            // The response's JSON, as written, is the result's text.
            let text = cx.json_text(o);
            cx.out.text(StringToWrite::Text(&text));
        }
        match cx.tree.get(r, "parts") {
            Some(list) if cx.tree.value(list) == Value::Array => {
                cx.each_in("parts", list, |cx, _, part| response_part(cx, part))?;
            }
            None => {}
            Some(list) if cx.tree.value(list) == Value::Null => {}
            Some(_) => return Err(cx.field_error(r, "parts", c"an array of parts")),
        }
        let key = name.decode_bytes().unwrap_or_default();
        let id = cx.str_field(r, "id")?;
        let own = id.map(|id| id.decode_bytes().unwrap_or_default().into_owned());
        match (open.answer(&key, own.as_deref()), id) {
            (Some(answered), _) => cx.out.end_tool(StringToWrite::Text(&answered), is_error),
            (None, Some(id)) => cx.out.end_tool(StringToWrite::Json(id), is_error),
            (None, None) => {
                let id = format!("gemini:?:{}", String::from_utf8_lossy(&key));
                cx.out.end_tool(StringToWrite::Text(&id), is_error);
            }
        }
        Ok(())
    })();
    cx.path.pop(1);
    res
}
