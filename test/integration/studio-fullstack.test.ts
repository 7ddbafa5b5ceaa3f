import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { CLI, copyExample, forgetProject, freshBackend, requireToolchain, unique } from "./helpers/env.js";
import { launchChromium, newPage, rawGet, screenshot, startTestStudio } from "./helpers/studio-browser.js";

/**
 * Studio end to end on examples/fullstack, in a real headless Chromium: services, logs of
 * several services, the history with a comparison of two deployments, CPU and memory, and
 * the database console (an INSERT refused read-only, then allowed once writes are switched
 * on), plus the access rules and `platform db connect --tunnel-only`.
 */
const project = unique("studio-fs");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-studio-fs-")), "fullstack");
let studio: Awaited<ReturnType<typeof startTestStudio>>;
let browser: Browser;
let page: Page;
let urls: Record<string, string> = {};
let ca = "";
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: { ...backend, ...studio?.env } });
const base = () => `/projects/${project}/preview`;

const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir, stdio: "pipe" });
const dbPassword = () => {
  const name = execFileSync("docker", [
    "ps",
    "--filter",
    `label=platform.project=${project}`,
    "--filter",
    "label=platform.service=database",
    "--format",
    "{{.Names}}",
  ])
    .toString()
    .trim();
  const env = execFileSync("docker", ["inspect", name, "--format", "{{range .Config.Env}}{{println .}}{{end}}"]).toString();
  return /^POSTGRES_PASSWORD=(.*)$/m.exec(env)![1]!;
};

async function go(path: string): Promise<void> {
  await page.goto(`${studio.url}${path}`);
}

