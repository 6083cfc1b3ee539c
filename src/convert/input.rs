//! Tool inputs (SPEC G16.4): a JSON value on the wire. Object sources are copied; string sources
//! (OpenAI's `arguments`) are parsed. A repeated key is resolved as the providers' own parsers
//! resolve it (the last value at the first key's place) and reported; text that is not JSON is
//! kept as a JSON string and reported.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::json::write::put_str;
use crate::json::{Parser, StringToken};

use super::tree::{NodeId, Tree, Value};
use super::{Conv, Cx, LossCode};

/// The wire `input` of a call whose arguments are node `id` of the element's tree: JSON text.
pub(crate) fn from_value<'a>(cx: &mut Cx<'a>, id: NodeId) -> Conv<Cow<'a, [u8]>> {
    let tree = &cx.tree;
    let span = tree.span(id);
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
    let parsed = parse_one(&decoded);
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
