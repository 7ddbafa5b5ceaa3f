import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { homePaths } from "../home/layout.js";

/**
 * The backups of a stack's databases, in the platform home (homePaths.backupsDir): per service,
 * `<id>.pgdump.enc` (the encrypted dump) and `<id>.json` (its record). A backup is written
 * under a temporary name (`<id>.partial-<pid>`), verified, renamed, and only then recorded:
 * a backup is listed only when its record exists and its file has the recorded size, so one
 * cut short (the CLI or the database killed) is never listed as good, and the next backup
 * removes what it left.
 */
/** copy: the data another environment had when this one was made from it (deploy --from). */
/** "safety": before a restore; "upgrade": before a major version upgrade; "copy": the start of an environment --from another. */
export type BackupKind = "manual" | "scheduled" | "safety" | "copy" | "upgrade";

export interface BackupRecord {
  id: string;
  project: string;
  env: string;
  service: string;
  kind: BackupKind;
  startedAt: string;
  createdAt: string;
  /** Size of the encrypted file, and its SHA-256 (what is stored, checked before a restore). */
  bytes: number;
  sha256: string;
  /** The deployment that was current when the backup was made. */
  deployment?: string;
  /**
   * How the backup was verified after it was written: since 2026-12-07 restored into a scratch
   * PostgreSQL, with the tables and rows it held (each table's count the database's at the
   * dump); before, decrypted and read whole by pg_restore.
   */
  verified?: { at: string; how: string; restored?: { tables: number; rows: number } };
  /** The server's version, as `SHOW server_version` says. */
  postgres?: string;
  /** A safety backup says what it was made before. */
  note?: string;
  /**
   * `basebackup`: a copy of the whole server by pg_basebackup (a tar with its WAL), the start of a
   * point-in-time recovery (data/base-backup.ts); absent: a pg_dump of the database.
   */
  format?: "basebackup";
  /** A base backup's place in the WAL archive: its `.backup` history file, and when it was consistent. */
  wal?: { historyFile: string; consistentAt: string };
}

const FILE_SUFFIX = ".pgdump.enc";
const BASE_SUFFIX = ".base.tar.enc";
const SUFFIXES = [FILE_SUFFIX, BASE_SUFFIX];

/** The name of a backup's file after its id: `.pgdump.enc`, or `.base.tar.enc` for a base backup. */
export const backupSuffix = (r: Pick<BackupRecord, "format">): string => (r.format === "basebackup" ? BASE_SUFFIX : FILE_SUFFIX);
const PARTIAL = /\.partial-(\d+)$/;

export function backupDir(project: string, env: string, service: string): string {
  return homePaths.backupsDir(project, env, service);
}

/** `database-20261126T104100Z-3fa1`: the service, the UTC second, 2 random bytes. Nothing else (object names too). */
export function newBackupId(service: string, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${service}-${stamp}-${randomBytes(2).toString("hex")}`;
}

export function partialFile(project: string, env: string, service: string, id: string): string {
  const dir = backupDir(project, env, service);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, `${id}.partial-${process.pid}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes what backups cut short left: temporary files of processes that are gone, and dump
 * files without a record (a crash between rename and record) older than a minute.
 */
export function removeLeftovers(project: string, env: string, service: string, now = Date.now()): string[] {
  const dir = backupDir(project, env, service);
  if (!existsSync(dir)) return [];
  const removed: string[] = [];
  for (const f of readdirSync(dir)) {
    const m = PARTIAL.exec(f);
    const suffix = SUFFIXES.find((x) => f.endsWith(x));
    const orphan =
      suffix !== undefined && !existsSync(join(dir, `${f.slice(0, -suffix.length)}.json`)) && now - statSync(join(dir, f)).mtimeMs > 60_000;
    if ((m && !alive(Number(m[1]))) || orphan) {
      rmSync(join(dir, f), { force: true });
      removed.push(f);
    }
  }
  return removed;
}

/** Makes a verified temporary file a backup: renamed into place, then recorded. */
export function commitBackup(partial: string, record: BackupRecord): void {
  const dir = backupDir(record.project, record.env, record.service);
  renameSync(partial, join(dir, record.id + backupSuffix(record)));
  writeFileAtomic.sync(join(dir, `${record.id}.json`), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

export function backupFile(r: Pick<BackupRecord, "project" | "env" | "service" | "id" | "format">): string {
  return join(backupDir(r.project, r.env, r.service), r.id + backupSuffix(r));
}

function readRecords(dir: string): BackupRecord[] {
  if (!existsSync(dir)) return [];
  const out: BackupRecord[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith(".json"))) {
    try {
      const r = JSON.parse(readFileSync(join(dir, f), "utf8")) as BackupRecord;
      const st = statSync(backupFile(r), { throwIfNoEntry: false });
      if (st?.isFile() && st.size === r.bytes) out.push(r);
    } catch {
      // a record that cannot be read is not a backup
    }
  }
  return out;
}

/** The good backups of a stack (of one service, or all), newest first. */
export function listBackups(project: string, env: string, service?: string): BackupRecord[] {
  const services = service
    ? [service]
    : existsSync(homePaths.backupsDir(project, env))
      ? readdirSync(homePaths.backupsDir(project, env))
      : [];
  return services
    .flatMap((s) => readRecords(backupDir(project, env, s)))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** Removes a backup: its record first, so it is never listed without its file. */
export function removeBackup(r: BackupRecord): void {
  rmSync(join(backupDir(r.project, r.env, r.service), `${r.id}.json`), { force: true });
  rmSync(backupFile(r), { force: true });
}

/**
 * Retention (`backup.keep` in platform.yml): the newest `keep` backups of a service stay, the
 * older ones go. Safety backups (made before a restore or a major upgrade) count apart: the
 * newest `keep` of them stay too, so a restore or an upgrade can always be undone. Base backups
 * count apart as well (the newest `keep` stay): the oldest kept one is where point-in-time
 * recovery can start.
 */
export function chooseExpired(records: BackupRecord[], keep: number): BackupRecord[] {
  const newestFirst = [...records].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  const base = newestFirst.filter((r) => r.format === "basebackup");
  const dumps = newestFirst.filter((r) => r.format !== "basebackup");
  const isSafety = (r: BackupRecord) => r.kind === "safety" || r.kind === "upgrade";
  const regular = dumps.filter((r) => !isSafety(r));
  const safety = dumps.filter(isSafety);
  return [...regular.slice(keep), ...safety.slice(keep), ...base.slice(keep)];
}
