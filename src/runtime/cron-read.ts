import { type CronRun, parseCronRuns, parseRedisFacts } from "./cron-runs.js";
import { docker, execOutput } from "./docker.js";

const RUNS_FILE = "/data/runs.jsonl";

/** The last runs of a stack's cron jobs, from its scheduler container; undefined when none runs. */
export async function readCronRuns(project: string, env: string, n: number): Promise<CronRun[] | undefined> {
  const [scheduler] = await docker().listContainers({
    filters: { label: [`platform.project=${project}`, `platform.env=${env}`, "platform.scheduler=true"] },
  });
  if (!scheduler) return undefined;
  const r = await execOutput(scheduler.Id, ["sh", "-c", `[ -f ${RUNS_FILE} ] && tail -n ${Math.max(1, n)} ${RUNS_FILE} || true`]);
  return parseCronRuns(r.output);
}

/** A managed Redis's memory in use and its number of keys (redis-cli in its container; REDISCLI_AUTH has the password). */
export async function readRedisFacts(containerId: string): Promise<{ usedMemoryBytes: number; keys: number } | undefined> {
  const r = await execOutput(containerId, [
    "sh",
    "-c",
    "redis-cli -h 127.0.0.1 info memory | grep '^used_memory:'; redis-cli -h 127.0.0.1 dbsize",
  ]).catch(() => undefined);
  return r?.exitCode === 0 ? parseRedisFacts(r.output.replace(/\r/g, "")) : undefined;
}
