import { z } from "zod";
import { cronProblem } from "./backup-schema.js";
import { DURATION_RE } from "./units.js";

/**
 * `cron:` on a service that runs code (fastapi, nextjs, worker): periodic jobs that run the
 * service's own image with its variables and limits, each in a fresh container (issue #27).
 * A list on the service rather than a service type: a job is that service's code, so it never
 * needs a second build or a second copy of its variables.
 */
export const cronJobSchema = z
  .strictObject({
    name: z
      .string()
      .meta({ pattern: "^[a-z]([-a-z0-9]*[a-z0-9])?$", maxLength: 40 })
      .describe("The job's name, unique on its service: lowercase letters, digits and '-'. Shown by platform cron. Required.")
      .meta({ examples: ["heartbeat"] }),
    schedule: z
      .string()
      .describe(
        'When it runs, in UTC: a cron expression of 5 fields (minute hour day-of-month month day-of-week), e.g. "0 3 * * *", or 6 with seconds first ("*/10 * * * * *"; Docker only: Kubernetes CronJobs have minute resolution). Required.',
      )
      .meta({ examples: ["* * * * *", "0 3 * * *"] }),
    command: z
      .union([
        z.string().min(1).describe("A command line, run by sh -c."),
        z.array(z.string().min(1)).min(1).describe("Program and arguments, run as they are (no shell)."),
      ])
      .describe("What it runs, in a fresh container of the service's image: a string runs under sh -c, a list as it is. Required.")
      .meta({ examples: [["python", "-m", "jobs.heartbeat"]] }),
    timeout: z
      .string()
      .regex(DURATION_RE)
      .default("1h")
      .describe(
        'How long one run may take: <n>s, <n>m or <n>h, at most 24h. A run still going then gets SIGTERM, 5 s, then SIGKILL, and is recorded as "timed out". Default "1h".',
      )
      .meta({ examples: ["10m"] }),
  })
  .describe("One periodic job.");

export const cronSchema = z
  .array(cronJobSchema)
  .describe(
    "Periodic jobs of this service (fastapi, nextjs and worker services): each run is a fresh container of the service's current image, with its variables, network and limits (on Kubernetes, one CronJob per job). Two runs of one job never overlap: a run due while the previous one still runs is skipped and recorded as skipped (Kubernetes' concurrencyPolicy: Forbid). A run missed while the scheduler was down (the host off, a deploy replacing it) is not made up: the next one comes on schedule. Runs, exit codes and output are shown by platform cron. Optional.",
  )
  .meta({ examples: [[{ name: "heartbeat", schedule: "* * * * *", command: ["python", "-m", "jobs.heartbeat"] }]] });

/** What is wrong with a job's schedule: 5 fields, or 6 with seconds first. */
export function scheduleProblem(expr: string): string | undefined {
  const fields = expr.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 6) return cronProblem(expr);
  const seconds = cronProblem(`${fields[0]} * * * *`);
  if (seconds) return seconds.replace("minute field", "seconds field");
  return cronProblem(fields.slice(1).join(" "));
}
