//! The transcript (SPEC §5.3): messages and blocks decoded from the wire, kept as spans of the
//! document so that a handle stores the input bytes once and nothing else of size.

use super::base64;
use crate::json::{Event, JResult, JStr, JsonError, KeyFrames, Parser, RawValue, Span};

/// T5.3: block lists nest at most this deep (the message's own list is depth 0).
pub(crate) const MAX_BLOCK_DEPTH: usize = 128;

/// A string field: the body of its JSON string token (escapes as written, UTF-8 checked). It is
/// decoded (J5.4) and re-escaped (E7.6) only when encoded.
pub(crate) type Text = Span;

/// A byte field (T5.6): `None` for `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bytes {
    /// The body of the JSON string token.
    pub(crate) text: Span,
    /// The token has escapes, so its body must be decoded before base64.
    pub(crate) escaped: bool,
    pub(crate) checked: base64::Checked,
}

/// A provider-state pair kept after T5.8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProviderState {
    pub(crate) state: RawValue,
    pub(crate) format: Text,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Block {
    Text { text: Text },
    Refusal { text: Text },
    Image { media_type: Text, url: Text, data: Option<Bytes> },
    Audio { media_type: Text, data: Option<Bytes> },
    Document { media_type: Text, name: Text, data: Option<Bytes>, text: Text },
    Thinking { thinking: Text, signature: Text, signature_format: Option<Text>, provider_state: Option<ProviderState> },
    ToolUse { id: Text, name: Text, input: RawValue, provider_state: Option<ProviderState> },
    ToolResult { tool_use_id: Text, content: Vec<Block>, is_error: bool },
}

/// The five usage counters (T5.2); absent and `null` are 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Usage {
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) cache_read_tokens: u64,
    pub(crate) cache_creation_tokens: u64,
    pub(crate) reasoning_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Role {
    User,
    System,
    Assistant { usage: Option<Usage> },
    Tool { tool_use_id: Text, is_error: bool },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    pub(crate) role: Role,
    pub(crate) blocks: Vec<Block>,
}

/// Decodes the transcript value (T5.1): an array of messages. Every error here is `transcript`
/// except grammar errors, which the caller reports as `wire`.
pub(crate) fn decode<'a>(p: &mut Parser<'a>, keys: &mut KeyFrames) -> JResult<Vec<Message>> {
    let invalid = |p: &Parser<'a>| JsonError::invalid(p.token_start());
    if p.next()? != Event::ArrayStart {
        return Err(invalid(p));
    }
    let mut messages = Vec::new();
    loop {
        let first = p.next()?;
        if first == Event::ArrayEnd {
            return Ok(messages);
        }
        messages.push(message(p, first, keys)?);
    }
}

const MESSAGE_FIELDS: &[&str] = &["role", "blocks", "usage", "tool_use_id", "is_error"];
const M_ROLE: u64 = 1;
const M_BLOCKS: u64 = 1 << 1;
const M_USAGE: u64 = 1 << 2;
const M_TOOL_USE_ID: u64 = 1 << 3;
const M_IS_ERROR: u64 = 1 << 4;

fn message<'a>(p: &mut Parser<'a>, first: Event<'a>, keys: &mut KeyFrames) -> JResult<Message> {
    let start = p.token_start();
    let mut role: Option<JStr<'a>> = None;
    let mut blocks = Vec::new();
    let mut usage = None;
    let mut tool_use_id = Span::default();
    let mut is_error = false;
    let seen = p.read_object(first, MESSAGE_FIELDS, |p, i| {
        match i {
            0 => role = Some(p.str()?),
            1 => blocks = block_list(p, 0, keys)?,
            2 => usage = read_usage(p)?,
            3 => tool_use_id = p.str()?.span(),
            _ => is_error = p.bool()?,
        }
        Ok(())
    })?;
    let invalid = JsonError::invalid(start);
    let name = role.map(|r| r.decode_bytes()).transpose()?;
    let role = role_of(name.as_deref(), seen, usage, tool_use_id, is_error).ok_or(invalid)?;
    if seen & M_BLOCKS == 0 {
        return Err(invalid);
    }
    Ok(Message { role, blocks })
}

