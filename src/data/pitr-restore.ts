import { ExitCode, VisibleError } from "../errors.js";
import { SYNC_PASSWORD } from "../plan/build-plan.js";
import { execText } from "../runtime/pg-exec.js";
import { OLD_DIR, RECOVERY_SETTINGS } from "../runtime/pg-recover.js";
import type { DatabaseRecovery } from "../runtime/target-runtime.js";
import { BackupDecryptError, decryptFile } from "./backup-crypto.js";
import { type BackupRecord, backupFile } from "./backups.js";
import { type DatabaseTarget, fileSha256, psqlValue } from "./db-backup.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Everything up to now in the archive: a commit stamped now (so the recovery finds a record after
 * any earlier target and stops there), then the current segment ended and archived.
 */
export async function archiveUpToNow(t: DatabaseTarget, timeoutMs = 30_000): Promise<Date> {
  await psqlValue(t, "SELECT txid_current()");
  const now = new Date();
  const segment = await psqlValue(t, "SELECT pg_walfile_name(pg_switch_wal())");
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(200)) {
    const done = await psqlValue(t, "SELECT last_archived_wal FROM pg_stat_archiver");
    if (segment && done && done >= segment) return now;
  }
  throw new VisibleError(
    `${t.service} did not archive its WAL segment ${segment ?? "?"} within ${timeoutMs / 1000} s: platform logs ${t.service} says why; nothing was changed`,
    {
      exitCode: ExitCode.failed,
    },
  );
}

/**
 * The base backup's file, checked against its record, and how a recovery that changed nothing
 * says it failed (on either target).
 */
export async function checkedBaseBackup(t: DatabaseTarget, base: BackupRecord) {
  const file = backupFile(base);
  const failed = (what: string) =>
    new VisibleError(`point-in-time restore of ${t.service} failed: ${what}; the data is as it was`, { exitCode: ExitCode.failed });
  if ((await fileSha256(file)) !== base.sha256) throw failed(`${file} is not the file that was recorded (its SHA-256 differs)`);
  return { file, failed };
}

/** recovery_target_time as PostgreSQL reads it: `2026-11-26 10:41:00.250+00` (not ISO's T and Z). */
export const toPostgresTime = (d: Date): string => d.toISOString().replace("T", " ").replace("Z", "+00");

/**
 * Point-in-time recovery of a running database, on either target (the runtime's
 * DatabaseRecovery says how there): it is stopped cleanly, its data moved aside (kept where it
 * was), the base backup unpacked with a request to recover up to `target` from the WAL archive
 * (recovery.signal, recovery_target_time, then promote), and started. Once it is promoted and
 * takes connections, the recovery settings are reset, the stack's password set again, and the
 * old data removed. If anything fails the recovered files are dropped, the old data put back
 * and the server started on it: the data is as it was.
 */
export async function recoverToTime(
  t: DatabaseTarget,
  recovery: DatabaseRecovery | string,
  base: BackupRecord,
  target: Date,
  passphrase: string,
  timeoutMs = 300_000,
): Promise<void> {
  const { file, failed } = await checkedBaseBackup(t, base);
  if (typeof recovery === "string") throw failed(recovery);
  const r = recovery;
  const putBack = async (why: string): Promise<never> => {
    await r.stop().catch(() => undefined);
    const back = await r.putBack().catch((e: Error) => ({ code: -1, stderr: e.message }));
    await r.start().catch(() => undefined);
    if (back.code !== 0)
      throw new VisibleError(
        `point-in-time restore of ${t.service} failed (${why}), and putting the old data back failed too (${back.stderr}): it is in ${r.oldDataPlace}`,
        { exitCode: ExitCode.failed },
      );
    throw failed(why);
  };
  await r.stop();
  const swapped = await r.swapIn(toPostgresTime(target), decryptFile(file, passphrase)).catch((e: Error) => ({
    code: -1,
    stderr: e instanceof BackupDecryptError ? e.message : `could not feed the backup: ${e.message}`,
  }));
  if (swapped.code !== 0) await putBack(`could not unpack ${base.id}: ${swapped.stderr || `exit ${swapped.code}`}`);
  await r.start();
  if (!(await r.untilPromoted(async () => (await psqlValue(t, "SELECT pg_is_in_recovery()")) === "f", timeoutMs))) {
    const log = await r.logTail();
    await putBack(`the server did not finish recovering to ${target.toISOString()}${log ? `; its last lines:\n${log}` : ""}`);
  }
  await finishRecovery(t, r.clusterDir);
}

/**
 * Once the recovered server is promoted (on either target): the recovery settings are reset, the
 * stack's password set again, and the moved-aside data in `clusterDir` removed.
 */
export async function finishRecovery(t: DatabaseTarget, clusterDir: string): Promise<void> {
  // One -c each: ALTER SYSTEM does not run inside the transaction a multi-statement -c is.
  const reset = RECOVERY_SETTINGS.flatMap((s) => ["-c", `ALTER SYSTEM RESET ${s}`]);
  await execText(t.host, ["psql", "-X", "-q", "--no-password", "-U", t.user, "-d", t.database, ...reset, "-c", "SELECT pg_reload_conf()"]);
  // The base backup carries the password of its time: the stack's own is set again (as after a deploy).
  await execText(t.host, SYNC_PASSWORD);
  await execText(t.host, ["rm", "-rf", `${clusterDir}/${OLD_DIR}`]);
}
