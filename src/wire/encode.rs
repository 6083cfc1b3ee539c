//! The canonical encoding of an input (SPEC §7.1) and fitting it under a byte limit (F7.1–F7.5).

use super::base64;
use super::input::Document;
use super::transcript::{Block, Bytes, Message, ProviderState, Role, Text};
use crate::json::write::{Counter, Sink, put_bool, put_json_str, put_raw, put_u64};

/// F7.3: the text of the block that replaces an old tool result.
pub(crate) const STUB_TEXT: &str = "[old tool result omitted for compaction]";

/// Writes canonical bytes of one document held in `src`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Encoder<'a> {
    pub(crate) src: &'a [u8],
    pub(crate) doc: &'a Document,
}

impl Encoder<'_> {
    fn text<S: Sink>(&self, out: &mut S, t: Text) {
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

    fn blocks<S: Sink>(&self, out: &mut S, blocks: &[Block]) {
        out.put(b"[");
        for (i, block) in blocks.iter().enumerate() {
            if i > 0 {
                out.put(b",");
            }
            self.block(out, block);
        }
        out.put(b"]");
    }

    fn block<S: Sink>(&self, out: &mut S, block: &Block) {
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
            Block::ToolResult { tool_use_id, content, is_error } => {
                out.put(b"{\"type\":\"tool_result\",\"tool_use_id\":");
                self.text(out, *tool_use_id);
                out.put(b",\"content\":");
                self.blocks(out, content);
                out.put(b",\"is_error\":");
                put_bool(out, *is_error);
            }
        }
        out.put(b"}");
    }

    /// E7.3; with `stub`, a tool message's blocks are replaced by the F7.3 stub block.
    fn message<S: Sink>(&self, out: &mut S, m: &Message, stub: bool) {
        out.put(match m.role {
            Role::User => b"{\"role\":\"user\",\"blocks\":",
            Role::System => b"{\"role\":\"system\",\"blocks\":",
            Role::Assistant { .. } => b"{\"role\":\"assistant\",\"blocks\":",
            Role::Tool { .. } => b"{\"role\":\"tool\",\"blocks\":",
        });
        if stub {
            out.put(b"[{\"type\":\"text\",\"text\":\"");
            out.put(STUB_TEXT.as_bytes());
            out.put(b"\"}]");
        } else {
            self.blocks(out, &m.blocks);
        }
        match &m.role {
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

    /// E7.2: the whole document; `stubbed(i)` tells which messages are replaced by a stub.
    pub(crate) fn document<S: Sink>(&self, out: &mut S, stubbed: impl Fn(usize) -> bool) {
        let d = self.doc;
        out.put(b"{\"version\":1,\"basis\":{\"revision\":");
        put_u64(out, d.revision);
        out.put(b",\"through_event_id\":\"");
        out.put(&d.through_event_id);
        out.put(b"\"},\"model\":{\"provider\":");
        self.text(out, d.provider);
        out.put(b",\"model\":");
        self.text(out, d.model);
        out.put(b"},\"request_fingerprint\":\"");
        out.put(&d.request_fingerprint);
        out.put(b"\",\"transcript\":[");
        for (i, m) in d.transcript.iter().enumerate() {
            if i > 0 {
                out.put(b",");
            }
            self.message(out, m, stubbed(i));
        }
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
        let mut current = full as u64;
        if max_bytes == 0 {
            return Err(current);
        }
        if current <= max_bytes {
            return Ok(Plan { stubbed: Vec::new(), len: full });
        }
        // Messages are encoded independently, so a candidate changes the total by the difference
        // of its own two encodings (SPEC §7 notes).
        let mut stubbed = vec![false; self.doc.transcript.len()];
        for (i, m) in self.doc.transcript.iter().enumerate() {
            if !matches!(m.role, Role::Tool { .. }) || m.blocks.is_empty() {
                continue;
            }
            let (mut before, mut after) = (Counter::default(), Counter::default());
            self.message(&mut before, m, false);
            self.message(&mut after, m, true);
            let candidate = current - before.0 as u64 + after.0 as u64;
            if candidate >= current {
                continue;
            }
            current = candidate;
            if let Some(slot) = stubbed.get_mut(i) {
                *slot = true;
            }
            if current <= max_bytes {
                // `current` counts bytes of this process's memory, so it fits in usize.
                return Ok(Plan { stubbed, len: current as usize });
            }
        }
        Err(current)
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
