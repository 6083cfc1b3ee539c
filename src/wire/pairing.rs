//! Tool-call pairing and safe cut points (SPEC §14, S14.1–S14.4): whether every tool call of the
//! transcript has exactly one result where providers require it, and where the transcript can be
//! cut into a summarised head and a kept tail without separating a call from its result.
//!
//! One pass over the messages, run by the walk that parses the input. Ids are compared by their
//! decoded text where they lie in the document, never copied: a call is kept as the span of its id
//! and its position (32 bytes, in a list that grows a chunk at a time, so no reallocation doubles
//! it), the latest assistant message's calls are sorted by id once that message is complete, and a
//! result finds its call by binary search. An id used by two calls of different assistant messages
//! is found at the end by sorting every call by id (S14.3 reports the first violation in transcript
//! order, whenever it is found). Only the top-level blocks of a message are looked at: blocks
//! nested in a `tool_result` block's `content` are that result's content (S14.2).

use core::cmp::Ordering;

use super::CompactionInput;
use super::transcript::{Block, Role, RoleName, Visit};
use crate::diagnostic::{Diagnostic, PathBuilder};
use crate::json::StringSpan;
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

/// One call and the result that answers it, with their blocks (`None`: a `tool` message's own
/// `tool_use_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Answer {
    pub(crate) call_id: StringSpan,
    pub(crate) call_message: usize,
    pub(crate) call_block: usize,
    pub(crate) result_message: usize,
    pub(crate) result_block: Option<usize>,
}

/// A call with no result: its id, message and block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unanswered {
    pub(crate) id: StringSpan,
    pub(crate) message: usize,
    pub(crate) block: usize,
}

/// What a listing walk finds (SPEC G16.14): every violation in transcript order (one per
/// position), every pair and answer, the calls with no result, and each message's role.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    pub(crate) violations: Vec<Violation>,
    pub(crate) pairs: Vec<Pair>,
    pub(crate) answers: Vec<Answer>,
    pub(crate) unanswered: Vec<Unanswered>,
    pub(crate) roles: Vec<RoleName>,
}

/// Two ids of `src` by their decoded text (J5.4): as bytes when neither has an escape, else
/// character by character as they are decoded (UTF-8 keeps the order of the characters, so both
/// ways give one order, consistent with equality of the decoded text).
fn cmp_ids(a: StringSpan, b: StringSpan, src: &[u8]) -> Ordering {
    if !a.has_escapes() && !b.has_escapes() {
        return a.of(src).cmp(b.of(src));
    }
    a.chars(src).cmp(b.chars(src))
}

/// FNV-1a of an id's decoded text (J5.4): the same for two spellings of one text. Indices sort
/// by it first, so that most comparisons are of two integers rather than of two ids in the
/// document.
fn id_hash(id: StringSpan, src: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let step = |h: u64, b: u8| (h ^ u64::from(b)).wrapping_mul(PRIME);
    let start = 0xcbf2_9ce4_8422_2325;
    if !id.has_escapes() {
        return id.of(src).iter().fold(start, |h, &b| step(h, b));
    }
    id.chars(src).fold(start, |h, c| c.encode_utf8(&mut [0; 4]).bytes().fold(h, step))
}

/// A call in a sorted index: the hash of its id ([`id_hash`]) and its place in the list.
type Keyed = (u64, usize);

/// How ids are hashed: [`id_hash`]; tests also run the walk with a hash that collides often, so
/// that the path for ids sharing a hash is exercised.
type IdHash = fn(StringSpan, &[u8]) -> u64;

fn id_of(calls: &Chunked<Call>, k: usize) -> StringSpan {
    calls.get(k).map(|c| c.id).unwrap_or_default()
}

/// Whether two entries of an index have the same id.
fn same_id(calls: &Chunked<Call>, src: &[u8], a: Keyed, b: Keyed) -> bool {
    a.0 == b.0 && cmp_ids(id_of(calls, a.1), id_of(calls, b.1), src) == Ordering::Equal
}

