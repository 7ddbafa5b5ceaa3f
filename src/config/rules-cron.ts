import { scheduleProblem } from "./cron-schema.js";
import { DURATION_MAX_SECONDS, parseDuration } from "./units.js";
import { type ConfigView, isRecord } from "./model.js";
import type { DiagnosticSink } from "./sink.js";

const RUNS_CODE = new Set(["fastapi", "nextjs", "worker"]);

/** cron: only on services that run code, with unique names and good schedules. */
export function validateCron(view: ConfigView, sink: DiagnosticSink): void {
  for (const svc of view.services) {
    const jobs = svc.raw.cron;
    if (!Array.isArray(jobs)) continue;
    const path = ["services", svc.name, "cron"];
    if (svc.type && !RUNS_CODE.has(svc.type)) {
      sink.error({
        path,
        code: "cron-type",
        message: `cron jobs run a service's code; ${svc.name} is a ${svc.type} service`,
        hint: "put cron on the fastapi, nextjs or worker service whose code the job runs",
        at: "key",
      });
      continue;
    }
    const seen = new Set<string>();
    jobs.forEach((job, i) => {
      if (!isRecord(job)) return;
      if (typeof job.name === "string") {
        if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(job.name))
          sink.error({
            path: [...path, i, "name"],
            code: "cron-name",
            message: `job name "${job.name}" is not lowercase letters, digits and '-'`,
            hint: `e.g. ${
              job.name
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, "-")
                .replace(/^-+|-+$/g, "") || "nightly"
            }`,
          });
        if (seen.has(job.name))
          sink.error({
            path: [...path, i, "name"],
            code: "cron-duplicate",
            message: `a second job named "${job.name}" on ${svc.name}`,
            hint: "give each job of a service its own name",
          });
        seen.add(job.name);
      }
      if (typeof job.timeout === "string") {
        const secs = parseDuration(job.timeout);
        if (secs === 0 || (secs !== undefined && secs > DURATION_MAX_SECONDS))
          sink.error({
            path: [...path, i, "timeout"],
            code: "timeout-range",
            message: `timeout ${job.timeout} is ${secs === 0 ? "0" : "more than 24h"}`,
            hint: 'use more than 0 and at most 24h, e.g. timeout: 10m (the default is "1h")',
          });
      }
      if (typeof job.schedule === "string") {
        const problem = scheduleProblem(job.schedule);
        if (problem)
          sink.error({
            path: [...path, i, "schedule"],
            code: "cron-schedule",
            message: `schedule "${job.schedule}" ${problem}`,
            hint: 'write 5 fields in UTC, e.g. "* * * * *" (every minute), "0 3 * * *" (03:00), or 6 with seconds first, e.g. "*/10 * * * * *"',
          });
      }
    });
  }
}
