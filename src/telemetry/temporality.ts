import type { HistogramPoint, HttpRow } from "./rows.js";

/** The last cumulative point seen of one series: what the next point is a difference from. */
export interface SeriesState {
  readonly startNs: bigint;
  readonly timeNs: bigint;
  readonly count: number;
  readonly sumMs: number | null;
  readonly boundsMs: readonly number[];
  readonly counts: readonly number[];
}

export interface DeltaStep {
  /** The row to store, or null when the point adds nothing (a repeat, stale, or no requests). */
  readonly row: HttpRow | null;
  /** The state to keep for the series (undefined: keep none, as for delta series). */
  readonly state: SeriesState | undefined;
}

const sameBounds = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

const toRow = (p: HistogramPoint, d: Pick<HttpRow, "count" | "counts" | "sumMs" | "minMs" | "maxMs">): HttpRow => ({
  source: "metrics",
  metric: p.metric,
  service: p.service,
  project: p.project,
  env: p.env,
  deployment: p.deployment,
  method: p.method,
  route: p.route,
  status: p.status,
  timeNs: p.timeNs,
  boundsMs: p.boundsMs,
  ...d,
});

const stateOf = (p: HistogramPoint): SeriesState => ({
  startNs: p.startNs,
  timeNs: p.timeNs,
  count: p.count,
  sumMs: p.sumMs,
  boundsMs: p.boundsMs,
  counts: p.counts,
});

/**
 * One histogram point to the delta row to store. Delta points are stored as they are.
 * A cumulative point is stored as its difference from the previous point of the same series
 * and start time. A new start time, fewer requests than before, or new bucket bounds mean the
 * sender restarted (a reset), and the point is stored whole: it covers only the time since
 * that start. A point not newer than the last one (a retried export) or with an older start
 * time (a late point from before a reset) adds nothing. min and max describe the whole
 * cumulative period, so a difference has neither.
 */
export function toDelta(prev: SeriesState | undefined, p: HistogramPoint): DeltaStep {
  const whole = { count: p.count, counts: p.counts, sumMs: p.sumMs, minMs: p.minMs, maxMs: p.maxMs };
  if (!p.cumulative) return { row: p.count > 0 ? toRow(p, whole) : null, state: undefined };
  if (prev === undefined || p.startNs > prev.startNs) return { row: p.count > 0 ? toRow(p, whole) : null, state: stateOf(p) };
  if (p.startNs < prev.startNs || p.timeNs <= prev.timeNs) return { row: null, state: prev };
  const reset =
    p.count < prev.count ||
    !sameBounds(p.boundsMs, prev.boundsMs) ||
    p.counts.length !== prev.counts.length ||
    p.counts.some((c, i) => c < prev.counts[i]!);
  if (reset) return { row: p.count > 0 ? toRow(p, whole) : null, state: stateOf(p) };
  const count = p.count - prev.count;
  const delta = {
    count,
    counts: p.counts.map((c, i) => c - prev.counts[i]!),
    sumMs: p.sumMs === null || prev.sumMs === null ? null : p.sumMs - prev.sumMs,
    minMs: null,
    maxMs: null,
  };
  return { row: count > 0 ? toRow(p, delta) : null, state: stateOf(p) };
}
