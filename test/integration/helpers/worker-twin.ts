import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, ok, parseUrls, runCli } from "./cli.js";
import { copyExample, forgetProject, freshBackend, recordedRuns, requireToolchain, ROOT, unique } from "./env.js";
import { jobsApi, withWorkerEnv } from "./jobs-api.js";

/**
 * examples/worker on one target (worker.test.ts: Docker; kubernetes-worker.test.ts: the test
 * cluster), one body for both: an API (FastAPI) enqueues jobs in a managed Redis, a worker
 * (type: worker, the same source) writes them into Postgres. Enqueued jobs are all processed;
 * `platform run api -- alembic current` prints the revision and exit codes pass through;
 * `platform exec` runs in the worker; a worker that crashes at start fails the deploy with its
 * log while the old one keeps processing; the cron job ran at least twice, never two runs at
 * once, and `platform cron` lists its runs; `platform status` exits 0. What only one target has
 * (a redeploy under load on Docker, the Kubernetes objects and Redis's Secret) comes from its case.
 */
export interface WorkerContext {
  readonly project: string;
  readonly dir: string;
  cli(...args: string[]): Promise<CliResult>;
  deploy(): Promise<CliResult>;
  /** Writes platform.yml: the case's config, with one more line in the worker's env (or none), edited by `edit`. */
  writeConfig(workerEnv?: string, edit?: (text: string) => string): void;
  call(method: string, path: string): Promise<Record<string, unknown>>;
  drained: ReturnType<typeof jobsApi>["drained"];
}

export interface CronRun {
  job: string;
  outcome: string;
  exitCode?: number;
  output?: string;
  started?: string;
}

export interface WorkerCase {
  readonly title: string;
  readonly prefix: string;
  readonly deployFlags: readonly string[];
  /** The services `platform status` must show running. */
  readonly services: readonly string[];
  /** The example's platform.yml as this target runs it (its cron schedules, extra services). */
  config(example: string): string;
  setUp?(): Promise<void>;
  tearDown?(project: string): void;
  /** The worker's running copies: container ids, pod names. */
  workerCopies(project: string): string[];
  /** What `platform run` or `exec` left behind (nothing is expected). */
  oneOffsLeft(project: string): string;
  /** The worker's REDIS_URL: the queue by its name on this target. */
  readonly redisUrl: (project: string) => RegExp;
  /** Checks of the first deploy's result only this target has. */
  afterFirstDeploy?(ctx: WorkerContext, r: CliResult): void;
  /** Tests only this target has, between the first deploy and the one-off commands. */
  targetTests?(ctx: WorkerContext): void;
  /** Cron: what to do before waiting for runs, how long to wait at most, and checks only this target has. */
  readonly cron: {
    /** Before waiting for runs; returns what else the wait waits for (Docker: two runs of a new scheduler). */
    before?(ctx: WorkerContext): Promise<() => Promise<boolean>>;
    readonly waitMs: number;
    timedOut(run: CronRun): boolean;
    after?(ctx: WorkerContext, runs: CronRun[]): Promise<void>;
  };
  /** Tests only this target has, after the others. */
  finalTests?(ctx: WorkerContext): void;
}

const heartbeats = (runs: CronRun[]) => runs.filter((x) => x.job === "api/heartbeat" && x.outcome === "succeeded");

