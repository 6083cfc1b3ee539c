/**
 * Statuses as errors: the status texts of the library (`lc_status_name`, `_reason`, `_message`,
 * `_class`), the diagnosis of SPEC §13 read out of an `lc_diagnostic`, `LoopcompactError`, and
 * `run`, which turns a trap of the instance into `LC_ERR_PANIC`.
 */

import type { Ptr } from "./abi.js";
import { U64_MAX } from "./args.js";
import { cString, decodeText, withOutput } from "./buffers.js";
import { LAYOUT, Section, Status, StatusClass, type StatusCode } from "./generated.js";
import { type Held, type Runtime, Trap, retire, retireIfLarge, runtime } from "./runtime.js";

const DIAG = LAYOUT.lc_diagnostic;

interface StatusText {
  name: string;
  reason: string;
  message: string;
  statusClass: StatusClass;
}
const statusTexts = new Map<number, StatusText>();
let panicKnown = false;

function readStatusText(rt: Runtime, code: number): StatusText {
  return {
    name: cString(rt, rt.x.lc_status_name(code)),
    reason: cString(rt, rt.x.lc_status_reason(code)),
    message: cString(rt, rt.x.lc_status_message(code)),
    statusClass: rt.x.lc_status_class(code) as StatusClass,
  };
}

/** @internal The texts and class of a status, from the library (cached: they are static). */
export function statusText(code: number): StatusText {
  let text = statusTexts.get(code);
  if (text === undefined) {
    text = run((rt) => readStatusText(rt, code));
    statusTexts.set(code, text);
  }
  return text;
}

/**
 * @internal The instance of a handle's owner named `what` (`Input`, `Conversion`,
 * `SummaryStream`), `rt` its field: throws once the owner was freed or its instance trapped.
 */
export function liveRuntime(rt: Runtime | null, what: string): Runtime {
  if (rt === null) throw new Error(`loopcompact: this ${what} was freed`);
  if (rt.broken) {
    throw new Error(`loopcompact: this ${what} is gone: its WebAssembly instance trapped (LC_ERR_PANIC) and was replaced`);
  }
  return rt;
}

/**
 * @internal An owner's `free()` once it has cleared its field (`rt` null: freed already): the
 * finalizer forgets it, and the handle is freed unless its instance trapped.
 */
export function releaseHandle(
  rt: Runtime | null,
  token: object,
  finalizer: FinalizationRegistry<Held> | null,
  free: (rt: Runtime) => void,
): void {
  if (rt === null) return;
  finalizer?.unregister(token);
  rt.live--;
  if (!rt.broken) run(free, rt);
}

/** @internal Runs `body` on an instance; a trap inside it becomes `LC_ERR_PANIC` and retires the instance. */
export function run<T>(body: (rt: Runtime) => T, rt: Runtime = runtime()): T {
  // Known before any trap, so that reporting one never needs the instance that trapped.
  if (!panicKnown) {
    statusTexts.set(Status.ERR_PANIC, readStatusText(rt, Status.ERR_PANIC));
    panicKnown = true;
  }
  try {
    return body(rt);
  } catch (e) {
    if (!(e instanceof Trap)) throw e;
    retire(rt);
    throw new LoopcompactError(plainDiagnosis(Status.ERR_PANIC), { cause: e.trap });
  } finally {
    retireIfLarge(rt);
  }
}

/**
 * Where and what of a failure (SPEC §13, C13.2), as the library's `_diagnose` functions report it.
 * Nothing in it comes from the input: numbers, static strings of the library and a path of layout
 * names. `LoopcompactError` has these fields; a round's attempts carry one each (with status
 * `Status.OK` for the accepted one).
 */
