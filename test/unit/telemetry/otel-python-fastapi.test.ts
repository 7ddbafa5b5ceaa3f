/**
 * The platform's FastAPI instrumentation (images/otel-python, what the fastapi recipe writes
 * into /opt/otel) on real FastAPI apps with the SDK the recipe pins: the fixture's checks, on
 * the FastAPI of the examples (its router reports the route it selects) and on an older one
 * (no such hook, no native telemetry: the route Starlette matched). Venvs from PyPI, cached in
 * the platform home; the test never skips.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { OTEL_PYTHON_CONTRIB_VERSION, OTEL_PYTHON_SDK_VERSION } from "../../../src/plan/recipes/opentelemetry.js";
import { pythonVenv } from "./python-venv.js";

const SCRIPT = fileURLToPath(new URL("../../fixtures/telemetry/fastapi_instrumentation.py", import.meta.url));
const DISTRO = fileURLToPath(new URL("../../../images/otel-python/", import.meta.url));

describe("the platform's FastAPI instrumentation", () => {
  for (const fastapi of ["0.165.0", "0.115.14"]) {
    it(`one server span and one histogram point per request, named by the route template (FastAPI ${fastapi})`, async () => {
      const python = pythonVenv(`otel-python-fastapi-${fastapi}-${OTEL_PYTHON_SDK_VERSION}`, [
        `fastapi==${fastapi}`, `opentelemetry-sdk==${OTEL_PYTHON_SDK_VERSION}`, `opentelemetry-distro==${OTEL_PYTHON_CONTRIB_VERSION}`,
      ]);
      const run = await promisify(execFile)(python, [SCRIPT], { env: { ...process.env, PYTHONPATH: DISTRO } }).catch((e: { stdout: string; stderr: string }) => e);
      expect(`${run.stdout}${run.stderr}`.trim()).toBe("ok");
    }, 600_000);
  }
});
