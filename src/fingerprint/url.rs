//! R10.4: whether a non-empty `BaseURL` is acceptable to the reference (Go 1.26 `url.Parse` with
//! strict colons, plus the reference's own scheme and loopback rules).
//!
//! The ten rules are checked as the spec states them, on bytes. The `url` crate is not used: it
//! follows the WHATWG standard (it treats `\` like `/`, strips tabs and newlines, normalises hosts),
//! which accepts and rejects different strings.
//!
//! A `BaseURL` can be as long as the document, so the searches over the whole of it go 32 bytes a
//! step ([`crate::lanes`]), and IPv6 text is refused by its length before it is read (no address is
//! longer than 45 bytes). A few passes still go byte by byte, each once at most: the scheme, the
//! port's digits, and the searches from the end for `]` and for the loopback's port.

use crate::lanes::{self, Lanes};

/// The offset of the first `byte` in `s`.
fn position(s: &[u8], byte: u8) -> Option<usize> {
    lanes::position(s, |v| v.eq(byte), |b| b == byte)
}

/// R10.4: all ten rules hold for `url` (the caller has checked it is non-empty).
#[must_use]
pub(crate) fn base_url_is_valid(url: &str) -> bool {
    let url = url.as_bytes();
    // Rule 1: the fragment's escapes.
    let (r, fragment) = match position(url, b'#') {
        Some(i) => (url.get(..i).unwrap_or_default(), url.get(i + 1..).unwrap_or_default()),
        None => (url, &[][..]),
    };
    if !escapes_well_formed(fragment) {
        return false;
    }
    // Rule 2: no control byte before the fragment.
    if lanes::position(r, |v| v.le(0x1F).or(v.eq(0x7F)), |b| b < 0x20 || b == 0x7F).is_some() {
        return false;
    }
    // Rule 3: the scheme.
    let Some((scheme, rest)) = split_scheme(r) else {
        return false;
    };
    let http = scheme.eq_ignore_ascii_case(b"http");
    if !http && !scheme.eq_ignore_ascii_case(b"https") {
        return false;
    }
    // Rule 4: query cut off, then `//authority` and the path.
    let rest = match position(rest, b'?') {
        Some(i) => rest.get(..i).unwrap_or_default(),
        None => rest,
    };
    let Some(rest) = rest.strip_prefix(b"//") else {
        return false;
    };
    let (authority, path) = match position(rest, b'/') {
        Some(i) => rest.split_at(i),
        None => (rest, &[][..]),
    };
    // Rule 5: no userinfo.
    if authority.contains(&b'@') {
        return false;
    }
    // Rules 6 and 7: the host; rule 8: non-empty; rule 9: the path's escapes.
    if authority.is_empty() || !host_is_valid(authority) || !escapes_well_formed(path) {
        return false;
    }
    // Rule 10: plain http only to the loopback.
    !http || is_loopback(authority)
}

/// `scheme ":" rest` with `scheme` = ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") (rule 3).
fn split_scheme(r: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = position(r, b':')?;
    let (scheme, rest) = r.split_at(colon);
    let (first, tail) = scheme.split_first()?;
    let ok = first.is_ascii_alphabetic()
        && tail.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    ok.then(|| (scheme, rest.get(1..).unwrap_or_default()))
}

/// Every `%` is followed by two hex digits (rules 1 and 9).
fn escapes_well_formed(s: &[u8]) -> bool {
    let mut i = 0;
    while let Some(at) = position(s.get(i..).unwrap_or_default(), b'%') {
        let at = i + at;
        if !is_escape(s.get(at + 1..at + 3)) {
            return false;
        }
        i = at + 3;
    }
    true
}

fn is_escape(hex: Option<&[u8]>) -> bool {
    matches!(hex, Some([a, b]) if a.is_ascii_hexdigit() && b.is_ascii_hexdigit())
}

fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0,
    }
}

/// An ASCII byte that may appear raw in a host (rule 7).
fn host_byte_allowed(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
}

