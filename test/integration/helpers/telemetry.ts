import { homePaths } from "../../../src/home/layout.js";
import { routeStats, trace, TelemetryStore, type RouteStats, type TraceSpan } from "../../../src/telemetry/index.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The spans of the first stored trace that passed `route` of `service` (a server span) since
 * `sinceMs` and satisfies `done`, read from the platform's telemetry store; polls, since
 * batches arrive every few seconds. The last candidate (or []) when none does in time.
 */
export async function waitForTrace(
  q: { project: string; service: string; route: string; sinceMs: number },
  done: (spans: readonly TraceSpan[]) => boolean,
  timeoutMs = 60_000,
): Promise<readonly TraceSpan[]> {
  const store = TelemetryStore.openReadOnly(homePaths.telemetryDir());
  try {
    const find = store.db.prepare(`SELECT DISTINCT lower(hex(trace_id)) AS id FROM spans
      WHERE project = ? AND service = ? AND kind = 2 AND http_route = ? AND start_ns >= ?`);
    let last: readonly TraceSpan[] = [];
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(1000)) {
      const ids = (find.all(q.project, q.service, q.route, BigInt(q.sinceMs - 5000) * 1_000_000n) as { id: string }[]).map((r) => r.id);
      for (const id of ids) {
        const spans = trace(store, id)?.spans ?? [];
        if (done(spans)) return spans;
        last = spans;
      }
    }
    return last;
  } finally {
    store.close();
  }
}

/** The per-route rows of one service since `sinceMs` (from the unsampled metrics); polls until `done` holds or time is up. */
export async function waitForRoutes(
  q: { project: string; service: string; sinceMs: number },
  done: (rows: readonly RouteStats[]) => boolean,
  timeoutMs = 60_000,
): Promise<readonly RouteStats[]> {
  const store = TelemetryStore.openReadOnly(homePaths.telemetryDir());
  try {
    const read = () =>
      routeStats(store, { project: q.project, service: q.service, from: q.sinceMs - 60_000, to: Date.now() + 60_000 }).routes;
    let rows = read();
    for (const deadline = Date.now() + timeoutMs; !done(rows) && Date.now() < deadline; await sleep(1000)) rows = read();
    return rows;
  } finally {
    store.close();
  }
}
