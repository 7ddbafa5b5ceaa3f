import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import { docker, isNotFound, unlessGone } from "../../docker-client.js";
import type { ResourceHandler } from "../handler.js";
import { baseImages } from "../../home/images.js";
import { ensureBaseImages } from "./base-images.js";
import { limits } from "./hardening.js";
import { putFiles } from "./files.js";
import { execIn, waitHealthy } from "./health.js";
import { syncEdgeAllowList } from "./edge-allow.js";
import { DOMAIN_LABEL_PREFIX, PUBLIC_HOST_LABEL } from "./ownership.js";
import { refuseTakenHost } from "./public-host.js";
import { restartPrevious, stopPrevious } from "./stop-first.js";
import type { ContainerInputs } from "../contract/docker-inputs.js";

export type { ContainerInputs };

/** Immutable containers: any change to these replaces the container, new before old. */
const INPUT_KEYS = [
  "name",
  "image",
  "env",
  "command",
  "networks",
  "volumes",
  "binds",
  "files",
  "labels",
  "cpus",
  "memoryBytes",
  "pidsLimit",
  "health",
  "postStart",
  "databases",
] as const;

/** OTEL_RESOURCE_ATTRIBUTES (the platform's, or the service's own) plus deployment.id, unless it has one. */
export function withDeploymentId(env: Record<string, string>, deploymentId: string | undefined): Record<string, string> {
  const attrs = env.OTEL_RESOURCE_ATTRIBUTES;
  if (!deploymentId || attrs === undefined || /(^|,)\s*deployment\.id\s*=/.test(attrs)) return env;
  return { ...env, OTEL_RESOURCE_ATTRIBUTES: `${attrs ? `${attrs},` : ""}deployment.id=${encodeURIComponent(deploymentId)}` };
}

// Nothing is published on the host: health probes run inside the container (health.ts) and
// public traffic comes through the edge, the only container with a host port.
function createOptions(c: ContainerInputs, containerName: string): Docker.ContainerCreateOptions {
  const [first] = c.networks;
  return {
    name: containerName,
    Image: c.image,
    Env: Object.entries(withDeploymentId(c.env ?? {}, c.deploymentId)).map(([k, v]) => `${k}=${v}`),
    ...(c.command ? { Cmd: c.command } : {}),
    Labels: { ...(c.labels ?? {}), "platform.managed": "true" },
    StopTimeout: c.stopGraceSeconds ?? 20,
    HostConfig: {
      NetworkMode: first?.name,
      Mounts: (c.volumes ?? []).map((v) => ({ Type: "volume" as const, Source: v.name, Target: v.target })),
      ...(c.binds?.length ? { Binds: c.binds } : {}),
      // No restarts until it has proven healthy (a crash must fail the deploy, not loop).
      RestartPolicy: { Name: "no" },
      Init: true,
      ...limits(c),
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
    },
    NetworkingConfig: first ? { EndpointsConfig: { [first.name]: { Aliases: first.aliases ?? [] } } } : undefined,
  };
}

async function runPostStart(id: string, command: string[], label: string): Promise<void> {
  const r = await execIn(id, command);
  if (r.exitCode !== 0) throw new Error(`${label}: its start-up step failed (exit ${r.exitCode})\n${r.output.trimEnd()}`);
}

/** Stops gracefully (SIGTERM, the grace period, then SIGKILL) and removes; gone or stopped already is fine. */
export async function stopAndRemove(id: string, graceSeconds: number): Promise<void> {
  const c = docker().getContainer(id);
  try {
    await c.stop({ t: graceSeconds });
  } catch (e) {
    if (isNotFound(e)) return;
    if ((e as { statusCode?: number }).statusCode !== 304) throw e;
  }
  try {
    await c.remove({ force: true, v: true });
  } catch (e) {
    if (!isNotFound(e) && (e as { statusCode?: number }).statusCode !== 409) throw e;
  }
}

/** Creates, starts and proves a container healthy; a failure leaves nothing behind. */
async function startContainer(c: ContainerInputs): Promise<{ id: string; containerName: string }> {
  // A fresh name per create lets the new container run beside the old one (blue/green).
  const containerName = `${c.name}-${randomBytes(3).toString("hex")}`;
  // A catalogue image (a PostgreSQL major) is built on first need, also under a plain `pulumi up`.
  await ensureBaseImages([c.image], baseImages());
  const container = await docker().createContainer(createOptions(c, containerName));
  try {
    for (const n of c.networks.slice(1)) {
      await docker()
        .getNetwork(n.name)
        .connect({ Container: container.id, EndpointConfig: { Aliases: n.aliases ?? [] } });
    }
    await putFiles(container, c.files ?? [], c.image);
    await container.start();
    await waitHealthy(container.id, c.health ?? { kind: "running" }, c.healthTimeoutSeconds ?? 120, `service container ${containerName}`);
    if (c.postStart) await runPostStart(container.id, c.postStart, containerName);
    // From here on the engine restarts it after a crash; `docker stop` and `docker kill` are
    // a person's decision, which the next deploy undoes (read reports it as not running).
    await container.update({ RestartPolicy: { Name: "unless-stopped", MaximumRetryCount: 0 } });
  } catch (e) {
    await container.remove({ force: true, v: true }).catch(() => undefined);
    throw e;
  }
  return { id: container.id, containerName };
}

/** A container the edge routes public traffic to (its host label, or a custom domain). */
function isPublic(labels: ContainerInputs["labels"]): boolean {
  return Object.keys(labels ?? {}).some((k) => k === PUBLIC_HOST_LABEL || k.startsWith(DOMAIN_LABEL_PREFIX));
}

export const containerHandler: ResourceHandler = {
  inputKeys: INPUT_KEYS,
  forceReplace: (olds) => (olds.running === false ? ["running"] : []),

  async create(_urn, inputs) {
    const c = inputs as unknown as ContainerInputs;
    await refuseTakenHost(c.labels);
    const stopped = c.stopFirst
      ? await stopPrevious(
          (c.volumes ?? []).map((v) => v.name),
          c.labels,
          c.stopGraceSeconds ?? 20,
        )
      : [];
    try {
      const { id, containerName } = await startContainer(c);
      if (isPublic(c.labels)) await syncEdgeAllowList();
      // The same shape as read: a refresh right after a deploy changes nothing.
      return { id, outs: { containerName, running: true, exitCode: 0, oomKilled: false } };
    } catch (e) {
      if (stopped.length === 0) throw e;
      throw new Error(
        `${(e as Error).message}\n${await restartPrevious(stopped, c.health ?? { kind: "running" }, c.healthTimeoutSeconds ?? 120)}`,
      );
    }
  },

  // The truth, not the last wish: a container that was killed, stopped, paused or is in a
  // restart loop reports running: false, which makes the next diff replace it.
  async read(id) {
    const info = await unlessGone(() => docker().getContainer(id).inspect());
    if (!info) return undefined;
    const s = info.State;
    return {
      containerName: info.Name.replace(/^\//, ""),
      running: s.Running && !s.Paused && !s.Restarting,
      exitCode: s.ExitCode,
      oomKilled: s.OOMKilled,
    };
  },

  async delete(id, props) {
    await stopAndRemove(id, Number(props.stopGraceSeconds ?? 20));
    if (isPublic(props.labels as ContainerInputs["labels"])) await syncEdgeAllowList();
  },
};
