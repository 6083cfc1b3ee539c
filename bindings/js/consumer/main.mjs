// A plain ES module using the installed package as a Node host would: no init() call needed.
import assert from "node:assert/strict";

import { Input, LoopcompactError, Section, StatusClass, requestFingerprint, validateSummary, version } from "loopcompact";

const summary = "<conversation_summary><goal>ship</goal><constraints/><decisions/><state>green</state><open_items/></conversation_summary>";
const basis = { revision: 3, through_event_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" };
const model = { provider: "p", model: "m" };
const fingerprint = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
const wire = JSON.stringify({
  version: 1, basis, model, request_fingerprint: fingerprint,
  transcript: [{ role: "user", blocks: [{ type: "text", text: "hello" }] }], max_summary_tokens: 32,
});

validateSummary(summary);
try {
  validateSummary(summary.replace("<constraints/>", ""));
  assert.fail("accepted a summary without constraints");
} catch (e) {
  assert.ok(e instanceof LoopcompactError);
  assert.equal(e.name, "LC_SUMMARY_XML_STRUCTURE");
  assert.equal(e.section, Section.CONSTRAINTS);
  assert.equal(e.statusClass, StatusClass.RETRY);
  assert.match(e.retryMessage(), /constraints/);
}

const input = Input.parse(wire);
try {
  const request = new TextDecoder().decode(input.encodeWithin(64_000));
  assert.ok(request.startsWith('{"version":1,'));
  const reply = JSON.stringify({ version: 1, basis, model, request_fingerprint: fingerprint, summary });
  assert.equal(input.validateOutput(reply, 20, 4096), summary);
} finally {
  input.free();
}

assert.throws(() => requestFingerprint("{}"), LoopcompactError);
console.log(`main.mjs: loopcompact ${version()} works from an ES module`);
