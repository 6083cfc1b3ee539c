// node bench/round.mjs [SUMMARY_4KB [TRANSCRIPT_WIRE [KEEP_LAST]]]: what a compaction round costs in the package beyond the library
// calls it makes (issue 26: at most 10 % more with an instant model): `await compact()` with a model
// that answers at once, against the same calls made by hand (safeCut, encodeHeadWithin,
// validateReply with cleanup, buildReplacement), on the Go benchmark's round input
// (bindings/go/round_bench_test.go) with a 4 KB summary in a Markdown fence (by default
// benches/gen/make_summary.py 4096). CPU time per call as bench/time.mjs measures it (the round
// awaited in batches of 200). With a transcript (a wire input such as benches/gen/make_transcript.py's
// realistic 1 MiB, the size at which a host compacts), the round runs on it instead, keeping its last
// KEEP_LAST (default 4) messages, in batches of 5. Needs `npm run build` first.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import * as lc from "loopcompact";

import { time, timeAsync } from "./time.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const summary = process.argv[2]
  ? readFileSync(process.argv[2], "utf8")
  : execFileSync("python3", [join(root, "benches", "gen", "make_summary.py"), "4096"], { encoding: "utf8" });
const reply = "```xml\n" + summary + "\n```\n";

const identity =
  '{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},' +
  '"model":{"provider":"provider","model":"model"},' +
  '"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20","transcript":[';
const messages = [
  '{"role":"system","blocks":[{"type":"text","text":"be brief"}]}',
  '{"role":"user","blocks":[{"type":"text","text":"list the files"}]}',
  '{"role":"assistant","blocks":[{"type":"tool_use","id":"c1","name":"ls","input":{}}],"usage":null}',
  '{"role":"tool","blocks":[{"type":"text","text":"' + "a.go b.go ".repeat(40) + '"}],"tool_use_id":"c1","is_error":false}',
  '{"role":"assistant","blocks":[{"type":"text","text":"two files"}],"usage":null}',
  '{"role":"user","blocks":[{"type":"text","text":"now ship it"}]}',
];
const wire = process.argv[3]
  ? readFileSync(process.argv[3])
  : identity + messages.join(",") + '],"max_summary_tokens":2048}';
const keepLast = process.argv[3] ? Number(process.argv[4] ?? 4) : 1;
const maxReplyBytes = 16 * (process.argv[3] ? JSON.parse(wire.toString("utf8")).max_summary_tokens : 2048);
const input = lc.Input.parse(wire);
const answer = { text: reply, outputTokens: 900, stop: "end" };
const model = async () => answer;

function calls() {
  const cut = input.safeCut(keepLast);
  input.encodeHeadWithin(cut, 2n ** 62n);
  const text = input.validateReply(reply, { outputTokens: 900, stop: "end", maxReplyBytes, trim: true, unfence: true });
  return input.buildReplacement(cut, text);
}

const BATCH = process.argv[3] ? 5 : 200;
async function rounds() {
  let last;
  for (let i = 0; i < BATCH; i++) last = await lc.compact(input, model, { keepLast });
  return last;
}

const done = await rounds();
if (done.kind !== "compacted" || Buffer.compare(Buffer.from(done.replacement), Buffer.from(calls())) !== 0) {
  throw new Error("the round and the calls by hand disagree");
}
let best = { round: Infinity, calls: Infinity };
for (let r = 0; r < 7; r++) {
  best.round = Math.min(best.round, await timeAsync(rounds, BATCH));
  best.calls = Math.min(best.calls, time(calls));
}
console.log(
  `transcript ${wire.length} bytes, keepLast ${keepLast}; compact(): ${(best.round / 1e3).toFixed(2)} µs, the calls by hand: ${(best.calls / 1e3).toFixed(2)} µs, ` +
    `round / calls: ${(best.round / best.calls).toFixed(3)}`,
);
