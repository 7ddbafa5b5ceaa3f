import { DEFAULT_SAMPLE_RATIO, type Config, type TemplatePart } from "../config/index.js";

/**
 * The OpenTelemetry settings injected into every fastapi and nextjs service (recipes and
 * `build` services alike). Target-free: the receiver's address is a reference that each
 * target resolves (`${@telemetry.otlp_endpoint}`), and the deployment id is added by the
 * target when it creates a container, so a no-op deploy changes no variable.
 */

/** The reference "service" whose `otlp_endpoint` a target sets to its receiver's OTLP/HTTP base URL. */
export const TELEMETRY_REF = "@telemetry";
export const OTLP_ENDPOINT_PROPERTY = "otlp_endpoint";

/** How often metrics are exported: short, so that Studio (and tests) see a burst within seconds. */
export const METRIC_EXPORT_INTERVAL_MS = 5000;

const text = (t: string): TemplatePart[] => [{ kind: "text", text: t }];

/** Resource attribute values are percent-encoded where they could break the list (W3C Baggage rules). */
function encodeAttribute(value: string): string {
  return value.replace(/[%,=;\s"\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

/** `platform.project=…,platform.env=…,platform.service=…`: what src/telemetry/resource.ts reads. */
export function buildResourceAttributes(project: string, env: string, service: string): string {
  const attrs: [string, string][] = [
    ["platform.project", project],
    ["platform.env", env],
    ["platform.service", service],
    ["deployment.environment.name", env],
  ];
  return attrs.map(([k, v]) => `${k}=${encodeAttribute(v)}`).join(",");
}

export function sampleRatioOf(config: Pick<Config, "telemetry">): number {
  return config.telemetry?.sampleRatio ?? DEFAULT_SAMPLE_RATIO;
}

/** The variables, before the service's own env (whose OTEL_* names win). */
export function buildTelemetryEnv(project: string, env: string, service: string, sampleRatio: number): Record<string, TemplatePart[]> {
  return {
    OTEL_SERVICE_NAME: text(service),
    OTEL_RESOURCE_ATTRIBUTES: text(buildResourceAttributes(project, env, service)),
    OTEL_EXPORTER_OTLP_ENDPOINT: [{ kind: "ref", service: TELEMETRY_REF, property: OTLP_ENDPOINT_PROPERTY }],
    OTEL_EXPORTER_OTLP_PROTOCOL: text("http/protobuf"),
    OTEL_TRACES_SAMPLER: text("parentbased_traceidratio"),
    OTEL_TRACES_SAMPLER_ARG: text(String(sampleRatio)),
    OTEL_TRACES_EXPORTER: text("otlp"),
    OTEL_METRICS_EXPORTER: text("otlp"),
    // The receiver keeps traces and HTTP metrics; logs stay in the container's output.
    OTEL_LOGS_EXPORTER: text("none"),
    OTEL_METRIC_EXPORT_INTERVAL: text(String(METRIC_EXPORT_INTERVAL_MS)),
    // The stable HTTP semantic conventions: http.route and http.response.status_code on the duration histogram.
    OTEL_SEMCONV_STABILITY_OPT_IN: text("http"),
    // Exemplars (a sampled trace id on a histogram bucket) cost every recorded measurement of a
    // sampled request, and the receiver keeps none: off (bench/README.md, catalog throughput).
    OTEL_METRICS_EXEMPLAR_FILTER: text("always_off"),
  };
}
