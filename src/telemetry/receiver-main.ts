/**
 * The receiver process the platform runs in its `platform-telemetry` container: the OTLP/HTTP
 * server over the SQLite store in TELEMETRY_DIR (a directory of the host, bind-mounted), with
 * retention on. Every application's network reaches it as http://platform-telemetry:4318.
 */
import { DEFAULT_OTLP_PORT, startTelemetryServer } from "./server.js";
import { openTelemetryStore } from "./store.js";

const dir = process.env.TELEMETRY_DIR || "/data";
const maxAgeHours = Number(process.env.TELEMETRY_RETENTION_HOURS || "0");
const maxBytes = Number(process.env.TELEMETRY_MAX_BYTES || "0");
const store = openTelemetryStore({
  dir,
  retention: { ...(maxAgeHours > 0 ? { maxAgeMs: maxAgeHours * 3600_000 } : {}), ...(maxBytes > 0 ? { maxBytes } : {}) },
});
const server = await startTelemetryServer({ store, host: "0.0.0.0", port: Number(process.env.PORT || DEFAULT_OTLP_PORT) });
process.stdout.write(`telemetry receiver on ${server.url}, store ${store.file}\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server.close();
  store.close();
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
