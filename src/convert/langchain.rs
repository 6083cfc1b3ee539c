//! LangChain messages as its serialisers write them (SPEC §16.6): `messages_to_dict`
//! (`{"type": "ai", "data": {...}}`), `dumpd` (`{"lc": 1, "type": "constructor", "id": [...,
//! "AIMessage"], "kwargs": {...}}`) or a bare `model_dump()`. Content blocks are LangChain's
//! standard (v1) blocks or the provider's own (Anthropic blocks, Responses items); `tool_calls`
//! and `invalid_tool_calls` are the calls; `usage_metadata` is the one usage a source carries.

use std::collections::{HashMap, HashSet};

use super::input;
use super::media::{self, DataUrl};
use super::out::{GEMINI_PART, Role, StringToWrite, Usage, gemini_part_state};
use super::tree::{NodeId, Value};
use super::{Conv, Cx, LossCode, RawObject, open_array};
use crate::json::Parser;

pub(super) fn convert<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>) -> Conv<u64> {
    open_array(cx, p, c"a JSON array of serialised LangChain messages")?;
    let mut i = 0u64;
    while cx.next_element(p)? {
        cx.path.index(i as usize);
        cx.out.source(i);
        let r = message(cx, i);
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
    Ok((chunk_kind(kind), data))
}

/// A streamed message's type as its message's: `message_to_dict` and `model_dump()` of an
/// `AIMessageChunk` write `"type": "AIMessageChunk"` (and so for every chunk class), and a chunk
/// holds what its message holds (its `tool_call_chunks` are parsed into `tool_calls` and
/// `invalid_tool_calls` when it is made, so reading those loses nothing).
fn chunk_kind(kind: Vec<u8>) -> Vec<u8> {
    let message: &[u8] = match kind.as_slice() {
        b"HumanMessageChunk" => b"human",
        b"AIMessageChunk" => b"ai",
        b"SystemMessageChunk" => b"system",
        b"ToolMessageChunk" => b"tool",
        b"FunctionMessageChunk" => b"function",
        b"ChatMessageChunk" => b"chat",
        _ => return kind,
    };
    message.to_vec()
}

/// The fields of a message of each kind (LangChain's message classes; `id`, `name`,
/// `response_metadata`, `example`, a chunk's `tool_call_chunks` and `chunk_position` are metadata
/// or repeat what is read): any other is `dropped_unknown_field` (§16.6).
fn message_keys(kind: &[u8]) -> &'static [&'static str] {
    match kind {
        b"human" => &["type", "content", "additional_kwargs", "response_metadata", "name", "id", "example"],
        b"ai" => &[
            "type",
            "content",
            "additional_kwargs",
            "response_metadata",
            "name",
            "id",
            "example",
            "tool_calls",
            "invalid_tool_calls",
            "usage_metadata",
            "tool_call_chunks",
            "chunk_position",
        ],
        b"tool" => &[
            "type",
            "content",
            "additional_kwargs",
            "response_metadata",
            "name",
            "id",
            "tool_call_id",
            "artifact",
            "status",
        ],
        b"chat" => &["type", "content", "additional_kwargs", "response_metadata", "name", "id", "role"],
        _ => &["type", "content", "additional_kwargs", "response_metadata", "name", "id"],
    }
}

