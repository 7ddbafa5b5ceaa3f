import { statSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";

/** The start diagnosis of a directory the app serves that no build made (provider/contract/diagnose-start.ts). */
const SERVES = /^(\s*)diagnosis: the app serves (\S+) at start, and no build of this service made it.*$/gm;

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/**
 * A start diagnosis made from the log alone, made sharper with the repository at hand: a
 * directory the app serves at start that the repository holds at its root, outside the service's
 * source, is not in the image (only the source directory is); a docker-compose bind mount is
 * what put it beside the app. No build is missing then, and the fix is the layout.
 */
export function refineWithRepository(text: string, projectDir: string): string {
  return text.replace(SERVES, (line, indent: string, dir: string) => {
    const rel = normalize(dir).replace(/\/+$/, "");
    if (isAbsolute(rel) || rel.startsWith("..") || !isDirectory(join(projectDir, rel))) return line;
    return `${indent}diagnosis: the app serves ${rel} at start, and the repository has ${rel}/ at its root, outside the service's source: the image holds only the source directory (a docker-compose bind mount is what put ${rel}/ beside the app): move ${rel}/ into the service's directory, or make the repository root its source (source: . and a start: that runs the app from its directory)`;
  });
}
