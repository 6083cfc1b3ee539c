//! R10.4: whether a non-empty `BaseURL` is acceptable to the reference (Go 1.26 `url.Parse` with
//! strict colons, plus the reference's own scheme and loopback rules).
//!
//! The ten rules are checked as the spec states them, on bytes. The `url` crate is not used: it
//! follows the WHATWG standard (it treats `\` like `/`, strips tabs and newlines, normalises hosts),
//! which accepts and rejects different strings.

/// R10.4: all ten rules hold for `url` (the caller has checked it is non-empty).
#[must_use]
pub(crate) fn base_url_is_valid(url: &str) -> bool {
    let url = url.as_bytes();
    // Rule 1: the fragment's escapes.
    let (r, fragment) = match url.iter().position(|&b| b == b'#') {
        Some(i) => (url.get(..i).unwrap_or_default(), url.get(i + 1..).unwrap_or_default()),
        None => (url, &[][..]),
    };
    if !escapes_well_formed(fragment) {
        return false;
    }
    // Rule 2: no control byte before the fragment.
    if r.iter().any(|&b| b < 0x20 || b == 0x7F) {
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
    let rest = match rest.iter().position(|&b| b == b'?') {
        Some(i) => rest.get(..i).unwrap_or_default(),
        None => rest,
    };
    let Some(rest) = rest.strip_prefix(b"//") else {
        return false;
    };
    let (authority, path) = match rest.iter().position(|&b| b == b'/') {
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
    let colon = r.iter().position(|&b| b == b':')?;
    let (scheme, rest) = r.split_at(colon);
    let (first, tail) = scheme.split_first()?;
    let ok = first.is_ascii_alphabetic()
        && tail.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    ok.then(|| (scheme, rest.get(1..).unwrap_or_default()))
}

/// Every `%` is followed by two hex digits (rules 1 and 9).
fn escapes_well_formed(s: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        if b == b'%' {
            if !is_escape(s.get(i + 1..i + 3)) {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
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

/// Host or zone text with `%XX` escapes decoded: an escape must give a byte `escaped` allows, a raw
/// ASCII byte must be one rule 7 allows, raw non-ASCII bytes pass. Only the decoded length is
/// needed, so nothing is built (a host can be as long as the document).
fn decoded_len(s: &[u8], escaped: impl Fn(u8) -> bool) -> Option<usize> {
    let mut out = 0usize;
    let mut i = 0;
    while let Some(&b) = s.get(i) {
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
    if a.iter().skip(1).any(|&b| b == b'[') {
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
    if let Some(colon) = a.iter().position(|&b| b == b':')
        && !is_colon_port(a.get(colon..).unwrap_or_default())
    {
        return false;
    }
    decode_host(a).is_some()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Rule 6a: IPv6 text (no zone, no brackets); an IPv4 address alone is not.
fn is_ipv6_text(s: &[u8]) -> bool {
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
