import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import writeFileAtomic from "write-file-atomic";
import { join } from "node:path";
import { promisify } from "node:util";
import { homePaths } from "../home/layout.js";
import type { ProgressEvent } from "./progress.js";

/** One deployment, as `platform deployments` lists it and Studio will show it. */
export interface DeploymentRecord {
  id: string;
  project: string;
  env: string;
  startedAt: string;
  finishedAt?: string;
  outcome: "running" | "succeeded" | "failed" | "canceled" | "interrupted";
  /** A rollback redeploys the images and configuration of an earlier deployment. */
  kind?: "deploy" | "rollback";
  rollbackOf?: string;
  git?: { commit: string; dirty: boolean };
  /** Who deployed: user@host of the machine that ran the CLI (records before 0.2 lack it). */
  by?: string;
  configHash: string;
  cliVersion: string;
  services: Record<string, { phase: string; phases: { phase: string; at: string }[] }>;
  migrations: Record<string, { logFile: string; output: string; exitCode?: number; failed?: boolean }>;
  /** The image each built service ran, by tag and inputs hash: what a rollback redeploys. */
  images?: Record<string, { tag: string; hash: string }>;
  /** The platform.yml this deployment used, kept beside the record (rollback reads it). */
  configCopy?: string;
  /** Lines the deploy printed besides phases: recovery, fallbacks, warnings. */
  notes?: string[];
  urls: Record<string, string>;
  changes?: Record<string, number>;
  /** Nothing to do, proven without the engine (no-op.ts): the deployment whose objects still run. */
  noChangeSince?: string;
  error?: string;
}

export function newDeploymentId(): string {
  return `dep_${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

function historyDir(project: string, env: string): string {
  return join(homePaths.workspaceDir(project), "deployments", env);
}

export function saveRecord(r: DeploymentRecord): void {
  const dir = historyDir(r.project, r.env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileAtomic.sync(join(dir, `${r.id}.json`), `${JSON.stringify(r, null, 2)}\n`, { mode: 0o600 });
}

/** Keeps the platform.yml of a deployment beside its record; returns where. */
export function saveConfigCopy(r: DeploymentRecord, text: string): string {
  const file = join(historyDir(r.project, r.env), `${r.id}.platform.yml`);
  mkdirSync(historyDir(r.project, r.env), { recursive: true, mode: 0o700 });
  writeFileAtomic.sync(file, text, { mode: 0o600 });
  return file;
}

export function findRecord(project: string, env: string, id: string): DeploymentRecord | undefined {
  return listRecords(project, env).find((r) => r.id === id);
}

export function listRecords(project: string, env: string): DeploymentRecord[] {
  let files: string[] = [];
  try {
    files = readdirSync(historyDir(project, env)).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
  return files
    .map((f) => JSON.parse(readFileSync(join(historyDir(project, env), f), "utf8")) as DeploymentRecord)
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

export function applyProgress(r: DeploymentRecord, e: ProgressEvent): void {
  r.services[e.service] ??= { phase: e.phase, phases: [] };
  const s = r.services[e.service]!;
  s.phase = e.phase;
  s.phases.push({ phase: e.phase, at: new Date(e.at).toISOString() });
}

/** The commit of the project directory and whether it has uncommitted changes; none outside git. */
export async function gitInfo(dir: string): Promise<DeploymentRecord["git"]> {
  const run = promisify(execFile);
  try {
    const { stdout: commit } = await run("git", ["rev-parse", "HEAD"], { cwd: dir });
    const { stdout: status } = await run("git", ["status", "--porcelain", "--", "."], { cwd: dir });
    return { commit: commit.trim(), dirty: status.trim().length > 0 };
  } catch {
    return undefined;
  }
}

/** How many successful deployments per environment keep their images for a rollback. */
export const ROLLBACK_DEPTH = 5;

/** Every environment of a project that has a history. */
function historyEnvs(project: string): string[] {
  try {
    return readdirSync(join(homePaths.workspaceDir(project), "deployments"));
  } catch {
    return [];
  }
}

/** The image tags of each environment's last successful deployments: what pruning keeps. */
export function imagesToKeep(project: string, depth = ROLLBACK_DEPTH): Set<string> {
  const keep = new Set<string>();
  for (const env of historyEnvs(project)) {
    for (const r of listRecords(project, env)
      .filter((x) => x.outcome === "succeeded")
      .slice(0, depth)) {
      for (const i of Object.values(r.images ?? {})) keep.add(i.tag);
    }
  }
  return keep;
}

/** A deployment can be rolled back to when it succeeded and kept what a rollback needs. */
export function canRollBackTo(r: DeploymentRecord): boolean {
  return r.outcome === "succeeded" && r.configCopy !== undefined && r.images !== undefined;
}

/**
 * The deployment `platform rollback [id]` goes back to: the one named, else the last
 * successful one before the current (the newest successful) deployment. A string says why not.
 */
export function chooseRollback(
  records: readonly DeploymentRecord[],
  id?: string,
): { target: DeploymentRecord; current?: DeploymentRecord } | string {
  const succeeded = records.filter((r) => r.outcome === "succeeded");
  const current = succeeded[0];
  // Redeploys of the same version are not a version to go back to.
  const differs = (r: DeploymentRecord) =>
    r.configHash !== current?.configHash || JSON.stringify(r.images) !== JSON.stringify(current?.images);
  const target = id ? records.find((r) => r.id === id) : succeeded.slice(1).find(differs);
  if (!target) return id ? `no deployment ${id} in this environment` : "there is no earlier successful deployment to roll back to";
  if (target.outcome !== "succeeded")
    return `${target.id} did not succeed (${target.outcome}): only successful deployments can be rolled back to`;
  if (!canRollBackTo(target)) return `${target.id} was made by an older platform that did not keep its images and platform.yml`;
  if (target.id === current?.id) return `${target.id} is the current deployment already`;
  return { target, current };
}
