import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../../src/home/layout.js";
import { expectKilledBackupLeavesNothing, FILLER_SQL } from "./backup-under-way.js";
import { type CliResult, ok, parseUrls, runCli, startCli, startPoller } from "./cli.js";
import { forgetProject, freshBackend, requireToolchain, unique } from "./env.js";
import { eventsApi, POLL_ROUTE } from "./events.js";
import { expectSecretsNowhere } from "./leaks.js";

/**
 * Issue #26, backups and restore of examples/fullstack on one target (backups.test.ts: Docker;
 * kubernetes-backups.test.ts: the test cluster), one body for both: rows written through the
 * API's /api/events; a backup (pg_dump where the database runs, encrypted and verified here);
 * more rows; a restore (the later rows gone, the earlier there, the API serving throughout); the
 * safety backup undoing it; `deploy --env pr1 --from preview` (preview's rows, pr1's writes stay
 * in pr1); kill -9 of the CLI during a backup (nothing half-made listed, the next backup works);
 * `platform db scheduler` making the schedule's backup; no secret in any output or backup file.
 * What only one target has comes from its case, at the place its tests always had: the tests
 * share one stack and count on what the ones before left (the restore's safety backup, the
 * number of backups made).
 */

/** A backup as `db backups --json` lists it. */
export interface Listed {
  id: string;
  kind: string;
  format?: string;
  bytes: number;
  deployment?: string;
  stored?: string;
  verified?: { how: string; restored?: { tables: number; rows: number } };
}

