import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseImages } from "../../src/home/images.js";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, requireToolchain, ROOT, unique } from "./helpers/env.js";

/**
 * Issue #27, prebuilt images on the real engine: a service with `image:` (a local tag here, as
 * no registry is reachable) runs that image; the tag moved to new content is picked up by the
 * next deploy; the deployment record pins the image id, so a rollback runs the first image
 * exactly although its tag now names another.
 */
const project = unique("pbi");
const tag = `local/${project}:1.0`;
const backend = freshBackend();
const dir = mkdtempSync(join(tmpdir(), "platform-prebuilt-"));
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
let url = "";
let edgeCa = "";
const ids: string[] = [];

function buildTagged(version: string): string {
  const r = spawnSync(
    "/usr/bin/docker",
    ["build", "-q", "--build-arg", `PLATFORM_PYTHON_IMAGE=${baseImages().python}`, "--build-arg", `VERSION=${version}`, "-t", tag, "."],
    { cwd: join(ROOT, "test", "fixtures", "apps", "prebuilt"), encoding: "utf8", env: { ...process.env, DOCKER_BUILDKIT: "1" } },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

const answer = async () => (await httpsRequest(url, edgeCa, { timeoutMs: 30_000 })).body;
/** The full id of the image the service's container runs. */
function runningImage(): string {
  const id = execFileSync("docker", ["ps", "-q", "--filter", `label=platform.project=${project}`], { encoding: "utf8" }).trim();
  return execFileSync("docker", ["inspect", "-f", "{{.Image}}", id], { encoding: "utf8" }).trim();
}

describe("prebuilt image: services (Docker)", () => {
  beforeAll(() => {
    requireToolchain();
    writeFileSync(
      join(dir, "platform.yml"),
      `version: "1.0"\nname: ${project}\nservices:\n  web:\n    type: fastapi\n    image: ${tag}\n    public: true\n`,
    );
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--project", project);
    spawnSync("docker", ["rmi", "-f", tag, ...ids]);
    rmSync(dir, { recursive: true, force: true });
    forgetProject(project);
  });

  it("runs the image by its id, follows the tag to new content, and rolls back to the exact first image", async () => {
    ids.push(buildTagged("v1"));
    const first = ok(await cli("deploy", "--yes", "--project", project));
    url = parseUrls(first.stdout).web as string;
    edgeCa = ok(await cli("ca")).stdout;
    expect(await answer()).toBe("v1");
    expect(runningImage()).toBe(ids[0]);

    ids.push(buildTagged("v2"));
    expect(ids[1]).not.toBe(ids[0]);
    ok(await cli("deploy", "--yes", "--project", project));
    expect(await answer()).toBe("v2");
    expect(runningImage()).toBe(ids[1]);

    const history = JSON.parse(ok(await cli("deployments", "--json", "--project", project)).stdout);
    const records = (Array.isArray(history) ? history : history.deployments) as {
      id: string;
      images?: Record<string, { tag: string; hash: string }>;
    }[];
    expect(records.map((r) => r.images?.web)).toEqual(
      expect.arrayContaining([
        { tag, hash: ids[0] },
        { tag, hash: ids[1] },
      ]),
    );

    // The tag now names v2; the rollback runs v1's image id all the same.
    ok(await cli("rollback", "--project", project));
    expect(await answer()).toBe("v1");
    expect(runningImage()).toBe(ids[0]);
  }, 600_000);

  it("says what to do when the image is on no registry this engine can reach", async () => {
    writeFileSync(
      join(dir, "platform.yml"),
      `version: "1.0"\nname: ${project}\nservices:\n  web:\n    type: fastapi\n    image: ${tag}-missing\n    public: true\n`,
    );
    const r = await cli("deploy", "--yes", "--project", project);
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/is not on this engine and pulling it failed/);
    expect(`${r.stdout}${r.stderr}`).toMatch(/docker login|docker load/);
    expect(await answer()).toBe("v1");
  }, 300_000);
});
