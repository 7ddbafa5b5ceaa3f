import { createHash } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { HistogramPoint, HttpRow, SpanRow } from "./rows.js";
import { addRollups, rollupServerSpans } from "./span-rollup.js";
import { type SeriesState, toDelta } from "./temporality.js";

const blob = (hex: string) => Buffer.from(hex, "hex");
const json = (v: readonly number[]) => JSON.stringify(v);

/** Runs fn in one transaction: one fsync-free commit per export request, not per row. */
export function inTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const out = fn();
    db.exec("COMMIT");
    return out;
  } catch (e) {
    db.exec("ROLLBACK");
    throw e;
  }
}

/**
 * The write side of the store: prepared statements, plus two caches that only save lookups
 * (resource ids, last cumulative points). Both are dropped on prune, which may delete rows
 * they point at.
 */
export class StoreWriter {
  private resourceIds = new WeakMap<object, number>();
  private readonly resourceByHash = new Map<string, number>();
  private readonly series = new Map<string, SeriesState | null>();
  private readonly s: Record<string, StatementSync>;

  constructor(private readonly db: DatabaseSync) {
    this.s = {
      span: db.prepare(`INSERT OR IGNORE INTO spans (trace_id, span_id, parent_span_id, name, kind, service, project, env,
        deployment, start_ns, end_ns, status_code, status_message, http_route, http_method, http_status, attributes, events,
        resource_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`),
      resourceGet: db.prepare("SELECT id FROM resources WHERE hash = ?"),
      resourceAdd: db.prepare("INSERT INTO resources (hash, attributes) VALUES (?, ?)"),
      point: db.prepare(`INSERT INTO http_points (source, metric, project, env, service, deployment, method, route, status,
        time_ns, count, sum_ms, min_ms, max_ms, bounds, counts) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`),
      rollupGet: db.prepare(`SELECT rowid AS id, count, sum_ms, min_ms, max_ms, counts FROM http_points WHERE project = ?
        AND env = ? AND time_ns = ? AND source = 'spans' AND service = ? AND deployment = ? AND method = ? AND route = ? AND status = ?`),
      rollupSet: db.prepare("UPDATE http_points SET count = ?, sum_ms = ?, min_ms = ?, max_ms = ?, counts = ? WHERE rowid = ?"),
      stateGet: db.prepare("SELECT start_ns, time_ns, count, sum_ms, bounds, counts FROM series_state WHERE key = ?"),
      stateSet: db.prepare(`INSERT INTO series_state (key, start_ns, time_ns, count, sum_ms, bounds, counts) VALUES (?,?,?,?,?,?,?)
        ON CONFLICT (key) DO UPDATE SET start_ns = excluded.start_ns, time_ns = excluded.time_ns, count = excluded.count,
        sum_ms = excluded.sum_ms, bounds = excluded.bounds, counts = excluded.counts`),
    };
    this.s.stateGet!.setReadBigInts(true);
  }

  /** Forget cached ids and states (after rows were deleted under them). */
  forget(): void {
    this.resourceIds = new WeakMap();
    this.resourceByHash.clear();
    this.series.clear();
  }

  /** Stores spans (a span already stored, as on a retried export, is skipped); returns how many were new. */
  writeSpans(rows: readonly SpanRow[]): number {
    return inTransaction(this.db, () => {
      const added: SpanRow[] = [];
      for (const r of rows) {
        const res = this.s.span!.run(
          blob(r.traceId),
          blob(r.spanId),
          r.parentSpanId === null ? null : blob(r.parentSpanId),
          r.name,
          r.kind,
          r.service,
          r.project,
          r.env,
          r.deployment,
          r.startNs,
          r.endNs,
          r.statusCode,
          r.statusMessage,
          r.httpRoute,
          r.httpMethod,
          r.httpStatus,
          JSON.stringify(r.attributes),
          r.events.length ? JSON.stringify(r.events) : null,
          this.resourceId(r.resource),
        );
        if (res.changes > 0) added.push(r);
      }
      for (const row of rollupServerSpans(added)) this.addRollup(row);
      return added.length;
    });
  }

  /** Stores HTTP duration points as deltas (see temporality.ts); returns how many rows were added. */
  writeHistogramPoints(points: readonly HistogramPoint[]): number {
    // Points of one series must be taken oldest first for differences to make sense.
    const sorted = [...points].sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
    return inTransaction(this.db, () => {
      let rows = 0;
      for (const p of sorted) {
        const prev = this.state(p.seriesKey);
        const { row, state } = toDelta(prev, p);
        if (row) {
          this.insertPoint(row);
          rows++;
        }
        if (state && state !== prev) {
          this.s.stateSet!.run(
            p.seriesKey,
            state.startNs,
            state.timeNs,
            state.count,
            state.sumMs,
            json(state.boundsMs),
            json(state.counts),
          );
          this.series.set(p.seriesKey, state);
        }
      }
      return rows;
    });
  }

  private insertPoint(r: HttpRow): void {
    this.s.point!.run(
      r.source,
      r.metric,
      r.project,
      r.env,
      r.service,
      r.deployment,
      r.method,
      r.route,
      r.status,
      r.timeNs,
      r.count,
      r.sumMs,
      r.minMs,
      r.maxMs,
      json(r.boundsMs),
      json(r.counts),
    );
  }

  /** Adds a span rollup to the stored row of its minute, or stores it as a new row. */
  private addRollup(r: HttpRow): void {
    const old = this.s.rollupGet!.get(r.project, r.env, r.timeNs, r.service, r.deployment, r.method, r.route, r.status) as
      | { id: number; count: number; sum_ms: number | null; min_ms: number | null; max_ms: number | null; counts: string }
      | undefined;
    if (!old) {
      this.insertPoint(r);
      return;
    }
    const sum = addRollups(r, {
      ...r,
      count: old.count,
      sumMs: old.sum_ms,
      minMs: old.min_ms,
      maxMs: old.max_ms,
      counts: JSON.parse(old.counts) as number[],
    });
    this.s.rollupSet!.run(sum.count, sum.sumMs, sum.minMs, sum.maxMs, json(sum.counts), old.id);
  }

  private state(key: string): SeriesState | undefined {
    const cached = this.series.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const row = this.s.stateGet!.get(key) as
      | { start_ns: bigint; time_ns: bigint; count: bigint; sum_ms: number | null; bounds: string; counts: string }
      | undefined;
    const state = row && {
      startNs: row.start_ns,
      timeNs: row.time_ns,
      count: Number(row.count),
      sumMs: row.sum_ms,
      boundsMs: JSON.parse(row.bounds) as number[],
      counts: JSON.parse(row.counts) as number[],
    };
    this.series.set(key, state ?? null);
    return state;
  }

  private resourceId(resource: Record<string, unknown>): number {
    // All spans of one ResourceSpans share the same object: hash it once.
    const known = this.resourceIds.get(resource);
    if (known !== undefined) return known;
    const attrs = JSON.stringify(Object.fromEntries(Object.entries(resource).sort(([a], [b]) => (a < b ? -1 : 1))));
    const hash = createHash("sha1").update(attrs).digest("base64url");
    let id = this.resourceByHash.get(hash);
    if (id === undefined) {
      const row = this.s.resourceGet!.get(hash) as { id: number } | undefined;
      id = row ? row.id : Number(this.s.resourceAdd!.run(hash, attrs).lastInsertRowid);
      this.resourceByHash.set(hash, id);
    }
    this.resourceIds.set(resource, id);
    return id;
  }
}
