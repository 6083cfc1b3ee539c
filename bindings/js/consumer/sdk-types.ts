// The converters take the official SDKs' own message types: each list below is typed with the
// SDK's declarations (openai, @anthropic-ai/sdk, @google/genai, ai; pinned, test-only in
// package.json) and handed to the converter as it is, which tsc --strict checks
// (tsconfig.convert.json); then it runs. A typed usage example, not a fixture: tests/convert
// holds what the SDKs actually sent.
import type { Content } from "@google/genai";
import type { MessageParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { ModelMessage } from "ai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import {
  type Conversion,
  LossCode,
  fromAnthropic,
  fromGemini,
  fromModelMessages,
  fromOpenAIChat,
  fromOpenAIResponses,
} from "loopcompact";

const chat: ChatCompletionMessageParam[] = [
  { role: "developer", content: "Be brief." },
  { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris","city":"Lyon"}' } }],
  },
  { role: "tool", tool_call_id: "call_1", content: "18C" },
];

const responses: ResponseInputItem[] = [
  { role: "user", content: "Weather in Paris?" },
  { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Look it up." }], encrypted_content: "+/+/AQ==" },
  { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' },
  { type: "function_call_output", call_id: "call_1", output: "18C" },
];

const system: TextBlockParam[] = [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }];
const anthropic: MessageParam[] = [
  { role: "user", content: "Weather in Paris?" },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Look it up.", signature: "+/+/AQ==" },
      { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "18C" }] },
];

const contents: Content[] = [
  { role: "user", parts: [{ text: "Weather in Paris?" }] },
  { role: "model", parts: [{ functionCall: { id: "fc_1", name: "weather", args: { city: "Paris" } }, thoughtSignature: "-_-_AQ==" }] },
  { role: "user", parts: [{ functionResponse: { id: "fc_1", name: "weather", response: { output: "18C" } } }] },
];

const modelMessages: ModelMessage[] = [
  { role: "user", content: [{ type: "image", image: new Uint8Array([137, 80, 78, 71]), mediaType: "image/png" }] },
  { role: "assistant", content: [{ type: "reasoning", text: "A PNG.", providerOptions: { anthropic: { signature: "+/+/AQ==" } } }] },
];

const conversions: [string, Conversion, LossCode[]][] = [
  ["openai chat", fromOpenAIChat(chat), [LossCode.DUPLICATE_ARGUMENT_KEY]],
  ["openai responses", fromOpenAIResponses(responses, { instructions: "Be brief." }), []],
  ["anthropic", fromAnthropic(anthropic, { system }), [LossCode.DROPPED_CACHE_CONTROL]],
  ["gemini", fromGemini(contents, { systemInstruction: "Be brief." }), []],
  ["ai sdk", fromModelMessages(modelMessages), []],
];
for (const [name, conversion, losses] of conversions) {
  try {
    if (JSON.stringify(conversion.losses.map((l) => l.code)) !== JSON.stringify(losses)) throw new Error(`${name}: losses`);
    if (conversion.sourceIndex.length === 0) throw new Error(`${name}: no transcript`);
  } finally {
    conversion.free();
  }
}
console.log("sdk-types.ts: the SDKs' own message types convert");
