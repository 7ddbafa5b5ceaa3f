/**
 * Known causes of failed builds, by what their log says, each with what to do: one line that
 * the deploy prints as `diagnosis:` above the log tail. First match wins, so the specific
 * come before the general (a prerender's fetch before any network failure, a pnpm lockfile
 * refusal before an out-of-date lockfile). The unit tests hold the tools' real wording.
 */
import {
  diagnoseInstallScript,
  diagnoseMigrationInBuild,
  diagnosePnpmLockfile,
  diagnosePrerenderFetch,
  diagnoseYarnLockfile,
  LIFECYCLE_FAILURE,
  MIGRATION_IN_BUILD,
  PNPM_LOCKFILE_VERSION,
  PRERENDER_FETCH,
  YARN_LOCKFILE_VERSION,
} from "./diagnose-node.js";
import { diagnosePythonBuild, PYTHON_BUILD_FAILURE } from "./diagnose-python.js";
import { diagnoseFontPackage, FONT_PACKAGE_MISSING } from "./diagnose-fonts.js";
import { diagnoseNpmResolve, diagnoseResolverConflict, NPM_ERESOLVE, RESOLVER_CONFLICT } from "./diagnose-resolver.js";
import { diagnoseStartLog } from "../contract/diagnose-start.js";

/** A fixed line, or one made from the match and the whole log (undefined: not this cause after all). */
type Say = string | ((m: RegExpExecArray, log: string) => string | undefined);

const REQUIRES_PYTHON =
  "the project's requires-python excludes the Python this build has (see the Python note above the build): use a Python version the platform offers, or widen requires-python";

