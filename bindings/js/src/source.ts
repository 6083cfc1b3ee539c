/**
 * A host's message objects as the JSON text the converters read (SPEC §16): what `JSON.stringify`
 * gives, except where it would lose or corrupt the message. Bytes (`Uint8Array`, `Buffer`,
 * `ArrayBuffer`) become standard padded base64, as the AI SDK sends them to every provider
 * (`JSON.stringify` would write `{"0":137,"1":80,...}`); a value JSON cannot hold (a `bigint`, a
 * function, a symbol, a `Map` or `Set`, another typed array) or an object inside itself is refused
 * with `LC_CONVERT_SHAPE` and where it is, instead of being dropped or thrown without a place.
 *
 * Two ways to the same text. The plain one (`writeJson`) walks the value with its own stack (a
 * source may nest as deep as J5.2 allows, 10,000 levels, past the engine's call stack), builds the
 * text in pieces and knows where it is, for the errors. The fast one (`fastJson`) is the engine's
 * `JSON.stringify` with a replacer that writes bytes as base64 and gives up at anything the plain
 * one refuses (or at a cycle, or at a depth the engine's stack cannot take); the plain one then runs
 * and says where. They give the same text for every value the fast one takes: the test
 * `source: the fast path is the plain walk` compares them on generated values. About 7x faster
 * (a 1 MiB AI SDK chat: bench/convert.mjs).
 */

import { LoopcompactError, sourceDiagnosis } from "./errors.js";
import { Status } from "./generated.js";

/**
 * The member names a location may show: the fields of the six source formats. Another key is
 * shown as `#k`, its position among its object's keys, so that no byte of the source (a key of a
 * tool's arguments, a provider namespace) reaches an error.
 */
const NAMES: ReadonlySet<string> = new Set([
  "acknowledged_safety_checks", "action", "actions", "additional_kwargs", "annotations", "anthropic",
  "approvalId", "approved", "args", "arguments", "audio", "cacheControl", "cache_control", "call_id",
  "caller", "citations", "codeExecutionResult", "code_execution_result", "content", "contents",
  "context", "data", "detail", "displayName", "display_name", "encrypted_content", "error",
  "executableCode", "executable_code", "extras", "file", "fileData", "fileUri", "file_data",
  "file_id", "file_uri", "file_url", "filename", "format", "function", "functionCall",
  "functionResponse", "function_call", "function_response", "google", "googleVertex", "id",
  "image", "image_url", "inlineData", "inline_data", "input", "input_audio", "instructions",
  "invalid_tool_calls", "isError", "is_error", "kind", "kwargs", "logprobs", "mediaResolution",
  "mediaType", "media_resolution", "media_type", "messages", "mimeType", "mime_type", "name",
  "namespace", "openai", "operation", "output", "partMetadata", "part_metadata", "parts",
  "promptCacheBreakpoint", "prompt_cache_breakpoint", "providerExecuted", "providerOptions",
  "reason", "reasoning", "reasoningEncryptedContent", "reasoning_content", "reasoning_details",
  "redactedData", "reference", "refusal", "response", "response_metadata", "result", "role",
  "scheduling", "signature", "source", "status", "summary", "system", "systemInstruction",
  "system_instruction", "text", "thinking", "thought", "thoughtSignature", "thought_signature",
  "title", "toolCall", "toolCallId", "toolName", "toolResponse", "tool_call_id", "tool_calls",
  "tool_use_id", "toolset_name", "transformations", "type", "url", "usage_metadata", "value",
  "vertex", "videoMetadata", "video_metadata", "willContinue", "will_continue",
]);

/** Where a value sits in its parent: an array index, or an object key and its position. */
type Step = number | { readonly key: string; readonly position: number };

interface ArrayFrame {
  readonly array: readonly unknown[];
  next: number;
  readonly at: Step | null;
}

interface ObjectFrame {
  readonly object: Record<string, unknown>;
  readonly keys: readonly string[];
  next: number;
  written: number;
  readonly at: Step | null;
}

type Frame = ArrayFrame | ObjectFrame;

const TOO_LONG = "loopcompact: the source's JSON text is longer than the engine's largest string";

/** @internal Base64 (standard alphabet, padded) of `bytes`, in chunks `btoa` and the argument list can take. */
export function base64(bytes: Uint8Array): string {
  const CHUNK = 3 * 8192; // a multiple of 3: the pieces join without padding in between
  const pieces: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const chunk = bytes.subarray(i, i + CHUNK);
    pieces.push(btoa(String.fromCharCode.apply(null, chunk as unknown as number[])));
  }
  try {
    return pieces.join("");
  } catch (e) {
    if (e instanceof RangeError) throw new RangeError(TOO_LONG, { cause: e });
    throw e;
  }
}

