import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildNextjsRecipe, RecipeError } from "../../../../src/plan/recipes/index.js";
import {
  buildPackageManagerInstall,
  parsePackageManagerField,
  type PackageManagerSpec,
} from "../../../../src/plan/recipes/package-manager.js";
import { PNPM_VERSION, YARN_CLASSIC_VERSION } from "../../../../src/plan/recipes/tool-versions.js";
import { LOCAL, snapshot } from "./snapshot.js";

const HEX128 = "a".repeat(128);

describe("parsePackageManagerField (corepack's reading)", () => {
  it.each([
    ["pnpm@9.12.0", { name: "pnpm", version: "9.12.0" }],
    [" yarn@1.22.22 ", { name: "yarn", version: "1.22.22" }],
    ["yarn@4.0.0-rc.53", { name: "yarn", version: "4.0.0-rc.53" }],
    [`yarn@4.5.0+sha512.${HEX128}`, { name: "yarn", version: "4.5.0", hash: { algorithm: "sha512", hex: HEX128 } }],
    [`pnpm@9.1.0+sha256.${"0".repeat(64)}`, { name: "pnpm", version: "9.1.0", hash: { algorithm: "sha256", hex: "0".repeat(64) } }],
    ["npm@10.9.0", { name: "npm", version: "10.9.0" }],
    [undefined, undefined],
  ] as const)("%j", (field, expected) => {
    expect(parsePackageManagerField(field)).toEqual(expected);
  });

  it.each([
    [42, /must be a string/],
    ["pnpm", /is not of the form name@version/],
    ["pnpm@^9.0.0", /"\^9\.0\.0" is not an exact version/],
    ["pnpm@9", /"9" is not an exact version/],
    ["pnpm@latest", /"latest" is not an exact version/],
    ["deno@2.1.0", /names deno: only npm, pnpm, yarn and bun are supported/],
    ["yarn@https://example.test/yarn.js", /a URL is not supported/],
    ["pnpm@9.12.0+sha512.abc", /"\+sha512\.abc" is not a hash corepack knows/],
    [`pnpm@9.12.0+md5.${"0".repeat(32)}`, /is not a hash corepack knows/],
  ])("refuses %j, naming package.json", (field, message) => {
    expect(() => parsePackageManagerField(field)).toThrow(RecipeError);
    expect(() => parsePackageManagerField(field)).toThrow(/^package\.json "packageManager"/);
    expect(() => parsePackageManagerField(field)).toThrow(message);
  });

  it("makes a malformed field a recipe error", () => {
    const src = snapshot({
      "package.json": JSON.stringify({ packageManager: "pnpm@^9", dependencies: { next: "15.5.29" } }),
      "pnpm-lock.yaml": null,
    });
    expect(() => buildNextjsRecipe(src, LOCAL)).toThrow('package.json "packageManager" "pnpm@^9": "^9" is not an exact version (x.y.z)');
  });
});

describe("the pins", () => {
  it("match what the local node image ships (scripts/setup/images.sh), so it needs no download", () => {
    const images = readFileSync(resolve(import.meta.dirname, "../../../../scripts/setup/images.sh"), "utf8");
    expect(/^BASE_PNPM_VERSION=(\S+)/m.exec(images)?.[1]).toBe(PNPM_VERSION);
    expect(/^BASE_YARN_VERSION=(\S+)/m.exec(images)?.[1]).toBe(YARN_CLASSIC_VERSION);
  });
});

/**
 * The generated shell, run for real with stand-ins on PATH: `pnpm`/`yarn` report a version,
 * `npm pack` writes a known tarball into /tmp, `npm install` is recorded.
 */
