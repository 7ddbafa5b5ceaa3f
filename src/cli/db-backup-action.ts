import { confirm } from "./confirm.js";
import { nextScheduled } from "../data/backup-schedule.js";
import { runScheduler } from "../data/backup-scheduler.js";
import { databaseTarget as engineDatabaseTarget, postgresService } from "../data/db-target.js";
import { parseTemplate } from "../config/index.js";
import type { BackupRecord } from "../data/backups.js";
import { listBackups } from "../data/backups.js";
import { requireCredentials } from "../engine/credentials.js";
import { stackRuntime } from "../engine/stack-ops.js";
import { fetchBackup, remoteBackups } from "../data/backups-remote.js";
import { makeBackups } from "../data/base-backup.js";
import { type DatabaseTarget, describeDatabase, makeBackup, restoreBackup, s3FromEnvOrFail } from "../data/db-backup.js";
import { s3Label } from "../runtime/s3.js";
import { runningServices } from "../data/db-host.js";
import { ExitCode, VisibleError } from "../errors.js";
import { type StackContext, resolveStack } from "./context.js";
import { printJson } from "./render.js";
import type { StackOptions } from "./stack-options.js";
import { formatTable } from "./table.js";
import { humanBytes, when } from "./backup-format.js";
import { windowLine, windowsOf } from "./db-window.js";

export { humanBytes, when };

export interface DbRestoreOptions extends StackOptions {
  yes?: boolean;
  /** Restore into this environment instead (the backup is one of --env's). */
  toEnv?: string;
}

/**
 * The backups here and, with PLATFORM_BACKUP_S3, in the bucket (one entry per id: a backup in
 * both is listed once), newest first.
 */
