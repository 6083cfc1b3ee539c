// npm run build: the WebAssembly build of the library, the constants generated from the C header,
// and the TypeScript compiled to dist/.
//
//   1. cargo builds the cdylib for wasm32-unknown-unknown with a profile of its own, defined for
//      this build only (scripts/wasm.mjs says which settings and why).
//   2. src/generated.ts: every `#define` of include/loopcompact.h that a host needs (status codes,
//      sections, status classes, pressure levels, counter qualities, sizes) and the wasm32 layout
//      of the header's structs, computed from their declarations.
//   3. tsc compiles src/ to dist/ (JavaScript and .d.ts); the .wasm and the licence texts are
//      copied beside it.
//   4. dist/node.cjs for require() (Node before 20.19 cannot require an ES module): esbuild bundles
//      dist/node.js into one CommonJS file, with import.meta.url defined as the file's own URL so
//      that it finds loopcompact.wasm beside it; its declarations are the .d.ts files renamed to
//      .d.cts (TypeScript reads a .d.ts of a "type": "module" package as an ES module).
//
// Environment: LOOPCOMPACT_WASM=path skips step 1 and takes that .wasm; CARGO as usual.

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { cargoWasm } from "./wasm.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const root = resolve(pkg, "..", "..");
const header = readFileSync(join(root, "include", "loopcompact.h"), "utf8");

// ---- 1. the .wasm ------------------------------------------------------------------------------

// Read now: LOOPCOMPACT_WASM may name the dist/ copy that step 3 replaces.
const wasm = readFileSync(process.env.LOOPCOMPACT_WASM || cargoWasm(root));

// ---- 2. src/generated.ts -------------------------------------------------------------------------

