import type Docker from "dockerode";
import { demuxLogs, dockerFromEnv } from "../../../docker-host.js";

export { demuxLogs };

let client: Docker | undefined;

/** The Engine API client of the plugin process. */
export function docker(): Docker {
  client ??= dockerFromEnv();
  return client;
}

/** True for the Engine API's "no such object" answers. */
export function isNotFound(err: unknown): boolean {
  return (err as { statusCode?: number })?.statusCode === 404;
}

/** The value of an Engine API read, or undefined when the object is gone (404). */
export async function unlessGone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** The last lines of a container's output, for error messages. */
export async function logTail(id: string, lines = 30): Promise<string> {
  try {
    const buf = (await docker().getContainer(id).logs({ stdout: true, stderr: true, tail: lines })) as unknown as Buffer;
    return demuxLogs(buf).trimEnd();
  } catch {
    return "";
  }
}

/**
 * Joins a shared container (the edge, the telemetry receiver) to an application's network.
 * Already attached (a re-created stack, or a new one that took over the networks) is the state
 * we want.
 */
export async function joinNetwork(network: string, container: string): Promise<void> {
  try {
    await docker().getNetwork(network).connect({ Container: container });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 403) throw err;
  }
}

/** Detaches a shared container from an application's network; either being gone already is fine. */
export async function leaveNetwork(network: string, container: string): Promise<void> {
  try {
    await docker().getNetwork(network).disconnect({ Container: container, Force: true });
  } catch (err) {
    const code = (err as { statusCode?: number }).statusCode;
    if (code !== 404 && code !== 403 && code !== 500) throw err;
  }
}
