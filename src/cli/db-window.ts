import type { BackupRecord } from "../data/backups.js";
import { readArchive, type RecoveryWindow, recoveryWindow } from "../data/pitr-window.js";
import { ARCHIVE_TIMEOUT_SECONDS } from "../plan/wal-archive.js";
import { requireCredentials } from "../engine/credentials.js";
import { runningDatabase } from "../data/db-host.js";
import { humanBytes, when } from "./backup-format.js";
import type { StackContext } from "./context.js";

/** The recoverable window of each postgres service with a base backup (of one service, or all). */
export async function windowsOf(t: StackContext, records: readonly BackupRecord[], service?: string) {
  const out: (RecoveryWindow & { service: string })[] = [];
  for (const s of Object.values(t.config.services).filter((x) => x.type === "postgres" && (!service || x.name === service))) {
    const own = records.filter((r) => r.service === s.name);
    if (!own.some((r) => r.format === "basebackup")) continue;
    // Its container (Docker) or its ready pod (Kubernetes); none running: the archive is not read.
    const host = await runningDatabase(t.project, t.env, s.name, requireCredentials()).catch(() => undefined);
    const w = recoveryWindow(own, host ? await readArchive(host) : undefined);
    if (w) out.push({ service: s.name, ...w });
  }
  return out;
}

export function windowLine(w: RecoveryWindow & { service: string }): string {
  const to = w.to ? when(w.to) : "? (the database is not running: its archive was not read)";
  const archive = w.archive ? `; WAL archive ${w.archive.segments} segments, ${humanBytes(w.archive.bytes)}` : "";
  return (
    `point-in-time window of ${w.service}: ${when(w.from)} to ${to} (UTC; ${w.baseBackups} base backup${w.baseBackups === 1 ? "" : "s"}${archive}); ` +
    `db restore --to-time also reaches up to the restore itself, the newest ${ARCHIVE_TIMEOUT_SECONDS} s being archived first\n`
  );
}
