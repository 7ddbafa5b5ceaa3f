// The scale benchmark (issue 29): generated projects of 1 to 40 services (bench/scale/generate.mjs),
// the platform against docker compose on the same project in the same run, interleaved (the
// tool that goes first alternates). Per size: a cold deploy, no change, one service changed,
// `platform status` (compose: `ps`), `platform validate` (compose: `config --quiet`), with the
// peak memory of each command's whole process tree. See bench/README.md.
// Usage: npm run build && source ~/.platform/env.sh &&
//   node bench/scale/run.mjs [--sizes 1,5,10,20,40] [--runs 3] [--cold-runs 1] [--cases a,b] [--no-public] [--json FILE]
//   --no-public: no public service (no HTTPS edge), for an engine whose edge is someone else's.
//   cases: cold, nochange, change, status, validate (default: all; without cold, the first
//   deploy of each tool is made untimed).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { composeBinary } from "../compare/compose-binary.mjs";
import { pruneSaltedRecords } from "../compare/docker.mjs";
import { stopRunning } from "../compare/measure.mjs";
import { CHANGED_SERVICE, changeService } from "./generate.mjs";
import { printScaleTables } from "./report.mjs";
import { composeTool, platformTool } from "./tools.mjs";

const ROOT = resolve(import.meta.dirname, "..", "..");
const { values: opt } = parseArgs({
  options: {
    sizes: { type: "string", default: "1,5,10,20,40" },
    runs: { type: "string", default: "3" },
    "cold-runs": { type: "string", default: "1" },
    cases: { type: "string", default: "cold,nochange,change,status,validate" },
    "no-public": { type: "boolean", default: false },
    json: { type: "string" },
  },
});
const SIZES = opt.sizes.split(",").map(Number);
const RUNS = Number(opt.runs);
const CASES = opt.cases.split(",");
const COLD_RUNS = CASES.includes("cold") ? Number(opt["cold-runs"]) : 0;

const PLATFORM_HOME = process.env.PLATFORM_HOME || join(process.env.HOME, ".platform");
const images = JSON.parse(readFileSync(join(PLATFORM_HOME, "images.json"), "utf8"));
const caFile = "/etc/ssl/certs/ca-certificates.crt";
const id = Date.now().toString(36).slice(-5);
const marker = `bench-scale-${id}`;
const composeBin = await composeBinary(ROOT);
const commit = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const results = {
  id,
  commit,
  runs: RUNS,
  started: new Date().toISOString(),
  sizes: SIZES,
  publicUrls: !opt["no-public"],
  samples: {},
  load: [],
  pruned: [],
};
const save = () => opt.json && writeFileSync(opt.json, `${JSON.stringify(results, null, 2)}\n`);
const log = (s) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);

function record(n, tool, c, r) {
  const key = `${n}/${tool}/${c}`;
  results.samples[key] ??= [];
  results.samples[key].push({ ms: r.ms, treeMb: r.mem.treeMb, selfMb: r.mem.selfMb });
  results.load.push(loadavg()[0]);
  save();
  log(`${n} services, ${c}, ${tool}: ${(r.ms / 1000).toFixed(2)} s, tree ${r.mem.treeMb} MiB`);
}

let tools = [];
const order = (i) => (i % 2 ? [...tools].reverse() : tools);
/** The other tool's stack idles while one is measured (compose's health checks, tools.mjs). */
async function prepare(t, { resume = true } = {}) {
  for (const other of tools) if (other !== t) await other.quiesce?.();
  if (resume) await t.resume?.();
}

async function measureSize(n) {
  const work = mkdtempSync(join(tmpdir(), `bench-scale-${n}-`));
  const common = { root: ROOT, count: n, images, caFile, composeBin, publicUrls: !opt["no-public"] };
  tools = [platformTool({ ...common, work, project: `${marker}-${n}` }), composeTool({ ...common, work, project: `${marker}-c${n}` })];
  try {
    for (let i = 0; i < COLD_RUNS; i++) {
      for (const t of order(i)) {
        await prepare(t, { resume: false });
        await t.reset();
        // A first build step of this run's own (generate.mjs): nothing anyone cached matches.
        t.generate(`${marker}:${n}${t.name[0]}${i}`);
        record(n, t.name, "cold", await t.deploy());
      }
    }
    // Without cold runs, each tool's first deploy (untimed): what the warm cases start from.
    if (!COLD_RUNS) for (const t of tools) await t.reset().then(() => t.deploy());
    const all = {
      nochange: (t) => t.deploy(),
      change: (t, i) => {
        changeService(t.dir, CHANGED_SERVICE, `${i}-${Date.now()}`);
        return t.deploy();
      },
      status: (t) => t.status(),
      validate: (t) => t.validate(),
    };
    const cases = Object.fromEntries(Object.entries(all).filter(([c]) => CASES.includes(c)));
    for (let i = 0; i < RUNS; i++) {
      for (const [c, f] of Object.entries(cases)) {
        for (const t of order(i)) {
          await prepare(t);
          record(n, t.name, c, await f(t, i));
        }
      }
    }
  } finally {
    for (const t of tools) await t.reset().catch((e) => log(`reset ${t.name}: ${e.message}`));
    const p = await pruneSaltedRecords(marker);
    results.pruned.push({ size: n, ...p });
    save();
    log(
      `${n} services: pruned ${p.removed} own build records (${(p.bytes / 1e9).toFixed(2)} GB), ${p.left} left; ` +
        `records of others gone meanwhile: ${p.foreign}`,
    );
    rmSync(work, { recursive: true, force: true });
    for (const d of ["projects", "logs"]) rmSync(join(PLATFORM_HOME, d, tools[0].project), { recursive: true, force: true });
  }
}

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    stopping = true;
    log(`${sig}: stopping; the tables so far, then the clean-up of the size being measured`);
    printScaleTables(results);
    stopRunning();
  });
}

log(`bench id ${id}, sizes ${SIZES.join(", ")}, ${RUNS} runs per case, compose at ${composeBin}`);
for (const n of SIZES) if (!stopping) await measureSize(n);
printScaleTables(results);
