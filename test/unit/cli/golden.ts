import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect } from "vitest";

/**
 * What the golden tests share: the build of dist/ they run, and the comparison with a golden
 * file. After an intended change of output, run them with UPDATE_GOLDEN=1 and review the diff.
 */
export const ROOT = join(import.meta.dirname, "..", "..", "..");
export const GOLDEN = join(ROOT, "test", "fixtures", "golden");

const update = process.env.UPDATE_GOLDEN === "1";
/** CI sets CI=true (or 1): there a golden file that is missing is a failure, not a new file. */
const inCi = !["", "0", "false"].includes((process.env.CI ?? "").toLowerCase());

/**
 * `text` must be the golden file `name`. Outside CI a missing file is written (a new golden
 * for the developer to review and commit); under CI it fails the test, since a test that
 * writes its own expectation proves nothing.
 */
export function expectGolden(name: string, text: string): void {
  const file = join(GOLDEN, name);
  if (!existsSync(file)) {
    if (inCi)
      throw new Error(
        `golden file ${relative(ROOT, file)} is missing: run the test locally (or with UPDATE_GOLDEN=1), review the new file and commit it`,
      );
    writeFileSync(file, text);
  } else if (update) {
    writeFileSync(file, text);
  }
  expect(text).toBe(readFileSync(file, "utf8"));
}

/**
 * Builds dist/ with tsc, as `npm run build` does, for tests that run `node dist/bin.js`. A
 * failed build fails the test with tsc's output: tsc still emits on type errors, and a test
 * that ran on after a failed build would test a dist/ that is not what the source says.
 */
export function buildDist(): void {
  const r = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "."], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 170_000,
  });
  if (r.error) throw new Error(`could not run tsc to build dist/: ${r.error.message}`);
  if (r.status !== 0)
    throw new Error(`tsc -p . failed (exit ${r.status ?? r.signal}): dist/ is not the source's build\n${r.stdout}${r.stderr}`);
  if (!existsSync(join(ROOT, "dist", "bin.js"))) throw new Error("tsc succeeded but dist/bin.js was not built");
}
