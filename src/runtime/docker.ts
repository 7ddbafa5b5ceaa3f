import { demuxLogs, docker, execInContainer } from "../docker-client.js";
import { edgeContainer } from "../plan/constants.js";
import { REPLICA_LABEL } from "../plan/types.js";
import type { LiveState } from "./target-runtime.js";

export { docker };
import { ExitCode, VisibleError } from "../errors.js";

/**
 * Live reads from the Docker target: what runs, its logs, files of the edge. Studio and the
 * CLI both read through here.
 */
export async function requireEngine(): Promise<void> {
  try {
    await docker().ping();
  } catch (e) {
    throw new VisibleError(
      `no Docker engine answers (${(e as Error).message}): start it (npm run setup starts dockerd) or set DOCKER_HOST`,
      { exitCode: ExitCode.environment },
    );
  }
}

export interface RunningService {
  service: string;
  containerId: string;
  containerName: string;
  image: string;
  state: string;
  status: string;
  health: "healthy" | "starting" | "exited" | "running";
  createdAt: string;
  /** Which copy of its service (platform.yml replicas): 1 for the first, or a service of one. */
  replica: number;
}

/** The service containers of one stack (migration jobs excluded), newest first. */
export function listServiceContainers(project: string, env: string): Promise<RunningService[]> {
  return serviceContainers([`platform.project=${project}`, `platform.env=${env}`]);
}

/** The running container of one service of a stack, if there is one. */
export async function runningContainer(project: string, env: string, service: string): Promise<RunningService | undefined> {
  return (await listServiceContainers(project, env)).find((x) => x.service === service && x.state === "running");
}

/** A service's containers as its copies (platform.yml replicas), in replica order. */
export function replicaViews(mine: readonly RunningService[]): { container: string; state: string; status: string }[] {
  return [...mine].sort((a, b) => a.replica - b.replica).map((c) => ({ container: c.containerName, state: c.state, status: c.status }));
}

/** The service containers of every stack on the engine, each with its project and env. */
export function listAllServiceContainers(): Promise<(RunningService & { project: string; env: string })[]> {
  return serviceContainers(["platform.project", "platform.env"]);
}

