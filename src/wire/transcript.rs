//! The transcript (SPEC §5.3): messages and blocks decoded from the wire, kept as spans of the
//! document so that a handle stores the input bytes once and nothing else of size.

use super::base64;
use crate::json::{Event, JResult, JStr, JsonError, KeyFrames, Parser, RawValue, Seen, layout};

/// T5.3: block lists nest at most this deep (the message's own list is depth 0).
pub(crate) const MAX_BLOCK_DEPTH: usize = 128;

/// A string field: the body of its JSON string token (escapes as written, UTF-8 checked) and
/// whether it holds an escape. It is decoded (J5.4) and re-escaped (E7.6) only when encoded.
pub(crate) use crate::json::Text;

/// A byte field (T5.6): `None` for `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bytes {
    /// The body of the JSON string token; with escapes, it must be decoded before base64.
    pub(crate) text: Text,
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

layout! {
    /// The keys of a message (T5.2).
    enum MessageField {
        Role = "role",
        Blocks = "blocks",
        Usage = "usage",
        ToolUseId = "tool_use_id",
        IsError = "is_error",
    }
}

fn message<'a>(p: &mut Parser<'a>, first: Event<'a>, keys: &mut KeyFrames) -> JResult<Message> {
    let start = p.token_start();
    let mut role: Option<JStr<'a>> = None;
    let mut blocks = Vec::new();
    let mut usage = None;
    let mut tool_use_id = Text::default();
    let mut is_error = false;
    let seen = p.read_fields(first, |p, field| {
        match field {
            MessageField::Role => role = Some(p.str()?),
            MessageField::Blocks => blocks = block_list(p, 0, keys)?,
            MessageField::Usage => usage = read_usage(p)?,
            MessageField::ToolUseId => tool_use_id = p.str()?.text(),
            MessageField::IsError => is_error = p.bool()?,
        }
        Ok(())
    })?;
    let invalid = JsonError::invalid(start);
    let name = role.map(|r| r.decode_bytes()).transpose()?;
    // An unknown role is the `role` value's fault (offset of the value); keys that do not fit a
    // known role are the message's.
    if let (Some(token), Some(name)) = (role, name.as_deref())
        && !matches!(name, b"user" | b"system" | b"assistant" | b"tool")
    {
        return Err(JsonError::invalid(token.span().start));
    }
    let role = role_of(name.as_deref(), seen, usage, tool_use_id, is_error).ok_or(invalid)?;
    if seen.mask() & MessageField::Blocks.bit() == 0 {
        return Err(invalid);
    }
    Ok(Message { role, blocks })
}

fn role_of(
    name: Option<&[u8]>,
    seen: Seen<MessageField>,
    usage: Option<Usage>,
    tool_use_id: Text,
    is_error: bool,
) -> Option<Role> {
    use MessageField as F;
    let extra = seen.mask() & !(F::Role.bit() | F::Blocks.bit());
    match name? {
        b"user" if extra == 0 => Some(Role::User),
        b"system" if extra == 0 => Some(Role::System),
        b"assistant" if extra & !F::Usage.bit() == 0 => Some(Role::Assistant { usage }),
        b"tool" if extra == F::ToolUseId.bit() | F::IsError.bit() => Some(Role::Tool { tool_use_id, is_error }),
        _ => None,
    }
}

layout! {
    /// The keys of an assistant message's `usage` (T5.2).
    enum UsageField {
        InputTokens = "input_tokens",
        OutputTokens = "output_tokens",
        CacheReadTokens = "cache_read_tokens",
        CacheCreationTokens = "cache_creation_tokens",
        ReasoningTokens = "reasoning_tokens",
    }
}

