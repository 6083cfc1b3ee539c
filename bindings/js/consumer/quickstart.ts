// The top-level README's TypeScript quick start, compiled with tsc --strict against the pinned `ai`
// (tsconfig.convert.json) and run: from AI SDK ModelMessage[] to a committed summary with
// compact(). The README calls it with openai("gpt-4.1-mini"); here the SDK's mock model answers.
import { generateText, type LanguageModel, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { compact, fromModelMessages } from "loopcompact";

// ---- the README's lines, from here ----
async function compactHistory(model: LanguageModel, messages: ModelMessage[]): Promise<ModelMessage[]> {
  using conversion = fromModelMessages(messages);
  using input = conversion.input({ provider: "openai", model: "gpt-4.1-mini", maxSummaryTokens: 2000, revision: 1 });
  const result = await compact(input, async ({ system, messages, maxTokens }) => {
    const r = await generateText({ model, system, messages, maxOutputTokens: maxTokens });
    const stop = r.finishReason === "length" ? "length" : r.finishReason === "stop" ? "end" : null;
    return { text: r.text, outputTokens: r.usage.outputTokens ?? 0, stop };
  }, { keepLast: 4 });
  // The summary and the kept messages (the same objects); on keepHistory, the history as it was.
  return result.kind === "compacted" ? result.messages(messages) : messages;
}
// ---- to here ----

const summary =
  "<conversation_summary><goal>Plan the release.</goal><constraints/><decisions/><state>Tests pass.</state><open_items/></conversation_summary>";
const model = new MockLanguageModelV3({
  doGenerate: {
    content: [{ type: "text", text: summary }],
    finishReason: { unified: "stop", raw: "end_turn" },
    usage: { inputTokens: { total: 300, noCache: 300, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 40, text: 40, reasoning: 0 } },
    warnings: [],
  },
});
const history: ModelMessage[] = [
  { role: "system", content: "You are a release assistant." },
  { role: "user", content: "What is left before the release?" },
  { role: "assistant", content: "The changelog and the docs." },
  { role: "user", content: "Write the changelog." },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "write", input: { path: "CHANGELOG.md" } }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "write", output: { type: "text", value: "ok" } }] },
  { role: "assistant", content: "Done. The docs next?" },
  { role: "user", content: "Yes." },
];
const next = await compactHistory(model, history);
// keepLast 4 keeps the call, its result and what follows: the system prompt, the summary, 4 messages.
if (next.length !== 6 || next[0] !== history[0] || next.at(-1) !== history.at(-1)) throw new Error("quickstart");
if (JSON.stringify(next[1]) !== JSON.stringify({ role: "user", content: summary })) throw new Error("summary message");
console.log("quickstart.ts: the README's TypeScript quick start compacts a ModelMessage[]");
