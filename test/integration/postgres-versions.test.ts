import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { httpsRequest, ok, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, requireToolchain, serviceContainers, unique } from "./helpers/env.js";
import { expectFullstackDeployed } from "./helpers/fullstack-order.js";

/**
 * Issue #26, PostgreSQL versions on the real Docker engine, with examples/fullstack: the default
 * major (15), then `version: 17` on the same database (a backup, read-only, a dump, the new
 * cluster initialised from it in pg17/ of the same volume), then 18 (from a cluster in a
 * subdirectory); every row survives each upgrade, writes work after it, status shows the
 * version, and a way down is refused before anything changes. 17 and 18 are built on first
 * need when the engine lacks them. Every read through the API succeeds at once after a deploy:
 * the upgrade replaces the API with the database (the old one's pooled connections were to the
 * old server), so no query fails on a connection whose server has gone.
 */
const project = unique("pgv");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-pgversions-")), "fullstack");
const run = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const cli = (...args: string[]) => run(...args, "--project", project);
let api = "";
let ca = "";
/** A read through the API, which must answer with its database (`/api/status` says "error" with a 200 when its query failed). */
async function get(path: string): Promise<string> {
  const r = await httpsRequest(`${api}${path}`, ca);
  expect(r.status, `GET ${path}: ${r.body}`).toBe(200);
  expect(r.body, `GET ${path}`).not.toContain('"database":"error"');
  return r.body;
}

/**
 * The API's status after a point-in-time restore, which is no deploy: the API kept running (the
 * restore says so) while its database was stopped and started under it, with the one pooled
 * connection it holds (min_size 1; this test sends one request at a time) to the stopped server.
 * psycopg's pool does not see that an idle connection was closed, so the first query fails on
 * it, exactly once: the pool drops it and connects anew for the next. The bound: one read.
 */
async function firstStatusAfterRestart(): Promise<"ok" | "failed once"> {
  const first = await httpsRequest(`${api}/api/status`, ca);
  expect(first.status, first.body).toBe(200);
  if (!first.body.includes('"database":"error"')) return "ok";
  await get("/api/status");
  return "failed once";
}

async function post(message: string): Promise<void> {
  const r = await httpsRequest(`${api}/api/events`, ca, { method: "POST", body: { message } });
  expect(r.status, r.body).toBe(201);
}

async function messages(): Promise<string[]> {
  return (JSON.parse(await get("/api/events?limit=100")) as { message: string }[]).map((e) => e.message).sort();
}

function setVersion(version: number | undefined): void {
  const file = join(dir, "platform.yml");
  const text = readFileSync(file, "utf8").replace(/\n {4}version: .*\n/, "\n");
  writeFileSync(file, version === undefined ? text : text.replace("    type: postgres\n", `    type: postgres\n    version: ${version}\n`));
}

async function statusVersion(): Promise<string> {
  const s = ok(await cli("status")).stdout;
  return /^postgres: database runs PostgreSQL (\d+)\.\d+$/m.exec(s)?.[1] ?? `none in: ${s}`;
}

