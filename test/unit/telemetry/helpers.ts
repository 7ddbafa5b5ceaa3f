/** Shared by the telemetry tests: a store in a temp dir, a receiver on a free port, OTLP bodies. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach } from "vitest";
import { SpanKind, SpanStatusCode, context, trace, type Attributes } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  JsonMetricsSerializer,
  JsonTraceSerializer,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from "@opentelemetry/otlp-transformer";
import { TelemetryStore, startTelemetryServer, type StoreOptions, type TelemetryServer } from "../../../src/telemetry/index.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

export function tempStore(opts: Partial<StoreOptions> = {}): TelemetryStore {
  const dir = mkdtempSync(join(tmpdir(), "telemetry-test-"));
  const store = TelemetryStore.open({ dir, pruneIntervalMs: 0, ...opts });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  return store;
}

export async function tempServer(store = tempStore(), maxBodyBytes?: number): Promise<{ store: TelemetryStore; server: TelemetryServer }> {
  const server = await startTelemetryServer({ store, port: 0, maxBodyBytes });
  cleanups.push(() => server.close());
  return { store, server };
}

export async function post(url: string, body: Uint8Array | string, headers: Record<string, string>) {
  // fetch takes bytes over an ArrayBuffer, not a SharedArrayBuffer: copy them into one.
  const res = await fetch(url, { method: "POST", body: typeof body === "string" ? body : new Uint8Array(body), headers });
  return { status: res.status, type: res.headers.get("content-type"), body: new Uint8Array(await res.arrayBuffer()) };
}

export const PROTOBUF = { "content-type": "application/x-protobuf" };
export const JSON_TYPE = { "content-type": "application/json" };
export const gzip = (b: Uint8Array | string) => gzipSync(b);

export const RESOURCE = { "service.name": "api", "platform.project": "shop", "platform.env": "preview", "deployment.id": "d-1" };

/** Real SDK spans: a server span per route call with a child client span, ended at fixed times. */
export function makeSpans(calls: { route?: string; status: number; ms: number; path?: string }[], resource: Attributes = RESOURCE) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("test");
  const t0 = Date.now() - 60_000;
  calls.forEach((c, i) => {
    const start = t0 + i * 10;
    const attrs: Attributes = {
      "http.request.method": "GET",
      "http.response.status_code": c.status,
      "url.path": c.path ?? c.route ?? "/nowhere",
    };
    if (c.route) attrs["http.route"] = c.route;
    const server = tracer.startSpan(`GET ${c.route ?? ""}`.trim(), { kind: SpanKind.SERVER, startTime: start, attributes: attrs });
    if (c.status >= 500) server.setStatus({ code: SpanStatusCode.ERROR, message: "boom" });
    const ctx = trace.setSpan(context.active(), server);
    const child = tracer.startSpan("SELECT items", { kind: SpanKind.CLIENT, startTime: start + 1 }, ctx);
    child.addEvent("rows", { n: 3 }, start + 2);
    child.end(start + c.ms - 1);
    server.end(start + c.ms);
  });
  return exporter.getFinishedSpans();
}

export const tracesProto = (spans: ReturnType<typeof makeSpans>) => ProtobufTraceSerializer.serializeRequest(spans)!;
export const tracesJson = (spans: ReturnType<typeof makeSpans>) => JsonTraceSerializer.serializeRequest(spans)!;

/** Real SDK histograms: records the given (route, status, ms) values and collects once. */
export function makeMeter(temporality: "cumulative" | "delta", resource: Attributes = RESOURCE) {
  class Reader extends MetricReader {
    constructor() {
      super({
        aggregationTemporalitySelector: () => (temporality === "delta" ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE),
      });
    }
    protected override async onForceFlush() {}
    protected override async onShutdown() {}
  }
  const reader = new Reader();
  const provider = new MeterProvider({ resource: resourceFromAttributes(resource), readers: [reader] });
  const meter = provider.getMeter("test");
  const stable = meter.createHistogram("http.server.request.duration", { unit: "s" });
  const old = meter.createHistogram("http.server.duration", { unit: "ms" });
  return {
    /** Records one request in the stable (seconds) or old (ms) metric. */
    record(ms: number, attrs: Attributes, kind: "stable" | "old" = "stable") {
      if (kind === "stable") stable.record(ms / 1000, attrs);
      else old.record(ms, { ...attrs });
    },
    async collect() {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics;
    },
  };
}

export const metricsProto = (rm: Awaited<ReturnType<ReturnType<typeof makeMeter>["collect"]>>) =>
  ProtobufMetricsSerializer.serializeRequest(rm)!;
export const metricsJson = (rm: Awaited<ReturnType<ReturnType<typeof makeMeter>["collect"]>>) =>
  JsonMetricsSerializer.serializeRequest(rm)!;

export const ALL_TIME = { from: 0, to: Date.now() + 3600_000 };