export function describeWorker(c: WorkerCase): void {
  const project = unique(c.prefix);
  const backend = freshBackend();
  const dir = join(mkdtempSync(join(tmpdir(), `platform-${c.prefix}-`)), "app");
  const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
  let api = "";
  let ca = "";
  const { call, drained } = jobsApi(() => ({ api, ca }));
  const example = () => readFileSync(join(ROOT, "examples", "worker", "platform.yml"), "utf8");
  const ctx: WorkerContext = {
    project,
    dir,
    cli,
    deploy: () => cli("deploy", "--yes", "--project", project, ...c.deployFlags),
    writeConfig: (workerEnv, edit = (t) => t) =>
      writeFileSync(join(dir, "platform.yml"), withWorkerEnv(edit(c.config(example())), workerEnv)),
    call,
    drained,
  };

  describe(`workers, Redis, cron and one-off commands on ${c.title} (examples/worker)`, () => {
    beforeAll(async () => {
      requireToolchain();
      await c.setUp?.();
      copyExample("worker", dir);
      ctx.writeConfig();
    }, 45 * 60_000);

    afterAll(async () => {
      await cli("destroy", "--yes", "--delete-data", "--project", project);
      c.tearDown?.(project);
      rmSync(join(dir, ".."), { recursive: true, force: true });
      forgetProject(project);
    }, 300_000);

    it("deploys database, queue, api and worker in order; enqueued jobs are all processed", async () => {
      const r = ok(await ctx.deploy());
      const order = ["queue: healthy", "api: migrated", "api: healthy", "worker: starting", "worker: healthy"].map((l) =>
        r.stdout.indexOf(l),
      );
      expect(
        order.every((i) => i >= 0),
        r.stdout,
      ).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      c.afterFirstDeploy?.(ctx, r);
      api = parseUrls(r.stdout).api as string;
      ca = ok(await cli("ca")).stdout;
      expect(await call("POST", "/jobs?batch=first&count=300")).toEqual({ enqueued: 300 });
      expect(await drained("first", 300)).toMatchObject({ done: 300, redelivered: 0, queued: 0, processing: 0 });
    }, 900_000);

    c.targetTests?.(ctx);

    it("platform run api -- alembic current prints the revision, exits with the command's code; exec runs in the worker; nothing is left", async () => {
      const r = ok(await cli("run", "api", "--project", project, "--", "alembic", "current"));
      expect(r.stdout).toContain("0001 (head)");
      const failed = await cli("run", "api", "--project", project, "--", "sh", "-c", "echo out; exit 7");
      expect(failed.code).toBe(7);
      expect(failed.stdout).toContain("out");
      const exec = ok(await cli("exec", "worker", "--project", project, "--", "printenv", "REDIS_URL"));
      expect(exec.stdout.trim()).toMatch(c.redisUrl(project));
      // No one-off container or pod is left behind, and each run is in the stack's runs log.
      expect(c.oneOffsLeft(project)).toBe("");
      expect(recordedRuns(project)).toEqual([
        ["run", "api", 0],
        ["run", "api", 7],
        ["exec", "worker", 0],
      ]);
    }, 300_000);

    it("a worker that crashes at start fails the deploy with its log; the old worker keeps processing; the fix rolls out", async () => {
      const old = c.workerCopies(project);
      expect(old).toHaveLength(1);
      ctx.writeConfig('CRASH_AT_START: "1"');
      const r = await ctx.deploy();
      expect(r.code).not.toBe(0);
      expect(`${r.stdout}${r.stderr}`).toContain("CRASH_AT_START is set, exiting");
      expect(`${r.stdout}${r.stderr}`).toMatch(/exited with code 1 before it was healthy/);
      expect(r.stdout).toContain("worker: failed");
      expect(c.workerCopies(project).filter((w) => old.includes(w))).toEqual(old);
      // It still works: a job enqueued now is processed by the old worker.
      await call("POST", "/jobs?batch=after-crash&count=5");
      expect(await drained("after-crash", 5)).toMatchObject({ done: 5, redelivered: 0 });
      // A working worker again (a change since the last deploy that succeeded): it replaces the old one.
      ctx.writeConfig('ROLLOUT: "3"');
      ok(await ctx.deploy());
      const now = c.workerCopies(project);
      expect(now).toHaveLength(1);
      expect(now).not.toEqual(old);
      await call("POST", "/jobs?batch=after-fix&count=20");
      expect(await drained("after-fix", 20)).toMatchObject({ done: 20, redelivered: 0 });
    }, 900_000);

    it("the cron job ran at least twice in fresh copies, never two runs at once, and platform cron lists the runs", async () => {
      const alsoReady = (await c.cron.before?.(ctx)) ?? (async () => true);
      const cron = async () =>
        JSON.parse(ok(await cli("cron", "--project", project, "--json", "--tail", "200")).stdout) as { jobs: string[]; runs: CronRun[] };
      // Runs come on their schedule (a minute's on Kubernetes): bounded.
      const until = Date.now() + c.cron.waitMs;
      let { jobs, runs } = await cron();
      while ((heartbeats(runs).length < 2 || !runs.some(c.cron.timedOut) || !(await alsoReady())) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 2000));
        ({ jobs, runs } = await cron());
      }
      const beats = (await call("GET", "/heartbeats")) as { count: number; runs: { started: string; finished: string }[] };
      expect(beats.count).toBeGreaterThanOrEqual(2);
      // No overlap: each run started after the one before it finished.
      for (let i = 1; i < beats.runs.length; i++)
        expect(Date.parse(beats.runs[i]!.started)).toBeGreaterThanOrEqual(Date.parse(beats.runs[i - 1]!.finished));
      expect(jobs).toEqual(["api/heartbeat", "api/slow"]);
      const succeeded = heartbeats(runs);
      expect(succeeded.length).toBeGreaterThanOrEqual(2);
      expect(succeeded.every((x) => x.exitCode === 0 && /heartbeat written/.test(x.output ?? "") && x.started)).toBe(true);
      // A run past its timeout is stopped and recorded as such.
      expect(runs.some(c.cron.timedOut), JSON.stringify(runs)).toBe(true);
      const table = ok(await cli("cron", "--project", project)).stdout;
      expect(table).toMatch(/^JOB\s+STARTED \(UTC\)\s+SECONDS\s+OUTCOME\s+EXIT\s+OUTPUT/m);
      expect(table).toMatch(/api\/heartbeat .* succeeded\s+0\s+heartbeat written/);
      await c.cron.after?.(ctx, runs);
    }, 300_000);

    it("platform status exits 0 with every service running", async () => {
      const r = ok(await cli("status", "--project", project));
      for (const s of c.services) expect(r.stdout).toMatch(new RegExp(`^${s}\\s+running`, "m"));
    }, 120_000);

    c.finalTests?.(ctx);
  });
}
