import { listServiceContainers, requireEngine, runningContainer } from "../runtime/docker.js";
import { kubeServices } from "../runtime/kubernetes.js";
import { kubeReadyPod } from "../runtime/kubernetes-run.js";
import type { DbHost } from "../runtime/pg-exec.js";
import type { Credentials } from "./credentials.js";
import { kubeClusterOf } from "./stack-ops.js";

/**
 * Where a stack's postgres service runs now, for backups and restores: its running container on
 * the Docker target, its ready pod on Kubernetes (the StatefulSet's, through `kubectl exec`).
 * Undefined when the container does not run; on Kubernetes a service with no ready pod throws
 * with why (not deployed, no ready pod), as `platform exec` does.
 */
export async function runningDatabase(project: string, env: string, service: string, creds: Credentials): Promise<DbHost | undefined> {
  const kube = await kubeClusterOf({ project, env }, creds);
  if (kube) return kubeReadyPod(kube, service);
  await requireEngine();
  return (await runningContainer(project, env, service))?.containerId;
}

/** The services of an environment that run now (a container running; on Kubernetes, a ready pod). */
export async function runningServices(project: string, env: string, creds: Credentials): Promise<Set<string>> {
  const kube = await kubeClusterOf({ project, env }, creds);
  if (kube) return new Set([...(await kubeServices(kube))].filter(([, s]) => s.running).map(([name]) => name));
  return new Set((await listServiceContainers(project, env)).filter((c) => c.state === "running").map((c) => c.service));
}
