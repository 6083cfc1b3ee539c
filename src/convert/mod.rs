//! Converters from the message lists hosts hold to the wire transcript (SPEC §16): OpenAI Chat
//! Completions and Responses, Anthropic Messages, Google Gemini, the Vercel AI SDK's
//! `ModelMessage[]` and LangChain's serialised messages. One implementation behind the C ABI, so
//! every host converts byte for byte alike.
//!
//! A conversion gives the wire transcript (canonical bytes, E7), for each wire message the index of
//! the source message it came from, the cuts that fall on source message boundaries, and what the
//! wire could not carry (a loss report of stable codes). Signatures and provider state arrive
//! byte-exact; tool results become `tool` messages of their own so that fitting can stub them.
//! Nothing is dropped silently: what is left out is reported, and with [`STRICT`] refused.
//!
//! One file per source format; `tree` reads a source element into a borrowed tree, `out` writes
//! the wire.

mod ai_sdk;
mod anthropic;
mod chat;
mod gemini;
mod identity;
mod input;
mod langchain;
mod media;
mod out;
mod responses;
mod tree;

use crate::diagnostic::{Diagnostic, Location, PathBuilder};
use crate::json::{Event, JsonError, Parser};
use crate::status::Status;

pub use identity::{event_id, minted_fingerprint};
use out::Out;
use tree::{NodeId, Tree, Value};

/// `LC_CONVERT_STRICT`: any loss refuses the conversion (`LC_CONVERT_LOSS` at the first).
pub const STRICT: u32 = 1;

/// A source format (`LC_FORMAT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Format {
    /// OpenAI Chat Completions: the `messages` array (`LC_FORMAT_OPENAI_CHAT`, 1).
    OpenAiChat = 1,
    /// OpenAI Responses: `{"input": [...] or "text", "instructions": ...}`
    /// (`LC_FORMAT_OPENAI_RESPONSES`, 2).
    OpenAiResponses = 2,
    /// Anthropic Messages: `{"system": ..., "messages": [...]}` (`LC_FORMAT_ANTHROPIC`, 3).
    Anthropic = 3,
    /// Google Gemini: `{"contents": [...], "system_instruction": ...}` (`LC_FORMAT_GEMINI`, 4).
    Gemini = 4,
    /// The Vercel AI SDK's `ModelMessage[]` as JSON (`LC_FORMAT_AI_SDK`, 5).
    AiSdk = 5,
    /// LangChain messages as `messages_to_dict`, `dumpd` or `model_dump` serialise them
    /// (`LC_FORMAT_LANGCHAIN`, 6).
    LangChain = 6,
}

impl Format {
    /// The format of a C value; `None` for a value that is not one.
    #[must_use]
    pub const fn from_code(code: i32) -> Option<Format> {
        match code {
            1 => Some(Format::OpenAiChat),
            2 => Some(Format::OpenAiResponses),
            3 => Some(Format::Anthropic),
            4 => Some(Format::Gemini),
            5 => Some(Format::AiSdk),
            6 => Some(Format::LangChain),
            _ => None,
        }
    }

    /// The C value.
    #[must_use]
    pub const fn code(self) -> i32 {
        self as i32
    }
}

