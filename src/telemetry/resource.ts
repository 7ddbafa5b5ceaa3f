import type { Origin } from "./rows.js";
import { pickInt, pickString } from "./otlp-values.js";

/**
 * Who sent the data, from resource attributes. The platform injects `platform.project`,
 * `platform.env` and `platform.service` into the services it deploys; anything else
 * instrumented falls back to the standard names.
 */
export function toOrigin(resource: Record<string, unknown>): Origin {
  return {
    service: pickString(resource, "platform.service", "service.name") ?? "unknown_service",
    project: pickString(resource, "platform.project") ?? "",
    env: pickString(resource, "platform.env", "deployment.environment.name", "deployment.environment") ?? "",
    deployment: pickString(resource, "deployment.id", "service.version") ?? "",
  };
}

/** HTTP attributes under both the stable (1.23+) and the older semantic-convention names. */
export function toHttpAttributes(attrs: Record<string, unknown>): { route?: string; method?: string; status?: number } {
  const route = pickString(attrs, "http.route");
  const method = pickString(attrs, "http.request.method", "http.method");
  const status = pickInt(attrs, "http.response.status_code", "http.status_code");
  return { route, method: method?.toUpperCase(), status };
}
