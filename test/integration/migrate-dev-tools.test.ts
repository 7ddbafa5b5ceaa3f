import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls } from "./helpers/cli.js";
import { fixtureApp } from "./helpers/fixture-app.js";

/**
 * Issue 46 item 1 on the real engine: a Next.js app shaped like a default create-t3-app
 * (test/fixtures/apps/t3-drizzle: Drizzle on postgres.js) deploys with its README's migration,
 * `npm run db:push`, although drizzle-kit is a devDependency: the migration runs from the build
 * stage (every dependency), and the service's image keeps none of the dev dependencies.
 */
const { project, cli } = fixtureApp("t3-drizzle", "t3dz");
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();

describe("a migration that runs a devDependency (create-t3-app's npm run db:push, Docker)", () => {
  it("platform plan says where the migration runs from", async () => {
    const r = ok(await cli("plan", "--project", project, "--no-preview"));
    expect(r.stdout).toMatch(
      /migrate: +npm run db:push \(timeout \d+s, on_failure abort\); from the build stage, every dependency \(dev ones too\)/,
    );
  }, 120_000);

  it("deploys: drizzle-kit pushes the schema from the build stage, and the page reads the table it made", async () => {
    const r = ok(await cli("deploy", "--yes", "--project", project));
    expect(r.stdout).toContain("web: migrated");
    const url = parseUrls(r.stdout).web as string;
    const ca = ok(await cli("ca")).stdout;
    const page = await httpsRequest(url, ca, { timeoutMs: 30_000 });
    expect(page.status, page.body).toBe(200);
    expect(page.body).toMatch(/posts: <!-- -->0|posts: 0/);
  }, 900_000);

  it("the service's image has no dev dependency; the migration's image is the build stage, not shipped", async () => {
    const container = docker("ps", "-q", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=web");
    const image = docker("inspect", "-f", "{{.Config.Image}}", container);
    expect(image).toMatch(new RegExp(`^platform/${project}_web:`));
    const has = (img: string, path: string) =>
      docker("run", "--rm", "--entrypoint", "sh", img, "-c", `test -e ${path} && echo yes || echo no`);
    expect(has(image, "node_modules/drizzle-kit")).toBe("no");
    expect(has(image, "node_modules/drizzle-orm")).toBe("yes");
  }, 120_000);
});
