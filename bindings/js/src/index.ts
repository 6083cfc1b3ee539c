/// <reference lib="esnext.disposable" preserve="true" />
/**
 * loopcompact for JavaScript and TypeScript: the library's C ABI, compiled to WebAssembly, behind a
 * small hand-written loader. The contract is docs/SPEC.md of the repository ("SPEC §N").
 *
 * The same module runs in Node 20+, browsers, workers and edge runtimes. In Node, importing the
 * package loads the module from the installed file; elsewhere call `await init()` once first (it
 * fetches `loopcompact.wasm` beside this file), or `init(urlOrBytesOrModule)`.
 *
 * Documents go in as `string` (encoded as UTF-8; a lone surrogate becomes U+FFFD) or `Uint8Array`
 * (the exact bytes). Every rejection throws a `LoopcompactError` with the status, its name, reason,
 * class and the diagnosis of SPEC §13 (offset, line, column, section, rule, location, limit and
 * actual value) computed by the library's `_diagnose` functions.
 *
 * Memory: each call copies its inputs into the module's linear memory (a string is encoded there
 * directly, in about its UTF-8 size) and frees them before it returns. A WebAssembly memory cannot
 * shrink: after a call that left it above 16 MiB, the instance is replaced by a fresh one when no
 * `Input` is alive, so that the memory of a large document is given back. The one object that
 * holds memory is `Input`: call `free()` (or `using`, through `Symbol.dispose`); a
 * garbage-collected `Input` is freed as a safety net.
 *
 * Panics: the WebAssembly build aborts on a panic (wasm32-unknown-unknown cannot unwind), which the
 * host sees as a trap. A trap is reported as `LoopcompactError` with status `LC_ERR_PANIC` (99),
 * the instance is dropped and a fresh one is created on the next call; `Input`s of the old
 * instance are gone (their methods throw).
 */

import {
  ABI_VERSION,
  CounterQuality,
  FINGERPRINT_LEN,
  HEADER_VERSION,
  LAYOUT,
  PressureLevel,
  Section,
  Status,
  StatusClass,
} from "./generated.js";

export { ABI_VERSION, CounterQuality, FINGERPRINT_LEN, PressureLevel, Section, Status, StatusClass };

/** A document: a string (sent as its UTF-8 encoding) or the exact bytes. */
export type Bytes = string | Uint8Array;
/** An unsigned 64-bit argument: a non-negative safe integer `number`, or a `bigint` below 2^64. */
export type U64 = number | bigint;

/**
 * What `init` loads the module from: a URL (`string` or `URL`), a fetch `Response`, the bytes of
 * `loopcompact.wasm` (`ArrayBuffer`, `Uint8Array`, ...) or a compiled `WebAssembly.Module` (what an
 * edge runtime gives for `import wasm from "loopcompact/loopcompact.wasm"`), or a promise of one.
 * Typed loosely on purpose: the declarations then need neither the DOM library nor `@types/node`.
 */
export type InitSource = string | { readonly href: string } | ArrayBuffer | ArrayBufferView | object;

// ---- the module's exports -----------------------------------------------------------------------

