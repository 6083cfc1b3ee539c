//! Context limits, occupancy, pressure and the replacement check (SPEC §9, L9.1–L9.4).
//!
//! The run-time half of context management: from the model's limits and the policy's reservation
//! to an input limit ([`resolve`]), from a token count to an occupancy in basis points
//! ([`occupancy_basis_points`]), from an occupancy to a pressure level with hysteresis
//! ([`pressure_level`]), and whether a compacted request fits ([`replacement_check`]). All are
//! pure integer functions that cannot overflow.

use crate::error::Result;
use crate::status::Status;

/// Full scale of an occupancy: 10000 basis points is 100 %.
pub const FULL_SCALE_BASIS_POINTS: u16 = 10_000;

/// A model's context limits in tokens; 0 means "not known" for each field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ContextLimits {
    /// The whole context window (input and output together).
    pub window_tokens: u64,
    /// The largest accepted input.
    pub max_input_tokens: u64,
    /// The largest output the model produces.
    pub max_output_tokens: u64,
}

/// The input limits resolved from [`ContextLimits`] and a policy (L9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ResolvedLimits {
    /// The output reservation actually applied (lowered to `max_output_tokens` when smaller).
    pub reserved_output: u64,
    /// The input limit before the safety margin.
    pub raw_input_limit: u64,
    /// The input limit occupancy is measured against: `raw_input_limit - safety_margin`.
    pub input_limit: u64,
}

/// L9.1: resolves the input limit of a model for a policy's `reserved_output` and `safety_margin`.
///
/// The reservation is subtracted from the window, never from `max_input_tokens`; the smaller of
/// the two known limits wins; the safety margin is subtracted last.
///
/// # Errors
/// `LimitsUnknown` when the limits contradict each other (an input or output limit above a known
/// window), the reservation fills the window, no limit is known, or the margin leaves nothing.
pub fn resolve(limits: ContextLimits, reserved_output: u64, safety_margin: u64) -> Result<ResolvedLimits> {
    let ContextLimits { window_tokens, max_input_tokens, max_output_tokens } = limits;
    if window_tokens != 0 && (max_input_tokens > window_tokens || max_output_tokens > window_tokens) {
        return Err(Status::LimitsUnknown.into());
    }
    let reserved = if max_output_tokens != 0 { reserved_output.min(max_output_tokens) } else { reserved_output };
    let mut raw = 0;
    if window_tokens != 0 {
        raw = window_tokens.checked_sub(reserved).filter(|&r| r != 0).ok_or(Status::LimitsUnknown)?;
    }
    if max_input_tokens != 0 && (raw == 0 || max_input_tokens < raw) {
        raw = max_input_tokens;
    }
    let input_limit = raw.checked_sub(safety_margin).filter(|&l| l != 0).ok_or(Status::LimitsUnknown)?;
    Ok(ResolvedLimits { reserved_output: reserved, raw_input_limit: raw, input_limit })
}

/// L9.2: `used` as a share of `limit` in basis points, ⌊used × 10000 / limit⌋, capped at 10000.
/// Exact for every pair of u64 (the product is computed in 128 bits).
///
/// # Errors
/// `OccupancyZeroLimit` when `limit` is 0.
pub fn occupancy_basis_points(used: u64, limit: u64) -> Result<u16> {
    if limit == 0 {
        return Err(Status::OccupancyZeroLimit.into());
    }
    if used >= limit {
        return Ok(FULL_SCALE_BASIS_POINTS);
    }
    let quotient = u128::from(used) * u128::from(FULL_SCALE_BASIS_POINTS) / u128::from(limit);
    Ok(u16::try_from(quotient).map_or(FULL_SCALE_BASIS_POINTS, |q| q.min(FULL_SCALE_BASIS_POINTS)))
}

/// A context pressure level (L9.3); the discriminant is the C ABI's `int32_t` level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum PressureLevel {
    /// Not known: only the C ABI's neutral value after a panic (A3.4); [`pressure_level`] never
    /// returns it.
    Unknown = 0,
    /// Below the compaction threshold (or not automatic).
    Normal = 1,
    /// Compaction is due (or still due, inside the re-arm band).
    Compact = 2,
    /// The context is full.
    HardLimit = 3,
}

impl PressureLevel {
    /// The C ABI value: 0 unknown, 1 normal, 2 compact, 3 hard limit.
    #[must_use]
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The level with this value, or `None` for a value that is not a level.
    #[must_use]
    pub const fn from_code(code: i32) -> Option<PressureLevel> {
        match code {
            0 => Some(PressureLevel::Unknown),
            1 => Some(PressureLevel::Normal),
            2 => Some(PressureLevel::Compact),
            3 => Some(PressureLevel::HardLimit),
            _ => None,
        }
    }
}

/// L9.3: the pressure level for `occupancy` (basis points), given the level of the previous
/// measurement. `previous` is the previous level's code; any value other than 2 (compact) and 3
/// (hard limit) behaves as normal (A3.5). The thresholds are used as given, not validated.
///
/// Hysteresis: once compaction is due, it stays due while the occupancy is at or above
/// `rearm_below` (inclusive), so a compaction that frees little does not trigger again at once.
#[must_use]
pub fn pressure_level(
    previous: i32,
    occupancy: u16,
    automatic: bool,
    compact_at: u16,
    rearm_below: u16,
) -> PressureLevel {
    if occupancy >= FULL_SCALE_BASIS_POINTS {
        return PressureLevel::HardLimit;
    }
    if !automatic {
        return PressureLevel::Normal;
    }
    let was_due = previous == PressureLevel::Compact.code() || previous == PressureLevel::HardLimit.code();
    if (was_due && occupancy >= rearm_below) || occupancy >= compact_at {
        return PressureLevel::Compact;
    }
    PressureLevel::Normal
}

