//! Transcript safety that never blocks compaction (SPEC §16.9, G16.13–G16.16): a pending tail,
//! every pairing violation, a repair plan the host applies itself, and cuts within a converter's
//! boundaries.
//!
//! §14's checks stop at the first violation, and a cut is only defined on a well-paired
//! transcript. An agent waiting for a tool's result, or a transcript that lost one result, would
//! then never be compacted. Here the transcript is walked once more, listing everything
//! ([`Pairing::listing`]); nothing is ever changed behind the host's back: the plan is data, and
//! the repaired transcript is written only on request.

use std::borrow::Cow;

use super::CompactionInput;
use super::encode::Canonical;
use super::pairing::{self, Listing, Pair, Pairing};
use super::transcript::{self, Block, Role, RoleName, StringSpan, Visit};
use crate::error::{Error, Result};
use crate::json::write::{Sink, put_str, put_u64};
use crate::status::Status;

/// G16.15: the text of the synthetic result added for a call whose result was lost.
pub const REPAIR_RESULT_TEXT: &str = "[no result was recorded for this tool call]";

/// One S14.3 violation (G16.14): its status (`PairingUnansweredCall`, `PairingOrphanResult`,
/// `PairingDuplicateId` or `PairingDuplicateResult`), where it is, and the offset of the id's
/// string body in the input document. Never the id itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairingViolation {
    /// Which rule.
    pub status: Status,
    /// The message (index in the transcript).
    pub message: usize,
    /// The top-level block, or `None` for a `tool` message's own `tool_use_id`.
    pub block: Option<usize>,
    /// Offset of the id's string body in the input document.
    pub offset: usize,
}

/// How a cut is chosen or checked beyond S14.4 (G16.13, G16.16).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CutOptions<'a> {
    /// Take a pending tail (the unanswered calls of the last assistant message) as kept, instead of
    /// refusing the transcript (`LC_CUT_PENDING_TAIL`).
    pub pending_tail: bool,
    /// The cuts allowed besides the input's own: `allowed[c]` for `c` in `0..=n` (a converter's
    /// `cut_allowed`); `None` allows every cut.
    pub allowed: Option<&'a [bool]>,
}

/// One edit of a repair plan (G16.15), in the original transcript's indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// Drop an orphan result or a second result: the top-level block `block` of message `message`,
    /// or with `block` `None` the `tool` message itself. A message other than a `tool` message
    /// left with no block is dropped with it.
    DropResult {
        /// The message.
        message: usize,
        /// The block, or `None` for the `tool` message's own result.
        block: Option<usize>,
    },
    /// Insert before message `before` (the message count: at the end) a `tool` message answering
    /// the call at block `call_block` of message `call_message`, whose id is `tool_use_id`, with
    /// `is_error` true and [`REPAIR_RESULT_TEXT`] as its text.
    AddResult {
        /// Where the result goes: before this message.
        before: usize,
        /// The call's message.
        call_message: usize,
        /// The call's block.
        call_block: usize,
        /// The call's id (decoded).
        tool_use_id: String,
    },
}

/// An edit with what the writer needs: the id as it lies in the document.
#[derive(Debug, Clone, Copy)]
enum Edit {
    Drop { message: usize, block: Option<usize> },
    Add { before: usize, call_message: usize, call_block: usize, id: StringSpan },
}

impl Edit {
    /// Transcript order: by place, an insertion before the message it precedes, then by call or
    /// block.
    fn key(&self) -> (usize, u8, usize, usize) {
        match *self {
            Edit::Add { before, call_message, call_block, .. } => (before, 0, call_message, call_block),
            Edit::Drop { message, block } => (message, 1, block.map_or(0, |b| b + 1), 0),
        }
    }
}

impl CompactionInput {
    /// The listing walk over the parsed transcript (G16.14).
    fn listing(&self) -> Listing {
        let mut walk = Pairing::listing(&self.src);
        transcript::walk(&self.src, &self.doc.transcript, &mut walk);
        walk.finish_listing()
    }

