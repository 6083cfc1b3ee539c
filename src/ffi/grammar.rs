//! The grammars, the JSON Schema and the renderer of SPEC §17.1–§17.2.

use core::ffi::c_char;

use super::{InBuf, OutBuf, ffi_guard, ffi_status, lc_status};
use crate::summary::{self, GrammarKind};

/// `lc_summary_grammar` kind: one regular expression, matched against the whole reply (SPEC G17.4).
pub const LC_GRAMMAR_REGEX: i32 = 1;
/// `lc_summary_grammar` kind: a Lark grammar, start rule `start` (SPEC G17.5).
pub const LC_GRAMMAR_LARK: i32 = 2;
/// `lc_summary_grammar` kind: a GBNF grammar for llama.cpp, start rule `root` (SPEC G17.6).
pub const LC_GRAMMAR_GBNF: i32 = 3;

const _: () = {
    assert!(LC_GRAMMAR_REGEX == GrammarKind::Regex.code());
    assert!(LC_GRAMMAR_LARK == GrammarKind::Lark.code());
    assert!(LC_GRAMMAR_GBNF == GrammarKind::Gbnf.code());
};

/// A grammar of the summary language for constrained decoding (SPEC G17.1): `kind` is
/// `LC_GRAMMAR_REGEX`, `LC_GRAMMAR_LARK` or `LC_GRAMMAR_GBNF`. Every string the grammar matches
/// passes `lc_summary_xml_validate`. Static, NUL-terminated; NULL for any other `kind` (and if the
/// call would panic).
#[unsafe(no_mangle)]
pub extern "C" fn lc_summary_grammar(kind: i32) -> *const c_char {
    ffi_guard!(core::ptr::null(), {
        match GrammarKind::from_code(kind) {
            Some(kind) => summary::grammar_c(kind).as_ptr(),
            None => core::ptr::null(),
        }
    })
}

/// The JSON Schema of the summary's structured-output form (SPEC G17.7): an object whose five
/// string properties `goal`, `constraints`, `decisions`, `state`, `open_items` are all required,
/// with no other property; `lc_summary_render` turns such an object into the summary. Static,
/// NUL-terminated, never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn lc_summary_json_schema() -> *const c_char {
    summary::JSON_SCHEMA_C.as_ptr()
}

/// Builds the summary XML from the five sections' UTF-8 texts (SPEC G17.8, G17.9), escaping `&`,
/// `<`, `>` and CR; the result passes `lc_summary_xml_validate` and `lc_summary_section_text` gives
/// each input back. Written to `buf` (two-call pattern: `*len` is set on `LC_OK` and on
/// `LC_ERR_BUFFER_TOO_SMALL`).
///
/// Statuses: `LC_SUMMARY_XML_SYNTAX` (a text that is not UTF-8 or holds a character XML cannot
/// carry: U+0000–U+0008, U+000B, U+000C, U+000E–U+001F, U+FFFE, U+FFFF), `LC_SUMMARY_XML_CONTENT`
/// (a blank `goal` or `state`), the first in section order; `LC_ERR_BUFFER_TOO_SMALL`; a boundary
/// code.
///
/// # Safety
/// Each text is NULL (with length 0) or valid for reads of its length; `buf` is NULL (with
/// `cap == 0`) or valid for writes of `cap` bytes and overlaps no text; `len` is valid for one
/// write.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn lc_summary_render(
    goal: *const u8,
    goal_len: usize,
    constraints: *const u8,
    constraints_len: usize,
    decisions: *const u8,
    decisions_len: usize,
    state: *const u8,
    state_len: usize,
    open_items: *const u8,
    open_items_len: usize,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> lc_status {
    ffi_status!({
        let inputs = [
            InBuf::new(goal, goal_len)?,
            InBuf::new(constraints, constraints_len)?,
            InBuf::new(decisions, decisions_len)?,
            InBuf::new(state, state_len)?,
            InBuf::new(open_items, open_items_len)?,
        ];
        let out = OutBuf::new(buf, cap, len)?;
        let mut texts: [&[u8]; 5] = [&[]; 5];
        for (text, input) in texts.iter_mut().zip(inputs) {
            // SAFETY: guaranteed by the caller (see above).
            *text = unsafe { input.slice() }?;
        }
        let xml = summary::render(texts)?;
        // SAFETY: buffer validity is the caller's contract; `xml` is our own allocation.
        unsafe { out.write(xml.as_bytes()) }
    })
}
