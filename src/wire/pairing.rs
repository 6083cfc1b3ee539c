//! Tool-call pairing and safe cut points (SPEC §14, S14.1–S14.4): whether every tool call of the
//! transcript has exactly one result where providers require it, and where the transcript can be
//! cut into a summarised head and a kept tail without separating a call from its result.
//!
//! One pass over the messages, with the ids compared as decoded bytes (borrowed when they have no
//! escape). Only the top-level blocks of a message are looked at: blocks nested in a `tool_result`
//! block's `content` are that result's content (S14.2).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::CompactionInput;
use super::transcript::{Block, Role, Visit};
use crate::diagnostic::{Diagnostic, PathBuilder};
use crate::json::Text;
use crate::status::Status;

/// A pairing violation (S14.3): which rule, and where (message, top-level block; `None` for a
/// `tool` message's own `tool_use_id`), with the offset of the id in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Violation {
    pub(crate) status: Status,
    pub(crate) message: usize,
    pub(crate) block: Option<usize>,
    pub(crate) offset: usize,
}

impl Violation {
    /// Transcript order: by message, then a message's `tool_use_id` before its blocks.
    fn position(&self) -> (usize, usize) {
        (self.message, self.block.map_or(0, |b| b + 1))
    }

    /// The diagnosis (C13.2): `transcript[i].blocks[j]` or `transcript[i].tool_use_id`; never the id.
    pub(crate) fn diagnostic(&self, src: &[u8]) -> Diagnostic {
        let mut location = PathBuilder::default();
        location.push_name("transcript");
        location.push_index(self.message);
        match self.block {
            Some(block) => {
                location.push_name("blocks");
                location.push_index(block);
            }
            None => location.push_name("tool_use_id"),
        }
        let location = location.finish();
        let (rule, expected) = match self.status {
            Status::PairingUnansweredCall => {
                (c"S14.3", c"one tool result for this call before the next assistant message")
            }
            Status::PairingOrphanResult => (c"S14.3", c"a tool_use of the latest assistant message with this id"),
            Status::PairingDuplicateId => (c"S14.3", c"a tool_use id not used before in the transcript"),
            _ => (c"S14.3", c"one tool result per call"),
        };
        Diagnostic::new(self.status)
            .at_offset_in(self.offset, src)
            .with_location(location)
            .with_rule(rule)
            .with_expected(expected)
    }
}

/// Where one call is answered: (message of the call, message of its result).
pub(crate) type Pair = (usize, usize);

/// The walk of S14.3: the first violation so far, the ids seen, the latest assistant message's
/// open calls (id → message, block, offset, answered), and the pairs found.
struct Walk<'s> {
    first: Option<Violation>,
    seen_calls: HashSet<Cow<'s, [u8]>>,
    open: HashMap<Cow<'s, [u8]>, (usize, usize, usize, bool)>,
    pairs: Vec<Pair>,
}

impl<'s> Walk<'s> {
    fn note(&mut self, v: Violation) {
        if self.first.is_none_or(|f| v.position() < f.position()) {
            self.first = Some(v);
        }
    }

    /// The next assistant message (or the end): the open calls without a result are unanswered.
    fn close(&mut self) {
        let unanswered: Vec<Violation> = self
            .open
            .values()
            .filter(|call| !call.3)
            .map(|&(message, block, offset, _)| Violation {
                status: Status::PairingUnansweredCall,
                message,
                block: Some(block),
                offset,
            })
            .collect();
        for v in unanswered {
            self.note(v);
        }
        self.open.clear();
    }

    /// A result for `id` in message `i`: answers an open call once; anything else is an orphan or
    /// a second result.
    fn answer(&mut self, id: Cow<'s, [u8]>, i: usize, block: Option<usize>, offset: usize) {
        match self.open.get_mut(&id) {
            Some(call) if !call.3 => {
                call.3 = true;
                self.pairs.push((call.0, i));
            }
            Some(_) => self.note(Violation { status: Status::PairingDuplicateResult, message: i, block, offset }),
            None => self.note(Violation { status: Status::PairingOrphanResult, message: i, block, offset }),
        }
    }
}

