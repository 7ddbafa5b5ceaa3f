import type { DatabaseSync } from "node:sqlite";

/**
 * The SQLite schema of the telemetry store. node:sqlite was chosen over DuckDB by measurement
 * (bench/README.md): similar ingest rates, no native package to install, and WAL lets Studio
 * read from another process while the receiver writes.
 *
 * - spans: one row per span; ids are BLOBs (half the size of hex); resource attributes are
 *   kept once per distinct resource in `resources`.
 * - http_points: delta histograms of HTTP server durations in ms, from the metrics ("metrics")
 *   or rolled up per minute from server spans ("spans"); counts and bounds are JSON arrays.
 * - series_state: the last point of each cumulative metric series, so that a restarted
 *   receiver keeps taking differences instead of counting the whole history again.
 */
const SCHEMA_VERSION = 1;

const DDL = `
CREATE TABLE resources (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  attributes TEXT NOT NULL
);
CREATE TABLE spans (
  trace_id BLOB NOT NULL,
  span_id BLOB NOT NULL,
  parent_span_id BLOB,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL,
  service TEXT NOT NULL,
  project TEXT NOT NULL,
  env TEXT NOT NULL,
  deployment TEXT NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  status_message TEXT NOT NULL,
  http_route TEXT,
  http_method TEXT,
  http_status INTEGER,
  attributes TEXT NOT NULL,
  events TEXT,
  resource_id INTEGER NOT NULL
);
CREATE UNIQUE INDEX spans_id ON spans (trace_id, span_id);
CREATE INDEX spans_start ON spans (start_ns);
CREATE INDEX spans_route ON spans (service, http_route, start_ns) WHERE kind = 2;
CREATE TABLE http_points (
  source TEXT NOT NULL,
  metric TEXT NOT NULL,
  project TEXT NOT NULL,
  env TEXT NOT NULL,
  service TEXT NOT NULL,
  deployment TEXT NOT NULL,
  method TEXT NOT NULL,
  route TEXT NOT NULL,
  status INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  count INTEGER NOT NULL,
  sum_ms REAL,
  min_ms REAL,
  max_ms REAL,
  bounds TEXT NOT NULL,
  counts TEXT NOT NULL
);
CREATE INDEX http_points_scope ON http_points (project, env, time_ns);
CREATE INDEX http_points_time ON http_points (time_ns);
CREATE TABLE series_state (
  key TEXT PRIMARY KEY,
  start_ns INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  count INTEGER NOT NULL,
  sum_ms REAL,
  bounds TEXT NOT NULL,
  counts TEXT NOT NULL
) WITHOUT ROWID;
`;

/** Opens the schema: pragmas every time, tables on a new file, a clear error on a newer one. */
export function prepareSchema(db: DatabaseSync): void {
  // auto_vacuum must be chosen before the first table exists; INCREMENTAL lets pruning give
  // pages back to the file system without rewriting the whole file (as VACUUM would).
  db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  db.exec("PRAGMA journal_mode = WAL");
  // Losing the last transactions on a power cut is fine for telemetry; an fsync per export is not.
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA busy_timeout = 5000");
  const version = (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (version === SCHEMA_VERSION) return;
  if (version > SCHEMA_VERSION) {
    throw new Error(
      `telemetry store has schema version ${version}; this platform knows up to ${SCHEMA_VERSION} (a newer platform wrote it)`,
    );
  }
  db.exec("BEGIN");
  try {
    db.exec(DDL);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec("COMMIT");
  } catch (e) {
    db.exec("ROLLBACK");
    throw e;
  }
}
