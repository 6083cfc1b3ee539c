/**
 * The compaction input (`lc_compaction_input`, SPEC §5) and what is done with one: the summariser's
 * input (§7, R15.8), its reply (§6, R15.1-R15.7), transcript safety (S14.3, S14.4), and the
 * replacement of the history (R15.9-R15.11).
 */

import type { Ptr } from "./abi.js";
import { type U64, U64_MAX, boolean, u64 } from "./args.js";
import { type Bytes, copyBytes, decodeText, withBytes, withElements, withOutput } from "./buffers.js";
import { type Diagnosed, LoopcompactError, check, fail, liveRuntime, plainDiagnosis, readDiagnosis, releaseHandle, run, statusText } from "./errors.js";
import { CUT_PENDING_TAIL, type Format, LAYOUT, ReplyCleanup, Status, StopCode, type StatusCode } from "./generated.js";
import { type Runtime, handleFinalizer } from "./runtime.js";

/** Validates a compaction input wire document (SPEC §5) without keeping it. */
export function validateInput(wire: Bytes): void {
  run((rt) =>
    withBytes(rt, wire, "wire", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_compaction_input_diagnose(ptr, len, diag), diag);
    }),
  );
}

/**
 * How the summariser's call ended (SPEC R15.1): `"end"` (the model ended its reply: OpenAI `stop`,
 * Anthropic `end_turn`, Gemini `STOP`), `"length"` (the provider cut it at its output limit:
 * `length`, `max_tokens`, `MAX_TOKENS`), or `null` when not reported.
 */
export type Stop = "end" | "length" | null;

/** The options of `Input.validateReply` (SPEC R15.1). */
export interface ReplyOptions {
  /** The output tokens the provider reported for the call; 0 (none) is `LC_SUMMARY_TOKEN_USAGE`. */
  outputTokens: U64;
  /** How the call ended; `null` or left out when not reported. */
  stop?: Stop | undefined;
  /** The byte limit of the reply as it arrived; below `SMALLEST_SUMMARY_LEN` no reply can meet it. */
  maxReplyBytes: U64;
  /** Remove White_Space (X4.21) around the reply (default `false`). */
  trim?: boolean | undefined;
  /** Remove one Markdown code fence around the whole reply (default `false`). */
  unfence?: boolean | undefined;
}

/** @internal The verdict on a bare reply, with its diagnosis on `LC_OK` too (what cleanup removed). */
export interface ReplyVerdict {
  readonly status: StatusCode;
  readonly summary: string | null;
  readonly diagnosed: Diagnosed;
  /** The reply's length in bytes, as it arrived. */
  readonly replyBytes: number;
}

const STOPS = new Map<unknown, number>([
  ["end", StopCode.END],
  ["length", StopCode.LENGTH],
  [null, StopCode.UNKNOWN],
  [undefined, StopCode.UNKNOWN],
]);

const VIOLATION = LAYOUT.lc_violation;

const PAIRING: ReadonlySet<number> = new Set([
  Status.PAIRING_UNANSWERED_CALL,
  Status.PAIRING_ORPHAN_RESULT,
  Status.PAIRING_DUPLICATE_ID,
  Status.PAIRING_DUPLICATE_RESULT,
]);

function replyArguments(options: ReplyOptions): [tokens: bigint, stop: number, maxBytes: bigint, flags: number] {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("loopcompact: validateReply takes an options object { outputTokens, maxReplyBytes, ... }");
  }
  const tokens = u64(options.outputTokens, "outputTokens");
  const stop = STOPS.get(options.stop);
  if (stop === undefined) throw new TypeError('loopcompact: stop must be "end", "length" or null');
  const maxBytes = u64(options.maxReplyBytes, "maxReplyBytes");
  let flags = 0;
  if (options.trim !== undefined && boolean(options.trim, "trim")) flags |= ReplyCleanup.TRIM;
  if (options.unfence !== undefined && boolean(options.unfence, "unfence")) flags |= ReplyCleanup.UNFENCE;
  return [tokens, stop, maxBytes, flags];
}

// The safety net for an Input never freed.
const finalizer = handleFinalizer((rt, handle) => rt.x.lc_compaction_input_free(handle));

/**
 * @internal Where an Input made by `Conversion.input` came from: what `Compacted.messages` needs to
 * rebuild the source's own list, kept by value so that the conversion may be freed first.
 */
