import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformHome } from "../../src/home/layout.js";
import { ok, parseUrls, runCli, startCli, startPoller } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, requireToolchain, unique } from "./helpers/env.js";
import { eventsApi, expectRows, POLL_ROUTE } from "./helpers/events.js";

/**
 * Crash recovery on the fullstack example: the CLI killed (SIGKILL) during a build, during a
 * migration and between starting a new container and removing the old one, three times
 * each, then `platform deploy` recovers with no manual step, the rows intact and no orphan.
 * Then a rollback under polling, and the leak test over everything the platform wrote.
 */
const project = unique("rec");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-recovery-")), "fullstack");
const outputs: string[] = [];
const cli = async (...args: string[]) => {
  const r = await runCli(args, { cwd: dir, env: backend });
  outputs.push(r.stdout, r.stderr);
  return r;
};
let urls: Record<string, string> = {};
let ca = "";

const docker = (...args: string[]) => execFileSync("docker", args).toString().trim();
const stackContainers = () =>
  docker("ps", "-a", "--filter", `label=platform.project=${project}`, "--format", '{{.Names}} {{.State}} {{.Label "platform.job"}}')
    .split("\n")
    .filter(Boolean);

// The rows written before the kills: each recovery must serve exactly these, by message.
const marker = unique("row");
const written = [1, 2, 3].map((i) => `${marker}-${i}`);
const { post } = eventsApi(() => ({ api: urls.api as string, ca }), marker);

function setMigration(command: string[]): void {
  const file = join(dir, "platform.yml");
  const yml = readFileSync(file, "utf8").replace(/command: \[.*\]/, `command: ${JSON.stringify(command)}`);
  writeFileSync(file, yml);
}

const changeApi = () => writeFileSync(join(dir, "api", "build-marker.txt"), `${Date.now()}-${Math.random()}`);

/** Files under a directory, recursively (the platform's own toolchain excluded). */
function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = statSync(full, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory() && !["toolchain", "node_modules", "engine"].includes(name)) walk(full);
      else if (st.isFile()) out.push(full);
    }
  };
  walk(root);
  return out;
}

describe("crash recovery, rollback and secrets on the fullstack example", () => {
  beforeAll(async () => {
    requireToolchain();
    copyExample("fullstack", dir);
    // A migration that takes a moment, so that a kill can land in the middle of it.
    setMigration(["sh", "-c", "sleep 4 && alembic upgrade head"]);
    urls = parseUrls(ok(await cli("deploy", "--yes", "--project", project)).stdout);
    ca = ok(await cli("ca")).stdout;
    for (const message of written) await post(message);
    await expectRows(urls.api as string, ca, written);
  }, 900_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    rmSync(dir, { recursive: true, force: true });
    forgetProject(project);
  }, 600_000);

  const killPoints: [string, RegExp, number][] = [
    ["during a build", /api: Installing/, 300],
    ["during a migration", /api: migrating/, 1500],
    ["between starting the new api and removing the old one", /api: healthy/, 0],
  ];
  for (const [where, when, delay] of killPoints) {
    for (let run = 1; run <= 3; run++) {
      it(`recovers from SIGKILL ${where} (run ${run})`, async () => {
        changeApi();
        const killed = startCli(["deploy", "--yes"], { cwd: dir, env: backend });
        await killed.waitFor(when);
        await new Promise((r) => setTimeout(r, delay));
        killed.child.kill("SIGKILL");
        await killed.done;
        const r = ok(await cli("deploy", "--yes"));
        expect(r.stdout).toMatch(/note: the previous deploy dep_\w+ by .* was interrupted: recovering/);
        expect(r.stdout).toMatch(/^Deployment complete/m);
        await expectRows(urls.api as string, ca, written);
        const list = stackContainers();
        expect(
          list.filter((c) => c.endsWith(" true")),
          "no migration job left",
        ).toEqual([]);
        for (const svc of ["database", "api", "web"]) {
          expect(
            list.filter((c) => new RegExp(`_${svc}-[0-9a-f]+ running`).test(c)),
            `${svc}: ${list.join(", ")}`,
          ).toHaveLength(1);
        }
        expect(list).toHaveLength(3);
      }, 600_000);
    }
  }

  it("rolls back to the previous version without building, with no failed request", async () => {
    const before = JSON.parse(ok(await cli("status", "--json")).stdout).services.find(
      (s: { service: string }) => s.service === "api",
    ).image;
    changeApi();
    ok(await cli("deploy", "--yes"));
    const poller = startPoller(`${urls.api}${POLL_ROUTE}`, ca, 50);
    const t0 = Date.now();
    const r = ok(await cli("rollback"));
    const seconds = (Date.now() - t0) / 1000;
    const stats = await poller.stop();
    expect(r.stdout).toMatch(/note: rolling back to dep_\w+/);
    expect(r.stdout).toContain("database migrations are neither reversed nor run again");
    expect(r.stdout).not.toMatch(/api: migrating/);
    expect(r.stdout).not.toMatch(/api: Installing/);
    expect(stats.failures).toEqual([]);
    expect(stats.sent).toBeGreaterThan(10);
    const after = JSON.parse(ok(await cli("status", "--json")).stdout).services.find((s: { service: string }) => s.service === "api").image;
    expect(after).toBe(before);
    const records = JSON.parse(ok(await cli("deployments", "--json")).stdout);
    expect(records[0]).toMatchObject({ kind: "rollback", outcome: "succeeded", rollback: "current" });
    console.log(`rollback of fullstack: ${seconds.toFixed(1)} s, ${stats.sent} requests, ${stats.failed} failed`);
  }, 600_000);

  it("never writes the database password or connection string anywhere: output, logs, records, workspace, state", async () => {
    setMigration(["sh", "-c", "alembic upgrade head && echo the migration broke && exit 3"]);
    changeApi();
    const failed = await cli("deploy", "--yes");
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("the migration broke");
    expect((await cli("deploy", "--yes", "--json")).code).toBe(1);
    for (const args of [
      ["status", "--json"],
      ["deployments", "--json"],
      ["deployments"],
      ["logs", "api", "--tail", "200"],
      ["logs", "database", "--tail", "200"],
    ])
      ok(await cli(...args));
    const env = JSON.parse(
      docker(
        "inspect",
        "--format",
        "{{json .Config.Env}}",
        docker("ps", "-q", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=api").split(
          "\n",
        )[0] as string,
      ),
    ) as string[];
    const connection = (env.find((e) => e.startsWith("DATABASE_URL=")) as string).slice("DATABASE_URL=".length);
    const password = new URL(connection).password;
    expect(password.length).toBeGreaterThanOrEqual(16);
    const home = platformHome();
    const files = [
      ...filesUnder(join(home, "projects", project)),
      ...filesUnder(join(home, "logs", project)),
      ...filesUnder(new URL(backend.PLATFORM_BACKEND_URL as string).pathname),
    ];
    expect(files.length).toBeGreaterThan(10);
    const leaks = [
      ...files.filter((f) => readFileSync(f, "latin1").includes(password)),
      ...outputs.filter((o) => o.includes(password)).map((o) => `CLI output: ${o.slice(0, 200)}`),
    ];
    expect(leaks).toEqual([]);
    expect(files.filter((f) => readFileSync(f, "latin1").includes(connection))).toEqual([]);
    setMigration(["sh", "-c", "sleep 4 && alembic upgrade head"]);
  }, 900_000);
});
