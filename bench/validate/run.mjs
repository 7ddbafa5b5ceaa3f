// Whole-process wall time of `node dist/bin.js validate --file <50 services>` next to the
// floor, `node -e ''`, in the same run, interleaved so both see the same machine state.
// Usage: npm run build && node bench/validate/run.mjs [RUNS]   (default 30 runs each)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateProject } from "./generate.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bin = join(root, "dist", "bin.js");
if (!existsSync(bin)) {
  process.stderr.write("dist/bin.js is missing: run npm run build first\n");
  process.exit(2);
}
const runs = Number(process.argv[2] ?? 30);
const dir = mkdtempSync(join(tmpdir(), "platform-bench-"));
const file = generateProject(dir, 50);
const text = readFileSync(file, "utf8");

function time(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  return { ms, stdout: r.stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

// One warm-up of each, so the first-ever disk read is not counted.
time(["-e", ""]);
const first = time([bin, "validate", "--file", file]);
const floor = [];
const validate = [];
for (let i = 0; i < runs; i++) {
  floor.push(time(["-e", ""]).ms);
  validate.push(time([bin, "validate", "--file", file]).ms);
}
// The same file validated in-process: what parsing and validation cost without Node's startup
// and module loading.
const { validateConfig } = await import(join(root, "dist", "config", "index.js"));
const inProcess = [];
for (let i = 0; i < runs; i++) {
  const t0 = process.hrtime.bigint();
  const r = validateConfig(text, { file, projectDir: dir });
  inProcess.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (!r.ok) throw new Error("the generated file should be valid");
}
rmSync(dir, { recursive: true, force: true });

const mf = median(floor);
const mv = median(validate);
const lines = [
  `file: 50 services, ${text.split("\n").length - 1} lines, ${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB; output: "${first.stdout.split("\n")[0]}", ${first.stdout.split("\n")[1]?.split(":")[0]}`,
  `node ${process.version}, ${runs} runs each, interleaved`,
  "",
  "| command | median | p90 |",
  "|---|---|---|",
  `| node -e '' (floor) | ${mf.toFixed(0)} ms | ${p90(floor).toFixed(0)} ms |`,
  `| node dist/bin.js validate --file <50 services> | ${mv.toFixed(0)} ms | ${p90(validate).toFixed(0)} ms |`,
  `| validateConfig() alone, in-process (warm) | ${median(inProcess).toFixed(1)} ms | ${p90(inProcess).toFixed(1)} ms |`,
  "",
  `ratio ${(mv / mf).toFixed(1)}x the floor; ${(mv - mf).toFixed(0)} ms over it; target <= 300 ms wall: ${mv <= 300 ? "met" : "NOT met"}`,
];
process.stdout.write(`${lines.join("\n")}\n`);
