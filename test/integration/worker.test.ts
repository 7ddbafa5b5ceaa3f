import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environmentView } from "../../src/studio/overview.js";
import { ok, parseUrls, runCli } from "./helpers/cli.js";
import {
  copyExample,
  forgetProject,
  freshBackend,
  recordedRuns,
  removeProjectImages,
  requireToolchain,
  ROOT,
  unique,
} from "./helpers/env.js";
import { jobsApi, withWorkerEnv } from "./helpers/jobs-api.js";

/**
 * Issue #27 on the real engine, with examples/worker: an API (FastAPI) enqueues jobs in a managed
 * Redis, a worker (type: worker, the same source) writes them into Postgres. Enqueued jobs are all
 * processed; the worker is redeployed while jobs keep coming and none is lost or applied twice
 * (the queue's semantics: README "Workers"); `platform run api -- alembic current` prints the
 * revision; a worker that crashes at start fails the deploy with its log while the old one keeps
 * running; `platform status` exits 0.
 */
const project = unique("wrk");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-worker-")), "app");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const deploy = () => cli("deploy", "--yes", "--project", project);
let api = "";
let edgeCa = "";

const workerContainer = () =>
  execFileSync(
    "docker",
    ["ps", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=worker", "--format", "{{.ID}}"],
    { encoding: "utf8" },
  ).trim();

const { call, drained } = jobsApi(() => ({ api, ca: edgeCa }));

/**
 * The example's platform.yml with its heartbeat every 5 seconds (6 fields, seconds first) and
 * lasting 7: runs are due while the previous one still runs, so the no-overlap policy is tested
 * in seconds, not minutes.
 */
function baseConfig(): string {
  const text = readFileSync(join(ROOT, "examples", "worker", "platform.yml"), "utf8");
  const cron = '        schedule: "* * * * *"\n        command: ["python", "-m", "jobsapp.heartbeat"]\n';
  expect(text).toContain(cron);
  return text.replace(
    cron,
    '        schedule: "*/5 * * * * *"\n        command: "HEARTBEAT_SECONDS=7 exec python -m jobsapp.heartbeat"\n' +
      '      - name: slow\n        schedule: "*/5 * * * * *"\n        command: [sleep, "30"]\n        timeout: 2s\n',
  );
}

function editWorkerEnv(line: string | undefined): void {
  writeFileSync(join(dir, "platform.yml"), withWorkerEnv(baseConfig(), line));
}

describe("workers, Redis and one-off commands (examples/worker, Docker)", () => {
  beforeAll(() => {
    requireToolchain();
    copyExample("worker", dir);
    writeFileSync(join(dir, "platform.yml"), baseConfig());
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    removeProjectImages(project);
    rmSync(join(dir, ".."), { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys database, queue, api and worker in order; enqueued jobs are all processed", async () => {
    const r = ok(await deploy());
    const order = ["queue: healthy", "api: migrated", "api: healthy", "worker: starting", "worker: healthy"].map((l) =>
      r.stdout.indexOf(l),
    );
    expect(
      order.every((i) => i >= 0),
      r.stdout,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    api = parseUrls(r.stdout).api as string;
    edgeCa = ok(await cli("ca")).stdout;
    expect(await call("POST", "/jobs?batch=first&count=300")).toEqual({ enqueued: 300 });
    const s = await drained("first", 300);
    expect(s).toMatchObject({ done: 300, redelivered: 0, queued: 0, processing: 0 });
  }, 900_000);

  it("redeploys the worker while jobs keep coming: none lost, none applied twice, the old one stopped cleanly", async () => {
    const old = workerContainer();
    // The old worker's log, followed until its container is removed: what it said when stopped.
    const oldLog = spawn("docker", ["logs", "-f", old], { stdio: ["ignore", "pipe", "pipe"] });
    let oldOutput = "";
    oldLog.stdout.on("data", (d) => {
      oldOutput += d;
    });
    const oldLogDone = new Promise((r) => oldLog.on("close", r));
    editWorkerEnv('ROLLOUT: "2"');
    let sent = 0;
    let stop = false;
    const producer = (async () => {
      while (!stop) {
        await call("POST", `/jobs?batch=load&count=20&start=${sent}`);
        sent += 20;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const r = await deploy();
    stop = true;
    await producer;
    ok(r);
    expect(r.stdout).toMatch(/worker: healthy/);
    expect(workerContainer()).not.toBe(old);
    expect(sent).toBeGreaterThan(100);
    const s = await drained("load", sent);
    console.log(`redeploy under load: ${sent} jobs enqueued during and around the rollout, processed by ${s.workers.length} workers`);
    expect(s).toMatchObject({ done: sent, redelivered: 0, queued: 0, processing: 0 });
    // Both the old and the new worker took jobs of this batch: the rollout happened under load.
    expect(s.workers.length).toBeGreaterThanOrEqual(2);
    // SIGTERM: it finished the job in hand and exited by itself (not killed after the grace period).
    await oldLogDone;
    expect(oldOutput).toMatch(/signal 15, finishing the job in hand/);
    expect(oldOutput).toMatch(/stopped cleanly after \d+ jobs/);
  }, 900_000);

  it("platform run api -- alembic current prints the revision, and exits with the command's code", async () => {
    const r = ok(await cli("run", "api", "--project", project, "--", "alembic", "current"));
    expect(r.stdout).toContain("0001 (head)");
    const failed = await cli("run", "api", "--project", project, "--", "sh", "-c", "echo out; exit 7");
    expect(failed.code).toBe(7);
    expect(failed.stdout).toContain("out");
    const exec = ok(await cli("exec", "worker", "--project", project, "--", "printenv", "REDIS_URL"));
    expect(exec.stdout).toMatch(/^redis:\/\/:[^@]+@queue:6379\/0\s*$/);
    // No run container is left behind, and each run is in the stack's runs log.
    const left = execFileSync(
      "docker",
      ["ps", "-aq", "--filter", `label=platform.run=api`, "--filter", `label=platform.project=${project}`],
      {
        encoding: "utf8",
      },
    );
    expect(left.trim()).toBe("");
    expect(recordedRuns(project)).toEqual([
      ["run", "api", 0],
      ["run", "api", 7],
      ["exec", "worker", 0],
    ]);
  }, 300_000);

  it("a worker that crashes at start fails the deploy with its log; the old worker keeps running", async () => {
    const old = workerContainer();
    editWorkerEnv('CRASH_AT_START: "1"');
    const r = await deploy();
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain("CRASH_AT_START is set, exiting");
    expect(`${r.stdout}${r.stderr}`).toMatch(/exited with code 1 before it was healthy/);
    expect(workerContainer()).toBe(old);
    // It still works: a job enqueued now is processed by the old worker.
    await call("POST", "/jobs?batch=after-crash&count=5");
    expect(await drained("after-crash", 5)).toMatchObject({ done: 5, redelivered: 0 });
    editWorkerEnv('ROLLOUT: "2"');
  }, 600_000);

  it("the cron job ran in fresh containers at least twice, never two runs at once, and platform cron lists them", async () => {
    // A new schedule replaces the scheduler while a run may be in progress: the runs of the old
    // and the new scheduler must not overlap either.
    const before = ((await call("GET", "/heartbeats")) as { count: number }).count;
    writeFileSync(join(dir, "platform.yml"), baseConfig().replace('"*/5 * * * * *"', '"*/4 * * * * *"'));
    ok(await deploy());
    const until = Date.now() + 120_000;
    let beats: { count: number; runs: { started: string; finished: string }[] };
    do {
      beats = (await call("GET", "/heartbeats")) as typeof beats;
      if (beats.count >= before + 2) break;
      await new Promise((r) => setTimeout(r, 2000));
    } while (Date.now() < until);
    expect(beats.count).toBeGreaterThanOrEqual(2);
    // No overlap: each run started after the one before it finished.
    for (let i = 1; i < beats.runs.length; i++)
      expect(Date.parse(beats.runs[i]!.started)).toBeGreaterThanOrEqual(Date.parse(beats.runs[i - 1]!.finished));
    const r = ok(await cli("cron", "--project", project, "--json", "--tail", "200"));
    const { jobs, runs } = JSON.parse(r.stdout) as {
      jobs: string[];
      runs: { job: string; outcome: string; exitCode?: number; output?: string }[];
    };
    expect(jobs).toEqual(["api/heartbeat", "api/slow"]);
    // A run past its timeout is stopped (SIGTERM) and recorded as such.
    expect(runs.some((x) => x.job === "api/slow" && x.outcome === "timed out" && x.exitCode === 143)).toBe(true);
    const succeeded = runs.filter((x) => x.job === "api/heartbeat" && x.outcome === "succeeded");
    expect(succeeded.length).toBeGreaterThanOrEqual(2);
    expect(succeeded.every((x) => x.exitCode === 0 && /heartbeat written/.test(x.output ?? ""))).toBe(true);
    // Runs last 7 s on a 5 s schedule: the ones due meanwhile were skipped, not started beside.
    expect(runs.some((x) => x.job === "api/heartbeat" && x.outcome === "skipped")).toBe(true);
    const table = ok(await cli("cron", "--project", project)).stdout;
    expect(table).toMatch(/^JOB\s+STARTED \(UTC\)\s+SECONDS\s+OUTCOME\s+EXIT\s+OUTPUT/m);
    expect(table).toMatch(/api\/heartbeat .* succeeded\s+0\s+heartbeat written/);
    // Studio's view of the environment: the cron runs, and the Redis's memory and keys.
    const view = await environmentView(project, "preview");
    expect(view.cronRuns?.some((x) => x.job === "api/heartbeat" && x.outcome === "succeeded")).toBe(true);
    const queue = view.services.find((x) => x.name === "queue");
    expect(queue?.redis?.usedMemoryBytes).toBeGreaterThan(100_000);
    expect(queue?.redis?.keys).toBeGreaterThanOrEqual(1);
    // A run's container is removed once its output is recorded.
    const left = execFileSync("docker", ["ps", "-aq", "--filter", "label=platform.cron=api/heartbeat", "--filter", "status=exited"], {
      encoding: "utf8",
    });
    expect(left.trim()).toBe("");
  }, 300_000);

  it("platform status exits 0 with every service running", async () => {
    const r = ok(await cli("status", "--project", project));
    for (const s of ["database", "queue", "api", "worker"]) expect(r.stdout).toMatch(new RegExp(`^${s}\\s+running`, "m"));
  }, 120_000);

  it("platform destroy leaves no scheduler, no cron run and no one-off container behind", async () => {
    ok(await cli("destroy", "--yes", "--delete-data", "--project", project));
    const left = execFileSync("docker", ["ps", "-aq", "--filter", "label=platform.cron.stack"], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .filter((id) =>
        execFileSync("docker", ["inspect", "-f", '{{index .Config.Labels "platform.cron.stack"}}', id], { encoding: "utf8" }).startsWith(
          project,
        ),
      );
    expect(left).toEqual([]);
    expect(execFileSync("docker", ["ps", "-aq", "--filter", `label=platform.project=${project}`], { encoding: "utf8" }).trim()).toBe("");
  }, 300_000);
});
