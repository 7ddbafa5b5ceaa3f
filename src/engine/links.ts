import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { platformHome } from "../settings.js";

/**
 * Which project a directory deploys to. Kept in the platform home, not in the user's
 * repository, so a deploy writes nothing into their tree.
 */
function linksFile(): string {
  return join(platformHome(), "links.json");
}

function readLinks(): Record<string, string> {
  try { return JSON.parse(readFileSync(linksFile(), "utf8")) as Record<string, string>; } catch { return {}; }
}

export function linkedProject(dir: string): string | undefined {
  return readLinks()[realpathSync(dir)];
}

export function linkProject(dir: string, project: string): void {
  const links = { ...readLinks(), [realpathSync(dir)]: project };
  mkdirSync(platformHome(), { recursive: true });
  writeFileSync(linksFile(), `${JSON.stringify(links, null, 2)}\n`);
}
