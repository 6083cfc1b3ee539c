//! The Vercel AI SDK's `ModelMessage[]` as JSON (SPEC §16.7; v5 to v7 part shapes): system, user,
//! assistant and tool messages; reasoning parts whose signatures live in `providerOptions`; each
//! `tool-result` as a `tool` message of its own; provider-executed tools and approvals dropped and
//! reported.

use super::input;
use super::media::{self, DataUrl};
use super::out::{Role, StringToWrite};
use super::tree::{NodeId, Value};
use super::{Conv, Cx, LossCode, known, open_array};
use crate::json::{Parser, StringToken};

pub(super) fn convert<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>) -> Conv<u64> {
    open_array(cx, p, c"a JSON array of ModelMessage objects")?;
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

fn message<'a>(cx: &mut Cx<'a>) -> Conv<()> {
    let m = 0;
    if cx.tree.value(m) != Value::Object {
        return Err(cx.shape(m, c"a message object"));
    }
    cx.no_duplicates(m)?;
    let role = cx.required_str(m, "role")?.decode_bytes().unwrap_or_default().into_owned();
    if !matches!(role.as_slice(), b"system" | b"user" | b"assistant" | b"tool") {
        return Err(cx.field_error(m, "role", c"system, user, assistant or tool"));
    }
    options(cx, m, &[])?;
    cx.unknown_fields(m, &["role", "content", "providerOptions"])?;
    let content =
        cx.tree.get(m, "content").ok_or_else(|| cx.field_error(m, "content", c"a string or an array of parts"))?;
    cx.path.name("content");
    let r = match role.as_slice() {
        b"system" => match cx.tree.value(content) {
            Value::String(s) => {
                cx.out.begin(Role::System);
                cx.out.text(StringToWrite::Json(s));
                cx.out.end();
                Ok(())
            }
            _ => Err(cx.shape(content, c"a string")),
        },
        b"user" => {
            cx.out.begin(Role::User);
            let r = parts(cx, content, Role::User);
            cx.out.end();
            r
        }
        b"assistant" => {
            cx.out.begin(Role::Assistant);
            let r = parts(cx, content, Role::Assistant);
            cx.out.end_assistant();
            r
        }
        _ => tool_message(cx, content),
    };
    cx.path.pop(1);
    r
}

/// A message's or part's `providerOptions`: cache hints are `dropped_cache_control`; other options
/// (except the keys in `used`, which went into a block) are `dropped_provider_options`. An option
/// that holds nothing (`null`, `{}`, ...: `cacheControl: undefined` is left out by
/// `JSON.stringify`, a `null` one asks for nothing) drops nothing, as a cache hint of every format
/// (G16.8). A namespace that is not an object is an option of its own.
fn options<'a>(cx: &mut Cx<'a>, id: NodeId, used: &[&str]) -> Conv<()> {
    const CACHE: &[&str] = &["cacheControl", "cache_control", "promptCacheBreakpoint"];
    let Some(o) = cx.tree.get(id, "providerOptions") else { return Ok(()) };
    match cx.tree.value(o) {
        Value::Null => return Ok(()),
        Value::Object => {}
        _ => return Err(cx.field_error(id, "providerOptions", c"an object of provider namespaces")),
    }
    let mut cache = false;
    let mut other = false;
    for ns in cx.tree.children(o) {
        if cx.tree.value(ns) != Value::Object {
            other |= !cx.holds_nothing(ns);
            continue;
        }
        for c in cx.tree.children(ns) {
            let Some(key) = cx.tree.key(c) else { continue };
            if cx.holds_nothing(c) {
                continue;
            }
            if known(&key, CACHE) {
                cache = true;
            } else if !known(&key, used) {
                other = true;
            }
        }
    }
    if cache {
        cx.loss(LossCode::DroppedCacheControl, o)?;
    }
    if other {
        cx.loss(LossCode::DroppedProviderOptions, o)?;
    }
    Ok(())
}

