import type { SQLInputValue } from "node:sqlite";
import type { SpanKindName, Trace, RouteStatsQuery, RouteStatsResult, RouteTracesQuery, Scope, TraceSummary } from "./types.js";
import type { TelemetryStore } from "./store.js";
import { UNMATCHED_ROUTE } from "./types.js";
import { type StoredHttpRow, aggregateRouteStats } from "./route-stats.js";
import { type StoredSpan, statusName, summarizeTrace, toWaterfall } from "./trace-view.js";

/**
 * The read side, what Studio calls: SQL that picks rows, then the pure functions of
 * route-stats.ts and trace-view.ts. Nothing here writes.
 */

const toNs = (ms: number) => BigInt(Math.floor(ms)) * 1_000_000n;
// Through microseconds: epoch nanoseconds are past 2^53, epoch microseconds are not.
const nsToMs = (ns: bigint) => Number(ns / 1000n) / 1000;
const KINDS: SpanKindName[] = ["unspecified", "internal", "server", "client", "producer", "consumer"];

/** `AND column = ?` for each scope field that is set. */
function scopeWhere(scope: Scope, params: SQLInputValue[]): string {
  let sql = "";
  for (const [field, column] of [
    ["project", "project"],
    ["env", "env"],
    ["service", "service"],
  ] as const) {
    const v = scope[field];
    if (v !== undefined) {
      sql += ` AND ${column} = ?`;
      params.push(v);
    }
  }
  return sql;
}

/** The Metrics tab: per (service, method, route) request rate, latency percentiles, status codes, sparkline. */
export function routeStats(store: TelemetryStore, q: RouteStatsQuery): RouteStatsResult {
  const params: SQLInputValue[] = [toNs(q.from), toNs(q.to)];
  const where = scopeWhere(q, params);
  const stmt = store.db.prepare(`SELECT source, metric, service, method, route, status, time_ns, count, sum_ms, min_ms, max_ms,
    bounds, counts FROM http_points WHERE time_ns >= ? AND time_ns < ?${where}`);
  stmt.setReadBigInts(true);
  // Bounds repeat on every row of a series: parse each distinct text once.
  const boundsCache = new Map<string, number[]>();
  const rows: StoredHttpRow[] = [];
  for (const r of stmt.iterate(...params) as Iterable<Record<string, bigint | number | string | null>>) {
    const boundsText = r.bounds as string;
    let boundsMs = boundsCache.get(boundsText);
    if (!boundsMs) {
      boundsMs = JSON.parse(boundsText) as number[];
      boundsCache.set(boundsText, boundsMs);
    }
    rows.push({
      source: r.source as "metrics" | "spans",
      metric: r.metric as string,
      service: r.service as string,
      method: r.method as string,
      route: r.route as string,
      status: Number(r.status),
      timeNs: r.time_ns as bigint,
      count: Number(r.count),
      sumMs: r.sum_ms as number | null,
      minMs: r.min_ms as number | null,
      maxMs: r.max_ms as number | null,
      boundsMs,
      counts: JSON.parse(r.counts as string) as number[],
    });
  }
  return aggregateRouteStats(rows, q, q.buckets);
}

const SPAN_COLUMNS = `lower(hex(s.span_id)) AS span_id, lower(hex(s.parent_span_id)) AS parent_span_id, s.name, s.kind,
  s.service, s.start_ns, s.end_ns, s.status_code, s.status_message`;

type SpanRecord = Record<string, bigint | number | string | null>;

function toStoredSpan(r: SpanRecord, full: boolean): StoredSpan {
  const startNs = r.start_ns as bigint;
  const endNs = r.end_ns as bigint;
  return {
    spanId: r.span_id as string,
    parentSpanId: (r.parent_span_id as string | null) || null,
    name: r.name as string,
    kind: KINDS[Number(r.kind)] ?? "unspecified",
    service: r.service as string,
    startMs: nsToMs(startNs),
    durationMs: nsToMs(endNs - startNs),
    startTimeUnixNano: startNs.toString(),
    endTimeUnixNano: endNs.toString(),
    status: statusName(Number(r.status_code)),
    statusMessage: r.status_message as string,
    attributes: full ? (JSON.parse(r.attributes as string) as Record<string, unknown>) : {},
    resource: full ? (JSON.parse(r.resource as string) as Record<string, unknown>) : {},
    events:
      full && r.events
        ? (JSON.parse(r.events as string) as { name: string; timeUnixNano: string; attributes: Record<string, unknown> }[]).map((e) => ({
            name: e.name,
            timeMs: nsToMs(BigInt(e.timeUnixNano)),
            attributes: e.attributes,
          }))
        : [],
  };
}

/**
 * Sampled traces that went through one route of one service: the route's server spans in the
 * range (newest or slowest first), one line per trace.
 */
export function routeTraces(store: TelemetryStore, q: RouteTracesQuery): TraceSummary[] {
  const limit = Math.max(1, Math.min(500, q.limit ?? 20));
  const params: SQLInputValue[] = [q.service];
  let sql = `SELECT trace_id, start_ns, end_ns, http_status FROM spans INDEXED BY spans_route
    WHERE kind = 2 AND service = ? AND http_route IS ?`;
  params.push(q.route === UNMATCHED_ROUTE ? null : q.route);
  sql += " AND start_ns >= ? AND start_ns < ?";
  params.push(toNs(q.from), toNs(q.to));
  if (q.method !== undefined) {
    sql += " AND http_method = ?";
    params.push(q.method);
  }
  sql += scopeWhere({ project: q.project, env: q.env }, params);
  sql += q.order === "slowest" ? " ORDER BY end_ns - start_ns DESC" : " ORDER BY start_ns DESC";
  const pick = store.db.prepare(sql);
  pick.setReadBigInts(true);
  // A trace can pass a route more than once: keep its first (newest or slowest) pass.
  const routeSpans = new Map<string, { traceId: Buffer; durationMs: number; httpStatus: number | null }>();
  for (const r of pick.iterate(...params) as Iterable<SpanRecord & { trace_id: Uint8Array }>) {
    const key = Buffer.from(r.trace_id).toString("hex");
    if (!routeSpans.has(key)) {
      routeSpans.set(key, {
        traceId: Buffer.from(r.trace_id),
        durationMs: nsToMs((r.end_ns as bigint) - (r.start_ns as bigint)),
        httpStatus: r.http_status === null ? null : Number(r.http_status),
      });
    }
    if (routeSpans.size >= limit) break;
  }
  const spansOf = store.db.prepare(`SELECT ${SPAN_COLUMNS} FROM spans s WHERE s.trace_id = ?`);
  spansOf.setReadBigInts(true);
  return [...routeSpans].map(([traceId, r]) =>
    summarizeTrace(
      traceId,
      (spansOf.all(r.traceId) as SpanRecord[]).map((s) => toStoredSpan(s, false)),
      r,
    ),
  );
}

/** All stored spans of one trace, ordered for a waterfall; null when none is stored. */
export function trace(store: TelemetryStore, traceId: string): Trace | null {
  if (!/^[0-9a-fA-F]{32}$/.test(traceId)) return null;
  const stmt = store.db.prepare(`SELECT ${SPAN_COLUMNS}, s.attributes, s.events, r.attributes AS resource
    FROM spans s JOIN resources r ON r.id = s.resource_id WHERE s.trace_id = ?`);
  stmt.setReadBigInts(true);
  const rows = stmt.all(Buffer.from(traceId, "hex")) as SpanRecord[];
  if (rows.length === 0) return null;
  return toWaterfall(
    traceId.toLowerCase(),
    rows.map((r) => toStoredSpan(r, true)),
  );
}