fn message<'a>(cx: &mut Cx<'a>, i: u64) -> Conv<()> {
    let (kind, d) = unwrap(cx, 0)?;
    if cx.tree.value(d) != Value::Object {
        return Err(cx.shape(d, c"the message's fields"));
    }
    cx.no_duplicates(d)?;
    cx.unknown_fields(d, message_keys(&kind))?;
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
            additional_kwargs(cx, d, None)?;
            content(cx, d, Role::User, &provider, &mut Calls::default())?;
            cx.out.end();
        }
        b"system" => {
            cx.out.begin(Role::System);
            additional_kwargs(cx, d, None)?;
            content(cx, d, Role::System, &provider, &mut Calls::default())?;
            cx.out.end();
        }
        b"ai" => {
            cx.out.begin(Role::Assistant);
            let mut called = Calls::new(cx, d, i);
            if let Some(refusal) = cx.tree.get(d, "additional_kwargs").and_then(|k| cx.tree.get(k, "refusal"))
                && let Value::String(s) = cx.tree.value(refusal)
            {
                cx.out.refusal(StringToWrite::Json(s));
            }
            additional_kwargs(cx, d, Some(&called))?;
            content(cx, d, Role::Assistant, &provider, &mut called)?;
            calls(cx, d, &mut called)?;
            let usage = usage(cx, d);
            cx.out.end_assistant_usage(usage);
        }
        b"tool" => {
            let id = cx.required_str(d, "tool_call_id")?;
            let error = cx.str_field(d, "status")?.is_some_and(|s| s.raw() == b"error");
            cx.out.begin_tool();
            additional_kwargs(cx, d, None)?;
            // The artifact is the tool's output kept for the program, not shown to the model:
            // the wire has no place for it, so it is reported (§16.6), never dropped unsaid.
            if let Some(artifact) = cx.tree.get(d, "artifact")
                && cx.tree.value(artifact) != Value::Null
            {
                cx.path.name("artifact");
                let r = cx.loss(LossCode::DroppedUnknownField, artifact);
                cx.path.pop(1);
                r?;
            }
            content(cx, d, Role::User, &provider, &mut Calls::default())?;
            cx.out.end_tool(StringToWrite::Json(id), error);
        }
        b"function" => {
            let name =
                cx.str_field(d, "name")?.map(|n| n.decode().unwrap_or_default().into_owned()).unwrap_or_default();
            let id = format!("function_call:{name}");
            cx.loss(LossCode::SynthesizedToolId, d)?;
            cx.out.begin_tool();
            additional_kwargs(cx, d, None)?;
            content(cx, d, Role::User, &provider, &mut Calls::default())?;
            cx.out.end_tool(StringToWrite::Text(&id), false);
        }
        _ => return Err(cx.field_error(d, "type", c"human, ai, system, tool, function or chat")),
    }
    Ok(())
}

