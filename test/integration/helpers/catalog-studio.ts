import type { Page } from "playwright-core";
import { expect } from "vitest";

/** What examples/catalog/traffic/main.py sends for request i (its fixed rotation): the list route's count. */
export function listRequests(count: number): number {
  let n = 0;
  for (let i = 0; i < count; i++) if (i % 5 !== 4 && i % 4 === 0) n++;
  return n;
}

/**
 * On Studio's Metrics tab of examples/catalog (any target): opens the product route's sampled
 * traces, then one that came through the traffic service, and checks its waterfall holds spans
 * of both services, the api's nested below the traffic service's, and a span's attributes.
 */
export async function expectCatalogWaterfall(page: Page): Promise<void> {
  await page.locator('tr[data-service="api"][data-route="GET /products/{product_id}"]').click();
  const rows = page.locator('[data-testid="traces"] tbody tr');
  await rows.first().waitFor();
  // A trace that came through the traffic service holds spans of both.
  const both = rows.filter({ hasText: "traffic" }).first();
  await both.waitFor();
  await both.click();
  const wf = page.locator('[data-testid="waterfall"]');
  await wf.locator(".wf-row").first().waitFor();
  const services = new Set(await wf.locator(".wf-row").evaluateAll((els) => els.map((e) => e.getAttribute("data-span-service"))));
  expect(services).toEqual(new Set(["traffic", "api"]));
  // Nesting: the api's server span sits below the traffic service's client span.
  const depths = await wf
    .locator(".wf-row .wf-name")
    .evaluateAll((els) => els.map((e) => parseInt((e as HTMLElement).style.paddingLeft, 10)));
  expect(Math.max(...depths)).toBeGreaterThan(Math.min(...depths));
  await wf.locator('.wf-row[data-span-service="api"]', { hasText: "GET /products/{product_id}" }).first().click();
  await expect.poll(() => page.locator('[data-testid="span-attributes"]').textContent()).toContain("/products/{product_id}");
}