function location(base: string, frames: readonly Frame[], last: Step | null): string {
  let out = base;
  const put = (step: Step | null) => {
    if (step === null) return;
    if (typeof step === "number") {
      out += `[${step}]`;
      return;
    }
    const name = NAMES.has(step.key) ? step.key : `#${step.position}`;
    out += out === "" ? name : `.${name}`;
  };
  for (const f of frames) put(f.at);
  put(last);
  return out;
}

const refuse = (base: string, frames: readonly Frame[], at: Step | null, expected: string): never => {
  throw new LoopcompactError(sourceDiagnosis(Status.CONVERT_SHAPE, location(base, frames, at), expected));
};

// By tag rather than `instanceof`, so that bytes made in another realm (a worker's message, a
// `vm` context, an iframe) count too; a `Buffer` is a Uint8Array.
const tag = (v: object): string => Object.prototype.toString.call(v);
const isBytes = (v: object): boolean =>
  ArrayBuffer.isView(v) ? tag(v) === "[object Uint8Array]" : tag(v) === "[object ArrayBuffer]";

/** What an object is written as. */
const enum Kind {
  Object,
  Array,
  /** A Uint8Array (a Buffer): its bytes as base64. */
  Bytes,
  /** An ArrayBuffer: its bytes as base64. */
  Buffer,
  /** What JSON.stringify would write as `{}` or as numbered members: another typed array, a
   * `DataView`, a `SharedArrayBuffer`, a `Map`, a `Set`. */
  NotJson,
}

const NOT_JSON: ReadonlySet<string> = new Set([
  "[object Map]",
  "[object Set]",
  "[object WeakMap]",
  "[object WeakSet]",
  "[object SharedArrayBuffer]",
]);

// Boxed primitives, which JSON.stringify writes as the primitive they hold.
const BOXED: ReadonlySet<string> = new Set(["[object Number]", "[object String]", "[object Boolean]", "[object BigInt]"]);

function kind(v: object): Kind {
  if (Array.isArray(v)) return Kind.Array;
  // A plain object, the common case, without asking for its tag.
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return Kind.Object;
  if (ArrayBuffer.isView(v)) return tag(v) === "[object Uint8Array]" ? Kind.Bytes : Kind.NotJson;
  const t = tag(v);
  if (t === "[object ArrayBuffer]") return Kind.Buffer;
  return NOT_JSON.has(t) ? Kind.NotJson : Kind.Object;
}

/** What JSON.stringify serialises in place of `value`: its `toJSON(key)` when it has one (a `URL`
 * its href, a `Date` its ISO string), except for bytes (a `Buffer`'s `toJSON` lists its bytes);
 * the primitive a boxed one holds. */
function toJson(value: unknown, key: string): unknown {
  if (value === null || typeof value !== "object") return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function" && !isBytes(value)) value = (toJSON as (key: string) => unknown).call(value, key);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) !== Object.prototype && BOXED.has(tag(value))) {
    return (value as { valueOf(): unknown }).valueOf();
  }
  return value;
}

/** Thrown by the replacer of the fast path: the plain walk takes over (and says where). */
const GIVE_UP = Symbol("loopcompact: not for the fast path");

/** The fast path's replacer: bytes as base64, and a give-up at what the plain walk refuses. */
function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  // The value before its toJSON (an own getter runs a second time here: message objects are data).
  const original = this[key];
  // Bytes whose toJSON was called (a Buffer's lists its bytes): the bytes, as the plain walk.
  if (original !== value && original !== null && typeof original === "object" && isBytes(original)) {
    return base64(ArrayBuffer.isView(original) ? (original as Uint8Array) : new Uint8Array(original as ArrayBuffer));
  }
  switch (typeof value) {
    case "bigint":
    case "function":
    case "symbol":
      throw GIVE_UP;
    case "object": {
      if (value === null) return value;
      const k = kind(value);
      if (k === Kind.Bytes) return base64(value as Uint8Array);
      if (k === Kind.Buffer) return base64(new Uint8Array(value as ArrayBuffer));
      if (k === Kind.NotJson) throw GIVE_UP;
      // A boxed primitive is unboxed by JSON.stringify after this, as the plain walk does (a boxed
      // bigint then throws a TypeError: the plain walk refuses it with where).
      return value;
    }
    default:
      return value;
  }
}

/**
 * @internal The fast path: `JSON.stringify` with the replacer above; `null` where the plain walk
 * must run (it refuses the value, or the engine gave up: a cycle, a depth its stack cannot take, a
 * text longer than its largest string).
 */
export function fastJson(value: unknown): string | null {
  try {
    // undefined for a root that is undefined (the replacer gave up at a function or a symbol):
    // null, as the plain walk writes it.
    return JSON.stringify(value, replacer) ?? "null";
  } catch {
    return null;
  }
}

// Keys repeat (role, content, type, text): their JSON text is kept, up to a bound.
const quotedKeys = new Map<string, string>();