macro_rules! loss_codes {
    ($(($value:literal, $variant:ident, $cname:ident, $name:literal, $meaning:literal)),* $(,)?) => {
        /// What the wire could not carry (SPEC §16's loss table). Values are stable forever.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(i32)]
        #[non_exhaustive]
        pub enum LossCode {
            $(#[doc = concat!("`", stringify!($cname), "` (", stringify!($value), ", `", $name, "`): ", $meaning)] $variant = $value,)*
        }

        impl LossCode {
            /// Every code, in ascending order.
            pub const ALL: &'static [LossCode] = &[$(LossCode::$variant),*];

            /// The stable snake_case name, e.g. `"dropped_cache_control"`.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self { $(LossCode::$variant => $name,)* }
            }

            /// One sentence on what was lost.
            #[must_use]
            pub const fn meaning(self) -> &'static str {
                match self { $(LossCode::$variant => $meaning,)* }
            }

            /// The C value (`LC_LOSS_*`).
            #[must_use]
            pub const fn code(self) -> i32 {
                self as i32
            }

            /// The code of a C value, if it is one.
            #[must_use]
            pub const fn from_code(code: i32) -> Option<LossCode> {
                match code { $($value => Some(LossCode::$variant),)* _ => None }
            }

            /// The NUL-terminated name, for the C ABI.
            pub(crate) const fn name_c(self) -> &'static core::ffi::CStr {
                match self {
                    $(LossCode::$variant => match core::ffi::CStr::from_bytes_with_nul(concat!($name, "\0").as_bytes()) {
                        Ok(c) => c,
                        Err(_) => c"",
                    },)*
                }
            }
        }
    };
}

loss_codes! {
    (1, DroppedCacheControl, LC_LOSS_DROPPED_CACHE_CONTROL, "dropped_cache_control", "A cache breakpoint (Anthropic cache_control, OpenAI prompt_cache_breakpoint, an AI SDK cache option) was dropped: caching hints do not change the conversation."),
    (2, DroppedCitations, LC_LOSS_DROPPED_CITATIONS, "dropped_citations", "Citations or annotations on text, a document's citation setting or a search result's source were dropped."),
    (3, DroppedLogprobs, LC_LOSS_DROPPED_LOGPROBS, "dropped_logprobs", "Log probabilities on output text were dropped."),
    (4, DroppedName, LC_LOSS_DROPPED_NAME, "dropped_name", "A participant name on a message was dropped."),
    (5, DroppedMediaOptions, LC_LOSS_DROPPED_MEDIA_OPTIONS, "dropped_media_options", "A media option (image detail, transformations, a document's context, video metadata or resolution) was dropped."),
    (6, DroppedProviderOptions, LC_LOSS_DROPPED_PROVIDER_OPTIONS, "dropped_provider_options", "Provider options the wire has no place for were dropped."),
    (7, DroppedUnknownField, LC_LOSS_DROPPED_UNKNOWN_FIELD, "dropped_unknown_field", "A field of a known object that the converter does not map (and that is not metadata) was dropped."),
    (8, DocumentNotInline, LC_LOSS_DOCUMENT_NOT_INLINE, "document_not_inline", "A document given by URL or file id: the summariser sees its name only."),
    (9, AudioReferenceUnresolvable, LC_LOSS_AUDIO_REFERENCE_UNRESOLVABLE, "audio_reference_unresolvable", "An assistant audio reference (an id only) was dropped: its content is on the provider's side."),
    (10, ArgumentsUnparseable, LC_LOSS_ARGUMENTS_UNPARSEABLE, "arguments_unparseable", "Tool arguments that are not JSON were kept as a JSON string."),
    (11, DuplicateArgumentKey, LC_LOSS_DUPLICATE_ARGUMENT_KEY, "duplicate_argument_key", "Tool arguments had a repeated key; the last value was kept at the first key's place, as the providers' parsers do."),
    (12, SynthesizedToolId, LC_LOSS_SYNTHESIZED_TOOL_ID, "synthesized_tool_id", "A tool call had no id; the converter made one, and its result got the same."),
    (13, ServerToolUnrepresentable, LC_LOSS_SERVER_TOOL_UNREPRESENTABLE, "server_tool_unrepresentable", "A hosted or server-side tool call or result was dropped: it pairs on the provider's side."),
    (14, CompactionItemUnrepresentable, LC_LOSS_COMPACTION_ITEM_UNREPRESENTABLE, "compaction_item_unrepresentable", "A provider's compaction item was dropped; no cut before it is allowed, so it is never summarised away."),
    (15, ItemReferenceUnresolvable, LC_LOSS_ITEM_REFERENCE_UNRESOLVABLE, "item_reference_unresolvable", "A reference to an item stored on the provider's side was dropped."),
    (16, ToolApprovalDropped, LC_LOSS_TOOL_APPROVAL_DROPPED, "tool_approval_dropped", "A tool approval request or response was dropped."),
    (17, UnknownContentDropped, LC_LOSS_UNKNOWN_CONTENT_DROPPED, "unknown_content_dropped", "A block, part or item of a type the converter does not know was dropped."),
}

