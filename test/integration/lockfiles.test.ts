import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, requireToolchain, ROOT, unique } from "./helpers/env.js";

/**
 * Lockfiles that name the package manager by their version, with no packageManager field
 * (test/fixtures/apps/lockfiles, lockfiles written here by pnpm 8.15.9 and yarn 3.8.7 from the
 * npm registry): each builds with that release and says so in plan; the page, rendered by
 * next build, shows the user agent of the manager that ran the build. Then a Next.js page whose
 * prerender fetches a host no build reaches (test/fixtures/apps/prerender-fetch): the deploy
 * fails with one diagnosis line above the log tail.
 */
const images = (project: string) =>
  execFileSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", `platform/${project}_*`])
    .toString()
    .split("\n")
    .filter(Boolean);

function fixture(name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), `platform-${name}-`)), "repo");
  cpSync(join(ROOT, "test", "fixtures", "apps", name), dir, { recursive: true });
  return dir;
}

async function cleanUp(project: string, dir: string, env: Record<string, string>): Promise<void> {
  await runCli(["destroy", "--yes", "--project", project], { cwd: dir, env });
  await runCli(["unlink"], { cwd: dir, env });
  const left = images(project);
  if (left.length) execFileSync("docker", ["rmi", "-f", ...left], { stdio: "ignore" });
  rmSync(join(dir, ".."), { recursive: true, force: true });
  forgetProject(project);
}

describe("package managers by lockfile version: pnpm 8 and yarn berry 3", () => {
  const project = unique("lockfiles");
  const backend = freshBackend();
  const dir = fixture("lockfiles");
  const cli = (args: string[]) => runCli(args, { cwd: dir, env: backend });

  beforeAll(() => requireToolchain());
  afterAll(() => cleanUp(project, dir, backend), 300_000);

  it("plan says which release each lockfile gets, and why", async () => {
    const r = ok(await cli(["plan", "--project", project]));
    expect(r.stdout).toContain(
      "install:    pnpm-lock.yaml: installing with pnpm; pnpm 8.15.9, for pnpm-lock.yaml lockfileVersion 6.0 (written by pnpm 8; pnpm 10 and later refuse it)",
    );
    expect(r.stdout).toContain(
      "install:    yarn.lock: installing with yarn (berry); yarn 3.8.7, for yarn.lock __metadata version 6 (written by yarn 3.2 to 3.8; an immutable install refuses another release's lockfile version)",
    );
    expect(r.stdout).toContain(
      "fallback:   .yarnrc.yml sets no nodeLinker (yarn's default is Plug'n'Play), but next start and the standalone output need node_modules: installing with nodeLinker node-modules (the same yarn.lock)",
    );
  }, 120_000);

  it("deploys both: each page was built by the release the lockfile asked for", async () => {
    const r = ok(await cli(["deploy", "--yes", "--project", project]));
    console.log(`lockfiles deploy (pnpm 8 and yarn 3 Next.js builds): ${r.seconds.toFixed(0)} s`);
    const urls = parseUrls(r.stdout);
    const ca = ok(await cli(["ca"])).stdout;
    for (const [service, agent] of [
      ["pnpm8", "pnpm/8.15.9"],
      ["berry", "yarn/3.8.7"],
    ] as const) {
      const page = await httpsRequest(`${urls[service]}/`, ca);
      expect(page.status, service).toBe(200);
      expect(page.body).toContain(`built by ${agent}`);
      expect(JSON.parse((await httpsRequest(`${urls[service]}/api/health`, ca)).body)).toEqual({ status: "ok" });
    }
  }, 1_200_000);
});

describe("a prerender whose fetch fails: one diagnosis line", () => {
  const project = unique("prerender");
  const backend = freshBackend();
  const dir = fixture("prerender-fetch");

  beforeAll(() => requireToolchain());
  afterAll(() => cleanUp(project, dir, backend), 300_000);

  it("the deploy fails and says which page, which host, and what to do, above the log tail", async () => {
    const r = await runCli(["deploy", "--yes", "--project", project], { cwd: dir, env: backend });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const lines = r.stderr.split("\n").map((l) => l.trim());
    const at = lines.indexOf(
      'diagnosis: next build prerenders /, and a fetch there failed (api.example.invalid): render the page at request time (export const dynamic = "force-dynamic" in its page or layout), or make what it fetches reachable from the build',
    );
    expect(at, r.stderr).toBeGreaterThan(0);
    expect(lines[at - 1]).toBe("build of web failed (exit 1)");
    expect(lines[at + 1]).toMatch(/^--- last \d+ lines ---$/);
    expect(r.stderr).toContain('Error occurred prerendering page "/"');
  }, 900_000);
});
