//! The wire transcript a converter writes (SPEC §16, E7.3–E7.6): messages and blocks in canonical
//! bytes, with each wire message's source index and whether a cut may fall before it.

use crate::json::StringToken;
use crate::json::write::{Sink, put_json_str, put_raw, put_str};

use super::{Loss, LossCode};

/// A string to write: a source string token (decoded and re-escaped as it is written) or text.
#[derive(Debug, Clone, Copy)]
pub(crate) enum StringToWrite<'a> {
    Json(StringToken<'a>),
    Text(&'a str),
}

impl StringToWrite<'_> {
    pub(crate) fn put(&self, out: &mut Vec<u8>) {
        match self {
            StringToWrite::Json(s) => put_json_str(out, s.raw(), s.has_escapes()),
            StringToWrite::Text(t) => put_str(out, t),
        }
    }
}

/// The provider state of a call that carried a Gemini thought signature: `{"thoughtSignature": S}`,
/// the state a Gemini `functionCall` part's signature is kept in (G16.3, `gemini.part`).
pub(crate) fn gemini_part_state(signature: StringToken<'_>) -> Vec<u8> {
    let mut state = Vec::from(&b"{\"thoughtSignature\":"[..]);
    put_json_str(&mut state, signature.raw(), signature.has_escapes());
    state.push(b'}');
    state
}

/// The provider state of Anthropic redacted thinking: `{"data": D}` (G16.3,
/// `anthropic.redacted_thinking`).
pub(crate) fn redacted_thinking_state(data: StringToken<'_>) -> Vec<u8> {
    let mut state = Vec::from(&b"{\"data\":"[..]);
    put_json_str(&mut state, data.raw(), data.has_escapes());
    state.push(b'}');
    state
}

/// The format of [`redacted_thinking_state`].
pub(crate) const ANTHROPIC_REDACTED: &str = "anthropic.redacted_thinking";

/// The format of [`gemini_part_state`].
pub(crate) const GEMINI_PART: &str = "gemini.part";

/// The five usage counters of an assistant message (T5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Usage {
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) cache_read_tokens: u64,
    pub(crate) cache_creation_tokens: u64,
    pub(crate) reasoning_tokens: u64,
}

/// A role of the wire (T5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    System,
    User,
    Assistant,
}

/// The transcript being written: a JSON array of wire messages.
pub(crate) struct Out {
    pub(crate) bytes: Vec<u8>,
    pub(crate) source_index: Vec<u64>,
    /// Per wire message: one past the last source message (or item) it holds.
    pub(crate) source_end: Vec<u64>,
    /// Per wire message: a cut may fall right before it (it starts the wire messages of its
    /// source message, and nothing forbids it).
    pub(crate) cut_before: Vec<bool>,
    pub(crate) losses: Vec<Loss>,
    /// Blocks written in the open message.
    blocks: usize,
    /// The source message being converted, whether it has a wire message yet, and the index its
    /// first wire message has (or will have); `loss_at`, where losses are reported (an item of a
    /// run that shares the run's wire message).
    source: u64,
    loss_at: u64,
    source_started: bool,
    source_first: usize,
    /// No wire cut above this one is allowed: a compaction item the wire cannot carry sits there,
    /// and a cut after it would summarise it away (G16.8).
    last_cut: usize,
}

/// The source index of what is not a source message: the system parameter (SPEC G16.2).
pub(crate) const NOT_A_MESSAGE: u64 = u64::MAX;

impl Out {
    pub(crate) fn new(capacity: usize) -> Out {
        let mut bytes = Vec::with_capacity(capacity);
        bytes.push(b'[');
        Out {
            bytes,
            source_index: Vec::new(),
            source_end: Vec::new(),
            cut_before: Vec::new(),
            losses: Vec::new(),
            blocks: 0,
            source: 0,
            loss_at: 0,
            source_started: false,
            source_first: 0,
            last_cut: usize::MAX,
        }
    }

    /// The next source message (or item) is `index`: its first wire message may be cut before.
    pub(crate) fn source(&mut self, index: u64) {
        self.source = index;
        self.loss_at = index;
        self.source_started = false;
        self.source_first = self.source_index.len();
    }

    /// The wire index of the current source message's first wire message.
    pub(crate) fn first_of_source(&self) -> usize {
        self.source_first
    }

    /// No cut may fall above wire index `at` (a compaction item there, G16.8).
    pub(crate) fn no_cut_above(&mut self, at: usize) {
        self.last_cut = self.last_cut.min(at);
    }

    /// The highest wire cut allowed ([`Out::no_cut_above`]).
    pub(crate) fn last_cut(&self) -> usize {
        self.last_cut
    }