fn role_of(name: Option<&[u8]>, seen: u64, usage: Option<Usage>, tool_use_id: Span, is_error: bool) -> Option<Role> {
    let extra = seen & !(M_ROLE | M_BLOCKS);
    match name? {
        b"user" if extra == 0 => Some(Role::User),
        b"system" if extra == 0 => Some(Role::System),
        b"assistant" if extra & !M_USAGE == 0 => Some(Role::Assistant { usage }),
        b"tool" if extra == M_TOOL_USE_ID | M_IS_ERROR => Some(Role::Tool { tool_use_id, is_error }),
        _ => None,
    }
}

const USAGE_FIELDS: &[&str] =
    &["input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "reasoning_tokens"];

fn read_usage(p: &mut Parser<'_>) -> JResult<Option<Usage>> {
    let mut u = Usage::default();
    let seen = p.object_or_null(USAGE_FIELDS, |p, i| {
        let v = p.u64_or_null()?.unwrap_or(0);
        match i {
            0 => u.input_tokens = v,
            1 => u.output_tokens = v,
            2 => u.cache_read_tokens = v,
            3 => u.cache_creation_tokens = v,
            _ => u.reasoning_tokens = v,
        }
        Ok(())
    })?;
    Ok(seen.map(|_| u))
}

/// T5.4: a block list (not `null`) at `depth`; T5.3: deeper than 128 fails on entry.
fn block_list<'a>(p: &mut Parser<'a>, depth: usize, keys: &mut KeyFrames) -> JResult<Vec<Block>> {
    if p.next()? != Event::ArrayStart || depth > MAX_BLOCK_DEPTH {
        return Err(JsonError::invalid(p.token_start()));
    }
    let mut blocks = Vec::new();
    loop {
        let first = p.next()?;
        if first == Event::ArrayEnd {
            return Ok(blocks);
        }
        blocks.push(block(p, first, depth, keys)?);
    }
}

const BLOCK_FIELDS: &[&str] = &[
    "type",
    "text",
    "media_type",
    "source",
    "data",
    "name",
    "thinking",
    "signature",
    "signature_format",
    "provider_state",
    "provider_state_format",
    "id",
    "input",
    "tool_use_id",
    "content",
    "is_error",
];
const B_TYPE: u64 = 1;
const B_TEXT: u64 = 1 << 1;
const B_MEDIA_TYPE: u64 = 1 << 2;
const B_SOURCE: u64 = 1 << 3;
const B_DATA: u64 = 1 << 4;
const B_NAME: u64 = 1 << 5;
const B_THINKING: u64 = 1 << 6;
const B_SIGNATURE: u64 = 1 << 7;
const B_SIGNATURE_FORMAT: u64 = 1 << 8;
const B_PROVIDER_STATE: u64 = 1 << 9;
const B_PROVIDER_STATE_FORMAT: u64 = 1 << 10;
const B_ID: u64 = 1 << 11;
const B_INPUT: u64 = 1 << 12;
const B_TOOL_USE_ID: u64 = 1 << 13;
const B_CONTENT: u64 = 1 << 14;
const B_IS_ERROR: u64 = 1 << 15;

/// Every field a block may carry, read by its own type rule; which ones the block's `type` allows
/// and needs is checked once the whole object has been read (keys may come in any order).
#[derive(Default)]
struct BlockFields<'a> {
    kind: Option<JStr<'a>>,
    text: Span,
    media_type: Span,
    url: Span,
    data: Option<Bytes>,
    name: Span,
    thinking: Span,
    signature: Span,
    /// Optional strings: `None` for absent or `null`.
    signature_format: Option<Span>,
    provider_state: Option<RawValue>,
    provider_state_format: Option<Span>,
    id: Span,
    input: Option<RawValue>,
    tool_use_id: Span,
    content: Vec<Block>,
    is_error: bool,
}

