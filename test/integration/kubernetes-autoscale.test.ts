import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCALE_DOWN_STABILIZATION_SECONDS } from "../../src/targets/kubernetes/autoscale.js";
import { ok, parseUrls, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, pulumiOnStack, requireToolchain, ROOT, unique } from "./helpers/env.js";
import { clusterUp, kubectl } from "./helpers/kubernetes.js";
import { describeLoad, type LoadResult, startLoad } from "./helpers/load.js";

/**
 * Issue #28 item 2 (autoscaling) on the Kubernetes test cluster: an API with
 * `scale: {min: 1, max: 3, cpu: 20}` (test/fixtures/apps/burn) gets a HorizontalPodAutoscaler
 * fed by the cluster's metrics-server; CPU load through the platform's edge on 127.0.0.1 scales
 * it up to more than one ready pod, a plain `pulumi preview --expect-no-changes` stays clean
 * while it is scaled (the Deployment leaves replicas to the autoscaler), a deploy that rolls the
 * pods keeps the autoscaler's count, and once the load stops
 * it comes back to one pod. The load is bounded in time and count.
 */
const project = unique("k8s-hpa");
const namespace = `${project}-preview`;
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-k8s-autoscale-")), "burn");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const json = (...args: string[]) => JSON.parse(kubectl("-n", namespace, ...args, "-o", "json"));
let api = "";
let ca = "";

/** Pods of the api that are ready (not terminating). */
function readyPods(): number {
  const pods = json("get", "pods", "-l", "app.kubernetes.io/name=api").items as {
    metadata: { deletionTimestamp?: string };
    status: { conditions?: { type: string; status: string }[] };
  }[];
  return pods.filter((p) => !p.metadata.deletionTimestamp && p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
    .length;
}

/** Polls until `check` holds, at most `ms`: the seconds it took, or a failure with `what` and the autoscaler's state. */
async function within(ms: number, what: string, check: () => boolean): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (check()) return (Date.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 3000));
  }
  throw new Error(`${what} not within ${ms / 1000}s:\n${kubectl("-n", namespace, "describe", "hpa", "api")}`);
}

/**
 * 4 HTTP/1.1 loops of GET /burn through the edge (half on a TLS connection per request, half on
 * a kept one) until stopped, at most 5 minutes and 20,000 requests: CPU for the autoscaler. Every
 * error, answer other than 2xx and resend on a kept connection is a failure (helpers/load.ts).
 */
const burnLoad = () =>
  startLoad({ clients: 4, ca, maxMs: 300_000, maxRequests: 20_000, mix: [{ name: "GET api /burn", url: `${api}/burn?ms=200` }] });

describe("autoscaling on the Kubernetes test cluster (scale: in platform.yml)", () => {
  beforeAll(async () => {
    requireToolchain();
    await clusterUp();
    cpSync(join(ROOT, "test", "fixtures", "apps", "burn"), dir, { recursive: true });
  }, 45 * 60_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    rmSync(join(dir, ".."), { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys a HorizontalPodAutoscaler that owns the Deployment's replicas, fed by the metrics API", async () => {
    const r = ok(await cli("deploy", "--yes", "--project", project, "--target", "kubernetes"));
    api = parseUrls(r.stdout).api as string;
    ca = ok(await cli("ca")).stdout;
    const hpa = json("get", "hpa", "api").spec;
    expect(hpa).toMatchObject({
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "AverageValue", averageValue: "100m" } } }],
    });
    expect(hpa.behavior.scaleDown.stabilizationWindowSeconds).toBe(SCALE_DOWN_STABILIZATION_SECONDS);
    // Pulumi never set replicas: the field's only manager besides the API server's defaulting is the autoscaler.
    const managers = (
      json("get", "deployment", "api", "--show-managed-fields").metadata.managedFields as { manager: string; fieldsV1: object }[]
    )
      .filter((m) => JSON.stringify(m.fieldsV1).includes('"f:replicas"') && m.manager !== "kube-controller-manager")
      .map((m) => m.manager);
    expect(managers.filter((m) => m.includes("pulumi"))).toEqual([]);
    expect(json("get", "pdb", "api").spec).toMatchObject({ maxUnavailable: 1 });
    // The autoscaler reads the pod's CPU from metrics-server: kubectl top works, and so does it.
    await within(
      120_000,
      "the autoscaler reading CPU",
      () => json("get", "hpa", "api").status?.currentMetrics?.[0]?.resource?.current?.averageValue !== undefined,
    );
    expect(kubectl("top", "pods", "-A")).toMatch(new RegExp(`${namespace}\\s+api-`));
  }, 900_000);

  it("scales up under CPU load through the edge, stays clean under pulumi preview, and comes back to one pod", async () => {
    const t0 = Date.now();
    const load = burnLoad();
    let up: number;
    let result: LoadResult | undefined;
    try {
      up = await within(240_000, "more than one ready api pod", () => readyPods() > 1);
      console.log(`scaled up to ${readyPods()} ready pods ${up}s after the load started (${load.sent()} requests sent)`);
      const status = ok(await cli("status", "--project", project));
      expect(status.stdout).toMatch(/^api\s+running\s+Deployment ready [23]\/[23]\s/m);
      // While scaled: the program's Deployment has no replicas, so the autoscaler's count is no change.
      expect(pulumiOnStack(project, backend, ["preview", "--expect-no-changes"])).toMatch(/\d+ unchanged/);
      const scaled = json("get", "deployment", "api").spec.replicas;
      expect(scaled).toBeGreaterThan(1);
      // A deploy that changes the pods (a new variable: a rollout) keeps the autoscaler's count.
      const yml = join(dir, "platform.yml");
      writeFileSync(yml, readFileSync(yml, "utf8").replace("      http: /health\n", '      http: /health\n    env:\n      ROUND: "2"\n'));
      ok(await cli("deploy", "--yes", "--project", project));
      expect(json("get", "deployment", "api").spec.replicas).toBeGreaterThan(1);
      console.log(`redeployed while scaled (${scaled} replicas before, ${json("get", "deployment", "api").spec.replicas} after)`);
    } finally {
      result = await load.stop();
      console.log([`[kubernetes-autoscale] ${(Date.now() - t0) / 1000} s of load:`, ...describeLoad(result)].join("\n"));
    }
    expect(result.sent).toBeGreaterThan(0);
    expect(result.failures.map((f) => `${f.request}: ${f.what}`)).toEqual([]);
    const down = await within((SCALE_DOWN_STABILIZATION_SECONDS + 150) * 1000, "back to one replica", () => {
      const d = json("get", "deployment", "api");
      return d.spec.replicas === 1 && readyPods() === 1;
    });
    console.log(`back to 1 pod ${down}s after the load stopped`);
    expect(ok(await cli("status", "--project", project)).stdout).toMatch(/^api\s+running\s+Deployment ready 1\/1\s/m);
  }, 900_000);
});