/// Rule 7 on host text: escapes are `%25` or encode a byte ≥ 0x80; raw ASCII bytes from the allowed
/// set; non-ASCII bytes allowed. Returns the length of the decoded bytes.
fn decode_host(s: &[u8]) -> Option<usize> {
    decoded_len(s, |v| v >= 0x80 || v == b'%')
}

/// Rule 6 zone text (from `%25` on): `%25` gives `%`; other escapes may encode a space or an
/// ASCII byte that rule 7 allows; raw bytes follow rule 7. Returns the length of the decoded bytes.
fn decode_zone(s: &[u8]) -> Option<usize> {
    decoded_len(s, |v| v == b'%' || v == b' ' || (v < 0x80 && host_byte_allowed(v)))
}

/// The bytes of a block that [`decoded_len`] must look at one by one: an escape's `%` and every
/// ASCII byte that rule 7 does not allow raw ([`host_byte_allowed`]).
#[inline(always)]
fn host_bytes_to_look_at(v: Lanes) -> Lanes {
    let mut m = v.le(b' ').or(v.eq(0x7F));
    for b in [b'#', b'%', b'/', b'?', b'@', b'\\', b'^', b'`', b'{', b'|', b'}'] {
        m = m.or(v.eq(b));
    }
    m
}

/// Host or zone text with `%XX` escapes decoded: an escape must give a byte `escaped` allows, a raw
/// ASCII byte must be one rule 7 allows, raw non-ASCII bytes pass. Only the decoded length is
/// needed, so nothing is built (a host can be as long as the document). Runs of bytes allowed raw
/// are counted 32 at a time.
fn decoded_len(s: &[u8], escaped: impl Fn(u8) -> bool) -> Option<usize> {
    let mut out = 0usize;
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        if let Some(block) = s.get(i..i + 32).and_then(|b| <&[u8; 32]>::try_from(b).ok()) {
            let plain = host_bytes_to_look_at(Lanes::load(block)).mask().trailing_zeros() as usize;
            if plain > 0 {
                out += plain;
                i += plain;
                continue;
            }
        }
        if b == b'%' {
            let hex = s.get(i + 1..i + 3);
            let &[h, l] = hex? else { return None };
            if !is_escape(hex) {
                return None;
            }
            let v = hex_value(h) << 4 | hex_value(l);
            if !escaped(v) {
                return None;
            }
            out += 1;
            i += 3;
        } else {
            if b < 0x80 && !host_byte_allowed(b) {
                return None;
            }
            out += 1;
            i += 1;
        }
    }
    Some(out)
}

/// `:` followed by ASCII digits only (none is allowed, as Go's `validOptionalPort`).
fn is_colon_port(s: &[u8]) -> bool {
    matches!(s.split_first(), Some((b':', digits)) if digits.iter().all(u8::is_ascii_digit))
}

/// Rules 6 and 7 on the authority `a` (non-empty, no `@`).
fn host_is_valid(a: &[u8]) -> bool {
    if position(a.get(1..).unwrap_or_default(), b'[').is_some() {
        return false;
    }
    if a.first() == Some(&b'[') {
        let Some(close) = a.iter().rposition(|&b| b == b']') else {
            return false;
        };
        let after = a.get(close + 1..).unwrap_or_default();
        if !(after.is_empty() || is_colon_port(after)) {
            return false;
        }
        let inner = a.get(1..close).unwrap_or_default();
        let (address, zone) = match find(inner, b"%25") {
            Some(z) => inner.split_at(z),
            None => (inner, &[][..]),
        };
        // An escape in the address decodes to `%` or a byte >= 0x80, neither of which IPv6 text
        // has: the address is IPv6 text exactly when it has no escape and its raw text is.
        if decode_host(address).is_none() || address.contains(&b'%') || !is_ipv6_text(address) {
            return false;
        }
        if !zone.is_empty() {
            // The decoded zone starts with the `%` of `%25`; something must follow it.
            match decode_zone(zone) {
                Some(len) if len > 1 => {}
                _ => return false,
            }
        }
        // Rule 7 on the port part (`]` and digits only, so always allowed).
        return decode_host(after).is_some();
    }
    if let Some(colon) = position(a, b':')
        && !is_colon_port(a.get(colon..).unwrap_or_default())
    {
        return false;
    }
    decode_host(a).is_some()
}

