/**
 * The compaction input (`lc_compaction_input`, SPEC §5) and what is done with one: the summariser's
 * input (§7) and its reply (§6).
 */

import type { Ptr } from "./abi.js";
import { type U64, u64 } from "./args.js";
import { type Bytes, copyBytes, decodeText, withBytes, withOutput } from "./buffers.js";
import { check, fail, run } from "./errors.js";
import { Status } from "./generated.js";
import { type Runtime, isCurrent } from "./runtime.js";

/** Validates a compaction input wire document (SPEC §5) without keeping it. */
export function validateInput(wire: Bytes): void {
  run((rt) =>
    withBytes(rt, wire, "wire", (ptr, len) => {
      const diag = rt.diag();
      check(rt, rt.x.lc_compaction_input_diagnose(ptr, len, diag), diag);
    }),
  );
}

interface Held {
  rt: Runtime;
  handle: Ptr;
}

// The safety net for an Input never freed. A handle of a retired instance is left alone.
const finalizer =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry<Held>(({ rt, handle }) => {
        if (rt.broken || !isCurrent(rt)) return;
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
      encoded(rt, max, (buf, cap, len) => rt.x.lc_compaction_input_encode_within(handle, max, buf, cap, len)),
    );
  }

  /**
   * Validates the summariser's reply in the reference's JSON envelope against this input (SPEC §6)
   * and returns the summary XML, the exact text of the replacement user message. `outputTokens`:
   * the output usage the provider reported (0: none); `maxOutputBytes`: the byte limit of the reply
   * (0 rejects every reply).
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

  /** Releases the handle (idempotent). The Input cannot be used afterwards. */
  free(): void {
    const rt = this.#rt;
    if (rt === null) return;
    this.#rt = null;
    finalizer?.unregister(this.#token);
    if (!rt.broken) run((rt) => rt.x.lc_compaction_input_free(this.#handle), rt);
  }

  /** `free()`, for `using input = Input.parse(wire)`. */
  [Symbol.dispose](): void {
    this.free();
  }
}

/** The two-call pattern of the encoders: the bytes, or the status thrown. */
function encoded(rt: Runtime, max: bigint, call: (buf: Ptr, cap: number, outLen: Ptr) => number): Uint8Array {
  // The encoding is at most max bytes; a guess that usually holds it saves the second call.
  const guess = Number(max < 1n << 20n ? max : 1n << 20n);
  const [status, bytes] = withOutput(rt, guess, call, copyBytes);
  check(rt, status, null);
  return bytes ?? new Uint8Array(0);
}