describe("PostgreSQL versions and major upgrades (Docker)", () => {
  beforeAll(() => {
    requireToolchain();
    copyExample("fullstack", dir);
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data");
    rmSync(dirname(dir), { recursive: true, force: true });
    rmSync(dirname(homePaths.backupsDir(project, "preview")), { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys the default major, 15, and writes rows", async () => {
    const r = ok(await cli("deploy", "--yes"));
    api = expectFullstackDeployed(r.stdout, project).api as string;
    ca = ok(await run("ca")).stdout;
    await post("v15-a");
    await post("v15-b");
    expect(await statusVersion()).toBe("15");
    // A base backup of 15 (WAL archiving is on): no recovery of a later major may start from it.
    ok(await cli("db", "backup", "database"));
  }, 600_000);

  for (const [from, to] of [
    [15, 17],
    [17, 18],
  ] as const) {
    it(`version: ${to} upgrades the ${from} database at the next deploy: a backup first, every row kept, writes after`, async () => {
      const before = await messages();
      setVersion(to);
      const r = ok(await cli("deploy", "--yes"));
      const said = `${r.stdout}\n${r.stderr}`;
      expect(said).toContain(`→ database: PostgreSQL ${from} -> ${to}: a backup first`);
      expect(said).toMatch(/→ database: backup database-\S+ made and verified/);
      expect(said).toContain("read-only from now until the new server takes over");
      expect(said).toMatch(new RegExp(`→ database: now PostgreSQL ${to}; the PostgreSQL ${from} cluster stays in its volume`));
      expect(r.stdout).toMatch(/^Deployment complete \(dep_/m);
      // A new API with the new server: no pooled connection to the old one outlives the deploy.
      expect(r.stdout).toMatch(/^api: healthy$/m);
      expect(await messages()).toEqual(before);
      await post(`v${to}-a`);
      expect(await messages()).toEqual([...before, `v${to}-a`].sort());
      expect(await statusVersion()).toBe(String(to));
      const backups = JSON.parse(ok(await cli("db", "backups", "database", "--json")).stdout) as { backups: { kind: string }[] };
      expect(backups.backups.filter((b) => b.kind === "upgrade")).toHaveLength(to === 17 ? 1 : 2);
      // The older cluster is kept where it was, writable should it start again; the dump is gone.
      const c = serviceContainers(project, "database");
      const files = execFileSync("docker", ["exec", c, "ls", "-A", "/var/lib/postgresql/data"], { encoding: "utf8" });
      expect(files).toMatch(/^PG_VERSION$/m);
      expect(files).toMatch(new RegExp(`^pg${to}$`, "m"));
      expect(files).not.toMatch(/\.dump/);
    }, 900_000);
  }

  it("point-in-time recovery works on the upgraded cluster (pg18/ of the volume), from its own base backups only", async () => {
    const list = async () =>
      (
        JSON.parse(ok(await cli("db", "backups", "database", "--json")).stdout) as { windows: { service: string; baseBackups: number }[] }
      ).windows.find((w) => w.service === "database");
    // The base backups an older major made start no recovery of this one: none before the first backup on 18.
    expect(await list()).toBeUndefined();
    ok(await cli("db", "backup", "database"));
    expect((await list())?.baseBackups).toBe(1);
    await post("pitr-A");
    await new Promise((r) => setTimeout(r, 1000));
    const between = new Date();
    await new Promise((r) => setTimeout(r, 1000));
    await post("pitr-B");
    const r = ok(await cli("db", "restore", "database", "--to-time", between.toISOString().replace("T", " ").replace("Z", ""), "--yes"));
    expect(r.stdout).toMatch(/^✓ Restored database to /m);
    console.log(`[postgres-versions] the API's first status after the point-in-time restore: ${await firstStatusAfterRestart()}`);
    const after = await messages();
    expect(after).toContain("pitr-A");
    expect(after).not.toContain("pitr-B");
    expect(await statusVersion()).toBe("18");
    // The 15 cluster at the volume's root and 17's were left alone by the recovery.
    const files = execFileSync("docker", ["exec", serviceContainers(project, "database"), "ls", "-A", "/var/lib/postgresql/data"], {
      encoding: "utf8",
    });
    expect(files).toMatch(/^PG_VERSION$/m);
    expect(files).toMatch(/^pg17$/m);
    expect(files).toMatch(/^pg18$/m);
  }, 600_000);

  it("a way down is refused before anything changes", async () => {
    setVersion(17);
    const r = await cli("deploy", "--yes");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("database runs PostgreSQL 18; platform.yml asks for 17: a database never goes down a major version");
    expect(r.stderr).toContain("hint: set services.database.version: 18");
    expect(await statusVersion()).toBe("18");
    await post("still-18");
    expect(await messages()).toContain("still-18");
  }, 300_000);

  it("version: on a service that is not postgres is refused where it is written", async () => {
    setVersion(18);
    const file = join(dir, "platform.yml");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("    type: fastapi\n", "    type: fastapi\n    version: 17\n"));
    try {
      const r = await run("validate");
      const said = `${r.stdout}${r.stderr}`;
      expect(r.code, "validate's exit for an invalid file").toBe(1);
      expect(said).toMatch(/platform\.yml:\d+:\d+ services\.api\.version: version is only for postgres services; api is a fastapi service/);
      expect(said).toContain(".python-version");
    } finally {
      writeFileSync(file, text);
    }
  });
});
