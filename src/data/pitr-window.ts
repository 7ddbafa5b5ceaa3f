import { WAL_ARCHIVE_PATH } from "../plan/wal-archive.js";
import { type DbHost, execText } from "../runtime/pg-exec.js";
import type { BackupRecord } from "./backups.js";

/**
 * The recoverable window of a database: from the moment its oldest base backup was consistent
 * to the newest WAL segment in its archive. `platform db restore --to-time` takes any moment in
 * it (and, as the restore first archives the server's current segment, up to the restore).
 */
export interface RecoveryWindow {
  /** When the oldest base backup kept was consistent: the earliest moment that can be recovered. */
  from: string;
  /** When the newest archived WAL segment was written (undefined: the archive could not be read). */
  to?: string;
  baseBackups: number;
  /** The archive: its segments and their size. */
  archive?: { segments: number; bytes: number };
}

export interface ArchiveState {
  newest?: string;
  segments: number;
  bytes: number;
}

/** Reads the WAL archive in the database's container or pod: its segments (not history or partial files). */
export async function readArchive(host: DbHost): Promise<ArchiveState | undefined> {
  const r = await execText(host, [
    "find",
    WAL_ARCHIVE_PATH,
    "-maxdepth",
    "1",
    "-type",
    "f",
    "-regex",
    ".*/[0-9A-F]\\{24\\}",
    "-printf",
    "%T@ %s\\n",
  ]);
  if (r.code !== 0) return undefined;
  const rows = r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split(" ").map(Number) as [number, number]);
  const newest = rows.reduce((m, [t]) => Math.max(m, t), 0);
  return {
    segments: rows.length,
    bytes: rows.reduce((s, [, b]) => s + b, 0),
    ...(newest ? { newest: new Date(newest * 1000).toISOString() } : {}),
  };
}

/**
 * The base backups a recovery can start from, oldest first: those of the server's current major,
 * i.e. made after the newest major upgrade (whose backup, kind "upgrade", comes just before it;
 * data/db-upgrade.ts), as an older major's cannot start the new one.
 */
const baseBackups = (records: readonly BackupRecord[]) => {
  const upgradedAt = records
    .filter((r) => r.kind === "upgrade")
    .map((r) => r.createdAt)
    .sort()
    .pop();
  return records
    .filter((r) => r.format === "basebackup" && r.wal && (!upgradedAt || r.startedAt > upgradedAt))
    .sort((a, b) => a.wal!.consistentAt.localeCompare(b.wal!.consistentAt));
};

/** The window of a service's backups and archive, or undefined with no base backup. */
export function recoveryWindow(records: readonly BackupRecord[], archive: ArchiveState | undefined): RecoveryWindow | undefined {
  const bases = baseBackups(records);
  const oldest = bases[0];
  if (!oldest?.wal) return undefined;
  const to = archive?.newest && archive.newest > oldest.wal.consistentAt ? archive.newest : oldest.wal.consistentAt;
  return {
    from: oldest.wal.consistentAt,
    ...(archive ? { to, archive: { segments: archive.segments, bytes: archive.bytes } } : {}),
    baseBackups: bases.length,
  };
}

/** The newest base backup consistent before `target`: where its recovery starts. */
export function baseBackupFor(records: readonly BackupRecord[], target: Date): BackupRecord | undefined {
  return baseBackups(records)
    .filter((r) => new Date(r.wal!.consistentAt) <= target)
    .pop();
}

/**
 * `2026-11-26 10:41:00` (UTC), `2026-11-26T10:41:00.5Z`, `2026-11-26 11:41:00+01:00`: a moment,
 * UTC unless a zone is given; undefined when the text is not one.
 */
export function parseTargetTime(text: string): Date | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i.exec(text.trim());
  if (!m) return undefined;
  const zone = !m[3] || /^(z|utc)$/i.test(m[3]) ? "Z" : m[3].length === 3 ? `${m[3]}:00` : m[3].replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
  const d = new Date(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
