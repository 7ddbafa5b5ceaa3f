import type { PlannedService } from "../../plan/types.js";

/**
 * Kubernetes names of a stack. Project, environment and service names are DNS labels already
 * (config rules), but Docker's names join them with '_', which Kubernetes refuses. A stack gets a
 * namespace of its own, so service names need no prefix inside it.
 */
export { namespaceName } from "../../plan/naming.js";

/** The Service DNS name other services reach a service by. */
export function serviceHost(s: Pick<PlannedService, "name">, namespace: string): string {
  return `${s.name}.${namespace}.svc.cluster.local`;
}

/**
 * The names a database's server certificate carries: every form of its Service's DNS name a
 * pod in the cluster can dial (`${db.url}` uses the full one).
 */
export function databaseHosts(s: Pick<PlannedService, "name">, namespace: string): string[] {
  return [serviceHost(s, namespace), s.name, `${s.name}.${namespace}`, `${s.name}.${namespace}.svc`];
}

/** The claim (and, on the test cluster, the volume) of a database's data. */
export function dataClaimName(s: Pick<PlannedService, "name">): string {
  return `${s.name}-data`;
}

/** Labels that select a service's pods: stable, because a selector cannot change. */
export function selectorLabels(s: Pick<PlannedService, "name">): Record<string, string> {
  return { "app.kubernetes.io/name": s.name, "app.kubernetes.io/managed-by": "platform" };
}
