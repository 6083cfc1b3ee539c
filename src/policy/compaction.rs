//! The compaction policy (SPEC P8.2–P8.5): layout, check order, counter table, hustle name.

use super::capability::read_string;
use super::{decode_document, is_heuristic};
use crate::error::Result;
use crate::json::{JResult, Parser, StringSpan};
use crate::status::Status;

/// Values of [`CompactionPolicy::counter_policy`] (P8.2). Any other value is kept and is invalid in
/// automatic mode (P8.4).
pub mod counter_policy {
    /// Not set: accepts no counter (P8.4).
    pub const UNKNOWN: u8 = 0;
    /// Accepts exact counters only (qualities 1 and 2).
    pub const REQUIRE_EXACT: u8 = 1;
    /// Accepts exact counters and heuristic estimates (qualities 1, 2 and 3).
    pub const ALLOW_CONSERVATIVE: u8 = 2;
}

/// A compaction policy (P8.2): when and how the loop compacts its transcript.
///
/// Enumerations are kept as their integers so that invalid values can be represented and rejected.
/// The fields are those of the reference's Go struct, whose `json.Marshal` encoding
/// [`CompactionPolicy::from_json`] reads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompactionPolicy {
    /// `Automatic`: compaction is triggered by occupancy. When `false`, `counter_policy`,
    /// `compact_at` and `rearm_below` are ignored.
    pub automatic: bool,
    /// `CounterPolicy`: one of [`counter_policy`].
    pub counter_policy: u8,
    /// `CompactAt`: occupancy in basis points (10000 = full) at which compaction triggers.
    pub compact_at: u16,
    /// `RearmBelow`: occupancy in basis points below which compaction re-arms.
    pub rearm_below: u16,
    /// `ReservedOutput`: tokens reserved for the model's output.
    pub reserved_output: u64,
    /// `SafetyMargin`: tokens kept free on top of the reservation.
    pub safety_margin: u64,
    /// `MaxSummaryTokens`: the summariser's output budget in tokens.
    pub max_summary_tokens: u64,
    /// `CountTimeout`: the token counter's timeout in nanoseconds.
    pub count_timeout_ns: i64,
    /// `Hustle`: the name of the summarising job.
    pub hustle: String,
}

crate::json::layout! {
    /// The keys of P8.2, in the order of the fields above.
    pub(super) enum Field {
        Automatic = "Automatic": Bool,
        CounterPolicy = "CounterPolicy": CounterPolicy,
        CompactAt = "CompactAt": CompactAt,
        RearmBelow = "RearmBelow": RearmBelow,
        ReservedOutput = "ReservedOutput": NonZeroUnsigned,
        SafetyMargin = "SafetyMargin": SafetyMargin,
        MaxSummaryTokens = "MaxSummaryTokens": NonZeroUnsigned,
        CountTimeout = "CountTimeout": Nanoseconds,
        Hustle = "Hustle": Hustle,
    }
}

/// P8.3 step 8: occupancy at or above full scale can never trigger compaction before the hard limit.
const FULL_SCALE: u16 = 10_000;

/// P8.5: the prefix of the reference's own jobs, reserved (case-sensitive).
const RESERVED_HUSTLE_PREFIX: &str = "_looprig.";

impl CompactionPolicy {
    /// Checks the policy for a token counter of quality `counter_quality` (0 unknown, 1 exact
    /// provider, 2 exact local, 3 heuristic estimate; any other value is unknown, A3.5), in the
    /// order of P8.3; the first failure is returned.
    ///
    /// # Errors
    /// `PolicyReservedOutput`, `PolicyMaxSummaryTokens`, `PolicyCountTimeout`, `PolicyHustle`,
    /// `PolicySafetyMargin`, then, in automatic mode only, `PolicyRearmBelow`, `PolicyCompactAt`,
    /// `PolicyCounterPolicy`.
    pub fn validate(&self, counter_quality: i32) -> Result<()> {
        self.validate_with(counter_quality, is_valid_hustle(self.hustle.chars()))
    }

    /// Decodes and validates a policy document (what `lc_compaction_policy_validate` does) with
    /// `Hustle` checked where it is in the document: nothing of the document's size is built.
    ///
    /// # Errors
    /// As [`CompactionPolicy::from_json`], then as [`CompactionPolicy::validate`].
    pub fn validate_json(json: &[u8], counter_quality: i32) -> Result<()> {
        let mut hustle = StringSpan::default();
        let policy = decode_document(json, Status::PolicyWire, |p| read_with(p, Some(&mut hustle)))?;
        policy.validate_with(counter_quality, is_valid_hustle(hustle.chars(json)))
    }

    /// [`CompactionPolicy::validate`] with `hustle_valid` as the P8.5 verdict on `Hustle`.
    pub(super) fn validate_with(&self, counter_quality: i32, hustle_valid: bool) -> Result<()> {
        if self.reserved_output == 0 {
            return Err(Status::PolicyReservedOutput.into());
        }
        if self.max_summary_tokens == 0 {
            return Err(Status::PolicyMaxSummaryTokens.into());
        }
        if self.count_timeout_ns <= 0 {
            return Err(Status::PolicyCountTimeout.into());
        }
        if !hustle_valid {
            return Err(Status::PolicyHustle.into());
        }
        // Also in manual mode: a manual compaction still has to fit, and a heuristic count
        // without a margin can overshoot the window.
        if is_heuristic(counter_quality) && self.safety_margin == 0 {
            return Err(Status::PolicySafetyMargin.into());
        }
        if !self.automatic {
            return Ok(());
        }
        if self.rearm_below == 0 || self.rearm_below >= self.compact_at {
            return Err(Status::PolicyRearmBelow.into());
        }
        if self.compact_at >= FULL_SCALE {
            return Err(Status::PolicyCompactAt.into());
        }
        if !accepts(self.counter_policy, counter_quality) {
            return Err(Status::PolicyCounterPolicy.into());
        }
        Ok(())
    }

