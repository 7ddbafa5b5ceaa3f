import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, recordedRuns, requireToolchain, ROOT, unique } from "./helpers/env.js";
import { jobsApi, withWorkerEnv } from "./helpers/jobs-api.js";
import { clusterUp, kubectl, podsOf } from "./helpers/kubernetes.js";

/**
 * Issue #27 item 6 on the Kubernetes test cluster, with examples/worker (`--target kubernetes`):
 * the worker is a Deployment without a Service, the queue a Redis StatefulSet on a claim, the
 * heartbeat a CronJob. Enqueued jobs are all processed; `platform run api -- alembic current`
 * prints the revision and exit codes pass through; `platform exec` runs in the worker's pod; a
 * worker that crashes at start fails the deploy with its log while the old one keeps processing;
 * the cron job ran at least twice, never two runs at once, and `platform cron` lists its runs;
 * `platform status` exits 0. CronJobs have minute resolution, so the heartbeat stays on the
 * example's "* * * * *" (the Docker test's 5-second schedule cannot run here): this test waits
 * for two minute boundaries at least.
 */
const project = unique("k8s-wrk");
const namespace = `${project}-preview`;
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-k8s-worker-")), "app");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const deploy = () => cli("deploy", "--yes", "--project", project, "--target", "kubernetes");
const PREBUILT = "platform-local/python:3.11";
let api = "";
let ca = "";
const { call, drained } = jobsApi(() => ({ api, ca }));

/**
 * The example, with a second job that outlives its timeout (recorded as timed out), and a worker
 * from a prebuilt image (platform.yml image:), which the cluster gets by its id.
 */
function baseConfig(): string {
  const text = readFileSync(join(ROOT, "examples", "worker", "platform.yml"), "utf8");
  const cron = '        command: ["python", "-m", "jobsapp.heartbeat"]\n';
  expect(text).toContain(cron);
  const slow = `${cron}      - name: slow\n        schedule: "* * * * *"\n        command: [sleep, "300"]\n        timeout: 15s\n`;
  const ticker = `\n  ticker:\n    type: worker\n    image: ${PREBUILT}\n    start: exec python -c "import time; time.sleep(10**9)"\n`;
  return `${text.replace(cron, slow).trimEnd()}\n${ticker}`;
}

const writeConfig = (workerEnv?: string) => writeFileSync(join(dir, "platform.yml"), withWorkerEnv(baseConfig(), workerEnv));
const json = (...args: string[]) => JSON.parse(kubectl("-n", namespace, ...args, "-o", "json"));

