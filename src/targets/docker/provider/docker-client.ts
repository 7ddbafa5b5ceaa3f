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
