import { requireCredentials } from "../engine/credentials.js";
import { stackRuntime } from "../engine/stack-ops.js";
import { ExitCode, VisibleError } from "../errors.js";
import { lastLine } from "../runtime/cron-runs.js";
import { resolveStack } from "./context.js";
import type { StackOptions } from "./stack-options.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";

/** `platform cron`: the last runs, read from the stack's scheduler container (Docker) or its CronJobs' Jobs (Kubernetes). */
export async function runCron(o: StackOptions & { tail?: string }): Promise<void> {
  const t = await resolveStack(o);
  const jobs = Object.values(t.config.services).flatMap((s) => (s.cron ?? []).map((j) => `${s.name}/${j.name}`));
  if (jobs.length === 0) {
    if (o.json) return printJson({ jobs: [], runs: [] });
    console.log(`no cron jobs in ${t.configFile} (add cron: [{name, schedule, command}] to a service)`);
    return;
  }
  const tail = Math.max(1, Number(o.tail ?? 20) || 20);
  // Kubernetes: the Jobs of the stack's CronJobs; Docker: the scheduler container's runs log.
  const runs = await (await stackRuntime(t, requireCredentials())).cronRuns(tail);
  if (!runs)
    throw new VisibleError(`the cron scheduler of ${t.project} (${t.env}) is not running: run platform deploy`, {
      exitCode: ExitCode.failed,
    });
  if (o.json) return printJson({ jobs, runs });
  if (runs.length === 0) {
    console.log(`no runs yet of ${jobs.join(", ")}`);
    return;
  }
  console.log(
    formatTable(
      ["JOB", "STARTED (UTC)", "SECONDS", "OUTCOME", "EXIT", "OUTPUT"],
      runs.map((x) => [
        x.job,
        (x.started ?? x.scheduled ?? "").replace("T", " ").replace(/\.\d+Z$/, ""),
        x.seconds === undefined ? "" : x.seconds.toFixed(1),
        x.outcome,
        x.exitCode === undefined ? "" : String(x.exitCode),
        x.outcome === "skipped" ? (x.reason ?? "") : x.error ? lastLine(x.error) : lastLine(x.output),
      ]),
    ),
  );
}
