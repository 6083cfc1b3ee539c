//! Anthropic Messages `{"system": ..., "messages": [...]}` (SPEC §16.4): the system parameter as
//! wire message 0, content strings and blocks, signed and redacted thinking, tool use, and each
//! `tool_result` block of a user message as a `tool` message of its own (before the rest of that
//! message), so that fitting can stub it.

use super::input;
use super::media;
use super::out::{NOT_A_MESSAGE, Role, StringToWrite};
use super::tree::{NodeId, Value};
use super::{Conv, Cx, LossCode, object_members};
use crate::json::Parser;

pub(super) fn convert<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>) -> Conv<u64> {
    let mut count = 0u64;
    let mut system = None;
    let mut messages = false;
    object_members(cx, p, c"an object with messages (and system)", |cx, p, name| match name {
        b"system" => {
            system = Some(super::system_parameter(cx, p, "system", |cx| system_blocks(cx, 0))?);
            Ok(true)
        }
        b"messages" => {
            messages = true;
            cx.path.name("messages");
            super::open_array(cx, p, c"an array of messages")?;
            while cx.next_element(p)? {
                cx.path.index(count as usize);
                cx.out.source(count);
                let r = message(cx, 0);
                cx.path.pop(1);
                r?;
                count += 1;
            }
            cx.path.pop(1);
            Ok(true)
        }
        _ => Ok(false),
    })?;
    if !messages {
        // A request always has its messages: without them this is not one (a response object,
        // say), and an empty conversion would hide that.
        return Err(cx.shape_at(0, c"an object with messages (and system)"));
    }
    if let Some(system) = system {
        cx.out.prepend(system);
    }
    Ok(count)
}

/// The `system` parameter: a string or an array of text blocks.
fn system_blocks<'a>(cx: &mut Cx<'a>, id: NodeId) -> Conv<()> {
    cx.out.source(NOT_A_MESSAGE);
    cx.out.begin(Role::System);
    match cx.tree.value(id) {
        Value::String(s) => cx.out.text(StringToWrite::Json(s)),
        Value::Array => {
            let blocks: Vec<NodeId> = cx.tree.children(id).collect();
            for (k, b) in blocks.into_iter().enumerate() {
                cx.path.index(k);
                let r = block(cx, b, Side::System);
                cx.path.pop(1);
                r?;
            }
        }
        _ => return Err(cx.shape(id, c"a string or an array of text blocks")),
    }
    cx.out.end();
    Ok(())
}

/// Where a block is: what it may be there.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    System,
    User,
    Assistant,
    /// Inside a tool result's content.
    Result,
}

fn message<'a>(cx: &mut Cx<'a>, m: NodeId) -> Conv<()> {
    if cx.tree.value(m) != Value::Object {
        return Err(cx.shape(m, c"a message object"));
    }
    cx.no_duplicates(m)?;
    let role = cx.required_str(m, "role")?;
    let content =
        cx.tree.get(m, "content").ok_or_else(|| cx.field_error(m, "content", c"a string or an array of blocks"))?;
    cx.unknown_fields(m, &["role", "content"])?;
    let (wire_role, side) = match role.decode_bytes().unwrap_or_default().as_ref() {
        b"user" => (Role::User, Side::User),
        b"assistant" => (Role::Assistant, Side::Assistant),
        b"system" => (Role::System, Side::System),
        _ => return Err(cx.field_error(m, "role", c"user, assistant or system")),
    };
    cx.path.name("content");
    let r = (|| {
        match cx.tree.value(content) {
            Value::String(s) => {
                cx.out.begin(wire_role);
                cx.out.text(StringToWrite::Json(s));
            }
            Value::Array => {
                let blocks: Vec<NodeId> = cx.tree.children(content).collect();
                // G16.1: each tool result of a user message first, as a `tool` message of its own.
                let mut rest = Vec::new();
                for (k, b) in blocks.into_iter().enumerate() {
                    if side == Side::User && block_type(cx, b).as_deref() == Some(&b"tool_result"[..]) {
                        cx.path.index(k);
                        let r = tool_result(cx, b);
                        cx.path.pop(1);
                        r?;
                    } else {
                        rest.push((k, b));
                    }
                }
                if rest.is_empty() && cx.tree.len(content) > 0 {
                    return Ok(false);
                }
                cx.out.begin(wire_role);
                for (k, b) in rest {
                    cx.path.index(k);
                    let r = block(cx, b, side);
                    cx.path.pop(1);
                    r?;
                }
            }
            _ => return Err(cx.shape(content, c"a string or an array of blocks")),
        }
        Ok(true)
    })();
    cx.path.pop(1);
    if r? {
        match wire_role {
            Role::Assistant => cx.out.end_assistant(),
            _ => cx.out.end(),
        }
    }
    Ok(())
}

