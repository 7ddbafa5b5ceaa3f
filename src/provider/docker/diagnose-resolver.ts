/**
 * A dependency resolver that found no set of versions satisfying what the repository declares:
 * pip's ResolutionImpossible, uv's and Poetry's "version solving failed", npm's ERESOLVE. The
 * repository's own fault: the diagnosis quotes the resolver's reason and says where to change it.
 */

/** pip (23-25), uv (0.4+) and Poetry (1.x-2.x) saying the requirements cannot all be met. */
export const RESOLVER_CONFLICT =
  /ResolutionImpossible|because these package versions have conflicting dependencies|No solution found when resolving dependencies|SolverProblemError|version solving failed/;

/** npm 7+ refusing a tree whose peer dependencies do not match. */
export const NPM_ERESOLVE = /ERESOLVE (?:unable to resolve dependency tree|could not resolve)/;

const clean = (line: string) => line.replace(/^[\s│╰─▶]+/u, "").trim();

/** The resolver's own reason, in a line or two. */
function reasonOf(log: string): string | undefined {
  const pip = /The conflict is caused by:\n((?:[ \t]+\S[^\n]*\n?){1,4})/.exec(log)?.[1];
  if (pip) return pip.split("\n").map(clean).filter(Boolean).join("; ");
  const uv = /No solution found when resolving dependencies[^\n]*:\n([\s\S]*?unsatisfiable\.)/.exec(log)?.[1];
  if (uv) return uv.split("\n").map(clean).filter(Boolean).join(" ");
  return /Because ([^\n]+)/.exec(log)?.[0];
}

export function diagnoseResolverConflict(log: string): string {
  const reason = reasonOf(log);
  return `the project's declared dependencies conflict: the resolver found no set of versions that satisfies them all${reason ? ` (${reason})` : ""}: change the pins it names in the repository's requirements (requirements.txt, pyproject.toml) and commit the lockfile`;
}

export function diagnoseNpmResolve(log: string): string {
  const found = /npm (?:ERR!|error) Found: (\S+)/.exec(log)?.[1];
  const peer = /npm (?:ERR!|error) Could not resolve dependency:\s*\n?npm (?:ERR!|error) (peer \S+ from \S+)/.exec(log)?.[1];
  const why = found && peer ? ` (${peer}, and the tree has ${found})` : "";
  return `npm's resolver refused the dependency tree: a peer dependency's range is not met${why}; align the versions in package.json and commit package-lock.json, or, if the lockfile was made that way, set legacy-peer-deps=true in the repository's .npmrc`;
}