    /// G16.14: every S14.3 violation in transcript order, one per position; empty for a
    /// well-paired transcript. The first is the one [`CompactionInput::pairing_check`] reports.
    #[must_use]
    pub fn pairing_violations(&self) -> Vec<PairingViolation> {
        if pairing::pairs(self).is_ok() {
            return Vec::new();
        }
        self.listing()
            .violations
            .iter()
            .map(|v| PairingViolation { status: v.status, message: v.message, block: v.block, offset: v.offset })
            .collect()
    }

    /// G16.13: the index of the last assistant message when the transcript has a pending tail
    /// (every S14.3 violation is an unanswered call of that message); `None` otherwise, a
    /// well-paired transcript included.
    #[must_use]
    pub fn pending_tail(&self) -> Option<usize> {
        if pairing::pairs(self).is_ok() {
            return None;
        }
        let list = self.listing();
        pending_of(&list)
    }

    /// The pairs a cut must not split and the largest cut allowed by the transcript, under
    /// `options` (G16.13): S14.3's pairs, or a pending tail's.
    fn cut_basis(&self, pending_tail: bool) -> Result<(Cow<'_, [Pair]>, usize)> {
        let n = self.doc.transcript.messages;
        match pairing::pairs(self) {
            Ok(pairs) => Ok((Cow::Borrowed(pairs), n)),
            Err(v) => {
                let first = Error::at(v.status, v.offset);
                if !pending_tail {
                    return Err(first);
                }
                let list = self.listing();
                let p = pending_of(&list).ok_or(first)?;
                Ok((Cow::Owned(list.pairs), p))
            }
        }
    }

    /// `allowed` has one entry per cut (G16.16).
    fn check_allowed(&self, allowed: Option<&[bool]>) -> Result<()> {
        match allowed {
            Some(a) if a.len() != self.doc.transcript.messages + 1 => Err(Status::InvalidArgument.into()),
            _ => Ok(()),
        }
    }

    /// Whether cut `c` is allowed by the input and by `allowed`.
    fn allows(&self, c: usize, allowed: Option<&[bool]>) -> bool {
        self.cut_allowed(c) && allowed.is_none_or(|a| a.get(c).copied().unwrap_or(false))
    }

    /// S14.4 with G16.13 and G16.16: the largest cut `c <= n - keep_last` that splits no pair and
    /// is allowed; with a pending tail (and `options.pending_tail`), also `c <= p`, `p` the last
    /// assistant message. 0 when there is none.
    ///
    /// # Errors
    /// `InvalidArgument` for an `allowed` list of the wrong length; the pairing check's status
    /// when the transcript fails it (and has no pending tail, or `options.pending_tail` is off).
    pub fn safe_cut_with(&self, keep_last: u64, options: CutOptions<'_>) -> Result<usize> {
        self.check_allowed(options.allowed)?;
        let n = self.doc.transcript.messages;
        let (pairs, limit) = self.cut_basis(options.pending_tail)?;
        let limit = usize::try_from(keep_last).map_or(0, |k| n.saturating_sub(k)).min(limit);
        let safe = pairing::safe_cuts(n, &pairs);
        Ok((0..=limit)
            .rev()
            .find(|&c| safe.get(c).copied().unwrap_or(false) && self.allows(c, options.allowed))
            .unwrap_or(0))
    }

    /// S14.4 with G16.13 and G16.16: whether cut `cut` splits no pair and is allowed (with a
    /// pending tail: and is at most the last assistant message).
    ///
    /// # Errors
    /// `InvalidArgument` for a cut above the message count or an `allowed` list of the wrong
    /// length (checked first); the pairing check's status as in
    /// [`CompactionInput::safe_cut_with`]; `CutUnsafe`.
    pub fn cut_check_with(&self, cut: u64, options: CutOptions<'_>) -> Result<()> {
        let n = self.doc.transcript.messages;
        let cut = usize::try_from(cut).ok().filter(|&c| c <= n).ok_or(Status::InvalidArgument)?;
        self.check_allowed(options.allowed)?;
        let (pairs, limit) = self.cut_basis(options.pending_tail)?;
        if cut > limit || pairs.iter().any(|&(a, b)| a < cut && cut <= b) || !self.allows(cut, options.allowed) {
            return Err(Status::CutUnsafe.into());
        }
        Ok(())
    }

