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
