import { cronProblem } from "./backup-schema.js";
import { DEFAULT_POSTGRES_VERSION, POSTGRES_VERSIONS } from "./postgres-schema.js";
import { type ConfigView, isRecord } from "./model.js";
import type { DiagnosticSink } from "./sink.js";

/** backup: and version: only on postgres services; a version the platform builds; backup's schedule of 5 cron fields. */
export function validateBackups(view: ConfigView, sink: DiagnosticSink): void {
  for (const svc of view.services) {
    const version = svc.raw.version;
    if (version !== undefined && svc.type === "postgres" && !(POSTGRES_VERSIONS as readonly string[]).includes(String(version)))
      sink.error({
        path: ["services", svc.name, "version"],
        code: "postgres-version",
        message: `PostgreSQL ${String(version)} is not one the platform builds: there are ${POSTGRES_VERSIONS.join(", ")} (Debian's packages: bookworm 15, trixie 17, forky 18)`,
        hint: `write version: ${POSTGRES_VERSIONS[POSTGRES_VERSIONS.length - 1]} for the newest, or remove version: for ${DEFAULT_POSTGRES_VERSION}`,
      });
    if (svc.raw.version !== undefined && svc.type && svc.type !== "postgres")
      sink.error({
        path: ["services", svc.name, "version"],
        code: "version-postgres-only",
        message: `version is only for postgres services; ${svc.name} is a ${svc.type} service`,
        hint:
          svc.type === "fastapi" || svc.type === "worker"
            ? "remove it: Python's version comes from .python-version or requires-python in the source"
            : svc.type === "nextjs"
              ? 'remove it: Node\'s version comes from .nvmrc or package.json "engines" in the source'
              : "remove it",
        at: "key",
      });
    const backup = svc.raw.backup;
    if (backup === undefined) continue;
    const path = ["services", svc.name, "backup"];
    if (svc.type && svc.type !== "postgres") {
      sink.error({
        path,
        code: "backup-postgres-only",
        message: `backup is only for postgres services; ${svc.name} is a ${svc.type} service`,
        hint: "remove backup here, and put it on the postgres service whose data it should keep",
        at: "key",
      });
      continue;
    }
    if (isRecord(backup) && typeof backup.schedule === "string") {
      const problem = cronProblem(backup.schedule);
      if (problem)
        sink.error({
          path: [...path, "schedule"],
          code: "backup-schedule",
          message: `schedule "${backup.schedule}" ${problem}`,
          hint: 'write 5 fields, in UTC, e.g. "0 3 * * *" for 03:00 every day, "30 */6 * * *" for every 6 hours at :30',
        });
    }
  }
}