/// One loss: the source message (or item) it was in, and what was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loss {
    /// The source index ([`u64::MAX`] for the system parameter).
    pub source_index: u64,
    /// What was lost.
    pub code: LossCode,
}

/// A converted transcript (SPEC §16).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    transcript: Vec<u8>,
    source_index: Vec<u64>,
    /// One past the last source message each wire message holds.
    source_end: Vec<u64>,
    /// `cut_allowed[c]` for `c` in `0..=n`.
    cut_allowed: Vec<bool>,
    losses: Vec<Loss>,
    source_len: u64,
}

impl Conversion {
    /// The wire transcript: a JSON array of messages in canonical bytes (E7).
    #[must_use]
    pub fn transcript(&self) -> &[u8] {
        &self.transcript
    }

    /// The number of wire messages.
    #[must_use]
    pub fn message_count(&self) -> usize {
        self.source_index.len()
    }

    /// For each wire message, the index of the source message (or item) it came from;
    /// [`u64::MAX`] for the system parameter (Anthropic `system`, Responses `instructions`, Gemini
    /// `system_instruction`).
    #[must_use]
    pub fn source_index(&self) -> &[u64] {
        &self.source_index
    }

    /// For each cut `c` in `0..=n` (n wire messages), whether it falls on a source message
    /// boundary: summarising `[0, c)` splits no source message (SPEC G16.2).
    #[must_use]
    pub fn cut_allowed(&self) -> &[bool] {
        &self.cut_allowed
    }

    /// What the wire could not carry, in source order.
    #[must_use]
    pub fn losses(&self) -> &[Loss] {
        &self.losses
    }

    /// The number of messages (or items) in the source.
    #[must_use]
    pub fn source_len(&self) -> u64 {
        self.source_len
    }

    /// The source cut of an allowed wire cut `c` (SPEC G16.2): summarising wire messages `[0, c)`
    /// summarises source messages `[0, s)`; source messages the wire does not hold (dropped items
    /// after the last summarised one) stay on the kept side. `None` for a cut that is not allowed
    /// or out of range.
    #[must_use]
    pub fn source_cut(&self, wire_cut: usize) -> Option<u64> {
        if !self.cut_allowed.get(wire_cut).copied().unwrap_or(false) {
            return None;
        }
        Some(wire_cut.checked_sub(1).and_then(|last| self.source_end.get(last)).copied().unwrap_or(0))
    }
}

/// A conversion that failed: the status and where (a path of the format's own names and
/// indices, never a byte of the source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    diagnostic: Box<Diagnostic>,
}

impl From<Diagnostic> for ConvertError {
    fn from(diagnostic: Diagnostic) -> ConvertError {
        ConvertError { diagnostic: Box::new(diagnostic) }
    }
}

impl ConvertError {
    /// `ConvertWire`, `ConvertShape` or `ConvertLoss`.
    #[must_use]
    pub fn status(&self) -> Status {
        self.diagnostic.status()
    }

    /// Where and what (SPEC C13.2): offset, location such as
    /// `messages[3].tool_calls[0].function.arguments`, rule and expectation.
    #[must_use]
    pub fn diagnostic(&self) -> &Diagnostic {
        &self.diagnostic
    }
}

impl core::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} at {}", self.status(), self.diagnostic.location())
    }
}

impl std::error::Error for ConvertError {}