// wasm32: pointers and size_t are i32 (JS numbers), uint64_t is i64 (JS bigint), bool is i32.
// A struct argument passed by value (`lc_context_limits`) is passed as a pointer to a copy.
type Ptr = number;
interface Exports {
  memory: WebAssembly.Memory;
  lc_wasm_alloc(len: number): Ptr;
  lc_wasm_free(ptr: Ptr, len: number): void;
  lc_wasm_realloc(ptr: Ptr, len: number, newLen: number): Ptr;
  lc_version(): Ptr;
  lc_abi_version(): number;
  lc_status_name(code: number): Ptr;
  lc_status_reason(code: number): Ptr;
  lc_status_message(code: number): Ptr;
  lc_status_class(code: number): number;
  lc_summary_xml_diagnose(xml: Ptr, len: number, diag: Ptr): number;
  lc_compaction_input_parse(wire: Ptr, len: number, out: Ptr): number;
  lc_compaction_input_free(input: Ptr): void;
  lc_compaction_input_diagnose(wire: Ptr, len: number, diag: Ptr): number;
  lc_compaction_input_encode_within(input: Ptr, maxBytes: bigint, buf: Ptr, cap: number, outLen: Ptr): number;
  lc_compaction_output_diagnose(
    input: Ptr,
    output: Ptr,
    len: number,
    outputTokens: bigint,
    maxOutputBytes: bigint,
    buf: Ptr,
    cap: number,
    outLen: Ptr,
    diag: Ptr,
  ): number;
  lc_compaction_policy_diagnose(json: Ptr, len: number, quality: number, diag: Ptr): number;
  lc_context_observation_diagnose(json: Ptr, len: number, quality: number, diag: Ptr): number;
  lc_context_config_diagnose(json: Ptr, len: number, diag: Ptr): number;
  lc_context_limits_resolve(limits: Ptr, reservedOutput: bigint, safetyMargin: bigint, out: Ptr): number;
  lc_occupancy_basis_points(used: bigint, limit: bigint, out: Ptr): number;
  lc_pressure_level(previous: number, occupancy: number, automatic: number, compactAt: number, rearmBelow: number): number;
  lc_replacement_check(inputTokens: bigint, inputLimit: bigint): number;
  lc_request_fingerprint_diagnose(json: Ptr, len: number, out: Ptr, diag: Ptr): number;
  lc_retry_message(diag: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  lc_summary_instructions(): Ptr;
  lc_summary_sections(xml: Ptr, len: number, out: Ptr): number;
  lc_summary_section_text(xml: Ptr, len: number, section: number, buf: Ptr, cap: number, outLen: Ptr): number;
}

const DIAG = LAYOUT.lc_diagnostic;
const SPAN = LAYOUT.lc_span;
const LIMITS = LAYOUT.lc_context_limits;
const RESOLVED = LAYOUT.lc_resolved_limits;
const U64_MAX = 0xffff_ffff_ffff_ffffn;

const align8 = (n: number) => Math.ceil(n / 8) * 8;
// One block per instance for the fixed-size out-parameters: calls never nest (JS is single-threaded
// per instance), so they can share it.
const SCRATCH = (() => {
  const diag = 0;
  const word = align8(diag + DIAG.size); // size_t *out_len, lc_compaction_input **out, uint16_t *out
  const digest = word + 8;
  const spans = align8(digest + FINGERPRINT_LEN);
  const limits = align8(spans + 5 * SPAN.size);
  const resolved = align8(limits + LIMITS.size);
  return { diag, word, digest, spans, limits, resolved, size: align8(resolved + RESOLVED.size) };
})();

/** A trap inside the module (a panic, or memory exhausted inside the library). */
class Trap extends Error {
  constructor(readonly trap: unknown) {
    super("loopcompact: the WebAssembly instance trapped");
  }
}

/** Documents of at most this many bytes (a string: 3 per UTF-16 unit, its UTF-8 bound) go into a
 * block each instance allocates once, with no allocation per call. */
const INPUT_BLOCK = 64 * 1024;
/** After a call, an instance whose memory has grown past this and that holds no `Input` is
 * replaced (its memory cannot shrink; dropping the instance gives it back). */
const RETIRE_BYTES = 16 * 1024 * 1024;

/** One instance of the module with its scratch block. */
class Runtime {
  readonly x: Exports;
  readonly memory: WebAssembly.Memory;
  readonly scratch: Ptr;
  broken = false;
  /** `Input`s alive in this instance: it is not replaced while any is. */
  inputs = 0;
  /** The input block (`INPUT_BLOCK` bytes; 0 until first used), and whether a call is using it. */
  #input: Ptr = 0;
  inputBusy = false;
  #u8: Uint8Array;
  #dv: DataView;

  constructor(instance: WebAssembly.Instance) {
    const raw = instance.exports as Record<string, unknown>;
    const wrapped: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(raw)) {
      if (typeof value !== "function") {
        wrapped[name] = value;
        continue;
      }
      const f = value as (...args: unknown[]) => unknown;
      wrapped[name] = (...args: unknown[]) => {
        try {
          return f(...args);
        } catch (e) {
          // The instance's own state (its stack pointer, its allocator) may be half-updated.
          this.broken = true;
          throw new Trap(e);
        }
      };
    }
    this.x = wrapped as unknown as Exports;
    this.memory = this.x.memory;
    this.#u8 = new Uint8Array(this.memory.buffer);
    this.#dv = new DataView(this.memory.buffer);
    const found = this.x.lc_abi_version();
    if (found !== ABI_VERSION) {
      throw new Error(`loopcompact: the module has C ABI version ${found}, this package needs ${ABI_VERSION}`);
    }
    this.scratch = this.alloc(SCRATCH.size);
  }