async function serviceContainers(label: string[]): Promise<(RunningService & { project: string; env: string })[]> {
  const list = await docker().listContainers({ all: true, filters: { label } });
  return list
    .filter((c) => c.Labels["platform.job"] !== "true" && c.Labels["platform.service"])
    .map(
      (c) =>
        ({
          project: c.Labels["platform.project"] as string,
          env: c.Labels["platform.env"] as string,
          service: c.Labels["platform.service"] as string,
          containerId: c.Id,
          containerName: (c.Names[0] ?? "").replace(/^\//, ""),
          image: c.Image,
          state: c.State,
          status: c.Status,
          health: c.State === "running" ? "running" : "exited",
          createdAt: new Date(c.Created * 1000).toISOString(),
          replica: Number(c.Labels[REPLICA_LABEL] ?? 1),
        }) satisfies RunningService & { project: string; env: string },
    )
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Runs a command in a container: exit code and output. */
export function execOutput(containerId: string, cmd: string[]): Promise<{ exitCode: number; output: string }> {
  return execInContainer(docker(), containerId, cmd);
}

/** The data volumes of a stack (kept by destroy for databases with retention: permanent). */
export async function listStackVolumes(project: string, env: string): Promise<string[]> {
  const { Volumes } = await docker().listVolumes({ filters: { label: [`platform.project=${project}`, `platform.env=${env}`] } });
  return (Volumes ?? []).map((v) => v.Name);
}

/**
 * Removes the data volumes of a stack (`platform destroy --delete-data`). A volume that a
 * container still uses is refused, with that container named: one the state does not know
 * (deployed with another state backend, or left by hand) is never removed for it.
 */
export async function removeStackVolumes(project: string, env: string): Promise<string[]> {
  const names = await listStackVolumes(project, env);
  const inUse: string[] = [];
  for (const name of names) {
    const users = await docker().listContainers({ all: true, filters: { volume: [name] } });
    if (users.length) inUse.push(`${name} (used by ${users.map((c) => (c.Names[0] ?? c.Id).replace(/^\//, "")).join(", ")})`);
  }
  if (inUse.length) {
    throw new VisibleError(
      `the data of ${project} (${env}) is still in use, so nothing was deleted: ${inUse.join("; ")}. ` +
        "These containers are not in this stack's state (deployed from another state backend, or started by hand): " +
        "destroy from the backend that deployed them, or remove them with docker rm -f, then run platform destroy --delete-data again",
    );
  }
  for (const name of names) await docker().getVolume(name).remove();
  return names;
}

/**
 * Containers of a stack that its state does not know: made by an operation that was
 * interrupted (a killed CLI) before the engine recorded it, or migration jobs left running.
 * They are stopped and removed, so none keeps a network alias or runs a migration.
 */
export async function removeOrphans(project: string, env: string, known: ReadonlySet<string>): Promise<string[]> {
  const list = await docker().listContainers({ all: true, filters: { label: [`platform.project=${project}`, `platform.env=${env}`] } });
  const orphans = list.filter((c) => !known.has(c.Id));
  for (const c of orphans) {
    const container = docker().getContainer(c.Id);
    // A job is killed at once (a half-run migration must not go on); a service gets its grace period.
    if (c.State === "running") await container.stop({ t: c.Labels["platform.job"] === "true" ? 0 : 10 }).catch(() => undefined);
    await container.remove({ force: true, v: true }).catch(() => undefined);
  }
  return orphans.map(
    (c) =>
      `${c.Labels["platform.service"] ?? "?"}${c.Labels["platform.job"] === "true" ? " (migration)" : ""}: ${(c.Names[0] ?? c.Id).replace(/^\//, "")}`,
  );
}

export type { LiveState } from "./target-runtime.js";

/**
 * Per service, whether it runs now and, when not, why: its exit code, an out-of-memory kill,
 * or that it was never deployed. What `status` shows and what a failed deploy reports.
 */
export async function liveStates(project: string, env: string): Promise<Map<string, LiveState>> {
  const states = new Map<string, LiveState>();
  for (const c of await listServiceContainers(project, env)) {
    const known = states.get(c.service);
    if (known?.running) continue;
    if (c.state === "running") {
      states.set(c.service, { running: true, detail: c.status });
      continue;
    }
    if (known) continue;
    const s = (
      await docker()
        .getContainer(c.containerId)
        .inspect()
        .catch(() => undefined)
    )?.State;
    const why = s?.OOMKilled
      ? "killed: out of memory (raise its resources preset)"
      : `exit code ${s?.ExitCode ?? "?"}${s?.Error ? `: ${s.Error}` : ""}`;
    states.set(c.service, { running: false, detail: `${c.state} (${why})` });
  }
  return states;
}

/**
 * Removes a project's images (`platform/<project>_<service>:<hash>`) that are not kept: the
 * last deployments' images stay for rollbacks; an image in use stays whatever the list says.
 */
export async function pruneImages(repositoryPrefix: string, keep: ReadonlySet<string>): Promise<string[]> {
  const images = await docker().listImages({ filters: { reference: [`${repositoryPrefix}*`] } });
  const removed: string[] = [];
  for (const tag of images.flatMap((i) => i.RepoTags ?? [])) {
    if (keep.has(tag) || !tag.startsWith(repositoryPrefix)) continue;
    try {
      await docker().getImage(tag).remove({ noprune: false });
      removed.push(tag);
    } catch {
      /* in use by a container, or gone: leave it */
    }
  }
  return removed;
}

/** The image tags that the engine does not have (any more). */
export async function missingImages(tags: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const tag of tags) {
    try {
      await docker().getImage(tag).inspect();
    } catch {
      missing.push(tag);
    }
  }
  return missing;
}

/** The shared edge's log lines since a time (Unix seconds): why a host has no certificate. */
export async function edgeLogSince(since: number): Promise<string> {
  const buf = (await docker().getContainer(edgeContainer()).logs({ stdout: true, stderr: true, since })) as unknown as Buffer;
  return demuxLogs(buf);
}

/** The edge of this engine as it runs: its mode, where it listens, where its certificates come from. */
export interface EdgeState {
  readonly name: string;
  readonly running: boolean;
  readonly mode: "local" | "public";
  readonly appsDomain?: string;
  /** `127.0.0.1:443`, or `*:80` and `*:443`. */
  readonly listens: string[];
  readonly httpsPort?: number;
  readonly acmeCa?: string;
  readonly acmeEmail?: string;
}

/** The engine's edge, or undefined when none runs (no public service deployed yet). */
export async function inspectEdge(): Promise<EdgeState | undefined> {
  const info = await docker()
    .getContainer(edgeContainer())
    .inspect()
    .catch(() => undefined);
  if (!info) return undefined;
  const labels = info.Config.Labels ?? {};
  // Where it listens: its labels (an edge in the host's network), or its published ports (an edge of an earlier version).
  const bindings = (info.HostConfig.PortBindings ?? {}) as Record<string, { HostIp?: string; HostPort: string }[] | null>;
  const listens =
    labels["platform.edge-listens"]?.split(",") ??
    Object.values(bindings).flatMap((b) => (b ?? []).map((x) => `${x.HostIp || "*"}:${x.HostPort}`));
  const https = labels["platform.edge-https-port"] ?? bindings["443/tcp"]?.[0]?.HostPort;
  return {
    name: edgeContainer(),
    running: info.State.Running,
    mode: labels["platform.edge-mode"] === "public" ? "public" : "local",
    ...(labels["platform.edge-domain"] ? { appsDomain: labels["platform.edge-domain"] } : {}),
    listens,
    ...(https ? { httpsPort: Number(https) } : {}),
    ...(labels["platform.edge-acme-ca"] ? { acmeCa: labels["platform.edge-acme-ca"] } : {}),
    ...(labels["platform.edge-acme-email"] ? { acmeEmail: labels["platform.edge-acme-email"] } : {}),
  };
}

/** One line about the edge, as status and doctor show it. */
export function describeEdge(e: EdgeState): string {
  const where = e.listens.join(", ");
  const certs = e.mode === "public" ? `certificates from ${e.acmeCa} (account ${e.acmeEmail})` : "certificates from the platform's own CA";
  return `${e.mode} (${e.appsDomain ?? "?"} on ${where}; ${certs})${e.running ? "" : "; not running"}`;
}
