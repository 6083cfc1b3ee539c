// A browser or worker project's view of the package (tsconfig.web.json: the DOM library, bundler
// resolution, no @types/node): init() from a URL or bytes, then the same API.
import { init, initSync, validateSummary, LoopcompactError, Section } from "loopcompact";

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
