import { Cron } from "croner";
import { z } from "zod";
import type { ConfigView } from "./model.js";
import { isRecord } from "./model.js";
import type { DiagnosticSink } from "./sink.js";

/**
 * `backup:` on a postgres service: when backups are made on their own and how many are kept
 * (issue #26). `platform db backup` makes one at any time; `keep` applies to those too.
 */
export const backupSchema = z
  .strictObject({
    schedule: z
      .string()
      .describe(
        'When a backup is made on its own: a cron expression of 5 fields (minute hour day-of-month month day-of-week), in UTC, e.g. "0 3 * * *" (03:00 UTC every day). Optional: without it, backups are made by platform db backup.',
      )
      .meta({ examples: ["0 3 * * *", "30 */6 * * *"] })
      .optional(),
    keep: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .describe(
        "How many backups of the service are kept: after each backup, the oldest beyond this number are removed. Safety backups (made before a restore) are counted apart, so a restore can always be undone. From 1 to 1000. Default: every backup is kept.",
      )
      .meta({ examples: [14] })
      .optional(),
  })
  .describe('Backups of a postgres service (see README "Backups and copies of your data"). postgres only. Optional.')
  .meta({ examples: [{ schedule: "0 3 * * *", keep: 14 }] });

/** What is wrong with a cron expression, or undefined when it is a good one of 5 fields. */
export function cronProblem(expr: string): string | undefined {
  const fields = expr.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5)
    return `has ${fields.length} field${fields.length === 1 ? "" : "s"}; a schedule has 5: minute hour day-of-month month day-of-week`;
  try {
    new Cron(expr, { paused: true, timezone: "UTC" });
    return undefined;
  } catch (e) {
    return (e as Error).message.replace(/^CronPattern: /, "");
  }
}

/** The next time a schedule fires after `from` (UTC). */
export function nextScheduled(expr: string, from = new Date()): Date | undefined {
  return new Cron(expr, { paused: true, timezone: "UTC" }).nextRun(from) ?? undefined;
}

/** backup: only on postgres services, with a schedule cron understands. */
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