const DIAGNOSES: ReadonlyArray<readonly [RegExp, Say]> = [
  [
    // BuildKit's COPY ("copy file range failed: no space left on device"), a RUN's write (Node: "ENOSPC: no space left on device"), apt, pip.
    /no space left on device/,
    "the Docker engine's disk is full (no space left on device): free space on it (docker builder prune for the build cache, docker image prune for unused images; docker system df shows what takes it) and deploy again",
  ],
  [FONT_PACKAGE_MISSING, diagnoseFontPackage],
  [
    /Failed to fetch `[^`]*` from Google Fonts|fonts\.googleapis\.com|fonts\.gstatic\.com/,
    "next/font/google downloads fonts during next build, and this build cannot reach Google Fonts: use next/font/local with the font files in the repository",
  ],
  [PRERENDER_FETCH, diagnosePrerenderFetch],
  [MIGRATION_IN_BUILD, diagnoseMigrationInBuild],
  [
    /binaries\.prisma\.sh/,
    'Prisma downloads its Rust engines from binaries.prisma.sh (prisma generate, or @prisma/engines\' install script), which this build cannot reach: use its JavaScript engines, which need no download (Prisma 6.16+: engineType = "client" in the generator and a driver adapter; engine: "js" and an adapter in prisma.config.ts for migrations; docs: guide/builds, "Prisma"), or set PRISMA_ENGINES_MIRROR to a mirror the build can reach (in the service\'s env, which the build sees)',
  ],
  [
    /sharp: Installation error|sharp-libvips\/releases|Something went wrong installing the "sharp" module/,
    "sharp before 0.33 downloads libvips from GitHub releases during install, which this build cannot reach: upgrade to sharp 0.33 or later, whose binaries come from the npm registry (@img/sharp-* packages)",
  ],
  [
    /Pre-built binaries not installable|prebuild-install (?:warn|WARN) install|gyp ERR! find Python/,
    "a native npm package fetches its prebuilt binary from outside the npm registry (GitHub releases), which this build cannot reach, and compiling it needs Python and a C compiler: use a package that ships its binary through npm (bcryptjs for bcrypt, for example), or a build Dockerfile that installs python3 and build-essential",
  ],
  [LIFECYCLE_FAILURE, diagnoseInstallScript],
  [
    /gyp ERR! .*not found: (?:make|g\+\+|cc)|make: (?:g\+\+|cc): (?:No such file or directory|not found)/,
    "a native npm package is compiled with node-gyp and the image has no make or C compiler: use a package that ships its binary through npm, or a build Dockerfile (FROM ${PLATFORM_NODE_IMAGE}) that runs apt-get install -y --no-install-recommends python3 build-essential before the install",
  ],
  [PYTHON_BUILD_FAILURE, (_m, log) => diagnosePythonBuild(log)],
  [RESOLVER_CONFLICT, (_m, log) => diagnoseResolverConflict(log)],
  [NPM_ERESOLVE, (_m, log) => diagnoseNpmResolve(log)],
  // next build imports env.js (@t3-oss/env-nextjs), which validates the variables the build sees.
  [/❌ Invalid environment variables:/, (_m, log) => diagnoseStartLog(log)],
  [PNPM_LOCKFILE_VERSION, diagnosePnpmLockfile],
  [YARN_LOCKFILE_VERSION, diagnoseYarnLockfile],
  [
    /npm ci` can only install packages when your package\.json and package-lock\.json[^\n]* are in sync|lock file's [^\n]* (?:does not satisfy|do not match)/,
    "package-lock.json does not match package.json: run npm install and commit package-lock.json",
  ],
  [
    /but package-lock\.json was generated for lockfileVersion@(\d+)/,
    (m) =>
      `package-lock.json lockfileVersion ${m[1]} needs npm 7 or later, and npm 6 runs the install: remove the npm 6 pin (packageManager, or the Dockerfile's npm install -g npm@6)`,
  ],
  [/ERR_PNPM_OUTDATED_LOCKFILE/, "pnpm-lock.yaml does not match package.json: run pnpm install and commit pnpm-lock.yaml"],
  [
    /Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`/,
    "yarn.lock does not match package.json, or yarn 1 cannot read it (a yarn 2+ lockfile): run yarn install with the yarn that wrote it and commit yarn.lock (name a yarn 2+ in package.json packageManager)",
  ],
  [/YN0028/, "yarn.lock does not match package.json: run yarn install and commit yarn.lock"],
  [/lockfile had changes, but lockfile is frozen/, "bun.lock does not match package.json: run bun install and commit the lockfile"],
  [
    /lockfile at `uv\.lock` needs to be updated|uv\.lock[^\n]*needs to be updated/,
    "uv.lock does not match pyproject.toml: run uv lock and commit uv.lock",
  ],
  [
    /poetry\.lock[^\n]*not consistent|pyproject\.toml changed significantly since poetry\.lock was last generated/,
    "poetry.lock does not match pyproject.toml: run poetry lock and commit poetry.lock",
  ],
  [
    /Unable to find installation candidates for/,
    "Poetry finds no installable files for a version that poetry.lock pins (an old lock format, or no wheel for this Python version): run poetry lock --regenerate and commit poetry.lock",
  ],
  [
    // uv sync: "The requested interpreter resolved to Python 3.11.2, which is incompatible with the
    // project's Python requirement: `>=3.12`" (or "The Python request from `.python-version` resolved to").
    /resolved to Python ([\d.]+), which is incompatible with the (?:project|workspace)'s Python requirement: `([^`]+)`/,
    (m) =>
      `the project's requires-python (${m[2]}) excludes Python ${m[1]}, the Python of this build (see the Python note above the build): use a Python version the platform offers, or widen requires-python`,
  ],
  [/current Python version \([\d.]+\) does not satisfy Python|requires a different Python: [\d.]+ not in/, REQUIRES_PYTHON],
  [
    /No matching distribution found for|Could not find a version that satisfies the requirement/,
    "a Python requirement is not on the package index for this Python version: check its name and version, or the Python version the build uses",
  ],
];

/** One line that says what most likely went wrong and what to do, or undefined when the log matches nothing known. */
export function diagnoseBuildLog(text: string): string | undefined {
  for (const [re, say] of DIAGNOSES) {
    const m = re.exec(text);
    if (!m) continue;
    const line = typeof say === "string" ? say : say(m, text);
    if (line !== undefined) return line;
  }
  return undefined;
}