  /** The memory as bytes; a new view after the memory grew (the old one is then detached). */
  u8(): Uint8Array {
    if (this.#u8.buffer !== this.memory.buffer) this.#u8 = new Uint8Array(this.memory.buffer);
    return this.#u8;
  }

  dv(): DataView {
    if (this.#dv.buffer !== this.memory.buffer) this.#dv = new DataView(this.memory.buffer);
    return this.#dv;
  }

  alloc(len: number): Ptr {
    const ptr = this.x.lc_wasm_alloc(len);
    if (ptr === 0) throw new RangeError(`loopcompact: cannot allocate ${len} bytes of WebAssembly memory`);
    return ptr;
  }

  free(ptr: Ptr, len: number): void {
    this.x.lc_wasm_free(ptr, len);
  }

  /** Resizes a block of `alloc(len)`; on failure the old block stays allocated. */
  realloc(ptr: Ptr, len: number, newLen: number): Ptr {
    const moved = this.x.lc_wasm_realloc(ptr, len, newLen);
    if (moved === 0) throw new RangeError(`loopcompact: cannot allocate ${newLen} bytes of WebAssembly memory`);
    return moved;
  }

  /** The input block, allocated on first use. */
  inputBlock(): Ptr {
    if (this.#input === 0) this.#input = this.alloc(INPUT_BLOCK);
    return this.#input;
  }

  /** The `size_t` / pointer at the scratch word. */
  word(): number {
    return this.dv().getUint32(this.scratch + SCRATCH.word, true);
  }

  /** The scratch `lc_diagnostic`, its `struct_size` set. */
  diag(): Ptr {
    const ptr = this.scratch + SCRATCH.diag;
    this.dv().setUint32(ptr + DIAG.fields.struct_size, DIAG.size, true);
    return ptr;
  }
}

// ---- loading -----------------------------------------------------------------------------------

let compiled: WebAssembly.Module | null = null;
let current: Runtime | null = null;
let loading: Promise<void> | null = null;

function start(module: WebAssembly.Module, instance: WebAssembly.Instance): void {
  current = new Runtime(instance);
  compiled = module;
  // Known before any trap, so that reporting one never needs the instance that trapped.
  statusText(Status.ERR_PANIC);
}

function isModule(source: unknown): source is WebAssembly.Module {
  return typeof WebAssembly !== "undefined" && source instanceof WebAssembly.Module;
}

function isBytes(source: unknown): source is ArrayBuffer | ArrayBufferView {
  return source instanceof ArrayBuffer || ArrayBuffer.isView(source);
}

interface ResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
}

function isResponse(source: unknown): source is ResponseLike {
  return typeof source === "object" && source !== null && typeof (source as ResponseLike).arrayBuffer === "function";
}

async function compileFrom(source: unknown): Promise<WebAssembly.Module> {
  if (isModule(source)) return source;
  if (isBytes(source)) return WebAssembly.compile(source as BufferSource);
  if (typeof source === "string") {
    source = await fetch(source);
  } else if (typeof source === "object" && source !== null && typeof (source as { href?: unknown }).href === "string") {
    source = await fetch((source as { href: string }).href); // a URL
  }
  if (isResponse(source)) {
    if (!source.ok) throw new Error(`loopcompact: fetching ${source.url || "the module"} gave HTTP ${source.status}`);
    const type = source.headers.get("Content-Type") ?? "";
    if (typeof WebAssembly.compileStreaming === "function" && type.split(";")[0]?.trim() === "application/wasm") {
      return WebAssembly.compileStreaming(source as unknown as Response);
    }
    return WebAssembly.compile(await source.arrayBuffer());
  }
  throw new TypeError("loopcompact: init() takes a URL, a Response, the module's bytes or a WebAssembly.Module");
}

/**
 * Loads the module (once: later calls return at once). Without an argument it fetches
 * `loopcompact.wasm` beside this file (`new URL("./loopcompact.wasm", import.meta.url)`), which is
 * what a browser, a worker or a bundler wants; in Node the package's entry point has already done
 * it from the installed file.
 */
export async function init(source?: InitSource | PromiseLike<InitSource>): Promise<void> {
  if (compiled !== null) return;
  loading ??= (async () => {
    const module = await compileFrom(await (source ?? new URL("./loopcompact.wasm", import.meta.url)));
    if (compiled === null) start(module, await WebAssembly.instantiate(module, {}));
  })();
  try {
    await loading;
  } finally {
    loading = null;
  }
}

/**
 * Loads the module synchronously from its bytes or a compiled `WebAssembly.Module` (Node, workers;
 * browsers refuse to compile a module of this size synchronously on the main thread). A no-op once
 * loaded.
 */
export function initSync(source: ArrayBuffer | ArrayBufferView | object): void {
  if (compiled !== null) return;
  let module: WebAssembly.Module;
  if (isModule(source)) module = source;
  else if (isBytes(source)) module = new WebAssembly.Module(source as BufferSource);
  else throw new TypeError("loopcompact: initSync() takes the module's bytes or a WebAssembly.Module");
  start(module, new WebAssembly.Instance(module, {}));
}

function runtime(): Runtime {
  if (current !== null) return current;
  if (compiled === null) {
    throw new Error("loopcompact: the WebAssembly module is not loaded; call `await init()` first");
  }
  // After a trap: a fresh instance of the same compiled module.
  current = new Runtime(new WebAssembly.Instance(compiled, {}));
  return current;
}

/** Runs `body` on an instance; a trap inside it becomes `LC_ERR_PANIC` and retires the instance. */
function run<T>(body: (rt: Runtime) => T, rt: Runtime = runtime()): T {
  try {
    return body(rt);
  } catch (e) {
    if (!(e instanceof Trap)) throw e;
    if (current === rt) current = null;
    throw new LoopcompactError(plainDiagnosis(Status.ERR_PANIC), { cause: e.trap });
  } finally {
    // A large document grew the memory, which cannot shrink: a fresh instance on the next call.
    if (current === rt && rt.inputs === 0 && rt.memory.buffer.byteLength > RETIRE_BYTES) current = null;
  }
}

// ---- strings ------------------------------------------------------------------------------------

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// Static strings of the module: the same addresses in every instance of it.
const cStrings = new Map<Ptr, string>();

function cString(rt: Runtime, ptr: Ptr): string {
  if (ptr === 0) return "";
  let text = cStrings.get(ptr);
  if (text === undefined) {
    const u8 = rt.u8();
    text = decoder.decode(u8.subarray(ptr, u8.indexOf(0, ptr)));
    cStrings.set(ptr, text);
  }
  return text;
}

interface StatusText {
  name: string;
  reason: string;
  message: string;
  statusClass: number;
}
const statusTexts = new Map<number, StatusText>();

function statusText(code: number): StatusText {
  let text = statusTexts.get(code);
  if (text === undefined) {
    text = run((rt) => ({
      name: cString(rt, rt.x.lc_status_name(code)),
      reason: cString(rt, rt.x.lc_status_reason(code)),
      message: cString(rt, rt.x.lc_status_message(code)),
      statusClass: rt.x.lc_status_class(code),
    }));
    statusTexts.set(code, text);
  }
  return text;
}

// ---- argument conversion ------------------------------------------------------------------------

/** Where the UTF-8 length of a string's rest is counted (`withBytes`): encoded a piece at a time. */
let counting: Uint8Array | null = null;

/**
 * Copies `data` into the instance for the duration of `f`; the empty document is `(NULL, 0)`.
 * Small documents use the instance's input block. A larger string is encoded straight into a block
 * of its length, which is its UTF-8 length if it is ASCII and a lower bound otherwise; if the text
 * is not all ASCII, the UTF-8 length of the rest is counted (encoded a piece at a time into a small
 * buffer) and the block grown to the exact size. The memory taken is the UTF-8 size, not the bound
 * of 3 bytes per UTF-16 unit.
 */
function withBytes<T>(rt: Runtime, data: Bytes, what: string, f: (ptr: Ptr, len: number) => T): T {
  const isString = typeof data === "string";
  if (!isString && !(data instanceof Uint8Array)) {
    throw new TypeError(`loopcompact: ${what} must be a string or a Uint8Array`);
  }
  const n = data.length;
  if (n === 0) return f(0, 0);
  if ((isString ? 3 * n : n) <= INPUT_BLOCK && !rt.inputBusy) {
    const ptr = rt.inputBlock();
    rt.inputBusy = true;
    try {
      if (!isString) {
        rt.u8().set(data, ptr);
        return f(ptr, n);
      }
      return f(ptr, encoder.encodeInto(data, rt.u8().subarray(ptr, ptr + INPUT_BLOCK)).written);
    } finally {
      rt.inputBusy = false;
    }
  }
  let cap = n;
  let ptr = rt.alloc(cap);
  try {
    if (!isString) {
      rt.u8().set(data, ptr);
      return f(ptr, n);
    }
    const { read, written } = encoder.encodeInto(data, rt.u8().subarray(ptr, ptr + cap));
    if (read < n) {
      // encodeInto stops before a character that does not fit whole, never inside a surrogate pair.
      counting ??= new Uint8Array(INPUT_BLOCK);
      let total = written;
      for (let at = read; at < n; ) {
        const piece = encoder.encodeInto(data.substring(at), counting);
        at += piece.read;
        total += piece.written;
      }
      ptr = rt.realloc(ptr, cap, total);
      cap = total;
      encoder.encodeInto(data.substring(read), rt.u8().subarray(ptr + written, ptr + cap));
    }
    return f(ptr, cap);
  } finally {
    rt.free(ptr, cap);
  }
}

/**
 * The two-call pattern: `call(buf, cap, outLen)` with a first guess of the size, again with the
 * size the library asked for; returns the status and, on `LC_OK`, `read` of the bytes written.
 */
function withOutput<T>(
  rt: Runtime,
  guess: number,
  call: (buf: Ptr, cap: number, outLen: Ptr) => number,
  read: (bytes: Uint8Array) => T,
): [number, T | null] {
  let cap = guess;
  for (;;) {
    const size = cap;
    const buf = size > 0 ? rt.alloc(size) : 0;
    try {
      const status = call(buf, size, rt.scratch + SCRATCH.word);
      const len = rt.word();
      if (status === Status.ERR_BUFFER_TOO_SMALL && len > size) {
        cap = len;
        continue;
      }
      if (status !== Status.OK) return [status, null];
      return [status, read(rt.u8().subarray(buf, buf + len))];
    } finally {
      if (buf !== 0) rt.free(buf, size);
    }
  }
}

const copyBytes = (b: Uint8Array) => b.slice();
const decodeText = (b: Uint8Array) => decoder.decode(b);

function u64(value: U64, what: string): bigint {
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

const int32 = (value: number, what: string) => intIn(value, -0x8000_0000, 0x7fff_ffff, what);
const uint16 = (value: number, what: string) => intIn(value, 0, 0xffff, what);

// ---- errors -------------------------------------------------------------------------------------

/** The fields of an `lc_diagnostic`, read out of the instance, and its bytes for `retryMessage`. */
interface Diagnosis {
  status: number;
  statusClass: number;
  section: number;
  offset: number | null;
  line: number | null;
  column: number | null;
  limit: bigint | null;
  actual: bigint | null;
  rule: string;
  expected: string;
  location: string;
  raw: Uint8Array;
}

function readDiagnosis(rt: Runtime, ptr: Ptr): Diagnosis {
  const dv = rt.dv();
  const f = DIAG.fields;
  const u64At = (field: number) => dv.getBigUint64(ptr + field, true);
  const known = (v: bigint) => (v === U64_MAX ? null : v);
  const offset = known(u64At(f.offset));
  const line = Number(u64At(f.line));
  const column = Number(u64At(f.column));
  const u8 = rt.u8();
  const location = u8.subarray(ptr + f.location, ptr + f.location + (DIAG.size - f.location));
  const nul = location.indexOf(0);
  return {
    status: dv.getInt32(ptr + f.status, true),
    statusClass: dv.getInt32(ptr + f.status_class, true),
    section: dv.getInt32(ptr + f.section, true),
    offset: offset === null ? null : Number(offset),
    line: line === 0 ? null : line,
    column: column === 0 ? null : column,
    limit: known(u64At(f.limit)),
    actual: known(u64At(f.actual)),
    rule: cString(rt, dv.getUint32(ptr + f.rule, true)),
    expected: cString(rt, dv.getUint32(ptr + f.expected, true)),
    location: decoder.decode(nul < 0 ? location : location.subarray(0, nul)),
    raw: u8.slice(ptr, ptr + DIAG.size),
  };
}

/** The diagnosis of a status that comes without one: class only, everything else unknown. */
function plainDiagnosis(status: number): Diagnosis {
  const raw = new Uint8Array(DIAG.size);
  const dv = new DataView(raw.buffer);
  const f = DIAG.fields;
  const statusClass = status === Status.ERR_PANIC ? StatusClass.BUG : statusText(status).statusClass;
  dv.setUint32(f.struct_size, DIAG.size, true);
  dv.setInt32(f.status, status, true);
  dv.setInt32(f.status_class, statusClass, true);
  dv.setInt32(f.section, Section.NONE, true);
  for (const field of [f.offset, f.limit, f.actual]) dv.setBigUint64(field, U64_MAX, true);
  return {
    status,
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
    raw,
  };
}

const sectionNames = new Map<number, string>(Object.entries(Section).map(([k, v]) => [v, k.toLowerCase()]));

/**
 * A call returned a status other than `LC_OK`. Nothing in it comes from the input (SPEC C13.1):
 * numbers, static strings of the library and a path of layout names.
 */
export class LoopcompactError extends Error {
  /** The status (`lc_status`), e.g. 207 (`Status.SUMMARY_XML_ROOT`). */
  readonly status: number;
  /** The status's constant name, e.g. `"LC_SUMMARY_XML_ROOT"`. */
  override readonly name: string;
  /**
   * The reference's reason string, e.g. `"xml_root"`; `""` for the boundary codes. Several codes
   * share one (`"wire"`): compare `status` or `name` to tell them apart.
   */
  readonly reason: string;
  /** `StatusClass.*`: what to do next (SPEC C13.3). */
  readonly statusClass: number;
  /** `Section.*`: the summary section holding the problem or expected there; `Section.NONE` otherwise. */
  readonly section: number;
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
  /** What the rule expected there, e.g. `"<constraints>"`, `"non-blank text"`; `""` when none. */
  readonly expected: string;
  /** Path of layout names and indices, e.g. `"transcript[3].blocks[0].type"`, `"summary"`; `""` for the document. */
  readonly location: string;
  readonly #raw: Uint8Array;

  /** @internal */
  constructor(d: Diagnosis, options?: { cause: unknown }) {
    const text = statusText(d.status);
    const where: string[] = [];
    if (d.line !== null) where.push(`line ${d.line}, column ${d.column ?? 0}`);
    if (d.section !== Section.NONE) where.push(`section ${sectionNames.get(d.section) ?? d.section}`);
    if (d.location !== "") where.push(`at ${d.location}`);
    if (d.expected !== "") where.push(`expected ${d.expected}`);
    if (d.rule !== "") where.push(`rule ${d.rule}`);
    if (d.limit !== null) where.push(`limit ${d.limit}, actual ${d.actual ?? "unknown"}`);
    super(where.length > 0 ? `${text.message} (${where.join("; ")})` : text.message, options);
    this.status = d.status;
    this.name = text.name;
    this.reason = text.reason;
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
    this.#raw = d.raw;
  }

  /**
   * A short message to the summariser about this failure (SPEC C13.5, `lc_retry_message`): what was
   * wrong, where, and the rules it broke; for a status whose class is not `StatusClass.RETRY`, that
   * no retry is useful.
   */
  retryMessage(): string {
    return run((rt) => {
      const diag = rt.diag();
      rt.u8().set(this.#raw, diag);
      const [status, text] = withOutput(rt, 1024, (buf, cap, len) => rt.x.lc_retry_message(diag, buf, cap, len), decodeText);
      check(rt, status, null);
      return text ?? "";
    });
  }
}

/** Throws for a status other than `LC_OK`, with the scratch diagnosis when `diag` is given. */
function check(rt: Runtime, status: number, diag: Ptr | null): void {
  if (status === Status.OK) return;
  throw new LoopcompactError(diag === null ? plainDiagnosis(status) : readDiagnosis(rt, diag));
}

/**
 * Throws for `status` of a function without a diagnosing sibling, with the diagnosis of the
 * `_diagnose` function that checks the same document (`diagnose(diag)`) when it gives that status.
 */
function fail(rt: Runtime, status: number, diagnose: (diag: Ptr) => number): never {
  const diag = rt.diag();
  throw new LoopcompactError(diagnose(diag) === status ? readDiagnosis(rt, diag) : plainDiagnosis(status));
}

// ---- meta ---------------------------------------------------------------------------------------

/** The library version, e.g. `"0.1.0"` (`lc_version`). */
export function version(): string {
  return run((rt) => cString(rt, rt.x.lc_version()));
}

/** The C ABI version of the loaded module (`lc_abi_version`); `init` checks it is `ABI_VERSION`. */
export function abiVersion(): number {
  return run((rt) => rt.x.lc_abi_version());
}

/** `"LC_SUMMARY_XML_ROOT"`; `"LC_UNKNOWN_STATUS"` for a value not in the table. */
export function statusName(status: number): string {
  return statusText(int32(status, "status")).name;
}

/** The reference's reason string (`"xml_root"`); `""` for `LC_OK`, boundary codes and unknown values. */
export function statusReason(status: number): string {
  return statusText(int32(status, "status")).reason;
}

/** One human sentence describing the status. */
export function statusMessage(status: number): string {
  return statusText(int32(status, "status")).message;
}

/** What a host does next about a status (SPEC C13.3): a `StatusClass` value. */
export function statusClass(status: number): number {
  return statusText(int32(status, "status")).statusClass;
}

// ---- documents ----------------------------------------------------------------------------------

/** Validates a summary against the strict XML grammar of SPEC §4; throws `LoopcompactError`. */
export function validateSummary(xml: Bytes): void {
  run((rt) =>
    withBytes(rt, xml, "xml", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_summary_xml_diagnose(ptr, len, diag), diag);
    }),
  );
}

/** Validates a compaction input wire document (SPEC §5) without keeping it. */
export function validateInput(wire: Bytes): void {
  run((rt) =>
    withBytes(rt, wire, "wire", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_compaction_input_diagnose(ptr, len, diag), diag);
    }),
  );
}

