/**
 * Which release of the package manager reads a lockfile as it is, from the lockfile's own
 * version (its head, as scanSource keeps it), for projects whose package.json names no
 * `packageManager`. Measured here with the real releases from the npm registry: a frozen
 * install by each major on each lockfile version (docs/guide/builds.md, "Package managers by lockfile"
 * has the table). A lockfile that no release served here reads is a RecipeError.
 */
import {
  PNPM_7_VERSION,
  PNPM_8_VERSION,
  PNPM_9_VERSION,
  PNPM_VERSION,
  YARN_BERRY_FOR_LOCKFILE,
  YARN_CLASSIC_VERSION,
} from "./tool-versions.js";
import { RecipeError } from "./types.js";

export interface LockfileChoice {
  /** yarn.lock's format says classic or berry. */
  readonly manager: "npm" | "pnpm" | "yarn" | "yarn-berry";
  /** The exact release to install; undefined: the image's own npm. */
  readonly version?: string;
  /** npm installs with --legacy-peer-deps, as npm 6 did (a lockfileVersion 1 has no peer dependencies in it). */
  readonly legacyPeerDeps?: boolean;
  /** Why, in words: "for <lockfile> <version> (who writes it, who refuses it)". */
  readonly why: string;
}

const HINT_PIN = (tool: string) =>
  `name the ${tool} that wrote it in package.json, e.g. "packageManager": "${tool}@<version>" (corepack use ${tool}@<version> writes it)`;

/** `lockfileVersion: '6.0'` or `lockfileVersion: 5.4` (the first line pnpm writes). */
export function parsePnpmLockfileVersion(head: string): string | undefined {
  return /^lockfileVersion:\s*['"]?([^'"\s]+)['"]?\s*$/m.exec(head)?.[1];
}

function choosePnpm(head: string): LockfileChoice | undefined {
  const raw = parsePnpmLockfileVersion(head);
  if (raw === undefined) return undefined;
  const shown = `pnpm-lock.yaml lockfileVersion ${raw}`;
  // "5.4-inlineSpecifiers" was pnpm 7's opt-in variant of 5.4.
  const m = /^(\d+)(?:\.(\d+))?/.exec(raw);
  const [major, minor] = [Number(m?.[1]), Number(m?.[2] ?? 0)];
  const pick = (version: string, reason: string) => ({ manager: "pnpm" as const, version, why: `for ${shown} (${reason})` });
  if (major === 5 && minor >= 3) return pick(PNPM_7_VERSION, "written by pnpm 6 or 7; pnpm 8 and later refuse it");
  if (major === 6) return pick(PNPM_8_VERSION, "written by pnpm 8; pnpm 10 and later refuse it");
  if (major === 7) return pick(PNPM_9_VERSION, "written by a pnpm 9 pre-release");
  if (major === 9)
    return pick(
      PNPM_VERSION,
      "written by pnpm 9 or later; pnpm 10 reads it as it is, pnpm 11 and later need Node 22 and fail on unapproved dependency builds",
    );
  if (major < 5 || (major === 5 && minor < 3)) {
    throw new RecipeError(
      `${shown} was written by pnpm 5 or older, which runs on none of the Node versions the platform builds with, and pnpm 7 and later refuse it`,
      "regenerate it with a current pnpm (pnpm install, then commit pnpm-lock.yaml)",
    );
  }
  throw new RecipeError(`${shown} is newer than the pnpm releases the platform knows (they read up to 9.0)`, HINT_PIN("pnpm"));
}