/// `additional_kwargs`: the provider's fields LangChain has no field of its own for. §16.6 maps
/// only an AI message's `refusal` (written by the caller); every other member that holds
/// something (a legacy `function_call`, a gateway's `reasoning_content`, ...) is reported as
/// `dropped_unknown_field`, so that nothing the model said goes missing unsaid (G16.8). Empty
/// members (`null`, `""`, `{}`, `[]`: `"refusal": null` is on every ChatOpenAI message) carry
/// nothing. An AI message's `tool_calls` there is OpenAI's raw form of the calls LangChain has
/// already parsed into the message's `tool_calls` and `invalid_tool_calls`, which are converted.
/// An AI message's (`called`) two maps by call id are read: langchain-google-genai's
/// `__gemini_function_call_thought_signatures__` (each signature goes to its call,
/// [`Calls::signatures`]; the map is a loss when an entry has no call or is not a string) and
/// langchain-openai's `__openai_function_call_ids__` (the Responses item ids of the calls,
/// metadata as a `function_call` item's `id` is in §16.3).
fn additional_kwargs<'a>(cx: &mut Cx<'a>, d: NodeId, called: Option<&Calls>) -> Conv<()> {
    let Some(kwargs) = cx.tree.get(d, "additional_kwargs") else { return Ok(()) };
    match cx.tree.value(kwargs) {
        Value::Null => return Ok(()),
        Value::Object => {}
        _ => return Err(cx.field_error(d, "additional_kwargs", c"an object")),
    }
    cx.no_duplicates(kwargs)?;
    let ai = called.is_some();
    let signatures_read = called.is_some_and(|c| c.signatures_whole);
    let mapped: &[&str] = match (ai, signatures_read) {
        (false, _) => &[],
        (true, false) => &["refusal", "tool_calls", OPENAI_CALL_IDS],
        (true, true) => &["refusal", "tool_calls", OPENAI_CALL_IDS, GEMINI_SIGNATURES],
    };
    let members: Vec<NodeId> = cx.tree.children(kwargs).collect();
    for member in members {
        let Some(key) = cx.tree.key(member) else { continue };
        let empty = cx.holds_nothing(member);
        // A refusal that is not text has no refusal block to go to (the caller writes strings).
        let text = matches!(cx.tree.value(member), Value::String(_));
        let mapped = super::known(&key, mapped) && (text || !super::known(&key, &["refusal"]));
        if !empty && !mapped {
            cx.path.name("additional_kwargs");
            let r = cx.loss(LossCode::DroppedUnknownField, member);
            cx.path.pop(1);
            r?;
        }
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

/// The calls of an AI message (§16.6): its index (for the ids G16.6 makes), how many calls per id
/// (`None`: without id) its content wrote, and the ids its `tool_calls` and `invalid_tool_calls`
/// hold (for the `tool_call_chunk` blocks of its content).
#[derive(Default)]
struct Calls {
    message: u64,
    /// By call id, the string node of its Gemini thought signature ([`GEMINI_SIGNATURES`]).
    signatures: HashMap<Vec<u8>, NodeId>,
    /// Whether every entry of that map went to a call (else the map is `dropped_unknown_field`).
    signatures_whole: bool,
    in_content: HashMap<Option<Vec<u8>>, usize>,
    listed: HashSet<Option<Vec<u8>>>,
    /// By id, the `args` of the first `tool_calls` entry with it: LangChain's parsed arguments.
    parsed: HashMap<Vec<u8>, NodeId>,
}

impl Calls {
    fn new(cx: &Cx<'_>, d: NodeId, message: u64) -> Calls {
        let mut listed = HashSet::new();
        let mut parsed = HashMap::new();
        for field in ["tool_calls", "invalid_tool_calls"] {
            let Some(list) = cx.tree.get(d, field).filter(|&l| cx.tree.value(l) == Value::Array) else { continue };
            for c in cx.tree.children(list) {
                let key = call_key(cx, c);
                if field == "tool_calls"
                    && let (Some(id), Some(args)) = (&key, cx.tree.get(c, "args"))
                {
                    parsed.entry(id.clone()).or_insert(args);
                }
                listed.insert(key);
            }
        }
        let mut signatures = HashMap::new();
        let mut signatures_whole = true;
        if let Some(map) = cx.tree.get(d, "additional_kwargs").and_then(|k| cx.tree.get(k, GEMINI_SIGNATURES)) {
            match cx.tree.value(map) {
                Value::Object => {
                    for entry in cx.tree.children(map) {
                        let key = cx.tree.key(entry).and_then(|k| k.decode_bytes().ok().map(|k| k.into_owned()));
                        let signed = matches!(cx.tree.value(entry), Value::String(s) if !s.is_empty());
                        match key {
                            Some(id) if signed && listed.contains(&Some(id.clone())) => {
                                signatures.entry(id).or_insert(entry);
                            }
                            _ => signatures_whole = false,
                        }
                    }
                }
                _ => signatures_whole = cx.holds_nothing(map),
            }
        }
        Calls { message, in_content: HashMap::new(), listed, parsed, signatures, signatures_whole }
    }

    /// A call the content wrote.
    fn wrote(&mut self, key: Option<Vec<u8>>) {
        *self.in_content.entry(key).or_default() += 1;
    }
}

/// The `args` of the `tool_calls` entry for the `tool_use` block `b` (same id), if there is one.
fn parsed_args(cx: &Cx<'_>, b: NodeId, called: &Calls) -> Option<NodeId> {
    let id = match cx.tree.get(b, "id").map(|i| cx.tree.value(i)) {
        Some(Value::String(s)) => s.decode_bytes().unwrap_or_default().into_owned(),
        _ => return None,
    };
    called.parsed.get(&id).copied()
}

/// langchain-google-genai's map of an AI message's call ids to their Gemini thought signatures
/// (base64 text), in `additional_kwargs`.
const GEMINI_SIGNATURES: &str = "__gemini_function_call_thought_signatures__";
/// langchain-openai's map of an AI message's call ids to their Responses item ids.
const OPENAI_CALL_IDS: &str = "__openai_function_call_ids__";

/// The id of call `c` as calls are matched by it: `None` when it has none (`null`, absent).
fn call_key(cx: &Cx<'_>, c: NodeId) -> Option<Vec<u8>> {
    match cx.tree.get(c, "id").map(|i| cx.tree.value(i)) {
        Some(Value::String(s)) => Some(s.decode_bytes().unwrap_or_default().into_owned()),
        _ => None,
    }
}

/// The calls of an AI message that its content did not already hold (`tool_calls` with their
/// arguments as a JSON value, `invalid_tool_calls` with their arguments as text). LangChain
/// repeats a call it keeps in the content (a `tool_call` block, an Anthropic `tool_use`, a
/// Responses `function_call`) in `tool_calls`, and that entry is the same call: an entry whose id
/// (or, without id, whose lack of one) the content wrote is skipped, once per call the content
/// wrote. A second entry with the same id in the list itself is another call and is kept, as Chat
/// keeps it, for pairing to report (§16.6: nothing is dropped silently).
fn calls<'a>(cx: &mut Cx<'a>, d: NodeId, called: &mut Calls) -> Conv<()> {
    for (field, invalid) in [("tool_calls", false), ("invalid_tool_calls", true)] {
        let Some(list) = cx.tree.get(d, field) else { continue };
        match cx.tree.value(list) {
            Value::Null => continue,
            Value::Array => {}
            _ => return Err(cx.field_error(d, field, c"an array of tool calls")),
        }
        cx.each_in(field, list, |cx, k, c| {
            if cx.tree.value(c) == Value::Object
                && let Some(left) = called.in_content.get_mut(&call_key(cx, c))
                && *left > 0
            {
                *left -= 1;
                return Ok(());
            }
            let signature = call_key(cx, c).and_then(|id| called.signatures.get(&id).copied());
            call(cx, c, invalid, &format!("langchain:{}:{field}:{k}", called.message), signature)
        })?;
    }
    Ok(())
}

/// One call: an entry of `tool_calls` or (`invalid`) `invalid_tool_calls`, or a `tool_call`
/// (`invalid_tool_call`) block of the content. A call without id (LangChain's `id: None`) gets
/// `made_id` with the loss `synthesized_tool_id` (G16.6). `signature`: the string node of its
/// Gemini thought signature, kept as a Gemini `functionCall` part's is (G16.3, `gemini.part`).
fn call<'a>(cx: &mut Cx<'a>, call: NodeId, invalid: bool, made_id: &str, signature: Option<NodeId>) -> Conv<()> {
    if cx.tree.value(call) != Value::Object {
        return Err(cx.shape(call, c"a tool call object"));
    }
    cx.no_duplicates(call)?;
    let id = cx.str_field(call, "id")?;
    // An invalid call's `name` may be `None` (LangChain's `InvalidToolCall`: a streamed call
    // that broke off before its name): the wire's name is a free string (T5.7), so the call keeps
    // an empty one. The entry's `arguments_unparseable` already says the call is not a valid
    // one, and a `null` name holds nothing to lose (G16.8). A valid call's name is required.
    let name = if invalid { cx.str_field(call, "name")? } else { Some(cx.required_str(call, "name")?) };
    // `type`, `index`: the entry's kind and its place in a stream; an invalid call's `error` is
    // LangChain's note on why it is one (its loss says so); `extras` as a block's.
    let keys: &[&str] = if invalid {
        &["type", "id", "name", "args", "error", "index", "extras"]
    } else {
        &["type", "id", "name", "args", "index", "extras"]
    };
    cx.unknown_fields(call, keys)?;
    extras(cx, call, &[])?;
    if id.is_none() {
        cx.loss(LossCode::SynthesizedToolId, call)?;
    }
    let args = cx.tree.get(call, "args");
    cx.path.name("args");
    let input = (|| -> Conv<Vec<u8>> {
        if invalid {
            // §16.6: an invalid call's `args` text is kept as a JSON string, with
            // `arguments_unparseable`, whether or not the text would parse: LangChain put it
            // here because it was not a valid call (bad JSON, or a failed schema check), and
            // parsing it would present it as a valid one. `args` is `Optional[str]`; when it
            // is not a string (`null`, absent) there is no text, and the value the source has
            // is kept as it is (`null` for both), since the wire takes any JSON value (J5.9).
            let at = args.unwrap_or(call);
            cx.loss(LossCode::ArgumentsUnparseable, at)?;
            return Ok(match args.map(|a| (a, cx.tree.value(a))) {
                Some((_, Value::String(s))) => {
                    let mut input = Vec::new();
                    crate::json::write::put_json_str(&mut input, s.raw(), s.has_escapes());
                    input
                }
                Some((a, _)) => input::from_value(cx, a)?.into_owned(),
                None => b"null".to_vec(),
            });
        }
        // G16.4: LangChain `args` is copied as raw JSON. An object is what LangChain writes; any
        // other value (a string, an array, null) is copied too, since the wire's input takes
        // any JSON value (J5.9) and replacing it would drop it. A call without `args` has no
        // arguments: `{}`, as for a Gemini call without `args`.
        Ok(match args {
            Some(a) => input::from_value(cx, a)?.into_owned(),
            None => b"{}".to_vec(),
        })
    })();
    cx.path.pop(1);
    let id = id.map_or(StringToWrite::Text(made_id), StringToWrite::Json);
    let state = signature.and_then(|s| match cx.tree.value(s) {
        Value::String(s) => Some(gemini_part_state(s)),
        _ => None,
    });
    let state = state.as_deref().map(|s| (s, GEMINI_PART));
    cx.out.tool_use(id, name.map_or(StringToWrite::Text(""), StringToWrite::Json), &input?, state);
    Ok(())
}

