import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { startCli } from "./cli.js";

/**
 * Starts `platform db backup SERVICE` and resolves once its temporary file in `backupsDir` holds
 * more than a megabyte: the dump is under way (for the kill -9 tests).
 */
export async function backupUnderWay(backupsDir: string, args: string[], opts: { cwd: string; env: Record<string, string> }) {
  const started = startCli(["db", "backup", ...args], opts);
  for (let i = 0; i < 600; i++) {
    const partial = existsSync(backupsDir) ? readdirSync(backupsDir).find((f) => /\.partial-\d+$/.test(f)) : undefined;
    if (partial && readFileSync(join(backupsDir, partial)).length > 1_000_000) return { started, partial };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no backup under way: ${JSON.stringify(await started.done)}`);
}

/** Rows enough that a dump takes a moment (random text does not compress): about 60 MB. */
export const FILLER_SQL =
  "CREATE TABLE filler AS SELECT g AS id, md5(random()::text) || md5(random()::text) || md5(random()::text) AS v FROM generate_series(1, 600000) g";

/**
 * kill -9 of the CLI during a backup: once the dump is under way the CLI is killed; nothing new
 * is listed and its temporary file stays; `between` checks what it must (run after the kill);
 * then the next backup (`backupAgain`) removes the leftover and is listed, one more than before.
 */
export async function expectKilledBackupLeavesNothing(o: {
  backupsDir: string;
  args: string[];
  cli: { cwd: string; env: Record<string, string> };
  listedIds: () => Promise<string[]>;
  backupAgain: () => Promise<{ stdout: string }>;
  between?: () => Promise<void>;
}): Promise<void> {
  const before = await o.listedIds();
  const { started, partial } = await backupUnderWay(o.backupsDir, o.args, o.cli);
  started.child.kill("SIGKILL");
  await started.done;
  expect(await o.listedIds()).toEqual(before);
  expect(readdirSync(o.backupsDir)).toContain(partial);
  await o.between?.();
  const r = await o.backupAgain();
  expect(readdirSync(o.backupsDir)).not.toContain(partial);
  const after = await o.listedIds();
  expect(after.length).toBe(before.length + 1);
  expect(r.stdout).toContain(after[0] as string);
}