const defines = new Map();
for (const m of header.matchAll(/^#define (\w+) (.+)$/gm)) defines.set(m[1], m[2].trim());
const number = (name) => {
  const v = defines.get(name);
  if (v === undefined || !/^\d+(ull)?$/.test(v)) throw new Error(`include/loopcompact.h: no numeric #define ${name}`);
  return v.replace(/ull$/, "");
};

// The status codes are the block the header opens with "/* Status codes": doc comment and #define
// pairs up to the first blank line.
const statusBlock = header.slice(header.indexOf("/* Status codes"));
const statusCodes = [];
for (const line of statusBlock.split("\n").slice(1)) {
  if (line.trim() === "") break;
  const m = /^#define (LC_\w+) (\d+)$/.exec(line);
  if (m) statusCodes.push([m[1], m[2]]);
}
if (statusCodes.length < 10 || statusCodes[0][0] !== "LC_OK") throw new Error("include/loopcompact.h: status block not found");

// A group is every #define with the prefix that is not a status code (LC_REPLY_TRIM is a flag,
// LC_REPLY_TRUNCATED a status).
const statusNames = new Set(statusCodes.map(([n]) => n));
const group = (prefix) =>
  [...defines.keys()].filter((n) => n.startsWith(prefix) && !statusNames.has(n)).map((n) => [n.slice(prefix.length), number(n)]);
const groups = {
  Section: group("LC_SECTION_"),
  StatusClass: group("LC_CLASS_"),
  PressureLevel: group("LC_PRESSURE_"),
  CounterQuality: group("LC_COUNTER_QUALITY_"),
  ReplyCleanup: group("LC_REPLY_"),
  StopCode: group("LC_STOP_"),
  Format: group("LC_FORMAT_"),
  LossCode: group("LC_LOSS_"),
  GrammarCode: group("LC_GRAMMAR_"),
};
for (const [name, entries] of Object.entries(groups)) if (entries.length < 2) throw new Error(`no ${name} constants`);

// C layout of the header's structs on wasm32 (ILP32: size_t and pointers are 4 bytes).
const scalar = { size_t: 4, int32_t: 4, uint32_t: 4, uint64_t: 8, lc_status: 4, uint16_t: 2, uint8_t: 1, char: 1, bool: 1 };
function layout(name) {
  const m = new RegExp(`typedef struct ${name} \\{([\\s\\S]*?)\\} ${name};`).exec(header);
  if (!m) throw new Error(`include/loopcompact.h: no struct ${name}`);
  const body = m[1].replace(/\/\*[\s\S]*?\*\//g, "");
  let offset = 0;
  let align = 1;
  const fields = {};
  for (const decl of body.split(";").map((s) => s.trim()).filter(Boolean)) {
    const f = /^(?:const\s+)?(\w+)\s*(\*?)\s*(\w+)(?:\[(\w+)\])?$/.exec(decl.replace(/\s+/g, " "));
    if (!f) throw new Error(`struct ${name}: cannot read field "${decl}"`);
    const [, type, star, field, count] = f;
    const size = star ? 4 : scalar[type];
    if (size === undefined) throw new Error(`struct ${name}: unknown type ${type}`);
    const n = count === undefined ? 1 : Number(/^\d+$/.test(count) ? count : number(count));
    offset = Math.ceil(offset / size) * size;
    fields[field] = offset;
    offset += size * n;
    align = Math.max(align, size);
  }
  return { size: Math.ceil(offset / align) * align, align, fields };
}
const layouts = Object.fromEntries(
  ["lc_diagnostic", "lc_span", "lc_context_limits", "lc_resolved_limits", "lc_loss", "lc_violation"].map((s) => [s, layout(s)]),
);

const version = JSON.parse(defines.get("LOOPCOMPACT_VERSION_STRING"));
const packageVersion = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
if (version !== packageVersion) {
  throw new Error(`package.json version ${packageVersion} is not the library's ${version} (include/loopcompact.h)`);
}

// Each group is a constants object `as const` and a type, the union of its values (`StatusCode` for
// `Status`, the object's own name for the others), so that TypeScript checks a `Section` where one
// is expected and a `switch` over a status can be exhaustive.
const object = (entries) => `{\n${entries.map(([k, v]) => `  ${k}: ${v},`).join("\n")}\n} as const`;
const union = (entries) => [...new Set(entries.map(([, v]) => v))].join(" | ");
const docs = {
  Status: "Status codes (`lc_status`, SPEC §3), `LC_` dropped from the header's names: `Status.SUMMARY_XML_ROOT` is `LC_SUMMARY_XML_ROOT`. Values are stable forever.",
  Section: "Summary sections (`LC_SECTION_*`): `LoopcompactError.section`, `summarySectionText`.",
  StatusClass: "Status classes (`LC_CLASS_*`, SPEC C13.3): what a host does next; `LoopcompactError.statusClass`.",
  PressureLevel: "Pressure levels (`LC_PRESSURE_*`, SPEC L9.3), returned by `pressureLevel`.",
  CounterQuality: "Counter qualities (`LC_COUNTER_QUALITY_*`, SPEC P8.4), the `counterQuality` argument of the policy checks.",
  ReplyCleanup: "Cleanup flags of the bare reply (`LC_REPLY_TRIM`, `LC_REPLY_UNFENCE`, SPEC R15.5): the bits of `removed` in a diagnosis, what cleanup removed around the summary.",
  StopCode: "@internal How the summariser's call ended (`LC_STOP_*`, SPEC R15.1); the API spells it `\"end\"`, `\"length\"` or `null`.",
  Format: "Source formats of the converters (`LC_FORMAT_*`, SPEC §16): the first argument of `convert`; `Conversion.format`.",
  LossCode: "Loss codes (`LC_LOSS_*`, SPEC §16): what a conversion could not carry into the wire transcript; `Conversion.losses[i].code`. Values are stable forever.",
  GrammarCode: "@internal Grammar kinds of `lc_summary_grammar` (`LC_GRAMMAR_*`, SPEC G17.1); the API spells them `\"regex\"`, `\"lark\"`, `\"gbnf\"`.",
};
const typeDocs = {
  Status: ["StatusCode", "A status code: one of the values of `Status`."],
  Section: ["Section", "A summary section: one of the values of `Section`."],
  StatusClass: ["StatusClass", "A status class: one of the values of `StatusClass`."],
  PressureLevel: ["PressureLevel", "A pressure level: one of the values of `PressureLevel`."],
  CounterQuality: ["CounterQuality", "A counter quality: one of the values of `CounterQuality`."],
  ReplyCleanup: ["ReplyCleanup", "One cleanup flag: a value of `ReplyCleanup` (a diagnosis's `removed` is a bitwise OR of them)."],
  StopCode: ["StopCode", "@internal A value of `StopCode`."],
  Format: ["Format", "A source format: one of the values of `Format`."],
  LossCode: ["LossCode", "A loss code: one of the values of `LossCode` (its stable name is `Loss.name`)."],
  GrammarCode: ["GrammarCode", "@internal A value of `GrammarCode`."],
};
const statusEntries = statusCodes.map(([n, v]) => [n.slice(3), v]);
let out = "// Generated by scripts/build.mjs from include/loopcompact.h. Do not edit: `npm run build` rewrites it.\n\n";
out += `/** The library version these declarations come from (\`LOOPCOMPACT_VERSION_STRING\`). */\nexport const HEADER_VERSION = ${JSON.stringify(version)};\n`;
out += `/** The C ABI version the package was built for (\`LC_ABI_VERSION\`); \`init\` checks the module's. */\nexport const ABI_VERSION = ${number("LC_ABI_VERSION")};\n`;
out += `/** Length in bytes of a request fingerprint (\`LC_FINGERPRINT_LEN\`). */\nexport const FINGERPRINT_LEN = ${number("LC_FINGERPRINT_LEN")};\n`;
out += `/** Length of the smallest summary SPEC §4 accepts (\`LC_SMALLEST_SUMMARY_LEN\`): a reply byte limit below it can never be met. */\nexport const SMALLEST_SUMMARY_LEN = ${number("LC_SMALLEST_SUMMARY_LEN")};\n`;
out += `/** @internal The conversion flag that refuses any loss (\`LC_CONVERT_STRICT\`): the \`strict\` option. */\nexport const CONVERT_STRICT = ${number("LC_CONVERT_STRICT")};\n`;
out += `/** @internal The cut flag that cuts before a pending tail (\`LC_CUT_PENDING_TAIL\`): the \`pendingTail\` option. */\nexport const CUT_PENDING_TAIL = ${number("LC_CUT_PENDING_TAIL")};\n\n`;
for (const [name, entries] of [["Status", statusEntries], ...Object.entries(groups)]) {
  const [typeName, typeDoc] = typeDocs[name];
  out += `/** ${docs[name]} */\nexport const ${name} = ${object(entries)};\n`;
  out += `/** ${typeDoc} */\nexport type ${typeName} = ${union(entries)};\n\n`;
}
out += "/** @internal wasm32 layout of the header's structs: size, alignment and field offsets in bytes. */\n";
out += `export const LAYOUT = ${JSON.stringify(layouts, null, 2)} as const;\n`;
writeFileSync(join(pkg, "src", "generated.ts"), out);

// ---- 3. dist/ -------------------------------------------------------------------------------------

rmSync(join(pkg, "dist"), { recursive: true, force: true });
execFileSync(process.execPath, [join(pkg, "node_modules", "typescript", "bin", "tsc"), "-p", join(pkg, "tsconfig.json")], {
  cwd: pkg,
  stdio: "inherit",
});
mkdirSync(join(pkg, "dist"), { recursive: true });
writeFileSync(join(pkg, "dist", "loopcompact.wasm"), wasm);
// The library's licence texts travel with the package (MIT OR Apache-2.0).
for (const licence of ["LICENSE-MIT", "LICENSE-APACHE"]) copyFileSync(join(root, licence), join(pkg, "dist", licence));
console.log(`dist/loopcompact.wasm: ${wasm.length} bytes, ${gzipSync(wasm, { level: 9 }).length} gzipped`);

// ---- 4. dist/node.cjs ---------------------------------------------------------------------------

execFileSync(
  join(pkg, "node_modules", ".bin", "esbuild"),
  [
    join(pkg, "dist", "node.js"),
    "--bundle",
    "--format=cjs",
    "--platform=node",
    "--target=node20",
    "--log-level=warning",
    `--outfile=${join(pkg, "dist", "node.cjs")}`,
    "--define:import.meta.url=__loopcompact_url",
    '--banner:js=const __loopcompact_url = require("node:url").pathToFileURL(__filename).href;',
  ],
  { cwd: pkg, stdio: "inherit" },
);
const cts = (name) => readFileSync(join(pkg, "dist", `${name}.d.ts`), "utf8").replace(/from "\.\/(\w+)\.js"/g, 'from "./$1.cjs"');
writeFileSync(join(pkg, "dist", "generated.d.cts"), cts("generated"));
writeFileSync(join(pkg, "dist", "index.d.cts"), cts("index"));
writeFileSync(join(pkg, "dist", "node.d.cts"), 'export * from "./index.cjs";\n');
