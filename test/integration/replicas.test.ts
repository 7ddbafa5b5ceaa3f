import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls } from "./helpers/cli.js";
import { ROOT } from "./helpers/env.js";
import { ownEdgeProject } from "./helpers/own-edge.js";
import { describeLoad, LIGHT_LOAD, startLoad } from "./helpers/load.js";

/**
 * `replicas:` on Docker, with examples/fullstack's api at 3 copies behind its own edge: three
 * containers carry the api's aliases; requests through the edge reach each of them (the edge
 * looks the alias up and balances over its addresses); `platform status` lists each replica and
 * says when one is down (exit 1); a redeploy under an HTTP/1.1 + HTTP/2 load replaces all three,
 * one new copy at a time, with no failed request; scaling down to one leaves one container.
 */
const own = ownEdgeProject("replicas", "fullstack");
const { project, dir, cli, deploy } = own;
let urls: Record<string, string> = {};
let ca = "";

/** platform.yml with the api at `replicas` copies and a RELEASE variable (an env change replaces every copy). */
function writeYml(replicas: number, release: number): void {
  const yml = readFileSync(join(ROOT, "examples", "fullstack", "platform.yml"), "utf8");
  const out = yml
    .replace("  api:\n", `  api:\n    replicas: ${replicas}\n`)
    .replace("      CORS_ORIGINS: ${web.external_url}\n", `      CORS_ORIGINS: \${web.external_url}\n      RELEASE: "${release}"\n`);
  if (!out.includes(`replicas: ${replicas}`) || !out.includes(`RELEASE: "${release}"`))
    throw new Error("examples/fullstack/platform.yml changed shape: update writeYml");
  writeFileSync(join(dir, "platform.yml"), out);
}

/** The api's containers (running or not): id and name. */
function apiContainers(all = false): { id: string; name: string }[] {
  const out = execFileSync("docker", [
    "ps",
    ...(all ? ["-a"] : []),
    "--filter",
    `label=platform.project=${project}`,
    "--filter",
    "label=platform.service=api",
    "--format",
    "{{.ID}} {{.Names}}",
  ]).toString();
  return out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [id, name] = l.split(" ");
      return { id: id as string, name: name as string };
    });
}

/** How many `GET /health` requests a container's log shows (uvicorn's access log, on either stream). */
const healthHits = (id: string) =>
  (
    execFileSync("sh", ["-c", `docker logs ${id} 2>&1`])
      .toString()
      .match(/"GET \/health/g) ?? []
  ).length;

describe("replicas on Docker: three copies of the api behind one URL", () => {
  beforeAll(async () => {
    await own.setUp();
    writeYml(3, 1);
  });

  afterAll(() => own.tearDown());

  it("runs three containers of the api, each reached through the edge, and status lists them", async () => {
    const r = ok(await deploy());
    urls = parseUrls(r.stdout);
    ca = ok(await cli("ca")).stdout;
    const copies = apiContainers();
    // Named <base>-<suffix>, <base>-2-<suffix>, <base>-3-<suffix>.
    const names = copies.map((c) => c.name.replace(/-[0-9a-f]{6}$/, "")).sort();
    expect(names).toEqual([`${project}_preview_api`, `${project}_preview_api-2`, `${project}_preview_api-3`]);
    const before = new Map(copies.map((c) => [c.id, healthHits(c.id)]));
    for (let i = 0; i < 150; i++) expect((await httpsRequest(`${urls.api}/health`, ca)).status).toBe(200);
    const served = copies.map((c) => healthHits(c.id) - (before.get(c.id) ?? 0));
    console.log(`[replicas] 150 GET /health through the edge, per replica: ${served.join(", ")}`);
    for (const n of served) expect(n, `a replica served ${served.join(", ")}`).toBeGreaterThan(10);

    const status = ok(await cli("status", "--project", project));
    expect(status.stdout).toMatch(/^api\s+running\s+3\/3 replicas running\s/m);
    expect(status.stdout.match(/^replica: api [123]\/3 \S+ running \(Up .*\)$/gm)).toHaveLength(3);
    const json = JSON.parse(ok(await cli("status", "--project", project, "--json")).stdout) as {
      services: { service: string; replicas?: { container: string; state: string }[] }[];
    };
    expect(json.services.find((s) => s.service === "api")?.replicas?.map((x) => x.state)).toEqual(["running", "running", "running"]);
  }, 900_000);

  it("says when a replica is down (exit 1), and the next deploy starts it again", async () => {
    const [, second] = apiContainers().sort((a, b) => a.name.localeCompare(b.name));
    execFileSync("docker", ["stop", "-t", "1", second!.id]);
    const status = await cli("status", "--project", project);
    expect(status.code, status.stdout).toBe(1);
    expect(status.stdout).toMatch(/^api\s+degraded\s+2\/3 replicas running\s/m);
    // The edge stops sending to the stopped copy (its address leaves the alias).
    for (let i = 0; i < 30; i++) expect((await httpsRequest(`${urls.api}/health`, ca)).status).toBe(200);
    ok(await deploy());
    expect(apiContainers()).toHaveLength(3);
    expect(ok(await cli("status", "--project", project)).stdout).toMatch(/^api\s+running\s+3\/3 replicas running\s/m);
  }, 600_000);

  it("a redeploy replaces every copy, one at a time, and no request fails", async () => {
    const old = new Set(apiContainers().map((c) => c.id));
    const load = startLoad({
      ...LIGHT_LOAD,
      ca,
      maxRequests: 100_000,
      maxMs: 600_000,
      mix: [
        { name: "GET api /health", url: `${urls.api}/health` },
        { name: "GET api /api/status", url: `${urls.api}/api/status` },
      ],
    });
    await new Promise((r) => setTimeout(r, 3_000));
    writeYml(3, 2);
    const r = ok(await deploy());
    await new Promise((r) => setTimeout(r, 3_000));
    const result = await load.stop();
    console.log(["[replicas] a redeploy of 3 api replicas under load:", ...describeLoad(result)].join("\n"));
    expect(r.stdout).toMatch(/^api: healthy$/m);
    expect(result.stoppedBy).toBe("stop");
    expect(result.failures.map((f) => `${f.protocol} ${f.request}: ${f.what}`)).toEqual([]);
    const now = apiContainers();
    expect(now).toHaveLength(3);
    for (const c of now) expect(old.has(c.id), `${c.name} is an old copy`).toBe(false);
    // One at a time: each new copy was created once the one before it was healthy.
    const created = now.map((c) => Date.parse(execFileSync("docker", ["inspect", "-f", "{{.Created}}", c.id]).toString().trim()));
    const sorted = [...created].sort((a, b) => a - b);
    expect(sorted[2]! - sorted[0]!, "the copies were created one after another").toBeGreaterThan(1_000);
  }, 900_000);

  it("scaling down to one leaves one container and no replica lines", async () => {
    writeYml(1, 2);
    ok(await deploy());
    expect(apiContainers(true)).toHaveLength(1);
    const status = ok(await cli("status", "--project", project));
    expect(status.stdout).not.toMatch(/^replica:/m);
    expect((await httpsRequest(`${urls.api}/health`, ca)).status).toBe(200);
  }, 600_000);
});
