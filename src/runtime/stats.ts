import { docker } from "../docker-client.js";

/** One CPU and memory reading of a container. */
export interface Usage {
  /** Percent of one CPU (200 = two CPUs busy). */
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number | null;
}

interface CpuStats {
  cpu_usage?: { total_usage?: number; percpu_usage?: number[] };
  system_cpu_usage?: number;
  online_cpus?: number;
}
export interface EngineStats {
  cpu_stats?: CpuStats;
  precpu_stats?: CpuStats;
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
}

/** Memory above this is "no limit": the engine reports the host's memory (or 2^63) then. */
const NO_LIMIT = 2 ** 60;

/**
 * The engine's stats answer as a reading. The same formula as `docker stats`: CPU from the
 * delta against the previous sample; memory without the page cache, which cgroup v1 reports
 * as `cache` (or `total_inactive_file`) and cgroup v2 as `inactive_file`.
 */
export function toUsage(s: EngineStats, hostMemoryBytes?: number): Usage | undefined {
  const cpu = s.cpu_stats;
  const pre = s.precpu_stats;
  const mem = s.memory_stats;
  if (!cpu?.cpu_usage || mem?.usage === undefined) return undefined;
  const cpuDelta = (cpu.cpu_usage.total_usage ?? 0) - (pre?.cpu_usage?.total_usage ?? 0);
  const sysDelta = (cpu.system_cpu_usage ?? 0) - (pre?.system_cpu_usage ?? 0);
  const cpus = cpu.online_cpus || cpu.cpu_usage.percpu_usage?.length || 1;
  const cpuPercent = sysDelta > 0 && cpuDelta > 0 && pre?.system_cpu_usage ? (cpuDelta / sysDelta) * cpus * 100 : 0;
  const st = mem.stats ?? {};
  const cache = st.inactive_file ?? st.total_inactive_file ?? st.cache ?? 0;
  const memoryBytes = Math.max(0, mem.usage - (cache < mem.usage ? cache : 0));
  const limit = mem.limit && mem.limit < NO_LIMIT && mem.limit !== hostMemoryBytes ? mem.limit : null;
  return { cpuPercent: Math.round(cpuPercent * 100) / 100, memoryBytes, memoryLimitBytes: limit };
}

/** One reading from the engine (about 1.4 s: it waits for a second CPU sample). */
export async function readUsage(containerId: string): Promise<Usage | undefined> {
  const s = await docker()
    .getContainer(containerId)
    .stats({ stream: false })
    .catch(() => undefined);
  return s ? toUsage(s as unknown as EngineStats) : undefined;
}
