/**
 * Streaming validation of a summary (SPEC §17.3): the summariser's reply checked chunk by chunk as
 * it arrives, so that a host can stop a doomed call at the first chunk after which no continuation
 * can make the reply a valid summary.
 */

import type { Ptr } from "./abi.js";
import { type Bytes, withBytes } from "./buffers.js";
import { type Diagnosed, LoopcompactError, check, diagnosedOf, fail, liveRuntime, releaseHandle, run } from "./errors.js";
import { LAYOUT, ReplyCleanup, Status } from "./generated.js";
import { type Runtime, handleFinalizer } from "./runtime.js";
import { validateSummary } from "./summary.js";

const OFFSET_UNKNOWN = 0xffff_ffff_ffff_ffffn;

// The safety net for a SummaryStream never freed.
const finalizer = handleFinalizer((rt, handle) => rt.x.lc_summary_stream_free(handle));

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

/**
 * A summary validated as it streams (`lc_summary_stream`). `feed` each chunk as it arrives (a
 * string, sent as UTF-8, or bytes; any size, cut anywhere): it throws `LoopcompactError` once no
 * continuation can make the reply a valid summary (T17.3), with the diagnosis known then (offsets
 * from the start of the reply), and the same error for every later chunk. `finish()` throws exactly
 * as `validateSummary` of everything fed would (T17.4). Its memory is fixed, whatever the reply's
 * length. A string chunk that ends in the first half of a surrogate pair keeps that half until the
 * next chunk, so that a pair cut between chunks is the character it is; a lone surrogate is sent
 * as U+FFFD, as everywhere in the package. Release it with `free()` or a `using` declaration (a
 * garbage-collected stream is freed as a safety net).
 */
export class SummaryStream {
  #rt: Runtime | null;
  readonly #handle: Ptr;
  readonly #token = {};
  /** The first half of a surrogate pair that ended the last string chunk, or "". */
  #held = "";

  constructor() {
    let handle = 0;
    const rt = run((rt) => {
      const out = rt.wordPtr();
      check(rt, rt.x.lc_summary_stream_new(out), null);
      handle = rt.word();
      return rt;
    });
    this.#rt = rt;
    this.#handle = handle;
    rt.live++;
    finalizer?.register(this, { rt, handle }, this.#token);
  }

  /** Whether `free()` was called. */
  get freed(): boolean {
    return this.#rt === null;
  }

  #with<T>(body: (rt: Runtime, handle: Ptr) => T): T {
    const handle = this.#handle;
    return run((rt) => body(rt, handle), liveRuntime(this.#rt, "SummaryStream"));
  }

  #feed(rt: Runtime, handle: Ptr, data: Bytes): void {
    withBytes(rt, data, "chunk", (ptr, len) => {
      const status = rt.x.lc_summary_stream_feed(handle, ptr, len);
      // A dead stream reads nothing more: an empty feed gives its diagnosis.
      if (status !== Status.OK) fail(rt, status, (diag) => rt.x.lc_summary_stream_feed_diagnose(handle, 0, 0, diag));
    });
  }

  /**
   * Reads the next chunk of the reply (T17.2). Throws `LoopcompactError` (`SUMMARY_XML_*`, class
   * RETRY) once the reply is dead, and the same for every later chunk; a `TypeError` for a chunk
   * that is neither a string nor a `Uint8Array`.
   */
  feed(chunk: string | Uint8Array): void {
    if (typeof chunk !== "string" && !(chunk instanceof Uint8Array)) {
      throw new TypeError("loopcompact: chunk must be a string or a Uint8Array");
    }
    this.#with((rt, handle) => {
      if (typeof chunk === "string") {
        let text = this.#held + chunk;
        this.#held = "";
        if (text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1))) {
          this.#held = text.slice(-1);
          text = text.slice(0, -1);
        }
        this.#feed(rt, handle, text);
      } else {
        this.#flush(rt, handle);
        this.#feed(rt, handle, chunk);
      }
    });
  }

  /** A held half of a surrogate pair that no second half followed: a lone surrogate, U+FFFD. */
  #flush(rt: Runtime, handle: Ptr): void {
    if (this.#held === "") return;
    this.#held = "";
    this.#feed(rt, handle, "\ufffd");
  }

  /**
   * The whole-document verdict of everything fed so far (T17.4): throws as `validateSummary` of the
   * concatenated chunks. A held half of a surrogate pair is fed first, as U+FFFD. More chunks may be
   * fed after it.
   */
  finish(): void {
    this.#with((rt, handle) => {
      try {
        this.#flush(rt, handle);
      } catch (e) {
        // Dead already: the verdict below is the whole document's, which may differ (T17.3).
        if (!(e instanceof LoopcompactError)) throw e;
      }
      const status = rt.x.lc_summary_stream_finish(handle);
      if (status !== Status.OK) fail(rt, status, (diag) => rt.x.lc_summary_stream_finish_diagnose(handle, diag));
    });
  }

  /** The offset from the start of the reply of the byte at which it died (T17.3); `null` while viable. */
  get deadOffset(): number | null {
    return this.#with((rt, handle) => {
      const offset = rt.x.lc_summary_stream_dead_offset(handle);
      // uint64_t comes back as a signed i64.
      const unsigned = BigInt.asUintN(64, offset);
      return unsigned === OFFSET_UNKNOWN ? null : Number(unsigned);
    });
  }

  /** Releases the handle (idempotent); the other methods throw afterwards. */
  free(): void {
    const rt = this.#rt;
    this.#rt = null;
    releaseHandle(rt, this.#token, finalizer, (rt) => rt.x.lc_summary_stream_free(this.#handle));
  }

  /** `free()`, for `using stream = new SummaryStream()`. */
  [Symbol.dispose](): void {
    this.free();
  }
}