export interface Origin {
  readonly format: Format;
  /** The number of source messages (items): the length of the list `messages(source)` takes. */
  readonly sourceLength: number;
  /** For each wire cut `0..=n`, the source cut it maps to (`Conversion.sourceCut`); -1 where not allowed. */
  readonly sourceCuts: readonly number[];
}

/** @internal What the round and the converters need of an Input beyond its public methods (set by the class below). */
export const inputInternals = {} as {
  /** `validateReply` without throwing: the verdict and the diagnosis, on `LC_OK` too. */
  reply(input: Input, text: Bytes, options: ReplyOptions): ReplyVerdict;
  /** An Input around a handle of `rt` made by `lc_conversion_input`; `size`: its transcript's length. */
  adopt(rt: Runtime, handle: Ptr, origin: Origin, size: number): Input;
  /** The conversion an Input was made from; `null` for `Input.parse`. */
  origin(input: Input): Origin | null;
  /**
   * `encodeHeadWithin` as the text a request carries and its length in bytes, decoded straight
   * from the module's memory: the round needs no copy of the bytes.
   */
  headText(input: Input, cut: bigint, maxBytes: bigint): { text: string; bytes: number };
};

/**
 * A validated compaction input (`lc_compaction_input`), parsed from its wire document
 * (`Input.parse`) or made around a converted transcript (`Conversion.input`, which then cuts only
 * where the source's messages begin). Holds memory in the module: release it with `free()` or a
 * `using` declaration.
 */
export class Input {
  #rt: Runtime | null;
  readonly #handle: Ptr;
  readonly #token = {};
  readonly #origin: Origin | null;
  /** About the length of the input's encoding (its wire document's or transcript's): `encoded`'s guess. */
  readonly #size: number;

  static {
    inputInternals.reply = (input, text, options) => input.#reply(text, options);
    inputInternals.adopt = (rt, handle, origin, size) => new Input(rt, handle, size, origin);
    inputInternals.origin = (input) => input.#origin;
    inputInternals.headText = (input, cut, maxBytes) => input.#head(cut, maxBytes, (b) => ({ text: decodeText(b), bytes: b.length }));
  }

  private constructor(rt: Runtime, handle: Ptr, size: number, origin: Origin | null = null) {
    this.#rt = rt;
    this.#handle = handle;
    this.#size = size;
    this.#origin = origin;
    rt.live++;
    finalizer?.register(this, { rt, handle }, this.#token);
  }

  /** Decodes and validates a compaction input wire document (SPEC §5). */
  static parse(wire: Bytes): Input {
    return run((rt) =>
      withBytes(rt, wire, "wire", (ptr, len) => {
        const out = rt.wordPtr();
        const status = rt.x.lc_compaction_input_parse(ptr, len, out);
        // No diagnosing parse: the diagnosing validator gives the same status with the diagnosis.
        if (status !== Status.OK) fail(rt, status, (diag) => rt.x.lc_compaction_input_diagnose(ptr, len, diag));
        return new Input(rt, rt.word(), len);
      }),
    );
  }

  /** Whether `free()` was called. */
  get freed(): boolean {
    return this.#rt === null;
  }

  #live(): Runtime {
    return liveRuntime(this.#rt, "Input");
  }

  /** Runs `body` with the instance and the handle, inside the trap handling. */
  #with<T>(body: (rt: Runtime, handle: Ptr) => T): T {
    const handle = this.#handle;
    return run((rt) => body(rt, handle), this.#live());
  }

  /**
   * The exact bytes to send to the summariser: the canonical encoding of the input, with old tool
   * results stubbed oldest first when needed to fit `maxBytes` (SPEC §7). Throws `LC_INPUT_TOO_LARGE`
   * when nothing fits (always for 0).
   */
  encodeWithin(maxBytes: U64): Uint8Array {
    const max = u64(maxBytes, "maxBytes");
    return this.#with((rt, handle) =>
      encoded(rt, max, this.#size, (buf, cap, len) => rt.x.lc_compaction_input_encode_within(handle, max, buf, cap, len), copyBytes),
    );
  }

  /**
   * What the summariser is given for a cut (SPEC R15.8): this input with only messages `[0, cut)`
   * as its transcript, fitted under `maxBytes` as `encodeWithin` fits the whole input. Throws
   * `LC_REPLACEMENT_EMPTY_HEAD` when only leading system messages (or none) come before the cut,
   * `LC_INPUT_TOO_LARGE`, or `LC_ERR_INVALID_ARGUMENT` for a cut past the last message.
   */
  encodeHeadWithin(cut: U64, maxBytes: U64): Uint8Array {
    return this.#head(u64(cut, "cut"), u64(maxBytes, "maxBytes"), copyBytes);
  }

  /** `encodeHeadWithin`, its bytes given to `read` while they are in the module's memory. */
  #head<T>(at: bigint, max: bigint, read: (bytes: Uint8Array) => T): T {
    return this.#with((rt, handle) =>
      encoded(rt, max, this.#size, (buf, cap, len) => rt.x.lc_compaction_input_encode_head_within(handle, at, max, buf, cap, len), read),
    );
  }

