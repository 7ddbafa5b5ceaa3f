/**
 * Interop with the OpenTelemetry Python SDK (what FastAPI services use). The SDK comes from
 * PyPI into a venv cached in the platform home by version (PLATFORM_TEST_OTEL_PYTHON may name
 * another python that has it); the test never skips.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { UNMATCHED_ROUTE, routeStats, trace } from "../../../src/telemetry/index.js";
import { tempServer } from "./helpers.js";
import { pythonVenv } from "./python-venv.js";

const OTEL_PYTHON_VERSION = "1.45.2";
const SCRIPT = fileURLToPath(new URL("../../fixtures/telemetry/python_export.py", import.meta.url));
let python = process.env.PLATFORM_TEST_OTEL_PYTHON ?? "";

/** A venv with the SDK and the OTLP/HTTP exporter, made once per version. */
const otelPython = () =>
  pythonVenv(`otel-python-${OTEL_PYTHON_VERSION}`, [
    `opentelemetry-sdk==${OTEL_PYTHON_VERSION}`,
    `opentelemetry-exporter-otlp-proto-http==${OTEL_PYTHON_VERSION}`,
  ]);

describe("OpenTelemetry Python SDK to the receiver", () => {
  beforeAll(() => {
    python ||= otelPython();
  }, 600_000);

  it("exports a trace and HTTP duration histograms that the queries read", async () => {
    const { store, server } = await tempServer();
    const t0 = Date.now();
    const { stdout } = await promisify(execFile)(python!, [SCRIPT], {
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: server.url,
        OTEL_SERVICE_NAME: "api",
        OTEL_RESOURCE_ATTRIBUTES: "platform.project=shop,platform.env=preview",
      },
    });
    const t = trace(store, stdout.trim())!;
    expect(t.spans.map((s) => [s.name, s.kind, s.depth, s.service])).toEqual([
      ["GET /items/{item_id}", "server", 0, "api"],
      ["SELECT items", "client", 1, "api"],
    ]);
    const stats = routeStats(store, { project: "shop", env: "preview", from: t0 - 60_000, to: Date.now() + 60_000 });
    expect(stats.routes.map((r) => [r.route, r.count, r.statusCodes, r.source])).toEqual([
      [UNMATCHED_ROUTE, 1, { 404: 1 }, "metrics"],
      ["/items/{item_id}", 2, { 200: 2 }, "metrics"],
    ]);
    expect(stats.routes[1]!.latencyMs.p50).toBeGreaterThan(12);
    expect(stats.routes[1]!.latencyMs.p50).toBeLessThan(30);
  });
});
