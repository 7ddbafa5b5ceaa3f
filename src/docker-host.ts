import Docker from "dockerode";

/** An Engine API client for DOCKER_HOST (unix:// or tcp://), else the default socket. */
export function dockerFromEnv(): Docker {
  const host = process.env.DOCKER_HOST;
  if (host?.startsWith("tcp://")) {
    const u = new URL(host.replace(/^tcp:/, "http:"));
    return new Docker({ host: u.hostname, port: Number(u.port || 2375) });
  }
  return new Docker({ socketPath: host ? host.replace(/^unix:\/\//, "") : "/var/run/docker.sock" });
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
