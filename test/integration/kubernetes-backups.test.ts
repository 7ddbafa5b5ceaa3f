import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { type S3Location, s3List } from "../../src/runtime/s3.js";
import { expectKilledBackupLeavesNothing, FILLER_SQL } from "./helpers/backup-under-way.js";
import { type CliResult, ok, parseUrls, runCli, startCli, startPoller } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, requireToolchain, ROOT, unique } from "./helpers/env.js";
import { clusterUp, kubectl, podsOf } from "./helpers/kubernetes.js";
import { eventsApi, POLL_ROUTE } from "./helpers/events.js";
import { expectSecretsNowhere } from "./helpers/leaks.js";
import { startVersitygw } from "./helpers/versitygw.js";

/**
 * Issue #26 on the Kubernetes test cluster (`--target kubernetes`): the fullstack example's API
 * and database (its web app left out: not needed here, and the slowest to build). Rows written
 * through the API; a backup (pg_dump in the database's pod through kubectl exec, encrypted here);
 * more rows; a restore (the later rows gone, the earlier there, the API serving throughout, its
 * pods not restarted); the safety backup undoing it; --to-time before the window refused with the
 * window (point-in-time recovery itself: kubernetes-pitr.test.ts);
 * kill -9 of the CLI during a backup (nothing half-made listed, nothing left running in the pod);
 * `platform db scheduler` making the schedule's backup from this machine;
 * `deploy --env pr1 --from preview` (preview's rows, pr1's writes stay in pr1); a backup to an
 * S3 bucket (versitygw on 127.0.0.1), `destroy --delete-data`, a new deploy and a restore from
 * the bucket; no password, passphrase or S3 key in any output or backup file.
 */
const project = unique("k8s-bk");
const ns = (env: string) => `${project}-${env}`;
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-k8s-backups-")), "app");
const marker = unique("m");
const outputs: CliResult[] = [];
let s3: Awaited<ReturnType<typeof startVersitygw>> | undefined;
let withS3: Record<string, string> = {};
let urls: Record<string, string> = {};
let ca = "";

const run = async (args: string[], env: Record<string, string> = backend) => {
  const r = await runCli([...args, "--project", project], { cwd: dir, env });
  outputs.push(r);
  return r;
};
const deploy = (...more: string[]) => run(["deploy", "--yes", "--target", "kubernetes", ...more]);
const backups = () => homePaths.backupsDir(project, "preview", "database");

/** The fullstack example without its web app; the api public, as in the example; a backup every minute (the scheduler test). */
function writeConfig(): void {
  const text = readFileSync(join(ROOT, "examples", "fullstack", "platform.yml"), "utf8");
  const cors = "      CORS_ORIGINS: ${web.external_url}\n";
  const postgres = "    type: postgres\n";
  for (const part of [cors, postgres, "\n  web:\n"]) expect(text).toContain(part);
  const config = text
    .slice(0, text.indexOf("\n  web:\n"))
    .replace(cors, "")
    .replace(postgres, `${postgres}    backup: {schedule: "* * * * *", keep: 50}\n`);
  writeFileSync(join(dir, "platform.yml"), `${config}\n`);
}

const { post, messages } = eventsApi(() => ({ api: urls.api as string, ca }), marker);

interface Listed {
  id: string;
  kind: string;
  format?: string;
  bytes: number;
  stored?: string;
}
/** The dumps (what `db restore` restores); the base backups that come with them are kubernetes-pitr.test.ts's. */
async function listed(env: Record<string, string> = backend): Promise<Listed[]> {
  const all = (JSON.parse(ok(await run(["db", "backups", "database", "--json"], env)).stdout) as { backups: Listed[] }).backups;
  return all.filter((b) => b.format !== "basebackup");
}

const inDatabase = (...cmd: string[]) => kubectl("-n", ns("preview"), "exec", "database-0", "-c", "database", "--", ...cmd);
const psql = (sql: string) => inDatabase("psql", "-X", "-tA", "-U", "app", "-d", "app", "-c", sql).trim();

/** The processes of the database's pod whose command line names `program` (the image has no ps). */
const processesOf = (program: string) =>
  inDatabase("sh", "-c", 'for p in /proc/[0-9]*; do tr "\\0" " " < "$p/cmdline" 2>/dev/null; echo; done')
    .split("\n")
    .filter((l) => l.startsWith(program));

