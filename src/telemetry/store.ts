import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { IngestResult, PruneResult, StoreOptions } from "./types.js";
import { normalizeMetrics } from "./normalize-metrics.js";
import { normalizeSpans } from "./normalize-spans.js";
import { DEFAULT_MAX_AGE_MS, DEFAULT_MAX_BYTES, liveBytes, pruneStore } from "./retention.js";
import { prepareSchema } from "./store-schema.js";
import { StoreWriter } from "./store-writes.js";

export const STORE_FILE = "telemetry.sqlite";
const DEFAULT_PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The telemetry store: one SQLite file under the caller's directory. Ingest takes decoded
 * OTLP requests (either encoding); the queries in queries.ts read `db`. Other processes
 * (Studio) may open the same file read-only while this one writes (WAL).
 */
export class TelemetryStore {
  readonly file: string;
  readonly db: DatabaseSync;
  private readonly writer: StoreWriter;
  private readonly maxAgeMs: number;
  private readonly maxBytes: number;
  private timer: NodeJS.Timeout | undefined;

  private constructor(opts: StoreOptions, readOnly: boolean) {
    if (!readOnly) mkdirSync(opts.dir, { recursive: true });
    this.file = join(opts.dir, STORE_FILE);
    this.db = new DatabaseSync(this.file, { readOnly });
    if (readOnly) this.db.exec("PRAGMA busy_timeout = 5000");
    else prepareSchema(this.db);
    this.writer = new StoreWriter(this.db);
    this.maxAgeMs = opts.retention?.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.maxBytes = opts.retention?.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  /** Opens (creating if needed) the store in opts.dir and starts periodic pruning. */
  static open(opts: StoreOptions): TelemetryStore {
    const store = new TelemetryStore(opts, false);
    const every = opts.pruneIntervalMs ?? DEFAULT_PRUNE_INTERVAL_MS;
    if (every > 0) {
      store.prune();
      store.timer = setInterval(() => store.prune(), every);
      // Pruning must never be what keeps a process alive.
      store.timer.unref();
    }
    return store;
  }

  /** Opens an existing store for queries only, as Studio does in its own process. */
  static openReadOnly(dir: string): TelemetryStore {
    return new TelemetryStore({ dir }, true);
  }

  /** Stores an ExportTraceServiceRequest; invalid spans are rejected, the rest kept. */
  ingestTraces(request: unknown): IngestResult {
    const { spans, rejected, errorMessage } = normalizeSpans(request);
    if (spans.length) this.writer.writeSpans(spans);
    return { accepted: spans.length, rejected, errorMessage };
  }

  /** Stores the HTTP server duration histograms of an ExportMetricsServiceRequest. */
  ingestMetrics(request: unknown): IngestResult {
    const { points, total, rejected, errorMessage } = normalizeMetrics(request);
    if (points.length) this.writer.writeHistogramPoints(points);
    return { accepted: total - rejected, rejected, errorMessage };
  }

  /** Applies retention now (it also runs every pruneIntervalMs). */
  prune(nowMs = Date.now()): PruneResult {
    const result = pruneStore(this.db, { maxAgeMs: this.maxAgeMs, maxBytes: this.maxBytes }, nowMs);
    this.writer.forget();
    return result;
  }

  /** Bytes of live data in the file. */
  sizeBytes(): number {
    return liveBytes(this.db);
  }

  close(): void {
    clearInterval(this.timer);
    if (this.db.isOpen) this.db.close();
  }
}

/** Opens the store under `dir` (e.g. ~/.platform/telemetry). */
export const openTelemetryStore = (opts: StoreOptions) => TelemetryStore.open(opts);
