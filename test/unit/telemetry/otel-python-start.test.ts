/**
 * The platform's OpenTelemetry start-up (images/otel-python: platform-start/sitecustomize.py,
 * platform_opentelemetry_distro/start.py) against contrib's (opentelemetry-instrument's
 * sitecustomize), on the SDK, distro and instrumentations the recipe pins, from PyPI into a
 * venv cached in the platform home (the test never skips): the same instrumentations end up
 * on, a library at a version its instrumentation does not support stays uninstrumented, the
 * same providers and resource, spans and metrics reach an OTLP/HTTP receiver; and what the
 * platform's leaves off the start: the libraries the app has not imported yet.
 */
import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { OTEL_PYTHON_CONTRIB_VERSION, OTEL_PYTHON_SDK_VERSION } from "../../../src/plan/recipes/opentelemetry.js";
import { pythonVenv } from "./python-venv.js";

const SCRIPT = fileURLToPath(new URL("../../fixtures/telemetry/platform_start.py", import.meta.url));
const DISTRO = fileURLToPath(new URL("../../../images/otel-python/", import.meta.url));
const PLATFORM_START = join(DISTRO, "platform-start");
/** Outside the range that opentelemetry-instrumentation-sqlalchemy 0.66b1 instruments (<2.1.0). */
const UNSUPPORTED_SQLALCHEMY = "2.1.9";

interface Started {
  at_start: string[];
  instrumented: Record<string, boolean | null>;
  providers: string[];
  resource: Record<string, string> | null;
  pythonpath: string[];
  exported: [string, boolean][] | null;
}

let python = "";
let contribStart = "";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The fixture started through one sitecustomize directory: its JSON line and its stderr. */
async function start(dir: string, env: Record<string, string> = {}): Promise<{ out: Started; stderr: string }> {
  const port = await freePort();
  const { stdout, stderr } = await promisify(execFile)(python, [SCRIPT], {
    env: {
      ...process.env,
      PYTHONPATH: `${dir}:${DISTRO}`,
      RECEIVER_PORT: String(port),
      OTEL_PYTHON_DISTRO: "platform",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_SERVICE_NAME: "api",
      OTEL_RESOURCE_ATTRIBUTES: "platform.project=shop",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_LOGS_EXPORTER: "none",
      ...env,
    },
  });
  return { out: JSON.parse(stdout) as Started, stderr };
}

/** Both start-ups with the same variables; what must be equal is compared by the caller. */
async function both(env: Record<string, string> = {}) {
  const [platform, contrib] = await Promise.all([start(PLATFORM_START, env), start(contribStart, env)]);
  return { platform, contrib };
}

describe("the platform's OpenTelemetry start-up", () => {
  beforeAll(async () => {
    // httpx: contrib's httpx package has two entry points in one module (httpx and httpx2).
    python = pythonVenv(`otel-python-start-httpx-${OTEL_PYTHON_CONTRIB_VERSION}-${OTEL_PYTHON_SDK_VERSION}`, [
      "fastapi==0.165.0",
      "httpx==0.28.1",
      `opentelemetry-instrumentation-httpx==${OTEL_PYTHON_CONTRIB_VERSION}`,
      `sqlalchemy==${UNSUPPORTED_SQLALCHEMY}`,
      `opentelemetry-sdk==${OTEL_PYTHON_SDK_VERSION}`,
      `opentelemetry-distro==${OTEL_PYTHON_CONTRIB_VERSION}`,
      `opentelemetry-exporter-otlp-proto-http==${OTEL_PYTHON_SDK_VERSION}`,
      `opentelemetry-instrumentation-requests==${OTEL_PYTHON_CONTRIB_VERSION}`,
      `opentelemetry-instrumentation-sqlalchemy==${OTEL_PYTHON_CONTRIB_VERSION}`,
    ]);
    const { stdout } = await promisify(execFile)(python, [
      "-c",
      "import os, opentelemetry.instrumentation.auto_instrumentation as m; print(os.path.dirname(m.__file__))",
    ]);
    contribStart = stdout.trim();
  }, 600_000);

  it("ends with contrib's instrumentations, providers and resource, and exports spans and metrics", async () => {
    const { platform, contrib } = await both();
    expect(platform.out.instrumented).toEqual({ fastapi: true, requests: true, sqlalchemy: false, httpx: true });
    expect(platform.out.instrumented).toEqual(contrib.out.instrumented);
    expect(platform.out.providers).toEqual(["TracerProvider", "MeterProvider"]);
    expect(platform.out.providers).toEqual(contrib.out.providers);
    expect(platform.out.resource).toEqual({ "service.name": "api", "platform.project": "shop" });
    expect(platform.out.resource).toEqual(contrib.out.resource);
    expect(platform.out.exported).toEqual([
      ["/v1/metrics", true],
      ["/v1/traces", true],
    ]);
    expect(platform.out.exported).toEqual(contrib.out.exported);
    // The library at an unsupported version: contrib's message, and no instrumentation.
    for (const { stderr } of [platform, contrib]) expect(stderr).toContain(`sqlalchemy only instruments "sqlalchemy<2.1.0,>=1.0.0`);
    // Processes the app starts find the start-up on PYTHONPATH too.
    expect(platform.out.pythonpath[0]).toBe(PLATFORM_START);
  }, 120_000);

  it("imports no library the app has not imported: requests waits for the app, or for the first export", async () => {
    const { platform, contrib } = await both();
    for (const m of ["fastapi", "requests", "urllib3", "sqlalchemy", "httpx"]) expect(platform.out.at_start).not.toContain(m);
    expect(contrib.out.at_start).toEqual(expect.arrayContaining(["fastapi", "requests", "urllib3"]));
  }, 120_000);

  it("leaves off what OTEL_PYTHON_DISABLED_INSTRUMENTATIONS names", async () => {
    const { platform, contrib } = await both({ OTEL_PYTHON_DISABLED_INSTRUMENTATIONS: "requests, sqlalchemy" });
    expect(platform.out.instrumented).toEqual({ fastapi: true, requests: false, sqlalchemy: false, httpx: true });
    expect(platform.out.instrumented).toEqual(contrib.out.instrumented);
  }, 120_000);

  it("when the SDK cannot start, logs it and the app runs uninstrumented", async () => {
    const { platform, contrib } = await both({ OTEL_TRACES_EXPORTER: "no-such-exporter" });
    for (const { stderr } of [platform, contrib]) expect(stderr).toContain("Failed to auto initialize OpenTelemetry");
    expect(platform.out.instrumented).toEqual({ fastapi: false, requests: false, sqlalchemy: false, httpx: false });
    expect(platform.out.instrumented).toEqual(contrib.out.instrumented);
    expect(platform.out.providers).toEqual(contrib.out.providers);
  }, 120_000);
});
