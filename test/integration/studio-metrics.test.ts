import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type TelemetryServer,
  type TelemetryStore,
  UNMATCHED_ROUTE,
  openTelemetryStore,
  startTelemetryServer,
} from "../../src/telemetry/index.js";
import { launchChromium, newPage, rawGet, screenshot, startTestStudio } from "./helpers/studio-browser.js";

/**
 * The Metrics tab in a real Chromium, on a telemetry store filled by the real OTLP receiver
 * with what the real OpenTelemetry JS SDK exported from an instrumented HTTP service: the
 * table shows exactly the requests made per route template, a route opens its sampled
 * traces, a trace opens as a waterfall with its attributes.
 */
const APP = fileURLToPath(new URL("../fixtures/telemetry/instrumented-app.cjs", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "platform-studio-home-"));
const telemetry = join(home, "telemetry");
const project = "studio-shop";
let store: TelemetryStore;
let receiver: TelemetryServer;
let browser: Browser;
let studio: Awaited<ReturnType<typeof startTestStudio>>;

/** A deployment record, as a deploy writes it, so Studio lists the project. */
function writeRecord(): void {
  const dir = join(home, "projects", project, "deployments", "preview");
  mkdirSync(dir, { recursive: true });
  const now = new Date().toISOString();
  writeFileSync(
    join(dir, "dep_metrics1.json"),
    JSON.stringify({
      id: "dep_metrics1",
      project,
      env: "preview",
      startedAt: now,
      finishedAt: now,
      outcome: "succeeded",
      configHash: "x",
      cliVersion: "0.1.0",
      services: {},
      migrations: {},
      urls: {},
    }),
  );
}

async function runApp(hit: (base: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [APP], {
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "catalog",
      OTEL_RESOURCE_ATTRIBUTES: `platform.project=${project},platform.env=preview,platform.service=catalog,deployment.id=dep_metrics1`,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  await hit(`http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`);
  child.stdin!.end();
  const [code] = (await once(child, "exit")) as [number];
  expect(code).toBe(0);
}

describe("Studio Metrics tab in Chromium, on OTLP from the OpenTelemetry JS SDK", () => {
  beforeAll(async () => {
    writeRecord();
    store = openTelemetryStore({ dir: telemetry, pruneIntervalMs: 0 });
    receiver = await startTelemetryServer({ store, port: 0 });
    await runApp(async (base) => {
      for (let i = 0; i < 30; i++) expect((await fetch(`${base}/items/${i}`)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await fetch(`${base}/health`)).status).toBe(200);
      for (let i = 0; i < 7; i++) expect((await fetch(`${base}/missing/${i}`)).status).toBe(404);
    });
    studio = await startTestStudio({ PLATFORM_HOME: home, PLATFORM_TELEMETRY_DIR: telemetry });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await receiver?.close();
    store?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it("refuses the API without the cookie (401) and a foreign Host (403)", async () => {
    expect((await rawGet(`${studio.url}/api/projects`)).status).toBe(401);
    expect((await rawGet(`${studio.url}/api/projects`, { host: "rebound.example.com" })).status).toBe(403);
  });

  it("shows each route template with exactly its requests and status codes; a route opens its traces; a trace its waterfall", async () => {
    const page = await newPage(browser);
    await page.goto(await studio.signIn(`/projects/${project}/preview/metrics`));
    const items = page.locator('tr[data-route="GET /items/:id"]');
    await expect.poll(() => items.locator('[data-testid="count"]').textContent(), { timeout: 20_000 }).toBe("30");
    expect(await items.locator('[data-status="200"]').getAttribute("data-count")).toBe("30");
    const unmatched = page.locator(`tr[data-route="GET ${UNMATCHED_ROUTE}"]`);
    expect(await unmatched.locator('[data-testid="count"]').textContent()).toBe("7");
    expect(await unmatched.locator('[data-status="404"]').getAttribute("data-count")).toBe("7");
    expect(await page.locator('tr[data-route="GET /health"] [data-testid="count"]').textContent()).toBe("5");
    await items.click();
    await page.locator('[data-testid="traces"] tbody tr').first().waitFor();
    expect(await page.locator('[data-testid="traces"] tbody tr').count()).toBe(30);
    await screenshot(page, "metrics-sdk");
    await page.locator('[data-testid="traces"] tbody tr').first().click();
    const span = page.locator('[data-testid="waterfall"] .wf-row').first();
    await span.waitFor();
    expect(await span.getAttribute("data-span-service")).toBe("catalog");
    await expect.poll(() => page.locator('[data-testid="span-attributes"]').textContent()).toContain("http.route");
    await screenshot(page, "trace-sdk");
  });

  it("reads the same page in the light theme", async () => {
    const page = await newPage(browser, "light");
    await page.goto(await studio.signIn(`/projects/${project}/preview/metrics`));
    await page.locator('tr[data-route="GET /items/:id"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("light");
    await screenshot(page, "metrics-light");
  });
});
