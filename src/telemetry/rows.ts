/**
 * What the normalizers produce and the store keeps: one shape for spans and one for HTTP
 * server duration histograms, whichever encoding or semantic-convention version they came in.
 * Internal to src/telemetry (index.ts does not export them).
 */

/** Who sent it, from resource attributes ("" when absent, so SQL can compare with =). */
export interface Origin {
  readonly service: string;
  readonly project: string;
  readonly env: string;
  readonly deployment: string;
}

export interface SpanRow extends Origin {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly statusCode: number;
  readonly statusMessage: string;
  readonly httpRoute: string | null;
  readonly httpMethod: string | null;
  readonly httpStatus: number | null;
  readonly attributes: Record<string, unknown>;
  readonly resource: Record<string, unknown>;
  readonly events: { name: string; timeUnixNano: string; attributes: Record<string, unknown> }[];
}

/** An explicit-bucket histogram in milliseconds: counts[i] is (bounds[i-1], bounds[i]]. */
export interface HistogramMs {
  readonly boundsMs: readonly number[];
  readonly counts: readonly number[];
  readonly count: number;
  readonly sumMs: number | null;
  readonly minMs: number | null;
  readonly maxMs: number | null;
}

/** The labels of one HTTP server duration series, as Studio groups them. */
export interface HttpLabels extends Origin {
  readonly method: string;
  /** Route template or UNMATCHED_ROUTE. */
  readonly route: string;
  /** HTTP status code, 0 when unknown. */
  readonly status: number;
}

/** A histogram point as received, before temporality is taken into account. */
export interface HistogramPoint extends HttpLabels, HistogramMs {
  /** Identity of the series: metric, resource, scope and point attributes. */
  readonly seriesKey: string;
  readonly metric: string;
  readonly cumulative: boolean;
  readonly startNs: bigint;
  readonly timeNs: bigint;
}

/** A delta histogram row as stored ("spans" rows are per-minute rollups of server spans). */
export interface HttpRow extends HttpLabels, HistogramMs {
  readonly source: "metrics" | "spans";
  readonly metric: string;
  readonly timeNs: bigint;
}
