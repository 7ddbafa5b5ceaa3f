import type Docker from "dockerode";

/** Limits and hardening shared by service containers and migration jobs. */
export function limits(l: { cpus?: number; memoryBytes?: number; pidsLimit?: number }): Docker.HostConfig {
  return {
    // No setuid/setcap escalation: an image's entrypoint may drop from root, never rise to it.
    SecurityOpt: ["no-new-privileges:true"],
    ...(l.cpus ? { NanoCpus: Math.round(l.cpus * 1e9) } : {}),
    ...(l.memoryBytes ? { Memory: l.memoryBytes } : {}),
    ...(l.pidsLimit ? { PidsLimit: l.pidsLimit } : {}),
  };
}
