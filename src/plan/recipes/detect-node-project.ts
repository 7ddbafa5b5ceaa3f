/**
 * What a Next.js service's directory says about itself: package manager (by lockfile),
 * build script, standalone output, wanted Node version.
 */
import { detectPrisma, prismaNote } from "./prisma.js";
import { chooseByLockfile, readYarnrcSetting } from "./lockfile-version.js";
import { choosePackageManagerVersion, parsePackageManagerField, type PackageManagerSpec } from "./package-manager.js";
import { detectNodeRequest, fromWorkspaceRoot, type NodeRequest } from "./node-version.js";
import { RecipeError, type SourceSnapshot } from "./types.js";

export { matchesNodeRange } from "./node-version.js";

export type PackageManager = "npm" | "pnpm" | "yarn" | "yarn-berry" | "bun";

/** What a Node project's directory says, whatever it runs: package manager and release, scripts, Node version. */
export interface NodePackage {
  readonly manager: PackageManager;
  /** The lockfile the install is frozen to, if any. */
  readonly lockfile?: string;
  /** The `packageManager` field when it names this manager: its exact version (and hash) win. */
  readonly managerSpec?: PackageManagerSpec;
  /**
   * The release the build installs: packageManager's, else the one the lockfile's version
   * asks for, else the platform's pin; undefined for the image's own npm.
   */
  readonly managerVersion?: string;
  /** Which release runs and why, for plan; undefined for the image's npm with nothing to say. */
  readonly managerNote?: string;
  /** yarn berry installs with nodeLinker node-modules although .yarnrc.yml asks for Plug'n'Play. */
  readonly nodeModulesLinker?: boolean;
  /** npm installs with --legacy-peer-deps: a lockfileVersion 1, which npm 6 wrote without peer dependencies. */
  readonly npmLegacyPeerDeps?: boolean;
  readonly buildScript?: string;
  /** package.json scripts, by name. */
  readonly scripts: Readonly<Record<string, string>>;
  /** Names of package.json devDependencies. */
  readonly devDependencies: readonly string[];
  /** The start script runs bun (`bun run next start`, `bun --bun next start`): the image keeps bun to run it. */
  readonly startsWithBun: boolean;
  readonly nodeRequest?: NodeRequest;
  readonly notes: string[];
}

/** A Next.js project: a NodePackage that depends on next. */
export interface NodeProject extends NodePackage {
  /** `next` is only a devDependency: pruning dev dependencies would remove it. */
  readonly nextIsDevDependency: boolean;
  readonly standalone: boolean;
  /** next.config file, if any. */
  readonly nextConfig?: string;
}

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  engines?: { node?: string };
  volta?: { node?: string };
  packageManager?: unknown;
}

const LOCKFILES: ReadonlyArray<[string, PackageManager]> = [
  ["package-lock.json", "npm"],
  ["npm-shrinkwrap.json", "npm"],
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
];
const NEXT_CONFIGS = ["next.config.js", "next.config.mjs", "next.config.cjs", "next.config.ts", "next.config.mts"];

export function parsePackageJson(text: string): PackageJson {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new RecipeError(`package.json is not valid JSON: ${(e as Error).message}`, "fix package.json (npm pkg get name should work)");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new RecipeError("package.json is not a JSON object", "package.json must hold an object with dependencies and scripts");
  }
  return parsed as PackageJson;
}

