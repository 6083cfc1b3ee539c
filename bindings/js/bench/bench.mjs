// npm run bench: the WebAssembly package in Node against the native library, in one run, on the
// same realistic inputs (benches/gen/make_summary.py and make_transcript.py, 1 MiB each, and the
// first request-fingerprint vector, the worked example of SPEC R10.7), timed the same way
// (bench/native/src/main.rs): batches of calls of at least 200 ms, the median batch, in CPU time.
// Then the host overhead: a 4 KB summary and the 1 MiB transcript through the package (Uint8Array
// and string) against the plain C ABI function called on the same module with the document already
// in its memory (what the package adds), and against the native library. Also the sizes of the
// .wasm (raw, gzip -9) and the tarball.
//
//   npm run build && npm run bench            # prints the Markdown section
//   npm run bench -- --write                  # and puts it into BENCHMARKS.md (its own section)
//   npm run bench -- --write --variants       # also builds and times 9 build variants (minutes)
//
// Environment: LOOPCOMPACT_BENCH_INPUTS (the folder of make_summary.py and make_transcript.py;
// default benches/gen of this checkout), CARGO; LOOPCOMPACT_BENCH_PACKAGE: the dist/index.js
// of another build of the package to time (its loopcompact.wasm beside it), e.g. an older commit's
// for a before/after comparison (not with --write).

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const other = process.env.LOOPCOMPACT_BENCH_PACKAGE;
const lc = await import(other ? pathToFileURL(resolve(other)).href : "loopcompact");
// index.js of another build does not load its module by itself (the package's Node entry does).
if (other) lc.initSync(readFileSync(join(dirname(resolve(other)), "loopcompact.wasm")));

import { DEFAULT, cargoWasm } from "../scripts/wasm.mjs";
import { sha256Rows, sha256Table } from "./sha256.mjs";
import { time } from "./time.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const root = resolve(pkg, "..", "..");
const inputs = process.env.LOOPCOMPACT_BENCH_INPUTS ?? resolve(root, "benches", "gen");
const write = process.argv.includes("--write");
if (write && process.env.LOOPCOMPACT_BENCH_PACKAGE) throw new Error("--write times the package in dist/ only");
const ROUNDS = 3;
// Build variants to compare (opt-level, simd128), each built and timed in a child process.
const VARIANTS = [
  ...["z", "s", "2", "3"].flatMap((optLevel) => [false, true].map((simd) => ({ optLevel, simd }))),
  DEFAULT,
];

