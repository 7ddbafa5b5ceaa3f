import { describe, expect, it } from "vitest";
import { toProgress } from "../../../../src/engine/progress.js";
import { hasDefaultStorageClass } from "../../../../src/runtime/kubernetes.js";
import { exportsTelemetry } from "../../../../src/targets/shared/references.js";
import { receiverDeploymentSpec, receiverEndpoint, receiverLabels } from "../../../../src/targets/kubernetes/telemetry.js";
import { fullstackPlan } from "../../../fixtures/plans.js";
import { plain } from "./plain.js";

const scope = { project: "shop", env: "preview" };

describe("the Kubernetes stack's telemetry receiver", () => {
  it("one pod on the store's claim, replaced stop-first (one SQLite writer)", () => {
    const spec = receiverDeploymentSpec(scope, "platform-local/telemetry:abc", { pullPolicy: "Never" }, "platform-telemetry-store");
    expect(spec.replicas).toBe(1);
    expect(spec.strategy).toEqual({ type: "Recreate" });
    const pod = plain(plain(spec.template).spec);
    expect(pod.volumes).toEqual([{ name: "store", persistentVolumeClaim: { claimName: "platform-telemetry-store" } }]);
    const c = plain(plain(pod.containers)[0]);
    expect(c).toMatchObject({
      image: "platform-local/telemetry:abc",
      imagePullPolicy: "Never",
      volumeMounts: [{ name: "store", mountPath: "/data" }],
    });
    expect(c.readinessProbe).toMatchObject({ tcpSocket: { port: 4318 } });
    expect(pod).not.toHaveProperty("imagePullSecrets");
  });

  it("keeps the store in the pod on a cluster with no storage to claim", () => {
    const spec = receiverDeploymentSpec(scope, "img", { pullPolicy: "IfNotPresent" }, undefined);
    expect(plain(plain(spec.template).spec).volumes).toEqual([{ name: "store", emptyDir: {} }]);
  });

  it("knows a cluster's default StorageClass by either annotation", () => {
    const cls = (annotations?: Record<string, string>) => ({ metadata: { name: "x", ...(annotations ? { annotations } : {}) } });
    expect(hasDefaultStorageClass([cls(), cls({ "storageclass.kubernetes.io/is-default-class": "true" })])).toBe(true);
    expect(hasDefaultStorageClass([cls({ "storageclass.beta.kubernetes.io/is-default-class": "true" })])).toBe(true);
    expect(hasDefaultStorageClass([cls({ "storageclass.kubernetes.io/is-default-class": "false" })])).toBe(false);
    expect(hasDefaultStorageClass([])).toBe(false);
  });

  it("pulls from a registry with its credentials", () => {
    const spec = receiverDeploymentSpec(scope, "reg/x@sha256:1", { pullPolicy: "IfNotPresent", pullSecrets: ["creds"] }, "c");
    expect(plain(plain(spec.template).spec).imagePullSecrets).toEqual([{ name: "creds" }]);
  });

  it("carries the stack's labels and its role; services export to its Service's DNS name", () => {
    expect(receiverLabels(scope)).toMatchObject({ "platform.project": "shop", "platform.env": "preview", "platform.role": "telemetry" });
    expect(receiverEndpoint("shop-preview")).toBe("http://platform-telemetry.shop-preview.svc.cluster.local:4318");
  });

  it("runs when a service exports: fastapi and nextjs do, postgres does not", async () => {
    const plan = await fullstackPlan();
    expect(plan.services.filter(exportsTelemetry).map((s) => s.name)).toEqual(["api", "web"]);
  });

  it("is no service in a deploy's progress", () => {
    const urn = "urn:pulumi:preview::shop::kubernetes:apps/v1:Deployment::@telemetry-receiver";
    const e = { sequence: 1, timestamp: 1, resourcePreEvent: { metadata: { urn, op: "create", type: "", provider: "" } } };
    expect(toProgress(e as never)).toBeUndefined();
    expect(
      toProgress({
        ...e,
        resourcePreEvent: { metadata: { ...e.resourcePreEvent.metadata, urn: urn.replace("@telemetry-receiver", "api") } },
      } as never),
    ).toMatchObject({
      service: "api",
      phase: "starting",
    });
  });
});
