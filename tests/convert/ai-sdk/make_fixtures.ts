// Builds the AI SDK fixtures of the transcript converter (issue 27) with the `ai` package's own
// ModelMessage types, checks each message with the package's modelMessageSchema, and writes
// ../fixtures/ai_sdk__<case>.json as {"format":"ai_sdk","source":<JSON.stringify of the
// ModelMessage[]>,"note":...}: the JSON a TypeScript host would hand to the converter.
//
//   npm ci && npm run fixtures            # write the fixtures
//   npm run fixtures -- --check           # regenerate in memory and compare with the files
//
// JSON.stringify is the serialisation: a URL object becomes its href string, so binary data
// must be a base64 string (a Uint8Array would stringify as {"0":..,"1":..}, which the
// converter refuses).

import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { modelMessageSchema, type ModelMessage } from "ai";

// The compiled script runs from tests/convert/ai-sdk/dist (git-ignored).
const project = join(dirname(fileURLToPath(import.meta.url)), "..");
const fixtures = join(project, "..", "fixtures");
const require = createRequire(join(project, "package.json"));
const aiVersion: string = (require("ai/package.json") as { version: string }).version;

// The same deterministic bytes as make_fixtures.py (a 1x1 PNG, a tiny PDF) and opaque tokens
// whose standard base64 holds '+' and '/'.
const PNG_B64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC";
const PDF_B64 = Buffer.from(
  "%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
).toString("base64");

function opaque(label: string, n = 48): string {
  let out = Buffer.from([0xfb, 0xff, 0xbf]);
  let seed: Buffer = Buffer.from(label);
  while (out.length < n) {
    seed = createHash("sha256").update(seed).digest();
    out = Buffer.concat([out, seed]);
  }
  return Buffer.concat([out.subarray(0, n), Buffer.from([1])]).toString("base64");
}

const SIG_A = opaque("anthropic-thinking-1");
const SIG_EMPTY = opaque("anthropic-thinking-empty");
const REDACTED = opaque("anthropic-redacted", 96);
const ENC_REASONING = opaque("openai-reasoning-1", 120);
const ENC_COMPACTION = opaque("openai-compaction", 160);
const GEMINI_SIG = opaque("gemini-thought-1", 40);

const files = new Map<string, string>();

function add(name: string, messages: ModelMessage[], note: string): void {
  messages.forEach((m, i) => {
    const r = modelMessageSchema.safeParse(m);
    if (!r.success) throw new Error(`${name}[${i}] is not a ModelMessage: ${r.error.message}`);
  });
  const doc = { format: "ai_sdk", source: messages, note: `${note}. JSON.stringify of ModelMessage[] (ai@${aiVersion})` };
  const text = JSON.stringify(doc, null, 1) + "\n";
  // JSON.stringify drops undefined members and turns URL objects into strings: check that the
  // written form is still a valid ModelMessage list (what the converter will read).
  for (const [i, m] of (JSON.parse(text).source as unknown[]).entries()) {
    const r = modelMessageSchema.safeParse(m);
    if (!r.success) throw new Error(`${name}[${i}] does not survive JSON: ${r.error.message}`);
  }
  const key = `ai_sdk__${name}.json`;
  if (files.has(key)) throw new Error(`fixture ${key} written twice`);
  files.set(key, text);
}

// Plain text: system, user (string), assistant (string), user (text parts).
add(
  "plain_text",
  [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Name a prime." },
    { role: "assistant", content: "7" },
    { role: "user", content: [{ type: "text", text: "Another." }] },
  ],
  "system, user string, assistant string, user text part",
);

// Parallel tool calls with Anthropic reasoning (signature in providerOptions.anthropic), a tool
// message holding both results (text and json outputs).
add(
  "parallel_tools",
  [
    { role: "user", content: "Weather in Paris and Oslo?" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Need both cities.", providerOptions: { anthropic: { signature: SIG_A } } },
        { type: "text", text: "Checking both." },
        { type: "tool-call", toolCallId: "toolu_paris", toolName: "get_weather", input: { city: "Paris" } },
        { type: "tool-call", toolCallId: "toolu_oslo", toolName: "get_weather", input: { city: "Oslo" } },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "toolu_paris", toolName: "get_weather", output: { type: "text", value: "18C" } },
        {
          type: "tool-result",
          toolCallId: "toolu_oslo",
          toolName: "get_weather",
          output: { type: "json", value: { temp: 4, sky: "snow" } },
        },
      ],
    },
    { role: "assistant", content: "Paris 18C, Oslo 4C." },
  ],
  "reasoning with providerOptions.anthropic.signature, text, two tool-call parts; one tool message with two tool-result parts (text, json)",
);

