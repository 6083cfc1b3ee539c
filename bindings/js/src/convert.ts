/**
 * The converters (SPEC §16): a provider's message list, as the host holds it, into the wire
 * transcript, through `lc_transcript_convert`, so that every host converts byte for byte alike.
 * `Conversion` owns the library's handle: the transcript, the source index of each wire message,
 * the cuts that fall on source message boundaries, the loss report, and `input()`, the compaction
 * input around the transcript that the round (`compact`) maps back to the source's own list.
 */

import type { Ptr } from "./abi.js";
import { type U64, U64_MAX, boolean, int32, u64 } from "./args.js";
import { type Bytes, cString, withBytes, withElements, withOutput } from "./buffers.js";
import { LoopcompactError, check, liveRuntime, plainDiagnosis, readDiagnosis, releaseHandle, run, withoutPosition } from "./errors.js";
import { CONVERT_STRICT, FINGERPRINT_LEN, Format, LAYOUT, type LossCode, Status, type StatusCode } from "./generated.js";
import { type Input, type Origin, inputInternals } from "./input.js";
import { type Runtime, handleFinalizer } from "./runtime.js";
import { listText, objectText } from "./source.js";

const LOSS = LAYOUT.lc_loss;

/** One thing a conversion could not carry into the wire transcript (SPEC §16, G16.8). */
export interface Loss {
  /** The index of the source message (or item) it was in; `null` for the system parameter. */
  readonly sourceIndex: number | null;
  /** `LossCode.*`. */
  readonly code: LossCode;
  /** The code's stable name (`lc_loss_name`), e.g. `"dropped_cache_control"`. */
  readonly name: string;
}

/** The options every converter takes. */
export interface ConvertOptions {
  /**
   * Refuse any loss (`LC_CONVERT_STRICT`): the conversion throws `LC_CONVERT_LOSS` at the first,
   * with its `location` and the loss's name as `expected`. Default `false`: losses are reported
   * in `Conversion.losses`.
   */
  strict?: boolean | undefined;
}

/** The options of `fromOpenAIResponses`. */
export interface ResponsesOptions extends ConvertOptions {
  /** The request's `instructions`: wire message 0, a system message (its source index is `null`). */
  instructions?: string | null | undefined;
}

/** The options of `fromAnthropic`. */
export interface AnthropicOptions extends ConvertOptions {
  /** The request's `system` parameter (a string or text blocks): wire message 0 (source index `null`). */
  system?: string | readonly object[] | null | undefined;
}

/** The options of `fromGemini`. */
export interface GeminiOptions extends ConvertOptions {
  /**
   * The request's `systemInstruction`: a `Content`, a string, a part or a list of parts (as
   * `@google/genai` takes it); wire message 0 (source index `null`).
   */
  systemInstruction?: string | object | readonly (string | object)[] | null | undefined;
}

/** What `Conversion.input` needs besides the transcript (SPEC G16.10). */
export interface ConversionInputOptions {
  /** The summariser's provider, e.g. `"openai"` (not empty). */
  provider: string;
  /** The summariser's model, e.g. `"gpt-4.1-mini"` (not empty). */
  model: string;
  /** The summary's token limit (`max_summary_tokens`). */
  maxSummaryTokens: U64;
  /** The basis revision: the host's count of compactions of this conversation, plus one (0 is refused). */
  revision: U64;
  /**
   * The request fingerprint's 32 bytes (`requestFingerprint(json).bytes`); left out or `null`,
   * the library mints one from the provider, the model and the transcript.
   */
  fingerprint?: Uint8Array | null | undefined;
}

// The safety net for a Conversion never freed.
const finalizer = handleFinalizer((rt, handle) => rt.x.lc_conversion_free(handle));

/** What a converter read, before it is wrapped: the handle and the copies. */
interface Parts {
  transcript: Uint8Array;
  sourceIndex: readonly (number | null)[];
  cutAllowed: readonly boolean[];
  losses: readonly Loss[];
}

let make: (rt: Runtime, handle: Ptr, format: Format, parts: Parts) => Conversion;