/** `output: "standalone"` in next.config (the text, since the config is code). */
export function detectStandalone(configText: string): boolean {
  return /\boutput\s*:\s*["'`]standalone["'`]/.test(configText);
}

interface ManagerChoice {
  manager: PackageManager;
  lockfile?: string;
  spec?: PackageManagerSpec;
  version?: string;
  note?: string;
  legacyPeerDeps?: boolean;
}

/** The release that runs and why: packageManager's, the lockfile's, or the platform's pin. */
function describeRelease(manager: PackageManager, spec: PackageManagerSpec | undefined, why: string | undefined): ManagerChoice {
  const name = manager === "yarn-berry" ? "yarn" : manager;
  if (manager === "npm") {
    const note = spec
      ? `packageManager ${spec.name}@${spec.version}: npm is the image's own (its version is not enforced)`
      : why && `the image's npm, ${why}`;
    return { manager, note };
  }
  const version = choosePackageManagerVersion(manager, spec);
  if (!spec) return { manager, version, note: `${name} ${version} (the platform's pin; set packageManager in package.json to choose)` };
  const hash = spec.hash
    ? manager === "bun"
      ? ", its hash not checked (corepack has no bun)"
      : `, verified by its ${spec.hash.algorithm}`
    : "";
  return { manager, version, note: `${name} ${version} from package.json packageManager${hash}` };
}

function detectManager(src: SourceSnapshot, pkg: PackageJson, notes: string[]): ManagerChoice {
  const present = LOCKFILES.filter(([f]) => src.files.includes(f));
  const declared = parsePackageManagerField(pkg.packageManager);
  // With several lockfiles, the packageManager field breaks the tie; else the first in our order.
  const chosen = (declared && present.find(([, m]) => m === declared.name)) ?? present[0];
  if (present.length > 1) notes.push(`several lockfiles (${present.map(([f]) => f).join(", ")}): using ${chosen?.[0]}`);
  const name = chosen?.[1] ?? declared?.name ?? "npm";
  const spec = declared?.name === name ? declared : undefined;
  const lockfile = chosen?.[0];
  // A committed yarn release (yarnPath) runs whatever yarn is installed: the lockfile's version is its business.
  const yarnPath = name === "yarn" ? readYarnrcSetting(src.read(".yarnrc.yml"), "yarnPath") : undefined;
  const byLock = spec || !lockfile || yarnPath ? undefined : chooseByLockfile(lockfile, src.read(lockfile));
  if (byLock) {
    const shown = byLock.version ? `${byLock.manager === "yarn-berry" ? "yarn" : byLock.manager} ${byLock.version}` : undefined;
    return {
      manager: byLock.manager,
      lockfile,
      version: byLock.version,
      note: shown ? `${shown}, ${byLock.why}` : `the image's npm, ${byLock.why}`,
      legacyPeerDeps: byLock.legacyPeerDeps,
    };
  }
  const berry = name === "yarn" && (src.files.includes(".yarnrc.yml") || Number(spec?.version.split(".")[0]) >= 2);
  const release = describeRelease(berry ? "yarn-berry" : name, spec, undefined);
  if (yarnPath) notes.push(`.yarnrc.yml yarnPath: the committed ${yarnPath} runs the install`);
  return { ...release, lockfile, spec };
}

/**
 * yarn berry's linker: Plug'n'Play (its default) leaves no node_modules, which next start,
 * node_modules/.bin and the standalone output need; node-modules installs the same
 * yarn.lock, so a PnP project is installed with it (measured: the lockfile is unchanged).
 */
function detectNodeModulesLinker(src: SourceSnapshot, manager: PackageManager, notes: string[]): boolean {
  if (manager !== "yarn-berry") return false;
  const linker = readYarnrcSetting(src.read(".yarnrc.yml"), "nodeLinker");
  if (linker === "node-modules" || linker === "pnpm") {
    notes.push(`.yarnrc.yml nodeLinker ${linker}`);
    return false;
  }
  const asked = linker === undefined ? "sets no nodeLinker (yarn's default is Plug'n'Play)" : `asks for nodeLinker ${linker}`;
  notes.push(
    `.yarnrc.yml ${asked}, but next start and the standalone output need node_modules: installing with nodeLinker node-modules (the same yarn.lock)`,
  );
  return true;
}

/** A workspace root's package manager (its lockfile and packageManager) and Node version request. */
export function detectWorkspaceManager(
  root: SourceSnapshot,
): Pick<NodeProject, "manager" | "lockfile" | "managerSpec" | "managerVersion" | "managerNote" | "nodeRequest"> {
  const text = root.read("package.json");
  const pkg = text === undefined ? {} : parsePackageJson(text);
  const { manager, lockfile, spec, version, note } = detectManager(root, pkg, []);
  const request = detectNodeRequest(root, pkg);
  return {
    manager,
    lockfile,
    managerSpec: spec,
    managerVersion: version,
    managerNote: note,
    nodeRequest: request && fromWorkspaceRoot(request),
  };
}

/**
 * The package manager (by lockfile and packageManager), its release, scripts and Node version of
 * the directory's package.json; `hint` says what a service of this type needs when there is none.
 */
export function detectNodePackage(src: SourceSnapshot, hint: string): NodePackage & { readonly pkg: PackageJson } {
  const text = src.read("package.json");
  if (text === undefined) throw new RecipeError("no package.json in the service directory", hint);
  const pkg = parsePackageJson(text);
  const notes: string[] = [];
  const { manager, lockfile, spec, version, note, legacyPeerDeps } = detectManager(src, pkg, notes);
  const shown = manager === "yarn-berry" ? "yarn (berry)" : manager;
  const why = spec ? `package.json packageManager names ${spec.name}` : "no packageManager field either";
  notes.unshift(
    lockfile
      ? `${lockfile}: installing with ${shown}${manager === "bun" ? " install --frozen-lockfile" : ""}`
      : `no lockfile (${why}): installing with ${shown} install; versions resolve at build time (commit a lockfile to pin them)`,
  );
  const nodeModulesLinker = detectNodeModulesLinker(src, manager, notes);
  const prisma = detectPrisma(src, [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]);
  if (prisma) notes.push(prismaNote(prisma));
  const scripts = pkg.scripts ?? {};
  return {
    pkg,
    manager,
    lockfile,
    managerSpec: spec,
    managerVersion: version,
    managerNote: note,
    nodeModulesLinker,
    npmLegacyPeerDeps: legacyPeerDeps,
    buildScript: scripts.build,
    scripts,
    devDependencies: Object.keys(pkg.devDependencies ?? {}),
    startsWithBun: /(^|[\s;&|(])bunx?\s/.test(`${scripts.start ?? ""} `),
    nodeRequest: detectNodeRequest(src, pkg),
    notes,
  };
}

export function detectNodeProject(src: SourceSnapshot): NodeProject {
  const { pkg, ...base } = detectNodePackage(src, "a nextjs service needs a package.json that depends on next, react and react-dom");
  const inDeps = pkg.dependencies?.next !== undefined;
  const inDevDeps = pkg.devDependencies?.next !== undefined;
  if (!inDeps && !inDevDeps) {
    throw new RecipeError("package.json does not depend on next", "add it: npm install next react react-dom");
  }
  const notes = base.notes;

  const nextConfig = NEXT_CONFIGS.find((f) => src.files.includes(f));
  const configText = nextConfig === undefined ? "" : (src.read(nextConfig) ?? "");
  if (/\boutput\s*:\s*["'`]export["'`]/.test(configText)) {
    throw new RecipeError(
      `${nextConfig} sets output: "export" (a static site), but a nextjs service runs a Next.js server`,
      'remove output: "export" (or set output: "standalone") in next.config',
    );
  }
  const standalone = detectStandalone(configText);
  notes.push(
    standalone
      ? `${nextConfig}: output "standalone": running node server.js`
      : `no output "standalone" in next.config: running next start (set output: "standalone" for smaller images)`,
  );

  const buildScript = base.buildScript;
  if (buildScript && !/\bnext\s+build\b/.test(buildScript))
    notes.push(`the build script is "${buildScript}", not next build: running it as is`);
  if (!buildScript) notes.push("no build script: running next build");
  return { ...base, nextIsDevDependency: !inDeps, standalone, nextConfig };
}