// Error outputs and a denied execution.
add(
  "error_results",
  [
    { role: "user", content: "Read three files." },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "call_a", toolName: "read_file", input: { path: "/etc/shadow" } },
        { type: "tool-call", toolCallId: "call_b", toolName: "read_file", input: { path: "/missing" } },
        { type: "tool-call", toolCallId: "call_c", toolName: "rm", input: { path: "/" } },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "call_a", toolName: "read_file", output: { type: "error-text", value: "permission denied" } },
        {
          type: "tool-result",
          toolCallId: "call_b",
          toolName: "read_file",
          output: { type: "error-json", value: { code: "ENOENT" } },
        },
        {
          type: "tool-result",
          toolCallId: "call_c",
          toolName: "rm",
          output: { type: "execution-denied", reason: "Not allowed." },
        },
      ],
    },
  ],
  "tool-result outputs error-text, error-json and execution-denied (with a reason)",
);

// Media: legacy image part (base64, URL), file parts (bare base64 PDF with filename, tagged
// url, tagged reference, tagged text).
add(
  "media",
  [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in these?" },
        { type: "image", image: PNG_B64, mediaType: "image/png" },
        { type: "image", image: new URL("https://example.com/cat.png") },
        { type: "file", data: PDF_B64, mediaType: "application/pdf", filename: "paper.pdf" },
        { type: "file", data: { type: "url", url: new URL("https://example.com/paper.pdf") }, mediaType: "application/pdf" },
        { type: "file", data: { type: "reference", reference: { openai: "file-abc123", anthropic: "file_011" } }, mediaType: "image" },
        { type: "file", data: { type: "text", text: "Plain notes." }, mediaType: "text/plain", filename: "notes.txt" },
      ],
    },
    { role: "assistant", content: "A pixel, a cat and documents." },
  ],
  "user image parts (base64 string, URL) and file parts (bare base64 PDF with filename; tagged url, reference and text data)",
);

// Reasoning carried by providerOptions for each provider: Anthropic signed, empty signed,
// redacted; OpenAI itemId + encrypted content; Google thought signature on text and tool call.
add(
  "reasoning_provider_options",
  [
    { role: "user", content: "Solve it." },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: REDACTED } } },
        { type: "reasoning", text: "", providerOptions: { anthropic: { signature: SIG_EMPTY } } },
        { type: "reasoning", text: "First thought.", providerOptions: { anthropic: { signature: SIG_A } } },
        { type: "text", text: "42" },
      ],
    },
    { role: "user", content: "And with OpenAI?" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Summary one.", providerOptions: { openai: { itemId: "rs_1" } } },
        {
          type: "reasoning",
          text: "Summary two.",
          providerOptions: { openai: { itemId: "rs_1", reasoningEncryptedContent: ENC_REASONING } },
        },
        { type: "text", text: "42", providerOptions: { openai: { itemId: "msg_1", phase: "final_answer" } } },
      ],
    },
    { role: "user", content: "And with Gemini?" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Thinking.", providerOptions: { google: { thoughtSignature: GEMINI_SIG } } },
        { type: "tool-call", toolCallId: "fc_1", toolName: "calc", input: { x: 42 }, providerOptions: { google: { thoughtSignature: GEMINI_SIG } } },
      ],
    },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "fc_1", toolName: "calc", output: { type: "json", value: 42 } }] },
  ],
  "reasoning parts: anthropic redactedData, empty text with a signature, signed; openai itemId (two parts of one item, the last with reasoningEncryptedContent); google thoughtSignature on reasoning and tool-call",
);

