// The fastapi recipe against real BuildKit: the catalog API's generated Dockerfile builds
// on the local base image, runs as a non-root user on $PORT, answers through a port
// published on 127.0.0.1, and a code-only change reuses the dependency layer. Nothing is
// skipped: no Docker engine or no base image fails the test with what to do.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { copyExample } from "./helpers/env.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFastapiRecipe, type Recipe, scanSource } from "../../src/plan/recipes/index.js";
import { buildCaFile } from "../../src/home/keys.js";

const execFileP = promisify(execFile);
const _ROOT = resolve(import.meta.dirname, "..", "..");
/** Debian's 20.10 client runs the engine's BuildKit; the newer client on PATH has no buildx. */
const DOCKER = process.env.PLATFORM_DOCKER_CLI ?? (existsSync("/usr/bin/docker") ? "/usr/bin/docker" : "docker");
const IMAGES = { python: "platform-local/python:3.11", node: "platform-local/node:22" };
const RUN_ID = `${process.pid}-${randomBytes(3).toString("hex")}`;
const TAG = `platform-test/recipes-catalog-api:${RUN_ID}`;
const CONTAINER = `platform-test-recipes-${RUN_ID}`;

const work = mkdtempSync(join(tmpdir(), "platform-recipes-build-"));
const context = join(work, "api");
let recipe: Recipe;
let baseUrl = "";

async function docker(args: string[], timeoutMs = 60_000): Promise<string> {
  try {
    const { stdout, stderr } = await execFileP(DOCKER, args, {
      env: { ...process.env, DOCKER_BUILDKIT: "1" },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `docker ${args.slice(0, 3).join(" ")} ... failed: ${err.message}\n${err.stderr ?? ""}${err.stdout ?? ""}`.slice(0, 8000),
    );
  }
}

/** Builds the recipe like the Image resource does: Dockerfile and its .dockerignore beside it, CA as a secret. */
async function build(): Promise<{ seconds: number; log: string }> {
  const dir = mkdtempSync(join(work, "dockerfile-"));
  writeFileSync(join(dir, "Dockerfile"), recipe.dockerfile);
  writeFileSync(join(dir, "Dockerfile.dockerignore"), recipe.dockerignore);
  const args = ["build", "--progress=plain", "-t", TAG, "-f", join(dir, "Dockerfile")];
  const ca = buildCaFile();
  if (ca) args.push("--secret", `id=ca,src=${ca}`);
  const started = Date.now();
  const log = await docker([...args, context], 600_000);
  return { seconds: (Date.now() - started) / 1000, log };
}

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(5000) });
  return { status: res.status, body: await res.json() };
}

describe("fastapi recipe, built with BuildKit (catalog API)", () => {
  beforeAll(async () => {
    await docker(["version"]).catch((e: Error) => {
      throw new Error(`a Docker engine is required (${DOCKER}): ${e.message}`);
    });
    await docker(["image", "inspect", IMAGES.python]).catch(() => {
      throw new Error(`base image ${IMAGES.python} is missing: run npm run setup (it builds the local base images)`);
    });
    copyExample("catalog/api", context);
    recipe = buildFastapiRecipe(await scanSource(context), IMAGES);
  });

  afterAll(async () => {
    await docker(["rm", "-f", CONTAINER]).catch(() => undefined);
    await docker(["rmi", "-f", TAG]).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  });

  it("builds, then rebuilds a code change without reinstalling dependencies", async () => {
    const first = await build();
    appendFileSync(join(context, "main.py"), "\n# a code-only change\n");
    const warm = await build();
    // The pip install step is the only one that mentions requirements.txt's install.
    const installStep = /#(\d+) \[build \d+\/\d+\] RUN --mount=type=secret,id=ca .*pip install -r requirements\.txt/.exec(warm.log);
    expect(installStep, warm.log).not.toBeNull();
    expect(warm.log).toMatch(new RegExp(`#${installStep![1]} CACHED`));
    console.log(
      `catalog api image: first build ${first.seconds.toFixed(1)} s (cold unless BuildKit cached it), code-change rebuild ${warm.seconds.toFixed(1)} s`,
    );
  }, 600_000);

  it("serves GET /products on a port published on 127.0.0.1, as a non-root user", async () => {
    await docker(["run", "-d", "--name", CONTAINER, "-e", "PORT=8080", "-p", "127.0.0.1::8080", TAG]);
    const port = (await docker(["port", CONTAINER, "8080/tcp"])).trim().split("\n")[0]!.split(":").pop();
    baseUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if ((await get("/health")).status === 200) break;
      } catch (e) {
        if (Date.now() > deadline)
          throw new Error(`no answer on ${baseUrl}: ${(e as Error).message}\n${await docker(["logs", CONTAINER])}`);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    const products = await get("/products");
    expect(products.status).toBe(200);
    expect(Array.isArray(products.body) && products.body.length).toBeGreaterThan(0);
    expect((products.body as Array<{ id: number }>)[0]).toMatchObject({ id: 1 });
    const missing = await get("/products/999999");
    expect(missing).toEqual({ status: 404, body: { detail: "product 999999 not found" } });
    expect((await docker(["exec", CONTAINER, "id", "-u"])).trim()).toBe("10001");
  }, 60_000);

  it("stops gracefully on SIGTERM (uvicorn is PID 1)", async () => {
    const started = Date.now();
    await docker(["stop", "-t", "10", CONTAINER]);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect((await docker(["inspect", "-f", "{{.State.ExitCode}}", CONTAINER])).trim()).toBe("0");
  }, 30_000);
});
