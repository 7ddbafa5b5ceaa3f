import { describe, expect, it } from "vitest";
import { buildPlan } from "../../../../src/plan/build-plan.js";
import { jobOutcome, toCronRun } from "../../../../src/runtime/kubernetes-cron.js";
import { buildRunPod } from "../../../../src/runtime/kubernetes-run.js";
import { checkCronSchedules, cronJobName, cronJobSpec } from "../../../../src/targets/kubernetes/cron.js";
import { redisContainer } from "../../../../src/targets/kubernetes/redis.js";
import { appContainer, deploymentSpec, dependencyWait } from "../../../../src/targets/kubernetes/specs.js";
import { check, y } from "../../config/helpers.js";
import { plain } from "./plain.js";

const CONFIG = y`
  version: "1.0"
  name: shop
  services:
    queue:
      type: redis
    api:
      type: fastapi
      build: {source: ./api}
      depends_on: [queue]
      env:
        REDIS_URL: \${queue.url}
      cron:
        - {name: heartbeat, schedule: "*/2 * * * *", command: [python, -m, beat], timeout: 2m}
    worker:
      type: worker
      build: {source: ./worker}
      start: python -m worker
      depends_on: [queue, api]
      env:
        REDIS_URL: \${queue.url}
`;
const images = { python: "platform-local/python:3.11", node: "n", postgres: "pg", caddy: "c", redis: "platform-local/redis:7.0" };
const plan = buildPlan(
  check(CONFIG).config!,
  { project: "shop", env: "preview", appsDomain: "localhost", httpsPort: 443, projectDir: "/proj", images },
  new Map(),
);
const service = (name: string) => plan.services.find((s) => s.name === name)!;
const never = { pullPolicy: "Never" } as const;

