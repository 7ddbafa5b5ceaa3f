import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { homePaths } from "../home/layout.js";

/**
 * Environments that end by themselves (`platform deploy --env pr-42 --expires 7d`): the expiry is
 * a small file in the platform home, `projects/<project>/expiry/<env>.json`, read by every
 * platform command that reaches the engine and by Studio (env-remove.ts removes what expired).
 */
export interface Expiry {
  project: string;
  env: string;
  /** ISO time after which the environment is removed with its data. */
  expiresAt: string;
  /** As the user wrote it (`7d`), for messages. */
  duration: string;
  /** The platform.yml the environment was deployed from: its removal needs it. */
  configFile: string;
  /** The state backend it was deployed with: only a login to the same backend removes it. */
  backendUrl: string;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `90m`, `12h`, `7d`, `2w` in milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,4})([mhdw])$/.exec(text.trim());
  return m ? Number(m[1]) * (UNITS[m[2] as string] as number) : undefined;
}

const file = (project: string, env: string) => join(homePaths.expiryDir(project), `${env}.json`);

export function readExpiry(project: string, env: string): Expiry | undefined {
  try {
    return JSON.parse(readFileSync(file(project, env), "utf8")) as Expiry;
  } catch {
    return undefined;
  }
}

export function setExpiry(e: Expiry): void {
  mkdirSync(homePaths.expiryDir(e.project), { recursive: true });
  writeFileAtomic.sync(file(e.project, e.env), `${JSON.stringify(e, null, 2)}\n`);
}

export function clearExpiry(project: string, env: string): void {
  rmSync(file(project, env), { force: true });
}

/** Every expiry recorded on this machine. */
function allExpiries(): Expiry[] {
  const root = homePaths.projectsDir();
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((project) => {
    const dir = homePaths.expiryDir(project);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .flatMap((n) => readExpiry(project, n.slice(0, -".json".length)) ?? []);
  });
}

const past = (e: Expiry, now: number) => Date.parse(e.expiresAt) <= now;

/** Every environment on this machine and this state backend whose expiry has passed, oldest first. */
export function expiredEnvironments(backendUrl: string, now = Date.now()): Expiry[] {
  return allExpiries()
    .filter((e) => e.backendUrl === backendUrl && past(e, now))
    .sort((x, y) => Date.parse(x.expiresAt) - Date.parse(y.expiresAt));
}

/** Is any environment's expiry past, whatever its backend? (A few small files: no login needed.) */
export function hasExpiredEnvironments(now = Date.now()): boolean {
  return allExpiries().some((e) => past(e, now));
}

/** "in 6d 23h", "in 41m", "expired": how long an environment has left. */
export function timeLeft(expiresAt: string, now = Date.now()): string {
  const ms = Date.parse(expiresAt) - now;
  if (ms <= 0) return "expired";
  const m = Math.floor(ms / 60_000);
  if (m < 60) return `in ${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `in ${h}h ${m % 60}m`;
  return `in ${Math.floor(h / 24)}d ${h % 24}h`;
}
