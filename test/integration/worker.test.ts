import { execFileSync, spawn } from "node:child_process";
import { expect, it } from "vitest";
import { environmentView } from "../../src/studio/overview.js";
import { ok } from "./helpers/cli.js";
import { removeProjectImages } from "./helpers/env.js";
import { describeWorker } from "./helpers/worker-twin.js";

/**
 * examples/worker on the Docker engine (the body: helpers/worker-twin.ts). Here too: the worker
 * is redeployed while jobs keep coming and none is lost or applied twice (the queue's semantics:
 * docs/guide/workers-cron-redis.md), the cron job runs every 5 seconds for 7 (so the no-overlap
 * policy is tested in seconds, and a new scheduler replaces the old while a run may be in
 * progress), Studio shows the runs and Redis, and destroy leaves nothing behind.
 */
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" });
const workerContainers = (project: string) =>
  docker("ps", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=worker", "--format", "{{.ID}}")
    .split("\n")
    .filter(Boolean);

describeWorker({
  title: "Docker",
  prefix: "wrk",
  deployFlags: [],
  services: ["database", "queue", "api", "worker"],
  // The heartbeat every 5 seconds (6 fields, seconds first) lasting 7: runs are due while the
  // previous one still runs; and a job that outlives its 2 s timeout.
  config(text) {
    const cron = '        schedule: "* * * * *"\n        command: ["python", "-m", "jobsapp.heartbeat"]\n';
    expect(text).toContain(cron);
    return text.replace(
      cron,
      '        schedule: "*/5 * * * * *"\n        command: "HEARTBEAT_SECONDS=7 exec python -m jobsapp.heartbeat"\n' +
        '      - name: slow\n        schedule: "*/5 * * * * *"\n        command: [sleep, "30"]\n        timeout: 2s\n',
    );
  },
  tearDown: removeProjectImages,
  workerCopies: workerContainers,
  oneOffsLeft: (project) =>
    docker("ps", "-aq", "--filter", "label=platform.run=api", "--filter", `label=platform.project=${project}`).trim(),
  redisUrl: () => /^redis:\/\/:[^@]+@queue:6379\/0$/,

  targetTests(ctx) {
    it("redeploys the worker while jobs keep coming: none lost, none applied twice, the old one stopped cleanly", async () => {
      const [old] = workerContainers(ctx.project);
      // The old worker's log, followed until its container is removed: what it said when stopped.
      const oldLog = spawn("docker", ["logs", "-f", old as string], { stdio: ["ignore", "pipe", "pipe"] });
      let oldOutput = "";
      oldLog.stdout.on("data", (d) => {
        oldOutput += d;
      });
      const oldLogDone = new Promise((r) => oldLog.on("close", r));
      ctx.writeConfig('ROLLOUT: "2"');
      let sent = 0;
      let stop = false;
      const producer = (async () => {
        while (!stop) {
          await ctx.call("POST", `/jobs?batch=load&count=20&start=${sent}`);
          sent += 20;
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const r = await ctx.deploy();
      stop = true;
      await producer;
      ok(r);
      expect(r.stdout).toMatch(/worker: healthy/);
      expect(workerContainers(ctx.project)).not.toContain(old);
      expect(sent).toBeGreaterThan(100);
      const s = await ctx.drained("load", sent);
      console.log(`redeploy under load: ${sent} jobs enqueued during and around the rollout, processed by ${s.workers.length} workers`);
      expect(s).toMatchObject({ done: sent, redelivered: 0, queued: 0, processing: 0 });
      // Both the old and the new worker took jobs of this batch: the rollout happened under load.
      expect(s.workers.length).toBeGreaterThanOrEqual(2);
      // SIGTERM: it finished the job in hand and exited by itself (not killed after the grace period).
      await oldLogDone;
      expect(oldOutput).toMatch(/signal 15, finishing the job in hand/);
      expect(oldOutput).toMatch(/stopped cleanly after \d+ jobs/);
    }, 900_000);
  },

  cron: {
    // A new schedule replaces the scheduler while a run may be in progress: the runs of the old
    // and the new scheduler must not overlap either; two runs of the new one are waited for.
    async before(ctx) {
      const count = async () => ((await ctx.call("GET", "/heartbeats")) as { count: number }).count;
      const before = await count();
      ctx.writeConfig('ROLLOUT: "3"', (t) => t.replace('"*/5 * * * * *"', '"*/4 * * * * *"'));
      ok(await ctx.deploy());
      return async () => (await count()) >= before + 2;
    },
    waitMs: 120_000,
    // Stopped by SIGTERM past its timeout.
    timedOut: (x) => x.job === "api/slow" && x.outcome === "timed out" && x.exitCode === 143,
    async after(ctx, runs) {
      // Runs last 7 s on a 5 s schedule: the ones due meanwhile were skipped, not started beside.
      expect(runs.some((x) => x.job === "api/heartbeat" && x.outcome === "skipped")).toBe(true);
      // Studio's view of the environment: the cron runs, and the Redis's memory and keys.
      const view = await environmentView(ctx.project, "preview");
      expect(view.cronRuns?.some((x) => x.job === "api/heartbeat" && x.outcome === "succeeded")).toBe(true);
      const queue = view.services.find((x) => x.name === "queue");
      expect(queue?.redis?.usedMemoryBytes).toBeGreaterThan(100_000);
      expect(queue?.redis?.keys).toBeGreaterThanOrEqual(1);
      // A run's container is removed once its output is recorded.
      expect(docker("ps", "-aq", "--filter", "label=platform.cron=api/heartbeat", "--filter", "status=exited").trim()).toBe("");
    },
  },

  finalTests(ctx) {
    it("platform destroy leaves no scheduler, no cron run and no one-off container behind", async () => {
      ok(await ctx.cli("destroy", "--yes", "--delete-data", "--project", ctx.project));
      const left = docker("ps", "-aq", "--filter", "label=platform.cron.stack")
        .split("\n")
        .filter(Boolean)
        .filter((id) => docker("inspect", "-f", '{{index .Config.Labels "platform.cron.stack"}}', id).startsWith(ctx.project));
      expect(left).toEqual([]);
      expect(docker("ps", "-aq", "--filter", `label=platform.project=${ctx.project}`).trim()).toBe("");
    }, 300_000);
  },
});