/**
 * The part of a web `ReadableStream` the package uses: a reader, read to the end, cancelled when
 * the reply is dead. Every `ReadableStream` (the DOM's, Node's `stream/web`) is one; declared here
 * so that the package's types need neither the DOM library nor `@types/node`.
 */
export interface ReadableStreamLike<T> {
  getReader(): {
    read(): Promise<{ done: boolean; value?: T }>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
}

/** @internal Whether `x` is read as a `ReadableStream` (it has `getReader`), before iteration. */
export const isReadableStream = (x: unknown): x is ReadableStreamLike<unknown> =>
  typeof x === "object" && x !== null && typeof (x as { getReader?: unknown }).getReader === "function";

/** What `validateSummaryStream` reads: a web stream or any async iterable of chunks. */
export type ChunkSource = ReadableStreamLike<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Reads a summary from `source` as it arrives (a `ReadableStream`, such as a `fetch` body piped
 * through a `TextDecoderStream`, or any async iterable of strings or bytes) and resolves with the
 * summary's text once the source ends and `finish()` accepts it. Rejects with the
 * `LoopcompactError` of the first chunk after which the reply cannot become a valid summary, after
 * cancelling the stream (`reader.cancel(error)`) or returning the iterator (`return()`), so that a
 * `fetch` stops downloading; rejects as `validateSummary` when the whole reply is invalid. An
 * error of the source propagates.
 */
export async function validateSummaryStream(source: ChunkSource): Promise<string> {
  const stream = new SummaryStream();
  const parts: (string | Uint8Array)[] = [];
  try {
    if (isReadableStream(source)) {
      const reader = (source as ReadableStreamLike<string | Uint8Array>).getReader();
      try {
        for (;;) {
          const { done, value: read } = await reader.read();
          if (done) break;
          // A chunk of another kind (undefined included) is feed's TypeError.
          const value = read as string | Uint8Array;
          parts.push(value);
          stream.feed(value);
        }
      } catch (e) {
        await reader.cancel(e).catch(() => undefined);
        throw e;
      } finally {
        reader.releaseLock();
      }
    } else if (typeof source === "object" && source !== null && Symbol.asyncIterator in source) {
      const iterator = (source as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]();
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) break;
        try {
          parts.push(next.value);
          stream.feed(next.value);
        } catch (e) {
          await iterator.return?.();
          throw e;
        }
      }
    } else {
      throw new TypeError("loopcompact: source must be a ReadableStream or an async iterable of chunks");
    }
    stream.finish();
  } finally {
    stream.free();
  }
  if (parts.every((p) => typeof p === "string")) return parts.join("");
  // Bytes, or both: the summary is valid UTF-8 (X4.8), so it decodes exactly. Adjacent strings are
  // encoded together, as the stream read them (a surrogate pair may be cut between two).
  const bytes: Uint8Array[] = [];
  let text = "";
  for (const p of parts) {
    if (typeof p === "string") {
      text += p;
    } else {
      if (text !== "") bytes.push(encoder.encode(text));
      text = "";
      bytes.push(p);
    }
  }
  if (text !== "") bytes.push(encoder.encode(text));
  const whole = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    whole.set(b, at);
    at += b.length;
  }
  return decoder.decode(whole);
}

