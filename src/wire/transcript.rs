//! The transcript (SPEC §5.3): one streaming walk over the messages and blocks of the wire, used
//! twice. The first walk ([`check`]) validates the transcript and keeps nothing of its size: a
//! handle stores the input bytes, the message count and the few facts a later walk needs before it
//! reaches them ([`Late`]). Every later walk ([`walk`]) reads the same bytes again in document order
//! and tells a [`Visit`] (the canonical writer, the fitter, the pairing check) what it finds, so no
//! tree of messages and blocks is ever built: memory is that of the nesting, whatever the number of
//! messages and blocks.

use super::base64;
use crate::json::{Event, JResult, JsonError, KeyFrames, Layout, Parser, RawValue, Seen, StringToken, layout};

/// T5.3: block lists nest at most this deep (the message's own list is depth 0).
pub(crate) const MAX_BLOCK_DEPTH: usize = 128;

/// A string field: the body of its JSON string token (escapes as written, UTF-8 checked) and
/// whether it holds an escape. It is decoded (J5.4) and re-escaped (E7.6) only when encoded.
pub(crate) use crate::json::StringSpan;

/// A byte field (T5.6): `None` for `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bytes {
    /// The body of the JSON string token; with escapes, it must be decoded before base64.
    pub(crate) text: StringSpan,
    pub(crate) checked: base64::Checked,
}

/// A provider-state pair kept after T5.8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProviderState {
    pub(crate) state: RawValue,
    pub(crate) format: StringSpan,
}

/// A block as the walk reports it. A `tool_result` block's content is not here: the walk reports
/// the content's blocks between [`Visit::content_start`] and this block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Block {
    Text {
        text: StringSpan,
    },
    Refusal {
        text: StringSpan,
    },
    Image {
        media_type: StringSpan,
        url: StringSpan,
        data: Option<Bytes>,
    },
    Audio {
        media_type: StringSpan,
        data: Option<Bytes>,
    },
    Document {
        media_type: StringSpan,
        name: StringSpan,
        data: Option<Bytes>,
        text: StringSpan,
    },
    Thinking {
        thinking: StringSpan,
        signature: StringSpan,
        signature_format: Option<StringSpan>,
        provider_state: Option<ProviderState>,
    },
    ToolUse {
        id: StringSpan,
        name: StringSpan,
        input: RawValue,
        provider_state: Option<ProviderState>,
    },
    ToolResult {
        tool_use_id: StringSpan,
        is_error: bool,
    },
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
    Tool { tool_use_id: StringSpan, is_error: bool },
}

layout! {
    /// A role name (T5.2): what the canonical writer needs before a message's blocks.
    pub(crate) enum RoleName {
        User = "user",
        System = "system",
        Assistant = "assistant",
        Tool = "tool",
    }
}

impl RoleName {
    /// Pulls a `role` value: its token (UTF-8 checked) and the role it names, if any.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read<'a>(p: &mut Parser<'a>) -> JResult<(StringToken<'a>, Option<RoleName>)> {
        let (token, name) = p.str_named::<RoleName>()?;
        // Role names are ASCII: an unescaped token is its own text.
        Ok((token, name.or_else(|| RoleName::named(&token.decode_bytes().ok()?))))
    }
}

impl Role {
    pub(crate) fn name(&self) -> RoleName {
        match self {
            Role::User => RoleName::User,
            Role::System => RoleName::System,
            Role::Assistant { .. } => RoleName::Assistant,
            Role::Tool { .. } => RoleName::Tool,
        }
    }
}

