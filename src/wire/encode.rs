//! The canonical encoding of an input (SPEC §7.1) and fitting it under a byte limit (F7.1–F7.5).

use super::base64;
use super::input::Document;
use super::transcript::{self, Block, Bytes, ProviderState, Role, RoleName, StringSpan, Visit};
use crate::json::write::{Counter, Sink, put_bool, put_json_str, put_raw, put_u64};

/// F7.3: the text of the block that replaces an old tool result.
pub(crate) const STUB_TEXT: &str = "[old tool result omitted for compaction]";

/// Writes canonical bytes (E7.3, E7.4) of the messages and blocks of a checked transcript held in
/// `src`, as a walk reports them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Canonical<'a> {
    pub(crate) src: &'a [u8],
}

/// Writes canonical bytes of one document held in `src`, with its first `until` messages as the
/// transcript (all of them, or the head that a summariser is given, R15.8).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Encoder<'a> {
    pub(crate) src: &'a [u8],
    pub(crate) doc: &'a Document,
    pub(crate) until: usize,
}

impl Canonical<'_> {
    pub(crate) fn text<S: Sink>(&self, out: &mut S, t: StringSpan) {
        put_json_str(out, t.of(self.src), t.has_escapes());
    }

    fn bytes<S: Sink>(&self, out: &mut S, data: Option<Bytes>) {
        let Some(b) = data else {
            out.put(b"null");
            return;
        };
        out.put(b"\"");
        if b.checked.canonical && !b.text.has_escapes() {
            out.put(b.text.of(self.src));
        } else {
            // Re-encoded as it streams: no copy of the field is built.
            base64::put_canonical(out, b.text.of(self.src), b.text.has_escapes());
        }
        out.put(b"\"");
    }

    fn provider_state<S: Sink>(&self, out: &mut S, ps: Option<ProviderState>) {
        if let Some(ps) = ps {
            out.put(b",\"provider_state\":");
            put_raw(out, ps.state.0.of(self.src));
            out.put(b",\"provider_state_format\":");
            self.text(out, ps.format);
        }
    }

    pub(crate) fn block<S: Sink>(&self, out: &mut S, block: &Block) {
        match block {
            Block::Text { text } | Block::Refusal { text } => {
                out.put(if matches!(block, Block::Text { .. }) {
                    b"{\"type\":\"text\",\"text\":"
                } else {
                    b"{\"type\":\"refusal\",\"text\":"
                });
                self.text(out, *text);
            }
            Block::Image { media_type, url, data } => {
                out.put(b"{\"type\":\"image\",\"media_type\":");
                self.text(out, *media_type);
                out.put(b",\"source\":{\"url\":");
                self.text(out, *url);
                out.put(b",\"data\":");
                self.bytes(out, *data);
                out.put(b"}");
            }
            Block::Audio { media_type, data } => {
                out.put(b"{\"type\":\"audio\",\"media_type\":");
                self.text(out, *media_type);
                out.put(b",\"data\":");
                self.bytes(out, *data);
            }
            Block::Document { media_type, name, data, text } => {
                out.put(b"{\"type\":\"document\",\"media_type\":");
                self.text(out, *media_type);
                out.put(b",\"name\":");
                self.text(out, *name);
                out.put(b",\"data\":");
                self.bytes(out, *data);
                out.put(b",\"text\":");
                self.text(out, *text);
            }
            Block::Thinking { thinking, signature, signature_format, provider_state } => {
                out.put(b"{\"type\":\"thinking\",\"thinking\":");
                self.text(out, *thinking);
                out.put(b",\"signature\":");
                self.text(out, *signature);
                if let Some(format) = signature_format {
                    out.put(b",\"signature_format\":");
                    self.text(out, *format);
                }
                self.provider_state(out, *provider_state);
            }
            Block::ToolUse { id, name, input, provider_state } => {
                out.put(b"{\"type\":\"tool_use\",\"id\":");
                self.text(out, *id);
                out.put(b",\"name\":");
                self.text(out, *name);
                out.put(b",\"input\":");
                put_raw(out, input.0.of(self.src));
                self.provider_state(out, *provider_state);
            }
            // The prefix and content were written as they came (`Writer`).
            Block::ToolResult { is_error, .. } => {
                out.put(b"],\"is_error\":");
                put_bool(out, *is_error);
            }
        }
        out.put(b"}");
    }

    /// E7.4: a `tool_result` block up to its content (its blocks and the rest come as the walk
    /// meets them).
    pub(crate) fn tool_result_start<S: Sink>(&self, out: &mut S, tool_use_id: StringSpan) {
        out.put(b"{\"type\":\"tool_result\",\"tool_use_id\":");
        self.text(out, tool_use_id);
        out.put(b",\"content\":[");
    }

    /// E7.3: what comes before a message's blocks.
    pub(crate) fn message_start<S: Sink>(out: &mut S, role: RoleName) {
        out.put(match role {
            RoleName::User => b"{\"role\":\"user\",\"blocks\":[",
            RoleName::System => b"{\"role\":\"system\",\"blocks\":[",
            RoleName::Assistant => b"{\"role\":\"assistant\",\"blocks\":[",
            RoleName::Tool => b"{\"role\":\"tool\",\"blocks\":[",
        });
    }

    /// F7.3: the stub block that replaces a tool message's blocks.
    fn stub<S: Sink>(out: &mut S) {
        out.put(b"{\"type\":\"text\",\"text\":\"");
        out.put(STUB_TEXT.as_bytes());
        out.put(b"\"}");
    }

    /// E7.3: what comes after a message's blocks.
    pub(crate) fn message_end<S: Sink>(&self, out: &mut S, role: &Role) {
        out.put(b"]");
        match role {
            Role::User | Role::System => {}
            Role::Assistant { usage: None } => out.put(b",\"usage\":null"),
            Role::Assistant { usage: Some(u) } => {
                out.put(b",\"usage\":{\"input_tokens\":");
                put_u64(out, u.input_tokens);
                out.put(b",\"output_tokens\":");
                put_u64(out, u.output_tokens);
                out.put(b",\"cache_read_tokens\":");
                put_u64(out, u.cache_read_tokens);
                out.put(b",\"cache_creation_tokens\":");
                put_u64(out, u.cache_creation_tokens);
                out.put(b",\"reasoning_tokens\":");
                put_u64(out, u.reasoning_tokens);
                out.put(b"}");
            }
            Role::Tool { tool_use_id, is_error } => {
                out.put(b",\"tool_use_id\":");
                self.text(out, *tool_use_id);
                out.put(b",\"is_error\":");
                put_bool(out, *is_error);
            }
        }
        out.put(b"}");
    }
}

