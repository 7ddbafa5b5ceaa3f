import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli, startPoller } from "./helpers/cli.js";
import { copyExample, forgetProject, freePort, freshBackend, removeEdge, requireToolchain, unique } from "./helpers/env.js";

/**
 * The catalog example (two `source` services, two Python layouts), and the edge proxy's
 * promise: adding and removing another application's routes drops no in-flight request. Behind
 * an edge of its own (PLATFORM_EDGE_NAME, a free port): the last test moves the edge to another
 * port and back, which would cut every other test's traffic through the engine's shared edge
 * (the cluster stage's Kubernetes stacks without a front door come in through it).
 */
const project = unique("cat");
const other = unique("oth");
const edge = `platform-edge-${project}`;
let backend: Record<string, string> = freshBackend();
const base = mkdtempSync(join(tmpdir(), "platform-catalog-"));
const dir = join(base, "catalog");
const otherDir = join(base, "other");
let urls: Record<string, string> = {};
let ca = "";

describe("catalog example", () => {
  beforeAll(async () => {
    requireToolchain();
    backend = { ...backend, PLATFORM_EDGE_NAME: edge, PLATFORM_HTTPS_PORT: String(await freePort()) };
    copyExample("catalog", dir);
    copyExample("catalog/api", join(otherDir, "api"));
    writeFileSync(
      join(otherDir, "platform.yml"),
      'version: "1.0"\nname: other\nservices:\n  api:\n    type: fastapi\n    source: ./api\n    public: true\n    health:\n      http: /health\n',
    );
  });

  afterAll(async () => {
    await runCli(["destroy", "--yes", "--project", other], { cwd: otherDir, env: backend });
    await runCli(["destroy", "--yes", "--project", project], { cwd: dir, env: backend });
    removeEdge(edge);
    rmSync(base, { recursive: true, force: true });
    forgetProject(project);
    forgetProject(other);
  });

  it("deploys both services from source and prints their URLs", async () => {
    const r = ok(await runCli(["deploy", "--yes", "--project", project], { cwd: dir, env: backend }));
    urls = parseUrls(r.stdout);
    expect(Object.keys(urls).sort()).toEqual(["api", "traffic"]);
    expect(r.stdout).toContain("traffic: Installing");
    ca = ok(await runCli(["ca"], { cwd: dir, env: backend })).stdout;
  }, 900_000);

  it("serves the catalog API: docs, products, 404 for unknown ids", async () => {
    const docs = await httpsRequest(`${urls.api}/docs`, ca);
    expect(docs.status).toBe(200);
    expect(docs.body.toLowerCase()).toContain("swagger");
    const products = await httpsRequest(`${urls.api}/products`, ca);
    expect(products.status).toBe(200);
    expect(JSON.parse(products.body).length).toBeGreaterThan(0);
    expect((await httpsRequest(`${urls.api}/products/999999`, ca)).status).toBe(404);
  });

  it("the traffic service reports the 404s it provoked", async () => {
    const r = await httpsRequest(`${urls.traffic}/run?count=20`, ca, { timeoutMs: 60_000 });
    expect(r.status).toBe(200);
    // Every fifth request asks for a missing product on purpose.
    expect(JSON.parse(r.body)).toEqual({ sent: 20, ok: 16, errors: 4 });
  });

  it("adding and removing another application's routes drops no in-flight request", async () => {
    // The edge is not replaced: a kept connection closed under a request (what a reload that
    // restarts the edge's servers does) is a failure too, the poller counts its resend as one.
    const poll = startPoller(`${urls.api}/products`, ca);
    const r = ok(await runCli(["deploy", "--yes", "--project", other], { cwd: otherDir, env: backend }));
    const otherUrl = parseUrls(r.stdout).api as string;
    expect((await httpsRequest(`${otherUrl}/products`, ca)).status).toBe(200);
    ok(await runCli(["destroy", "--yes", "--project", other], { cwd: otherDir, env: backend }));
    const stats = await poll.stop();
    expect(stats.failures).toEqual([]);
    expect(stats.sent).toBeGreaterThan(20);
  }, 600_000);

  it("a busy HTTPS port fails that deploy and leaves the edge serving; another port moves the engine's edge, and back", async () => {
    const busy = createServer().listen(9443, "127.0.0.1");
    await new Promise((r) => busy.once("listening", r));
    const refused = await runCli(["deploy", "--yes", "--project", other, "--https-port", "9443"], { cwd: otherDir, env: backend });
    busy.close();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the HTTPS edge cannot listen on 127.0.0.1:9443");
    expect((await httpsRequest(`${urls.api}/products`, ca)).status).toBe(200);

    const moved = ok(await runCli(["deploy", "--yes", "--project", other, "--https-port", "9443"], { cwd: otherDir, env: backend }));
    expect(parseUrls(moved.stdout).api).toMatch(/\.localhost:9443$/);
    const at9443 = new URL(urls.api as string);
    at9443.port = "9443";
    expect((await httpsRequest(`${at9443.origin}/products`, ca)).status).toBe(200);
    // The edge is the engine's (one per name): the catalog's next deploy (its port) reads the drift and moves it back.
    ok(await runCli(["deploy", "--project", project], { cwd: dir, env: backend }));
    expect((await httpsRequest(`${urls.api}/products`, ca)).status).toBe(200);
    ok(await runCli(["destroy", "--yes", "--project", other], { cwd: otherDir, env: backend }));
  }, 600_000);
});
