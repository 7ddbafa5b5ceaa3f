import { describe, expect, it } from "vitest";
import { UNMATCHED_ROUTE, routeStats, routeTraces, trace } from "../../../src/telemetry/index.js";
import { otlp } from "../../../src/telemetry/otlp-schema.js";
import { RESOURCE, makeMeter, makeSpans, metricsProto, tempStore, tracesProto, ALL_TIME } from "./helpers.js";

const decodeTraces = (b: Uint8Array) => otlp.traceRequest.decode(b);
const decodeMetrics = (b: Uint8Array) => otlp.metricsRequest.decode(b);
const GET = (route: string | undefined, status: number) => ({
  ...(route ? { "http.route": route } : {}),
  "http.request.method": "GET",
  "http.response.status_code": status,
});

describe("routeStats", () => {
  it("requests that match no route are one row, whatever their paths", async () => {
    const store = tempStore();
    const meter = makeMeter("delta");
    for (let i = 0; i < 50; i++) meter.record(3, { ...GET(undefined, 404), "url.path": `/random/${i}` });
    meter.record(3, GET("/items", 200));
    store.ingestMetrics(decodeMetrics(metricsProto(await meter.collect())));
    store.ingestTraces(
      decodeTraces(tracesProto(makeSpans(Array.from({ length: 20 }, (_, i) => ({ status: 404, ms: 2, path: `/p/${i}` }))))),
    );
    const routes = routeStats(store, ALL_TIME).routes;
    expect(routes.map((r) => [r.route, r.count, r.statusCodes])).toEqual([
      [UNMATCHED_ROUTE, 50, { 404: 50 }],
      ["/items", 1, { 200: 1 }],
    ]);
  });

  it("counts rate, status codes, percentiles and a sparkline per (service, method, route)", async () => {
    const store = tempStore();
    const meter = makeMeter("cumulative");
    for (let i = 1; i <= 100; i++) meter.record(i, GET("/items/{id}", i <= 90 ? 200 : 503));
    meter.record(7, { ...GET("/items/{id}", 200), "http.request.method": "POST" });
    store.ingestMetrics(decodeMetrics(metricsProto(await meter.collect())));
    const now = Date.now();
    const res = routeStats(store, { project: "shop", env: "preview", from: now - 60_000, to: now + 60_000, buckets: 12 });
    expect(res.bucketMs).toBe(10_000);
    const get = res.routes.find((r) => r.method === "GET")!;
    expect(get).toMatchObject({ service: "api", route: "/items/{id}", count: 100, statusCodes: { 200: 90, 503: 10 }, source: "metrics" });
    expect(get.ratePerSecond).toBeCloseTo(100 / 120);
    expect(get.sparkline).toHaveLength(12);
    expect(get.sparkline.reduce((a, b) => a + b, 0)).toBe(100);
    // SDK default buckets (seconds): 0.005, 0.01, 0.025, 0.05, 0.075, 0.1... and min/max 1 and 100 ms.
    expect(get.latencyMs.p50).toBeGreaterThan(40);
    expect(get.latencyMs.p50).toBeLessThan(60);
    expect(get.latencyMs.p99).toBeGreaterThan(95);
    expect(get.latencyMs.p99).toBeLessThanOrEqual(100);
    expect(res.routes.find((r) => r.method === "POST")!.count).toBe(1);
  });

  it("filters by project, env and service", async () => {
    const store = tempStore();
    for (const [project, env, service] of [
      ["shop", "preview", "api"],
      ["shop", "prod", "api"],
      ["blog", "preview", "web"],
    ]) {
      const meter = makeMeter("delta", { ...RESOURCE, "platform.project": project, "platform.env": env, "service.name": service });
      meter.record(1, GET("/", 200));
      store.ingestMetrics(decodeMetrics(metricsProto(await meter.collect())));
    }
    const count = (q: object) => routeStats(store, { ...ALL_TIME, ...q }).routes.reduce((n, r) => n + r.count, 0);
    expect([count({}), count({ project: "shop" }), count({ project: "shop", env: "prod" }), count({ service: "web" })]).toEqual([
      3, 2, 1, 1,
    ]);
    expect(count({ from: 0, to: 1 })).toBe(0);
  });

  it("a service sending both metric generations (http/dup) is counted once, from the stable one", async () => {
    const store = tempStore();
    const meter = makeMeter("delta");
    for (let i = 0; i < 4; i++) {
      meter.record(10, GET("/a", 200), "stable");
      meter.record(10, { "http.route": "/a", "http.method": "GET", "http.status_code": 200 }, "old");
    }
    store.ingestMetrics(decodeMetrics(metricsProto(await meter.collect())));
    expect(routeStats(store, ALL_TIME).routes.map((r) => [r.route, r.count])).toEqual([["/a", 4]]);
  });

  it("old semconv alone (ms, http.method, http.status_code) works the same", async () => {
    const store = tempStore();
    const meter = makeMeter("cumulative");
    for (let i = 0; i < 10; i++) meter.record(30, { "http.route": "/old", "http.method": "PUT", "http.status_code": 204 }, "old");
    store.ingestMetrics(decodeMetrics(metricsProto(await meter.collect())));
    const [row] = routeStats(store, ALL_TIME).routes;
    expect(row).toMatchObject({ method: "PUT", route: "/old", count: 10, statusCodes: { 204: 10 } });
    // All ten in the SDK's (25, 50] ms bucket, clamped by min = max = 30.
    expect(row!.latencyMs.p50).toBeCloseTo(30);
  });

  it("metrics speak for a service; its server spans are used only when it sends none", async () => {
    const store = tempStore();
    const meter = makeMeter("delta");
    meter.record(5, GET("/items", 200));
    store.ingestMetrics(decodeMetrics(metricsProto(await meter.collect())));
    store.ingestTraces(
      decodeTraces(
        tracesProto(
          makeSpans([
            { route: "/items", status: 200, ms: 5 },
            { route: "/items", status: 200, ms: 5 },
          ]),
        ),
      ),
    );
    store.ingestTraces(decodeTraces(tracesProto(makeSpans([{ route: "/w", status: 200, ms: 5 }], { ...RESOURCE, "service.name": "web" }))));
    expect(routeStats(store, ALL_TIME).routes.map((r) => [r.service, r.route, r.count, r.source])).toEqual([
      ["api", "/items", 1, "metrics"],
      ["web", "/w", 1, "spans"],
    ]);
  });
});