fn block<'a>(p: &mut Parser<'a>, first: Event<'a>, depth: usize, keys: &mut KeyFrames) -> JResult<Block> {
    let start = p.token_start();
    let mut f = BlockFields::default();
    let seen = p.read_object(first, BLOCK_FIELDS, |p, i| {
        match i {
            0 => f.kind = Some(p.str()?),
            1 => f.text = p.str()?.span(),
            2 => f.media_type = p.str()?.span(),
            3 => f.url = read_source(p, &mut f.data)?,
            4 => f.data = read_bytes(p)?,
            5 => f.name = p.str()?.span(),
            6 => f.thinking = p.str()?.span(),
            7 => f.signature = p.str()?.span(),
            8 => f.signature_format = p.str_or_null()?.map(|s| s.span()),
            9 => f.provider_state = Some(p.raw(keys)?),
            10 => f.provider_state_format = p.str_or_null()?.map(|s| s.span()),
            11 => f.id = p.str()?.span(),
            12 => f.input = Some(p.raw(keys)?),
            13 => f.tool_use_id = p.str()?.span(),
            14 => f.content = block_list(p, depth + 1, keys)?,
            _ => f.is_error = p.bool()?,
        }
        Ok(())
    })?;
    let invalid = JsonError::invalid(start);
    let kind = f.kind.ok_or(invalid)?.decode_bytes()?;
    // (required keys, optional keys) per T5.5.
    let (required, optional) = match &*kind {
        b"text" | b"refusal" => (B_TEXT, 0),
        b"image" => (B_MEDIA_TYPE | B_SOURCE, 0),
        b"audio" => (B_MEDIA_TYPE | B_DATA, 0),
        b"document" => (B_MEDIA_TYPE | B_NAME | B_TEXT | B_DATA, 0),
        b"thinking" => (B_THINKING | B_SIGNATURE, B_SIGNATURE_FORMAT | B_PROVIDER_STATE | B_PROVIDER_STATE_FORMAT),
        b"tool_use" => (B_ID | B_NAME | B_INPUT, B_PROVIDER_STATE | B_PROVIDER_STATE_FORMAT),
        b"tool_result" => (B_TOOL_USE_ID | B_CONTENT | B_IS_ERROR, 0),
        _ => return Err(invalid),
    };
    let fields = seen & !B_TYPE;
    if fields & required != required || fields & !(required | optional) != 0 {
        return Err(invalid);
    }
    // T5.8: the provider-state pair is kept only when the state is present and the format is a
    // non-empty string.
    let provider_state = match (f.provider_state, f.provider_state_format) {
        (Some(state), Some(format)) if !format.is_empty() => Some(ProviderState { state, format }),
        _ => None,
    };
    Ok(match &*kind {
        b"text" => Block::Text { text: f.text },
        b"refusal" => Block::Refusal { text: f.text },
        b"image" => Block::Image { media_type: f.media_type, url: f.url, data: f.data },
        b"audio" => Block::Audio { media_type: f.media_type, data: f.data },
        b"document" => Block::Document { media_type: f.media_type, name: f.name, data: f.data, text: f.text },
        b"thinking" => Block::Thinking {
            thinking: f.thinking,
            signature: f.signature,
            // T5.8: kept only with a non-empty signature; E7.4 writes it only when non-empty.
            signature_format: f.signature_format.filter(|s| !f.signature.is_empty() && !s.is_empty()),
            provider_state,
        },
        b"tool_use" => Block::ToolUse { id: f.id, name: f.name, input: f.input.ok_or(invalid)?, provider_state },
        _ => Block::ToolResult { tool_use_id: f.tool_use_id, content: f.content, is_error: f.is_error },
    })
}

/// An image `source`: exactly `url` (string) and `data` (required, may be `null`).
fn read_source(p: &mut Parser<'_>, data: &mut Option<Bytes>) -> JResult<Span> {
    let mut url = Span::default();
    let seen = p.object(&["url", "data"], |p, i| {
        if i == 0 {
            url = p.str()?.span();
        } else {
            *data = read_bytes(p)?;
        }
        Ok(())
    })?;
    if seen != 0b11 {
        return Err(JsonError::invalid(p.token_start()));
    }
    Ok(url)
}

/// T5.6: `null` or a standard base64 string (D4: arrays of numbers fail).
fn read_bytes(p: &mut Parser<'_>) -> JResult<Option<Bytes>> {
    // The parser takes the leading whole chunks of alphabet characters from base64's own scan, and
    // the check starts after them: the bulk of a byte field is looked at once.
    let Some((s, known)) = p.str_or_null_with_plain_prefix(base64::alphabet_run)? else {
        return Ok(None);
    };
    let offset = s.span().start;
    // Escapes can only come after the alphabet run, so decoding leaves that run in place.
    let decoded = s.decode_bytes()?;
    let checked = base64::check(&decoded, known).ok_or(JsonError::invalid(offset))?;
    Ok(Some(Bytes { text: s.span(), escaped: s.has_escapes(), checked }))
}
