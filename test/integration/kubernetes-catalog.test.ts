import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli } from "./cli.js";
import { forgetProject, freshBackend, requireToolchain, ROOT, unique } from "./env.js";
import { clusterUp, kubectl } from "./kubernetes.js";

/**
 * The catalog example on the Kubernetes test cluster: two `source` services, one calling the
 * other by its Service DNS name, both public over HTTPS through 127.0.0.1; then status, logs
 * and destroy read and act on the cluster.
 */
const project = unique("k8s-cat");
const namespace = `${project}-preview`;
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-k8s-catalog-")), "catalog");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
let urls: Record<string, string> = {};
let ca = "";

describe("catalog example on the Kubernetes test cluster", () => {
  beforeAll(async () => {
    requireToolchain();
    await clusterUp();
    cpSync(join(ROOT, "examples", "catalog"), dir, { recursive: true, filter: (s) => !/__pycache__|\.venv/.test(s) });
  }, 45 * 60_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--project", project);
    rmSync(dir, { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys both services and prints their URLs", async () => {
    const r = ok(await cli("deploy", "--yes", "--project", project, "--target", "kubernetes"));
    urls = parseUrls(r.stdout);
    expect(Object.keys(urls).sort()).toEqual(["api", "traffic"]);
    expect(r.stdout).toMatch(/^Deployment complete \(dep_[a-z0-9]+\)$/m);
    ca = ok(await cli("ca")).stdout;
  }, 900_000);

  it("serves the catalog API over HTTPS, and the traffic service reaches it by its Service name", async () => {
    const products = await httpsRequest(`${urls.api}/products`, ca);
    expect(products.status).toBe(200);
    expect(JSON.parse(products.body).length).toBeGreaterThan(0);
    expect((await httpsRequest(`${urls.api}/products/999999`, ca)).status).toBe(404);
    const r = await httpsRequest(`${urls.traffic}/run?count=20`, ca, { timeoutMs: 60_000 });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ sent: 20, ok: 16, errors: 4 });
  }, 120_000);

  it("status and logs read the cluster; the stack remembers its target", async () => {
    const s = JSON.parse(ok(await cli("status", "--project", project, "--json")).stdout);
    expect(s.services.map((x: { service: string; state: string }) => `${x.service}:${x.state}`)).toEqual(["api:running", "traffic:running"]);
    expect(s.services[0].url).toBe(urls.api);
    expect(s.services[0].image).toMatch(new RegExp(`^platform/${project}_api:[0-9a-f]{12}$`));
    const logs = ok(await cli("logs", "api", "--tail", "50", "--project", project));
    expect(logs.stdout + logs.stderr).toMatch(/Uvicorn running|Application startup complete/);
    // No --target this time: the stack setting keeps it on Kubernetes.
    const again = ok(await cli("deploy", "--project", project));
    expect(again.stdout).toContain("api: unchanged");
  }, 300_000);

  it("destroy removes the services and their namespace (no database: nothing kept)", async () => {
    ok(await cli("destroy", "--yes", "--project", project));
    expect(kubectl("get", "namespaces", "-o", "name")).not.toContain(`namespace/${namespace}`);
    const s = JSON.parse((await cli("status", "--project", project, "--json")).stdout);
    expect(s.services.map((x: { state: string }) => x.state)).toEqual(["not deployed", "not deployed"]);
  }, 300_000);
});