/// S14.3 for a parsed input: every call/result pair, or the first violation in transcript order.
/// Found once, by the walk that parses the input ([`Pairing`]), so the checks cost no second walk.
pub(crate) fn pairs(input: &CompactionInput) -> Result<&[Pair], Violation> {
    match &input.doc.pairing {
        Ok(pairs) => Ok(pairs),
        Err(v) => Err(*v),
    }
}

/// What S14.3 finds in a transcript: its pairs, or its first violation.
pub(crate) type Pairs = Result<Vec<Pair>, Violation>;

/// A top-level block that takes part in pairing: `(index, is a call, id)`.
type ToolBlock = (usize, bool, Text);

/// The pairing walk as a transcript visitor, run by the walk that parses an input. A message's own
/// `tool_use_id` may come after its blocks in the input, and S14.3 reads it first, so the
/// message's top-level call and result blocks wait in `tools` until the message is complete.
pub(crate) struct Pairing<'s> {
    src: &'s [u8],
    walk: Walk<'s>,
    tools: Vec<ToolBlock>,
}

impl<'s> Pairing<'s> {
    pub(crate) fn new(src: &'s [u8]) -> Pairing<'s> {
        let walk = Walk { first: None, seen_calls: HashSet::new(), open: HashMap::new(), pairs: Vec::new() };
        Pairing { src, walk, tools: Vec::new() }
    }

    /// The pairs, or the first violation, once the whole transcript has been walked.
    pub(crate) fn finish(mut self) -> Pairs {
        self.walk.close();
        match self.walk.first {
            Some(v) => Err(v),
            None => {
                self.walk.pairs.shrink_to_fit();
                Ok(self.walk.pairs)
            }
        }
    }

    fn id(&self, t: Text) -> Cow<'s, [u8]> {
        t.token(self.src).decode_bytes().unwrap_or(Cow::Borrowed(t.of(self.src)))
    }
}

impl Visit for Pairing<'_> {
    fn block(&mut self, j: usize, depth: usize, block: &Block) {
        match block {
            _ if depth > 0 => {}
            Block::ToolUse { id, .. } => self.tools.push((j, true, *id)),
            Block::ToolResult { tool_use_id, .. } => self.tools.push((j, false, *tool_use_id)),
            _ => {}
        }
    }

    fn message(&mut self, i: usize, role: &Role) {
        if matches!(role, Role::Assistant { .. }) {
            self.walk.close();
        }
        // A `tool` message is one result for its own id; a top-level `tool_result` block in it for
        // that same id is that result written the other way, not a second one (S14.2).
        let own_id = match role {
            Role::Tool { tool_use_id, .. } => {
                self.walk.answer(self.id(*tool_use_id), i, None, tool_use_id.span().start);
                Some(self.id(*tool_use_id))
            }
            _ => None,
        };
        let tools = core::mem::take(&mut self.tools);
        for &(j, call, text) in &tools {
            let offset = text.span().start;
            match (call, role) {
                (true, Role::Assistant { .. }) => {
                    let key = self.id(text);
                    if self.walk.seen_calls.insert(key.clone()) {
                        self.walk.open.insert(key, (i, j, offset, false));
                    } else {
                        self.walk.note(Violation {
                            status: Status::PairingDuplicateId,
                            message: i,
                            block: Some(j),
                            offset,
                        });
                    }
                }
                // A call outside an assistant message has no result to wait for: S14.2 counts
                // the calls of assistant messages only.
                (true, _) => {}
                (false, Role::User | Role::Tool { .. }) => {
                    let result = self.id(text);
                    if own_id.as_ref() != Some(&result) {
                        self.walk.answer(result, i, Some(j), offset);
                    }
                }
                (false, _) => self.walk.note(Violation {
                    status: Status::PairingOrphanResult,
                    message: i,
                    block: Some(j),
                    offset,
                }),
            }
        }
        // The buffer is reused for the next message.
        self.tools = tools;
        self.tools.clear();
    }
}

