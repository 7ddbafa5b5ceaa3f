import { describe, expect, it } from "vitest";
import { buildNodeWorkerRecipe, findStartDevDependencies } from "../../../../src/plan/recipes/node-worker.js";
import { detectNodePackage } from "../../../../src/plan/recipes/detect-node-project.js";
import { buildWorkerRecipe } from "../../../../src/plan/worker.js";
import { LOCAL, snapshot, stage } from "./snapshot.js";

const PKG = JSON.stringify({ name: "jobs", dependencies: { redis: "^4.7.0" } });

describe("buildNodeWorkerRecipe", () => {
  it("installs from the lockfile, keeps no dev dependencies, and runs start as the command", () => {
    const recipe = buildNodeWorkerRecipe(snapshot({ "package.json": PKG, "package-lock.json": null, "worker.js": null }), LOCAL, {
      start: "node worker.js",
    });
    const build = stage(recipe.dockerfile, 0);
    expect(build).toEqual(
      expect.arrayContaining(["COPY package.json package.json", "COPY package-lock.json package-lock.json", "COPY . ."]),
    );
    expect(build.find((l) => l.includes("npm ci"))).toMatch(/npm ci --no-audit --no-fund'$/);
    expect(build.find((l) => l.includes("npm prune"))).toMatch(/npm prune --omit=dev/);
    expect(build.some((l) => l.includes("run build"))).toBe(false);
    const final = stage(recipe.dockerfile, 1);
    expect(final[0]).toBe(`FROM ${LOCAL.node}`);
    expect(final).toContain("ENV NODE_ENV=production");
    // npm run <script> then execs the script's command: a stop reaches the worker, not only a shell.
    expect(final).toContain("ENV npm_config_script_shell=/bin/bash");
    expect(final).toContain("COPY --from=build --chown=app:app /app ./");
    expect(final.at(-2)).toBe("USER app");
    expect(final.at(-1)).toBe('CMD ["/bin/sh","-c","exec node worker.js"]');
    expect(final.some((l) => l.startsWith("EXPOSE"))).toBe(false);
    expect(recipe.port).toBe(0);
    expect(recipe.summary.start).toBe("start: exec node worker.js (platform.yml start)");
    expect(recipe.summary.install).toBe("package-lock.json: installing with npm");
    expect(recipe.notes).toContain("no build script: the source runs as it is");
  });

  it("runs the build script with the service's variables (TypeScript compiled by tsc, a dev dependency)", () => {
    const pkg = JSON.stringify({
      scripts: { build: "tsc", worker: "node dist/worker.js" },
      dependencies: { ioredis: "5" },
      devDependencies: { typescript: "5" },
    });
    const recipe = buildNodeWorkerRecipe(snapshot({ "package.json": pkg, "pnpm-lock.yaml": "lockfileVersion: '9.0'\n" }), LOCAL, {
      start: "pnpm run worker",
    });
    const build = stage(recipe.dockerfile, 0);
    const run = build.findIndex((l) => l.includes("pnpm run build"));
    expect(build[run - 1]).toBe("ARG PLATFORM_BUILD_ENV_HASH");
    expect(build[run]).toContain("--mount=type=secret,id=platform-env");
    expect(build.findIndex((l) => l.includes("pnpm prune --prod"))).toBeGreaterThan(run);
    expect(recipe.notes).toContain('build script: "tsc"');
    expect(recipe.summary.app).toBe('build script: "tsc"');
  });

  it("keeps dev dependencies that start runs, directly or through a script, and says so", () => {
    const pkg = JSON.stringify({ scripts: { worker: "tsx src/worker.ts" }, devDependencies: { tsx: "4", typescript: "5" } });
    const recipe = buildNodeWorkerRecipe(snapshot({ "package.json": pkg, "package-lock.json": null }), LOCAL, { start: "npm run worker" });
    expect(recipe.dockerfile).not.toContain("npm prune");
    expect(recipe.notes).toContain("start runs tsx, a devDependency: dev dependencies are kept in the image");
  });

  it("starts with the OpenTelemetry preload in its own stage when instrumented", () => {
    const recipe = buildNodeWorkerRecipe(snapshot({ "package.json": PKG }), LOCAL, { start: ["node", "worker.js"], instrument: true });
    expect(recipe.dockerfile).toMatch(
      /ENV NODE_OPTIONS="--require \/opt\/platform\/platform-drain\.cjs --require \S+platform-register\.cjs"/,
    );
    expect(recipe.dockerfile).toContain('CMD ["node","worker.js"]');
    expect(recipe.notes[0]).toMatch(/^no lockfile .*installing with npm install/);
  });

  it("keeps bun in the image only when start runs it", () => {
    const files = { "package.json": PKG, "bun.lock": null };
    expect(buildNodeWorkerRecipe(snapshot(files), LOCAL, { start: "bun worker.ts" }).dockerfile).toContain(
      "COPY --from=build /usr/local/bin/bun /usr/local/bin/bun",
    );
    expect(buildNodeWorkerRecipe(snapshot(files), LOCAL, { start: "node worker.js" }).dockerfile).not.toContain(
      "/usr/local/bin/bun /usr/local/bin/bun",
    );
  });

  it("installs a pnpm workspace member from the workspace root and runs in the member", () => {
    const root = snapshot({
      "package.json": '{"private": true, "packageManager": "pnpm@10.34.8"}',
      "pnpm-lock.yaml": null,
      "pnpm-workspace.yaml": "packages:\n  - apps/*\n",
      "apps/jobs/package.json": null,
    });
    const src = {
      ...snapshot({ "package.json": PKG }),
      workspace: { kind: "pnpm" as const, root: "../..", member: "apps/jobs", snapshot: root },
    };
    const recipe = buildNodeWorkerRecipe(src, LOCAL, { start: "node worker.js" });
    expect(recipe.context).toEqual({ root: "../..", member: "apps/jobs" });
    expect(stage(recipe.dockerfile, 0)).toContain("COPY apps/jobs/package.json apps/jobs/package.json");
    expect(stage(recipe.dockerfile, 1)).toContain("WORKDIR /app/apps/jobs");
    expect(recipe.notes).toContain("pnpm workspace: dev dependencies are kept in the image");
  });

  it("needs start and a package.json", () => {
    expect(() => buildNodeWorkerRecipe(snapshot({ "package.json": PKG }), LOCAL, {})).toThrow(/needs start/);
    expect(() => buildNodeWorkerRecipe(snapshot({ "worker.js": null }), LOCAL, { start: "node worker.js" })).toThrow(/no package\.json/);
  });
});

describe("findStartDevDependencies", () => {
  const pkg = (json: object) => detectNodePackage(snapshot({ "package.json": JSON.stringify(json) }), "");
  it.each([
    ["tsx worker.ts", ["tsx"]],
    ["node -r ts-node/register worker.ts", ["ts-node"]],
    ["node_modules/.bin/tsx worker.ts", ["tsx"]],
    ["yarn jobs", ["tsx"]],
    ["node dist/worker.js", []],
    ["node tsx-free.js", []],
  ])("%s -> %j", (start, want) => {
    const p = pkg({ scripts: { jobs: "tsx w.ts" }, devDependencies: { tsx: "4", "ts-node": "10", typescript: "5" } });
    expect(findStartDevDependencies(start, p)).toEqual(want);
  });
});

describe("buildWorkerRecipe picks the recipe by what the directory holds", () => {
  it("a package.json alone is a Node worker; Python markers win beside one", () => {
    expect(buildWorkerRecipe(snapshot({ "package.json": PKG }), LOCAL, { start: "node w.js" }).dockerfile).toContain("Node.js worker");
    const both = buildWorkerRecipe(snapshot({ "package.json": PKG, "requirements.txt": "redis\n" }), LOCAL, { start: "python w.py" });
    expect(both.baseImage).toBe(LOCAL.python);
  });

  it("neither: says what a source worker can be", () => {
    expect(() => buildWorkerRecipe(snapshot({ "main.go": null }), LOCAL, { start: "x" })).toThrow(/no Python or Node\.js project here/);
  });
});

describe("buildNodeWorkerRecipe: a migration that runs a devDependency (knex, a TypeScript runner)", () => {
  const pkg = JSON.stringify({ name: "jobs", dependencies: { pg: "^8" }, devDependencies: { knex: "^3" } });
  const files = { "package.json": pkg, "package-lock.json": null, "worker.js": null };

  it("runs from the build stage; the prune moves to a stage of its own, which the image copies", () => {
    const recipe = buildNodeWorkerRecipe(snapshot(files), LOCAL, { start: "node worker.js", migrate: true });
    expect(recipe.migrateTarget).toBe("migrate");
    expect(recipe.dockerfile).toMatch(/FROM build AS migrate\nENV NODE_ENV=production\n.*\nUSER app/);
    expect(recipe.dockerfile).toMatch(/FROM build AS pruned\nRUN .*npm prune --omit=dev/);
    expect(recipe.dockerfile).toContain("COPY --from=pruned --chown=app:app /app ./");
    expect(recipe.notes.some((n) => n.startsWith("migrate: runs from the build stage"))).toBe(true);
  });

  it("without a migration, the build stage prunes and the image copies it, as before", () => {
    const recipe = buildNodeWorkerRecipe(snapshot(files), LOCAL, { start: "node worker.js" });
    expect(recipe.migrateTarget).toBeUndefined();
    expect(recipe.dockerfile).not.toContain("AS pruned");
    expect(recipe.dockerfile).toContain("COPY --from=build --chown=app:app /app ./");
  });
});
