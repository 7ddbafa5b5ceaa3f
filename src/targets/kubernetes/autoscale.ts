import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { PlannedService } from "../../plan/types.js";

/**
 * platform.yml `scale:` on Kubernetes: a HorizontalPodAutoscaler (autoscaling/v2) per scaled
 * service, fed by the cluster's metrics API (metrics-server), that owns its Deployment's replica
 * count: the Deployment's spec leaves `replicas` out (specs.ts), so a deploy never resets what the
 * autoscaler chose and a preview stays clean while it is scaled.
 */

/**
 * How long the load must have stayed low before copies are removed. Kubernetes' default is 5
 * minutes; a shorter window gives the capacity back sooner, at the cost of removing copies
 * between two bursts less than this far apart.
 */
export const SCALE_DOWN_STABILIZATION_SECONDS = 30;

/**
 * The target is an average *value* in millicores, `cpu` percent of the service's CPUs (its
 * resources preset's `cpus`, the container's limit), not the autoscaler's Utilization: that is a
 * percent of the CPU *request*, and requests stay small on purpose (specs.ts resources(): a
 * rollout's extra pod must fit next to the old ones), so 70% of a 10m request would mean 7m.
 */
export function cpuTargetMillicores(s: PlannedService): number {
  const cpu = s.scale?.cpu ?? 100;
  return Math.max(1, Math.round((s.cpus * 1000 * cpu) / 100));
}

/** The autoscaler of a scaled service; undefined for one without `scale:`. */
export function autoscalerSpec(s: PlannedService): k8s.types.input.autoscaling.v2.HorizontalPodAutoscalerSpec | undefined {
  if (!s.scale) return undefined;
  return {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: s.name },
    minReplicas: s.scale.min,
    maxReplicas: s.scale.max,
    metrics: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "AverageValue", averageValue: `${cpuTargetMillicores(s)}m` } },
      },
    ],
    behavior: {
      // Up at Kubernetes' default pace (double, or 4 pods, per 15 s); down all at once after the window.
      scaleDown: {
        stabilizationWindowSeconds: SCALE_DOWN_STABILIZATION_SECONDS,
        policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
      },
    },
  };
}

/** The autoscaler, after its Deployment exists; nothing for a service without `scale:`. */
export function createAutoscaler(
  s: PlannedService,
  metadata: { namespace: string; labels: Record<string, string> },
  deployment: pulumi.Resource,
  provider: k8s.Provider,
): k8s.autoscaling.v2.HorizontalPodAutoscaler | undefined {
  const spec = autoscalerSpec(s);
  if (!spec) return undefined;
  return new k8s.autoscaling.v2.HorizontalPodAutoscaler(
    s.name,
    { metadata: { name: s.name, ...metadata }, spec },
    { provider, dependsOn: [deployment] },
  );
}
