import { lstatSync, readdirSync, readFileSync } from "node:fs";
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

/**
 * Fails the test when a CLI output (stdout or stderr) or a file under `folder` (which must hold
 * files: see expectFolderWithFiles) holds one of `secrets`.
 */
export function expectSecretsNowhere(secrets: string[], outputs: { stdout: string; stderr: string }[], folder: string): void {
  for (const s of secrets) expect(s.length, "a secret to look for").toBeGreaterThan(0);
  for (const r of outputs) for (const s of secrets) expect(`${r.stdout}\n${r.stderr}`).not.toContain(s);
  expectFolderWithFiles(folder);
  for (const f of regularFilesUnder(folder)) {
    const bytes = readFileSync(f);
    for (const s of secrets) expect(bytes.includes(Buffer.from(s)), `${f} holds a secret`).toBe(false);
  }
}
