import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { type CliResult, ok, parseUrls, runCli, startCli, startPoller } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, requireToolchain, serviceContainers, unique } from "./helpers/env.js";
import { expectFullstackDeployed } from "./helpers/fullstack-order.js";
import { eventsApi, POLL_ROUTE } from "./helpers/events.js";
import { expectSecretsNowhere, regularFilesUnder } from "./helpers/leaks.js";
import { backupUnderWay, expectKilledBackupLeavesNothing, FILLER_SQL } from "./helpers/backup-under-way.js";

/**
 * Issue #26, backups and restore on the real Docker engine, with examples/fullstack: rows
 * written through the API's /api/events, a backup, more rows, a restore (the later rows gone,
 * the earlier there, the API serving throughout), the safety backup undoing it, kill -9 of the
 * CLI and of the database container during a backup (nothing half-made listed, the next
 * backup works), and no password or passphrase in any output, record or backup file.
 */
const project = unique("bk");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-backups-")), "fullstack");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const outputs: CliResult[] = [];
const run = async (...args: string[]) => {
  const r = await cli(...args, "--project", project);
  outputs.push(r);
  return r;
};
const backups = () => homePaths.backupsDir(project, "preview", "database");
const marker = unique("m");
const copiedValue = `copied-${Math.random().toString(36).slice(2)}`;
let urls: Record<string, string> = {};
let ca = "";

const containerOf = (service: string) => serviceContainers(project, service);

const { post, messages } = eventsApi(() => ({ api: urls.api as string, ca }), marker);

interface Listed {
  id: string;
  kind: string;
  format?: string;
  bytes: number;
  deployment?: string;
  verified?: { how: string };
}
async function listed(): Promise<Listed[]> {
  // The dumps: base backups (point-in-time recovery) are tested in backups-pitr.test.ts.
  const all = (JSON.parse(ok(await run("db", "backups", "database", "--json")).stdout) as { backups: Listed[] }).backups;
  return all.filter((b) => b.format !== "basebackup");
}

const underWay = () => backupUnderWay(backups(), ["database", "--project", project], { cwd: dir, env: backend });

function psqlInDatabase(sql: string): string {
  return execFileSync("docker", ["exec", containerOf("database"), "psql", "-X", "-tA", "-U", "app", "-d", "app", "-c", sql], {
    encoding: "utf8",
  }).trim();
}

/** The names of a stack's containers (all, running or not) or volumes, by the platform's labels. */
async function listStack(kind: "container" | "volume", env: string): Promise<string> {
  const filters = ["--filter", `label=platform.project=${project}`, "--filter", `label=platform.env=${env}`];
  const args = kind === "container" ? ["ps", "-a", ...filters, "--format", "{{.Names}}"] : ["volume", "ls", "-q", ...filters];
  return execFileSync("docker", args, { encoding: "utf8" }).trim();
}

/** Sets backup: {schedule: "* * * * *", keep} on the database in the copied platform.yml. */
function setKeep(keep: number): void {
  const file = join(dir, "platform.yml");
  const text = readFileSync(file, "utf8").replace(/\n {4}backup: .*\n/, "\n");
  writeFileSync(file, text.replace("    type: postgres\n", `    type: postgres\n    backup: {schedule: "* * * * *", keep: ${keep}}\n`));
}

