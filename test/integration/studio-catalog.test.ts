import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, requireToolchain, unique } from "./helpers/env.js";
import { expectCatalogWaterfall, listRequests } from "./helpers/catalog-studio.js";
import { launchChromium, newPage, screenshot, startTestStudio } from "./helpers/studio-browser.js";

/**
 * The Metrics tab end to end on examples/catalog, deployed unchanged (zero-code telemetry):
 * after the traffic service's /run?count=200, Studio in Chromium shows the product route
 * with exactly the 404s the traffic service reported and the list route with its 200s, and
 * the product route's sampled trace opens as a waterfall holding spans of both services.
 */
const project = unique("studio-cat");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-studio-cat-")), "catalog");
let studio: Awaited<ReturnType<typeof startTestStudio>>;
let browser: Browser;
let page: Page;

describe("Studio Metrics tab on examples/catalog in Chromium", () => {
  let report: { sent: number; ok: number; errors: number };

  beforeAll(async () => {
    requireToolchain();
    copyExample("catalog", dir);
    const r = ok(await runCli(["deploy", "--yes", "--project", project], { cwd: dir, env: backend }));
    const urls = parseUrls(r.stdout);
    const ca = ok(await runCli(["ca"], { cwd: dir, env: backend })).stdout;
    const run = await httpsRequest(`${urls.traffic}/run?count=200`, ca, { timeoutMs: 120_000 });
    expect(run.status).toBe(200);
    report = JSON.parse(run.body);
    expect(report.sent).toBe(200);
    studio = await startTestStudio(backend);
    browser = await launchChromium();
    page = await newPage(browser);
  }, 1_200_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await runCli(["destroy", "--yes", "--project", project], { cwd: dir, env: backend });
    rmSync(dirname(dir), { recursive: true, force: true });
    forgetProject(project);
  });

  it("shows the product route with exactly the reported 404s and the list route with its 200s", async () => {
    await page.goto(await studio.signIn(`/projects/${project}/preview/metrics`));
    const product = page.locator('tr[data-service="api"][data-route="GET /products/{product_id}"]');
    const list = page.locator('tr[data-service="api"][data-route="GET /products"]');
    // Metrics are exported every few seconds; the page refreshes every 15 s, a reload sooner.
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.locator('[data-testid="routes"], .empty').first().waitFor();
          return (
            (await product
              .locator('[data-status="404"]')
              .getAttribute("data-count")
              .catch(() => null)) === String(report.errors) &&
            (await list
              .locator('[data-status="200"]')
              .getAttribute("data-count")
              .catch(() => null)) === String(listRequests(200))
          );
        },
        { timeout: 90_000, interval: 3000 },
      )
      .toBe(true);
    expect(Number(await product.locator('[data-status="404"]').getAttribute("data-count"))).toBe(report.errors);
    expect(report.errors).toBe(40);
    expect(await list.locator("[data-status]").count()).toBe(1);
    await screenshot(page, "metrics");
  });

  it("opens the product route's sampled traces, and a trace as a waterfall with spans of both services", async () => {
    await expectCatalogWaterfall(page);
    await screenshot(page, "trace");
  });
});
