/**
 * The module's exports as the package declares them (`Exports`), and the name table: for every
 * function of include/loopcompact.h, the public API that reaches it, or why none does. The package's
 * test `name table` checks the table against the header and the .wasm's export list; the type
 * checks at the end of this file make `tsc` refuse a table entry without a declaration, or a
 * declaration without a table entry.
 */

// wasm32: pointers and size_t are i32 (JS numbers), uint64_t is i64 (JS bigint), bool is i32.
// A struct argument passed by value (`lc_context_limits`) is passed as a pointer to a copy.
/** @internal An address in the instance's linear memory. */
export type Ptr = number;

/** @internal The raw exports of `loopcompact.wasm`: every function of the header, and the allocator. */
export interface Exports {
  memory: WebAssembly.Memory;
  // src/ffi/wasm.rs: the allocator the package copies documents through (not in the C header).
  lc_wasm_alloc(len: number): Ptr;
  lc_wasm_free(ptr: Ptr, len: number): void;
  lc_wasm_realloc(ptr: Ptr, len: number, newLen: number): Ptr;

  // meta
  lc_version(): Ptr;
  lc_abi_version(): number;
  lc_status_name(code: number): Ptr;
  lc_status_reason(code: number): Ptr;
  lc_status_message(code: number): Ptr;
  lc_status_class(code: number): number;
  lc_retry_message(diag: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;

  // summary (§4, C13.6-C13.8)
  lc_summary_xml_validate(xml: Ptr, len: number): number;
  lc_summary_xml_diagnose(xml: Ptr, len: number, diag: Ptr): number;
  lc_summary_instructions(): Ptr;
  lc_summary_sections(xml: Ptr, len: number, out: Ptr): number;
  lc_summary_section_text(xml: Ptr, len: number, section: number, buf: Ptr, cap: number, outLen: Ptr): number;

  // grammars, schema and renderer (§17.1, §17.2)
  lc_summary_grammar(kind: number): Ptr;
  lc_summary_json_schema(): Ptr;
  lc_summary_render(
    goal: Ptr,
    goalLen: number,
    constraints: Ptr,
    constraintsLen: number,
    decisions: Ptr,
    decisionsLen: number,
    state: Ptr,
    stateLen: number,
    openItems: Ptr,
    openItemsLen: number,
    buf: Ptr,
    cap: number,
    outLen: Ptr,
  ): number;

  // streaming validation (§17.3)
  lc_summary_stream_new(out: Ptr): number;
  lc_summary_stream_feed(stream: Ptr, chunk: Ptr, len: number): number;
  lc_summary_stream_feed_diagnose(stream: Ptr, chunk: Ptr, len: number, diag: Ptr): number;
  lc_summary_stream_finish(stream: Ptr): number;
  lc_summary_stream_finish_diagnose(stream: Ptr, diag: Ptr): number;
  lc_summary_stream_dead_offset(stream: Ptr): bigint;
  lc_summary_stream_free(stream: Ptr): void;

  // input (§5, §7) and output (§6)
  lc_compaction_input_parse(wire: Ptr, len: number, out: Ptr): number;
  lc_compaction_input_free(input: Ptr): void;
  lc_compaction_input_validate(wire: Ptr, len: number): number;
  lc_compaction_input_diagnose(wire: Ptr, len: number, diag: Ptr): number;
  lc_compaction_input_encode_within(input: Ptr, maxBytes: bigint, buf: Ptr, cap: number, outLen: Ptr): number;
  lc_compaction_output_validate(
    input: Ptr,
    output: Ptr,
    len: number,
    outputTokens: bigint,
    maxOutputBytes: bigint,
    buf: Ptr,
    cap: number,
    outLen: Ptr,
  ): number;
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

  // policies (§8)
  lc_compaction_policy_validate(json: Ptr, len: number, quality: number): number;
  lc_compaction_policy_diagnose(json: Ptr, len: number, quality: number, diag: Ptr): number;
  lc_context_observation_validate(json: Ptr, len: number, quality: number): number;
  lc_context_observation_diagnose(json: Ptr, len: number, quality: number, diag: Ptr): number;
  lc_context_config_validate(json: Ptr, len: number): number;
  lc_context_config_diagnose(json: Ptr, len: number, diag: Ptr): number;

  // limits (§9) and the loop guard (S14.5, S14.6)
  lc_context_limits_resolve(limits: Ptr, reservedOutput: bigint, safetyMargin: bigint, out: Ptr): number;
  lc_occupancy_basis_points(used: bigint, limit: bigint, out: Ptr): number;
  lc_pressure_level(previous: number, occupancy: number, automatic: number, compactAt: number, rearmBelow: number): number;
  lc_replacement_check(inputTokens: bigint, inputLimit: bigint): number;
  lc_compaction_progress_check(postInputTokens: bigint, inputLimit: bigint, rearmBelow: number): number;
  lc_compaction_threshold_check(policy: Ptr, len: number, inputLimit: bigint, fixedTokens: bigint): number;

  // fingerprint (§10)
  lc_request_fingerprint(json: Ptr, len: number, out: Ptr): number;
  lc_request_fingerprint_diagnose(json: Ptr, len: number, out: Ptr, diag: Ptr): number;

  // transcript safety (S14.3, S14.4)
  lc_transcript_pairing_check(input: Ptr, diag: Ptr): number;
  lc_transcript_safe_cut(input: Ptr, keepLast: bigint, outCut: Ptr): number;
  lc_transcript_cut_check(input: Ptr, cut: bigint): number;

  // the round (§15)
  lc_compaction_reply_validate(
    input: Ptr,
    reply: Ptr,
    len: number,
    outputTokens: bigint,
    stop: number,
    maxReplyBytes: bigint,
    flags: number,
    buf: Ptr,
    cap: number,
    outLen: Ptr,
  ): number;
  lc_compaction_reply_diagnose(
    input: Ptr,
    reply: Ptr,
    len: number,
    outputTokens: bigint,
    stop: number,
    maxReplyBytes: bigint,
    flags: number,
    buf: Ptr,
    cap: number,
    outLen: Ptr,
    diag: Ptr,
  ): number;
  lc_compaction_input_encode_head_within(input: Ptr, cut: bigint, maxBytes: bigint, buf: Ptr, cap: number, outLen: Ptr): number;
  lc_replacement_build(input: Ptr, cut: bigint, summary: Ptr, len: number, buf: Ptr, cap: number, outLen: Ptr): number;
  lc_replacement_verify(input: Ptr, cut: bigint, rebuilt: Ptr, len: number, diag: Ptr): number;

  // the input's counts (R15.8) and never-blocking transcript safety (§16.9)
  lc_compaction_input_message_count(input: Ptr, out: Ptr): number;
  lc_compaction_input_max_summary_tokens(input: Ptr, out: Ptr): number;
  lc_compaction_input_leading_systems(input: Ptr, out: Ptr): number;
  lc_transcript_safe_cut_with(input: Ptr, keepLast: bigint, flags: number, allowed: Ptr, allowedLen: number, outCut: Ptr): number;
  lc_transcript_cut_check_with(input: Ptr, cut: bigint, flags: number, allowed: Ptr, allowedLen: number): number;
  lc_transcript_pairing_violations(input: Ptr, out: Ptr, cap: number, outLen: Ptr): number;
  lc_transcript_repair_plan(input: Ptr, flags: number, buf: Ptr, cap: number, outLen: Ptr): number;
  lc_transcript_repair(input: Ptr, flags: number, buf: Ptr, cap: number, outLen: Ptr): number;

  // the converters (§16)
  lc_transcript_convert(format: number, src: Ptr, len: number, flags: number, out: Ptr, diag: Ptr): number;
  lc_conversion_free(conversion: Ptr): void;
  lc_conversion_transcript(conversion: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  lc_conversion_source_index(conversion: Ptr, out: Ptr, cap: number, outLen: Ptr): number;
  lc_conversion_cut_allowed(conversion: Ptr, out: Ptr, cap: number, outLen: Ptr): number;
  lc_conversion_losses(conversion: Ptr, out: Ptr, cap: number, outLen: Ptr): number;
  lc_conversion_source_cut(conversion: Ptr, wireCut: bigint, out: Ptr): number;
  lc_conversion_source_len(conversion: Ptr, out: Ptr): number;
  lc_loss_name(code: number): Ptr;
  lc_conversion_input(
    conversion: Ptr,
    provider: Ptr,
    providerLen: number,
    model: Ptr,
    modelLen: number,
    maxSummaryTokens: bigint,
    revision: bigint,
    fingerprint: Ptr,
    out: Ptr,
  ): number;
}

/** A header function the public API reaches only through another one, and why. */
interface Excluded {
  readonly via: keyof Exports;
  readonly why: string;
}

// The plain validators return, for every input, the status of their `_diagnose` sibling (SPEC
// C13.4); the package calls the sibling alone, which gives the diagnosis in the same call instead of
// a second pass over the document on failure.
const DIAGNOSING_SIBLING =
  "the package calls the diagnosing sibling, which returns the same status for every input (C13.4) " +
  "and fills the diagnosis in the same call";

// safeCut and cutCheck take the pending-tail flag and the allowed cuts, so they call the `_with`
// functions; with flags 0 and no list those are §14's functions (G16.13, property-tested in Rust).
const WITH_SIBLING =
  "safeCut(keepLast, { pendingTail: false }) and cutCheck(cut, { pendingTail: false }) call the _with sibling, " +
  "which with flags 0 and no allowed list is this function (SPEC G16.13)";

/**
 * @internal For every `lc_*` function of include/loopcompact.h: the public spelling that calls it
 * (`"Input.prototype.safeCut"` is the method `safeCut` of `Input`; a getter is named the same
 * way), or `{ via, why }` for a function reached through another.
 */
export const NAME_TABLE = {
  lc_version: "version",
  lc_abi_version: "abiVersion",
  lc_status_name: "statusName",
  lc_status_reason: "statusReason",
  lc_status_message: "statusMessage",
  lc_status_class: "statusClass",
  lc_retry_message: "LoopcompactError.prototype.retryMessage",

  lc_summary_xml_validate: { via: "lc_summary_xml_diagnose", why: DIAGNOSING_SIBLING },
  lc_summary_xml_diagnose: "validateSummary",
  lc_summary_instructions: "summaryInstructions",
  lc_summary_sections: "summarySections",
  lc_summary_section_text: "summarySectionText",
  lc_summary_grammar: "summaryGrammar",
  lc_summary_json_schema: "summaryJsonSchema",
  lc_summary_render: "renderSummary",

  // The plain feed and finish run first; the _diagnose siblings only once the stream is dead (an
  // empty feed) or finish failed, to read the diagnosis.
  lc_summary_stream_new: "SummaryStream",
  lc_summary_stream_feed: "SummaryStream.prototype.feed",
  lc_summary_stream_feed_diagnose: "SummaryStream.prototype.feed",
  lc_summary_stream_finish: "SummaryStream.prototype.finish",
  lc_summary_stream_finish_diagnose: "SummaryStream.prototype.finish",
  lc_summary_stream_dead_offset: "SummaryStream.prototype.deadOffset",
  lc_summary_stream_free: "SummaryStream.prototype.free",

  lc_compaction_input_parse: "Input.parse",
  lc_compaction_input_free: "Input.prototype.free",
  lc_compaction_input_validate: { via: "lc_compaction_input_diagnose", why: DIAGNOSING_SIBLING },
  lc_compaction_input_diagnose: "validateInput",
  lc_compaction_input_encode_within: "Input.prototype.encodeWithin",
  lc_compaction_output_validate: { via: "lc_compaction_output_diagnose", why: DIAGNOSING_SIBLING },
  lc_compaction_output_diagnose: "Input.prototype.validateOutput",

  lc_compaction_policy_validate: { via: "lc_compaction_policy_diagnose", why: DIAGNOSING_SIBLING },
  lc_compaction_policy_diagnose: "validateCompactionPolicy",
  lc_context_observation_validate: { via: "lc_context_observation_diagnose", why: DIAGNOSING_SIBLING },
  lc_context_observation_diagnose: "validateContextObservation",
  lc_context_config_validate: { via: "lc_context_config_diagnose", why: DIAGNOSING_SIBLING },
  lc_context_config_diagnose: "validateContextConfig",

  lc_context_limits_resolve: "resolveContextLimits",
  lc_occupancy_basis_points: "occupancyBasisPoints",
  lc_pressure_level: "pressureLevel",
  lc_replacement_check: "replacementCheck",
  lc_compaction_progress_check: "compactionProgressCheck",
  lc_compaction_threshold_check: "compactionThresholdCheck",

  lc_request_fingerprint: { via: "lc_request_fingerprint_diagnose", why: DIAGNOSING_SIBLING },
  lc_request_fingerprint_diagnose: "requestFingerprint",

  lc_transcript_pairing_check: "Input.prototype.pairingCheck",
  lc_transcript_safe_cut: { via: "lc_transcript_safe_cut_with", why: WITH_SIBLING },
  lc_transcript_cut_check: { via: "lc_transcript_cut_check_with", why: WITH_SIBLING },

  lc_compaction_reply_validate: { via: "lc_compaction_reply_diagnose", why: DIAGNOSING_SIBLING },
  lc_compaction_reply_diagnose: "Input.prototype.validateReply",
  lc_compaction_input_encode_head_within: "Input.prototype.encodeHeadWithin",
  lc_replacement_build: "Input.prototype.buildReplacement",
  lc_replacement_verify: "Input.prototype.verifyReplacement",

  lc_compaction_input_message_count: "Input.prototype.messageCount",
  lc_compaction_input_max_summary_tokens: "Input.prototype.maxSummaryTokens",
  lc_compaction_input_leading_systems: "Input.prototype.leadingSystems",
  lc_transcript_safe_cut_with: "Input.prototype.safeCut",
  lc_transcript_cut_check_with: "Input.prototype.cutCheck",
  lc_transcript_pairing_violations: "Input.prototype.pairingViolations",
  lc_transcript_repair_plan: "Input.prototype.repairPlan",
  lc_transcript_repair: "Input.prototype.repair",

  // A conversion's transcript, source indices, allowed cuts and losses (with their names) are read
  // once, when it is made: `fromModelMessages`, `fromOpenAIChat`, ... all go through `convert`.
  lc_transcript_convert: "convert",
  lc_conversion_free: "Conversion.prototype.free",
  lc_conversion_transcript: "convert",
  lc_conversion_source_index: "convert",
  lc_conversion_cut_allowed: "convert",
  lc_conversion_losses: "convert",
  lc_conversion_source_cut: "Conversion.prototype.sourceCut",
  lc_conversion_source_len: "Conversion.prototype.sourceLength",
  lc_loss_name: "convert",
  lc_conversion_input: "Conversion.prototype.input",
} as const satisfies Record<string, string | Excluded>;

// The table and the declarations name the same functions: `tsc` reports the name that is missing
// from either side ("Type 'true' is not assignable to type '"lc_..."'").
type Declared = Exclude<keyof Exports, "memory" | "lc_wasm_alloc" | "lc_wasm_free" | "lc_wasm_realloc">;
type Missing<A, B> = [Exclude<A, B>] extends [never] ? true : Exclude<A, B>;
/** @internal */
export const TABLE_COVERS_EXPORTS: [Missing<Declared, keyof typeof NAME_TABLE>, Missing<keyof typeof NAME_TABLE, Declared>] = [
  true,
  true,
];