impl<'a> Encoder<'a> {
    /// The message and block writer over the same bytes.
    pub(crate) const fn canonical(&self) -> Canonical<'a> {
        Canonical { src: self.src }
    }

    /// E7.2: the whole document; `stubbed(i)` tells which messages are replaced by a stub.
    pub(crate) fn document<S: Sink>(&self, out: &mut S, stubbed: impl Fn(usize) -> bool) {
        let d = self.doc;
        out.put(b"{\"version\":1,\"basis\":{\"revision\":");
        put_u64(out, d.revision);
        out.put(b",\"through_event_id\":\"");
        out.put(&d.through_event_id);
        out.put(b"\"},\"model\":{\"provider\":");
        self.canonical().text(out, d.provider);
        out.put(b",\"model\":");
        self.canonical().text(out, d.model);
        out.put(b"},\"request_fingerprint\":\"");
        out.put(&d.request_fingerprint);
        out.put(b"\",\"transcript\":[");
        let mut writer = Writer { encoder: self, out, stubbed, muted: false };
        transcript::walk_until(self.src, &d.transcript, self.until, &mut writer);
        out.put(b"],\"max_summary_tokens\":");
        put_u64(out, d.max_summary_tokens);
        out.put(b"}");
    }

    /// The length of the encoding without stubs, counted without building it.
    pub(crate) fn count(&self) -> usize {
        let mut full = Counter::default();
        self.document(&mut full, |_| false);
        full.0
    }

    /// F7.2–F7.4: which tool messages to stub (old tool results, oldest first, while that shrinks
    /// the encoding) and the length of the result, counted without building it, given the length
    /// of the encoding without stubs, `full`. `Err(size)` carries the last length reached.
    pub(crate) fn plan_from(&self, full: usize, max_bytes: u64) -> Result<Plan, u64> {
        let current = full as u64;
        if max_bytes == 0 {
            return Err(current);
        }
        if current <= max_bytes {
            return Ok(Plan { stubbed: Vec::new(), len: full });
        }
        // Messages are encoded independently, so a candidate changes the total by the difference
        // of its own two encodings (SPEC §7 notes): one counting walk measures both.
        let mut fitter = Fitter {
            encoder: self,
            counter: Counter::default(),
            blocks: 0,
            current,
            max_bytes,
            stubbed: vec![false; self.until.min(self.doc.transcript.messages)],
            fits: false,
        };
        transcript::walk_until(self.src, &self.doc.transcript, self.until, &mut fitter);
        if fitter.fits {
            // `current` counts bytes of this process's memory, so it fits in usize.
            return Ok(Plan { stubbed: fitter.stubbed, len: fitter.current as usize });
        }
        Err(fitter.current)
    }

    /// Writes the bytes `plan` describes (exactly `plan.len` of them).
    pub(crate) fn write<S: Sink>(&self, plan: &Plan, out: &mut S) {
        self.document(out, |j| plan.stubbed.get(j).copied().unwrap_or(false));
    }
}

