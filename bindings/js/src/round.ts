/**
 * The round (SPEC R15.12): one compaction with the caller's model, over the calls of `Input`. The
 * cut keeps the last messages, the summariser gets the head, its reply is checked as it arrived,
 * a retry shows the model what was wrong and never sends the same request twice, and the result is
 * either `Compacted` (a summary that passed R15.3 and the replacement that carries it) or
 * `KeepHistory` (the history stays as it was).
 */

import { type U64, U64_MAX, u64 } from "./args.js";
import { type Bytes, decodeText } from "./buffers.js";
import {
  type Diagnosed,
  type Diagnosis,
  LoopcompactError,
  diagnosedOf,
  madeDiagnosis,
  retryMessageOf,
  statusText,
} from "./errors.js";
import { SMALLEST_SUMMARY_LEN, Section, Status, StatusClass, type StatusCode } from "./generated.js";
import { type Input, type Origin, type Stop, inputInternals } from "./input.js";
import { rebuild } from "./messages.js";
import { type Aborted, type ReadableStreamLike, ReplyStreamCheck, isReadableStream } from "./stream.js";
import { type Sections, renderSummary, summaryInstructions, summaryJsonSchema } from "./summary.js";

/** One chat turn of a summary request: what chat APIs take as a message. */
export interface ChatTurn {
  readonly role: "user" | "assistant";
  readonly content: string;
}

/**
 * What `compact` asks the model (R15.12 step 2). `messages` is a fresh array for each call, so that
 * it can go straight to an SDK (or be extended with a system turn); the attempt keeps a frozen
 * copy of the request as it was sent.
 */
export interface SummaryRequest {
  /** The summariser's instructions (`summaryInstructions()`): the system prompt. */
  readonly system: string;
  /**
   * First the user turn with the head (the input up to the cut, as canonical JSON); then, for each
   * rejected attempt, an assistant turn (the rejected reply with `reshowRejected`, else
   * `"[previous summary withheld: it was rejected]"`) and a user turn with its retry message.
   */
  messages: ChatTurn[];
  /** The output token limit for this call: the input's `max_summary_tokens`, or less. */
  readonly maxTokens: number;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /**
   * With `compact(..., { structured: true })`: the JSON Schema of the reply (`summaryJsonSchema()`,
   * SPEC G17.10), to hand the provider's structured output; `null` otherwise.
   */
  readonly jsonSchema: string | null;
}

/**
 * The five sections' texts as a reply may carry them (SPEC G17.10): `Sections`, or the schema's own
 * spelling with `open_items` (an object the provider's structured output parsed), not both.
 */
export type ReplySections =
  | Sections
  | {
      readonly goal: string;
      readonly constraints: string;
      readonly decisions: string;
      readonly state: string;
      readonly open_items: string;
    };

/** What `callModel` returns: the model's text and what the provider said about the call. */
export interface SummaryReply {
  /**
   * The text as it arrived (a `Uint8Array` for bytes that may not be UTF-8). With `structured`, the
   * JSON object of the schema. May be left out when `sections` is given (it is then not read).
   */
  text?: Bytes | null | undefined;
  /**
   * The summary as the five sections' texts, for a provider whose structured output was parsed
   * already (the AI SDK's `generateObject`, OpenAI's `parse`): rendered by `renderSummary` and
   * checked as a text reply is (SPEC G17.10).
   */
  sections?: ReplySections | null | undefined;
  /** The output tokens the provider reported; 0 when it reported none (then `LC_SUMMARY_TOKEN_USAGE`). */
  outputTokens: U64;
  /** `"end"`, `"length"` (cut at the output limit), or `null`/left out when not reported. */
  stop?: Stop | undefined;
}

/** What a streamed reply reports once its last chunk was read (SPEC T17.6). */
export interface SummaryUsage {
  /** The output tokens the provider reported; 0 when it reported none. */
  outputTokens: U64;
  /** `"end"`, `"length"`, or `null`/left out when not reported. */
  stop?: Stop | undefined;
}

/** A chunk of a streamed reply: text, or bytes of a raw body. */
export type ReplyChunk = string | Uint8Array;

