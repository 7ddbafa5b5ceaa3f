import { describe, expect, it } from "vitest";
import { buildPlan } from "../../../src/plan/build-plan.js";
import { buildPlanReport } from "../../../src/plan/plan-report.js";
import { createKubernetesTarget } from "../../../src/targets/kubernetes/index.js";
import type { SourceSnapshot } from "../../../src/plan/recipes/index.js";
import { buildWorkerRecipe } from "../../../src/plan/worker.js";
import { all, brief, check, PROJECT, y } from "./helpers.js";

const BASE = y`
  version: "1.0"
  name: shop
  services:
    queue:
      type: redis
    api:
      type: fastapi
      build: {source: ./api}
      public: true
      depends_on: [queue]
      env:
        REDIS_URL: \${queue.url}
    worker:
      type: worker
      build: {source: ./worker}
      start: python -m worker
      depends_on: [queue, api]
      env:
        REDIS_URL: \${queue.url}
`;

const messages = (text: string) => all(check(text)).map(brief);

describe("type: worker in platform.yml", () => {
  it("is valid with build and start, and not warned about as unused", () => {
    expect(messages(BASE)).toEqual([]);
  });

  it("refuses public, health, and a reference to its url", () => {
    const text = BASE.replace(
      "    start: python -m worker\n",
      "    start: python -m worker\n    public: true\n    health: {http: /}\n",
    ).replace("      REDIS_URL: ${queue.url}\n  worker:", "      REDIS_URL: ${queue.url}\n      WORKER_URL: ${worker.url}\n  worker:");
    const got = messages(text).join("\n");
    expect(got).toContain("worker-public a worker has no port, so it is never put on the public HTTPS edge");
    expect(got).toContain("worker-health a worker takes no HTTP health check: it is healthy while it keeps running");
    expect(got).toContain("worker-url worker is a worker: it has no port and no URL, so ${worker.url} has no value");
  });

  it("needs start when built from source, and source or build", () => {
    const fromSource = BASE.replace("    build: {source: ./worker}\n    start: python -m worker\n", "    source: ./worker\n");
    expect(messages(fromSource).join("\n")).toContain("worker-start a worker built from source needs start: the command it runs");
    const neither = BASE.replace("    build: {source: ./worker}\n", "");
    expect(messages(neither).join("\n")).toContain("missing-source a worker service needs source or build");
  });

  it("suggests worker for a misspelt type", () => {
    expect(
      all(check(BASE.replace("type: worker", "type: workr")))
        .map((d) => d.message)
        .join("\n"),
    ).toMatch(/did you mean "worker"\?/);
  });
});