/**
 * A converted message list (SPEC §16), from `fromModelMessages`, `fromOpenAIChat`,
 * `fromOpenAIResponses`, `fromAnthropic`, `fromGemini` or `convert`. Its fields are copies, read
 * when it was made; the handle it holds in the module serves `sourceCut` and `input`: release it
 * with `free()` or a `using` declaration (a garbage-collected Conversion is freed as a safety net).
 */
export class Conversion {
  /** The source format (`Format.*`). */
  readonly format: Format;
  /**
   * The wire transcript: a JSON array of wire messages (SPEC §5), in canonical bytes (E7), the
   * same bytes in every host. Bytes rather than parsed objects: signatures and provider state
   * arrive byte-exact, integers in tool inputs above 2^53 and key order survive, and nothing is
   * parsed that goes straight to `input()`. `JSON.parse(new TextDecoder().decode(transcript))` for
   * the objects.
   */
  readonly transcript: Uint8Array;
  /**
   * For each wire message, the index of the source message (item) it came from; `null` for the
   * system parameter (Anthropic `system`, Responses `instructions`, Gemini `systemInstruction`),
   * which is no element of the list. Several wire messages share an index where a source message
   * became several (each tool result a `tool` message of its own, G16.1); a Responses run of
   * items has the index of its first item.
   */
  readonly sourceIndex: readonly (number | null)[];
  /**
   * For each wire cut `c` in `0..=n` (n wire messages): whether summarising wire messages
   * `[0, c)` splits no source message (SPEC G16.2). No cut past a compaction item the wire cannot
   * carry is allowed, so that it is never summarised away.
   */
  readonly cutAllowed: readonly boolean[];
  /** What the wire could not carry, in source order (empty for a lossless conversion). */
  readonly losses: readonly Loss[];
  #rt: Runtime | null;
  readonly #handle: Ptr;
  readonly #token = {};

  static {
    make = (rt, handle, format, parts) => new Conversion(rt, handle, format, parts);
  }

  private constructor(rt: Runtime, handle: Ptr, format: Format, parts: Parts) {
    this.format = format;
    this.transcript = parts.transcript;
    this.sourceIndex = parts.sourceIndex;
    this.cutAllowed = parts.cutAllowed;
    this.losses = parts.losses;
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
    return run((rt) => body(rt, handle), liveRuntime(this.#rt, "Conversion"));
  }

  /**
   * The number of messages (or items) in the source (`lc_conversion_source_len`): the length of
   * the list `messages(source)` takes.
   */
  get sourceLength(): number {
    return this.#with((rt, handle) => {
      const out = rt.wordPtr();
      const status = rt.x.lc_conversion_source_len(handle, out);
      if (status !== Status.OK) throw new LoopcompactError(plainDiagnosis(status as StatusCode));
      return Number(rt.dv().getBigUint64(out, true));
    });
  }