  /**
   * Validates the summariser's reply in the reference's JSON envelope against this input (SPEC §6)
   * and returns the summary XML, the exact text of the replacement user message. `outputTokens`:
   * the output usage the provider reported (0: none); `maxOutputBytes`: the byte limit of the reply
   * (0 rejects every reply). For the model's own text, see `validateReply`.
   */
  validateOutput(output: Bytes, outputTokens: U64, maxOutputBytes: U64): string {
    const tokens = u64(outputTokens, "outputTokens");
    const maxBytes = u64(maxOutputBytes, "maxOutputBytes");
    return this.#with((rt, handle) =>
      withBytes(rt, output, "output", (ptr, len) => {
        const diag = rt.diag();
        // O6.4: the summary is never longer than the reply, so a buffer of its length suffices.
        const [status, summary] = withOutput(
          rt,
          len,
          (buf, cap, outLen) => rt.x.lc_compaction_output_diagnose(handle, ptr, len, tokens, maxBytes, buf, cap, outLen, diag),
          decodeText,
        );
        check(rt, status, diag);
        return summary ?? "";
      }),
    );
  }

  /**
   * Validates the summariser's reply as it arrived, the XML the instructions ask for with no
   * envelope (SPEC R15.1-R15.7), and returns the summary: the reply without what cleanup removed,
   * the exact text of the replacement user message. Throws `LoopcompactError` with the diagnosis
   * (offsets count bytes of the reply as it arrived; `removed`, `removedBefore`, `removedAfter` say
   * what cleanup removed). A `stop` of `"length"` turns a reply that is not a valid summary into
   * `LC_REPLY_TRUNCATED`. A string is encoded as UTF-8 (a lone surrogate becomes U+FFFD, as in every
   * document and every host).
   */
  validateReply(text: Bytes, options: ReplyOptions): string {
    const verdict = this.#reply(text, options);
    if (verdict.status !== Status.OK) throw new LoopcompactError(verdict.diagnosed);
    return verdict.summary ?? "";
  }

  #reply(text: Bytes, options: ReplyOptions): ReplyVerdict {
    const [tokens, stop, maxBytes, flags] = replyArguments(options);
    return this.#with((rt, handle) =>
      withBytes(rt, text, "text", (ptr, len) => {
        const diag = rt.diag();
        // R15.6: the summary is never longer than the reply.
        const [status, summary] = withOutput(
          rt,
          len,
          (buf, cap, outLen) =>
            rt.x.lc_compaction_reply_diagnose(handle, ptr, len, tokens, stop, maxBytes, flags, buf, cap, outLen, diag),
          decodeText,
        );
        return { status: status as StatusCode, summary, diagnosed: readDiagnosis(rt, diag), replyBytes: len };
      }),
    );
  }

  /** The number of transcript messages, `n` (cuts run from 0 to `n`): `lc_compaction_input_message_count`. */
  messageCount(): number {
    return this.#with((rt, handle) => counted(rt, (out) => rt.x.lc_compaction_input_message_count(handle, out)));
  }

  /** The input's `max_summary_tokens`, the summariser's output budget (R15.3). */
  maxSummaryTokens(): bigint {
    return this.#with((rt, handle) => {
      const out = rt.wordPtr();
      check(rt, rt.x.lc_compaction_input_max_summary_tokens(handle, out), null);
      return rt.dv().getBigUint64(out, true);
    });
  }

  /**
   * The number of leading system messages (R15.8): the replacement keeps them, and a cut at or
   * below it has nothing to summarise.
   */
  leadingSystems(): number {
    return this.#with((rt, handle) => counted(rt, (out) => rt.x.lc_compaction_input_leading_systems(handle, out)));
  }

  /**
   * Checks the tool-call pairing of the transcript (SPEC S14.3): every call answered once, after it
   * and before the next assistant message; no orphan result; no id twice. Throws at the first
   * violation (`location` `transcript[i].blocks[j]` or `transcript[i].tool_use_id`).
   */
  pairingCheck(): void {
    this.#with((rt, handle) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_transcript_pairing_check(handle, diag), diag);
    });
  }

  /**
   * The largest message index `c <= n - keepLast` such that messages `[0, c)` can be summarised and
   * `[c, n)` kept without splitting a tool call from its result (SPEC S14.4), at an allowed cut
   * (`options.allowed`, and for an Input made by `Conversion.input` where a source message begins);
   * 0 when there is none, which the caller must handle. A pending tail (the last assistant
   * message's calls not answered yet: a tool is running) does not stop it: the cut stays at or
   * before that message (G16.13; `{ pendingTail: false }` gives §14's verdict). Throws the pairing
   * check's error when the transcript fails S14.3 otherwise.
   */
  safeCut(keepLast: U64, options: CutOptions = {}): number {
    const keep = u64(keepLast, "keepLast");
    const [flags, allowed] = cutArguments(options);
    return this.#with((rt, handle) =>
      withBytes(rt, allowed, "allowed", (ptr, len) => {
        const out = rt.wordPtr();
        const status = rt.x.lc_transcript_safe_cut_with(handle, keep, flags, ptr, len, out);
        if (status !== Status.OK) pairingFailure(rt, handle, status);
        // A message index: below the message count, which a wasm32 memory bounds far below 2^53.
        return Number(rt.dv().getBigUint64(out, true));
      }),
    );
  }

  /**
   * Checks that summarising messages `[0, cut)` and keeping `[cut, n)` splits no tool call/result
   * pair (SPEC S14.4) and is an allowed cut (`options.allowed`; for an Input made by
   * `Conversion.input`, no source message is split). With a pending tail (G16.13, the default), a
   * cut at or before the last assistant message that splits no pair passes. Throws
   * `LC_CUT_UNSAFE`, a pairing status, or `LC_ERR_INVALID_ARGUMENT` for a cut past the last message.
   */
  cutCheck(cut: U64, options: CutOptions = {}): void {
    const at = u64(cut, "cut");
    const [flags, allowed] = cutArguments(options);
    this.#with((rt, handle) =>
      withBytes(rt, allowed, "allowed", (ptr, len) => {
        const status = rt.x.lc_transcript_cut_check_with(handle, at, flags, ptr, len);
        if (status !== Status.OK) pairingFailure(rt, handle, status);
      }),
    );
  }

  /**
   * Every S14.3 violation of the transcript, in transcript order (SPEC G16.14; `[]` for a
   * well-paired transcript): each `{ message, block, offset, status, name }`, `block` `null` for a
   * `tool` message's own `tool_use_id`, `offset` the id's place in the input document. The first is
   * the one `pairingCheck` throws.
   */
  pairingViolations(): Violation[] {
    return this.#with((rt, handle) => {
      const [status, list] = withElements(rt, VIOLATION.size, (out, cap, len) =>
        rt.x.lc_transcript_pairing_violations(handle, out, cap, len),
      );
      check(rt, status, null);
      const bytes = list ?? new Uint8Array(0);
      const dv = new DataView(bytes.buffer);
      const f = VIOLATION.fields;
      const out: Violation[] = [];
      for (let at = 0; at < bytes.length; at += VIOLATION.size) {
        const block = dv.getBigUint64(at + f.block, true);
        const status = dv.getInt32(at + f.status, true) as StatusCode;
        out.push(
          Object.freeze({
            message: Number(dv.getBigUint64(at + f.message, true)),
            block: block === U64_MAX ? null : Number(block),
            offset: Number(dv.getBigUint64(at + f.offset, true)),
            status,
            name: statusText(status).name,
          }),
        );
      }
      return out;
    });
  }

  /**
   * The edits that make the transcript pass S14.3 (SPEC G16.15), never applied on their own: the
   * library's JSON plan, parsed: `{ action: "drop_result", message, block }` (an orphan or second
   * result; `block` `null`: the whole `tool` message) and `{ action: "add_result", before,
   * call_message, call_block, tool_use_id, text }` (a synthetic error result for a call whose result
   * was lost, inserted before message `before`). With a pending tail (the default), its calls get
   * no result. `[]` for a well-paired transcript. Throws `LC_PAIRING_DUPLICATE_ID` when a call id
   * repeats: no repair without changing an assistant message, which may be signed.
   */
  repairPlan(options: RepairOptions = {}): RepairEdit[] {
    const flags = repairFlags(options);
    return this.#with((rt, handle) => {
      const [status, plan] = withOutput(
        rt,
        256,
        (buf, cap, len) => rt.x.lc_transcript_repair_plan(handle, flags, buf, cap, len),
        decodeText,
      );
      check(rt, status, null);
      return JSON.parse(plan ?? "[]") as RepairEdit[];
    });
  }

  /**
   * The transcript with `repairPlan(options)` applied (SPEC G16.15): a JSON array of wire messages
   * in canonical bytes that passes S14.3 (or has only a pending tail): parse it into a new Input to
   * go on. Throws as `repairPlan`.
   */
  repair(options: RepairOptions = {}): Uint8Array {
    const flags = repairFlags(options);
    return this.#with((rt, handle) => {
      const [status, bytes] = withOutput(
        rt,
        0,
        (buf, cap, len) => rt.x.lc_transcript_repair(handle, flags, buf, cap, len),
        copyBytes,
      );
      check(rt, status, null);
      return bytes ?? new Uint8Array(0);
    });
  }

  /**
   * The transcript that replaces the history once `summary` was accepted (SPEC R15.9): a JSON array
   * of wire messages in canonical bytes: the leading system messages, one user message whose first
   * block is the summary (followed by the blocks of message `cut` when that is a user message, so
   * that two user messages never meet), then messages `[cut, n)` unchanged. Throws, in this order,
   * `LC_ERR_INVALID_ARGUMENT`, `LC_REPLACEMENT_EMPTY_HEAD`, a pairing status or `LC_CUT_UNSAFE`,
   * `LC_REPLACEMENT_SUMMARY` (a summary that does not validate).
   */
  buildReplacement(cut: U64, summary: Bytes): Uint8Array {
    const at = u64(cut, "cut");
    return this.#with((rt, handle) =>
      withBytes(rt, summary, "summary", (ptr, len) => {
        // The replacement is at most the kept messages and the summary, escaped (up to six bytes
        // per character of the summary's markup, E7.6).
        const [status, bytes] = withOutput(
          rt,
          outputGuess(this.#size + 6 * len),
          (buf, cap, outLen) => rt.x.lc_replacement_build(handle, at, ptr, len, buf, cap, outLen),
          copyBytes,
        );
        if (status !== Status.OK) pairingFailure(rt, handle, status);
        return bytes ?? new Uint8Array(0);
      }),
    );
  }

  /**
   * Checks a transcript the host rebuilt itself (a JSON array of wire messages, any key order and
   * whitespace) against the rule of `buildReplacement` for this cut (SPEC R15.11): the leading system
   * messages and the kept tail unchanged in canonical encoding (thinking blocks, signatures and
   * provider state included), one summary message that validates, no user message after it.
   * Throws with `location` the first differing message and block of `rebuilt`
   * (`transcript[i].blocks[j]`), never their bytes.
   */
  verifyReplacement(cut: U64, rebuilt: Bytes): void {
    const at = u64(cut, "cut");
    this.#with((rt, handle) =>
      withBytes(rt, rebuilt, "rebuilt", (ptr, len) => {
        const diag = rt.diag();
        check(rt, rt.x.lc_replacement_verify(handle, at, ptr, len, diag), diag);
      }),
    );
  }

  /** Releases the handle (idempotent). The Input cannot be used afterwards. */
  free(): void {
    const rt = this.#rt;
    this.#rt = null;
    releaseHandle(rt, this.#token, finalizer, (rt) => rt.x.lc_compaction_input_free(this.#handle));
  }

  /** `free()`, for `using input = Input.parse(wire)`. */
  [Symbol.dispose](): void {
    this.free();
  }
}