    /// S14.6: whether this policy's re-arm threshold can be met at all for a request of
    /// `fixed_tokens` fixed tokens against `input_limit` ([`crate::limits::threshold_check`]).
    ///
    /// # Errors
    /// `OccupancyZeroLimit`, `CompactionThresholdUnreachable`.
    pub fn threshold_check(&self, input_limit: u64, fixed_tokens: u64) -> Result<()> {
        crate::limits::threshold_check(self.rearm_below, self.max_summary_tokens, input_limit, fixed_tokens)
    }

    /// Decodes the policy document (P8.1, P8.2). Only the encoding is checked, not the values:
    /// call [`CompactionPolicy::validate`] next.
    ///
    /// # Errors
    /// `PolicyWire` (with the byte offset) for any JSON error (J5), a missing, unknown or repeated
    /// key, a value of the wrong type or range, or a document that is `null`.
    pub fn from_json(json: &[u8]) -> Result<CompactionPolicy> {
        decode_document(json, Status::PolicyWire, read)
    }
}

/// P8.4: whether a counter policy accepts a counter quality (A3.5: values outside 0–3 are unknown
/// and accepted by no policy).
fn accepts(policy: u8, counter_quality: i32) -> bool {
    match policy {
        counter_policy::REQUIRE_EXACT => matches!(counter_quality, 1 | 2),
        counter_policy::ALLOW_CONSERVATIVE => matches!(counter_quality, 1..=3),
        _ => false,
    }
}

/// P8.5 on the characters of a name: not blank after trimming White_Space (X4.21) from both ends,
/// and not reserved. `char::is_whitespace` is exactly the Unicode White_Space property, the list
/// of X4.21. Only the leading white space and the reserved prefix's length after it are read: the
/// prefix ends in `.`, which is not white space, so trimming the end never changes whether the
/// trimmed name starts with it; and a name with any character after its leading white space is not
/// blank. So nothing of the name's size is decoded or kept.
pub(super) fn is_valid_hustle(name: impl Iterator<Item = char>) -> bool {
    let mut rest = name.skip_while(|c| c.is_whitespace()).peekable();
    if rest.peek().is_none() {
        return false;
    }
    !RESERVED_HUSTLE_PREFIX.chars().all(|p| rest.next() == Some(p))
}

/// Reads a compaction policy object or `null`; every key required (P8.1, D6).
pub(super) fn read(p: &mut Parser<'_>) -> JResult<Option<CompactionPolicy>> {
    read_with(p, None)
}

/// [`read`]; with `hustle`, `Hustle` is checked and recorded there instead of decoded.
pub(super) fn read_with(p: &mut Parser<'_>, hustle: Option<&mut StringSpan>) -> JResult<Option<CompactionPolicy>> {
    let mut c = CompactionPolicy::default();
    let mut hustle = hustle;
    let seen = p.fields_or_null(|p, field| {
        match field {
            Field::Automatic => c.automatic = p.bool()?,
            Field::CounterPolicy => c.counter_policy = p.u8()?,
            Field::CompactAt => c.compact_at = p.u16()?,
            Field::RearmBelow => c.rearm_below = p.u16()?,
            Field::ReservedOutput => c.reserved_output = p.u64()?,
            Field::SafetyMargin => c.safety_margin = p.u64()?,
            Field::MaxSummaryTokens => c.max_summary_tokens = p.u64()?,
            Field::CountTimeout => c.count_timeout_ns = p.i64()?,
            Field::Hustle => read_string(p, &mut c.hustle, hustle.as_deref_mut())?,
        }
        Ok(())
    })?;
    match seen {
        None => Ok(None),
        Some(seen) => seen.require_all(p).map(|()| Some(c)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hustle_trims_exactly_white_space() {
        // X4.21's list: every one of these alone is blank.
        for ws in [
            '\u{9}', '\u{A}', '\u{B}', '\u{C}', '\u{D}', ' ', '\u{85}', '\u{A0}', '\u{1680}', '\u{2000}', '\u{2005}',
            '\u{200A}', '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}',
        ] {
            assert!(!is_valid_hustle(ws.to_string().chars()), "{:04X}", ws as u32);
        }
        // ... and these are not White_Space.
        for not_ws in ['\u{200B}', '\u{FEFF}', '\u{180E}', '\u{1C}', '\u{1D}', '\u{1E}', '\u{1F}'] {
            assert!(is_valid_hustle(not_ws.to_string().chars()), "{:04X}", not_ws as u32);
        }
    }

    #[test]
    fn hustle_reserved_prefix_after_trimming() {
        assert!(!is_valid_hustle("_looprig.compact".chars()));
        assert!(!is_valid_hustle("_looprig.".chars()));
        assert!(!is_valid_hustle(" \u{3000}_looprig.x ".chars()));
        assert!(is_valid_hustle("_looprig".chars()));
        assert!(is_valid_hustle("_LoopRig.x".chars()));
        assert!(is_valid_hustle("x_looprig.y".chars()));
        assert!(is_valid_hustle("  context.compact  ".chars()));
    }

    #[test]
    fn counter_table() {
        for q in [i32::MIN, -1, 0, 4, 99, 259, i32::MAX] {
            for policy in 0..=u8::MAX {
                assert!(!accepts(policy, q));
            }
        }
        assert!(accepts(1, 1) && accepts(1, 2) && !accepts(1, 3));
        assert!(accepts(2, 1) && accepts(2, 2) && accepts(2, 3));
        for q in 0..=3 {
            assert!(!accepts(0, q) && !accepts(3, q) && !accepts(255, q));
        }
    }
}
