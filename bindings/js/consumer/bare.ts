// The declarations with no DOM library and no @types/node (tsconfig.bare.json: lib ES2022, no
// types), as bindings/js/README.md says they need neither: the stream types included.
import {
  type ChunkSource,
  type ReadableStreamLike,
  type SummaryReplyStream,
  validateSummary,
  validateSummaryStream,
} from "loopcompact";

async function* pieces(): AsyncGenerator<string> {
  yield "<conversation_summary><goal>g</goal><constraints/><decisions/>";
  yield "<state>s</state><open_items/></conversation_summary>";
}

export const source: ChunkSource = pieces();
export const reply: SummaryReplyStream = { chunks: ["<conversation_summary>"], usage: () => ({ outputTokens: 1 }) };

export async function check(xml: string, stream: ReadableStreamLike<string>): Promise<string> {
  validateSummary(xml);
  await validateSummaryStream(source);
  return validateSummaryStream(stream);
}
