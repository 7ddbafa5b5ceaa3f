/**
 * The commands of a Node build stage that depend on the package manager: put the chosen
 * release on PATH and install (frozen to the lockfile), build, then drop dev dependencies.
 */
import type { NodeProject } from "./detect-node-project.js";
import { buildPackageManagerInstall } from "./package-manager.js";

/** yarn berry's settings as environment variables: the linker a PnP project is installed with. */
function yarnEnv(p: NodeProject): string {
  return p.manager === "yarn-berry" && p.nodeModulesLinker ? "YARN_NODE_LINKER=node-modules " : "";
}

/** The npm release on PATH when the lockfile asks for one other than the image's own (lockfileVersion 1: npm 6). */
function buildNpmInstall(version: string): string {
  return `([ "$(cd / && npm --version 2>/dev/null)" = "${version}" ] || npm install -g npm@${version})`;
}

/** The manager at its chosen release (packageManager's, the lockfile's, or ours), then the frozen install. */
export function buildInstallCommand(p: NodeProject): string {
  const locked = p.lockfile !== undefined;
  if (p.manager === "npm") {
    const install = locked ? "npm ci --no-audit --no-fund" : "npm install --no-audit --no-fund";
    return p.managerVersion && !p.managerSpec ? `${buildNpmInstall(p.managerVersion)} && ${install}` : install;
  }
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

export function buildBuildCommand(p: NodeProject): string {
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
export function buildPruneCommand(p: NodeProject): string | undefined {
  switch (p.manager) {
    case "npm":
      // npm 6 (a lockfileVersion 1 project) knows --production, not --omit.
      return p.managerVersion?.startsWith("6.") && !p.managerSpec
        ? "npm prune --production --no-audit --no-fund"
        : "npm prune --omit=dev --no-audit --no-fund";
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
