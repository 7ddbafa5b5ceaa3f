import { rmSync } from "node:fs";
import { ExitCode, VisibleError } from "../errors.js";
import { WAL_ARCHIVE_PATH } from "../plan/wal-archive.js";
import { execText, execWithInput, pgBaseBackup } from "../runtime/pg-exec.js";
import { decryptFile } from "./backup-crypto.js";
import { type BackupKind, type BackupRecord, listBackups, newBackupId, partialFile, removeLeftovers } from "./backups.js";
import { type DatabaseTarget, makeBackup, psqlValue, publishBackup, recordOf, sealInto } from "./db-backup.js";

/**
 * A base backup: pg_basebackup copies the whole server (a tar with the WAL it needs and its
 * manifest), streamed through the CLI and encrypted like a dump, then read back whole: decrypted,
 * unpacked in a temporary directory of the container and checked by pg_verifybackup against its
 * manifest (every file's checksum, and the WAL parsed). It is where a point-in-time recovery
 * starts; the WAL archive (plan/wal-archive.ts) carries it forward to the chosen moment.
 */

/** True when the server archives its WAL into the platform's archive (deployed with WAL archiving). */
export async function archivesWal(t: DatabaseTarget): Promise<boolean> {
  const mode = await psqlValue(t, "SHOW archive_mode");
  const command = await psqlValue(t, "SHOW archive_command");
  return mode === "on" && (command ?? "").includes(WAL_ARCHIVE_PATH);
}

const VERIFY = 'umask 077; d=$(mktemp -d); tar -x -C "$d" && pg_verifybackup -q "$d"; s=$?; rm -rf "$d"; exit $s';

/** The `.backup` history file the server wrote into the archive for the base backup labelled `label`. */
async function historyFileOf(t: DatabaseTarget, label: string): Promise<string | undefined> {
  const r = await execText(t.host, ["sh", "-c", 'grep -l -x -F "LABEL: $1" "$0"/*.backup', WAL_ARCHIVE_PATH, label]);
  const file = r.stdout.trim().split("\n").pop();
  return r.code === 0 && file ? file.slice(file.lastIndexOf("/") + 1) : undefined;
}

/**
 * Removes archived WAL older than the oldest base backup kept (pg_archivecleanup, PostgreSQL's
 * own tool, from that backup's `.backup` file): nothing before it can be recovered anyway.
 */
export async function pruneWal(t: DatabaseTarget): Promise<void> {
  const oldest = listBackups(t.project, t.env, t.service)
    .filter((r) => r.format === "basebackup" && r.wal)
    .pop();
  if (!oldest?.wal) return;
  await execText(t.host, ["pg_archivecleanup", WAL_ARCHIVE_PATH, oldest.wal.historyFile]);
}

export async function makeBaseBackup(
  t: DatabaseTarget,
  passphrase: string,
  kind: BackupKind,
  opts: { keep?: number } = {},
): Promise<{ record: BackupRecord; expired: BackupRecord[] }> {
  removeLeftovers(t.project, t.env, t.service);
  const startedAt = new Date();
  const id = newBackupId(t.service, startedAt);
  const partial = partialFile(t.project, t.env, t.service, id);
  const fail = (what: string): never => {
    rmSync(partial, { force: true });
    throw new VisibleError(`base backup of ${t.service} failed: ${what}; nothing was recorded`, { exitCode: ExitCode.failed });
  };
  const postgres = await psqlValue(t, "SHOW server_version");
  const { bytes, sha256 } = await sealInto(pgBaseBackup(t.host, t.user, id), partial, passphrase, "pg_basebackup", fail);
  const consistentAt = new Date().toISOString();
  const read = await execWithInput(t.host, ["sh", "-c", VERIFY], decryptFile(partial, passphrase)).catch((e: Error) => ({
    code: -1,
    stderr: e.message,
  }));
  if (read.code !== 0) fail(`it did not verify (${read.stderr || `exit ${read.code}`})`);
  let historyFile = await historyFileOf(t, id);
  // The archiver copies the `.backup` file right after the backup ends: give it a moment.
  for (let i = 0; !historyFile && i < 20; i++) {
    await new Promise((r) => setTimeout(r, 500));
    historyFile = await historyFileOf(t, id);
  }
  if (!historyFile) {
    const failing = await psqlValue(
      t,
      "SELECT failed_count || ' failed, the last ' || last_failed_wal FROM pg_stat_archiver WHERE failed_count > 0",
    );
    fail(
      `the server wrote no ${id} .backup file into ${WAL_ARCHIVE_PATH}: ${failing ? `WAL archiving is failing (${failing})` : "is WAL archiving failing?"} (platform logs ${t.service})`,
    );
  }
  const record: BackupRecord = {
    ...recordOf(
      t,
      { id, kind, startedAt, bytes, sha256, postgres },
      "decrypted, unpacked and checked by pg_verifybackup against its manifest",
    ),
    format: "basebackup",
    wal: { historyFile: historyFile as string, consistentAt },
  };
  const { expired } = await publishBackup(partial, record, opts.keep);
  if (opts.keep !== undefined) await pruneWal(t);
  return { record, expired };
}

/**
 * What `platform db backup` and the schedule make: a dump (restored by `db restore`) and, when
 * the server archives its WAL, a base backup (where `db restore --to-time` starts), both kept by
 * `keep`. A server deployed before WAL archiving gets the dump only (`base` is undefined).
 */
export async function makeBackups(t: DatabaseTarget, passphrase: string, kind: BackupKind, opts: { keep?: number } = {}) {
  const dump = await makeBackup(t, passphrase, kind, opts);
  const base = (await archivesWal(t)) ? await makeBaseBackup(t, passphrase, kind, opts) : undefined;
  return { ...dump, base: base?.record, expired: [...dump.expired, ...(base?.expired ?? [])] };
}
