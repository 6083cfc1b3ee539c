//! A read-only tree of one JSON value of a provider's document, borrowed from the source: the
//! converters look fields up by name and walk arrays in any order, which a pull parser cannot
//! give. The strict reader ([`Parser`]) checks the grammar, the depth (J5.1, J5.2) and every
//! string's UTF-8 (J5.3); the tree is built without recursion, one top-level element at a time
//! (a message, an item), into a node arena the caller reuses, so memory is that of the largest
//! element, not of the document.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::json::{Event, JResult, JsonError, Parser, SMALL_OBJECT, Span, StringToken, first_repeat_pairwise};

/// An index into the arena. The root of a built value is 0.
pub(crate) type NodeId = u32;
/// No node (the end of a sibling list, no child).
const NONE: NodeId = NodeId::MAX;

/// A JSON value's kind, with what a leaf carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    Null,
    Bool(bool),
    /// The number's text (RFC 8259 grammar checked).
    Number(&'a [u8]),
    String(StringToken<'a>),
    Array,
    Object,
}

/// A node's kind; a leaf's text is its span in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    Null,
    False,
    True,
    Number,
    String,
    Array,
    Object,
}

/// [`Node::flags`]: the string value's and the key's two flags (escaped, UTF-8 unchecked, as
/// [`StringToken`] keeps them), and whether the node has a key.
const VALUE_ESCAPED: u8 = 1;
const VALUE_UNCHECKED: u8 = 2;
const KEY_ESCAPED: u8 = 4;
const KEY_UNCHECKED: u8 = 8;
const HAS_KEY: u8 = 16;

/// One node: its kind, its span in the source (from the first byte of the value to the byte
/// after it), its key's body when it is an object member, its first child and next sibling.
/// Strings and numbers are read back from the source through the span ([`Tree::value`]), so a
/// node takes 48 bytes: one user message of 10^5 text blocks is a tree of 3 x 10^5 nodes, which
/// took 88 bytes each while a node held its tokens.
#[derive(Debug, Clone, Copy)]
struct Node {
    start: usize,
    end: usize,
    /// The key's body (between its quotes): offset and length.
    key_start: usize,
    key_len: u32,
    first: NodeId,
    next: NodeId,
    /// Arrays and objects: the number of children.
    len: u32,
    kind: Kind,
    flags: u8,
}

const _: () = assert!(size_of::<Node>() <= 48);

impl Node {
    /// Where its key's body lies in the source (empty when it has none).
    fn key_body(&self) -> core::ops::Range<usize> {
        self.key_start..self.key_start + self.key_len as usize
    }
}

/// The flags of a string token, shifted to `escaped` and `unchecked`.
fn token_flags(s: &StringToken<'_>, escaped: u8, unchecked: u8) -> u8 {
    (if s.has_escapes() { escaped } else { 0 }) | if s.is_unchecked() { unchecked } else { 0 }
}

/// The arena of one value (reused: [`Tree::read`] clears it), and the source it was read from.
#[derive(Default)]
pub(crate) struct Tree<'a> {
    nodes: Vec<Node>,
    src: &'a [u8],
}

