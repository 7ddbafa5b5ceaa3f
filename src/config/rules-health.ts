import { type ConfigView, isRecord } from "./model.js";
import type { DiagnosticSink } from "./sink.js";

/**
 * health: http on fastapi and nextjs services, command on a worker (rules-services refuses http
 * there, and any health on postgres and redis); one of them, as an empty health checks nothing.
 */
export function validateHealthKinds(view: ConfigView, sink: DiagnosticSink): void {
  for (const svc of view.services) {
    const health = svc.raw.health;
    if (!isRecord(health) || !svc.type || svc.type === "postgres" || svc.type === "redis") continue;
    const path = ["services", svc.name, "health"];
    const worker = svc.type === "worker";
    if (!worker && Object.hasOwn(health, "command"))
      sink.error({
        path: [...path, "command"],
        code: "health-command-worker-only",
        message: `health.command is for workers; a ${svc.type} service is checked over HTTP`,
        hint: "write health: {http: /health}, the path of an endpoint that answers 2xx when it is ready",
        at: "key",
      });
    else if (!Object.hasOwn(health, "http") && !Object.hasOwn(health, "command"))
      sink.error({
        path,
        code: "health-empty",
        message: worker ? "health needs command on a worker" : "health needs http",
        hint: worker
          ? 'add command: a check that exits 0 when the worker works, e.g. "celery -A app inspect ping -d celery@$HOSTNAME", or remove health'
          : "add http: /health (the path of a health endpoint)",
        at: "key",
      });
  }
}
