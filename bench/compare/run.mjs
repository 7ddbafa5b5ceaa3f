// platform deploy against docker compose v2 on examples/fullstack, same machine, same run,
// interleaved (the tool that goes first alternates). See bench/README.md.
// Usage: npm run build && source ~/.platform/env.sh && npm run bench:compare -- [--runs N] [--cases a,b] [--json FILE]
//   cases: cold, nochange, api, env, web, both (default: all). cold also measures the physical limit.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { composeBinary } from "./compose-binary.mjs";
import { removeImages, saltedBase } from "./docker.mjs";
import { measureLimit } from "./limit.mjs";
import { stopRunning } from "./measure.mjs";
import { printTables } from "./report.mjs";
import { composeTool, edgeWatcher, edits, platformTool } from "./tools.mjs";

const ROOT = resolve(import.meta.dirname, "..", "..");
function commitOf(root) {
  try {
    return execFileSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    /* a copy of the tree */
  }
  try {
    return readFileSync(join(root, "COMMIT"), "utf8").trim();
  } catch {
    return "unknown";
  }
}
const ALL = ["cold", "nochange", "api", "env", "web", "both"];
const { values: opt } = parseArgs({
  options: { runs: { type: "string", default: "5" }, cases: { type: "string", default: ALL.join(",") }, json: { type: "string" } },
});
const RUNS = Number(opt.runs);
const CASES = opt.cases.split(",");
for (const c of CASES) if (!ALL.includes(c)) throw new Error(`unknown case ${c} (known: ${ALL.join(", ")})`);

const PLATFORM_HOME = process.env.PLATFORM_HOME || join(process.env.HOME, ".platform");
const images = JSON.parse(readFileSync(join(PLATFORM_HOME, "images.json"), "utf8"));
const caFile = ["/etc/ssl/certs/ca-certificates.crt"].find((f) => {
  try {
    return readFileSync(f).length > 0;
  } catch {
    return false;
  }
});
const id = Date.now().toString(36).slice(-5);
const work = mkdtempSync(join(tmpdir(), "bench-compare-"));
const composeBin = await composeBinary(ROOT);
const edge = edgeWatcher();
const common = { root: ROOT, work, id, env: {}, caFile };
const tools = [platformTool({ ...common, edge }), composeTool({ ...common, composeBin, images })];
const results = { id, runs: RUNS, commit: commitOf(ROOT), started: new Date().toISOString(), samples: {}, limit: [] };
// Results so far go to --json after every sample: a long run stopped early keeps them.
const save = () => opt.json && writeFileSync(opt.json, `${JSON.stringify(results, null, 2)}\n`);
const record = (tool, c, r) => {
  const key = `${tool}/${c}`;
  results.samples[key] ??= [];
  results.samples[key].push({ ms: r.ms, mem: r.mem });
  save();
};

// A cold run's bases, and what the set-up makes of them before any deploy: the OpenTelemetry
// layers (README "Telemetry"), built here untimed, as the set-up builds them once per machine.
const { buildOtelLayers } = await import(join(ROOT, "dist", "provider", "docker", "otel-layers.js"));
const saltedLayers = new Set();
async function bases(salt) {
  const b = {
    python: await saltedBase(images.python, `bench-compare-${id}/python`, salt),
    node: await saltedBase(images.node, `bench-compare-${id}/node`, salt),
  };
  const { tags } = await buildOtelLayers(b);
  for (const t of tags) saltedLayers.add(t);
  return { ...b, otelLayers: tags };
}
const order = (i) => (i % 2 ? [...tools].reverse() : tools);
// The other tool's app stays deployed between its runs; what it does meanwhile (compose's
// health checks) must not load the machine while this one is measured (tools.mjs).
const quiesceOthers = async (t, b) => {
  for (const other of tools) if (other !== t) await other.quiesce?.(b);
};
const log = (s) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);

async function coldRuns() {
  let prev = await bases("w0");
  for (let i = 0; i < RUNS; i++) {
    for (const t of order(i)) {
      await quiesceOthers(t, prev);
      await t.reset(prev);
      prev = await bases(`c${i}${t.name[0]}`);
      const r = await t.deploy(prev);
      record(t.name, "cold", r);
      log(`cold ${i + 1}/${RUNS} ${t.name}: ${(r.ms / 1000).toFixed(1)} s`);
    }
    await quiesceOthers(undefined, prev);
    const lb = await bases(`l${i}`);
    const l = await measureLimit({
      root: ROOT,
      dir: tools[0].dir,
      work,
      images: { ...images, ...lb },
      caFile,
      tagPrefix: `bench-compare-${id}`,
    });
    results.limit.push(l);
    save();
    await removeImages(`bench-compare-${id}-*`);
    log(
      `limit ${i + 1}/${RUNS}: ${(l.ms / 1000).toFixed(1)} s (${l.slowest} build ${(l.builds[l.slowest] / 1000).toFixed(1)} s + start ${(l.startMs / 1000).toFixed(1)} s)`,
    );
  }
  for (const t of tools) await t.reset(prev);
  await removeImages(`bench-compare-${id}/*`, ...saltedLayers);
}

const CHANGES = {
  nochange: () => {},
  api: (t, n) => edits.api(t.dir, n),
  env: (t, n) => t.setEnv(n),
  web: (t, n) => edits.web(t.dir, n),
  both: (t, n) => {
    edits.api(t.dir, n);
    edits.web(t.dir, n);
  },
};

async function warmRuns() {
  // The set-up's own bases: what is measured is the change, and a deploy whose layers anyone
  // already built starts the runs sooner (a cold first deploy takes minutes on a busy machine).
  const warm = { python: images.python, node: images.node };
  for (const t of tools) {
    await t.reset(warm);
    await t.deploy(warm);
  }
  for (let i = 0; i < RUNS; i++) {
    for (const c of CASES.filter((x) => x !== "cold")) {
      for (const t of order(i)) {
        await quiesceOthers(t, warm);
        await t.resume?.(warm);
        CHANGES[c](t, `${i}-${Date.now()}`);
        const r = await t.deploy(warm);
        record(t.name, c, r);
        log(`${c} ${i + 1}/${RUNS} ${t.name}: ${(r.ms / 1000).toFixed(2)} s`);
      }
    }
  }
  for (const t of tools) await t.reset(warm);
}

async function cleanUp() {
  edge.stop();
  for (const t of tools) await t.reset({}).catch(() => undefined);
  await removeImages(`bench-compare-${id}/*`, `bench-compare-${id}-*`, ...saltedLayers);
  rmSync(work, { recursive: true, force: true });
  rmSync(join(PLATFORM_HOME, "projects", tools[0].project), { recursive: true, force: true });
  rmSync(join(PLATFORM_HOME, "logs", tools[0].project), { recursive: true, force: true });
}
// Stopped (Ctrl-C, kill): the tables of what was measured, then the clean-up.
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    log(`${sig}: the tables so far, then cleaning up`);
    printTables(results, CASES);
    stopRunning()
      .then(cleanUp)
      .finally(() => process.exit(130));
  });
}

try {
  log(`work dir ${work}; compose ${await tools[1].version()} at ${composeBin}`);
  if (CASES.includes("cold")) await coldRuns();
  if (CASES.some((c) => c !== "cold")) await warmRuns();
  printTables(results, CASES);
} finally {
  await cleanUp();
}
