import { describe, expect, it } from "vitest";
import { matchesNodeRange } from "../../../../src/plan/recipes/detect-node-project.js";
import { buildNextjsRecipe, RecipeError } from "../../../../src/plan/recipes/index.js";
import { LOCAL, PUBLIC, snapshot, stage } from "./snapshot.js";
import { buildNodeDrainStep } from "../../../../src/plan/recipes/node-drain.js";
import { buildNextScriptsStep, wrapNextBuild } from "../../../../src/plan/recipes/next-build-scripts.js";

const STANDALONE = 'const nextConfig = { output: "standalone" };\nexport default nextConfig;\n';
/** corepack's hash of pnpm 9.12.0 (the sha512 of its npm tarball, as `corepack use pnpm@9.12.0` writes it). */
const PNPM_9_12_0_SHA512 =
  "4abf725084d7bcbafbd728bfc7bee61f2f791f977fd87542b3579dcb23504d170d46337945e4c66485cd12d588a0c0e570ed9c477e7ccdd8507cf05f3f92eaca";
const pkg = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    name: "web",
    scripts: { build: "next build", start: "next start" },
    dependencies: { next: "15.5.29", react: "19.3.1", "react-dom": "19.3.1" },
    ...extra,
  });

describe("buildNextjsRecipe: package managers", () => {
  const cases: Array<{
    name: string;
    files: Record<string, string | null>;
    manifests: string[];
    install: string;
    build: string;
    note: string;
  }> = [
    {
      name: "npm with package-lock.json",
      files: { "package.json": pkg(), "package-lock.json": null },
      manifests: ["package.json", "package-lock.json"],
      install: "npm ci --no-audit --no-fund",
      build: "npm run build",
      note: "package-lock.json: installing with npm",
    },
    {
      name: "pnpm with pnpm-lock.yaml and a packageManager version",
      files: {
        "package.json": pkg({ packageManager: `pnpm@9.12.0+sha512.${PNPM_9_12_0_SHA512}` }),
        "pnpm-lock.yaml": null,
        ".npmrc": "auto-install-peers=true\n",
      },
      manifests: ["package.json", "pnpm-lock.yaml", ".npmrc"],
      install:
        '([ "$(cd / && pnpm --version 2>/dev/null)" = "9.12.0" ] || (cd /tmp && npm pack pnpm@9.12.0 --silent >/dev/null' +
        ` && { [ "$(cat /tmp/pnpm-9.12.0.tgz | sha512sum | cut -d " " -f 1)" = "${PNPM_9_12_0_SHA512}" ]` +
        ' || { echo "pnpm@9.12.0 from the registry does not match the sha512 in package.json packageManager" >&2; exit 1; }; }' +
        " && npm install -g --force /tmp/pnpm-9.12.0.tgz && rm /tmp/pnpm-9.12.0.tgz)) && pnpm install --frozen-lockfile",
      build: "pnpm run build",
      note: "pnpm-lock.yaml: installing with pnpm",
    },
    {
      name: "yarn classic with yarn.lock",
      files: { "package.json": pkg(), "yarn.lock": null },
      manifests: ["package.json", "yarn.lock"],
      install:
        '([ "$(cd / && yarn --version 2>/dev/null)" = "1.22.22" ] || npm install -g --force yarn@1.22.22) && yarn install --non-interactive --frozen-lockfile',
      build: "yarn run build",
      note: "yarn.lock: installing with yarn",
    },
    {
      name: "pnpm without a packageManager version: the platform's pin",
      files: { "package.json": pkg(), "pnpm-lock.yaml": null },
      manifests: ["package.json", "pnpm-lock.yaml"],
      install:
        '([ "$(cd / && pnpm --version 2>/dev/null)" = "10.34.8" ] || npm install -g --force pnpm@10.34.8) && pnpm install --frozen-lockfile',
      build: "pnpm run build",
      note: "pnpm 10.34.8 (the platform's pin; set packageManager in package.json to choose)",
    },
    {
      name: "yarn berry (.yarnrc.yml)",
      files: {
        "package.json": pkg({ packageManager: "yarn@4.5.0" }),
        "yarn.lock": null,
        ".yarnrc.yml": "nodeLinker: node-modules\n",
        ".yarn/releases/yarn-4.5.0.cjs": null,
      },
      manifests: ["package.json", "yarn.lock", ".yarnrc.yml", ".yarn/releases/yarn-4.5.0.cjs"],
      install:
        '([ "$(cd / && yarn --version 2>/dev/null)" = "4.5.0" ] || npm install -g --force @yarnpkg/cli-dist@4.5.0) && yarn install --immutable',
      build: "yarn run build",
      note: "yarn 4.5.0 from package.json packageManager",
    },
    {
      name: "no lockfile",
      files: { "package.json": pkg() },
      manifests: ["package.json"],
      install: "npm install --no-audit --no-fund",
      build: "npm run build",
      note: "no lockfile (no packageManager field either): installing with npm install; versions resolve at build time (commit a lockfile to pin them)",
    },
    {
      name: "several lockfiles, packageManager decides",
      files: { "package.json": pkg({ packageManager: "pnpm@10.0.0" }), "package-lock.json": null, "pnpm-lock.yaml": null },
      manifests: ["package.json", "pnpm-lock.yaml"],
      install:
        '([ "$(cd / && pnpm --version 2>/dev/null)" = "10.0.0" ] || npm install -g --force pnpm@10.0.0) && pnpm install --frozen-lockfile',
      build: "pnpm run build",
      note: "several lockfiles (package-lock.json, pnpm-lock.yaml): using pnpm-lock.yaml",
    },
    {
      name: "bun with bun.lock",
      files: { "package.json": pkg(), "bun.lock": null },
      manifests: ["package.json", "bun.lock"],
      install:
        '([ "$(cd / && bun --version 2>/dev/null)" = "1.4.5" ] || (case "$(uname -m)" in aarch64|arm64) pkg=@oven/bun-linux-aarch64 ;; *) pkg=@oven/bun-linux-x64; grep -q avx2 /proc/cpuinfo || pkg=$pkg-baseline ;; esac;' +
        ' npm install -g --force "$pkg@1.4.5" && cp "$(npm root -g)/$pkg/bin/bun" /usr/local/bin/bun && ln -sf bun /usr/local/bin/bunx)) && bun install --frozen-lockfile',
      build: "bun run build",
      note: "bun.lock: installing with bun install --frozen-lockfile",
    },
    {
      name: "bun with the older binary bun.lockb",
      files: { "package.json": pkg({ packageManager: "bun@1.2.0" }), "bun.lockb": null },
      manifests: ["package.json", "bun.lockb"],
      install: '([ "$(cd / && bun --version 2>/dev/null)" = "1.2.0" ] || (case',
      build: "bun run build",
      note: "bun 1.2.0 from package.json packageManager",
    },
    {
      name: "no build script",
      files: { "package.json": JSON.stringify({ dependencies: { next: "15.5.29" } }), "package-lock.json": null },
      manifests: ["package.json", "package-lock.json"],
      install: "npm ci --no-audit --no-fund",
      build: "node_modules/.bin/next build",
      note: "no build script: running next build",
    },
  ];

  it.each(cases)("$name", ({ files, manifests, install, build, note }) => {
    const recipe = buildNextjsRecipe(snapshot({ ...files, "next.config.mjs": STANDALONE, "app/page.js": null }), LOCAL);
    expect(recipe.notes).toContain(note);
    const lines = stage(recipe.dockerfile, 0);
    const installAt = lines.findIndex((l) => l.endsWith(`; ${install}'`) || (install.endsWith("(case") && l.includes(`; ${install}`)));
    expect(installAt, recipe.dockerfile).toBeGreaterThan(0);
    expect(lines.slice(0, installAt).filter((l) => l.startsWith("COPY "))).toEqual(manifests.map((m) => `COPY ${m} ${m}`));
    // The platform's build scripts (next/font/google offline, the checked prune) before the app's files.
    expect(lines[installAt + 1]).toBe(buildNextScriptsStep());
    expect(lines[installAt + 2]).toBe("COPY . .");
    // The build re-runs when a variable changes (the hash argument) and sources them from the secret.
    expect(lines[installAt + 3]).toBe("ARG PLATFORM_BUILD_ENV_HASH");
    expect(lines[installAt + 4]).toMatch(
      new RegExp(
        `^RUN --mount=type=secret,id=ca --mount=type=secret,id=platform-env sh -c 'if \\[ -f /run/secrets/platform-env \\]; then set -a; \\. /run/secrets/platform-env; set \\+a; fi; .*; ${wrapNextBuild(build).replace(/[.]/g, "\\.")}'$`,
      ),
    );
    // The install does not see them: its layer stays cached when only a value changes.
    expect(lines[installAt]).not.toContain("platform-env");
  });

  it.each(cases)("$name: house rules", ({ files }) => {
    const recipe = buildNextjsRecipe(snapshot({ ...files, "next.config.mjs": STANDALONE }), LOCAL);
    expect(recipe.dockerfile).not.toMatch(/^# syntax/m);
    expect(stage(recipe.dockerfile, 0)[1]).toBe("ENV NEXT_TELEMETRY_DISABLED=1");
    const final = stage(recipe.dockerfile, 1);
    expect(final[0]).toBe("FROM platform-local/node:22");
    expect(final).toContain("ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=8080 HOSTNAME=0.0.0.0");
    expect(final).toContain("USER app");
    expect(recipe.port).toBe(8080);
  });
});

describe("buildNextjsRecipe: what runs", () => {
  it("standalone output: server.js with static files and public/", () => {
    const recipe = buildNextjsRecipe(
      snapshot({ "package.json": pkg(), "package-lock.json": null, "next.config.mjs": STANDALONE, "public/logo.svg": null }),
      LOCAL,
    );
    expect(recipe.start).toEqual(["node", "server.js"]);
    expect(stage(recipe.dockerfile, 1)).toEqual([
      "FROM platform-local/node:22",
      "ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=8080 HOSTNAME=0.0.0.0",
      "RUN groupadd --gid 10001 app && useradd --uid 10001 --gid app --home-dir /app --no-create-home --shell /usr/sbin/nologin app",
      "WORKDIR /app",
      buildNodeDrainStep(),
      'ENV NODE_OPTIONS="--require /opt/platform/platform-drain.cjs"',
      "ENV npm_config_script_shell=/bin/bash",
      "COPY --from=build --chown=app:app /app/.next/standalone ./",
      "COPY --from=build --chown=app:app /app/.next/static ./.next/static",
      "COPY --from=build --chown=app:app /app/public ./public",
      "USER app",
      "EXPOSE 8080",
      'CMD ["node","server.js"]',
    ]);
  });

  it("standalone output without public/", () => {
    const recipe = buildNextjsRecipe(
      snapshot({ "package.json": pkg(), "package-lock.json": null, "next.config.js": "module.exports = { output: 'standalone' }" }),
      LOCAL,
    );
    expect(recipe.dockerfile).not.toContain("/app/public");
    expect(recipe.notes).toContain('next.config.js: output "standalone": running node server.js');
  });

  it.each([
    ["npm", { "package-lock.json": null }, "npm prune --omit=dev --no-audit --no-fund"],
    ["pnpm", { "pnpm-lock.yaml": null }, "pnpm prune --prod"],
    ["yarn", { "yarn.lock": null }, "yarn install --non-interactive --production --ignore-scripts --prefer-offline --frozen-lockfile"],
  ] as const)("no standalone output (%s): next start on $PORT with production dependencies", (_pm, lock, prune) => {
    const recipe = buildNextjsRecipe(snapshot({ "package.json": pkg(), ...lock, "next.config.ts": "export default {}" }), LOCAL);
    expect(recipe.start).toEqual(["/bin/sh", "-c", 'exec node_modules/.bin/next start -p "$PORT" -H 0.0.0.0']);
    // Pruned, unless next.config then no longer loads (next-prune.cjs runs the install again).
    const last = stage(recipe.dockerfile, 0).at(-1) ?? "";
    expect(last).toContain(`; node /opt/platform/next-prune.cjs '\\''${prune}'\\'' '\\''`);
    expect(last.endsWith("' && rm -rf .next/cache'")).toBe(true);
    const final = stage(recipe.dockerfile, 1);
    expect(final).toContain("COPY --from=build --chown=app:app /app ./");
    expect(final.at(-1)).toBe('CMD exec node_modules/.bin/next start -p "$PORT" -H 0.0.0.0');
  });

  it("keeps dev dependencies when next is one of them", () => {
    const recipe = buildNextjsRecipe(
      snapshot({
        "package.json": JSON.stringify({ scripts: { build: "next build" }, devDependencies: { next: "15.5.29" } }),
        "package-lock.json": null,
      }),
      LOCAL,
    );
    expect(recipe.dockerfile).not.toContain("npm prune");
    expect(recipe.notes).toContain("next is a devDependency: dev dependencies are kept in the image (move next to dependencies)");
  });

  it("runs a custom build script as it is, and says so", () => {
    const recipe = buildNextjsRecipe(
      snapshot({ "package.json": pkg({ scripts: { build: "node scripts/prebuild.js && next build" } }), "package-lock.json": null }),
      LOCAL,
    );
    expect(recipe.dockerfile).toContain(" /app npm run build'");
    expect(recipe.notes.some((n) => n.startsWith("the build script"))).toBe(false);
    const other = buildNextjsRecipe(
      snapshot({ "package.json": pkg({ scripts: { build: "turbo run build" } }), "package-lock.json": null }),
      LOCAL,
    );
    expect(other.notes).toContain('the build script is "turbo run build", not next build: running it as is');
  });
});

describe("buildNextjsRecipe: Node version", () => {
  it.each([
    {
      name: "nothing requested",
      files: {},
      images: LOCAL,
      from: "platform-local/node:22",
      note: "Node: no engines.node or .nvmrc; using platform-local/node:22",
    },
    {
      name: "engines.node the base satisfies",
      files: { "package.json": pkg({ engines: { node: ">=18.17" } }) },
      images: LOCAL,
      from: "platform-local/node:22",
      note: 'Node: engines.node ">=18.17"; platform-local/node:22 has Node 22',
    },
    {
      name: "engines.node the local image cannot meet",
      files: { "package.json": pkg({ engines: { node: "^20.11" } }) },
      images: LOCAL,
      from: "platform-local/node:22",
      note: 'Node: engines.node "^20.11", but platform-local/node:22 has only Node 22: building with Node 22',
    },
    {
      name: "engines.node with a public image",
      files: { "package.json": pkg({ engines: { node: "20.x" } }) },
      images: PUBLIC,
      from: "node:20-slim",
      note: 'Node: engines.node "20.x"; using node:20-slim, the newest Node here that it admits (not the default 22)',
    },
    {
      name: ".nvmrc",
      files: { ".nvmrc": "v24.1.0\n" },
      images: PUBLIC,
      from: "node:24-slim",
      note: 'Node: .nvmrc "v24.1.0"; using node:24-slim',
    },
    {
      name: "unreadable .nvmrc",
      files: { ".nvmrc": "system\n" },
      images: LOCAL,
      from: "platform-local/node:22",
      note: 'Node: could not read .nvmrc "system"; using platform-local/node:22 (Node 22)',
    },
  ])("$name", ({ files, images, from, note }) => {
    const recipe = buildNextjsRecipe(snapshot({ "package.json": pkg(), "package-lock.json": null, ...files }), images);
    expect(stage(recipe.dockerfile, 0)[0]).toBe(`FROM ${from} AS build`);
    expect(stage(recipe.dockerfile, 1)[0]).toBe(`FROM ${from}`);
    expect(recipe.notes).toContain(note);
  });

  it.each([
    [">=18", 22, true],
    [">= 18.17.0", 18, true],
    ["^20.11", 22, false],
    ["^20.11", 20, true],
    ["20.x", 20, true],
    ["18 || 20", 20, true],
    ["18 || 20", 22, false],
    [">=18 <21", 22, false],
    [">=18 <21", 20, true],
    ["<22", 22, false],
    ["<22.5", 22, true],
    [">20", 20, false],
    [">20.1", 20, true],
    ["~22.3", 22, true],
    ["*", 22, true],
    ["lts/*", 22, undefined],
    ["18 - 20", 20, undefined],
  ] as const)("matchesNodeRange(%j, %d) is %s", (range, major, expected) => {
    expect(matchesNodeRange(range, major)).toBe(expected);
  });
});

describe("buildNextjsRecipe: errors", () => {
  it.each([
    {
      name: "no package.json",
      files: { "app/page.js": null },
      message: "no package.json in the service directory",
      hint: /depends on next/,
    },
    {
      name: "invalid package.json",
      files: { "package.json": "{ nope" },
      message: /^package\.json is not valid JSON: /,
      hint: /fix package\.json/,
    },
    {
      name: "package.json is not an object",
      files: { "package.json": "[]" },
      message: "package.json is not a JSON object",
      hint: /object/,
    },
    {
      name: "no next dependency",
      files: { "package.json": JSON.stringify({ dependencies: { react: "19" } }) },
      message: "package.json does not depend on next",
      hint: /npm install next react react-dom/,
    },
    {
      name: "static export",
      files: { "package.json": pkg(), "next.config.js": "module.exports = { output: 'export' }" },
      message: 'next.config.js sets output: "export" (a static site), but a nextjs service runs a Next.js server',
      hint: /remove output: "export"/,
    },
  ])("$name", ({ files, message, hint }) => {
    let error: unknown;
    try {
      buildNextjsRecipe(snapshot(files), LOCAL);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RecipeError);
    const e = error as RecipeError;
    if (typeof message === "string") expect(e.message).toBe(message);
    else expect(e.message).toMatch(message);
    expect(e.hint).toMatch(hint);
  });
});

describe("buildNextjsRecipe: bun", () => {
  const bunPkg = (start: string) =>
    JSON.stringify({
      name: "web",
      scripts: { build: "next build", start },
      dependencies: { next: "15.5.29", react: "19.3.1", "react-dom": "19.3.1" },
    });

  it("standalone: installs and builds with bun, runs server.js on Node without bun in the image", () => {
    const recipe = buildNextjsRecipe(
      snapshot({ "package.json": bunPkg("bun run next start"), "bun.lock": null, "next.config.mjs": STANDALONE }),
      LOCAL,
    );
    expect(recipe.start).toEqual(["node", "server.js"]);
    expect(stage(recipe.dockerfile, 1).join("\n")).not.toContain("bun");
  });

  it("a start script that uses bun: the image keeps bun and runs bun run start", () => {
    const recipe = buildNextjsRecipe(
      snapshot({ "package.json": bunPkg("bun --bun next start"), "bun.lock": null, "next.config.mjs": "export default {};\n" }),
      LOCAL,
    );
    expect(recipe.start).toEqual(["/bin/sh", "-c", "exec bun run start"]);
    expect(stage(recipe.dockerfile, 1)).toContain("COPY --from=build /usr/local/bin/bun /usr/local/bin/bun");
    expect(recipe.notes).toContain("the start script runs bun: running bun run start (next start reads $PORT)");
    expect(stage(recipe.dockerfile, 0).join("\n")).toContain("rm -rf node_modules && bun install --production --frozen-lockfile");
  });

  it("a plain next start script: installed with bun, run with next start on Node", () => {
    const recipe = buildNextjsRecipe(
      snapshot({ "package.json": bunPkg("next start"), "bun.lockb": null, "next.config.mjs": "export default {};\n" }),
      LOCAL,
    );
    expect(recipe.start[2]).toContain("next start");
    expect(stage(recipe.dockerfile, 1).join("\n")).not.toContain("/usr/local/bin/bun");
  });

  it("several lockfiles: the packageManager field decides, and the choice is stated", () => {
    const recipe = buildNextjsRecipe(
      snapshot({
        "package.json": JSON.stringify({ packageManager: "bun@1.4.5", dependencies: { next: "15.5.29" } }),
        "bun.lock": null,
        "package-lock.json": null,
      }),
      LOCAL,
    );
    expect(recipe.notes).toContain("several lockfiles (package-lock.json, bun.lock): using bun.lock");
    expect(recipe.notes[0]).toBe("bun.lock: installing with bun install --frozen-lockfile");
  });
});

describe("buildNextjsRecipe: a member of a pnpm workspace", () => {
  const root = snapshot({
    "package.json": '{"private": true, "packageManager": "pnpm@10.34.8"}',
    "pnpm-lock.yaml": null,
    "pnpm-workspace.yaml": "packages:\n  - apps/*\n  - packages/*\n",
    ".npmrc": "auto-install-peers=true\n",
    "apps/web/package.json": null,
    "packages/ui/package.json": null,
  });
  const member = (files: Record<string, string | null>) => ({
    ...snapshot(files),
    workspace: { kind: "pnpm" as const, root: "../..", member: "apps/web", snapshot: root },
  });
  const PKG =
    '{"name": "web", "scripts": {"build": "next build"}, "dependencies": {"next": "15.5.29", "react": "19.2.0", "react-dom": "19.2.0", "ui": "workspace:*"}}';

  it("installs the whole workspace from its lockfile, builds in the member, runs the traced standalone server there", () => {
    const recipe = buildNextjsRecipe(
      member({ "package.json": PKG, "next.config.js": 'module.exports = { output: "standalone" }', "public/x.png": null }),
      LOCAL,
    );
    expect(recipe.context).toEqual({ root: "../..", member: "apps/web" });
    const build = stage(recipe.dockerfile, 0);
    for (const f of [
      "package.json",
      "pnpm-lock.yaml",
      "pnpm-workspace.yaml",
      ".npmrc",
      "apps/web/package.json",
      "packages/ui/package.json",
    ]) {
      expect(build).toContain(`COPY ${f} ${f}`);
    }
    expect(build.find((l) => l.includes("pnpm install"))).toMatch(/pnpm install --frozen-lockfile'$/);
    expect(build.indexOf("WORKDIR /app/apps/web")).toBeGreaterThan(build.indexOf("COPY . ."));
    const final = stage(recipe.dockerfile, 1);
    expect(final).toContain("COPY --from=build --chown=app:app /app/apps/web/.next/standalone ./");
    expect(final).toContain("COPY --from=build --chown=app:app /app/apps/web/.next/static ./.next/static");
    expect(final).toContain("COPY --from=build --chown=app:app /app/apps/web/public ./public");
    expect(final.indexOf("WORKDIR /app/apps/web")).toBeLessThan(
      final.indexOf("COPY --from=build --chown=app:app /app/apps/web/.next/static ./.next/static"),
    );
    expect(recipe.summary.install).toMatch(
      /^pnpm workspace at \.\.\/\.\.: installing with pnpm from the workspace's pnpm-lock\.yaml .*; pnpm 10\.34\.8 from package\.json packageManager$/,
    );
    expect(recipe.dockerignore).toMatch(/^\*\*\/\.next$/m);
  });

  it("without standalone output: the whole workspace with next start in the member, dev dependencies kept and said", () => {
    const recipe = buildNextjsRecipe(member({ "package.json": PKG }), LOCAL);
    const final = stage(recipe.dockerfile, 1);
    expect(final.slice(-4, -1)).toEqual(["WORKDIR /app/apps/web", "USER app", "EXPOSE 8080"]);
    expect(recipe.notes).toContain('pnpm workspace: dev dependencies are kept in the image (output: "standalone" makes it small)');
    expect(recipe.dockerfile).not.toContain("pnpm prune");
  });

  it("a member with its own lockfile is a project of its own", () => {
    const recipe = buildNextjsRecipe(member({ "package.json": PKG, "package-lock.json": null }), LOCAL);
    expect(recipe.context).toBeUndefined();
    expect(recipe.dockerfile).toContain("npm ci");
  });
});
