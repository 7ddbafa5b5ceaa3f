import { keptRuntime } from "../engine/stack-ops.js";
import type { Usage } from "../runtime/stats.js";
import { listProjects } from "./overview.js";
import type { StatsStore } from "./stats-store.js";

export const SAMPLE_EVERY_MS = 10_000;

/** Every environment's running copies with their readings, each from where it runs (the engine, or metrics-server). */
async function readings(): Promise<{ scope: { project: string; env: string; service: string }; usage: Usage }[]> {
  const runtimes = listProjects().flatMap((p) => p.envs.map((e) => keptRuntime(p.name, e)));
  const per = await Promise.all(runtimes.map((r) => r.usage().catch(() => [])));
  return runtimes.flatMap((r, i) =>
    (per[i] ?? []).map((u) => ({ scope: { project: r.project, env: r.env, service: u.service }, usage: u.usage })),
  );
}

/**
 * Reads CPU and memory of every environment's running copies every ten seconds and keeps them:
 * containers from the engine, pods from metrics-server.
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
    for (const r of await readings()) if (!stopped) store.add(r.scope, at, r.usage);
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