fn parts<'a>(cx: &mut Cx<'a>, content: NodeId, role: Role) -> Conv<()> {
    match cx.tree.value(content) {
        Value::String(s) => {
            cx.out.text(StringToWrite::Json(s));
            Ok(())
        }
        Value::Array => {
            let list: Vec<NodeId> = cx.tree.children(content).collect();
            // Provider-executed calls and their results pair on the provider's side.
            for (k, part) in list.into_iter().enumerate() {
                cx.path.index(k);
                let r = self::part(cx, part, role);
                cx.path.pop(1);
                r?;
            }
            Ok(())
        }
        _ => Err(cx.shape(content, c"a string or an array of parts")),
    }
}

/// The member `name` of the namespace object `ns` of a `providerOptions`.
fn option<'a>(cx: &Cx<'a>, part: NodeId, ns: &str, name: &str) -> Option<StringToken<'a>> {
    let o = cx.tree.get(part, "providerOptions")?;
    let n = cx.tree.get(o, ns)?;
    match cx.tree.value(cx.tree.get(n, name)?) {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// `providerOptions` without the member `used` of namespace `ns` (`None` when nothing is left);
/// refused when an object in it repeats a key (the wire keeps it as a raw value).
fn options_without(cx: &Cx<'_>, part: NodeId, used: Option<(&str, &str)>) -> Conv<Option<Vec<u8>>> {
    let Some(o) = cx.tree.get(part, "providerOptions") else { return Ok(None) };
    cx.raw_value(o)?;
    let mut out = Vec::from(&b"{"[..]);
    for ns in cx.tree.children(o) {
        let Some(ns_key) = cx.tree.key(ns) else { continue };
        let mut members = Vec::new();
        for c in cx.tree.children(ns) {
            let Some(key) = cx.tree.key(c) else { continue };
            if let Some((u_ns, u_key)) = used
                && known(&ns_key, &[u_ns])
                && known(&key, &[u_key])
            {
                continue;
            }
            if !members.is_empty() {
                members.push(b',');
            }
            members.push(b'"');
            members.extend_from_slice(key.raw());
            members.extend_from_slice(b"\":");
            members.extend_from_slice(cx.tree.span(c).of(cx.src));
        }
        if members.is_empty() {
            continue;
        }
        if out.len() > 1 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(ns_key.raw());
        out.extend_from_slice(b"\":{");
        out.extend_from_slice(&members);
        out.push(b'}');
    }
    out.push(b'}');
    Ok((out.len() > 2).then_some(out))
}

const GOOGLE: &[&str] = &["google", "googleVertex", "vertex"];

/// The fields of an `image`, `file` or `reasoning-file` part (or a tool output's `image` /
/// `file` item).
fn media_keys(kind: &[u8]) -> &'static [&'static str] {
    if kind == b"image" {
        &["type", "image", "mediaType", "mimeType", "providerOptions"]
    } else {
        &["type", "data", "filename", "mediaType", "mimeType", "providerOptions"]
    }
}

