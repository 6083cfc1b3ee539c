//! Counter and inference capabilities (SPEC P8.7, P8.9–P8.11), shared by the context config
//! (P8.8) and the request fingerprint (R10.2).

use crate::json::{JResult, JsonError, Parser, StringSpan};

/// Counter transports (P8.7).
pub mod counter_transport {
    /// Not set: invalid.
    pub const UNKNOWN: u8 = 0;
    /// The counter runs in-process.
    pub const LOCAL: u8 = 1;
    /// The counter is an endpoint of the inference provider.
    pub const SAME_ENDPOINT: u8 = 2;
    /// The counter is a separate endpoint.
    pub const SEPARATE_ENDPOINT: u8 = 3;
}

/// Inference transports (P8.7).
pub mod inference_transport {
    /// Not set: invalid.
    pub const UNKNOWN: u8 = 0;
    /// In-process or local inference.
    pub const LOCAL: u8 = 1;
    /// TLS to the provider.
    pub const TLS: u8 = 2;
    /// Attested TLS.
    pub const ATTESTED_TLS: u8 = 3;
    /// End-to-end encrypted.
    pub const END_TO_END_ENCRYPTED: u8 = 4;
}

/// Retention classes (P8.7).
pub mod retention {
    /// Not set (invalid for a counter; never compatible as the inference retention).
    pub const UNKNOWN: u8 = 0;
    /// Nothing is retained.
    pub const NONE: u8 = 1;
    /// Retained briefly.
    pub const EPHEMERAL: u8 = 2;
    /// Logged.
    pub const LOGGED: u8 = 3;
}

/// Token counter qualities (P8.4), also the `counter_quality` argument of the C ABI (A3.5).
pub mod quality {
    /// Unknown quality.
    pub const UNKNOWN: u8 = 0;
    /// Exact, from the provider.
    pub const EXACT_PROVIDER: u8 = 1;
    /// Exact, from a local tokenizer.
    pub const EXACT_LOCAL: u8 = 2;
    /// A heuristic estimate.
    pub const HEURISTIC: u8 = 3;
}

/// The token counter's capability (P8.7). Enumerations are kept as their integers so that invalid
/// values can be represented and rejected.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CounterCapability {
    /// Provider name; empty for a provider-neutral counter.
    pub provider: String,
    /// One of [`counter_transport`].
    pub transport: u8,
    /// The endpoint's 32-byte security identity; all zero when none.
    pub security_identity: [u8; 32],
    /// One of [`retention`].
    pub retention: u8,
    /// Tokenizer revision; must be non-empty.
    pub tokenizer_rev: String,
    /// One of [`quality`].
    pub quality: u8,
}

/// The inference endpoint's capability (P8.7).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InferenceCapability {
    /// Provider name.
    pub provider: String,
    /// One of [`inference_transport`].
    pub transport: u8,
    /// The endpoint's 32-byte security identity; all zero when none.
    pub security_identity: [u8; 32],
    /// One of [`retention`]; 0 is valid here.
    pub retention: u8,
}

fn is_zero(id: &[u8; 32]) -> bool {
    id.iter().all(|&b| b == 0)
}

impl CounterCapability {
    /// P8.9: whether the capability is valid.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.is_valid_with(self.provider.is_empty(), self.tokenizer_rev.is_empty())
    }

    /// [`CounterCapability::is_valid`] with the emptiness of its two strings given (the
    /// fingerprint's digest path keeps them in the document).
    pub(crate) fn is_valid_with(&self, provider_empty: bool, tokenizer_rev_empty: bool) -> bool {
        use counter_transport::{LOCAL, SAME_ENDPOINT, SEPARATE_ENDPOINT};
        if !(1..=3).contains(&self.transport)
            || !(1..=3).contains(&self.retention)
            || tokenizer_rev_empty
            || !(1..=3).contains(&self.quality)
        {
            return false;
        }
        match self.transport {
            LOCAL => is_zero(&self.security_identity),
            SAME_ENDPOINT | SEPARATE_ENDPOINT => !provider_empty && !is_zero(&self.security_identity),
            _ => false,
        }
    }

    /// P8.11: a Local counter with retention None, no provider and no identity fits every valid
    /// inference capability.
    #[must_use]
    pub fn is_provider_neutral(&self) -> bool {
        self.is_provider_neutral_with(self.provider.is_empty())
    }

    fn is_provider_neutral_with(&self, provider_empty: bool) -> bool {
        self.transport == counter_transport::LOCAL
            && self.retention == retention::NONE
            && provider_empty
            && is_zero(&self.security_identity)
    }

    /// P8.11: whether this counter may count for `inference` (both assumed valid, P8.9/P8.10).
    #[must_use]
    pub fn is_compatible_with(&self, inference: &InferenceCapability) -> bool {
        self.is_compatible_with_providers(inference, self.provider.is_empty(), self.provider == inference.provider)
    }

    /// [`CounterCapability::is_compatible_with`] with what it asks of the two providers given:
    /// whether the counter's is empty and whether the two are equal (the C path of the context
    /// configuration compares them in place).
    pub(crate) fn is_compatible_with_providers(
        &self,
        inference: &InferenceCapability,
        provider_empty: bool,
        providers_equal: bool,
    ) -> bool {
        use inference_transport as it;
        if self.is_provider_neutral_with(provider_empty) {
            return true;
        }
        let transport_ok = match self.transport {
            counter_transport::LOCAL => {
                matches!(inference.transport, it::LOCAL | it::TLS | it::ATTESTED_TLS | it::END_TO_END_ENCRYPTED)
                    && !provider_empty
                    && providers_equal
            }
            counter_transport::SAME_ENDPOINT => {
                matches!(inference.transport, it::TLS | it::ATTESTED_TLS | it::END_TO_END_ENCRYPTED)
                    && providers_equal
                    && self.security_identity == inference.security_identity
            }
            counter_transport::SEPARATE_ENDPOINT => inference.transport == it::TLS && providers_equal,
            _ => false,
        };
        if !transport_ok {
            return false;
        }
        match inference.retention {
            retention::NONE => self.retention == retention::NONE,
            retention::EPHEMERAL => matches!(self.retention, retention::NONE | retention::EPHEMERAL),
            retention::LOGGED => matches!(self.retention, retention::NONE | retention::EPHEMERAL | retention::LOGGED),
            _ => false,
        }
    }
}

