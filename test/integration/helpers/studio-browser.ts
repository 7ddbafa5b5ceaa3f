import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { runCli } from "./cli.js";
import { freePort, ROOT } from "./env.js";

/**
 * Studio in a real headless Chromium: Debian's chromium (scripts/setup/chromium.sh installs
 * it; npm test runs that first), driven by playwright-core, which never downloads a browser.
 */
export const CHROMIUM = process.env.PLATFORM_CHROMIUM ?? "/usr/bin/chromium";
/**
 * Where the Studio tests' screenshots go: test-results/studio/ (git-ignored), so that a test
 * run never overwrites the committed docs/studio/*.png; PLATFORM_UPDATE_SCREENSHOTS=1 writes
 * them to docs/studio/ instead, to update those on purpose.
 */
export const SCREENSHOTS =
  process.env.PLATFORM_UPDATE_SCREENSHOTS === "1" ? join(ROOT, "docs", "studio") : join(ROOT, "test-results", "studio");

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run bash scripts/setup/chromium.sh (npm test does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A page of the size the screenshots are taken at, in the given colour scheme. */
export async function newPage(browser: Browser, theme: "dark" | "light" = "dark"): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: theme, deviceScaleFactor: 1 });
  return ctx.newPage();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** Starts a Studio of its own (its own state directory, so a Studio of the user is left alone). */
export async function startTestStudio(
  env: Record<string, string>,
): Promise<{ url: string; signIn: (next?: string) => Promise<string>; stop: () => Promise<void>; env: Record<string, string> }> {
  const studioEnv = { PLATFORM_STUDIO_DIR: mkdtempSync(join(tmpdir(), "platform-studio-")), ...env };
  // A port of its own: npm test runs files side by side, and two Studios cannot share one.
  const port = process.env.PLATFORM_STUDIO_TEST_PORT ?? String(await freePort());
  const signIn = async (next = "/") => {
    const r = await runCli(["studio", "--json", "--port", port], { cwd: ROOT, env: studioEnv });
    if (r.code !== 0) throw new Error(`platform studio: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    const url = (JSON.parse(r.stdout) as { url: string }).url;
    return next === "/" ? url : `${url}&next=${encodeURIComponent(next)}`;
  };
  const first = await signIn();
  return {
    url: new URL(first).origin,
    signIn,
    env: studioEnv,
    stop: async () => {
      await runCli(["studio", "--stop"], { cwd: ROOT, env: studioEnv });
      rmSync(studioEnv.PLATFORM_STUDIO_DIR, { recursive: true, force: true });
    },
  };
}

/** A raw request with any Host header (fetch does not let a caller set Host). */
export function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers }, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
