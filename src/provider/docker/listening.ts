import { readFile } from "node:fs/promises";

/**
 * Whether a container has a socket listening on a TCP port, read from the host in its network
 * namespace (/proc/<pid>/net/tcp and tcp6): nothing runs in the container. A probe exec'd into
 * the container runs inside its CPU limit: while a FastAPI app started on 0.5 CPU, the health
 * probes (a Python process each) made its start a third slower (1.47 s to 1.91 s until uvicorn
 * listened, measured with the same image and limits). Undefined when the tables cannot be read
 * (the process gone, no permission); isLocalContainerProcess first tells whether the pid is
 * this machine's at all (not so for an engine on another machine or in a VM): the caller then
 * probes as before.
 */
export async function isListening(pid: number, port: number): Promise<boolean | undefined> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  let seen = false;
  for (const file of ["tcp", "tcp6"]) {
    let text: string;
    try {
      text = await readFile(`/proc/${pid}/net/${file}`, "utf8");
    } catch {
      continue;
    }
    seen = true;
    if (listensOn(text, hexPort)) return true;
  }
  return seen ? false : undefined;
}

/** The engine's pid for a container is a process of this machine only if it is in the container's cgroup. */
export async function isLocalContainerProcess(containerId: string, pid: number): Promise<boolean> {
  if (process.platform !== "linux") return false;
  return (await readFile(`/proc/${pid}/cgroup`, "utf8").catch(() => "")).includes(containerId);
}

/** A /proc/net/tcp table has a socket in state LISTEN (0A) on the port, any local address. */
export function listensOn(table: string, hexPort: string): boolean {
  for (const line of table.split("\n").slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state === "0A" && local?.endsWith(`:${hexPort}`)) return true;
  }
  return false;
}

/** The TCP ports a container listens on (any address), read as isListening reads them; undefined when unreadable. */
export async function listeningPorts(pid: number): Promise<number[] | undefined> {
  const ports = new Set<number>();
  let seen = false;
  for (const file of ["tcp", "tcp6"]) {
    const text = await readFile(`/proc/${pid}/net/${file}`, "utf8").catch(() => undefined);
    if (text === undefined) continue;
    seen = true;
    for (const p of portsListening(text)) ports.add(p);
  }
  return seen ? [...ports].sort((a, b) => a - b) : undefined;
}

/** Docker's embedded DNS server in every container of a user network: 127.0.0.11, on a random TCP port. */
const DOCKER_DNS = "0B00007F:";

/** The ports of a /proc/net/tcp table's sockets in state LISTEN (0A), but Docker's own DNS server's. */
export function portsListening(table: string): number[] {
  return table
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, , state]) => state === "0A" && local?.includes(":") && !local.startsWith(DOCKER_DNS))
    .map(([, local]) => Number.parseInt(local!.split(":").at(-1)!, 16));
}
