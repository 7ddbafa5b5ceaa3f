import type { HistogramMs } from "./rows.js";

/**
 * Bucket bounds for histograms built from span durations: powers of 2^(1/4) from 0.05 ms to
 * about 2 minutes, so an estimate inside a bucket is at most 19% off before interpolation.
 */
export const SPAN_BOUNDS_MS: readonly number[] = Array.from({ length: 86 }, (_, k) => Number((0.05 * 2 ** (k / 4)).toPrecision(6)));

/** Index of the bucket of value v: OTLP buckets are (bounds[i-1], bounds[i]], the last open. */
export function bucketIndex(boundsMs: readonly number[], v: number): number {
  let lo = 0;
  let hi = boundsMs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (v <= boundsMs[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Bounds arrays are shared between rows (queries parse each distinct text once): key them once. */
const boundsKeys = new WeakMap<readonly number[], string>();
function keyOf(bounds: readonly number[]): string {
  let k = boundsKeys.get(bounds);
  if (k === undefined) {
    k = bounds.join(",");
    boundsKeys.set(bounds, k);
  }
  return k;
}

/** Mutable sum of histograms; several bound layouts may meet (two SDKs, a changed view). */
export class HistogramSum {
  private readonly byBounds = new Map<string, { boundsMs: readonly number[]; counts: number[] }>();
  count = 0;
  sumMs: number | null = 0;
  minMs: number | null = null;
  maxMs: number | null = null;
  /** Whether every part had a min (and max): an unknown one must not narrow the range. */
  private minKnown = true;
  private maxKnown = true;

  add(h: HistogramMs): void {
    if (h.count <= 0) return;
    this.count += h.count;
    this.sumMs = this.sumMs === null || h.sumMs === null ? null : this.sumMs + h.sumMs;
    if (h.minMs === null) this.minKnown = false;
    else this.minMs = this.minMs === null ? h.minMs : Math.min(this.minMs, h.minMs);
    if (h.maxMs === null) this.maxKnown = false;
    else this.maxMs = this.maxMs === null ? h.maxMs : Math.max(this.maxMs, h.maxMs);
    if (h.counts.length === 0) return;
    const key = keyOf(h.boundsMs);
    const acc = this.byBounds.get(key);
    if (!acc) this.byBounds.set(key, { boundsMs: h.boundsMs, counts: [...h.counts] });
    else for (let i = 0; i < h.counts.length; i++) acc.counts[i]! += h.counts[i]!;
  }

  /** The q-quantile (0..1) in ms, or null without bucket data. */
  quantile(q: number): number | null {
    return this.quantiles([q])[0]!;
  }

  /** Several quantiles at once (the distribution is built once). */
  quantiles(qs: readonly number[]): (number | null)[] {
    const parts = [...this.byBounds.values()].map((h) =>
      knots(h.boundsMs, h.counts, this.minKnown ? this.minMs : null, this.maxKnown ? this.maxMs : null),
    );
    return qs.map((q) => (parts.length === 1 ? quantileOfOne(parts[0]!, q) : quantileOfKnots(parts, q)));
  }
}

/** A piecewise-linear cumulative distribution: points (x, F) with x and F non-decreasing. */
type Knots = { x: number[]; f: number[] };

/**
 * The cumulative distribution of one histogram, with values spread evenly inside each bucket
 * (linear interpolation). The first bucket starts at 0 (durations are not negative) and the
 * last, open one ends at its lower bound, unless the histogram's min and max say better:
 * every knot is clamped into [min, max], since all values lie there.
 */
export function knots(bounds: readonly number[], counts: readonly number[], min: number | null, max: number | null): Knots {
  const lo = Math.min(0, bounds[0] ?? 0);
  const hi = bounds.length ? Math.max(bounds[bounds.length - 1]!, max ?? -Infinity) : (max ?? 0);
  const clamp = (v: number) => Math.min(max ?? Infinity, Math.max(min ?? -Infinity, v));
  const x = [clamp(lo)];
  const f = [0];
  let cum = 0;
  for (let i = 0; i < counts.length; i++) {
    cum += counts[i]!;
    x.push(clamp(i < bounds.length ? bounds[i]! : hi));
    f.push(cum);
  }
  return { x, f };
}

/** The q-quantile of one distribution: one pass over its knots (the usual case). */
function quantileOfOne(k: Knots, q: number): number | null {
  const { x, f } = k;
  const total = f[f.length - 1]!;
  if (total <= 0) return null;
  const target = Math.min(1, Math.max(0, q)) * total;
  for (let i = 1; i < x.length; i++) {
    if (f[i]! >= target && f[i]! > f[i - 1]!) {
      // A vertical step (x[i-1] === x[i]) holds its mass at one value.
      const share = Math.max(0, target - f[i - 1]!) / (f[i]! - f[i - 1]!);
      return x[i - 1]! + share * (x[i]! - x[i - 1]!);
    }
  }
  return x[x.length - 1]!;
}

/** F(v) of a knot list, from the left (limit) or the right (value) at a jump. */
function evalKnots(k: Knots, v: number, left: boolean): number {
  const { x, f } = k;
  if (v < x[0]!) return 0;
  if (v > x[x.length - 1]!) return f[f.length - 1]!;
  let i = 0;
  while (i < x.length - 1 && (left ? x[i + 1]! < v : x[i + 1]! <= v)) i++;
  if (i === x.length - 1 || x[i + 1] === x[i]) return f[i]!;
  if (!left && x[i] === v) return f[i]!;
  return f[i]! + ((f[i + 1]! - f[i]!) * (v - x[i]!)) / (x[i + 1]! - x[i]!);
}

/** The q-quantile of the sum of several cumulative distributions. */
export function quantileOfKnots(parts: Knots[], q: number): number | null {
  const total = parts.reduce((s, k) => s + k.f[k.f.length - 1]!, 0);
  if (total <= 0) return null;
  const target = Math.min(1, Math.max(0, q)) * total;
  const xs = [...new Set(parts.flatMap((k) => k.x))].sort((a, b) => a - b);
  let prevX = xs[0]!;
  let prevF = 0;
  for (const x of xs) {
    const before = parts.reduce((s, k) => s + evalKnots(k, x, true), 0);
    if (before >= target && before > prevF) return prevX + ((target - prevF) * (x - prevX)) / (before - prevF);
    const at = parts.reduce((s, k) => s + evalKnots(k, x, false), 0);
    if (at >= target && at > 0) return x;
    prevX = x;
    prevF = at;
  }
  return xs[xs.length - 1]!;
}
