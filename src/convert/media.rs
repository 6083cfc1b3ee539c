//! Media in the sources (SPEC §16, G16.7): base64 in either alphabet, padded or not; data URLs;
//! the wire block a media type becomes.

use super::out::StringToWrite;
use super::{Conv, Cx, tree::NodeId};
use crate::json::StringToken;

/// The canonical form (E7.5: standard alphabet, padded, no line break, unused bits zero) of base64
/// text in the standard or the URL-safe alphabet, padded or not, with CR and LF ignored (T5.6
/// allows them); `None` for anything else (a space, a mixed alphabet, padding in the middle, a
/// length no padding explains). Text already canonical (what providers send) is copied as it is.
pub(crate) fn canonical_base64(text: &[u8]) -> Option<Vec<u8>> {
    use crate::json::PlainPrefix;
    use crate::wire::base64::{self, AlphabetPrefix};
    if let Some(checked) = base64::check(text, AlphabetPrefix::scan(text)) {
        if checked.canonical {
            return Some(text.to_vec());
        }
        let mut out = Vec::with_capacity(text.len());
        base64::put_canonical(&mut out, text, false);
        return Some(out);
    }
    let bytes = decode_any(text)?;
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    base64::encode(&bytes, &mut out);
    Some(out)
}

/// [`canonical_base64`]'s slow path: decodes either alphabet, padded or not.
fn decode_any(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    let (mut standard, mut url_safe) = (false, false);
    let mut padding = 0usize;
    let mut symbols = 0usize;
    for &b in text {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'/' => {
                standard = true;
                if b == b'+' { 62 } else { 63 }
            }
            b'-' | b'_' => {
                url_safe = true;
                if b == b'-' { 62 } else { 63 }
            }
            b'\r' | b'\n' => continue,
            b'=' => {
                padding += 1;
                continue;
            }
            _ => return None,
        };
        if padding > 0 {
            return None;
        }
        symbols += 1;
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if standard && url_safe {
        return None;
    }
    // A last group of 1 symbol encodes nothing; padding, when present, completes the group.
    let rest = symbols % 4;
    let pad_ok = padding == 0 || (rest != 0 && rest + padding == 4);
    (rest != 1 && pad_ok).then_some(out)
}

/// A `data:` URL: its media type and, for a base64 payload, the bytes; for a plain payload, its
/// percent-decoded text. `None` when `url` is not a data URL.
pub(crate) enum DataUrl {
    /// `bytes`: the payload as canonical base64 ([`canonical_base64`]).
    Bytes {
        media_type: String,
        bytes: Vec<u8>,
    },
    Text {
        media_type: String,
        text: String,
    },
}

/// Whether a string is a URL rather than base64 (AI SDK data content): it starts with a scheme,
/// `ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") ":"` (RFC 3986), as `new URL()` requires. Base64 has
/// no `:`, so no base64 text is taken for a URL; `gs://`, `s3://` and `file:` are URLs.
pub(crate) fn has_url_scheme(text: &[u8]) -> bool {
    let scheme = text.split(|&b| b == b':').next().filter(|s| s.len() < text.len()).unwrap_or_default();
    scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

pub(crate) fn data_url(url: &[u8]) -> Option<Result<DataUrl, ()>> {
    let rest = url.strip_prefix(b"data:")?;
    let comma = memchr::memchr(b',', rest);
    let Some(comma) = comma else { return Some(Err(())) };
    let (meta, payload) = (rest.get(..comma)?, rest.get(comma + 1..)?);
    let (media_type, base64) = match meta.strip_suffix(b";base64") {
        Some(m) => (m, true),
        None => (meta, false),
    };
    // Parameters (`;charset=...`) are not part of the media type.
    let media_type = media_type.split(|&b| b == b';').next().unwrap_or_default();
    let Ok(media_type) = core::str::from_utf8(media_type) else { return Some(Err(())) };
    let media_type = media_type.to_owned();
    if base64 {
        return Some(canonical_base64(payload).map(|bytes| DataUrl::Bytes { media_type, bytes }).ok_or(()));
    }
    let text = percent_decode(payload);
    Some(String::from_utf8(text).map(|text| DataUrl::Text { media_type, text }).map_err(|_| ()))
}

fn percent_decode(text: &[u8]) -> Vec<u8> {
    let hex = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        if b == b'%'
            && let (Some(h), Some(l)) = (text.get(i + 1).and_then(|&c| hex(c)), text.get(i + 2).and_then(|&c| hex(c)))
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(b);
        i += 1;
    }
    out
}

