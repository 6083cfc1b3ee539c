//! Policies (SPEC §8) and context limits, occupancy, pressure, replacement (SPEC §9).

use super::{InBuf, ffi_guard, ffi_status, lc_status, required};
use crate::limits::{self, ContextLimits, ResolvedLimits};
use crate::policy::{CompactionPolicy, ContextConfig, ContextObservationPolicy};

/// A model's context limits in tokens (SPEC §9); 0 means "not known" for each field.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[allow(non_camel_case_types)]
pub struct lc_context_limits {
    /// The whole context window (input and output together).
    pub window_tokens: u64,
    /// The largest accepted input.
    pub max_input_tokens: u64,
    /// The largest output the model produces.
    pub max_output_tokens: u64,
}

/// The input limits resolved by `lc_context_limits_resolve` (SPEC L9.1).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[allow(non_camel_case_types)]
pub struct lc_resolved_limits {
    /// The output reservation applied: `reserved_output`, lowered to `max_output_tokens` when that
    /// is known and smaller.
    pub reserved_output: u64,
    /// The input limit before the safety margin.
    pub raw_input_limit: u64,
    /// The input limit to measure occupancy against: `raw_input_limit - safety_margin`.
    pub input_limit: u64,
}

/// Counter quality (SPEC P8.4), the `counter_quality` argument: unknown. Any value other than
/// the four `LC_COUNTER_QUALITY_*` constants is treated as unknown (A3.5).
pub const LC_COUNTER_QUALITY_UNKNOWN: i32 = 0;
/// Counter quality: exact, from the provider.
pub const LC_COUNTER_QUALITY_EXACT_PROVIDER: i32 = 1;
/// Counter quality: exact, from a local tokenizer.
pub const LC_COUNTER_QUALITY_EXACT_LOCAL: i32 = 2;
/// Counter quality: a heuristic estimate.
pub const LC_COUNTER_QUALITY_HEURISTIC: i32 = 3;

/// Pressure level (SPEC L9.3) returned by `lc_pressure_level`: unknown, only if the library failed
/// internally (A3.4).
pub const LC_PRESSURE_UNKNOWN: i32 = 0;
/// Pressure level: below the compaction threshold (or not automatic).
pub const LC_PRESSURE_NORMAL: i32 = 1;
/// Pressure level: compaction is due (or still due, inside the re-arm band).
pub const LC_PRESSURE_COMPACT: i32 = 2;
/// Pressure level: the context is full.
pub const LC_PRESSURE_HARD_LIMIT: i32 = 3;

// The header's literals are the core's values (cbindgen needs literals; the compiler checks them).
const _: () = {
    use crate::limits::PressureLevel;
    use crate::policy::capability::quality;
    assert!(LC_COUNTER_QUALITY_UNKNOWN == quality::UNKNOWN as i32);
    assert!(LC_COUNTER_QUALITY_EXACT_PROVIDER == quality::EXACT_PROVIDER as i32);
    assert!(LC_COUNTER_QUALITY_EXACT_LOCAL == quality::EXACT_LOCAL as i32);
    assert!(LC_COUNTER_QUALITY_HEURISTIC == quality::HEURISTIC as i32);
    assert!(LC_PRESSURE_UNKNOWN == PressureLevel::Unknown.code());
    assert!(LC_PRESSURE_NORMAL == PressureLevel::Normal.code());
    assert!(LC_PRESSURE_COMPACT == PressureLevel::Compact.code());
    assert!(LC_PRESSURE_HARD_LIMIT == PressureLevel::HardLimit.code());
};

impl From<lc_context_limits> for ContextLimits {
    fn from(c: lc_context_limits) -> ContextLimits {
        ContextLimits {
            window_tokens: c.window_tokens,
            max_input_tokens: c.max_input_tokens,
            max_output_tokens: c.max_output_tokens,
        }
    }
}

impl From<ResolvedLimits> for lc_resolved_limits {
    fn from(r: ResolvedLimits) -> lc_resolved_limits {
        lc_resolved_limits {
            reserved_output: r.reserved_output,
            raw_input_limit: r.raw_input_limit,
            input_limit: r.input_limit,
        }
    }
}

