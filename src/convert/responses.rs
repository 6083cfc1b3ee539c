//! OpenAI Responses `{"input": [...] or "text", "instructions": ...}` (SPEC §16.3): a run of
//! consecutive model-side items (output messages, reasoning, calls) is one wire assistant message,
//! so parallel calls pair as S14.3 wants; outputs are `tool` messages; hosted tools, compaction
//! items and item references are dropped and reported.

use super::input;
use super::media::{self, DataUrl, detail_set};
use super::out::{NOT_A_MESSAGE, Role, StringToWrite};
use super::tree::{NodeId, Value};
use super::{Conv, Cx, LossCode, RawObject, object_members};
use crate::json::{Event, Parser};

/// Hosted calls: they pair on OpenAI's side; the wire cannot carry them.
const HOSTED: &[&[u8]] = &[
    b"web_search_call",
    b"file_search_call",
    b"code_interpreter_call",
    b"image_generation_call",
    b"mcp_call",
    b"mcp_list_tools",
    b"mcp_approval_request",
    b"mcp_approval_response",
    b"tool_search_call",
    b"tool_search_output",
    b"program",
    b"program_output",
    b"additional_tools",
];

/// Calls the client executes, with the wire name of the tool and the fields that may hold its
/// input, the first present (not `null`) being read: a computer call gives one `action` or, in the
/// batched form, `actions`.
const CLIENT_CALLS: &[(&[u8], &str, &[&str])] = &[
    (b"local_shell_call", "local_shell", &["action"]),
    (b"shell_call", "shell", &["action"]),
    (b"apply_patch_call", "apply_patch", &["operation"]),
    (b"computer_call", "computer", &["action", "actions"]),
];

/// The fields of an item of each kind the converter reads or ignores as metadata (`id`, `status`,
/// a message's `phase`, who created a call and where it ran): any other that holds something is
/// `dropped_unknown_field` (§16.3). `reasoning` goes whole into provider state; dropped items are
/// dropped whole.
const MESSAGE_KEYS: &[&str] = &["type", "role", "content", "id", "status", "phase"];
const FUNCTION_CALL_KEYS: &[&str] = &["type", "id", "call_id", "name", "arguments", "status"];
const CUSTOM_CALL_KEYS: &[&str] = &["type", "id", "call_id", "name", "input", "status"];
const CLIENT_CALL_KEYS: &[&str] = &["type", "id", "call_id", "status", "created_by", "environment"];
const OUTPUT_KEYS: &[&str] = &["type", "id", "call_id", "output", "status", "created_by", "max_output_length"];

const OUTPUTS: &[&[u8]] = &[
    b"function_call_output",
    b"custom_tool_call_output",
    b"local_shell_call_output",
    b"shell_call_output",
    b"apply_patch_call_output",
    b"computer_call_output",
];