  /**
   * The source cut of an allowed wire cut (SPEC G16.2): summarising wire messages `[0, wireCut)`
   * summarises source messages `[0, sourceCut)`; source items the wire does not hold (dropped with
   * a loss) after the last summarised message stay on the kept side. Throws `LC_CUT_UNSAFE` for a
   * cut that `cutAllowed` refuses and `LC_ERR_INVALID_ARGUMENT` for one past the last message.
   */
  sourceCut(wireCut: U64): number {
    const cut = u64(wireCut, "wireCut");
    return this.#with((rt, handle) => {
      const out = rt.wordPtr();
      const status = rt.x.lc_conversion_source_cut(handle, cut, out);
      if (status !== Status.OK) throw new LoopcompactError(plainDiagnosis(status as StatusCode));
      // A source index: a wasm32 memory bounds it far below 2^53.
      return Number(rt.dv().getBigUint64(out, true));
    });
  }

  /**
   * The compaction input around this transcript (SPEC G16.10, `lc_conversion_input`): the basis
   * is `revision` with an event id minted from the transcript, the fingerprint the one given or one
   * minted from the provider, the model and the transcript. The Input cuts only where source
   * messages begin (`cutAllowed`) without being told, and remembers this conversion, so that
   * `compact(input, ...)` resolves to a result whose `messages(source)` is the new list in the
   * source's own format. Throws what `Input.parse` throws for what was given (`LC_INPUT_MODEL` for
   * an empty provider or model, `LC_INPUT_BASIS` for revision 0, `LC_INPUT_MAX_SUMMARY_TOKENS`,
   * `LC_INPUT_REQUEST_FINGERPRINT`, `LC_INPUT_TRANSCRIPT` for no message).
   */
  input(options: ConversionInputOptions): Input {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("loopcompact: input() takes { provider, model, maxSummaryTokens, revision, fingerprint? }");
    }
    const { provider, model } = options;
    if (typeof provider !== "string") throw new TypeError("loopcompact: provider must be a string");
    if (typeof model !== "string") throw new TypeError("loopcompact: model must be a string");
    const maxSummaryTokens = u64(options.maxSummaryTokens, "maxSummaryTokens");
    const revision = u64(options.revision, "revision");
    const fingerprint = options.fingerprint ?? null;
    if (fingerprint !== null) {
      if (!(fingerprint instanceof Uint8Array)) throw new TypeError("loopcompact: fingerprint must be a Uint8Array (or null)");
      if (fingerprint.length !== FINGERPRINT_LEN) {
        throw new RangeError(`loopcompact: fingerprint must be ${FINGERPRINT_LEN} bytes, got ${fingerprint.length}`);
      }
    }
    const origin: Origin = {
      format: this.format,
      sourceLength: this.sourceLength,
      sourceCuts: Object.freeze(this.cutAllowed.map((allowed, c) => (allowed ? this.sourceCut(c) : -1))),
    };
    return this.#with((rt, handle) =>
      withBytes(rt, provider, "provider", (providerPtr, providerLen) =>
        withBytes(rt, model, "model", (modelPtr, modelLen) =>
          withBytes(rt, fingerprint ?? "", "fingerprint", (fingerprintPtr) => {
            const out = rt.wordPtr();
            const status = rt.x.lc_conversion_input(
              handle,
              providerPtr,
              providerLen,
              modelPtr,
              modelLen,
              maxSummaryTokens,
              revision,
              fingerprintPtr,
              out,
            );
            check(rt, status, null);
            return inputInternals.adopt(rt, rt.word(), origin, this.transcript.length);
          }),
        ),
      ),
    );
  }

  /** Releases the handle (idempotent). The fields stay readable; `sourceCut` and `input` throw. */
  free(): void {
    const rt = this.#rt;
    this.#rt = null;
    releaseHandle(rt, this.#token, finalizer, (rt) => rt.x.lc_conversion_free(this.#handle));
  }

  /** `free()`, for `using conversion = fromModelMessages(messages)`. */
  [Symbol.dispose](): void {
    this.free();
  }
}

/** An array the two-call pattern fills with `*out_len` elements of `size` bytes each, copied out. */
function elements(rt: Runtime, size: number, call: (out: Ptr, cap: number, outLen: Ptr) => number): Uint8Array {
  const [status, bytes] = withElements(rt, size, call);
  check(rt, status, null);
  return bytes ?? new Uint8Array(0);
}

function lossName(rt: Runtime, code: number): string {
  return cString(rt, rt.x.lc_loss_name(code));
}