/// A path of the format's names and indices, kept while converting so that a failure can say
/// where it is.
#[derive(Default, Clone)]
pub(crate) struct Path {
    segments: Vec<Segment>,
}

#[derive(Clone, Copy)]
enum Segment {
    Name(&'static str),
    Index(usize),
}

impl Path {
    pub(crate) fn name(&mut self, name: &'static str) -> &mut Path {
        self.segments.push(Segment::Name(name));
        self
    }

    pub(crate) fn index(&mut self, index: usize) -> &mut Path {
        self.segments.push(Segment::Index(index));
        self
    }

    pub(crate) fn pop(&mut self, n: usize) {
        self.segments.truncate(self.segments.len().saturating_sub(n));
    }

    pub(crate) fn location(&self) -> Location {
        let mut b = PathBuilder::default();
        for s in &self.segments {
            match *s {
                Segment::Name(n) => b.push_name(n),
                Segment::Index(i) => b.push_index(i),
            }
        }
        b.finish()
    }
}

/// What a converter reads and writes: the source, the tree of the element at hand, the path to
/// it, the output, and the flags.
pub(crate) struct Cx<'a> {
    pub(crate) src: &'a [u8],
    pub(crate) tree: Tree<'a>,
    pub(crate) path: Path,
    pub(crate) out: Out,
    pub(crate) strict: bool,
}

/// The result of a converter step.
pub(crate) type Conv<T> = Result<T, ConvertError>;

impl<'a> Cx<'a> {
    /// A JSON value of the source as a result's text (G16.17): its source text with the
    /// whitespace outside strings removed, everything else as written (escapes, numbers, key
    /// order), so that the text does not depend on how the host's serialiser indents.
    pub(crate) fn json_text(&self, id: NodeId) -> String {
        let raw = self.tree.span(id).of(self.src);
        let mut out = Vec::with_capacity(raw.len());
        let (mut in_string, mut escaped) = (false, false);
        for &b in raw {
            if in_string {
                in_string = escaped || b != b'"';
                escaped = !escaped && b == b'\\';
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                continue;
            } else {
                in_string = b == b'"';
            }
            out.push(b);
        }
        // The source's strings were checked (J5.3); lossy only keeps this total.
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// A shape failure at node `id` (the path so far, plus `name` when given).
    pub(crate) fn shape(&self, id: NodeId, expected: &'static core::ffi::CStr) -> ConvertError {
        let at = self.tree.span(id).start;
        let d = Diagnostic::new(Status::ConvertShape)
            .at_offset_in(at, self.src)
            .with_location(self.path.location())
            .with_rule(c"G16.8")
            .with_expected(expected);
        ConvertError::from(d)
    }

    /// A shape failure at offset `at` of the source (the path so far).
    pub(crate) fn shape_at(&self, at: usize, expected: &'static core::ffi::CStr) -> ConvertError {
        let d = Diagnostic::new(Status::ConvertShape)
            .at_offset_in(at, self.src)
            .with_location(self.path.location())
            .with_rule(c"G16.8")
            .with_expected(expected);
        ConvertError::from(d)
    }

    /// A shape failure at the member `name` of `id` (missing or of the wrong type).
    pub(crate) fn field_error(
        &mut self,
        id: NodeId,
        name: &'static str,
        expected: &'static core::ffi::CStr,
    ) -> ConvertError {
        let at = self.tree.get(id, name).unwrap_or(id);
        self.path.name(name);
        let e = self.shape(at, expected);
        self.path.pop(1);
        e
    }

    /// A loss at the current source message; with [`STRICT`], the refusal instead.
    pub(crate) fn loss(&mut self, code: LossCode, id: NodeId) -> Conv<()> {
        if self.strict {
            let at = self.tree.span(id).start;
            let d = Diagnostic::new(Status::ConvertLoss)
                .at_offset_in(at, self.src)
                .with_location(self.path.location())
                .with_rule(c"G16.8")
                .with_expected(code.name_c());
            return Err(ConvertError::from(d));
        }
        self.out.loss(code);
        Ok(())
    }

    /// The member `name` of object `id`, which must be a string.
    pub(crate) fn str_field(&mut self, id: NodeId, name: &'static str) -> Conv<Option<crate::json::StringToken<'a>>> {
        match self.tree.get(id, name).map(|c| self.tree.value(c)) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.field_error(id, name, c"a JSON string")),
        }
    }

