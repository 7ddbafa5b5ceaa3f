/** What the test cluster's process runner needs to know of one component (components.ts lists them). */

/** How `up` and `status` tell that a component serves. */
export type HealthCheck =
  | { kind: "http"; url: string }
  /** TLS with the admin client certificate (the API server allows nothing anonymous). */
  | { kind: "https-admin"; url: string }
  /** TLS with an in-memory self-signed certificate; /healthz is open to anyone. */
  | { kind: "https-insecure"; url: string }
  /** containerd's version call on its socket. */
  | { kind: "containerd"; socket: string };

export interface ComponentSpec {
  name: string;
  command: string;
  args: string[];
  health: HealthCheck;
  /** Variables over the system tools' environment (Traefik reads its kubeconfig from KUBECONFIG). */
  env?: Record<string, string>;
  /** A node's network namespace (nodes.ts) the process runs in: only its network is the node's, files and mounts are the host's. */
  netns?: string;
  /** How long `down` waits after SIGTERM before SIGKILL (default 10 s). */
  stopGraceMs?: number;
}

/** pflag reads a boolean only in the form --flag=value, so every flag is given that way. */
export function toFlags(...pairs: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) out.push(`${pairs[i]}=${pairs[i + 1]}`);
  return out;
}
