/**
 * Policies and limits: the policy documents (SPEC §8), the context limits, occupancy, pressure and
 * the replacement check (§9), and the loop guard (S14.5, S14.6).
 */

import { type U64, boolean, int32, u64, uint16 } from "./args.js";
import { type Bytes, withBytes } from "./buffers.js";
import { check, fail, run } from "./errors.js";
import { CounterQuality, LAYOUT, type PressureLevel, Status } from "./generated.js";
import { SCRATCH } from "./runtime.js";

const LIMITS = LAYOUT.lc_context_limits;
const RESOLVED = LAYOUT.lc_resolved_limits;

/** Validates a compaction policy (SPEC §8.1) for a token counter of this `CounterQuality`. */
export function validateCompactionPolicy(json: Bytes, counterQuality: CounterQuality): void {
  const quality = int32(counterQuality, "counterQuality");
  run((rt) =>
    withBytes(rt, json, "json", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_compaction_policy_diagnose(ptr, len, quality, diag), diag);
    }),
  );
}

/** Validates a context observation policy (SPEC §8.2) for a token counter of this `CounterQuality`. */
export function validateContextObservation(json: Bytes, counterQuality: CounterQuality): void {
  const quality = int32(counterQuality, "counterQuality");
  run((rt) =>
    withBytes(rt, json, "json", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_context_observation_diagnose(ptr, len, quality, diag), diag);
    }),
  );
}

/** Validates a context configuration (SPEC §8.3). */
export function validateContextConfig(json: Bytes): void {
  run((rt) =>
    withBytes(rt, json, "json", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_context_config_diagnose(ptr, len, diag), diag);
    }),
  );
}

/** A model's context limits in tokens (SPEC §9); 0 means "not known". */
export interface ContextLimits {
  windowTokens: U64;
  maxInputTokens: U64;
  maxOutputTokens: U64;
}

/** The input limits resolved by `resolveContextLimits` (SPEC L9.1). */
export interface ResolvedLimits {
  /** The output reservation applied. */
  reservedOutput: bigint;
  /** The input limit before the safety margin. */
  rawInputLimit: bigint;
  /** The input limit to measure occupancy against. */
  inputLimit: bigint;
}

/** Resolves a model's input limit for a policy's reservation and margin (SPEC L9.1). */
export function resolveContextLimits(limits: ContextLimits, reservedOutput: U64, safetyMargin: U64): ResolvedLimits {
  const window = u64(limits.windowTokens, "windowTokens");
  const maxInput = u64(limits.maxInputTokens, "maxInputTokens");
  const maxOutput = u64(limits.maxOutputTokens, "maxOutputTokens");
  const reserved = u64(reservedOutput, "reservedOutput");
  const margin = u64(safetyMargin, "safetyMargin");
  return run((rt) => {
    const lp = rt.scratch + SCRATCH.limits;
    const out = rt.scratch + SCRATCH.resolved;
    const dv = rt.dv();
    dv.setBigUint64(lp + LIMITS.fields.window_tokens, window, true);
    dv.setBigUint64(lp + LIMITS.fields.max_input_tokens, maxInput, true);
    dv.setBigUint64(lp + LIMITS.fields.max_output_tokens, maxOutput, true);
    check(rt, rt.x.lc_context_limits_resolve(lp, reserved, margin, out), null);
    const r = rt.dv();
    return {
      reservedOutput: r.getBigUint64(out + RESOLVED.fields.reserved_output, true),
      rawInputLimit: r.getBigUint64(out + RESOLVED.fields.raw_input_limit, true),
      inputLimit: r.getBigUint64(out + RESOLVED.fields.input_limit, true),
    };
  });
}

/** `used` tokens against `limit` in basis points, 0..10000 (SPEC L9.2). */
export function occupancyBasisPoints(used: U64, limit: U64): number {
  const u = u64(used, "used");
  const l = u64(limit, "limit");
  return run((rt) => {
    const out = rt.wordPtr();
    check(rt, rt.x.lc_occupancy_basis_points(u, l, out), null);
    return rt.dv().getUint16(out, true);
  });
}

/** The pressure level (SPEC L9.3). `previousLevel`: what this function returned for the previous measurement. */
export function pressureLevel(
  previousLevel: PressureLevel,
  occupancy: number,
  automatic: boolean,
  compactAt: number,
  rearmBelow: number,
): PressureLevel {
  const previous = int32(previousLevel, "previousLevel");
  const occ = uint16(occupancy, "occupancy");
  const auto = boolean(automatic, "automatic");
  const at = uint16(compactAt, "compactAt");
  const rearm = uint16(rearmBelow, "rearmBelow");
  return run((rt) => rt.x.lc_pressure_level(previous, occ, auto ? 1 : 0, at, rearm) as PressureLevel);
}

/** Throws `LC_SUMMARY_TOO_LARGE` when the rebuilt request reaches its input limit (SPEC L9.4). */
export function replacementCheck(inputTokens: U64, inputLimit: U64): void {
  const tokens = u64(inputTokens, "inputTokens");
  const limit = u64(inputLimit, "inputLimit");
  run((rt) => check(rt, rt.x.lc_replacement_check(tokens, limit), null));
}

/**
 * The loop guard's first half (SPEC S14.5): the occupancy after the replacement
 * (`postInputTokens` against `inputLimit`) must be below the policy's `rearmBelow`. Throws
 * `LC_COMPACTION_NO_PROGRESS` (the next turn would compact again: shrink `MaxSummaryTokens`, keep a
 * shorter tail, or stop) or `LC_OCCUPANCY_ZERO_LIMIT`.
 */
export function compactionProgressCheck(postInputTokens: U64, inputLimit: U64, rearmBelow: number): void {
  const tokens = u64(postInputTokens, "postInputTokens");
  const limit = u64(inputLimit, "inputLimit");
  const rearm = uint16(rearmBelow, "rearmBelow");
  run((rt) => check(rt, rt.x.lc_compaction_progress_check(tokens, limit, rearm), null));
}

/**
 * The loop guard's second half (SPEC S14.6): even an empty history costs `fixedTokens` (system
 * prompt, tool definitions) plus the policy's `MaxSummaryTokens`, which must stay below its
 * `RearmBelow` of `inputLimit`. Throws `LC_COMPACTION_THRESHOLD_UNREACHABLE`,
 * `LC_OCCUPANCY_ZERO_LIMIT`, or `LC_POLICY_WIRE` for a policy document that does not decode (its
 * values are not validated here: see `validateCompactionPolicy`).
 */
export function compactionThresholdCheck(policyJson: Bytes, inputLimit: U64, fixedTokens: U64): void {
  const limit = u64(inputLimit, "inputLimit");
  const fixed = u64(fixedTokens, "fixedTokens");
  run((rt) =>
    withBytes(rt, policyJson, "policyJson", (ptr, len) => {
      const status = rt.x.lc_compaction_threshold_check(ptr, len, limit, fixed);
      // A document that does not decode: the policy validator's diagnosis says where (P8.1), when it
      // gives the same status.
      if (status !== Status.OK) {
        fail(rt, status, (diag) => rt.x.lc_compaction_policy_diagnose(ptr, len, CounterQuality.UNKNOWN, diag));
      }
    }),
  );
}
