/**
 * One instance of the module, and loading it: `init` (async: a URL, a Response, bytes or a compiled
 * module), `initSync`, and a fresh instance of the same compiled module after a trap. Nothing here
 * knows a document or a status beyond the ABI version check.
 */

import type { Exports, Ptr } from "./abi.js";
import { ABI_VERSION, FINGERPRINT_LEN, LAYOUT } from "./generated.js";

const DIAG = LAYOUT.lc_diagnostic;
const SPAN = LAYOUT.lc_span;
const LIMITS = LAYOUT.lc_context_limits;
const RESOLVED = LAYOUT.lc_resolved_limits;

const align8 = (n: number) => Math.ceil(n / 8) * 8;
/**
 * @internal One block per instance for the fixed-size out-parameters: calls never nest (JS is
 * single-threaded per instance), so they can share it.
 */
export const SCRATCH = (() => {
  const diag = 0;
  // size_t *out_len, lc_compaction_input **out, uint16_t *out, uint64_t *out_cut
  const word = align8(diag + DIAG.size);
  const digest = word + 8;
  const spans = align8(digest + FINGERPRINT_LEN);
  const limits = align8(spans + 5 * SPAN.size);
  const resolved = align8(limits + LIMITS.size);
  return { diag, word, digest, spans, limits, resolved, size: align8(resolved + RESOLVED.size) };
})();

/** @internal A trap inside the module (a panic, or memory exhausted inside the library). */
export class Trap extends Error {
  constructor(readonly trap: unknown) {
    super("loopcompact: the WebAssembly instance trapped");
  }
}

/** @internal Documents of at most this many bytes (a string: 3 per UTF-16 unit, its UTF-8 bound)
 * go into a block each instance allocates once, with no allocation per call. */
export const INPUT_BLOCK = 64 * 1024;
/** After a call, an instance whose memory has grown past this and that holds no `Input` or
 * `Conversion` is replaced (its memory cannot shrink; dropping the instance gives it back). */
const RETIRE_BYTES = 16 * 1024 * 1024;

/** @internal One instance of the module with its scratch block. */
export class Runtime {
  readonly x: Exports;
  readonly memory: WebAssembly.Memory;
  readonly scratch: Ptr;
  broken = false;
  /** Objects holding memory of this instance (`Input`, `Conversion`): it is not replaced while any is alive. */
  live = 0;
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

  /** The address of the scratch word (`size_t *out_len`, a handle, a `uint16_t`, a `uint64_t`). */
  wordPtr(): Ptr {
    return this.scratch + SCRATCH.word;
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

/**
 * What `init` loads the module from: a URL (`string` or `URL`), a fetch `Response`, the bytes of
 * `loopcompact.wasm` (`ArrayBuffer`, `Uint8Array`, ...) or a compiled `WebAssembly.Module` (what an
 * edge runtime gives for `import wasm from "loopcompact/loopcompact.wasm"`), or a promise of one.
 * Typed loosely on purpose: the declarations then need neither the DOM library nor `@types/node`.
 */
export type InitSource = string | { readonly href: string } | ArrayBuffer | ArrayBufferView | object;

let compiled: WebAssembly.Module | null = null;
let current: Runtime | null = null;
let loading: Promise<void> | null = null;

function start(module: WebAssembly.Module, instance: WebAssembly.Instance): void {
  current = new Runtime(instance);
  compiled = module;
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

/** @internal The current instance; after a trap, a fresh instance of the same compiled module. */
export function runtime(): Runtime {
  if (current !== null) return current;
  if (compiled === null) {
    throw new Error("loopcompact: the WebAssembly module is not loaded; call `await init()` first");
  }
  current = new Runtime(new WebAssembly.Instance(compiled, {}));
  return current;
}

/** @internal Whether `rt` is the instance calls go to (not retired by a trap). */
export function isCurrent(rt: Runtime): boolean {
  return rt === current;
}

/** @internal Retires `rt` after a trap: the next call gets a fresh instance. */
export function retire(rt: Runtime): void {
  if (current === rt) current = null;
}

/** @internal After a call: a large document grew the memory, which cannot shrink, so the next call
 * gets a fresh instance (when no `Input` or `Conversion` holds this one). */
export function retireIfLarge(rt: Runtime): void {
  if (current === rt && rt.live === 0 && rt.memory.buffer.byteLength > RETIRE_BYTES) current = null;
}

/** @internal A handle of an instance, as a finalizer holds it. */
export interface Held {
  rt: Runtime;
  handle: Ptr;
}

/**
 * @internal The safety net for the owner of a handle never freed: `free` runs when the owner is collected.
 * A handle of a retired instance is left alone. `null` where the engine has no FinalizationRegistry.
 */
export function handleFinalizer(free: (rt: Runtime, handle: Ptr) => void): FinalizationRegistry<Held> | null {
  if (typeof FinalizationRegistry !== "function") return null;
  return new FinalizationRegistry<Held>(({ rt, handle }) => {
    rt.live--;
    if (rt.broken || !isCurrent(rt)) return;
    try {
      free(rt, handle);
    } catch {
      // A trap here retired the instance already; nothing to report to.
    }
  });
}