describe("Studio on examples/fullstack in Chromium", () => {
  beforeAll(async () => {
    requireToolchain();
    copyExample("fullstack", dir);
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "fullstack");
    const first = ok(await cli("deploy", "--yes", "--project", project));
    urls = parseUrls(first.stdout);
    ca = ok(await cli("ca")).stdout;
    studio = await startTestStudio(backend);
    // A second deployment to compare with: a changed description and API source, uncommitted.
    writeFileSync(
      join(dir, "platform.yml"),
      readFileSync(join(dir, "platform.yml"), "utf8").replace(/^description: .*$/m, "description: Studio test, second deployment"),
    );
    appendFileSync(join(dir, "api", "app", "main.py"), "\n# second deployment\n");
    const second = ok(await cli("deploy", "--project", project));
    expect(second.stdout).toContain(`Studio: ${studio.url}/projects/${project}/preview`);
    browser = await launchChromium();
    page = await newPage(browser);
    await page.goto(await studio.signIn(base()));
  }, 1_500_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await runCli(["destroy", "--yes", "--delete-data", "--project", project], { cwd: dir, env: backend });
    rmSync(dirname(dir), { recursive: true, force: true });
    forgetProject(project);
  });

  it("answers 401 without the cookie, 403 to a foreign Host or Origin, and refuses a sign-in token used twice", async () => {
    expect((await rawGet(`${studio.url}/api/projects`)).status).toBe(401);
    expect((await rawGet(`${studio.url}/api/projects`, { host: `evil.example:${new URL(studio.url).port}` })).status).toBe(403);
    expect((await rawGet(`${studio.url}/api/projects`, { origin: "http://evil.example" })).status).toBe(403);
    const link = await studio.signIn();
    expect((await rawGet(link)).status).toBe(302);
    expect((await rawGet(link)).status).toBe(401);
  });

  it("lists the services with status, health, image, URL and limits", async () => {
    await page.locator(".svc-card").nth(2).waitFor();
    for (const s of ["database", "api", "web"]) {
      const card = page.locator(`.svc-card:has([data-service="${s}"])`);
      await expect.poll(() => card.locator(".badge").last().textContent()).toBe("healthy");
      expect(await card.textContent()).toContain("0.5 CPU · 512 MiB · 512 pids");
    }
    expect(await page.locator('.svc-card:has([data-service="api"])').textContent()).toContain(urls.api!.replace("https://", ""));
    // The sidebar's dot for this environment: every service of its last deployment running.
    expect(await page.locator(".nav .env.active .dot").getAttribute("title")).toBe("running");
    await screenshot(page, "services");
  });

  it("streams the logs of several services interleaved, and filters them", async () => {
    await go(`${base()}/logs`);
    await page.getByRole("button", { name: "all" }).click();
    const lines = page.locator('[data-testid="logs"] .logline');
    await expect
      .poll(async () => new Set(await page.locator('[data-testid="logs"] .svc').allTextContents()).size, { timeout: 20_000 })
      .toBe(3);
    expect(await lines.count()).toBeGreaterThan(3);
    await page.getByLabel("Filter").fill("GET /health");
    // At least one line shown, and every line shown matches (an empty list would match "every").
    await expect
      .poll(
        async () => {
          const shown = await page.locator('[data-testid="logs"] .msg').allTextContents();
          return shown.length === 0 ? "no line shown" : shown.filter((l) => !l.includes("GET /health"));
        },
        { timeout: 20_000 },
      )
      .toEqual([]);
    await page.getByLabel("Filter").fill("");
    await screenshot(page, "logs");
  });

  it("shows the history and compares two deployments (platform.yml and images)", async () => {
    await go(`${base()}/deployments`);
    const rows = page.locator("tr[data-deployment]");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain("dirty");
    await rows.nth(0).locator('input[type="checkbox"]').check();
    await rows.nth(1).locator('input[type="checkbox"]').check();
    await page.getByRole("button", { name: "Compare" }).click();
    const cmp = page.locator('[data-testid="comparison"]');
    await cmp.waitFor();
    expect(await cmp.locator(".diff .added").allTextContents()).toContain("+ description: Studio test, second deployment");
    expect(await cmp.locator("table").textContent()).toContain("api");
    expect(await cmp.locator("table").textContent()).not.toContain("web");
    await rows.nth(1).click();
    await expect.poll(() => page.locator("pre.out").first().textContent()).toMatch(/alembic|Running|INFO/i);
    await screenshot(page, "deployments");
  });

  it("charts CPU and memory per service from the sampler's history", async () => {
    // Two sampling rounds make a line (the sampler reads every 10 s).
    await expect
      .poll(
        async () => {
          const r = (await page.evaluate(async (p) => (await fetch(`/api/projects/${p}/envs/preview/stats`)).json(), project)) as {
            series: Record<string, unknown[]>;
          };
          return ["database", "api", "web"].every((s) => (r.series[s]?.length ?? 0) >= 2);
        },
        { timeout: 60_000, interval: 2000 },
      )
      .toBe(true);
    await go(`${base()}/resources`);
    await page.locator('[data-testid="cpu-chart"] canvas').waitFor();
    await page.locator('[data-testid="mem-chart"] canvas').waitFor();
    expect(await page.locator("table.t tbody tr").count()).toBe(3);
    await screenshot(page, "resources");
  });

  it("database console: tables with counts, an INSERT refused read-only, allowed with writes on; the password only on a click", async () => {
    const before = JSON.parse((await httpsRequest(`${urls.api}/api/status`, ca)).body) as { event_count: number };
    await go(`${base()}/database`);
    await page.locator('[data-testid="tables"] tr', { hasText: "events" }).waitFor();
    const password = dbPassword();
    expect(await page.content()).not.toContain(password);
    const sql = page.getByLabel("SQL");
    await sql.fill("INSERT INTO events (message) VALUES ('from Studio')");
    await page.getByRole("button", { name: "Run" }).click();
    await expect.poll(() => page.locator('[data-testid="sql-error"]').textContent()).toContain("read-only transaction");
    await sql.fill("COMMIT; INSERT INTO events (message) VALUES ('escape')");
    await page.getByRole("button", { name: "Run" }).click();
    await expect.poll(() => page.locator('[data-testid="sql-error"]').textContent()).toContain("multiple commands");
    await page.getByRole("button", { name: "Allow writes" }).click();
    await page.getByText("writes on for this session").waitFor();
    await sql.fill("INSERT INTO events (message) VALUES ('from Studio')");
    await page.getByRole("button", { name: "Run" }).click();
    await expect.poll(() => page.locator('[data-testid="result"]').textContent()).toContain("INSERT 1");
    const after = JSON.parse((await httpsRequest(`${urls.api}/api/status`, ca)).body) as { event_count: number; latest_event: string };
    expect(after.event_count).toBe(before.event_count + 1);
    expect(after.latest_event).toBe("from Studio");
    await page.getByRole("button", { name: "Back to read-only" }).click();
    await page.getByText("read-only", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Reveal" }).click();
    await expect.poll(() => page.locator('[data-testid="password"]').textContent()).toBe(password);
    await page.getByRole("button", { name: "Hide" }).click();
    await sql.fill("SELECT id, message, created_at FROM events ORDER BY id");
    await page.getByRole("button", { name: "Run" }).click();
    await expect.poll(() => page.locator('[data-testid="result"] tbody tr').count()).toBe(after.event_count);
    expect(await page.content()).not.toContain(password);
    await screenshot(page, "database");
  });

  it("platform db connect --tunnel-only prints a local address that psql reaches, until Ctrl-C", async () => {
    const child = spawn(process.execPath, [CLI, "db", "connect", "database", "--tunnel-only", "--json", "--project", project], {
      cwd: dir,
      env: { ...process.env, ...backend, CI: "true" },
    });
    const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
    const t = JSON.parse(line) as { host: string; port: number; user: string; database: string };
    expect(t.host).toBe("127.0.0.1");
    expect(line).not.toContain(dbPassword());
    const out = execFileSync(
      "psql",
      ["-h", t.host, "-p", String(t.port), "-U", t.user, "-tAc", "SELECT count(*) FROM events", t.database],
      { env: { ...process.env, PGPASSWORD: dbPassword() } },
    )
      .toString()
      .trim();
    expect(Number(out)).toBeGreaterThan(0);
    child.kill("SIGINT");
    await once(child, "close");
    expect(
      execFileSync("docker", ["ps", "-a", "--filter", `label=platform.tunnel.owner=cli-${child.pid}`, "--format", "{{.Names}}"])
        .toString()
        .trim(),
    ).toBe("");
  });
});
