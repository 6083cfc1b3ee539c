// The AI SDK adapter of the README, type-checked against the pinned `ai` package
// (tsconfig.ai.json: the SDK's declarations need the DOM library). test/ai-sdk.test.mjs runs the
// same adapter against the SDK's mock model.
import { generateText, type LanguageModel } from "ai";
import { compact, type CompactResult, type Input, type SummaryReply, type SummaryRequest } from "loopcompact";

export const summariser =
  (model: LanguageModel) =>
  async ({ system, messages, maxTokens }: SummaryRequest): Promise<SummaryReply> => {
    const result = await generateText({ model, system, messages, maxOutputTokens: maxTokens });
    return {
      text: result.text,
      outputTokens: result.usage.outputTokens ?? 0, // 0: none reported, and the round says so
      stop: result.finishReason === "length" ? "length" : result.finishReason === "stop" ? "end" : null,
    };
  };

export async function compactWith(model: LanguageModel, input: Input): Promise<string | null> {
  const result: CompactResult = await compact(input, summariser(model), { keepLast: 4 });
  return result.kind === "compacted" ? new TextDecoder().decode(result.replacement) : null;
}