    /// The member `name` of object `id`, which must be a string, required.
    pub(crate) fn required_str(&mut self, id: NodeId, name: &'static str) -> Conv<crate::json::StringToken<'a>> {
        self.str_field(id, name)?.ok_or_else(|| self.field_error(id, name, c"a JSON string"))
    }

    /// The member `name` of object `id` if it is a boolean (absent and `null` are `false`).
    pub(crate) fn bool_field(&mut self, id: NodeId, name: &'static str) -> Conv<bool> {
        match self.tree.get(id, name).map(|c| self.tree.value(c)) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(b),
            Some(_) => Err(self.field_error(id, name, c"true or false")),
        }
    }

    /// Checks that object `id` repeats no key outside tool inputs (J5.5 for the source, G16.8).
    pub(crate) fn no_duplicates(&mut self, id: NodeId) -> Conv<()> {
        match self.tree.duplicate(id) {
            Some(dup) => Err(self.shape(dup, c"a key of the object, once")),
            None => Ok(()),
        }
    }

    /// The source text of a value kept as provider state (a raw value on the wire, E7.7): refused
    /// when an object in it repeats a key, which the wire does not take (J5.9), as repeated keys
    /// outside tool inputs are refused everywhere (G16.8).
    pub(crate) fn raw_value(&self, id: NodeId) -> Conv<&'a [u8]> {
        for o in self.tree.objects(id) {
            if let Some(dup) = self.tree.duplicate(o) {
                return Err(self.shape(dup, c"a key of the object, once"));
            }
        }
        Ok(self.tree.span(id).of(self.src))
    }

    /// Runs `f` on each element of the array `list`, the member `name` of the value at hand, with
    /// `name[k]` on the path: stops at the first error.
    pub(crate) fn each_in(
        &mut self,
        name: &'static str,
        list: NodeId,
        mut f: impl FnMut(&mut Cx<'a>, usize, NodeId) -> Conv<()>,
    ) -> Conv<()> {
        let items: Vec<NodeId> = self.tree.children(list).collect();
        self.path.name(name);
        let mut r = Ok(());
        for (k, item) in items.into_iter().enumerate() {
            self.path.index(k);
            r = f(self, k, item);
            self.path.pop(1);
            if r.is_err() {
                break;
            }
        }
        self.path.pop(1);
        r
    }

    /// The `text` strings of the elements of array `list` (those that have one), joined by `sep`:
    /// the separator stands between two texts, never before the first.
    pub(crate) fn joined_texts(&self, list: NodeId, sep: &str) -> String {
        let mut text = String::new();
        let mut first = true;
        for part in self.tree.children(list) {
            if let Some(Value::String(s)) = self.tree.get(part, "text").map(|t| self.tree.value(t)) {
                if !first {
                    text.push_str(sep);
                }
                first = false;
                text.push_str(&s.decode().unwrap_or_default());
            }
        }
        text
    }

    /// Adds the members of object `obj` but those named in `skip` to `into`, as raw values
    /// ([`Cx::raw_value`]: refused when an object in one repeats a key).
    pub(crate) fn raw_members(&self, into: &mut RawObject, obj: NodeId, skip: &[&str]) -> Conv<()> {
        for c in self.tree.children(obj) {
            let Some(key) = self.tree.key(c) else { continue };
            if !known(&key, skip) {
                into.member(key, self.raw_value(c)?);
            }
        }
        Ok(())
    }

    /// Whether the value `id` holds nothing: `null`, `""`, `{}` or `[]` (G16.8: dropping it drops
    /// nothing).
    pub(crate) fn holds_nothing(&self, id: NodeId) -> bool {
        match self.tree.value(id) {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            Value::Object | Value::Array => self.tree.len(id) == 0,
            _ => false,
        }
    }

    /// Whether one of the members `names` of object `id` holds something ([`Cx::holds_nothing`]).
    pub(crate) fn holds_any(&self, id: NodeId, names: &[&str]) -> bool {
        names.iter().any(|n| self.tree.get(id, n).is_some_and(|c| !self.holds_nothing(c)))
    }

    /// The first of the members `names` of object `id` that is present and not `null`: of fields a
    /// source gives one of (a file by `file_data`, `file_url` or `file_id`), the one read (G16.8's
    /// order). The caller lists only that one among the keys it passes to [`Cx::unknown_fields`],
    /// so that another beside it is `dropped_unknown_field`.
    pub(crate) fn first_present(&self, id: NodeId, names: &[&'static str]) -> Option<&'static str> {
        names.iter().copied().find(|n| self.tree.get(id, n).is_some_and(|v| self.tree.value(v) != Value::Null))
    }

    /// G16.8 loss 1: `dropped_cache_control`, once, at object `id`, when one of its cache hints
    /// `names` (`cache_control`, `prompt_cache_breakpoint`, ...) holds something. A hint that holds
    /// nothing (`null`, `{}`: what a serialiser writes for an unset field) asks for no breakpoint,
    /// and dropping it drops nothing, in every format alike.
    pub(crate) fn cache_hints(&mut self, id: NodeId, names: &[&str]) -> Conv<()> {
        if self.holds_any(id, names) {
            self.loss(LossCode::DroppedCacheControl, id)?;
        }
        Ok(())
    }

    /// G16.8 loss 7: `dropped_unknown_field`, once, at object `id`, when a member that holds
    /// something ([`Cx::holds_nothing`]) has a key not in `keys` (the fields the converter reads,
    /// reports otherwise, or ignores as metadata).
    pub(crate) fn unknown_fields(&mut self, id: NodeId, keys: &[&str]) -> Conv<()> {
        if self.holds_unknown(id, keys) {
            self.loss(LossCode::DroppedUnknownField, id)?;
        }
        Ok(())
    }

    /// Whether object `id` has a member that holds something ([`Cx::holds_nothing`]) under a key
    /// not in `keys` (what [`Cx::unknown_fields`] reports).
    pub(crate) fn holds_unknown(&self, id: NodeId, keys: &[&str]) -> bool {
        self.tree.children(id).any(|c| !self.holds_nothing(c) && self.tree.key(c).is_some_and(|k| !known(&k, keys)))
    }

    /// Reads the next top-level element of the array `p` is in into the tree: `false` at its end.
    pub(crate) fn next_element(&mut self, p: &mut Parser<'a>) -> Conv<bool> {
        let event = p.next().map_err(|e| wire_error(e, p, self.src, &self.path))?;
        if event == Event::ArrayEnd {
            return Ok(false);
        }
        self.tree.read(p, event).map_err(|e| wire_error(e, p, self.src, &self.path))?;
        Ok(true)
    }
}

/// Whether a key (decoded) is one of `names`.
pub(crate) fn known(key: &crate::json::StringToken<'_>, names: &[&str]) -> bool {
    let decoded = key.decode_bytes().unwrap_or_default();
    names.iter().any(|n| n.as_bytes() == decoded.as_ref())
}

/// A JSON object written from members of the source (provider state): keys as the source spells
/// them, values as their source text.
pub(crate) struct RawObject(Vec<u8>);

impl RawObject {
    pub(crate) fn new() -> RawObject {
        RawObject(vec![b'{'])
    }

    /// Adds the member `key` (its body as written) with the JSON text `value`.
    pub(crate) fn member(&mut self, key: crate::json::StringToken<'_>, value: &[u8]) {
        if self.0.len() > 1 {
            self.0.push(b',');
        }
        self.0.push(b'"');
        self.0.extend_from_slice(key.raw());
        self.0.extend_from_slice(b"\":");
        self.0.extend_from_slice(value);
    }

    /// Whether no member was added.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.len() == 1
    }

    /// The object's text.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.0.push(b'}');
        self.0
    }
}

