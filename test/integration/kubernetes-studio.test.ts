import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, pulumiOnStack, requireToolchain, unique } from "./helpers/env.js";
import { clusterUp, kubectl } from "./helpers/kubernetes.js";
import { expectCatalogWaterfall, listRequests } from "./helpers/catalog-studio.js";
import { launchChromium, newPage, screenshot, startTestStudio } from "./helpers/studio-browser.js";

/**
 * Issue 28 item 4 end to end: examples/catalog deployed unchanged to the Kubernetes test cluster
 * runs its telemetry receiver in the stack's namespace, the services export to it, and Studio in
 * Chromium shows what it shows for Docker: the product route with exactly the 404s the traffic
 * service reported, a trace as a waterfall across both services, each pod of the services, their
 * CPU and memory (metrics-server) and their logs. Traffic goes to 127.0.0.1 only (the edge), and
 * is one bounded run of 200 requests.
 */
const project = unique("k8s-stu");
const namespace = `${project}-preview`;
const backend = freshBackend();
const work = mkdtempSync(join(tmpdir(), "platform-k8s-studio-"));
const dir = join(work, "catalog");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const base = `/projects/${project}/preview`;
let studio: Awaited<ReturnType<typeof startTestStudio>>;
let browser: Browser;
let page: Page;
let report: { sent: number; ok: number; errors: number };