pub(super) fn convert<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>) -> Conv<u64> {
    let mut count = 0u64;
    let mut system = None;
    object_members(cx, p, c"an object with input (and instructions)", |cx, p, name| match name {
        b"instructions" => {
            system = Some(super::system_parameter(cx, p, "instructions", |cx| match cx.tree.value(0) {
                Value::String(s) => {
                    cx.out.source(NOT_A_MESSAGE);
                    cx.out.begin(Role::System);
                    cx.out.text(StringToWrite::Json(s));
                    cx.out.end();
                    Ok(())
                }
                Value::Null => Ok(()),
                _ => Err(cx.shape(0, c"a string")),
            })?);
            Ok(true)
        }
        b"input" => {
            cx.path.name("input");
            let first = p.next().map_err(|e| super::wire_error(e, p, cx.src, &cx.path))?;
            if let Event::String(s) = first {
                s.check_utf8().map_err(|e| super::wire_error(e, p, cx.src, &cx.path))?;
                cx.out.source(0);
                cx.out.begin(Role::User);
                cx.out.text(StringToWrite::Json(s));
                cx.out.end();
                count = 1;
            } else if first == Event::ArrayStart {
                let mut assistant_open = false;
                while cx.next_element(p)? {
                    cx.path.index(count as usize);
                    let r = item(cx, count, &mut assistant_open);
                    cx.path.pop(1);
                    r?;
                    count += 1;
                }
                if assistant_open {
                    cx.out.end_assistant();
                }
            } else {
                let e = cx.shape_at(p.token_start(), c"a string or an array of items");
                cx.path.pop(1);
                return Err(e);
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

/// Opens the assistant message if none is open, or joins item `i` to it.
fn assistant_side(cx: &mut Cx<'_>, i: u64, assistant_open: &mut bool) {
    if *assistant_open {
        cx.out.join(i);
    } else {
        cx.out.source(i);
        cx.out.begin(Role::Assistant);
        *assistant_open = true;
    }
}

fn close_assistant(cx: &mut Cx<'_>, assistant_open: &mut bool) {
    if core::mem::take(assistant_open) {
        cx.out.end_assistant();
    }
}

fn item<'a>(cx: &mut Cx<'a>, i: u64, assistant_open: &mut bool) -> Conv<()> {
    let it = 0;
    if cx.tree.value(it) != Value::Object {
        return Err(cx.shape(it, c"an item object"));
    }
    cx.no_duplicates(it)?;
    let kind = cx.str_field(it, "type")?.map(|t| t.decode_bytes().unwrap_or_default().into_owned());
    let role = cx.str_field(it, "role")?.map(|r| r.decode_bytes().unwrap_or_default().into_owned());
    match (kind.as_deref(), role.as_deref()) {
        (None | Some(b"message"), Some(b"assistant")) => {
            assistant_side(cx, i, assistant_open);
            cx.unknown_fields(it, MESSAGE_KEYS)?;
            output_message(cx, it)
        }
        (None | Some(b"message"), Some(role)) => {
            let wire = match role {
                b"user" => Role::User,
                b"system" | b"developer" => Role::System,
                _ => return Err(cx.field_error(it, "role", c"user, system, developer or assistant")),
            };
            close_assistant(cx, assistant_open);
            cx.out.source(i);
            cx.out.begin(wire);
            cx.unknown_fields(it, MESSAGE_KEYS)?;
            input_content(cx, it)?;
            cx.out.end();
            Ok(())
        }
        (Some(b"reasoning"), _) => {
            assistant_side(cx, i, assistant_open);
            reasoning(cx, it)
        }
        (Some(b"function_call"), _) => {
            assistant_side(cx, i, assistant_open);
            let id = cx.required_str(it, "call_id")?;
            let name = cx.required_str(it, "name")?;
            // `namespace`, `caller` and any other field: `dropped_unknown_field`.
            cx.unknown_fields(it, FUNCTION_CALL_KEYS)?;
            let arguments = cx.required_str(it, "arguments")?;
            let at = cx.tree.get(it, "arguments").unwrap_or(it);
            cx.path.name("arguments");
            let input = input::from_text(cx, arguments, at);
            cx.path.pop(1);
            let input = input?;
            cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, None);
            Ok(())
        }
        (Some(b"custom_tool_call"), _) => {
            assistant_side(cx, i, assistant_open);
            let id = cx.required_str(it, "call_id")?;
            let name = cx.required_str(it, "name")?;
            let text = cx.required_str(it, "input")?;
            cx.unknown_fields(it, CUSTOM_CALL_KEYS)?;
            let mut input = Vec::new();
            crate::json::write::put_json_str(&mut input, text.raw(), text.has_escapes());
            cx.out.tool_use(
                StringToWrite::Json(id),
                StringToWrite::Json(name),
                &input,
                Some((b"{}", "openai.custom_tool_call")),
            );
            Ok(())
        }
        (Some(kind), _) if CLIENT_CALLS.iter().any(|(k, ..)| *k == kind) => {
            let Some(&(_, name, fields)) = CLIENT_CALLS.iter().find(|(k, ..)| *k == kind) else { return Ok(()) };
            assistant_side(cx, i, assistant_open);
            let id = cx.required_str(it, "call_id")?;
            let Some(field) = cx.first_present(it, fields) else {
                let field = fields.first().copied().unwrap_or("action");
                return Err(cx.field_error(it, field, c"a JSON value"));
            };
            // The field read is the input; another of `fields` beside it (a computer call's
            // `actions` beside `action`), a non-empty `pending_safety_checks` of a computer call
            // and any other field: `dropped_unknown_field`.
            let mut keys = CLIENT_CALL_KEYS.to_vec();
            keys.push(field);
            cx.unknown_fields(it, &keys)?;
            let at = cx.tree.get(it, field).unwrap_or(it);
            cx.path.name(field);
            let input = input::from_value(cx, at);
            cx.path.pop(1);
            let input = input?;
            cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Text(name), &input, None);
            Ok(())
        }
        (Some(kind), _) if OUTPUTS.contains(&kind) => {
            close_assistant(cx, assistant_open);
            cx.out.source(i);
            output(cx, it, kind)
        }
        (Some(kind), _) if HOSTED.contains(&kind) => {
            cx.out.drop_item(i);
            cx.loss(LossCode::ServerToolUnrepresentable, it)
        }
        (Some(b"compaction" | b"compaction_trigger"), _) => {
            // A server-side summary of what came before: no cut may summarise it away (G16.8).
            close_assistant(cx, assistant_open);
            cx.out.drop_item(i);
            cx.out.no_cut_above(cx.out.source_index.len());
            cx.loss(LossCode::CompactionItemUnrepresentable, it)
        }
        (Some(b"item_reference"), _) => {
            cx.out.drop_item(i);
            cx.loss(LossCode::ItemReferenceUnresolvable, it)
        }
        _ => {
            cx.out.drop_item(i);
            cx.loss(LossCode::UnknownContentDropped, it)
        }
    }
}

/// The content of an input message: a string, or `input_text` / `input_image` / `input_file`
/// parts.
fn input_content<'a>(cx: &mut Cx<'a>, m: NodeId) -> Conv<()> {
    let Some(c) = cx.tree.get(m, "content") else { return Ok(()) };
    cx.path.name("content");
    let r = match cx.tree.value(c) {
        Value::String(s) => {
            cx.out.text(StringToWrite::Json(s));
            Ok(())
        }
        Value::Array => parts(cx, c),
        _ => Err(cx.shape(c, c"a string or an array of content parts")),
    };
    cx.path.pop(1);
    r
}

fn parts<'a>(cx: &mut Cx<'a>, list: NodeId) -> Conv<()> {
    let parts: Vec<NodeId> = cx.tree.children(list).collect();
    for (k, part) in parts.into_iter().enumerate() {
        cx.path.index(k);
        let r = content_part(cx, part);
        cx.path.pop(1);
        r?;
    }
    Ok(())
}

