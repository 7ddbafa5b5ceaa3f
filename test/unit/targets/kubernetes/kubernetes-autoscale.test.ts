import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../fixtures/temp-home.js";
import { autoscalerSpec, cpuTargetMillicores, SCALE_DOWN_STABILIZATION_SECONDS } from "../../../../src/targets/kubernetes/autoscale.js";
import { appContainer, deploymentSpec, disruptionBudgetSpec } from "../../../../src/targets/kubernetes/specs.js";
import type { Plan, PlannedService } from "../../../../src/plan/types.js";
import { fullstackPlan } from "../../../fixtures/plans.js";
import { plain } from "./plain.js";

/** What the target made under Pulumi mocks: {type, name, inputs}. */
const recorded: { type: string; name: string; inputs: Record<string, unknown> }[] = [];
pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      recorded.push({ type: args.type, name: args.name, inputs: args.inputs });
      const metadata = (args.inputs.metadata as Record<string, unknown> | undefined) ?? {};
      const named = args.type.startsWith("kubernetes:") ? { metadata: { ...metadata, name: metadata.name ?? `${args.name}-x1` } } : {};
      const computed = { words: "brave-otter", value: "s3cretpassw0rd", certPem: "C", keyPem: "K", notAfter: "2046-01-01T00:00:00.000Z" };
      return { id: `${args.name}-id`, state: { ...args.inputs, ...computed, ...named } };
    },
    call: () => ({}),
  },
  "fullstack",
  "preview",
  false,
);

const plan: Plan = await fullstackPlan();
const api = plan.services.find((s) => s.name === "api")!;
const never = { pullPolicy: "Never" } as const;
const scaled = (scale: PlannedService["scale"], more: Partial<PlannedService> = {}): PlannedService => ({ ...api, scale, ...more });

describe("Kubernetes autoscaling from platform.yml scale:", () => {
  it("an autoscaler targets the service's Deployment between min and max", () => {
    const spec = autoscalerSpec(scaled({ min: 1, max: 3, cpu: 50 }, { cpus: 0.5 }))!;
    expect(spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: "api" });
    expect(spec).toMatchObject({ minReplicas: 1, maxReplicas: 3 });
    // cpu is a percent of the service's cpus (its limit), as millicores: not of the tiny request.
    expect(spec.metrics).toEqual([{ type: "Resource", resource: { name: "cpu", target: { type: "AverageValue", averageValue: "250m" } } }]);
    expect(plain(plain(spec.behavior).scaleDown)).toMatchObject({ stabilizationWindowSeconds: SCALE_DOWN_STABILIZATION_SECONDS });
  });

  it("the target is never below 1m, and no autoscaler without scale:", () => {
    expect(cpuTargetMillicores(scaled({ min: 1, max: 2, cpu: 1 }, { cpus: 0.01 }))).toBe(1);
    expect(autoscalerSpec(api)).toBeUndefined();
  });

  it("a scaled Deployment leaves replicas to its autoscaler; it gets a budget and spread like a replicated one", () => {
    const s = scaled({ min: 2, max: 4, cpu: 70 }, { replicas: 2 });
    const spec = deploymentSpec(plan, s, appContainer(s, "img:1", "env", never), never);
    expect(spec).not.toHaveProperty("replicas");
    // Spread within one revision: the old pods of a rollout do not push the new ones onto one node.
    expect(plain(plain(spec.template).spec).topologySpreadConstraints).toMatchObject([{ matchLabelKeys: ["pod-template-hash"] }]);
    expect(disruptionBudgetSpec(s)).toMatchObject({ maxUnavailable: 1 });
    // min 1: still a budget and spread, since the autoscaler may add pods.
    const one = scaled({ min: 1, max: 3, cpu: 70 });
    expect(disruptionBudgetSpec(one)).toBeDefined();
    // Without scale: replicas as before.
    expect(deploymentSpec(plan, api, appContainer(api, "img:1", "env", never), never).replicas).toBe(api.replicas ?? 1);
  });
});

describe("Kubernetes target (mocked engine): a scaled service", () => {
  beforeAll(async () => {
    const { createKubernetesTarget } = await import("../../../../src/targets/kubernetes/index.js");
    const scaledPlan: Plan = {
      ...plan,
      services: plan.services.map((s) => (s.name === "api" ? { ...s, scale: { min: 1, max: 4, cpu: 60 } } : s)),
    };
    const outputs = createKubernetesTarget(scaledPlan, {
      buildEnvKey: Buffer.alloc(32, 1),
      logDir: tempDir("logs-"),
      kubeconfig: "/nonexistent/kubeconfig",
      testCluster: { volumesDir: "/tmp/volumes" },
    });
    await new Promise<void>((r) => (outputs.database_url as pulumi.Output<string>).apply(() => r()));
    await new Promise((r) => setTimeout(r, 100));
  });

  it("makes one HorizontalPodAutoscaler, for the scaled api only, and its Deployment has no replicas", () => {
    const hpas = recorded.filter((r) => r.type === "kubernetes:autoscaling/v2:HorizontalPodAutoscaler");
    expect(hpas.map((h) => h.name)).toEqual(["api"]);
    expect(hpas[0]?.inputs).toMatchObject({
      metadata: { name: "api", namespace: "fullstack-preview" },
      spec: { minReplicas: 1, maxReplicas: 4, scaleTargetRef: { kind: "Deployment", name: "api" } },
    });
    const deployment = (name: string) => recorded.find((r) => r.type === "kubernetes:apps/v1:Deployment" && r.name === name);
    expect(deployment("api")?.inputs.spec).not.toHaveProperty("replicas");
    expect(deployment("web")?.inputs.spec).toMatchObject({ replicas: 1 });
    expect(recorded.filter((r) => r.type === "kubernetes:policy/v1:PodDisruptionBudget").map((r) => r.name)).toEqual(["api"]);
  });
});