/// L9.4: whether the request rebuilt after a compaction fits: `input_tokens`, measured with the
/// counter and limits used for admission, must stay below `input_limit`.
///
/// # Errors
/// `SummaryTooLarge` when `input_tokens >= input_limit` (reaching the limit is too large; a zero
/// limit always fails).
pub fn replacement_check(input_tokens: u64, input_limit: u64) -> Result<()> {
    if input_tokens >= input_limit {
        return Err(Status::SummaryTooLarge.into());
    }
    Ok(())
}

/// S14.5, the loop guard's first half: did the compaction help? The occupancy after the
/// replacement (`post_input_tokens` against `input_limit`, as [`occupancy_basis_points`] computes
/// it) must be below the policy's `rearm_below`; otherwise the pressure stays at compact
/// ([`pressure_level`]'s hysteresis) and the next turn compacts again.
///
/// # Errors
/// `OccupancyZeroLimit` for a zero limit; `CompactionNoProgress` when the occupancy is at or above
/// `rearm_below` (the host can shrink `MaxSummaryTokens`, keep a shorter tail, or stop).
pub fn progress_check(post_input_tokens: u64, input_limit: u64, rearm_below: u16) -> Result<()> {
    if occupancy_basis_points(post_input_tokens, input_limit)? >= rearm_below {
        return Err(Status::CompactionNoProgress.into());
    }
    Ok(())
}

/// S14.6, the loop guard's second half: can the threshold ever be met? Even an empty history costs
/// the fixed part of every request (`fixed_tokens`: system prompt, tool definitions) plus the
/// summary itself (up to `max_summary_tokens`); if that already reaches `rearm_below` of
/// `input_limit`, compaction triggers forever.
///
/// # Errors
/// `OccupancyZeroLimit` for a zero limit; `CompactionThresholdUnreachable` otherwise when
/// `fixed_tokens + max_summary_tokens` reaches `rearm_below`.
pub fn threshold_check(rearm_below: u16, max_summary_tokens: u64, input_limit: u64, fixed_tokens: u64) -> Result<()> {
    let floor = fixed_tokens.saturating_add(max_summary_tokens);
    if occupancy_basis_points(floor, input_limit)? >= rearm_below {
        return Err(Status::CompactionThresholdUnreachable.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(window_tokens: u64, max_input_tokens: u64, max_output_tokens: u64) -> ContextLimits {
        ContextLimits { window_tokens, max_input_tokens, max_output_tokens }
    }

    #[test]
    fn resolve_steps() {
        let unknown = Err(Status::LimitsUnknown.into());
        // Step 1: a limit above the window.
        assert_eq!(resolve(limits(100, 101, 0), 1, 0), unknown);
        assert_eq!(resolve(limits(100, 0, 101), 1, 0), unknown);
        // Step 2: the reservation lowered to max_output_tokens.
        assert_eq!(
            resolve(limits(100, 0, 10), 50, 5),
            Ok(ResolvedLimits { reserved_output: 10, raw_input_limit: 90, input_limit: 85 })
        );
        // Step 3: reservation fills the window.
        assert_eq!(resolve(limits(100, 0, 0), 100, 0), unknown);
        assert_eq!(resolve(limits(100, 0, 0), u64::MAX, 0), unknown);
        // Step 4: max_input_tokens wins when smaller, and without a window.
        assert_eq!(
            resolve(limits(100, 50, 0), 10, 0),
            Ok(ResolvedLimits { reserved_output: 10, raw_input_limit: 50, input_limit: 50 })
        );
        assert_eq!(
            resolve(limits(100, 95, 0), 10, 0),
            Ok(ResolvedLimits { reserved_output: 10, raw_input_limit: 90, input_limit: 90 })
        );
        // Step 5.
        assert_eq!(resolve(limits(0, 0, 0), 1, 0), unknown);
        assert_eq!(resolve(limits(100, 0, 0), 10, 90), unknown);
        assert_eq!(
            resolve(limits(100, 0, 0), 10, 89),
            Ok(ResolvedLimits { reserved_output: 10, raw_input_limit: 90, input_limit: 1 })
        );
    }

    #[test]
    fn occupancy_extremes() {
        assert_eq!(occupancy_basis_points(0, 0), Err(Status::OccupancyZeroLimit.into()));
        assert_eq!(occupancy_basis_points(u64::MAX, u64::MAX), Ok(10_000));
        assert_eq!(occupancy_basis_points(u64::MAX - 1, u64::MAX), Ok(9_999));
        assert_eq!(occupancy_basis_points(1, u64::MAX), Ok(0));
        assert_eq!(occupancy_basis_points(0, 1), Ok(0));
        assert_eq!(occupancy_basis_points(9_999, 10_000), Ok(9_999));
        assert_eq!(occupancy_basis_points(u64::MAX, 1), Ok(10_000));
    }

    #[test]
    fn pressure_codes_round_trip() {
        for code in 0..4 {
            assert_eq!(PressureLevel::from_code(code).map(PressureLevel::code), Some(code));
        }
        assert_eq!(PressureLevel::from_code(4), None);
        assert_eq!(PressureLevel::from_code(-1), None);
    }
}
