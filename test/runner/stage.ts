/**
 * One stage of `npm test` (scripts/test.sh): `tsx test/runner/stage.ts STAGE OUT_DIR`.
 *
 * - unit: one vitest process over test/unit, its files side by side (they share nothing).
 * - docker and cluster: each integration file in a vitest process of its own, two at a time
 *   (PLATFORM_TEST_LANES, PLATFORM_TEST_CLUSTER_LANES), the solo files first, then the longest
 *   first (schedule.ts, files.ts); a file's output is printed whole when it ends, so two files
 *   never interleave. The cluster's files share the test cluster: the stage stops it after the
 *   last one, when its tests started it.
 *
 * Each stage has a time limit (PLATFORM_TEST_LIMIT_<STAGE>, minutes): past it, every file still
 * running is stopped and the stage fails with "stage X exceeded N min" and the files it was
 * running. After a failure no new file starts (PLATFORM_TEST_KEEP_GOING=1 runs them all).
 * Writes OUT_DIR/STAGE.json (every file's outcome) for the run's report (summary.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { RUN_ID_VAR } from "../integration/helpers/cluster-marker.js";
import { STAGE_STOPS_CLUSTER_VAR, stopClusterStartedByRun } from "../integration/helpers/cluster-teardown.js";
import { ROOT, recordedTimings, rel, SOLO_FILES, STAGES, type Stage, stageFiles } from "./files.js";
import { countsOf, type FileOutcome, perFile, timingTable } from "./report.js";
import { type Job, orderJobs, takeNext } from "./schedule.js";

const DEFAULT_LIMIT_MIN: Record<Stage, number> = { unit: 10, docker: 45, cluster: 40 };
const VITEST = join(ROOT, "node_modules", ".bin", "vitest");

const stage = process.argv[2] as Stage;
const out = process.argv[3] ?? "";
if (!STAGES.includes(stage) || !out) {
  console.error(`usage: tsx test/runner/stage.ts ${STAGES.join("|")} OUT_DIR`);
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const limitMin = Number(process.env[`PLATFORM_TEST_LIMIT_${stage.toUpperCase()}`] ?? DEFAULT_LIMIT_MIN[stage]);
const keepGoing = process.env.PLATFORM_TEST_KEEP_GOING === "1";
const t0 = performance.now();
const outcomes: FileOutcome[] = [];
const live = new Map<ChildProcess, string[]>();
const slug = (f: string) => f.replace(/^test\//, "").replace(/[/.]/g, "_");
// The run's id, which vitest's global set-up keeps: a cluster this stage's tests started is
// stopped when the stage is stopped too, not only by vitest's teardown at a normal end.
process.env[RUN_ID_VAR] ??= `${process.pid}-${Date.now()}`;
if (stage === "cluster") process.env[STAGE_STOPS_CLUSTER_VAR] = "1";

/** A vitest process on `files`; its exit code, with the JSON report at `json`. */
function vitest(files: string[], json: string, extra: string[], output: (c: ChildProcess) => void): Promise<number> {
  const child = spawn(VITEST, ["run", ...files, "--reporter=default", "--reporter=json", `--outputFile.json=${json}`, ...extra], {
    cwd: ROOT,
    detached: true, // its own process group: the time limit stops the test's children too
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.set(child, files);
  output(child);
  return new Promise((resolve) =>
    child.on("close", (code, signal) => {
      live.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    }),
  );
}

const readJson = (path: string) => (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {});

/** Runs one file in its own process; prints its output whole when it ends. */
async function runFile(job: Job): Promise<FileOutcome> {
  const base = join(out, slug(job.file));
  const log = createWriteStream(`${base}.log`);
  const started = performance.now();
  const code = await vitest([job.file], `${base}.json`, [], (c) => {
    c.stdout?.pipe(log, { end: false });
    c.stderr?.pipe(log, { end: false });
  });
  await new Promise((r) => log.end(r));
  const ms = performance.now() - started;
  const counts = countsOf(readJson(`${base}.json`));
  const outcome: FileOutcome = { file: job.file, stage, ms, passed: counts.passed, failed: counts.failed, skipped: counts.skipped };
  if (code !== 0 && counts.failed === 0) outcome.error = `vitest exited ${code} with no failed test (a hook, a crash or a time limit)`;
  const verdict = code === 0 ? "passed" : "FAILED";
  console.log(`\n━━ [${stage}] ${job.file}: ${verdict} in ${(ms / 1000).toFixed(1)} s (${counts.passed} passed, ${counts.failed} failed)`);
  process.stdout.write(readFileSync(`${base}.log`, "utf8"));
  console.log(`━━ end of ${job.file}`);
  return outcome;
}

/** The docker stage: files side by side in lanes. */
async function runLanes(files: string[]): Promise<void> {
  const lanes = Math.max(1, Number(process.env[stage === "cluster" ? "PLATFORM_TEST_CLUSTER_LANES" : "PLATFORM_TEST_LANES"] ?? 2));
  const queue = orderJobs(files, recordedTimings(), (f) => SOLO_FILES.has(f));
  console.log(`stage ${stage}: ${files.length} files, ${lanes} at a time, longest first; limit ${limitMin} min`);
  const running: Job[] = [];
  let failed = false;
  await new Promise<void>((done) => {
    const pump = () => {
      for (;;) {
        const job = failed && !keepGoing ? undefined : takeNext(queue, running, lanes);
        if (!job) break;
        running.push(job);
        void runFile(job).then((o) => {
          running.splice(running.indexOf(job), 1);
          outcomes.push(o);
          if (o.failed > 0 || o.error) failed = true;
          pump();
        });
      }
      if (running.length === 0) done();
    };
    pump();
  });
  const notRun = queue.map((j) => j.file);
  if (notRun.length > 0) console.log(`stage ${stage}: stopped after a failure; not run: ${notRun.join(", ")}`);
}

/** The unit stage: one vitest process, its output streamed. */
async function runOneProcess(files: string[]): Promise<void> {
  const json = join(out, `${stage}-vitest.json`);
  const extra = ["--fileParallelism", "--maxWorkers=2"];
  console.log(`stage ${stage}: ${files.length} files in one process; limit ${limitMin} min`);
  const started = performance.now();
  const code = await vitest(["test/unit"], json, extra, (c) => {
    c.stdout?.pipe(process.stdout, { end: false });
    c.stderr?.pipe(process.stderr, { end: false });
  });
  const files_ = perFile(readJson(json), stage, rel);
  outcomes.push(...files_);
  if (code !== 0 && !files_.some((o) => o.failed > 0 || o.error))
    outcomes.push({
      file: `(${stage})`,
      stage,
      ms: performance.now() - started,
      passed: 0,
      failed: 0,
      skipped: 0,
      error: `vitest exited ${code}`,
    });
}

/** Stops every vitest still running, with its children, and a cluster this stage's tests started. */
function stopAll(): Promise<void> {
  for (const child of live.keys()) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    } catch {}
  }
  setTimeout(() => {
    for (const child of live.keys())
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {}
  }, 10_000).unref();
  return stage === "cluster"
    ? stopClusterStartedByRun().catch((e: Error) => console.log(`stopping the test cluster: ${e.message}`))
    : Promise.resolve();
}

