// The installed package in a real browser: headless Chromium loads a page from a local HTTP server
// (127.0.0.1, an ephemeral port); the page imports the package through an import map, loads the
// module with `init()` (streaming compile from the URL beside index.js), validates a valid and an
// invalid summary, runs the summary and fingerprint vectors, converts AI SDK messages (bytes as a
// Uint8Array, a URL object) and maps a round back to them, starts two module Workers (one loads
// the module from bytes with `initSync`, the other is handed a compiled WebAssembly.Module for
// `init`), and POSTs what it saw back. No report within the time limit fails the test.
//
// Chromium: $CHROMIUM, else /usr/bin/chromium (Debian's package). Missing: skipped, or a failure
// under CI=true.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import test from "node:test";

import { VECTORS } from "./vectors.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const REPORT_TIMEOUT_MS = 90_000;
// The installed package's directory (dist/node.js is what "loopcompact" resolves to in Node).
const PACKAGE = dirname(dirname(fileURLToPath(import.meta.resolve("loopcompact"))));

const VALID = "<conversation_summary><goal>ship</goal><constraints/><decisions/><state>green</state><open_items/></conversation_summary>";
const INVALID = "<conversation_summary><goal>ship</goal><decisions/><state>green</state><open_items/></conversation_summary>";

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>loopcompact browser test</title>
<script type="importmap">{"imports": {"loopcompact": "/pkg/dist/index.js"}}</script>
<script type="module">
import * as lc from "loopcompact";
const report = { userAgent: navigator.userAgent };
const VALID = ${JSON.stringify(VALID)};
const INVALID = ${JSON.stringify(INVALID)};
const rows = async (file) =>
  (await (await fetch("/vectors/" + file)).text()).split("\\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const bytes = (row, field) =>
  field in row ? row[field] : Uint8Array.from(atob(row[field + "_base64"]), (c) => c.charCodeAt(0));
const statusOf = (f) => { try { return [0, f()]; } catch (e) { if (!(e instanceof lc.LoopcompactError)) throw e; return [e.status, null]; } };
try {
  await lc.init();
  report.version = lc.version();
  lc.validateSummary(VALID);
  report.valid = "ok";
  try {
    lc.validateSummary(INVALID);
    report.invalid = "accepted";
  } catch (e) {
    report.invalid = {
      isLoopcompactError: e instanceof lc.LoopcompactError,
      name: e.name, status: e.status, statusClass: e.statusClass, offset: e.offset, line: e.line,
      column: e.column, section: e.section, rule: e.rule, expected: e.expected, location: e.location,
      retry: e.retryMessage(),
    };
  }
  const mismatches = [];
  let count = 0;
  for (const row of await rows("summary_xml.jsonl")) {
    count++;
    const [status] = statusOf(() => lc.validateSummary(bytes(row, "xml")));
    const got = status === 0 ? "ok" : lc.statusReason(status);
    if (got !== row.expect) mismatches.push(row.name + ": " + got);
  }
  for (const row of await rows("fingerprint.jsonl")) {
    count++;
    const [status, digest] = statusOf(() => lc.requestFingerprint(bytes(row, "input")));
    const got = status === 0 ? "ok" : lc.statusReason(status);
    if (got !== row.expect || (status === 0 && digest.hex !== row.sha256)) mismatches.push(row.name + ": " + got);
  }
  report.vectors = { count, mismatches };
  // The converters (SPEC §16) with the browser's own bytes and URL objects, and a round mapped back
  // to the caller's list.
  const messages = [
    { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", image: new Uint8Array([137, 80, 78, 71]), mediaType: "image/png" }, { type: "image", image: new URL("https://example.com/cat.png") }] },
    { role: "assistant", content: [{ type: "reasoning", text: "A PNG header.", providerOptions: { anthropic: { signature: "+/+/AQ==" } } }, { type: "text", text: "A PNG." }] },
    { role: "user", content: "Thanks." },
    { role: "assistant", content: "You are welcome." },
  ];
  const conversion = lc.fromModelMessages(messages);
  const input = conversion.input({ provider: "p", model: "m", maxSummaryTokens: 1000, revision: 1 });
  const result = await lc.compact(input, () => ({ text: VALID, outputTokens: 30, stop: "end" }), { keepLast: 1 });
  report.convert = {
    blocks: JSON.parse(new TextDecoder().decode(conversion.transcript)).map((m) => m.blocks),
    sourceIndex: conversion.sourceIndex,
    kind: result.kind,
    next: result.messages(messages).map((m) => (m === messages[3] ? "the same object" : m)),
  };
  input.free();
  conversion.free();
  // Two module workers: one loads the module from bytes (initSync), the other gets a compiled
  // WebAssembly.Module from the page (init(module), what an edge runtime's wasm import gives).
  const inWorker = (message) =>
    new Promise((resolve) => {
      const worker = new Worker("/worker.js", { type: "module" });
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => resolve({ error: String(event.message) });
      worker.postMessage(message);
    });
  report.worker = await inWorker({ mode: "bytes" });
  report.moduleWorker = await inWorker({
    mode: "module",
    module: await WebAssembly.compileStreaming(fetch("/pkg/dist/loopcompact.wasm")),
  });
} catch (e) {
  report.error = String((e && e.stack) || e);
}
await fetch("/report", { method: "POST", body: JSON.stringify(report) });
</script>
`;

const WORKER = `
import * as lc from "/pkg/dist/index.js";
onmessage = async ({ data }) => {
const out = {};
try {
  if (data.mode === "module") await lc.init(data.module);
  else lc.initSync(await (await fetch("/pkg/dist/loopcompact.wasm")).arrayBuffer());
  lc.validateSummary(${JSON.stringify(VALID)});
  out.valid = "ok";
  try { lc.validateSummary(${JSON.stringify(INVALID)}); out.invalid = "accepted"; }
  catch (e) { out.invalid = { name: e.name, offset: e.offset, section: e.section, rule: e.rule }; }
} catch (e) {
  out.error = String((e && e.stack) || e);
}
postMessage(out);
};
`;

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".jsonl": "text/plain" };

function serve(onReport) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const send = (status, type, body) => {
      res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store" });
      res.end(body);
    };
    if (req.method === "POST" && url.pathname === "/report") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        send(204, "text/plain", "");
        onReport(JSON.parse(body));
      });
      return;
    }
    if (url.pathname === "/") return send(200, "text/html; charset=utf-8", PAGE);
    if (url.pathname === "/worker.js") return send(200, "text/javascript", WORKER);
    for (const [prefix, base] of [["/pkg/", PACKAGE], ["/vectors/", VECTORS]]) {
      if (!url.pathname.startsWith(prefix)) continue;
      const path = normalize(join(base, decodeURIComponent(url.pathname.slice(prefix.length))));
      if (!path.startsWith(normalize(base + sep)) || !existsSync(path)) break;
      return send(200, TYPES[extname(path)] ?? "application/octet-stream", readFileSync(path));
    }
    send(404, "text/plain", "not found");
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// SIGKILL to every process of the group, then wait (at most 10 s) until none is left.
async function endGroup(pid) {
  const signal = (sig) => {
    try {
      process.kill(-pid, sig);
      return true;
    } catch (error) {
      if (error.code === "ESRCH") return false;
      throw error;
    }
  };
  signal("SIGKILL");
  for (let waited = 0; waited < 10_000 && signal(0); waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("headless Chromium: page and worker", async (t) => {
  if (!existsSync(CHROMIUM)) {
    if (process.env.CI === "true") assert.fail(`${CHROMIUM} is missing (CI=true): install Debian's chromium`);
    t.skip(`no Chromium at ${CHROMIUM}`);
    return;
  }
  let deliver;
  const reported = new Promise((resolve) => (deliver = resolve));
  const server = await serve(deliver);
  const profile = mkdtempSync(join(tmpdir(), "loopcompact-chromium-"));
  const stderr = [];
  const browser = spawn(
    CHROMIUM,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
      `--user-data-dir=${profile}`,
      `http://127.0.0.1:${server.address().port}/`,
    ],
    // Its own process group: Chromium's zygote, renderer and crash handler outlive a killed
    // parent and keep writing into the profile, so the cleanup below ends the whole group.
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  browser.stderr.on("data", (chunk) => stderr.push(chunk));
  const exited = new Promise((resolve) => browser.on("exit", (code, signal) => resolve({ code, signal })));
  let timer;
  try {
    const report = await Promise.race([
      reported,
      exited.then(({ code, signal }) => {
        throw new Error(`Chromium exited (${code ?? signal}) before the page reported:\n${Buffer.concat(stderr)}`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the page did not report within ${REPORT_TIMEOUT_MS / 1000} s:\n${Buffer.concat(stderr)}`)),
          REPORT_TIMEOUT_MS,
        );
      }),
    ]);
    t.diagnostic(report.userAgent);
    assert.equal(report.error, undefined, report.error);
    assert.equal(report.version, "0.1.0");
    assert.equal(report.valid, "ok");
    assert.equal(report.invalid.isLoopcompactError, true);
    // The same diagnosis as in Node (api.test.mjs): constraints missing, found at byte 39.
    const { retry, ...invalid } = report.invalid;
    assert.deepEqual(invalid, {
      isLoopcompactError: true,
      name: "LC_SUMMARY_XML_STRUCTURE",
      status: 208,
      statusClass: 1,
      offset: 39,
      line: 1,
      column: 40,
      section: 2,
      rule: "X4.18",
      expected: "<constraints>",
      location: "",
    });
    assert.match(retry, /line 1, column 40/);
    assert.ok(report.vectors.count > 100, `${report.vectors.count} vector rows`);
    assert.deepEqual(report.vectors.mismatches, []);
    assert.deepEqual(report.convert, {
      blocks: [
        [
          { type: "text", text: "What is this?" },
          { type: "image", media_type: "image/png", source: { url: "", data: "iVBORw==" } },
          { type: "image", media_type: "", source: { url: "https://example.com/cat.png", data: null } },
        ],
        [
          { type: "thinking", thinking: "A PNG header.", signature: "+/+/AQ==", signature_format: "anthropic" },
          { type: "text", text: "A PNG." },
        ],
        [{ type: "text", text: "Thanks." }],
        [{ type: "text", text: "You are welcome." }],
      ],
      sourceIndex: [0, 1, 2, 3],
      kind: "compacted",
      next: [{ role: "user", content: VALID }, "the same object"],
    });
    for (const worker of [report.worker, report.moduleWorker]) {
      assert.deepEqual(worker, {
        valid: "ok",
        invalid: { name: "LC_SUMMARY_XML_STRUCTURE", offset: 39, section: 2, rule: "X4.18" },
      });
    }
  } finally {
    clearTimeout(timer);
    await endGroup(browser.pid);
    await exited;
    await new Promise((resolve) => server.close(resolve));
    server.closeAllConnections?.();
    // The profile is scratch: a late write by a dying child is retried, never a test failure.
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    } catch (error) {
      t.diagnostic(`left ${profile}: ${error.code}`);
    }
  }
});
