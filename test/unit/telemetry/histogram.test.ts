import { describe, expect, it } from "vitest";
import { HistogramSum, SPAN_BOUNDS_MS, bucketIndex } from "../../../src/telemetry/histogram.js";
import { prng } from "../../../bench/telemetry/synthetic.mjs";

/** OTel's default explicit bounds (ms) for the old http.server.duration. */
const OTEL_MS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];

function bucketed(values: number[], bounds: readonly number[], withMinMax = true) {
  const counts = new Array<number>(bounds.length + 1).fill(0);
  for (const v of values) counts[bucketIndex(bounds, v)]!++;
  return {
    boundsMs: bounds,
    counts,
    count: values.length,
    sumMs: values.reduce((a, b) => a + b, 0),
    minMs: withMinMax ? Math.min(...values) : null,
    maxMs: withMinMax ? Math.max(...values) : null,
  };
}
const exact = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.ceil(q * values.length) - 1]!;

describe("percentiles from histogram buckets", () => {
  it("OTLP buckets are upper-inclusive: (bounds[i-1], bounds[i]]", () => {
    expect([0, 5, 5.01, 10, 10000, 10001].map((v) => bucketIndex(OTEL_MS, v))).toEqual([0, 1, 2, 2, 14, 15]);
  });

  it("interpolates linearly inside a bucket: uniform values come out exact", () => {
    const h = new HistogramSum();
    // 1000 values spread evenly over (0, 1000]: every bucket is uniformly filled.
    h.add(
      bucketed(
        Array.from({ length: 1000 }, (_, i) => i + 1),
        OTEL_MS,
        false,
      ),
    );
    expect(h.quantile(0.5)).toBeCloseTo(500, 6);
    expect(h.quantile(0.95)).toBeCloseTo(950, 6);
    expect(h.quantile(0.99)).toBeCloseTo(990, 6);
  });

  it("by hand: 10 values in (10, 25], 10 in (25, 50]", () => {
    const h = new HistogramSum();
    h.add({ boundsMs: OTEL_MS, counts: [0, 0, 0, 10, 10, ...new Array(11).fill(0)], count: 20, sumMs: null, minMs: null, maxMs: null });
    expect(h.quantile(0.25)).toBeCloseTo(17.5);
    expect(h.quantile(0.5)).toBeCloseTo(25);
    expect(h.quantile(0.75)).toBeCloseTo(37.5);
  });

  it("stays within a bucket's width of the truth on a lognormal latency distribution", () => {
    const rnd = prng(7);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    const values = Array.from({ length: 20_000 }, () => Math.exp(3 + 0.8 * normal()));
    for (const bounds of [OTEL_MS, SPAN_BOUNDS_MS]) {
      const h = new HistogramSum();
      h.add(bucketed(values, bounds));
      for (const q of [0.5, 0.95, 0.99]) {
        const truth = exact(values, q);
        const i = bucketIndex(bounds, truth);
        const width = (bounds[i] ?? Math.max(...values)) - (bounds[i - 1] ?? 0);
        expect(Math.abs(h.quantile(q)! - truth)).toBeLessThanOrEqual(width);
      }
      if (bounds === SPAN_BOUNDS_MS) {
        // Fine log buckets: within 5% of the exact percentile.
        for (const q of [0.5, 0.95, 0.99]) expect(h.quantile(q)! / exact(values, q)).toBeCloseTo(1, 1);
      }
    }
  });

  it("min and max narrow the first and the open last bucket", () => {
    const h = new HistogramSum();
    h.add({ boundsMs: [100], counts: [0, 10], count: 10, sumMs: null, minMs: 200, maxMs: 300 });
    expect(h.quantile(0.5)).toBeCloseTo(250);
    const noMax = new HistogramSum();
    noMax.add({ boundsMs: [100], counts: [0, 10], count: 10, sumMs: null, minMs: null, maxMs: null });
    // Without a max, the open bucket can only say "above 100".
    expect(noMax.quantile(0.5)).toBe(100);
  });

  it("adds histograms with the same bounds, and combines different bounds (two SDKs)", () => {
    // Two instances each see requests spread evenly over (0, 1000] ms, bucketed differently:
    // each estimate is exact, and so is that of the sum.
    const values = Array.from({ length: 1000 }, (_, i) => i + 1);
    const h = new HistogramSum();
    h.add(bucketed(values, OTEL_MS, false));
    h.add(bucketed(values, OTEL_MS, false));
    h.add(bucketed(values, [0, 100, 200, 400, 800, 1000], false));
    expect(h.count).toBe(3000);
    expect(h.quantile(0.5)).toBeCloseTo(500, 6);
    expect(h.quantile(0.9)).toBeCloseTo(900, 6);
  });

  it("no buckets, no percentile", () => {
    const h = new HistogramSum();
    expect(h.quantile(0.5)).toBeNull();
    h.add({ boundsMs: [], counts: [], count: 3, sumMs: 6, minMs: null, maxMs: null });
    expect([h.count, h.quantile(0.5)]).toEqual([3, null]);
  });
});
