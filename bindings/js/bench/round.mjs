// node bench/round.mjs [SUMMARY_4KB]: what a compaction round costs in the package beyond the library
// calls it makes (issue 26: at most 10 % more with an instant model): `await compact()` with a model
// that answers at once, against the same calls made by hand (safeCut, encodeHeadWithin,
// validateReply with cleanup, buildReplacement), on the Go benchmark's round input
// (bindings/go/round_bench_test.go) with a 4 KB summary in a Markdown fence (by default
// benches/gen/make_summary.py 4096). CPU time per call as bench/time.mjs measures it (the round
// awaited in batches of 200). Needs `npm run build` first.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import * as lc from "loopcompact";

import { time } from "./time.mjs";

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
const input = lc.Input.parse(identity + messages.join(",") + '],"max_summary_tokens":2048}');
const answer = { text: reply, outputTokens: 900, stop: "end" };
const model = async () => answer;

function calls() {
  const cut = input.safeCut(1);
  input.encodeHeadWithin(cut, 2n ** 62n);
  const text = input.validateReply(reply, { outputTokens: 900, stop: "end", maxReplyBytes: 16 * 2048, trim: true, unfence: true });
  return input.buildReplacement(cut, text);
}

const BATCH = 200;
async function rounds() {
  let last;
  for (let i = 0; i < BATCH; i++) last = await lc.compact(input, model, { keepLast: 1 });
  return last;
}

/** CPU nanoseconds per round: the median of 7 batches after a warm-up, as bench/time.mjs. */
async function timeRounds() {
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) * 1e3;
  };
  for (let i = 0; i < 20; i++) await rounds();
  const perCall = [];
  for (let b = 0; b < 7; b++) {
    let n = 0;
    const t = performance.now();
    const c = cpu();
    while (performance.now() - t < 200) {
      await rounds();
      n += BATCH;
    }
    perCall.push((cpu() - c) / n);
  }
  return perCall.sort((a, b) => a - b)[3];
}

const done = await rounds();
if (done.kind !== "compacted" || Buffer.compare(Buffer.from(done.replacement), Buffer.from(calls())) !== 0) {
  throw new Error("the round and the calls by hand disagree");
}
let best = { round: Infinity, calls: Infinity };
for (let r = 0; r < 3; r++) {
  best.round = Math.min(best.round, await timeRounds());
  best.calls = Math.min(best.calls, time(calls));
}
console.log(
  `compact(): ${(best.round / 1e3).toFixed(2)} µs, the calls by hand: ${(best.calls / 1e3).toFixed(2)} µs, ` +
    `round / calls: ${(best.round / best.calls).toFixed(3)}`,
);