/// What a walk reports, in document order. A visitor that writes the canonical encoding needs a
/// message's role before its blocks and a `tool_result` block's id before its content; keys may
/// come in any order, so when the input has them after, the first walk notes them in [`Late`] and
/// every later walk has them in time.
pub(crate) trait Visit {
    /// Message `i` opens its block list: its role, or `None` when the message names it only after
    /// its blocks and this walk has not learnt it yet (the first walk; a later walk always knows it,
    /// from [`Late`]).
    fn blocks_start(&mut self, _i: usize, _role: Option<RoleName>) {}
    /// Block `j` of the list at `depth` (0: the message's own list) is a `tool_result` whose content
    /// list opens now.
    fn content_start(&mut self, _j: usize, _depth: usize, _tool_use_id: StringSpan) {}
    /// Block `j` of the list at `depth` is complete (a `tool_result` after its content).
    fn block(&mut self, _j: usize, _depth: usize, _block: &Block) {}
    /// Message `i` is complete.
    fn message(&mut self, _i: usize, _role: &Role) {}
}

/// A visitor that only lets the walk validate.
pub(crate) struct ValidateOnly;

impl Visit for ValidateOnly {}

/// What the canonical order needs before the input gives it, in document order: the role of each
/// message whose `blocks` come before its `role`, and the id of each `tool_result` block whose
/// `content` comes before its `tool_use_id`. Empty for inputs in canonical key order; at most one
/// entry per message or block that has that key order, so never more than a fraction of the input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Late {
    roles: Vec<RoleName>,
    ids: Vec<StringSpan>,
}

/// Where the walk takes late facts: it notes them (first walk of a document a handle keeps),
/// ignores them (validation alone) or reads them back (later walks).
enum Order<'l> {
    Note(&'l mut Late),
    Ignore,
    Replay { late: &'l Late, roles: usize, ids: usize },
}

impl Order<'_> {
    /// The late role of the message being read: known on a replay; unknown, with its slot when
    /// noting, on the first walk.
    fn role(&mut self) -> (Option<RoleName>, Option<usize>) {
        match self {
            Order::Note(late) => {
                late.roles.push(RoleName::User);
                (None, Some(late.roles.len() - 1))
            }
            Order::Ignore => (None, None),
            Order::Replay { late, roles, .. } => {
                let role = late.roles.get(*roles).copied();
                *roles += 1;
                (role, None)
            }
        }
    }

    fn id(&mut self) -> (StringSpan, Option<usize>) {
        match self {
            Order::Note(late) => {
                late.ids.push(StringSpan::default());
                (StringSpan::default(), Some(late.ids.len() - 1))
            }
            Order::Ignore => (StringSpan::default(), None),
            Order::Replay { late, ids, .. } => {
                let id = late.ids.get(*ids).copied().unwrap_or_default();
                *ids += 1;
                (id, None)
            }
        }
    }

    fn fill_role(&mut self, slot: Option<usize>, role: RoleName) {
        if let (Order::Note(late), Some(slot)) = (self, slot)
            && let Some(r) = late.roles.get_mut(slot)
        {
            *r = role;
        }
    }

    fn fill_id(&mut self, slot: Option<usize>, id: StringSpan) {
        if let (Order::Note(late), Some(slot)) = (self, slot)
            && let Some(t) = late.ids.get_mut(slot)
        {
            *t = id;
        }
    }
}

/// One walk: the scratch space of raw values, where late facts go, the visitor, and how many
/// messages to read (a later walk may stop before the end).
struct Walk<'l, 'v, V: Visit> {
    keys: KeyFrames,
    order: Order<'l>,
    v: &'v mut V,
    until: usize,
}

/// The transcript of a validated document: where its value starts, how many messages it has and
/// its late facts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Transcript {
    /// Offset of the transcript array's `[`.
    pub(crate) at: usize,
    pub(crate) messages: usize,
    pub(crate) late: Late,
    /// How many messages at the start are `system` messages (the replacement keeps them, R15.8).
    pub(crate) leading_systems: usize,
}

