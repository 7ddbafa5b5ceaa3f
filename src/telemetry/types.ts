/**
 * Types of the telemetry store and of the queries Studio makes. Times in the query API are
 * milliseconds since the epoch (what a browser has); exact OTLP nanoseconds are kept as
 * decimal strings where a waterfall may want them.
 */

/** The route of requests that matched no route template: one row, never one per raw path. */
export const UNMATCHED_ROUTE = "(unmatched)";

/** A half-open time range [from, to), in ms since the epoch. */
export interface TimeRange {
  readonly from: number;
  readonly to: number;
}

/** Which deployment scope a query looks at. An omitted field matches any value. */
export interface Scope {
  /** `platform.project` resource attribute. */
  readonly project?: string;
  /** `platform.env` resource attribute. */
  readonly env?: string;
  /** `platform.service`, else `service.name`. */
  readonly service?: string;
}

export interface RouteStatsQuery extends Scope, TimeRange {
  /**
   * Sparkline points over the range (1 to 1000).
   * @default 60
   */
  readonly buckets?: number;
}

/** Latency percentiles in milliseconds; null when there were no requests. */
export interface Percentiles {
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

/** One row of the Metrics tab: a (service, method, route template). */
export interface RouteStats {
  readonly service: string;
  readonly method: string;
  /** The route template (`/items/{id}`), or UNMATCHED_ROUTE. */
  readonly route: string;
  readonly count: number;
  /** Requests per second over the whole query range. */
  readonly ratePerSecond: number;
  readonly latencyMs: Percentiles;
  /** HTTP status code (as a string, "0" when unknown) to request count. */
  readonly statusCodes: Readonly<Record<string, number>>;
  /** Request count per sparkline bucket; bucket i starts at from + i * bucketMs. */
  readonly sparkline: readonly number[];
  /**
   * Where the numbers come from: the unsampled HTTP server duration histograms ("metrics"),
   * or, for a service that sends no such metrics, its server spans ("spans": only what was
   * sampled, so counts and rates are lower bounds).
   */
  readonly source: "metrics" | "spans";
}

export interface RouteStatsResult extends TimeRange {
  readonly bucketMs: number;
  readonly routes: readonly RouteStats[];
}

export interface RouteTracesQuery extends Omit<Scope, "service">, TimeRange {
  readonly service: string;
  /** The route template, or UNMATCHED_ROUTE. */
  readonly route: string;
  readonly method?: string;
  /**
   * @default 20
   */
  readonly limit?: number;
  /**
   * "recent": newest first; "slowest": longest route span first.
   * @default "recent"
   */
  readonly order?: "recent" | "slowest";
}

export type SpanStatus = "unset" | "ok" | "error";
export type SpanKindName = "unspecified" | "internal" | "server" | "client" | "producer" | "consumer";

/** One sampled trace that went through a route. */
export interface TraceSummary {
  readonly traceId: string;
  /** The span of the trace with no parent in the store (the entry point), else the route span. */
  readonly rootName: string;
  readonly rootService: string;
  readonly startMs: number;
  /** From the first span's start to the last span's end, as far as the store has them. */
  readonly durationMs: number;
  /** The route's own server span: its duration and HTTP status. */
  readonly routeSpanDurationMs: number;
  readonly httpStatus: number | null;
  /** "error" if any span of the trace has error status. */
  readonly status: SpanStatus;
  readonly errorCount: number;
  readonly spanCount: number;
  /** Services involved, in order of first appearance. */
  readonly services: readonly string[];
}

export interface SpanEvent {
  readonly name: string;
  readonly timeMs: number;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** One span as a waterfall shows it. */
export interface TraceSpan {
  readonly spanId: string;
  /** Null for a root, and also when the parent is not in the store (see `depth`). */
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly kind: SpanKindName;
  readonly service: string;
  readonly startMs: number;
  readonly durationMs: number;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly status: SpanStatus;
  readonly statusMessage: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly resource: Readonly<Record<string, unknown>>;
  readonly events: readonly SpanEvent[];
  /** Nesting level in the waterfall: 0 for roots and for spans whose parent is missing. */
  readonly depth: number;
}

export interface Trace {
  readonly traceId: string;
  /** Depth-first order (children by start time), ready to draw as rows. */
  readonly spans: readonly TraceSpan[];
  /** Services in order of first appearance: a stable index for per-service colours. */
  readonly services: readonly string[];
  readonly startMs: number;
  readonly durationMs: number;
  readonly errorCount: number;
}

export interface RetentionOptions {
  /**
   * Data older than this is deleted.
   * @default 7 days
   */
  readonly maxAgeMs?: number;
  /**
   * When the live data in the database file is larger, the oldest spans go first.
   * @default 1 GiB
   */
  readonly maxBytes?: number;
}

export interface StoreOptions {
  /** Directory of the store (the platform home's `telemetry/`); created if missing. */
  readonly dir: string;
  readonly retention?: RetentionOptions;
  /**
   * How often pruning runs in the background; 0 turns it off (call prune() yourself).
   * @default 10 minutes
   */
  readonly pruneIntervalMs?: number;
}

/** What one export request left in the store: the rest is reported as partial success. */
export interface IngestResult {
  readonly accepted: number;
  readonly rejected: number;
  readonly errorMessage?: string;
}

export interface PruneResult {
  readonly spansDeleted: number;
  readonly pointsDeleted: number;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}
