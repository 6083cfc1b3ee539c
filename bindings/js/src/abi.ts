/** The module's exports as the package declares them: the functions it calls, and the allocator. */

// wasm32: pointers and size_t are i32 (JS numbers), uint64_t is i64 (JS bigint), bool is i32.
// A struct argument passed by value (`lc_context_limits`) is passed as a pointer to a copy.
/** @internal An address in the instance's linear memory. */
export type Ptr = number;

/** @internal The raw exports of `loopcompact.wasm` the package calls. */
export interface Exports {
  memory: WebAssembly.Memory;
  // src/ffi/wasm.rs: the allocator the package copies documents through (not in the C header).
  lc_wasm_alloc(len: number): Ptr;
  lc_wasm_free(ptr: Ptr, len: number): void;

  // meta
  lc_version(): Ptr;
  lc_abi_version(): number;
  lc_status_name(code: number): Ptr;
  lc_status_reason(code: number): Ptr;
  lc_status_message(code: number): Ptr;
  lc_status_class(code: number): number;
  lc_retry_message(diag: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;

  // summary (§4, C13.6-C13.8)
  lc_summary_xml_diagnose(xml: Ptr, len: number, diag: Ptr): number;
  lc_summary_instructions(): Ptr;
  lc_summary_sections(xml: Ptr, len: number, out: Ptr): number;
  lc_summary_section_text(xml: Ptr, len: number, section: number, buf: Ptr, cap: number, outLen: Ptr): number;

  // input (§5, §7) and output (§6)
  lc_compaction_input_parse(wire: Ptr, len: number, out: Ptr): number;
  lc_compaction_input_free(input: Ptr): void;
  lc_compaction_input_diagnose(wire: Ptr, len: number, diag: Ptr): number;
  lc_compaction_input_encode_within(input: Ptr, maxBytes: bigint, buf: Ptr, cap: number, outLen: Ptr): number;
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
  lc_compaction_policy_diagnose(json: Ptr, len: number, quality: number, diag: Ptr): number;
  lc_context_observation_diagnose(json: Ptr, len: number, quality: number, diag: Ptr): number;
  lc_context_config_diagnose(json: Ptr, len: number, diag: Ptr): number;

  // limits (§9) and the loop guard (S14.5, S14.6)
  lc_context_limits_resolve(limits: Ptr, reservedOutput: bigint, safetyMargin: bigint, out: Ptr): number;
  lc_occupancy_basis_points(used: bigint, limit: bigint, out: Ptr): number;
  lc_pressure_level(previous: number, occupancy: number, automatic: number, compactAt: number, rearmBelow: number): number;
  lc_replacement_check(inputTokens: bigint, inputLimit: bigint): number;
  lc_compaction_progress_check(postInputTokens: bigint, inputLimit: bigint, rearmBelow: number): number;
  lc_compaction_threshold_check(policy: Ptr, len: number, inputLimit: bigint, fixedTokens: bigint): number;

  // fingerprint (§10)
  lc_request_fingerprint_diagnose(json: Ptr, len: number, out: Ptr, diag: Ptr): number;

  // transcript safety (S14.3, S14.4)
  lc_transcript_pairing_check(input: Ptr, diag: Ptr): number;
  lc_transcript_safe_cut(input: Ptr, keepLast: bigint, outCut: Ptr): number;
  lc_transcript_cut_check(input: Ptr, cut: bigint): number;

  // the round (§15)
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
}