fn block_type(cx: &Cx<'_>, b: NodeId) -> Option<Vec<u8>> {
    match cx.tree.get(b, "type").map(|t| cx.tree.value(t)) {
        Some(Value::String(s)) => s.decode_bytes().ok().map(|t| t.into_owned()),
        _ => None,
    }
}

/// A `tool_result` block of a user message: a `tool` message (G16.1).
fn tool_result<'a>(cx: &mut Cx<'a>, b: NodeId) -> Conv<()> {
    cx.no_duplicates(b)?;
    let id = cx.required_str(b, "tool_use_id")?;
    let is_error = cx.bool_field(b, "is_error")?;
    cx.cache_hints(b, &["cache_control"])?;
    cx.unknown_fields(b, &["type", "tool_use_id", "content", "is_error", "cache_control"])?;
    cx.out.begin_tool();
    if let Some(content) = cx.tree.get(b, "content") {
        cx.path.name("content");
        let r = (|| {
            match cx.tree.value(content) {
                Value::String(s) => cx.out.text(StringToWrite::Json(s)),
                Value::Array => {
                    let blocks: Vec<NodeId> = cx.tree.children(content).collect();
                    for (k, c) in blocks.into_iter().enumerate() {
                        cx.path.index(k);
                        let r = block(cx, c, Side::Result);
                        cx.path.pop(1);
                        r?;
                    }
                }
                Value::Null => {}
                _ => return Err(cx.shape(content, c"a string or an array of blocks")),
            }
            Ok(())
        })();
        cx.path.pop(1);
        r?;
    }
    cx.out.end_tool(StringToWrite::Json(id), is_error);
    Ok(())
}

/// Server-side tools: they pair on Anthropic's side, and the wire cannot carry them.
const SERVER_BLOCKS: &[&[u8]] = &[
    b"server_tool_use",
    b"web_search_tool_result",
    b"web_fetch_tool_result",
    b"code_execution_tool_result",
    b"bash_code_execution_tool_result",
    b"text_editor_code_execution_tool_result",
    b"tool_search_tool_result",
    b"mcp_tool_use",
    b"mcp_tool_result",
    b"container_upload",
];

fn block<'a>(cx: &mut Cx<'a>, b: NodeId, side: Side) -> Conv<()> {
    if cx.tree.value(b) != Value::Object {
        return Err(cx.shape(b, c"a content block object"));
    }
    cx.no_duplicates(b)?;
    let kind = cx.required_str(b, "type")?.decode_bytes().unwrap_or_default().into_owned();
    cx.cache_hints(b, &["cache_control"])?;
    // The fields each block reads (§16.4; `cache_control` above); image and document blocks are
    // checked where they are read. Any other field: `dropped_unknown_field`.
    let keys: &[&str] = match kind.as_slice() {
        b"text" => &["type", "text", "cache_control", "citations"],
        b"search_result" if side != Side::System => {
            &["type", "source", "title", "content", "cache_control", "citations"]
        }
        b"thinking" | b"redacted_thinking" | b"tool_use" if side == Side::Assistant => match kind.as_slice() {
            b"thinking" => &["type", "thinking", "signature", "cache_control"],
            b"redacted_thinking" => &["type", "data", "cache_control"],
            // `caller`, `toolset_name`: `dropped_unknown_field`.
            _ => &["type", "id", "name", "input", "cache_control"],
        },
        _ => &[],
    };
    if !keys.is_empty() {
        cx.unknown_fields(b, keys)?;
    }
    match kind.as_slice() {
        b"text" => {
            let text = cx.required_str(b, "text")?;
            if cx.tree.get(b, "citations").is_some_and(|c| cx.tree.len(c) > 0) {
                cx.loss(LossCode::DroppedCitations, b)?;
            }
            cx.out.text(StringToWrite::Json(text));
        }
        b"image" if side != Side::System => image(cx, b)?,
        b"document" if side != Side::System => document(cx, b)?,
        b"search_result" if side != Side::System => {
            let title = cx.str_field(b, "title")?;
            let text = match cx.tree.get(b, "content").map(|c| (c, cx.tree.value(c))) {
                Some((c, Value::Array)) => inner_texts(cx, c, None)?,
                _ => return Err(cx.field_error(b, "content", c"an array of text blocks")),
            };
            cx.loss(LossCode::DroppedCitations, b)?;
            cx.out.document(
                StringToWrite::Text("text/plain"),
                title.map_or(StringToWrite::Text(""), StringToWrite::Json),
                None,
                StringToWrite::Text(&text),
            );
        }
        b"thinking" if side == Side::Assistant => {
            let thinking = cx.required_str(b, "thinking")?;
            let signature = cx.required_str(b, "signature")?;
            cx.out.anthropic_thinking(thinking, Some(signature));
        }
        b"redacted_thinking" if side == Side::Assistant => {
            let data = cx.required_str(b, "data")?;
            let state = super::out::redacted_thinking_state(data);
            cx.out.thinking(
                StringToWrite::Text(""),
                StringToWrite::Text(""),
                "",
                Some((&state, super::out::ANTHROPIC_REDACTED)),
            );
        }
        b"tool_use" if side == Side::Assistant => {
            let id = cx.required_str(b, "id")?;
            let name = cx.required_str(b, "name")?;
            let at = cx.tree.get(b, "input").ok_or_else(|| cx.field_error(b, "input", c"a JSON value"))?;
            cx.path.name("input");
            let input = input::from_value(cx, at);
            cx.path.pop(1);
            let input = input?;
            cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, None);
        }
        kind if SERVER_BLOCKS.contains(&kind) => cx.loss(LossCode::ServerToolUnrepresentable, b)?,
        b"compaction" => {
            // A server-side summary of what came before: no cut may summarise it away (G16.8).
            cx.loss(LossCode::CompactionItemUnrepresentable, b)?;
            cx.out.no_cut_above(cx.out.first_of_source());
        }
        _ => cx.loss(LossCode::UnknownContentDropped, b)?,
    }
    Ok(())
}