    /// The plan's edits in transcript order, with the ids as they lie in the document.
    fn edits(&self, pending_tail: bool) -> Result<Vec<Edit>> {
        if pairing::pairs(self).is_ok() {
            return Ok(Vec::new());
        }
        let list = self.listing();
        if let Some(v) = list.violations.iter().find(|v| v.status == Status::PairingDuplicateId) {
            return Err(Error::at(v.status, v.offset));
        }
        let n = list.roles.len();
        let last_assistant = list.roles.iter().rposition(|r| *r == RoleName::Assistant);
        let mut edits: Vec<Edit> = list
            .violations
            .iter()
            .filter(|v| matches!(v.status, Status::PairingOrphanResult | Status::PairingDuplicateResult))
            .map(|v| Edit::Drop { message: v.message, block: v.block })
            .collect();
        // Tool messages dropped whole: the calls their result blocks answered lose their result.
        let mut whole: Vec<usize> = edits
            .iter()
            .filter_map(|e| match *e {
                Edit::Drop { message, block: None } => Some(message),
                _ => None,
            })
            .collect();
        whole.sort_unstable();
        // A pending tail keeps the last assistant message's unanswered calls as they are; a call
        // answered inside a dropped message had a result, so it is not pending.
        let unanswered = list
            .unanswered
            .iter()
            .filter(|u| !(pending_tail && Some(u.message) == last_assistant))
            .map(|u| (u.message, u.block, u.id));
        let lost = unanswered.chain(
            list.answers
                .iter()
                .filter(|a| a.result_block.is_some() && whole.binary_search(&a.result_message).is_ok())
                .map(|a| (a.call_message, a.call_block, a.call_id)),
        );
        for (call_message, call_block, id) in lost {
            // After the call's message and the tool messages that follow it.
            let before = (call_message + 1..n).find(|&j| list.roles.get(j) != Some(&RoleName::Tool)).unwrap_or(n);
            edits.push(Edit::Add { before, call_message, call_block, id });
        }
        edits.sort_unstable_by_key(Edit::key);
        Ok(edits)
    }

    /// G16.15: the edits that make the transcript pass S14.3 (with `pending_tail`: all but a
    /// pending tail), in transcript order; empty for a well-paired transcript. Nothing is applied.
    ///
    /// # Errors
    /// `PairingDuplicateId` (at the repeated call) when a call id repeats: that cannot be repaired
    /// without changing an assistant message.
    pub fn repair_plan(&self, pending_tail: bool) -> Result<Vec<Repair>> {
        let edits = self.edits(pending_tail)?;
        Ok(edits
            .into_iter()
            .map(|e| match e {
                Edit::Drop { message, block } => Repair::DropResult { message, block },
                Edit::Add { before, call_message, call_block, id } => {
                    Repair::AddResult { before, call_message, call_block, tool_use_id: id.chars(&self.src).collect() }
                }
            })
            .collect())
    }

    /// G16.15: the repair plan as JSON (an array of objects, see SPEC G16.15), the form the C ABI
    /// gives hosts.
    ///
    /// # Errors
    /// As [`CompactionInput::repair_plan`].
    pub fn repair_plan_json(&self, pending_tail: bool) -> Result<Vec<u8>> {
        let edits = self.edits(pending_tail)?;
        let canonical = Canonical { src: &self.src };
        let mut out = Vec::with_capacity(64 * edits.len() + 2);
        out.put(b"[");
        for (k, e) in edits.iter().enumerate() {
            if k > 0 {
                out.put(b",");
            }
            match *e {
                Edit::Drop { message, block } => {
                    out.put(b"{\"action\":\"drop_result\",\"message\":");
                    put_u64(&mut out, message as u64);
                    out.put(b",\"block\":");
                    match block {
                        Some(b) => put_u64(&mut out, b as u64),
                        None => out.put(b"null"),
                    }
                }
                Edit::Add { before, call_message, call_block, id } => {
                    out.put(b"{\"action\":\"add_result\",\"before\":");
                    put_u64(&mut out, before as u64);
                    out.put(b",\"call_message\":");
                    put_u64(&mut out, call_message as u64);
                    out.put(b",\"call_block\":");
                    put_u64(&mut out, call_block as u64);
                    out.put(b",\"tool_use_id\":");
                    canonical.text(&mut out, id);
                    out.put(b",\"text\":");
                    put_str(&mut out, REPAIR_RESULT_TEXT);
                }
            }
            out.put(b"}");
        }
        out.put(b"]");
        Ok(out)
    }

