import Docker from "dockerode";

/**
 * The one Docker Engine API client module: the CLI, the runtime reads, Studio and the provider
 * plugin all reach the engine through here. DOCKER_HOST (unix:// or tcp://) picks the engine;
 * an ssh:// one is reached through the socket docker-ssh.ts serves once the process connected.
 */
export function dockerFromEnv(): Docker {
  const host = process.env.DOCKER_HOST;
  if (host?.startsWith("ssh://")) throw new Error("the engine over SSH was not connected in this process (docker-ssh.ts connectEngine)");
  if (host?.startsWith("tcp://")) {
    const u = new URL(host.replace(/^tcp:/, "http:"));
    return new Docker({ host: u.hostname, port: Number(u.port || 2375) });
  }
  return new Docker({ socketPath: host ? host.replace(/^unix:\/\//, "") : "/var/run/docker.sock" });
}

/**
 * An engine at tcp://: what it publishes on its host's 127.0.0.1 (the edge's port, a tunnel) is
 * out of this machine's reach. One over SSH is reached through forwards (docker-ssh.ts).
 */
export function isTcpEngine(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^tcp:/.test(env.DOCKER_HOST ?? "");
}

let client: Docker | undefined;

/** The process's client, made on first use. */
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

/** Runs a command inside a container: its exit code and combined output. `env` adds to the container's. */
export async function execInContainer(
  client: Docker,
  id: string,
  command: string[],
  env?: string[],
): Promise<{ exitCode: number; output: string }> {
  const exec = await client.getContainer(id).exec({ Cmd: command, AttachStdout: true, AttachStderr: true, ...(env ? { Env: env } : {}) });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", resolve);
    stream.on("error", () => resolve());
  });
  const { ExitCode } = await exec.inspect();
  return { exitCode: ExitCode ?? -1, output: demuxLogs(Buffer.concat(chunks)) };
}
