import { statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routeStats, trace } from "../../../src/telemetry/index.js";
import { tempStore } from "./helpers.js";

const DAY = 24 * 3600 * 1000;

/** n spans of one service, each in its own trace, at the given time (ms), with padding attributes. */
function spansAt(atMs: number, n: number, first = 0, pad = 0) {
  const ns = BigInt(atMs) * 1_000_000n;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "api" } }] },
        scopeSpans: [
          {
            spans: Array.from({ length: n }, (_, i) => ({
              traceId: (first + i + 1).toString(16).padStart(32, "0"),
              spanId: (first + i + 1).toString(16).padStart(16, "0"),
              name: "GET /",
              kind: 2,
              startTimeUnixNano: String(ns + BigInt(i) * 1000n),
              endTimeUnixNano: String(ns + BigInt(i) * 1000n + 5_000_000n),
              attributes: [
                { key: "http.route", value: { stringValue: "/" } },
                { key: "pad", value: { stringValue: "x".repeat(pad) } },
              ],
            })),
          },
        ],
      },
    ],
  };
}
const count = (store: ReturnType<typeof tempStore>, table: string) =>
  (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const traceIdOf = (i: number) => (i + 1).toString(16).padStart(32, "0");

describe("retention", () => {
  it("deletes spans and route histograms older than maxAge (7 days by default)", () => {
    const store = tempStore();
    const now = Date.now();
    store.ingestTraces(spansAt(now - 8 * DAY, 10));
    store.ingestTraces(spansAt(now - 6 * DAY, 5, 10));
    expect(count(store, "spans")).toBe(15);
    const res = store.prune(now);
    expect(res).toMatchObject({ spansDeleted: 10, pointsDeleted: 1 });
    expect(count(store, "spans")).toBe(5);
    expect(trace(store, traceIdOf(0))).toBeNull();
    expect(trace(store, traceIdOf(10))).not.toBeNull();
    expect(routeStats(store, { from: 0, to: now }).routes.map((r) => r.count)).toEqual([5]);
  });

  it("honours a configured maxAge, and forgets resources no span uses any more", () => {
    const store = tempStore({ retention: { maxAgeMs: 3600_000 } });
    const now = Date.now();
    store.ingestTraces(spansAt(now - 2 * 3600_000, 3));
    store.prune(now);
    expect([count(store, "spans"), count(store, "resources"), count(store, "http_points")]).toEqual([0, 0, 0]);
    // New data after pruning gets a resource again (the writer's caches were dropped).
    store.ingestTraces(spansAt(now, 2, 100));
    expect(trace(store, traceIdOf(100))!.spans[0]!.resource).toEqual({ "service.name": "api" });
  });

  it("keeps the file under maxBytes by deleting the oldest spans, and gives the space back", () => {
    const maxBytes = 2 * 1024 * 1024;
    const store = tempStore({ retention: { maxBytes } });
    const now = Date.now();
    for (let b = 0; b < 10; b++) store.ingestTraces(spansAt(now - (10 - b) * 60_000, 500, b * 500, 400));
    const before = store.sizeBytes();
    expect(before).toBeGreaterThan(maxBytes);
    const res = store.prune(now);
    expect(res.bytesAfter).toBeLessThanOrEqual(maxBytes);
    expect(store.sizeBytes()).toBeLessThanOrEqual(maxBytes);
    expect(statSync(store.file).size).toBeLessThanOrEqual(maxBytes);
    // The newest survive, the oldest went.
    expect(trace(store, traceIdOf(4999))).not.toBeNull();
    expect(trace(store, traceIdOf(0))).toBeNull();
    expect(count(store, "spans")).toBeGreaterThan(1000);
    // Route histograms are small and kept: the Metrics tab still sees every request.
    expect(routeStats(store, { from: 0, to: now + 1 }).routes[0]!.count).toBe(5000);
  });

  it("prunes periodically by itself", async () => {
    const store = tempStore({ pruneIntervalMs: 50, retention: { maxAgeMs: 1000 } });
    store.ingestTraces(spansAt(Date.now() - 5000, 4));
    expect(count(store, "spans")).toBe(4);
    await new Promise((r) => setTimeout(r, 200));
    expect(count(store, "spans")).toBe(0);
  });
});

describe("a second process reading", () => {
  it("Studio can open the store read-only while the receiver writes", async () => {
    const { TelemetryStore } = await import("../../../src/telemetry/index.js");
    const store = tempStore();
    store.ingestTraces(spansAt(Date.now(), 3));
    const reader = TelemetryStore.openReadOnly(store.file.replace(/\/telemetry\.sqlite$/, ""));
    try {
      expect(routeStats(reader, { from: 0, to: Date.now() + 1 }).routes[0]!.count).toBe(3);
      store.ingestTraces(spansAt(Date.now(), 2, 10));
      expect(routeStats(reader, { from: 0, to: Date.now() + 1 }).routes[0]!.count).toBe(5);
      expect(() => reader.ingestTraces(spansAt(Date.now(), 1, 20))).toThrow(/readonly/i);
    } finally {
      reader.close();
    }
  });
});
