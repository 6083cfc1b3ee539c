// The AI SDK adapter of the README, type-checked against the pinned `ai` package
// (tsconfig.ai.json: the SDK's declarations need the DOM library). test/ai-sdk.test.mjs runs the
// same adapter against the SDK's mock model.
import { generateObject, generateText, jsonSchema, type LanguageModel } from "ai";
import {
  compact,
  type CompactResult,
  type Input,
  type ReplySections,
  type SummaryReply,
  type SummaryRequest,
} from "loopcompact";

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

// The structured variant of the README (SPEC G17.10): with `structured: true` each request carries
// the summary's JSON Schema; generateObject fills it and the reply carries the object as sections.
export const structuredSummariser =
  (model: LanguageModel) =>
  async ({ system, messages, maxTokens, jsonSchema: schema }: SummaryRequest): Promise<SummaryReply> => {
    const result = await generateObject({
      model,
      system,
      messages,
      maxOutputTokens: maxTokens,
      schema: jsonSchema<ReplySections>(JSON.parse(schema ?? "{}")),
    });
    return {
      sections: result.object,
      outputTokens: result.usage.outputTokens ?? 0,
      stop: result.finishReason === "length" ? "length" : result.finishReason === "stop" ? "end" : null,
    };
  };

export async function compactStructured(model: LanguageModel, input: Input): Promise<string | null> {
  const result = await compact(input, structuredSummariser(model), { keepLast: 4, structured: true });
  return result.kind === "compacted" ? result.summary : null;
}