/** Everything a conversion handle holds, copied out of the module. */
function readParts(rt: Runtime, handle: Ptr): Parts {
  const [, transcript] = withOutput(
    rt,
    0,
    (buf, cap, len) => rt.x.lc_conversion_transcript(handle, buf, cap, len),
    (b) => b.slice(),
  );
  const indexBytes = elements(rt, 8, (out, cap, len) => rt.x.lc_conversion_source_index(handle, out, cap, len));
  const indexView = new DataView(indexBytes.buffer);
  const sourceIndex: (number | null)[] = [];
  for (let at = 0; at < indexBytes.length; at += 8) {
    const i = indexView.getBigUint64(at, true);
    sourceIndex.push(i === U64_MAX ? null : Number(i));
  }
  const allowed = elements(rt, 1, (out, cap, len) => rt.x.lc_conversion_cut_allowed(handle, out, cap, len));
  const lossBytes = elements(rt, LOSS.size, (out, cap, len) => rt.x.lc_conversion_losses(handle, out, cap, len));
  const lossView = new DataView(lossBytes.buffer);
  const losses: Loss[] = [];
  for (let at = 0; at < lossBytes.length; at += LOSS.size) {
    const i = lossView.getBigUint64(at + LOSS.fields.source_index, true);
    const code = lossView.getInt32(at + LOSS.fields.code, true) as LossCode;
    losses.push(Object.freeze({ sourceIndex: i === U64_MAX ? null : Number(i), code, name: lossName(rt, code) }));
  }
  return {
    transcript: transcript ?? new Uint8Array(0),
    sourceIndex: Object.freeze(sourceIndex),
    cutAllowed: Object.freeze(Array.from(allowed, (b) => b !== 0)),
    losses: Object.freeze(losses),
  };
}

function strictFlag(options: ConvertOptions | undefined): number {
  if (options === undefined) return 0;
  if (typeof options !== "object" || options === null) throw new TypeError("loopcompact: the options must be an object");
  return options.strict !== undefined && boolean(options.strict, "strict") ? CONVERT_STRICT : 0;
}

/**
 * Converts the JSON text `doc` (`objects`: the package wrote it from the caller's objects). A
 * refusal of a source given as objects has no `offset`, `line` or `column`: they would count bytes
 * of JSON text the package made, not the caller's; `location` says where.
 */
function converted(format: number, doc: Bytes, flags: number, objects: boolean): Conversion {
  return run((rt) =>
    withBytes(rt, doc, "json", (ptr, len) => {
      const diag = rt.diag();
      const status = rt.x.lc_transcript_convert(format, ptr, len, flags, rt.wordPtr(), diag);
      if (status !== Status.OK) {
        const diagnosed = readDiagnosis(rt, diag);
        throw new LoopcompactError(objects ? withoutPosition(diagnosed) : diagnosed);
      }
      const handle = rt.word();
      let parts: Parts;
      try {
        parts = readParts(rt, handle);
      } catch (e) {
        rt.x.lc_conversion_free(handle);
        throw e;
      }
      return make(rt, handle, format as Format, parts);
    }),
  );
}

/**
 * Converts a source document given as JSON text (a `string` or the exact bytes), for hosts that
 * hold JSON rather than objects: `format` is `Format.*` and `json` what `lc_transcript_convert`
 * reads for it: the Chat `messages` array, `{"input": ..., "instructions": ...}` for Responses,
 * `{"system": ..., "messages": [...]}` for Anthropic, `{"contents": [...], "system_instruction":
 * ...}` for Gemini, `ModelMessage[]` for the AI SDK, LangChain's `messages_to_dict` / `dumpd` /
 * `model_dump` list. Throws `LC_CONVERT_WIRE` (not JSON), `LC_CONVERT_SHAPE` (not the format's
 * shape, with `location` such as `messages[3].tool_calls[0].function.arguments`), `LC_CONVERT_LOSS`
 * (strict), `LC_ERR_INVALID_ARGUMENT` (a format that is not one).
 */
export function convert(format: Format, json: Bytes, options?: ConvertOptions): Conversion {
  return converted(int32(format, "format"), json, strictFlag(options), false);
}

function list(value: unknown, what: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`loopcompact: ${what} must be an array`);
  return value;
}

/**
 * Converts OpenAI Chat Completions `messages` (`ChatCompletionMessageParam[]` of the `openai`
 * package, and the messages a completion returned, appended as they came) into the wire transcript
 * (SPEC §16.2). `developer` messages are system messages; each `tool` message is one wire `tool`
 * message; arguments strings are parsed (a repeated key resolved as `JSON.parse` does, text that
 * is not JSON kept as a string, both reported). Throws a `TypeError` for a list that is not an
 * array, and what `convert` throws.
 */
