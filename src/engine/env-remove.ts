import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { homePaths } from "../home/layout.js";
import { stackPrefix } from "../plan/naming.js";
import { removeOrphans } from "../runtime/docker.js";
import { removeTunnelsInto } from "../runtime/tunnel.js";
import type { Credentials } from "./credentials.js";
import { clearExpiry, expiredEnvironments } from "./env-expiry.js";
import { expiryNotice } from "./expiry-notify.js";
import { forgetApplied } from "./no-op.js";
import { destroyStack, stackRuntime } from "./stack-ops.js";

/** One environment of a project, and the platform.yml it was deployed from. */
export interface EnvironmentRef {
  project: string;
  env: string;
  configFile: string;
}

export interface Removal {
  /** Pulumi resources removed. */
  deleted: number;
  /** Data volumes (or PersistentVolumeClaims) removed. */
  volumes: string[];
  /** Data kept (retention: permanent) when data was not to be deleted. */
  kept: string[];
}

/** `platform destroy`: the stack's resources, then its data volumes when asked (else the list of what is kept). */
export async function destroyEnvironment(
  s: EnvironmentRef,
  creds: Credentials,
  o: { deleteData?: boolean; onNote?: (line: string) => void },
): Promise<Removal> {
  // Where the stack runs, read before the destroy (its settings go with the stack).
  const runtime = await stackRuntime(s, creds);
  const deleted = await destroyStack(s.project, s.env, creds, {
    configFile: s.configFile,
    onNote: (line) => o.onNote?.(line),
    removeOrphans: async (known) => {
      // Database tunnels (Studio's, platform db connect's) hold the network: they go first.
      const tunnels = await removeTunnelsInto(stackPrefix(s.project, s.env));
      return [...tunnels.map((n) => `tunnel: ${n}`), ...(await removeOrphans(s.project, s.env, known))];
    },
  });
  const volumes = o.deleteData ? await runtime.deleteData() : [];
  const kept = o.deleteData ? [] : await runtime.keptData();
  return { deleted, volumes, kept };
}

/** `platform envs delete` (and an expired environment): destroy with its data, then its backups, history and expiry. */
export async function removeEnvironment(s: EnvironmentRef, creds: Credentials, onNote?: (line: string) => void): Promise<Removal> {
  const removal = await destroyEnvironment(s, creds, { deleteData: true, onNote });
  rmSync(homePaths.backupsDir(s.project, s.env), { recursive: true, force: true });
  rmSync(join(homePaths.workspaceDir(s.project), "deployments", s.env), { recursive: true, force: true });
  forgetApplied(s.project, s.env);
  clearExpiry(s.project, s.env);
  return removal;
}

/**
 * Removes every expired environment on this machine (the next platform command or Studio does
 * it), each with its data. One that cannot be removed now (its platform.yml moved, the engine is
 * down) keeps its expiry and is tried again next time; `say` reports both.
 */
export async function removeExpiredEnvironments(creds: Credentials, say: (line: string) => void): Promise<number> {
  let removed = 0;
  for (const e of expiredEnvironments(creds.backendUrl)) {
    const what = `${e.env} of ${e.project} expired ${e.expiresAt.replace("T", " ").slice(0, 16)} UTC (deploy --expires ${e.duration})`;
    if (!existsSync(e.configFile)) {
      say(`${what}, but ${e.configFile} is gone: remove it with platform envs delete ${e.env} --project ${e.project} from its directory`);
      continue;
    }
    try {
      // notify: channels hear of it: read while the environment (its secrets) still exists.
      const notice = await expiryNotice(e, creds).catch(() => undefined);
      const r = await removeEnvironment(e, creds);
      removed++;
      say(`${what}: removed with its data (${r.deleted} resources${r.volumes.length ? `; data: ${r.volumes.join(", ")}` : ""})`);
      await notice?.(say);
    } catch (err) {
      say(`${what}, not removed yet (tried again by the next command): ${(err as Error).message.split("\n")[0]}`);
    }
  }
  return removed;
}