fn part<'a>(cx: &mut Cx<'a>, part: NodeId, role: Role) -> Conv<()> {
    if cx.tree.value(part) != Value::Object {
        return Err(cx.shape(part, c"a part object"));
    }
    cx.no_duplicates(part)?;
    let kind = cx.required_str(part, "type")?.decode_bytes().unwrap_or_default().into_owned();
    // The fields of each part (AI SDK 5 to 7; `args` is 4's `input`, `mimeType` its
    // `mediaType`): any other is `dropped_unknown_field`. Parts dropped whole are not read.
    let keys: &[&str] = match (kind.as_slice(), role) {
        (b"text", _) | (b"reasoning", Role::Assistant) => &["type", "text", "providerOptions"],
        (b"tool-call", Role::Assistant) => {
            &["type", "toolCallId", "toolName", "input", "args", "providerOptions", "providerExecuted"]
        }
        (b"image" | b"file" | b"reasoning-file", _) => media_keys(&kind),
        _ => &[],
    };
    if !keys.is_empty() {
        cx.unknown_fields(part, keys)?;
    }
    match (kind.as_slice(), role) {
        (b"text", _) => {
            let text = cx.required_str(part, "text")?;
            let signature = GOOGLE.iter().find_map(|ns| option(cx, part, ns, "thoughtSignature"));
            options(cx, part, &["thoughtSignature"])?;
            if let Some(s) = signature {
                cx.out.thinking(StringToWrite::Text(""), StringToWrite::Json(s), "gemini.thought_signature", None);
            }
            cx.out.text(StringToWrite::Json(text));
        }
        (b"reasoning", Role::Assistant) => {
            let text = cx.required_str(part, "text")?;
            let (signature, format, used) = if let Some(s) = option(cx, part, "anthropic", "signature") {
                (Some(s), "anthropic", Some(("anthropic", "signature")))
            } else if let Some(s) = option(cx, part, "openai", "reasoningEncryptedContent") {
                (Some(s), "openai.encrypted_content", Some(("openai", "reasoningEncryptedContent")))
            } else if let Some((ns, s)) =
                GOOGLE.iter().find_map(|ns| option(cx, part, ns, "thoughtSignature").map(|s| (*ns, s)))
            {
                (Some(s), "gemini.thought_signature", Some((ns, "thoughtSignature")))
            } else {
                (None, "", None)
            };
            if let Some(data) = option(cx, part, "anthropic", "redactedData") {
                let state = super::out::redacted_thinking_state(data);
                // The part's text (empty for what Anthropic redacts) stays the block's text.
                cx.out.thinking(
                    StringToWrite::Json(text),
                    StringToWrite::Text(""),
                    "",
                    Some((&state, super::out::ANTHROPIC_REDACTED)),
                );
                return Ok(());
            }
            let rest = options_without(cx, part, used)?;
            let state = rest.as_deref().map(|s| (s, "ai_sdk.provider_options"));
            cx.out.thinking(
                StringToWrite::Json(text),
                signature.map_or(StringToWrite::Text(""), StringToWrite::Json),
                format,
                state,
            );
        }
        (b"tool-call", Role::Assistant) => {
            if cx.bool_field(part, "providerExecuted")? {
                return cx.loss(LossCode::ServerToolUnrepresentable, part);
            }
            let id = cx.required_str(part, "toolCallId")?;
            let name = cx.required_str(part, "toolName")?;
            let at = cx.tree.get(part, "input").or_else(|| cx.tree.get(part, "args"));
            let at = at.ok_or_else(|| cx.field_error(part, "input", c"a JSON value"))?;
            cx.path.name("input");
            let input = match cx.tree.value(at) {
                // v4 and earlier sent `args` as text at times: parse it as Chat's arguments.
                Value::String(s) => input::from_text(cx, s, at),
                _ => input::from_value(cx, at),
            };
            cx.path.pop(1);
            let input = input?;
            let state = options_without(cx, part, None)?;
            let state = state.as_deref().map(|s| (s, "ai_sdk.provider_options"));
            cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, state);
        }
        (b"tool-result", Role::Assistant) => cx.loss(LossCode::ServerToolUnrepresentable, part)?,
        (b"tool-approval-request", _) | (b"tool-approval-response", _) => {
            cx.loss(LossCode::ToolApprovalDropped, part)?
        }
        (b"custom", _) => {
            let kind = cx.str_field(part, "kind")?;
            if kind.is_some_and(|k| k.raw() == b"openai.compaction") {
                cx.out.no_cut_above(cx.out.first_of_source());
                cx.loss(LossCode::CompactionItemUnrepresentable, part)?;
            } else {
                cx.loss(LossCode::UnknownContentDropped, part)?;
            }
        }
        (b"image" | b"file" | b"reasoning-file", _) => {
            options(cx, part, &[])?;
            media_part(cx, part, kind.as_slice())?;
        }
        _ => cx.loss(LossCode::UnknownContentDropped, part)?,
    }
    Ok(())
}

