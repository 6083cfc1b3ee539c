//! A `Stop` array as R10.5 writes it, recognised in one scan: what both the template reader
//! (`canonical`) and the general decoder (`decode`) use to pass over the array on its word.

use crate::json::CheckedArray;
use crate::json::write::{SEPARATOR_LEAD, canonical_escape_len, escape_mask, starts_with_separator};

/// A `Stop` array as R10.5 writes it, found by [`stop_array_end`]: only that scan makes one, so
/// the parser may skip the array on its word ([`crate::json::Parser::skip_checked_array`]). Its
/// strings, as E7.6 writes them, are strings J5.1 accepts (UTF-8 aside, which the skip leaves to a
/// check of the whole document).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CanonicalStop {
    start: usize,
    end: usize,
}

impl CheckedArray for CanonicalStop {
    fn start(self) -> usize {
        self.start
    }

    fn end(self) -> usize {
        self.end
    }
}

/// The array whose `[` is at `start`, with its end (just past its `]`), when it is a `Stop` array
/// as R10.5 writes it: `[]`, or strings as E7.6 writes them, separated by `,`; `None` otherwise.
///
/// `Stop` can hold millions of strings, so they are not read one after the other (each string's
/// start would wait for the end of the one before): the array is scanned in 32-byte blocks at a
/// fixed stride, each classified into one bit mask of its quotes and the bytes E7.6 looks at, and
/// the masks are read in order. The next opening quote must be right after the `,` that follows a
/// closing one, so no other byte can come between the strings.
pub(crate) fn stop_array_end(src: &[u8], start: usize) -> Option<CanonicalStop> {
    if src.get(start) != Some(&b'[') {
        return None;
    }
    if src.get(start + 1) == Some(&b']') {
        return Some(CanonicalStop { start, end: start + 2 });
    }
    // Where the next opening quote must be; `None` inside a string.
    let mut open_at = Some(start + 1);
    // Bytes before `done` are read (an escape may reach into the next block).
    let mut done = start + 1;
    let mut at = start + 1;
    while at < src.len() {
        // The last block is padded with control bytes, which end the scan (`None`) if reached.
        let mut padded = [0x01u8; 32];
        let block = match src.get(at..).and_then(|rest| rest.first_chunk::<32>()) {
            Some(block) => block,
            None => {
                let rest = src.get(at..).unwrap_or_default();
                padded.get_mut(..rest.len())?.copy_from_slice(rest);
                &padded
            }
        };
        let mut mask = escape_mask(block) & after(done.saturating_sub(at));
        while mask != 0 {
            let p = at + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let b = src.get(p).copied().unwrap_or(0x01);
            match open_at {
                Some(expected) => {
                    if b != b'"' || p != expected {
                        return None;
                    }
                    open_at = None;
                }
                None => match b {
                    b'"' => match src.get(p + 1) {
                        Some(b',') => open_at = Some(p + 2),
                        Some(b']') => return Some(CanonicalStop { start, end: p + 2 }),
                        _ => return None,
                    },
                    b'\\' => {
                        done = p + canonical_escape_len(src.get(p..)?)?;
                        mask &= after(done.saturating_sub(at));
                    }
                    SEPARATOR_LEAD if !starts_with_separator(src.get(p..)?) => {}
                    _ => return None,
                },
            }
        }
        at += 32;
    }
    None
}

/// The bits of a block's mask from `k` up (none for `k >= 32`).
#[inline(always)]
fn after(k: usize) -> u32 {
    u32::try_from(k).ok().and_then(|k| u32::MAX.checked_shl(k)).unwrap_or(0)
}