describe("workers, Redis, cron and one-off commands on the Kubernetes test cluster (examples/worker)", () => {
  beforeAll(async () => {
    requireToolchain();
    await clusterUp();
    copyExample("worker", dir);
    writeConfig();
  }, 45 * 60_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    // The built images, and the prebuilt one's name made from its id (by name: the image keeps its own tag).
    const names = execFileSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", `platform/${project}_*`], { encoding: "utf8" });
    for (const n of names.split("\n").filter(Boolean)) spawnSync("docker", ["rmi", n]);
    rmSync(join(dir, ".."), { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys database, queue, api and worker in order, as StatefulSets, Deployments and CronJobs; enqueued jobs are all processed", async () => {
    const r = ok(await deploy());
    const order = ["queue: healthy", "api: migrated", "api: healthy", "worker: starting", "worker: healthy"].map((l) =>
      r.stdout.indexOf(l),
    );
    expect(
      order.every((i) => i >= 0),
      r.stdout,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const objects = kubectl("-n", namespace, "get", "deployment,statefulset,service,pvc,cronjob", "-o", "name").split("\n").filter(Boolean);
    expect(objects.sort()).toEqual([
      "cronjob.batch/api-heartbeat",
      "cronjob.batch/api-slow",
      "deployment.apps/api",
      // The stack's telemetry receiver, which its services export to.
      "deployment.apps/platform-telemetry",
      "deployment.apps/ticker",
      "deployment.apps/worker",
      "persistentvolumeclaim/database-data",
      "persistentvolumeclaim/platform-telemetry-store",
      "persistentvolumeclaim/queue-data",
      "service/api",
      "service/database",
      "service/platform-telemetry",
      "service/queue",
      "statefulset.apps/database",
      "statefulset.apps/queue",
    ]);
    const worker = json("get", "deployment/worker").spec;
    expect(worker.minReadySeconds).toBe(5);
    expect(worker.template.spec.terminationGracePeriodSeconds).toBe(30);
    expect(worker.template.spec.containers[0].ports).toBeUndefined();
    const cron = json("get", "cronjob/api-heartbeat").spec;
    expect(cron).toMatchObject({ schedule: "* * * * *", concurrencyPolicy: "Forbid", startingDeadlineSeconds: 15 });
    expect(cron.jobTemplate.spec).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 3600 });
    expect(json("get", "cronjob/api-slow").spec.jobTemplate.spec.activeDeadlineSeconds).toBe(15);
    // The prebuilt image runs by its id: a name made from it, never the tag that may move.
    const id = execFileSync("docker", ["image", "inspect", "-f", "{{.Id}}", PREBUILT], { encoding: "utf8" }).trim();
    const tickerImage = json("get", "deployment/ticker").spec.template.spec.containers[0].image;
    expect(tickerImage).toBe(`platform/${project}_ticker:id-${id.replace("sha256:", "").slice(0, 12)}`);
    api = parseUrls(r.stdout).api as string;
    ca = ok(await cli("ca")).stdout;
    expect(await call("POST", "/jobs?batch=first&count=300")).toEqual({ enqueued: 300 });
    expect(await drained("first", 300)).toMatchObject({ done: 300, redelivered: 0, queued: 0, processing: 0 });
  }, 900_000);

  it("Redis: its password only in a Secret (never argv), AOF on its claim, auth required, ${queue.url} the Service's DNS name", async () => {
    const pod = json("get", "statefulset/queue").spec.template.spec;
    expect(JSON.stringify(pod.containers[0].args ?? [])).not.toMatch(/pass/i);
    expect(pod.containers[0].env ?? []).toEqual([]);
    expect(pod.volumes[0].persistentVolumeClaim.claimName).toBe("queue-data");
    const inQueue = (script: string) => kubectl("-n", namespace, "exec", "queue-0", "--", "sh", "-c", script).trim();
    expect(inQueue("redis-cli -h 127.0.0.1 ping")).toBe("PONG");
    expect(inQueue("env -u REDISCLI_AUTH redis-cli -h 127.0.0.1 ping")).toMatch(/NOAUTH/);
    expect(inQueue("redis-cli -h 127.0.0.1 config get appendonly | tail -1")).toBe("yes");
    expect(inQueue("ls /data/appendonly")).toMatch(/\.aof/);
    expect(inQueue("tr '\\0' ' ' < /proc/1/cmdline")).not.toMatch(/requirepass|pass/i);
    const url = ok(await cli("exec", "worker", "--project", project, "--", "printenv", "REDIS_URL")).stdout.trim();
    expect(url).toMatch(new RegExp(`^redis://:[^@]+@queue\\.${namespace}\\.svc\\.cluster\\.local:6379/0$`));
  }, 120_000);

  it("platform run api -- alembic current prints the revision, and exits with the command's code; nothing is left", async () => {
    const r = ok(await cli("run", "api", "--project", project, "--", "alembic", "current"));
    expect(r.stdout).toContain("0001 (head)");
    const failed = await cli("run", "api", "--project", project, "--", "sh", "-c", "echo out; exit 7");
    expect(failed.code).toBe(7);
    expect(failed.stdout).toContain("out");
    expect(kubectl("-n", namespace, "get", "pods", "-l", "platform.run", "-o", "name").trim()).toBe("");
    expect(recordedRuns(project)).toEqual([
      ["exec", "worker", 0],
      ["run", "api", 0],
      ["run", "api", 7],
    ]);
  }, 300_000);

  it("a worker that crashes at start fails the deploy with its log; the old worker keeps processing", async () => {
    const old = podsOf(namespace, "worker");
    expect(old).toHaveLength(1);
    writeConfig('CRASH_AT_START: "1"');
    const r = await deploy();
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain("CRASH_AT_START is set, exiting");
    expect(`${r.stdout}${r.stderr}`).toMatch(/exited with code 1 before it was healthy/);
    expect(r.stdout).toContain("worker: failed");
    expect(podsOf(namespace, "worker").filter((p) => old.includes(p))).toEqual(old);
    await call("POST", "/jobs?batch=after-crash&count=5");
    expect(await drained("after-crash", 5)).toMatchObject({ done: 5, redelivered: 0 });
    // Back to the working worker: the crashing ReplicaSet is replaced, the old pod stopped by SIGTERM.
    writeConfig();
    ok(await deploy());
    const now = podsOf(namespace, "worker");
    expect(now).toHaveLength(1);
    expect(now).not.toEqual(old);
    await call("POST", "/jobs?batch=after-fix&count=20");
    expect(await drained("after-fix", 20)).toMatchObject({ done: 20, redelivered: 0 });
  }, 900_000);

  it("the cron job ran at least twice in fresh pods, never two runs at once, and platform cron lists the runs", async () => {
    type Run = { job: string; outcome: string; exitCode?: number; output?: string; started?: string };
    const cron = async () =>
      JSON.parse(ok(await cli("cron", "--project", project, "--json", "--tail", "50")).stdout) as { jobs: string[]; runs: Run[] };
    const heartbeats = (runs: Run[]) => runs.filter((x) => x.job === "api/heartbeat" && x.outcome === "succeeded");
    // Minute boundaries: the second run may still be due, or its Job not yet marked complete (bounded).
    const until = Date.now() + 150_000;
    let { jobs, runs } = await cron();
    while (heartbeats(runs).length < 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 3000));
      ({ jobs, runs } = await cron());
    }
    const beats = (await call("GET", "/heartbeats")) as { count: number; runs: { started: string; finished: string }[] };
    expect(beats.count).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < beats.runs.length; i++)
      expect(Date.parse(beats.runs[i]!.started)).toBeGreaterThanOrEqual(Date.parse(beats.runs[i - 1]!.finished));
    expect(jobs).toEqual(["api/heartbeat", "api/slow"]);
    const succeeded = heartbeats(runs);
    expect(succeeded.length).toBeGreaterThanOrEqual(2);
    expect(succeeded.every((x) => x.exitCode === 0 && /heartbeat written/.test(x.output ?? "") && x.started)).toBe(true);
    // A run past its timeout is stopped (activeDeadlineSeconds) and recorded as such.
    expect(
      runs.some((x) => x.job === "api/slow" && x.outcome === "timed out"),
      JSON.stringify(runs),
    ).toBe(true);
    const table = ok(await cli("cron", "--project", project)).stdout;
    expect(table).toMatch(/^JOB\s+STARTED \(UTC\)\s+SECONDS\s+OUTCOME\s+EXIT\s+OUTPUT/m);
    expect(table).toMatch(/api\/heartbeat .* succeeded\s+0\s+heartbeat written/);
  }, 300_000);

  it("platform status exits 0 with every service running", async () => {
    const r = ok(await cli("status", "--project", project));
    for (const s of ["database", "queue", "api", "worker", "ticker"]) expect(r.stdout).toMatch(new RegExp(`^${s}\\s+running`, "m"));
  }, 120_000);
});
