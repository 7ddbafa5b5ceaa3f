// No-op redeploy of examples/fullstack (`platform deploy` with nothing changed), next to the
// floor of the same machinery: a no-op `pulumi up` of a one-resource program run through the
// same Pulumi CLI, Node.js language host and provider plugin. Interleaved, same run.
// Usage: npm run setup && source ~/.platform/env.sh && node bench/deploy/run.mjs [RUNS]
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..", "..");
const RUNS = Number(process.argv[2] ?? 7);
const work = mkdtempSync(join(tmpdir(), "platform-bench-deploy-"));
const env = { ...process.env, CI: "true", PLATFORM_BACKEND_URL: `file://${work}/state`, PLATFORM_PASSPHRASE: "bench" };
const pulumiEnv = {
  ...env,
  PULUMI_BACKEND_URL: env.PLATFORM_BACKEND_URL,
  PULUMI_CONFIG_PASSPHRASE: "bench",
  PULUMI_SKIP_UPDATE_CHECK: "true",
  PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
};
execFileSync("mkdir", ["-p", `${work}/state`]);

const app = join(work, "fullstack");
cpSync(join(ROOT, "examples", "fullstack"), app, { recursive: true, filter: (s) => !/node_modules|\.next|__pycache__/.test(s) });
const platform = (...args) =>
  spawnSync(process.execPath, [join(ROOT, "dist", "bin.js"), ...args, "--project", "benchfs"], { cwd: app, env, encoding: "utf8" });

const floor = join(work, "floor");
execFileSync("mkdir", ["-p", floor]);
writeFileSync(
  join(floor, "Pulumi.yaml"),
  `name: benchfloor\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.mjs\nplugins:\n  providers:\n    - name: platform\n      path: ${join(ROOT, "bin")}\n`,
);
writeFileSync(
  join(floor, "index.mjs"),
  'import * as pulumi from "@pulumi/pulumi";\nnew pulumi.CustomResource("platform:random:Words", "w", { seedName: "x", words: undefined });\n',
);
symlinkSync(join(ROOT, "node_modules"), join(floor, "node_modules"));
const pulumi = (...args) => spawnSync("pulumi", [...args, "--non-interactive", "--cwd", floor], { env: pulumiEnv, encoding: "utf8" });

function timed(fn) {
  const t0 = process.hrtime.bigint();
  const r = fn();
  if (r.status !== 0) throw new Error(`${r.stdout}\n${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  console.log(`first deploy of examples/fullstack: ${(timed(() => platform("deploy", "--yes")) / 1000).toFixed(1)} s`);
  pulumi("stack", "init", "bench", "--secrets-provider", "passphrase");
  timed(() => pulumi("up", "--yes", "--skip-preview", "--stack", "bench"));
  const floorMs = [];
  const deployMs = [];
  for (let i = 0; i < RUNS; i++) {
    floorMs.push(timed(() => pulumi("up", "--yes", "--skip-preview", "--stack", "bench")));
    deployMs.push(timed(() => platform("deploy")));
  }
  const f = median(floorMs);
  const d = median(deployMs);
  console.log(`\n| command | median | min | max |\n|---|---|---|---|`);
  console.log(
    `| pulumi up, 1 resource, no change (floor) | ${(f / 1000).toFixed(2)} s | ${(Math.min(...floorMs) / 1000).toFixed(2)} s | ${(Math.max(...floorMs) / 1000).toFixed(2)} s |`,
  );
  console.log(
    `| platform deploy, fullstack (12 resources, refresh), no change | ${(d / 1000).toFixed(2)} s | ${(Math.min(...deployMs) / 1000).toFixed(2)} s | ${(Math.max(...deployMs) / 1000).toFixed(2)} s |`,
  );
  console.log(`\nratio ${(d / f).toFixed(2)}x the floor (${RUNS} runs each, interleaved)`);
} finally {
  platform("destroy", "--yes", "--delete-data");
  pulumi("destroy", "--yes", "--stack", "bench");
  rmSync(work, { recursive: true, force: true });
  rmSync(join(process.env.PLATFORM_HOME ?? join(process.env.HOME, ".platform"), "projects", "benchfs"), { recursive: true, force: true });
}
