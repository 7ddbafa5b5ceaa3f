import { isRecord, type ConfigView, type ServiceView } from "./model.js";
import { ENV_NAME_PATTERN } from "./schema.js";
import type { DiagnosticSink } from "./sink.js";
import { DURATION_MAX_SECONDS, parseDuration, parseStorage, STORAGE_MAX_BYTES, STORAGE_MIN_BYTES } from "./units.js";

const ENV_RE = new RegExp(ENV_NAME_PATTERN);

/** What each service type may declare: apps need code, databases are run for you. */
export function validateServiceKinds(view: ConfigView, sink: DiagnosticSink): void {
  for (const svc of view.services) {
    const base = ["services", svc.name];
    const has = (k: string) => Object.hasOwn(svc.raw, k);
    if (svc.type === "postgres" || svc.type === "redis") {
      const what = svc.type === "postgres" ? "PostgreSQL" : "Redis";
      for (const k of ["source", "build", "image"]) {
        if (has(k))
          sink.error({
            path: [...base, k],
            code: "postgres-source",
            message: `a ${svc.type} service takes no ${k}: the platform runs ${what} for you`,
            hint: `remove ${k}`,
            at: "key",
          });
      }
      if (svc.hasMigrate) {
        sink.error({
          path: [...base, "lifecycle", "migrate"],
          code: "postgres-migrate",
          message: `a ${svc.type} service has no migration step`,
          hint: `put lifecycle.migrate on the service that owns the schema or data (the one that uses \${${svc.name}.url})`,
          at: "key",
        });
      }
      if (has("start")) {
        sink.error({
          path: [...base, "start"],
          code: "postgres-start",
          message: `a ${svc.type} service takes no start command: the platform runs ${what} for you`,
          hint: "remove start",
          at: "key",
        });
      }
      if (svc.hasHealth) {
        sink.error({
          path: [...base, "health"],
          code: "postgres-health",
          message: `a ${svc.type} service takes no health check: the platform checks the ${svc.type === "postgres" ? "database" : "server"} itself`,
          hint: "remove health",
          at: "key",
        });
      }
      if (has("replicas")) {
        sink.error({
          path: [...base, "replicas"],
          code: "data-replicas",
          message: `a ${svc.type} service runs one server on its volume: it takes no replicas`,
          hint: "remove replicas; give replicas to the services that use it",
          at: "key",
        });
      }
      if (svc.raw.public === true) {
        sink.error({
          path: [...base, "public"],
          code: "postgres-public",
          message: `${svc.type === "postgres" ? "a database" : "a redis service"} is never put on the public HTTPS edge`,
          hint: `remove public: true; services reach the ${svc.type === "postgres" ? "database" : "server"} through \${${svc.name}.url}, its internal connection string`,
        });
      }
    } else if (svc.type) {
      const ways = ["source", "build", "image"].filter(has);
      if (ways.length > 1) {
        sink.error({
          path: [...base, ways[1] as string],
          code: "source-and-build",
          message: `has both ${ways[0]} and ${ways[1]}; use one`,
          hint: "source: the platform builds the app for you; build: you supply a Dockerfile; image: a prebuilt image",
          at: "key",
        });
      } else if (ways.length === 0) {
        sink.error({
          path: base,
          code: "missing-source",
          message: `a ${svc.type} service needs source or build`,
          hint: `add source: ./${svc.name} (the app's directory), or build: {source: ./${svc.name}, dockerfile: Dockerfile}`,
          at: "key",
        });
      }
      if (svc.type === "worker") validateWorker(svc, sink);
      const res = svc.raw.resources;
      if (isRecord(res)) {
        for (const k of ["storage", "retention"]) {
          if (Object.hasOwn(res, k)) {
            sink.error({
              path: [...base, "resources", k],
              code: "postgres-only",
              message: `${k} is only for postgres and redis services`,
              hint: `remove it: ${svc.type} services keep no data on disk`,
              at: "key",
            });
          }
        }
      }
    }
    validateRanges(svc, sink);
  }
}