/**
 * What a streaming `callModel` returns instead of a `SummaryReply` (SPEC T17.6): the reply as
 * `chunks` (a `ReadableStream`, an async iterable or an iterable of strings or bytes) and `usage`,
 * called once after the last chunk was read. The round validates the chunks as they arrive and, at
 * the first one after which the reply cannot become a valid summary, stops reading: it cancels the
 * stream (`reader.cancel()`) or returns the iterator (`return()`), so that the provider's HTTP
 * stream is closed (an SDK's stream aborts its request when its iterator is returned), and never
 * calls `usage`.
 */
export interface SummaryReplyStream {
  chunks: ReadableStreamLike<ReplyChunk> | AsyncIterable<ReplyChunk> | Iterable<ReplyChunk>;
  usage: () => SummaryUsage | PromiseLike<SummaryUsage>;
}

/** The caller's model: sync or async. Transient errors are its own business (the SDK's retries). */
export type CallModel = (
  request: SummaryRequest,
) => SummaryReply | SummaryReplyStream | PromiseLike<SummaryReply | SummaryReplyStream>;

/** What cleanup removed around the summary (SPEC R15.7). */
export interface Removed {
  /** `ReplyCleanup` flags of the cleanups that removed something. */
  readonly flags: number;
  /** Bytes removed before the summary. */
  readonly before: number;
  /** Bytes removed after the summary. */
  readonly after: number;
}

/** One attempt of a round, as `onAttempt` sees it and the result keeps it. */
export interface Attempt {
  /** 1 for the first. */
  readonly number: number;
  /** The request as it was sent (a frozen copy). */
  readonly request: SummaryRequest;
  /**
   * The reply's length in bytes, as it arrived (never its text); for a reply with `sections`, the
   * rendered summary's (0 when the render refused them).
   */
  readonly replyBytes: number;
  readonly stop: Stop;
  readonly status: StatusCode;
  readonly statusClass: StatusClass;
  /** The verdict's diagnosis (status `Status.OK` for the accepted reply). */
  readonly diagnosis: Diagnosis;
  readonly removed: Removed;
  /**
   * A streamed reply the round stopped reading at its first dead chunk (SPEC T17.6): `replyBytes`
   * counts the bytes read, `stop` is `null`, and the verdict is the one known when it died.
   */
  readonly aborted: boolean;
}

/** The round replaced the history: commit `replacement` (or the summary with the same cut). */
export interface Compacted {
  readonly kind: "compacted";
  /** The validated summary: the exact text of the summary message. */
  readonly summary: string;
  /** Messages `[0, cut)` were summarised, `[cut, n)` kept. */
  readonly cut: number;
  /** The transcript that replaces the history (`buildReplacement(cut, summary)`): a JSON array of wire messages. */
  readonly replacement: Uint8Array;
  readonly attempts: readonly Attempt[];
  /** Each attempt's diagnosis, in order. */
  readonly diagnoses: readonly Diagnosis[];
  /**
   * The new history in the source's own format, for an input made by `Conversion.input`: `source`
   * is the list the conversion was made from (the `ModelMessage[]`, the Chat `messages`, the
   * Responses `input`, the Anthropic `messages`, the Gemini `contents`). It returns a new array:
   * the source's leading system messages (the same objects; a system parameter such as Anthropic's
   * `system` is the host's to keep), the summary as one user message (`{ role: "user", content:
   * summary }`; Gemini `{ role: "user", parts: [{ text: summary }] }`; a Responses list whose
   * messages carry `type: "message"` gets it too), then the kept messages `source[sourceCut:]`, the
   * same objects (`===`). When the first kept message is a user message, the summary is merged into
   * it as on the wire (R15.9: two user messages never meet): a new object with that message's fields
   * and the summary's text part before its content (a string content becomes one text part); the
   * original object is not changed.
   *
   * Throws an `Error` when the input was not made by `Conversion.input` (`Input.parse`: use
   * `replacement`), and a `TypeError` when `source` is not an array of the conversion's length.
   */
  messages<M>(source: readonly M[] | string): M[];
}

/** The round left the history as it was. */
export interface KeepHistory {
  readonly kind: "keepHistory";
  /** A short sentence: why (never the reply's text or an exception's message). */
  readonly reason: string;
  /** The status that ended the round; `null` when `callModel` threw (with `onError: "keepHistory"`). */
  readonly status: StatusCode | null;
  readonly attempts: readonly Attempt[];
  readonly diagnoses: readonly Diagnosis[];
}