/// The calls from `start` to `end`, keyed and sorted, in `into` (emptied first: its buffer is
/// reused): by hash, then (among the few calls that share a hash) by id, then by place in the
/// transcript, so that equal ids are neighbours, their first call first.
fn sorted(calls: &Chunked<Call>, src: &[u8], hash: IdHash, range: (usize, usize), mut into: Vec<Keyed>) -> Vec<Keyed> {
    into.clear();
    into.extend((range.0..range.1).map(|k| (hash(id_of(calls, k), src), k)));
    into.sort_unstable();
    for run in into.chunk_by_mut(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
        run.sort_unstable_by(|a, b| cmp_ids(id_of(calls, a.1), id_of(calls, b.1), src).then(a.1.cmp(&b.1)));
    }
    into
}

/// Elements per chunk of a [`Chunked`] list.
const CHUNK: usize = 1024;

/// A list that grows a chunk of [`CHUNK`] elements at a time: no reallocation ever holds an old
/// and a new copy of it, so its peak is its length plus one chunk, whatever that length.
struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Chunked<T> {
    const fn new() -> Chunked<T> {
        Chunked { chunks: Vec::new(), len: 0 }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(value),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(value);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        // The first chunk stays, empty, for the next pushes.
        self.chunks.truncate(len.div_ceil(CHUNK).max(1));
        let before = (self.chunks.len() - 1) * CHUNK;
        if let Some(chunk) = self.chunks.last_mut() {
            chunk.truncate(len - before);
        }
        self.len = len;
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
}

/// A `tool_use` block of an assistant message: its id (the body in the document) and position.
#[derive(Debug, Clone, Copy)]
struct Call {
    id: StringSpan,
    message: usize,
    block: usize,
}

impl Call {
    fn violation(&self, status: Status) -> Violation {
        Violation { status, message: self.message, block: Some(self.block), offset: self.id.span().start }
    }
}

/// The walk of S14.3: the first violation so far, every call so far, the latest assistant
/// message's calls by id with which of them are settled, and the pairs found.
struct Walk<'s> {
    src: &'s [u8],
    hash: IdHash,
    first: Option<Violation>,
    /// Every call of every assistant message, in transcript order (the document's order).
    calls: Chunked<Call>,
    /// The latest complete assistant message's calls: `calls[window.0..window.1]`.
    window: (usize, usize),
    /// The window's calls (a repeated id once, at its first call) in [`Walk::order`].
    by_id: Vec<Keyed>,
    /// Bit `k`: `calls[window.0 + k]` is settled: answered, or a repeat of an id of its message.
    settled: Vec<u64>,
    /// Assistant messages with calls so far: an id can repeat across messages only from two on.
    windows: usize,
    pairs: Vec<Pair>,
    /// Set when the walk lists every violation and answer (G16.14), not only the first.
    list: Option<Listing>,
}