function quoteKey(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = quote(key);
    if (quotedKeys.size < 4096) quotedKeys.set(key, q);
  }
  return q;
}

/** A string as JSON text; the engine's largest string (2^29 - 24 UTF-16 units in V8) is the ceiling. */
function quote(text: string): string {
  try {
    return JSON.stringify(text);
  } catch (e) {
    if (e instanceof RangeError) throw new RangeError(TOO_LONG, { cause: e });
    throw e;
  }
}

/**
 * @internal Appends the JSON text of `root` to `out`. `base` is the location of `root` in the
 * converter's terms (`"messages"`, `"system"`, `""` for a bare list) for the errors:
 * `LC_CONVERT_SHAPE` with rule G16.8, `location` and `expected`.
 */
export function writeJson(out: string[], root: unknown, base: string): void {
  const frames: Frame[] = [];
  const open = new Set<object>();
  let value: unknown = toJson(root, "");
  let at: Step | null = null;
  for (;;) {
    // The value at `at` of the innermost frame (or the root): a leaf is written, a container opened.
    switch (typeof value) {
      case "string":
        out.push(quote(value));
        break;
      case "number":
        // As JSON.stringify: NaN and the infinities are null.
        out.push(Number.isFinite(value) ? String(value) : "null");
        break;
      case "boolean":
        out.push(value ? "true" : "false");
        break;
      case "undefined":
        // Only in an array (a member whose value is undefined is left out, as JSON.stringify does).
        out.push("null");
        break;
      case "bigint":
        refuse(base, frames, at, "a JSON value (a number, not a bigint)");
        break;
      case "function":
      case "symbol":
        refuse(base, frames, at, `a JSON value (not a ${typeof value})`);
        break;
      case "object": {
        if (value === null) {
          out.push("null");
          break;
        }
        const k = kind(value);
        if (k === Kind.Bytes) {
          out.push(`"${base64(value as Uint8Array)}"`);
          break;
        }
        if (k === Kind.Buffer) {
          out.push(`"${base64(new Uint8Array(value as ArrayBuffer))}"`);
          break;
        }
        if (k === Kind.NotJson) refuse(base, frames, at, "a JSON value (bytes as a Uint8Array or an ArrayBuffer; no Map or Set)");
        if (open.has(value)) refuse(base, frames, at, "a JSON value (an object that does not contain itself)");
        open.add(value);
        if (k === Kind.Array) {
          out.push("[");
          frames.push({ array: value as unknown[], next: 0, at });
        } else {
          out.push("{");
          frames.push({ object: value as Record<string, unknown>, keys: Object.keys(value), next: 0, written: 0, at });
        }
        break;
      }
    }
    // The next value: the next element or member of the innermost open container, closing the
    // containers that are done.
    let found = false;
    while (!found) {
      const frame = frames.at(-1);
      if (frame === undefined) return;
      if ("array" in frame) {
        if (frame.next < frame.array.length) {
          if (frame.next > 0) out.push(",");
          at = frame.next;
          value = toJson(frame.array[frame.next], String(frame.next));
          frame.next++;
          found = true;
          continue;
        }
        out.push("]");
        open.delete(frame.array);
      } else {
        while (frame.next < frame.keys.length) {
          const position = frame.next++;
          const key = frame.keys[position] as string;
          const member = toJson(frame.object[key], key);
          // As JSON.stringify, a member whose value is undefined is left out; a function or a
          // symbol is refused (JSON.stringify would drop it without a word).
          if (member === undefined) continue;
          out.push(`${frame.written++ > 0 ? "," : ""}${quoteKey(key)}:`);
          at = { key, position };
          value = member;
          found = true;
          break;
        }
        if (found) continue;
        out.push("}");
        open.delete(frame.object);
      }
      frames.pop();
    }
  }
}

/**
 * @internal The JSON text of a converter's source document: an object of `members`, each written
 * with `writeJson` at its own location (members whose value is `undefined` left out).
 */
export function objectText(members: readonly (readonly [name: string, value: unknown])[]): string {
  const out: string[] = ["{"];
  let written = 0;
  for (const [name, value] of members) {
    if (value === undefined) continue;
    out.push(`${written++ > 0 ? "," : ""}${JSON.stringify(name)}:`);
    const fast = fastJson(value);
    if (fast !== null) out.push(fast);
    else writeJson(out, value, name);
  }
  out.push("}");
  return joined(out);
}

/** @internal The JSON text of a source that is a list (Chat, the AI SDK); `base` is its location. */
export function listText(list: readonly unknown[], base: string): string {
  const fast = fastJson(list);
  if (fast !== null) return fast;
  const out: string[] = [];
  writeJson(out, list, base);
  return joined(out);
}

function joined(out: string[]): string {
  try {
    return out.join("");
  } catch (e) {
    if (e instanceof RangeError) throw new RangeError(TOO_LONG, { cause: e });
    throw e;
  }
}
