import { execFileSync, spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { clusterUp, kubectl, podsOf } from "./helpers/kubernetes.js";
import { describeWorker } from "./helpers/worker-twin.js";

/**
 * examples/worker on the Kubernetes test cluster (`--target kubernetes`; the body:
 * helpers/worker-twin.ts): the worker is a Deployment without a Service, the queue a Redis
 * StatefulSet on a claim, the heartbeat a CronJob, and a fifth service runs from a prebuilt
 * image. CronJobs have minute resolution, so the heartbeat stays on the example's "* * * * *"
 * (the Docker test's 5-second schedule cannot run here): the cron test waits for two minute
 * boundaries at least.
 */
const PREBUILT = "platform-local/python:3.11";
const namespaceOf = (project: string) => `${project}-preview`;
const json = (project: string, ...args: string[]) => JSON.parse(kubectl("-n", namespaceOf(project), ...args, "-o", "json"));

describeWorker({
  title: "the Kubernetes test cluster",
  prefix: "k8s-wrk",
  deployFlags: ["--target", "kubernetes"],
  services: ["database", "queue", "api", "worker", "ticker"],
  /** A second job that outlives its timeout, and a worker from a prebuilt image (platform.yml image:), which the cluster gets by its id. */
  config(text) {
    const cron = '        command: ["python", "-m", "jobsapp.heartbeat"]\n';
    expect(text).toContain(cron);
    const slow = `${cron}      - name: slow\n        schedule: "* * * * *"\n        command: [sleep, "300"]\n        timeout: 15s\n`;
    const ticker = `\n  ticker:\n    type: worker\n    image: ${PREBUILT}\n    start: exec python -c "import time; time.sleep(10**9)"\n`;
    return `${text.replace(cron, slow).trimEnd()}\n${ticker}`;
  },
  setUp: () => clusterUp(),
  // The built images, and the prebuilt one's name made from its id (by name: the image keeps its own tag).
  tearDown(project) {
    const names = execFileSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", `platform/${project}_*`], { encoding: "utf8" });
    for (const n of names.split("\n").filter(Boolean)) spawnSync("docker", ["rmi", n]);
  },
  workerCopies: (project) => podsOf(namespaceOf(project), "worker"),
  oneOffsLeft: (project) => kubectl("-n", namespaceOf(project), "get", "pods", "-l", "platform.run", "-o", "name").trim(),
  redisUrl: (project) => new RegExp(`^redis://:[^@]+@queue\\.${namespaceOf(project)}\\.svc\\.cluster\\.local:6379/0$`),

  afterFirstDeploy(ctx) {
    const objects = kubectl("-n", namespaceOf(ctx.project), "get", "deployment,statefulset,service,pvc,cronjob", "-o", "name")
      .split("\n")
      .filter(Boolean);
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
    const worker = json(ctx.project, "get", "deployment/worker").spec;
    expect(worker.minReadySeconds).toBe(5);
    expect(worker.template.spec.terminationGracePeriodSeconds).toBe(30);
    expect(worker.template.spec.containers[0].ports).toBeUndefined();
    const cron = json(ctx.project, "get", "cronjob/api-heartbeat").spec;
    expect(cron).toMatchObject({ schedule: "* * * * *", concurrencyPolicy: "Forbid", startingDeadlineSeconds: 15 });
    expect(cron.jobTemplate.spec).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 3600 });
    expect(json(ctx.project, "get", "cronjob/api-slow").spec.jobTemplate.spec.activeDeadlineSeconds).toBe(15);
    // The prebuilt image runs by its id: a name made from it, never the tag that may move.
    const id = execFileSync("docker", ["image", "inspect", "-f", "{{.Id}}", PREBUILT], { encoding: "utf8" }).trim();
    const tickerImage = json(ctx.project, "get", "deployment/ticker").spec.template.spec.containers[0].image;
    expect(tickerImage).toBe(`platform/${ctx.project}_ticker:id-${id.replace("sha256:", "").slice(0, 12)}`);
  },

  targetTests(ctx) {
    it("Redis: its password only in a Secret (never argv), AOF on its claim, auth required", async () => {
      const pod = json(ctx.project, "get", "statefulset/queue").spec.template.spec;
      expect(JSON.stringify(pod.containers[0].args ?? [])).not.toMatch(/pass/i);
      expect(pod.containers[0].env ?? []).toEqual([]);
      expect(pod.volumes[0].persistentVolumeClaim.claimName).toBe("queue-data");
      const inQueue = (script: string) => kubectl("-n", namespaceOf(ctx.project), "exec", "queue-0", "--", "sh", "-c", script).trim();
      expect(inQueue("redis-cli -h 127.0.0.1 ping")).toBe("PONG");
      expect(inQueue("env -u REDISCLI_AUTH redis-cli -h 127.0.0.1 ping")).toMatch(/NOAUTH/);
      expect(inQueue("redis-cli -h 127.0.0.1 config get appendonly | tail -1")).toBe("yes");
      expect(inQueue("ls /data/appendonly")).toMatch(/\.aof/);
      expect(inQueue("tr '\\0' ' ' < /proc/1/cmdline")).not.toMatch(/requirepass|pass/i);
    }, 120_000);
  },

  cron: {
    // Minute boundaries: the second run may still be due, or its Job not yet marked complete.
    waitMs: 150_000,
    // Stopped by activeDeadlineSeconds past its timeout.
    timedOut: (x) => x.job === "api/slow" && x.outcome === "timed out",
  },
});