/** The options of `Input.safeCut` and `Input.cutCheck` (SPEC G16.13, G16.16). */
export interface CutOptions {
  /**
   * Cut before a pending tail, the last assistant message whose calls are not answered yet (a tool
   * is running), instead of refusing the transcript (default `true`, G16.13); `false` gives §14's
   * verdict.
   */
  pendingTail?: boolean | undefined;
  /** The cuts allowed: `n + 1` booleans (a conversion's `cutAllowed`); default: every cut. */
  allowed?: readonly boolean[] | null | undefined;
}

/** The options of `Input.repairPlan` and `Input.repair` (SPEC G16.15). */
export interface RepairOptions {
  /** Leave a pending tail's calls without a result (default `true`): their tool is still running. */
  pendingTail?: boolean | undefined;
}

/** One S14.3 violation (SPEC G16.14). */
export interface Violation {
  /** The message. */
  readonly message: number;
  /** The top-level block; `null` for a `tool` message's own `tool_use_id`. */
  readonly block: number | null;
  /** Offset of the id's string body in the input document. */
  readonly offset: number;
  /** `Status.PAIRING_UNANSWERED_CALL`, `PAIRING_ORPHAN_RESULT`, `PAIRING_DUPLICATE_ID` or `PAIRING_DUPLICATE_RESULT`. */
  readonly status: StatusCode;
  /** The status's name, e.g. `"LC_PAIRING_UNANSWERED_CALL"`. */
  readonly name: string;
}

