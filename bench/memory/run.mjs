// Where a deploy's memory goes: peak RSS per process of `platform deploy`'s tree (the CLI, the
// Pulumi engine, the language host, the program, the provider plugin, and any other child)
// on examples/fullstack, no change and an API code change, for one or more variants of the
// platform run interleaved on the same deployed app (another checkout, or extra environment).
// Usage: source ~/.platform/env.sh && node bench/memory/run.mjs [--runs 3] [--cases nochange,api]
//          [--variant 'NAME|ROOT|K=V K=V|CLI NODE FLAGS' ...] [--json FILE]
//   ROOT: a built checkout (default: this one). Each variant deploys the same project in turn.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { removeImages } from "../compare/docker.mjs";
import { median, platformArgs } from "../compare/measure.mjs";
import { sampleTree } from "./sample.mjs";

const ROOT = resolve(import.meta.dirname, "..", "..");
const { values: opt } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    cases: { type: "string", default: "nochange,api" },
    variant: { type: "string", multiple: true },
    json: { type: "string" },
  },
});
const variants = (opt.variant ?? [`this|${ROOT}|`]).map((v) => {
  const [name, root, envText = "", flags = ""] = v.split("|");
  const env = Object.fromEntries(
    envText
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
  return { name, root: resolve(root || ROOT), env, flags: flags.split(/\s+/).filter(Boolean) };
});
const RUNS = Number(opt.runs);
const CASES = opt.cases.split(",");

const id = Date.now().toString(36).slice(-5);
const work = mkdtempSync(join(tmpdir(), "bench-memory-"));
const app = join(work, "app");
cpSync(join(ROOT, "examples", "fullstack"), app, { recursive: true, filter: (s) => !/node_modules|\.next|__pycache__|\.platform/.test(s) });
mkdirSync(join(work, "state"));
const project = `bench-mem-${id}`;
const baseEnv = {
  ...process.env,
  CI: "true",
  PLATFORM_BACKEND_URL: `file://${work}/state`,
  PLATFORM_PASSPHRASE: "bench",
  PLATFORM_BUILD_CA_FILE: "/etc/ssl/certs/ca-certificates.crt",
};

function deploy(variant, args = []) {
  return new Promise((done, fail) => {
    const t0 = process.hrtime.bigint();
    const nodeArgs = platformArgs(variant.root);
    const bin = nodeArgs.pop();
    const child = spawn(process.execPath, [...nodeArgs, ...variant.flags, bin, "deploy", ...args, "--project", project], {
      cwd: app,
      env: { ...baseEnv, ...variant.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const sampler = sampleTree(child.pid);
    const out = [];
    child.stdout.on("data", (b) => out.push(b));
    child.stderr.on("data", (b) => out.push(b));
    child.on("error", fail);
    child.on("close", (code) => {
      const mem = sampler.stop();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) fail(new Error(`deploy (${variant.name}) exited ${code}:\n${Buffer.concat(out).toString().slice(-3000)}`));
      else done({ ms, ...mem });
    });
  });
}

const results = { id, started: new Date().toISOString(), variants, samples: [] };
const save = () => opt.json && writeFileSync(opt.json, `${JSON.stringify(results, null, 2)}\n`);
const appendLine = (file, line) => writeFileSync(file, `${readFileSync(file, "utf8")}${line}\n`);
let edit = 0;
try {
  const first = await deploy(variants[0], ["--yes"]);
  console.log(`first deploy (${variants[0].name}): ${(first.ms / 1000).toFixed(1)} s`);
  for (let run = 0; run < RUNS; run++) {
    for (const c of CASES) {
      const order = run % 2 ? [...variants].reverse() : variants;
      for (const v of order) {
        if (c === "api") appendLine(join(app, "api", "app", "main.py"), `# bench memory change ${++edit}`);
        const load = loadavg()[0];
        const r = await deploy(v);
        results.samples.push({ variant: v.name, case: c, run, load, ...r });
        save();
        console.log(`${c} ${v.name}: ${(r.ms / 1000).toFixed(2)} s, tree ${Math.round(r.tree / 1024)} MiB, load ${load.toFixed(2)}`);
      }
    }
  }
} finally {
  try {
    execFileSync(process.execPath, [join(variants[0].root, "dist", "bin.js"), "destroy", "--yes", "--delete-data", "--project", project], {
      cwd: app,
      env: baseEnv,
      stdio: "ignore",
    });
  } catch {
    console.error(`destroy of ${project} failed: remove it by hand`);
  }
  await removeImages(`platform/${project}*`);
  rmSync(work, { recursive: true, force: true });
  rmSync(join(process.env.PLATFORM_HOME ?? join(process.env.HOME, ".platform"), "projects", project), { recursive: true, force: true });
}

// Report: per case and variant, medians (min–max) over the runs.
const mib = (kb) => Math.round(kb / 1024);
const span = (xs, f) => `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
for (const c of CASES) {
  console.log(`\n### ${c}\n`);
  const kinds = [...new Set(results.samples.filter((s) => s.case === c).flatMap((s) => Object.keys(s.perKind)))].sort();
  console.log(`| process | ${variants.map((v) => `${v.name} peak RSS, MiB (anon + file)`).join(" | ")} |`);
  console.log(`| --- | ${variants.map(() => "---").join(" | ")} |`);
  const of = (v) => results.samples.filter((s) => s.case === c && s.variant === v.name);
  for (const k of kinds) {
    const cells = variants.map((v) => {
      const ss = of(v)
        .map((s) => s.perKind[k])
        .filter(Boolean);
      if (!ss.length) return "–";
      const count = Math.max(...ss.map((s) => s.count));
      return `${span(
        ss.map((s) => s.hwm),
        mib,
      )} (${mib(median(ss.map((s) => s.anon)))} + ${mib(median(ss.map((s) => s.file)))})${count > 1 ? ` ×${count}` : ""}`;
    });
    console.log(`| ${k} | ${cells.join(" | ")} |`);
  }
  const row = (label, f) => console.log(`| ${label} | ${variants.map((v) => f(of(v))).join(" | ")} |`);
  row(
    "**tree (summed RSS)**",
    (ss) =>
      `**${span(
        ss.map((s) => s.tree),
        mib,
      )}**`,
  );
  row("deploy time, s", (ss) =>
    span(
      ss.map((s) => s.ms),
      (ms) => (ms / 1000).toFixed(2),
    ),
  );
  row("load average (1 min)", (ss) =>
    span(
      ss.map((s) => s.load),
      (l) => l.toFixed(1),
    ),
  );
}
