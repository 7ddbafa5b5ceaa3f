import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";

/**
 * For the checks that a secret is written nowhere: a search of a folder that is not there, or
 * that holds nothing, finds nothing and would pass on nothing. These fail the test instead.
 */

/** The regular files under `dir`, not following symbolic links; throws when `dir` cannot be read. */
export function regularFilesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files.push(...regularFilesUnder(p));
    else if (e.isFile()) files.push(p);
  }
  return files;
}

/** Fails the test unless `dir` is a directory (not a link to one) that holds at least one file. */
export function expectFolderWithFiles(dir: string): void {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  expect(st?.isDirectory(), `${dir} is a directory (a leak check there must not pass on a missing folder)`).toBe(true);
  expect(regularFilesUnder(dir).length, `files under ${dir} (a leak check there must not pass on an empty folder)`).toBeGreaterThan(0);
}