/** One edit of a repair plan (SPEC G16.15), as the library's JSON plan spells it. */
export type RepairEdit =
  | {
      /** Drop an orphan result or a second result. */
      readonly action: "drop_result";
      readonly message: number;
      /** The result block; `null`: the whole `tool` message. */
      readonly block: number | null;
    }
  | {
      /** Add a synthetic error result for a call whose result was lost. */
      readonly action: "add_result";
      /** The index (in the transcript before the plan) the new `tool` message goes before; `n`: at the end. */
      readonly before: number;
      readonly call_message: number;
      readonly call_block: number;
      readonly tool_use_id: string;
      /** The fixed text of the synthetic result. */
      readonly text: string;
    };

function cutArguments(options: CutOptions): [flags: number, allowed: Uint8Array] {
  if (typeof options !== "object" || options === null) throw new TypeError("loopcompact: the cut options must be an object");
  const flags = options.pendingTail === undefined || boolean(options.pendingTail, "pendingTail") ? CUT_PENDING_TAIL : 0;
  const allowed = options.allowed ?? null;
  if (allowed === null) return [flags, new Uint8Array(0)];
  if (!Array.isArray(allowed) || allowed.some((a) => typeof a !== "boolean")) {
    throw new TypeError("loopcompact: allowed must be n + 1 booleans (a conversion's cutAllowed)");
  }
  // G16.16: a list of another length is the library's LC_ERR_INVALID_ARGUMENT; an empty one too
  // (it is not the absence of a list), which the library cannot be shown: the package passes
  // empty bytes as NULL.
  if (allowed.length === 0) throw new LoopcompactError(plainDiagnosis(Status.ERR_INVALID_ARGUMENT));
  return [flags, Uint8Array.from(allowed, (a) => (a ? 1 : 0))];
}

