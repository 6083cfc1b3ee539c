//! Tool inputs (SPEC G16.4): a JSON value on the wire. Object sources are copied; string sources
//! (OpenAI's `arguments`) are parsed. A repeated key is resolved as the providers' own parsers
//! resolve it (the last value at the first key's place) and reported; text that is not JSON is
//! kept as a JSON string and reported.

use std::borrow::Cow;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::diagnostic::Diagnostic;
use crate::json::write::put_str;
use crate::json::{Event, MAX_DEPTH, Parser, StringToken};
use crate::status::Status;

use super::tree::{NodeId, Tree, Value};
use super::{Conv, ConvertError, Cx, LossCode};

/// The most containers a tool input may nest (J5.2 for the input document it goes into): the
/// document, its transcript, the message, its blocks and the block hold it, five levels of the
/// [`MAX_DEPTH`] a document may nest.
const INPUT_DEPTH: usize = MAX_DEPTH - 5;

/// The wire `input` of a call whose arguments are node `id` of the element's tree: JSON text.
/// Refused (`LC_CONVERT_WIRE`, J5.2) when it nests deeper than an input document may hold it,
/// which a source can do where it holds a tool input under fewer containers (the AI SDK's and
/// LangChain's message lists).
pub(crate) fn from_value<'a>(cx: &mut Cx<'a>, id: NodeId) -> Conv<Cow<'a, [u8]>> {
    let tree = &cx.tree;
    let span = tree.span(id);
    if tree.depth(id) > INPUT_DEPTH {
        let d = Diagnostic::new(Status::ConvertWire)
            .at_offset_in(span.start, cx.src)
            .with_location(cx.path.location())
            .with_rule(c"J5.2");
        return Err(ConvertError::from(d));
    }
    if tree.objects(id).into_iter().any(|o| tree.duplicate(o).is_some()) {
        let mut out = Vec::with_capacity(span.end - span.start);
        resolve(tree, id, &mut out);
        cx.loss(LossCode::DuplicateArgumentKey, id)?;
        return Ok(Cow::Owned(out));
    }
    Ok(Cow::Borrowed(span.of(cx.src)))
}

/// The wire `input` of a call whose arguments are the string `text` (node `at`): the JSON value it
/// holds, or the text as a JSON string when it holds none.
pub(crate) fn from_text<'a>(cx: &mut Cx<'a>, text: StringToken<'a>, at: NodeId) -> Conv<Cow<'a, [u8]>> {
    let decoded = text.decode_bytes().unwrap_or_default();
    // Most arguments repeat no key: checked with the pull parser, they are the text as it is,
    // without a tree (a tree costs tens of bytes per token of a string of any length).
    let parsed = match may_repeat_a_key(&decoded) {
        Some(false) => return Ok(decoded),
        Some(true) => parse_one(&decoded),
        None => None,
    };
    match parsed {
        Some((resolved, duplicates)) => {
            if duplicates {
                cx.loss(LossCode::DuplicateArgumentKey, at)?;
            }
            Ok(Cow::Owned(resolved))
        }
        None => {
            cx.loss(LossCode::ArgumentsUnparseable, at)?;
            let mut out = Vec::with_capacity(decoded.len() + 2);
            put_str(&mut out, simdutf8::basic::from_utf8(&decoded).unwrap_or_default());
            Ok(Cow::Owned(out))
        }
    }
}

/// Whether `text` is one JSON value with optional surrounding whitespace (J5.1–J5.3) in which an
/// object may repeat a key: `None` when it is not one, or nests deeper than a tool input may
/// ([`INPUT_DEPTH`]: the wire could not take it as a value), `Some(false)` when no object repeats a key
/// (each object's decoded keys hashed into a set while it is open), `Some(true)` when two keys of
/// an object hash alike ([`parse_one`], the tree, then decides). The fast check of [`parse_one`]:
/// the same verdict without a node per token (`tests` below compares them).
fn may_repeat_a_key(text: &[u8]) -> Option<bool> {
    let mut p = Parser::new(text);
    // One entry per open container: the key hashes of an object, `None` for an array.
    let mut open: Vec<Option<HashSet<u64>>> = Vec::new();
    let mut repeated = false;
    loop {
        match p.next().ok()? {
            Event::ObjectStart | Event::ArrayStart if open.len() == INPUT_DEPTH => return None,
            Event::ObjectStart => open.push(Some(HashSet::new())),
            Event::ArrayStart => open.push(None),
            Event::ObjectEnd | Event::ArrayEnd => {
                open.pop();
            }
            Event::Key(k) => {
                k.check_utf8().ok()?;
                let key = k.decode_bytes().ok()?;
                if let Some(Some(keys)) = open.last_mut() {
                    let mut h = DefaultHasher::new();
                    key.hash(&mut h);
                    repeated |= !keys.insert(h.finish());
                }
            }
            Event::String(s) => s.check_utf8().ok()?,
            Event::Number(_) | Event::Bool(_) | Event::Null => {}
        }
        if open.is_empty() {
            break;
        }
    }
    p.finish().ok()?;
    Some(repeated)
}