/// A JSON failure of the source (J5.1–J5.3): `LC_CONVERT_WIRE`. `p` is the parser that failed: a
/// syntax error at its depth limit is nesting too deep (J5.2), as in the wire's diagnosis.
fn wire_error(e: JsonError, p: &Parser<'_>, src: &[u8], path: &Path) -> ConvertError {
    let rule = match e.kind {
        crate::json::ErrorKind::Syntax if p.depth() >= crate::json::MAX_DEPTH => c"J5.2",
        crate::json::ErrorKind::Syntax => c"J5.1",
        crate::json::ErrorKind::Invalid => c"J5.3",
    };
    let d =
        Diagnostic::new(Status::ConvertWire).at_offset_in(e.offset, src).with_location(path.location()).with_rule(rule);
    ConvertError::from(d)
}

/// Converts `src`, a document of `format`, into the wire transcript (SPEC §16).
///
/// # Errors
/// `ConvertWire` (the source is not JSON: J5.1–J5.3, J5.2), `ConvertShape` (not the format's
/// shape: a wrong type, a missing field, an unknown role, a repeated key outside tool inputs,
/// base64 that is not), `ConvertLoss` (with [`STRICT`], the first loss), `InvalidArgument` (a flag
/// that is not one).
pub fn convert(format: Format, src: &[u8], flags: u32) -> Result<Conversion, ConvertError> {
    if flags & !STRICT != 0 {
        return Err(ConvertError::from(Diagnostic::new(Status::InvalidArgument)));
    }
    let mut cx = Cx {
        src,
        tree: Tree::default(),
        path: Path::default(),
        out: Out::new(src.len() + src.len() / 8 + 64),
        strict: flags & STRICT != 0,
    };
    let mut p = Parser::new(src);
    let source_len = match format {
        Format::OpenAiChat => chat::convert(&mut cx, &mut p)?,
        Format::OpenAiResponses => responses::convert(&mut cx, &mut p)?,
        Format::Anthropic => anthropic::convert(&mut cx, &mut p)?,
        Format::Gemini => gemini::convert(&mut cx, &mut p)?,
        Format::AiSdk => ai_sdk::convert(&mut cx, &mut p)?,
        Format::LangChain => langchain::convert(&mut cx, &mut p)?,
    };
    p.finish().map_err(|e| wire_error(e, &p, src, &Path::default()))?;
    let out = cx.out.finish();
    let n = out.source_index.len();
    let cut_allowed: Vec<bool> = (0..=n)
        .map(|c| c == 0 || (c <= out.last_cut() && (c == n || out.cut_before.get(c).copied().unwrap_or(false))))
        .collect();
    Ok(Conversion {
        transcript: out.bytes,
        source_index: out.source_index,
        source_end: out.source_end,
        cut_allowed,
        losses: out.losses,
        source_len,
    })
}

