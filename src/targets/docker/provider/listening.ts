import { readFile } from "node:fs/promises";

/**
 * Whether a container has a socket listening on a TCP port, read from the host in its network
 * namespace (/proc/<pid>/net/tcp and tcp6): nothing runs in the container. A probe exec'd into
 * the container runs inside its CPU limit: while a FastAPI app started on 0.5 CPU, the health
 * probes (a Python process each) made its start a third slower (1.47 s to 1.91 s until uvicorn
 * listened, measured with the same image and limits). Undefined when this cannot be told from
 * here (the engine on another machine or in a VM, no such process, no permission): the
 * caller probes as before.
 */
export async function isListening(containerId: string, pid: number | undefined, port: number): Promise<boolean | undefined> {
  if (!pid || process.platform !== "linux") return undefined;
  // The pid is the engine's: on this machine only if that process is in the container's cgroup.
  const cgroup = await readFile(`/proc/${pid}/cgroup`, "utf8").catch(() => "");
  if (!cgroup.includes(containerId)) return undefined;
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

/** A /proc/net/tcp table has a socket in state LISTEN (0A) on the port, any local address. */
export function listensOn(table: string, hexPort: string): boolean {
  for (const line of table.split("\n").slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state === "0A" && local?.endsWith(`:${hexPort}`)) return true;
  }
  return false;
}
