import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kubernetesCluster } from "../../../../src/test-cluster/kubeconfig.js";
import { clusterLayout } from "../../../../src/test-cluster/layout.js";
import { buildForwarderCaddyfile } from "../../../../src/targets/kubernetes/edge.js";
import { namespaceName, serviceHost } from "../../../../src/targets/kubernetes/names.js";
import { appContainer, deploymentSpec, migrateJobSpec, readinessProbe, serviceSpec } from "../../../../src/targets/kubernetes/specs.js";
import type { Plan } from "../../../../src/plan/types.js";
import { fullstackPlan } from "../../../fixtures/plans.js";
import { plain } from "./plain.js";

const plan: Plan = await fullstackPlan();
const service = (name: string) => plan.services.find((s) => s.name === name)!;
const never = { pullPolicy: "Never" } as const;

describe("Kubernetes specs from the plan", () => {
  it("names: one namespace per stack, without Docker's '_'; Service DNS names for references", () => {
    expect(namespaceName(plan)).toBe(`${plan.project}-${plan.env}`);
    expect(namespaceName(plan)).toMatch(/^[a-z0-9-]+$/);
    expect(serviceHost(service("database"), "shop-preview")).toBe("database.shop-preview.svc.cluster.local");
    expect(() => namespaceName({ project: "p".repeat(40), env: "e".repeat(30) })).toThrow(/63 characters/);
  });

  it("a Deployment never goes below one ready pod and is ready by platform.yml's health path", () => {
    const api = service("api");
    const spec = deploymentSpec(plan, api, appContainer(api, "img:1", "api-env-x", never), never);
    expect(spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    const c = plain(plain(plain(plain(spec.template).spec).containers)[0]);
    expect(c).toMatchObject({ image: "img:1", imagePullPolicy: "Never", envFrom: [{ secretRef: { name: "api-env-x" } }] });
    expect(c.readinessProbe).toMatchObject({ httpGet: { path: "/health", port: api.port } });
    expect(c.lifecycle).toMatchObject({ preStop: { sleep: { seconds: expect.any(Number) } } });
    expect(serviceSpec(api)).toMatchObject({ type: "ClusterIP", ports: [{ port: api.port, targetPort: api.port }] });
  });

  it("readiness: any answer is a TCP connect, a command is an exec, no check is none", () => {
    expect(readinessProbe({ kind: "http", path: "/", port: 8080, anyStatus: true })).toMatchObject({ tcpSocket: { port: 8080 } });
    expect(readinessProbe({ kind: "exec", command: ["pg_isready"] })).toMatchObject({ exec: { command: ["pg_isready"] } });
    expect(readinessProbe({ kind: "running" })).toBeUndefined();
  });

  it("a migration Job runs once, with the service's variables, and is killed at platform.yml's timeout", () => {
    const api = service("api");
    const job = migrateJobSpec(plan, api, "img:2", "api-env-y", never);
    expect(job).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: api.migrate!.timeoutSeconds });
    expect(job.template).toMatchObject({
      spec: { restartPolicy: "Never", containers: [{ image: "img:2", command: api.migrate!.command }] },
    });
    // Its pod is not one the Service sends requests to.
    const selector = serviceSpec(api).selector as Record<string, string>;
    const labels = plain(plain(plain(job.template).metadata).labels);
    expect(Object.entries(selector).every(([k, v]) => labels[k] === v)).toBe(false);
  });

  it("the edge forwarder dials the ClusterIP without keep-alive, retrying failed dials", () => {
    const caddyfile = buildForwarderCaddyfile("10.96.0.42", 8080);
    expect(caddyfile).toContain("reverse_proxy 10.96.0.42:8080");
    expect(caddyfile).toContain("keepalive off");
    expect(caddyfile).toContain("lb_try_duration");
  });

  it("the cluster: the stack's kubeconfig first, then KUBECONFIG; the test cluster is known by its kubeconfig", () => {
    expect(kubernetesCluster("/x/kube.yaml", {})).toEqual({ kubeconfig: "/x/kube.yaml" });
    expect(kubernetesCluster(undefined, { KUBECONFIG: "/y/a.yaml:/y/b.yaml" })).toEqual({ kubeconfig: "/y/a.yaml" });
    const test = clusterLayout();
    expect(kubernetesCluster(test.adminKubeconfig, {})).toEqual({
      kubeconfig: test.adminKubeconfig,
      testCluster: { volumesDir: join(test.dir, "volumes") },
    });
  });
});
