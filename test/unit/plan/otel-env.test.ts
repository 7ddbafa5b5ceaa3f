import { describe, expect, it } from "vitest";
import { validateConfig } from "../../../src/config/index.js";
import { buildPlan } from "../../../src/plan/build-plan.js";
import { buildResourceAttributes, OTLP_ENDPOINT_PROPERTY, TELEMETRY_REF } from "../../../src/plan/otel-env.js";
import { withDeploymentId } from "../../../src/provider/docker/container.js";

const CTX = {
  project: "shop",
  env: "preview",
  projectDir: "/nowhere",
  appsDomain: "localhost",
  httpsPort: 443,
  images: { python: "python:3.11-slim", node: "node:22-slim", postgres: "postgres:17", caddy: "caddy:2" },
};

function planOf(yaml: string) {
  const r = validateConfig(yaml, {
    file: "platform.yml",
    projectDir: "/nowhere",
    fs: { stat: () => ({ isDirectory: true, isFile: true }), realpath: (p: string) => p, readText: () => undefined } as never,
  });
  if (!r.config) throw new Error(JSON.stringify(r.errors));
  return buildPlan(r.config, CTX, new Map());
}

const text = (parts: readonly { kind: string; text?: string }[] | undefined) => parts?.map((p) => p.text).join("");

describe("the OTEL_* settings the plan injects", () => {
  const BASE =
    'version: "1.0"\nname: shop\nservices:\n  db:\n    type: postgres\n  api:\n    type: fastapi\n    build:\n      source: ./api\n';

  it("every HTTP service gets them, with the receiver as a reference the target resolves; postgres none", () => {
    const plan = planOf(BASE);
    const api = plan.services.find((s) => s.name === "api")!;
    expect(text(api.env.OTEL_SERVICE_NAME)).toBe("api");
    expect(text(api.env.OTEL_EXPORTER_OTLP_PROTOCOL)).toBe("http/protobuf");
    expect(text(api.env.OTEL_TRACES_SAMPLER)).toBe("parentbased_traceidratio");
    expect(text(api.env.OTEL_TRACES_SAMPLER_ARG)).toBe("1");
    // Exemplars cost every measurement of a sampled request and the receiver keeps none.
    expect(text(api.env.OTEL_METRICS_EXEMPLAR_FILTER)).toBe("always_off");
    expect(text(api.env.OTEL_RESOURCE_ATTRIBUTES)).toBe(
      "platform.project=shop,platform.env=preview,platform.service=api,deployment.environment.name=preview",
    );
    expect(api.env.OTEL_EXPORTER_OTLP_ENDPOINT).toEqual([{ kind: "ref", service: TELEMETRY_REF, property: OTLP_ENDPOINT_PROPERTY }]);
    // Nothing per deployment: a redeploy without changes keeps every variable.
    expect(JSON.stringify(api.env)).not.toContain("dep_");
    expect(Object.keys(plan.services.find((s) => s.name === "db")!.env).filter((k) => k.startsWith("OTEL_"))).toEqual([]);
  });

  it("telemetry.sample_ratio sets the ratio; a service's own OTEL_* wins", () => {
    const plan = planOf(`${BASE}    env:\n      OTEL_SERVICE_NAME: shop-api\ntelemetry:\n  sample_ratio: 0.25\n`);
    const api = plan.services.find((s) => s.name === "api")!;
    expect(text(api.env.OTEL_TRACES_SAMPLER_ARG)).toBe("0.25");
    expect(text(api.env.OTEL_SERVICE_NAME)).toBe("shop-api");
  });

  it("refuses a ratio outside 0..1", () => {
    const r = validateConfig(`${BASE}telemetry:\n  sample_ratio: 2\n`, {
      file: "platform.yml",
      projectDir: "/nowhere",
      fs: { stat: () => ({ isDirectory: true, isFile: true }), realpath: (p: string) => p, readText: () => undefined } as never,
    });
    expect(r.ok).toBe(false);
    expect(r.errors[0]?.path).toBe("telemetry.sample_ratio");
  });

  it("resource attribute values that could break the list are percent-encoded", () => {
    expect(buildResourceAttributes("a,b", "x=y", "s")).toBe(
      "platform.project=a%2Cb,platform.env=x%3Dy,platform.service=s,deployment.environment.name=x%3Dy",
    );
  });
});

describe("deployment.id, added when a container is created", () => {
  it("appends to OTEL_RESOURCE_ATTRIBUTES, keeps one the service set, and leaves other env alone", () => {
    expect(withDeploymentId({ OTEL_RESOURCE_ATTRIBUTES: "platform.project=p" }, "dep_1")).toEqual({
      OTEL_RESOURCE_ATTRIBUTES: "platform.project=p,deployment.id=dep_1",
    });
    expect(withDeploymentId({ OTEL_RESOURCE_ATTRIBUTES: "deployment.id=mine" }, "dep_1")).toEqual({
      OTEL_RESOURCE_ATTRIBUTES: "deployment.id=mine",
    });
    expect(withDeploymentId({ A: "1" }, "dep_1")).toEqual({ A: "1" });
    expect(withDeploymentId({ OTEL_RESOURCE_ATTRIBUTES: "x=1" }, undefined)).toEqual({ OTEL_RESOURCE_ATTRIBUTES: "x=1" });
  });
});
