// The converter fixtures of tests/convert/fixtures (each the request body a real SDK posted, or the
// AI SDK's JSON.stringify of ModelMessage[]), read for the package's tests: the source as objects
// and as its exact text, and the package's converter for it.
//
// $LOOPCOMPACT_CONVERT_FIXTURES names the directory (scripts/test-js sets it); in place, the
// repository's.

import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

import * as lc from "loopcompact";

export const FIXTURES =
  process.env.LOOPCOMPACT_CONVERT_FIXTURES ?? fileURLToPath(new URL("../../../tests/convert/fixtures/", import.meta.url));
export const HAVE_FIXTURES = existsSync(FIXTURES);

/** The fixture `name`: `{ name, format, source, text }`, `text` the source's exact bytes in the file. */
export function fixture(name) {
  const file = readFileSync(`${FIXTURES}/${name}.json`, "utf8");
  const doc = JSON.parse(file);
  // The file is {"format", "source", "note"} in that order: the source's own text lies between.
  const start = file.indexOf('"source": ') + '"source": '.length;
  const end = file.lastIndexOf(',\n "note": ');
  const text = file.slice(start, end);
  return { name, format: doc.format, source: doc.source, text };
}

export function fixtureNames() {
  if (!HAVE_FIXTURES) return [];
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}

/** `Format.*` of a fixture's format name. */
export const FORMATS = {
  openai_chat: lc.Format.OPENAI_CHAT,
  openai_responses: lc.Format.OPENAI_RESPONSES,
  anthropic: lc.Format.ANTHROPIC,
  gemini: lc.Format.GEMINI,
  ai_sdk: lc.Format.AI_SDK,
  langchain: lc.Format.LANGCHAIN,
};

/**
 * The package's converter for a fixture's objects: `{ list, convert(list, options) }`, `list` the
 * message list `Compacted.messages` takes, `convert` the `from*` function with the request's
 * system parameter; `null` for LangChain (TypeScript hosts have no LangChain objects: `convert`
 * takes its JSON).
 */
export function objectConverter(f) {
  const s = f.source;
  switch (f.format) {
    case "openai_chat":
      return { list: s, convert: (list, o = {}) => lc.fromOpenAIChat(list, o) };
    case "openai_responses":
      return { list: s.input, convert: (list, o = {}) => lc.fromOpenAIResponses(list, { instructions: s.instructions, ...o }) };
    case "anthropic":
      return { list: s.messages, convert: (list, o = {}) => lc.fromAnthropic(list, { system: s.system, ...o }) };
    case "gemini":
      return {
        list: s.contents,
        convert: (list, o = {}) => lc.fromGemini(list, { systemInstruction: s.system_instruction ?? s.systemInstruction, ...o }),
      };
    case "ai_sdk":
      return { list: s, convert: (list, o = {}) => lc.fromModelMessages(list, o) };
    default:
      return null;
  }
}

/** The parsed wire transcript of a conversion. */
export const wire = (conversion) => JSON.parse(new TextDecoder().decode(conversion.transcript));

/** A summary SPEC §4 accepts. */
export const SUMMARY =
  "<conversation_summary><goal>Ship the converter.</goal><constraints/><decisions/><state>Tests pass.</state><open_items/></conversation_summary>";