/// An `image`, `file` or `reasoning-file` part: bytes (base64 text, a data URL, or the tagged
/// `{type: "data"}`), a URL, a provider file reference, or text.
fn media_part<'a>(cx: &mut Cx<'a>, part: NodeId, kind: &[u8]) -> Conv<()> {
    let field = if kind == b"image" { "image" } else { "data" };
    let data = cx.tree.get(part, field).ok_or_else(|| cx.field_error(part, field, c"bytes, a URL or a reference"))?;
    let media_type = cx.str_field(part, "mediaType")?.or(cx.str_field(part, "mimeType")?);
    let is_image = kind == b"image" || media_type.is_some_and(|m| m.raw().starts_with(b"image"));
    let mt = media_type.map_or(StringToWrite::Text(""), StringToWrite::Json);
    let name = cx.str_field(part, "filename")?.map_or(StringToWrite::Text(""), StringToWrite::Json);
    cx.path.name(if kind == b"image" { "image" } else { "data" });
    let r = (|| {
        match cx.tree.value(data) {
            Value::String(s) => {
                let raw = s.decode_bytes().unwrap_or_default();
                match media::data_url(&raw) {
                    Some(Ok(DataUrl::Bytes { media_type, bytes })) => {
                        media::put_bytes(cx, StringToWrite::Text(&media_type), &bytes, name)
                    }
                    Some(Ok(DataUrl::Text { media_type, text })) => {
                        cx.out.document(StringToWrite::Text(&media_type), name, None, StringToWrite::Text(&text))
                    }
                    Some(Err(())) => return Err(cx.shape(data, c"base64, a URL or a base64 data URL")),
                    None if media::has_url_scheme(&raw) => {
                        media::put_reference(cx, mt, StringToWrite::Json(s), is_image, data)?;
                    }
                    None => {
                        let bytes = media::canonical_base64(&raw)
                            .ok_or_else(|| cx.shape(data, c"base64, a URL or a base64 data URL"))?;
                        if is_image && media_type.is_none() {
                            cx.out.image(StringToWrite::Text(""), StringToWrite::Text(""), Some(&bytes));
                        } else {
                            media::put_bytes(cx, mt, &bytes, name);
                        }
                    }
                }
            }
            Value::Object => {
                let tag = cx.required_str(data, "type")?.decode_bytes().unwrap_or_default().into_owned();
                let keys: &[&str] = match tag.as_slice() {
                    b"data" => &["type", "data"],
                    b"url" => &["type", "url"],
                    b"reference" => &["type", "reference"],
                    b"text" => &["type", "text"],
                    _ => &[],
                };
                if !keys.is_empty() {
                    cx.unknown_fields(data, keys)?;
                }
                match tag.as_slice() {
                    b"data" => {
                        let text = cx.required_str(data, "data")?;
                        let bytes = media::canonical_base64(&text.decode_bytes().unwrap_or_default())
                            .ok_or_else(|| cx.field_error(data, "data", c"base64"))?;
                        media::put_bytes(cx, mt, &bytes, name);
                    }
                    b"url" => {
                        let url = cx.required_str(data, "url")?;
                        media::put_reference(cx, mt, StringToWrite::Json(url), is_image, data)?;
                    }
                    b"reference" => {
                        let reference = cx
                            .tree
                            .get(data, "reference")
                            .ok_or_else(|| cx.field_error(data, "reference", c"an object"))?;
                        cx.path.name("reference");
                        let url = file_id_url(cx, reference);
                        cx.path.pop(1);
                        let url = url?;
                        media::put_reference(cx, mt, StringToWrite::Text(&url), is_image, data)?;
                    }
                    b"text" => {
                        let text = cx.required_str(data, "text")?;
                        cx.out.document(
                            media_type.map_or(StringToWrite::Text("text/plain"), StringToWrite::Json),
                            name,
                            None,
                            StringToWrite::Json(text),
                        );
                    }
                    _ => return Err(cx.field_error(data, "type", c"data, url, reference or text")),
                }
            }
            _ => return Err(cx.shape(data, c"bytes, a URL or a reference")),
        }
        Ok(())
    })();
    cx.path.pop(1);
    r
}

