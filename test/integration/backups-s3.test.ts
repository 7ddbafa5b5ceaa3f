import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { type S3Location, s3List } from "../../src/runtime/s3.js";
import { type CliResult, httpsRequest, ok, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, requireToolchain, unique } from "./helpers/env.js";
import { expectFullstackDeployed } from "./helpers/fullstack-order.js";
import { eventsApi } from "./helpers/events.js";
import { startVersitygw } from "./helpers/versitygw.js";

/**
 * Issue #26, backups in an S3-compatible bucket, on the real Docker engine and a real S3
 * server (versitygw, built from Go modules by scripts/setup/versitygw.sh): a backup goes to
 * the bucket, `destroy --delete-data` and the local backups gone, a new deploy, and a restore
 * from the bucket brings the rows back. Object names carry no secret, and no output does.
 */
const project = unique("bks3");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-backups-s3-")), "fullstack");
let accessKey = "";
let secretKey = "";
const marker = unique("s3m");
const outputs: CliResult[] = [];
let env: Record<string, string> = {};
let bucket: S3Location;
let stopServer: (() => Promise<void>) | undefined;
let urls: Record<string, string> = {};
let ca = "";

const run = async (...args: string[]) => {
  const r = await runCli([...args, "--project", project], { cwd: dir, env });
  outputs.push(r);
  return r;
};

const { messages } = eventsApi(() => ({ api: urls.api as string, ca }), marker);

describe("backups in an S3-compatible bucket (Docker, versitygw)", () => {
  beforeAll(async () => {
    requireToolchain();
    const gw = await startVersitygw();
    ({ stop: stopServer, bucket, accessKey, secretKey } = gw);
    env = { ...backend, ...gw.env };
    copyExample("fullstack", dir);
  });

  afterAll(async () => {
    await runCli(["destroy", "--yes", "--delete-data", "--project", project], { cwd: dir, env });
    await stopServer?.();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
    forgetProject(project);
  });

  it("a backup goes to the bucket, under names that carry no secret", async () => {
    urls = expectFullstackDeployed(ok(await run("deploy", "--yes")).stdout, project);
    ca = ok(await runCli(["ca"], { cwd: dir, env })).stdout;
    for (const m of ["one", "two"]) {
      const r = await httpsRequest(`${urls.api}/api/events`, ca, { method: "POST", body: { message: `${marker}-${m}` } });
      expect(r.status).toBe(201);
    }
    const r = ok(await run("db", "backup", "database"));
    expect(r.stdout).toContain(`also stored in http://127.0.0.1:${bucket.endpoint.port}/backups/team`);
    const objects = await s3List(bucket, `${project}/`);
    expect(objects.map((o) => o.key.replace(/database-\d{8}T\d{6}Z-[0-9a-f]{4}/, "ID")).sort()).toEqual([
      `${project}/preview/database/ID.base.tar.enc`,
      `${project}/preview/database/ID.json`,
      `${project}/preview/database/ID.json`,
      `${project}/preview/database/ID.pgdump.enc`,
    ]);
  }, 900_000);

  it("destroy --delete-data and the local copies gone; a new deploy; the restore from the bucket brings the rows back", async () => {
    ok(await run("destroy", "--yes", "--delete-data"));
    rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
    urls = expectFullstackDeployed(ok(await run("deploy", "--yes")).stdout, project);
    expect(await messages()).toEqual([]);
    const listed = ok(await run("db", "backups")).stdout;
    expect(listed).toMatch(/^BACKUP\s+SERVICE\s+MADE \(UTC\)\s+KIND\s+SIZE\s+DEPLOYMENT\s+VERIFIED\s+STORED$/m);
    expect(listed).toMatch(/^database-\S+\s+database\s+.*\s+manual\s+.*\s+restored, \d+ tables?, \d+ rows?\s+bucket$/m);
    const r = ok(await run("db", "restore", "database", "--yes"));
    expect(r.stdout).toMatch(/fetching database-\S+ from http:\/\/127\.0\.0\.1:\d+\/backups\/team/);
    expect(await messages()).toEqual([`${marker}-two`, `${marker}-one`]);
    // the safety backup went to the bucket too (beside the dump and the base backup)
    expect((await s3List(bucket, `${project}/`)).filter((o) => o.key.endsWith(".json")).length).toBe(3);
  }, 900_000);

  it("no secret in any output or object name", async () => {
    const db = execFileSync(
      "docker",
      ["ps", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=api", "--format", "{{.Names}}"],
      { encoding: "utf8" },
    ).trim();
    const password = decodeURIComponent(
      new URL(execFileSync("docker", ["exec", db, "printenv", "DATABASE_URL"], { encoding: "utf8" }).trim()).password,
    );
    const secrets = [password, secretKey, backend.PLATFORM_PASSPHRASE as string];
    for (const r of outputs) for (const s of secrets) expect(`${r.stdout}\n${r.stderr}`).not.toContain(s);
    for (const o of await s3List(bucket, "")) for (const s of [...secrets, accessKey]) expect(o.key).not.toContain(s);
  }, 120_000);
});
