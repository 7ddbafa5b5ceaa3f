import { createHash } from "node:crypto";
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { VisibleError } from "../../errors.js";
import type { CronJobSpec, Plan, PlannedService } from "../../plan/types.js";
import { CRON_JOB_LABEL } from "../../provider/contract/labels.js";
import { databaseCaMount, type ImageSource, resources, stackLabels } from "./specs.js";

/**
 * platform.yml `cron:` on Kubernetes: one CronJob per job, running the service's image with its
 * env Secret and limits, as the Docker target's scheduler does (docs/guide/workers-cron-redis.md, "Cron jobs").
 */

/**
 * Docker's rule for missed runs: not made up, the next one comes on schedule. A run that could
 * not start within this many seconds of its time (the previous one still running under Forbid,
 * the controller down) is skipped. Kubernetes may miss runs with a deadline under 10 s.
 */
export const CRON_STARTING_DEADLINE_SECONDS = 15;
/** A run past its timeout gets SIGTERM, then this long before SIGKILL (the Docker scheduler's 5 s). */
const CRON_STOP_GRACE_SECONDS = 5;
/** Finished runs kept (their Jobs, and pods with their logs), for `platform cron`. */
export const CRON_HISTORY = { successfulJobsHistoryLimit: 5, failedJobsHistoryLimit: 5 } as const;

/** A CronJob's name: its Jobs get an 11-character suffix and must stay within 63. */
export function cronJobName(s: Pick<PlannedService, "name">, j: Pick<CronJobSpec, "name">): string {
  const name = `${s.name}-${j.name}`;
  if (name.length <= 52) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 6);
  return `${name.slice(0, 45).replace(/-+$/, "")}-${hash}`;
}

/** The label value for a job: `<service>.<job>` (both DNS labels, so it is a valid label value). */
export const cronLabelValue = (s: Pick<PlannedService, "name">, j: Pick<CronJobSpec, "name">) => `${s.name}.${j.name}`;

/** CronJobs have minute resolution: a schedule with seconds is refused before any resource. */
export function checkCronSchedules(plan: Plan): void {
  const withSeconds = plan.services.flatMap((s) =>
    (s.cron ?? [])
      .filter((j) => j.schedule.trim().split(/\s+/).length === 6)
      .map((j) => `services.${s.name}.cron ${j.name} ("${j.schedule}")`),
  );
  if (withSeconds.length)
    throw new VisibleError(
      `${withSeconds.join(", ")}: a schedule with seconds cannot run on Kubernetes (CronJobs have minute resolution); write 5 fields, e.g. "* * * * *"`,
    );
}

export function cronJobSpec(
  plan: Plan,
  s: PlannedService,
  j: CronJobSpec,
  image: pulumi.Input<string>,
  envSecret: pulumi.Input<string>,
  src: ImageSource,
  caConfigMap?: pulumi.Input<string>,
): k8s.types.input.batch.v1.CronJobSpec {
  const ca = databaseCaMount(s, caConfigMap);
  // Never the selector labels: the Service would send requests to a run's pod.
  const labels = { ...stackLabels(plan, s), [CRON_JOB_LABEL]: cronLabelValue(s, j) };
  return {
    schedule: j.schedule,
    timeZone: "UTC",
    concurrencyPolicy: "Forbid",
    startingDeadlineSeconds: CRON_STARTING_DEADLINE_SECONDS,
    ...CRON_HISTORY,
    jobTemplate: {
      metadata: { labels },
      spec: {
        backoffLimit: 0,
        activeDeadlineSeconds: j.timeoutSeconds,
        template: {
          metadata: { labels },
          spec: {
            restartPolicy: "Never",
            enableServiceLinks: false,
            terminationGracePeriodSeconds: CRON_STOP_GRACE_SECONDS,
            ...(src.pullSecrets?.length ? { imagePullSecrets: src.pullSecrets.map((name) => ({ name })) } : {}),
            ...(ca.volumes.length ? { volumes: ca.volumes } : {}),
            containers: [
              {
                name: "run",
                image,
                imagePullPolicy: src.pullPolicy,
                // Docker's CMD, as the scheduler starts it: the image's entrypoint still runs.
                args: [...j.command],
                envFrom: [{ secretRef: { name: envSecret } }],
                ...(ca.mounts.length ? { volumeMounts: ca.mounts } : {}),
                resources: resources(s),
                securityContext: { allowPrivilegeEscalation: false },
              },
            ],
          },
        },
      },
    },
  };
}