/// Validates a compaction policy document (SPEC §8.1) for a token counter of quality
/// `counter_quality` (`LC_COUNTER_QUALITY_*`: 0 unknown, 1 exact provider, 2 exact local,
/// 3 heuristic estimate); any other value is treated as unknown (259 is not 3).
///
/// The document is the JSON a Go host gets from `json.Marshal` of the reference struct:
/// `{"Automatic":true,"CounterPolicy":2,"CompactAt":8000,"RearmBelow":6000,"ReservedOutput":4096,
/// "SafetyMargin":512,"MaxSummaryTokens":2048,"CountTimeout":2000000000,"Hustle":"context.compact"}`,
/// every key required, `CountTimeout` in nanoseconds.
///
/// Returns `LC_OK`; `LC_POLICY_WIRE` for any JSON or layout error (including an empty buffer);
/// or the first failing field in the order `LC_POLICY_RESERVED_OUTPUT`,
/// `LC_POLICY_MAX_SUMMARY_TOKENS`, `LC_POLICY_COUNT_TIMEOUT`, `LC_POLICY_HUSTLE`,
/// `LC_POLICY_SAFETY_MARGIN` (a heuristic counter needs a margin, also in manual mode), then, only
/// when `Automatic` is true, `LC_POLICY_REARM_BELOW`, `LC_POLICY_COMPACT_AT`,
/// `LC_POLICY_COUNTER_POLICY`; or a boundary code.
///
/// # Safety
/// `json` is NULL (with `json_len == 0`) or valid for reads of `json_len` bytes during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_compaction_policy_validate(
    json: *const u8,
    json_len: usize,
    counter_quality: i32,
) -> lc_status {
    ffi_status!({
        let json = InBuf::new(json, json_len)?;
        // SAFETY: guaranteed by the caller (see above).
        let json = unsafe { json.slice() }?;
        Ok(CompactionPolicy::validate_json(json, counter_quality)?)
    })
}

/// Validates a context observation policy document (SPEC §8.2), e.g.
/// `{"ReservedOutput":4096,"SafetyMargin":512,"CountTimeout":2000000000}`, for a token counter of
/// quality `counter_quality` (as for `lc_compaction_policy_validate`).
///
/// Returns `LC_OK`; `LC_OBSERVATION_WIRE` for any JSON or layout error; or the first failing field
/// in the order `LC_OBSERVATION_RESERVED_OUTPUT`, `LC_OBSERVATION_COUNT_TIMEOUT`,
/// `LC_OBSERVATION_SAFETY_MARGIN`; or a boundary code.
///
/// # Safety
/// `json` is NULL (with `json_len == 0`) or valid for reads of `json_len` bytes during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_context_observation_validate(
    json: *const u8,
    json_len: usize,
    counter_quality: i32,
) -> lc_status {
    ffi_status!({
        let json = InBuf::new(json, json_len)?;
        // SAFETY: guaranteed by the caller (see above).
        let json = unsafe { json.slice() }?;
        Ok(ContextObservationPolicy::from_json(json).and_then(|p| p.validate(counter_quality))?)
    })
}

/// Validates a context configuration document (SPEC §8.3): the keys `Compaction`,
/// `ContextObservation`, `CounterCapability` and `InferenceCapability`, each an object or `null`.
///
/// Returns `LC_OK` (also when all four are `null`: no context management); `LC_CONTEXT_WIRE` for any
/// JSON or layout error anywhere in the document; otherwise the first failure of
/// `LC_CONTEXT_CONFLICTING_POLICY`, `LC_CONTEXT_MISSING_COUNTER`,
/// `LC_CONTEXT_MISSING_INFERENCE_CAPABILITY`, `LC_CONTEXT_MISSING_POLICY`,
/// `LC_CONTEXT_INVALID_COUNTER`, `LC_CONTEXT_INVALID_INFERENCE_CAPABILITY`,
/// `LC_CONTEXT_INCOMPATIBLE_COUNTER`, then the nested policy's own code (301–308 or 321–323),
/// checked with the counter's `Quality`; or a boundary code.
///
/// # Safety
/// `json` is NULL (with `json_len == 0`) or valid for reads of `json_len` bytes during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_context_config_validate(json: *const u8, json_len: usize) -> lc_status {
    ffi_status!({
        let json = InBuf::new(json, json_len)?;
        // SAFETY: guaranteed by the caller (see above).
        let json = unsafe { json.slice() }?;
        Ok(ContextConfig::validate_json(json)?)
    })
}