/** Validates a compaction policy (SPEC §8.1) for a token counter of this `CounterQuality`. */
export function validateCompactionPolicy(json: Bytes, counterQuality: number): void {
  const quality = int32(counterQuality, "counterQuality");
  run((rt) =>
    withBytes(rt, json, "json", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_compaction_policy_diagnose(ptr, len, quality, diag), diag);
    }),
  );
}

/** Validates a context observation policy (SPEC §8.2) for a token counter of this `CounterQuality`. */
export function validateContextObservation(json: Bytes, counterQuality: number): void {
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

/** A request fingerprint (SPEC §10): the SHA-256 digest and its lower-case hex. */
export interface Fingerprint {
  /** The 32 bytes of the digest (`FINGERPRINT_LEN`). */
  readonly bytes: Uint8Array;
  /** The digest as 64 lower-case hex characters, the form the compaction input carries. */
  readonly hex: string;
}

/** Computes the request fingerprint of a request-fingerprint document (SPEC §10). */
export function requestFingerprint(json: Bytes): Fingerprint {
  return run((rt) =>
    withBytes(rt, json, "json", (ptr, len) => {
      const diag = rt.diag();
      const out = rt.scratch + SCRATCH.digest;
      check(rt, rt.x.lc_request_fingerprint_diagnose(ptr, len, out, diag), diag);
      const bytes = rt.u8().slice(out, out + FINGERPRINT_LEN);
      let hex = "";
      for (const b of bytes) hex += b.toString(16).padStart(2, "0");
      return { bytes, hex };
    }),
  );
}

// ---- limits -------------------------------------------------------------------------------------

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
    const out = rt.scratch + SCRATCH.word;
    check(rt, rt.x.lc_occupancy_basis_points(u, l, out), null);
    return rt.dv().getUint16(out, true);
  });
}

