/**
 * The exact versions of the tools the generated Dockerfiles install, in one place. An
 * unpinned `pip install uv` or `npm install -g pnpm@latest` would make the same source build
 * differently from one day to the next. A project's own pin wins where it has one: the
 * package.json `packageManager` field for pnpm and yarn (as corepack reads it).
 * To move one: check the registry (`npm view pnpm version`, `pip index versions uv`), change
 * it here, and let the recipe tests show the new Dockerfiles.
 */

/** uv, for uv.lock projects and PEP 621 dependencies without a lockfile (PyPI). */
export const UV_VERSION = "0.13.9";

/** Poetry, for poetry.lock and [tool.poetry] projects (PyPI). */
export const POETRY_VERSION = "2.5.1";
/** Poetry's export plugin: poetry.lock to a pip requirements file with hashes. */
export const POETRY_EXPORT_VERSION = "1.10.1";

/**
 * pnpm when package.json names no version. The same as the platform's local node image
 * ships (BASE_PNPM_VERSION in scripts/setup/images.sh, kept equal by a unit test), so that
 * image needs no download.
 */
export const PNPM_VERSION = "10.34.8";

/** Yarn classic (1.x), the last release; node images ship it (BASE_YARN_VERSION likewise). */
export const YARN_CLASSIC_VERSION = "1.22.22";

/**
 * Yarn (berry, 2+) when package.json names no version: from the npm package
 * @yarnpkg/cli-dist. A committed `.yarn/releases` file with `yarnPath` still takes over.
 */
export const YARN_BERRY_VERSION = "4.18.1";

/**
 * Bun, for bun.lock and bun.lockb projects: the binary from the npm package
 * @oven/bun-linux-x64 (or -baseline, -aarch64), the one the `bun` package installs; checked with
 * `npm view bun version`.
 */
export const BUN_VERSION = "1.4.5";

/**
 * The package manager a lockfile's version asks for, when package.json names none
 * (lockfile-version.ts says which lockfile versions each reads; measured with the real
 * releases). pnpm 7 reads lockfileVersion 5.3 and 5.4, pnpm 8 reads 6.0 and 6.1, pnpm 9's
 * pre-releases wrote 7.0; 9.0 goes to PNPM_VERSION.
 */
export const PNPM_7_VERSION = "7.33.7";
export const PNPM_8_VERSION = "8.15.9";
export const PNPM_9_VERSION = "9.15.9";

/**
 * Yarn berry (@yarnpkg/cli-dist) by yarn.lock's `__metadata` version: an immutable install
 * refuses a lockfile that another release would write differently, so each is the newest
 * release that writes exactly that lockfile.
 */
export const YARN_BERRY_FOR_LOCKFILE = {
  /** version 4: yarn 2.x and 3.0 (3.0 itself fails to fetch on Node 22 and later). */
  v4: "2.4.2",
  v5: "3.1.1",
  v6: "3.8.7",
  v7: "4.0.0-rc.42",
  /** version 8 with bare checksums: yarn 4.0. */
  v8Bare: "4.0.2",
  /** version 8 with "10c0/" checksums: yarn 4.1 to 4.13. */
  v8: "4.13.0",
  v9: "4.14.1",
  v10: YARN_BERRY_VERSION,
} as const;
