import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ok, runCli } from "./helpers/cli.js";
import { ROOT, forgetProject, freshBackend, removeProjectImages, requireToolchain, unique } from "./helpers/env.js";

/**
 * Issue #27, a Node.js worker from source on the real engine (test/fixtures/apps/node-worker): a
 * package.json with a lockfile and a build script, beside a managed Redis. The Node recipe
 * installs it (npm ci), runs the build with the service's variables, prunes, and starts it with
 * platform.yml's `start: npm run worker`; jobs pushed into Redis come back done; the Redis switched
 * to `auth: none` keeps its data and the worker follows; a stop reaches the worker's own SIGTERM
 * handler through npm.
 */
const project = unique("nwk");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-node-worker-")), "app");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const redisCli = async (...args: string[]) => ok(await cli("exec", "--project", project, "queue", "--", "redis-cli", ...args)).stdout;

describe("a Node.js worker built from source (Docker)", () => {
  beforeAll(() => {
    requireToolchain();
    cpSync(join(ROOT, "test", "fixtures", "apps", "node-worker"), dir, { recursive: true });
    const yml = join(dir, "platform.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("name: node-worker", `name: ${project}`));
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    removeProjectImages(project);
    rmSync(join(dir, ".."), { recursive: true, force: true });
    forgetProject(project);
  });

  it("builds with the Node recipe, runs start, and processes jobs from Redis", async () => {
    const r = ok(await cli("deploy", "--yes", "--project", project));
    expect(r.stdout).toContain("note: worker: package-lock.json: installing with npm");
    expect(r.stdout).toContain('note: worker: build script: "node build.mjs"');
    expect(r.stdout).toContain("note: worker: start: exec npm run worker (platform.yml start)");
    expect(r.stdout).toMatch(/worker: healthy/);
    await redisCli("RPUSH", "jobs", "a", "b", "c");
    let done = "";
    for (let i = 0; i < 40 && done.split("\n").filter(Boolean).length < 3; i++) {
      await new Promise((res) => setTimeout(res, 250));
      done = await redisCli("LRANGE", "done", "0", "-1");
    }
    expect(done.split("\n").filter(Boolean)).toEqual(["done:a", "done:b", "done:c"]);
    const logs = ok(await cli("logs", "--project", project, "worker")).stdout;
    expect(logs).toContain("node worker: ready (built with fixture)");
  }, 600_000);

  it("auth: none: the Redis is replaced without a password, its data kept, and the worker follows its new URL", async () => {
    const yml = join(dir, "platform.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("    type: redis\n", "    type: redis\n    auth: none\n"));
    ok(await cli("deploy", "--yes", "--project", project));
    expect((await redisCli("CONFIG", "GET", "requirepass")).split("\n").filter(Boolean)).toEqual(["requirepass"]);
    await redisCli("RPUSH", "jobs", "d");
    let done: string[] = [];
    for (let i = 0; i < 40 && done.length < 4; i++) {
      await new Promise((res) => setTimeout(res, 250));
      done = (await redisCli("LRANGE", "done", "0", "-1")).split("\n").filter(Boolean);
    }
    expect(done).toEqual(["done:a", "done:b", "done:c", "done:d"]);
  }, 300_000);

  it("a stop reaches the worker's SIGTERM handler through npm", async () => {
    const id = execFileSync(
      "docker",
      ["ps", "-q", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=worker"],
      { encoding: "utf8" },
    ).trim();
    const started = Date.now();
    execFileSync("docker", ["stop", "-t", "20", id]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(execFileSync("docker", ["logs", id], { encoding: "utf8" })).toContain("node worker: SIGTERM, stopping");
    expect(execFileSync("docker", ["inspect", "-f", "{{.State.ExitCode}}", id], { encoding: "utf8" }).trim()).toBe("0");
  }, 60_000);
});