use lanes::find;

/// The longest IPv6 text: six groups of four hex digits and a dotted IPv4 address of 15 bytes,
/// with six colons between them (eight groups of four and seven colons make 39).
const IPV6_TEXT_MAX: usize = 6 * 4 + 6 + 15;

/// Rule 6a: IPv6 text (no zone, no brackets); an IPv4 address alone is not.
fn is_ipv6_text(s: &[u8]) -> bool {
    // Longer text cannot be read below as at most eight groups of at most four digits (an IPv4
    // tail of at most 15 bytes counting two) with at most one `::`: refused without reading it.
    if s.len() > IPV6_TEXT_MAX {
        return false;
    }
    match find(s, b"::") {
        Some(at) => {
            let left = s.get(..at).unwrap_or_default();
            let right = s.get(at + 2..).unwrap_or_default();
            if find(right, b"::").is_some() {
                return false;
            }
            let Some(left_groups) = count_groups(left, false) else {
                return false;
            };
            let Some(right_groups) = count_groups(right, true) else {
                return false;
            };
            // `::` stands for at least one zero group.
            left_groups + right_groups < 8
        }
        None => count_groups(s, true) == Some(8),
    }
}

/// The number of 16-bit groups in `s` (`:`-separated, 1–4 hex digits each; empty `s` is none).
/// With `ipv4_last`, the last field may be a dotted IPv4 address, counting two groups. More than 8
/// groups is never an address: `None` as soon as there are, so a host of millions of groups costs
/// neither memory nor a full scan.
fn count_groups(s: &[u8], ipv4_last: bool) -> Option<usize> {
    if s.is_empty() {
        return Some(0);
    }
    let mut fields = s.split(|&b| b == b':').peekable();
    let mut groups = 0;
    while let Some(field) = fields.next() {
        let last = fields.peek().is_none();
        if last && ipv4_last && field.contains(&b'.') {
            if !is_ipv4(field) {
                return None;
            }
            groups += 2;
        } else if (1..=4).contains(&field.len()) && field.iter().all(u8::is_ascii_hexdigit) {
            groups += 1;
        } else {
            return None;
        }
        if groups > 8 {
            return None;
        }
    }
    Some(groups)
}

/// Four decimal fields 0–255 without leading zeros.
fn is_ipv4(s: &[u8]) -> bool {
    let mut fields = 0;
    for field in s.split(|&b| b == b'.') {
        fields += 1;
        let valid = match field {
            [] => false,
            [b'0'] => true,
            [b'0', ..] => false,
            _ => {
                field.len() <= 3
                    && field.iter().all(u8::is_ascii_digit)
                    && field.iter().fold(0u32, |acc, &d| acc * 10 + u32::from(d - b'0')) <= 255
            }
        };
        if !valid {
            return false;
        }
    }
    fields == 4
}

