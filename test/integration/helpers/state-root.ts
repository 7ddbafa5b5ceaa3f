import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where this run's file backends go (env.ts freshBackend); set by the global set-up below. */
export const STATE_ROOT_VAR = "PLATFORM_TEST_STATE_ROOT";

/**
 * Vitest's global set-up: the file backends the tests make (about 6 MB of Pulumi state each, one
 * or more per test file) live under one directory per run, removed when the run ends. Before,
 * each stayed in /tmp: 214 of them, 1.3 GB, after a day of runs on one machine.
 */
export function setup(): void {
  process.env[STATE_ROOT_VAR] = mkdtempSync(join(tmpdir(), "platform-test-states-"));
}

export function teardown(): void {
  const dir = process.env[STATE_ROOT_VAR];
  if (dir) rmSync(dir, { recursive: true, force: true });
}