fn read_usage(p: &mut Parser<'_>) -> JResult<Option<Usage>> {
    let mut u = Usage::default();
    let seen = p.fields_or_null(|p, field| {
        let v = p.u64_or_null()?.unwrap_or(0);
        match field {
            UsageField::InputTokens => u.input_tokens = v,
            UsageField::OutputTokens => u.output_tokens = v,
            UsageField::CacheReadTokens => u.cache_read_tokens = v,
            UsageField::CacheCreationTokens => u.cache_creation_tokens = v,
            UsageField::ReasoningTokens => u.reasoning_tokens = v,
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

layout! {
    /// Every key a block may have (T5.5); which ones a block's `type` allows and needs is checked
    /// once the whole object has been read.
    enum BlockField {
        Type = "type",
        Text = "text",
        MediaType = "media_type",
        Source = "source",
        Data = "data",
        Name = "name",
        Thinking = "thinking",
        Signature = "signature",
        SignatureFormat = "signature_format",
        ProviderState = "provider_state",
        ProviderStateFormat = "provider_state_format",
        Id = "id",
        Input = "input",
        ToolUseId = "tool_use_id",
        Content = "content",
        IsError = "is_error",
    }
}

/// Every field a block may carry, read by its own type rule; which ones the block's `type` allows
/// and needs is checked once the whole object has been read (keys may come in any order).
#[derive(Default)]
struct BlockFields<'a> {
    kind: Option<JStr<'a>>,
    text: Text,
    media_type: Text,
    url: Text,
    data: Option<Bytes>,
    name: Text,
    thinking: Text,
    signature: Text,
    /// Optional strings: `None` for absent or `null`.
    signature_format: Option<Text>,
    provider_state: Option<RawValue>,
    provider_state_format: Option<Text>,
    id: Text,
    input: Option<RawValue>,
    tool_use_id: Text,
    content: Vec<Block>,
    is_error: bool,
}

fn block<'a>(p: &mut Parser<'a>, first: Event<'a>, depth: usize, keys: &mut KeyFrames) -> JResult<Block> {
    let start = p.token_start();
    let mut f = BlockFields::default();
    let seen = p.read_fields(first, |p, field| {
        match field {
            BlockField::Type => f.kind = Some(p.str()?),
            BlockField::Text => f.text = p.str()?.text(),
            BlockField::MediaType => f.media_type = p.str()?.text(),
            BlockField::Source => f.url = read_source(p, &mut f.data)?,
            BlockField::Data => f.data = read_bytes(p)?,
            BlockField::Name => f.name = p.str()?.text(),
            BlockField::Thinking => f.thinking = p.str()?.text(),
            BlockField::Signature => f.signature = p.str()?.text(),
            BlockField::SignatureFormat => f.signature_format = p.str_or_null()?.map(|s| s.text()),
            BlockField::ProviderState => f.provider_state = Some(p.raw(keys)?),
            BlockField::ProviderStateFormat => f.provider_state_format = p.str_or_null()?.map(|s| s.text()),
            BlockField::Id => f.id = p.str()?.text(),
            BlockField::Input => f.input = Some(p.raw(keys)?),
            BlockField::ToolUseId => f.tool_use_id = p.str()?.text(),
            BlockField::Content => f.content = block_list(p, depth + 1, keys)?,
            BlockField::IsError => f.is_error = p.bool()?,
        }
        Ok(())
    })?;
    let invalid = JsonError::invalid(start);
    let kind_token = f.kind.ok_or(invalid)?;
    let kind = kind_token.decode_bytes()?;
    use BlockField as B;
    // (required keys, optional keys) per T5.5.
    let provider_state_pair = B::ProviderState.bit() | B::ProviderStateFormat.bit();
    let (required, optional) = match &*kind {
        b"text" | b"refusal" => (B::Text.bit(), 0),
        b"image" => (B::MediaType.bit() | B::Source.bit(), 0),
        b"audio" => (B::MediaType.bit() | B::Data.bit(), 0),
        b"document" => (B::MediaType.bit() | B::Name.bit() | B::Text.bit() | B::Data.bit(), 0),
        b"thinking" => (B::Thinking.bit() | B::Signature.bit(), B::SignatureFormat.bit() | provider_state_pair),
        b"tool_use" => (B::Id.bit() | B::Name.bit() | B::Input.bit(), provider_state_pair),
        b"tool_result" => (B::ToolUseId.bit() | B::Content.bit() | B::IsError.bit(), 0),
        // An unknown type is the `type` value's fault, not the block's (offset of the value).
        _ => return Err(JsonError::invalid(kind_token.span().start)),
    };
    let fields = seen.mask() & !B::Type.bit();
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
fn read_source(p: &mut Parser<'_>, data: &mut Option<Bytes>) -> JResult<Text> {
    let mut url = Text::default();
    p.fields(|p, field| {
        match field {
            SourceField::Url => url = p.str()?.text(),
            SourceField::Data => *data = read_bytes(p)?,
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(url)
}

layout! {
    /// The keys of an image block's `source` (T5.5).
    enum SourceField {
        Url = "url",
        Data = "data",
    }
}

/// T5.6: `null` or a standard base64 string (D4: arrays of numbers fail).
fn read_bytes(p: &mut Parser<'_>) -> JResult<Option<Bytes>> {
    // The parser takes the leading whole chunks of alphabet characters from base64's own scan, and
    // the check starts after them: the bulk of a byte field is looked at once.
    let Some((s, run)) = p.str_or_null_with_plain_prefix::<base64::AlphabetRun>()? else {
        return Ok(None);
    };
    let offset = s.span().start;
    // Escapes can only come after the alphabet run, so decoding leaves that run in place.
    let decoded = s.decode_bytes()?;
    let checked = base64::check(&decoded, run).ok_or(JsonError::invalid(offset))?;
    Ok(Some(Bytes { text: s.text(), checked }))
}
