import { describe, expect, it } from "vitest";
import { appliedReplicas, HANDOVER_MANAGER } from "../../../src/runtime/kube-handover.js";

const replicas = { "f:spec": { "f:replicas": {}, "f:template": {} } };
const noReplicas = { "f:spec": { "f:template": {} } };

describe("the replica count handed over to an autoscaler", () => {
  it("is needed when an applier (Pulumi) owns spec.replicas", () => {
    expect(appliedReplicas([{ manager: "pulumi-kubernetes-ab12", operation: "Apply", fieldsV1: replicas }])).toBe(true);
  });

  it("is not needed when Pulumi never set it, when the autoscaler or the handover owns it, or with no fields", () => {
    expect(appliedReplicas([{ manager: "pulumi-kubernetes-ab12", operation: "Apply", fieldsV1: noReplicas }])).toBe(false);
    expect(appliedReplicas([{ manager: "kube-controller-manager", operation: "Update", fieldsV1: replicas }])).toBe(false);
    expect(appliedReplicas([{ manager: HANDOVER_MANAGER, operation: "Apply", fieldsV1: replicas }])).toBe(false);
    expect(appliedReplicas(undefined)).toBe(false);
  });
});
