import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildFastapiRecipe, buildNextjsRecipe, RecipeError, scanSource } from "../../../../src/plan/recipes/index.js";
import { LOCAL } from "./snapshot.js";

const ROOT = resolve(import.meta.dirname, "..", "..", "..", "..");
const dirs: string[] = [];

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "scan-source-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("scanSource", () => {
  it("lists files to depth 3, skipping local state, and reads only what recipes use", async () => {
    const dir = tree({
      "main.py": "app = FastAPI()\n",
      "requirements.txt": "fastapi\n",
      "requirements/dev.txt": "pytest\n",
      "uv.lock": "version = 1\n",
      "pyproject.toml": "[project]\n",
      "README.md": "# hi\n",
      "pkg/sub/mod.py": "x = 1\n",
      "pkg/sub/deeper/too-deep.py": "",
      "node_modules/next/package.json": "{}",
      ".venv/bin/python": "",
      ".git/HEAD": "ref",
      "pkg/__pycache__/mod.cpython-311.pyc": "",
      ".next/cache/x": "",
      "notes/package.json": "{}",
    });
    symlinkSync(join(dir, "pkg"), join(dir, "linked-pkg"));
    const src = await scanSource(dir);
    expect(src.files).toEqual([
      "README.md",
      "main.py",
      "notes/package.json",
      "pkg/sub/mod.py",
      "pyproject.toml",
      "requirements.txt",
      "requirements/dev.txt",
      "uv.lock",
    ]);
    expect(src.read("main.py")).toBe("app = FastAPI()\n");
    expect(src.read("./requirements.txt")).toBe("fastapi\n");
    expect(src.read("requirements/dev.txt")).toBe("pytest\n");
    expect(src.read("pkg/sub/mod.py")).toBe("x = 1\n");
    expect(src.read("pyproject.toml")).toBe("[project]\n");
    // Presence only: lockfiles and other files are listed, not read.
    expect(src.read("uv.lock")).toBeUndefined();
    expect(src.read("README.md")).toBeUndefined();
    // Manifests count at the top of the service only.
    expect(src.read("notes/package.json")).toBeUndefined();
    expect(src.read("missing.py")).toBeUndefined();
  });

  it("keeps the head of a large module and skips a large manifest", async () => {
    const dir = tree({ "main.py": `app = FastAPI()\n${"#".repeat(100_000)}\n`, "package.json": `{"x":"${"y".repeat(300_000)}"}` });
    const src = await scanSource(dir);
    expect(src.read("main.py")?.length).toBe(32 * 1024);
    expect(src.read("main.py")?.startsWith("app = FastAPI()")).toBe(true);
    expect(src.read("package.json")).toBeUndefined();
    expect(src.files).toContain("package.json");
  });

  it("fails with a RecipeError for a missing directory", async () => {
    await expect(scanSource(join(tmpdir(), "does-not-exist-scan-source"))).rejects.toBeInstanceOf(RecipeError);
  });
});

