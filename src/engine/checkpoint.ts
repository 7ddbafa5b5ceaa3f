import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Credentials } from "./credentials.js";
import { fileBackendDir } from "./recover.js";
import { SIG_KEY } from "../provider/contract/wire.js";

export interface CheckpointResource {
  readonly urn: string;
  readonly type: string;
  readonly id?: string;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
}

/** A stack's last checkpoint: its resources and its passphrase's salt state (state-secrets.ts). */
export interface Checkpoint {
  readonly resources: CheckpointResource[];
  readonly saltState?: string;
}

/**
 * A stack's last checkpoint, read from a file backend directly (no CLI call); undefined for
 * another backend, a compressed or unreadable checkpoint, or one with operations left
 * half-done (recovery deals with those, and the deploy refreshes).
 */
export function readCheckpoint(creds: Credentials, project: string, env: string): Checkpoint | undefined {
  const backend = fileBackendDir(creds);
  if (!backend) return undefined;
  try {
    const file = JSON.parse(readFileSync(join(backend, "stacks", project, `${env}.json`), "utf8")) as {
      checkpoint?: {
        latest?: {
          resources?: CheckpointResource[];
          pending_operations?: unknown[];
          secrets_providers?: { type?: string; state?: { salt?: unknown } };
        };
      };
    };
    const latest = file.checkpoint?.latest;
    if (!latest?.resources || (latest.pending_operations?.length ?? 0) > 0) return undefined;
    const salt = latest.secrets_providers?.type === "passphrase" ? latest.secrets_providers.state?.salt : undefined;
    return { resources: latest.resources, ...(typeof salt === "string" ? { saltState: salt } : {}) };
  } catch {
    return undefined;
  }
}

/** The resources of a stack's last checkpoint (readCheckpoint). */
export function checkpointResources(creds: Credentials, project: string, env: string): CheckpointResource[] | undefined {
  return readCheckpoint(creds, project, env)?.resources;
}

/**
 * The stack's outputs as the CLI's `stack output --json` gives them, secrets masked, read from
 * a file backend's last checkpoint (the root `pulumi:pulumi:Stack` resource): no CLI call
 * (`stack ls`, `stack select` and two `stack output`, 1 s and more together). Undefined when
 * checkpointResources is (the caller asks the CLI then).
 */
export function checkpointOutputs(
  creds: Credentials,
  project: string,
  env: string,
): Record<string, { value: unknown; secret: boolean }> | undefined {
  const resources = checkpointResources(creds, project, env);
  return resources && rootOutputs(resources);
}

/** The outputs of a checkpoint's root stack resource, secrets masked (as checkpointOutputs). */
export function rootOutputs(resources: readonly CheckpointResource[]): Record<string, { value: unknown; secret: boolean }> {
  const root = resources.find((r) => r.type === "pulumi:pulumi:Stack");
  return Object.fromEntries(
    Object.entries(root?.outputs ?? {}).map(([k, v]) => {
      const secret = typeof v === "object" && v !== null && SIG_KEY in v;
      return [k, secret ? { value: "[secret]", secret: true } : { value: v, secret: false }];
    }),
  );
}
