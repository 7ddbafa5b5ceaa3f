import { archivesWal } from "../data/base-backup.js";
import type { BackupRecord } from "../data/backups.js";
import { requireCredentials } from "../engine/credentials.js";
import { stackRuntime } from "../engine/stack-ops.js";
import { type DatabaseTarget, describeDatabase, makeBackup } from "../data/db-backup.js";
import { archiveUpToNow, recoverToTime } from "../data/pitr-restore.js";
import { baseBackupFor, parseTargetTime, readArchive, recoveryWindow } from "../data/pitr-window.js";
import { ExitCode, VisibleError } from "../errors.js";
import { resolveStack } from "./context.js";
import {
  allBackups,
  backupLine,
  clientsOf,
  confirmRestore,
  databaseTarget,
  type DbRestoreOptions,
  postgresService,
  when,
} from "./db-backup-action.js";
import { printJson } from "./render.js";

function targetTimeOf(text: string): Date {
  const d = parseTargetTime(text);
  if (!d)
    throw new VisibleError(
      `--to-time "${text}" is not a time: write it as "2026-11-26 10:41:00" (UTC), or with a zone: "2026-11-26 11:41:00+01:00"`,
      { exitCode: ExitCode.usage },
    );
  return d;
}

/** The window or why there is none; the time must be in it, or the error says the window. */
async function checkInWindow(db: DatabaseTarget, records: BackupRecord[], target: Date): Promise<BackupRecord> {
  const iso = (d: Date) => when(d.toISOString());
  if (!(await archivesWal(db)))
    throw new VisibleError(
      `${db.service} does not archive its WAL yet: deploy again (platform deploy) to turn WAL archiving on, then platform db backup ${db.service}`,
      {
        exitCode: ExitCode.usage,
      },
    );
  const now = new Date();
  const w = recoveryWindow(records, await readArchive(db.host));
  if (!w)
    throw new VisibleError(
      `no base backup of ${db.service} to recover from: platform db backup ${db.service} makes one, and the window starts there`,
      {
        exitCode: ExitCode.usage,
      },
    );
  const base = baseBackupFor(records, target);
  if (!base || target > now)
    throw new VisibleError(
      `--to-time ${iso(target)} is outside the recoverable window of ${db.service}: ${when(w.from)} to now (${iso(now)}; UTC)`,
      { exitCode: ExitCode.usage },
    );
  return base;
}

/** `platform db restore SERVICE --to-time TIME`: point-in-time recovery from a base backup and the WAL archive. */
export async function runDbRestoreToTime(service: string, toTime: string, o: DbRestoreOptions & { backup?: string }): Promise<void> {
  if (o.backup || o.toEnv)
    throw new VisibleError(`--to-time recovers ${service} itself from its base backups and WAL: it takes no backup name and no --to-env`, {
      exitCode: ExitCode.usage,
    });
  const target = targetTimeOf(toTime);
  const t = await resolveStack(o);
  const creds = requireCredentials();
  postgresService(t, service);
  const db = await databaseTarget(t, service);
  // How the database is stopped and its data swapped where it runs (its container, or its StatefulSet).
  const recovery = await (await stackRuntime(t, creds)).databaseRecovery(service);
  const records = (await allBackups(t.project, t.env, service)).filter((r) => r.stored !== "bucket");
  const base = await checkInWindow(db, records, target);
  const now = await describeDatabase(db);
  const clients = await clientsOf(t, service);
  const out = (line: string) => process[o.json ? "stderr" : "stdout"].write(`${line}\n`);
  const at = when(target.toISOString());
  out(
    `Restore ${service} of ${t.project} (${t.env}) to ${at} (UTC): base backup ${backupLine(base)}, then the WAL archive up to that moment.`,
  );
  out(
    `  This replaces ALL data of the server now in ${service}${now.tables !== undefined ? ` (${now.tables} tables, ${now.size ?? "?"})` : ""}: what was written after ${at} is lost.`,
  );
  out("  A safety backup of the data as it is now is made first: the restore can be undone with it.");
  out(
    `  The database is stopped during the recovery${typeof recovery === "string" ? "" : ` (${recovery.stopping})`}${clients.length ? `: ${clients.join(", ")} get errors for requests that need it until it is back` : ""}.`,
  );
  await confirmRestore(o, `the data of ${service} in ${t.project} (${t.env})`, `Recover ${service} to ${at}? (y/N) `);
  const safety = await makeBackup(db, creds.passphrase, "safety", { note: `before the point-in-time restore to ${target.toISOString()}` });
  out(`  safety backup: ${backupLine(safety.record)}`);
  await archiveUpToNow(db);
  const started = Date.now();
  await recoverToTime(db, recovery, base, target, creds.passphrase);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (o.json) {
    printJson({
      restored: service,
      toTime: target.toISOString(),
      baseBackup: base.id,
      safetyBackup: safety.record.id,
      downSeconds: Number(seconds),
      clients,
    });
    return;
  }
  const seen = clients.length
    ? `; ${clients.join(", ")} kept running: their requests that needed the database waited or failed while it was down, and they connect again now that it is back`
    : "";
  process.stdout.write(`✓ Restored ${service} to ${at} (the database was down ${seconds} s)${seen}\n`);
  process.stdout.write(`  undo: platform db restore ${service} ${safety.record.id}${t.env === "preview" ? "" : ` --env ${t.env}`} --yes\n`);
}
