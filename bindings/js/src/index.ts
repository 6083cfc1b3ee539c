/// <reference lib="esnext.disposable" preserve="true" />
/**
 * loopcompact for JavaScript and TypeScript: the library's C ABI, compiled to WebAssembly, behind a
 * small hand-written loader. The contract is docs/SPEC.md of the repository ("SPEC §N").
 *
 * The same module runs in Node 20+, browsers, workers and edge runtimes. In Node, importing the
 * package loads the module from the installed file; elsewhere call `await init()` once first (it
 * fetches `loopcompact.wasm` beside this file), or `init(urlOrBytesOrModule)`.
 *
 * Documents go in as `string` (encoded as UTF-8; a lone surrogate becomes U+FFFD, in every
 * document and reply, as in every host) or `Uint8Array` (the exact bytes). Every rejection
 * throws a `LoopcompactError` with the status, its name, reason, class and the diagnosis of SPEC §13
 * (offset, line, column, section, rule, location, limit and actual value) computed by the library's
 * `_diagnose` functions.
 *
 * Memory: each call copies its inputs into the module's linear memory (a string is encoded there
 * directly, in about its UTF-8 size) and frees them before it returns. A WebAssembly memory cannot
 * shrink: after a call that left it above 16 MiB, the instance is replaced by a fresh one when no
 * `Input` or `Conversion` is alive, so that the memory of a large document is given back. The two
 * objects that hold memory are `Input` and `Conversion`: call `free()` (or `using`, through
 * `Symbol.dispose`); a garbage-collected one is freed as a safety net.
 *
 * Panics: the WebAssembly build aborts on a panic (wasm32-unknown-unknown cannot unwind), which the
 * host sees as a trap. A trap is reported as `LoopcompactError` with status `LC_ERR_PANIC` (99),
 * the instance is dropped and a fresh one is created on the next call; `Input`s of the old
 * instance are gone (their methods throw).
 *
 * The modules, each over the ones before it: generated (the header's constants and struct layouts),
 * abi (the module's exports and the name table), runtime (loading, the instance), buffers (documents
 * in, results out), args (integer arguments), errors (statuses, diagnoses, traps), status (meta),
 * summary, policies (policies, limits, loop guard), fingerprint, input (the compaction input, its
 * reply, transcript safety, the replacement), source (host objects as the converters' JSON),
 * convert (the converters of §16 and `Conversion`), messages (the source's own list after a round),
 * round (`compact`).
 */

import { NAME_TABLE } from "./abi.js";
import { HEADER_VERSION } from "./generated.js";
import { run } from "./errors.js";
import { runtime } from "./runtime.js";
import { fastJson, writeJson } from "./source.js";

export {
  ABI_VERSION,
  CounterQuality,
  FINGERPRINT_LEN,
  Format,
  LossCode,
  PressureLevel,
  ReplyCleanup,
  SMALLEST_SUMMARY_LEN,
  Section,
  Status,
  StatusClass,
  type StatusCode,
} from "./generated.js";
export { init, initSync, type InitSource } from "./runtime.js";
export type { Bytes } from "./buffers.js";
export type { U64 } from "./args.js";
export { LoopcompactError, type Diagnosis } from "./errors.js";
export { abiVersion, statusClass, statusMessage, statusName, statusReason, version } from "./status.js";
export {
  renderSummary,
  summaryGrammar,
  summaryInstructions,
  summaryJsonSchema,
  summarySectionText,
  summarySections,
  validateSummary,
  type GrammarKind,
  type SectionSpan,
  type Sections,
} from "./summary.js";
export { SummaryStream, validateSummaryStream, type ChunkSource, type ReadableStreamLike } from "./stream.js";
export {
  compactionProgressCheck,
  compactionThresholdCheck,
  occupancyBasisPoints,
  pressureLevel,
  replacementCheck,
  resolveContextLimits,
  validateCompactionPolicy,
  validateContextConfig,
  validateContextObservation,
  type ContextLimits,
  type ResolvedLimits,
} from "./policies.js";
export { requestFingerprint, type Fingerprint } from "./fingerprint.js";
export {
  Input,
  validateInput,
  type CutOptions,
  type RepairEdit,
  type RepairOptions,
  type ReplyOptions,
  type Stop,
  type Violation,
} from "./input.js";
export {
  Conversion,
  convert,
  fromAnthropic,
  fromGemini,
  fromModelMessages,
  fromOpenAIChat,
  fromOpenAIResponses,
  type AnthropicOptions,
  type ConversionInputOptions,
  type ConvertOptions,
  type GeminiOptions,
  type Loss,
  type ResponsesOptions,
} from "./convert.js";
export {
  STRUCTURED_NOTE,
  WITHHELD,
  compact,
  type Attempt,
  type CallModel,
  type ChatTurn,
  type CompactOptions,
  type CompactResult,
  type Compacted,
  type KeepHistory,
  type Removed,
  type ReplyChunk,
  type ReplySections,
  type SummaryReply,
  type SummaryReplyStream,
  type SummaryRequest,
  type SummaryUsage,
} from "./round.js";

/** @internal For the package's own tests: calls a raw export inside the trap handling. */
export const _internal = {
  call(name: string, ...args: unknown[]): unknown {
    return run((rt) => (rt.x as unknown as Record<string, (...a: unknown[]) => unknown>)[name]?.(...args));
  },
  headerVersion: HEADER_VERSION,
  /** For every function of the header: the public API that calls it, or through which sibling it is reached. */
  nameTable: NAME_TABLE,
  /** The current instance's memory size in bytes. */
  memoryBytes(): number {
    return runtime().memory.buffer.byteLength;
  },
  /** The two ways of src/source.ts to a source's JSON text: the fast one (`null` where it gives up) and the plain walk. */
  sourceJson: {
    fast: fastJson,
    plain(value: unknown, base = ""): string {
      const out: string[] = [];
      writeJson(out, value, base);
      return out.join("");
    },
  },
};
