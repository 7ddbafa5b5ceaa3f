import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, rmSync, statSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { ExitCode, VisibleError } from "../errors.js";
import { type DbHost, type ExecStream, execText, execWithInput, pgReplaceFrom } from "../runtime/pg-exec.js";
import { pgDumpCounted, pgRestoreScratch, scratchRoomKiB, takeCounts } from "../runtime/pg-verify.js";
import { s3FromEnv, type S3Location, s3Label } from "../runtime/s3.js";
import { BackupDecryptError, decryptFile, encryptStream, type Sealed } from "./backup-crypto.js";
import { uploadBackup } from "./backups-remote.js";
import {
  type BackupKind,
  type BackupRecord,
  backupFile,
  chooseExpired,
  commitBackup,
  listBackups,
  newBackupId,
  partialFile,
  removeBackup,
  removeLeftovers,
} from "./backups.js";
import { listRecords } from "../engine/history.js";

/** PLATFORM_BACKUP_S3's bucket, or undefined; a setting that cannot work is a usage error. */
export function s3FromEnvOrFail(): S3Location | undefined {
  try {
    return s3FromEnv();
  } catch (e) {
    throw new VisibleError((e as Error).message, { exitCode: ExitCode.usage });
  }
}

/**
 * A running postgres service of a stack: where it runs (its Docker container, or its ready pod on
 * the Kubernetes target) and the database's user and name.
 */
export interface DatabaseTarget {
  project: string;
  env: string;
  service: string;
  host: DbHost;
  user: string;
  database: string;
}

export const psqlValue = async (t: DatabaseTarget, sql: string): Promise<string | undefined> => {
  const r = await execText(t.host, ["psql", "-X", "-q", "-tA", "--no-password", "-U", t.user, "-d", t.database, "-c", sql]);
  return r.code === 0 ? r.stdout.trim() : undefined;
};

/**
 * Streams a program's output (pg_dump, pg_basebackup), encrypted as it goes, into `partial`;
 * `fail` is called (and must throw) when the write or the program fails.
 */
export async function sealInto(
  source: ExecStream,
  partial: string,
  passphrase: string,
  program: string,
  fail: (what: string) => never,
): Promise<Sealed> {
  const sealed = encryptStream(source.stdout, passphrase);
  const written = await pipeline(sealed.chunks, createWriteStream(partial, { mode: 0o600 })).then(
    () => undefined,
    (e: Error) => e,
  );
  if (written) source.kill();
  const ended = await source.done;
  // A failed write closes the program's pipe (it then dies of SIGPIPE): say the cause.
  if (written) fail(`could not write ${partial}: ${written.message}`);
  if (ended.code !== 0) fail(`${program} exited ${ended.code}${ended.stderr ? `: ${ended.stderr}` : ""}`);
  return sealed.done;
}

/** The deployment that is current: the newest that succeeded. */
export function currentDeployment(project: string, env: string): string | undefined {
  return listRecords(project, env).find((r) => r.outcome === "succeeded")?.id;
}

/**
 * Makes one backup: pg_dump (custom format) in the database's container, encrypted as it
 * streams into a temporary file, read back whole by pg_restore (decrypted, in the container),
 * then renamed and recorded. Any failure removes the temporary file and records nothing.
 */
export async function makeBackup(
  t: DatabaseTarget,
  passphrase: string,
  kind: BackupKind,
  opts: { note?: string; keep?: number } = {},
): Promise<{ record: BackupRecord; expired: BackupRecord[]; uploadedTo?: string }> {
  removeLeftovers(t.project, t.env, t.service);
  const startedAt = new Date();
  const id = newBackupId(t.service, startedAt);
  const partial = partialFile(t.project, t.env, t.service, id);
  const fail = (what: string): never => {
    rmSync(partial, { force: true });
    throw new VisibleError(`backup of ${t.service} failed: ${what}; nothing was recorded`, { exitCode: ExitCode.failed });
  };
  const postgres = await psqlValue(t, "SHOW server_version");
  const countsFile = `/tmp/platform-counts-${id}`;
  const { bytes, sha256 } = await sealInto(pgDumpCounted(t.host, t.user, t.database, countsFile), partial, passphrase, "pg_dump", fail);
  const proof = await proveByRestore(t, partial, passphrase, countsFile, fail);
  const how = `decrypted and restored by pg_restore into a scratch PostgreSQL ${postgres?.split(".")[0] ?? ""} where the database runs: ${proof.tables} tables, ${proof.rows} rows, each table's count as the database had it at the dump`;
  const record: BackupRecord = {
    ...recordOf(t, { id, kind, startedAt, bytes, sha256, postgres }, how),
    ...(opts.note ? { note: opts.note } : {}),
  };
  record.verified = { ...(record.verified as { at: string; how: string }), restored: proof };
  return { record, ...(await publishBackup(partial, record, opts.keep)) };
}

/**
 * A backup counts only once a real restore of it (pg_verify.ts, where the database runs) holds
 * every table with the rows the database had at the dump's snapshot.
 */
