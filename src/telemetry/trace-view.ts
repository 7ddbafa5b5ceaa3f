import type { SpanStatus, Trace, TraceSpan, TraceSummary } from "./types.js";

/** A stored span as read back, before it is placed in a waterfall. */
export type StoredSpan = Omit<TraceSpan, "depth">;

export const statusName = (code: number): SpanStatus => (code === 2 ? "error" : code === 1 ? "ok" : "unset");

const byStart = (a: StoredSpan, b: StoredSpan) => a.startMs - b.startMs || a.name.localeCompare(b.name);

/**
 * Spans of one trace in waterfall order: depth first, siblings by start time. A span whose
 * parent is missing (not sampled, not yet arrived, pruned) is drawn as a root rather than
 * dropped; its parentSpanId is kept so the UI can say so.
 */
export function toWaterfall(traceId: string, spans: readonly StoredSpan[]): Trace {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, StoredSpan[]>();
  const roots: StoredSpan[] = [];
  for (const s of spans) {
    if (s.parentSpanId !== null && ids.has(s.parentSpanId) && s.parentSpanId !== s.spanId) {
      const list = children.get(s.parentSpanId) ?? [];
      list.push(s);
      children.set(s.parentSpanId, list);
    } else roots.push(s);
  }
  const out: TraceSpan[] = [];
  const seen = new Set<string>();
  const visit = (s: StoredSpan, depth: number) => {
    // Guards against parent cycles, which a buggy sender can produce.
    if (seen.has(s.spanId)) return;
    seen.add(s.spanId);
    out.push({ ...s, depth });
    for (const c of (children.get(s.spanId) ?? []).sort(byStart)) visit(c, depth + 1);
  };
  for (const r of roots.sort(byStart)) visit(r, 0);
  for (const s of [...spans].sort(byStart)) visit(s, 0);
  const start = out.reduce((m, s) => Math.min(m, s.startMs), Infinity);
  const end = out.reduce((m, s) => Math.max(m, s.startMs + s.durationMs), -Infinity);
  return {
    traceId,
    spans: out,
    services: [...new Set([...out].sort((a, b) => a.startMs - b.startMs).map((s) => s.service))],
    startMs: start,
    durationMs: end - start,
    errorCount: out.filter((s) => s.status === "error").length,
  };
}

/** The line a route's trace list shows for one trace, given all its stored spans. */
export function summarizeTrace(
  traceId: string,
  spans: readonly Pick<StoredSpan, "spanId" | "parentSpanId" | "name" | "service" | "startMs" | "durationMs" | "status">[],
  routeSpan: { durationMs: number; httpStatus: number | null },
): TraceSummary {
  const ids = new Set(spans.map((s) => s.spanId));
  const sorted = [...spans].sort((a, b) => a.startMs - b.startMs);
  const root = sorted.find((s) => s.parentSpanId === null) ?? sorted.find((s) => !ids.has(s.parentSpanId ?? "")) ?? sorted[0]!;
  const start = sorted[0]!.startMs;
  const end = sorted.reduce((m, s) => Math.max(m, s.startMs + s.durationMs), -Infinity);
  const errorCount = spans.filter((s) => s.status === "error").length;
  return {
    traceId,
    rootName: root.name,
    rootService: root.service,
    startMs: start,
    durationMs: end - start,
    routeSpanDurationMs: routeSpan.durationMs,
    httpStatus: routeSpan.httpStatus,
    status: errorCount > 0 ? "error" : spans.some((s) => s.status === "ok") ? "ok" : "unset",
    errorCount,
    spanCount: spans.length,
    services: [...new Set(sorted.map((s) => s.service))],
  };
}
