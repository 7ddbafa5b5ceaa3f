import type { ConfigView } from "./model.js";
import type { DiagnosticSink } from "./sink.js";

/** auth: only on redis services (what a redis service's clients authenticate with). */
export function validateRedisAuth(view: ConfigView, sink: DiagnosticSink): void {
  for (const svc of view.services) {
    if (svc.raw.auth === undefined || !svc.type || svc.type === "redis") continue;
    sink.error({
      path: ["services", svc.name, "auth"],
      code: "auth-redis-only",
      message: `auth is only for redis services; ${svc.name} is a ${svc.type} service`,
      hint: "remove auth here (a postgres service always has a generated password)",
      at: "key",
    });
  }
}
