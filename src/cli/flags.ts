import { labelProblem, MAX_PROJECT_NAME, NAME_RULE, suggestName } from "../config/rules-names.js";
import { parseDuration } from "../engine/env-expiry.js";
import { ExitCode, VisibleError } from "../errors.js";

/**
 * Names and values given on the command line (or in PLATFORM_* variables) become Docker
 * names, file paths under the platform home and host names, so they get the same rules and
 * messages as the names in platform.yml. `-p ../../x` must never reach a path.
 */
function usage(message: string, hint: string): VisibleError {
  return new VisibleError(message, { exitCode: ExitCode.usage, details: [`  hint: ${hint}`] });
}

function checkLabel(what: string, value: string, max: number): string {
  const problem = labelProblem(value);
  if (problem)
    throw usage(`${what} "${value}" ${problem}`, `use ${NAME_RULE}, e.g. "${suggestName(value).slice(0, max).replace(/-+$/, "")}"`);
  if (value.length > max)
    throw usage(
      `${what} is ${value.length} characters; at most ${max}`,
      `public host names are <project>-<service>-<word>-<word> and must fit in 63 characters; shorten it, e.g. "${value.slice(0, max).replace(/-+$/, "")}"`,
    );
  return value;
}

export function checkProjectName(value: string, source = "--project"): string {
  return checkLabel(`${source}: project name`, value, MAX_PROJECT_NAME);
}

/** Environments are one Pulumi stack each and part of every Docker name of the stack. */
export const MAX_ENV_NAME = 32;

export function checkEnvName(value: string, source = "--env"): string {
  return checkLabel(`${source}: environment name`, value, MAX_ENV_NAME);
}

/** A DNS name of labels, lowercase: the base of every public host name. */
export function checkAppsDomain(value: string, source = "--apps-domain"): string {
  const labels = value.split(".");
  const bad = labels.find((l) => labelProblem(l) !== undefined && !/^[0-9a-z]+$/.test(l));
  if (value.length > 200 || labels.length === 0 || bad !== undefined) {
    const what = bad === undefined ? `is ${value.length} characters; at most 200` : `has a part "${bad}" that ${labelProblem(bad)}`;
    throw usage(
      `${source}: apps domain "${value}" ${what}`,
      `use a DNS name of ${NAME_RULE} parts separated by dots, e.g. "localhost" or "apps.example.test"`,
    );
  }
  return value;
}

export function checkHttpsPort(value: string, source = "--https-port"): number {
  const n = /^[0-9]{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 65535)) throw usage(`${source}: "${value}" is not a port number`, "use a whole number from 1 to 65535, e.g. 8443");
  return n;
}

/** `--since`: "10m", "2h", "30s" ago, or an ISO time, as Unix seconds. */
export function parseSince(since: string, now = Date.now()): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(since);
  if (m) return Math.floor((now - Number(m[1]) * { s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2] as "s"]) / 1000);
  const t = Date.parse(since);
  if (Number.isNaN(t))
    throw new VisibleError(`--since "${since}": use a duration like 10m, 2h, 30s, or an ISO time`, { exitCode: ExitCode.usage });
  return Math.floor(t / 1000);
}

/** `--expires 7d`: milliseconds, or null for `never` (clears an expiry). */
export function checkExpires(value: string, env: string, defaultEnv: string): number | null {
  if (value === "never") return null;
  if (env === defaultEnv)
    throw usage(
      `--expires removes an environment by itself: it is for extra environments, not ${defaultEnv}, the default one`,
      "platform deploy --env pr-42 --from preview --expires 7d",
    );
  const ms = parseDuration(value);
  if (ms === undefined)
    throw usage(`--expires ${value}: not a duration`, "a number and a unit: 90m, 12h, 7d or 2w (never clears an expiry)");
  return ms;
}