/// The pseudo-URL of a file reference (G16.7): a provider-to-id record as `file-id:` then its
/// `provider=id` pairs sorted by provider, joined by `,`; a bare id (a tool output's `fileId`
/// string, whose provider the part does not say) as `file-id:ai_sdk:<id>`. A record's id that is
/// not a string is not the SDK's shape (701): left out, it would drop that provider's reference
/// unsaid.
fn file_id_url(cx: &Cx<'_>, id: NodeId) -> Conv<String> {
    match cx.tree.value(id) {
        Value::String(s) => return Ok(media::file_id("ai_sdk", &s)),
        Value::Object => {}
        _ => return Err(cx.shape(id, c"a record of provider file ids")),
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for c in cx.tree.children(id) {
        let key = cx.tree.key(c).map(|k| k.decode().unwrap_or_default().into_owned()).unwrap_or_default();
        let Value::String(v) = cx.tree.value(c) else { return Err(cx.shape(c, c"a provider's file id string")) };
        pairs.push((key, v.decode().unwrap_or_default().into_owned()));
    }
    pairs.sort();
    Ok(format!("file-id:{}", pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")))
}

/// A `tool` message: each `tool-result` a `tool` message of its own (G16.1).
fn tool_message<'a>(cx: &mut Cx<'a>, content: NodeId) -> Conv<()> {
    if cx.tree.value(content) != Value::Array {
        return Err(cx.shape(content, c"an array of tool-result parts"));
    }
    let list: Vec<NodeId> = cx.tree.children(content).collect();
    for (k, part) in list.into_iter().enumerate() {
        cx.path.index(k);
        let r = tool_result(cx, part);
        cx.path.pop(1);
        r?;
    }
    Ok(())
}

fn tool_result<'a>(cx: &mut Cx<'a>, part: NodeId) -> Conv<()> {
    if cx.tree.value(part) != Value::Object {
        return Err(cx.shape(part, c"a part object"));
    }
    cx.no_duplicates(part)?;
    let kind = cx.required_str(part, "type")?.decode_bytes().unwrap_or_default().into_owned();
    if kind.as_slice() != b"tool-result" {
        return match kind.as_slice() {
            b"tool-approval-response" => cx.loss(LossCode::ToolApprovalDropped, part),
            _ => cx.loss(LossCode::UnknownContentDropped, part),
        };
    }
    let id = cx.required_str(part, "toolCallId")?;
    options(cx, part, &[])?;
    // `toolName` names the call, which carries it; 5's `output`, else 4's `result` and `isError`,
    // are read below (4's beside an `output` are not read: `dropped_unknown_field`).
    let v5 = cx.tree.get(part, "output").is_some();
    let read: &[&str] = if v5 { &["output"] } else { &["result", "isError"] };
    cx.unknown_fields(part, &[&["type", "toolCallId", "toolName", "providerOptions"], read].concat())?;
    cx.out.begin_tool();
    let mut is_error = false;
    // v5+: `output` is a tagged union; v4: `result` and `isError`.
    if let Some(o) = cx.tree.get(part, "output") {
        cx.path.name("output");
        let r = (|| -> Conv<bool> {
            let tag = cx.required_str(o, "type")?.decode_bytes().unwrap_or_default().into_owned();
            let keys: &[&str] = match tag.as_slice() {
                b"execution-denied" => &["type", "reason", "providerOptions"],
                b"text" | b"error-text" | b"json" | b"error-json" | b"content" => &["type", "value", "providerOptions"],
                _ => &[],
            };
            if !keys.is_empty() {
                options(cx, o, &[])?;
                cx.unknown_fields(o, keys)?;
            }
            match tag.as_slice() {
                b"text" | b"error-text" => {
                    let v = cx.required_str(o, "value")?;
                    cx.out.text(StringToWrite::Json(v));
                }
                b"json" | b"error-json" => {
                    let v = cx.tree.get(o, "value").ok_or_else(|| cx.field_error(o, "value", c"a JSON value"))?;
                    let text = cx.json_text(v);
                    cx.out.text(StringToWrite::Text(&text));
                }
                b"execution-denied" => {
                    let reason = cx.str_field(o, "reason")?;
                    cx.out.text(reason.map_or(StringToWrite::Text("Tool execution denied."), StringToWrite::Json));
                }
                b"content" => {
                    let v = cx
                        .tree
                        .get(o, "value")
                        .ok_or_else(|| cx.field_error(o, "value", c"an array of content parts"))?;
                    if cx.tree.value(v) != Value::Array {
                        return Err(cx.field_error(o, "value", c"an array of content parts"));
                    }
                    cx.each_in("value", v, |cx, _, item| {
                        if cx.tree.value(item) != Value::Object {
                            return Err(cx.shape(item, c"a content part object"));
                        }
                        cx.no_duplicates(item)?;
                        let t = cx.required_str(item, "type")?.decode_bytes().unwrap_or_default().into_owned();
                        let keys: &[&str] = match t.as_slice() {
                            b"text" => &["type", "text", "providerOptions"],
                            b"media" | b"image-data" | b"file-data" => {
                                &["type", "data", "mediaType", "filename", "providerOptions"]
                            }
                            b"file-url" | b"image-url" => &["type", "url", "mediaType", "providerOptions"],
                            b"file-id" | b"image-file-id" => &["type", "fileId", "providerOptions"],
                            b"file" | b"image" => media_keys(&t),
                            _ => &[],
                        };
                        if !keys.is_empty() {
                            options(cx, item, &[])?;
                            cx.unknown_fields(item, keys)?;
                        }
                        match t.as_slice() {
                            b"text" => {
                                let text = cx.required_str(item, "text")?;
                                cx.out.text(StringToWrite::Json(text));
                            }
                            b"media" | b"image-data" | b"file-data" => {
                                let mt = cx
                                    .str_field(item, "mediaType")?
                                    .map_or(StringToWrite::Text(""), StringToWrite::Json);
                                let bytes = super::anthropic::base64_field(cx, item, "data")?;
                                let name = cx
                                    .str_field(item, "filename")?
                                    .map_or(StringToWrite::Text(""), StringToWrite::Json);
                                media::put_bytes(cx, mt, &bytes, name);
                            }
                            b"file-url" | b"image-url" => {
                                let url = cx.required_str(item, "url")?;
                                let mt = cx.str_field(item, "mediaType")?;
                                let image =
                                    t.as_slice() == b"image-url" || mt.is_some_and(|m| m.raw().starts_with(b"image"));
                                media::put_reference(
                                    cx,
                                    mt.map_or(StringToWrite::Text(""), StringToWrite::Json),
                                    StringToWrite::Json(url),
                                    image,
                                    item,
                                )?;
                            }
                            b"file-id" | b"image-file-id" => {
                                let id = match cx.tree.get(item, "fileId") {
                                    Some(id) if matches!(cx.tree.value(id), Value::String(_) | Value::Object) => id,
                                    _ => return Err(cx.field_error(item, "fileId", c"a string or an object")),
                                };
                                cx.path.name("fileId");
                                let url = file_id_url(cx, id);
                                cx.path.pop(1);
                                let url = url?;
                                let image = t.as_slice() == b"image-file-id";
                                media::put_reference(
                                    cx,
                                    StringToWrite::Text(""),
                                    StringToWrite::Text(&url),
                                    image,
                                    item,
                                )?;
                            }
                            b"file" | b"image" => {
                                media_part(cx, item, if t.as_slice() == b"image" { b"image" } else { b"file" })?
                            }
                            _ => cx.loss(LossCode::UnknownContentDropped, item)?,
                        }
                        Ok(())
                    })?;
                }
                _ => cx.loss(LossCode::UnknownContentDropped, o)?,
            }
            Ok(tag.starts_with(b"error") || tag.as_slice() == b"execution-denied")
        })();
        cx.path.pop(1);
        is_error = r?;
    } else if let Some(v) = cx.tree.get(part, "result") {
        let text = cx.json_text(v);
        cx.out.text(StringToWrite::Text(&text));
        is_error = cx.bool_field(part, "isError")?;
    }
    cx.out.end_tool(StringToWrite::Json(id), is_error);
    Ok(())
}