describe("buildPackageManagerInstall, run by sh", () => {
  let bin: string;
  let log: string;
  const tarballs: string[] = [];

  beforeEach(() => {
    bin = mkdtempSync(join(tmpdir(), "pm-stubs-"));
    log = join(bin, "npm.log");
  });
  afterEach(() => {
    rmSync(bin, { recursive: true, force: true });
    for (const t of tarballs.splice(0)) rmSync(t, { force: true });
  });

  /** A stand-in npm whose `pack` writes `content` (or a package with bin/yarn.js) as the tarball. */
  function stubs(installedVersion: string, tarball: string, yarnJs?: string): string {
    tarballs.push(`/tmp/${tarball}`);
    for (const tool of ["pnpm", "yarn"]) writeFileSync(join(bin, tool), `#!/bin/sh\necho ${installedVersion}\n`);
    const pack =
      yarnJs === undefined
        ? `printf fake-tarball > ${tarball}`
        : `mkdir -p p/package/bin && printf '%s' '${yarnJs}' > p/package/bin/yarn.js && tar -czf ${tarball} -C p package && rm -rf p`;
    writeFileSync(join(bin, "npm"), `#!/bin/sh\necho "npm $*" >> ${log}\nif [ "$1" = pack ]; then ${pack}; fi\n`);
    for (const f of ["pnpm", "yarn", "npm"]) chmodSync(join(bin, f), 0o755);
    return tarball;
  }
  const run = (script: string) =>
    spawnSync("sh", ["-c", script], { env: { ...process.env, PATH: `${bin}:/usr/bin:/bin` }, encoding: "utf8" });
  const npmCalls = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);
  const sha = (alg: string, data: string) => createHash(alg).update(data).digest("hex");

  it("keeps the image's manager when it already is that version", () => {
    stubs(PNPM_VERSION, `pnpm-${PNPM_VERSION}.tgz`);
    expect(run(buildPackageManagerInstall("pnpm", undefined)).status).toBe(0);
    expect(npmCalls()).toEqual([]);
  });

  it("installs the exact version from npm otherwise", () => {
    stubs("8.0.0", "pnpm-9.12.0.tgz");
    expect(run(buildPackageManagerInstall("pnpm", { name: "pnpm", version: "9.12.0" })).status).toBe(0);
    expect(npmCalls()).toEqual(["npm install -g --force pnpm@9.12.0"]);
  });

  it("checks the tarball against the project's hash before installing it", () => {
    stubs("8.0.0", "pnpm-9.12.0.tgz");
    const spec: PackageManagerSpec = { name: "pnpm", version: "9.12.0", hash: { algorithm: "sha512", hex: sha("sha512", "fake-tarball") } };
    const ok = run(buildPackageManagerInstall("pnpm", spec));
    expect(ok.status, ok.stderr).toBe(0);
    expect(npmCalls()).toEqual(["npm pack pnpm@9.12.0 --silent", "npm install -g --force /tmp/pnpm-9.12.0.tgz"]);
  });

  it("refuses a tarball whose hash differs, and installs nothing", () => {
    stubs("8.0.0", "pnpm-9.12.0.tgz");
    const bad = run(
      buildPackageManagerInstall("pnpm", { name: "pnpm", version: "9.12.0", hash: { algorithm: "sha256", hex: sha("sha256", "other") } }),
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("pnpm@9.12.0 from the registry does not match the sha256 in package.json packageManager");
    expect(npmCalls()).toEqual(["npm pack pnpm@9.12.0 --silent"]);
  });

  it("checks yarn 2+ by its yarn.js, as corepack does", () => {
    stubs("1.22.22", "yarnpkg-cli-dist-4.5.0.tgz", "console.log(4)");
    const spec: PackageManagerSpec = {
      name: "yarn",
      version: "4.5.0",
      hash: { algorithm: "sha512", hex: sha("sha512", "console.log(4)") },
    };
    const ok = run(buildPackageManagerInstall("yarn-berry", spec));
    expect(ok.status, ok.stderr).toBe(0);
    expect(npmCalls()).toEqual(["npm pack @yarnpkg/cli-dist@4.5.0 --silent", "npm install -g --force /tmp/yarnpkg-cli-dist-4.5.0.tgz"]);
  });

  it("is valid sh in every form", () => {
    for (const [m, spec] of [
      ["pnpm", undefined],
      ["yarn", { name: "yarn", version: "1.22.22", hash: { algorithm: "sha1", hex: "0".repeat(40) } }],
      ["yarn-berry", undefined],
    ] as const) {
      execFileSync("sh", ["-n", "-c", buildPackageManagerInstall(m, spec as PackageManagerSpec | undefined)]);
    }
  });
});
