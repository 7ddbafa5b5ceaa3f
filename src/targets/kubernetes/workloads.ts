import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { imageRepository } from "../../plan/naming.js";
import type { Plan, PlannedService } from "../../plan/types.js";
import { createImage, createPulledImage, type ImageBuildOptions, migrationImage } from "../shared/build-image.js";
import { createAutoscaler } from "./autoscale.js";
import { cronJobName, cronJobSpec } from "./cron.js";
import type { ImagePlacement } from "./images.js";
import { MigrationOutcome, WorkerRollout } from "./resources.js";
import {
  appContainer,
  deploymentSpec,
  disruptionBudgetSpec,
  type ImageSource,
  migrateJobSpec,
  podLabels,
  rolloutTimeoutSeconds,
  stackLabels,
  timeouts,
} from "./specs.js";

/** What creating one service's workload needs from the target's body. */
export interface WorkloadContext {
  readonly plan: Plan;
  readonly namespace: string;
  readonly imageSource: ImageSource;
  readonly caConfigMap?: pulumi.Input<string>;
  readonly provider: k8s.Provider;
  /** The kubeconfig's path: a worker's rollout is awaited through it (WorkerRollout). */
  readonly kubeconfig: string;
  /** Where migration logs go (a migration that may fail keeps its output there). */
  readonly logDir: string;
  /** The namespace and the services this one depends on (ready first). */
  readonly dependsOn: pulumi.Resource[];
}

/**
 * The reference pods run for a service: its built image; a prebuilt one (platform.yml `image:`)
 * by its id, under a name made from that id, so a rollback runs exactly the recorded image; a
 * base image (postgres, redis) as it is. Each goes to the cluster as the placement says.
 */
export function serviceImage(
  s: PlannedService,
  plan: Plan,
  env: pulumi.Output<Record<string, string>>,
  opts: ImageBuildOptions,
  placement: ImagePlacement,
): pulumi.Input<string> {
  if (s.build) return placement.place(s, createImage(s, plan, env, opts).tag);
  if (s.prebuilt) {
    const id = createPulledImage(s, opts);
    return placement.place(
      s,
      id,
      id.apply((i) => `${imageRepository(plan.project, s.name)}:id-${i.replace(/^sha256:/, "").slice(0, 12)}`),
    );
  }
  return placement.place(s, pulumi.output(s.image as string));
}

/** The image a service's migration runs, placed where the cluster gets it: the recipe's migrate stage, else the service's image. */
export function serviceMigrationImage(
  s: PlannedService,
  plan: Plan,
  env: pulumi.Output<Record<string, string>>,
  opts: ImageBuildOptions,
  placement: ImagePlacement,
  image: pulumi.Input<string>,
): pulumi.Input<string> {
  const built = migrationImage(s, plan, env, opts);
  return built ? placement.place({ name: `${s.name}-migrate` }, built) : image;
}

/**
 * A service's migration Job; what its Deployment waits for. Pulumi's wait for a Job fails the
 * deploy when the Job fails; with `on_failure: continue` the Job is not awaited by it, and a
 * MigrationOutcome waits for its end instead and reports its exit code and output (the deploy's
 * warning), so the Deployment rolls out either way.
 */
function createMigration(
  c: WorkloadContext,
  s: PlannedService,
  image: pulumi.Input<string>,
  envSecret: pulumi.Input<string>,
): pulumi.Resource {
  const m = s.migrate!;
  const job = new k8s.batch.v1.Job(
    `${s.name}-migrate`,
    {
      metadata: {
        namespace: c.namespace,
        labels: podLabels(c.plan, s),
        ...(m.continueOnFailure ? { annotations: { "pulumi.com/skipAwait": "true" } } : {}),
      },
      spec: migrateJobSpec(c.plan, s, image, envSecret, c.imageSource, c.caConfigMap),
    },
    { provider: c.provider, dependsOn: c.dependsOn, customTimeouts: timeouts(m.timeoutSeconds + 30) },
  );
  if (!m.continueOnFailure) return job;
  return new MigrationOutcome(
    `${s.name}-migrate-outcome`,
    { kubeconfig: c.kubeconfig, namespace: c.namespace, job: job.metadata.name, logDir: c.logDir, timeoutSeconds: m.timeoutSeconds },
    { dependsOn: [job] },
  );
}

