import { describe, expect, it } from "vitest";
import { toUsage } from "../../../src/runtime/stats.js";

describe("engine stats as CPU and memory", () => {
  it("cgroup v1: CPU from the delta against the previous sample, memory without the page cache", () => {
    const u = toUsage({
      cpu_stats: { cpu_usage: { total_usage: 2_000_000_000 }, system_cpu_usage: 20_000_000_000, online_cpus: 2 },
      precpu_stats: { cpu_usage: { total_usage: 1_000_000_000 }, system_cpu_usage: 10_000_000_000 },
      memory_stats: { usage: 300 * 2 ** 20, limit: 512 * 2 ** 20, stats: { cache: 100 * 2 ** 20, total_inactive_file: 60 * 2 ** 20 } },
    });
    expect(u).toEqual({ cpuPercent: 20, memoryBytes: 240 * 2 ** 20, memoryLimitBytes: 512 * 2 ** 20 });
  });

  it("cgroup v2: inactive_file is the cache; an unlimited container has no limit", () => {
    const u = toUsage({
      cpu_stats: { cpu_usage: { total_usage: 500 }, system_cpu_usage: 2000, online_cpus: 4 },
      precpu_stats: { cpu_usage: { total_usage: 0 }, system_cpu_usage: 1000 },
      memory_stats: { usage: 1000, limit: 2 ** 62, stats: { inactive_file: 400, file: 500 } },
    });
    expect(u).toEqual({ cpuPercent: 200, memoryBytes: 600, memoryLimitBytes: null });
  });

  it("a first sample without a previous one reads as 0 % CPU; a stopped container as nothing", () => {
    expect(
      toUsage({
        cpu_stats: { cpu_usage: { total_usage: 5 }, system_cpu_usage: 10, online_cpus: 1 },
        precpu_stats: {},
        memory_stats: { usage: 10 },
      })?.cpuPercent,
    ).toBe(0);
    expect(toUsage({ cpu_stats: {}, memory_stats: {} })).toBeUndefined();
  });
});

describe("CPU and memory history", () => {
  it("sums the containers of a service sampled in the same round (old and new during a rollout)", async () => {
    const { StatsStore } = await import("../../../src/studio/stats-store.js");
    const { mkdtempSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const store = new StatsStore(join(mkdtempSync(join(tmpdir(), "studio-stats-")), "stats.sqlite"));
    const scope = { project: "p", env: "preview", service: "api" };
    store.add(scope, 1000, { cpuPercent: 10, memoryBytes: 100, memoryLimitBytes: 512 });
    store.add(scope, 1000, { cpuPercent: 5, memoryBytes: 50, memoryLimitBytes: 512 });
    store.add(scope, 2000, { cpuPercent: 1, memoryBytes: 60, memoryLimitBytes: 512 });
    store.add({ ...scope, project: "other" }, 2000, { cpuPercent: 99, memoryBytes: 1, memoryLimitBytes: null });
    expect(store.series("p", "preview", 0, 3000)).toEqual({
      api: [
        { at: 1000, cpuPercent: 15, memoryBytes: 150, memoryLimitBytes: 512 },
        { at: 2000, cpuPercent: 1, memoryBytes: 60, memoryLimitBytes: 512 },
      ],
    });
    expect(store.series("p", "preview", 1500, 3000).api).toHaveLength(1);
    store.close();
  });
});
