/**
 * The platform's Python distro (images/otel-python, what the fastapi recipe writes into
 * /opt/otel) with the SDK, distro and exporter the recipe pins, from PyPI into venvs cached in
 * the platform home (the test never skips):
 *   - its FastAPI instrumentation on real apps, its own span and histogram recording against
 *     the SDK's (the same spans either way), on the FastAPI of the examples (its router
 *     reports the route it selects) and on an older one (no such hook, no native telemetry);
 *   - its span encoder against the OTLP exporter's own;
 *   - its duration histogram against the SDK's own Histogram.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { OTEL_PYTHON_CONTRIB_VERSION, OTEL_PYTHON_SDK_VERSION } from "../../../src/plan/recipes/opentelemetry.js";
import { pythonVenv } from "./python-venv.js";

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/telemetry/${name}`, import.meta.url));
const DISTRO = fileURLToPath(new URL("../../../images/otel-python/", import.meta.url));

/** Runs a fixture with the distro on the path: what it prints. */
async function run(fastapi: string, script: string, ...args: string[]): Promise<string> {
  const python = pythonVenv(`otel-python-distro-${fastapi}-${OTEL_PYTHON_SDK_VERSION}`, [
    `fastapi==${fastapi}`,
    `opentelemetry-sdk==${OTEL_PYTHON_SDK_VERSION}`,
    `opentelemetry-distro==${OTEL_PYTHON_CONTRIB_VERSION}`,
    `opentelemetry-exporter-otlp-proto-http==${OTEL_PYTHON_SDK_VERSION}`,
  ]);
  const r = await promisify(execFile)(python, [fixture(script), ...args], { env: { ...process.env, PYTHONPATH: DISTRO } }).catch(
    (e: { stdout: string; stderr: string }) => e,
  );
  return `${r.stdout}${r.stderr}`.trim();
}

describe("the platform's Python distro", () => {
  for (const fastapi of ["0.165.0", "0.115.14"]) {
    it(`one server span and one histogram point per request, named by the route template (FastAPI ${fastapi})`, async () => {
      const [lean = "", sdk = ""] = await Promise.all(["lean", "sdk"].map((mode) => run(fastapi, "fastapi_instrumentation.py", mode)));
      expect(lean).toMatch(/^ok\n\[/);
      expect(sdk).toMatch(/^ok\n\[/);
      // The platform's own span recording against the SDK's: the same spans.
      expect(JSON.parse(lean.slice(3))).toEqual(JSON.parse(sdk.slice(3)));
    }, 600_000);
  }

  // Each fixture checks its output against the SDK's own, then times both: "ok (per X: ours N us, the Y's M us)".
  for (const [what, script, unit, theirs] of [
    ["encodes span batches exactly as the OTLP exporter does, faster", "otlp_encoding.py", "span", "the exporter's"],
    ["aggregates the duration histogram exactly as the SDK does, faster", "duration_histogram.py", "record", "the SDK's"],
  ] as const) {
    it(what, async () => {
      const out = await run("0.165.0", script);
      const m = new RegExp(`^ok \\(per ${unit}: ours ([\\d.]+) us, ${theirs} ([\\d.]+) us\\)$`, "m").exec(out);
      expect(m, out).not.toBeNull();
      expect(Number(m![1])).toBeLessThan(Number(m![2]));
    }, 600_000);
  }
});