describe("backups and restore on the Kubernetes test cluster", () => {
  beforeAll(async () => {
    requireToolchain();
    await clusterUp();
    copyExample("fullstack", dir, /\/web\b/);
    writeConfig();
    s3 = await startVersitygw();
    withS3 = { ...backend, ...s3.env };
  }, 45 * 60_000);

  afterAll(async () => {
    await runCli(["destroy", "--yes", "--delete-data", "--project", project, "--env", "pr1"], { cwd: dir, env: backend });
    await runCli(["destroy", "--yes", "--delete-data", "--project", project], { cwd: dir, env: backend });
    await s3?.stop();
    rmSync(dirname(dir), { recursive: true, force: true });
    rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys the API and its database to the cluster and writes rows through the API", async () => {
    const r = ok(await deploy());
    urls = parseUrls(r.stdout);
    expect(urls.api).toMatch(/^https:\/\//);
    ca = ok(await runCli(["ca"], { cwd: dir, env: backend })).stdout;
    await post(`${marker}-before-1`);
    await post(`${marker}-before-2`);
    expect(await messages()).toEqual([`${marker}-before-2`, `${marker}-before-1`]);
  }, 900_000);

  it("db backup: pg_dump in the database's pod, encrypted and verified here; and a base backup (the WAL is archived)", async () => {
    const r = ok(await run(["db", "backup", "database"]));
    expect(r.stdout).toMatch(/^✓ Backup database-\d{8}T\d{6}Z-[0-9a-f]{4} of database \(.+, preview\): .+, encrypted, verified$/m);
    expect(r.stdout).toMatch(/^ {2}base backup database-\S+: .+, encrypted, verified; with the WAL archive/m);
    const [b, ...rest] = await listed();
    expect(rest).toEqual([]);
    expect(b).toMatchObject({ kind: "manual", verified: { how: expect.stringContaining("pg_restore") } });
    const file = readFileSync(join(backups(), `${b?.id}.pgdump.enc`));
    expect(file.length).toBe(b?.bytes);
    expect(file.length).toBeGreaterThan(1000);
    expect(file.includes(Buffer.from("PGDMP"))).toBe(false);
    expect(file.includes(Buffer.from(marker))).toBe(false);
  }, 300_000);

  it("restore --yes: the rows written after the backup are gone, those before are there; the API keeps serving, its pods not restarted", async () => {
    await post(`${marker}-after-1`);
    const api = podsOf(ns("preview"), "api");
    // /api/events answers 503 when its query fails (/api/status would answer 200 with "database: error")
    const poll = startPoller(`${urls.api}${POLL_ROUTE}`, ca, 100);
    const r = ok(await run(["db", "restore", "database", "--yes"]));
    const stats = await poll.stop();
    expect(r.stdout).toMatch(/This replaces ALL data of database "app" now in database \(\d+ tables, /);
    expect(r.stdout).toContain("safety backup: database-");
    expect(r.stdout).toMatch(/^✓ Restored database from database-\S+; api kept serving \(their pods were not restarted\): /m);
    expect(await messages()).toEqual([`${marker}-before-2`, `${marker}-before-1`]);
    expect(podsOf(ns("preview"), "api")).toEqual(api);
    console.log(
      `restore on Kubernetes: ${r.seconds.toFixed(1)} s; /api/events polled ${stats.sent} times, ${stats.failed} failed`,
      stats.failures.slice(0, 5),
    );
    expect(stats.sent).toBeGreaterThan(0);
    expect(stats.failed).toBe(0);
    // nothing plain left in the pod
    expect(inDatabase("ls", "/tmp")).not.toContain("platform-restore");
  }, 300_000);

  it("the safety backup undoes the restore; writes go on", async () => {
    const safety = (await listed()).find((b) => b.kind === "safety");
    expect(safety).toBeDefined();
    ok(await run(["db", "restore", "database", safety?.id as string, "--yes"]));
    expect(await messages()).toEqual([`${marker}-after-1`, `${marker}-before-2`, `${marker}-before-1`]);
    await post(`${marker}-after-2`);
    expect((await messages())[0]).toBe(`${marker}-after-2`);
  }, 300_000);

  it("--to-time before the window is refused with the window; nothing changes", async () => {
    const before = await messages();
    const r = await run(["db", "restore", "database", "--to-time", "2000-01-01 00:00:00", "--yes"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--to-time 2000-01-01 00:00:00Z is outside the recoverable window of database: \d{4}-.+Z to now \(/);
    expect(await messages()).toEqual(before);
  }, 120_000);

  it("kill -9 of the CLI during a backup: nothing half-made is listed, nothing keeps running in the pod, the next backup works", async () => {
    psql(FILLER_SQL);
    await expectKilledBackupLeavesNothing({
      backupsDir: backups(),
      args: ["database", "--project", project],
      cli: { cwd: dir, env: backend },
      listedIds: async () => (await listed()).map((b) => b.id),
      backupAgain: async () => ok(await run(["db", "backup", "database"])),
      // kubectl exec, orphaned, loses its input: the watch in the pod stops pg_dump
      between: async () => {
        let left: string[] = [];
        for (let i = 0; i < 60; i++) {
          left = processesOf("pg_dump");
          if (!left.length) break;
          await new Promise((r) => setTimeout(r, 500));
        }
        expect(left).toEqual([]);
        psql("DROP TABLE filler");
      },
    });
  }, 600_000);

  it("platform db scheduler --project: the schedule of platform.yml backs up the database's pod too, the key staying here", async () => {
    const before = (await listed()).length;
    const scheduler = startCli(["db", "scheduler", "--project", project], { cwd: dir, env: backend });
    try {
      await scheduler.waitFor(new RegExp(`scheduled ${project}/preview/database \\* \\* \\* \\* \\* keep=50; next `));
      await scheduler.waitFor(new RegExp(`${project} \\(preview\\) database: backup database-\\S+, \\d+ bytes, verified`));
    } finally {
      scheduler.child.kill("SIGTERM");
      const r = await scheduler.done;
      outputs.push(r);
      expect(r.stdout).toContain("backup scheduler stopped");
      // --project: no other project's schedule (other tests' projects live in the same platform home)
      expect(r.stdout.match(/ scheduled \S+/g)?.every((m) => m === ` scheduled ${project}/preview/database`)).toBe(true);
    }
    const after = await listed();
    expect(after.length).toBe(before + 1);
    expect(after[0]?.kind).toBe("scheduled");
  }, 300_000);

  it("deploy --env pr1 --from preview --target kubernetes: preview's rows; pr1's writes do not reach preview", async () => {
    const before = await messages();
    const r = ok(await deploy("--env", "pr1", "--from", "preview"));
    expect(r.stdout).toMatch(/^✓ database: a copy of preview's data \(.+, backup database-\S+ of pr1\); preview was only read$/m);
    const pr1 = parseUrls(r.stdout).api as string;
    expect(pr1).toMatch(/^https:\/\//);
    expect(pr1).not.toBe(urls.api);
    expect(podsOf(ns("pr1"), "database")).toEqual(["database-0"]);
    expect(await messages(pr1)).toEqual(before);
    await post(`${marker}-only-in-pr1`, pr1);
    expect((await messages(pr1))[0]).toBe(`${marker}-only-in-pr1`);
    expect(await messages()).toEqual(before);
    // preview's backups were not touched; the copy is recorded with pr1's
    expect((await listed()).some((b) => b.kind === "copy")).toBe(false);
    ok(await run(["destroy", "--yes", "--delete-data", "--env", "pr1"]));
    expect(await messages()).toEqual(before);
  }, 900_000);

  it("a backup to the S3 bucket; destroy --delete-data and the local copies gone; a new deploy; restore from the bucket", async () => {
    const bucket = s3?.bucket as S3Location;
    const rows = await messages();
    const r = ok(await run(["db", "backup", "database"], withS3));
    expect(r.stdout).toContain(`also stored in http://127.0.0.1:${bucket.endpoint.port}/backups/team`);
    const objects = (await s3List(bucket, `${project}/`)).map((o) => o.key.replace(/database-\d{8}T\d{6}Z-[0-9a-f]{4}/, "ID"));
    // the dump and the base backup made with it, each with its record
    expect(objects.sort()).toEqual(
      ["ID.base.tar.enc", "ID.json", "ID.json", "ID.pgdump.enc"].map((f) => `${project}/preview/database/${f}`),
    );
    ok(await run(["destroy", "--yes", "--delete-data"]));
    expect(kubectl("get", "namespace", ns("preview"), "--ignore-not-found", "-o", "name").trim()).toBe("");
    rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
    urls = parseUrls(ok(await deploy()).stdout);
    expect(await messages()).toEqual([]);
    const table = ok(await run(["db", "backups"], withS3)).stdout;
    expect(table).toMatch(/^database-\S+\s+database\s+.*\s+manual\s+.*\s+yes\s+bucket$/m);
    const restored = ok(await run(["db", "restore", "database", "--yes"], withS3));
    expect(restored.stdout).toMatch(/fetching database-\S+ from http:\/\/127\.0\.0\.1:\d+\/backups\/team/);
    expect(await messages()).toEqual(rows);
    expect((await listed(withS3)).map((b) => b.stored)).toEqual(["here+bucket", "here+bucket"]);
  }, 1_200_000);

  it("no password, passphrase or S3 key in any output, backup file or object name", async () => {
    const url = kubectl("-n", ns("preview"), "exec", "deploy/api", "--", "printenv", "DATABASE_URL").trim();
    const password = decodeURIComponent(new URL(url).password);
    expect(password.length).toBeGreaterThan(8);
    const secrets = [password, backend.PLATFORM_PASSPHRASE as string, s3?.secretKey as string];
    expectSecretsNowhere(secrets, outputs, backups());
    for (const o of await s3List(s3?.bucket as S3Location, ""))
      for (const s of [...secrets, s3?.accessKey as string]) expect(o.key).not.toContain(s);
  }, 120_000);
});
