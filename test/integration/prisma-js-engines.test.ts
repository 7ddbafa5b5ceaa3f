import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls } from "./helpers/cli.js";
import { fixtureApp } from "./helpers/fixture-app.js";

/**
 * Issue 46 item 2 on the real engine: a Next.js + Prisma + PostgreSQL app
 * (test/fixtures/apps/next-prisma: `prisma` a devDependency, `npx prisma migrate deploy` as its
 * migration) deploys on a machine that cannot reach binaries.prisma.sh, on Prisma's JavaScript
 * engines: `prisma generate` and the client on the query compiler, the migration through the
 * driver adapter (the WebAssembly schema engine), from the build stage. The page writes a row and
 * counts them in the table the migration made; the service's image has no dev dependency.
 */
const { project, cli } = fixtureApp("next-prisma", "nprs");
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();

describe("Prisma on its JavaScript engines, offline (Next.js 15, Prisma 6.19, Docker)", () => {
  it("platform plan says which engines Prisma runs on, and where the migration runs from", async () => {
    const r = ok(await cli("plan", "--project", project, "--no-preview"));
    expect(r.stdout).toMatch(/^ {2}prisma: +its JavaScript engines .*nothing fetched from binaries\.prisma\.sh$/m);
    expect(r.stdout).toMatch(/migrate: +npx prisma migrate deploy \(timeout \d+s, on_failure abort\); from the build stage/);
  }, 120_000);

  it("deploys: prisma migrate deploy makes the table, and each page view writes a row through the client", async () => {
    const r = ok(await cli("deploy", "--yes", "--project", project));
    expect(r.stdout).toContain("web: migrated");
    // Nothing asked binaries.prisma.sh for an engine (plan's note names the host only to say so).
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/https:\/\/binaries\.prisma\.sh|diagnosis:/);
    const url = parseUrls(r.stdout).web as string;
    const ca = ok(await cli("ca")).stdout;
    const count = async () => {
      const page = await httpsRequest(url, ca, { timeoutMs: 30_000 });
      expect(page.status, page.body).toBe(200);
      return Number(/posts: (?:<!-- -->)?(\d+)/.exec(page.body)?.[1]);
    };
    const first = await count();
    expect(first).toBeGreaterThan(0);
    expect(await count()).toBe(first + 1);
  }, 900_000);

  // npm keeps a devDependency that a dependency names as its peer: @prisma/client does so for
  // prisma (optional), so the CLI stays in the image, as with `npm prune --omit=dev` anywhere.
  it("the service's image has no dev dependency but the one npm keeps as a peer (prisma); the generated client and its adapter", async () => {
    const container = docker("ps", "-q", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=web");
    const image = docker("inspect", "-f", "{{.Config.Image}}", container);
    const has = (path: string) => docker("run", "--rm", "--entrypoint", "sh", image, "-c", `test -e ${path} && echo yes || echo no`);
    expect(has("node_modules/@types/pg")).toBe("no");
    expect(has("node_modules/prisma")).toBe("yes");
    expect(has("node_modules/.prisma/client/index.js")).toBe("yes");
    expect(has("node_modules/@prisma/adapter-pg")).toBe("yes");
  }, 120_000);
});