/// What kind of wire block a media type becomes (SPEC §16 media table).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Image,
    Audio,
    Document,
}

pub(crate) fn kind_of(media_type: &[u8]) -> Kind {
    if media_type.starts_with(b"image/") {
        Kind::Image
    } else if media_type.starts_with(b"audio/") {
        Kind::Audio
    } else {
        Kind::Document
    }
}

/// Writes inline bytes of `media_type` (as canonical base64) as the block its kind calls for;
/// `name` names a document.
pub(crate) fn put_bytes(cx: &mut Cx<'_>, media_type: StringToWrite<'_>, bytes: &[u8], name: StringToWrite<'_>) {
    let kind = match media_type {
        StringToWrite::Json(s) => kind_of(&s.decode_bytes().unwrap_or_default()),
        StringToWrite::Text(t) => kind_of(t.as_bytes()),
    };
    match kind {
        Kind::Image => cx.out.image(media_type, StringToWrite::Text(""), Some(bytes)),
        Kind::Audio => cx.out.audio(media_type, Some(bytes)),
        Kind::Document => cx.out.document(media_type, name, Some(bytes), StringToWrite::Text("")),
    }
}

/// The pseudo-URL of a provider's file id (G16.7): `file-id:<provider>:<id>`.
pub(crate) fn file_id(provider: &str, id: &StringToken<'_>) -> String {
    format!("file-id:{provider}:{}", id.decode().unwrap_or_default())
}

/// An OpenAI `file_data` string of the member `field` of `at` (a data URL, or bare base64, as
/// Chat's `file` parts and Responses' `input_file` parts carry it): the block its media type calls
/// for, or a document of its decoded text; named `name`.
pub(crate) fn put_file_data(
    cx: &mut Cx<'_>,
    at: NodeId,
    field: &'static str,
    data: &StringToken<'_>,
    name: StringToWrite<'_>,
) -> Conv<()> {
    let raw = data.decode_bytes().unwrap_or_default();
    match data_url(&raw) {
        Some(Ok(DataUrl::Bytes { media_type, bytes })) => put_bytes(cx, StringToWrite::Text(&media_type), &bytes, name),
        Some(Ok(DataUrl::Text { media_type, text })) => {
            cx.out.document(StringToWrite::Text(&media_type), name, None, StringToWrite::Text(&text));
        }
        Some(Err(())) => return Err(cx.field_error(at, field, c"a base64 data URL or base64")),
        None => match canonical_base64(&raw) {
            Some(bytes) => cx.out.document(StringToWrite::Text(""), name, Some(&bytes), StringToWrite::Text("")),
            None => return Err(cx.field_error(at, field, c"a base64 data URL or base64")),
        },
    }
    Ok(())
}

/// Writes a media reference (a URL or a provider file id as `file-id:<provider>:<id>`): an image
/// block with the URL, or a document named by it with the loss `document_not_inline`.
pub(crate) fn put_reference(
    cx: &mut Cx<'_>,
    media_type: StringToWrite<'_>,
    url: StringToWrite<'_>,
    image: bool,
    at: NodeId,
) -> Conv<()> {
    if image {
        cx.out.image(media_type, url, None);
        return Ok(());
    }
    cx.loss(super::LossCode::DocumentNotInline, at)?;
    cx.out.document(media_type, url, None, StringToWrite::Text(""));
    Ok(())
}

/// An image `detail` other than `auto` (the default, which loses nothing) is a media option the
/// wire drops.
pub(crate) fn detail_set(cx: &Cx<'_>, image: NodeId) -> bool {
    match cx.tree.get(image, "detail").map(|d| cx.tree.value(d)) {
        None | Some(super::tree::Value::Null) => false,
        Some(super::tree::Value::String(s)) => s.raw() != b"auto",
        Some(_) => true,
    }
}