function repairFlags(options: RepairOptions): number {
  if (typeof options !== "object" || options === null) throw new TypeError("loopcompact: the repair options must be an object");
  return options.pendingTail === undefined || boolean(options.pendingTail, "pendingTail") ? CUT_PENDING_TAIL : 0;
}

/** A count written by `call` to a `uint64_t` (a message index: a wasm32 memory bounds it far below 2^53). */
function counted(rt: Runtime, call: (out: Ptr) => number): number {
  const out = rt.wordPtr();
  check(rt, call(out), null);
  return Number(rt.dv().getBigUint64(out, true));
}

/** The two-call pattern of the encoders: `read` of the bytes, or the status thrown. */
function encoded<T>(
  rt: Runtime,
  max: bigint,
  size: number,
  call: (buf: Ptr, cap: number, outLen: Ptr) => number,
  read: (bytes: Uint8Array) => T,
): T {
  const guess = outputGuess(size);
  const [status, value] = withOutput(rt, BigInt(guess) < max ? guess : Number(max), call, read);
  check(rt, status, null);
  // withOutput reads the bytes on LC_OK only, and check threw for any other status.
  return value as T;
}

/**
 * A first buffer for the canonical encoding of a document of about `size` bytes, which saves the
 * size query (about half the call) when the bytes fit. The encoding is rarely longer (E7.6 writes
 * `<`, `>` and `&` in six bytes, but drops whitespace and writes the `\u` escapes of other
 * characters as UTF-8): a little room, and a document that grows more gets the exact size on the
 * second call, as with no guess.
 */
function outputGuess(size: number): number {
  return size + Math.floor(size / 128) + 4096;
}

/** Throws `status`, with the pairing check's diagnosis when it is a pairing status (S14.4). */
function pairingFailure(rt: Runtime, handle: Ptr, status: number): never {
  if (PAIRING.has(status)) fail(rt, status, (diag) => rt.x.lc_transcript_pairing_check(handle, diag));
  throw new LoopcompactError(plainDiagnosis(status as StatusCode));
}