export interface Diagnosis {
  /** The status (`lc_status`), e.g. 207 (`Status.SUMMARY_XML_ROOT`). */
  readonly status: StatusCode;
  /** The status's constant name, e.g. `"LC_SUMMARY_XML_ROOT"`. */
  readonly name: string;
  /**
   * The reference's reason string, e.g. `"xml_root"`; `""` for the boundary codes. Several codes
   * share one (`"wire"`): compare `status` or `name` to tell them apart.
   */
  readonly reason: string;
  /** `StatusClass.*`: what to do next (SPEC C13.3). */
  readonly statusClass: StatusClass;
  /** `Section.*`: the summary section holding the problem or expected there; `Section.NONE` otherwise. */
  readonly section: Section;
  /** Bytes into the checked document (into the decoded summary for a reply's summary); `null` when unknown. */
  readonly offset: number | null;
  /** 1-based line of `offset` (lines end at LF); `null` when unknown. */
  readonly line: number | null;
  /** 1-based column of `offset`, in Unicode scalar values; `null` when unknown. */
  readonly column: number | null;
  /** For byte and token limits: the limit; `null` otherwise. */
  readonly limit: bigint | null;
  /** For byte and token limits: the measured value; `null` otherwise. */
  readonly actual: bigint | null;
  /** The SPEC rule id, e.g. `"X4.17"`; `""` when none. */
  readonly rule: string;
  /** What the rule expected, e.g. `"<constraints>"`, `"non-blank text"`; `""` when none. */
  readonly expected: string;
  /** Path of layout names and indices, e.g. `"transcript[3].blocks[0].type"`, `"summary"`; `""` for the document. */
  readonly location: string;
  /**
   * A bare reply only (SPEC R15.7): the `ReplyCleanup` flags of the cleanups that removed something
   * around the summary (`ReplyCleanup.TRIM | ReplyCleanup.UNFENCE`); 0 otherwise.
   */
  readonly removed: number;
  /** A bare reply only: bytes cleanup removed before the summary; 0 otherwise. */
  readonly removedBefore: number;
  /** A bare reply only: bytes cleanup removed after the summary; 0 otherwise. */
  readonly removedAfter: number;
}

/** @internal A diagnosis and the `lc_diagnostic` bytes it was read from (for `lc_retry_message`). */
export interface Diagnosed {
  readonly diagnosis: Diagnosis;
  readonly raw: Uint8Array;
}

/** @internal Reads the `lc_diagnostic` at `ptr`. */
export function readDiagnosis(rt: Runtime, ptr: Ptr): Diagnosed {
  // A copy first: what follows may call into the instance (the status texts).
  const raw = rt.u8().slice(ptr, ptr + DIAG.size);
  const dv = new DataView(raw.buffer);
  const f = DIAG.fields;
  const u64At = (field: number) => dv.getBigUint64(field, true);
  const known = (v: bigint) => (v === U64_MAX ? null : v);
  const offset = known(u64At(f.offset));
  const line = Number(u64At(f.line));
  const column = Number(u64At(f.column));
  const location = raw.subarray(f.location, f.removed);
  const nul = location.indexOf(0);
  const status = dv.getInt32(f.status, true) as StatusCode;
  const text = statusText(status);
  const diagnosis: Diagnosis = Object.freeze({
    status,
    name: text.name,
    reason: text.reason,
    statusClass: dv.getInt32(f.status_class, true) as StatusClass,
    section: dv.getInt32(f.section, true) as Section,
    offset: offset === null ? null : Number(offset),
    line: line === 0 ? null : line,
    column: column === 0 ? null : column,
    limit: known(u64At(f.limit)),
    actual: known(u64At(f.actual)),
    rule: cString(rt, dv.getUint32(f.rule, true)),
    expected: cString(rt, dv.getUint32(f.expected, true)),
    location: decodeText(nul < 0 ? location : location.subarray(0, nul)),
    removed: dv.getUint32(f.removed, true),
    removedBefore: Number(u64At(f.removed_before)),
    removedAfter: Number(u64At(f.removed_after)),
  });
  return { diagnosis, raw };
}

/** @internal The diagnosis of a status that comes without one: class only, everything else unknown. */
export function plainDiagnosis(status: StatusCode): Diagnosed {
  const raw = new Uint8Array(DIAG.size);
  const dv = new DataView(raw.buffer);
  const f = DIAG.fields;
  const text = statusText(status);
  const statusClass = status === Status.ERR_PANIC ? StatusClass.BUG : text.statusClass;
  dv.setUint32(f.struct_size, DIAG.size, true);
  dv.setInt32(f.status, status, true);
  dv.setInt32(f.status_class, statusClass, true);
  dv.setInt32(f.section, Section.NONE, true);
  for (const field of [f.offset, f.limit, f.actual]) dv.setBigUint64(field, U64_MAX, true);
  const diagnosis: Diagnosis = Object.freeze({
    status,
    name: text.name,
    reason: text.reason,
    statusClass,
    section: Section.NONE,
    offset: null,
    line: null,
    column: null,
    limit: null,
    actual: null,
    rule: "",
    expected: "",
    location: "",
    removed: 0,
    removedBefore: 0,
    removedAfter: 0,
  });
  return { diagnosis, raw };
}

