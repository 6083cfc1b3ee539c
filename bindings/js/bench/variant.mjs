// One build variant of the .wasm (bench.mjs --variants): loads it with initSync into the built
// package and prints {"summary": ns, "transcript": ns} per call, timed as bench.mjs times.
//   node bench/variant.mjs VARIANT.wasm summary.xml transcript.json
import { readFileSync } from "node:fs";

import { initSync, validateInput, validateSummary } from "../dist/index.js";
import { time } from "./time.mjs";

const [wasm, summaryPath, transcriptPath] = process.argv.slice(2);
initSync(readFileSync(wasm));
const summary = new Uint8Array(readFileSync(summaryPath));
const transcript = new Uint8Array(readFileSync(transcriptPath));
console.log(JSON.stringify({ summary: time(() => validateSummary(summary)), transcript: time(() => validateInput(transcript)) }));
