import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { type CliResult, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, pulumiOnStack, requireToolchain, ROOT, unique } from "./helpers/env.js";
import { clusterUp, kubectl } from "./helpers/kubernetes.js";
import { eventsApi, rowsAroundMoment } from "./helpers/events.js";
import { expectSecretsNowhere } from "./helpers/leaks.js";

/**
 * Issue #26 item 3 on the Kubernetes test cluster: the database's StatefulSet archives its WAL
 * into wal-archive/ of its data claim (the same archive_command as on Docker); `db backup` also
 * makes a base backup; `db backups` shows the window; row A, a noted moment, row B; `db restore
 * --to-time` that moment brings exactly A back (B gone), with a safety backup first; the API
 * answers afterwards; a redeploy with no change is a no-op.
 */
const project = unique("k8s-pitr");
const ns = `${project}-preview`;
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-k8s-pitr-")), "app");
const marker = unique("m");
const outputs: CliResult[] = [];
let urls: Record<string, string> = {};
let ca = "";

const run = async (...args: string[]) => {
  const r = await runCli([...args, "--project", project], { cwd: dir, env: backend });
  outputs.push(r);
  return r;
};
const deploy = () => run("deploy", "--yes", "--target", "kubernetes");
const { post, messages } = eventsApi(() => ({ api: urls.api as string, ca }), marker);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A format `--to-time` takes: `2026-11-26 10:41:00.123` (UTC, no zone). */
const asText = (d: Date) => d.toISOString().replace("T", " ").replace("Z", "");
const inDatabase = (...cmd: string[]) => kubectl("-n", ns, "exec", "database-0", "-c", "database", "--", ...cmd);

/** Plain `pulumi preview --expect-no-changes` on the stack: it throws when anything would change. */
const expectNoChanges = () => expect(pulumiOnStack(project, backend, ["preview", "--expect-no-changes"])).toMatch(/\d+ unchanged/);

/** The fullstack example without its web app (not needed here, and the slowest to build). */
function writeConfig(): void {
  const text = readFileSync(join(ROOT, "examples", "fullstack", "platform.yml"), "utf8");
  const cors = "      CORS_ORIGINS: ${web.external_url}\n";
  for (const part of [cors, "\n  web:\n"]) expect(text).toContain(part);
  writeFileSync(join(dir, "platform.yml"), `${text.slice(0, text.indexOf("\n  web:\n")).replace(cors, "")}\n`);
}

describe("point-in-time recovery on the Kubernetes test cluster", () => {
  beforeAll(async () => {
    requireToolchain();
    await clusterUp();
    copyExample("fullstack", dir, /\/web\b/);
    writeConfig();
  }, 45 * 60_000);

  afterAll(async () => {
    await runCli(["destroy", "--yes", "--delete-data", "--project", project], { cwd: dir, env: backend });
    rmSync(dirname(dir), { recursive: true, force: true });
    rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys; the database archives its WAL into wal-archive/ of its data claim", async () => {
    urls = parseUrls(ok(await deploy()).stdout);
    ca = ok(await runCli(["ca"], { cwd: dir, env: backend })).stdout;
    await post(`${marker}-first`);
    const psql = (sql: string) => inDatabase("psql", "-X", "-tA", "-U", "app", "-d", "app", "-c", sql).trim();
    expect(psql("SHOW archive_mode")).toBe("on");
    expect(psql("SHOW archive_command")).toContain("/var/lib/postgresql/wal-archive");
    psql("SELECT pg_switch_wal()");
    for (let i = 0; i < 40 && !psql("SELECT last_archived_wal FROM pg_stat_archiver"); i++) await sleep(250);
    expect(psql("SELECT failed_count FROM pg_stat_archiver")).toBe("0");
    expect(inDatabase("sh", "-c", "ls /var/lib/postgresql/data/wal-archive | grep -c '^[0-9A-F]\\{24\\}$'").trim()).not.toBe("0");
  }, 900_000);

  it("a redeploy with no change is a no-op (the database pod not replaced)", async () => {
    const uid = () => kubectl("-n", ns, "get", "pod", "database-0", "-o", "jsonpath={.metadata.uid}");
    const before = uid();
    ok(await deploy());
    expect(uid()).toBe(before);
    expectNoChanges();
  }, 600_000);

  it("db backup makes a dump and a base backup; db backups shows the window", async () => {
    const r = ok(await run("db", "backup", "database"));
    expect(r.stdout).toMatch(/^ {2}base backup database-\S+: .+, encrypted, verified; with the WAL archive/m);
    const listed = JSON.parse(ok(await run("db", "backups", "database", "--json")).stdout) as {
      backups: { format?: string; verified?: { how: string } }[];
      windows: { service: string; from: string; to?: string; baseBackups: number }[];
    };
    expect(listed.backups.find((b) => b.format === "basebackup")?.verified?.how).toContain("pg_verifybackup");
    expect(listed.windows).toEqual([expect.objectContaining({ service: "database", baseBackups: 1, to: expect.any(String) })]);
    expect(ok(await run("db", "backups", "database")).stdout).toMatch(
      /^point-in-time window of database: .+ \(UTC; 1 base backup; WAL archive \d+ segments/m,
    );
  }, 300_000);

  it("restore --to-time between row A and row B: exactly A is back, B is gone; the API answers afterwards", async () => {
    const between = await rowsAroundMoment(post, marker);
    expect(await messages()).toEqual([`${marker}-B`, `${marker}-A`, `${marker}-first`]);
    const r = ok(await run("db", "restore", "database", "--to-time", asText(between), "--yes"));
    expect(r.stdout).toMatch(/^Restore database of .+ to \d{4}-.+Z \(UTC\): base backup database-\S+ \(manual, /m);
    expect(r.stdout).toContain("its StatefulSet scaled to 0, then back to 1");
    expect(r.stdout).toContain("safety backup: database-");
    expect(r.stdout).toMatch(/^✓ Restored database to .+ \(the database was down [\d.]+ s\); api kept running: /m);
    // The API reconnects to the recovered server: its first answers may still fail.
    let got: string[] = [];
    for (const end = Date.now() + 60_000; Date.now() < end && !got.length; await sleep(1000)) got = await messages().catch(() => []);
    expect(got).toEqual([`${marker}-A`, `${marker}-first`]);
    // The recovery settings are reset and the moved-aside data removed.
    expect(inDatabase("ls", "-A", "/var/lib/postgresql/data/pgdata")).not.toContain(".platform-pitr-old");
    expect(inDatabase("sh", "-c", "grep -c recovery_target_time $PGDATA/postgresql.auto.conf || true").trim()).toBe("0");
    // Writes go on, and the stack has nothing to change (the StatefulSet is at 1 again).
    await post(`${marker}-C`);
    expect((await messages())[0]).toBe(`${marker}-C`);
    expect(kubectl("-n", ns, "get", "statefulset", "database", "-o", "jsonpath={.spec.replicas}")).toBe("1");
    expectNoChanges();
  }, 600_000);

  it("no password or passphrase in any output or backup file", () => {
    const url = kubectl("-n", ns, "exec", "deploy/api", "--", "printenv", "DATABASE_URL").trim();
    const password = decodeURIComponent(new URL(url).password);
    expect(password.length).toBeGreaterThan(8);
    expectSecretsNowhere([password, backend.PLATFORM_PASSPHRASE as string], outputs, homePaths.backupsDir(project, "preview", "database"));
  }, 120_000);
});