/**
 * @internal The diagnosis of a source the package refuses before the library sees it (a cycle, a
 * `bigint`, a function: SPEC G16.8): `status` with a `location` made of the format's field names
 * and indices, `expected` and `rule` as the library's converters give them.
 */
export function sourceDiagnosis(status: StatusCode, location: string, expected: string): Diagnosed {
  const plain = plainDiagnosis(status);
  const raw = plain.raw;
  const f = DIAG.fields;
  // ASCII only (names and indices); the field holds at most its capacity less the NUL.
  const cap = f.removed - f.location - 1;
  for (let i = 0; i < Math.min(location.length, cap); i++) raw[f.location + i] = location.charCodeAt(i) & 0x7f;
  const diagnosis: Diagnosis = Object.freeze({ ...plain.diagnosis, rule: "G16.8", expected, location });
  return { diagnosis, raw };
}

/** @internal A diagnosis without its place in the document (`offset`, `line`, `column` unknown). */
export function withoutPosition({ diagnosis, raw }: Diagnosed): Diagnosed {
  const copy = raw.slice();
  const dv = new DataView(copy.buffer);
  const f = DIAG.fields;
  dv.setBigUint64(f.offset, U64_MAX, true);
  dv.setBigUint64(f.line, 0n, true);
  dv.setBigUint64(f.column, 0n, true);
  return { diagnosis: Object.freeze({ ...diagnosis, offset: null, line: null, column: null }), raw: copy };
}

/**
 * @internal A diagnosis the round makes itself (SPEC G17.10: a structured reply that is not the
 * schema's object, a render refusal): `rule` and `expected` are static text of the package, which
 * `retryMessageOf` writes into the instance for `lc_retry_message`; ASCII `location`.
 */
export function madeDiagnosis(
  status: StatusCode,
  fields: { section?: Section; rule: string; expected?: string; location: string; limit?: bigint; actual?: bigint },
): Diagnosed {
  const plain = plainDiagnosis(status);
  const raw = plain.raw;
  const dv = new DataView(raw.buffer);
  const f = DIAG.fields;
  const section = fields.section ?? Section.NONE;
  dv.setInt32(f.section, section, true);
  if (fields.limit !== undefined && fields.actual !== undefined) {
    dv.setBigUint64(f.limit, fields.limit, true);
    dv.setBigUint64(f.actual, fields.actual, true);
  }
  for (let i = 0; i < fields.location.length; i++) raw[f.location + i] = fields.location.charCodeAt(i) & 0x7f;
  const diagnosis: Diagnosis = Object.freeze({
    ...plain.diagnosis,
    section,
    rule: fields.rule,
    expected: fields.expected ?? "",
    location: fields.location,
    limit: fields.limit ?? null,
    actual: fields.actual ?? null,
  });
  return { diagnosis, raw };
}

/**
 * @internal The retry message of a diagnosis (SPEC C13.5, `lc_retry_message`). `strings`: the
 * `rule` and `expected` of a diagnosis made by `madeDiagnosis`, copied into the instance for the
 * call (the raw bytes of a library's diagnosis point at the library's own strings).
 */
export function retryMessageOf(raw: Uint8Array, strings?: { rule: string; expected: string }): string {
  return run((rt) => {
    const owned: [number, number][] = [];
    const nulString = (text: string): number => {
      const bytes = new TextEncoder().encode(`${text}\0`);
      const ptr = rt.alloc(bytes.length);
      owned.push([ptr, bytes.length]);
      rt.u8().set(bytes, ptr);
      return ptr;
    };
    try {
      const copy = raw.slice();
      if (strings !== undefined) {
        const dv = new DataView(copy.buffer);
        dv.setUint32(DIAG.fields.rule, strings.rule === "" ? 0 : nulString(strings.rule), true);
        dv.setUint32(DIAG.fields.expected, strings.expected === "" ? 0 : nulString(strings.expected), true);
      }
      const diag = rt.diag();
      rt.u8().set(copy, diag);
      const [status, text] = withOutput(rt, 1024, (buf, cap, len) => rt.x.lc_retry_message(diag, buf, cap, len), decodeText);
      check(rt, status, null);
      return text ?? "";
    } finally {
      for (const [ptr, size] of owned) rt.free(ptr, size);
    }
  });
}