/**
 * platform.yml owns its Deployments: a field another manager took since the last deploy (the
 * autoscaler's replica count once `scale:` became `replicas:`, a `kubectl scale`) is taken back
 * (server-side apply with force), not a deploy failed on a conflict. A worker is not awaited.
 */
function deploymentAnnotations(worker: boolean): Record<string, string> {
  return { "pulumi.com/patchForce": "true", ...(worker ? { "pulumi.com/skipAwait": "true" } : {}) };
}

/**
 * A service that runs code (fastapi, nextjs, worker): its migration Job (not on a rollback: see
 * the Docker target), then its Deployment, which depends on it: a failed migration leaves the old
 * ReplicaSet running. A worker's Deployment is awaited by a WorkerRollout instead of Pulumi's
 * wait, which sits out a crash loop until its timeout: the first crash fails the deploy. What
 * the service's dependents wait for is returned.
 */
export function createAppWorkload(
  c: WorkloadContext,
  s: PlannedService,
  image: pulumi.Input<string>,
  envSecret: pulumi.Input<string>,
  /** The image the migration runs (the recipe's migrate stage, else the service's); undefined: no migration (a rollback). */
  migrationImage: pulumi.Input<string> | undefined,
): pulumi.Resource {
  const labels = podLabels(c.plan, s);
  const worker = s.type === "worker";
  const migrate = s.migrate && migrationImage ? createMigration(c, s, migrationImage, envSecret) : undefined;
  const deployment = new k8s.apps.v1.Deployment(
    s.name,
    {
      metadata: { name: s.name, namespace: c.namespace, labels, annotations: deploymentAnnotations(worker) },
      spec: deploymentSpec(c.plan, s, appContainer(s, image, envSecret, c.imageSource), c.imageSource, c.caConfigMap),
    },
    {
      provider: c.provider,
      dependsOn: [...c.dependsOn, ...(migrate ? [migrate] : [])],
      customTimeouts: timeouts(rolloutTimeoutSeconds(s)),
    },
  );
  const budget = disruptionBudgetSpec(s);
  if (budget)
    new k8s.policy.v1.PodDisruptionBudget(
      s.name,
      { metadata: { name: s.name, namespace: c.namespace, labels }, spec: budget },
      { provider: c.provider, dependsOn: [deployment] },
    );
  createAutoscaler(s, { namespace: c.namespace, labels }, deployment, c.provider);
  if (!worker) return deployment;
  return new WorkerRollout(
    `${s.name}-rollout`,
    {
      kubeconfig: c.kubeconfig,
      namespace: c.namespace,
      name: s.name,
      generation: deployment.metadata.generation,
      timeoutSeconds: rolloutTimeoutSeconds(s),
    },
    { dependsOn: [deployment] },
  );
}

/**
 * platform.yml `cron:`: one CronJob per job, after the service's workload (its image exists and
 * its migration ran). A CronJob's pods use the same env Secret, so new values reach the next run.
 */
export function createCronJobs(
  c: WorkloadContext,
  s: PlannedService,
  image: pulumi.Input<string>,
  envSecret: pulumi.Input<string>,
  workload: pulumi.Resource,
): void {
  for (const j of s.cron ?? []) {
    new k8s.batch.v1.CronJob(
      `${s.name}-cron-${j.name}`,
      {
        metadata: { name: cronJobName(s, j), namespace: c.namespace, labels: stackLabels(c.plan, s) },
        spec: cronJobSpec(c.plan, s, j, image, envSecret, c.imageSource, c.caConfigMap),
      },
      { provider: c.provider, dependsOn: [...c.dependsOn, workload] },
    );
  }
}
