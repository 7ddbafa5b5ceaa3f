import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type CliResult, runCli } from "./cli.js";
import { forgetProject, freshBackend, removeProjectImages, requireToolchain, ROOT, unique } from "./env.js";

/**
 * A copy of test/fixtures/apps/FIXTURE deployed as a project of its own, on a file backend of its
 * own: the copy is made before the file's tests, and destroyed with its data, images and history
 * after them. Call it at the top of a describe block.
 */
export function fixtureApp(
  fixture: string,
  prefix: string,
): { project: string; dir: string; backend: Record<string, string>; cli: (...args: string[]) => Promise<CliResult> } {
  const project = unique(prefix);
  const backend = freshBackend();
  const dir = join(mkdtempSync(join(tmpdir(), `platform-${prefix}-`)), basename(fixture));
  const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
  beforeAll(() => {
    requireToolchain();
    cpSync(join(ROOT, "test", "fixtures", "apps", fixture), dir, { recursive: true });
  });
  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    removeProjectImages(project);
    rmSync(join(dir, ".."), { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);
  return { project, dir, backend, cli };
}
