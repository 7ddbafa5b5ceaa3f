import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANGED_SERVICE, changeService, generateScaleProject, scaleServices } from "../../bench/scale/generate.mjs";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, removeProjectImages, requireToolchain, serviceContainers, unique } from "./helpers/env.js";

/**
 * Issue 29: the scale benchmark's 20-service case as a smoke test, for correctness only (no
 * timing): the project bench/scale generates (10 fastapi and 10 nextjs-type services, a
 * shared postgres, references, migrations) validates, deploys, every service answers, status
 * lists them all, a change to one service redeploys that service alone, and it is destroyed.
 * The services share two tiny build contexts, so the builds are cached after the first.
 */
const COUNT = 20;
const project = unique("scale");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-scale-")), "app");
const cli = (...args: string[]) => runCli([...args, "--project", project], { cwd: dir, env: backend });
const services = scaleServices(COUNT);
const names = ["db", ...services.map((s) => s.name)];
let urls: Record<string, string> = {};
let ca = "";

/** The running container of each service, by name. */
const containers = () => Object.fromEntries(names.map((n) => [n, serviceContainers(project, n)]));

/** What each public (nextjs-type) service answers: its name and its API's answer over the internal URL. */
async function answers(): Promise<Record<string, { service: string; api: { service?: string; database?: boolean } }>> {
  const entries = await Promise.all(
    Object.entries(urls).map(async ([name, url]) => {
      const r = await httpsRequest(url, ca, { timeoutMs: 30_000 });
      expect(r.status, `${name}: ${r.body}`).toBe(200);
      return [name, JSON.parse(r.body)] as const;
    }),
  );
  return Object.fromEntries(entries);
}

describe("scale smoke: the 20-service project of bench/scale on the local Docker engine", () => {
  beforeAll(() => {
    requireToolchain();
    generateScaleProject(dir, COUNT, { project });
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data");
    removeProjectImages(project);
    forgetProject(project);
    rmSync(join(dir, ".."), { recursive: true, force: true });
  });

  it("validates: 20 services and postgres, no warning", async () => {
    const r = ok(await runCli(["validate"], { cwd: dir, env: backend }));
    expect(r.stdout).toContain(`${COUNT + 1} services: ${names.join(", ")}`);
    expect(r.stdout + r.stderr).not.toMatch(/warning/);
  });

  it("deploys all of it, and every service answers", async () => {
    const r = ok(await cli("deploy", "--yes"));
    urls = parseUrls(r.stdout);
    expect(Object.keys(urls).sort()).toEqual(
      services
        .filter((s) => s.public)
        .map((s) => s.name)
        .sort(),
    );
    ca = (await runCli(["ca"], { cwd: dir, env: backend })).stdout;
    const got = await answers();
    // Each nextjs-type service answers and reaches the fastapi service before it: all 20 answer.
    for (const s of services.filter((x) => x.kind === "nextjs")) {
      expect(got[s.name]?.service).toBe(s.name);
      expect(got[s.name]?.api).toEqual({ service: s.api, kind: "fastapi", database: true });
    }
  }, 1_200_000);

  it("status lists the 20 services and postgres, all running", async () => {
    const s = JSON.parse(ok(await cli("status", "--json")).stdout);
    expect(s.services.map((x: { service: string; state: string }) => `${x.service}:${x.state}`)).toEqual(names.map((n) => `${n}:running`));
  }, 120_000);

  it("a redeploy with nothing to do starts no engine and replaces nothing; every service says unchanged", async () => {
    const before = containers();
    const r = ok(await cli("deploy", "--json"));
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const result = lines.at(-1);
    expect(Object.keys(result.changes)).toEqual(["same"]);
    const unchanged = lines.filter((l) => l.type === "progress" && l.phase === "unchanged").map((l) => l.service);
    expect(unchanged.sort()).toEqual([...names].sort());
    expect(containers()).toEqual(before);
    expect(result.urls).toEqual(urls);
    // No engine ran: the deployment's record names the one whose objects run, and there is no engine log for it.
    const home = process.env.PLATFORM_HOME ?? join(process.env.HOME as string, ".platform");
    const record = JSON.parse(
      readFileSync(join(home, "projects", project, "deployments", "preview", `${result.deploymentId}.json`), "utf8"),
    );
    expect(record.noChangeSince).toMatch(/^dep_/);
    expect(existsSync(join(home, "logs", project, "preview", `${result.deploymentId}.log`))).toBe(false);
  }, 120_000);

  it("a change to one service redeploys that service alone", async () => {
    const before = containers();
    changeService(dir, CHANGED_SERVICE, "smoke");
    const r = ok(await cli("deploy", "--json"));
    const result = JSON.parse(r.stdout.trim().split("\n").pop() as string);
    expect(result.outcome).toBe("succeeded");
    const after = containers();
    const changed = names.filter((n) => after[n] !== before[n]);
    expect(changed).toEqual([CHANGED_SERVICE]);
    // Its callers still reach it at the same internal URL.
    const got = await answers();
    expect(got.svc2?.api.service).toBe(CHANGED_SERVICE);
  }, 600_000);

  it("destroys everything", async () => {
    ok(await cli("destroy", "--yes", "--delete-data"));
    expect(names.filter((n) => containers()[n])).toEqual([]);
  }, 600_000);
});