/// Rule 10: the host name (without port and brackets), ASCII lower-cased, is a loopback name.
fn is_loopback(a: &[u8]) -> bool {
    let mut host = a;
    if let Some(colon) = host.iter().rposition(|&b| b == b':')
        && is_colon_port(host.get(colon..).unwrap_or_default())
    {
        host = host.get(..colon).unwrap_or_default();
    }
    if let Some(inner) = host.strip_prefix(b"[").and_then(|h| h.strip_suffix(b"]")) {
        host = inner;
    }
    [&b"127.0.0.1"[..], b"::1", b"localhost"].iter().any(|name| host.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block form of the bytes `decoded_len` looks at one by one is exactly those bytes: `%`
    /// and the ASCII bytes rule 7 does not allow raw, for every byte value in every lane.
    #[test]
    fn host_bytes_to_look_at_are_the_bytes_rule_7_refuses() {
        for round in 0..256usize {
            let block: [u8; 32] = core::array::from_fn(|k| (round + k * 37) as u8);
            let got = host_bytes_to_look_at(Lanes::load(&block)).mask();
            for (k, &b) in block.iter().enumerate() {
                let look = b == b'%' || (b < 0x80 && !host_byte_allowed(b));
                assert_eq!(got >> k & 1 == 1, look, "byte {b:#04x}");
            }
        }
    }

    /// `decoded_len` against rule 7 read one byte at a time, on random hosts with escapes,
    /// refused bytes and non-ASCII bytes at every distance from a block edge.
    #[test]
    fn decoded_len_agrees_with_the_byte_reading() {
        fn model(s: &[u8], escaped: impl Fn(u8) -> bool) -> Option<usize> {
            let (mut i, mut out) = (0, 0);
            while let Some(&b) = s.get(i) {
                if b == b'%' {
                    let hex = std::str::from_utf8(s.get(i + 1..i + 3)?).ok()?;
                    if !hex.bytes().all(|h| h.is_ascii_hexdigit()) || !escaped(u8::from_str_radix(hex, 16).ok()?) {
                        return None;
                    }
                    i += 3;
                } else {
                    if b < 0x80 && !host_byte_allowed(b) {
                        return None;
                    }
                    i += 1;
                }
                out += 1;
            }
            Some(out)
        }
        let pieces: [&[u8]; 10] = [b"a", b"example", b"%25", b"%c3", b"%41", b"%2", b"\xc3\xa9", b" ", b"/", b"-._~"];
        let mut next = crate::testing::xorshift(0x94D0_49BB_1331_11EB);
        for _ in 0..20_000 {
            let mut host = Vec::new();
            while host.len() < (next() % 100) as usize {
                // Mostly plain runs, so that a piece often lands across a block edge.
                let piece = pieces[(next() % 10) as usize];
                host.extend_from_slice(if next().is_multiple_of(3) { piece } else { b"abcdefgh" });
            }
            assert_eq!(decode_host(&host), model(&host, |v| v >= 0x80 || v == b'%'), "{host:?}");
            assert_eq!(
                decode_zone(&host),
                model(&host, |v| v == b'%' || v == b' ' || (v < 0x80 && host_byte_allowed(v))),
                "{host:?}"
            );
        }
    }

    /// No IPv6 text is longer than `IPV6_TEXT_MAX`: random addresses of every form (one to eight
    /// groups of one to four digits, `::` anywhere or nowhere, an IPv4 tail or none) are all
    /// within it and accepted; the longest form is exactly that long and accepted, one byte more is
    /// refused.
    #[test]
    fn ipv6_text_is_never_longer_than_its_bound() {
        let mut next = crate::testing::xorshift(0xBF58_476D_1CE4_E5B9);
        let mut longest = 0;
        for _ in 0..50_000 {
            let ipv4 = next().is_multiple_of(2);
            let slots = if ipv4 { 6 } else { 8 };
            let groups: Vec<String> = (0..slots)
                .map(|_| {
                    let digits = 1 + (next() % 4) as usize;
                    (0..digits).map(|_| b"0123456789abcdefABCDEF"[(next() % 22) as usize] as char).collect()
                })
                .collect();
            let tail = ipv4.then(|| format!("{}.{}.{}.{}", next() % 256, next() % 256, next() % 256, next() % 256));
            let mut fields: Vec<String> = groups;
            fields.extend(tail);
            let text = if next().is_multiple_of(2) {
                fields.join(":")
            } else {
                // `::` for one or more groups (the IPv4 tail stays).
                let cut = (next() % slots as u64) as usize;
                let len = 1 + (next() % (slots - cut) as u64) as usize;
                let (left, rest) = fields.split_at(cut);
                format!("{}::{}", left.join(":"), rest.get(len..).unwrap_or_default().join(":"))
            };
            assert!(is_ipv6_text(text.as_bytes()), "{text}");
            longest = longest.max(text.len());
        }
        let max = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255";
        assert!(longest <= IPV6_TEXT_MAX, "{longest}");
        assert_eq!(max.len(), IPV6_TEXT_MAX);
        assert!(is_ipv6_text(max.as_bytes()));
        assert!(!is_ipv6_text(format!("0{max}").as_bytes()));
    }
}