/// An `image` block: base64, URL or file source.
pub(super) fn image<'a>(cx: &mut Cx<'a>, b: NodeId) -> Conv<()> {
    if cx.holds_any(b, &["transformations"]) {
        cx.loss(LossCode::DroppedMediaOptions, b)?;
    }
    cx.unknown_fields(b, &["type", "source", "cache_control", "transformations"])?;
    let source = cx.tree.get(b, "source").ok_or_else(|| cx.field_error(b, "source", c"an object"))?;
    cx.path.name("source");
    let r = (|| {
        let kind = cx.required_str(source, "type")?.decode_bytes().unwrap_or_default().into_owned();
        source_fields(cx, source, &kind)?;
        match kind.as_slice() {
            b"base64" => {
                let media_type = cx.required_str(source, "media_type")?;
                let bytes = base64_field(cx, source, "data")?;
                cx.out.image(StringToWrite::Json(media_type), StringToWrite::Text(""), Some(&bytes));
            }
            b"url" => {
                let url = cx.required_str(source, "url")?;
                cx.out.image(StringToWrite::Text(""), StringToWrite::Json(url), None);
            }
            b"file" => {
                let id = cx.required_str(source, "file_id")?;
                let url = media::file_id("anthropic", &id);
                cx.out.image(StringToWrite::Text(""), StringToWrite::Text(&url), None);
            }
            _ => return Err(cx.field_error(source, "type", c"base64, url or file")),
        }
        Ok(())
    })();
    cx.path.pop(1);
    r
}

