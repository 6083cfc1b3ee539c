// The npm tarball from CommonJS: require() resolves the "require" export condition (dist/node.cjs),
// which loads the module synchronously. scripts/release --check runs it under Node.
const { LoopcompactError, Status, validateSummary, version } = require("loopcompact");

const valid = "<conversation_summary><goal>ship</goal><constraints/><decisions/><state>green</state><open_items/></conversation_summary>";
console.log(`node ${process.version}: loopcompact ${version()} (require, resolved to ${require.resolve("loopcompact").replace(/^.*node_modules\//, "")})`);
validateSummary(valid);
console.log("valid summary: accepted");
try {
  validateSummary(valid.replace("<state>green</state>", "<state></state>"));
  throw new Error("the invalid summary was accepted");
} catch (e) {
  if (!(e instanceof LoopcompactError) || e.status !== Status.SUMMARY_XML_CONTENT) throw e;
  console.log(`invalid summary: ${e.reason} (${e.rule})`);
}
