import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rowsAroundMoment } from "./helpers/events.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { type CliResult, httpsRequest, ok, runCli, startPoller } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, requireToolchain, serviceContainers, unique } from "./helpers/env.js";
import { expectFullstackDeployed } from "./helpers/fullstack-order.js";
import { expectSecretsNowhere } from "./helpers/leaks.js";
import { launchChromium, newPage, screenshot, startTestStudio } from "./helpers/studio-browser.js";

/**
 * Issue #26 item 3, point-in-time recovery on the real Docker engine with examples/fullstack:
 * the database archives its WAL into its own volume; `db backup` also makes a base backup
 * (pg_basebackup, encrypted, verified); row A, a noted moment, row B; `db restore --to-time`
 * that moment brings exactly A back (B gone); a moment before the window is refused with the
 * window; the API answers afterwards; no password or passphrase in any output, backup file or
 * archived WAL segment; `destroy --delete-data` removes the archive volume with the data.
 */
const project = unique("pitr");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-pitr-")), "fullstack");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const outputs: CliResult[] = [];
const run = async (...args: string[]) => {
  const r = await cli(...args, "--project", project);
  outputs.push(r);
  return r;
};
const backups = () => homePaths.backupsDir(project, "preview", "database");
const marker = unique("m");
const archiveVolume = `${project}_preview_database_wal`;
let urls: Record<string, string> = {};
let ca = "";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(message: string): Promise<void> {
  const r = await httpsRequest(`${urls.api}/api/events`, ca, { method: "POST", body: { message } });
  expect(r.status, r.body).toBe(201);
}

/** The marker's rows through the API, retried while it reconnects (at most `waitMs`). */
async function messages(waitMs = 0): Promise<string[]> {
  const end = Date.now() + waitMs;
  for (;;) {
    const r = await httpsRequest(`${urls.api}/api/events?limit=100`, ca);
    if (r.status === 200) return (JSON.parse(r.body) as { message: string }[]).map((e) => e.message).filter((m) => m.startsWith(marker));
    if (Date.now() > end) throw new Error(`GET /api/events: ${r.status} ${r.body}`);
    await sleep(200);
  }
}

/** A format `--to-time` takes: `2026-11-26 10:41:00.123` (UTC, no zone). */
const asText = (d: Date) => d.toISOString().replace("T", " ").replace("Z", "");