/** The pressure level (SPEC L9.3): a `PressureLevel` value. */
export function pressureLevel(
  previousLevel: number,
  occupancy: number,
  automatic: boolean,
  compactAt: number,
  rearmBelow: number,
): number {
  const previous = int32(previousLevel, "previousLevel");
  const occ = uint16(occupancy, "occupancy");
  if (typeof automatic !== "boolean") throw new TypeError("loopcompact: automatic must be a boolean");
  const at = uint16(compactAt, "compactAt");
  const rearm = uint16(rearmBelow, "rearmBelow");
  return run((rt) => rt.x.lc_pressure_level(previous, occ, automatic ? 1 : 0, at, rearm));
}

/** Throws `LC_SUMMARY_TOO_LARGE` when the rebuilt request reaches its input limit (SPEC L9.4). */
export function replacementCheck(inputTokens: U64, inputLimit: U64): void {
  const tokens = u64(inputTokens, "inputTokens");
  const limit = u64(inputLimit, "inputLimit");
  run((rt) => check(rt, rt.x.lc_replacement_check(tokens, limit), null));
}

// ---- the summary's sections and the summariser's instructions -------------------------------------

/**
 * The instructions for the summariser (SPEC C13.6): the system prompt to send with the input,
 * ending in a complete example summary that `validateSummary` accepts.
 */