describe("routeTraces and trace", () => {
  it("lists the traces of one route, newest or slowest first, with their services and errors", () => {
    const store = tempStore();
    const spans = makeSpans([
      { route: "/items/{id}", status: 200, ms: 10 },
      { route: "/items/{id}", status: 500, ms: 90 },
      { route: "/items/{id}", status: 200, ms: 30 },
      { route: "/other", status: 200, ms: 5 },
      { status: 404, ms: 1 },
    ]);
    store.ingestTraces(decodeTraces(tracesProto(spans)));
    const recent = routeTraces(store, { service: "api", route: "/items/{id}", method: "GET", ...ALL_TIME });
    expect(recent.map((t) => t.routeSpanDurationMs)).toEqual([30, 90, 10]);
    expect(recent[1]).toMatchObject({
      rootName: "GET /items/{id}",
      rootService: "api",
      durationMs: 90,
      httpStatus: 500,
      status: "error",
      errorCount: 1,
      spanCount: 2,
      services: ["api"],
    });
    const slowest = routeTraces(store, { service: "api", route: "/items/{id}", order: "slowest", limit: 2, ...ALL_TIME });
    expect(slowest.map((t) => t.routeSpanDurationMs)).toEqual([90, 30]);
    expect(routeTraces(store, { service: "api", route: UNMATCHED_ROUTE, ...ALL_TIME }).map((t) => t.httpStatus)).toEqual([404]);
    expect(routeTraces(store, { service: "web", route: "/items/{id}", ...ALL_TIME })).toEqual([]);
    const t = trace(store, recent[1]!.traceId)!;
    expect(t).toMatchObject({ services: ["api"], errorCount: 1, durationMs: 90 });
    expect(trace(store, "0".repeat(32))).toBeNull();
    expect(trace(store, "not-an-id")).toBeNull();
  });

  it("a waterfall across services nests by parent, keeps orphans as roots, and survives cycles", () => {
    const store = tempStore();
    const now = BigInt(Date.now()) * 1_000_000n;
    const span = (service: string, id: string, parent: string, start: number, end: number, name = id) => ({
      resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
      scopeSpans: [
        {
          spans: [
            {
              traceId: "ab".repeat(16),
              spanId: id.padStart(16, "0"),
              parentSpanId: parent ? parent.padStart(16, "0") : "",
              name,
              kind: 2,
              startTimeUnixNano: String(now + BigInt(start) * 1_000_000n),
              endTimeUnixNano: String(now + BigInt(end) * 1_000_000n),
            },
          ],
        },
      ],
    });
    store.ingestTraces({
      resourceSpans: [
        span("web", "1", "", 0, 100),
        span("api", "3", "1", 50, 90),
        span("api", "2", "1", 10, 40),
        span("db", "4", "2", 15, 30),
        span("api", "5", "99", 60, 70),
        span("api", "6", "7", 1, 2),
        span("api", "7", "6", 1, 2),
      ],
    });
    const t = trace(store, "ab".repeat(16))!;
    expect(t.spans.map((s) => [s.name, s.depth])).toEqual([
      ["1", 0],
      ["2", 1],
      ["4", 2],
      ["3", 1],
      ["5", 0],
      ["6", 0],
      ["7", 1],
    ]);
    expect(t.services).toEqual(["web", "api", "db"]);
    expect(t.spans.find((s) => s.name === "5")!.parentSpanId).toBe("0000000000000099");
  });
});
