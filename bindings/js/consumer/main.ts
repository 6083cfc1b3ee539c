// The installed package from TypeScript, type-checked with --strict (tsconfig.json), then run.
import {
  Conversion,
  CounterQuality,
  Format,
  Input,
  LossCode,
  fromAnthropic,
  fromOpenAIChat,
  type Loss,
  ReplyCleanup,
  compact,
  statusClass,
  type Attempt,
  type CompactResult,
  type StatusCode,
  type SummaryReply,
  type SummaryRequest,
  LoopcompactError,
  PressureLevel,
  Section,
  Status,
  StatusClass,
  pressureLevel,
  requestFingerprint,
  resolveContextLimits,
  summaryInstructions,
  summarySectionText,
  summarySections,
  validateCompactionPolicy,
  validateSummary,
  version,
  type Bytes,
  type Fingerprint,
  type ResolvedLimits,
  type SectionSpan,
} from "loopcompact";

const summary: Bytes = new TextEncoder().encode(
  "<conversation_summary><goal>ship &amp; verify</goal><constraints/><decisions/><state>green</state><open_items/></conversation_summary>",
);
validateSummary(summary);
const spans: SectionSpan[] = summarySections(summary);
const goal: string = summarySectionText(summary, Section.GOAL);
if (spans.length !== 5 || goal !== "ship & verify") throw new Error("sections");

function statusOf(f: () => void): number {
  try {
    f();
    return Status.OK;
  } catch (e: unknown) {
    if (!(e instanceof LoopcompactError)) throw e;
    const where: number | null = e.offset;
    const limit: bigint | null = e.limit;
    void where;
    void limit;
    if (e.statusClass === StatusClass.RETRY && e.retryMessage().length === 0) throw new Error("retry message");
    return e.status;
  }
}
if (statusOf(() => validateSummary("<summary/>")) !== Status.SUMMARY_XML_ROOT) throw new Error("xml_root");

const policy = JSON.stringify({
  Automatic: true, CounterPolicy: 2, CompactAt: 8000, RearmBelow: 6000, ReservedOutput: 4096,
  SafetyMargin: 512, MaxSummaryTokens: 2048, CountTimeout: 2000000000, Hustle: "context.compact",
});
validateCompactionPolicy(policy, CounterQuality.HEURISTIC);

const limits: ResolvedLimits = resolveContextLimits({ windowTokens: 200_000n, maxInputTokens: 0, maxOutputTokens: 32_000 }, 8_000, 1_000);
const level: number = pressureLevel(PressureLevel.NORMAL, 9000, true, 8000, 6000);
if (limits.inputLimit !== 191_000n || level !== PressureLevel.COMPACT) throw new Error("limits");

const wire = JSON.stringify({
  version: 1,
  basis: { revision: 3, through_event_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" },
  model: { provider: "p", model: "m" },
  request_fingerprint: "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
  transcript: [{ role: "user", blocks: [{ type: "text", text: "hello" }] }],
  max_summary_tokens: 32,
});
{
  using input = Input.parse(wire);
  const request: Uint8Array = input.encodeWithin(64_000n);
  if (request.length === 0) throw new Error("encode");
}

let digest: Fingerprint | null = null;
if (statusOf(() => (digest = requestFingerprint("{}"))) !== Status.FINGERPRINT_WIRE || digest !== null) throw new Error("fingerprint");
if (!summaryInstructions().includes("<conversation_summary>")) throw new Error("instructions");

// The enums are unions of their values: a switch over a class is exhaustive, a stray number is refused.
function next(c: StatusClass): string {
  switch (c) {
    case StatusClass.OK:
      return "commit";
    case StatusClass.RETRY:
      return "retry";
    case StatusClass.DISCARD:
    case StatusClass.BUG:
      return "drop";
    case StatusClass.HOST:
      return "fix the host";
    default: {
      const unreachable: never = c;
      return unreachable;
    }
  }
}
// @ts-expect-error 42 is not a Section
const notASection: Section = 42;
void notASection;
const code: StatusCode = Status.REPLY_TRUNCATED;
if (next(statusClass(code)) !== "retry") throw new Error("class");

// A round from the model's own text (SPEC §15): the model here answers with a fenced summary.
const transcript = [
  { role: "user", blocks: [{ type: "text", text: "Fix the parser." }] },
  { role: "assistant", blocks: [{ type: "text", text: "Fixed; tests pass." }], usage: null },
  { role: "user", blocks: [{ type: "text", text: "Now the docs." }] },
];
const xml = "<conversation_summary><goal>Fix the parser.</goal><constraints/><decisions/><state>Tests pass.</state><open_items/></conversation_summary>";
const roundInput = Input.parse(wire.replace(/"transcript":\[.*\]/, `"transcript":${JSON.stringify(transcript)}`));
try {
  if (roundInput.validateReply(` ${xml}\n`, { outputTokens: 30, maxReplyBytes: 4096, trim: true }) !== xml) throw new Error("reply");
  const model = async ({ messages, maxTokens }: SummaryRequest): Promise<SummaryReply> =>
    messages.length === 1 && maxTokens === 32 ? { text: "```xml\n" + xml + "\n```", outputTokens: 30, stop: "end" } : { text: "", outputTokens: 0 };
  const log: Attempt[] = [];
  const result: CompactResult = await compact(roundInput, model, { keepLast: 1, onAttempt: (a) => void log.push(a) });
  if (result.kind !== "compacted") throw new Error(`keep history: ${result.reason}`);
  const replacement: Uint8Array = result.replacement;
  if (result.cut !== 2 || replacement.length === 0 || log[0]?.removed.flags !== ReplyCleanup.UNFENCE) throw new Error("round");
} finally {
  roundInput.free();
}

// The converters (SPEC §16): a Chat list in, the transcript and its maps out, the round mapped back.
const chat = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Fix the parser.", name: "ann" },
  { role: "assistant", content: "Fixed; tests pass." },
  { role: "user", content: "Now the docs." },
];
{
  using conversion: Conversion = fromOpenAIChat(chat);
  const losses: readonly Loss[] = conversion.losses;
  const codes: LossCode[] = losses.map((l) => l.code);
  using anthropic = fromAnthropic([{ role: "user", content: "hi" }], { system: "Be brief." });
  const system: number | null | undefined = anthropic.sourceIndex[0]; // null: the system parameter
  if (codes.join() !== String(LossCode.DROPPED_NAME) || system !== null || conversion.format !== Format.OPENAI_CHAT) {
    throw new Error("conversion");
  }
  using input = conversion.input({ provider: "p", model: "m", maxSummaryTokens: 64, revision: 1 });
  const model = (): SummaryReply => ({ text: xml, outputTokens: 30, stop: "end" });
  const result = await compact(input, model, { keepLast: 1 });
  if (result.kind !== "compacted") throw new Error(`keep history: ${result.reason}`);
  const next: (typeof chat)[number][] = result.messages(chat);
  // The system message and the kept user message with the summary merged in front.
  if (next.length !== 2 || next[0] !== chat[0] || JSON.stringify(next[1]?.content) !== JSON.stringify([
    { type: "text", text: xml },
    { type: "text", text: "Now the docs." },
  ])) {
    throw new Error("messages");
  }
}

console.log(`main.ts: loopcompact ${version()} works from TypeScript`);
