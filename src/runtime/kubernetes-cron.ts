import { CRON_JOB_LABEL } from "../provider/contract/labels.js";
import type { CronRun } from "./cron-runs.js";
import { type KubeCluster, kubectl } from "./kubernetes.js";

/**
 * `platform cron` on the Kubernetes target: the runs are the Jobs its CronJobs made (as many as
 * their history limits keep), with each run's exit code and times from its pod, and the pod's
 * last output while the pod is still there. Runs that Forbid skipped leave no Job, so none is
 * listed as skipped here.
 */

interface JobJson {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  status: {
    startTime?: string;
    completionTime?: string;
    active?: number;
    conditions?: { type: string; status: string; reason?: string }[];
  };
}

interface PodJson {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  status: { containerStatuses?: { state?: { terminated?: { exitCode: number; startedAt?: string; finishedAt?: string } } }[] };
}

const OUTPUT_BYTES = 4096;

/** A finished Job's outcome; undefined while it runs. */
export function jobOutcome(j: JobJson): CronRun["outcome"] | undefined {
  const on = (type: string) => j.status.conditions?.find((c) => c.type === type && c.status === "True");
  if (on("Complete")) return "succeeded";
  const failed = on("Failed") ?? on("FailureTarget");
  if (failed) return failed.reason === "DeadlineExceeded" ? "timed out" : "failed";
  return undefined;
}

/** One Job and its pod as a line of the runs log (the Docker scheduler's shape). */
export function toCronRun(j: JobJson, pod: PodJson | undefined, output: string | undefined): CronRun | undefined {
  const outcome = jobOutcome(j);
  if (!outcome) return undefined;
  const t = pod?.status.containerStatuses?.[0]?.state?.terminated;
  const started = t?.startedAt ?? j.status.startTime;
  const finished = t?.finishedAt ?? j.status.completionTime;
  const seconds = started && finished ? (Date.parse(finished) - Date.parse(started)) / 1000 : undefined;
  return {
    job: (j.metadata.labels?.[CRON_JOB_LABEL] ?? j.metadata.name).replace(".", "/"),
    ...(started ? { started } : {}),
    ...(finished ? { finished } : {}),
    ...(seconds !== undefined ? { seconds } : {}),
    ...(t ? { exitCode: t.exitCode } : {}),
    outcome,
    ...(output !== undefined ? { output } : {}),
  };
}

/** The last `n` finished runs of a stack's cron jobs, oldest first. */
export async function kubeCronRuns(t: KubeCluster, n: number): Promise<CronRun[]> {
  const selector = ["-l", `platform.project=${t.project},platform.env=${t.env},${CRON_JOB_LABEL}`, "-o", "json"];
  const jobs = (JSON.parse(await kubectl(t, ["get", "jobs", "--all-namespaces", ...selector])) as { items: JobJson[] }).items;
  const pods = (JSON.parse(await kubectl(t, ["get", "pods", "--all-namespaces", ...selector])) as { items: PodJson[] }).items;
  const podOf = (j: JobJson) => pods.find((p) => p.metadata.labels?.["job-name"] === j.metadata.name);
  const finished = jobs
    .filter((j) => jobOutcome(j) && j.status.startTime)
    .sort((a, b) => (a.status.startTime as string).localeCompare(b.status.startTime as string))
    .slice(-Math.max(1, n));
  const runs: CronRun[] = [];
  for (const j of finished) {
    const pod = podOf(j);
    const output = pod
      ? await kubectl(t, ["logs", "-n", pod.metadata.namespace, pod.metadata.name, `--limit-bytes=${OUTPUT_BYTES}`]).catch(() => undefined)
      : undefined;
    const run = toCronRun(j, pod, output);
    if (run) runs.push(run);
  }
  return runs;
}
