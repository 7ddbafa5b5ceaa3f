import Docker from "dockerode";

let client: Docker | undefined;

/** The Engine API client: DOCKER_HOST when set (unix or tcp), else the default socket. */
export function docker(): Docker {
  if (client) return client;
  const host = process.env.DOCKER_HOST;
  if (host && host.startsWith("tcp://")) {
    const u = new URL(host.replace(/^tcp:/, "http:"));
    client = new Docker({ host: u.hostname, port: Number(u.port || 2375) });
  } else {
    client = new Docker({ socketPath: host ? host.replace(/^unix:\/\//, "") : "/var/run/docker.sock" });
  }
  return client;
}

/** True for the Engine API's "no such object" answers. */
export function isNotFound(err: unknown): boolean {
  return (err as { statusCode?: number })?.statusCode === 404;
}

/** Demultiplexes Docker's 8-byte-header log frames into text (non-TTY containers). */
export function demuxLogs(buf: Buffer): string {
  const out: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const len = buf.readUInt32BE(i + 4);
    out.push(buf.subarray(i + 8, i + 8 + len));
    i += 8 + len;
  }
  return Buffer.concat(out).toString("utf8");
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
