import { cronProblem } from "./backup-schema.js";
import { type ConfigView, isRecord } from "./model.js";
import type { DiagnosticSink } from "./sink.js";

/** backup: only on postgres services, with a schedule of 5 cron fields. */
export function validateBackups(view: ConfigView, sink: DiagnosticSink): void {
  for (const svc of view.services) {
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
