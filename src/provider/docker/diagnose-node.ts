/**
 * Node build failures whose one-line diagnosis names what failed (a page, a package, a host,
 * a lockfile version) taken from the log. Each pattern is the tool's current wording, as seen
 * in builds here: Next.js 15-16's prerender error, npm 10 / pnpm 8-10 / yarn 1 and berry
 * lifecycle failures, pnpm's and yarn berry's lockfile refusals.
 */

/** A network failure's host: Node's getaddrinfo/connect errors, curl's and wget's. */
const NETWORK =
  /getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([\w.-]+)|Could not resolve host:? '?([\w.-]+)|unable to resolve host address '([^']+)'|connect (?:ECONNREFUSED|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH) ([\w.:[\]-]+)/;

function findHost(text: string): string | undefined {
  const m = NETWORK.exec(text);
  return m ? (m[1] ?? m[2] ?? m[3] ?? m[4]) : undefined;
}

/**
 * `next build` prerendered a page whose fetch failed (ISR, force-static, generateStaticParams...):
 * fetch's own "fetch failed", or an SDK's error that carries Node's network error a dozen lines
 * below (Stripe's StripeConnectionError holds `detail: [Error: getaddrinfo ENOTFOUND api.stripe.com]`).
 */
export const PRERENDER_FETCH =
  /Error occurred prerendering page "([^"]*)"[^\n]*\n(?:[^\n]*\n){0,20}?[^\n]*(\bfetch failed|getaddrinfo (?:ENOTFOUND|EAI_AGAIN) |connect (?:ECONNREFUSED|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH) )/;

export function diagnosePrerenderFetch(m: RegExpExecArray, log: string): string {
  const page = m[1];
  const host = findHost(log.slice(m.index));
  // A bare name (no dot) is most likely another service of the stack: builds do not run on its network.
  const where = host ? ` (${host}${host.includes(".") ? "" : ", a service? builds run outside the stack's network"})` : "";
  const what = m[2] === "fetch failed" ? "a fetch" : "a request";
  return (
    `next build prerenders ${page}, and ${what} there failed${where}: render the page at request time ` +
    `(export const dynamic = "force-dynamic" in its page or layout), or make what it fetches reachable from the build`
  );
}

/**
 * The build script runs a database migration (`"build": "run-s db:migrate build:next"`, `prisma
 * migrate deploy && next build`) and the build fails there: builds run outside the stack's network,
 * so its database cannot be reached. drizzle-kit prints no error of its own ("applying migrations..."
 * then npm-run-all's `ERROR: "db:migrate" exited with 1.`), so the command line is what tells.
 */
export const MIGRATION_IN_BUILD =
  /> [^\n]*?\b(drizzle-kit (?:migrate|push)|prisma (?:migrate deploy|db push)|knex migrate:latest|sequelize(?:-cli)? db:migrate|typeorm migration:run)\b[^\n]*\n(?:[^\n]*\n){0,30}?[^\n]*(?:ERROR: "[^"]*" exited with [1-9]|npm (?:error|ERR!) |ELIFECYCLE|Error: |error: )/;

export function diagnoseMigrationInBuild(m: RegExpExecArray): string | undefined {
  // The migration ran (drizzle-kit, prisma): what failed after it is another cause.
  if (/applied successfully|successfully applied|No pending migrations/i.test(m[0])) return undefined;
  return (
    `the build script runs a database migration (${m[1]}), and builds run outside the stack's network, where its database cannot be reached: ` +
    `run it as the service's lifecycle.migrate in platform.yml (after the build, on the stack's network) and take it out of package.json's build script`
  );
}

/** A dependency's install script failed: npm 7+, yarn 1, pnpm, yarn berry (which keeps the output in a file). */
const LIFECYCLE = [
  /npm (?:error|ERR!) path \S*node_modules\/((?:@[^/\s]+\/)?[^/\s]+)\s*\n[^\n]*command failed/,
  /error \S*node_modules\/((?:@[^/\s]+\/)?[^/\s:]+): Command failed/,
  /node_modules\/((?:@[^/\s]+\/)?[^/\s]+) (?:pre|post)?install: Failed/,
  /YN0009: │ ((?:@[^/\s]+\/)?[^@\s]+)@\S+ couldn't be built successfully/,
];