/// A block's (or call's) `extras`, LangChain's provider-specific fields of a standard block: its
/// members other than `read` that hold something are `dropped_unknown_field`.
fn extras<'a>(cx: &mut Cx<'a>, b: NodeId, read: &[&str]) -> Conv<()> {
    match cx.tree.get(b, "extras") {
        Some(e) if cx.tree.value(e) == Value::Object => cx.unknown_fields(e, read),
        Some(e) if !cx.holds_nothing(e) => cx.loss(LossCode::DroppedUnknownField, e),
        _ => Ok(()),
    }
}

fn content<'a>(cx: &mut Cx<'a>, d: NodeId, role: Role, provider: &[u8], called: &mut Calls) -> Conv<()> {
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
                r = block(cx, b, k, role, provider, called);
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

/// The fields of a block of each kind, besides `cache_control` (its own loss, as §16.4 says):
/// standard blocks carry `id` and `index` as metadata and `extras` (checked where read);
/// provider-native blocks as their provider's paragraph reads them, with LangChain's `index`. A
/// `reasoning` block goes whole into its thinking block; blocks dropped whole, Chat parts,
/// Anthropic media and standard media blocks (checked by their readers), are not listed.
fn block_keys(kind: &[u8]) -> &'static [&'static str] {
    match kind {
        b"text" => &["type", "text", "id", "index", "annotations", "citations", "extras", "cache_control"],
        b"thinking" => &["type", "thinking", "signature", "index", "cache_control"],
        b"redacted_thinking" => &["type", "data", "index", "cache_control"],
        // `caller`, `toolset_name`: `dropped_unknown_field` (§16.4).
        b"tool_use" => &["type", "id", "name", "input", "index", "cache_control"],
        // `namespace`, `caller`: `dropped_unknown_field` (§16.3).
        b"function_call" => &["type", "id", "call_id", "name", "arguments", "status", "index"],
        _ => &[],
    }
}

