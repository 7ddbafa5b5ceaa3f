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
 * its min, which then stays.
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

interface LiveObject {
  kind: string;
  metadata: { name: string; managedFields?: ManagedField[] };
  spec: { replicas?: number };
}

/**
 * Before a deploy, in one read of the stack's Deployments and autoscalers: the count handed over
 * for each scaled service whose Deployment Pulumi gave one ("name: count"), and the autoscalers
 * removed of the services no longer scaled (their names).
 */
export async function prepareScaling(
  t: KubeCluster,
  namespace: string,
  services: readonly { name: string; scaled: boolean }[],
): Promise<{ handed: string[]; removed: string[] }> {
  const out = await kubectl(t, ["-n", namespace, "get", "deployments,hpa", "-l", stackSelector(t), "--show-managed-fields", "-o", "json"]);
  const live = (JSON.parse(out) as { items: LiveObject[] }).items;
  const scaled = (name: string) => services.find((s) => s.name === name)?.scaled;
  const handed: string[] = [];
  for (const d of live.filter((o) => o.kind === "Deployment" && scaled(o.metadata.name))) {
    if (d.spec.replicas === undefined || !appliedReplicas(d.metadata.managedFields)) continue;
    const manifest = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: d.metadata.name, namespace },
      spec: { replicas: d.spec.replicas },
    };
    await kubectl(
      t,
      ["apply", "--server-side", "--field-manager", HANDOVER_MANAGER, "--validate=false", "-f", "-"],
      "pipe",
      JSON.stringify(manifest),
    );
    handed.push(`${d.metadata.name}: ${d.spec.replicas}`);
  }
  const removed = live.filter((o) => o.kind === "HorizontalPodAutoscaler" && scaled(o.metadata.name) === false).map((o) => o.metadata.name);
  for (const name of removed) await kubectl(t, ["-n", namespace, "delete", "hpa", name, "--ignore-not-found", "--wait=true"]);
  return { handed, removed };
}
