/**
 * End to end with the real OpenTelemetry JS SDK: an instrumented node:http service in its own
 * process exports spans and HTTP server duration histograms over real HTTP to the receiver on
 * 127.0.0.1, and the queries see exactly the requests made.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { UNMATCHED_ROUTE, routeStats, routeTraces, trace } from "../../../src/telemetry/index.js";
import { tempServer } from "./helpers.js";

const APP = fileURLToPath(new URL("../../fixtures/telemetry/instrumented-app.cjs", import.meta.url));

async function runApp(receiverUrl: string, semconv: string | undefined, hit: (base: string) => Promise<void>) {
  const child = spawn(process.execPath, [APP], {
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
      OTEL_SERVICE_NAME: "catalog",
      OTEL_RESOURCE_ATTRIBUTES: "platform.project=shop,platform.env=preview,deployment.id=dep-42",
      ...(semconv ? { OTEL_SEMCONV_STABILITY_OPT_IN: semconv } : {}),
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  const { port } = JSON.parse(line) as { port: number };
  await hit(`http://127.0.0.1:${port}`);
  child.stdin!.end();
  const [code] = (await once(child, "exit")) as [number];
  expect(code).toBe(0);
}

describe("OpenTelemetry JS SDK to the receiver, over real HTTP", () => {
  it.each([
    ["old semantic conventions (http.server.duration, ms)", undefined],
    ["both generations at once (http/dup), counted once", "http/dup"],
  ])("%s", async (_, semconv) => {
    const { store, server } = await tempServer();
    const t0 = Date.now();
    await runApp(server.url, semconv, async (base) => {
      // Sequential on purpose: modest load, deterministic counts.
      for (let i = 0; i < 30; i++) expect((await fetch(`${base}/items/${i}`)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await fetch(`${base}/health`)).status).toBe(200);
      for (let i = 0; i < 7; i++) expect((await fetch(`${base}/missing/${i}`)).status).toBe(404);
    });
    const range = { project: "shop", env: "preview", from: t0 - 60_000, to: Date.now() + 60_000 };
    const stats = routeStats(store, range);
    expect(stats.routes.map((r) => [r.service, r.method, r.route, r.count, r.statusCodes, r.source])).toEqual([
      ["catalog", "GET", UNMATCHED_ROUTE, 7, { 404: 7 }, "metrics"],
      ["catalog", "GET", "/health", 5, { 200: 5 }, "metrics"],
      ["catalog", "GET", "/items/:id", 30, { 200: 30 }, "metrics"],
    ]);
    // The SDK really sent what the case says (and in http/dup, both were stored, one counted).
    const metrics = (
      store.db.prepare("SELECT DISTINCT metric FROM http_points WHERE source = 'metrics' ORDER BY 1").all() as { metric: string }[]
    ).map((m) => m.metric);
    expect(metrics).toEqual(semconv ? ["http.server.duration", "http.server.request.duration"] : ["http.server.duration"]);
    const items = stats.routes.find((r) => r.route === "/items/:id")!;
    expect(items.latencyMs.p50).toBeGreaterThan(0);
    expect(items.latencyMs.p99).toBeGreaterThanOrEqual(items.latencyMs.p50!);
    expect(items.sparkline.reduce((a, b) => a + b, 0)).toBe(30);

    const traces = routeTraces(store, { ...range, service: "catalog", route: "/items/:id", method: "GET", limit: 100 });
    expect(traces).toHaveLength(30);
    expect(traces[0]).toMatchObject({ rootName: "GET /items/:id", rootService: "catalog", httpStatus: 200, spanCount: 1 });
    expect(routeTraces(store, { ...range, service: "catalog", route: UNMATCHED_ROUTE, limit: 100 })).toHaveLength(7);
    const t = trace(store, traces[0]!.traceId)!;
    expect(t.spans[0]).toMatchObject({ kind: "server", service: "catalog", depth: 0 });
    expect(t.spans[0]!.resource).toMatchObject({ "service.name": "catalog", "platform.project": "shop", "deployment.id": "dep-42" });
  });
});
