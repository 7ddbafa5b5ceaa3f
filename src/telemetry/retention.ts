import type { DatabaseSync } from "node:sqlite";
import type { PruneResult } from "./types.js";

export const DEFAULT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_MAX_BYTES = 1024 ** 3;

/** Bytes of live data in the database (pages in use; freed pages are about to be given back). */
export function liveBytes(db: DatabaseSync): number {
  const n = (pragma: string) => Number(Object.values(db.prepare(`PRAGMA ${pragma}`).get() as object)[0]);
  return (n("page_count") - n("freelist_count")) * n("page_size");
}

const toNs = (ms: number) => BigInt(Math.floor(ms)) * 1_000_000n;

/**
 * Deletes what is older than maxAgeMs, then, while the live data is larger than maxBytes,
 * the oldest spans (spans are most of the volume; the per-minute HTTP histograms are small
 * and are what the Metrics tab shows, so they go only by age, or when no span is left).
 * Then gives the freed pages back to the file system.
 */
export function pruneStore(db: DatabaseSync, opts: { maxAgeMs: number; maxBytes: number }, nowMs: number): PruneResult {
  const bytesBefore = liveBytes(db);
  const cutoff = toNs(nowMs - opts.maxAgeMs);
  let spansDeleted = Number(db.prepare("DELETE FROM spans WHERE start_ns < ?").run(cutoff).changes);
  let pointsDeleted = Number(db.prepare("DELETE FROM http_points WHERE time_ns < ?").run(cutoff).changes);
  db.prepare("DELETE FROM series_state WHERE time_ns < ?").run(cutoff);

  // Over the size limit: delete the oldest spans by the share of the excess (plus a margin,
  // since pages of an index ordered by random trace ids empty out more slowly than the table).
  for (let round = 0; round < 8 && liveBytes(db) > opts.maxBytes; round++) {
    const total = Number((db.prepare("SELECT count(*) AS n FROM spans").get() as { n: number }).n);
    const table = total > 0 ? "spans" : "http_points";
    const column = total > 0 ? "start_ns" : "time_ns";
    const rows = total > 0 ? total : Number((db.prepare("SELECT count(*) AS n FROM http_points").get() as { n: number }).n);
    if (rows === 0) break;
    const share = Math.min(1, (1 - opts.maxBytes / liveBytes(db)) * 1.2 + 0.05);
    const offset = Math.min(rows - 1, Math.floor(rows * share));
    const at = db.prepare(`SELECT ${column} AS t FROM ${table} ORDER BY ${column} LIMIT 1 OFFSET ?`);
    at.setReadBigInts(true);
    const edge = (at.get(offset) as { t: bigint }).t;
    const cond = offset === rows - 1 ? "<=" : "<";
    const changes = Number(db.prepare(`DELETE FROM ${table} WHERE ${column} ${cond} ?`).run(edge).changes);
    if (table === "spans") spansDeleted += changes;
    else pointsDeleted += changes;
  }
  if (spansDeleted > 0) {
    db.exec("DELETE FROM resources WHERE id NOT IN (SELECT DISTINCT resource_id FROM spans)");
  }
  db.exec("PRAGMA incremental_vacuum");
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return { spansDeleted, pointsDeleted, bytesBefore, bytesAfter: liveBytes(db) };
}
