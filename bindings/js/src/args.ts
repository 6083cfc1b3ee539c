/**
 * Integer arguments, checked before any call: a wrong type is a `TypeError`, a value outside the C
 * type's range a `RangeError`, so the library never sees a truncated or wrapped integer.
 */

/** An unsigned 64-bit argument: a non-negative safe integer `number`, or a `bigint` below 2^64. */
export type U64 = number | bigint;

/** @internal 2^64 - 1: `LC_OFFSET_UNKNOWN`, `LC_LIMIT_UNKNOWN`, and "no limit" for a byte budget. */
export const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** @internal */
export function u64(value: U64, what: string): bigint {
  if (typeof value === "bigint") {
    if (value < 0n || value > U64_MAX) throw new RangeError(`loopcompact: ${what} must be in 0..2^64-1, got ${value}`);
    return value;
  }
  if (typeof value !== "number") throw new TypeError(`loopcompact: ${what} must be a number or a bigint`);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`loopcompact: ${what} must be a non-negative safe integer or a bigint, got ${value}`);
  }
  return BigInt(value);
}

function intIn(value: number, lo: number, hi: number, what: string): number {
  if (typeof value !== "number") throw new TypeError(`loopcompact: ${what} must be a number`);
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new RangeError(`loopcompact: ${what} must be an integer in ${lo}..${hi}, got ${value}`);
  }
  return value;
}

/** @internal */
export const int32 = (value: number, what: string): number => intIn(value, -0x8000_0000, 0x7fff_ffff, what);
/** @internal */
export const uint16 = (value: number, what: string): number => intIn(value, 0, 0xffff, what);

/** @internal */
export function boolean(value: unknown, what: string): boolean {
  if (typeof value !== "boolean") throw new TypeError(`loopcompact: ${what} must be a boolean`);
  return value;
}
