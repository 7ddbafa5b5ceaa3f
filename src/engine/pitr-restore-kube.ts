import { ExitCode, VisibleError } from "../errors.js";
import { WAL_ARCHIVE_PATH } from "../plan/wal-archive.js";
import {
  databasePodLog,
  databasePodState,
  type KubeDatabase,
  kubeDatabase,
  kubePutBackOldData,
  kubeSwapInBaseBackup,
  scaleDatabase,
} from "../runtime/kube-recover.js";
import type { PodHost } from "../runtime/pg-exec.js";
import { OLD_DIR } from "../runtime/pg-recover.js";
import { BackupDecryptError, decryptFile } from "./backup-crypto.js";
import type { BackupRecord } from "./backups.js";
import { type DatabaseTarget, psqlValue } from "./db-backup.js";
import { setTimeout as sleep } from "node:timers/promises";
import { checkedBaseBackup, finishRecovery, toPostgresTime } from "./pitr-restore.js";

/** A database on the Kubernetes target: its host is its StatefulSet's ready pod (`<service>-0`). */
type KubeDatabaseTarget = DatabaseTarget & { host: PodHost };

/**
 * Waits until the recovered server (the StatefulSet's new pod, same name) is promoted and takes
 * connections; false if its container restarted (a server that gives up exits, the kubelet
 * starts it again) or the time is up.
 */
async function waitPromoted(t: KubeDatabaseTarget, db: KubeDatabase, timeoutMs: number): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(500)) {
    const state = await databasePodState(db);
    if (state && state.restarts > 0) return false;
    if (state && (await psqlValue(t, "SELECT pg_is_in_recovery()")) === "f") return true;
  }
  return false;
}

/**
 * Point-in-time recovery on Kubernetes, as recoverToTime on Docker: the StatefulSet is scaled
 * to 0 (the server stops cleanly), a helper pod on the same claim moves the data aside (kept in
 * the claim) and unpacks the base backup with a request to recover up to `target` from the WAL
 * archive, then the StatefulSet is scaled back to 1 and its pod recovers and promotes. Then the
 * recovery settings are reset, the password set again, the old data removed. If anything fails
 * the recovered files are dropped, the old data put back and the server started on it.
 */
export async function recoverToTimeOnKube(
  t: KubeDatabaseTarget,
  base: BackupRecord,
  target: Date,
  passphrase: string,
  timeoutMs = 300_000,
): Promise<void> {
  const { file, failed } = await checkedBaseBackup(t, base);
  const cluster = { project: t.project, env: t.env, kubeconfig: t.host.kubeconfig };
  const db = await kubeDatabase(cluster, t.host, t.service);
  const pgdata = (db.template.containers[0]?.env as { name: string; value?: string }[] | undefined)?.find(
    (e) => e.name === "PGDATA",
  )?.value;
  const mounted = ((db.template.containers[0]?.volumeMounts as { mountPath: string }[] | undefined) ?? []).some(
    (m) => m.mountPath === WAL_ARCHIVE_PATH,
  );
  if (!pgdata || !mounted) throw failed(`${t.service} has no WAL archive mount: deploy again to turn WAL archiving on`);
  const putBack = async (why: string): Promise<never> => {
    await scaleDatabase(db, 0).catch(() => undefined);
    const back = await kubePutBackOldData(db, WAL_ARCHIVE_PATH).catch((e: Error) => ({ code: -1, stderr: e.message }));
    await scaleDatabase(db, 1).catch(() => undefined);
    if (back.code !== 0)
      throw new VisibleError(
        `point-in-time restore of ${t.service} failed (${why}), and putting the old data back failed too (${back.stderr}): it is in ${pgdata}/${OLD_DIR} of the claim of ${t.service}`,
        { exitCode: ExitCode.failed },
      );
    throw failed(why);
  };
  await scaleDatabase(db, 0);
  const swapped = await kubeSwapInBaseBackup(db, WAL_ARCHIVE_PATH, toPostgresTime(target), decryptFile(file, passphrase)).catch(
    (e: Error) => ({
      code: -1,
      stderr: e instanceof BackupDecryptError ? e.message : `could not feed the backup: ${e.message}`,
    }),
  );
  if (swapped.code !== 0) await putBack(`could not unpack ${base.id}: ${swapped.stderr || `exit ${swapped.code}`}`);
  await scaleDatabase(db, 1);
  if (!(await waitPromoted(t, db, timeoutMs))) {
    const log = await databasePodLog(db);
    await putBack(`the server did not finish recovering to ${target.toISOString()}${log ? `; its last lines:\n${log}` : ""}`);
  }
  await finishRecovery(t, pgdata);
}
