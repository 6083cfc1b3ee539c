/**
 * The history after a round, in the source's own format (`Compacted.messages`, SPEC §16.8): what
 * R15.9 builds on the wire, built from the host's own message objects. The source's leading system
 * messages (the same objects), the summary as one user message of the format, then the kept
 * messages `source[sourceCut:]` (the same objects, not copies). When the first kept message is a
 * user message, the summary is merged into it as R15.9 merges on the wire (two user messages never
 * meet): a new object, the original's fields with the summary's text part first in its content;
 * the original is not changed.
 */

import { Format } from "./generated.js";
import type { Origin } from "./input.js";

type Message = Record<string, unknown>;

const asObject = (m: unknown): Message | null => (typeof m === "object" && m !== null ? (m as Message) : null);
const role = (m: unknown): unknown => asObject(m)?.["role"];
const firstOf = (list: unknown): Message | null => (Array.isArray(list) ? asObject(list[0]) : null);

/** How one format spells the summary and tells system and user messages. */
interface Spelling {
  /** A message the wire holds as a leading system message. */
  system(m: unknown): boolean;
  /** A message whose first wire message is a user message (R15.9 then merges the summary into it). */
  user(m: unknown): boolean;
  /** The summary as a message of the format; `source` tells the spelling where a format has several. */
  summary(text: string, source: readonly unknown[]): unknown;
  /** A new message: `m` with the summary's text part before its content. */
  merged(text: string, m: Message): unknown;
}

/** `content` as a list of parts: a string is one text part of `type`. */
function parts(content: unknown, type: string): unknown[] {
  if (typeof content === "string") return [{ type, text: content }];
  return Array.isArray(content) ? content : [];
}

/** Chat, Anthropic and the AI SDK: `{ role, content: string | parts }`, a text part `{ type, text }`. */
function roleContent(systemRoles: readonly string[], textType: string, user: (m: Message) => boolean = () => true): Spelling {
  return {
    system: (m) => systemRoles.includes(role(m) as string),
    user: (m) => role(m) === "user" && user(m as Message),
    summary: (text) => ({ role: "user", content: text }),
    merged: (text, m) => ({ ...m, content: [{ type: textType, text }, ...parts(m["content"], textType)] }),
  };
}

// A LangChain message in one of the three serialised forms the converter reads: `messages_to_dict`
// (`{type, data}`), `dumpd` (`{lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs}`) and
// `model_dump` (the fields, `type` among them).
const LANGCHAIN_CLASS: Readonly<Record<string, string>> = { HumanMessage: "human", SystemMessage: "system" };

function langchainType(m: unknown): unknown {
  const o = asObject(m);
  if (o === null) return undefined;
  if (o["lc"] === 1 && Array.isArray(o["id"])) {
    const name = o["id"].at(-1);
    return typeof name === "string" ? (LANGCHAIN_CLASS[name] ?? name) : undefined;
  }
  return o["type"];
}

/** The fields of a LangChain message (its `data`, its `kwargs`, or itself), and how to rewrap them. */
function langchainFields(m: Message): [fields: Message, wrap: (fields: Message) => Message] {
  if (m["lc"] === 1 && asObject(m["kwargs"]) !== null) return [m["kwargs"] as Message, (kwargs) => ({ ...m, kwargs })];
  if (asObject(m["data"]) !== null) return [m["data"] as Message, (data) => ({ ...m, data })];
  return [m, (fields) => fields];
}

/** An input message item: a role, and `type` "message" or none (other items have a type of their own). */
const inputMessage = (m: unknown, roles: readonly string[]): boolean => {
  const o = asObject(m);
  return o !== null && roles.includes(o["role"] as string) && (o["type"] === undefined || o["type"] === "message");
};

const SPELLINGS: Readonly<Record<number, Spelling>> = {
  [Format.OPENAI_CHAT]: roleContent(["system", "developer"], "text"),
  [Format.OPENAI_RESPONSES]: {
    system: (m) => inputMessage(m, ["system", "developer"]),
    user: (m) => inputMessage(m, ["user"]),
    summary: (text, source) =>
      source.some((m) => role(m) !== undefined && asObject(m)?.["type"] === "message")
        ? { type: "message", role: "user", content: text }
        : { role: "user", content: text },
    merged: (text, m) => ({ ...m, content: [{ type: "input_text", text }, ...parts(m["content"], "input_text")] }),
  },
  // A user message that opens with tool results is `tool` messages on the wire: no merge.
  [Format.ANTHROPIC]: roleContent(["system"], "text", (m) => firstOf(m["content"])?.["type"] !== "tool_result"),
  [Format.GEMINI]: {
    system: () => false,
    user: (m) => {
      const o = asObject(m);
      if (o === null || !(o["role"] === "user" || o["role"] === undefined)) return false;
      const first = firstOf(o["parts"]);
      return first === null || (first["functionResponse"] === undefined && first["function_response"] === undefined);
    },
    summary: (text) => ({ role: "user", parts: [{ text }] }),
    merged: (text, m) => ({ ...m, parts: [{ text }, ...(Array.isArray(m["parts"]) ? m["parts"] : [])] }),
  },
  [Format.AI_SDK]: roleContent(["system"], "text"),
  [Format.LANGCHAIN]: {
    system: (m) => langchainType(m) === "system",
    user: (m) => langchainType(m) === "human",
    summary: (text, source) => {
      const like = asObject(source[0]);
      if (like !== null && like["lc"] === 1 && Array.isArray(like["id"])) {
        const id = [...like["id"].slice(0, -1), "HumanMessage"];
        return { lc: 1, type: "constructor", id, kwargs: { content: text, type: "human" } };
      }
      if (like !== null && asObject(like["data"]) !== null) return { type: "human", data: { content: text, type: "human" } };
      return { content: text, type: "human" };
    },
    merged: (text, m) => {
      const [fields, wrap] = langchainFields(m);
      return wrap({ ...fields, content: [{ type: "text", text }, ...parts(fields["content"], "text")] });
    },
  },
};

/**
 * @internal The new history for `origin`'s source after a round that summarised wire messages
 * `[0, cut)` into `summary`. Throws a `TypeError` when `source` is not the list the conversion
 * was made from (not an array, or of another length).
 */
export function rebuild(origin: Origin, cut: number, summary: string, source: unknown): unknown[] {
  // A Responses `input` given as a string is one user message, wholly summarised or wholly kept.
  const list: readonly unknown[] | null = Array.isArray(source)
    ? source
    : typeof source === "string" && origin.format === Format.OPENAI_RESPONSES
      ? [{ role: "user", content: source }]
      : null;
  if (list === null) throw new TypeError("loopcompact: messages(source) takes the message list the conversion was made from");
  const fits = list.length === origin.sourceLength;
  if (!fits) {
    throw new TypeError(
      `loopcompact: messages(source) takes the list the conversion was made from: it had ` +
        `${origin.sourceLength} messages, this one has ${list.length}`,
    );
  }
  const spelling = SPELLINGS[origin.format];
  const at = origin.sourceCuts[cut];
  if (spelling === undefined || at === undefined || at < 0) {
    throw new Error(`loopcompact: no source cut for wire cut ${cut} of this conversion`);
  }
  let lead = 0;
  while (lead < at && spelling.system(list[lead])) lead++;
  const first = list[at];
  if (at < list.length && spelling.user(first)) {
    return [...list.slice(0, lead), spelling.merged(summary, first as Message), ...list.slice(at + 1)];
  }
  return [...list.slice(0, lead), spelling.summary(summary, list), ...list.slice(at)];
}