fn content_part<'a>(cx: &mut Cx<'a>, part: NodeId) -> Conv<()> {
    if cx.tree.value(part) != Value::Object {
        return Err(cx.shape(part, c"a content part object"));
    }
    cx.no_duplicates(part)?;
    let kind = cx.required_str(part, "type")?.decode_bytes().unwrap_or_default().into_owned();
    cx.cache_hints(part, &["prompt_cache_breakpoint"])?;
    // An image or a file is given one way, the first of these present: another beside it is not
    // read, and is `dropped_unknown_field` (§16.3).
    let image_by = cx.first_present(part, &["image_url", "file_id"]).unwrap_or("image_url");
    let file_by = cx.first_present(part, &["file_data", "file_url", "file_id"]).unwrap_or("file_data");
    let keys: &[&str] = match kind.as_slice() {
        b"input_text" | b"output_text" | b"text" => {
            &["type", "text", "annotations", "logprobs", "prompt_cache_breakpoint"]
        }
        b"refusal" => &["type", "refusal", "prompt_cache_breakpoint"],
        b"input_image" => &["type", image_by, "detail", "prompt_cache_breakpoint"],
        b"input_file" => &["type", file_by, "filename", "prompt_cache_breakpoint"],
        _ => &[],
    };
    if !keys.is_empty() {
        cx.unknown_fields(part, keys)?;
    }
    match kind.as_slice() {
        b"input_text" | b"output_text" | b"text" => {
            let text = cx.required_str(part, "text")?;
            if cx.tree.get(part, "annotations").is_some_and(|a| cx.tree.len(a) > 0) {
                cx.loss(LossCode::DroppedCitations, part)?;
            }
            if cx.tree.get(part, "logprobs").is_some_and(|a| cx.tree.len(a) > 0) {
                cx.loss(LossCode::DroppedLogprobs, part)?;
            }
            cx.out.text(StringToWrite::Json(text));
        }
        b"refusal" => {
            let text = cx.required_str(part, "refusal")?;
            cx.out.refusal(StringToWrite::Json(text));
        }
        b"input_image" => {
            if detail_set(cx, part) {
                cx.loss(LossCode::DroppedMediaOptions, part)?;
            }
            if let Some(url) = cx.str_field(part, "image_url")? {
                let raw = url.decode_bytes().unwrap_or_default();
                match media::data_url(&raw) {
                    Some(Ok(DataUrl::Bytes { media_type, bytes })) => {
                        cx.out.image(StringToWrite::Text(&media_type), StringToWrite::Text(""), Some(&bytes));
                    }
                    Some(_) => return Err(cx.field_error(part, "image_url", c"a URL or a base64 data URL")),
                    None => cx.out.image(StringToWrite::Text(""), StringToWrite::Json(url), None),
                }
            } else if let Some(id) = cx.str_field(part, "file_id")? {
                let url = media::file_id("openai", &id);
                cx.out.image(StringToWrite::Text(""), StringToWrite::Text(&url), None);
            } else {
                return Err(cx.shape(part, c"an input_image with image_url or file_id"));
            }
        }
        b"input_file" => {
            let name = cx.str_field(part, "filename")?.map_or(StringToWrite::Text(""), StringToWrite::Json);
            if let Some(data) = cx.str_field(part, "file_data")? {
                media::put_file_data(cx, part, "file_data", &data, name)?;
            } else if let Some(url) = cx.str_field(part, "file_url")? {
                media::put_reference(cx, StringToWrite::Text(""), StringToWrite::Json(url), false, part)?;
            } else if let Some(id) = cx.str_field(part, "file_id")? {
                let url = media::file_id("openai", &id);
                media::put_reference(cx, StringToWrite::Text(""), StringToWrite::Text(&url), false, part)?;
            } else {
                return Err(cx.shape(part, c"an input_file with file_data, file_url or file_id"));
            }
        }
        _ => cx.loss(LossCode::UnknownContentDropped, part)?,
    }
    Ok(())
}

