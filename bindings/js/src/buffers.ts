/**
 * Buffers across the boundary: documents copied into the instance's memory for one call
 * (`withBytes`), variable-length results read back through the two-call pattern (`withOutput`,
 * SPEC A3.2), and the module's static C strings.
 */

import type { Ptr } from "./abi.js";
import { Status } from "./generated.js";
import { INPUT_BLOCK, type Runtime } from "./runtime.js";

/** A document: a string (sent as its UTF-8 encoding) or the exact bytes. */
export type Bytes = string | Uint8Array;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// Static strings of the module: the same addresses in every instance of it.
const cStrings = new Map<Ptr, string>();

/** @internal A static NUL-terminated string of the module (`""` for NULL). */
export function cString(rt: Runtime, ptr: Ptr): string {
  if (ptr === 0) return "";
  let text = cStrings.get(ptr);
  if (text === undefined) {
    const u8 = rt.u8();
    text = decoder.decode(u8.subarray(ptr, u8.indexOf(0, ptr)));
    cStrings.set(ptr, text);
  }
  return text;
}

/** Where the UTF-8 length of a string's rest is counted (`withBytes`): encoded a piece at a time. */
let counting: Uint8Array | null = null;

/**
 * @internal Copies `data` into the instance for the duration of `f`; the empty document is
 * `(NULL, 0)`. Small documents use the instance's input block. A larger string is encoded straight
 * into a block of its length, which is its UTF-8 length if it is ASCII and a lower bound otherwise;
 * if the text is not all ASCII, the UTF-8 length of the rest is counted (encoded a piece at a time
 * into a small buffer) and the block grown to the exact size. The memory taken is the UTF-8 size,
 * not the bound of 3 bytes per UTF-16 unit.
 */
export function withBytes<T>(rt: Runtime, data: Bytes, what: string, f: (ptr: Ptr, len: number) => T): T {
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
 * @internal The two-call pattern: `call(buf, cap, outLen)` with a first guess of the size, again
 * with the size the library asked for; returns the status and, on `LC_OK`, `read` of the bytes
 * written.
 */
export function withOutput<T>(
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
      const status = call(buf, size, rt.wordPtr());
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

/**
 * @internal The two-call pattern for an array of `*out_len` elements of `size` bytes each
 * (`call(out, cap, outLen)`, `cap` in elements): the status and, on `LC_OK`, a copy of the
 * elements' bytes (empty for none).
 */
export function withElements(
  rt: Runtime,
  size: number,
  call: (out: Ptr, cap: number, outLen: Ptr) => number,
): [number, Uint8Array | null] {
  const first = call(0, 0, rt.wordPtr());
  if (first === Status.OK) return [first, new Uint8Array(0)];
  if (first !== Status.ERR_BUFFER_TOO_SMALL) return [first, null];
  const n = rt.word();
  const bytes = n * size;
  const buf = rt.alloc(bytes);
  try {
    const status = call(buf, n, rt.wordPtr());
    return status === Status.OK ? [status, rt.u8().slice(buf, buf + rt.word() * size)] : [status, null];
  } finally {
    rt.free(buf, bytes);
  }
}

/** @internal A copy of the bytes, out of the instance's memory. */
export const copyBytes = (b: Uint8Array): Uint8Array => b.slice();
/** Bytes from which text goes to the runtime's own decoder of large text, when it has one. */
const LARGE_TEXT = 1 << 16;
let decodeLarge: ((b: Uint8Array) => string) | null = null;

/**
 * @internal A faster decoder of large UTF-8 text for this runtime (`node.ts` sets Node's: a
 * head of 1 MiB takes 1.24 ms through Node 20's `TextDecoder`, 0.2 ms checked as ASCII and read
 * as Latin-1). It must give the same string as `TextDecoder` for every input.
 */
export function setLargeTextDecoder(decode: (b: Uint8Array) => string): void {
  decodeLarge = decode;
}

/** @internal The bytes as text (UTF-8; the library writes only UTF-8 text). */
export const decodeText = (b: Uint8Array): string =>
  decodeLarge !== null && b.length >= LARGE_TEXT ? decodeLarge(b) : decoder.decode(b);

/** @internal The bytes as text through `TextDecoder`, whatever their length (the reference of `setLargeTextDecoder`). */
export const decodeTextPlain = (b: Uint8Array): string => decoder.decode(b);
