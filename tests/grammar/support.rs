//! Checked wrappers over the grammar exports and shared helpers.

use std::ffi::CStr;
use std::ptr;

pub use loopcompact::ffi;
pub use testkit::status::*;

/// `lc_summary_grammar(kind)`: static (the same pointer twice), NUL-terminated UTF-8, or `None`
/// for NULL.
pub fn grammar(kind: i32) -> Option<&'static str> {
    let p = ffi::lc_summary_grammar(kind);
    assert_eq!(p, ffi::lc_summary_grammar(kind), "lc_summary_grammar is not static");
    if p.is_null() {
        return None;
    }
    // SAFETY: a static NUL-terminated string (G17.1).
    Some(unsafe { CStr::from_ptr(p) }.to_str().expect("grammar is not UTF-8"))
}

/// `lc_summary_json_schema()`.
pub fn json_schema() -> &'static str {
    let p = ffi::lc_summary_json_schema();
    assert!(!p.is_null());
    assert_eq!(p, ffi::lc_summary_json_schema(), "lc_summary_json_schema is not static");
    // SAFETY: a static NUL-terminated string (G17.7).
    unsafe { CStr::from_ptr(p) }.to_str().expect("schema is not UTF-8")
}

/// The regex of G17.4, compiled by the `regex` crate and anchored at both ends (the grammar is
/// matched against the whole reply).
pub fn regex() -> ::regex::Regex {
    let text = grammar(ffi::LC_GRAMMAR_REGEX).expect("regex");
    ::regex::Regex::new(&format!(r"\A(?:{text})\z")).expect("the regex crate compiles the grammar")
}

/// `(NULL, 0)` for an empty input, as hosts pass it.
fn in_ptr(data: &[u8]) -> *const u8 {
    if data.is_empty() { ptr::null() } else { data.as_ptr() }
}

/// `lc_summary_render` with the two-call pattern checked: the size query gives
/// `LC_ERR_BUFFER_TOO_SMALL` and the length, a buffer one byte short stays untouched, the exact
/// size gives `LC_OK` and the same length; `*len` is untouched on a content failure.
pub fn render(sections: [&[u8]; 5]) -> Result<Vec<u8>, i32> {
    let call = |buf: *mut u8, cap: usize, len: &mut usize| {
        let [g, c, d, s, o] = sections;
        // SAFETY: live buffers (or NULL with length 0), `buf` writable for `cap` bytes (or NULL
        // with 0), `len` writable.
        unsafe {
            ffi::lc_summary_render(
                in_ptr(g),
                g.len(),
                in_ptr(c),
                c.len(),
                in_ptr(d),
                d.len(),
                in_ptr(s),
                s.len(),
                in_ptr(o),
                o.len(),
                buf,
                cap,
                len,
            )
        }
    };
    let mut len = usize::MAX;
    let rc = call(ptr::null_mut(), 0, &mut len);
    if rc != LC_ERR_BUFFER_TOO_SMALL {
        assert_ne!(rc, LC_OK, "a rendered summary is never empty");
        assert_eq!(len, usize::MAX, "lc_summary_render wrote *len on {}", name(rc));
        return Err(rc);
    }
    let needed = len;
    let mut short = vec![0xA5u8; needed - 1];
    let mut len2 = 0;
    assert_eq!(call(short.as_mut_ptr(), short.len(), &mut len2), LC_ERR_BUFFER_TOO_SMALL);
    assert_eq!(len2, needed);
    assert!(short.iter().all(|&b| b == 0xA5), "a too-small buffer was written");
    let mut buf = vec![0xA5u8; needed + 3];
    let mut len3 = 0;
    assert_eq!(call(buf.as_mut_ptr(), buf.len(), &mut len3), LC_OK);
    assert_eq!(len3, needed);
    assert!(buf[needed..].iter().all(|&b| b == 0xA5), "wrote past its length");
    buf.truncate(needed);
    Ok(buf)
}

/// A deterministic generator (xorshift64*), so that every run samples the same strings.
pub struct Seeded(u64);

impl Seeded {
    pub fn new(seed: u64) -> Seeded {
        Seeded(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u64) -> bool {
        self.next() % 100 < p
    }
}
