import { Cron } from "croner";

/** The next time a backup schedule (5 cron fields, UTC; checked by platform.yml's validation) fires after `from`. */
export function nextScheduled(expr: string, from = new Date()): Date | undefined {
  try {
    return new Cron(expr, { paused: true, timezone: "UTC" }).nextRun(from) ?? undefined;
  } catch {
    return undefined;
  }
}
