// SHA-256 alone, natively and in wasm, on the same bytes: the floor under `requestFingerprint`'s
// time on each side (a canonical request is hashed as it is: its time is reading it plus SHA-256 of
// all of it). bench/sha256 is the `sha2` crate the library uses, built five ways: natively (SHA-NI
// where the CPU has it, else the portable rounds), natively with the portable rounds forced
// (`--cfg sha2_backend="soft"`: a CPU without SHA extensions), for wasm32 with `simd128` (the package's build:
// sha2's wasm SIMD message schedule), the same with sha2's portable rounds forced, and without
// `simd128` (the portable rounds: what the library gets on an engine without SIMD). Timed as bench.mjs times (time.mjs), the best of 3 rounds.
//
//   node bench/sha256.mjs [FILE...]    # default: the first fingerprint vector's input, and 64 KiB
//
// Prints a Markdown table; bench.mjs --write puts it into BENCHMARKS.md with the rest.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { time } from "./time.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..", "..");

/** The wasm builds: the package's (`simd128`: sha2 selects its wasm SIMD message schedule), sha2's
 * portable unrolled rounds in the same build (`--cfg sha2_backend="soft"`), and no SIMD at all. */
export const WASM_BUILDS = {
  simd: "-C target-feature=+simd128",
  soft: '-C target-feature=+simd128 --cfg sha2_backend="soft"',
  plain: "-C target-feature=-simd128",
};

/** Builds bench/sha256 (the two native and the three wasm builds) and times it on `inputs` (Uint8Array[]). */
export function sha256Rows(inputs) {
  const cargo = process.env.CARGO || "cargo";
  const manifest = join(here, "sha256", "Cargo.toml");
  const target = join(root, "target", "sha256-bench");
  const build = (args, name, rustflags) =>
    execFileSync(cargo, ["build", "--release", "--locked", "--quiet", "--manifest-path", manifest, ...args], {
      env: { ...process.env, CARGO_TARGET_DIR: name ? `${target}-${name}` : target, RUSTFLAGS: rustflags ?? "" },
      stdio: "inherit",
    });
  build([]);
  build([], "native-soft", '--cfg sha2_backend="soft"');
  const wasm = {};
  for (const [name, flags] of Object.entries(WASM_BUILDS)) {
    build(["--lib", "--target", "wasm32-unknown-unknown"], name, flags);
    const file = join(`${target}-${name}`, "wasm32-unknown-unknown", "release", "loopcompact_sha256_bench.wasm");
    wasm[name] = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(file)), {}).exports;
  }
  const work = mkdtempSync(join(tmpdir(), "loopcompact-sha256-"));
  try {
    const files = inputs.map((bytes, k) => {
      const path = join(work, `input-${k}`);
      writeFileSync(path, bytes);
      return path;
    });
    const best = inputs.map(() => ({ native: Infinity, nativeSoft: Infinity, ...Object.fromEntries(Object.keys(WASM_BUILDS).map((k) => [k, Infinity])) }));
    for (let round = 0; round < 3; round++) {
      const native = execFileSync(join(target, "release", "loopcompact-sha256-bench"), files).toString().trim().split("\n");
      native.forEach((line, k) => (best[k].native = Math.min(best[k].native, JSON.parse(line).ns)));
      const soft = execFileSync(join(`${target}-native-soft`, "release", "loopcompact-sha256-bench"), files).toString().trim().split("\n");
      soft.forEach((line, k) => (best[k].nativeSoft = Math.min(best[k].nativeSoft, JSON.parse(line).ns)));
      for (const [name, x] of Object.entries(wasm)) {
        inputs.forEach((bytes, k) => {
          const ptr = x.sha256_buffer(bytes.length);
          new Uint8Array(x.memory.buffer).set(bytes, ptr);
          best[k][name] = Math.min(best[k][name], time(() => x.sha256_hash(ptr, bytes.length)));
        });
      }
    }
    return inputs.map((bytes, k) => ({ bytes: bytes.length, ...best[k] }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The Markdown table of `sha256Rows`. */
export function sha256Table(rows) {
  const us = (ns) => `${(ns / 1e3).toFixed(2)} µs`;
  const cell = (r, k) => `${us(r[k])} (${(r[k] / r.native).toFixed(2)}x)`;
  return [
    "| bytes | native `sha2` | native, portable rounds | wasm, `simd128` (the package) | wasm, `simd128`, portable rounds | wasm, no SIMD |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.bytes} | ${us(r.native)} | ${cell(r, "nativeSoft")} | ${cell(r, "simd")} | ${cell(r, "soft")} | ${cell(r, "plain")} |`),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2);
  const inputs =
    files.length > 0
      ? files.map((f) => new Uint8Array(readFileSync(f)))
      : [
          new TextEncoder().encode(JSON.parse(readFileSync(join(root, "tests", "vectors", "fingerprint.jsonl"), "utf8").split("\n")[0]).input),
          new Uint8Array(65536).fill(0x61),
        ];
  for (const line of sha256Table(sha256Rows(inputs))) console.log(line);
}
