import type { Config } from "../config/types.js";
import { remoteEngineAddress } from "../docker-ssh.js";
import { ExitCode, usageError, VisibleError } from "../errors.js";
import type { Plan } from "../plan/types.js";
import { copyBaseImagesToServer } from "./base-images.js";
import { readCronRuns, readRedisFacts } from "./cron-read.js";
import { dockerOneOff, printContainerLogs } from "./docker-cli.js";
import { listServiceContainers, listStackVolumes, liveStates, removeStackVolumes, replicaViews, requireEngine } from "./docker.js";
import { containerDetails } from "./inspect.js";
import { dockerRecovery } from "./pg-recover.js";
import { streamLogs } from "./log-stream.js";
import { readUsage, type Usage } from "./stats.js";
import type { DeployPreparation, PreparedDeploy, ServiceLive, TargetRuntime } from "./target-runtime.js";

/** What the Docker target cannot do that platform.yml asks for, said once per deploy. */
function dockerNotes(config: Config, plan: Plan): string[] {
  const sized = plan.services.filter((s) => s.database?.storage && config.services[s.name]?.resources.storageWritten);
  return [
    ...(sized.length
      ? [
          `storage sizes (${sized.map((s) => `${s.name}: ${s.database?.storage}`).join(", ")}) are not enforced by Docker's local volumes; a Kubernetes volume enforces them`,
        ]
      : []),
    ...plan.services.flatMap((s) => (s.scale ? [scaleNote(s.name, s.scale)] : [])),
  ];
}

/** Docker has no autoscaler: a scaled service runs its fewest copies. */
const scaleNote = (name: string, { min, max }: { min: number; max: number }) =>
  `${name}: scale runs ${min} ${min === 1 ? "copy" : "copies"} on Docker, which has no autoscaler; on Kubernetes it runs ${min} to ${max} by CPU load`;

/**
 * A deploy to the Docker engine: the public services come in through this machine's edge (a
 * cluster's ingress is for Kubernetes); base images a server over SSH lacks are built here and
 * copied to it once.
 */
async function prepareDockerDeploy(p: DeployPreparation): Promise<PreparedDeploy> {
  if (p.frontDoor.mode.value === "ingress")
    throw usageError(`${p.frontDoor.mode.source}: ingress is for the Kubernetes target`, "add --target kubernetes, or leave it out");
  const bases = await p.ensureBaseImages(!!remoteEngineAddress());
  await copyBaseImagesToServer(p.plan.images, (line) => p.progress(line), bases);
  return { frontDoor: null, notes: dockerNotes(p.config, p.plan) };
}

/**
 * The Docker target's runtime: the stack's containers on this machine's engine (or the server's,
 * over SSH), found by their labels platform.project and platform.env.
 */
export function dockerRuntime(project: string, env: string): TargetRuntime {
  const containers = () => listServiceContainers(project, env);
  /** The service's running container, else its newest; a VisibleError naming the service when it has none. */
  const containerOf = async (service: string, what: "deployed" | "running") => {
    await requireEngine();
    const mine = (await containers()).filter((x) => x.service === service);
    const c = mine.find((x) => x.state === "running") ?? mine[0];
    if (!c) throw new VisibleError(`${service} is not ${what} in ${project} (${env}): run platform deploy`, { exitCode: ExitCode.failed });
    return c;
  };
  return {
    target: "docker",
    project,
    env,
    words: {
      countsCopies: true,
      unenforcedStorage: (service, storage) =>
        `${service}: storage ${storage} is not enforced by Docker's local volumes (a Kubernetes volume enforces it)`,
      copies: "containers",
      upgradesDatabases: true,
      cronScheduler: true,
    },
    prepareDeploy: prepareDockerDeploy,
    reachable: () => requireEngine(),
    liveStates: () => liveStates(project, env),
    async services() {
      await requireEngine();
      const [all, live] = await Promise.all([containers(), liveStates(project, env)]);
      const out = new Map<string, ServiceLive>();
      for (const [name, state] of live) {
        const mine = all.filter((x) => x.service === name);
        const running = mine.find((x) => x.state === "running") ?? mine[0];
        out.set(name, { ...state, image: running?.image ?? "", copies: replicaViews(mine) });
      }
      return out;
    },
    async instances() {
      return (await containers()).map((c) => ({
        service: c.service,
        name: c.containerName,
        state: c.state,
        status: c.status,
        image: c.image,
        replica: c.replica,
        details: () => containerDetails(c.containerId),
        redis: () => readRedisFacts(c.containerId),
      }));
    },
    async runningServices() {
      return new Set((await containers()).filter((c) => c.state === "running").map((c) => c.service));
    },
    // A migration container's output is in the deployment's own error.
    failureLogs: async () => [],
    async printLogs(service, o) {
      await printContainerLogs((await containerOf(service, "deployed")).containerId, o);
    },
    streamLogs: (q, onLine, onEnd) => streamLogs({ ...q, project, env }, onLine, onEnd),
    async oneOff(kind, service, command, tty) {
      return dockerOneOff((await containerOf(service, "running")).containerId, kind, service, command, tty);
    },
    async cronRuns(n) {
      await requireEngine();
      return readCronRuns(project, env, n);
    },
    async databaseHost(service) {
      await requireEngine();
      return (await containers()).find((x) => x.service === service && x.state === "running")?.containerId;
    },
    async usage() {
      const running = (await containers()).filter((c) => c.state === "running");
      const read = await Promise.all(running.map(async (c) => ({ service: c.service, usage: await readUsage(c.containerId) })));
      return read.filter((r): r is { service: string; usage: Usage } => r.usage !== undefined);
    },
    async databaseRecovery(service) {
      await requireEngine();
      const c = (await containers()).find((x) => x.service === service && x.state === "running");
      if (!c)
        throw new VisibleError(`${service} is not running in ${project} (${env}): run platform deploy`, { exitCode: ExitCode.failed });
      return dockerRecovery(c.containerId, service);
    },
    keptData: () => listStackVolumes(project, env),
    deleteData: () => removeStackVolumes(project, env),
    telemetry: undefined,
  };
}