export const LIFECYCLE_FAILURE = new RegExp(LIFECYCLE.map((re) => re.source).join("|"));

/** An install script that downloads, or runs curl/wget, which the image lacks; undefined for any other script failure. */
export function diagnoseInstallScript(m: RegExpExecArray, log: string): string | undefined {
  const pkg = m.slice(1).find((g) => g !== undefined) ?? "a dependency";
  // pnpm prefixes each line of a script's output with the package's path, and says "Failed" last.
  const after =
    m[3] === undefined
      ? log.slice(m.index, m.index + 4000)
      : log
          .split("\n")
          .filter((l) => l.includes(`node_modules/${pkg} `))
          .join("\n");
  const tool = /\b(curl|wget): not found/.exec(after)?.[1];
  if (tool) {
    return `the install script of ${pkg} runs ${tool}, which the image lacks, to download something outside the npm registry: use a version that ships its files in the npm package, or a build Dockerfile that installs ${tool} and lets the build reach the download`;
  }
  const host = findHost(after);
  if (host) {
    return `the install script of ${pkg} downloads from ${host}, outside the npm registry, which this build cannot reach: use a version (or an alternative) that ships its files in the npm package, set the package's mirror variable if it has one, or let the build reach ${host}`;
  }
  if (m[0].includes("YN0009")) {
    return `the install script of ${pkg} failed (yarn keeps its output in a file inside the build); if it downloads a binary, this build cannot reach anything outside the npm registry: use a version that ships its files in the npm package`;
  }
  return undefined;
}

/** pnpm refused a lockfile written by another major: which pnpm ran is in the RUN line the recipe wrote. */
export const PNPM_LOCKFILE_VERSION = /ERR_PNPM_LOCKFILE_BREAKING_CHANGE|ERR_PNPM_FROZEN_LOCKFILE_WITH_OUTDATED_LOCKFILE/;

export function diagnosePnpmLockfile(_m: RegExpExecArray, log: string): string {
  const ran = /pnpm --version 2>\/dev\/null\)" = "([\d.]+)"/.exec(log)?.[1];
  return (
    `pnpm-lock.yaml was written by another pnpm major than the one installing${ran ? ` (pnpm ${ran})` : ""}: ` +
    "name the pnpm that wrote it in package.json packageManager, or none and the platform picks it by lockfileVersion " +
    "(5.4: pnpm 7, 6.0: pnpm 8, 9.0: pnpm 9 or 10), or regenerate the lockfile with pnpm install and commit it"
  );
}

/** yarn berry would rewrite the lockfile's own version (or a yarn 1 lockfile) under --immutable. */
export const YARN_LOCKFILE_VERSION =
  /YN0028: │ -(?:# yarn lockfile v1| {2}version: (\d+))[ \t\r]*\n(?:[^\n]*YN0028: │ [-+][^\n]*\n){0,5}?[^\n]*YN0028: │ \+ {2}version: (\d+)/;

export function diagnoseYarnLockfile(m: RegExpExecArray, log: string): string {
  const ran = /YN0000: (?:· )?Yarn (\d[\w.-]*)/.exec(log)?.[1] ?? /yarn --version 2>\/dev\/null\)" = "([\w.-]+)"/.exec(log)?.[1];
  const yarn = ran ? `yarn ${ran}` : "this yarn";
  const written = m[1] === undefined ? "is yarn classic's (v1)" : `has __metadata version ${m[1]}`;
  return (
    `yarn.lock ${written}, but ${yarn} writes version ${m[2]} and an immutable install refuses to rewrite it: ` +
    "name the yarn that wrote it in package.json packageManager, or none and the platform picks it by the lockfile's version, " +
    `or run yarn install with ${yarn} and commit yarn.lock`
  );
}