export async function allBackups(project: string, env: string, service?: string): Promise<(BackupRecord & { stored?: string })[]> {
  const local = listBackups(project, env, service);
  const bucket = s3FromEnvOrFail();
  if (!bucket) return local;
  const remote = await remoteBackups(bucket, project, env, service);
  const remoteIds = new Set(remote.map((r) => r.id));
  const localIds = new Set(local.map((r) => r.id));
  return [
    ...local.map((r) => ({ ...r, stored: remoteIds.has(r.id) ? "here+bucket" : "here" })),
    ...remote.filter((r) => !localIds.has(r.id)).map((r) => ({ ...r, stored: "bucket" })),
  ].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

export { postgresService };

/** A postgres service of this stack where it runs now (data/db-target.ts). */
export const databaseTarget = (t: StackContext, service: string, env = t.env): Promise<DatabaseTarget> =>
  engineDatabaseTarget(t, service, requireCredentials(), env);

/** backup.keep of the service in platform.yml, when it sets one. */
const keepOf = (t: StackContext, service: string): number | undefined => t.config.services[service]?.backup?.keep;

/** How a backup was verified, in a few words: `restored, 3 tables, 1002 rows` (a real restore), `yes` (read whole, before), `no`. */
export function verifiedWords(r: BackupRecord): string {
  const restored = r.verified?.restored;
  if (restored)
    return `restored, ${restored.tables} table${restored.tables === 1 ? "" : "s"}, ${restored.rows} row${restored.rows === 1 ? "" : "s"}`;
  return r.verified ? "yes" : "no";
}

export function backupLine(r: BackupRecord): string {
  return `${r.id} (${r.kind}, ${when(r.createdAt)}, ${humanBytes(r.bytes)}${r.verified ? ", verified" : ""})`;
}

/** `platform db backup SERVICE`: one backup now. */
export async function runDbBackup(service: string, o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  const creds = requireCredentials();
  const target = await databaseTarget(t, service);
  const keep = keepOf(t, service);
  const { record, base, expired, uploadedTo } = await makeBackups(target, creds.passphrase, "manual", keep === undefined ? {} : { keep });
  if (o.json) {
    printJson({ backup: record, ...(base ? { baseBackup: base } : {}), expired: expired.map((r) => r.id) });
    return;
  }
  process.stdout.write(
    `✓ Backup ${record.id} of ${service} (${t.project}, ${t.env}): ${humanBytes(record.bytes)}, encrypted, verified: ${verifiedWords(record)}\n`,
  );
  process.stdout.write(`  restore it with: platform db restore ${service} ${record.id}\n`);
  if (base)
    process.stdout.write(
      `  base backup ${base.id}: ${humanBytes(base.bytes)}, encrypted, verified; with the WAL archive, platform db restore ${service} --to-time TIME reaches any moment since\n`,
    );
  else process.stdout.write(`  no base backup: ${service} does not archive its WAL yet (deploy again to turn it on)\n`);
  if (uploadedTo) process.stdout.write(`  also stored in ${uploadedTo}\n`);
  if (expired.length) process.stdout.write(`  removed by retention (keep: ${keep}): ${expired.map((r) => r.id).join(", ")}\n`);
}

/** The schedules of platform.yml (of one service, or all), with their next run. */
async function schedulesOf(t: StackContext, service: string | undefined) {
  return Object.values(t.config.services)
    .filter((s) => s.type === "postgres" && s.backup?.schedule && (!service || s.name === service))
    .map((s) => {
      const schedule = s.backup?.schedule as string;
      return { service: s.name, schedule, keep: s.backup?.keep, next: nextScheduled(schedule)?.toISOString() };
    });
}

/** `platform db backups [SERVICE]`: the good backups, newest first, and the schedules. */
export async function runDbBackups(service: string | undefined, o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  if (service) postgresService(t, service);
  const list = await allBackups(t.project, t.env, service);
  const bucket = s3FromEnvOrFail();
  const schedules = await schedulesOf(t, service);
  const windows = await windowsOf(t, list, service);
  if (o.json) {
    printJson({ project: t.project, env: t.env, backups: list, schedules, windows });
    return;
  }
  if (bucket) process.stdout.write(`Backups here and in ${s3Label(bucket)}\n`);
  if (!list.length)
    process.stdout.write(
      `No backups of ${service ?? "any database"} in ${t.project} (${t.env}) yet: platform db backup ${service ?? "SERVICE"} makes one\n`,
    );
  else
    process.stdout.write(
      formatTable(
        ["BACKUP", "SERVICE", "MADE (UTC)", "KIND", "SIZE", "DEPLOYMENT", "VERIFIED", ...(bucket ? ["STORED"] : [])],
        list.map((r) => [
          r.id,
          r.service,
          when(r.createdAt),
          r.format === "basebackup" ? `${r.kind}, base` : r.kind,
          humanBytes(r.bytes),
          r.deployment ?? "-",
          r.format === "basebackup" ? (r.verified ? "yes" : "no") : verifiedWords(r),
          ...(bucket ? [(r as { stored?: string }).stored ?? "here"] : []),
        ]),
      ),
    );
  for (const w of windows) process.stdout.write(windowLine(w));
  for (const s of schedules)
    process.stdout.write(
      `schedule of ${s.service}: ${s.schedule} (UTC), keep ${s.keep ?? "all"}; next ${s.next ? when(s.next) : "never"}, made while platform db scheduler runs\n`,
    );
}

/** The running services whose variables reference the database: they keep serving during a restore. */
export async function clientsOf(t: StackContext, service: string): Promise<string[]> {
  const running = await runningServices(t.project, t.env, requireCredentials());
  return Object.values(t.config.services)
    .filter(
      (s) =>
        running.has(s.name) && Object.values(s.env).some((v) => parseTemplate(v).some((p) => p.kind === "ref" && p.service === service)),
    )
    .map((s) => s.name);
}

/** Asks before a restore (--yes skips it); without a terminal and without --yes it refuses and changes nothing. */
export async function confirmRestore(o: { yes?: boolean }, what: string, question: string): Promise<void> {
  if (o.yes) return;
  if (!process.stdin.isTTY)
    throw new VisibleError(`restore needs confirmation: run again with --yes to replace ${what}`, { exitCode: ExitCode.usage });
  if (!(await confirm(question))) throw new VisibleError("nothing was restored", { exitCode: ExitCode.failed });
}

/** `platform db restore SERVICE [BACKUP]`: the newest backup when none is named; a safety backup first. */
export async function runDbRestore(service: string, backupId: string | undefined, o: DbRestoreOptions): Promise<void> {
  const t = await resolveStack(o);
  const creds = requireCredentials();
  postgresService(t, service);
  const all = await allBackups(t.project, t.env, service);
  if (backupId && all.some((r) => r.id === backupId && r.format === "basebackup"))
    throw new VisibleError(
      `${backupId} is a base backup, the start of a point-in-time restore: platform db restore ${service} --to-time TIME`,
      {
        exitCode: ExitCode.usage,
      },
    );
  const list = all.filter((r) => r.format !== "basebackup");
  const chosen = backupId ? list.find((r) => r.id === backupId) : (list.find((r) => r.kind !== "safety") ?? list[0]);
  if (!chosen)
    throw new VisibleError(
      backupId
        ? `no backup ${backupId} of ${service} in ${t.project} (${t.env}); platform db backups ${service} lists them`
        : `no backup of ${service} in ${t.project} (${t.env}) to restore: platform db backup ${service} makes one`,
      { exitCode: ExitCode.usage },
    );
  const into = o.toEnv ?? t.env;
  const target = await databaseTarget(t, service, into);
  const now = await describeDatabase(target);
  const clients = await clientsOf({ ...t, env: into }, service);
  const out = (line: string) => process[o.json ? "stderr" : "stdout"].write(`${line}\n`);
  out(
    `Restore ${service} of ${t.project} (${into}) from ${into === t.env ? "" : `${t.env}'s `}${backupLine(chosen)}${chosen.deployment ? `, made under deployment ${chosen.deployment}` : ""}.`,
  );
  out(
    `  This replaces ALL data of database "${target.database}" now in ${service}${now.tables !== undefined ? ` (${now.tables} tables, ${now.size ?? "?"})` : ""}: ${into === t.env ? `rows written since ${when(chosen.createdAt)} are lost` : `it gets ${t.env}'s data as of ${when(chosen.createdAt)}`}.`,
  );
  out("  A safety backup of the data as it is now is made first: the restore can be undone with it.");
  await confirmRestore(o, `the data of ${service} in ${t.project} (${into})`, `Replace the data of ${service} with ${chosen.id}? (y/N) `);
  if (!listBackups(t.project, t.env, service).some((r) => r.id === chosen.id)) {
    const bucket = s3FromEnvOrFail();
    if (!bucket) throw new VisibleError(`${chosen.id} is not here any more`, { exitCode: ExitCode.failed });
    out(`  fetching ${chosen.id} from ${s3Label(bucket)}`);
    await fetchBackup(bucket, chosen);
  }
  const safety = await makeBackup(target, creds.passphrase, "safety", { note: `before restoring ${chosen.id}` });
  out(`  safety backup: ${backupLine(safety.record)}`);
  const where = ` (their ${(await stackRuntime({ project: t.project, env: target.env }, creds)).words.copies} were not restarted)`;
  const serving = clients.length
    ? `${clients.join(", ")} kept serving${where}: the data was replaced in one transaction, so their requests waited for it and then saw the restored data`
    : "no running service uses this database";
  await restoreBackup(target, chosen, creds.passphrase);
  if (o.json) {
    printJson({ restored: chosen.id, service, env: into, safetyBackup: safety.record.id, keptServing: clients });
    return;
  }
  process.stdout.write(`✓ Restored ${service} from ${chosen.id}; ${serving}\n`);
  process.stdout.write(`  undo: platform db restore ${service} ${safety.record.id}${into === "preview" ? "" : ` --env ${into}`} --yes\n`);
}

/** `platform db scheduler`: runs the backup schedules of platform.yml until stopped (Ctrl-C, SIGTERM). */
export async function runDbScheduler(o: { project?: string } = {}): Promise<void> {
  const creds = requireCredentials();
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  log(`backup scheduler started${o.project ? ` for ${o.project}` : ""} (schedules are UTC; Ctrl-C stops it)`);
  await runScheduler(creds, log, stop.signal, { ...(o.project ? { project: o.project } : {}) });
  log("backup scheduler stopped");
}
