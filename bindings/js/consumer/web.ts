// A browser or worker project's view of the package (tsconfig.web.json: the DOM library, bundler
// resolution, no @types/node): init() from a URL or bytes, then the same API.
import { init, initSync, validateSummary, validateSummaryStream, LoopcompactError, Section, type SummaryReplyStream } from "loopcompact";

export async function check(url: URL, bytes: ArrayBuffer): Promise<number> {
  await init(url);
  await init(fetch(url));
  initSync(bytes);
  try {
    validateSummary("<summary/>");
    return Section.NONE;
  } catch (e) {
    return e instanceof LoopcompactError ? e.section : -1;
  }
}

// A fetch body is what validateSummaryStream and a streamed reply take (the DOM's ReadableStream
// is a ReadableStreamLike).
export async function fromFetch(response: Response): Promise<string> {
  const text = response.body!.pipeThrough(new TextDecoderStream());
  const reply: SummaryReplyStream = { chunks: text, usage: () => ({ outputTokens: 1 }) };
  void reply;
  return validateSummaryStream(response.body!);
}
