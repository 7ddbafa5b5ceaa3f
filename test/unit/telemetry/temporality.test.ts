import { describe, expect, it } from "vitest";
import type { HistogramPoint } from "../../../src/telemetry/rows.js";
import { type SeriesState, toDelta } from "../../../src/telemetry/temporality.js";
import { routeStats } from "../../../src/telemetry/index.js";
import { ALL_TIME, PROTOBUF, makeMeter, metricsProto, post, tempServer, tempStore } from "./helpers.js";

const BOUNDS = [10, 100];
const point = (p: Partial<HistogramPoint> & { counts: number[] }): HistogramPoint => ({
  seriesKey: "k",
  metric: "http.server.request.duration",
  cumulative: true,
  service: "api",
  project: "",
  env: "",
  deployment: "",
  method: "GET",
  route: "/a",
  status: 200,
  startNs: 1000n,
  timeNs: 2000n,
  boundsMs: BOUNDS,
  count: p.counts.reduce((a, b) => a + b, 0),
  sumMs: null,
  minMs: 1,
  maxMs: 500,
  ...p,
});

/** Feeds points through toDelta as the store does and returns the counts stored. */
function run(points: HistogramPoint[]) {
  let state: SeriesState | undefined;
  return points.map((p) => {
    const step = toDelta(state, p);
    state = step.state;
    return step.row ? step.row.counts : null;
  });
}

describe("cumulative and delta temporality", () => {
  it("cumulative points become differences; the first one is taken whole", () => {
    expect(
      run([
        point({ timeNs: 2000n, counts: [1, 2, 0] }),
        point({ timeNs: 3000n, counts: [1, 5, 1] }),
        point({ timeNs: 4000n, counts: [4, 5, 1] }),
      ]),
    ).toEqual([
      [1, 2, 0],
      [0, 3, 1],
      [3, 0, 0],
    ]);
  });

  it("a new start time is a reset: the point is taken whole", () => {
    expect(
      run([
        point({ timeNs: 2000n, counts: [5, 5, 0] }),
        point({ startNs: 2500n, timeNs: 3000n, counts: [1, 0, 0] }),
        point({ startNs: 2500n, timeNs: 4000n, counts: [1, 2, 0] }),
      ]),
    ).toEqual([
      [5, 5, 0],
      [1, 0, 0],
      [0, 2, 0],
    ]);
  });

  it("a count that goes down with the same start time is also a reset", () => {
    expect(run([point({ timeNs: 2000n, counts: [5, 5, 0] }), point({ timeNs: 3000n, counts: [1, 1, 0] })])).toEqual([
      [5, 5, 0],
      [1, 1, 0],
    ]);
  });

  it("repeats, out-of-order points, late points from before a reset and idle intervals add nothing", () => {
    expect(
      run([
        point({ timeNs: 2000n, counts: [1, 0, 0] }),
        point({ timeNs: 2000n, counts: [1, 0, 0] }),
        point({ timeNs: 1500n, counts: [1, 0, 0] }),
        point({ startNs: 5000n, timeNs: 6000n, counts: [0, 1, 0] }),
        point({ startNs: 1000n, timeNs: 7000n, counts: [9, 9, 9] }),
        point({ startNs: 5000n, timeNs: 8000n, counts: [0, 1, 0] }),
      ]),
    ).toEqual([[1, 0, 0], null, null, [0, 1, 0], null, null]);
  });

  it("a difference keeps the sum difference and drops min and max (they describe the whole period)", () => {
    const state = toDelta(undefined, point({ timeNs: 2000n, counts: [1, 0, 0], sumMs: 5 })).state;
    expect(toDelta(state, point({ timeNs: 3000n, counts: [1, 1, 0], sumMs: 55 })).row).toMatchObject({
      count: 1,
      sumMs: 50,
      minMs: null,
      maxMs: null,
    });
  });

  it("delta points are stored as they come, whatever their start times", () => {
    expect(
      run([
        point({ cumulative: false, timeNs: 2000n, counts: [1, 0, 0] }),
        point({ cumulative: false, startNs: 2000n, timeNs: 3000n, counts: [1, 0, 0] }),
        point({ cumulative: false, startNs: 3000n, timeNs: 4000n, counts: [0, 0, 0] }),
      ]),
    ).toEqual([[1, 0, 0], [1, 0, 0], null]);
  });

  it.each(["cumulative", "delta"] as const)("the SDK's %s exports add up to the requests made, across exports", async (temporality) => {
    const { store, server } = await tempServer();
    const meter = makeMeter(temporality);
    const attrs = { "http.route": "/items", "http.request.method": "GET", "http.response.status_code": 200 };
    let made = 0;
    for (const n of [3, 0, 5, 2]) {
      for (let i = 0; i < n; i++, made++) meter.record(5 + i, attrs);
      expect((await post(`${server.url}/v1/metrics`, metricsProto(await meter.collect()), PROTOBUF)).status).toBe(200);
    }
    const [row] = routeStats(store, ALL_TIME).routes;
    expect(row).toMatchObject({ route: "/items", count: made, statusCodes: { 200: made } });
  });

  it("a restarted receiver keeps taking differences (the last points are kept in the store)", async () => {
    const store1 = tempStore();
    const meter = makeMeter("cumulative");
    const attrs = { "http.route": "/x", "http.request.method": "GET", "http.response.status_code": 200 };
    meter.record(1, attrs);
    store1.ingestMetrics(otlpOf(metricsProto(await meter.collect())));
    store1.close();
    const store2 = tempStore({ dir: store1.file.replace(/\/telemetry\.sqlite$/, "") });
    meter.record(1, attrs);
    store2.ingestMetrics(otlpOf(metricsProto(await meter.collect())));
    expect(routeStats(store2, ALL_TIME).routes[0]!.count).toBe(2);
  });
});

import { otlp } from "../../../src/telemetry/otlp-schema.js";
const otlpOf = (body: Uint8Array) => otlp.metricsRequest.decode(body);