    /// Puts the messages of `first` (a finished or open-ended transcript written by another `Out`,
    /// e.g. the system parameter) before everything written so far.
    pub(crate) fn prepend(&mut self, first: Out) {
        let mut bytes = first.bytes;
        if !self.source_index.is_empty() && bytes.len() > 1 {
            bytes.push(b',');
        }
        bytes.extend_from_slice(self.bytes.get(1..).unwrap_or_default());
        self.bytes = bytes;
        let shift = first.source_index.len();
        let mut source_index = first.source_index;
        source_index.extend_from_slice(&self.source_index);
        self.source_index = source_index;
        let mut source_end = first.source_end;
        source_end.extend_from_slice(&self.source_end);
        self.source_end = source_end;
        let mut cut_before = first.cut_before;
        cut_before.extend_from_slice(&self.cut_before);
        self.cut_before = cut_before;
        let mut losses = first.losses;
        losses.extend_from_slice(&self.losses);
        self.losses = losses;
        self.source_first += shift;
        // The limit counts wire messages, which now start after `first`'s.
        self.last_cut = self.last_cut.saturating_add(shift);
    }

    /// A loss at the current source message.
    pub(crate) fn loss(&mut self, code: LossCode) {
        self.losses.push(Loss { source_index: self.loss_at, code });
    }

    /// Source item `index` joins the open wire message (a run of Responses items, G16.5): its
    /// losses are its own, and the message now holds up to it.
    pub(crate) fn join(&mut self, index: u64) {
        self.loss_at = index;
        if let Some(end) = self.source_end.last_mut() {
            *end = index.saturating_add(1);
        }
    }

    /// Reports losses at source item `index` without a wire message of its own (a dropped item).
    pub(crate) fn drop_item(&mut self, index: u64) {
        self.loss_at = index;
    }

    /// Opens a wire message of `role`, written `{"role":R,"blocks":[`.
    pub(crate) fn begin(&mut self, role: Role) {
        if !self.source_index.is_empty() {
            self.bytes.push(b',');
        }
        self.bytes.put(match role {
            Role::System => b"{\"role\":\"system\",\"blocks\":[",
            Role::User => b"{\"role\":\"user\",\"blocks\":[",
            Role::Assistant => b"{\"role\":\"assistant\",\"blocks\":[",
        });
        self.open_message();
    }

    /// Opens a wire `tool` message (its id and flag come at [`Out::end_tool`]).
    pub(crate) fn begin_tool(&mut self) {
        if !self.source_index.is_empty() {
            self.bytes.push(b',');
        }
        self.bytes.put(b"{\"role\":\"tool\",\"blocks\":[");
        self.open_message();
    }

    fn open_message(&mut self) {
        self.source_index.push(self.source);
        self.source_end.push(if self.source == NOT_A_MESSAGE { 0 } else { self.source.saturating_add(1) });
        self.cut_before.push(!self.source_started && self.source != NOT_A_MESSAGE);
        self.source_started = true;
        self.blocks = 0;
    }

    /// Ends a system or user message.
    pub(crate) fn end(&mut self) {
        self.bytes.put(b"]}");
    }

    /// Ends an assistant message (no usage in the sources' messages, G16.9).
    pub(crate) fn end_assistant(&mut self) {
        self.end_assistant_usage(None);
    }

    /// Ends an assistant message with its usage, when the source has it (LangChain, G16.9).
    pub(crate) fn end_assistant_usage(&mut self, usage: Option<Usage>) {
        let Some(u) = usage else {
            self.bytes.put(b"],\"usage\":null}");
            return;
        };
        self.bytes.put(b"],\"usage\":{\"input_tokens\":");
        crate::json::write::put_u64(&mut self.bytes, u.input_tokens);
        self.bytes.put(b",\"output_tokens\":");
        crate::json::write::put_u64(&mut self.bytes, u.output_tokens);
        self.bytes.put(b",\"cache_read_tokens\":");
        crate::json::write::put_u64(&mut self.bytes, u.cache_read_tokens);
        self.bytes.put(b",\"cache_creation_tokens\":");
        crate::json::write::put_u64(&mut self.bytes, u.cache_creation_tokens);
        self.bytes.put(b",\"reasoning_tokens\":");
        crate::json::write::put_u64(&mut self.bytes, u.reasoning_tokens);
        self.bytes.put(b"}}");
    }

    /// Ends a tool message: the id of the call it answers, and whether it is an error.
    pub(crate) fn end_tool(&mut self, tool_use_id: StringToWrite<'_>, is_error: bool) {
        self.bytes.put(b"],\"tool_use_id\":");
        tool_use_id.put(&mut self.bytes);
        self.bytes.put(if is_error { b",\"is_error\":true}" } else { b",\"is_error\":false}" });
    }

    fn block_start(&mut self) {
        if self.blocks > 0 {
            self.bytes.push(b',');
        }
        self.blocks += 1;
    }

    /// A `text` block.
    pub(crate) fn text(&mut self, text: StringToWrite<'_>) {
        self.block_start();
        self.bytes.put(b"{\"type\":\"text\",\"text\":");
        text.put(&mut self.bytes);
        self.bytes.push(b'}');
    }

    /// A `refusal` block.
    pub(crate) fn refusal(&mut self, text: StringToWrite<'_>) {
        self.block_start();
        self.bytes.put(b"{\"type\":\"refusal\",\"text\":");
        text.put(&mut self.bytes);
        self.bytes.push(b'}');
    }

