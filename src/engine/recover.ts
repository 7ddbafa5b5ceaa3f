import { copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import { ExitCode, VisibleError } from "../errors.js";
import type { Credentials } from "./credentials.js";
import { listRecords, saveRecord } from "./history.js";
import { describeHolder, isAlive, type LockHolder } from "./lock.js";

/**
 * Recovery after an interrupted operation (a killed CLI, a machine restart): the engine's lock
 * of a process that is gone is released, operations the engine left half-done are cleared
 * from the state (the objects they made are found by their labels and removed by the
 * caller), and a deployment record still "running" is marked interrupted.
 */
export interface Recovery {
  notes: string[];
  /** Ids of the resources in the state, by resource type: what is not among them is an orphan. */
  stateIds: Map<string, Set<string>>;
}

interface PulumiLock {
  pid: number;
  username: string;
  hostname: string;
  timestamp: string;
  file: string;
  unreadable?: boolean;
}

/** The .pulumi directory of a file backend (file://...), else undefined. */
export function fileBackendDir(creds: Credentials): string | undefined {
  return creds.backendUrl.startsWith("file://") ? join(fileURLToPath(creds.backendUrl.replace(/\/*$/, "")), ".pulumi") : undefined;
}

function isJson(file: string): boolean {
  try {
    JSON.parse(readFileSync(file, "utf8"));
    return true;
  } catch {
    return false;
  }
}

/**
 * A file backend's stack files after the engine was killed mid-write: the checkpoint is
 * written atomically, but its `.attrs` sidecar is not, and an empty one makes every later
 * command fail with "failed to load checkpoint: EOF". An unreadable sidecar is removed (it
 * only holds a content type and a checksum), an unreadable checkpoint is restored from its
 * backup, and leftover temporary files go. Runs before the stack is opened.
 */
export function repairFileBackend(creds: Credentials, project: string, env: string): string[] {
  const root = fileBackendDir(creds);
  if (!root) return [];
  const dir = join(root, "stacks", project);
  const notes: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(`${env}.json`));
  } catch {
    return [];
  }
  for (const name of names) {
    const file = join(dir, name);
    if (name.endsWith(".tmp")) {
      rmSync(file, { force: true });
      continue;
    }
    if (name.endsWith(".attrs") && !isJson(file)) {
      rmSync(file, { force: true });
      notes.push(`repaired the state of ${project}/${env}: ${name} was left half-written by the interrupted engine`);
    }
  }
  const checkpoint = join(dir, `${env}.json`);
  if (names.includes(`${env}.json`) && !isJson(checkpoint) && isJson(`${checkpoint}.bak`)) {
    copyFileSync(`${checkpoint}.bak`, checkpoint);
    rmSync(`${checkpoint}.attrs`, { force: true });
    notes.push(`restored the state of ${project}/${env} from its backup: the checkpoint was left half-written`);
  }
  return notes;
}

/** Lock files of a file backend's stack: .pulumi/locks/<org>/<project>/<stack>/<id>.json. */
function pulumiLocks(creds: Credentials, project: string, env: string): PulumiLock[] {
  const backend = fileBackendDir(creds);
  if (!backend) return [];
  const root = join(backend, "locks");
  const locks: PulumiLock[] = [];
  const visit = (dir: string, depth: number) => {
    let entries: import("node:fs").Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory() && depth < 4) visit(full, depth + 1);
      else if (e.isFile() && e.name.endsWith(".json") && full.endsWith(join(project, env, e.name))) {
        try {
          locks.push({ ...(JSON.parse(readFileSync(full, "utf8")) as PulumiLock), file: full });
        } catch {
          locks.push({ pid: 0, username: "?", hostname: hostname(), timestamp: "?", file: full, unreadable: true });
        }
      }
    }
  };
  visit(root, 0);
  return locks;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The engine lock: released when its process is gone. An engine still running after its CLI
 * died is waited for (it was told to stop when the CLI died); one run by hand (`pulumi up`)
 * is someone else's work, so we stop and say whose.
 */
async function releaseEngineLocks(creds: Credentials, project: string, env: string, cliDied: boolean, notes: string[]): Promise<void> {
  for (const lock of pulumiLocks(creds, project, env)) {
    if (lock.unreadable) {
      // Half-written by an engine that was killed while taking it; nobody can hold it.
      if (cliDied) {
        rmSync(lock.file, { force: true });
        notes.push("removed an engine lock file left half-written");
        continue;
      }
      throw new VisibleError(`${project} (${env}) has an unreadable engine lock (${lock.file}); nothing was changed`, {
        exitCode: ExitCode.failed,
        details: ["  hint: if no deploy or pulumi command is running on this stack, remove that file"],
      });
    }
    const local = lock.hostname === hostname();
    for (let waited = 0; local && cliDied && isAlive(lock.pid) && waited < 30_000; waited += 250) await sleep(250);
    if (local && !isAlive(lock.pid)) {
      rmSync(lock.file, { force: true });
      notes.push(`released the engine lock left by pid ${lock.pid}, which is gone`);
      continue;
    }
    throw new VisibleError(
      `${project} (${env}) is locked by a Pulumi operation of ${lock.username}@${lock.hostname} (pid ${lock.pid}, since ${lock.timestamp}); nothing was changed`,
      {
        exitCode: ExitCode.failed,
        details: ["  hint: wait for it to finish (someone may be running pulumi up on this stack), then run this again"],
      },
    );
  }
}

function resourceIds(deployment: { resources?: { type: string; id?: string }[] }): Map<string, Set<string>> {
  const ids = new Map<string, Set<string>>();
  for (const r of deployment.resources ?? []) {
    if (!r.id) continue;
    if (!ids.has(r.type)) ids.set(r.type, new Set());
    ids.get(r.type)!.add(r.id);
  }
  return ids;
}

/** Drops pending operations (a create the engine started but never recorded) from the state. */
async function clearPendingOperations(stack: Stack, notes: string[]): Promise<Map<string, Set<string>>> {
  const state = await stack.exportStack();
  const pending = (state.deployment?.pending_operations ?? []) as { type: string; resource: { urn: string } }[];
  if (pending.length) {
    notes.push(
      `cleared ${pending.length} operation${pending.length === 1 ? "" : "s"} left half-done: ${pending.map((p) => `${p.type} of ${p.resource.urn.split("::").pop()}`).join(", ")}`,
    );
    state.deployment.pending_operations = [];
    await stack.importStack(state);
  }
  return resourceIds(state.deployment ?? {});
}

function markInterrupted(project: string, env: string, notes: string[]): void {
  for (const r of listRecords(project, env).filter((x) => x.outcome === "running")) {
    saveRecord({
      ...r,
      outcome: "interrupted",
      finishedAt: r.finishedAt ?? new Date().toISOString(),
      error: r.error ?? "the CLI stopped before the deployment finished (killed, or the machine restarted)",
    });
    notes.push(`${r.id} was interrupted; recorded as such`);
  }
}

/**
 * Runs before every deploy, destroy and rollback. Cheap when nothing was interrupted (a
 * directory read); after an interruption it reads the state once.
 */
export async function recoverStack(
  stack: Stack,
  creds: Credentials,
  project: string,
  env: string,
  died?: LockHolder,
  always = false,
): Promise<Recovery | undefined> {
  const notes: string[] = died ? [`the previous ${describeHolder(died)} was interrupted: recovering`] : [];
  const interrupted = died !== undefined || listRecords(project, env).some((r) => r.outcome === "running");
  await releaseEngineLocks(creds, project, env, died !== undefined, notes);
  if (!interrupted && !always) return undefined;
  markInterrupted(project, env, notes);
  const stateIds = await clearPendingOperations(stack, notes);
  return { notes, stateIds };
}

/** Docker containers the state knows: services' containers, and the Kubernetes target's edge forwarders. */
export function knownContainers(stateIds: ReadonlyMap<string, Set<string>> | undefined): Set<string> {
  return new Set(["platform:docker:Container", "platform:kubernetes:EdgeForwarder"].flatMap((t) => [...(stateIds?.get(t) ?? [])]));
}