    /// G16.15: the transcript with the repair plan applied (a JSON array of messages, canonical
    /// bytes): it passes S14.3, or with `pending_tail` has at most a pending tail.
    ///
    /// # Errors
    /// As [`CompactionInput::repair_plan`].
    pub fn repaired_transcript(&self, pending_tail: bool) -> Result<Vec<u8>> {
        let edits = self.edits(pending_tail)?;
        let mut out = Vec::with_capacity(self.src.len() + 128 * edits.len());
        out.put(b"[");
        let mut writer = Repairer {
            canonical: Canonical { src: &self.src },
            edits: &edits,
            next: 0,
            drop: 0,
            written: 0,
            out: &mut out,
            message: Vec::new(),
            skipping: false,
            buffered: false,
            kept: 0,
            muted: None,
            current: 0,
        };
        transcript::walk(&self.src, &self.doc.transcript, &mut writer);
        writer.adds_before(usize::MAX);
        out.put(b"]");
        Ok(out)
    }
}

/// G16.13 on a listing: the last assistant message, when every violation is an unanswered call
/// of it.
fn pending_of(list: &Listing) -> Option<usize> {
    let p = list.roles.iter().rposition(|r| *r == RoleName::Assistant)?;
    let pending = |v: &pairing::Violation| v.status == Status::PairingUnansweredCall && v.message == p;
    (!list.violations.is_empty() && list.violations.iter().all(pending)).then_some(p)
}

/// The repaired transcript as a walk over the original (G16.15): every kept message and block in
/// canonical bytes, dropped results left out, synthetic results inserted. A message that loses
/// blocks is written to a buffer first, because a message other than a `tool` message left with
/// no block is dropped.
struct Repairer<'e, 'a> {
    canonical: Canonical<'a>,
    edits: &'e [Edit],
    /// The next edit not yet reached.
    next: usize,
    /// Within the drops of the message being read (from `next`): the first whose block is not
    /// before the block being read, so that a message with many drops is read in one pass.
    drop: usize,
    /// Messages written so far.
    written: usize,
    out: &'e mut Vec<u8>,
    /// The message being written, when it loses blocks.
    message: Vec<u8>,
    /// The message is dropped whole.
    skipping: bool,
    /// The message goes through `message`.
    buffered: bool,
    /// Top-level blocks written in the message.
    kept: usize,
    /// The dropped top-level block being read.
    muted: Option<usize>,
    /// The message being read.
    current: usize,
}

impl Repairer<'_, '_> {
    fn separator(&mut self) {
        if self.written > 0 {
            self.out.put(b",");
        }
    }

    /// Writes the synthetic results that go before message `i`.
    fn adds_before(&mut self, i: usize) {
        while let Some(&Edit::Add { before, id, .. }) = self.edits.get(self.next) {
            if before > i {
                break;
            }
            self.separator();
            Canonical::message_start(self.out, RoleName::Tool);
            self.out.put(b"{\"type\":\"text\",\"text\":");
            put_str(self.out, REPAIR_RESULT_TEXT);
            self.out.put(b"}],\"tool_use_id\":");
            self.canonical.text(self.out, id);
            self.out.put(b",\"is_error\":true}");
            self.written += 1;
            self.next += 1;
        }
    }

    /// Whether block `j` of message `i` is dropped (`None`: the message). The drops of `i` start
    /// at `next`, sorted by block, and the blocks are asked about in order: the cursor `drop`
    /// only moves forward.
    fn dropped(&mut self, i: usize, j: Option<usize>) -> bool {
        while let Some(&Edit::Drop { message, block }) = self.edits.get(self.drop) {
            if message != i || block >= j {
                break;
            }
            self.drop += 1;
        }
        matches!(self.edits.get(self.drop), Some(&Edit::Drop { message, block }) if message == i && block == j)
    }

    fn sink(&mut self) -> &mut Vec<u8> {
        if self.buffered { &mut self.message } else { self.out }
    }
}

