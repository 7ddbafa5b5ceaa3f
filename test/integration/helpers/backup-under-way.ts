import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