/** What `compact` returns: `result.kind` tells which. */
export type CompactResult = Compacted | KeepHistory;

/** The options of `compact`; every one has a default. */
export interface CompactOptions {
  /** Messages to keep at the end at least (default 0); the cut is `input.safeCut(keepLast, { pendingTail })`. */
  keepLast?: U64 | undefined;
  /**
   * Compact before a pending tail, the last assistant message whose calls wait for their results
   * (default `true`, SPEC G16.13: a running tool does not stop compaction; the pending turn is
   * kept as it is); `false`: such a transcript keeps its history (`LC_PAIRING_UNANSWERED_CALL`).
   */
  pendingTail?: boolean | undefined;
  /** Calls of the model at most (default 3). */
  attempts?: number | undefined;
  /** Byte budget of the head sent to the model (default: no limit). */
  maxInputBytes?: U64 | null | undefined;
  /**
   * Byte limit of a reply (default: 16 × `max_summary_tokens`, at least `SMALLEST_SUMMARY_LEN`).
   * Below `SMALLEST_SUMMARY_LEN` the round keeps the history (`REPLY_BYTE_LIMIT_UNREACHABLE`)
   * without calling the model.
   */
  maxReplyBytes?: U64 | null | undefined;
  /** The first request's `maxTokens` (default and ceiling: the input's `max_summary_tokens`; above it: `RangeError`). */
  maxTokens?: U64 | null | undefined;
  /** Remove White_Space around a reply (default `true`). */
  trim?: boolean | undefined;
  /** Remove one Markdown code fence around a reply (default `true`). */
  unfence?: boolean | undefined;
  /** Show the model its rejected reply in a retry (default `false`: a fixed placeholder instead). */
  reshowRejected?: boolean | undefined;
  /** Called with every attempt, before the round decides what follows (awaited when it returns a promise). */
  onAttempt?: ((attempt: Attempt) => void | PromiseLike<void>) | null | undefined;
  /** `"throw"` (default): an exception from `callModel` propagates; `"keepHistory"`: the round ends with `KeepHistory`. */
  onError?: "throw" | "keepHistory" | undefined;
  /**
   * Structured output (SPEC G17.10, default `false`): each request carries the summary's JSON Schema
   * (`jsonSchema`) and the instructions end with `STRUCTURED_NOTE`; a text reply is read as that
   * JSON object (not JSON: `SUMMARY_WIRE`; another shape: `SUMMARY_OUTPUT_SHAPE`; either stopped by
   * length: `REPLY_TRUNCATED`), rendered, then checked as a text reply is. A reply with `sections`
   * is rendered with or without it.
   */
  structured?: boolean | undefined;
}

/** The assistant turn that stands for a rejected reply unless `reshowRejected` (R15.12 step 2). */
export const WITHHELD = "[previous summary withheld: it was rejected]";

/**
 * What follows the instructions and every retry message with `structured: true` (SPEC G17.10): the
 * reply is the JSON object of `summaryJsonSchema()`, its texts plain (the renderer escapes them).
 */
export const STRUCTURED_NOTE =
  "Structured output: instead of the XML document, reply with one JSON object of the given schema: " +
  "the keys goal, constraints, decisions, state and open_items, each a string holding that section's " +
  "plain text, without XML tags and without XML escapes (write &, < and > as they are); goal and state " +
  "must not be blank.";

/** The schema's keys, in section order. */
const SECTION_KEYS = ["goal", "constraints", "decisions", "state", "open_items"] as const;
type Texts = readonly [string, string, string, string, string];

const encoder = new TextEncoder();
const MAX_REQUEST_TOKENS = BigInt(Number.MAX_SAFE_INTEGER);
const STOPS: ReadonlySet<unknown> = new Set(["end", "length", null, undefined]);

function option<T>(value: T | null | undefined, fallback: T): T {
  return value === undefined || value === null ? fallback : value;
}

function nullable(value: U64 | null | undefined, what: string): bigint | null {
  return value === undefined || value === null ? null : u64(value, what);
}

function flag(value: unknown, fallback: boolean, what: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw new TypeError(`loopcompact: ${what} must be a boolean`);
  return value;
}

interface Reply {
  text: Bytes | null;
  outputTokens: bigint;
  stop: Stop;
  sections: Texts | null;
}