describe("a worker in the plan", () => {
  const images = { python: "platform-local/python:3.11", node: "n", postgres: "pg", caddy: "c", redis: "r" };
  const ctx = { project: "shop", env: "preview", appsDomain: "localhost", httpsPort: 443, projectDir: PROJECT, images };

  it("has no port, no PORT, a running check that must settle, a grace period, and starts after its dependencies", () => {
    const plan = buildPlan(check(BASE).config!, ctx, new Map());
    expect(plan.services.map((s) => s.name)).toEqual(["queue", "api", "worker"]);
    const w = plan.services[2]!;
    expect(w).toMatchObject({
      type: "worker",
      port: 0,
      public: false,
      stopFirst: false,
      stopGraceSeconds: 30,
      health: { kind: "running", settleSeconds: 5 },
      dependsOn: ["queue", "api"],
      command: ["/bin/sh", "-c", "exec python -m worker"],
    });
    expect(w.env.PORT).toBeUndefined();
    expect(w.env.REDIS_URL).toEqual([{ kind: "ref", service: "queue", property: "url" }]);
  });

  it("may be depended on: a service that lists a worker starts after it", () => {
    const text = BASE.replace("    depends_on: [queue, api]\n", "    depends_on: [queue]\n").replace(
      "    depends_on: [queue]\n    env:\n      REDIS_URL: ${queue.url}\n  worker:",
      "    depends_on: [queue, worker]\n    env:\n      REDIS_URL: ${queue.url}\n  worker:",
    );
    const r = check(text);
    expect(all(r).map(brief)).toEqual([]);
    const plan = buildPlan(r.config!, ctx, new Map());
    expect(plan.services.map((s) => s.name)).toEqual(["queue", "worker", "api"]);
    expect(plan.services[2]?.dependsOn).toEqual(["queue", "worker"]);
  });

  it("a cron schedule with seconds is refused by the Kubernetes target before any resource (CronJobs have minute resolution)", () => {
    const text = BASE.replace(
      "    start: python -m worker\n",
      '    start: python -m worker\n    cron:\n      - {name: tick, schedule: "*/5 * * * * *", command: [python, -m, tick]}\n',
    );
    const plan = buildPlan(check(text).config!, ctx, new Map());
    expect(() => createKubernetesTarget(plan, {} as never)).toThrow(
      /services\.worker\.cron tick \("\*\/5 \* \* \* \* \*"\): a schedule with seconds cannot run on Kubernetes .*write 5 fields/,
    );
  });

  it("takes health.command (a check inside its container), and http only elsewhere", () => {
    const withCheck = BASE.replace(
      "    start: python -m worker\n",
      '    start: python -m worker\n    health: {command: "celery -A app inspect ping -d celery@$HOSTNAME"}\n',
    );
    expect(messages(withCheck)).toEqual([]);
    const plan = buildPlan(check(withCheck).config!, ctx, new Map());
    const w = plan.services.find((x) => x.name === "worker")!;
    expect(w.health).toEqual({ kind: "exec", command: ["/bin/sh", "-c", "exec celery -A app inspect ping -d celery@$HOSTNAME"] });
    const report = buildPlanReport(plan, PROJECT, () => "FROM x\n", new Set());
    expect(report.services.find((x) => x.name === "worker")!.details).toContain(
      "health: exec celery -A app inspect ping -d celery@$HOSTNAME exits 0 in its container (platform.yml health.command); no port, no URL; SIGTERM, then 30s",
    );
    expect(messages(BASE.replace("    start: python -m worker\n", "    start: python -m worker\n    health: {}\n")).join("\n")).toContain(
      "health-empty health needs command on a worker",
    );
    const apiCommand = BASE.replace("    public: true\n", "    public: true\n    health: {command: [true]}\n");
    expect(messages(apiCommand).join("\n")).toContain(
      "health-command-worker-only health.command is for workers; a fastapi service is checked over HTTP",
    );
  });

  it("platform plan says how a worker is checked and stopped", () => {
    const plan = buildPlan(check(BASE).config!, ctx, new Map());
    const report = buildPlanReport(plan, PROJECT, () => "FROM x\n", new Set());
    const w = report.services.find((x) => x.name === "worker")!;
    expect(w.details).toContain("health: keeps running 5s after start; no port, no URL; SIGTERM, then 30s");
  });

  const snapshot = (files: Record<string, string>): SourceSnapshot =>
    ({ dir: "/w", files: Object.keys(files), read: (p: string) => files[p] }) as unknown as SourceSnapshot;

  it("builds a Python source with the FastAPI recipe and platform.yml's start as CMD", () => {
    const r = buildWorkerRecipe(snapshot({ "requirements.txt": "redis\n", "worker.py": "print(1)\n" }), images, {
      start: "python worker.py",
    });
    expect(r.dockerfile).toContain('CMD ["/bin/sh","-c","exec python worker.py"]');
    expect(r.dockerfile).toContain(`FROM ${images.python}`);
  });

  it("builds a Node source with the Node recipe, and says what to do for an unknown one", () => {
    const r = buildWorkerRecipe(snapshot({ "package.json": "{}" }), images, { start: "node w.js" });
    expect(r.dockerfile).toContain('CMD ["/bin/sh","-c","exec node w.js"]');
    expect(() => buildWorkerRecipe(snapshot({ "main.go": "" }), images, { start: "x" })).toThrow(/no Python or Node.js project here/);
  });
});