/// An assistant message item: a string (easy input) or output parts.
fn output_message<'a>(cx: &mut Cx<'a>, m: NodeId) -> Conv<()> {
    input_content(cx, m)
}

/// A `reasoning` item: a thinking block whose signature is the encrypted content and whose
/// provider state is the item without it (`openai.reasoning`).
fn reasoning<'a>(cx: &mut Cx<'a>, it: NodeId) -> Conv<()> {
    let join = |cx: &Cx<'a>, list: Option<NodeId>| list.map_or_else(String::new, |l| cx.joined_texts(l, "\n\n"));
    let content = cx.tree.get(it, "content").filter(|c| cx.tree.len(*c) > 0);
    let text = if content.is_some() { join(cx, content) } else { join(cx, cx.tree.get(it, "summary")) };
    let signature = cx.str_field(it, "encrypted_content")?;
    let mut state = RawObject::new();
    cx.raw_members(&mut state, it, &["type", "encrypted_content", "status"])?;
    let state = state.finish();
    cx.out.thinking(
        StringToWrite::Text(&text),
        signature.map_or(StringToWrite::Text(""), StringToWrite::Json),
        "openai.encrypted_content",
        Some((&state, "openai.reasoning")),
    );
    Ok(())
}

/// An output item: a `tool` message answering its call.
fn output<'a>(cx: &mut Cx<'a>, it: NodeId, kind: &[u8]) -> Conv<()> {
    // `local_shell_call_output` names its call by `id` (the call's call_id); accept `call_id` too.
    let id = match cx.str_field(it, "call_id")? {
        Some(id) => id,
        None if kind == b"local_shell_call_output" => cx.required_str(it, "id")?,
        None => return Err(cx.field_error(it, "call_id", c"a JSON string")),
    };
    // A non-empty `acknowledged_safety_checks` and any other field: `dropped_unknown_field`.
    cx.unknown_fields(it, OUTPUT_KEYS)?;
    // An item's `status` is metadata, but an apply_patch output's says how the patch went
    // (`completed` or `failed`): a failed patch is an error result (§16.3).
    let is_error =
        kind == b"apply_patch_call_output" && cx.str_field(it, "status")?.is_some_and(|s| s.raw() == b"failed");
    cx.out.begin_tool();
    if let Some(o) = cx.tree.get(it, "output") {
        cx.path.name("output");
        let r = match cx.tree.value(o) {
            Value::String(s) => {
                cx.out.text(StringToWrite::Json(s));
                Ok(())
            }
            Value::Array if kind == b"function_call_output" || kind == b"custom_tool_call_output" => parts(cx, o),
            Value::Object if kind == b"computer_call_output" => {
                // A screenshot (`computer_screenshot`): an image, by data URL, URL or file id; a
                // `file_id` beside an `image_url` is not read (`dropped_unknown_field`, as an
                // `input_image`'s).
                let by = cx.first_present(o, &["image_url", "file_id"]).unwrap_or("image_url");
                cx.unknown_fields(o, &["type", by])?;
                if let Some(url) = cx.str_field(o, "image_url")? {
                    let raw = url.decode_bytes().unwrap_or_default();
                    match media::data_url(&raw) {
                        Some(Ok(DataUrl::Bytes { media_type, bytes })) => {
                            cx.out.image(StringToWrite::Text(&media_type), StringToWrite::Text(""), Some(&bytes));
                        }
                        Some(_) => return Err(cx.field_error(o, "image_url", c"a URL or a base64 data URL")),
                        None => cx.out.image(StringToWrite::Text(""), StringToWrite::Json(url), None),
                    }
                } else if let Some(id) = cx.str_field(o, "file_id")? {
                    let url = media::file_id("openai", &id);
                    cx.out.image(StringToWrite::Text(""), StringToWrite::Text(&url), None);
                }
                Ok(())
            }
            Value::Null => Ok(()),
            // Structured output of a client tool (shell results): its JSON as text.
            _ => {
                let text = cx.json_text(o);
                cx.out.text(StringToWrite::Text(&text));
                Ok(())
            }
        };
        cx.path.pop(1);
        r?;
    }
    cx.out.end_tool(StringToWrite::Json(id), is_error);
    Ok(())
}
