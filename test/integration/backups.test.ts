import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { backupUnderWay } from "./helpers/backup-under-way.js";
import { describeBackups } from "./helpers/backups-twin.js";
import { ok, runCli } from "./helpers/cli.js";
import { copyExample, serviceContainers } from "./helpers/env.js";
import { expectFullstackDeployed } from "./helpers/fullstack-order.js";
import { expectSecretsNowhere, regularFilesUnder } from "./helpers/leaks.js";

/**
 * Issue #26, backups and restore of examples/fullstack on the real Docker engine (the body:
 * helpers/backups-twin.ts). Here too: `db backups` before any backup, a restore without --yes
 * refused, a secret copied into pr1 with the data, an environment that expires with `--expires`,
 * kill -9 of the database container during a backup (nothing half-made listed, the next backup
 * works), backup.keep's retention, and no password in the stack's logs either.
 */
const copiedValue = `copied-${Math.random().toString(36).slice(2)}`;
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" });

/** The names of a stack's containers (all, running or not) or volumes, by the platform's labels. */
function listStack(project: string, kind: "container" | "volume", env: string): string {
  const filters = ["--filter", `label=platform.project=${project}`, "--filter", `label=platform.env=${env}`];
  return (
    kind === "container" ? docker("ps", "-a", ...filters, "--format", "{{.Names}}") : docker("volume", "ls", "-q", ...filters)
  ).trim();
}

/** Sets backup: {schedule: "* * * * *", keep} on the database in the copied platform.yml. */
function setKeep(dir: string, keep: number): void {
  const file = join(dir, "platform.yml");
  const text = readFileSync(file, "utf8").replace(/\n {4}backup: .*\n/, "\n");
  writeFileSync(file, text.replace("    type: postgres\n", `    type: postgres\n    backup: {schedule: "* * * * *", keep: ${keep}}\n`));
}

