import { keptKubeCluster } from "../engine/stack-ops.js";
import { kubePodUsage } from "../runtime/kube-pods.js";
import { readUsage, runningServiceContainers, type Usage } from "../runtime/stats.js";
import { listProjects } from "./overview.js";
import type { StatsStore } from "./stats-store.js";

export const SAMPLE_EVERY_MS = 10_000;

/** Every Kubernetes environment's running pods with their readings from metrics-server. */
async function kubeReadings(): Promise<{ scope: { project: string; env: string; service: string }; usage: Usage }[]> {
  const clusters = listProjects().flatMap((p) => p.envs.map((e) => keptKubeCluster(p.name, e)).filter((k) => k !== undefined));
  const per = await Promise.all(clusters.map((k) => kubePodUsage(k).catch(() => [])));
  return clusters.flatMap((k, i) =>
    (per[i] ?? []).map((r) => ({ scope: { project: k.project, env: k.env, service: r.pod.service }, usage: r.usage })),
  );
}

/**
 * Reads CPU and memory of every running service container every ten seconds and keeps them;
 * on Kubernetes, of every pod (metrics-server's readings).
 * The engine takes about 1.4 s per answer (it waits for a second CPU sample), so containers
 * are read side by side and a round never overlaps the next.
 */
export function startSampler(store: StatsStore, everyMs = SAMPLE_EVERY_MS): { stop(): void; round(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const round = async () => {
    // One time for the whole round: a service with two containers (old and new, during a
    // rollout) is one point, their sum.
    const at = Date.now();
    const containers = await runningServiceContainers().catch(() => []);
    await Promise.all([
      ...containers.map(async (c) => {
        const u = await readUsage(c.id);
        if (u && !stopped) store.add(c, at, u);
      }),
      kubeReadings().then((rs) => {
        for (const r of rs) if (!stopped) store.add(r.scope, at, r.usage);
      }),
    ]);
    if (!stopped) store.prune();
  };
  const loop = async () => {
    await round().catch(() => undefined);
    if (!stopped) timer = setTimeout(loop, everyMs);
  };
  void loop();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
    round,
  };
}