// ---- the round with a streaming summariser (SPEC T17.6) ------------------------------------------

const DIAG = LAYOUT.lc_diagnostic;

/** Characters with the Unicode White_Space property (SPEC X4.21), which trim removes. */
const WHITE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The code point of the UTF-8 sequence at `pos` and its length: `[null, 0]` while the bytes so far
 * end inside a sequence that may still complete, `[null, -1]` when no valid sequence starts there.
 */
function charAt(data: Uint8Array, length: number, pos: number): [number | null, number] {
  const lead = data[pos] as number;
  if (lead < 0x80) return [lead, 1];
  const need = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (need === 0) return [null, -1];
  const have = Math.min(need, length - pos);
  for (let i = 1; i < have; i++) if (((data[pos + i] as number) & 0xc0) !== 0x80) return [null, -1];
  if (have < need) return [null, 0];
  try {
    return [strictDecoder.decode(data.subarray(pos, pos + need)).codePointAt(0) as number, need];
  } catch {
    return [null, -1]; // an overlong form or a surrogate
  }
}

/** @internal A streamed reply the round stopped reading: the diagnosis known when it died. */
export interface Aborted {
  readonly diagnosed: Diagnosed;
  readonly replyBytes: number;
  readonly received: Uint8Array;
}

/**
 * @internal Reads one streamed reply for the round (SPEC T17.6): keeps its bytes, skips what cleanup
 * (R15.5) would remove before the summary (leading White_Space with trim; with unfence an opening
 * fence line, then White_Space again), feeds the rest to a `SummaryStream`, and says at the first
 * chunk after which the reply cannot pass. After a complete summary it stops feeding: what follows
 * can only be removed by cleanup or fail, which the whole reply's check decides.
 */
export class ReplyStreamCheck {
  #bytes = new Uint8Array(256);
  #length = 0;
  #start: number | null = null;
  #fed = 0;
  #phase: "trim" | "fence" | "trim again" | "body";
  #removed = 0;
  #tail = false;
  readonly #stream = new SummaryStream();
  readonly #trim: boolean;
  readonly #unfence: boolean;
  readonly #maxReplyBytes: bigint;
  readonly #overLimit: (received: Uint8Array) => Diagnosed;
  /** The reply is G17.10's JSON object, not XML: only gathered, checked whole at its end. */
  readonly #structured: boolean;

  constructor(options: {
    trim: boolean;
    unfence: boolean;
    maxReplyBytes: bigint;
    overLimit: (received: Uint8Array) => Diagnosed;
    structured?: boolean;
  }) {
    this.#structured = options.structured ?? false;
    this.#trim = options.trim;
    this.#unfence = options.unfence;
    this.#maxReplyBytes = options.maxReplyBytes;
    this.#overLimit = options.overLimit;
    this.#phase = this.#trim ? "trim" : this.#unfence ? "fence" : "body";
  }

