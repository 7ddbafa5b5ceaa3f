import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import { docker, isNotFound, unlessGone } from "./docker-client.js";
import type { ResourceHandler } from "./handler.js";
import { execIn, type HealthCheck, waitHealthy } from "./health.js";

/** Inputs of platform:docker:Container (see targets/docker/resources.ts for the documented SDK side). */
export interface ContainerInputs {
  name: string;
  image: string;
  env?: Record<string, string>;
  command?: string[];
  networks: { name: string; aliases?: string[] }[];
  volumes?: { name: string; target: string }[];
  labels?: Record<string, string>;
  cpus?: number;
  memoryBytes?: number;
  /** Container port published on 127.0.0.1 (an ephemeral host port): health probes and debugging. */
  port?: number;
  health?: HealthCheck;
  healthTimeoutSeconds?: number;
  stopFirst?: boolean;
  stopGraceSeconds?: number;
  /** A command run inside the container once healthy; it must exit 0. */
  postStart?: string[];
}

/** Immutable containers: any change to these replaces the container (new before old, unless stopFirst). */
const INPUT_KEYS = ["name", "image", "env", "command", "networks", "volumes", "labels", "cpus", "memoryBytes", "port", "health", "postStart"] as const;

function createOptions(c: ContainerInputs, containerName: string): Docker.ContainerCreateOptions {
  const [first] = c.networks;
  const port = c.port ? `${c.port}/tcp` : undefined;
  return {
    name: containerName,
    Image: c.image,
    Env: Object.entries(c.env ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(c.command ? { Cmd: c.command } : {}),
    Labels: { ...(c.labels ?? {}), "platform.managed": "true" },
    ...(port ? { ExposedPorts: { [port]: {} } } : {}),
    StopTimeout: c.stopGraceSeconds ?? 20,
    HostConfig: {
      NetworkMode: first?.name,
      Mounts: (c.volumes ?? []).map((v) => ({ Type: "volume" as const, Source: v.name, Target: v.target })),
      // No restarts until it has proven healthy (a crash must fail the deploy, not loop).
      RestartPolicy: { Name: "no" },
      Init: true,
      ...(c.cpus ? { NanoCpus: Math.round(c.cpus * 1e9) } : {}),
      ...(c.memoryBytes ? { Memory: c.memoryBytes } : {}),
      ...(port ? { PortBindings: { [port]: [{ HostIp: "127.0.0.1", HostPort: "" }] } } : {}),
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
    },
    NetworkingConfig: first ? { EndpointsConfig: { [first.name]: { Aliases: first.aliases ?? [] } } } : undefined,
  };
}

async function runPostStart(id: string, command: string[], label: string): Promise<void> {
  const r = await execIn(id, command);
  if (r.exitCode !== 0) throw new Error(`${label}: its start-up step failed (exit ${r.exitCode})\n${r.output.trimEnd()}`);
}

/** Stops gracefully (SIGTERM, the grace period, then SIGKILL) and removes; gone already is fine. */
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

export const containerHandler: ResourceHandler = {
  inputKeys: INPUT_KEYS,
  deleteBeforeReplace: (news) => news.stopFirst === true,

  async create(_urn, inputs) {
    const c = inputs as unknown as ContainerInputs;
    // A fresh name per create lets the new container run beside the old one (blue/green).
    const containerName = `${c.name}-${randomBytes(3).toString("hex")}`;
    const container = await docker().createContainer(createOptions(c, containerName));
    try {
      for (const n of c.networks.slice(1)) {
        await docker().getNetwork(n.name).connect({ Container: container.id, EndpointConfig: { Aliases: n.aliases ?? [] } });
      }
      await container.start();
      await waitHealthy(container.id, c.health ?? { kind: "running" }, c.healthTimeoutSeconds ?? 120, `service container ${containerName}`);
      if (c.postStart) await runPostStart(container.id, c.postStart, containerName);
      await container.update({ RestartPolicy: { Name: "unless-stopped", MaximumRetryCount: 0 } });
    } catch (e) {
      // A failed create leaves nothing behind.
      await container.remove({ force: true, v: true }).catch(() => undefined);
      throw e;
    }
    return { id: container.id, outs: { containerName } };
  },

  async read(id) {
    const info = await unlessGone(() => docker().getContainer(id).inspect());
    return info && { containerName: info.Name.replace(/^\//, ""), running: info.State.Running };
  },

  async delete(id, props) {
    await stopAndRemove(id, Number(props.stopGraceSeconds ?? 20));
  },
};