describe("Studio and zero-code telemetry for examples/catalog on the Kubernetes test cluster", () => {
  beforeAll(async () => {
    requireToolchain();
    await clusterUp();
    copyExample("catalog", dir);
    const r = ok(await cli("deploy", "--yes", "--project", project, "--target", "kubernetes"));
    const urls = parseUrls(r.stdout);
    expect(Object.keys(urls).sort()).toEqual(["api", "traffic"]);
    const ca = ok(await cli("ca")).stdout;
    // One bounded run: the traffic service sends 200 requests to the api inside the cluster.
    const run = await httpsRequest(`${urls.traffic}/run?count=200`, ca, { timeoutMs: 120_000 });
    expect(run.status).toBe(200);
    report = JSON.parse(run.body);
    expect(report).toEqual({ sent: 200, ok: 160, errors: 40 });
    studio = await startTestStudio(backend);
    browser = await launchChromium();
    page = await newPage(browser);
  }, 45 * 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await cli("destroy", "--yes", "--project", project);
    rmSync(work, { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("runs the receiver in the namespace (one pod, Recreate, on a claim), and the services export to it", async () => {
    const d = JSON.parse(kubectl("-n", namespace, "get", "deployment", "platform-telemetry", "-o", "json"));
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.strategy.type).toBe("Recreate");
    expect(d.spec.template.spec.volumes[0].persistentVolumeClaim.claimName).toBe("platform-telemetry-store");
    expect(kubectl("-n", namespace, "get", "service", "platform-telemetry", "-o", "jsonpath={.spec.type}")).toBe("ClusterIP");
    const endpoint = `http://platform-telemetry.${namespace}.svc.cluster.local:4318`;
    for (const s of ["api", "traffic"]) {
      const env = kubectl("-n", namespace, "exec", `deploy/${s}`, "--", "printenv");
      expect(env).toContain(`OTEL_EXPORTER_OTLP_ENDPOINT=${endpoint}\n`);
      expect(env).not.toContain("OTEL_SDK_DISABLED");
    }
    // The receiver is the platform's, not a service: status lists the two services only.
    const st = JSON.parse(ok(await cli("status", "--project", project, "--json")).stdout);
    expect(st.services.map((x: { service: string; state: string }) => `${x.service}:${x.state}`)).toEqual([
      "api:running",
      "traffic:running",
    ]);
  }, 120_000);

  it("a plain pulumi preview --expect-no-changes stays clean", () => {
    expect(pulumiOnStack(project, backend, ["preview", "--expect-no-changes"])).toMatch(/\d+ unchanged/);
  }, 300_000);

  it("Metrics shows the product route with exactly the reported 404s and the list route with its 200s", async () => {
    await page.goto(await studio.signIn(`${base}/metrics`));
    const product = page.locator('tr[data-service="api"][data-route="GET /products/{product_id}"]');
    const list = page.locator('tr[data-service="api"][data-route="GET /products"]');
    const count = (row: typeof product, status: string) =>
      row
        .locator(`[data-status="${status}"]`)
        .getAttribute("data-count", { timeout: 2000 })
        .catch(() => null);
    // Exported every 5 s, copied out of the cluster every 5 s: a reload until both counts are there.
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.locator('[data-testid="routes"], .empty').first().waitFor();
          return `${await count(product, "404")} ${await count(list, "200")}`;
        },
        { timeout: 120_000, interval: 3000 },
      )
      .toBe(`${report.errors} ${listRequests(200)}`);
    expect(await list.locator("[data-status]").count()).toBe(1);
    await screenshot(page, "k8s-metrics");
  }, 180_000);

  it("opens a sampled trace of the product route as a waterfall with spans of both services", async () => {
    await expectCatalogWaterfall(page);
    await screenshot(page, "k8s-trace");
  }, 60_000);

  it("Services shows each service healthy with its pod; the sidebar says running", async () => {
    await page.goto(await studio.signIn(base));
    const pods = JSON.parse(kubectl("-n", namespace, "get", "pods", "-l", "app.kubernetes.io/name=api", "-o", "json")).items;
    const card = page.locator('.svc-card:has([data-service="api"])');
    await expect.poll(() => card.locator(".badge").last().textContent(), { timeout: 30_000 }).toBe("healthy");
    const replica = card.locator("[data-replica]");
    expect(await replica.count()).toBe(pods.length);
    expect(await replica.first().getAttribute("title")).toContain(pods[0].metadata.name);
    expect(await page.locator('.svc-card:has([data-service="platform-telemetry"])').count()).toBe(0);
    expect(await page.locator(".nav .env.active .dot").getAttribute("title")).toBe("running");
    await screenshot(page, "k8s-services");
  }, 60_000);

  it("Resources shows CPU and memory of the pods from metrics-server", async () => {
    await page.goto(await studio.signIn(`${base}/resources`));
    // Studio samples every 10 s; metrics-server has a reading about 15 s after a pod starts.
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.locator('[data-testid="cpu-chart"], .empty').first().waitFor();
          return page.locator("table.t tbody tr").allTextContents();
        },
        { timeout: 90_000, interval: 5000 },
      )
      .toEqual(expect.arrayContaining([expect.stringMatching(/^api.*B/), expect.stringMatching(/^traffic.*B/)]));
    await page.locator('[data-testid="mem-chart"] canvas').waitFor();
    const api = await page.locator("table.t tbody tr", { hasText: "api" }).first().locator("td").allTextContents();
    // Memory in use, and the pod's limit (the preset's): the pod's reading, not its edge forwarder's (128 MiB).
    expect(api[2]).toMatch(/\d.*B$/);
    expect(api[3]).toBe("512 MiB");
    await screenshot(page, "k8s-resources");
  }, 120_000);

  it("Logs streams the pods' lines", async () => {
    await page.goto(await studio.signIn(`${base}/logs`));
    const apiLines = page.locator('[data-testid="logs"] .logline', { has: page.locator(".svc", { hasText: /^api$/ }) });
    await expect
      .poll(
        async () => (await apiLines.allTextContents()).some((l) => /Uvicorn running|Application startup complete|GET \/products/.test(l)),
        {
          timeout: 30_000,
        },
      )
      .toBe(true);
    // Both services' pods stream (their lines arrive in bursts, each service's on its own).
    await expect
      .poll(async () => new Set(await page.locator('[data-testid="logs"] .svc').allTextContents()), { timeout: 20_000 })
      .toEqual(new Set(["api", "traffic"]));
    await screenshot(page, "k8s-logs");
  }, 60_000);
});