  /** The bytes read so far. */
  get received(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  free(): void {
    this.#stream.free();
  }

  /** Reads one chunk; an `Aborted` once the reply cannot pass. */
  add(chunk: unknown): Aborted | null {
    let data: Uint8Array;
    if (typeof chunk === "string") data = encoder.encode(chunk);
    else if (chunk instanceof Uint8Array) data = chunk;
    else throw new TypeError("loopcompact: a reply chunk must be a string or a Uint8Array");
    if (this.#length + data.length > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.#bytes.length, this.#length + data.length));
      grown.set(this.received);
      this.#bytes = grown;
    }
    this.#bytes.set(data, this.#length);
    this.#length += data.length;
    // A structured reply's byte limit counts the rendered summary (G17.10): checked at the end.
    if (this.#structured) return null;
    if (BigInt(this.#length) > this.#maxReplyBytes) {
      // R15.3 step 2 comes first whatever follows: the library's own verdict of it.
      const received = this.received.slice();
      return { diagnosed: this.#overLimit(received), replyBytes: this.#length, received };
    }
    if (this.#start === null) {
      this.#lead();
      if (this.#start === null) return null;
    }
    if (this.#tail) return null;
    try {
      this.#stream.feed(this.#bytes.subarray(this.#fed, this.#length));
      this.#fed = this.#length;
      return null;
    } catch (e) {
      if (!(e instanceof LoopcompactError)) throw e;
      return this.#died(diagnosedOf(e));
    }
  }

  #lead(): void {
    const data = this.#bytes;
    let pos = this.#fed;
    for (;;) {
      if (pos >= this.#length) {
        this.#fed = pos;
        return;
      }
      if (this.#phase === "trim" || this.#phase === "trim again") {
        const [code, size] = charAt(data, this.#length, pos);
        if (size === 0) {
          this.#fed = pos;
          return;
        }
        if (code !== null && WHITE_SPACE.has(code)) {
          pos += size;
          this.#removed |= ReplyCleanup.TRIM;
          continue;
        }
        this.#phase = this.#phase === "trim" && this.#unfence ? "fence" : "body";
      } else if (this.#phase === "fence") {
        const fence = this.#fenceLine(pos);
        if (fence === null) {
          this.#fed = pos;
          return;
        }
        if (fence >= 0) {
          pos = fence;
          this.#removed |= ReplyCleanup.UNFENCE;
          this.#phase = this.#trim ? "trim again" : "body";
        } else {
          this.#phase = "body";
        }
      } else {
        this.#start = this.#fed = pos;
        return;
      }
    }
  }

  /** Where an opening fence line (R15.5) that starts at `pos` ends (after its LF); -1 when none starts there; null until known. */
  #fenceLine(pos: number): number | null {
    const data = this.#bytes.subarray(0, this.#length);
    const mark = data[pos] as number;
    if (mark !== 0x60 && mark !== 0x7e) return -1;
    let run = pos;
    while (run < data.length && data[run] === mark) run++;
    if (run - pos < 3 && run < data.length) return -1;
    const lf = data.indexOf(0x0a, run);
    const info = lf < 0 ? data.subarray(run) : data.subarray(run, lf);
    if (mark === 0x60 && info.includes(0x60)) return -1;
    if (lf < 0) return null;
    return run - pos >= 3 ? lf + 1 : -1;
  }

  #died(found: Diagnosed): Aborted | null {
    const start = this.#start ?? 0;
    const dead = this.#stream.deadOffset ?? 0;
    if (this.#trim || this.#unfence) {
      // Dead at the first byte after a complete summary: cleanup may remove what follows.
      try {
        validateSummary(this.#bytes.subarray(start, start + dead));
        this.#tail = true;
        return null;
      } catch (e) {
        if (!(e instanceof LoopcompactError)) throw e;
      }
    }
    // Offsets, lines and columns of the reply as it arrived (R15.7; C13.2: lines end at LF,
    // columns count characters).
    const offset = start + (found.diagnosis.offset ?? 0);
    const before = this.#bytes.subarray(0, offset);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < before.length; i++) {
      if (before[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    let column = 1;
    for (let i = lineStart; i < before.length; i++) if (((before[i] as number) & 0xc0) !== 0x80) column++;
    const raw = found.raw.slice();
    const dv = new DataView(raw.buffer);
    const f = DIAG.fields;
    dv.setBigUint64(f.offset, BigInt(offset), true);
    dv.setBigUint64(f.line, BigInt(line), true);
    dv.setBigUint64(f.column, BigInt(column), true);
    raw.fill(0, f.location, f.removed);
    raw.set(encoder.encode("summary"), f.location);
    dv.setUint32(f.removed, this.#removed, true);
    dv.setBigUint64(f.removed_before, BigInt(start), true);
    const diagnosis = Object.freeze({
      ...found.diagnosis,
      offset,
      line,
      column,
      location: "summary",
      removed: this.#removed,
      removedBefore: start,
    });
    const received = this.received.slice();
    return { diagnosed: { diagnosis, raw }, replyBytes: this.#length, received };
  }
}