/** A worker listens on nothing: no URL, no HTTP check; from source it needs the command it runs. */
function validateWorker(svc: ServiceView, sink: DiagnosticSink): void {
  const base = ["services", svc.name];
  const has = (k: string) => Object.hasOwn(svc.raw, k);
  if (svc.raw.public === true)
    sink.error({
      path: [...base, "public"],
      code: "worker-public",
      message: "a worker has no port, so it is never put on the public HTTPS edge",
      hint: "remove public: true, or make it a fastapi or nextjs service if it answers HTTP",
    });
  const health = svc.raw.health;
  if (isRecord(health) && Object.hasOwn(health, "http"))
    sink.error({
      path: [...base, "health", "http"],
      code: "worker-health",
      message: "a worker takes no HTTP health check: it is healthy while it keeps running",
      hint: "remove health, or give health: {command: ...} that exits 0 when it works",
      at: "key",
    });
  if (has("source") && !has("build") && !has("image") && !has("start"))
    sink.error({
      path: base,
      code: "worker-start",
      message: "a worker built from source needs start: the command it runs",
      hint: 'add e.g. start: "python -m app.worker" (a string runs under sh -c; a list runs as it is)',
      at: "key",
    });
}

function validateRanges(svc: ServiceView, sink: DiagnosticSink): void {
  const res = svc.raw.resources;
  if (isRecord(res) && typeof res.storage === "string") {
    const bytes = parseStorage(res.storage);
    if (bytes !== undefined && (bytes < STORAGE_MIN_BYTES || bytes > STORAGE_MAX_BYTES)) {
      sink.error({
        path: ["services", svc.name, "resources", "storage"],
        code: "storage-range",
        message: `storage ${res.storage} is ${bytes < STORAGE_MIN_BYTES ? "below 64Mi" : "above 16Ti"}`,
        hint: "use a size from 64Mi to 16Ti",
      });
    }
  }
  const lifecycle = svc.raw.lifecycle;
  const migrate = isRecord(lifecycle) ? lifecycle.migrate : undefined;
  if (isRecord(migrate) && typeof migrate.timeout === "string") {
    const secs = parseDuration(migrate.timeout);
    const path = ["services", svc.name, "lifecycle", "migrate", "timeout"];
    if (secs === 0)
      sink.error({ path, code: "timeout-range", message: "timeout must be more than 0", hint: 'e.g. timeout: 5m (the default is "5m")' });
    else if (secs !== undefined && secs > DURATION_MAX_SECONDS)
      sink.error({
        path,
        code: "timeout-range",
        message: `timeout ${migrate.timeout} is more than 24h`,
        hint: "use at most 24h; a migration that needs longer should run outside deploys",
      });
  }
}

/** "my-var" -> "MY_VAR": a valid name close to what was written. */
function suggestEnvName(key: string): string {
  const s = key.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^([0-9])/, "_$1");
  return s === "" ? "NAME" : s.toUpperCase() === s.toLowerCase() ? s : s.toUpperCase();
}

/** Variable names: valid, and not ones the platform sets itself. */
export function validateEnvNames(view: ConfigView, sink: DiagnosticSink): void {
  for (const svc of view.services) {
    for (const { key } of svc.env) {
      const path = ["services", svc.name, "env", key];
      if (!ENV_RE.test(key)) {
        sink.error({
          path,
          code: "invalid-env-name",
          message: `invalid variable name "${key}"`,
          hint: `use letters, digits and _, not starting with a digit, e.g. ${suggestEnvName(key)}`,
          at: "key",
        });
      } else if (key === "PORT") {
        sink.error({
          path,
          code: "reserved-env",
          message: "PORT is set by the platform",
          hint: "remove it: every service listens on $PORT, which the platform assigns",
          at: "key",
        });
      } else if (key.startsWith("PLATFORM_")) {
        sink.error({
          path,
          code: "reserved-env",
          message: "names starting with PLATFORM_ are reserved for the platform",
          hint: `rename it, e.g. ${key.slice("PLATFORM_".length) || "APP_SETTING"}`,
          at: "key",
        });
      } else if (key.startsWith("OTEL_")) {
        sink.warn({
          path,
          code: "otel-override",
          message: `${key} overrides the OpenTelemetry settings the platform injects`,
          hint: "remove it unless you mean to send telemetry somewhere else",
          at: "key",
        });
      }
    }
  }
}