const files = stageFiles(stage);
let timedOut = false;
const limit = setTimeout(() => {
  timedOut = true;
  const running = [...live.values()].flat();
  console.log(`\n✖ stage ${stage} exceeded ${limitMin} min; stopping what still runs: ${running.join(", ") || "(nothing)"}`);
  for (const f of running)
    outcomes.push({
      file: f,
      stage,
      ms: performance.now() - t0,
      passed: 0,
      failed: 0,
      skipped: 0,
      error: `stage ${stage} exceeded ${limitMin} min`,
    });
  writeResult();
  // The stage fails whichever ends the process first: the stopped files, or the timer.
  process.exitCode = 124;
  void stopAll().then(() => setTimeout(() => process.exit(124), 12_000).unref());
}, limitMin * 60_000);
limit.unref();

function writeResult(): void {
  writeFileSync(join(out, `${stage}.json`), JSON.stringify({ stage, wallMs: performance.now() - t0, outcomes }, null, 2));
}

for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => {
    void stopAll().then(() => process.exit(130));
  });

if (stage === "unit") await runOneProcess(files);
else await runLanes(files);
if (stage === "cluster" && !timedOut) await stopClusterStartedByRun();
// Past the time limit, the limit's handler reports and exits.
if (!timedOut) {
  clearTimeout(limit);
  writeResult();
  const bad = outcomes.filter((o) => o.failed > 0 || o.error || o.skipped > 0);
  console.log(`\nstage ${stage}: ${((performance.now() - t0) / 60_000).toFixed(1)} min; its longest files:`);
  console.log(timingTable(outcomes, {}).slice(0, 12).join("\n"));
  if (bad.length > 0) {
    const why = (o: FileOutcome) => `${o.file}${o.skipped ? ` (${o.skipped} skipped: npm test never skips)` : ""}`;
    console.log(`✖ stage ${stage} failed: ${bad.map(why).join(", ")}`);
    process.exit(1);
  }
}
