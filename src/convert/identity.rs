//! Identity for hosts that are not the reference (SPEC §16, G16.10): a compaction input around a
//! converted transcript, with a basis and a fingerprint minted from the transcript when the host
//! has none of its own.

use sha2::{Digest, Sha256};

use super::Conversion;
use crate::error::{Error, Result};
use crate::json::write::{Sink, put_str, put_u64};
use crate::status::Status;
use crate::wire::CompactionInput;

/// The domain of the minted event id: SHA-256 of this and the transcript's canonical bytes.
const EVENT_ID_DOMAIN: &[u8] = b"loopcompact.event-id.v1\n";

/// G16.10: the basis event id of a transcript: the first 16 bytes of SHA-256 of
/// `loopcompact.event-id.v1\n` and the canonical transcript, as an RFC 9562 version 8 UUID (the
/// version and variant bits set), in the canonical form of W5.3.
#[must_use]
pub fn event_id(transcript: &[u8]) -> String {
    let digest = Sha256::new().chain_update(EVENT_ID_DOMAIN).chain_update(transcript).finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(digest.get(..16).unwrap_or(&[0; 16]));
    b[6] = (b[6] & 0x0F) | 0x80;
    b[8] = (b[8] & 0x3F) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        hex.get(0..8).unwrap_or_default(),
        hex.get(8..12).unwrap_or_default(),
        hex.get(12..16).unwrap_or_default(),
        hex.get(16..20).unwrap_or_default(),
        hex.get(20..32).unwrap_or_default()
    )
}

/// G16.10: the request fingerprint minted when the host gives none: SHA-256 of the canonical JSON
/// `{"provider":P,"model":M,"transcript":T}` (P and M as E7.6 strings, T the canonical transcript).
#[must_use]
pub fn minted_fingerprint(provider: &str, model: &str, transcript: &[u8]) -> [u8; 32] {
    let mut doc = Vec::with_capacity(transcript.len() + provider.len() + model.len() + 48);
    doc.put(b"{\"provider\":");
    put_str(&mut doc, provider);
    doc.put(b",\"model\":");
    put_str(&mut doc, model);
    doc.put(b",\"transcript\":");
    doc.put(transcript);
    doc.put(b"}");
    Sha256::digest(&doc).into()
}

impl Conversion {
    /// A parsed compaction input around this transcript (G16.10): `revision` is the basis revision
    /// (the host's compaction count plus one: 0 is `LC_INPUT_BASIS`), the event id is
    /// [`event_id`], the fingerprint the host's or [`minted_fingerprint`]. The input cuts only at
    /// the source's boundaries ([`Conversion::cut_allowed`]) without being told.
    ///
    /// # Errors
    /// The statuses of [`CompactionInput::parse`] for what the host gave: `InputModel` (an empty
    /// provider or model), `InputBasis` (revision 0), `InputMaxSummaryTokens`,
    /// `InputRequestFingerprint` (an all-zero fingerprint), `InputTranscript` (no message).
    pub fn input(
        &self,
        provider: &str,
        model: &str,
        max_summary_tokens: u64,
        revision: u64,
        fingerprint: Option<[u8; 32]>,
    ) -> Result<CompactionInput> {
        let fingerprint = fingerprint.unwrap_or_else(|| minted_fingerprint(provider, model, &self.transcript));
        let mut wire = Vec::with_capacity(self.transcript.len() + 256 + provider.len() + model.len());
        wire.put(b"{\"version\":1,\"basis\":{\"revision\":");
        put_u64(&mut wire, revision);
        wire.put(b",\"through_event_id\":\"");
        wire.put(event_id(&self.transcript).as_bytes());
        wire.put(b"\"},\"model\":{\"provider\":");
        put_str(&mut wire, provider);
        wire.put(b",\"model\":");
        put_str(&mut wire, model);
        wire.put(b"},\"request_fingerprint\":\"");
        for byte in fingerprint {
            wire.put(format!("{byte:02x}").as_bytes());
        }
        wire.put(b"\",\"transcript\":");
        wire.put(&self.transcript);
        wire.put(b",\"max_summary_tokens\":");
        put_u64(&mut wire, max_summary_tokens);
        wire.put(b"}");
        let input = CompactionInput::parse(&wire).map_err(|e| Error::new(e.status()))?;
        if input.message_count() + 1 != self.cut_allowed.len() {
            return Err(Error::new(Status::Panic));
        }
        Ok(input.with_allowed_cuts(&self.cut_allowed))
    }
}