describe("the examples build with their recipes", () => {
  it("catalog/api: requirements.txt and main:app", async () => {
    const recipe = buildFastapiRecipe(await scanSource(join(ROOT, "examples/catalog/api")), LOCAL);
    expect(recipe.notes).toEqual([
      "requirements.txt: installing with pip",
      "Python: no .python-version or requires-python; using platform-local/python:3.11",
      "app: main.py defines app = FastAPI(...); serving main:app",
      'start: exec uvicorn main:app --host 0.0.0.0 --port "$PORT"',
    ]);
  });

  it("catalog/traffic: pyproject.toml with uv.lock", async () => {
    const recipe = buildFastapiRecipe(await scanSource(join(ROOT, "examples/catalog/traffic")), LOCAL);
    expect(recipe.notes).toEqual([
      "uv.lock: installing with uv sync --frozen --no-dev",
      'Python: requires-python ">=3.11"; platform-local/python:3.11 has Python 3.11',
      "app: main.py defines app = FastAPI(...); serving main:app",
      'start: exec uvicorn main:app --host 0.0.0.0 --port "$PORT"',
    ]);
  });

  it("fullstack/web: npm, standalone", async () => {
    const recipe = buildNextjsRecipe(await scanSource(join(ROOT, "examples/fullstack/web")), LOCAL);
    expect(recipe.notes).toEqual([
      "package-lock.json: installing with npm",
      'next.config.mjs: output "standalone": running node server.js',
      "the image's npm, for package-lock.json lockfileVersion 3 (npm 7 and later read it)",
      'Node: engines.node ">=20"; platform-local/node:22 has Node 22',
      "start: node server.js",
    ]);
  });

  it("fullstack/api would also be found by the recipe (it ships its own Dockerfile)", async () => {
    const recipe = buildFastapiRecipe(await scanSource(join(ROOT, "examples/fullstack/api")), LOCAL);
    expect(recipe.start[2]).toBe('exec uvicorn app.main:app --host 0.0.0.0 --port "$PORT"');
  });
});

describe("scanSource: workspaces above the service directory", () => {
  const uvRoot = {
    "pyproject.toml": '[project]\nname = "ws"\n[tool.uv.workspace]\nmembers = ["services/*"]\n',
    "uv.lock": "version = 1\n",
    "services/api/pyproject.toml": '[project]\nname = "api"\ndependencies = ["fastapi"]\n',
    "services/api/main.py": "from fastapi import FastAPI\napp = FastAPI()\n",
  };

  it("finds the uv workspace root that holds the lockfile, and the recipe builds from it", async () => {
    const dir = tree(uvRoot);
    const src = await scanSource(join(dir, "services/api"), dir);
    expect(src.workspace).toMatchObject({ kind: "uv", root: "../..", member: "services/api" });
    expect(src.workspace?.snapshot.files).toContain("uv.lock");
    const recipe = buildFastapiRecipe(src, LOCAL);
    expect(recipe.context).toEqual({ root: "../..", member: "services/api" });
    expect(recipe.dockerfile).toMatch(/uv sync --frozen --no-dev --no-install-workspace --package api/);
    expect(recipe.dockerfile).toMatch(/uv sync --frozen --no-dev --no-editable --inexact --package api/);
    expect(recipe.dockerfile).toMatch(/^WORKDIR \/app\/services\/api$/m);
    expect(recipe.dockerignore).toMatch(/^\*\*\/\.venv$/m);
  });

  it("looks no higher than the project directory, and not at all when the service has its own lockfile", async () => {
    const dir = tree(uvRoot);
    expect((await scanSource(join(dir, "services/api"), join(dir, "services"))).workspace).toBeUndefined();
    expect((await scanSource(join(dir, "services/api"))).workspace).toBeUndefined();
    const own = tree({ ...uvRoot, "services/api/requirements.txt": "fastapi\n" });
    expect((await scanSource(join(own, "services/api"), own)).workspace).toBeUndefined();
  });

  it("a uv.lock beside a pyproject that declares no workspace is not a workspace", async () => {
    const dir = tree({ ...uvRoot, "pyproject.toml": '[project]\nname = "ws"\n' });
    expect((await scanSource(join(dir, "services/api"), dir)).workspace).toBeUndefined();
  });

  it("finds a pnpm workspace (pnpm-workspace.yaml and pnpm-lock.yaml) for a package.json member", async () => {
    const dir = tree({
      "package.json": '{"private": true}\n',
      "pnpm-workspace.yaml": "packages:\n  - apps/*\n",
      "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
      "apps/web/package.json": '{"name": "web", "dependencies": {"next": "15.0.0"}}\n',
    });
    const src = await scanSource(join(dir, "apps/web"), dir);
    expect(src.workspace).toMatchObject({ kind: "pnpm", root: "../..", member: "apps/web" });
  });
});