/// Reads the top-level array of a source (`LC_CONVERT_SHAPE` when it is not one).
pub(crate) fn open_array<'a>(cx: &mut Cx<'a>, p: &mut Parser<'a>, what: &'static core::ffi::CStr) -> Conv<()> {
    match p.next() {
        Ok(Event::ArrayStart) => Ok(()),
        Ok(_) => {
            let d = Diagnostic::new(Status::ConvertShape)
                .at_offset_in(p.token_start(), cx.src)
                .with_location(cx.path.location())
                .with_rule(c"G16.8")
                .with_expected(what);
            Err(ConvertError::from(d))
        }
        Err(e) => Err(wire_error(e, p, cx.src, &cx.path)),
    }
}

/// Skips the value whose first event is `first`.
fn skip_value<'a>(p: &mut Parser<'a>, first: Event<'a>) -> Result<(), JsonError> {
    let mut depth = match first {
        Event::ObjectStart | Event::ArrayStart => 1usize,
        _ => return Ok(()),
    };
    while depth > 0 {
        match p.next()? {
            Event::ObjectStart | Event::ArrayStart => depth += 1,
            Event::ObjectEnd | Event::ArrayEnd => depth -= 1,
            Event::String(s) | Event::Key(s) => s.check_utf8()?,
            _ => {}
        }
    }
    Ok(())
}