export function summaryInstructions(): string {
  return run((rt) => cString(rt, rt.x.lc_summary_instructions()));
}

/** Where a section's raw (escaped) content lies in a summary: bytes into its UTF-8 encoding. */
export interface SectionSpan {
  /** `Section.GOAL` ... `Section.OPEN_ITEMS`. */
  readonly section: number;
  /** Byte offset of the content (for an empty section: just after its start tag). */
  readonly offset: number;
  /** Length in bytes. */
  readonly length: number;
}

/** The five sections of a valid summary, in order (SPEC C13.7); throws for an invalid one. */
export function summarySections(xml: Bytes): SectionSpan[] {
  return run((rt) =>
    withBytes(rt, xml, "xml", (ptr, len) => {
      const out = rt.scratch + SCRATCH.spans;
      const status = rt.x.lc_summary_sections(ptr, len, out);
      if (status !== Status.OK) fail(rt, status, (diag) => rt.x.lc_summary_xml_diagnose(ptr, len, diag));
      const dv = rt.dv();
      const spans: SectionSpan[] = [];
      for (let i = 0; i < 5; i++) {
        const at = out + i * SPAN.size;
        spans.push({
          section: Section.GOAL + i,
          offset: dv.getUint32(at + SPAN.fields.offset, true),
          length: dv.getUint32(at + SPAN.fields.len, true),
        });
      }
      return spans;
    }),
  );
}