/** A reply's `sections` as the five texts in order; anything else is the host's error. */
function sectionTexts(value: unknown): Texts {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError("loopcompact: SummaryReply.sections must be an object of the five sections' texts");
  }
  const record = value as Record<string, unknown>;
  const hasCamel = "openItems" in record;
  if (hasCamel === "open_items" in record) {
    throw new TypeError("loopcompact: SummaryReply.sections must have openItems or open_items (one of the two)");
  }
  const texts = SECTION_KEYS.map((key) => {
    const text = record[key === "open_items" && hasCamel ? "openItems" : key];
    if (typeof text !== "string") throw new TypeError(`loopcompact: SummaryReply.sections.${key} must be a string`);
    return text;
  });
  return texts as unknown as Texts;
}

/** The reply `callModel` gave, checked for shape: anything else is the host's error, never a summary. */
function asReply(value: unknown): Reply {
  if (typeof value !== "object" || value === null) {
    const got = value === null ? "null" : typeof value;
    throw new TypeError(`loopcompact: callModel must return a SummaryReply { text, outputTokens, stop }, got ${got}`);
  }
  const { text, outputTokens, stop, sections } = value as Record<string, unknown>;
  const texts = sections === undefined || sections === null ? null : sectionTexts(sections);
  const bytes = texts !== null && (text === undefined || text === null) ? null : text;
  if (bytes !== null && typeof bytes !== "string" && !(bytes instanceof Uint8Array)) {
    throw new TypeError("loopcompact: SummaryReply.text must be a string or a Uint8Array (or left out with sections)");
  }
  let tokens: bigint;
  try {
    tokens = u64(outputTokens as U64, "outputTokens");
  } catch {
    throw new TypeError("loopcompact: SummaryReply.outputTokens must be a non-negative integer (0: none reported)");
  }
  if (!STOPS.has(stop)) throw new TypeError('loopcompact: SummaryReply.stop must be "end", "length" or null');
  return { text: bytes, outputTokens: tokens, stop: (stop ?? null) as Stop, sections: texts };
}