describe("Kubernetes specs of workers, Redis and cron jobs", () => {
  it("a worker: no port, no readiness, no preStop pause; running 5 s counts as available; 30 s to finish its job", () => {
    const w = service("worker");
    const spec = deploymentSpec(plan, w, appContainer(w, "img:1", "worker-env-x", never), never);
    expect(spec.minReadySeconds).toBe(5);
    const pod = plain(plain(spec.template).spec);
    expect(pod.terminationGracePeriodSeconds).toBe(30);
    const c = plain(plain(pod.containers)[0]);
    expect(c.ports).toBeUndefined();
    expect(c.readinessProbe).toBeUndefined();
    expect(c.lifecycle).toBeUndefined();
    expect(c.envFrom).toEqual([{ secretRef: { name: "worker-env-x" } }]);
  });

  it("a service waits only for dependencies with a port (never a worker's 0)", () => {
    const api = service("api");
    const wait = plain(dependencyWait(plan, api, "img:1", never)[0]);
    expect(JSON.stringify(wait.command)).toContain("queue.shop-preview.svc.cluster.local");
  });

  it("redis: the image as it is, AOF on the claim at /data, ready when PING answers with the password", () => {
    const q = service("queue");
    const c = redisContainer({
      plan,
      service: q,
      namespace: "shop-preview",
      image: "platform-local/redis:7.0",
      envSecret: "queue-env-x",
      imageSource: never,
      storage: { kind: "storageClass" },
      opts: {},
    });
    expect(c.args).toBeUndefined();
    expect(c.env).toBeUndefined();
    expect(c.volumeMounts).toEqual([{ name: "data", mountPath: "/data" }]);
    expect(c.readinessProbe).toMatchObject({ exec: { command: ["sh", "-c", expect.stringContaining("redis-cli -h 127.0.0.1 ping")] } });
    expect(c.envFrom).toEqual([{ secretRef: { name: "queue-env-x" } }]);
  });

  it("a cron job: Forbid, a short starting deadline (missed runs are not made up), the timeout as the deadline, history kept", () => {
    const api = service("api");
    const spec = cronJobSpec(plan, api, api.cron![0]!, "img:2", "api-env-y", never);
    expect(spec).toMatchObject({
      schedule: "*/2 * * * *",
      timeZone: "UTC",
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 15,
      successfulJobsHistoryLimit: 5,
      failedJobsHistoryLimit: 5,
    });
    const job = plain(plain(spec.jobTemplate).spec);
    expect(job).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 120 });
    const pod = plain(plain(job.template).spec);
    expect(pod.containers).toMatchObject([
      { image: "img:2", args: ["python", "-m", "beat"], envFrom: [{ secretRef: { name: "api-env-y" } }] },
    ]);
    // Its pods are no instance of the service: the Service's selector does not match them.
    expect(plain(plain(job.template).metadata).labels).not.toHaveProperty("app.kubernetes.io/name");
  });

  it("CronJob names fit what Kubernetes allows their Jobs; schedules with seconds are refused", () => {
    expect(cronJobName({ name: "api" }, { name: "heartbeat" })).toBe("api-heartbeat");
    const long = cronJobName({ name: "a".repeat(30) }, { name: "b".repeat(40) });
    expect(long.length).toBeLessThanOrEqual(52);
    expect(long).toMatch(/^[a-z0-9-]+[a-z0-9]$/);
    expect(() => checkCronSchedules(plan)).not.toThrow();
    const seconds = { ...plan, services: [{ ...service("api"), cron: [{ ...service("api").cron![0]!, schedule: "*/5 * * * * *" }] }] };
    expect(() => checkCronSchedules(seconds)).toThrow(/minute resolution/);
  });

  it("platform cron reads a Job and its pod as a run: outcome, exit code, times, output", () => {
    const job = (conditions: { type: string; status: string; reason?: string }[]) => ({
      metadata: { name: "api-heartbeat-29000000", namespace: "ns", labels: { "platform.cron-job": "api.heartbeat" } },
      status: { startTime: "2026-11-26T10:00:00Z", completionTime: "2026-11-26T10:00:03Z", conditions },
    });
    expect(jobOutcome(job([]))).toBeUndefined();
    expect(jobOutcome(job([{ type: "Failed", status: "True", reason: "DeadlineExceeded" }]))).toBe("timed out");
    expect(jobOutcome(job([{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }]))).toBe("failed");
    const pod = {
      metadata: { name: "p", namespace: "ns" },
      status: {
        containerStatuses: [
          { state: { terminated: { exitCode: 0, startedAt: "2026-11-26T10:00:01Z", finishedAt: "2026-11-26T10:00:02Z" } } },
        ],
      },
    };
    expect(toCronRun(job([{ type: "Complete", status: "True" }]), pod, "ok\n")).toEqual({
      job: "api/heartbeat",
      started: "2026-11-26T10:00:01Z",
      finished: "2026-11-26T10:00:02Z",
      seconds: 1,
      exitCode: 0,
      outcome: "succeeded",
      output: "ok\n",
    });
  });

  it("platform run's pod: the service's container without port, probes or hooks, the command as args, labelled platform.run", () => {
    const api = service("api");
    const container = { ...appContainer(api, "img:3", "api-env-z", never), command: ["x"] } as never;
    const w = { kind: "Deployment", metadata: { name: "api" }, spec: { template: { spec: { containers: [container] } } } };
    const pod = buildRunPod(w, { service: "api", project: "shop", env: "preview", command: ["alembic", "current"], tty: false });
    expect(pod.metadata.labels).toEqual({ "platform.project": "shop", "platform.env": "preview", "platform.run": "api" });
    const c = pod.spec.containers[0] as Record<string, unknown>;
    expect(c).toMatchObject({
      name: "run",
      image: "img:3",
      args: ["alembic", "current"],
      envFrom: [{ secretRef: { name: "api-env-z" } }],
    });
    expect(c).not.toHaveProperty("stdin");
    const tty = buildRunPod(w, { service: "api", project: "shop", env: "preview", command: ["sh"], tty: true });
    expect(tty.spec.containers[0]).toMatchObject({ stdin: true, stdinOnce: true, tty: true });
    for (const k of ["ports", "readinessProbe", "lifecycle", "command"]) expect(c).not.toHaveProperty(k);
    expect(pod.spec.restartPolicy).toBe("Never");
  });

  it("platform run's pod never mounts a data claim, and keeps the database CA's ConfigMap", () => {
    const q = service("queue");
    const container = {
      ...appContainer(q, "img:4", "queue-env", never),
      volumeMounts: [
        { name: "data", mountPath: "/data" },
        { name: "database-ca", mountPath: "/etc/platform/tls" },
      ],
    } as never;
    const volumes = [
      { name: "data", persistentVolumeClaim: { claimName: "queue-data" } },
      { name: "database-ca", configMap: { name: "database-ca-x" } },
    ];
    const w = { kind: "StatefulSet", metadata: { name: "queue" }, spec: { template: { spec: { containers: [container], volumes } } } };
    const pod = buildRunPod(w, { service: "queue", project: "shop", env: "preview", command: ["redis-cli", "ping"], tty: false });
    expect(pod.spec.volumes).toEqual([{ name: "database-ca", configMap: { name: "database-ca-x" } }]);
    expect(pod.spec.containers[0]).toMatchObject({ volumeMounts: [{ name: "database-ca", mountPath: "/etc/platform/tls" }] });
  });
});
