import type { HttpRow } from "./rows.js";
import type { RouteStats, RouteStatsResult, TimeRange } from "./types.js";
import { HistogramSum } from "./histogram.js";
import { HTTP_SERVER_DURATION } from "./normalize-metrics.js";

/** One stored HTTP row as read back, before choosing which source counts for its service. */
export type StoredHttpRow = Omit<HttpRow, "deployment" | "project" | "env">;

/**
 * Which rows speak for each service. The unsampled metrics win over sampled spans; a service
 * that sends both metric generations ("http/dup") would be counted twice, so the stable one
 * wins over the old one. Decided per service over the whole range.
 */
export function pickSources(rows: readonly StoredHttpRow[]): Map<string, string> {
  const rank = (r: StoredHttpRow) => (r.source === "spans" ? 0 : r.metric === HTTP_SERVER_DURATION.stable ? 2 : 1);
  const best = new Map<string, { rank: number; metric: string }>();
  for (const r of rows) {
    const b = best.get(r.service);
    if (!b || rank(r) > b.rank) best.set(r.service, { rank: rank(r), metric: r.metric });
  }
  return new Map([...best].map(([service, b]) => [service, b.metric]));
}

/**
 * Per (service, method, route): count, rate, latency percentiles from the summed histograms,
 * status-code counts and a sparkline. Pure: the rows come from queries.ts.
 */
export function aggregateRouteStats(rows: readonly StoredHttpRow[], range: TimeRange, buckets = 60): RouteStatsResult {
  // Clamped: the count comes from a URL parameter sooner or later.
  const n = Math.min(1000, Math.max(1, Math.floor(buckets)));
  const span = Math.max(1, range.to - range.from);
  const bucketMs = span / n;
  const chosen = pickSources(rows);
  const groups = new Map<
    string,
    { stats: Omit<RouteStats, "latencyMs" | "ratePerSecond">; hist: HistogramSum; status: Record<string, number>; spark: number[] }
  >();
  for (const r of rows) {
    if (chosen.get(r.service) !== r.metric) continue;
    const key = `${r.service}\u0000${r.method}\u0000${r.route}`;
    let g = groups.get(key);
    if (!g) {
      const spark = new Array<number>(n).fill(0);
      const status: Record<string, number> = {};
      g = {
        stats: { service: r.service, method: r.method, route: r.route, count: 0, statusCodes: status, sparkline: spark, source: r.source },
        hist: new HistogramSum(),
        status,
        spark,
      };
      groups.set(key, g);
    }
    g.hist.add(r);
    g.status[String(r.status)] = (g.status[String(r.status)] ?? 0) + r.count;
    const ms = Number(r.timeNs / 1_000_000n);
    const i = Math.min(n - 1, Math.max(0, Math.floor((ms - range.from) / bucketMs)));
    g.spark[i]! += r.count;
  }
  const routes: RouteStats[] = [...groups.values()].map((g) => {
    const [p50, p95, p99] = g.hist.quantiles([0.5, 0.95, 0.99]);
    const latencyMs = { p50: p50 ?? null, p95: p95 ?? null, p99: p99 ?? null };
    return { ...g.stats, count: g.hist.count, ratePerSecond: g.hist.count / (span / 1000), latencyMs };
  });
  routes.sort((a, b) => a.service.localeCompare(b.service) || a.route.localeCompare(b.route) || a.method.localeCompare(b.method));
  return { from: range.from, to: range.to, bucketMs, routes };
}