/** The name of what was thrown: its constructor's, never its message. */
function typeName(e: unknown): string {
  if (typeof e !== "object" || e === null) return typeof e;
  const name = (e as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && /^[\w$]{1,64}$/.test(name) ? name : "an object";
}

function reasonFor(status: StatusCode, attempts: number, exhausted: boolean): string {
  const message = statusText(status).message;
  if (status === Status.SUMMARY_TOKEN_USAGE) {
    return `${message} Turn usage reporting on (the reply's outputTokens) to compact.`;
  }
  if (exhausted) return `No valid summary in ${attempts} attempt${attempts === 1 ? "" : "s"}: ${message}`;
  return message;
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Runs one compaction round (SPEC R15.12) with `callModel` as the summariser, and resolves to
 * `Compacted` or `KeepHistory` (`result.kind`). Rejects only when `callModel` throws (unless
 * `onError: "keepHistory"`), returns something that is not a `SummaryReply` (`TypeError`), an option
 * is invalid, `onAttempt` throws, or the input was freed.
 *
 * A streaming `callModel` returns a `SummaryReplyStream` (SPEC T17.6): the round validates its
 * chunks as they arrive (past what `trim` and `unfence` would remove before the summary) and stops
 * reading at the first chunk after which the reply cannot pass, or once it is longer than
 * `maxReplyBytes`, cancelling the stream or returning its iterator. That attempt counts as any
 * other (`aborted: true`), with the diagnosis known when the reply died (offsets in the reply as
 * read) and, for its RETRY class, the retry message as the next turn. An exception of the stream or
 * of `usage` is one of `callModel`.
 */
export async function compact(input: Input, callModel: CallModel, options: CompactOptions = {}): Promise<CompactResult> {
  if (typeof callModel !== "function") throw new TypeError("loopcompact: callModel must be a function");
  if (typeof options !== "object" || options === null) throw new TypeError("loopcompact: compact's options must be an object");
  const keepLast = u64(option(options.keepLast, 0), "keepLast");
  const pendingTail = flag(options.pendingTail, true, "pendingTail");
  const attempts = option(options.attempts, 3);
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new RangeError(`loopcompact: attempts must be a positive integer, got ${attempts}`);
  }
  const budget = u64(option(options.maxInputBytes, U64_MAX), "maxInputBytes");
  const givenReplyBytes = nullable(options.maxReplyBytes, "maxReplyBytes");
  const givenTokens = nullable(options.maxTokens, "maxTokens");
  if (givenTokens === 0n) throw new RangeError("loopcompact: maxTokens must be at least 1");
  const trim = flag(options.trim, true, "trim");
  const unfence = flag(options.unfence, true, "unfence");
  const reshow = flag(options.reshowRejected, false, "reshowRejected");
  const onAttempt = option(options.onAttempt, null);
  if (onAttempt !== null && typeof onAttempt !== "function") throw new TypeError("loopcompact: onAttempt must be a function");
  const structured = flag(options.structured, false, "structured");
  const onError = option(options.onError, "throw");
  if (onError !== "throw" && onError !== "keepHistory") {
    throw new TypeError('loopcompact: onError must be "throw" or "keepHistory"');
  }

  const done: Attempt[] = [];
  const keep = (reason: string, status: StatusCode | null): KeepHistory =>
    Object.freeze({
      kind: "keepHistory",
      reason,
      status,
      attempts: Object.freeze([...done]),
      diagnoses: Object.freeze(done.map((a) => a.diagnosis)),
    });

  // 1. The cut and the head: nothing to summarise, or a transcript that fails S14.3, ends the round
  // before the model is called.
  let cut: number;
  let head: { text: string; bytes: number };
  try {
    cut = input.safeCut(keepLast, { pendingTail });
    head = inputInternals.headText(input, BigInt(cut), budget);
  } catch (e) {
    if (!(e instanceof LoopcompactError)) throw e;
    return keep(reasonFor(e.status, 0, false), e.status);
  }
  const maxSummary = input.maxSummaryTokens();
  const origin = inputInternals.origin(input);
  // R15.12 step 2: a smaller start than max_summary_tokens, never a larger one (as Python's
  // ValueError and Go's ErrInvalidOption).
  if (givenTokens !== null && givenTokens > maxSummary) {
    throw new RangeError(`loopcompact: maxTokens (${givenTokens}) is above the input's max_summary_tokens (${maxSummary})`);
  }
  let maxTokens = givenTokens ?? maxSummary;
  const maxReplyBytes = givenReplyBytes ?? maxBig(BigInt(SMALLEST_SUMMARY_LEN), minBig(16n * maxSummary, U64_MAX));
  // Step 1 with R15.2: below the smallest summary no reply can meet the limit; no request is sent.
  if (maxReplyBytes < BigInt(SMALLEST_SUMMARY_LEN)) {
    return keep(
      `maxReplyBytes (${maxReplyBytes}) is below the smallest valid summary (${SMALLEST_SUMMARY_LEN} bytes), so no reply can meet it; no request was sent`,
      Status.REPLY_BYTE_LIMIT_UNREACHABLE,
    );
  }
  const system = structured ? `${summaryInstructions()}\n\n${STRUCTURED_NOTE}` : summaryInstructions();
  const jsonSchema = structured ? summaryJsonSchema() : null;
  const turns: ChatTurn[] = []; // the two turns of each rejected attempt

  for (let number = 1; ; number++) {
    // 2. The request: the head, then the turns of the rejected attempts.
    const messages: ChatTurn[] = [Object.freeze({ role: "user" as const, content: head.text }), ...turns];
    const tokens = Number(minBig(maxTokens, MAX_REQUEST_TOKENS));
    const request: SummaryRequest = Object.freeze({ system, messages, maxTokens: tokens, attempt: number, jsonSchema });
    const sent: SummaryRequest = Object.freeze({ ...request, messages: Object.freeze([...messages]) as ChatTurn[] });
    let answer: unknown;
    try {
      answer = await callModel(request);
    } catch (e) {
      // 6. The SDK's own errors (after its retries) are the caller's, unless asked otherwise.
      if (onError === "keepHistory") return keep(`callModel threw ${typeName(e)}`, null);
      throw e;
    }
    // 3. The verdict on the reply as it arrived; a streamed one read until it ends or dies (T17.6;
    // a structured one, G17.10, read to its end), a reply with sections or a structured one
    // rendered first.
    const checks = { maxReplyBytes, trim, unfence };
    const verdictOf = (r: Reply) =>
      r.sections !== null || structured ? judgeStructured(input, r, checks, maxSummary) : judge(input, r as Reply & { text: Bytes }, checks);
    let reply: Reply;
    let verdict: Verdict;
    let aborted = false;
    if (isReplyStream(answer)) {
      const check = new ReplyStreamCheck({
        trim,
        unfence,
        maxReplyBytes,
        structured,
        overLimit: (received) => judge(input, { text: received, outputTokens: 0n, stop: null }, { maxReplyBytes, trim: false, unfence: false }).diagnosed,
      });
      let read: Aborted | { text: Uint8Array; usage: unknown } | CallerFailure;
      try {
        read = await readStream(answer, check);
      } finally {
        check.free();
      }
      if (read instanceof CallerFailure) {
        if (onError === "keepHistory") return keep(`callModel threw ${typeName(read.error)}`, null);
        throw read.error;
      }
      if ("diagnosed" in read) {
        aborted = true;
        reply = { text: read.received, outputTokens: 0n, stop: null, sections: null };
        verdict = { diagnosed: read.diagnosed, summary: null, replyBytes: read.replyBytes };
      } else {
        reply = asReply(usageReply(read.text, read.usage));
        verdict = verdictOf(reply);
      }
    } else {
      reply = asReply(answer);
      verdict = verdictOf(reply);
    }
    const { diagnosis } = verdict.diagnosed;
    const attempt: Attempt = Object.freeze({
      number,
      request: sent,
      replyBytes: verdict.replyBytes,
      stop: reply.stop,
      aborted,
      status: diagnosis.status,
      statusClass: diagnosis.statusClass,
      diagnosis,
      removed: Object.freeze({ flags: diagnosis.removed, before: diagnosis.removedBefore, after: diagnosis.removedAfter }),
    });
    done.push(attempt);
    // 7. The caller sees every attempt before the round decides.
    if (onAttempt !== null) await onAttempt(attempt);

    if (verdict.summary !== null) {
      let replacement: Uint8Array;
      try {
        replacement = input.buildReplacement(cut, verdict.summary);
      } catch (e) {
        if (!(e instanceof LoopcompactError)) throw e;
        return keep(reasonFor(e.status, number, false), e.status);
      }
      const summary = verdict.summary;
      return Object.freeze({
        kind: "compacted",
        summary,
        cut,
        replacement,
        attempts: Object.freeze([...done]),
        diagnoses: Object.freeze(done.map((a) => a.diagnosis)),
        messages: <M>(source: readonly M[] | string): M[] => sourceMessages(origin, cut, summary, source) as M[],
      });
    }
    // 5. Anything but RETRY ends the round, and so does the last attempt.
    if (diagnosis.statusClass !== StatusClass.RETRY) return keep(reasonFor(diagnosis.status, number, false), diagnosis.status);
    if (number >= attempts) return keep(reasonFor(diagnosis.status, number, true), diagnosis.status);

    // 4. A retry: the rejected reply (or the placeholder) and what was wrong with it.
    // A sections reply without text (or with an empty one) has nothing to show (G17.10 step 6).
    const noText = reply.text === null || (reply.sections !== null && reply.text.length === 0);
    const rejected = !reshow || noText ? WITHHELD : typeof reply.text === "string" ? reply.text : decodeText(reply.text as Uint8Array);
    const { diagnosis: d, raw } = verdict.diagnosed;
    const retry = retryMessageOf(raw, verdict.made ? { rule: d.rule, expected: d.expected } : undefined);
    turns.push(
      Object.freeze({ role: "assistant" as const, content: rejected }),
      Object.freeze({ role: "user" as const, content: structured ? `${retry}\n\n${STRUCTURED_NOTE}` : retry }),
    );
    if (diagnosis.status === Status.REPLY_TRUNCATED) {
      if (maxTokens < maxSummary) {
        maxTokens = minBig(2n * maxTokens, maxSummary);
      } else {
        // The token limit is at its ceiling: a smaller head leaves the model less to say.
        try {
          head = inputInternals.headText(input, BigInt(cut), (BigInt(head.bytes) * 3n) / 4n);
        } catch (e) {
          // Nothing smaller fits (LC_INPUT_TOO_LARGE): the head stays as it was.
          if (!(e instanceof LoopcompactError) || e.status !== Status.INPUT_TOO_LARGE) throw e;
        }
      }
    }
  }
}

/** An exception of the caller's code while a streamed reply was read (its iterator, `usage`). */
class CallerFailure {
  constructor(readonly error: unknown) {}
}

function isReplyStream(value: unknown): value is SummaryReplyStream {
  return typeof value === "object" && value !== null && "chunks" in value;
}

/** The reply a finished stream makes with what `usage()` returned. */
function usageReply(text: Uint8Array, usage: unknown): unknown {
  if (typeof usage !== "object" || usage === null) {
    throw new TypeError("loopcompact: SummaryReplyStream.usage must return { outputTokens, stop }");
  }
  const { outputTokens, stop } = usage as Record<string, unknown>;
  return { text, outputTokens, stop };
}

/**
 * Reads a streamed reply into `check` (SPEC T17.6): the bytes and what `usage()` returned, the
 * `Aborted` of the first chunk after which the reply cannot pass (the source then cancelled or
 * its iterator returned), or the caller's exception.
 */
async function readStream(
  reply: SummaryReplyStream,
  check: ReplyStreamCheck,
): Promise<Aborted | { text: Uint8Array; usage: unknown } | CallerFailure> {
  if (typeof reply.usage !== "function") throw new TypeError("loopcompact: SummaryReplyStream.usage must be a function");
  const chunks: unknown = reply.chunks;
  // The source as next() and stop(), whatever its kind.
  let next: () => Promise<IteratorResult<unknown>>;
  let stop: () => Promise<unknown>;
  let release = () => {};
  if (isReadableStream(chunks)) {
    const reader = chunks.getReader();
    next = async () => {
      const r = await reader.read();
      return r.done ? { done: true, value: undefined } : { done: false, value: r.value };
    };
    stop = () => reader.cancel();
    release = () => reader.releaseLock();
  } else if (typeof chunks === "object" && chunks !== null && Symbol.asyncIterator in chunks) {
    const it = (chunks as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    next = () => it.next();
    stop = async () => it.return?.();
  } else if (typeof chunks === "object" && chunks !== null && Symbol.iterator in chunks) {
    const it = (chunks as Iterable<unknown>)[Symbol.iterator]();
    next = async () => it.next();
    stop = async () => it.return?.();
  } else {
    throw new TypeError("loopcompact: SummaryReplyStream.chunks must be a ReadableStream, an async iterable or an iterable");
  }
  try {
    for (;;) {
      let step: IteratorResult<unknown>;
      try {
        step = await next();
      } catch (e) {
        return new CallerFailure(e);
      }
      if (step.done === true) break;
      let dead: Aborted | null;
      try {
        dead = check.add(step.value);
      } catch (e) {
        await stop().catch(() => undefined);
        throw e;
      }
      if (dead !== null) {
        try {
          await stop();
        } catch (e) {
          return new CallerFailure(e);
        }
        return dead;
      }
    }
  } finally {
    release();
  }
  try {
    return { text: check.received.slice(), usage: await reply.usage() };
  } catch (e) {
    return new CallerFailure(e);
  }
}

/** `Compacted.messages`: the source's own list, for an input made by `Conversion.input`. */
function sourceMessages(origin: Origin | null, cut: number, summary: string, source: unknown): unknown[] {
  if (origin === null) {
    throw new Error(
      "loopcompact: messages(source) needs an input made by conversion.input(...); " +
        "this one came from Input.parse (use replacement)",
    );
  }
  return rebuild(origin, cut, summary, source);
}

interface Verdict {
  diagnosed: Diagnosed;
  summary: string | null;
  replyBytes: number;
  /** The round made the diagnosis (G17.10), not the library: its strings go to `retryMessageOf`. */
  made?: boolean;
}

type Checks = { maxReplyBytes: bigint; trim: boolean; unfence: boolean };

/** The verdict on one reply: the library's, or `LC_ERR_PANIC` when the instance trapped. */
function judge(input: Input, reply: { text: Bytes; outputTokens: bigint; stop: Stop }, options: Checks): Verdict {
  try {
    const v = inputInternals.reply(input, reply.text, { outputTokens: reply.outputTokens, stop: reply.stop, ...options });
    return { diagnosed: v.diagnosed, summary: v.status === Status.OK ? v.summary : null, replyBytes: v.replyBytes };
  } catch (e) {
    // A trap (class BUG) is a verdict like any other (R15.12 step 5); its Input is gone with it.
    if (!(e instanceof LoopcompactError)) throw e;
    const bytes = typeof reply.text === "string" ? encoder.encode(reply.text).length : reply.text.length;
    return { diagnosed: diagnosedOf(e), summary: null, replyBytes: bytes };
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /\p{Surrogate}/u;

/** The five texts of a JSON text reply (G17.10 step 3), or the status of its failure. */
function readJson(text: Bytes): Texts | StatusCode {
  let value: unknown;
  try {
    // Bytes that are not UTF-8, or a string with a lone surrogate (which no body can hold), are
    // not a JSON text; nor is one nested deeper than the engine's parser goes (a RangeError).
    const source = typeof text === "string" ? text : strictUtf8.decode(text);
    if (LONE_SURROGATE.test(source)) return Status.SUMMARY_WIRE;
    value = JSON.parse(source);
  } catch {
    return Status.SUMMARY_WIRE;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Status.SUMMARY_OUTPUT_SHAPE;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== SECTION_KEYS.length || !SECTION_KEYS.every((key) => Object.hasOwn(record, key))) {
    return Status.SUMMARY_OUTPUT_SHAPE;
  }
  const texts = SECTION_KEYS.map((key) => record[key]);
  if (!texts.every((t) => typeof t === "string")) return Status.SUMMARY_OUTPUT_SHAPE;
  return texts as unknown as Texts;
}

const FILLER: Texts = [".", "", "", ".", ""];
const SECTION_OF = [Section.GOAL, Section.CONSTRAINTS, Section.DECISIONS, Section.STATE, Section.OPEN_ITEMS] as const;

function render(texts: Texts): string {
  const [goal, constraints, decisions, state, openItems] = texts;
  return renderSummary({ goal, constraints, decisions, state, openItems });
}

/**
 * The summary rendered from the five texts, or the diagnosis of the renderer's refusal (G17.10
 * step 4): its status, and the first section whose text alone it refuses so.
 */
function renderOrRefusal(texts: Texts): string | Diagnosed {
  let status: StatusCode;
  try {
    return render(texts);
  } catch (e) {
    if (!(e instanceof LoopcompactError)) throw e;
    status = e.status;
  }
  let section: Section = Section.NONE;
  for (let i = 0; i < texts.length; i++) {
    const alone = FILLER.map((filler, j) => (j === i ? (texts[i] as string) : filler)) as unknown as Texts;
    try {
      render(alone);
    } catch (e) {
      if (!(e instanceof LoopcompactError)) throw e;
      if (e.status === status) {
        section = SECTION_OF[i] as Section;
        break;
      }
    }
  }
  const expected = status === Status.SUMMARY_XML_CONTENT ? "non-blank text" : "";
  return madeDiagnosis(status, { section, rule: "G17.9", expected, location: "summary" });
}

/** G17.10 steps 2-5: the sections (or the JSON text) rendered, then checked by R15.3. */
function judgeStructured(input: Input, reply: Reply, checks: Checks, maxSummary: bigint): Verdict {
  let texts: Texts;
  let size: number | null = null;
  if (reply.sections !== null) {
    texts = reply.sections;
  } else {
    const text = reply.text as Bytes; // asReply: text or sections
    size = typeof text === "string" ? encoder.encode(text).length : text.length;
    const read = readJson(text);
    if (typeof read === "number") {
      const diagnosed =
        reply.stop === "length"
          ? madeDiagnosis(Status.REPLY_TRUNCATED, {
              rule: "R15.4",
              location: "summary",
              limit: maxSummary,
              actual: reply.outputTokens,
            })
          : madeDiagnosis(read, { rule: "G17.10", location: "summary" });
      return { diagnosed, summary: null, replyBytes: size, made: true };
    }
    texts = read;
  }
  const rendered = renderOrRefusal(texts);
  if (typeof rendered !== "string") return { diagnosed: rendered, summary: null, replyBytes: size ?? 0, made: true };
  const verdict = judge(input, { text: rendered, outputTokens: reply.outputTokens, stop: reply.stop }, checks);
  return size === null ? verdict : { ...verdict, replyBytes: size };
}
