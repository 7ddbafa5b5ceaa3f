import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { homePaths } from "../home/layout.js";

/**
 * Which project a directory deploys to. Kept in the platform home, not in the user's
 * repository, so a deploy writes nothing into their tree. One small file per directory,
 * written atomically: two first deploys in two directories never lose each other's link,
 * and a crash mid-write leaves the old file or the new one, never half of one.
 */
export interface Link {
  dir: string;
  project: string;
  linkedAt: string;
}

function linksDir(): string {
  return homePaths.linksDir();
}

function linkFile(dir: string): string {
  return join(linksDir(), `${createHash("sha256").update(dir).digest("hex").slice(0, 32)}.json`);
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/** Links written by platform 0.1 (one links.json for every directory), read until rewritten. */
function legacyLinks(): Record<string, string> {
  return readJson<Record<string, string>>(homePaths.legacyLinksFile()) ?? {};
}

export function linkedProject(dir: string): string | undefined {
  const real = realpathSync(dir);
  return readJson<Link>(linkFile(real))?.project ?? legacyLinks()[real];
}

export function linkProject(dir: string, project: string): void {
  const real = realpathSync(dir);
  mkdirSync(linksDir(), { recursive: true, mode: 0o700 });
  const link: Link = { dir: real, project, linkedAt: new Date().toISOString() };
  writeFileAtomic.sync(linkFile(real), `${JSON.stringify(link, null, 2)}\n`, { mode: 0o600 });
}

/** Forgets a directory's link; true when there was one. */
export function unlinkDir(dir: string): boolean {
  const real = realpathSync(dir);
  const had = linkedProject(real) !== undefined;
  rmSync(linkFile(real), { force: true });
  const legacy = legacyLinks();
  if (legacy[real] !== undefined) {
    delete legacy[real];
    writeFileAtomic.sync(homePaths.legacyLinksFile(), `${JSON.stringify(legacy, null, 2)}\n`, { mode: 0o600 });
  }
  return had;
}

/** Every directory linked to a project. */
export function linkedDirs(project: string): string[] {
  let files: string[] = [];
  try {
    files = readdirSync(linksDir()).filter((f) => f.endsWith(".json"));
  } catch {
    /* no links yet */
  }
  const dirs = files
    .map((f) => readJson<Link>(join(linksDir(), f)))
    .filter((l): l is Link => l?.project === project)
    .map((l) => l.dir);
  for (const [dir, p] of Object.entries(legacyLinks())) if (p === project && !dirs.includes(dir)) dirs.push(dir);
  return dirs;
}
