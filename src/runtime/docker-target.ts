import { ExitCode, VisibleError } from "../errors.js";
import { readCronRuns, readRedisFacts } from "./cron-read.js";
import { dockerOneOff, printContainerLogs } from "./docker-cli.js";
import { listServiceContainers, listStackVolumes, liveStates, removeStackVolumes, replicaViews, requireEngine } from "./docker.js";
import { containerDetails } from "./inspect.js";
import { streamLogs } from "./log-stream.js";
import { readUsage, type Usage } from "./stats.js";
import type { ServiceLive, TargetRuntime } from "./target-runtime.js";

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
      certificateLog: "the edge's log says more: docker logs of the edge container (platform doctor names it)",
      countsCopies: true,
      unenforcedStorage: (service, storage) =>
        `${service}: storage ${storage} is not enforced by Docker's local volumes (a Kubernetes volume enforces it)`,
    },
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
    keptData: () => listStackVolumes(project, env),
    deleteData: () => removeStackVolumes(project, env),
    telemetry: undefined,
  };
}