export function fromOpenAIChat(messages: readonly object[], options?: ConvertOptions): Conversion {
  const source = list(messages, "messages");
  return converted(Format.OPENAI_CHAT, listText(source, "messages"), strictFlag(options), true);
}

/**
 * Converts an OpenAI Responses `input` (`ResponseInputItem[]` of the `openai` package, with the
 * items of `response.output` appended as they came, or a string) and the request's `instructions`
 * into the wire transcript (SPEC §16.3): a run of model-side items (messages, reasoning, calls) is
 * one wire assistant message, each output a `tool` message; hosted tools, compaction items and
 * item references are dropped and reported. A string `input` is one user message (source index 0).
 */
export function fromOpenAIResponses(items: string | readonly object[], options: ResponsesOptions = {}): Conversion {
  if (typeof items !== "string") list(items, "items");
  const flags = strictFlag(options);
  const instructions = options.instructions ?? undefined;
  if (instructions !== undefined && typeof instructions !== "string") {
    throw new TypeError("loopcompact: instructions must be a string (or null)");
  }
  const doc = objectText([
    ["instructions", instructions],
    ["input", items],
  ]);
  return converted(Format.OPENAI_RESPONSES, doc, flags, true);
}

/**
 * Converts Anthropic Messages `messages` (`MessageParam[]` of `@anthropic-ai/sdk`, with the
 * assistant turns appended as `{ role: "assistant", content: message.content }`) and the request's
 * `system` into the wire transcript (SPEC §16.4): thinking and redacted thinking keep their
 * signatures byte for byte, each `tool_result` block becomes a `tool` message of its own, server
 * tools are dropped and reported.
 */
export function fromAnthropic(messages: readonly object[], options: AnthropicOptions = {}): Conversion {
  const source = list(messages, "messages");
  const flags = strictFlag(options);
  const doc = objectText([
    ["system", options.system ?? undefined],
    ["messages", source],
  ]);
  return converted(Format.ANTHROPIC, doc, flags, true);
}

/** `systemInstruction` as the Gemini API takes it (a `Content` or a string), from the forms
 * `@google/genai` accepts (`ContentUnion`: also a part or a list of parts). */
function systemContent(value: unknown): unknown {
  if (value === null || value === undefined || typeof value === "string") return value ?? undefined;
  const part = (p: unknown) => (typeof p === "string" ? { text: p } : p);
  if (Array.isArray(value)) return { parts: value.map(part) };
  if (typeof value === "object" && !("parts" in value) && !("role" in value)) return { parts: [value] };
  return value;
}

/**
 * Converts Google Gemini `contents` (`Content[]` of `@google/genai`, with
 * `response.candidates[0].content` appended as it came) and the request's `systemInstruction` into
 * the wire transcript (SPEC §16.5): thought signatures are kept byte for byte, each
 * `functionResponse` becomes a `tool` message of its own, calls without an id get one made (and
 * reported), code execution parts are dropped and reported.
 */
export function fromGemini(contents: readonly object[], options: GeminiOptions = {}): Conversion {
  const source = list(contents, "contents");
  const flags = strictFlag(options);
  const doc = objectText([
    ["system_instruction", systemContent(options.systemInstruction)],
    ["contents", source],
  ]);
  return converted(Format.GEMINI, doc, flags, true);
}

/**
 * Converts the AI SDK's `ModelMessage[]` (the `ai` package's messages, v5 to v7 part shapes; plain
 * objects shaped like its types, the package does not depend on `ai`) into the wire transcript
 * (SPEC §16.7). Bytes in `image` and `file` parts (`Uint8Array`, `Buffer`, `ArrayBuffer`) are sent
 * as base64, as the AI SDK sends them; a `URL` as its href. Reasoning signatures in
 * `providerOptions` (Anthropic, OpenAI, Google) are kept byte for byte; each `tool-result` becomes a
 * `tool` message of its own; provider-executed tools and approvals are dropped and reported.
 */
export function fromModelMessages(messages: readonly object[], options?: ConvertOptions): Conversion {
  const source = list(messages, "messages");
  return converted(Format.AI_SDK, listText(source, ""), strictFlag(options), true);
}