impl Walk<'_> {
    fn note(&mut self, v: Violation) {
        if let Some(list) = &mut self.list {
            list.violations.push(v);
        }
        if self.first.is_none_or(|f| v.position() < f.position()) {
            self.first = Some(v);
        }
    }

    fn call(&self, k: usize) -> Option<Call> {
        self.calls.get(k).copied()
    }

    fn id(&self, k: usize) -> StringSpan {
        id_of(&self.calls, k)
    }

    fn is_settled(&self, k: usize) -> bool {
        let bit = k - self.window.0;
        self.settled.get(bit / 64).is_some_and(|w| w >> (bit % 64) & 1 == 1)
    }

    fn settle(&mut self, k: usize) {
        let bit = k - self.window.0;
        if let Some(w) = self.settled.get_mut(bit / 64) {
            *w |= 1 << (bit % 64);
        }
    }

    /// The window's calls end (at the next assistant message, or the end): the first one without
    /// a result is unanswered (S14.3; the later ones come after it in transcript order).
    fn close(&mut self) {
        let (start, end) = self.window;
        let listing = self.list.is_some();
        // The first is enough for S14.3; a listing wants every one.
        for k in start..end {
            if self.is_settled(k) {
                continue;
            }
            if let Some(call) = self.call(k) {
                self.note(call.violation(Status::PairingUnansweredCall));
                if let Some(list) = &mut self.list {
                    list.unanswered.push(Unanswered { id: call.id, message: call.message, block: call.block });
                }
            }
            if !listing {
                break;
            }
        }
        self.window = (end, end);
        self.by_id.clear();
        self.settled.clear();
    }

    /// The calls from `start` on, those of the assistant message just read, are the new window: sorted
    /// by id, and a repeat of an id in the message is a duplicate id there (S14.3), settled and
    /// left out of the lookup.
    fn open(&mut self, start: usize) {
        let end = self.calls.len();
        self.window = (start, end);
        self.windows += usize::from(end > start);
        let Walk { src, hash, calls, by_id, settled, .. } = self;
        settled.resize((end - start).div_ceil(64), 0);
        *by_id = sorted(calls, src, *hash, (start, end), core::mem::take(by_id));
        // The first call of each id stays; the others are repeats, settled (no result answers
        // them) and reported, the earliest first.
        let mut first_repeat: Option<usize> = None;
        let mut repeats = Vec::new();
        let listing = self.list.is_some();
        by_id.dedup_by(|k, kept| {
            let repeat = same_id(calls, src, *k, *kept);
            if repeat {
                first_repeat = Some(first_repeat.map_or(k.1, |r| r.min(k.1)));
                if listing {
                    repeats.push(k.1);
                }
                let bit = k.1 - start;
                if let Some(w) = settled.get_mut(bit / 64) {
                    *w |= 1 << (bit % 64);
                }
            }
            repeat
        });
        if let Some(call) = first_repeat.and_then(|k| self.call(k)) {
            self.note(call.violation(Status::PairingDuplicateId));
        }
        for k in repeats.into_iter().filter(|&k| Some(k) != first_repeat) {
            if let Some(call) = self.call(k) {
                self.note(call.violation(Status::PairingDuplicateId));
            }
        }
    }

    /// The call of the window with the id `id`, if any.
    fn find(&self, id: StringSpan) -> Option<usize> {
        let hash = (self.hash)(id, self.src);
        let at = self.by_id.partition_point(|&(h, _)| h < hash);
        let run = self.by_id.get(at..).unwrap_or_default().iter().take_while(|&&(h, _)| h == hash);
        run.map(|&(_, k)| k).find(|&k| cmp_ids(self.id(k), id, self.src) == Ordering::Equal)
    }

    /// A result for `id` in message `i`: answers a call of the window once; anything else is an
    /// orphan or a second result.
    fn answer(&mut self, id: StringSpan, i: usize, block: Option<usize>) {
        let offset = id.span().start;
        match self.find(id) {
            Some(k) if !self.is_settled(k) => {
                self.settle(k);
                if let Some(call) = self.call(k) {
                    self.pairs.push((call.message, i));
                    if let Some(list) = &mut self.list {
                        let answer = Answer {
                            call_id: call.id,
                            call_message: call.message,
                            call_block: call.block,
                            result_message: i,
                            result_block: block,
                        };
                        list.answers.push(answer);
                    }
                }
            }
            Some(_) => self.note(Violation { status: Status::PairingDuplicateResult, message: i, block, offset }),
            None => self.note(Violation { status: Status::PairingOrphanResult, message: i, block, offset }),
        }
    }

    /// The first call whose id an earlier call already had (S14.3, at any distance): every call
    /// sorted by id, then in transcript order; the second of each run of one id is a repeat.
    fn first_repeated_id(&self) -> Option<Call> {
        if self.windows < 2 {
            // Repeats within one message were reported when it was read.
            return None;
        }
        let order = sorted(&self.calls, self.src, self.hash, (0, self.calls.len()), Vec::new());
        let repeat = order
            .windows(2)
            .filter_map(|w| match *w {
                [a, b] if same_id(&self.calls, self.src, a, b) => Some(b.1),
                _ => None,
            })
            .min()?;
        self.call(repeat)
    }

    /// Every call whose id an earlier call already had (G16.14): the second and later of each
    /// run of one id.
    fn repeated_ids(&self) -> Vec<Call> {
        if self.windows < 2 {
            return Vec::new();
        }
        let order = sorted(&self.calls, self.src, self.hash, (0, self.calls.len()), Vec::new());
        order
            .windows(2)
            .filter_map(|w| match *w {
                [a, b] if same_id(&self.calls, self.src, a, b) => self.call(b.1),
                _ => None,
            })
            .collect()
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

/// The pairing walk as a transcript visitor, run by the walk that parses an input.
///
/// A message's calls join the list as they are read (when its role comes after its blocks, they
/// are dropped again if it is not an assistant message). Its results are answered as they are read
/// when the message is known to be a `user` message; in a `tool` message, or before the role is
/// known, they wait until the message is complete, because S14.3 reads a `tool` message's own
/// `tool_use_id` first and it may come after the blocks.
pub(crate) struct Pairing<'s> {
    walk: Walk<'s>,
    /// The message being read, and its role when it came before the blocks.
    message: usize,
    role: Option<RoleName>,
    /// Where the message's own calls start in the list.
    message_calls: usize,
    /// The message's results that wait for it to be complete: (block, id).
    waiting: Chunked<(usize, StringSpan)>,
}

