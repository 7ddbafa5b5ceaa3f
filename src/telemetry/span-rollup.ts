import type { HttpRow, SpanRow } from "./rows.js";
import { SPAN_BOUNDS_MS, bucketIndex } from "./histogram.js";
import { SpanKind } from "./otlp-schema.js";
import { UNMATCHED_ROUTE } from "./types.js";

export const ROLLUP_NS = 60_000_000_000n;

/** Identity of a rollup row: labels and minute; rows with the same key are added up. */
export const rollupKey = (r: Omit<HttpRow, "boundsMs" | "counts" | "count" | "sumMs" | "minMs" | "maxMs">) =>
  [r.project, r.env, r.service, r.deployment, r.method, r.route, r.status, r.timeNs].join("\u0000");

/**
 * Server spans to per-minute duration histograms, one per (service, method, route, status),
 * so that route statistics over millions of spans read a few rows per minute instead of every
 * span. The minute is the one the span started in (rows are stamped with its start).
 * Used only for services that send no HTTP duration metrics (see routeStats).
 */
export function rollupServerSpans(spans: readonly SpanRow[]): HttpRow[] {
  type Acc = Omit<HttpRow, "counts"> & { counts: number[]; count: number; sumMs: number; minMs: number; maxMs: number };
  const acc = new Map<string, Acc>();
  for (const s of spans) {
    if (s.kind !== SpanKind.server) continue;
    const ms = Number(s.endNs - s.startNs) / 1e6;
    const labels = {
      source: "spans" as const,
      metric: "spans",
      project: s.project,
      env: s.env,
      service: s.service,
      deployment: s.deployment,
      method: s.httpMethod ?? "",
      route: s.httpRoute ?? UNMATCHED_ROUTE,
      status: s.httpStatus ?? 0,
      timeNs: (s.startNs / ROLLUP_NS) * ROLLUP_NS,
    };
    const key = rollupKey(labels);
    let r = acc.get(key);
    if (!r) {
      r = {
        ...labels,
        boundsMs: SPAN_BOUNDS_MS,
        counts: new Array<number>(SPAN_BOUNDS_MS.length + 1).fill(0),
        count: 0,
        sumMs: 0,
        minMs: ms,
        maxMs: ms,
      };
      acc.set(key, r);
    }
    r.counts[bucketIndex(SPAN_BOUNDS_MS, ms)]!++;
    r.count++;
    r.sumMs += ms;
    r.minMs = Math.min(r.minMs, ms);
    r.maxMs = Math.max(r.maxMs, ms);
  }
  return [...acc.values()];
}

/** Two rollup rows of the same key, added up (a minute that spans several export batches). */
export function addRollups(a: HttpRow, b: HttpRow): HttpRow {
  return {
    ...a,
    counts: a.counts.map((c, i) => c + (b.counts[i] ?? 0)),
    count: a.count + b.count,
    sumMs: (a.sumMs ?? 0) + (b.sumMs ?? 0),
    minMs: Math.min(a.minMs ?? Infinity, b.minMs ?? Infinity),
    maxMs: Math.max(a.maxMs ?? -Infinity, b.maxMs ?? -Infinity),
  };
}