// Pending tail.
add(
  "pending_tail",
  [
    { role: "user", content: "List /tmp." },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Listing." },
        { type: "tool-call", toolCallId: "call_ls", toolName: "ls", input: { path: "/tmp" } },
      ],
    },
  ],
  "The last assistant message has a tool-call without a tool-result",
);

// Provider-executed tool: call and result both in the assistant message.
add(
  "provider_executed",
  [
    { role: "user", content: "Search the web." },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "srvtoolu_ws", toolName: "web_search", input: { query: "loopcompact" }, providerExecuted: true },
        {
          type: "tool-result",
          toolCallId: "srvtoolu_ws",
          toolName: "web_search",
          output: { type: "json", value: [{ url: "https://example.com/a", title: "A", type: "web_search_result" }] },
        },
        { type: "text", text: "It validates compaction." },
      ],
    },
  ],
  "A provider-executed tool-call (providerExecuted true) with its tool-result inside the same assistant message",
);

// Provider extras: Anthropic cache control on a message and a part, OpenAI prompt cache
// breakpoint on a part.
add(
  "cache_control",
  [
    { role: "system", content: "Long shared context.", providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } },
    {
      role: "user",
      content: [
        { type: "text", text: "Summarise.", providerOptions: { anthropic: { cacheControl: { type: "ephemeral", ttl: "1h" } } } },
        { type: "text", text: "Briefly.", providerOptions: { openai: { promptCacheBreakpoint: { mode: "explicit" } } } },
      ],
    },
    { role: "assistant", content: "Done." },
  ],
  "providerOptions.anthropic.cacheControl on the system message and on a user part; providerOptions.openai.promptCacheBreakpoint on a part",
);

// Tool approval: request in the assistant message, response plus denied result in the tool
// message, then an approved call.
add(
  "tool_approval",
  [
    { role: "user", content: "Delete tmp and list it." },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "call_rm", toolName: "rm", input: { path: "/tmp" } },
        { type: "tool-approval-request", approvalId: "appr_1", toolCallId: "call_rm" },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-approval-response", approvalId: "appr_1", approved: false, reason: "Too risky." },
        { type: "tool-result", toolCallId: "call_rm", toolName: "rm", output: { type: "execution-denied", reason: "Too risky." } },
      ],
    },
    { role: "assistant", content: "I did not delete it." },
  ],
  "tool-approval-request in the assistant message; tool-approval-response (denied) and an execution-denied tool-result in the tool message",
);

// Rich tool output (text and an image file) and the v7 custom / reasoning-file parts.
add(
  "content_output_and_custom",
  [
    { role: "user", content: "Screenshot, then compact." },
    {
      role: "assistant",
      content: [
        { type: "reasoning-file", data: PNG_B64, mediaType: "image/png" },
        { type: "tool-call", toolCallId: "call_shot", toolName: "screenshot", input: {} },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_shot",
          toolName: "screenshot",
          output: {
            type: "content",
            value: [
              { type: "text", text: "Here it is." },
              { type: "file", data: { type: "data", data: PNG_B64 }, mediaType: "image/png" },
            ],
          },
        },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "custom", kind: "openai.compaction", providerOptions: { openai: { itemId: "cmp_1", encryptedContent: ENC_COMPACTION } } },
        { type: "text", text: "Compacted." },
      ],
    },
  ],
  "reasoning-file part, tool-result with content output (text + file), a custom part of kind openai.compaction",
);

const check = process.argv.includes("--check");
if (check) {
  const onDisk = new Map(
    readdirSync(fixtures)
      .filter((f) => f.startsWith("ai_sdk__") && f.endsWith(".json"))
      .map((f) => [f, readFileSync(join(fixtures, f), "utf8")] as const),
  );
  const stale = [...new Set([...files.keys(), ...onDisk.keys()])].filter((k) => files.get(k) !== onDisk.get(k)).sort();
  if (stale.length > 0) {
    console.error(`fixtures differ from the generator:\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`${files.size} AI SDK fixtures match the generator`);
} else {
  for (const [name, text] of [...files.entries()].sort()) writeFileSync(join(fixtures, name), text);
  console.log(`${files.size} AI SDK fixtures in ${fixtures}`);
}
