import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { type S3Location, s3List } from "../../src/runtime/s3.js";
import { type BackupsContext, describeBackups } from "./helpers/backups-twin.js";
import { ok, parseUrls } from "./helpers/cli.js";
import { copyExample, ROOT } from "./helpers/env.js";
import { clusterUp, kubectl, podsOf } from "./helpers/kubernetes.js";
import { startVersitygw } from "./helpers/versitygw.js";

/**
 * Issue #26 on the Kubernetes test cluster (`--target kubernetes`; the body:
 * helpers/backups-twin.ts): the fullstack example's API and database (its web app left out: not
 * needed here, and the slowest to build). pg_dump runs in the database's pod through kubectl
 * exec, the encryption here. Here too: the base backup made with the first one, the API's pods
 * not restarted by a restore, --to-time before the window refused with the window
 * (point-in-time recovery itself: kubernetes-pitr.test.ts), nothing left running in the pod after
 * kill -9 of the CLI, `db scheduler --project`, pr1's database a pod of its own, a backup to an
 * S3 bucket (versitygw on 127.0.0.1), `destroy --delete-data`, a new deploy and a restore from
 * the bucket, and no S3 key in any output or object name.
 */
let s3: Awaited<ReturnType<typeof startVersitygw>> | undefined;
let withS3: Record<string, string> = {};
const ns = (project: string, env = "preview") => `${project}-${env}`;

/** The fullstack example without its web app; the api public, as in the example; a backup every minute (the scheduler test). */
function writeConfig(dir: string): void {
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

/** The processes of the database's pod whose command line names `program` (the image has no ps). */
const processesOf = (ctx: BackupsContext, program: string) =>
  ctx
    .inDatabase("sh", "-c", 'for p in /proc/[0-9]*; do tr "\\0" " " < "$p/cmdline" 2>/dev/null; echo; done')
    .split("\n")
    .filter((l) => l.startsWith(program));

describeBackups({
  title: "backups and restore on the Kubernetes test cluster",
  prefix: "k8s-bk",
  deployFlags: ["--target", "kubernetes"],
  async setUp(ctx) {
    await clusterUp();
    copyExample("fullstack", ctx.dir, /\/web\b/);
    writeConfig(ctx.dir);
    s3 = await startVersitygw();
    withS3 = { ...ctx.backend, ...s3.env };
  },
  tearDown: async () => s3?.stop(),
  urlsOf: (_project, stdout) => parseUrls(stdout),
  inDatabase: (project, ...cmd) => kubectl("-n", ns(project), "exec", "database-0", "-c", "database", "--", ...cmd),
  apiDatabaseUrl: (project) => kubectl("-n", ns(project), "exec", "deploy/api", "--", "printenv", "DATABASE_URL"),

  // With the dump, a base backup (the WAL is archived).
  async afterFirstBackup(_ctx, r) {
    expect(r.stdout).toMatch(/^ {2}base backup database-\S+: .+, encrypted, verified; with the WAL archive/m);
  },

  // The data is replaced in one transaction: the API's pods are not restarted.
  aroundRestore(ctx) {
    const api = podsOf(ns(ctx.project), "api");
    return (r) => {
      expect(r.stdout).toMatch(/^✓ Restored database from database-\S+; api kept serving \(their pods were not restarted\): /m);
      expect(podsOf(ns(ctx.project), "api")).toEqual(api);
    };
  },

  // kubectl exec, orphaned, loses its input: the watch in the pod stops pg_dump.
  async afterCliKilled(ctx) {
    let left: string[] = [];
    for (let i = 0; i < 60; i++) {
      left = processesOf(ctx, "pg_dump");
      if (!left.length) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(left).toEqual([]);
    ctx.psql("DROP TABLE filler");
  },

  schedulerProjectOnly: true,

  copy: {
    after: "scheduler",
    async deployed(ctx) {
      expect(podsOf(ns(ctx.project, "pr1"), "database")).toEqual(["database-0"]);
    },
    async remove(ctx) {
      ok(await ctx.run(["destroy", "--yes", "--delete-data", "--env", "pr1"]));
    },
  },

  extraSecrets: () => [s3?.secretKey as string],
  async secretsElsewhere(_ctx, secrets) {
    for (const o of await s3List(s3?.bucket as S3Location, ""))
      for (const s of [...secrets, s3?.accessKey as string]) expect(o.key).not.toContain(s);
  },

  tests: {
    restores(ctx) {
      it("--to-time before the window is refused with the window; nothing changes", async () => {
        const before = await ctx.messages();
        const r = await ctx.run(["db", "restore", "database", "--to-time", "2000-01-01 00:00:00", "--yes"]);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/--to-time 2000-01-01 00:00:00Z is outside the recoverable window of database: \d{4}-.+Z to now \(/);
        expect(await ctx.messages()).toEqual(before);
      }, 120_000);
    },

    scheduler(ctx) {
      it("a backup to the S3 bucket; destroy --delete-data and the local copies gone; a new deploy; restore from the bucket", async () => {
        const bucket = s3?.bucket as S3Location;
        const rows = await ctx.messages();
        const r = ok(await ctx.run(["db", "backup", "database"], withS3));
        expect(r.stdout).toContain(`also stored in http://127.0.0.1:${bucket.endpoint.port}/backups/team`);
        const objects = (await s3List(bucket, `${ctx.project}/`)).map((o) => o.key.replace(/database-\d{8}T\d{6}Z-[0-9a-f]{4}/, "ID"));
        // the dump and the base backup made with it, each with its record
        expect(objects.sort()).toEqual(
          ["ID.base.tar.enc", "ID.json", "ID.json", "ID.pgdump.enc"].map((f) => `${ctx.project}/preview/database/${f}`),
        );
        ok(await ctx.run(["destroy", "--yes", "--delete-data"]));
        expect(kubectl("get", "namespace", ns(ctx.project), "--ignore-not-found", "-o", "name").trim()).toBe("");
        rmSync(dirname(homePaths.backupsDir(ctx.project, "preview")), { recursive: true, force: true });
        ctx.urls = parseUrls(ok(await ctx.deploy()).stdout);
        expect(await ctx.messages()).toEqual([]);
        const table = ok(await ctx.run(["db", "backups"], withS3)).stdout;
        expect(table).toMatch(/^database-\S+\s+database\s+.*\s+manual\s+.*\s+restored, \d+ tables?, \d+ rows?\s+bucket$/m);
        const restored = ok(await ctx.run(["db", "restore", "database", "--yes"], withS3));
        expect(restored.stdout).toMatch(/fetching database-\S+ from http:\/\/127\.0\.0\.1:\d+\/backups\/team/);
        expect(await ctx.messages()).toEqual(rows);
        expect((await ctx.listed(withS3)).map((b) => b.stored)).toEqual(["here+bucket", "here+bucket"]);
      }, 1_200_000);
    },
  },
});
