import { keptKubeCluster } from "../engine/stack-ops.js";
import { readCronRuns, readRedisFacts } from "../runtime/cron-read.js";
import type { CronRun } from "../runtime/cron-runs.js";
import { listServiceContainers } from "../runtime/docker.js";
import { containerDetails } from "../runtime/inspect.js";
import { type KubePod, kubePods } from "../runtime/kube-pods.js";
import { kubeCronRuns } from "../runtime/kubernetes-cron.js";
import type { ServiceDetails } from "./api-types.js";

/**
 * What runs of one environment, whichever target it is on: each copy of each service (a
 * container on Docker, a pod on Kubernetes: the stack's settings say which), with what Studio's
 * services page shows of it.
 */
export interface Instance {
  readonly service: string;
  /** The container's or the pod's name. */
  readonly name: string;
  /** `running` when it serves (or runs, for a worker). */
  readonly state: string;
  readonly status: string;
  readonly image: string;
  /** Its order among its service's copies. */
  readonly replica: number;
  details(): Promise<ServiceDetails | undefined>;
  redis(): Promise<{ usedMemoryBytes: number; keys: number } | undefined>;
}

export interface LiveEnv {
  readonly target: "docker" | "kubernetes";
  readonly instances: readonly Instance[];
  cronRuns(n: number): Promise<CronRun[] | undefined>;
}

/** A pod as Studio's ServiceDetails: its start, restarts and limits (Kubernetes has no pids limit per pod here). */
export function podDetails(p: KubePod): ServiceDetails {
  return {
    startedAt: p.startedAt,
    restartCount: p.restartCount,
    exitCode: 0,
    oomKilled: false,
    limits: { cpus: p.limits.cpus, memoryBytes: p.limits.memoryBytes, pids: null },
  };
}

export async function liveEnv(project: string, env: string): Promise<LiveEnv> {
  const kube = keptKubeCluster(project, env);
  if (kube) {
    const pods = await kubePods(kube).catch(() => []);
    return {
      target: "kubernetes",
      instances: pods.map((p) => ({
        service: p.service,
        name: p.name,
        state: p.state,
        status: p.node ? `${p.status} · node ${p.node}` : p.status,
        image: p.image,
        replica: pods.filter((x) => x.service === p.service).indexOf(p) + 1,
        details: async () => podDetails(p),
        redis: async () => undefined,
      })),
      cronRuns: (n) => kubeCronRuns(kube, n),
    };
  }
  const containers = await listServiceContainers(project, env);
  return {
    target: "docker",
    instances: containers.map((c) => ({
      service: c.service,
      name: c.containerName,
      state: c.state,
      status: c.status,
      image: c.image,
      replica: c.replica,
      details: () => containerDetails(c.containerId),
      redis: () => readRedisFacts(c.containerId),
    })),
    cronRuns: (n) => readCronRuns(project, env, n),
  };
}

/** The services of a Kubernetes environment with a running pod; undefined for a Docker one. */
export async function kubeRunningServices(project: string, env: string): Promise<Set<string> | undefined> {
  const kube = keptKubeCluster(project, env);
  if (!kube) return undefined;
  const pods = await kubePods(kube).catch(() => []);
  return new Set(pods.filter((p) => p.state === "running").map((p) => p.service));
}