impl Visit for Repairer<'_, '_> {
    fn blocks_start(&mut self, i: usize, role: Option<RoleName>) {
        // A replay knows every role (transcript::Late); `User` only keeps the type total.
        let role = role.unwrap_or(RoleName::User);
        self.adds_before(i);
        self.kept = 0;
        self.muted = None;
        self.current = i;
        self.drop = self.next;
        self.skipping = self.dropped(i, None);
        self.buffered =
            !self.skipping && matches!(self.edits.get(self.next), Some(Edit::Drop { message, .. }) if *message == i);
        if self.skipping {
            return;
        }
        if self.buffered {
            self.message.clear();
        } else {
            self.separator();
        }
        Canonical::message_start(self.sink(), role);
    }

    fn content_start(&mut self, j: usize, depth: usize, tool_use_id: StringSpan) {
        if self.skipping || self.muted.is_some() {
            return;
        }
        if depth == 0 && self.buffered && self.dropped(self.current, Some(j)) {
            self.muted = Some(j);
            return;
        }
        let comma = if depth == 0 { self.kept > 0 } else { j > 0 };
        if comma {
            self.sink().put(b",");
        }
        let canonical = self.canonical;
        canonical.tool_result_start(self.sink(), tool_use_id);
    }

    fn block(&mut self, j: usize, depth: usize, block: &Block) {
        if self.skipping {
            return;
        }
        if let Some(m) = self.muted {
            if depth == 0 && m == j {
                self.muted = None;
            }
            return;
        }
        if depth == 0
            && self.buffered
            && !matches!(block, Block::ToolResult { .. })
            && self.dropped(self.current, Some(j))
        {
            return;
        }
        if !matches!(block, Block::ToolResult { .. }) {
            let comma = if depth == 0 { self.kept > 0 } else { j > 0 };
            if comma {
                self.sink().put(b",");
            }
        }
        let canonical = self.canonical;
        canonical.block(self.sink(), block);
        if depth == 0 {
            self.kept += 1;
        }
    }