async function proveByRestore(
  t: DatabaseTarget,
  partial: string,
  passphrase: string,
  countsFile: string,
  fail: (what: string) => never,
): Promise<{ tables: number; rows: number }> {
  const source = await takeCounts(t.host, countsFile);
  if (!source) fail("the row counts of the dump's snapshot could not be read back");
  const size = Number(await psqlValue(t, "SELECT pg_database_size(current_database())")) || 0;
  const restored = await pgRestoreScratch(t.host, decryptFile(partial, passphrase), scratchRoomKiB(size, statSync(partial).size)).catch(
    (e: Error) => ({
      code: -1,
      stderr: e.message,
      counts: new Map<string, number>(),
    }),
  );
  if (restored.code !== 0)
    fail(
      `the dump did not restore into a scratch PostgreSQL (${restored.stderr.split("\n").slice(-3).join(" ") || `exit ${restored.code}`})`,
    );
  const differ = countDifferences(source as Map<string, number>, restored.counts);
  if (differ.length)
    fail(
      `the restored copy is not the database at the dump: ${differ.slice(0, 3).join("; ")}${differ.length > 3 ? ` (and ${differ.length - 3} more)` : ""}`,
    );
  return { tables: restored.counts.size, rows: [...restored.counts.values()].reduce((a, b) => a + b, 0) };
}

/** Tables whose counts differ (or that one side lacks), said as `table: N in the database, M restored`. */
export function countDifferences(source: ReadonlyMap<string, number>, restored: ReadonlyMap<string, number>): string[] {
  const names = [...new Set([...source.keys(), ...restored.keys()])].sort();
  return names
    .filter((n) => source.get(n) !== restored.get(n))
    .map((n) => `${n}: ${source.get(n) ?? "no table"} in the database, ${restored.get(n) ?? "no table"} restored`);
}

/** What every backup's record says: whose, when, its size and hash, the deployment then current, how it was verified. */
export function recordOf(
  t: DatabaseTarget,
  b: { id: string; kind: BackupKind; startedAt: Date; bytes: number; sha256: string; postgres?: string },
  verifiedHow: string,
): BackupRecord {
  const deployment = currentDeployment(t.project, t.env);
  return {
    id: b.id,
    project: t.project,
    env: t.env,
    service: t.service,
    kind: b.kind,
    startedAt: b.startedAt.toISOString(),
    createdAt: new Date().toISOString(),
    bytes: b.bytes,
    sha256: b.sha256,
    ...(deployment ? { deployment } : {}),
    verified: { at: new Date().toISOString(), how: verifiedHow },
    ...(b.postgres ? { postgres: b.postgres } : {}),
  };
}

/**
 * Makes a verified temporary file a backup: renamed and recorded, uploaded to the bucket when
 * there is one, then retention (`keep`) applied to the service's backups.
 */
export async function publishBackup(
  partial: string,
  record: BackupRecord,
  keep: number | undefined,
): Promise<{ expired: BackupRecord[]; uploadedTo?: string }> {
  commitBackup(partial, record);
  const bucket = s3FromEnvOrFail();
  if (bucket)
    await uploadBackup(bucket, record).catch((e: Error) => {
      throw new VisibleError(`backup ${record.id} of ${record.service} is kept in ${backupFile(record)}, but ${e.message}`, {
        exitCode: ExitCode.failed,
      });
    });
  let expired: BackupRecord[] = [];
  if (keep !== undefined) {
    expired = chooseExpired(listBackups(record.project, record.env, record.service), keep).filter((r) => r.id !== record.id);
    for (const r of expired) removeBackup(r);
  }
  return { expired, ...(bucket ? { uploadedTo: s3Label(bucket) } : {}) };
}

export async function fileSha256(file: string): Promise<string> {
  const h = createHash("sha256");
  for await (const c of createReadStream(file)) h.update(c as Buffer);
  return h.digest("hex");
}

/** What a restore would replace: the tables and the size of the database now. */
export async function describeDatabase(t: DatabaseTarget): Promise<{ tables?: number; size?: string }> {
  const tables = await psqlValue(
    t,
    "SELECT count(*) FROM pg_tables WHERE schemaname NOT LIKE 'pg\\_%' AND schemaname <> 'information_schema'",
  );
  const size = await psqlValue(t, "SELECT pg_size_pretty(pg_database_size(current_database()))");
  return { ...(tables ? { tables: Number(tables) } : {}), ...(size ? { size } : {}) };
}

/**
 * Replaces the database's data with a backup's: checked against its recorded SHA-256,
 * decrypted into the container or pod (a file only its root reads, removed after), then
 * replayed in one transaction (pgReplaceFrom). On any failure the data is as it was.
 */
export async function restoreBackup(t: DatabaseTarget, r: BackupRecord, passphrase: string): Promise<void> {
  const file = backupFile(r);
  const failed = (what: string) =>
    new VisibleError(`restore of ${t.service} from ${r.id} failed: ${what}; the data was not changed`, { exitCode: ExitCode.failed });
  if ((await fileSha256(file)) !== r.sha256) throw failed(`${file} is not the file that was recorded (its SHA-256 differs)`);
  const inContainer = `/tmp/platform-restore-${r.id}.dump`;
  const copied = await execWithInput(t.host, ["sh", "-c", 'umask 077; cat > "$0"', inContainer], decryptFile(file, passphrase)).catch(
    (e: Error) => {
      void execText(t.host, ["rm", "-f", inContainer]);
      throw failed(e instanceof BackupDecryptError ? e.message : `could not copy the dump into the container: ${e.message}`);
    },
  );
  if (copied.code !== 0) throw failed(`could not copy the dump into the container: ${copied.stderr}`);
  const replaced = await pgReplaceFrom(t.host, t.user, t.database, inContainer);
  if (replaced.code !== 0) throw failed(replaced.stderr || `psql exited ${replaced.code}`);
}