impl InferenceCapability {
    /// P8.10: whether the capability is valid (`retention` 0 is valid).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.is_valid_with(self.provider.is_empty())
    }

    /// [`InferenceCapability::is_valid`] with the emptiness of its provider given (see
    /// [`CounterCapability::is_valid_with`]).
    pub(crate) fn is_valid_with(&self, provider_empty: bool) -> bool {
        use inference_transport::{ATTESTED_TLS, END_TO_END_ENCRYPTED, LOCAL, TLS};
        if self.retention > 3 {
            return false;
        }
        match self.transport {
            LOCAL => is_zero(&self.security_identity),
            TLS | ATTESTED_TLS | END_TO_END_ENCRYPTED => !provider_empty && !is_zero(&self.security_identity),
            _ => false,
        }
    }
}

crate::json::layout! {
    /// The keys of a counter capability (P8.7).
    pub(crate) enum CounterField {
        Provider = "Provider": String,
        Transport = "Transport": Unsigned,
        SecurityIdentity = "SecurityIdentity": SecurityIdentity,
        Retention = "Retention": Unsigned,
        TokenizerRev = "TokenizerRev": String,
        Quality = "Quality": Unsigned,
    }
}

crate::json::layout! {
    /// The keys of an inference capability (P8.7).
    pub(crate) enum InferenceField {
        Provider = "Provider": String,
        Transport = "Transport": Unsigned,
        SecurityIdentity = "SecurityIdentity": SecurityIdentity,
        Retention = "Retention": Unsigned,
    }
}

/// Reads `SecurityIdentity`: an array of exactly 32 integers 0–255 (D6).
fn read_identity(p: &mut Parser<'_>) -> JResult<[u8; 32]> {
    let mut id = [0u8; 32];
    let mut n = 0;
    p.unsigned_array_of(255, |p, v| {
        let v = v as u8;
        let Some(slot) = id.get_mut(n) else {
            return Err(JsonError::invalid(p.token_start()));
        };
        *slot = v;
        n += 1;
        Ok(())
    })?;
    if n != id.len() {
        return Err(JsonError::invalid(p.token_start()));
    }
    Ok(id)
}

/// Reads a string field into `owned`, or with `span`, checks it (J5.3) and records where it is
/// instead (nothing of its size is built).
pub(crate) fn read_string(p: &mut Parser<'_>, owned: &mut String, span: Option<&mut StringSpan>) -> JResult<()> {
    match span {
        Some(span) => {
            let token = p.str()?;
            token.check_utf8()?;
            *span = token.text();
        }
        None => *owned = p.owned_string()?,
    }
    Ok(())
}

/// Reads a counter capability object or `null`; every key required (D6). With `spans`, `Provider`
/// and `TokenizerRev` are recorded there ([`read_string`]).
pub(crate) fn read_counter(
    p: &mut Parser<'_>,
    spans: Option<&mut [StringSpan; 2]>,
) -> JResult<Option<CounterCapability>> {
    let mut c = CounterCapability::default();
    let mut spans = spans;
    let seen = p.fields_or_null(|p, field| {
        let [provider, tokenizer_rev] = match spans.as_deref_mut() {
            Some([a, b]) => [Some(a), Some(b)],
            None => [None, None],
        };
        match field {
            CounterField::Provider => read_string(p, &mut c.provider, provider)?,
            CounterField::Transport => c.transport = p.u8()?,
            CounterField::SecurityIdentity => c.security_identity = read_identity(p)?,
            CounterField::Retention => c.retention = p.u8()?,
            CounterField::TokenizerRev => read_string(p, &mut c.tokenizer_rev, tokenizer_rev)?,
            CounterField::Quality => c.quality = p.u8()?,
        }
        Ok(())
    })?;
    match seen {
        None => Ok(None),
        Some(seen) => seen.require_all(p).map(|()| Some(c)),
    }
}

/// Reads an inference capability object or `null`; every key required (D6). With `span`,
/// `Provider` is recorded there ([`read_string`]).
pub(crate) fn read_inference(
    p: &mut Parser<'_>,
    span: Option<&mut StringSpan>,
) -> JResult<Option<InferenceCapability>> {
    let mut c = InferenceCapability::default();
    let mut span = span;
    let seen = p.fields_or_null(|p, field| {
        match field {
            InferenceField::Provider => read_string(p, &mut c.provider, span.as_deref_mut())?,
            InferenceField::Transport => c.transport = p.u8()?,
            InferenceField::SecurityIdentity => c.security_identity = read_identity(p)?,
            InferenceField::Retention => c.retention = p.u8()?,
        }
        Ok(())
    })?;
    match seen {
        None => Ok(None),
        Some(seen) => seen.require_all(p).map(|()| Some(c)),
    }
}

/// The keys of both capability layouts, in order, for the test that checks the request
/// fingerprint's layouts against R10.5's (`fingerprint::template`).
#[cfg(test)]
pub(crate) fn layout_names() -> [&'static [&'static str]; 2] {
    use crate::json::Layout;
    [CounterField::NAMES, InferenceField::NAMES]
}