    fn message(&mut self, i: usize, role: &Role) {
        if !self.skipping {
            let canonical = self.canonical;
            canonical.message_end(self.sink(), role);
            if !self.buffered {
                self.written += 1;
            } else if self.kept > 0 || role.name() == RoleName::Tool {
                self.separator();
                self.out.extend_from_slice(&self.message);
                self.written += 1;
            }
        }
        // Past this message's drops.
        while matches!(self.edits.get(self.next), Some(Edit::Drop { message, .. }) if *message == i) {
            self.next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    //! Against the plain reading of S14.3 in `pairing::tests` (the reference): the listing, the
    //! cuts with and without a pending tail, and the repair, whose result the reference checks.

    use proptest::prelude::*;

    use super::super::pairing::tests::{Found, Kind, Message, message, pos, reference, reference_all, turns, wire};
    use super::*;

    fn input(messages: &[Message]) -> (Vec<u8>, CompactionInput) {
        let src = wire(messages);
        let input = CompactionInput::parse(&src).expect("a valid input");
        (src, input)
    }

    /// An input document around a transcript (a JSON array).
    fn document(transcript: &[u8]) -> Vec<u8> {
        let mut doc = br#"{"version":1,"basis":{"revision":1,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"model":{"provider":"p","model":"m"},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":"#.to_vec();
        doc.extend_from_slice(transcript);
        doc.extend_from_slice(br#","max_summary_tokens":64}"#);
        doc
    }

    fn found(v: &PairingViolation) -> Found {
        (v.status, v.message, v.block)
    }

    fn check(messages: &[Message]) -> core::result::Result<(), TestCaseError> {
        let (src, input) = input(messages);
        let shown = String::from_utf8_lossy(&src).into_owned();
        let listed: Vec<Found> = input.pairing_violations().iter().map(found).collect();
        let (_, all) = reference_all(messages);
        // G16.14: none exactly when S14.3 passes; the first is S14.3's; in order, one per place.
        match reference(messages) {
            Ok(_) => prop_assert!(listed.is_empty(), "{}", shown),
            Err(first) => prop_assert_eq!(listed.first(), Some(&first), "{}", shown),
        }
        prop_assert!(listed.windows(2).all(|w| pos(&w[0]) < pos(&w[1])), "{}", shown);
        // Without repeated ids the reference's reading is the same: every violation it notes.
        if !all.iter().chain(&listed).any(|v| v.0 == Status::PairingDuplicateId) {
            let mut want = all.clone();
            want.sort_by_key(pos);
            prop_assert_eq!(&listed, &want, "{}", shown);
        }

        // §14's functions are the ones without options.
        let n = messages.len();
        for keep in 0..=n as u64 + 1 {
            prop_assert_eq!(input.safe_cut_with(keep, CutOptions::default()), input.safe_cut(keep));
        }
        for cut in 0..=n as u64 + 1 {
            prop_assert_eq!(input.cut_check_with(cut, CutOptions::default()), input.cut_check(cut));
        }

        // G16.13: with a pending tail, the cut keeps the pending turn, the head pairs on its own and
        // the kept tail has only the pending calls.
        let pending = CutOptions { pending_tail: true, allowed: None };
        match input.pending_tail() {
            None => {
                for keep in 0..=n as u64 {
                    prop_assert_eq!(input.safe_cut_with(keep, pending), input.safe_cut(keep));
                }
            }
            Some(p) => {
                prop_assert_eq!(messages[p].kind, Kind::Assistant);
                prop_assert!(messages[p + 1..].iter().all(|m| m.kind != Kind::Assistant));
                prop_assert!(all.iter().all(|v| v.0 == Status::PairingUnansweredCall && v.1 == p), "{}", shown);
                for keep in 0..=n as u64 {
                    let c = input.safe_cut_with(keep, pending).expect("a pending tail has cuts");
                    prop_assert!(c <= p && c as u64 <= (n as u64).saturating_sub(keep));
                    prop_assert!(reference(&messages[..c]).is_ok(), "head of {c}: {}", shown);
                    prop_assert!(input.cut_check_with(c as u64, pending).is_ok());
                }
                for cut in 0..=n {
                    let ok = input.cut_check_with(cut as u64, pending).is_ok();
                    let head_pairs = cut <= p && reference(&messages[..cut]).is_ok();
                    // A cut at or before p whose head pairs alone splits no pair (the tail's
                    // results answer the tail's calls, or the pending ones).
                    prop_assert_eq!(ok, head_pairs, "cut {}: {}", cut, shown);
                }
            }
        }

        // G16.15: the plan, applied, passes S14.3 (or leaves only a pending tail).
        let duplicate = listed.iter().any(|v| v.0 == Status::PairingDuplicateId);
        for pending_tail in [false, true] {
            let plan = input.repair_plan(pending_tail);
            let repaired = input.repaired_transcript(pending_tail);
            if duplicate {
                prop_assert_eq!(plan.map(|_| ()).map_err(|e| e.status()), Err(Status::PairingDuplicateId));
                prop_assert!(repaired.is_err());
                continue;
            }
            let plan = plan.expect("a plan");
            let nothing_to_do = listed.is_empty() || (pending_tail && input.pending_tail().is_some());
            prop_assert_eq!(plan.is_empty(), nothing_to_do);
            let repaired = repaired.expect("a repaired transcript");
            if repaired == b"[]" {
                // Every message was an orphan result: nothing is left (T5.1 accepts no input
                // without a message, W5.2).
                prop_assert!(listed.iter().all(|v| v.0 != Status::PairingUnansweredCall));
                continue;
            }
            let again = CompactionInput::parse(&document(&repaired)).expect("the repaired transcript is a transcript");
            let left = again.pairing_check();
            if pending_tail && left.is_err() {
                prop_assert!(again.pending_tail().is_some(), "{} -> {}", shown, String::from_utf8_lossy(&repaired));
            } else {
                prop_assert!(left.is_ok(), "{:?}: {} -> {}", left, shown, String::from_utf8_lossy(&repaired));
            }
            // Nothing but the plan changed: as many messages as kept, dropped and added say, at most.
            let adds = plan.iter().filter(|r| matches!(r, Repair::AddResult { .. })).count();
            prop_assert!(again.message_count() <= n + adds);
            // G16.15: the flag spares only the calls of the last assistant message that no
            // result answered, listed as 500 (a call answered inside a dropped message had one).
            if pending_tail {
                let last = messages.iter().rposition(|m| m.kind == Kind::Assistant);
                let pending =
                    listed.iter().filter(|v| v.0 == Status::PairingUnansweredCall && Some(v.1) == last).count();
                let without = input.repair_plan(false).expect("a plan");
                let adds_without = without.iter().filter(|r| matches!(r, Repair::AddResult { .. })).count();
                prop_assert_eq!(adds + pending, adds_without, "{}", shown);
            }
            // The JSON form lists the same edits.
            let json: serde_json::Value =
                serde_json::from_slice(&input.repair_plan_json(pending_tail).expect("a plan"))
                    .expect("the plan is JSON");
            prop_assert_eq!(json.as_array().map(Vec::len), Some(plan.len()));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn never_blocking_safety_on_turns(messages in turns()) {
            check(&messages)?;
        }

        #[test]
        fn never_blocking_safety(messages in prop::collection::vec(message(), 1..9)) {
            check(&messages)?;
        }
    }

    const CALL: &str = r#"{"role":"assistant","blocks":[{"type":"tool_use","id":"a","name":"n","input":{}},{"type":"tool_use","id":"b","name":"n","input":{}}],"usage":null}"#;

    fn tool(id: &str) -> String {
        format!(r#"{{"role":"tool","blocks":[{{"type":"text","text":"r"}}],"tool_use_id":"{id}","is_error":false}}"#)
    }

    fn parse(messages: &[&str]) -> CompactionInput {
        let transcript = format!("[{}]", messages.join(","));
        CompactionInput::parse(&document(transcript.as_bytes())).expect("a valid input")
    }

    /// The pending tail of issue 27: the agent waits for `b`; the cut keeps its turn.
    #[test]
    fn a_pending_tail_is_kept_not_refused() {
        let user = r#"{"role":"user","blocks":[{"type":"text","text":"go"}]}"#;
        let tool_a = tool("a");
        let (tool_b, later) = (tool("b"), CALL.replace("\"a\"", "\"c\"").replace("\"b\"", "\"d\""));
        let input = parse(&[user, CALL, &tool_a, &tool_b, user, &later, &tool("c")]);
        assert_eq!(input.safe_cut(0).map_err(|e| e.status()), Err(Status::PairingUnansweredCall));
        assert_eq!(input.pending_tail(), Some(5));
        let pending = CutOptions { pending_tail: true, allowed: None };
        assert_eq!(input.safe_cut_with(0, pending), Ok(5));
        assert_eq!(input.safe_cut_with(4, pending), Ok(1));
        assert_eq!(input.cut_check_with(6, pending).map_err(|e| e.status()), Err(Status::CutUnsafe));
        assert_eq!(input.cut_check_with(2, pending).map_err(|e| e.status()), Err(Status::CutUnsafe));
        // G16.16: only the allowed cuts.
        let allowed = [true, true, true, false, true, false, false, true];
        let both = CutOptions { pending_tail: true, allowed: Some(&allowed) };
        assert_eq!(input.safe_cut_with(0, both), Ok(4));
        assert_eq!(input.cut_check_with(5, both).map_err(|e| e.status()), Err(Status::CutUnsafe));
        let short = CutOptions { pending_tail: true, allowed: Some(&allowed[..7]) };
        assert_eq!(input.safe_cut_with(0, short).map_err(|e| e.status()), Err(Status::InvalidArgument));
        // The unanswered `d`: listed, and without the flag given a synthetic result at the end.
        let violations = input.pairing_violations();
        assert_eq!(violations.len(), 1);
        assert_eq!(
            (violations[0].status, violations[0].message, violations[0].block),
            (Status::PairingUnansweredCall, 5, Some(1))
        );
        assert_eq!(input.repair_plan(true), Ok(Vec::new()));
        assert_eq!(
            input.repair_plan(false),
            Ok(vec![Repair::AddResult { before: 7, call_message: 5, call_block: 1, tool_use_id: "d".to_owned() }])
        );
    }

    /// A lost result and an orphan: the plan as SPEC G16.15 writes it, and the transcript it gives.
    #[test]
    fn the_plan_and_the_repaired_transcript() {
        let user = r#"{"role":"user","blocks":[{"type":"text","text":"go"}]}"#;
        let orphan_block =
            r#"{"role":"user","blocks":[{"type":"tool_result","tool_use_id":"zz","content":[],"is_error":false}]}"#;
        let input = parse(&[user, CALL, &tool("a"), user, orphan_block, &tool("q")]);
        let plan = input.repair_plan_json(false).expect("a plan");
        assert_eq!(
            String::from_utf8(plan).expect("UTF-8"),
            r#"[{"action":"add_result","before":3,"call_message":1,"call_block":1,"tool_use_id":"b","text":"[no result was recorded for this tool call]"},{"action":"drop_result","message":4,"block":0},{"action":"drop_result","message":5,"block":null}]"#
        );
        let repaired = String::from_utf8(input.repaired_transcript(false).expect("repaired")).expect("UTF-8");
        let want = format!(
            r#"[{user},{CALL},{},{{"role":"tool","blocks":[{{"type":"text","text":"[no result was recorded for this tool call]"}}],"tool_use_id":"b","is_error":true}},{user}]"#,
            tool("a")
        );
        assert_eq!(repaired, want);
    }

    /// G16.15: a pending tail spares the calls no result answered, not a call whose result lay in
    /// a dropped message (the helper's review: `a` looked pending after the repair).
    #[test]
    fn a_result_in_a_dropped_message_is_not_a_pending_call() {
        let user = r#"{"role":"user","blocks":[{"type":"text","text":"go"}]}"#;
        let call_a =
            r#"{"role":"assistant","blocks":[{"type":"tool_use","id":"a","name":"n","input":{}}],"usage":null}"#;
        // A tool message for `x` (an orphan, dropped whole) whose block answers `a`.
        let holder = r#"{"role":"tool","blocks":[{"type":"tool_result","tool_use_id":"a","content":[],"is_error":false}],"tool_use_id":"x","is_error":false}"#;
        let input = parse(&[user, call_a, holder]);
        let add = Repair::AddResult { before: 3, call_message: 1, call_block: 0, tool_use_id: "a".to_owned() };
        let want = vec![Repair::DropResult { message: 2, block: None }, add];
        assert_eq!(input.repair_plan(false), Ok(want.clone()));
        assert_eq!(input.repair_plan(true), Ok(want));
        let repaired = CompactionInput::parse(&document(&input.repaired_transcript(true).expect("repaired")))
            .expect("a transcript");
        assert_eq!(repaired.pairing_check(), Ok(()));
    }

    /// Many results dropped from one message: one pass over the message (80,000 took 15 s when
    /// each block looked through the message's drops again).
    #[test]
    fn many_drops_in_one_message() {
        let k = 20_000;
        let orphans: Vec<String> = (0..k)
            .map(|i| format!(r#"{{"type":"tool_result","tool_use_id":"o{i}","content":[],"is_error":false}}"#))
            .collect();
        let user = format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"t"}},{}]}}"#, orphans.join(","));
        let reply = r#"{"role":"assistant","blocks":[{"type":"text","text":"ok"}],"usage":null}"#;
        let input = parse(&[&user, reply]);
        let plan = input.repair_plan(false).expect("a plan");
        assert_eq!(plan.len(), k);
        assert!(plan.iter().enumerate().all(|(j, r)| *r == Repair::DropResult { message: 0, block: Some(j + 1) }));
        let repaired = String::from_utf8(input.repaired_transcript(false).expect("repaired")).expect("UTF-8");
        assert_eq!(repaired, format!(r#"[{{"role":"user","blocks":[{{"type":"text","text":"t"}}]}},{reply}]"#));
    }

    /// A repeated id cannot be repaired: an assistant message would have to change.
    #[test]
    fn a_repeated_id_has_no_plan() {
        let input = parse(&[CALL, &tool("a"), &tool("b"), CALL]);
        assert_eq!(input.repair_plan(false).map_err(|e| e.status()), Err(Status::PairingDuplicateId));
        assert_eq!(input.pairing_violations().iter().filter(|v| v.status == Status::PairingDuplicateId).count(), 2);
    }
}