export interface BackupsContext {
  readonly project: string;
  readonly dir: string;
  readonly backend: Record<string, string>;
  /** The start of every row the tests write: messages() lists only those. */
  readonly marker: string;
  /** Every output of `run`: the last test looks for secrets in them. */
  readonly outputs: CliResult[];
  /** The public URLs of the preview environment (a new deploy changes them) and the edge's CA. */
  urls: Record<string, string>;
  ca: string;
  /** The CLI with --project, its output kept in `outputs`; `env` in place of the backend (one with an S3 bucket). */
  run(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** `deploy --yes` to this target, with `more` flags. */
  deploy(...more: string[]): Promise<CliResult>;
  /** The folder of preview's database backups. */
  backups(): string;
  /** The dumps (what `db restore` restores): the base backups made with them are the pitr tests'. */
  listed(env?: Record<string, string>): Promise<Listed[]>;
  post(message: string, api?: string): Promise<void>;
  messages(api?: string): Promise<string[]>;
  /** A command in preview's database (its container, its pod), its output. */
  inDatabase(...cmd: string[]): string;
  psql(sql: string): string;
  /** Writes the row that the restore of the first backup takes away: once, by whichever test comes first. */
  writeLaterRow(): Promise<void>;
}

/** The shared tests after which a case's own tests come. */
type Slot = "deploy" | "backup" | "restores" | "kill" | "scheduler";

export interface BackupsCase {
  /** The describe's title. */
  readonly title: string;
  readonly prefix: string;
  readonly deployFlags: readonly string[];
  /** The app in ctx.dir with a platform.yml whose database is backed up every minute, keep 50 (the scheduler test waits for one). */
  setUp(ctx: BackupsContext): Promise<void>;
  tearDown?(): Promise<void>;
  /** The first deploy's URLs, with the checks of its output only this target has. */
  urlsOf(project: string, stdout: string): Record<string, string>;
  inDatabase(project: string, ...cmd: string[]): string;
  /** DATABASE_URL as the API has it: the password that must show nowhere. */
  apiDatabaseUrl(project: string): string;
  /** Checks of the first backup only this target has. */
  afterFirstBackup?(ctx: BackupsContext, r: CliResult, b: Listed): Promise<void>;
  /** Called before the restore; what it returns checks the restore's result (what the restore kept). */
  aroundRestore?(ctx: BackupsContext): (r: CliResult) => void;
  /** After kill -9 of the CLI during a backup, before the next backup. */
  afterCliKilled?(ctx: BackupsContext): Promise<void>;
  /** `db scheduler --project` (no other project's schedule runs), or the scheduler of every project. */
  readonly schedulerProjectOnly: boolean;
  /** `deploy --env pr1 --from preview`: after which shared test, and what only this target does around it. */
  readonly copy: {
    readonly after: "restores" | "scheduler";
    before?(ctx: BackupsContext): Promise<void>;
    deployed?(ctx: BackupsContext, r: CliResult): Promise<void>;
    /** Removes pr1 (with the checks that go with it). */
    remove(ctx: BackupsContext): Promise<void>;
  };
  /** The secrets only this target has, besides the database's password and the passphrase. */
  extraSecrets(): string[];
  /** Where else this target looks for the secrets. */
  secretsElsewhere?(ctx: BackupsContext, secrets: string[], password: string): Promise<void>;
  /** Tests only this target has, each group right after the shared test it is named for (after the copy to pr1 when that comes there). */
  readonly tests?: Partial<Record<Slot, (ctx: BackupsContext) => void>>;
}

export function describeBackups(c: BackupsCase): void {
  const project = unique(c.prefix);
  const backend = freshBackend();
  const dir = join(mkdtempSync(join(tmpdir(), `platform-${c.prefix}-`)), "app");
  const marker = unique("m");
  const outputs: CliResult[] = [];
  const run = async (args: string[], env = backend) => {
    const r = await runCli([...args, "--project", project], { cwd: dir, env });
    outputs.push(r);
    return r;
  };
  const backups = () => homePaths.backupsDir(project, "preview", "database");
  let laterRow: Promise<void> | undefined;
  const ctx: BackupsContext = {
    project,
    dir,
    backend,
    marker,
    outputs,
    urls: {},
    ca: "",
    run,
    deploy: (...more) => run(["deploy", "--yes", ...c.deployFlags, ...more]),
    backups,
    async listed(env = backend) {
      const all = (JSON.parse(ok(await run(["db", "backups", "database", "--json"], env)).stdout) as { backups: Listed[] }).backups;
      return all.filter((b) => b.format !== "basebackup");
    },
    ...eventsApi(() => ({ api: ctx.urls.api as string, ca: ctx.ca }), marker),
    inDatabase: (...cmd) => c.inDatabase(project, ...cmd),
    psql: (sql) => c.inDatabase(project, "psql", "-X", "-tA", "-U", "app", "-d", "app", "-c", sql).trim(),
    writeLaterRow: () => {
      laterRow ??= ctx.post(`${marker}-after-1`);
      return laterRow;
    },
  };
  const targetTests = (slot: Slot) => c.tests?.[slot]?.(ctx);

  const copyTest = () =>
    it("deploy --env pr1 --from preview: a new environment with preview's rows; its writes do not reach preview", async () => {
      const before = await ctx.messages();
      await c.copy.before?.(ctx);
      const r = ok(await ctx.deploy("--env", "pr1", "--from", "preview"));
      expect(r.stdout).toMatch(/^✓ database: a copy of preview's data \(.+, backup database-\S+ of pr1\); preview was only read$/m);
      const pr1 = parseUrls(r.stdout).api as string;
      expect(pr1).toMatch(/^https:\/\//);
      expect(pr1).not.toBe(ctx.urls.api);
      await c.copy.deployed?.(ctx, r);
      expect(await ctx.messages(pr1)).toEqual(before);
      await ctx.post(`${marker}-only-in-pr1`, pr1);
      expect((await ctx.messages(pr1))[0]).toBe(`${marker}-only-in-pr1`);
      expect(await ctx.messages()).toEqual(before);
      // preview's backups were not touched; the copy is recorded with pr1's
      expect((await ctx.listed()).some((b) => b.kind === "copy")).toBe(false);
      await c.copy.remove(ctx);
      expect(await ctx.messages()).toEqual(before);
    }, 900_000);

  describe(c.title, () => {
    beforeAll(async () => {
      requireToolchain();
      await c.setUp(ctx);
    }, 45 * 60_000);

    afterAll(async () => {
      for (const env of [["--env", "pr1"], []])
        await runCli(["destroy", "--yes", "--delete-data", "--project", project, ...env], { cwd: dir, env: backend });
      await c.tearDown?.();
      rmSync(dirname(dir), { recursive: true, force: true });
      rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
      forgetProject(project);
    }, 600_000);

    it("deploys the fullstack example and writes rows through the API", async () => {
      const r = ok(await ctx.deploy());
      ctx.urls = c.urlsOf(project, r.stdout);
      expect(ctx.urls.api).toMatch(/^https:\/\//);
      ctx.ca = ok(await runCli(["ca"], { cwd: dir, env: backend })).stdout;
      await ctx.post(`${marker}-before-1`);
      await ctx.post(`${marker}-before-2`);
      expect(await ctx.messages()).toEqual([`${marker}-before-2`, `${marker}-before-1`]);
    }, 900_000);

    targetTests("deploy");

    it("db backup makes an encrypted, verified backup: pg_dump where the database runs, encrypted here", async () => {
      const r = ok(await run(["db", "backup", "database"]));
      expect(r.stdout).toMatch(
        /^✓ Backup database-\d{8}T\d{6}Z-[0-9a-f]{4} of database \(.+, preview\): .+, encrypted, verified: restored, \d+ tables?, \d+ rows?$/m,
      );
      const [b, ...rest] = await ctx.listed();
      expect(rest).toEqual([]);
      expect(b).toMatchObject({
        kind: "manual",
        verified: { how: expect.stringContaining("restored by pg_restore into a scratch PostgreSQL") },
      });
      // a real restore held every table: the example's events (2 rows so far) and alembic's version (1)
      expect(b?.verified?.restored?.tables).toBeGreaterThanOrEqual(2);
      expect(b?.verified?.restored?.rows).toBeGreaterThanOrEqual(3);
      const file = readFileSync(join(backups(), `${b?.id}.pgdump.enc`));
      expect(file.length).toBe(b?.bytes);
      expect(file.length).toBeGreaterThan(1000);
      // encrypted at rest: not the custom format's "PGDMP" header, not a row's text
      expect(file.includes(Buffer.from("PGDMP"))).toBe(false);
      expect(file.includes(Buffer.from(marker))).toBe(false);
      await c.afterFirstBackup?.(ctx, r, b as Listed);
    }, 300_000);

    targetTests("backup");

    it("restore --yes brings back the newest backup: later rows gone, earlier there; the API keeps serving", async () => {
      await ctx.writeLaterRow();
      const kept = c.aroundRestore?.(ctx);
      // /api/events answers 503 when its query fails; /api/status would answer 200 with "database: error"
      const poll = startPoller(`${ctx.urls.api}${POLL_ROUTE}`, ctx.ca, 100);
      const r = ok(await run(["db", "restore", "database", "--yes"]));
      const stats = await poll.stop();
      expect(r.stdout).toMatch(/^Restore database of .+ from database-\S+ \(manual, /m);
      expect(r.stdout).toMatch(/This replaces ALL data of database "app" now in database \(\d+ tables, /);
      expect(r.stdout).toContain("safety backup: database-");
      expect(r.stdout).toMatch(/^✓ Restored database from database-\S+; api kept serving/m);
      expect(r.stdout).toMatch(/^ {2}undo: platform db restore database database-\S+ --yes$/m);
      expect(await ctx.messages()).toEqual([`${marker}-before-2`, `${marker}-before-1`]);
      kept?.(r);
      console.log(
        `restore (${c.title}): ${r.seconds.toFixed(1)} s; /api/events polled ${stats.sent} times, ${stats.failed} failed`,
        stats.failures.slice(0, 5),
      );
      expect(stats.sent).toBeGreaterThan(0);
      expect(stats.failed).toBe(0);
      // nothing plain left where the database runs
      expect(ctx.inDatabase("ls", "/tmp")).not.toContain("platform-restore");
    }, 300_000);

    it("the safety backup undoes the restore; writes go on", async () => {
      const safety = (await ctx.listed()).find((b) => b.kind === "safety");
      expect(safety).toBeDefined();
      ok(await run(["db", "restore", "database", safety?.id as string, "--yes"]));
      expect(await ctx.messages()).toEqual([`${marker}-after-1`, `${marker}-before-2`, `${marker}-before-1`]);
      await ctx.post(`${marker}-after-2`);
      expect((await ctx.messages())[0]).toBe(`${marker}-after-2`);
    }, 300_000);

    if (c.copy.after === "restores") copyTest();
    targetTests("restores");

    it("kill -9 of the CLI during a backup: nothing half-made is listed, and the next backup works", async () => {
      ctx.psql(FILLER_SQL);
      await expectKilledBackupLeavesNothing({
        backupsDir: backups(),
        args: ["database", "--project", project],
        cli: { cwd: dir, env: backend },
        listedIds: async () => (await ctx.listed()).map((b) => b.id),
        backupAgain: async () => ok(await run(["db", "backup", "database"])),
        between: async () => c.afterCliKilled?.(ctx),
      });
    }, 600_000);

    targetTests("kill");

    const projectOnly = c.schedulerProjectOnly ? ["--project", project] : [];
    it(`platform db scheduler${c.schedulerProjectOnly ? " --project" : ""} makes the scheduled backup of platform.yml (backup.schedule, UTC)`, async () => {
      const before = (await ctx.listed()).length;
      const scheduler = startCli(["db", "scheduler", ...projectOnly], { cwd: dir, env: backend });
      try {
        await scheduler.waitFor(new RegExp(`scheduled ${project}/preview/database \\* \\* \\* \\* \\* keep=50; next `));
        await scheduler.waitFor(new RegExp(`${project} \\(preview\\) database: backup database-\\S+, \\d+ bytes, verified`));
      } finally {
        scheduler.child.kill("SIGTERM");
        const r = await scheduler.done;
        outputs.push(r);
        expect(r.stdout).toContain("backup scheduler stopped");
        // --project: no other project's schedule (other tests' projects live in the same platform home)
        if (projectOnly.length)
          expect(r.stdout.match(/ scheduled \S+/g)?.every((m) => m === ` scheduled ${project}/preview/database`)).toBe(true);
      }
      const after = await ctx.listed();
      expect(after.length).toBe(before + 1);
      expect(after[0]?.kind).toBe("scheduled");
      const table = ok(await run(["db", "backups"])).stdout;
      expect(table).toMatch(
        /^schedule of database: \* \* \* \* \* \(UTC\), keep 50; next \d{4}-\d\d-\d\d \d\d:\d\d:00Z, made while platform db scheduler runs$/m,
      );
    }, 300_000);

    if (c.copy.after === "scheduler") copyTest();
    targetTests("scheduler");

    it("no password, passphrase or other secret in any output, record, backup file or object name", async () => {
      const password = decodeURIComponent(new URL(c.apiDatabaseUrl(project).trim()).password);
      expect(password.length).toBeGreaterThan(8);
      const secrets = [password, backend.PLATFORM_PASSPHRASE as string, ...c.extraSecrets()];
      expectSecretsNowhere(secrets, outputs, backups());
      await c.secretsElsewhere?.(ctx, secrets, password);
    }, 120_000);
  });
}
