//! A read-only tree of one JSON value of a provider's document, borrowed from the source: the
//! converters look fields up by name and walk arrays in any order, which a pull parser cannot
//! give. The strict reader ([`Parser`]) checks the grammar, the depth (J5.1, J5.2) and every
//! string's UTF-8 (J5.3); the tree is built without recursion, one top-level element at a time
//! (a message, an item), into a node arena the caller reuses, so memory is that of the largest
//! element, not of the document.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::json::{Event, JResult, JsonError, Parser, Span, StringToken};

/// An index into the arena. The root of a built value is 0.
pub(crate) type NodeId = u32;
/// No node (the end of a sibling list, no child).
const NONE: NodeId = NodeId::MAX;
/// Objects of at most this many members look for a repeated key by pairwise compares.
const SMALL_OBJECT: usize = 16;

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

/// One node: the value, its span in the source (from the first byte of the value to the byte
/// after it), its key when it is an object member, its first child and next sibling.
#[derive(Debug, Clone, Copy)]
struct Node<'a> {
    value: Value<'a>,
    span: Span,
    key: Option<StringToken<'a>>,
    first: NodeId,
    next: NodeId,
    /// Arrays and objects: the number of children.
    len: u32,
}

/// The arena of one value (reused: [`Tree::read`] clears it).
#[derive(Default)]
pub(crate) struct Tree<'a> {
    nodes: Vec<Node<'a>>,
}

impl<'a> Tree<'a> {
    /// Reads the next value from `p` (positioned before it, its first event `first` already
    /// pulled) into the arena, replacing what it held. Its root is node 0.
    pub(crate) fn read(&mut self, p: &mut Parser<'a>, first: Event<'a>) -> JResult<()> {
        self.nodes.clear();
        // Open containers: (node, last child so far).
        let mut stack: Vec<(NodeId, NodeId)> = Vec::new();
        let mut key: Option<StringToken<'a>> = None;
        let mut event = first;
        loop {
            let start = p.token_start();
            let value = match event {
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
                        n.span.end = p.pos();
                    }
                    if stack.is_empty() {
                        return Ok(());
                    }
                    event = p.next()?;
                    continue;
                }
                Event::String(s) => {
                    s.check_utf8()?;
                    Value::String(s)
                }
                Event::Number(text) => Value::Number(text),
                Event::Bool(b) => Value::Bool(b),
                Event::Null => Value::Null,
                Event::ObjectStart => Value::Object,
                Event::ArrayStart => Value::Array,
            };
            let id = NodeId::try_from(self.nodes.len()).map_err(|_| JsonError::invalid(start))?;
            let span = Span { start, end: p.pos() };
            self.nodes.push(Node { value, span, key: key.take(), first: NONE, next: NONE, len: 0 });
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
            match value {
                Value::Object | Value::Array => stack.push((id, NONE)),
                _ if stack.is_empty() => return Ok(()),
                _ => {}
            }
            event = p.next()?;
        }
    }

    fn node(&self, id: NodeId) -> Option<&Node<'a>> {
        self.nodes.get(id as usize)
    }

    /// The value of node `id` (`Null` for an id that is not one).
    pub(crate) fn value(&self, id: NodeId) -> Value<'a> {
        self.node(id).map_or(Value::Null, |n| n.value)
    }

    /// The node's span in the source.
    pub(crate) fn span(&self, id: NodeId) -> Span {
        self.node(id).map_or(Span::default(), |n| n.span)
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
        self.node(id).and_then(|n| n.key)
    }

    /// The member `name` of object `id` (compared decoded, J5.5), if any.
    pub(crate) fn get(&self, id: NodeId, name: &str) -> Option<NodeId> {
        if !matches!(self.value(id), Value::Object) {
            return None;
        }
        self.children(id).find(|&c| self.key(c).is_some_and(|k| key_is(&k, name)))
    }

    /// The first key of object `id` that repeats an earlier one (compared decoded), if any.
    pub(crate) fn duplicate(&self, id: NodeId) -> Option<NodeId> {
        // Nearly every object of a message is small and its keys have no escape: their raw
        // bytes are their text, compared pairwise with no allocation and no hashing.
        if self.len(id) <= SMALL_OBJECT && self.children(id).all(|c| self.key(c).is_some_and(|k| !k.has_escapes())) {
            let raw = |c: NodeId| self.key(c).map(|k| k.raw());
            return self
                .children(id)
                .enumerate()
                .find(|&(i, c)| self.children(id).take(i).any(|d| raw(d) == raw(c)))
                .map(|(_, c)| c);
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

    /// Every object in the subtree of `id` (itself included), iteratively.
    pub(crate) fn objects(&self, id: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            match self.value(n) {
                Value::Object => {
                    out.push(n);
                    stack.extend(self.children(n));
                }
                Value::Array => stack.extend(self.children(n)),
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
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..50_000 {
            let members = (next() % 21) as usize;
            let escapes = next() % 4 == 0;
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