/// S14.4: whether each cut `c` in `0..=n` separates no pair: `safe[c]`.
fn safe_cuts(n: usize, pairs: &[Pair]) -> Vec<bool> {
    // A pair (a, b) with a < b makes every cut in (a, b] unsafe: a difference array over cuts.
    let mut delta = vec![0i64; n + 2];
    for &(a, b) in pairs {
        if a < b {
            if let Some(d) = delta.get_mut(a + 1) {
                *d += 1;
            }
            if let Some(d) = delta.get_mut(b + 1) {
                *d -= 1;
            }
        }
    }
    let mut open = 0i64;
    delta
        .iter()
        .take(n + 1)
        .map(|d| {
            open += d;
            open == 0
        })
        .collect()
}

impl CompactionInput {
    /// S14.3: every `tool_use` block of an assistant message is answered by exactly one result
    /// with its id (a `tool` message's `tool_use_id`, or a top-level `tool_result` block of a
    /// `user` or `tool` message) after it and before the next assistant message; every result
    /// answers a call of the latest assistant message before it; no `tool_use` id appears twice.
    ///
    /// # Errors
    /// The first violation in transcript order: `PairingUnansweredCall`, `PairingOrphanResult`,
    /// `PairingDuplicateId` or `PairingDuplicateResult`, with the offset of the id.
    pub fn pairing_check(&self) -> crate::Result<()> {
        pairs(self).map(|_| ()).map_err(|v| crate::Error::at(v.status, v.offset))
    }

    /// [`CompactionInput::pairing_check`] with its diagnosis (`transcript[i].blocks[j]`).
    #[must_use]
    pub fn pairing_diagnose(&self) -> Diagnostic {
        match pairs(self) {
            Ok(_) => Diagnostic::ok(),
            Err(v) => v.diagnostic(&self.src),
        }
    }

    /// S14.4: the largest cut `c <= n - keep_last` (n messages) such that messages `[0, c)` can be
    /// summarised and `[c, n)` kept with no call/result pair split across `c`; 0 when there is none
    /// (nothing can be summarised), which the caller must handle.
    ///
    /// # Errors
    /// The pairing check's status when the transcript fails it.
    pub fn safe_cut(&self, keep_last: u64) -> crate::Result<usize> {
        let pairs = pairs(self).map_err(|v| crate::Error::at(v.status, v.offset))?;
        let n = self.doc.transcript.messages;
        let limit = usize::try_from(keep_last).map_or(0, |k| n.saturating_sub(k));
        let safe = safe_cuts(n, pairs);
        // Only cuts on the source's boundaries, for an input made from a conversion (SPEC §16).
        Ok((0..=limit).rev().find(|&c| safe.get(c).copied().unwrap_or(false) && self.cut_allowed(c)).unwrap_or(0))
    }

    /// S14.4: whether the cut `cut` (keep messages `[cut, n)`) splits no call/result pair.
    ///
    /// # Errors
    /// `InvalidArgument` for a cut above the message count; the pairing check's status when the
    /// transcript fails it; `CutUnsafe` when the cut splits a pair.
    pub fn cut_check(&self, cut: u64) -> crate::Result<()> {
        let n = self.doc.transcript.messages;
        let cut = usize::try_from(cut).ok().filter(|&c| c <= n).ok_or(Status::InvalidArgument)?;
        let pairs = pairs(self).map_err(|v| crate::Error::at(v.status, v.offset))?;
        if pairs.iter().any(|&(a, b)| a < cut && cut <= b) || !self.cut_allowed(cut) {
            return Err(Status::CutUnsafe.into());
        }
        Ok(())
    }
}
