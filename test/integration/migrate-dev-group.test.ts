import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls } from "./helpers/cli.js";
import { fixtureApp } from "./helpers/fixture-app.js";

/**
 * Issue 46 item 1 for Python: a FastAPI app whose migration tool is in a dependency group
 * (test/fixtures/apps/alembic-dev-group: alembic in uv's [dependency-groups] dev) deploys with
 * `alembic upgrade head`: the migration runs from a stage with every group installed, and the
 * service's image keeps only the runtime dependencies.
 */
const { project, cli } = fixtureApp("alembic-dev-group", "algr");
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();

describe("a migration whose tool is in a Python dependency group (uv's dev group, Docker)", () => {
  it("platform plan says where the migration runs from", async () => {
    const r = ok(await cli("plan", "--project", project, "--no-preview"));
    expect(r.stdout).toMatch(/migrate: +alembic upgrade head \(timeout \d+s, on_failure abort\); from the build stage, every dependency/);
  }, 120_000);

  it("deploys: alembic makes the table from the migrate stage, and the API reads it", async () => {
    const r = ok(await cli("deploy", "--yes", "--project", project));
    expect(r.stdout).toContain("api: migrated");
    const url = parseUrls(r.stdout).api as string;
    const ca = ok(await cli("ca")).stdout;
    const page = await httpsRequest(`${url}/notes`, ca, { timeoutMs: 30_000 });
    expect(page.status, page.body).toBe(200);
    expect(JSON.parse(page.body)).toEqual({ notes: 0 });
  }, 900_000);

  it("the service's image has no alembic; the migration's image has it", async () => {
    const image = (service: string) =>
      docker("images", "--format", "{{.Repository}}:{{.Tag}}", `platform/${project}_${service}`).split("\n").filter(Boolean)[0] as string;
    const imports = (img: string) =>
      docker("run", "--rm", "--entrypoint", "sh", img, "-c", "python -c 'import alembic' 2>/dev/null && echo yes || echo no");
    expect(imports(image("api"))).toBe("no");
    expect(imports(image("api-migrate"))).toBe("yes");
  }, 120_000);
});