/// Reads the top-level object of a source member by member: `member` gets each key's decoded name
/// with the parser before its value, and returns whether it read the value; the others (request
/// parameters such as `model`, `max_tokens`, `tools`) are skipped. A key twice is a shape error.
pub(crate) fn object_members<'a>(
    cx: &mut Cx<'a>,
    p: &mut Parser<'a>,
    what: &'static core::ffi::CStr,
    mut member: impl FnMut(&mut Cx<'a>, &mut Parser<'a>, &[u8]) -> Conv<bool>,
) -> Conv<()> {
    match p.next() {
        Ok(Event::ObjectStart) => {}
        Ok(_) => {
            let d = Diagnostic::new(Status::ConvertShape)
                .at_offset_in(p.token_start(), cx.src)
                .with_rule(c"G16.8")
                .with_expected(what);
            return Err(ConvertError::from(d));
        }
        Err(e) => return Err(wire_error(e, p, cx.src, &cx.path)),
    }
    let mut seen: Vec<Vec<u8>> = Vec::new();
    loop {
        let key = match p.next().map_err(|e| wire_error(e, p, cx.src, &cx.path))? {
            Event::ObjectEnd => return Ok(()),
            Event::Key(k) => k,
            _ => return Err(wire_error(JsonError::syntax(p.token_start()), p, cx.src, &cx.path)),
        };
        let at = p.token_start();
        let name = key.decode_bytes().map_err(|e| wire_error(e, p, cx.src, &cx.path))?.into_owned();
        if seen.contains(&name) {
            let d = Diagnostic::new(Status::ConvertShape)
                .at_offset_in(at, cx.src)
                .with_rule(c"G16.8")
                .with_expected(c"a key of the object, once");
            return Err(ConvertError::from(d));
        }
        seen.push(name.clone());
        if !member(cx, p, &name)? {
            let first = p.next().map_err(|e| wire_error(e, p, cx.src, &cx.path))?;
            skip_value(p, first).map_err(|e| wire_error(e, p, cx.src, &cx.path))?;
        }
    }
}

/// The system parameter of a source (`system`, `instructions`, `system_instruction`), read into
/// the tree and converted by `convert` into wire messages of its own, to be put first (G16.2: its
/// source index is [`NOT_A_MESSAGE`], and it is not cut).
pub(crate) fn system_parameter<'a>(
    cx: &mut Cx<'a>,
    p: &mut Parser<'a>,
    name: &'static str,
    convert: impl FnOnce(&mut Cx<'a>) -> Conv<()>,
) -> Conv<Out> {
    let first = p.next().map_err(|e| wire_error(e, p, cx.src, &cx.path))?;
    cx.tree.read(p, first).map_err(|e| wire_error(e, p, cx.src, &cx.path))?;
    let main = core::mem::replace(&mut cx.out, Out::new(64));
    cx.path.name(name);
    let r = convert(cx);
    cx.path.pop(1);
    let system = core::mem::replace(&mut cx.out, main);
    r.map(|()| system)
}
