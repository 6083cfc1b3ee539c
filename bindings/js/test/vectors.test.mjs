// Every public conformance vector (tests/vectors/*.jsonl, mapped to calls per SPEC V12.3) and,
// when ../shared is present, the JSONTestSuite peer rows, through the package as installed: the
// same statuses, fitted bytes, summaries and digests as the C ABI.

import assert from "node:assert/strict";
import test from "node:test";

import * as lc from "loopcompact";

import { data, peerRows, vectorFiles } from "./vectors.mjs";

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, k) => a + k);
// A3.9: the codes each function may return besides LC_OK and the boundary codes.
const CODES = {
  summary: range(206, 209),
  input: range(100, 105),
  fit: [110, 2],
  output: [200, 201, 203, 204, 205, 206, 207, 208, 209, 2],
  compaction_policy: range(300, 308),
  observation_policy: range(320, 323),
  context_config: [...range(340, 347), ...range(301, 308), ...range(321, 323)],
  resolve_limits: [360],
  occupancy: [361],
  replacement: [250],
  fingerprint: range(400, 407),
};

/** The status a call fails with (0 when it succeeds) and its result. */
function statusOf(call) {
  try {
    return [0, call()];
  } catch (e) {
    if (!(e instanceof lc.LoopcompactError)) throw e;
    // Every rejection carries its class and the status's texts; the one exception (SPEC R15.2): a
    // reply byte limit below the shortest reply document that can pass is the host's, not a retry.
    if (e.status === lc.Status.SUMMARY_BYTE_LIMIT && e.statusClass === lc.StatusClass.HOST) {
      // (api.test.mjs checks where that boundary lies.)
      assert.ok(e.limit !== null && e.actual !== null);
    } else {
      assert.equal(e.statusClass, lc.statusClass(e.status));
    }
    assert.equal(e.name, lc.statusName(e.status));
    return [e.status, null];
  }
}

function checkStatus(kind, row, status) {
  if (row.expect === "ok") {
    assert.equal(status, 0, `${lc.statusName(status)}, expected ok`);
  } else {
    assert.ok(CODES[kind].includes(status), `${lc.statusName(status)} is not a code of ${kind}`);
    assert.equal(lc.statusReason(status), row.expect);
  }
}

function runDecode(row) {
  const wire = data(row, "input");
  const [status] = statusOf(() => lc.validateInput(wire));
  checkStatus("input", row, status);
  // parse + free gives the same status (V12.3).
  const [parsed, input] = statusOf(() => lc.Input.parse(wire));
  assert.equal(parsed, status);
  input?.free();
}

const decoder = new TextDecoder();

function runRow(file, row) {
  const kind = row.kind;
  if (file === "summary_xml") {
    const [status] = statusOf(() => lc.validateSummary(data(row, "xml")));
    checkStatus("summary", row, status);
    if (row.xml !== undefined && row.xml !== "") {
      // The same verdict for the string form of the document.
      assert.equal(statusOf(() => lc.validateSummary(row.xml))[0], status);
    }
  } else if (file === "input" && kind === "decode") {
    runDecode(row);
  } else if (file === "input" && kind === "fit") {
    const input = lc.Input.parse(data(row, "input"));
    try {
      const [status, fitted] = statusOf(() => input.encodeWithin(row.max_bytes));
      checkStatus("fit", row, status);
      if (status === 0) assert.equal(decoder.decode(fitted), row.fitted);
    } finally {
      input[Symbol.dispose]();
    }
  } else if (file === "output") {
    const input = lc.Input.parse(data(row, "input_wire"));
    try {
      const [status, summary] = statusOf(() =>
        input.validateOutput(data(row, "output"), row.output_tokens, row.max_output_bytes),
      );
      checkStatus("output", row, status);
      if (status === 0) assert.equal(summary, row.summary);
    } finally {
      input.free();
    }
  } else if (file === "fingerprint") {
    const [status, digest] = statusOf(() => lc.requestFingerprint(data(row, "input")));
    checkStatus("fingerprint", row, status);
    if (status === 0) {
      assert.equal(digest.hex, row.sha256);
      assert.equal(digest.bytes.length, lc.FINGERPRINT_LEN);
      assert.equal(Buffer.from(digest.bytes).toString("hex"), row.sha256);
    }
  } else if (kind === "compaction_policy") {
    const [status] = statusOf(() => lc.validateCompactionPolicy(data(row, "policy"), row.counter_quality));
    checkStatus(kind, row, status);
  } else if (kind === "observation_policy") {
    const [status] = statusOf(() => lc.validateContextObservation(data(row, "policy"), row.counter_quality));
    checkStatus(kind, row, status);
  } else if (kind === "context_config") {
    const [status] = statusOf(() => lc.validateContextConfig(data(row, "config")));
    assert.equal(lc.statusName(status), row.expect_status);
    checkStatus(kind, row, status);
  } else if (kind === "resolve_limits") {
    const l = row.limits;
    const [status, resolved] = statusOf(() =>
      lc.resolveContextLimits(
        { windowTokens: l.window_tokens, maxInputTokens: l.max_input_tokens, maxOutputTokens: l.max_output_tokens },
        row.reserved_output,
        row.safety_margin,
      ),
    );
    checkStatus(kind, row, status);
    if (status === 0) {
      assert.deepEqual(resolved, {
        reservedOutput: BigInt(row.out.reserved_output),
        rawInputLimit: BigInt(row.out.raw_input_limit),
        inputLimit: BigInt(row.out.input_limit),
      });
    }
  } else if (kind === "occupancy") {
    const [status, value] = statusOf(() => lc.occupancyBasisPoints(row.used, row.limit));
    checkStatus(kind, row, status);
    if (status === 0) assert.equal(value, row.out);
  } else if (kind === "pressure") {
    const level = lc.pressureLevel(row.previous_level, row.occupancy, row.automatic, row.compact_at, row.rearm_below);
    assert.equal(level, row.expect);
  } else if (kind === "replacement") {
    const [status] = statusOf(() => lc.replacementCheck(row.input_tokens, row.input_limit));
    checkStatus(kind, row, status);
  } else {
    assert.fail(`no mapping for ${file} kind ${kind}`);
  }
}

/** Runs every row and fails once, naming each failing row. */
function runAll(file, rows, run) {
  const failures = [];
  for (const row of rows) {
    try {
      run(row);
    } catch (e) {
      failures.push(`${row.name}: ${e.message}`);
    }
  }
  assert.ok(rows.length > 0, `${file}: no rows`);
  assert.deepEqual(failures, [], `${failures.length} of ${rows.length} rows of ${file} failed`);
}

const files = vectorFiles();

test("every vector file is here", () => {
  const stems = files.map(([stem]) => stem);
  for (const f of ["summary_xml", "input", "output", "policy", "fingerprint"]) assert.ok(stems.includes(f), f);
});

for (const [file, rows] of files) {
  test(`vectors: ${file}.jsonl (${rows.length} rows)`, () => runAll(file, rows, (row) => runRow(file, row)));
}

const peer = peerRows();
test(`peer rows: peer_jsontestsuite.jsonl (${peer?.length ?? 0} rows)`, { skip: peer === null && "../shared/vectors is absent" }, () =>
  runAll("peer_jsontestsuite", peer, runDecode),
);