fn block<'a>(cx: &mut Cx<'a>, b: NodeId, k: usize, role: Role, provider: &[u8], called: &mut Calls) -> Conv<()> {
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
    // §16.6: the `tool_calls` entry's `args` for a `tool_use` block that entry lists.
    let parsed = if kind.as_slice() == b"tool_use" { parsed_args(cx, b, called) } else { None };
    // Provider-native blocks LangChain keeps as the provider sent them: Chat parts (a `file` part
    // holds its data under `file`, unlike the standard block of the same type) and Anthropic media
    // blocks (theirs under `source`), converted and checked as §16.2 and §16.4 say.
    let native = match kind.as_slice() {
        b"image_url" | b"input_audio" => true,
        b"file" => cx.tree.get(b, "file").is_some(),
        b"image" | b"document" => cx.tree.get(b, "source").is_some(),
        _ => false,
    };
    if !native {
        cx.cache_hints(b, &["cache_control"])?;
        let read = match kind.as_slice() {
            b"thinking" | b"redacted_thinking" | b"tool_use" | b"function_call" => assistant,
            _ => true,
        };
        let mut keys = block_keys(&kind);
        // A `tool_use` whose call `tool_calls` lists takes its input from there (below): a
        // streamed block's `partial_json` is that input's text, read already.
        if parsed.is_some() {
            keys = &["type", "id", "name", "input", "index", "cache_control", "partial_json"];
        }
        if read && !keys.is_empty() {
            cx.unknown_fields(b, keys)?;
        }
    }
    match kind.as_slice() {
        b"text" => {
            // The thought signature of a Gemini text part, which langchain-google-genai keeps in
            // an AI message's text block's `extras` (§16.6): an empty thinking block carrying it,
            // right before the text (G16.3).
            let signature = match cx.tree.get(b, "extras").and_then(|e| cx.tree.get(e, "signature")) {
                Some(s) if assistant => match cx.tree.value(s) {
                    Value::String(s) if !s.is_empty() => Some(s),
                    _ => None,
                },
                _ => None,
            };
            extras(cx, b, if signature.is_some() { &["signature"] } else { &[] })?;
            let text = cx.required_str(b, "text")?;
            if cx.tree.get(b, "annotations").is_some_and(|a| cx.tree.len(a) > 0)
                || cx.tree.get(b, "citations").is_some_and(|a| cx.tree.len(a) > 0)
            {
                cx.loss(LossCode::DroppedCitations, b)?;
            }
            if let Some(s) = signature {
                cx.out.thinking(StringToWrite::Text(""), StringToWrite::Json(s), &signature_format(provider), None);
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
            cx.out.anthropic_thinking(thinking, signature);
        }
        b"redacted_thinking" if assistant => {
            let data = cx.required_str(b, "data")?;
            let state = super::out::redacted_thinking_state(data);
            cx.out.thinking(
                StringToWrite::Text(""),
                StringToWrite::Text(""),
                "",
                Some((&state, super::out::ANTHROPIC_REDACTED)),
            );
        }
        b"tool_use" if assistant => {
            let id = cx.required_str(b, "id")?;
            let name = cx.required_str(b, "name")?;
            let at = cx.tree.get(b, "input").ok_or_else(|| cx.field_error(b, "input", c"a JSON value"))?;
            // §16.6: the `tool_calls` entry's `args` when it lists the call (what LangChain parsed,
            // and what langchain-anthropic sends; a streamed block holds `{}`, its arguments in
            // `partial_json`, and a host that edits `tool_calls` edits only them).
            let at = parsed.unwrap_or(at);
            called.wrote(Some(id.decode_bytes().unwrap_or_default().into_owned()));
            let input = input::from_value(cx, at)?;
            cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, None);
        }
        b"function_call" if assistant => {
            let id = cx.required_str(b, "call_id")?;
            let name = cx.required_str(b, "name")?;
            called.wrote(Some(id.decode_bytes().unwrap_or_default().into_owned()));
            let arguments = cx.required_str(b, "arguments")?;
            let at = cx.tree.get(b, "arguments").unwrap_or(b);
            let input = input::from_text(cx, arguments, at)?;
            cx.out.tool_use(StringToWrite::Json(id), StringToWrite::Json(name), &input, None);
        }
        // LangChain's v1 call blocks: a call in its place; the `tool_calls` (`invalid_tool_calls`)
        // entry with the same id, or the first without id for one without, is the same call.
        b"tool_call" | b"invalid_tool_call" if assistant => {
            let key = call_key(cx, b);
            let made_id = format!("langchain:{}:content:{k}", called.message);
            let signature = key.as_ref().and_then(|id| called.signatures.get(id).copied());
            call(cx, b, kind.as_slice() == b"invalid_tool_call", &made_id, signature)?;
            called.wrote(key);
        }
        // A piece of a streamed call, which LangChain parses from `tool_call_chunks` into the
        // lists: one that no call of the message has is a call the message does not hold.
        b"tool_call_chunk" if assistant => {
            let key = call_key(cx, b);
            if !called.listed.contains(&key) && !called.in_content.contains_key(&key) {
                cx.loss(LossCode::UnknownContentDropped, b)?;
            }
        }
        b"image" if native => super::anthropic::image(cx, b)?,
        b"document" if native => super::anthropic::document(cx, b)?,
        _ if native => super::chat::part(cx, b, assistant)?,
        b"image" | b"audio" | b"file" | b"video" | b"text-plain" => standard_media(cx, b, kind.as_slice())?,
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
    let source = cx.tree.get(b, "content").filter(|c| cx.tree.len(*c) > 0).or_else(|| cx.tree.get(b, "summary"));
    // The separator stands between two texts: a first part without text adds none (§16.3).
    let text = source.map(|s| cx.joined_texts(s, "\n\n")).unwrap_or_default();
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

/// A standard (v1) media block: `base64` with `mime_type`, a `url`, a `file_id`, or text. A block
/// gives its content one way, the first present of a `text-plain` block's `text`, `base64` (the
/// older form: `source_type` `base64` with `data`), `url` and `file_id`; another beside it is not
/// read, and is `dropped_unknown_field` with the block's other unread fields (§16.6).
fn standard_media<'a>(cx: &mut Cx<'a>, b: NodeId, kind: &[u8]) -> Conv<()> {
    let legacy_base64 = cx.str_field(b, "source_type")?.is_some_and(|s| s.raw() == b"base64");
    let ways: &[&str] = match (kind == b"text-plain", legacy_base64) {
        (true, true) => &["text", "base64", "data", "url", "file_id"],
        (true, false) => &["text", "base64", "url", "file_id"],
        (false, true) => &["base64", "data", "url", "file_id"],
        (false, false) => &["base64", "url", "file_id"],
    };
    let way = cx.first_present(b, ways);
    let mut keys = vec!["type", "id", "index", "extras", "mime_type", "source_type", "filename", "cache_control"];
    if kind == b"text-plain" {
        keys.extend(["title", "context"]);
    }
    keys.extend(way);
    cx.unknown_fields(b, &keys)?;
    let media_type = cx.str_field(b, "mime_type")?;
    let mt = media_type
        .map_or(StringToWrite::Text(if kind == b"text-plain" { "text/plain" } else { "" }), StringToWrite::Json);
    // The name: `extras.filename`, else `filename`, else a text-plain block's `title`; a
    // text-plain block's `context` is a media option (as an Anthropic document's).
    extras(cx, b, &["filename"])?;
    if cx.holds_any(b, &["context"]) {
        cx.loss(LossCode::DroppedMediaOptions, b)?;
    }
    let name = match cx.tree.get(b, "extras").and_then(|e| cx.tree.get(e, "filename")).map(|f| cx.tree.value(f)) {
        Some(Value::String(s)) => Some(s),
        _ => cx.str_field(b, "filename")?,
    };
    let name = match name {
        Some(n) => Some(n),
        None if kind == b"text-plain" => cx.str_field(b, "title")?,
        None => None,
    };
    let name = name.map_or(StringToWrite::Text(""), StringToWrite::Json);
    let image = kind == b"image";
    match way {
        Some("text") => {
            let text = cx.required_str(b, "text")?;
            cx.out.document(mt, name, None, StringToWrite::Json(text));
            Ok(())
        }
        Some(field @ ("base64" | "data")) => {
            let data = cx.required_str(b, field)?;
            let bytes = media::canonical_base64(&data.decode_bytes().unwrap_or_default())
                .ok_or_else(|| cx.field_error(b, field, c"base64"))?;
            if image && media_type.is_none() {
                cx.out.image(StringToWrite::Text(""), StringToWrite::Text(""), Some(&bytes));
            } else {
                media::put_bytes(cx, mt, &bytes, name);
            }
            Ok(())
        }
        Some("url") => {
            let url = cx.required_str(b, "url")?;
            let raw = url.decode_bytes().unwrap_or_default();
            if let Some(Ok(DataUrl::Bytes { media_type, bytes })) = media::data_url(&raw) {
                media::put_bytes(cx, StringToWrite::Text(&media_type), &bytes, name);
                return Ok(());
            }
            media::put_reference(cx, mt, StringToWrite::Json(url), image, b)
        }
        Some(_) => {
            let id = cx.required_str(b, "file_id")?;
            let url = media::file_id("langchain", &id);
            media::put_reference(cx, mt, StringToWrite::Text(&url), image, b)
        }
        None => Err(cx.shape(b, c"a media block with base64, url or file_id")),
    }
}