/// Validates the transcript value (T5.1): an array of messages, telling `v` what it finds (what it
/// finds in a transcript that then fails is meaningless). Every error here is `transcript` except
/// grammar errors, which the caller reports as `wire`. With `keep`, the late facts are noted for
/// later walks.
pub(crate) fn check<V: Visit>(p: &mut Parser<'_>, keys: &mut KeyFrames, keep: bool, v: &mut V) -> JResult<Transcript> {
    let mut late = Late::default();
    let order = if keep { Order::Note(&mut late) } else { Order::Ignore };
    let mut w = Walk { keys: core::mem::take(keys), order, v, until: usize::MAX };
    let result = messages(p, &mut w);
    *keys = w.keys;
    let (at, messages, leading_systems) = result?;
    late.roles.shrink_to_fit();
    late.ids.shrink_to_fit();
    Ok(Transcript { at, messages, late, leading_systems })
}

/// Walks the transcript of a document that [`check`] accepted, telling `v` what it finds.
pub(crate) fn walk<V: Visit>(src: &[u8], transcript: &Transcript, v: &mut V) {
    walk_until(src, transcript, usize::MAX, v);
}

/// [`walk`] over the first `until` messages only: the rest is not read.
pub(crate) fn walk_until<V: Visit>(src: &[u8], transcript: &Transcript, until: usize, v: &mut V) {
    let mut p = Parser::resume_valid(src, transcript.at);
    let order = Order::Replay { late: &transcript.late, roles: 0, ids: 0 };
    let mut w = Walk { keys: KeyFrames::default(), order, v, until };
    let walked = messages(&mut p, &mut w);
    debug_assert!(walked.is_ok(), "a checked transcript walks again");
}

/// The message array: the offset of its `[`, the message count (or `w.until`, where the walk
/// stops) and how many messages at its start are `system` messages.
fn messages<V: Visit>(p: &mut Parser<'_>, w: &mut Walk<'_, '_, V>) -> JResult<(usize, usize, usize)> {
    let invalid = |p: &Parser<'_>| JsonError::invalid(p.token_start());
    if p.next_structural()? != Event::ArrayStart {
        return Err(invalid(p));
    }
    let at = p.token_start();
    let mut i = 0;
    let mut leading_systems = 0;
    while i < w.until {
        let first = p.next_structural()?;
        if first == Event::ArrayEnd {
            break;
        }
        let role = message(p, first, i, w)?;
        if leading_systems == i && role == RoleName::System {
            leading_systems += 1;
        }
        i += 1;
    }
    Ok((at, i, leading_systems))
}

layout! {
    /// The keys of a message (T5.2).
    pub(crate) enum MessageField {
        Role = "role": Role,
        Blocks = "blocks": Blocks { BlockField },
        Usage = "usage": ObjectOrNull { UsageField },
        ToolUseId = "tool_use_id": String,
        IsError = "is_error": Bool,
    }
}

fn message<'a, V: Visit>(p: &mut Parser<'a>, first: Event<'a>, i: usize, w: &mut Walk<'_, '_, V>) -> JResult<RoleName> {
    let start = p.token_start();
    let mut role: Option<(StringToken<'a>, Option<RoleName>)> = None;
    let mut late_role = None;
    let mut usage = None;
    let mut tool_use_id = StringSpan::default();
    let mut is_error = false;
    let seen = p.read_fields(first, |p, field| {
        match field {
            MessageField::Role => role = Some(RoleName::read(p)?),
            MessageField::Blocks => {
                // A role that does not read as a known name fails below, once the message is read.
                let name = match role {
                    Some((_, name)) => name,
                    None => {
                        let (name, slot) = w.order.role();
                        late_role = slot;
                        name
                    }
                };
                w.v.blocks_start(i, name);
                block_list(p, 0, w)?;
            }
            MessageField::Usage => usage = read_usage(p)?,
            MessageField::ToolUseId => tool_use_id = p.str()?.text(),
            MessageField::IsError => is_error = p.bool()?,
        }
        Ok(())
    })?;
    let invalid = JsonError::invalid(start);
    // An unknown role is the `role` value's fault (offset of the value); keys that do not fit a
    // known role are the message's.
    let name = match role {
        Some((token, name)) => Some(name.ok_or(JsonError::invalid(token.span().start))?),
        None => None,
    };
    let role = role_of(name, seen, usage, tool_use_id, is_error).ok_or(invalid)?;
    if seen.mask() & MessageField::Blocks.bit() == 0 {
        return Err(invalid);
    }
    w.order.fill_role(late_role, role.name());
    w.v.message(i, &role);
    Ok(role.name())
}