impl<'s> Pairing<'s> {
    pub(crate) fn new(src: &'s [u8]) -> Pairing<'s> {
        Pairing::with_hash(src, id_hash)
    }

    /// A walk that lists every violation and answer (G16.14), run over a parsed input.
    pub(crate) fn listing(src: &'s [u8]) -> Pairing<'s> {
        let mut pairing = Pairing::new(src);
        pairing.walk.list = Some(Listing::default());
        pairing
    }

    fn with_hash(src: &'s [u8], hash: IdHash) -> Pairing<'s> {
        let walk = Walk {
            src,
            hash,
            first: None,
            calls: Chunked::new(),
            window: (0, 0),
            by_id: Vec::new(),
            settled: Vec::new(),
            windows: 0,
            pairs: Vec::new(),
            list: None,
        };
        Pairing { walk, message: 0, role: None, message_calls: 0, waiting: Chunked::new() }
    }

    /// The pairs, or the first violation, once the whole transcript has been walked.
    pub(crate) fn finish(mut self) -> Pairs {
        self.walk.close();
        self.walk.by_id = Vec::new();
        self.waiting = Chunked::new();
        // A repeated id wins a tie: the walk kept the repeat as a call (it could not know), so it
        // may also have found it unanswered, at the same position.
        if let Some(call) = self.walk.first_repeated_id() {
            let v = call.violation(Status::PairingDuplicateId);
            if self.walk.first.is_none_or(|f| v.position() <= f.position()) {
                self.walk.first = Some(v);
            }
        }
        match self.walk.first {
            Some(v) => Err(v),
            None => {
                self.walk.pairs.shrink_to_fit();
                Ok(self.walk.pairs)
            }
        }
    }

    /// The listing, once the whole transcript has been walked by a [`Pairing::listing`] walk:
    /// every violation in transcript order, one per position (a repeated id wins a tie, as in
    /// [`Pairing::finish`]), so that the first is the one S14.3 reports.
    pub(crate) fn finish_listing(mut self) -> Listing {
        self.walk.close();
        for call in self.walk.repeated_ids() {
            self.walk.note(call.violation(Status::PairingDuplicateId));
        }
        let mut list = self.walk.list.take().unwrap_or_default();
        let rank = |v: &Violation| (v.position(), u8::from(v.status != Status::PairingDuplicateId));
        list.violations.sort_unstable_by_key(rank);
        list.violations.dedup_by_key(|v| v.position());
        list.pairs = core::mem::take(&mut self.walk.pairs);
        list
    }
}

impl Visit for Pairing<'_> {
    fn blocks_start(&mut self, i: usize, role: Option<RoleName>) {
        if role == Some(RoleName::Assistant) {
            self.walk.close();
        }
        self.message = i;
        self.role = role;
        self.message_calls = self.walk.calls.len();
        self.waiting.truncate(0);
    }

    fn block(&mut self, j: usize, depth: usize, block: &Block) {
        let i = self.message;
        match (block, self.role) {
            _ if depth > 0 => {}
            // A call outside an assistant message has no result to wait for: S14.2 counts the
            // calls of assistant messages only.
            (Block::ToolUse { id, .. }, None | Some(RoleName::Assistant)) => {
                self.walk.calls.push(Call { id: *id, message: i, block: j });
            }
            (Block::ToolResult { tool_use_id, .. }, Some(RoleName::User)) => {
                self.walk.answer(*tool_use_id, i, Some(j));
            }
            (Block::ToolResult { tool_use_id, .. }, None | Some(RoleName::Tool)) => {
                self.waiting.push((j, *tool_use_id));
            }
            (Block::ToolResult { tool_use_id, .. }, Some(RoleName::Assistant | RoleName::System)) => {
                let offset = tool_use_id.span().start;
                self.walk.note(Violation { status: Status::PairingOrphanResult, message: i, block: Some(j), offset });
            }
            _ => {}
        }
    }

    fn message(&mut self, i: usize, role: &Role) {
        if let Some(list) = &mut self.walk.list {
            list.roles.push(role.name());
        }
        let known = self.role.is_some();
        match role {
            Role::Assistant { .. } => {
                if !known {
                    // Only now known to open a new window (its calls are already in the list, after
                    // the window's).
                    self.walk.close();
                }
                self.walk.open(self.message_calls);
            }
            _ if !known => self.walk.calls.truncate(self.message_calls),
            _ => {}
        }
        // A `tool` message is one result for its own id; a top-level `tool_result` block in it for
        // that same id is that result written the other way, not a second one (S14.2).
        let own_id = match role {
            Role::Tool { tool_use_id, .. } => {
                self.walk.answer(*tool_use_id, i, None);
                Some(*tool_use_id)
            }
            _ => None,
        };
        let src = self.walk.src;
        for &(j, id) in self.waiting.iter() {
            match role {
                Role::User | Role::Tool { .. } => {
                    if own_id.is_none_or(|own| cmp_ids(own, id, src) != Ordering::Equal) {
                        self.walk.answer(id, i, Some(j));
                    }
                }
                Role::Assistant { .. } | Role::System => self.walk.note(Violation {
                    status: Status::PairingOrphanResult,
                    message: i,
                    block: Some(j),
                    offset: id.span().start,
                }),
            }
        }
        self.waiting.truncate(0);
        self.role = None;
    }
}

/// S14.4: whether each cut `c` in `0..=n` separates no pair: `safe[c]`.
pub(crate) fn safe_cuts(n: usize, pairs: &[Pair]) -> Vec<bool> {
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

#[cfg(test)]
pub(super) mod tests {
    //! The walk against a plain reading of S14.3 (the walk this module had before it kept ids in
    //! place): decoded ids in hash sets, every message's tool blocks looked at once it is complete.

    use std::collections::{HashMap, HashSet};

    use proptest::prelude::*;

    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Kind {
        User,
        System,
        Assistant,
        Tool,
    }

    #[derive(Debug, Clone)]
    pub(crate) enum B {
        Text,
        /// A call: its id as written (an index into [`IDS`]).
        Call(usize),
        /// A result, with the blocks of its content.
        Result(usize, Vec<B>),
    }

    #[derive(Debug, Clone)]
    pub(crate) struct Message {
        pub(crate) kind: Kind,
        /// A `tool` message's own id.
        pub(crate) own: usize,
        pub(crate) blocks: Vec<B>,
        /// Keys after the blocks (`role` and `tool_use_id`): the first walk learns them late.
        pub(crate) late: bool,
    }

    /// Ids as written, and the text they decode to: escapes make two spellings of one id.
    const IDS: [(&str, &str); 6] = [("a", "a"), (r"\u0061", "a"), ("b", "b"), ("", ""), ("c", "c"), (r"\u0063", "c")];

    fn decoded(id: usize) -> &'static str {
        IDS[id].1
    }

    /// A violation as the reference reads it: status, message, block.
    pub(crate) type Found = (Status, usize, Option<usize>);

    /// Transcript order of a violation.
    pub(crate) fn pos(v: &Found) -> (usize, usize) {
        (v.1, v.2.map_or(0, |b| b + 1))
    }

    /// S14.3 as the reference reads it.
    pub(crate) fn reference(messages: &[Message]) -> Result<Vec<Pair>, Found> {
        let (pairs, all) = reference_all(messages);
        let mut first: Option<Found> = None;
        for v in all {
            if first.as_ref().is_none_or(|f| pos(&v) < pos(f)) {
                first = Some(v);
            }
        }
        match first {
            Some(v) => Err(v),
            None => Ok(pairs),
        }
    }

    /// S14.3 as the reference reads it: its pairs, and every violation it notes, in the order
    /// noted.
    pub(crate) fn reference_all(messages: &[Message]) -> (Vec<Pair>, Vec<Found>) {
        let mut all: Vec<Found> = Vec::new();
        let mut note = |v: Found| all.push(v);
        let mut seen: HashSet<&str> = HashSet::new();
        // id -> (message, block, answered)
        let mut open: HashMap<&str, (usize, usize, bool)> = HashMap::new();
        let mut pairs = Vec::new();
        let close = |open: &mut HashMap<&str, (usize, usize, bool)>, note: &mut dyn FnMut(_)| {
            for &(m, b, answered) in open.values() {
                if !answered {
                    note((Status::PairingUnansweredCall, m, Some(b)));
                }
            }
            open.clear();
        };
        let answer = |open: &mut HashMap<&str, (usize, usize, bool)>,
                      pairs: &mut Vec<Pair>,
                      note: &mut dyn FnMut(_),
                      id: &str,
                      i: usize,
                      block: Option<usize>| match open.get_mut(id) {
            Some(call) if !call.2 => {
                call.2 = true;
                pairs.push((call.0, i));
            }
            Some(_) => note((Status::PairingDuplicateResult, i, block)),
            None => note((Status::PairingOrphanResult, i, block)),
        };
        for (i, m) in messages.iter().enumerate() {
            if m.kind == Kind::Assistant {
                close(&mut open, &mut note);
            }
            let own = (m.kind == Kind::Tool).then(|| decoded(m.own));
            if let Some(own) = own {
                answer(&mut open, &mut pairs, &mut note, own, i, None);
            }
            for (j, b) in m.blocks.iter().enumerate() {
                match (b, m.kind) {
                    (B::Call(id), Kind::Assistant) => {
                        if seen.insert(decoded(*id)) {
                            open.insert(decoded(*id), (i, j, false));
                        } else {
                            note((Status::PairingDuplicateId, i, Some(j)));
                        }
                    }
                    (B::Result(id, _), Kind::User | Kind::Tool) if own != Some(decoded(*id)) => {
                        answer(&mut open, &mut pairs, &mut note, decoded(*id), i, Some(j));
                    }
                    (B::Result(..), Kind::User | Kind::Tool) => {}
                    (B::Result(..), _) => note((Status::PairingOrphanResult, i, Some(j))),
                    _ => {}
                }
            }
        }
        close(&mut open, &mut note);
        (pairs, all)
    }

    pub(crate) fn block_json(b: &B) -> String {
        match b {
            B::Text => r#"{"type":"text","text":"t"}"#.to_owned(),
            B::Call(id) => format!(r#"{{"type":"tool_use","id":"{}","name":"n","input":{{}}}}"#, IDS[*id].0),
            B::Result(id, content) => format!(
                r#"{{"type":"tool_result","tool_use_id":"{}","content":[{}],"is_error":false}}"#,
                IDS[*id].0,
                content.iter().map(block_json).collect::<Vec<_>>().join(",")
            ),
        }
    }

    pub(crate) fn message_json(m: &Message) -> String {
        let blocks = format!(r#""blocks":[{}]"#, m.blocks.iter().map(block_json).collect::<Vec<_>>().join(","));
        let (role, extra) = match m.kind {
            Kind::User => ("user", String::new()),
            Kind::System => ("system", String::new()),
            Kind::Assistant => ("assistant", r#","usage":null"#.to_owned()),
            Kind::Tool => ("tool", format!(r#","tool_use_id":"{}","is_error":false"#, IDS[m.own].0)),
        };
        let role = format!(r#""role":"{role}""#);
        if m.late { format!("{{{blocks},{role}{extra}}}") } else { format!("{{{role}{extra},{blocks}}}") }
    }

    pub(crate) fn wire(messages: &[Message]) -> Vec<u8> {
        format!(
            r#"{{"version":1,"basis":{{"revision":1,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}},"model":{{"provider":"p","model":"m"}},"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":[{}],"max_summary_tokens":64}}"#,
            messages.iter().map(message_json).collect::<Vec<_>>().join(",")
        )
        .into_bytes()
    }

    pub(crate) fn block() -> impl Strategy<Value = B> {
        let id = 0..IDS.len();
        let leaf = prop_oneof![Just(B::Text), id.clone().prop_map(B::Call)];
        prop_oneof![
            2 => leaf.clone(),
            3 => id.clone().prop_map(B::Call),
            3 => (id.clone(), prop::collection::vec(leaf, 0..2)).prop_map(|(id, content)| B::Result(id, content)),
            // A result nested in a result's content answers nothing (S14.2).
            1 => (id.clone(), id).prop_map(|(a, b)| B::Result(a, vec![B::Result(b, vec![])])),
        ]
    }

    pub(crate) fn message() -> impl Strategy<Value = Message> {
        let kind = prop_oneof![1 => Just(Kind::User), 1 => Just(Kind::System), 2 => Just(Kind::Assistant), 2 => Just(Kind::Tool)];
        (kind, 0..IDS.len(), prop::collection::vec(block(), 0..5), any::<bool>())
            .prop_map(|(kind, own, blocks, late)| Message { kind, own, blocks, late })
    }

    /// Mostly well-paired turns: an assistant message with calls, then results for most of them
    /// (as tool messages, a user message of result blocks, or a tool message carrying more
    /// results), keys in either order; ids come from a small pool, so they repeat across turns.
    pub(crate) fn turns() -> impl Strategy<Value = Vec<Message>> {
        let turn = (
            prop::collection::vec(0..IDS.len(), 0..4),
            prop::collection::vec(any::<bool>(), 4),
            0..3u8,
            prop::collection::vec(any::<bool>(), 6),
        );
        prop::collection::vec(turn, 1..6).prop_map(|turns| {
            let mut messages = Vec::new();
            for (calls, answered, form, late) in turns {
                let late = |k: usize| late.get(k).copied().unwrap_or(false);
                let blocks = calls.iter().map(|&id| B::Call(id)).collect();
                messages.push(Message { kind: Kind::Assistant, own: 0, blocks, late: late(0) });
                let results: Vec<usize> = calls.iter().zip(&answered).filter(|(_, a)| **a).map(|(&id, _)| id).collect();
                match form {
                    0 => messages.extend(results.iter().enumerate().map(|(k, &own)| Message {
                        kind: Kind::Tool,
                        own,
                        blocks: vec![B::Text],
                        late: late(k + 1),
                    })),
                    1 => messages.push(Message {
                        kind: Kind::User,
                        own: 0,
                        blocks: results.iter().map(|&id| B::Result(id, vec![])).collect(),
                        late: late(1),
                    }),
                    _ => {
                        if let Some((&own, rest)) = results.split_first() {
                            let blocks =
                                rest.iter().chain(late(2).then_some(&own)).map(|&id| B::Result(id, vec![])).collect();
                            messages.push(Message { kind: Kind::Tool, own, blocks, late: late(1) });
                        }
                    }
                }
            }
            messages
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Same pairs, or the same first violation, on mostly well-paired transcripts.
        #[test]
        fn the_walk_is_the_reference_on_turns(messages in turns()) {
            check_against_the_reference(&messages)?;
        }

        /// Same pairs, or the same first violation (status, message, block, offset of the id).
        #[test]
        fn the_walk_is_the_reference(messages in prop::collection::vec(message(), 1..9)) {
            check_against_the_reference(&messages)?;
        }
    }

    /// The walk of a parse, and the walk again with a hash of two bits (ids share hashes all the
    /// time), against the reference.
    fn check_against_the_reference(messages: &[Message]) -> Result<(), TestCaseError> {
        let src = wire(messages);
        let want = reference(messages);
        let input = CompactionInput::parse(&src).expect("a valid input");
        let got = pairs(&input).map(<[Pair]>::to_vec).map_err(|v| (v.status, v.message, v.block));
        prop_assert_eq!(&got, &want, "{}", String::from_utf8_lossy(&src));
        if let Err(v) = pairs(&input) {
            // The offset is the id's: its body starts right after a quote.
            prop_assert_eq!(src.get(v.offset.wrapping_sub(1)), Some(&b'"'));
        }
        let at = src.windows(14).position(|w| w == br#""transcript":["#).expect("a transcript") + 13;
        let mut p = crate::json::Parser::resume_valid(&src, at);
        let mut pairing = Pairing::with_hash(&src, |id, src| id_hash(id, src) & 3);
        let checked =
            super::super::transcript::check(&mut p, &mut crate::json::KeyFrames::default(), true, &mut pairing);
        prop_assert!(checked.is_ok());
        let colliding = pairing.finish().map_err(|v| (v.status, v.message, v.block));
        prop_assert_eq!(colliding, want, "{} (colliding hash)", String::from_utf8_lossy(&src));
        Ok(())
    }

    /// Two spellings of one text hash alike (J5.4): escapes, surrogate pairs, a lone surrogate
    /// (U+FFFD).
    #[test]
    fn a_text_hashes_alike_however_it_is_written() {
        let pairs: [(&str, &str); 5] =
            [("a", r"\u0061"), ("é", r"\u00e9"), ("😀x", r"\ud83d\ude00x"), ("\u{fffd}", r"\ud800"), ("a/b", r"a\/b")];
        for (plain, escaped) in pairs {
            let src = format!("{plain}|{escaped}");
            let plain = StringSpan::plain(crate::json::Span { start: 0, end: plain.len() });
            let escaped = StringSpan::escaped(crate::json::Span { start: src.len() - escaped.len(), end: src.len() });
            assert_eq!(id_hash(plain, src.as_bytes()), id_hash(escaped, src.as_bytes()), "{src}");
            assert_eq!(cmp_ids(plain, escaped, src.as_bytes()), Ordering::Equal, "{src}");
        }
    }
}
