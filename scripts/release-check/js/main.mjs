// The npm tarball as an ES module consumer uses it, with no init(): scripts/release --check runs
// this file under Node, Deno and Bun, in a fresh project that installed the tarball. Prints the
// runtime, what the package resolved to, and one line per check; exits non-zero on a failure.
// Usage: main.mjs .../examples/data/fingerprint_valid.json
import { readFileSync } from "node:fs";

import { LoopcompactError, Status, requestFingerprint, validateSummary, version } from "loopcompact";

const runtime = globalThis.Deno ? `deno ${Deno.version.deno}` : globalThis.Bun ? `bun ${Bun.version}` : `node ${process.version}`;
const valid = "<conversation_summary><goal>ship</goal><constraints/><decisions/><state>green</state><open_items/></conversation_summary>";
const invalid = valid.replace("<constraints/>", "");

console.log(`${runtime}: loopcompact ${version()} (import, resolved to ${import.meta.resolve("loopcompact").replace(/^.*node_modules\//, "")})`);
validateSummary(valid);
console.log("valid summary: accepted");
try {
  validateSummary(new TextEncoder().encode(invalid));
  throw new Error("the invalid summary was accepted");
} catch (e) {
  if (!(e instanceof LoopcompactError) || e.status !== Status.SUMMARY_XML_STRUCTURE) throw e;
  console.log(`invalid summary: ${e.reason} at offset ${e.offset}, expected ${e.expected} (${e.rule})`);
}
// The fingerprint of examples/data/fingerprint_valid.json (the path is the last argument): every
// runtime, and the Python wheels, must print the same digest.
const fingerprint = requestFingerprint(readFileSync(process.argv[process.argv.length - 1]));
console.log(`fingerprint_valid.json: ${fingerprint.hex}`);