describe("backups and restore (Docker)", () => {
  beforeAll(() => {
    requireToolchain();
    copyExample("fullstack", dir);
    // every minute: the scheduler test below waits for one
    setKeep(50);
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project, "--env", "pr1");
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    rmSync(dir, { recursive: true, force: true });
    rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys the fullstack example and writes rows through the API", async () => {
    const r = ok(await run("deploy", "--yes"));
    urls = expectFullstackDeployed(r.stdout, project);
    ca = ok(await cli("ca")).stdout;
    await post(`${marker}-before-1`);
    await post(`${marker}-before-2`);
    expect(await messages()).toEqual([`${marker}-before-2`, `${marker}-before-1`]);
  }, 900_000);

  it("db backups before any backup says how to make one", async () => {
    const r = ok(await run("db", "backups"));
    expect(r.stdout).toContain("No backups");
    expect(r.stdout).toContain("platform db backup");
  });

  it("db backup makes an encrypted, verified backup, recorded with the current deployment", async () => {
    const r = ok(await run("db", "backup", "database"));
    expect(r.stdout).toMatch(/^✓ Backup database-\d{8}T\d{6}Z-[0-9a-f]{4} of database \(.+\): .+, encrypted, verified$/m);
    const [b] = await listed();
    expect(b).toMatchObject({ kind: "manual", verified: { how: expect.stringContaining("pg_restore") } });
    expect(b?.deployment).toMatch(/^dep_/);
    const file = readFileSync(join(backups(), `${b?.id}.pgdump.enc`));
    expect(file.length).toBe(b?.bytes);
    // encrypted at rest: not the custom format's "PGDMP" header, not a row's text
    expect(file.includes(Buffer.from("PGDMP"))).toBe(false);
    expect(file.includes(Buffer.from(marker))).toBe(false);
    const table = ok(await run("db", "backups")).stdout;
    expect(table).toMatch(/^BACKUP\s+SERVICE\s+MADE \(UTC\)\s+KIND\s+SIZE\s+DEPLOYMENT\s+VERIFIED$/m);
    expect(table).toContain(`${b?.id}  database`);
  }, 300_000);

  it("restore asks for confirmation: without --yes and without a terminal it changes nothing", async () => {
    await post(`${marker}-after-1`);
    const r = await run("db", "restore", "database");
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain("This replaces ALL data");
    expect(r.stderr).toContain("--yes");
    expect(await messages()).toContain(`${marker}-after-1`);
    expect((await listed()).length).toBe(1);
  }, 120_000);

  it("restore --yes brings back the newest backup: later rows gone, earlier there; the API keeps serving", async () => {
    // /api/events answers 503 when its query fails; /api/status would answer 200 with "database: error"
    const poll = startPoller(`${urls.api}${POLL_ROUTE}`, ca, 100);
    const r = ok(await run("db", "restore", "database", "--yes"));
    const stats = await poll.stop();
    expect(r.stdout).toMatch(/^Restore database of .+ from database-\S+ \(manual, /m);
    expect(r.stdout).toMatch(/This replaces ALL data of database "app" now in database \(\d+ tables, /);
    expect(r.stdout).toContain("safety backup: database-");
    expect(r.stdout).toMatch(/^✓ Restored database from database-\S+; api kept serving/m);
    expect(r.stdout).toMatch(/^ {2}undo: platform db restore database database-\S+ --yes$/m);
    expect(await messages()).toEqual([`${marker}-before-2`, `${marker}-before-1`]);
    console.log(
      `restore: ${r.seconds.toFixed(1)} s; /api/events polled ${stats.sent} times, ${stats.failed} failed`,
      stats.failures.slice(0, 3),
    );
    expect(stats.sent).toBeGreaterThan(0);
    expect(stats.failed).toBe(0);
    // nothing plain left in the database's container
    expect(execFileSync("docker", ["exec", containerOf("database"), "ls", "/tmp"], { encoding: "utf8" })).not.toContain("platform-restore");
  }, 300_000);

  it("the safety backup undoes the restore", async () => {
    const safety = (await listed()).find((b) => b.kind === "safety");
    expect(safety).toBeDefined();
    ok(await run("db", "restore", "database", safety?.id as string, "--yes"));
    expect(await messages()).toEqual([`${marker}-after-1`, `${marker}-before-2`, `${marker}-before-1`]);
    // writes go on after a restore
    await post(`${marker}-after-2`);
    expect((await messages())[0]).toBe(`${marker}-after-2`);
  }, 300_000);

  it("deploy --env pr1 --from preview: a new environment with preview's rows; its writes do not reach preview", async () => {
    const before = await messages();
    ok(await runCli(["secrets", "set", "COPIED_TOKEN", "--project", project], { cwd: dir, env: backend, input: copiedValue }));
    const r = ok(await run("deploy", "--yes", "--env", "pr1", "--from", "preview"));
    expect(r.stderr).toContain("→ secrets copied from preview (values not shown): COPIED_TOKEN");
    expect(ok(await run("secrets", "list", "--env", "pr1")).stdout).toContain("COPIED_TOKEN");
    expect(r.stdout).toMatch(/^✓ database: a copy of preview's data \(.+, backup database-\S+ of pr1\); preview was only read$/m);
    const pr1 = parseUrls(r.stdout);
    expect(pr1.api).toBeDefined();
    expect(pr1.api).not.toBe(urls.api);
    const previewApi = urls.api;
    urls.api = pr1.api as string;
    try {
      expect(await messages()).toEqual(before);
      await post(`${marker}-only-in-pr1`);
      expect((await messages())[0]).toBe(`${marker}-only-in-pr1`);
    } finally {
      urls.api = previewApi as string;
    }
    expect(await messages()).toEqual(before);
    // preview's backups were not touched; the copy is recorded with pr1's
    expect((await listed()).some((b) => b.kind === "copy")).toBe(false);
    const envs = ok(await run("envs")).stdout;
    expect(envs).toMatch(/^ENV\s+AGE\s+STATE\s+LAST DEPLOY\s+EXPIRES\s+URLS$/m);
    expect(envs).toMatch(/^pr1\s+\S+\s+running \(3\)\s+succeeded\s+-\s+https:/m);
    expect(envs).toMatch(/^preview\s+/m);
    // a second --from into an existing environment is refused, nothing deployed
    const again = await run("deploy", "--yes", "--env", "pr1", "--from", "preview");
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("exists already");
    ok(await run("envs", "delete", "pr1", "--yes"));
    expect(ok(await run("envs")).stdout).not.toMatch(/^pr1\s/m);
    expect(await messages()).toEqual(before);
  }, 900_000);

  it("deploy --env pr2 --from preview --expires 2h: listed with its time; once past, the next command removes it with its data", async () => {
    const before = await messages();
    // On the default environment --expires is refused before anything happens.
    const refused = await run("deploy", "--yes", "--expires", "2h");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("not preview, the default one");
    ok(await run("deploy", "--yes", "--env", "pr2", "--from", "preview", "--expires", "2h"));
    expect(ok(await run("envs")).stdout).toMatch(/^pr2\s+\S+\s+running \(3\)\s+succeeded\s+in 1h 59m\s+https:/m);
    expect(await listStack("volume", "pr2")).not.toBe("");
    // The clock moves on: the record now says it expired a minute ago.
    const file = join(homePaths.expiryDir(project), "pr2.json");
    const record = JSON.parse(readFileSync(file, "utf8")) as { expiresAt: string; configFile: string; duration: string };
    expect(record.duration).toBe("2h");
    expect(record.configFile.endsWith("platform.yml")).toBe(true);
    writeFileSync(file, JSON.stringify({ ...record, expiresAt: new Date(Date.now() - 60_000).toISOString() }));
    const status = ok(await run("status"));
    expect(status.stderr).toMatch(
      /^→ pr2 of \S+ expired \S+ \S+ UTC \(deploy --expires 2h\): removed with its data \(\d+ resources; data: \S+/m,
    );
    expect(existsSync(file)).toBe(false);
    expect(await listStack("container", "pr2")).toBe("");
    expect(await listStack("volume", "pr2")).toBe("");
    expect(existsSync(homePaths.backupsDir(project, "pr2"))).toBe(false);
    expect(ok(await run("envs")).stdout).not.toMatch(/^pr2\s/m);
    // preview was only read
    expect(await messages()).toEqual(before);
  }, 900_000);

  it("kill -9 of the CLI during a backup: nothing half-made is listed, and the next backup works", async () => {
    psqlInDatabase(FILLER_SQL);
    await expectKilledBackupLeavesNothing({
      backupsDir: backups(),
      args: ["database", "--project", project],
      cli: { cwd: dir, env: backend },
      listedIds: async () => (await listed()).map((b) => b.id),
      backupAgain: async () => ok(await run("db", "backup", "database")),
    });
  }, 600_000);

  it("kill -9 of the database container during a backup: the backup fails, nothing is listed, the next one works", async () => {
    const before = (await listed()).map((b) => b.id);
    const db = containerOf("database");
    const { started } = await underWay();
    execFileSync("docker", ["kill", "--signal", "KILL", db]);
    const r = await started.done;
    outputs.push(r);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/backup of database failed: .*nothing was recorded/);
    expect((await listed()).map((b) => b.id)).toEqual(before);
    expect(readdirSync(backups()).filter((f) => f.includes(".partial-"))).toEqual([]);
    // the database comes back (its restart policy, else a start), and so do backups
    for (let i = 0; i < 120; i++) {
      const state = spawnSync("docker", ["inspect", "-f", "{{.State.Running}}", db], { encoding: "utf8" }).stdout.trim();
      if (state !== "true" && i === 10) execFileSync("docker", ["start", db]);
      if (state === "true" && spawnSync("docker", ["exec", db, "pg_isready", "-h", "127.0.0.1"]).status === 0) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    ok(await run("db", "backup", "database"));
    expect((await listed()).length).toBe(before.length + 1);
    psqlInDatabase("DROP TABLE filler");
  }, 600_000);

  it("platform db scheduler makes the scheduled backups of platform.yml (backup.schedule, UTC)", async () => {
    const before = (await listed()).length;
    const scheduler = startCli(["db", "scheduler"], { cwd: dir, env: backend });
    try {
      await scheduler.waitFor(new RegExp(`scheduled ${project}/preview/database \\* \\* \\* \\* \\* keep=50; next `));
      await scheduler.waitFor(new RegExp(`${project} \\(preview\\) database: backup database-\\S+, \\d+ bytes, verified`));
    } finally {
      scheduler.child.kill("SIGTERM");
      const r = await scheduler.done;
      outputs.push(r);
      expect(r.stdout).toContain("backup scheduler stopped");
    }
    const after = await listed();
    expect(after.length).toBeGreaterThan(before);
    expect(after[0]?.kind).toBe("scheduled");
    const table = ok(await run("db", "backups")).stdout;
    expect(table).toMatch(
      /^schedule of database: \* \* \* \* \* \(UTC\), keep 50; next \d{4}-\d\d-\d\d \d\d:\d\d:00Z, made while platform db scheduler runs$/m,
    );
  }, 300_000);

  it("keep: after a backup the oldest beyond keep go; safety backups are kept apart", async () => {
    setKeep(2);
    const r = ok(await run("db", "backup", "database"));
    expect(r.stdout).toMatch(/^ {2}removed by retention \(keep: 2\): database-/m);
    const after = await listed();
    expect(after.filter((b) => b.kind !== "safety").length).toBe(2);
    expect(after.filter((b) => b.kind === "safety").length).toBe(2);
  }, 300_000);

  it("no password or passphrase in any output, record or backup file", async () => {
    const url = new URL(execFileSync("docker", ["exec", containerOf("api"), "printenv", "DATABASE_URL"], { encoding: "utf8" }).trim());
    const password = decodeURIComponent(url.password);
    expect(password.length).toBeGreaterThan(8);
    const secrets = [password, backend.PLATFORM_PASSPHRASE as string, copiedValue];
    expectSecretsNowhere(secrets, outputs, backups());
    expectSecretsNowhere(secrets, [], homePaths.backupsDir(project, "preview"));
    for (const f of readdirSync(backups())) for (const s of secrets) expect(f).not.toContain(s);
    for (const f of regularFilesUnder(homePaths.logDir(project, "preview"))) expect(readFileSync(f, "utf8")).not.toContain(password);
  }, 120_000);
});