    /// A `thinking` block (T5.8: the signature format only with a signature, the provider state
    /// only with its format).
    pub(crate) fn thinking(
        &mut self,
        thinking: StringToWrite<'_>,
        signature: StringToWrite<'_>,
        signature_format: &str,
        state: Option<(&[u8], &str)>,
    ) {
        self.block_start();
        self.bytes.put(b"{\"type\":\"thinking\",\"thinking\":");
        thinking.put(&mut self.bytes);
        self.bytes.put(b",\"signature\":");
        signature.put(&mut self.bytes);
        let signed = match signature {
            StringToWrite::Json(s) => !s.is_empty(),
            StringToWrite::Text(t) => !t.is_empty(),
        };
        if signed && !signature_format.is_empty() {
            self.bytes.put(b",\"signature_format\":");
            put_str(&mut self.bytes, signature_format);
        }
        self.provider_state(state);
        self.bytes.push(b'}');
    }

    /// An Anthropic `thinking` block (§16.4): its text and, when it has one, its signature
    /// (`anthropic`).
    pub(crate) fn anthropic_thinking(&mut self, thinking: StringToken<'_>, signature: Option<StringToken<'_>>) {
        let signature = signature.map_or(StringToWrite::Text(""), StringToWrite::Json);
        self.thinking(StringToWrite::Json(thinking), signature, "anthropic", None);
    }

    /// A Gemini thought signature on a block that is not a thought (a text or media part, a Chat
    /// message from Gemini's OpenAI-compatible endpoint): an empty thinking block carrying it, right
    /// before the block it came with (G16.3, `gemini.thought_signature`).
    pub(crate) fn gemini_signed(&mut self, signature: StringToken<'_>) {
        self.thinking(StringToWrite::Text(""), StringToWrite::Json(signature), "gemini.thought_signature", None);
    }

    fn provider_state(&mut self, state: Option<(&[u8], &str)>) {
        if let Some((json, format)) = state {
            self.bytes.put(b",\"provider_state\":");
            put_raw(&mut self.bytes, json);
            self.bytes.put(b",\"provider_state_format\":");
            put_str(&mut self.bytes, format);
        }
    }

    /// A `tool_use` block; `input` is JSON text (a raw value, E7.7).
    pub(crate) fn tool_use(
        &mut self,
        id: StringToWrite<'_>,
        name: StringToWrite<'_>,
        input: &[u8],
        state: Option<(&[u8], &str)>,
    ) {
        self.block_start();
        self.bytes.put(b"{\"type\":\"tool_use\",\"id\":");
        id.put(&mut self.bytes);
        self.bytes.put(b",\"name\":");
        name.put(&mut self.bytes);
        self.bytes.put(b",\"input\":");
        put_raw(&mut self.bytes, input);
        self.provider_state(state);
        self.bytes.push(b'}');
    }

    /// The bytes (E7.5): `data` is their canonical base64 text (`media::canonical_base64`), or
    /// `None` for `null`.
    fn data(&mut self, data: Option<&[u8]>) {
        match data {
            None => self.bytes.put(b"null"),
            Some(base64) => {
                self.bytes.push(b'"');
                self.bytes.put(base64);
                self.bytes.push(b'"');
            }
        }
    }

    /// An `image` block.
    pub(crate) fn image(&mut self, media_type: StringToWrite<'_>, url: StringToWrite<'_>, data: Option<&[u8]>) {
        self.block_start();
        self.bytes.put(b"{\"type\":\"image\",\"media_type\":");
        media_type.put(&mut self.bytes);
        self.bytes.put(b",\"source\":{\"url\":");
        url.put(&mut self.bytes);
        self.bytes.put(b",\"data\":");
        self.data(data);
        self.bytes.put(b"}}");
    }

    /// An `audio` block.
    pub(crate) fn audio(&mut self, media_type: StringToWrite<'_>, data: Option<&[u8]>) {
        self.block_start();
        self.bytes.put(b"{\"type\":\"audio\",\"media_type\":");
        media_type.put(&mut self.bytes);
        self.bytes.put(b",\"data\":");
        self.data(data);
        self.bytes.push(b'}');
    }

    /// A `document` block.
    pub(crate) fn document(
        &mut self,
        media_type: StringToWrite<'_>,
        name: StringToWrite<'_>,
        data: Option<&[u8]>,
        text: StringToWrite<'_>,
    ) {
        self.block_start();
        self.bytes.put(b"{\"type\":\"document\",\"media_type\":");
        media_type.put(&mut self.bytes);
        self.bytes.put(b",\"name\":");
        name.put(&mut self.bytes);
        self.bytes.put(b",\"data\":");
        self.data(data);
        self.bytes.put(b",\"text\":");
        text.put(&mut self.bytes);
        self.bytes.push(b'}');
    }

    /// Closes the array.
    pub(crate) fn finish(mut self) -> Out {
        self.bytes.push(b']');
        self
    }
}