/**
 * One section's text as Go's `encoding/xml` delivers it: references resolved, CR LF and a lone CR
 * as LF (SPEC C13.8). `section` is `Section.GOAL` ... `Section.OPEN_ITEMS`.
 */
export function summarySectionText(xml: Bytes, section: number): string {
  const which = int32(section, "section");
  return run((rt) =>
    withBytes(rt, xml, "xml", (ptr, len) => {
      const [status, text] = withOutput(
        rt,
        len,
        (buf, cap, outLen) => rt.x.lc_summary_section_text(ptr, len, which, buf, cap, outLen),
        decodeText,
      );
      if (status === Status.OK) return text ?? "";
      if (status === Status.ERR_INVALID_ARGUMENT) check(rt, status, null);
      return fail(rt, status, (diag) => rt.x.lc_summary_xml_diagnose(ptr, len, diag));
    }),
  );
}

// ---- the compaction input handle ----------------------------------------------------------------

interface Held {
  rt: Runtime;
  handle: Ptr;
}

// The safety net for an Input never freed. A handle of a retired instance is left alone.
const finalizer =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry<Held>(({ rt, handle }) => {
        if (rt.broken || rt !== current) return;
        rt.inputs--;
        try {
          rt.x.lc_compaction_input_free(handle);
        } catch {
          // A trap here retired the instance already; nothing to report to.
        }
      })
    : null;

