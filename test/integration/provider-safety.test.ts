import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseImages } from "../../src/home/images.js";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, pulumiEnv, requireToolchain, unique } from "./helpers/env.js";
import { eventsApi, expectRows } from "./helpers/events.js";

/**
 * "Nothing lost, nothing shared by mistake", the provider side, on the fullstack example:
 * killed containers come back on the next deploy, a failed database replacement restores the
 * previous server, nothing but the edge is published, and services and migrations run with
 * no-new-privileges and their preset's limits.
 */
const project = unique("rec");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-recovery-")), "fullstack");
const brokenImage = `platform-test/${project}-postgres:broken`;
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env: { ...backend, ...env } });
const deploy = (env: Record<string, string> = {}) => cli(["deploy", "--yes", "--project", project], env);
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
let urls: Record<string, string> = {};
let ca = "";

/** Every container of a service, running or not, migration jobs excluded: "<id> <state>". */
const containersOf = (service: string) =>
  docker(
    "ps",
    "-a",
    "--format",
    '{{.ID}} {{.State}} {{.Label "platform.job"}}',
    "--filter",
    `label=platform.project=${project}`,
    "--filter",
    `label=platform.service=${service}`,
  )
    .split("\n")
    .filter((l) => l && !l.endsWith(" true"))
    .map((l) => l.trim());
const runningOf = (service: string) =>
  docker("ps", "-q", "--filter", `label=platform.project=${project}`, "--filter", `label=platform.service=${service}`);

type Status = { database: string; event_count: number };
const statusOnce = async (): Promise<Status> => {
  const r = await httpsRequest(`${urls.api}/api/status`, ca);
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body);
};

/**
 * The API's status, which must answer with its database at once: right after "Deployment
 * complete" no request may fail, also after a deploy that replaced the database (the API is
 * replaced with it, so no pooled connection to the old server is left).
 */
async function status(): Promise<Status> {
  const s = await statusOnce();
  expect(s.database, "/api/status's database, at once").toBe("ok");
  return s;
}

/**
 * After a failed database replacement, which said "Deployment complete" nowhere: the previous
 * server was stopped and started again under the API, which was not replaced. Its pool's one
 * idle connection (min_size 1; one request at a time here) was to that server, and psycopg's
 * pool does not see an idle connection closed: the first query fails on it, exactly once, and
 * the pool connects anew for the next. The bound is that one answer, no more.
 */
async function statusAfterRestart(): Promise<Status> {
  const first = await statusOnce();
  console.log(`[provider-safety] the API's first status after the previous database restarted: database ${first.database}`);
  return first.database === "ok" ? first : status();
}