fn role_of(
    name: Option<RoleName>,
    seen: Seen<MessageField>,
    usage: Option<Usage>,
    tool_use_id: StringSpan,
    is_error: bool,
) -> Option<Role> {
    use MessageField as F;
    let extra = seen.mask() & !(F::Role.bit() | F::Blocks.bit());
    match name? {
        RoleName::User if extra == 0 => Some(Role::User),
        RoleName::System if extra == 0 => Some(Role::System),
        RoleName::Assistant if extra & !F::Usage.bit() == 0 => Some(Role::Assistant { usage }),
        RoleName::Tool if extra == F::ToolUseId.bit() | F::IsError.bit() => Some(Role::Tool { tool_use_id, is_error }),
        _ => None,
    }
}

layout! {
    /// The keys of an assistant message's `usage` (T5.2).
    enum UsageField {
        InputTokens = "input_tokens": UnsignedOrNull,
        OutputTokens = "output_tokens": UnsignedOrNull,
        CacheReadTokens = "cache_read_tokens": UnsignedOrNull,
        CacheCreationTokens = "cache_creation_tokens": UnsignedOrNull,
        ReasoningTokens = "reasoning_tokens": UnsignedOrNull,
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
fn block_list<V: Visit>(p: &mut Parser<'_>, depth: usize, w: &mut Walk<'_, '_, V>) -> JResult<()> {
    if p.next_structural()? != Event::ArrayStart || depth > MAX_BLOCK_DEPTH {
        return Err(JsonError::invalid(p.token_start()));
    }
    let mut j = 0;
    loop {
        let first = p.next_structural()?;
        if first == Event::ArrayEnd {
            return Ok(());
        }
        block(p, first, j, depth, w)?;
        j += 1;
    }
}

layout! {
    /// Every key a block may have (T5.5); which ones a block's `type` allows and needs is checked
    /// once the whole object has been read.
    enum BlockField {
        Type = "type": BlockType,
        Text = "text": String,
        MediaType = "media_type": String,
        Source = "source": Object { SourceField },
        Data = "data": Base64OrNull,
        Name = "name": String,
        Thinking = "thinking": String,
        Signature = "signature": String,
        SignatureFormat = "signature_format": StringOrNull,
        ProviderState = "provider_state": Any,
        ProviderStateFormat = "provider_state_format": StringOrNull,
        Id = "id": String,
        Input = "input": Any,
        ToolUseId = "tool_use_id": String,
        Content = "content": Blocks { BlockField },
        IsError = "is_error": Bool,
    }
}

layout! {
    /// A block's `type` (T5.5), matched once.
    enum Kind {
        Text = "text",
        Refusal = "refusal",
        Image = "image",
        Audio = "audio",
        Document = "document",
        Thinking = "thinking",
        ToolUse = "tool_use",
        ToolResult = "tool_result",
    }
}

/// Every field a block may carry, read by its own type rule; which ones the block's `type` allows
/// and needs is checked once the whole object has been read (keys may come in any order).
#[derive(Default)]
struct BlockFields<'a> {
    kind: Option<(StringToken<'a>, Option<Kind>)>,
    text: StringSpan,
    media_type: StringSpan,
    url: StringSpan,
    data: Option<Bytes>,
    name: StringSpan,
    thinking: StringSpan,
    signature: StringSpan,
    /// The optional format strings, the empty text for absent or `null`: T5.8 keeps a format only
    /// when it is a non-empty string, so absent, `null` and `""` mean the same.
    ///
    /// A valgrind workaround, not `Option<StringSpan>` on purpose (keep it): `StringSpan` has no niche, so a
    /// `None` leaves the payload uninitialised, and the optimiser tested `!format.is_empty()`
    /// before the `Some` it depends on (legal: the result was used only for a `Some`). The release
    /// library then branched on uninitialised stack bytes on every parse, which memcheck reports
    /// to every C program that links it (Miri finds no undefined behaviour in the source). A plain
    /// `StringSpan` is always initialised; scripts/sanitize runs the release library under valgrind.
    signature_format: StringSpan,
    provider_state: Option<RawValue>,
    provider_state_format: StringSpan,
    id: StringSpan,
    input: Option<RawValue>,
    tool_use_id: StringSpan,
    /// `tool_use_id` was read (before `content`, the canonical order).
    has_tool_use_id: bool,
    /// The [`Late`] slot of an id read after `content`, while the first walk notes late facts.
    late_id: Option<usize>,
    is_error: bool,
}

fn block<'a, V: Visit>(
    p: &mut Parser<'a>,
    first: Event<'a>,
    j: usize,
    depth: usize,
    w: &mut Walk<'_, '_, V>,
) -> JResult<()> {
    let start = p.token_start();
    let mut f = BlockFields::default();
    let again = matches!(w.order, Order::Replay { .. });
    let seen = p.read_fields(first, |p, field| {
        match field {
            BlockField::Type => f.kind = Some(p.str_named::<Kind>()?),
            BlockField::Text => f.text = p.str()?.text(),
            BlockField::MediaType => f.media_type = p.str()?.text(),
            BlockField::Source => f.url = read_source(p, &mut f.data, again)?,
            BlockField::Data => f.data = read_bytes(p, again)?,
            BlockField::Name => f.name = p.str()?.text(),
            BlockField::Thinking => f.thinking = p.str()?.text(),
            BlockField::Signature => f.signature = p.str()?.text(),
            BlockField::SignatureFormat => f.signature_format = p.str_or_null()?.map(|s| s.text()).unwrap_or_default(),
            BlockField::ProviderState => f.provider_state = Some(p.raw(&mut w.keys)?),
            BlockField::ProviderStateFormat => {
                f.provider_state_format = p.str_or_null()?.map(|s| s.text()).unwrap_or_default();
            }
            BlockField::Id => f.id = p.str()?.text(),
            BlockField::Input => f.input = Some(p.raw(&mut w.keys)?),
            BlockField::ToolUseId => {
                f.tool_use_id = p.str()?.text();
                f.has_tool_use_id = true;
            }
            BlockField::Content => {
                // Only a `tool_result` block has `content` (checked once the block is read).
                let id = if f.has_tool_use_id {
                    f.tool_use_id
                } else {
                    let (id, slot) = w.order.id();
                    f.late_id = slot;
                    id
                };
                w.v.content_start(j, depth, id);
                block_list(p, depth + 1, w)?;
            }
            BlockField::IsError => f.is_error = p.bool()?,
        }
        Ok(())
    })?;
    let invalid = JsonError::invalid(start);
    let (kind_token, kind) = f.kind.ok_or(invalid)?;
    // An unknown type is the `type` value's fault, not the block's (offset of the value). Type
    // names are ASCII: an unescaped token is its own text.
    let kind = match kind {
        Some(kind) => Some(kind),
        None if kind_token.has_escapes() => Kind::named(&kind_token.decode_bytes()?),
        None => Kind::named(kind_token.raw()),
    }
    .ok_or(JsonError::invalid(kind_token.span().start))?;
    use BlockField as B;
    // (required keys, optional keys) per T5.5.
    let provider_state_pair = B::ProviderState.bit() | B::ProviderStateFormat.bit();
    let (required, optional) = match kind {
        Kind::Text | Kind::Refusal => (B::Text.bit(), 0),
        Kind::Image => (B::MediaType.bit() | B::Source.bit(), 0),
        Kind::Audio => (B::MediaType.bit() | B::Data.bit(), 0),
        Kind::Document => (B::MediaType.bit() | B::Name.bit() | B::Text.bit() | B::Data.bit(), 0),
        Kind::Thinking => (B::Thinking.bit() | B::Signature.bit(), B::SignatureFormat.bit() | provider_state_pair),
        Kind::ToolUse => (B::Id.bit() | B::Name.bit() | B::Input.bit(), provider_state_pair),
        Kind::ToolResult => (B::ToolUseId.bit() | B::Content.bit() | B::IsError.bit(), 0),
    };
    let fields = seen.mask() & !B::Type.bit();
    if fields & required != required || fields & !(required | optional) != 0 {
        return Err(invalid);
    }
    // T5.8: the provider-state pair is kept only when the state is present and the format is a
    // non-empty string.
    let format = f.provider_state_format;
    let provider_state = match f.provider_state {
        Some(state) if !format.is_empty() => Some(ProviderState { state, format }),
        _ => None,
    };
    let block = match kind {
        Kind::Text => Block::Text { text: f.text },
        Kind::Refusal => Block::Refusal { text: f.text },
        Kind::Image => Block::Image { media_type: f.media_type, url: f.url, data: f.data },
        Kind::Audio => Block::Audio { media_type: f.media_type, data: f.data },
        Kind::Document => Block::Document { media_type: f.media_type, name: f.name, data: f.data, text: f.text },
        Kind::Thinking => Block::Thinking {
            thinking: f.thinking,
            signature: f.signature,
            // T5.8: kept only with a non-empty signature; E7.4 writes it only when non-empty.
            signature_format: (!f.signature.is_empty() && !f.signature_format.is_empty()).then_some(f.signature_format),
            provider_state,
        },
        Kind::ToolUse => Block::ToolUse { id: f.id, name: f.name, input: f.input.ok_or(invalid)?, provider_state },
        Kind::ToolResult => {
            w.order.fill_id(f.late_id, f.tool_use_id);
            Block::ToolResult { tool_use_id: f.tool_use_id, is_error: f.is_error }
        }
    };
    w.v.block(j, depth, &block);
    Ok(())
}

/// An image `source`: exactly `url` (string) and `data` (required, may be `null`).
fn read_source(p: &mut Parser<'_>, data: &mut Option<Bytes>, again: bool) -> JResult<StringSpan> {
    let mut url = StringSpan::default();
    p.fields(|p, field| {
        match field {
            SourceField::Url => url = p.str()?.text(),
            SourceField::Data => *data = read_bytes(p, again)?,
        }
        Ok(())
    })?
    .require_all(p)?;
    Ok(url)
}

layout! {
    /// The keys of an image block's `source` (T5.5).
    enum SourceField {
        Url = "url": String,
        Data = "data": Base64OrNull,
    }
}

/// T5.6: `null` or a standard base64 string (D4: arrays of numbers fail). `again`: a later walk
/// of a checked document, which only needs to know whether an unescaped text is already canonical
/// (an escaped one is re-encoded as it is written, E7.5), so an escaped text is not decoded again.
fn read_bytes(p: &mut Parser<'_>, again: bool) -> JResult<Option<Bytes>> {
    // The parser takes the leading whole chunks of alphabet characters from base64's own scan, and
    // the check starts after them: the bulk of a byte field is looked at once.
    let Some((s, run)) = p.str_or_null_with_plain_prefix::<base64::AlphabetPrefix>()? else {
        return Ok(None);
    };
    if again && s.has_escapes() {
        return Ok(Some(Bytes { text: s.text(), checked: base64::Checked { len: 0, canonical: false } }));
    }
    let offset = s.span().start;
    s.check_utf8()?;
    // Escapes can only come after the alphabet run, so decoding leaves that run in place; an
    // escaped text is decoded a piece at a time as it is checked, never into a copy.
    let checked = if s.has_escapes() { base64::check_escaped(s.raw(), run) } else { base64::check(s.raw(), run) };
    Ok(Some(Bytes { text: s.text(), checked: checked.ok_or(JsonError::invalid(offset))? }))
}
