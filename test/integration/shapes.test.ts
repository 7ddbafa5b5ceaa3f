import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, requireToolchain, ROOT, unique } from "./helpers/env.js";

/**
 * Shapes of real repositories that the first recipes missed, as one fixture of our own
 * (test/fixtures/apps/shapes), deployed with nothing but its platform.yml: a FastAPI member of a
 * uv workspace whose lockfile is at the root (src/ layout, a workspace library), a Next.js
 * pages-router member of a pnpm workspace (standalone output, a workspace package), and a
 * Poetry project whose poetry.lock is installed through the index's simple API.
 */
const project = unique("shapes");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-shapes-")), "repo");
const cli = (args: string[]) => runCli(args, { cwd: dir, env: backend });
let urls: Record<string, string> = {};
let ca = "";

const images = () =>
  execFileSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", `platform/${project}_*`])
    .toString()
    .split("\n")
    .filter(Boolean);

describe("repository shapes: workspaces, src/ layout, pages router, poetry", () => {
  beforeAll(() => {
    requireToolchain();
    cpSync(join(ROOT, "test", "fixtures", "apps", "shapes"), dir, { recursive: true });
  });

  afterAll(async () => {
    await cli(["destroy", "--yes", "--project", project]);
    await cli(["unlink"]);
    const left = images();
    if (left.length) execFileSync("docker", ["rmi", "-f", ...left], { stdio: "ignore" });
    rmSync(join(dir, ".."), { recursive: true, force: true });
    forgetProject(project);
  });

  it("plan says where each service is built from and how it installs", async () => {
    const r = ok(await cli(["plan", "--project", project]));
    expect(r.stdout).toContain("generated Dockerfile for ./services/api (built from the workspace root .)");
    expect(r.stdout).toContain(
      "uv workspace at ../..: installing with uv sync --frozen --no-dev --package shapes-api from the workspace's uv.lock",
    );
    expect(r.stdout).toContain("generated Dockerfile for ./apps/web (built from the workspace root .)");
    expect(r.stdout).toContain("pnpm workspace at ../..: installing with pnpm from the workspace's pnpm-lock.yaml");
    expect(r.stdout).toContain("pnpm 10.34.8 from package.json packageManager");
    expect(r.stdout).toContain("poetry.lock: installing with poetry export --only main (exact versions and hashes), then pip install");
    expect(r.stdout).toMatch(/legacy [\s\S]*app:\s+legacy\/api\.py assigns app/);
  }, 120_000);

  it("deploys every shape, and each serves through the edge", async () => {
    const r = ok(await cli(["deploy", "--yes", "--project", project]));
    console.log(`shapes first deploy: ${r.seconds.toFixed(0)} s`);
    urls = parseUrls(r.stdout);
    ca = ok(await cli(["ca"])).stdout;
    // The workspace library came from the root's uv.lock; the app was found in src/.
    expect(JSON.parse((await httpsRequest(`${urls.api}/hello/shapes`, ca)).body)).toEqual({
      message: "hello, shapes, from a workspace library",
    });
    // The pages router rendered with a workspace package, from the standalone server.
    const page = await httpsRequest(`${urls.web}/`, ca);
    expect(page.status).toBe(200);
    expect(page.body).toContain("hello, pages router, from a workspace package");
    expect(JSON.parse((await httpsRequest(`${urls.legacy}/health`, ca)).body)).toEqual({ status: "ok", installed_by: "poetry.lock" });
  }, 1_200_000);

  it("a second deploy of the same tree changes nothing (the workspace contexts hash the same)", async () => {
    const plan = JSON.parse(ok(await cli(["plan", "--json", "--project", project])).stdout);
    const ops = new Set(plan.services.flatMap((s: { deploy: Record<string, { op: string }> }) => Object.values(s.deploy).map((x) => x.op)));
    expect([...ops]).toEqual(["same"]);
  }, 300_000);
});
