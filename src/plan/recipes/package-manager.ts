/**
 * The package.json `packageManager` field, read as corepack reads it ("pnpm@9.12.0",
 * "yarn@4.5.0+sha512.<hex>": an exact version, optionally the hash of what to run), and the
 * build step that puts exactly that pnpm or yarn on PATH. The step installs from the npm
 * registry rather than through corepack: newer Node images no longer ship corepack, and
 * corepack fetches yarn 2+ from its own site, which a registry-only network cannot reach.
 * It verifies the hash the way corepack does: pnpm and yarn 1 by their npm tarball, yarn 2+
 * by its yarn.js (the file @yarnpkg/cli-dist carries).
 */
import { BUN_VERSION, PNPM_VERSION, YARN_BERRY_VERSION, YARN_CLASSIC_VERSION } from "./tool-versions.js";
import { RecipeError } from "./types.js";

/** Hash algorithms corepack accepts, with the coreutils command that checks them in a build. */
const HASHES = {
  sha1: ["sha1sum", 40],
  sha224: ["sha224sum", 56],
  sha256: ["sha256sum", 64],
  sha384: ["sha384sum", 96],
  sha512: ["sha512sum", 128],
} as const;
type HashAlgorithm = keyof typeof HASHES;

export interface PackageManagerSpec {
  readonly name: "npm" | "pnpm" | "yarn" | "bun";
  readonly version: string;
  readonly hash?: { readonly algorithm: HashAlgorithm; readonly hex: string };
}

const SPEC = /^(?<name>[^@\s]+)@(?<version>[^+\s]+)(?:\+(?<hash>\S+))?$/;
const EXACT_SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const HINT = 'write it as corepack does, e.g. "packageManager": "pnpm@9.12.0" (corepack use pnpm@9.12.0 writes it with its hash)';

/** The `packageManager` field of package.json; undefined when absent. Throws a RecipeError naming package.json when malformed. */
export function parsePackageManagerField(field: unknown): PackageManagerSpec | undefined {
  if (field === undefined) return undefined;
  const where = `package.json "packageManager"`;
  if (typeof field !== "string") throw new RecipeError(`${where} must be a string, not ${JSON.stringify(field)}`, HINT);
  const m = SPEC.exec(field.trim());
  if (!m?.groups) throw new RecipeError(`${where} "${field}" is not of the form name@version`, HINT);
  const { name, version, hash } = m.groups as { name: string; version: string; hash?: string };
  if (name !== "npm" && name !== "pnpm" && name !== "yarn" && name !== "bun") {
    throw new RecipeError(
      `${where} "${field}" names ${name}: only npm, pnpm, yarn and bun are supported`,
      "use one of them, or remove the field",
    );
  }
  if (/^[a-z]+:/i.test(version)) throw new RecipeError(`${where} "${field}": a URL is not supported, only a registry version`, HINT);
  if (!EXACT_SEMVER.test(version)) throw new RecipeError(`${where} "${field}": "${version}" is not an exact version (x.y.z)`, HINT);
  if (hash === undefined) return { name, version };
  const [algorithm, hex = ""] = hash.split(".", 2) as [string, string?];
  const known = HASHES[algorithm as HashAlgorithm];
  if (!known || !new RegExp(`^[0-9a-f]{${known[1]}}$`).test(hex)) {
    throw new RecipeError(
      `${where} "${field}": "+${hash}" is not a hash corepack knows (sha1, sha224, sha256, sha384 or sha512, then "." and the hex digest)`,
      HINT,
    );
  }
  return { name, version, hash: { algorithm: algorithm as HashAlgorithm, hex } };
}

export type InstalledManager = "pnpm" | "yarn" | "yarn-berry" | "bun";

const PACKAGES: Record<InstalledManager, { npm: string; tarball: (v: string) => string; bin: string; defaultVersion: string }> = {
  pnpm: { npm: "pnpm", tarball: (v) => `pnpm-${v}.tgz`, bin: "pnpm", defaultVersion: PNPM_VERSION },
  yarn: { npm: "yarn", tarball: (v) => `yarn-${v}.tgz`, bin: "yarn", defaultVersion: YARN_CLASSIC_VERSION },
  "yarn-berry": { npm: "@yarnpkg/cli-dist", tarball: (v) => `yarnpkg-cli-dist-${v}.tgz`, bin: "yarn", defaultVersion: YARN_BERRY_VERSION },
  bun: { npm: "bun", tarball: (v) => `bun-${v}.tgz`, bin: "bun", defaultVersion: BUN_VERSION },
};

/**
 * Bun from the npm registry without the `bun` package's install script (npm may hold scripts
 * back): its per-platform package carries the binary, copied to /usr/local/bin so that a final
 * stage can take it. x64 machines without AVX2 get the baseline build.
 */
function buildBunInstall(version: string): string {
  const pick =
    'case "$(uname -m)" in aarch64|arm64) pkg=@oven/bun-linux-aarch64 ;; *) pkg=@oven/bun-linux-x64; grep -q avx2 /proc/cpuinfo || pkg=$pkg-baseline ;; esac';
  return `[ "$(cd / && bun --version 2>/dev/null)" = "${version}" ] || (${pick}; npm install -g --force "$pkg@${version}" && cp "$(npm root -g)/$pkg/bin/bun" /usr/local/bin/bun && ln -sf bun /usr/local/bin/bunx)`;
}

/** The version a build installs: the project's `packageManager` pin, else ours. */
export function choosePackageManagerVersion(manager: InstalledManager, spec: PackageManagerSpec | undefined): string {
  return spec?.version ?? PACKAGES[manager].defaultVersion;
}

/**
 * Shell that leaves exactly that version of the manager on PATH (the project's pin, else
 * `version`, which the lockfile may have chosen): the image's own when it
 * already is that version (asked from /, so no package.json makes it switch versions), else
 * installed from the npm registry (--force: node images ship yarn outside npm's own tree),
 * checked against the project's hash first when it gave one.
 */
export function buildPackageManagerInstall(
  manager: InstalledManager,
  spec: PackageManagerSpec | undefined,
  version = choosePackageManagerVersion(manager, spec),
): string {
  const p = PACKAGES[manager];
  // corepack has no bun, so a packageManager hash for it is not something to check against.
  if (manager === "bun") return buildBunInstall(version);
  const check = `[ "$(cd / && ${p.bin} --version 2>/dev/null)" = "${version}" ]`;
  if (!spec?.hash) return `${check} || npm install -g --force ${p.npm}@${version}`;
  const file = `/tmp/${p.tarball(version)}`;
  const bytes = manager === "yarn-berry" ? `tar -xzOf ${file} package/bin/yarn.js` : `cat ${file}`;
  const digest = `$(${bytes} | ${HASHES[spec.hash.algorithm][0]} | cut -d " " -f 1)`;
  const mismatch = `echo "${p.npm}@${version} from the registry does not match the ${spec.hash.algorithm} in package.json packageManager" >&2; exit 1`;
  return (
    `${check} || (cd /tmp && npm pack ${p.npm}@${version} --silent >/dev/null` +
    ` && { [ "${digest}" = "${spec.hash.hex}" ] || { ${mismatch}; }; }` +
    ` && npm install -g --force ${file} && rm ${file})`
  );
}