/**
 * A validated compaction input (`lc_compaction_input`), parsed from its wire document. Holds
 * memory in the module: release it with `free()` or a `using` declaration.
 */
export class Input {
  #rt: Runtime | null;
  readonly #handle: Ptr;
  readonly #token = {};

  private constructor(rt: Runtime, handle: Ptr) {
    this.#rt = rt;
    this.#handle = handle;
    rt.inputs++;
    finalizer?.register(this, { rt, handle }, this.#token);
  }

  /** Decodes and validates a compaction input wire document (SPEC §5). */
  static parse(wire: Bytes): Input {
    return run((rt) =>
      withBytes(rt, wire, "wire", (ptr, len) => {
        const out = rt.scratch + SCRATCH.word;
        const status = rt.x.lc_compaction_input_parse(ptr, len, out);
        // No diagnosing parse: the diagnosing validator gives the same status with the diagnosis.
        if (status !== Status.OK) fail(rt, status, (diag) => rt.x.lc_compaction_input_diagnose(ptr, len, diag));
        return new Input(rt, rt.word());
      }),
    );
  }

  /** Whether `free()` was called. */
  get freed(): boolean {
    return this.#rt === null;
  }

  #live(): Runtime {
    const rt = this.#rt;
    if (rt === null) throw new Error("loopcompact: this Input was freed");
    if (rt.broken) {
      throw new Error("loopcompact: this Input is gone: its WebAssembly instance trapped (LC_ERR_PANIC) and was replaced");
    }
    return rt;
  }

  /**
   * The exact bytes to send to the summariser: the canonical encoding of the input, with old tool
   * results stubbed oldest first when needed to fit `maxBytes` (SPEC §7). Throws `LC_INPUT_TOO_LARGE`
   * when nothing fits (always for 0).
   */
  encodeWithin(maxBytes: U64): Uint8Array {
    const max = u64(maxBytes, "maxBytes");
    const rt = this.#live();
    const handle = this.#handle;
    return run((rt) => {
      // The encoding is at most maxBytes; a guess that usually holds it saves the second call.
      const guess = Number(max < 1n << 20n ? max : 1n << 20n);
      const [status, bytes] = withOutput(
        rt,
        guess,
        (buf, cap, len) => rt.x.lc_compaction_input_encode_within(handle, max, buf, cap, len),
        copyBytes,
      );
      check(rt, status, null);
      return bytes ?? new Uint8Array(0);
    }, rt);
  }

  /**
   * Validates the summariser's reply against this input (SPEC §6) and returns the summary XML, the
   * exact text of the replacement user message. `outputTokens`: the output usage the provider
   * reported (0: none); `maxOutputBytes`: the byte limit of the reply (0 rejects every reply).
   */
  validateOutput(output: Bytes, outputTokens: U64, maxOutputBytes: U64): string {
    const tokens = u64(outputTokens, "outputTokens");
    const maxBytes = u64(maxOutputBytes, "maxOutputBytes");
    const rt = this.#live();
    const handle = this.#handle;
    return run(
      (rt) =>
        withBytes(rt, output, "output", (ptr, len) => {
          const diag = rt.diag();
          // O6.4: the summary is never longer than the reply, so a buffer of its length suffices.
          const [status, summary] = withOutput(
            rt,
            len,
            (buf, cap, outLen) =>
              rt.x.lc_compaction_output_diagnose(handle, ptr, len, tokens, maxBytes, buf, cap, outLen, diag),
            decodeText,
          );
          check(rt, status, diag);
          return summary ?? "";
        }),
      rt,
    );
  }

  /** Releases the handle (idempotent). The Input cannot be used afterwards. */
  free(): void {
    const rt = this.#rt;
    if (rt === null) return;
    this.#rt = null;
    finalizer?.unregister(this.#token);
    rt.inputs--;
    if (!rt.broken) run((rt) => rt.x.lc_compaction_input_free(this.#handle), rt);
  }

  /** `free()`, for `using input = Input.parse(wire)`. */
  [Symbol.dispose](): void {
    this.free();
  }
}

/** @internal For the package's own tests: calls a raw export inside the trap handling. */
export const _internal = {
  call(name: string, ...args: unknown[]): unknown {
    return run((rt) => (rt.x as unknown as Record<string, (...a: unknown[]) => unknown>)[name]?.(...args));
  },
  headerVersion: HEADER_VERSION,
  /** The current instance's memory size in bytes. */
  memoryBytes(): number {
    return runtime().memory.buffer.byteLength;
  },
};
