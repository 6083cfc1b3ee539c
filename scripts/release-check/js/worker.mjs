// A Cloudflare Worker that validates the summary a request carries: scripts/release --check
// bundles it as wrangler does (esbuild, conditions workerd, worker, browser; the .wasm import left
// to the runtime, which compiles it) and serves it with workerd. POST a summary: 200 {"valid":
// true}, or 422 with the diagnosis.
import { LoopcompactError, validateSummary, version } from "loopcompact";

export default {
  async fetch(request) {
    const body = new Uint8Array(await request.arrayBuffer());
    try {
      validateSummary(body);
      return Response.json({ valid: true, version: version() });
    } catch (e) {
      if (!(e instanceof LoopcompactError)) throw e;
      return Response.json(
        { valid: false, status: e.status, reason: e.reason, offset: e.offset, expected: e.expected, rule: e.rule },
        { status: 422 },
      );
    }
  },
};
