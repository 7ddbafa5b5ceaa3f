import type { DbHost } from "../runtime/pg-exec.js";
import type { Credentials } from "../engine/credentials.js";
import { stackRuntime } from "../engine/stack-ops.js";

/**
 * Where a stack's postgres service runs now, for backups and restores: its running container on
 * the Docker target, its ready pod on Kubernetes (the StatefulSet's, through `kubectl exec`).
 * Undefined when the container does not run; on Kubernetes a service with no ready pod throws
 * with why (not deployed, no ready pod), as `platform exec` does.
 */
export async function runningDatabase(project: string, env: string, service: string, creds: Credentials): Promise<DbHost | undefined> {
  return (await stackRuntime({ project, env }, creds)).databaseHost(service);
}

/** The services of an environment that run now (a container running; on Kubernetes, a ready pod). */
export async function runningServices(project: string, env: string, creds: Credentials): Promise<Set<string>> {
  return (await stackRuntime({ project, env }, creds)).runningServices();
}
