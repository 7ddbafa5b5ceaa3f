import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { routeStats, routeTraces, trace, TelemetryStore, type RouteStats } from "../../src/telemetry/index.js";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, requireToolchain, unique } from "./helpers/env.js";

/**
 * Zero-code telemetry end to end: examples/catalog deployed unchanged, a burst from its
 * traffic service, and what the platform's receiver stored, read with src/telemetry's
 * queries: per-route counts from the unsampled metrics match what the traffic service
 * reported, and a sampled trace crosses both services.
 */
const project = unique("otelcat");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-otel-")), "catalog");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
let urls: Record<string, string> = {};
let ca = "";
let deploymentId = "";
let store: TelemetryStore | undefined;
const since = Date.now();

/** What examples/catalog/traffic/main.py sends for request i (its fixed rotation). */
function trafficRequest(i: number): { method: string; route: string } {
  if (i % 5 === 4) return { method: "GET", route: "/products/{product_id}" };
  return [
    { method: "GET", route: "/products" },
    { method: "GET", route: "/products/{product_id}" },
    { method: "GET", route: "/categories/{category}/products" },
    { method: "POST", route: "/orders" },
  ][i % 4]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function apiRoutes(): readonly RouteStats[] {
  store ??= TelemetryStore.openReadOnly(homePaths.telemetryDir());
  return routeStats(store, { project, env: "preview", service: "api", from: since - 60_000, to: Date.now() + 60_000 }).routes;
}

/** Metrics arrive every few seconds: polls until `done` holds (or gives the last rows to the assertion). */
async function waitForRoutes(done: (rows: readonly RouteStats[]) => boolean, timeoutMs = 60_000): Promise<readonly RouteStats[]> {
  const deadline = Date.now() + timeoutMs;
  let rows = apiRoutes();
  while (!done(rows) && Date.now() < deadline) {
    await sleep(1000);
    rows = apiRoutes();
  }
  return rows;
}

const find = (rows: readonly RouteStats[], method: string, route: string) => rows.find((r) => r.method === method && r.route === route);

describe("zero-code telemetry on examples/catalog", () => {
  beforeAll(() => {
    requireToolchain();
    copyExample("catalog", dir);
  });

  afterAll(async () => {
    store?.close();
    await cli("destroy", "--yes", "--project", project);
    rmSync(dir, { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys the example unchanged, with the receiver running beside it", async () => {
    const r = ok(await cli("deploy", "--yes", "--project", project));
    urls = parseUrls(r.stdout);
    deploymentId = /Deployment complete \((dep_[a-z0-9]+)\)/.exec(r.stdout)?.[1] ?? "";
    expect(deploymentId).not.toBe("");
    expect(r.stdout).toContain('platform-start:$PWD${PYTHONPATH:+:$PYTHONPATH}" uvicorn main:app');
    ca = ok(await cli("ca")).stdout;
    const state = execFileSync("docker", [
      "inspect",
      "-f",
      "{{.State.Running}} {{json .NetworkSettings.Networks}}",
      "platform-telemetry",
    ]).toString();
    expect(state.startsWith("true ")).toBe(true);
    expect(state).toContain(`"${project}_preview"`);
  }, 900_000);

  it("per-route counts from the unsampled metrics match what the traffic service reported", async () => {
    const count = 200;
    const r = await httpsRequest(`${urls.traffic}/run?count=${count}`, ca, { timeoutMs: 120_000 });
    expect(r.status).toBe(200);
    const report = JSON.parse(r.body) as { sent: number; ok: number; errors: number };
    expect(report.sent).toBe(count);
    // Every fifth request asks for a product that does not exist.
    expect(report.errors).toBe(count / 5);

    const expected = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const { method, route } = trafficRequest(i);
      expected.set(`${method} ${route}`, (expected.get(`${method} ${route}`) ?? 0) + 1);
    }
    const productTotal = expected.get("GET /products/{product_id}")!;
    const rows = await waitForRoutes(
      (rs) =>
        find(rs, "GET", "/products/{product_id}")?.count === productTotal &&
        find(rs, "GET", "/products")?.count === expected.get("GET /products"),
    );
    const product = find(rows, "GET", "/products/{product_id}");
    const list = find(rows, "GET", "/products");
    expect(product?.source).toBe("metrics");
    expect(product?.statusCodes["404"]).toBe(report.errors);
    expect(product?.statusCodes["200"]).toBe(productTotal - report.errors);
    expect(list?.statusCodes).toEqual({ "200": expected.get("GET /products") });
    expect(find(rows, "POST", "/orders")?.statusCodes).toEqual({ "201": expected.get("POST /orders") });
    // Route templates, never raw paths.
    expect(rows.filter((x) => /\/\d+/.test(x.route))).toEqual([]);
  }, 180_000);

  it("paths that match no route are one row, whatever the paths", async () => {
    for (const p of ["/nope", "/nope/1", "/also/missing/2"]) expect((await httpsRequest(`${urls.api}${p}`, ca)).status).toBe(404);
    const rows = await waitForRoutes((rs) => (find(rs, "GET", "(unmatched)")?.count ?? 0) >= 3);
    expect(find(rows, "GET", "(unmatched)")?.statusCodes["404"]).toBe(3);
    expect(rows.filter((x) => x.route.startsWith("/nope") || x.route.startsWith("/also"))).toEqual([]);
  }, 120_000);

  it("a sampled trace of a product request holds spans of both services, with the deployment id", async () => {
    let traces: ReturnType<typeof routeTraces> = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(1000)) {
      traces = routeTraces(store!, {
        project,
        service: "api",
        method: "GET",
        route: "/products/{product_id}",
        from: since - 60_000,
        to: Date.now() + 60_000,
        limit: 5,
      });
      if (traces.some((t) => t.services.includes("traffic"))) break;
    }
    const summary = traces.find((t) => t.services.includes("traffic"));
    expect(summary).toBeDefined();
    const full = trace(store!, summary!.traceId)!;
    const services = new Set(full.spans.map((s) => s.service));
    expect([...services].sort()).toEqual(["api", "traffic"]);
    const server = full.spans.find(
      (s) => s.service === "api" && s.kind === "server" && s.attributes["http.route"] === "/products/{product_id}",
    );
    expect(server?.resource["platform.project"]).toBe(project);
    expect(server?.resource["deployment.id"]).toBe(deploymentId);
    // The api's server span is a child of a traffic client span: the traceparent crossed.
    const parent = full.spans.find((s) => s.spanId === server?.parentSpanId);
    expect(parent?.service).toBe("traffic");
  }, 60_000);

  it("a redeploy without changes replaces nothing (the deployment id is not a variable)", async () => {
    const r = ok(await cli("deploy", "--yes", "--project", project));
    expect(r.stdout).toMatch(/^api: unchanged$/m);
    expect(r.stdout).toMatch(/^traffic: unchanged$/m);
    const preview = ok(await cli("plan", "--project", project));
    expect(preview.stdout).toMatch(/^Pulumi preview: \d+ same$/m);
  }, 600_000);

  it("a destroy detaches the receiver but leaves it running for other applications", async () => {
    ok(await cli("destroy", "--yes", "--project", project));
    const state = execFileSync("docker", [
      "inspect",
      "-f",
      "{{.State.Running}} {{json .NetworkSettings.Networks}}",
      "platform-telemetry",
    ]).toString();
    expect(state.startsWith("true ")).toBe(true);
    expect(state).not.toContain(`"${project}_preview"`);
  }, 300_000);
});