/// Resolves the input limit of a model (SPEC L9.1) for a policy's `reserved_output` and
/// `safety_margin`, and writes it to `*out`.
///
/// The reservation is lowered to `max_output_tokens` when that is known and smaller, and is
/// subtracted from the window, never from `max_input_tokens`; the smaller known input limit wins;
/// the safety margin is subtracted last.
///
/// Returns `LC_OK`; `LC_LIMITS_UNKNOWN` when the limits give no usable input limit (an input or
/// output limit above a known window, a reservation that fills the window, no limit known, or a
/// margin that leaves nothing); `LC_ERR_NULL_ARGUMENT` when `out` is NULL. `*out` is written only
/// on `LC_OK`.
///
/// # Safety
/// `out` is NULL or valid for one write of an `lc_resolved_limits`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_context_limits_resolve(
    limits: lc_context_limits,
    reserved_output: u64,
    safety_margin: u64,
    out: *mut lc_resolved_limits,
) -> lc_status {
    ffi_status!({
        required(out)?;
        let resolved = limits::resolve(limits.into(), reserved_output, safety_margin)?;
        // SAFETY: `out` is non-NULL and writable (guaranteed by the caller).
        unsafe { out.write(resolved.into()) };
        Ok(())
    })
}

/// Writes to `*out` the occupancy of `used` tokens against `limit` in basis points (SPEC L9.2):
/// floor(used * 10000 / limit), exact for every pair of values, and 10000 when `used >= limit`.
///
/// Returns `LC_OK`; `LC_OCCUPANCY_ZERO_LIMIT` when `limit` is 0; `LC_ERR_NULL_ARGUMENT` when `out`
/// is NULL. `*out` is written only on `LC_OK`.
///
/// # Safety
/// `out` is NULL or valid for one write of a `uint16_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lc_occupancy_basis_points(used: u64, limit: u64, out: *mut u16) -> lc_status {
    ffi_status!({
        required(out)?;
        let occupancy = limits::occupancy_basis_points(used, limit)?;
        // SAFETY: `out` is non-NULL and writable (guaranteed by the caller).
        unsafe { out.write(occupancy) };
        Ok(())
    })
}

/// The context pressure level for `occupancy` basis points (SPEC L9.3): `LC_PRESSURE_NORMAL` (1),
/// `LC_PRESSURE_COMPACT` (2), `LC_PRESSURE_HARD_LIMIT` (3); `LC_PRESSURE_UNKNOWN` (0) only if the
/// library failed internally.
///
/// First match: `occupancy >= 10000` gives 3; not `automatic` gives 1; `previous_level` 2 or 3 and
/// `occupancy >= rearm_below` (inclusive) gives 2 (compaction stays due until the occupancy drops
/// below the re-arm threshold); `occupancy >= compact_at` gives 2; otherwise 1. Pass the level
/// this function returned for the previous measurement as `previous_level` (any value other than
/// 2 and 3 behaves as 1). The thresholds are used as given; validate them with
/// `lc_compaction_policy_validate`.
#[unsafe(no_mangle)]
pub extern "C" fn lc_pressure_level(
    previous_level: i32,
    occupancy: u16,
    automatic: bool,
    compact_at: u16,
    rearm_below: u16,
) -> i32 {
    ffi_guard!(limits::PressureLevel::Unknown.code(), {
        limits::pressure_level(previous_level, occupancy, automatic, compact_at, rearm_below).code()
    })
}

/// Checks that the request rebuilt after a compaction fits (SPEC L9.4): `input_tokens`, measured
/// with the counter and limits used for admission, must be below `input_limit`.
///
/// Returns `LC_OK`, or `LC_SUMMARY_TOO_LARGE` when `input_tokens >= input_limit` (reaching the
/// limit counts as too large; a zero limit always fails).
#[unsafe(no_mangle)]
pub extern "C" fn lc_replacement_check(input_tokens: u64, input_limit: u64) -> lc_status {
    ffi_status!({
        limits::replacement_check(input_tokens, input_limit)?;
        Ok(())
    })
}