/// A `document` block: base64 (PDF), text, content, URL or file source.
pub(super) fn document<'a>(cx: &mut Cx<'a>, b: NodeId) -> Conv<()> {
    if cx.holds_any(b, &["context"]) {
        cx.loss(LossCode::DroppedMediaOptions, b)?;
    }
    if cx.holds_any(b, &["citations"]) {
        cx.loss(LossCode::DroppedCitations, b)?;
    }
    cx.unknown_fields(b, &["type", "source", "cache_control", "citations", "context", "title"])?;
    let title = cx.str_field(b, "title")?;
    let name = title.map_or(StringToWrite::Text(""), StringToWrite::Json);
    let source = cx.tree.get(b, "source").ok_or_else(|| cx.field_error(b, "source", c"an object"))?;
    cx.path.name("source");
    let r = (|| {
        let kind = cx.required_str(source, "type")?.decode_bytes().unwrap_or_default().into_owned();
        source_fields(cx, source, &kind)?;
        match kind.as_slice() {
            b"base64" => {
                let media_type = cx.required_str(source, "media_type")?;
                let bytes = base64_field(cx, source, "data")?;
                cx.out.document(StringToWrite::Json(media_type), name, Some(&bytes), StringToWrite::Text(""));
            }
            b"text" => {
                let media_type =
                    cx.str_field(source, "media_type")?.map_or(StringToWrite::Text("text/plain"), StringToWrite::Json);
                let text = cx.required_str(source, "data")?;
                cx.out.document(media_type, name, None, StringToWrite::Json(text));
            }
            b"content" => {
                let mut text = String::new();
                let mut images = Vec::new();
                match cx.tree.get(source, "content").map(|c| (c, cx.tree.value(c))) {
                    Some((_, Value::String(s))) => text.push_str(&s.decode().unwrap_or_default()),
                    Some((c, Value::Array)) => text = inner_texts(cx, c, Some(&mut images))?,
                    _ => return Err(cx.field_error(source, "content", c"a string or an array of text blocks")),
                }
                cx.out.document(StringToWrite::Text("text/plain"), name, None, StringToWrite::Text(&text));
                // The images of the content follow the document, each an image block (§16.4).
                cx.path.name("content");
                let r = images.into_iter().try_for_each(|(k, image_block)| {
                    cx.path.index(k);
                    let r = image(cx, image_block);
                    cx.path.pop(1);
                    r
                });
                cx.path.pop(1);
                r?;
            }
            b"url" => {
                let url = cx.required_str(source, "url")?;
                let name = title.map_or(StringToWrite::Json(url), StringToWrite::Json);
                media::put_reference(cx, StringToWrite::Text(""), name, false, source)?;
            }
            b"file" => {
                let id = cx.required_str(source, "file_id")?;
                let url = media::file_id("anthropic", &id);
                let label = title.map(|t| t.decode().unwrap_or_default().into_owned()).unwrap_or(url);
                media::put_reference(cx, StringToWrite::Text(""), StringToWrite::Text(&label), false, source)?;
            }
            _ => return Err(cx.field_error(source, "type", c"base64, text, content, url or file")),
        }
        Ok(())
    })();
    cx.path.pop(1);
    r
}

/// The blocks of a `content` list inside a block (a document's `content` source, a
/// `search_result`'s `content`): the text blocks' texts joined by `\n`, each read as a `text`
/// block (its cache hint and non-empty `citations` reported, any other field
/// `dropped_unknown_field`); the `image` blocks (a `content` source may hold them, a search result
/// not: `images` is `None`) pushed to `images` with their index, for the caller to write after its
/// block; any other block `unknown_content_dropped` (§16.4: nothing inside is dropped unsaid).
fn inner_texts<'a>(cx: &mut Cx<'a>, list: NodeId, mut images: Option<&mut Vec<(usize, NodeId)>>) -> Conv<String> {
    let mut text = String::new();
    let mut first = true;
    cx.each_in("content", list, |cx, k, b| {
        if cx.tree.value(b) != Value::Object {
            return Err(cx.shape(b, c"a content block object"));
        }
        cx.no_duplicates(b)?;
        let kind = cx.required_str(b, "type")?.decode_bytes().unwrap_or_default().into_owned();
        match (kind.as_slice(), images.as_deref_mut()) {
            (b"text", _) => {
                cx.cache_hints(b, &["cache_control"])?;
                cx.unknown_fields(b, &["type", "text", "cache_control", "citations"])?;
                let t = cx.required_str(b, "text")?;
                if cx.holds_any(b, &["citations"]) {
                    cx.loss(LossCode::DroppedCitations, b)?;
                }
                if !first {
                    text.push('\n');
                }
                first = false;
                text.push_str(&t.decode().unwrap_or_default());
            }
            (b"image", Some(images)) => {
                cx.cache_hints(b, &["cache_control"])?;
                images.push((k, b));
            }
            _ => cx.loss(LossCode::UnknownContentDropped, b)?,
        }
        Ok(())
    })?;
    Ok(text)
}

/// The fields of an image's or document's `source` of each type (§16.4): any other is
/// `dropped_unknown_field`; a type the block does not take is refused by its reader.
fn source_fields(cx: &mut Cx<'_>, source: NodeId, kind: &[u8]) -> Conv<()> {
    let keys: &[&str] = match kind {
        b"base64" | b"text" => &["type", "media_type", "data"],
        b"url" => &["type", "url"],
        b"file" => &["type", "file_id"],
        b"content" => &["type", "content"],
        _ => return Ok(()),
    };
    cx.unknown_fields(source, keys)
}

/// A base64 field (`LC_CONVERT_SHAPE` when it is not base64).
pub(super) fn base64_field<'a>(cx: &mut Cx<'a>, id: NodeId, name: &'static str) -> Conv<Vec<u8>> {
    let text = cx.required_str(id, name)?;
    media::canonical_base64(&text.decode_bytes().unwrap_or_default()).ok_or_else(|| cx.field_error(id, name, c"base64"))
}