/// The outcome of fitting (F7.3): the messages to stub, and the length of the encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// `stubbed[i]`: message `i` is replaced by a stub (empty when nothing is).
    stubbed: Vec<bool>,
    pub(crate) len: usize,
}

/// The canonical writer as a walk visitor: messages and blocks are written as the walk meets them.
struct Writer<'e, 'a, S, F> {
    encoder: &'e Encoder<'a>,
    out: &'e mut S,
    stubbed: F,
    /// Inside a stubbed message: its blocks are not written.
    muted: bool,
}

impl<S: Sink, F: Fn(usize) -> bool> Visit for Writer<'_, '_, S, F> {
    fn blocks_start(&mut self, i: usize, role: Option<RoleName>) {
        // A replay knows every role (transcript::Late); `User` only keeps the type total.
        let role = role.unwrap_or(RoleName::User);
        if i > 0 {
            self.out.put(b",");
        }
        Canonical::message_start(self.out, role);
        self.muted = (self.stubbed)(i);
        if self.muted {
            Canonical::stub(self.out);
        }
    }

    fn content_start(&mut self, j: usize, _depth: usize, tool_use_id: StringSpan) {
        if self.muted {
            return;
        }
        if j > 0 {
            self.out.put(b",");
        }
        self.encoder.canonical().tool_result_start(self.out, tool_use_id);
    }

    fn block(&mut self, j: usize, _depth: usize, block: &Block) {
        if self.muted {
            return;
        }
        if j > 0 && !matches!(block, Block::ToolResult { .. }) {
            self.out.put(b",");
        }
        self.encoder.canonical().block(self.out, block);
    }

    fn message(&mut self, _i: usize, role: &Role) {
        self.muted = false;
        self.encoder.canonical().message_end(self.out, role);
    }
}

/// F7.3 as a counting walk: each tool message with blocks is measured as written and as a stub,
/// and stubbed while that shrinks the total, oldest first, until it fits.
struct Fitter<'e, 'a> {
    encoder: &'e Encoder<'a>,
    /// The bytes of the current message so far.
    counter: Counter,
    /// Top-level blocks of the current message.
    blocks: usize,
    current: u64,
    max_bytes: u64,
    stubbed: Vec<bool>,
    fits: bool,
}

impl Visit for Fitter<'_, '_> {
    fn blocks_start(&mut self, _i: usize, role: Option<RoleName>) {
        // As in the writer: a replay knows every role.
        let role = role.unwrap_or(RoleName::User);
        self.counter = Counter::default();
        self.blocks = 0;
        Canonical::message_start(&mut self.counter, role);
    }

    fn content_start(&mut self, j: usize, _depth: usize, tool_use_id: StringSpan) {
        if j > 0 {
            self.counter.put(b",");
        }
        self.encoder.canonical().tool_result_start(&mut self.counter, tool_use_id);
    }

    fn block(&mut self, j: usize, depth: usize, block: &Block) {
        if depth == 0 {
            self.blocks += 1;
        }
        if j > 0 && !matches!(block, Block::ToolResult { .. }) {
            self.counter.put(b",");
        }
        self.encoder.canonical().block(&mut self.counter, block);
    }

    fn message(&mut self, i: usize, role: &Role) {
        self.encoder.canonical().message_end(&mut self.counter, role);
        let before = self.counter.0 as u64;
        if self.fits || !matches!(role, Role::Tool { .. }) || self.blocks == 0 {
            return;
        }
        let mut after = Counter::default();
        Canonical::message_start(&mut after, role.name());
        Canonical::stub(&mut after);
        self.encoder.canonical().message_end(&mut after, role);
        let candidate = self.current - before + after.0 as u64;
        if candidate >= self.current {
            return;
        }
        self.current = candidate;
        if let Some(slot) = self.stubbed.get_mut(i) {
            *slot = true;
        }
        self.fits = self.current <= self.max_bytes;
    }
}
