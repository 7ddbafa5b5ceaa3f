import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeCluster, kubectl, stackSelector } from "./kubernetes.js";

/**
 * `replicas: N` becoming `scale:` on Kubernetes. Pulumi applies server-side and owned the
 * Deployment's `spec.replicas`; a spec that leaves it out makes the API server drop the field,
 * which defaults to 1: every pod but one would stop until the autoscaler raised the count again
 * (the trap Kubernetes documents under "Migrating Deployments to horizontal autoscaling"). So
 * before such a deploy the current count is applied under a field manager of its own, which keeps
 * the field when Pulumi lets go of it (server-side apply's "transferring ownership"); the
 * autoscaler takes it over at its first change of the count.
 *
 * The other way, `scale:` becoming `replicas: N`, the autoscaler is removed first: Pulumi would
 * delete it only after the Deployment's update, and meanwhile it could raise the count back to
 * its min, which then stays (see `removeAutoscalers`).
 */
export const HANDOVER_MANAGER = "platform-autoscaler-handover";

interface ManagedField {
  manager?: string;
  operation?: string;
  fieldsV1?: { "f:spec"?: Record<string, unknown> };
}

/** Whether an applier other than the handover (Pulumi) owns `spec.replicas`: the deploy would drop it. */
export function appliedReplicas(managedFields: readonly ManagedField[] | undefined): boolean {
  return (managedFields ?? []).some(
    (m) => m.operation === "Apply" && m.manager !== HANDOVER_MANAGER && m.fieldsV1?.["f:spec"]?.["f:replicas"] !== undefined,
  );
}

/** The handover for each named Deployment that needs it: "name: count" for each one handed over. */
export async function handOverReplicas(t: KubeCluster, namespace: string, deployments: readonly string[]): Promise<string[]> {
  const handed: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), "platform-handover-"));
  try {
    for (const name of deployments) {
      const out = await kubectl(t, [
        "-n",
        namespace,
        "get",
        "deployment",
        name,
        "--ignore-not-found",
        "--show-managed-fields",
        "-o",
        "json",
      ]);
      if (!out.trim()) continue;
      const live = JSON.parse(out) as { metadata: { managedFields?: ManagedField[] }; spec: { replicas?: number } };
      if (live.spec.replicas === undefined || !appliedReplicas(live.metadata.managedFields)) continue;
      const file = join(dir, `${name}.json`);
      const manifest = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace }, spec: { replicas: live.spec.replicas } };
      writeFileSync(file, JSON.stringify(manifest));
      await kubectl(t, ["apply", "--server-side", "--field-manager", HANDOVER_MANAGER, "--validate=false", "-f", file]);
      handed.push(`${name}: ${live.spec.replicas}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return handed;
}

/** Removes this stack's autoscalers of the named Deployments (no longer scaled): the names removed. */
export async function removeAutoscalers(t: KubeCluster, namespace: string, deployments: readonly string[]): Promise<string[]> {
  const out = await kubectl(t, ["-n", namespace, "get", "hpa", "-l", stackSelector(t), "-o", "jsonpath={.items[*].metadata.name}"]);
  const gone = out.split(/\s+/).filter((n) => deployments.includes(n));
  for (const name of gone) await kubectl(t, ["-n", namespace, "delete", "hpa", name, "--ignore-not-found", "--wait=true"]);
  return gone;
}
