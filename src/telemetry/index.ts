/**
 * Telemetry: an OTLP/HTTP receiver, its SQLite store with retention, and the queries Studio
 * reads (RED per route, sampled traces, one trace as a waterfall). Imports nothing from the
 * rest of the platform; studio/ imports this, nothing below studio does.
 */
export { startTelemetryServer, DEFAULT_OTLP_PORT, type TelemetryServer, type TelemetryServerOptions } from "./server.js";
export { TelemetryStore, openTelemetryStore, STORE_FILE } from "./store.js";
export { routeStats, routeTraces, trace } from "./queries.js";
export * from "./types.js";