const work = mkdtempSync(join(tmpdir(), "loopcompact-js-bench-"));
try {
  // ---- inputs ----
  const summaryPath = join(work, "summary.xml");
  const transcriptPath = join(work, "transcript.json");
  const fingerprintPath = join(work, "fingerprint.json");
  const summary4kPath = join(work, "summary_4k.xml");
  writeFileSync(summaryPath, execFileSync("python3", [join(inputs, "make_summary.py"), String(1 << 20)]));
  writeFileSync(summary4kPath, execFileSync("python3", [join(inputs, "make_summary.py"), "4096"]));
  writeFileSync(transcriptPath, execFileSync("python3", [join(inputs, "make_transcript.py"), String(1 << 20)]));
  const vector = readFileSync(join(root, "tests", "vectors", "fingerprint.jsonl"), "utf8").split("\n")[0];
  writeFileSync(fingerprintPath, JSON.parse(vector).input);

  // ---- native ----
  const cargo = process.env.CARGO || "cargo";
  const manifest = join(here, "native", "Cargo.toml");
  const env = { ...process.env, CARGO_TARGET_DIR: join(root, "target", "js-bench") };
  execFileSync(cargo, ["build", "--release", "--locked", "--quiet", "--manifest-path", manifest], { env, stdio: "inherit" });
  const runNative = () =>
    Object.fromEntries(
      execFileSync(join(root, "target", "js-bench", "release", "loopcompact-js-bench-native"), [
        summaryPath,
        transcriptPath,
        fingerprintPath,
        summary4kPath,
      ])
        .toString()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
        .map((r) => [r.case, r.ns]),
    );

  // ---- wasm ----
  const bytes = (path) => new Uint8Array(readFileSync(path));
  const summary = bytes(summaryPath);
  const transcript = bytes(transcriptPath);
  const fingerprint = bytes(fingerprintPath);
  const summary4k = bytes(summary4kPath);
  const text = new TextDecoder();
  const summaryText = text.decode(summary);
  const transcriptText = text.decode(transcript);
  const fingerprintText = text.decode(fingerprint);
  const summary4kText = text.decode(summary4k);
  // The plain C ABI functions on an instance of the same module, the document already in its
  // memory: the call the package makes, without the package.
  const wasmFile = process.env.LOOPCOMPACT_BENCH_PACKAGE
    ? join(dirname(resolve(process.env.LOOPCOMPACT_BENCH_PACKAGE)), "loopcompact.wasm")
    : join(pkg, "dist", "loopcompact.wasm");
  const bare = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(wasmFile)), {}).exports;
  const place = (b) => {
    const ptr = bare.lc_wasm_alloc(b.length);
    new Uint8Array(bare.memory.buffer).set(b, ptr);
    return ptr;
  };
  const [summary4kAt, summaryAt, transcriptAt] = [place(summary4k), place(summary), place(transcript)];
  const runWasm = () => ({
    summary4kBare: time(() => bare.lc_summary_xml_validate(summary4kAt, summary4k.length)),
    summary4k: time(() => lc.validateSummary(summary4k)),
    summary4kString: time(() => lc.validateSummary(summary4kText)),
    summaryBare: time(() => bare.lc_summary_xml_validate(summaryAt, summary.length)),
    transcriptBare: time(() => bare.lc_compaction_input_validate(transcriptAt, transcript.length)),
    summary: time(() => lc.validateSummary(summary)),
    summaryString: time(() => lc.validateSummary(summaryText)),
    transcript: time(() => lc.validateInput(transcript)),
    transcriptString: time(() => lc.validateInput(transcriptText)),
    transcriptParse: time(() => lc.Input.parse(transcript).free()),
    fingerprint: time(() => lc.requestFingerprint(fingerprint)),
    fingerprintString: time(() => lc.requestFingerprint(fingerprintText)),
  });

  // Native and wasm alternate for ROUNDS rounds and each case keeps its best round, so that a
  // burst of load on this shared machine skews neither side of a ratio alone.
  const best = (runs) => Object.fromEntries(Object.keys(runs[0]).map((k) => [k, Math.min(...runs.map((r) => r[k]))]));
  const nativeRuns = [];
  const wasmRuns = [];
  for (let round = 0; round < ROUNDS; round++) {
    nativeRuns.push(runNative());
    wasmRuns.push(runWasm());
  }
  const native = best(nativeRuns);
  const wasm = best(wasmRuns);

  // ---- SHA-256 alone (bench/sha256.mjs), on the fingerprint's bytes ----
  const sha256 = sha256Rows([fingerprint]);

  // ---- sizes ----
  const wasmBytes = readFileSync(wasmFile);
  const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: pkg }).toString().trim().split("\n").at(-1);
  const tarball = statSync(join(work, packed)).size;

  // ---- build variants ----
  const variants = [];
  if (process.argv.includes("--variants")) {
    for (const v of VARIANTS) {
      const path = join(work, `variant-${v.optLevel}${v.simd ? "-simd" : ""}${v.inline ?? ""}.wasm`);
      writeFileSync(path, readFileSync(cargoWasm(root, v, { quiet: true })));
      const out = execFileSync(process.execPath, [join(here, "variant.mjs"), path, summaryPath, transcriptPath]);
      const b = readFileSync(path);
      variants.push({ ...v, raw: b.length, gzip: gzipSync(b, { level: 9 }).length, ...JSON.parse(out.toString()) });
    }
    cargoWasm(root, DEFAULT, { quiet: true }); // leave the default build in target/
  }

  // ---- report ----
  const mibps = (n, ns) => `${((n / (1 << 20)) / (ns / 1e9)).toFixed(0)} MiB/s`;
  const us = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(2)} µs`);
  const rows = [
    ["summary XML, 1 MiB (`validateSummary`)", summary.length, "summary", wasm.summary, wasm.summaryString],
    ["transcript wire, 1 MiB (`validateInput`)", transcript.length, "transcript", wasm.transcript, wasm.transcriptString],
    [`request fingerprint, ${fingerprint.length} B (\`requestFingerprint\`)`, fingerprint.length, "fingerprint", wasm.fingerprint, wasm.fingerprintString],
  ];
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root }).toString().trim();
  const cpu = readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.*)$/m)?.[1] ?? "unknown CPU";
  const section = [
    "<!-- bindings/js:begin -->",
    "## JavaScript package (bindings/js, WebAssembly in Node)",
    "",
    `Produced by \`cd bindings/js && npm run build && npm run bench -- --write${variants.length > 0 ? " --variants" : ""}\` (not by \`scripts/bench\`):`,
    "the package's wasm in Node against the native library (`bench/native`, the same C ABI calls:",
    "the `_diagnose` functions the package uses) in the same run, on the same 1 MiB inputs of",
    "`benches/gen/make_summary.py` and `make_transcript.py` and the first fingerprint vector. A",
    "figure is the median of 7 batches of at least 200 ms in CPU time of the process, the best of 3",
    "rounds in which native and wasm alternate (this is a shared 2-core machine). Times per call",
    "include copying the input into wasm memory (and for a `string`, encoding it as UTF-8).",
    "",
    `- date: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, commit \`${commit}\``,
    `- machine: ${cpu}; Node ${process.version}; ${execFileSync("rustc", ["--version"]).toString().trim()}`,
    `- \`dist/loopcompact.wasm\`: ${wasmBytes.length} bytes raw, ${gzipSync(wasmBytes, { level: 9 }).length} bytes gzip -9; \`npm pack\` tarball: ${tarball} bytes`,
    "",
    "| input | native | wasm, `Uint8Array` | wasm / native time | wasm, `string` |",
    "|---|---|---|---|---|",
    ...rows.map(([label, n, key, w, ws]) => {
      const nat = native[key];
      return `| ${label} | ${us(nat)} (${mibps(n, nat)}) | ${us(w)} (${mibps(n, w)}) | ${(w / nat).toFixed(2)}x | ${us(ws)} (${mibps(n, ws)}) |`;
    }),
    `| transcript wire, 1 MiB (\`Input.parse\` + \`free\`) | | ${us(wasm.transcriptParse)} (${mibps(transcript.length, wasm.transcriptParse)}) | | |`,
    "",
    "Host overhead, same run: the package's call against the plain C ABI function (`lc_summary_xml_validate`,",
    "`lc_compaction_input_validate`) called on an instance of the same module with the document already",
    "in its memory (\"wasm C ABI\"), and against the native library's plain function.",
    "",
    "| document | native C ABI | wasm C ABI | package, `Uint8Array` | / wasm C ABI | package, `string` | / wasm C ABI |",
    "|---|---|---|---|---|---|---|",
    ...[
      [`summary XML, ${summary4k.length} B (\`validateSummary\`)`, native.summary4kValidate, wasm.summary4kBare, wasm.summary4k, wasm.summary4kString],
      [`summary XML, ${summary.length} B (\`validateSummary\`)`, native.summaryValidate, wasm.summaryBare, wasm.summary, wasm.summaryString],
      [`transcript wire, ${transcript.length} B (\`validateInput\`)`, native.transcriptValidate, wasm.transcriptBare, wasm.transcript, wasm.transcriptString],
    ].map(
      ([label, nat, b, u, st]) =>
        `| ${label} | ${us(nat)} | ${us(b)} | ${us(u)} | ${(u / b).toFixed(2)}x | ${us(st)} | ${(st / b).toFixed(2)}x |`,
    ),
    "",
    `Where the 1 MiB summary's time goes: the wasm C ABI call takes ${us(wasm.summaryBare)} (${(wasm.summaryBare / native.summaryValidate).toFixed(2)}x the`,
    `native call), and the package adds ${us(wasm.summary - wasm.summaryBare)}, nearly all of it copying the document into wasm`,
    "memory (a wasm module reads only its own memory, so no package can skip that copy; with the",
    "document and its copy, 2 MiB go through the cache where the native call reads 1 MiB). The",
    `transcript likewise: ${(wasm.transcriptBare / native.transcriptValidate).toFixed(2)}x in the wasm call, ${us(wasm.transcript - wasm.transcriptBare)} of copy.`,
    "",
    "SHA-256 alone (`bench/sha256.mjs`: the library's `sha2` crate built natively and for wasm32), same run, on",
    "the fingerprint's bytes, which a canonical request hashes as they are: the floor under",
    "`requestFingerprint` on each side. The native build uses the CPU's SHA extensions where it has",
    "them (this one does); wasm has no such instructions, so no build of the package can come",
    "near the native call there.",
    "",
    ...sha256Table(sha256),
    "",
    `So the wasm fingerprint (${us(wasm.fingerprint)}) is SHA-256 (${us(sha256[0].simd)}) plus reading the request; the native call`,
    `(${us(native.fingerprint)}) takes less than wasm's SHA-256 alone: ${(sha256[0].simd / native.fingerprint).toFixed(2)}x of it is the hash. On a CPU without SHA extensions`,
    `the native library runs the portable rounds, ${us(sha256[0].nativeSoft)} for SHA-256 alone here, and wasm's hash is ${(sha256[0].simd / sha256[0].nativeSoft).toFixed(2)}x that.`,
    ...(variants.length === 0
      ? []
      : [
          "",
          "Build variants (scripts/wasm.mjs; `--variants`), same run, `Uint8Array` inputs. The rows without",
          "`simd128` are what an engine without Wasm SIMD would get from a build for it (the package's own",
          "build needs SIMD: such an engine refuses to compile it); the no-SIMD SHA-256 above is its fingerprint floor.",
          ...(() => {
            const at = (simd) => variants.find((v) => v.optLevel === "2" && v.simd === simd && v.inline === undefined);
            const [plain, simd] = [at(false), at(true)];
            if (!plain || !simd) return [];
            return [
              `Without SIMD (opt-level 2) the 1 MiB summary takes ${us(plain.summary)}, ${(plain.summary / simd.summary).toFixed(1)}x the same build with it and`,
              `${(plain.summary / native.summary).toFixed(1)}x native, and the transcript ${us(plain.transcript)} (${(plain.transcript / simd.transcript).toFixed(1)}x, ${(plain.transcript / native.transcript).toFixed(1)}x native): the portable lanes and memchr's`,
              "fallback are not vectorised there, and the UTF-8 check and byte searches lose their SIMD too.",
            ];
          })(),
          "",
          "| opt-level | simd128 | inline threshold | raw | gzip -9 | summary 1 MiB | transcript 1 MiB |",
          "|---|---|---|---|---|---|---|",
          ...variants.map(
            (v) =>
              `| ${v.optLevel} | ${v.simd ? "yes" : "no"} | ${v.inline === undefined ? "default" : `${v.inline}${v === DEFAULT ? " (the build)" : ""}`} | ${v.raw} | ${v.gzip} | ${us(v.summary)} | ${us(v.transcript)} |`,
          ),
        ]),
    "<!-- bindings/js:end -->",
  ].join("\n");
  console.log(section);

  if (write) {
    const path = join(root, "BENCHMARKS.md");
    const old = readFileSync(path, "utf8");
    const re = /<!-- bindings\/js:begin -->[\s\S]*?<!-- bindings\/js:end -->/;
    writeFileSync(path, re.test(old) ? old.replace(re, section) : `${old.trimEnd()}\n\n${section}\n`);
    console.log("wrote the section into BENCHMARKS.md");
  }
} finally {
  for (const f of existsSync(work) ? readdirSync(work) : []) rmSync(join(work, f), { force: true });
  rmSync(work, { recursive: true, force: true });
}