/// One JSON value with optional surrounding whitespace (J5.1–J5.3): its text with repeated keys
/// resolved, and whether there were any.
fn parse_one(text: &[u8]) -> Option<(Vec<u8>, bool)> {
    let mut p = Parser::new(text);
    let first = p.next().ok()?;
    let mut tree = Tree::default();
    tree.read(&mut p, first).ok()?;
    p.finish().ok()?;
    let duplicates = tree.objects(0).into_iter().any(|o| tree.duplicate(o).is_some());
    let mut out = Vec::with_capacity(text.len());
    if duplicates {
        resolve(&tree, 0, &mut out);
    } else {
        out.extend_from_slice(text);
    }
    Some((out, duplicates))
}

/// What is left to write of a value being resolved.
enum Task<'a> {
    Value(NodeId),
    Bytes(&'static [u8]),
    Key(StringToken<'a>),
}

/// Writes the value `id` as JSON text, every object with each key once: at its first place, with
/// its last value. Without recursion.
fn resolve(tree: &Tree<'_>, id: NodeId, out: &mut Vec<u8>) {
    let mut tasks = vec![Task::Value(id)];
    while let Some(task) = tasks.pop() {
        match task {
            Task::Bytes(b) => out.extend_from_slice(b),
            Task::Key(k) => {
                out.push(b'"');
                out.extend_from_slice(k.raw());
                out.extend_from_slice(b"\":");
            }
            Task::Value(n) => match tree.value(n) {
                Value::Array => {
                    out.push(b'[');
                    tasks.push(Task::Bytes(b"]"));
                    let children: Vec<NodeId> = tree.children(n).collect();
                    for (i, c) in children.iter().enumerate().rev() {
                        tasks.push(Task::Value(*c));
                        if i > 0 {
                            tasks.push(Task::Bytes(b","));
                        }
                    }
                }
                Value::Object => {
                    out.push(b'{');
                    tasks.push(Task::Bytes(b"}"));
                    // Each key once, at its first place, with its last value.
                    let mut order: Vec<(StringToken<'_>, NodeId)> = Vec::new();
                    let mut at: HashMap<Cow<'_, [u8]>, usize> = HashMap::new();
                    for c in tree.children(n) {
                        let Some(key) = tree.key(c) else { continue };
                        let decoded = key.decode_bytes().unwrap_or_default();
                        match at.get(&decoded) {
                            Some(&i) => {
                                if let Some(slot) = order.get_mut(i) {
                                    slot.1 = c;
                                }
                            }
                            None => {
                                at.insert(decoded, order.len());
                                order.push((key, c));
                            }
                        }
                    }
                    for (i, (key, value)) in order.iter().enumerate().rev() {
                        tasks.push(Task::Value(*value));
                        tasks.push(Task::Key(*key));
                        if i > 0 {
                            tasks.push(Task::Bytes(b","));
                        }
                    }
                }
                Value::String(s) => {
                    out.push(b'"');
                    out.extend_from_slice(s.raw());
                    out.push(b'"');
                }
                Value::Number(t) => out.extend_from_slice(t),
                Value::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
                Value::Null => out.extend_from_slice(b"null"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree's verdict: not JSON (`None`), or whether some object repeats a key.
    fn tree_verdict(text: &[u8]) -> Option<bool> {
        parse_one(text).map(|(_, duplicates)| duplicates)
    }

    /// `may_repeat_a_key` against the tree on documents built from keys, values, nesting and
    /// broken pieces: the same parse verdict, and `Some(false)` only where the tree finds no
    /// repeated key.
    #[test]
    fn the_fast_check_agrees_with_the_tree() {
        let pieces: [&[u8]; 16] = [
            b"{",
            b"}",
            b"[",
            b"]",
            b"\"a\":",
            b"\"b\":",
            b"\"\\u0061\":",
            b"1",
            b"\"x\"",
            b",",
            b" ",
            b"null",
            b"\"\xff\"",
            b"{\"a\":1,\"a\":2}",
            b"[{\"k\":[]},{\"k\":{}}]",
            b"\"\\n\"",
        ];
        let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15u64);
        for _ in 0..200_000 {
            let len = (next() % 9) as usize;
            let doc: Vec<u8> = (0..len).flat_map(|_| pieces[(next() % 16) as usize].iter().copied()).collect();
            let (fast, tree) = (may_repeat_a_key(&doc), tree_verdict(&doc));
            assert_eq!(fast.is_some(), tree.is_some(), "parse verdicts differ on {:?}", String::from_utf8_lossy(&doc));
            if fast == Some(false) {
                assert_eq!(
                    tree,
                    Some(false),
                    "the fast check missed a repeated key in {:?}",
                    String::from_utf8_lossy(&doc)
                );
            }
            if tree == Some(true) {
                assert_eq!(fast, Some(true), "{:?}", String::from_utf8_lossy(&doc));
            }
        }
    }
}
