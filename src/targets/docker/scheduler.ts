import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { CRON_SCHEDULER } from "../../plan/naming.js";
import type { Plan, PlannedService } from "../../plan/types.js";
import { Container, Volume } from "./resources.js";

/** The install's root: this file is <root>/dist/targets/docker/ (or src/ when run from source). */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const DIR = "/opt/platform-scheduler";
export const SCHEDULER_JOBS_FILE = "/etc/platform-scheduler/jobs.json";
export const SCHEDULER_RUNS_FILE = "/data/runs.jsonl";
export const SCHEDULER_LABEL = "platform.scheduler";

/** What the scheduler needs to start one job's runs: the service's image, variables and limits. */
export interface ScheduledService {
  readonly service: PlannedService;
  readonly image: pulumi.Input<string>;
  readonly env: pulumi.Output<Record<string, string>>;
  readonly container: Container;
}

/**
 * The stack's cron scheduler (platform.yml `cron:`): images/scheduler/scheduler.mjs and croner,
 * on the platform's Node image, with the Engine's socket: it starts a fresh container of the
 * service's image per run. Its jobs file holds the services' variables, so it is a secret input
 * written 0600 into the container (never a file on the host). It starts after the services whose
 * jobs it runs: their images exist and their migrations ran.
 */
export function createScheduler(plan: Plan, scheduled: readonly ScheduledService[], network: pulumi.Resource): Container | undefined {
  const withJobs = scheduled.filter((x) => x.service.cron?.length);
  if (withJobs.length === 0) return undefined;
  const jobs = pulumi.all(
    withJobs.flatMap((x) =>
      (x.service.cron ?? []).map((j) =>
        pulumi.all([pulumi.output(x.image), x.env]).apply(([image, env]) => ({
          service: x.service.name,
          name: j.name,
          schedule: j.schedule,
          command: [...j.command],
          timeoutSeconds: j.timeoutSeconds,
          image,
          env,
          cpus: x.service.cpus,
          memoryBytes: x.service.memoryBytes,
          pidsLimit: x.service.pidsLimit,
        })),
      ),
    ),
  );
  const jobsJson = pulumi.secret(
    jobs.apply((list) => JSON.stringify({ prefix: plan.network, network: plan.network, jobs: list }, null, 2)),
  );
  const labels = { ...plan.labels, [SCHEDULER_LABEL]: "true" };
  const volume = new Volume("cron-runs", { name: `${plan.network}_cron`, retain: false, labels }, { dependsOn: [network] });
  const read = (p: string) => readFileSync(join(ROOT, p), "utf8");
  return new Container(
    CRON_SCHEDULER,
    {
      name: `${plan.network}_scheduler`,
      image: plan.images.node,
      command: ["node", `${DIR}/scheduler.mjs`],
      env: { RUNS_FILE: SCHEDULER_RUNS_FILE },
      networks: [{ name: plan.network }],
      volumes: volume.volumeName.apply((name) => [{ name, target: "/data" }]),
      binds: ["/var/run/docker.sock:/var/run/docker.sock"],
      files: jobsJson.apply((content) => [
        { path: `${DIR}/scheduler.mjs`, content: read("images/scheduler/scheduler.mjs"), mode: 0o644 },
        { path: `${DIR}/croner.mjs`, content: read("node_modules/croner/dist/croner.js"), mode: 0o644 },
        { path: SCHEDULER_JOBS_FILE, content, mode: 0o600 },
      ]),
      labels,
      cpus: 0.25,
      memoryBytes: 128 * 1024 * 1024,
      pidsLimit: 128,
      health: { kind: "running", settleSeconds: 2 },
      stopGraceSeconds: 30,
    },
    { dependsOn: [network, volume, ...withJobs.map((x) => x.container)] },
  );
}
