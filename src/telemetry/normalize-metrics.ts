import { createHash } from "node:crypto";
import type { HistogramPoint } from "./rows.js";
import { UNMATCHED_ROUTE } from "./types.js";
import { toHttpAttributes, toOrigin } from "./resource.js";
import { ENUM_NAMES, Temporality } from "./otlp-schema.js";
import { list, toBigInt, toCount, toDouble, toEnum, toRecord } from "./otlp-values.js";

/**
 * The HTTP server duration histograms, under both semantic-convention generations: the
 * stable one in seconds and the older one in milliseconds. A service in the "http/dup"
 * transition mode sends both; the query layer keeps one of them per service.
 */
export const HTTP_SERVER_DURATION = {
  stable: "http.server.request.duration",
  old: "http.server.duration",
} as const;

const DEFAULT_UNIT: Record<string, string> = { [HTTP_SERVER_DURATION.stable]: "s", [HTTP_SERVER_DURATION.old]: "ms" };
const TO_MS: Record<string, number> = { s: 1000, ms: 1, us: 0.001, μs: 0.001, ns: 1e-6 };

export interface NormalizedMetrics {
  readonly points: HistogramPoint[];
  /** Data points of all metrics in the request (what partial_success counts against). */
  readonly total: number;
  readonly rejected: number;
  readonly errorMessage?: string;
}

const sortedJson = (o: Record<string, unknown>) =>
  JSON.stringify(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );

/**
 * An ExportMetricsServiceRequest to HTTP server duration points, in milliseconds. Other
 * metrics are accepted and dropped: the store only keeps what Studio's Metrics tab shows.
 */
export function normalizeMetrics(request: unknown): NormalizedMetrics {
  const points: HistogramPoint[] = [];
  let total = 0;
  let rejected = 0;
  let errorMessage: string | undefined;
  for (const rm of list(request, "resourceMetrics")) {
    const resource = toRecord((rm.resource as Record<string, unknown> | undefined)?.attributes);
    const origin = toOrigin(resource);
    const resourceKey = sortedJson(resource);
    for (const sm of list(rm, "scopeMetrics")) {
      const scope = (sm.scope ?? {}) as Record<string, unknown>;
      for (const m of list(sm, "metrics")) {
        const histogram = (m.histogram ?? undefined) as Record<string, unknown> | undefined;
        const dataPoints = list(histogram, "dataPoints");
        // Other kinds of metric still count as received data points.
        total += dataPoints.length || countPoints(m);
        const name = typeof m.name === "string" ? m.name : "";
        if (!histogram || !(name === HTTP_SERVER_DURATION.stable || name === HTTP_SERVER_DURATION.old)) continue;
        const unit = typeof m.unit === "string" && m.unit !== "" ? m.unit : DEFAULT_UNIT[name]!;
        const scale = TO_MS[unit];
        const temporality = toEnum(histogram.aggregationTemporality, ENUM_NAMES.temporality);
        for (const p of dataPoints) {
          const timeNs = toBigInt(p.timeUnixNano);
          const counts = (Array.isArray(p.bucketCounts) ? p.bucketCounts : []).map(toCount);
          const bounds = (Array.isArray(p.explicitBounds) ? p.explicitBounds : []).map((b) => toDouble(b) ?? NaN);
          const why =
            scale === undefined
              ? `unit "${unit}" of ${name} is not a time unit`
              : timeNs === undefined || timeNs <= 0n
                ? "histogram point without time_unix_nano"
                : counts.length !== 0 && counts.length !== bounds.length + 1
                  ? "bucket_counts must have one more entry than explicit_bounds"
                  : bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= bounds[i - 1]!))
                    ? "explicit_bounds must be finite and increasing"
                    : undefined;
          if (why || scale === undefined || timeNs === undefined) {
            rejected++;
            errorMessage ??= why;
            continue;
          }
          const attrs = toRecord(p.attributes);
          const http = toHttpAttributes(attrs);
          // sum, min and max are optional: absent is not zero.
          const scaled = (k: "sum" | "min" | "max") => {
            const v = Object.hasOwn(p, k) ? toDouble(p[k]) : undefined;
            return v === undefined ? null : v * scale;
          };
          points.push({
            ...origin,
            method: http.method ?? "",
            route: http.route ?? UNMATCHED_ROUTE,
            status: http.status ?? 0,
            seriesKey: createHash("sha1")
              .update(`${name}\n${resourceKey}\n${String(scope.name ?? "")}\n${sortedJson(attrs)}`)
              .digest("base64url"),
            metric: name,
            // OTLP says UNSPECIFIED must not be used; reading it as cumulative is the safe way
            // round, since a delta stream read as cumulative still yields its own values.
            cumulative: temporality !== Temporality.delta,
            startNs: toBigInt(p.startTimeUnixNano) ?? 0n,
            timeNs,
            boundsMs: counts.length === 0 ? [] : bounds.map((b) => b * scale),
            counts,
            count: toCount(p.count),
            sumMs: scaled("sum"),
            minMs: scaled("min"),
            maxMs: scaled("max"),
          });
        }
      }
    }
  }
  return { points, total, rejected, errorMessage };
}

/** Data points of a metric of a kind the schema does not decode (JSON only; protobuf skips them). */
function countPoints(m: Record<string, unknown>): number {
  let n = 0;
  for (const kind of ["gauge", "sum", "exponentialHistogram", "summary"]) n += list(m[kind], "dataPoints").length;
  return n;
}
