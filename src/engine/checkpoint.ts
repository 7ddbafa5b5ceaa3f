import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Credentials } from "./credentials.js";
import { fileBackendDir } from "./recover.js";

export interface CheckpointResource {
  readonly urn: string;
  readonly type: string;
  readonly id?: string;
  readonly outputs?: Record<string, unknown>;
}

/**
 * The resources of a stack's last checkpoint, read from a file backend directly (no CLI
 * call); undefined for another backend, a compressed or unreadable checkpoint, or one with
 * operations left half-done (recovery deals with those, and the deploy refreshes).
 */
export function checkpointResources(creds: Credentials, project: string, env: string): CheckpointResource[] | undefined {
  const backend = fileBackendDir(creds);
  if (!backend) return undefined;
  try {
    const file = JSON.parse(readFileSync(join(backend, "stacks", project, `${env}.json`), "utf8")) as {
      checkpoint?: { latest?: { resources?: CheckpointResource[]; pending_operations?: unknown[] } };
    };
    const latest = file.checkpoint?.latest;
    if (!latest?.resources || (latest.pending_operations?.length ?? 0) > 0) return undefined;
    return latest.resources;
  } catch {
    return undefined;
  }
}