describe("killed, failed and hardened: the fullstack example on the real engine", () => {
  beforeAll(() => {
    requireToolchain();
    copyExample("fullstack", dir);
    // The migration reports the limits it runs under, then migrates as usual.
    const yml = readFileSync(join(dir, "platform.yml"), "utf8").replace(
      'command: ["alembic", "upgrade", "head"]',
      'command: ["sh", "-c", "grep NoNewPrivs /proc/self/status; echo pids=$(cat /sys/fs/cgroup/pids/pids.max) memory=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes) cpu=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us); exec alembic upgrade head"]',
    );
    writeFileSync(join(dir, "platform.yml"), yml);
    // A database image whose server never starts: what a bad upgrade looks like.
    execFileSync("docker", ["build", "-q", "-t", brokenImage, "-"], {
      input: `FROM ${baseImages().postgres}\nENTRYPOINT ["sh", "-c", "echo this postgres cannot start >&2; exit 3"]\n`,
      stdio: ["pipe", "ignore", "inherit"],
    });
  });

  afterAll(async () => {
    await cli(["destroy", "--yes", "--delete-data", "--project", project]);
    execFileSync("sh", ["-c", `docker rmi ${brokenImage} >/dev/null 2>&1 || true`]);
    rmSync(dir, { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys", async () => {
    const r = ok(await deploy());
    urls = parseUrls(r.stdout);
    ca = ok(await cli(["ca"])).stdout;
    expect((await status()).database).toBe("ok");
  }, 900_000);

  it("publishes nothing on the host; services and the migration run with no-new-privileges and their preset's limits", async () => {
    for (const service of ["database", "api", "web"]) {
      const info = JSON.parse(docker("inspect", runningOf(service)))[0];
      expect(info.HostConfig.PortBindings ?? {}).toEqual({});
      expect(Object.values(info.NetworkSettings.Ports ?? {}).filter(Boolean)).toEqual([]);
      expect(info.HostConfig).toMatchObject({
        SecurityOpt: ["no-new-privileges:true"],
        PidsLimit: 512,
        Memory: 512 * 1024 ** 2,
        NanoCpus: 5e8,
      });
    }
    // The edge routes by the host label, which public containers carry for the URL word pick.
    const apiHost = new URL(urls.api as string).hostname.split(".")[0];
    expect(docker("inspect", "-f", '{{index .Config.Labels "platform.public-host"}}', runningOf("api"))).toBe(apiHost);
    const history = JSON.parse(ok(await cli(["deployments", "--project", project, "--json"])).stdout);
    const migration = history[0].migrations.api.output as string;
    expect(migration).toMatch(/NoNewPrivs:\s+1/);
    expect(migration).toContain(`pids=512 memory=${512 * 1024 ** 2} cpu=50000`);
  }, 120_000);

  it("a killed API comes back on the next deploy: replaced, not reported unchanged", async () => {
    expect(
      (await httpsRequest(`${urls.api}/api/events`, ca, { method: "POST", body: { message: "before the kill" } })).status,
    ).toBeLessThan(300);
    const count = (await status()).event_count;
    docker("kill", runningOf("api"));
    expect(runningOf("api")).toBe("");
    const r = ok(await deploy());
    expect(r.stdout).toContain("api: healthy");
    expect(r.stdout).not.toContain("api: unchanged");
    expect(r.stdout).toContain("web: unchanged");
    expect(containersOf("api")).toEqual([`${runningOf("api")} running`]);
    expect((await status()).event_count).toBe(count);
  }, 600_000);

  it("a killed database comes back with its rows", async () => {
    const marker = unique("kept");
    const kept = [`${marker}-1`, `${marker}-2`];
    const { post } = eventsApi(() => ({ api: urls.api as string, ca }), marker);
    for (const message of kept) await post(message);
    docker("kill", runningOf("database"));
    const r = ok(await deploy());
    expect(r.stdout).toContain("database: healthy");
    expect(containersOf("database")).toEqual([`${runningOf("database")} running`]);
    await expectRows(urls.api as string, ca, kept, marker);
  }, 600_000);

  it("an app that listens on loopback only fails its health check at once, with the fix; the old API keeps serving", async () => {
    const dockerfile = join(dir, "api", "Dockerfile");
    const original = readFileSync(dockerfile, "utf8");
    const api = runningOf("api");
    writeFileSync(dockerfile, original.replace("--host 0.0.0.0", "--host 127.0.0.1"));
    const r = await deploy();
    writeFileSync(dockerfile, original);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /answers on 127\.0\.0\.1:8080 inside its container, but not on its network address [0-9.]+:8080.*listen on 0\.0\.0\.0:\$PORT/s,
    );
    expect(runningOf("api")).toBe(api);
    expect((await status()).database).toBe("ok");
  }, 600_000);

  it("a failed database replacement restarts the previous server, which serves the same rows", async () => {
    const count = (await status()).event_count;
    const db = runningOf("database");
    const r = await deploy({ PLATFORM_POSTGRES_IMAGE: brokenImage });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("this postgres cannot start");
    expect(r.stderr).toContain("the previous database container was restarted and serves again");
    expect(containersOf("database")).toEqual([`${db} running`]);
    expect((await statusAfterRestart()).event_count).toBe(count);
    // The good configuration again: nothing to change, the database that serves is the stack's.
    const again = ok(await deploy());
    expect(again.stdout).toContain("database: unchanged");
  }, 600_000);

  it("plain `pulumi preview --expect-no-changes` stays clean after all that", async () => {
    const workspace = join(process.env.PLATFORM_HOME ?? join(process.env.HOME as string, ".platform"), "projects", project);
    const out = execFileSync(
      requireToolchain().pulumi,
      ["preview", "--refresh", "--stack", "preview", "--expect-no-changes", "--non-interactive", "--color", "never", "--cwd", workspace],
      {
        env: pulumiEnv(backend),
        encoding: "utf8",
        timeout: 240_000,
      },
    );
    expect(out).toMatch(/\d+ unchanged/);
  }, 300_000);
});