describeBackups({
  title: "backups and restore (Docker)",
  prefix: "bk",
  deployFlags: [],
  async setUp(ctx) {
    copyExample("fullstack", ctx.dir);
    // every minute: the scheduler test waits for one
    setKeep(ctx.dir, 50);
  },
  urlsOf: (project, stdout) => expectFullstackDeployed(stdout, project),
  inDatabase: (project, ...cmd) => docker("exec", serviceContainers(project, "database"), ...cmd),
  apiDatabaseUrl: (project) => docker("exec", serviceContainers(project, "api"), "printenv", "DATABASE_URL"),

  // Recorded with the current deployment, and listed.
  async afterFirstBackup(ctx, _r, b) {
    expect(b.deployment).toMatch(/^dep_/);
    const table = ok(await ctx.run(["db", "backups"])).stdout;
    expect(table).toMatch(/^BACKUP\s+SERVICE\s+MADE \(UTC\)\s+KIND\s+SIZE\s+DEPLOYMENT\s+VERIFIED$/m);
    expect(table).toContain(`${b.id}  database`);
  },

  schedulerProjectOnly: false,

  // pr1 gets preview's secrets too; it is removed with `envs delete`, a second --from refused first.
  copy: {
    after: "restores",
    async before(ctx) {
      ok(
        await runCli(["secrets", "set", "COPIED_TOKEN", "--project", ctx.project], { cwd: ctx.dir, env: ctx.backend, input: copiedValue }),
      );
    },
    async deployed(ctx, r) {
      expect(r.stderr).toContain("→ secrets copied from preview (values not shown): COPIED_TOKEN");
      expect(ok(await ctx.run(["secrets", "list", "--env", "pr1"])).stdout).toContain("COPIED_TOKEN");
    },
    async remove(ctx) {
      const envs = ok(await ctx.run(["envs"])).stdout;
      expect(envs).toMatch(/^ENV\s+AGE\s+STATE\s+LAST DEPLOY\s+EXPIRES\s+URLS$/m);
      expect(envs).toMatch(/^pr1\s+\S+\s+running \(3\)\s+succeeded\s+-\s+https:/m);
      expect(envs).toMatch(/^preview\s+/m);
      // a second --from into an existing environment is refused, nothing deployed
      const again = await ctx.deploy("--env", "pr1", "--from", "preview");
      expect(again.code).toBe(2);
      expect(again.stderr).toContain("exists already");
      ok(await ctx.run(["envs", "delete", "pr1", "--yes"]));
      expect(ok(await ctx.run(["envs"])).stdout).not.toMatch(/^pr1\s/m);
    },
  },

  extraSecrets: () => [copiedValue],
  async secretsElsewhere(ctx, secrets, password) {
    expectSecretsNowhere(secrets, [], homePaths.backupsDir(ctx.project, "preview"));
    for (const f of readdirSync(ctx.backups())) for (const s of secrets) expect(f).not.toContain(s);
    for (const f of regularFilesUnder(homePaths.logDir(ctx.project, "preview"))) expect(readFileSync(f, "utf8")).not.toContain(password);
  },

  tests: {
    deploy(ctx) {
      it("db backups before any backup says how to make one", async () => {
        const r = ok(await ctx.run(["db", "backups"]));
        expect(r.stdout).toContain("No backups");
        expect(r.stdout).toContain("platform db backup");
      });
    },

    backup(ctx) {
      it("restore asks for confirmation: without --yes and without a terminal it changes nothing", async () => {
        await ctx.writeLaterRow();
        const r = await ctx.run(["db", "restore", "database"]);
        expect(r.code).not.toBe(0);
        expect(r.stdout).toContain("This replaces ALL data");
        expect(r.stderr).toContain("--yes");
        expect(await ctx.messages()).toContain(`${ctx.marker}-after-1`);
        expect((await ctx.listed()).length).toBe(1);
      }, 120_000);
    },

    restores(ctx) {
      it("deploy --env pr2 --from preview --expires 2h: listed with its time; once past, the next command removes it with its data", async () => {
        const before = await ctx.messages();
        // On the default environment --expires is refused before anything happens.
        const refused = await ctx.deploy("--expires", "2h");
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain("not preview, the default one");
        ok(await ctx.deploy("--env", "pr2", "--from", "preview", "--expires", "2h"));
        expect(ok(await ctx.run(["envs"])).stdout).toMatch(/^pr2\s+\S+\s+running \(3\)\s+succeeded\s+in 1h 59m\s+https:/m);
        expect(listStack(ctx.project, "volume", "pr2")).not.toBe("");
        // The clock moves on: the record now says it expired a minute ago.
        const file = join(homePaths.expiryDir(ctx.project), "pr2.json");
        const record = JSON.parse(readFileSync(file, "utf8")) as { expiresAt: string; configFile: string; duration: string };
        expect(record.duration).toBe("2h");
        expect(record.configFile.endsWith("platform.yml")).toBe(true);
        writeFileSync(file, JSON.stringify({ ...record, expiresAt: new Date(Date.now() - 60_000).toISOString() }));
        const status = ok(await ctx.run(["status"]));
        expect(status.stderr).toMatch(
          /^→ pr2 of \S+ expired \S+ \S+ UTC \(deploy --expires 2h\): removed with its data \(\d+ resources; data: \S+/m,
        );
        expect(existsSync(file)).toBe(false);
        expect(listStack(ctx.project, "container", "pr2")).toBe("");
        expect(listStack(ctx.project, "volume", "pr2")).toBe("");
        expect(existsSync(homePaths.backupsDir(ctx.project, "pr2"))).toBe(false);
        expect(ok(await ctx.run(["envs"])).stdout).not.toMatch(/^pr2\s/m);
        // preview was only read
        expect(await ctx.messages()).toEqual(before);
      }, 900_000);
    },

    // The filler table the kill -9 test before made keeps this dump under way long enough too.
    kill(ctx) {
      it("kill -9 of the database container during a backup: the backup fails, nothing is listed, the next one works", async () => {
        const before = (await ctx.listed()).map((b) => b.id);
        const db = serviceContainers(ctx.project, "database");
        const { started } = await backupUnderWay(ctx.backups(), ["database", "--project", ctx.project], { cwd: ctx.dir, env: ctx.backend });
        docker("kill", "--signal", "KILL", db);
        const r = await started.done;
        ctx.outputs.push(r);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toMatch(/backup of database failed: .*nothing was recorded/);
        expect((await ctx.listed()).map((b) => b.id)).toEqual(before);
        expect(readdirSync(ctx.backups()).filter((f) => f.includes(".partial-"))).toEqual([]);
        // the database comes back (its restart policy, else a start), and so do backups
        for (let i = 0; i < 120; i++) {
          const state = spawnSync("docker", ["inspect", "-f", "{{.State.Running}}", db], { encoding: "utf8" }).stdout.trim();
          if (state !== "true" && i === 10) docker("start", db);
          if (state === "true" && spawnSync("docker", ["exec", db, "pg_isready", "-h", "127.0.0.1"]).status === 0) break;
          await new Promise((r) => setTimeout(r, 1000));
        }
        ok(await ctx.run(["db", "backup", "database"]));
        expect((await ctx.listed()).length).toBe(before.length + 1);
        ctx.psql("DROP TABLE filler");
      }, 600_000);
    },

    scheduler(ctx) {
      it("keep: after a backup the oldest beyond keep go; safety backups are kept apart", async () => {
        setKeep(ctx.dir, 2);
        const r = ok(await ctx.run(["db", "backup", "database"]));
        expect(r.stdout).toMatch(/^ {2}removed by retention \(keep: 2\): database-/m);
        const after = await ctx.listed();
        expect(after.filter((b) => b.kind !== "safety").length).toBe(2);
        expect(after.filter((b) => b.kind === "safety").length).toBe(2);
      }, 300_000);
    },
  },
});