describe("point-in-time recovery (Docker)", () => {
  beforeAll(() => {
    requireToolchain();
    copyExample("fullstack", dir);
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    rmSync(dir, { recursive: true, force: true });
    rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys: the database archives its WAL into its own volume", async () => {
    const r = ok(await run("deploy", "--yes"));
    urls = expectFullstackDeployed(r.stdout, project);
    ca = ok(await cli("ca")).stdout;
    const db = serviceContainers(project, "database");
    const psql = (sql: string) =>
      execFileSync("docker", ["exec", db, "psql", "-X", "-tA", "-U", "app", "-d", "app", "-c", sql], { encoding: "utf8" }).trim();
    expect(psql("SHOW archive_mode")).toBe("on");
    expect(psql("SHOW archive_timeout")).toBe("1min");
    const labels = JSON.parse(execFileSync("docker", ["volume", "inspect", "-f", "{{json .Labels}}", archiveVolume], { encoding: "utf8" }));
    expect(labels).toMatchObject({ "platform.project": project, "platform.service": "database", "platform.volume": "wal-archive" });
  }, 900_000);

  it("refuses --to-time before any base backup, and a text that is not a time", async () => {
    const none = await run("db", "restore", "database", "--to-time", asText(new Date()), "--yes");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no base backup of database");
    const bad = await run("db", "restore", "database", "--to-time", "yesterday", "--yes");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to-time "yesterday" is not a time');
  }, 120_000);

  it("db backup makes a dump and a base backup, encrypted and verified; db backups shows the window", async () => {
    const r = ok(await run("db", "backup", "database"));
    expect(r.stdout).toMatch(/^ {2}base backup database-\S+: .+, encrypted, verified; with the WAL archive/m);
    const listed = JSON.parse(ok(await run("db", "backups", "database", "--json")).stdout) as {
      backups: { id: string; format?: string; bytes: number; verified?: { how: string } }[];
      windows: { service: string; from: string; to?: string; baseBackups: number }[];
    };
    const base = listed.backups.find((b) => b.format === "basebackup");
    expect(base?.verified?.how).toContain("pg_verifybackup");
    const file = readFileSync(join(backups(), `${base?.id}.base.tar.enc`));
    expect(file.length).toBe(base?.bytes);
    // encrypted at rest: no tar header, no backup_label
    expect(file.includes(Buffer.from("ustar"))).toBe(false);
    expect(file.includes(Buffer.from("backup_label"))).toBe(false);
    expect(listed.windows).toEqual([
      expect.objectContaining({ service: "database", baseBackups: 1, from: expect.any(String), to: expect.any(String) }),
    ]);
    const text = ok(await run("db", "backups")).stdout;
    expect(text).toMatch(
      /^point-in-time window of database: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d.*Z to \d{4}-.*Z \(UTC; 1 base backup; WAL archive \d+ segments/m,
    );
    expect(text).toMatch(/manual, base/);
    // nothing plain left in the database's container by the verification
    expect(execFileSync("docker", ["exec", serviceContainers(project, "database"), "ls", "/tmp"], { encoding: "utf8" }).trim()).toBe("");
  }, 300_000);

  it("Studio's Database page shows the window and how each backup was verified (Chromium)", async () => {
    const studio = await startTestStudio(backend);
    const browser = await launchChromium();
    try {
      const page = await newPage(browser);
      await page.goto(await studio.signIn(`/projects/${project}/preview/database`));
      const window = page.locator('[data-testid="recovery-window"]');
      await expect
        .poll(() => window.textContent(), { timeout: 30_000 })
        .toMatch(/^Point-in-time window: \d{4}-.+Z to \d{4}-.+Z \(UTC; 1 base backup, WAL archive \d+ segments/);
      const backups = await page.locator('[data-testid="backups"]').textContent();
      expect(backups).toContain("manual, base");
      // the dump was proven by a real restore: its tables and rows are said
      expect(backups).toMatch(/verified: restored, \d+ tables?, \d+ rows?/);
      await screenshot(page, "database-backups");
    } finally {
      await browser.close();
      await studio.stop();
    }
  }, 180_000);

  it("a time before the window is refused, with the window in the message", async () => {
    const r = await run("db", "restore", "database", "--to-time", "2000-01-01 00:00:00", "--yes");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--to-time 2000-01-01 00:00:00Z is outside the recoverable window of database: \d{4}-.+Z to now \(/);
  }, 120_000);

  it("restore --to-time between row A and row B: exactly A is back, B is gone; the API answers afterwards", async () => {
    const between = await rowsAroundMoment(post, marker);
    expect(await messages()).toEqual([`${marker}-B`, `${marker}-A`]);
    const poll = startPoller(`${urls.api}/health`, ca, 100);
    const r = ok(await run("db", "restore", "database", "--to-time", asText(between), "--yes"));
    const stats = await poll.stop();
    expect(r.stdout).toMatch(/^Restore database of .+ to \d{4}-.+Z \(UTC\): base backup database-\S+ \(manual, /m);
    expect(r.stdout).toContain("safety backup: database-");
    expect(r.stdout).toMatch(/^✓ Restored database to .+ \(the database was down [\d.]+ s\); api kept running: /m);
    expect(r.stdout).toMatch(/^ {2}undo: platform db restore database database-\S+ --yes$/m);
    const started = Date.now();
    expect(await messages(30_000)).toEqual([`${marker}-A`]);
    console.log(
      `pitr restore: ${r.seconds.toFixed(1)} s; /health polled ${stats.sent} times during it, ${stats.failed} failed;` +
        ` the API answered ${((Date.now() - started) / 1000).toFixed(1)} s after the CLI returned`,
      stats.failures.slice(0, 3),
      r.stdout.split("\n").find((l) => l.startsWith("✓")),
    );
    // The database is down during the recovery, as the restore says: /health, which queries it,
    // may answer 503 meanwhile (the API's own answer). Anything else is the API not running, the
    // edge not reaching it, or a connection closed under a request (a resend).
    expect(stats.sent, "/health polled during the restore").toBeGreaterThan(5);
    expect(
      stats.failures.filter((f) => f !== "HTTP 503"),
      "/health during the restore: the API kept running, answering 503 at worst while its database was down",
    ).toEqual([]);
    // writes go on, on the new timeline, and they are archived too
    await post(`${marker}-C`);
    expect(await messages()).toEqual([`${marker}-C`, `${marker}-A`]);
    const db = serviceContainers(project, "database");
    const conf = execFileSync("docker", ["exec", db, "cat", "/var/lib/postgresql/data/postgresql.auto.conf"], { encoding: "utf8" });
    expect(conf).not.toContain("recovery_target_time");
    expect(spawnSync("docker", ["exec", db, "ls", "/var/lib/postgresql/data/.platform-pitr-old"]).status).not.toBe(0);
  }, 600_000);

  it("the safety backup undoes the point-in-time restore", async () => {
    const listed = JSON.parse(ok(await run("db", "backups", "database", "--json")).stdout) as { backups: { id: string; kind: string }[] };
    const safety = listed.backups.find((b) => b.kind === "safety");
    ok(await run("db", "restore", "database", safety?.id as string, "--yes"));
    expect(await messages(30_000)).toEqual([`${marker}-B`, `${marker}-A`]);
  }, 300_000);

  it("a redeploy keeps the data, the archive volume and the window", async () => {
    const db = serviceContainers(project, "database");
    const segments = () =>
      Number(
        execFileSync("docker", ["exec", serviceContainers(project, "database"), "sh", "-c", "ls /var/lib/postgresql/wal-archive | wc -l"], {
          encoding: "utf8",
        }),
      );
    const before = segments();
    ok(await run("deploy", "--yes"));
    expect(serviceContainers(project, "database")).toBe(db);
    expect(await messages(30_000)).toEqual([`${marker}-B`, `${marker}-A`]);
    expect(segments()).toBeGreaterThanOrEqual(before);
    const listed = JSON.parse(ok(await run("db", "backups", "database", "--json")).stdout) as { windows: { baseBackups: number }[] };
    expect(listed.windows[0]?.baseBackups).toBe(1);
  }, 600_000);

  it("a recovery that fails (archived WAL missing) puts the old data back and says so", async () => {
    const db = serviceContainers(project, "database");
    const inArchive = () =>
      execFileSync("docker", ["exec", db, "ls", "/var/lib/postgresql/wal-archive"], { encoding: "utf8" }).trim().split("\n");
    // keep: 1 (read from platform.yml by db backup): the first base backup goes, and the WAL before the new one
    const yml = join(dir, "platform.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("    type: postgres\n", "    type: postgres\n    backup: {keep: 1}\n"));
    const oldest = () =>
      inArchive()
        .filter((f) => /^[0-9A-F]{24}$/.test(f))
        .sort()[0] as string;
    const before = oldest();
    ok(await run("db", "backup", "database"));
    const listed = JSON.parse(ok(await run("db", "backups", "database", "--json")).stdout) as {
      backups: { format?: string; wal?: { historyFile: string } }[];
      windows: { baseBackups: number }[];
    };
    const bases = listed.backups.filter((b) => b.format === "basebackup");
    expect(bases.length).toBe(1);
    expect(listed.windows[0]?.baseBackups).toBe(1);
    expect(oldest() > before).toBe(true);
    expect(oldest().slice(8)).toBe(bases[0]?.wal?.historyFile.slice(8, 24));
    const kept = new Set(inArchive());
    await post(`${marker}-D`);
    execFileSync("docker", ["exec", db, "psql", "-X", "-q", "-U", "app", "-d", "app", "-c", "SELECT pg_switch_wal()"]);
    await sleep(1500);
    // The segments after the base backup go: the recovery cannot reach the target.
    const gone = inArchive().filter((f) => !kept.has(f) && /^[0-9A-F]{24}$/.test(f));
    expect(gone.length).toBeGreaterThan(0);
    execFileSync("docker", ["exec", db, "rm", ...gone.map((f) => `/var/lib/postgresql/wal-archive/${f}`)]);
    const r = await run("db", "restore", "database", "--to-time", asText(new Date()), "--yes");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /point-in-time restore of database failed: the server did not finish recovering to .+; the data is as it was/s,
    );
    expect(await messages(30_000)).toEqual([`${marker}-D`, `${marker}-B`, `${marker}-A`]);
    expect(spawnSync("docker", ["exec", db, "ls", "/var/lib/postgresql/data/.platform-pitr-old"]).status).not.toBe(0);
  }, 300_000);

  it("no password or passphrase in any output, backup file or archived WAL; destroy --delete-data removes the archive", async () => {
    const api = serviceContainers(project, "api");
    const url = new URL(execFileSync("docker", ["exec", api, "printenv", "DATABASE_URL"], { encoding: "utf8" }).trim());
    const password = decodeURIComponent(url.password);
    expect(password.length).toBeGreaterThan(8);
    const secrets = [password, backend.PLATFORM_PASSPHRASE as string];
    expectSecretsNowhere(secrets, outputs, backups());
    expectSecretsNowhere(secrets, [], homePaths.backupsDir(project, "preview"));
    // The archive, read whole from its volume (a tar of every segment and history file), with a new row archived.
    const db = serviceContainers(project, "database");
    await post(`${marker}-E`);
    execFileSync("docker", ["exec", db, "psql", "-X", "-q", "-U", "app", "-d", "app", "-c", "SELECT pg_switch_wal()"]);
    await sleep(1500);
    const archive = execFileSync("docker", ["exec", db, "tar", "-c", "-C", "/var/lib/postgresql/wal-archive", "."], { maxBuffer: 1 << 30 });
    expect(archive.length).toBeGreaterThan(16 << 20);
    for (const s of secrets) expect(archive.includes(Buffer.from(s)), "the WAL archive holds a secret").toBe(false);
    expect(archive.includes(Buffer.from(marker)), "the archive holds the rows (plain WAL)").toBe(true);
    ok(await run("destroy", "--yes", "--delete-data"));
    expect(spawnSync("docker", ["volume", "inspect", archiveVolume]).status).not.toBe(0);
  }, 300_000);
});
