import { readUsage, runningServiceContainers } from "../runtime/stats.js";
import type { StatsStore } from "./stats-store.js";

export const SAMPLE_EVERY_MS = 10_000;

/**
 * Reads CPU and memory of every running service container every ten seconds and keeps them.
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
    await Promise.all(
      containers.map(async (c) => {
        const u = await readUsage(c.id);
        if (u && !stopped) store.add(c, at, u);
      }),
    );
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
