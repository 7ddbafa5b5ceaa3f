import { docker } from "../docker-client.js";

/** What Studio shows of one service container beyond the list: limits, restarts, start time. */
export interface ContainerDetails {
  startedAt: string;
  restartCount: number;
  exitCode: number;
  oomKilled: boolean;
  /** Limits as the engine enforces them (null: unlimited). */
  limits: { cpus: number | null; memoryBytes: number | null; pids: number | null };
}

export async function containerDetails(containerId: string): Promise<ContainerDetails | undefined> {
  const info = await docker()
    .getContainer(containerId)
    .inspect()
    .catch(() => undefined);
  if (!info) return undefined;
  const h = info.HostConfig;
  return {
    startedAt: info.State.StartedAt,
    restartCount: info.RestartCount,
    exitCode: info.State.ExitCode,
    oomKilled: info.State.OOMKilled,
    limits: {
      cpus: h.NanoCpus ? h.NanoCpus / 1e9 : null,
      memoryBytes: h.Memory || null,
      pids: h.PidsLimit && h.PidsLimit > 0 ? h.PidsLimit : null,
    },
  };
}

export interface PostgresAccess {
  user: string;
  password: string;
  database: string;
  /** The stack network on which the server answers as `alias`. */
  network: string;
  alias: string;
}

/**
 * How to reach a postgres service: its credentials from the container's own environment
 * (the live truth, whatever the stack state says) and its name on the stack network.
 */
export async function postgresAccess(containerId: string, service: string): Promise<PostgresAccess | undefined> {
  const info = await docker()
    .getContainer(containerId)
    .inspect()
    .catch(() => undefined);
  if (!info) return undefined;
  const env = new Map((info.Config.Env ?? []).map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)] as const));
  const network = Object.keys(info.NetworkSettings.Networks ?? {})[0];
  if (!network || !env.has("POSTGRES_PASSWORD")) return undefined;
  const user = env.get("POSTGRES_USER") || "postgres";
  return { user, password: env.get("POSTGRES_PASSWORD") as string, database: env.get("POSTGRES_DB") || user, network, alias: service };
}