/** @internal The diagnosis an error was made from, and its bytes. */
export let diagnosedOf: (e: LoopcompactError) => Diagnosed;

const sectionNames = new Map<number, string>(Object.entries(Section).map(([k, v]) => [v, k.toLowerCase()]));

/**
 * A call returned a status other than `LC_OK`. Nothing in it comes from the input (SPEC C13.1):
 * numbers, static strings of the library and a path of layout names.
 */
export class LoopcompactError extends Error implements Diagnosis {
  readonly status: StatusCode;
  override readonly name: string;
  readonly reason: string;
  readonly statusClass: StatusClass;
  readonly section: Section;
  readonly offset: number | null;
  readonly line: number | null;
  readonly column: number | null;
  readonly limit: bigint | null;
  readonly actual: bigint | null;
  readonly rule: string;
  readonly expected: string;
  readonly location: string;
  readonly removed: number;
  readonly removedBefore: number;
  readonly removedAfter: number;
  readonly #diagnosed: Diagnosed;

  static {
    diagnosedOf = (e) => e.#diagnosed;
  }

  /** @internal */
  constructor({ diagnosis: d, raw }: Diagnosed, options?: { cause: unknown }) {
    const where: string[] = [];
    if (d.line !== null) where.push(`line ${d.line}, column ${d.column ?? 0}`);
    if (d.section !== Section.NONE) where.push(`section ${sectionNames.get(d.section) ?? d.section}`);
    if (d.location !== "") where.push(`at ${d.location}`);
    if (d.expected !== "") where.push(`expected ${d.expected}`);
    if (d.rule !== "") where.push(`rule ${d.rule}`);
    if (d.limit !== null) where.push(`limit ${d.limit}, actual ${d.actual ?? "unknown"}`);
    if (d.removed !== 0) where.push(`cleanup removed ${d.removedBefore} bytes before, ${d.removedAfter} after`);
    const message = statusText(d.status).message;
    super(where.length > 0 ? `${message} (${where.join("; ")})` : message, options);
    this.status = d.status;
    this.name = d.name;
    this.reason = d.reason;
    this.statusClass = d.statusClass;
    this.section = d.section;
    this.offset = d.offset;
    this.line = d.line;
    this.column = d.column;
    this.limit = d.limit;
    this.actual = d.actual;
    this.rule = d.rule;
    this.expected = d.expected;
    this.location = d.location;
    this.removed = d.removed;
    this.removedBefore = d.removedBefore;
    this.removedAfter = d.removedAfter;
    this.#diagnosed = { diagnosis: d, raw };
  }

  /**
   * A short message to the summariser about this failure (SPEC C13.5, `lc_retry_message`): what was
   * wrong, where, and the rules it broke; for a status whose class is not `StatusClass.RETRY`, that
   * no retry is useful.
   */
  retryMessage(): string {
    return retryMessageOf(this.#diagnosed.raw);
  }
}

/** @internal Throws for a status other than `LC_OK`, with the scratch diagnosis when `diag` is given. */
export function check(rt: Runtime, status: number, diag: Ptr | null): void {
  if (status === Status.OK) return;
  throw new LoopcompactError(diag === null ? plainDiagnosis(status as StatusCode) : readDiagnosis(rt, diag));
}

/**
 * @internal Throws for `status` of a function without a diagnosing sibling, with the diagnosis of
 * the `_diagnose` function that checks the same document (`diagnose(diag)`) when it gives that
 * status.
 */
export function fail(rt: Runtime, status: number, diagnose: (diag: Ptr) => number): never {
  const diag = rt.diag();
  throw new LoopcompactError(diagnose(diag) === status ? readDiagnosis(rt, diag) : plainDiagnosis(status as StatusCode));
}