impl<'a> Tree<'a> {
    /// Reads the next value from `p` (positioned before it, its first event `first` already
    /// pulled) into the arena, replacing what it held. Its root is node 0.
    pub(crate) fn read(&mut self, p: &mut Parser<'a>, first: Event<'a>) -> JResult<()> {
        self.nodes.clear();
        self.src = p.src();
        // Open containers: (node, last child so far).
        let mut stack: Vec<(NodeId, NodeId)> = Vec::new();
        let mut key: Option<StringToken<'a>> = None;
        let mut event = first;
        loop {
            let start = p.token_start();
            let mut flags = 0;
            let kind = match event {
                Event::Key(k) => {
                    k.check_utf8()?;
                    key = Some(k);
                    event = p.next()?;
                    continue;
                }
                Event::ObjectEnd | Event::ArrayEnd => {
                    let Some((node, _)) = stack.pop() else {
                        return Err(JsonError::syntax(start));
                    };
                    if let Some(n) = self.nodes.get_mut(node as usize) {
                        n.end = p.pos();
                    }
                    if stack.is_empty() {
                        return Ok(());
                    }
                    event = p.next()?;
                    continue;
                }
                Event::String(s) => {
                    s.check_utf8()?;
                    // The body lies between the span's quotes (Tree::value reads it back there).
                    debug_assert_eq!((s.span().start, s.span().end + 1), (start + 1, p.pos()));
                    flags = token_flags(&s, VALUE_ESCAPED, VALUE_UNCHECKED);
                    Kind::String
                }
                Event::Number(text) => {
                    debug_assert_eq!(text.len(), p.pos() - start);
                    Kind::Number
                }
                Event::Bool(b) => {
                    if b {
                        Kind::True
                    } else {
                        Kind::False
                    }
                }
                Event::Null => Kind::Null,
                Event::ObjectStart => Kind::Object,
                Event::ArrayStart => Kind::Array,
            };
            let id = NodeId::try_from(self.nodes.len()).map_err(|_| JsonError::invalid(start))?;
            let (key_start, key_len) = match key.take() {
                Some(k) => {
                    flags |= HAS_KEY | token_flags(&k, KEY_ESCAPED, KEY_UNCHECKED);
                    let span = k.span();
                    let len = u32::try_from(span.end - span.start).map_err(|_| JsonError::invalid(span.start))?;
                    (span.start, len)
                }
                None => (0, 0),
            };
            self.nodes.push(Node {
                start,
                end: p.pos(),
                key_start,
                key_len,
                first: NONE,
                next: NONE,
                len: 0,
                kind,
                flags,
            });
            if let Some((parent, last)) = stack.last_mut() {
                if *last == NONE {
                    if let Some(n) = self.nodes.get_mut(*parent as usize) {
                        n.first = id;
                    }
                } else if let Some(n) = self.nodes.get_mut(*last as usize) {
                    n.next = id;
                }
                *last = id;
                if let Some(n) = self.nodes.get_mut(*parent as usize) {
                    n.len += 1;
                }
            }
            match kind {
                Kind::Object | Kind::Array => stack.push((id, NONE)),
                _ if stack.is_empty() => return Ok(()),
                _ => {}
            }
            event = p.next()?;
        }
    }

    fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id as usize)
    }

    /// The value of node `id` (`Null` for an id that is not one).
    pub(crate) fn value(&self, id: NodeId) -> Value<'a> {
        let Some(n) = self.node(id) else { return Value::Null };
        match n.kind {
            Kind::Null => Value::Null,
            Kind::False => Value::Bool(false),
            Kind::True => Value::Bool(true),
            Kind::Number => Value::Number(self.src.get(n.start..n.end).unwrap_or_default()),
            Kind::String => {
                let body = (n.start + 1)..n.end.saturating_sub(1).max(n.start + 1);
                Value::String(StringToken::new(
                    body.start,
                    self.src.get(body).unwrap_or_default(),
                    n.flags & VALUE_ESCAPED != 0,
                    n.flags & VALUE_UNCHECKED != 0,
                ))
            }
            Kind::Array => Value::Array,
            Kind::Object => Value::Object,
        }
    }

    /// The node's span in the source.
    pub(crate) fn span(&self, id: NodeId) -> Span {
        self.node(id).map_or(Span::default(), |n| Span { start: n.start, end: n.end })
    }

    /// The number of children of an array or object.
    pub(crate) fn len(&self, id: NodeId) -> usize {
        self.node(id).map_or(0, |n| n.len as usize)
    }

    /// The children of an array or object, in order.
    pub(crate) fn children(&self, id: NodeId) -> Children<'_, 'a> {
        Children { tree: self, at: self.node(id).map_or(NONE, |n| n.first) }
    }

    /// The key of an object member.
    pub(crate) fn key(&self, id: NodeId) -> Option<StringToken<'a>> {
        let n = self.node(id).filter(|n| n.flags & HAS_KEY != 0)?;
        Some(StringToken::new(
            n.key_start,
            self.src.get(n.key_body()).unwrap_or_default(),
            n.flags & KEY_ESCAPED != 0,
            n.flags & KEY_UNCHECKED != 0,
        ))
    }

    /// The member `name` of object `id` (compared decoded, J5.5), if any.
    pub(crate) fn get(&self, id: NodeId, name: &str) -> Option<NodeId> {
        let mut at = self.node(id).filter(|n| n.kind == Kind::Object)?.first;
        while let Some(c) = self.node(at) {
            // A key with no escape is its text: compared as written, the length first.
            let hit = if c.flags & KEY_ESCAPED == 0 {
                c.key_len as usize == name.len() && self.plain_key(c) == Some(name.as_bytes())
            } else {
                self.key(at).is_some_and(|k| key_is(&k, name))
            };
            if hit {
                return Some(at);
            }
            at = c.next;
        }
        None
    }

    /// The body of a node's key when it has no escape (its text, as written).
    fn plain_key(&self, n: &Node) -> Option<&'a [u8]> {
        if n.flags & (HAS_KEY | KEY_ESCAPED) != HAS_KEY {
            return None;
        }
        self.src.get(n.key_body())
    }

    /// The first key of object `id` that repeats an earlier one (compared decoded), if any.
    pub(crate) fn duplicate(&self, id: NodeId) -> Option<NodeId> {
        // Nearly every object of a message is small and its keys have no escape: their raw
        // bytes are their text, gathered once and compared pairwise with no allocation and no
        // hashing.
        if self.len(id) <= SMALL_OBJECT {
            let mut keys: [&[u8]; SMALL_OBJECT] = [&[]; SMALL_OBJECT];
            let mut ids = [NONE; SMALL_OBJECT];
            let mut n = 0;
            for c in self.children(id) {
                let (Some(key), Some(k), Some(i)) =
                    (self.node(c).and_then(|node| self.plain_key(node)), keys.get_mut(n), ids.get_mut(n))
                else {
                    return self.duplicate_plain(id);
                };
                (*k, *i) = (key, c);
                n += 1;
            }
            return first_repeat_pairwise(n, |i| keys.get(i).copied().unwrap_or_default())
                .and_then(|i| ids.get(i).copied());
        }
        self.duplicate_plain(id)
    }

    /// [`Tree::duplicate`] for any object: each decoded key into a set.
    fn duplicate_plain(&self, id: NodeId) -> Option<NodeId> {
        let mut seen: HashSet<Cow<'a, [u8]>> = HashSet::new();
        self.children(id).find(|&c| {
            let key = self.key(c).and_then(|k| k.decode_bytes().ok()).unwrap_or(Cow::Borrowed(b""));
            !seen.insert(key)
        })
    }

    /// How many containers nest in value `id`, itself included (0 for a scalar).
    pub(crate) fn depth(&self, id: NodeId) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(id, 1usize)];
        while let Some((n, depth)) = stack.pop() {
            if matches!(self.node(n).map(|n| n.kind), Some(Kind::Object | Kind::Array)) {
                deepest = deepest.max(depth);
                stack.extend(self.children(n).map(|c| (c, depth + 1)));
            }
        }
        deepest
    }

    /// Every object in the subtree of `id` (itself included), iteratively.
    pub(crate) fn objects(&self, id: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            match self.node(n).map(|n| n.kind) {
                Some(Kind::Object) => {
                    out.push(n);
                    stack.extend(self.children(n));
                }
                Some(Kind::Array) => stack.extend(self.children(n)),
                _ => {}
            }
        }
        out
    }
}

/// Whether a key's decoded text is `name` (keys with no escape compare as written).
fn key_is(key: &StringToken<'_>, name: &str) -> bool {
    if key.has_escapes() {
        key.decode_bytes().is_ok_and(|k| k.as_ref() == name.as_bytes())
    } else {
        key.raw() == name.as_bytes()
    }
}

/// The children of a node, in order.
pub(crate) struct Children<'t, 'a> {
    tree: &'t Tree<'a>,
    at: NodeId,
}

impl Iterator for Children<'_, '_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        let id = self.at;
        let node = self.tree.node(id)?;
        self.at = node.next;
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `duplicate`'s pairwise compares against the set of decoded keys, on objects of 0 to 20
    /// members drawn from keys that collide as written and through escapes.
    #[test]
    fn the_pairwise_check_agrees_with_the_set() {
        let keys = [r#""a""#, r#""b""#, r#""ab""#, r#""\u0061""#, r#""""#, r#""é""#, r#""\u00e9""#];
        let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1Du64);
        for _ in 0..50_000 {
            let members = (next() % 21) as usize;
            let escapes = next().is_multiple_of(4);
            let body: Vec<String> = (0..members)
                .map(|_| {
                    let k = keys[(next() % if escapes { 7 } else { 3 }) as usize];
                    format!("{k}:{}", next() % 3)
                })
                .collect();
            let doc = format!("{{{}}}", body.join(","));
            let (mut tree, mut p) = (Tree::default(), Parser::new(doc.as_bytes()));
            let first = p.next().unwrap();
            tree.read(&mut p, first).unwrap();
            assert_eq!(tree.duplicate(0), tree.duplicate_plain(0), "{doc}");
        }
    }
}