function chooseYarn(head: string): LockfileChoice | undefined {
  if (/^# yarn lockfile v1\s*$/m.test(head)) {
    return { manager: "yarn", version: YARN_CLASSIC_VERSION, why: "for yarn classic's yarn.lock (# yarn lockfile v1)" };
  }
  const meta = /^__metadata:[ \t]*\r?\n((?:[ \t]+.*(?:\r?\n|$))*)/m.exec(head)?.[1];
  if (meta === undefined) return undefined;
  const n = Number(/^\s+version:\s*(\d+)/m.exec(meta)?.[1]);
  if (!Number.isInteger(n)) return undefined;
  const shown = `yarn.lock __metadata version ${n}`;
  const pick = (version: string, writers: string) => ({
    manager: "yarn-berry" as const,
    version,
    why: `for ${shown} (written by ${writers}; an immutable install refuses another release's lockfile version)`,
  });
  const Y = YARN_BERRY_FOR_LOCKFILE;
  switch (n) {
    case 4:
      return pick(Y.v4, "yarn 2 or 3.0");
    case 5:
      return pick(Y.v5, "yarn 3.1");
    case 6:
      return pick(Y.v6, "yarn 3.2 to 3.8");
    case 7:
      return pick(Y.v7, "a yarn 4 release candidate");
    case 8: {
      // yarn 4.0 wrote checksums bare; 4.1 and later prefix them with the cache key ("10c0/").
      const checksum = /^\s+checksum:\s*(\S+)/m.exec(head)?.[1];
      return checksum && !checksum.includes("/") ? pick(Y.v8Bare, "yarn 4.0 (bare checksums)") : pick(Y.v8, "yarn 4.1 to 4.13");
    }
    case 9:
      return pick(Y.v9, "yarn 4.14");
    case 10:
      return pick(Y.v10, "yarn 4.15 or later");
  }
  if (n < 4) {
    throw new RecipeError(
      `${shown} was written by a yarn 2 pre-release, which no release served on npm reads`,
      "regenerate it with a current yarn (yarn install, then commit yarn.lock)",
    );
  }
  throw new RecipeError(`${shown} is newer than the yarn releases the platform knows (they read up to 10)`, HINT_PIN("yarn"));
}

function chooseNpm(file: string, head: string): LockfileChoice | undefined {
  const n = Number(/"lockfileVersion"\s*:\s*(\d+)/.exec(head)?.[1]);
  if (!Number.isInteger(n)) return undefined;
  const shown = `${file} lockfileVersion ${n}`;
  // npm 6 itself reads it too, but its npm ci installs every platform's optional binaries
  // (measured on a Next.js app: 1.78 GB against 625 MB, 158 s against 55 s).
  if (n === 1) {
    return {
      manager: "npm",
      legacyPeerDeps: true,
      why: `for ${shown} (written by npm 5 or 6; npm 7 and later read it, with --legacy-peer-deps to install no peer dependencies npm 6 did not)`,
    };
  }
  if (n === 2 || n === 3) return { manager: "npm", why: `for ${shown} (npm 7 and later read it)` };
  throw new RecipeError(`${shown} is newer than the npm releases the platform knows (they read 1 to 3)`, HINT_PIN("npm"));
}

/**
 * The release that reads this lockfile as it is; undefined when its head says nothing
 * known (the caller falls back to the platform's pins). Throws a RecipeError naming the
 * lockfile when no release served here reads it.
 */
export function chooseByLockfile(lockfile: string, head: string | undefined): LockfileChoice | undefined {
  if (head === undefined) return undefined;
  switch (lockfile) {
    case "pnpm-lock.yaml":
      return choosePnpm(head);
    case "yarn.lock":
      return chooseYarn(head);
    case "package-lock.json":
    case "npm-shrinkwrap.json":
      return chooseNpm(lockfile, head);
    default:
      return undefined;
  }
}

/** .yarnrc.yml's top-level `key: value` (quotes and comments dropped); undefined when unset. */
export function readYarnrcSetting(text: string | undefined, key: string): string | undefined {
  if (text === undefined) return undefined;
  const m = new RegExp(`^${key}:[ \\t]*(?:"([^"]*)"|'([^']*)'|([^\\s#]+))`, "m").exec(text);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}
