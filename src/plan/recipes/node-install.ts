/**
 * The commands of a Node build stage that depend on the package manager: put the chosen
 * release on PATH and install (frozen to the lockfile), build, then drop dev dependencies.
 */
import type { NodePackage } from "./detect-node-project.js";
import { buildPackageManagerInstall } from "./package-manager.js";
import type { SourceSnapshot } from "./types.js";

/** Files the install reads besides package.json and the lockfile (registry config, workspace, patches). */
const INSTALL_INPUTS = [".npmrc", ".yarnrc", ".yarnrc.yml", "pnpm-workspace.yaml", ".pnpmfile.cjs"];
const INSTALL_INPUT_DIRS = [".yarn/releases/", ".yarn/plugins/", ".yarn/patches/", "patches/"];

/**
 * What the install step copies before the app's files (so it is reused while only code changes):
 * package.json, the lockfile, the install's configuration, and in a workspace every member's manifest.
 */
export function listInstallInputs(p: NodePackage, installSrc: SourceSnapshot, workspace: boolean): string[] {
  return [
    "package.json",
    ...(p.lockfile ? [p.lockfile] : []),
    ...INSTALL_INPUTS.filter((f) => installSrc.files.includes(f)),
    ...installSrc.files.filter((f) => INSTALL_INPUT_DIRS.some((d) => f.startsWith(d))),
    // Every workspace project's manifest: the frozen install checks them against the lockfile.
    ...(workspace ? installSrc.files.filter((f) => f.endsWith("/package.json")) : []),
  ];
}

/** yarn berry's settings as environment variables: the linker a PnP project is installed with. */
function yarnEnv(p: NodePackage): string {
  return p.manager === "yarn-berry" && p.nodeModulesLinker ? "YARN_NODE_LINKER=node-modules " : "";
}

/** npm's flags: --legacy-peer-deps for a lockfileVersion 1, which npm 6 wrote without peer dependencies. */
function npmFlags(p: NodePackage): string {
  return `${p.npmLegacyPeerDeps ? " --legacy-peer-deps" : ""} --no-audit --no-fund`;
}

/** The manager at its chosen release (packageManager's, the lockfile's, or ours), then the frozen install. */
export function buildInstallCommand(p: NodePackage): string {
  const locked = p.lockfile !== undefined;
  if (p.manager === "npm") return `npm ${locked ? "ci" : "install"}${npmFlags(p)}`;
  const tool = `(${buildPackageManagerInstall(p.manager, p.managerSpec, p.managerVersion)})`;
  switch (p.manager) {
    case "pnpm":
      return `${tool} && pnpm install${locked ? " --frozen-lockfile" : ""}`;
    case "yarn":
      return `${tool} && yarn install --non-interactive${locked ? " --frozen-lockfile" : ""}`;
    case "yarn-berry":
      return `${tool} && ${yarnEnv(p)}yarn install${locked ? " --immutable" : ""}`;
    case "bun":
      return `${tool} && bun install${locked ? " --frozen-lockfile" : ""}`;
  }
}

export function buildBuildCommand(p: NodePackage): string {
  if (!p.buildScript) return "node_modules/.bin/next build";
  switch (p.manager) {
    case "npm":
    case "pnpm":
    case "bun":
      return `${p.manager} run build`;
    case "yarn":
      return "yarn run build";
    case "yarn-berry":
      return `${yarnEnv(p)}yarn run build`;
  }
}

/** Drops dev dependencies after the build, for the next start image; undefined when it cannot. */
export function buildPruneCommand(p: NodePackage): string | undefined {
  switch (p.manager) {
    case "npm":
      return `npm prune --omit=dev${npmFlags(p)}`;
    case "pnpm":
      return "pnpm prune --prod";
    case "yarn":
      return `yarn install --non-interactive --production --ignore-scripts --prefer-offline${p.lockfile ? " --frozen-lockfile" : ""}`;
    case "yarn-berry":
      return undefined;
    case "bun":
      // bun has no prune: a fresh production install from its cache.
      return `rm -rf node_modules && bun install --production${p.lockfile ? " --frozen-lockfile" : ""}`;
  }
}
